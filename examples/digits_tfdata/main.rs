//! The digits trained through `tf.data`, as a TensorFlow 1.4+ program reads its input: the
//! shipped digits become TFRecord shards of Examples; `TFRecordDataset -> map(parse) ->
//! shuffle -> batch -> repeat -> prefetch` feeds a 64-128-10 network trained with Adam; one
//! reinitializable iterator (`Iterator.from_structure`) switches between the training and the
//! held-out dataset, and training ends on the iterator's OutOfRange.
//!
//! `cargo run --release --example digits_tfdata [-- --epochs N] [--min-accuracy A]`

#[allow(dead_code)]
#[path = "../digits/pipeline.rs"]
mod pipeline;
mod run;

use weir::{Error, Result};

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn main() -> Result<()> {
    let epochs: i64 = arg("--epochs").and_then(|v| v.parse().ok()).unwrap_or(40);
    let min_accuracy: f64 = arg("--min-accuracy")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.96);
    let dir = std::env::temp_dir().join(format!("weir-digits-tfdata-{}", std::process::id()));
    let (train, held_out) = pipeline::split(pipeline::load_digits(&pipeline::data_path())?);
    let train_files = pipeline::write_shards(&dir, "train", &train, 2)?;
    let eval_files = pipeline::write_shards(&dir, "eval", &held_out, 1)?;
    println!(
        "wrote {} training and {} held-out Examples under {}",
        train.len(),
        held_out.len(),
        dir.display()
    );
    let accuracy = run::train_and_evaluate(
        &train_files,
        train.len(),
        &eval_files,
        held_out.len(),
        epochs,
        true,
    )?;
    println!("held-out accuracy: {accuracy:.3}");
    std::fs::remove_dir_all(&dir).ok();
    if accuracy < min_accuracy {
        return Err(Error::internal(format!(
            "held-out accuracy {accuracy:.3} is below {min_accuracy}"
        )));
    }
    Ok(())
}
