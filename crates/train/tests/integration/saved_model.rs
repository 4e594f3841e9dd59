//! SavedModels: the directories TensorFlow 2.21's `tf.compat.v1.saved_model` Builder and
//! `simple_save` wrote (tests/data/saved_model, made by make_saved_model.py there) load into a
//! weir session and serve TensorFlow's outputs through their signatures, vocabulary asset
//! included; weir's builder writes directories that load back here (and, checked by hand,
//! into TensorFlow).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{f64s, flat};
use weir_graph::graph_def::meta_graph::MetaGraphDef;
use weir_graph::{graph_keys, DType, Graph, Result, Tensor};
use weir_ops::array::{constant, Placeholder};
use weir_ops::lookup::{index_table_from_file, tables_initializer};
use weir_ops::math::{add, matmul};
use weir_ops::nn::softmax;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::{RunArgs, Session};
use weir_train::saved_model::{
    contains_saved_model, get_tensor_from_tensor_info, load, predict_signature_def, simple_save,
    tag_constants, MetaGraphArgs, SavedModelBuilder, SavedModelLoader,
};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/saved_model")
}

fn expected(model: &str) -> Value {
    let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all[model].clone()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-sm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn x_batch() -> Tensor {
    Tensor::from_vec(&[2, 3], vec![0.5f32, -1.0, 2.0, 1.5, 0.25, -0.75]).unwrap()
}

fn words() -> Tensor {
    Tensor::from(vec!["cat", "dog", "emu", "ant"])
}

/// Runs the `serving_default` signature of `meta` (loaded into `g` under `scope`) on `feeds`
/// (by input key) and returns each output (by key) as f64 values.
fn serve(
    sess: &Session,
    g: &Graph,
    meta: &MetaGraphDef,
    scope: Option<&str>,
    feeds: &[(&str, Tensor)],
) -> Vec<(String, Vec<f64>)> {
    let sig = &meta.signature_def["serving_default"];
    let mut args = RunArgs::new();
    for (key, t) in feeds {
        let input = get_tensor_from_tensor_info(&sig.inputs[*key], g, scope).unwrap();
        args = args.feed(&input, t.clone());
    }
    let keys: Vec<&String> = sig.outputs.keys().collect();
    for key in &keys {
        args = args.fetch(get_tensor_from_tensor_info(&sig.outputs[*key], g, scope).unwrap());
    }
    let out = sess.run(&args).unwrap();
    keys.into_iter()
        .zip(out)
        .map(|(k, t)| {
            let v = f64s(&t);
            (k.clone(), v)
        })
        .collect()
}

fn check_tensorflow_model(model: &str, feeds: &[(&str, Tensor)], scope: Option<&str>) {
    let exp = expected(model);
    let dir = data_dir().join(model);
    assert!(contains_saved_model(&dir));
    let g = Graph::new();
    let sess = Session::new(&g).unwrap();
    let mut loader = SavedModelLoader::new(&dir);
    if let Some(s) = scope {
        loader = loader.import_scope(s);
    }
    let meta = loader.load(&sess, &[tag_constants::SERVING]).unwrap();
    let sig = &meta.signature_def["serving_default"];
    assert_eq!(sig.method_name, exp["method_name"].as_str().unwrap());
    for (side, infos) in [("inputs", &sig.inputs), ("outputs", &sig.outputs)] {
        let want = exp[side].as_object().unwrap();
        assert_eq!(infos.len(), want.len(), "{model} {side}");
        for (key, info) in infos {
            assert_eq!(i64::from(info.dtype), want[key]["dtype"].as_i64().unwrap());
        }
    }
    for (key, got) in serve(&sess, &g, &meta, scope, feeds) {
        let want = flat(&exp["values"][&key]);
        assert_eq!(got.len(), want.len(), "{model} {key}");
        for (a, b) in got.iter().zip(&want) {
            assert!(
                (a - b).abs() <= 1e-6 * (1.0 + b.abs()),
                "{model} {key}: {got:?} against TensorFlow's {want:?}"
            );
        }
    }
}

#[test]
fn a_tensorflow_builder_model_serves_its_outputs_with_its_vocabulary_asset() {
    check_tensorflow_model("builder", &[("x", x_batch()), ("words", words())], None);
}

#[test]
fn a_tensorflow_simple_save_model_serves_its_outputs_under_an_import_scope() {
    check_tensorflow_model("simple", &[("x", x_batch())], Some("served"));
}

/// The builder model of make_saved_model.py, in weir: returns (x, words, y, ids, init).
fn build_served(g: &Graph, vocab: &Path) -> Result<Vec<weir_graph::Output>> {
    let x = Placeholder::new(DType::F32)
        .shape(weir_graph::Shape::new(vec![None, Some(3)]))
        .name("x")
        .build(g)?;
    let w = Variable::builder(constant(
        g,
        Tensor::from_vec(&[3, 2], vec![0.5f32, -0.25, 0.125, 1.0, -0.5, 0.75])?,
    )?)
    .name("w")
    .build()?;
    let b = Variable::builder(constant(g, [0.1f32, -0.2])?)
        .name("b")
        .build()?;
    let y = softmax(add(matmul(&x, &w)?, &b)?)?;
    let words = Placeholder::new(DType::String).name("words").build(g)?;
    let table = index_table_from_file(g, vocab.to_str().unwrap(), 1)?;
    let ids = table.lookup(&words)?;
    Ok(vec![x, words, y, ids])
}

#[test]
fn weirs_builder_writes_a_model_that_loads_and_serves_the_same_outputs() {
    let root = temp_dir("builder");
    std::fs::create_dir_all(&root).unwrap();
    let vocab = root.join("vocab.txt");
    std::fs::write(&vocab, "ant\nbee\ncat\ndog\n").unwrap();
    let export = root.join("export");
    let g = Graph::new();
    let t = build_served(&g, &vocab).unwrap();
    let init = tables_initializer(&g).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&global_variables_initializer(&g).unwrap())
        .unwrap();
    sess.run_target(&init).unwrap();
    let feeds = [("x", x_batch()), ("words", words())];
    let sig = predict_signature_def(
        &[("x", t[0].clone()), ("words", t[1].clone())],
        &[("y", t[2].clone()), ("ids", t[3].clone())],
    )
    .unwrap();
    let assets: Vec<weir_graph::Output> = g
        .get_collection(graph_keys::ASSET_FILEPATHS)
        .into_iter()
        .map(|item| match item {
            weir_graph::CollectionItem::Output(o) => o,
            _ => panic!("an asset path that is not a tensor"),
        })
        .collect();
    assert_eq!(assets.len(), 1);
    let mut builder = SavedModelBuilder::new(&export).unwrap();
    builder
        .add_meta_graph_and_variables(
            &sess,
            &[tag_constants::SERVING],
            MetaGraphArgs::new()
                .signature("serving_default", sig.clone())
                .assets(&assets)
                .main_op(&init),
        )
        .unwrap();
    // A second meta graph of the same graph, sharing the variables.
    builder
        .add_meta_graph(
            &g,
            &[tag_constants::SERVING, tag_constants::GPU],
            MetaGraphArgs::new().signature("serving_default", sig),
        )
        .unwrap();
    builder.save().unwrap();
    assert!(export.join("assets/vocab.txt").is_file());
    // Only the copy in assets/ can serve the vocabulary now.
    std::fs::remove_file(&vocab).unwrap();

    let g2 = Graph::new();
    let sess2 = Session::new(&g2).unwrap();
    let meta = load(&sess2, &[tag_constants::SERVING], &export).unwrap();
    let got = serve(&sess2, &g2, &meta, None, &feeds);
    let want = expected("builder");
    for (key, values) in &got {
        let w = flat(&want["values"][key]);
        assert!(
            values.iter().zip(&w).all(|(a, b)| (a - b).abs() <= 1e-6),
            "{key}: {values:?} against TensorFlow's {w:?}"
        );
    }
    // Tags match as a set, in any order.
    let g3 = Graph::new();
    let sess3 = Session::new(&g3).unwrap();
    load(
        &sess3,
        &[tag_constants::GPU, tag_constants::SERVING],
        &export,
    )
    .unwrap();
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn simple_save_without_variables_or_init_op_loads_back() {
    let export = temp_dir("simple");
    let g = Graph::new();
    let x = Placeholder::new(DType::I32).name("x").build(&g).unwrap();
    let y = add(&x, constant(&g, 40i32).unwrap()).unwrap();
    let sess = Session::new(&g).unwrap();
    simple_save(&sess, &export, &[("x", x)], &[("y", y)], None).unwrap();
    assert!(!export.join("variables/variables.index").exists());
    let g2 = Graph::new();
    let sess2 = Session::new(&g2).unwrap();
    let meta = load(&sess2, &["serve"], &export).unwrap();
    let sig = &meta.signature_def["serving_default"];
    let x2 = get_tensor_from_tensor_info(&sig.inputs["x"], &g2, None).unwrap();
    let y2 = get_tensor_from_tensor_info(&sig.outputs["y"], &g2, None).unwrap();
    let out = sess2
        .run(&RunArgs::new().feed(&x2, Tensor::from(2i32)).fetch(&y2))
        .unwrap();
    assert_eq!(out[0].to_scalar::<i32>().unwrap(), 42);
    std::fs::remove_dir_all(&export).ok();
}

#[test]
fn wrong_tags_a_missing_model_and_misuse_are_errors_with_tensorflows_words() {
    let g = Graph::new();
    let sess = Session::new(&g).unwrap();
    let e = load(&sess, &["train"], data_dir().join("simple")).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(
        e.to_string().contains("could not be found in SavedModel"),
        "{e}"
    );
    assert!(e.to_string().contains("serve"), "{e}");
    let e = load(&sess, &["serve"], data_dir().join("nowhere")).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(
        e.to_string().contains("SavedModel file does not exist at"),
        "{e}"
    );

    let export = temp_dir("misuse");
    let mut builder = SavedModelBuilder::new(&export).unwrap();
    let e = builder
        .add_meta_graph(&g, &["serve"], MetaGraphArgs::new())
        .unwrap_err();
    assert!(e.to_string().contains("has not been saved yet"), "{e}");
    let e = builder.save().unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    std::fs::remove_dir_all(&export).ok();

    let damaged = temp_dir("damaged");
    std::fs::create_dir_all(&damaged).unwrap();
    std::fs::write(damaged.join("saved_model.pb"), [0x12u8, 0xff, 0xff]).unwrap();
    let e = load(&sess, &["serve"], &damaged).unwrap_err();
    assert!(e.is_data_loss(), "{e}");
    std::fs::remove_dir_all(&damaged).ok();
}

/// A TensorFlow 2 SavedModel (make_tf2_saved_models.py): its graph calls functions, its
/// variables are resource variables restored by a traced function, and its init op is the
/// `__saved_model_init_op` signature; its `serving_default` signature serves TensorFlow's
/// outputs here.
fn check_tensorflow_2_model(model: &str) {
    let text = std::fs::read_to_string(data_dir().join("tf2_expected.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    let exp = &all[model];
    let g = Graph::new();
    let sess = Session::new(&g).unwrap();
    let meta = load(&sess, &[tag_constants::SERVING], data_dir().join(model)).unwrap();
    let x = &exp["x"];
    let rows = x.as_array().unwrap().len();
    let values: Vec<f32> = flat(x).into_iter().map(|v| v as f32).collect();
    let cols = values.len() / rows;
    let input = Tensor::from_vec(&[rows, cols], values).unwrap();
    let got = serve(
        &sess,
        &g,
        &meta,
        None,
        &[(exp["input"].as_str().unwrap(), input)],
    );
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, exp["output"].as_str().unwrap());
    let want = flat(&exp["y"]);
    assert_eq!(got[0].1.len(), want.len());
    for (a, b) in got[0].1.iter().zip(&want) {
        assert!(
            (a - b).abs() <= 1e-5,
            "{model}: {:?} against TensorFlow's {want:?}",
            got[0].1
        );
    }
}

#[test]
fn a_tensorflow_2_module_saved_model_serves_its_outputs() {
    check_tensorflow_2_model("tf2_module");
}

#[test]
fn a_keras_3_exported_model_serves_its_predictions() {
    check_tensorflow_2_model("keras");
}

/// Saves the variables of SavedModel `model` through the saver its meta graph names (a
/// sharded TensorFlow 1 saver, or TensorFlow 2's traced save function), which writes shards
/// and merges them, then restores the copy into a new graph through the same saver.
fn save_through_the_imported_saver(model: &str) {
    let dir = data_dir().join(model);
    let meta = SavedModelLoader::new(&dir)
        .meta_graph(&[tag_constants::SERVING])
        .unwrap();
    assert!(meta.saver_def.is_some());
    let out = temp_dir(&format!("resave-{model}"));
    std::fs::create_dir_all(&out).unwrap();
    let prefix = out.join("copy").to_string_lossy().into_owned();
    let variables = dir
        .join("variables/variables")
        .to_string_lossy()
        .into_owned();
    let g = Graph::new();
    let saver = weir_train::ImportMetaGraph::new(meta.clone())
        .import(&g)
        .unwrap()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, &variables).unwrap();
    let path = saver
        .save_with(
            &sess,
            &prefix,
            &weir_train::SaveArgs::new()
                .write_meta_graph(false)
                .write_state(false),
        )
        .unwrap();
    assert_eq!(path, prefix);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["copy.data-00000-of-00001", "copy.index"],
        "no shard left behind"
    );
    let original = weir_ops::training::list_checkpoint(&variables).unwrap();
    let copy = weir_ops::training::list_checkpoint(&prefix).unwrap();
    assert_eq!(copy, original);
    // The merged checkpoint is the very bytes TensorFlow's save wrote.
    for file in [".index", ".data-00000-of-00001"] {
        assert!(
            std::fs::read(format!("{prefix}{file}")).unwrap()
                == std::fs::read(format!("{variables}{file}")).unwrap(),
            "{model}: {file} differs from TensorFlow's"
        );
    }
    let g2 = Graph::new();
    let saver2 = weir_train::ImportMetaGraph::new(meta)
        .import(&g2)
        .unwrap()
        .unwrap();
    let sess2 = Session::new(&g2).unwrap();
    saver2.restore(&sess2, &prefix).unwrap();
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_tensorflow_1_sharded_saver_saves_through_its_own_subgraph() {
    save_through_the_imported_saver("builder");
}

#[test]
fn a_tensorflow_2_traced_save_function_saves_here() {
    save_through_the_imported_saver("tf2_module");
}

/// A `tf.layers` model whose batch normalization takes a training tensor (so its moving
/// averages are assigned inside conds, through TensorFlow's RefSwitch forms) trains a few
/// steps, exports, and serves the same inference outputs from the loaded directory.
#[test]
fn a_batch_normalized_layers_model_round_trips_through_a_saved_model() {
    use weir_train::layers::{BatchNormalization, Dense};
    use weir_train::{AdamOptimizer, Optimizer};
    let export = temp_dir("layers");
    let g = Graph::new();
    g.set_random_seed(3);
    let x = Placeholder::new(DType::F32)
        .shape(weir_graph::Shape::new(vec![None, Some(3)]))
        .name("x")
        .build(&g)
        .unwrap();
    let training = g
        .new_operation("PlaceholderWithDefault")
        .name("training")
        .input(constant(&g, false).unwrap())
        .attr("dtype", DType::Bool)
        .attr("shape", weir_graph::Shape::scalar())
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let h = Dense::new(4).apply(&x).unwrap();
    let h = BatchNormalization::new().apply(&h, &training).unwrap();
    let y = Dense::new(2).apply(&h).unwrap();
    let loss = weir_ops::math::Reduce::mean()
        .build(weir_ops::math::square(&y).unwrap())
        .unwrap();
    let updates: Vec<weir_graph::Operation> = g
        .get_collection(graph_keys::UPDATE_OPS)
        .into_iter()
        .filter_map(|item| match item {
            weir_graph::CollectionItem::Operation(op) => Some(op),
            weir_graph::CollectionItem::Output(o) => Some(o.op()),
            weir_graph::CollectionItem::Object(_) => None,
        })
        .collect();
    assert!(!updates.is_empty());
    let train = {
        let _d = g.control_dependencies(&updates).unwrap();
        AdamOptimizer::new(0.05)
            .minimize(&loss, None, None)
            .unwrap()
    };
    let sess = Session::new(&g).unwrap();
    sess.run_target(&global_variables_initializer(&g).unwrap())
        .unwrap();
    for _ in 0..3 {
        sess.run(
            &RunArgs::new()
                .feed(&x, x_batch())
                .feed(&training, true)
                .target(&train),
        )
        .unwrap();
    }
    let want = sess
        .run(&RunArgs::new().feed(&x, x_batch()).fetch(&y))
        .unwrap()
        .remove(0)
        .to_vec::<f32>()
        .unwrap();
    let def = g.as_graph_def(false).unwrap();
    assert!(def.node.iter().any(|n| n.op == "RefSwitch"));
    simple_save(
        &sess,
        &export,
        &[("x", x.clone())],
        &[("y", y.clone())],
        None,
    )
    .unwrap();
    let g2 = Graph::new();
    let sess2 = Session::new(&g2).unwrap();
    let meta = load(&sess2, &[tag_constants::SERVING], &export).unwrap();
    let got = serve(&sess2, &g2, &meta, None, &[("x", x_batch())]);
    let want: Vec<f64> = want.into_iter().map(f64::from).collect();
    assert_eq!(got[0].1, want);
    std::fs::remove_dir_all(&export).ok();
}
