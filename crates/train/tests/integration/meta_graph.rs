//! Meta graphs: a training program's `.meta` file, written by TensorFlow 2.21
//! (tests/data/meta_graph, made by make_meta_graph.py there) or by weir's `Saver::save`, is
//! imported by a program that has no model code; it restores the checkpoint through the saver
//! the meta graph names, starts the queue runners it records, and trains on through the
//! `train_op` collection, with TensorFlow's losses and variables.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::util::{f64s, flat};
use weir_graph::graph_def::meta_graph::{collection_def::Kind, MetaGraphDef};
use weir_graph::graph_def::Message;
use weir_graph::{graph_keys, CollectionItem, Graph, Operation, Output, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::math::{add, matmul, Reduce};
use weir_ops::nn;
use weir_ops::state::{global_variables, global_variables_initializer, trainable_variables};
use weir_ops::summary::scalar;
use weir_session::{RunArgs, Session};
use weir_train::{
    get_or_create_global_step, import_meta_graph, latest_checkpoint, queue_runners,
    start_queue_runners, variable_scope, Batch, Coordinator, ExportMetaGraph, GetVariable,
    ImportMetaGraph, Initializer, MomentumOptimizer, Optimizer, SaveArgs, Saver,
    SliceInputProducer,
};

const T: Duration = Duration::from_secs(20);

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/meta_graph")
}

fn expected(kind: &str) -> Value {
    let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all[kind].clone()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-meta-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-5 * (1.0 + b.abs())
}

/// The only operation in collection `key`, once de-duplicated (TensorFlow's optimizer adds
/// its train op to `train_op`, and the program adds it once more).
fn the_op(g: &Graph, key: &str) -> Operation {
    let mut ops: Vec<Operation> = g
        .get_collection(key)
        .into_iter()
        .map(|item| match item {
            CollectionItem::Operation(op) => op,
            _ => panic!("{key} holds something other than an operation"),
        })
        .collect();
    ops.dedup_by_key(|op| op.id());
    assert_eq!(ops.len(), 1, "{key}");
    ops.pop().unwrap()
}

fn the_tensor(g: &Graph, key: &str) -> Output {
    match g.get_collection(key).as_slice() {
        [CollectionItem::Output(o)] => o.clone(),
        _ => panic!("{key} does not hold one tensor"),
    }
}

/// Restores `checkpoint` through `saver`, runs (loss, train op) `steps` times with the queue
/// runners of `g` going, and returns the losses and every global variable's values by name.
fn train_on(
    g: &Graph,
    saver: &Saver,
    checkpoint: &str,
    steps: usize,
) -> (Vec<f64>, Vec<(String, Vec<f64>)>) {
    let sess = Session::new(g).unwrap();
    saver.restore(&sess, checkpoint).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let train = the_op(g, graph_keys::TRAIN_OP);
    let loss = the_tensor(g, "loss");
    let args = RunArgs::new().fetch(&loss).target(&train).timeout(T);
    let losses = (0..steps)
        .map(|_| sess.run(&args).unwrap()[0].to_scalar::<f32>().unwrap() as f64)
        .collect();
    coord.request_stop(None).unwrap();
    coord.join(&threads, T).unwrap();
    let mut values = Vec::new();
    for v in global_variables(g).unwrap() {
        let t = sess
            .run(&RunArgs::new().fetch(v.value()))
            .unwrap()
            .remove(0);
        let vals = f64s(&t);
        values.push((v.name(), vals));
    }
    (losses, values)
}

fn check_against_tensorflow(kind: &str, scope: Option<&str>) {
    let exp = expected(kind);
    let dir = data_dir().join(kind);
    let checkpoint = latest_checkpoint(&dir).unwrap().unwrap();
    assert!(checkpoint.ends_with("model.ckpt-3"), "{checkpoint}");
    let g = Graph::new();
    let mut import = ImportMetaGraph::from_file(format!("{checkpoint}.meta")).unwrap();
    if let Some(s) = scope {
        import = import.import_scope(s);
    }
    let saver = import
        .import(&g)
        .unwrap()
        .expect("the meta graph has a saver");
    for (key, n) in exp["collections"].as_object().unwrap() {
        assert_eq!(
            g.get_collection(key).len() as u64,
            n.as_u64().unwrap(),
            "{kind}: collection {key}"
        );
    }
    assert_eq!(trainable_variables(&g).unwrap().len(), 2);
    assert_eq!(queue_runners(&g, None).len(), 2);
    let def = saver.as_saver_def();
    let prefix = scope.map(|s| format!("{s}/")).unwrap_or_default();
    for field in [
        "filename_tensor_name",
        "save_tensor_name",
        "restore_op_name",
    ] {
        let name = match field {
            "filename_tensor_name" => &def.filename_tensor_name,
            "save_tensor_name" => &def.save_tensor_name,
            _ => &def.restore_op_name,
        };
        assert_eq!(
            *name,
            format!("{prefix}{}", exp["saver_def"][field].as_str().unwrap()),
            "{kind}: {field}"
        );
    }
    let (losses, values) = train_on(&g, &saver, &checkpoint, 4);
    let want = flat(&exp["losses"]);
    assert!(
        losses.iter().zip(&want).all(|(a, b)| close(*a, *b)),
        "{kind}: losses {losses:?}, TensorFlow's {want:?}"
    );
    let want_vars = exp["variables"].as_object().unwrap();
    assert_eq!(values.len(), want_vars.len());
    for (name, got) in values {
        let bare = name.strip_prefix(&prefix).unwrap();
        let want = flat(&want_vars[bare]);
        assert!(
            got.iter().zip(&want).all(|(a, b)| close(*a, *b)) && got.len() == want.len(),
            "{kind}: {name} is {got:?}, TensorFlow's {want:?}"
        );
    }
}

#[test]
fn a_tensorflow_1_training_program_trains_on_here_from_its_meta_graph() {
    check_against_tensorflow("ref", None);
}

#[test]
fn a_tensorflow_2_compat_v1_program_with_resource_variables_trains_on_here() {
    check_against_tensorflow("resource", None);
}

#[test]
fn an_import_scope_puts_the_program_under_it() {
    check_against_tensorflow("ref", Some("model"));
}

/// The same program as make_meta_graph.py's, built with weir.
fn build(g: &Graph) -> Result<(Output, Operation)> {
    let xs: Vec<f32> = (0..12)
        .flat_map(|i| {
            [
                i as f32 * 0.25 - 1.0,
                (i % 3) as f32 * 0.5,
                1.0 - (i % 4) as f32 * 0.125,
            ]
        })
        .collect();
    let ys: Vec<i32> = (0..12).map(|i| i % 2).collect();
    let sliced = SliceInputProducer::new(&[
        constant(g, Tensor::from_vec(&[12, 3], xs)?)?,
        constant(g, Tensor::from(ys))?,
    ])
    .shuffle(false)
    .build()?;
    let batch = Batch::new(&sliced, 4).num_threads(1).capacity(16).build()?;
    let (w, b) = {
        let _s = variable_scope(g, "linear")?;
        let w = GetVariable::new("weights")
            .shape(&[3, 2])
            .initializer(Initializer::Constant(Tensor::from(0.125f32)))
            .build(g)?;
        let b = GetVariable::new("biases")
            .shape(&[2])
            .initializer(Initializer::Zeros)
            .build(g)?;
        (w, b)
    };
    let logits = add(matmul(&batch[0], &w)?, &b)?;
    let xent = nn::sparse_softmax_cross_entropy_with_logits(&batch[1], &logits)?;
    let loss = Reduce::mean().name("loss").build(&xent)?;
    scalar("loss", &loss)?;
    let step = get_or_create_global_step(g)?;
    let train = MomentumOptimizer::new(0.5, 0.9).minimize(&loss, None, Some(&step))?;
    g.add_to_collection("loss", loss.clone())?;
    Ok((loss, train))
}

#[test]
fn weirs_saver_writes_a_meta_graph_that_a_program_without_the_model_trains_on() {
    let dir = temp_dir("roundtrip");
    let prefix = dir.join("model.ckpt");
    let prefix = prefix.to_str().unwrap();
    let g = Graph::new();
    let (_, train) = build(&g).unwrap();
    let saver = Saver::new(&g).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&global_variables_initializer(&g).unwrap())
        .unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    for _ in 0..3 {
        sess.run(&RunArgs::new().target(&train).timeout(T)).unwrap();
    }
    let path = saver.save(&sess, prefix, Some(3)).unwrap();
    coord.request_stop(None).unwrap();
    coord.join(&threads, T).unwrap();
    assert!(Path::new(&format!("{path}.meta")).is_file());

    // The program with the model's code, restored, and the one with only the files agree.
    let (want_losses, want_values) = {
        let g = Graph::new();
        build(&g).unwrap();
        train_on(&g, &Saver::new(&g).unwrap(), &path, 4)
    };
    let g2 = Graph::new();
    let saver2 = import_meta_graph(&g2, format!("{path}.meta"))
        .unwrap()
        .unwrap();
    let (losses, values) = train_on(&g2, &saver2, &path, 4);
    assert_eq!(losses, want_losses);
    assert_eq!(values, want_values);
    // TensorFlow's program reaches the same losses from the same start (see expected.json).
    let tf = flat(&expected("ref")["losses"]);
    assert!(
        losses.iter().zip(&tf).all(|(a, b)| close(*a, *b)),
        "{losses:?} against TensorFlow's {tf:?}"
    );

    // The imported saver saves again, with its own meta graph, and keeps max_to_keep.
    let sess2 = Session::new(&g2).unwrap();
    saver2.restore(&sess2, &path).unwrap();
    let again = saver2
        .save_with(&sess2, prefix, &SaveArgs::new().global_step(7))
        .unwrap();
    let meta =
        MetaGraphDef::decode(std::fs::read(format!("{again}.meta")).unwrap().as_slice()).unwrap();
    assert_eq!(meta.saver_def.unwrap().restore_op_name, "save/restore_all");
    assert!(matches!(
        meta.collection_def[graph_keys::QUEUE_RUNNERS].kind,
        Some(Kind::BytesList(ref b)) if b.value.len() == 2
    ));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn save_args_leave_out_the_meta_graph_and_the_state_file() {
    let dir = temp_dir("args");
    let g = Graph::new();
    build(&g).unwrap();
    let saver = Saver::new(&g).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&global_variables_initializer(&g).unwrap())
        .unwrap();
    let prefix = dir.join("m");
    let path = saver
        .save_with(
            &sess,
            prefix.to_str().unwrap(),
            &SaveArgs::new().write_meta_graph(false).write_state(false),
        )
        .unwrap();
    assert!(!Path::new(&format!("{path}.meta")).exists());
    assert!(!dir.join("checkpoint").exists());
    let path = saver
        .save_with(
            &sess,
            prefix.to_str().unwrap(),
            &SaveArgs::new()
                .global_step(1)
                .meta_graph_suffix("metagraph"),
        )
        .unwrap();
    assert!(Path::new(&format!("{path}.metagraph")).is_file());
    assert!(dir.join("checkpoint").is_file());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn collections_of_plain_values_survive_a_round_trip_and_unknown_objects_are_left_out() {
    let g = Graph::new();
    build(&g).unwrap();
    g.add_object_to_collection("counts", weir_train::CollectionValue::Int64(7).into());
    g.add_object_to_collection("counts", weir_train::CollectionValue::Int64(-1).into());
    g.add_object_to_collection("opaque", std::sync::Arc::new(5u8));
    let meta = ExportMetaGraph::new(&g).build().unwrap();
    assert!(!meta.collection_def.contains_key("opaque"));
    assert!(meta.saver_def.is_none());
    let g2 = Graph::new();
    // No SaverDef: a new saver of the global variables, as TensorFlow makes.
    let saver = ImportMetaGraph::new(meta).import(&g2).unwrap();
    assert!(saver.is_some());
    let counts = g2.get_collection_of::<weir_train::CollectionValue>("counts");
    assert_eq!(
        counts.iter().map(|c| (**c).clone()).collect::<Vec<_>>(),
        vec![
            weir_train::CollectionValue::Int64(7),
            weir_train::CollectionValue::Int64(-1)
        ]
    );
    let only = ExportMetaGraph::new(&g)
        .collection_list(&["loss"])
        .build()
        .unwrap();
    assert_eq!(only.collection_def.keys().collect::<Vec<_>>(), ["loss"]);
}

#[test]
fn an_item_naming_a_missing_node_is_not_found_and_a_damaged_file_data_loss() {
    let g = Graph::new();
    build(&g).unwrap();
    let mut meta = ExportMetaGraph::new(&g).build().unwrap();
    meta.collection_def.get_mut("loss").unwrap().kind = Some(Kind::NodeList(
        weir_graph::graph_def::meta_graph::collection_def::NodeList {
            value: vec!["no_such_node:0".into()],
        },
    ));
    let e = ImportMetaGraph::new(meta)
        .import(&Graph::new())
        .unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(e.to_string().contains("no_such_node"), "{e}");
    assert!(e.to_string().contains("Collection loss"), "{e}");

    let dir = temp_dir("damaged");
    let src = data_dir().join("ref/model.ckpt-3.meta");
    let bytes = std::fs::read(src).unwrap();
    let cut = dir.join("cut.meta");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = import_meta_graph(&Graph::new(), &cut).unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    assert!(e.to_string().contains("cut.meta"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
