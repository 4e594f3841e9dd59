//! The `digits_tfdata` example's training program with fewer epochs: TFRecord shards read
//! through `tf.data` (map, shuffle, batch, repeat, prefetch, a reinitializable iterator) train
//! the network to at least 0.90 held-out accuracy.

#[path = "../../examples/digits_tfdata/run.rs"]
mod run;

use crate::digits_pipeline::pipeline;

#[test]
fn the_tfdata_pipeline_trains_the_digits_to_090_held_out() -> weir::Result<()> {
    let dir = std::env::temp_dir().join(format!("weir-digits-tfdata-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (train, held_out) = pipeline::split(pipeline::load_digits(&pipeline::data_path())?);
    let train_files = pipeline::write_shards(&dir, "train", &train, 2)?;
    let eval_files = pipeline::write_shards(&dir, "eval", &held_out, 1)?;
    let accuracy = run::train_and_evaluate(
        &train_files,
        train.len(),
        &eval_files,
        held_out.len(),
        8,
        false,
    )?;
    std::fs::remove_dir_all(&dir).ok();
    assert!(accuracy >= 0.90, "held-out accuracy {accuracy}");
    Ok(())
}
