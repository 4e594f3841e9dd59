//! The digits example's whole chain (CSV -> TFRecord shards -> queue pipeline -> Adam training ->
//! checkpoint -> restore in a new graph -> evaluation pipeline) on the shipped data, with fewer
//! epochs than the example; guards that the held-out accuracy still reaches 0.90.

#[allow(dead_code)]
#[path = "../../examples/digits/model.rs"]
mod model;
#[allow(dead_code)]
#[path = "../../examples/digits/pipeline.rs"]
pub(crate) mod pipeline;
#[allow(dead_code)]
#[path = "../../examples/digits/train.rs"]
mod train;

use std::time::Instant;

use model::Kind;
use train::Config;
use weir::graph::graph_def::{proto::GraphDef, Message};

#[test]
fn softmax_through_the_queue_pipeline_reaches_090_held_out() -> weir::Result<()> {
    let start = Instant::now();
    let out = std::env::temp_dir().join(format!("weir-digits-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let digits = pipeline::load_digits(&pipeline::data_path())?;
    assert_eq!(digits.len(), 1797);
    let (train_set, eval_set) = pipeline::split(digits);
    assert_eq!((train_set.len(), eval_set.len()), (1438, 359));
    let train_files = pipeline::write_shards(&out.join("data"), "train", &train_set, 4)?;
    let eval_files = pipeline::write_shards(&out.join("data"), "eval", &eval_set, 2)?;
    let cfg = Config {
        kind: Kind::Softmax,
        epochs: 10,
        batch_size: 32,
        learning_rate: 0.02,
        verbose: false,
    };
    let trained = train::train_pipeline(
        &cfg,
        &train_files,
        train_set.len(),
        &out.join("checkpoints"),
        &out.join("logs"),
    )?;
    // shuffle_batch drops the last partial batch: floor(10 * 1438 / 32) steps.
    assert_eq!(trained.steps, 449);
    assert!(trained.last_loss.is_finite());
    let (hits, total) = train::evaluate(cfg.kind, &trained.checkpoint, &eval_files)?;
    assert_eq!(
        total, 359,
        "the evaluation pipeline saw every held-out digit once"
    );
    let accuracy = hits as f64 / total as f64;
    assert!(accuracy >= 0.90, "held-out accuracy {accuracy}");
    let events: Vec<_> = std::fs::read_dir(out.join("logs"))?.collect::<Result<_, _>>()?;
    assert_eq!(events.len(), 1, "one TensorBoard event file");
    // The graph is in it, for TensorBoard's Graphs tab.
    let graphs = weir::ops::io::tf_record_iterator(
        events[0].path(),
        weir::ops::io::TfRecordOptions::default(),
    )?
    .filter_map(|r| {
        let e = weir::ops::summary::proto::Event::decode(r.ok()?).ok()?;
        match e.what? {
            weir::ops::summary::proto::event::What::GraphDef(b) => GraphDef::decode(b).ok(),
            _ => None,
        }
    })
    .collect::<Vec<_>>();
    assert_eq!(graphs.len(), 1);
    assert!(graphs[0].node.iter().any(|n| n.op == "ApplyAdam"));
    std::fs::remove_dir_all(&out)?;
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
    Ok(())
}

#[test]
fn a_malformed_csv_line_names_file_and_line() {
    let dir = std::env::temp_dir().join(format!("weir-digits-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    let good = vec!["0"; 64].join(",") + ",3";
    std::fs::write(&path, format!("{good}\n{}\n", vec!["17"; 65].join(","))).unwrap();
    let err = pipeline::load_digits(&path)
        .err()
        .expect("pixel 17 is rejected");
    assert_eq!(err.code(), weir::Code::InvalidArgument);
    assert!(err.message().contains("bad.csv:2"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
