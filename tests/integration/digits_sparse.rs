//! The `digits_sparse` example's training program with fewer epochs: the digits as Examples of
//! sparse features, read by `make_batched_features_dataset` as sparse tensors and combined by
//! `embedding_lookup_sparse` in a linear model, reach at least 0.90 held-out accuracy.

#[path = "../../examples/digits_sparse/run.rs"]
mod run;

use crate::digits_pipeline::pipeline;

#[test]
fn sparse_features_from_make_batched_features_dataset_train_the_digits_to_090() -> weir::Result<()>
{
    let dir = std::env::temp_dir().join(format!("weir-digits-sparse-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (train, held_out) = pipeline::split(pipeline::load_digits(&pipeline::data_path())?);
    let train_file = run::write_sparse(
        &dir.join("train.tfrecord"),
        train.iter().map(|d| (&d.pixels[..], d.label)),
    )?;
    let eval_file = run::write_sparse(
        &dir.join("eval.tfrecord"),
        held_out.iter().map(|d| (&d.pixels[..], d.label)),
    )?;
    let accuracy = run::train_and_evaluate(&train_file, &eval_file, held_out.len(), 8, false)?;
    std::fs::remove_dir_all(&dir).ok();
    assert!(accuracy >= 0.90, "held-out accuracy {accuracy}");
    Ok(())
}
