//! TensorFlow's documented queue pipeline, as TensorFlow 2.21's `tf.compat.v1` writes it
//! (tests/data/tf_graphs/pipeline.pb, made by make_graphs.py), imported and run here:
//! `string_input_producer` with its `Assert` and `ResourceCountUpTo`, `TFRecordReader`,
//! `parse_single_example` and `parse_example` as `ParseExampleV2`, `decode_raw`, `batch`. Its
//! batches and parses must be the ones TensorFlow produced from the same records.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value as Json;
use weir::graph::graph_def::proto::GraphDef;
use weir::graph::graph_def::Message;
use weir::prelude::*;
use weir::Code;

/// Bounds every run that waits on a queue, so a stalled pipeline fails the test.
const WAIT: Duration = Duration::from_secs(20);

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tf_graphs")
        .join(name)
}

fn expected() -> Json {
    let all: Json =
        serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap();
    all["pipeline"].clone()
}

fn s<'a>(v: &'a Json, key: &str) -> &'a str {
    v[key].as_str().unwrap()
}

fn f32s(v: &Json) -> Vec<f32> {
    match v {
        Json::Array(a) => a.iter().flat_map(f32s).collect(),
        x => vec![x.as_f64().unwrap() as f32],
    }
}

fn i64s(v: &Json) -> Vec<i64> {
    match v {
        Json::Array(a) => a.iter().flat_map(i64s).collect(),
        x => vec![x.as_i64().unwrap()],
    }
}

/// The pipeline graph imported into a new graph, its file names replaced by `files`.
fn import(files: Vec<String>) -> Result<Graph> {
    let def = GraphDef::decode(&std::fs::read(data("pipeline.pb")).unwrap()[..]).unwrap();
    let g = Graph::new();
    let names = constant(&g, Tensor::from(files))?;
    import_graph_def(
        &g,
        &ImportGraphDef::new(&def)
            .name("")
            .input_map(s(&expected(), "filenames"), &names),
    )?;
    Ok(g)
}

/// The example `i` of make_graphs.py.
fn example(i: i64) -> Bytes {
    let weights: Vec<f32> = (0..i % 3).map(|k| 0.5 * k as f32 + i as f32).collect();
    Example::builder()
        .int64("label", [i])
        .bytes(
            "image_raw",
            vec![i as u8, i as u8 + 1, 2 * i as u8, 250 + i as u8],
        )
        .float("weights", weights)
        .build()
        .to_bytes()
}

#[test]
fn tensorflows_queue_pipeline_graph_yields_tensorflows_batches() -> Result<()> {
    let want = expected();
    let path = data("pipeline.tfrecord").to_string_lossy().into_owned();
    let g = import(vec![path])?;
    let sess = Session::new(&g)?;
    let op = |name: &str| g.operation_by_name(name).unwrap();
    sess.run(&RunArgs::new().target(&op(s(&want, "init"))))?;
    // GraphDefs carry no queue runners (TensorFlow keeps them in the MetaGraph): made here
    // from the ones TensorFlow listed.
    let coord = Coordinator::new();
    let mut threads = Vec::new();
    for r in want["runners"].as_array().unwrap() {
        let queue = Queue::from_operation(&op(s(r, "queue")))?;
        let enqueues: Vec<Operation> = r["enqueue_ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| op(e.as_str().unwrap()))
            .collect();
        let runner = QueueRunner::new(&queue, &enqueues)?;
        threads.extend(runner.create_threads(&sess.handle(), Some(&coord), true)?);
    }
    let (images, labels) = (
        g.tensor_by_name(s(&want, "images"))?,
        g.tensor_by_name(s(&want, "labels"))?,
    );
    let mut batches = Vec::new();
    loop {
        match sess.run(&RunArgs::new().fetch(&images).fetch(&labels).timeout(WAIT)) {
            Ok(out) => batches.push((out[0].to_vec::<f32>()?, out[1].to_vec::<i64>()?)),
            Err(e) if e.code() == Code::OutOfRange => break,
            Err(e) => panic!("pipeline failed: {e}"),
        }
    }
    coord.request_stop(None)?;
    coord.join(&threads, Duration::from_secs(10))?;
    let want_batches: Vec<(Vec<f32>, Vec<i64>)> = want["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (f32s(&b["images"]), i64s(&b["labels"])))
        .collect();
    assert_eq!(batches, want_batches);
    Ok(())
}

#[test]
fn parse_example_v2_parses_one_example_and_a_batch_as_tensorflow_did() -> Result<()> {
    let want = expected();
    let g = import(vec![])?;
    let sess = Session::new(&g)?;
    let t = |v: &Json, key: &str| g.tensor_by_name(s(v, key)).unwrap();
    let single = &want["single"];
    let out = sess.run(
        &RunArgs::new()
            .feed(g.tensor_by_name("one:0")?, Tensor::from(example(2)))
            .fetch(t(single, "indices"))
            .fetch(t(single, "values"))
            .fetch(t(single, "dense_shape")),
    )?;
    let got = &single["got"];
    assert_eq!(out[0].to_vec::<i64>()?, i64s(&got[0]));
    assert_eq!(out[0].shape(), &[2, 1]);
    assert_eq!(out[1].to_vec::<f32>()?, f32s(&got[1]));
    assert_eq!(out[2].to_vec::<i64>()?, i64s(&got[2]));
    let batch = &want["batch"];
    let serialized = Tensor::from(vec![example(1), example(2), Bytes::new()]);
    let out = sess.run(
        &RunArgs::new()
            .feed(g.tensor_by_name("many:0")?, serialized)
            .fetch(t(batch, "label"))
            .fetch(t(batch, "indices"))
            .fetch(t(batch, "values"))
            .fetch(t(batch, "dense_shape")),
    )?;
    let got = &batch["got"];
    // The empty string is an example without features: the label's default, no weights.
    assert_eq!(out[0].to_vec::<i64>()?, i64s(&got[0]));
    assert_eq!(out[1].to_vec::<i64>()?, i64s(&got[1]));
    assert_eq!(out[2].to_vec::<f32>()?, f32s(&got[2]));
    assert_eq!(out[3].to_vec::<i64>()?, i64s(&got[3]));
    // The pipeline's parse, fed a record without its required label: the parser's
    // InvalidArgument, as for weir's own op.
    let e = sess
        .run(
            &RunArgs::new()
                .feed(
                    g.tensor_by_name("ReaderReadV2:1")?,
                    Tensor::from(Bytes::new()),
                )
                .fetch(g.tensor_by_name("ParseSingleExample/ParseExample/ParseExampleV2:0")?),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(
        e.to_string()
            .contains("Feature: image_raw (data type: string) is required but could not be found."),
        "{e}"
    );
    Ok(())
}

#[test]
fn an_empty_file_list_fails_the_producers_assert_with_tensorflows_message() -> Result<()> {
    let want = expected();
    let g = import(vec![])?;
    let sess = Session::new(&g)?;
    let op = |name: &str| g.operation_by_name(name).unwrap();
    sess.run(&RunArgs::new().target(&op(s(&want, "init"))))?;
    let enqueue = want["runners"][0]["enqueue_ops"][0].as_str().unwrap();
    let e = sess
        .run(&RunArgs::new().target(&op(enqueue)).timeout(WAIT))
        .unwrap_err();
    let tf = &want["empty_error"];
    assert_eq!(tf[0], "InvalidArgumentError");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.to_string().contains(tf[1].as_str().unwrap()),
        "{e} lacks {}",
        tf[1]
    );
    Ok(())
}

/// TensorFlow 2's `tf.io.parse_sequence_example` of a batch (`ParseSequenceExampleV2`, keys as
/// inputs; tests/data/tf_graphs/make_sequence_batch.py) imports as weir's batched parser and
/// gives TensorFlow's values, padding and lengths.
#[test]
fn a_batched_parse_sequence_example_imports_and_parses_as_tensorflow_did() -> Result<()> {
    let want: Json =
        serde_json::from_str(&std::fs::read_to_string(data("parse_sequence_batch.json")).unwrap())
            .unwrap();
    let def =
        GraphDef::decode(&std::fs::read(data("parse_sequence_batch.pb")).unwrap()[..]).unwrap();
    assert!(def.node.iter().any(|n| n.op == "ParseSequenceExampleV2"));
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&def).name(""))?;
    let examples: Vec<Bytes> = want["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let bytes: Vec<u8> = e
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_u64().unwrap() as u8)
                .collect();
            Bytes::from(bytes)
        })
        .collect();
    let keys = [
        "len",
        "tags_indices",
        "tags_shape",
        "vecs",
        "vecs_length",
        "toks_indices",
        "toks_values",
        "toks_shape",
    ];
    let mut args = RunArgs::new().feed(g.tensor_by_name("serialized:0")?, Tensor::from(examples));
    for k in keys.iter().chain(&["tags_values"]) {
        args = args.fetch(g.tensor_by_name(s(&want["names"], k))?);
    }
    let out = Session::new(&g)?.run(&args)?;
    for (k, t) in keys.iter().zip(&out) {
        let tf = &want["got"][*k];
        let dims: Vec<usize> = want["shapes"][*k]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(t.shape(), &dims[..], "{k}");
        match t.dtype() {
            DType::F32 => assert_eq!(t.to_vec::<f32>()?, f32s(tf), "{k}"),
            _ => assert_eq!(t.to_vec::<i64>()?, i64s(tf), "{k}"),
        }
    }
    let tags: Vec<String> = want["got"]["tags_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(out[keys.len()].to_strings()?, tags);
    Ok(())
}

#[test]
fn parsers_with_keys_as_inputs_import_as_weirs_and_parse_as_tensorflow_did() -> Result<()> {
    let all: Json =
        serde_json::from_str(&std::fs::read_to_string(data("expected.json")).unwrap()).unwrap();
    let want = &all["parse_keys_as_inputs"];
    // TensorFlow 1.x's ParseExample and TensorFlow 2's ParseSequenceExampleV2.
    let ops: Vec<&str> = want["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert!(ops.contains(&"ParseExample") && ops.contains(&"ParseSequenceExampleV2"));
    let def =
        GraphDef::decode(&std::fs::read(data("parse_keys_as_inputs.pb")).unwrap()[..]).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &ImportGraphDef::new(&def).name(""))?;
    let seq: Vec<u8> = want["sequence_example"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    let keys = [
        "v1_label",
        "v1_indices",
        "v1_values",
        "v1_shape",
        "len",
        "tokens_indices",
        "tokens_values",
        "vecs",
    ];
    let mut args = RunArgs::new()
        .feed(
            g.tensor_by_name("many:0")?,
            Tensor::from(vec![example(1), example(2), Bytes::new()]),
        )
        .feed(g.tensor_by_name("one:0")?, Tensor::from(Bytes::from(seq)));
    for k in keys {
        args = args.fetch(g.tensor_by_name(s(&want["names"], k))?);
    }
    let out = Session::new(&g)?.run(&args)?;
    for (k, t) in keys.iter().zip(&out) {
        let tf = &want["got"][*k];
        match t.dtype() {
            DType::F32 => assert_eq!(t.to_vec::<f32>()?, f32s(tf), "{k}"),
            _ => assert_eq!(t.to_vec::<i64>()?, i64s(tf), "{k}"),
        }
    }
    Ok(())
}
