//! The digits as sparse features, the way a TensorFlow 1 "wide" model reads them: each image
//! becomes an Example whose `pixels` is a variable-length list of the ids of its inked pixels,
//! with their intensities in `weights`; `make_batched_features_dataset` parses batches of them
//! into sparse tensors (`VarLenFeature`) and the label, and a linear softmax model combines the
//! weights of each image's pixel ids with `embedding_lookup_sparse`, trained with Adam until the
//! dataset ends. The held-out fifth is read the same way, one epoch, in file order.
//!
//! `cargo run --release --example digits_sparse [-- --epochs N] [--min-accuracy A]`

#[allow(dead_code)]
#[path = "../digits/pipeline.rs"]
mod pipeline;
mod run;

use weir::{Error, Result};

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn main() -> Result<()> {
    let epochs: i64 = arg("--epochs").and_then(|v| v.parse().ok()).unwrap_or(30);
    let min_accuracy: f64 = arg("--min-accuracy")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.93);
    let dir = std::env::temp_dir().join(format!("weir-digits-sparse-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::internal(format!("{}: {e}", dir.display())))?;
    let (train, held_out) = pipeline::split(pipeline::load_digits(&pipeline::data_path())?);
    let train_file = run::write_sparse(
        &dir.join("train.tfrecord"),
        train.iter().map(|d| (&d.pixels[..], d.label)),
    )?;
    let eval_file = run::write_sparse(
        &dir.join("eval.tfrecord"),
        held_out.iter().map(|d| (&d.pixels[..], d.label)),
    )?;
    let accuracy = run::train_and_evaluate(&train_file, &eval_file, held_out.len(), epochs, true)?;
    println!("held-out accuracy: {accuracy:.3}");
    std::fs::remove_dir_all(&dir).ok();
    if accuracy < min_accuracy {
        return Err(Error::internal(format!(
            "held-out accuracy {accuracy:.3} is below {min_accuracy}"
        )));
    }
    Ok(())
}
