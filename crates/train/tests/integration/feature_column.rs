//! `weir_train::feature_column` against TensorFlow 2.21's `tf.compat.v1.feature_column`
//! (tests/data/feature_column, made by make_feature_column.py there): every column family
//! over dense and sparse inputs (ragged and empty rows, invalid and out-of-vocabulary values,
//! weights, the three combiners), `input_layer` and `linear_model` outputs with their variable
//! names, shapes and collections, `make_parse_example_spec` (the specs and a parse of
//! TensorFlow-serialized Examples through `input_layer`), and the errors with their messages.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{graph_keys, Code, DType, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::init_ops::Initializer;
use weir_ops::lookup::tables_initializer;
use weir_ops::math::{div, sub};
use weir_ops::nn::SafeEmbeddingLookupSparse;
use weir_ops::sparse::SparseOutput;
use weir_ops::state::{collection_variables, global_variables, global_variables_initializer};
use weir_session::{RunArgs, Session};
use weir_train::feature_column::{
    self as fc, EmbeddingColumn, FeatureColumn, FeatureMap, FeatureTensor, HashedCategoricalColumn,
    IdentityCategoricalColumn, InputLayer, LinearModel, NumericColumn, ParseSpec, Transformed,
    VocabularyFileCategoricalColumn, VocabularyListCategoricalColumn, WeightedCategoricalColumn,
};

pub(super) fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/feature_column")
}

fn expected(case: &str) -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    let all = DATA.get_or_init(|| {
        let text = std::fs::read_to_string(data_dir().join("expected.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    });
    let v = &all[case];
    assert!(!v.is_null(), "no case {case} in expected.json");
    v
}

fn vocab_file() -> String {
    data_dir().join("vocab.txt").to_string_lossy().into_owned()
}

/// A `{"dtype", "shape", "values"}` entry as a tensor.
pub(super) fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = serde_json::from_value(v["shape"].clone()).unwrap();
    let vals = &v["values"];
    let nums = || -> Vec<f64> { serde_json::from_value(vals.clone()).unwrap() };
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(&shape, nums().iter().map(|&x| x as f32).collect()),
        "float64" => Tensor::from_vec(&shape, nums()),
        "int64" => Tensor::from_vec(&shape, nums().iter().map(|&x| x as i64).collect()),
        "int32" => Tensor::from_vec(&shape, nums().iter().map(|&x| x as i32).collect()),
        "string" => {
            let s: Vec<String> = serde_json::from_value(vals.clone()).unwrap();
            Tensor::from_strings(&s).reshape(&shape)
        }
        d => panic!("dtype {d}"),
    }
    .unwrap()
}

/// The JSON features as graph constants.
pub(super) fn features(g: &Graph, spec: &Value) -> FeatureMap {
    spec.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let t = if let Some(d) = v.get("dense") {
                FeatureTensor::Dense(constant(g, tensor(d)).unwrap())
            } else {
                let s = &v["sparse"];
                let part = |n: &str| constant(g, tensor(&s[n])).unwrap();
                FeatureTensor::Sparse(
                    SparseOutput::new(part("indices"), part("values"), part("dense_shape"))
                        .unwrap(),
                )
            };
            (k.clone(), t)
        })
        .collect()
}

/// Asserts `actual` equals TensorFlow's `want` (floats within 1e-5 relative).
pub(super) fn assert_tensor(actual: &Tensor, want: &Value, what: &str) {
    let want_t = tensor(want);
    assert_eq!(actual.shape(), want_t.shape(), "{what}: shape");
    assert_eq!(actual.dtype(), want_t.dtype(), "{what}: dtype");
    match actual.dtype() {
        DType::F32 => {
            let (a, e) = (
                actual.to_vec::<f32>().unwrap(),
                want_t.to_vec::<f32>().unwrap(),
            );
            for (i, (x, y)) in a.iter().zip(&e).enumerate() {
                let tol = 1e-5 * y.abs().max(1.0);
                assert!(
                    (x - y).abs() <= tol,
                    "{what}[{i}]: {x} vs {y}\n{a:?}\n{e:?}"
                );
            }
        }
        DType::String => assert_eq!(
            actual.to_strings().unwrap(),
            want_t.to_strings().unwrap(),
            "{what}"
        ),
        DType::I64 => assert_eq!(
            actual.to_vec::<i64>().unwrap(),
            want_t.to_vec::<i64>().unwrap(),
            "{what}"
        ),
        DType::I32 => assert_eq!(
            actual.to_vec::<i32>().unwrap(),
            want_t.to_vec::<i32>().unwrap(),
            "{what}"
        ),
        d => panic!("{what}: dtype {d}"),
    }
}

pub(super) fn session(g: &Graph) -> Session {
    let sess = Session::new(g).unwrap();
    sess.run_target(&global_variables_initializer(g).unwrap())
        .unwrap();
    sess.run_target(&tables_initializer(g).unwrap()).unwrap();
    sess
}

/// The variables' names, shapes and collections against TensorFlow's.
pub(super) fn check_variables(g: &Graph, want: &Value, case: &str) {
    let names = |key: &str| -> Vec<String> {
        collection_variables(g, key)
            .unwrap()
            .iter()
            .map(|v| v.name())
            .collect()
    };
    let (trainable, model, mine) = (
        names(graph_keys::TRAINABLE_VARIABLES),
        names(graph_keys::MODEL_VARIABLES),
        names("my_vars"),
    );
    let vars = global_variables(g).unwrap();
    let want = want.as_array().unwrap();
    assert_eq!(
        vars.len(),
        want.len(),
        "{case}: variables {:?}",
        vars.iter().map(|v| v.name()).collect::<Vec<_>>()
    );
    for (v, w) in vars.iter().zip(want) {
        let name = v.name();
        assert_eq!(name, w["name"].as_str().unwrap(), "{case}: variable name");
        let shape: Vec<usize> = serde_json::from_value(w["shape"].clone()).unwrap();
        assert_eq!(
            v.shape().dims().unwrap(),
            shape.iter().map(|&d| Some(d)).collect::<Vec<_>>(),
            "{case}: {name} shape"
        );
        assert_eq!(
            trainable.contains(&name),
            w["trainable"].as_bool().unwrap(),
            "{case}: {name} trainable"
        );
        assert_eq!(
            model.contains(&name),
            w["model"].as_bool().unwrap(),
            "{case}: {name} model"
        );
        assert_eq!(
            mine.contains(&name),
            w["my_vars"].as_bool().unwrap(),
            "{case}: {name} my_vars"
        );
    }
}

/// TensorFlow's `const_init(rows, dim)`: `arange * 0.25 - 1`.
pub(super) fn table(rows: usize, dim: usize) -> Initializer {
    let v: Vec<f32> = (0..rows * dim).map(|i| i as f32 * 0.25 - 1.0).collect();
    Initializer::Constant(Tensor::from_vec(&[rows, dim], v).unwrap())
}

fn num(key: &str) -> FeatureColumn {
    fc::numeric_column(key).unwrap()
}

fn identity(key: &str, n: i64) -> FeatureColumn {
    fc::categorical_column_with_identity(key, n).unwrap()
}

fn indicator(c: FeatureColumn) -> FeatureColumn {
    fc::indicator_column(&c).unwrap()
}

fn embedding(c: &FeatureColumn, rows: usize, dim: usize, combiner: &str) -> EmbeddingColumn {
    EmbeddingColumn::new(c, dim)
        .combiner(combiner)
        .initializer(table(rows, dim))
}

/// A build error must be TensorFlow's `ValueError`, as InvalidArgument with its message.
pub(super) fn assert_error(result: Result<impl std::fmt::Debug>, want: &Value, case: &str) {
    let e = result.expect_err(case);
    assert_eq!(e.code(), Code::InvalidArgument, "{case}: {e}");
    assert_eq!(e.message(), want.as_str().unwrap(), "{case}");
}

/// Runs `input_layer` over the case's features and compares output, variables or error.
fn input_layer_case(case: &str, columns: Vec<FeatureColumn>) {
    let want = expected(case);
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let built = fc::input_layer(&feats, &columns);
    if let Some(msg) = want.get("build_error") {
        return assert_error(built, msg, case);
    }
    let out = built.unwrap_or_else(|e| panic!("{case}: {e}"));
    check_variables(&g, &want["variables"], case);
    let sess = session(&g);
    match want.get("run_error") {
        Some(err) => {
            let e = sess.eval(&out).expect_err(case);
            assert_eq!(e.code(), Code::InvalidArgument, "{case}: {e}");
            let tf_msg = err["message"].as_str().unwrap();
            let bad = tf_msg.lines().find(|l| l.starts_with("Bad: ")).unwrap();
            assert!(
                e.message().contains(&bad["Bad: ".len()..]),
                "{case}: {e} vs {bad}"
            );
        }
        None => assert_tensor(&sess.eval(&out).unwrap(), &want["output"], case),
    }
}

/// Runs `_transform_features` and compares each column's sparse or dense result.
fn transform_case(case: &str, columns: Vec<FeatureColumn>) {
    let want = expected(case);
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let out = fc::transform_features(&feats, &columns).unwrap_or_else(|e| panic!("{case}: {e}"));
    let sess = session(&g);
    let check_sparse = |sp: &SparseOutput, w: &Value, what: &str| {
        let r = sess
            .run(
                &RunArgs::new()
                    .fetch(&sp.indices)
                    .fetch(&sp.values)
                    .fetch(&sp.dense_shape),
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_tensor(&r[0], &w["indices"], &format!("{what} indices"));
        assert_tensor(&r[1], &w["values"], &format!("{what} values"));
        assert_tensor(&r[2], &w["dense_shape"], &format!("{what} dense_shape"));
    };
    let want_out = want["output"].as_object().unwrap();
    assert_eq!(out.len(), want_out.len(), "{case}");
    for (name, w) in want_out {
        let what = format!("{case}/{name}");
        match &out[name] {
            Transformed::Dense(t) => assert_tensor(&sess.eval(t).unwrap(), &w["dense"], &what),
            Transformed::Sparse(sp) => check_sparse(sp, &w["sparse"], &what),
            Transformed::Weighted { ids, weights } => {
                check_sparse(ids, &w["ids"], &format!("{what} ids"));
                check_sparse(weights, &w["weights"], &format!("{what} weights"));
            }
        }
    }
}

#[test]
fn numeric_columns() {
    let b = NumericColumn::new("b")
        .shape(&[2])
        .dtype(DType::I64)
        .build()
        .unwrap();
    input_layer_case("numeric", vec![b, num("a")]);
    input_layer_case("numeric_rank1", vec![num("a")]);
    input_layer_case(
        "numeric_2d",
        vec![NumericColumn::new("m").shape(&[2, 3]).build().unwrap()],
    );
    let norm = NumericColumn::new("a")
        .dtype(DType::F64)
        .normalizer_fn(|x| {
            let g = x.graph();
            div(sub(x, constant(g, 3.0f64)?)?, constant(g, 2.0f64)?)
        })
        .build()
        .unwrap();
    input_layer_case("numeric_normalizer", vec![norm]);
}

#[test]
fn bucketized_columns() {
    input_layer_case(
        "bucketized",
        vec![fc::bucketized_column(&num("p"), &[0.0, 10.0, 100.0]).unwrap()],
    );
    let q = || {
        let src = NumericColumn::new("q").shape(&[2]).build().unwrap();
        fc::bucketized_column(&src, &[1.0, 2.0]).unwrap()
    };
    input_layer_case("bucketized_2d", vec![q()]);
    transform_case("bucketized_transform", vec![q()]);
    input_layer_case("bucketized_indicator", vec![indicator(q())]);
}

#[test]
fn identity_columns() {
    transform_case("identity_dense_transform", vec![identity("id", 4)]);
    input_layer_case(
        "identity_dense_indicator",
        vec![indicator(identity("id", 4))],
    );
    let with_default = || {
        IdentityCategoricalColumn::new("id", 4)
            .default_value(0)
            .build()
            .unwrap()
    };
    transform_case("identity_default_transform", vec![with_default()]);
    input_layer_case(
        "identity_default_indicator",
        vec![indicator(with_default())],
    );
    input_layer_case("identity_oor_indicator", vec![indicator(identity("id", 4))]);
    input_layer_case("identity_int32_rank1", vec![indicator(identity("id", 3))]);
}

#[test]
fn vocabulary_and_hash_columns() {
    let words = |oov: i64| {
        VocabularyListCategoricalColumn::new("w", ["a", "b", "c"])
            .num_oov_buckets(oov)
            .build()
            .unwrap()
    };
    transform_case("vocab_list_transform", vec![words(2)]);
    let default = VocabularyListCategoricalColumn::new("w", ["a", "b", "c"])
        .default_value(2)
        .build()
        .unwrap();
    input_layer_case("vocab_list_default", vec![indicator(default)]);
    input_layer_case("vocab_list_oov_indicator", vec![indicator(words(2))]);
    let ints = VocabularyListCategoricalColumn::new("n", [10i64, 20, 30])
        .dtype(DType::I32)
        .build()
        .unwrap();
    transform_case("vocab_list_ints", vec![ints]);
    let file = VocabularyFileCategoricalColumn::new("f", &vocab_file())
        .num_oov_buckets(3)
        .build()
        .unwrap();
    assert_eq!(file.num_buckets(), Some(7)); // 4 lines counted + 3 buckets
    transform_case("vocab_file_transform", vec![file]);
    let sized = VocabularyFileCategoricalColumn::new("f", &vocab_file())
        .vocabulary_size(2)
        .default_value(1)
        .build()
        .unwrap();
    input_layer_case("vocab_file_size", vec![indicator(sized)]);
    transform_case(
        "hash_transform",
        vec![fc::categorical_column_with_hash_bucket("h", 10).unwrap()],
    );
    let ints = HashedCategoricalColumn::new("h", 100)
        .dtype(DType::I64)
        .build()
        .unwrap();
    transform_case("hash_int_transform", vec![ints]);
}

#[test]
fn weighted_columns() {
    let weighted = |n: i64| fc::weighted_categorical_column(&identity("id", n), "w").unwrap();
    transform_case("weighted_transform", vec![weighted(5)]);
    input_layer_case("weighted_indicator", vec![indicator(weighted(5))]);
    input_layer_case("weighted_dense_weights", vec![indicator(weighted(3))]);
    for comb in ["sum", "mean", "sqrtn"] {
        let e = embedding(&weighted(5), 5, 2, comb).build().unwrap();
        input_layer_case(&format!("weighted_embedding_{comb}"), vec![e]);
    }
}

#[test]
fn embedding_columns() {
    for comb in ["sum", "mean", "sqrtn"] {
        let e = embedding(&identity("x", 6), 6, 3, comb).build().unwrap();
        input_layer_case(&format!("embedding_{comb}"), vec![e]);
    }
    let clipped = embedding(&identity("x", 6), 6, 3, "mean")
        .max_norm(1.5)
        .build()
        .unwrap();
    input_layer_case("embedding_max_norm", vec![clipped]);
    input_layer_case(
        "embedding_oor",
        vec![embedding(&identity("x", 4), 4, 3, "mean").build().unwrap()],
    );
    input_layer_case(
        "embedding_dense_input",
        vec![embedding(&identity("x", 4), 4, 2, "mean").build().unwrap()],
    );
    let hashed = fc::categorical_column_with_hash_bucket("h", 10).unwrap();
    input_layer_case(
        "embedding_hash",
        vec![embedding(&hashed, 10, 2, "sum").build().unwrap()],
    );
    let words = VocabularyListCategoricalColumn::new("w", ["a", "b", "c"])
        .num_oov_buckets(2)
        .build()
        .unwrap();
    input_layer_case(
        "embedding_vocab",
        vec![embedding(&words, 5, 4, "mean").build().unwrap()],
    );
    let frozen = embedding(&identity("x", 2), 2, 2, "mean")
        .trainable(false)
        .build()
        .unwrap();
    input_layer_case("embedding_not_trainable", vec![frozen]);
    input_layer_case(
        "err_combiner",
        vec![embedding(&identity("x", 6), 6, 3, "max").build().unwrap()],
    );
}

#[test]
fn embedding_default_initializer() {
    let want = expected("embedding_default_init");
    let g = Graph::new();
    let col = fc::embedding_column(&identity("x", 2000), 4).unwrap();
    let feats: FeatureMap = [(
        "x".to_string(),
        FeatureTensor::Dense(constant(&g, Tensor::from_vec(&[1, 1], vec![1i64]).unwrap()).unwrap()),
    )]
    .into();
    fc::input_layer(&feats, &[col]).unwrap();
    let sess = session(&g);
    let w = sess.eval(global_variables(&g).unwrap()[0].value()).unwrap();
    let shape: Vec<usize> = serde_json::from_value(want["shape"].clone()).unwrap();
    assert_eq!(w.shape(), shape.as_slice());
    let v = w.to_vec::<f32>().unwrap();
    let n = v.len() as f64;
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let std = (v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
    let max_abs = v.iter().fold(0.0f64, |m, &x| m.max((x as f64).abs()));
    let stddev = want["stddev"].as_f64().unwrap();
    assert!(max_abs <= 2.0 * stddev, "truncated at 2 stddev: {max_abs}");
    assert!(mean.abs() < 0.03, "mean {mean}");
    let tf_std = want["std"].as_f64().unwrap();
    assert!(
        (std - tf_std).abs() < 0.02,
        "std {std} vs TensorFlow's {tf_std}"
    );
}

fn multi_cols() -> Vec<FeatureColumn> {
    let price = num("price");
    let words = fc::categorical_column_with_vocabulary_list("word", ["a", "b", "c"]).unwrap();
    vec![
        embedding(&identity("id", 3), 3, 2, "mean").build().unwrap(),
        price.clone(),
        indicator(words),
        fc::bucketized_column(&price, &[5.0, 10.0]).unwrap(),
    ]
}

#[test]
fn input_layer_over_several_columns() {
    input_layer_case("input_layer_multi", multi_cols());
    // Twice on one graph: scopes input_layer and input_layer_1, the second with
    // weight_collections and trainable=False.
    let want = expected("input_layer_twice");
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let a = fc::input_layer(&feats, &multi_cols()).unwrap();
    let b = InputLayer::new()
        .weight_collections(&["my_vars"])
        .trainable(false)
        .build(&feats, &multi_cols())
        .unwrap();
    check_variables(&g, &want["variables"], "input_layer_twice");
    let sess = session(&g);
    assert_tensor(&sess.eval(&a).unwrap(), &want["output"], "first");
    assert_tensor(&sess.eval(&b).unwrap(), &want["output2"], "second");
}

fn linear_case(case: &str, columns: Vec<FeatureColumn>, model: LinearModel) {
    let want = expected(case);
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let out = model
        .build(&feats, &columns)
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    check_variables(&g, &want["variables"], case);
    let sess = session(&g);
    for v in global_variables(&g).unwrap() {
        let value = tensor(&want["assigned"][v.name()]);
        sess.run(&RunArgs::new().fetch(v.assign(constant(&g, value).unwrap()).unwrap()))
            .unwrap();
    }
    assert_tensor(&sess.eval(&out).unwrap(), &want["output"], case);
}

fn lin_cols() -> Vec<FeatureColumn> {
    vec![
        NumericColumn::new("price").shape(&[2]).build().unwrap(),
        fc::bucketized_column(&num("p1"), &[5.0, 10.0]).unwrap(),
        fc::weighted_categorical_column(&identity("id", 3), "w").unwrap(),
        embedding(&identity("id", 3), 3, 2, "mean").build().unwrap(),
    ]
}

#[test]
fn linear_models() {
    for comb in ["sum", "mean", "sqrtn"] {
        let model = LinearModel::new().units(2).sparse_combiner(comb);
        linear_case(&format!("linear_model_{comb}"), lin_cols(), model);
    }
    linear_case(
        "linear_model_units1",
        vec![identity("id", 3)],
        LinearModel::new(),
    );
}

fn spec_cols() -> Vec<FeatureColumn> {
    let age = || {
        NumericColumn::new("age")
            .dtype(DType::I64)
            .default_value(30.0)
            .build()
            .unwrap()
    };
    let words = fc::categorical_column_with_hash_bucket("word", 50).unwrap();
    let weighted = fc::weighted_categorical_column(&words, "word_w").unwrap();
    vec![
        NumericColumn::new("price")
            .shape(&[2])
            .default_value(0.0)
            .build()
            .unwrap(),
        age(),
        fc::bucketized_column(&age(), &[18.0, 65.0]).unwrap(),
        embedding(&weighted, 50, 3, "mean").build().unwrap(),
        indicator(identity("cls", 4)),
        fc::categorical_column_with_vocabulary_list("color", ["r", "g"]).unwrap(),
    ]
}

#[test]
fn parse_example_spec_and_parsing() {
    let want = expected("parse_example_spec");
    let spec = fc::merged_parse_example_spec(&spec_cols()).unwrap();
    let want_spec = want["spec"].as_object().unwrap();
    assert_eq!(
        spec.keys().collect::<Vec<_>>(),
        want_spec.keys().collect::<Vec<_>>()
    );
    for (key, w) in want_spec {
        let s = &spec[key];
        assert_eq!(s.to_string(), w["repr"].as_str().unwrap(), "{key}");
        let dtype = |d: DType| d.python_name().to_string();
        match s {
            ParseSpec::FixedLen {
                shape,
                dtype: d,
                default_value,
            } => {
                assert_eq!(w["kind"], "fixed");
                assert_eq!(serde_json::to_value(shape).unwrap(), w["shape"]);
                assert_eq!(dtype(*d), w["dtype"].as_str().unwrap());
                assert_eq!(serde_json::to_value(default_value).unwrap(), w["default"]);
            }
            ParseSpec::VarLen { dtype: d } => {
                assert_eq!(w["kind"], "var");
                assert_eq!(dtype(*d), w["dtype"].as_str().unwrap());
            }
        }
    }
    // TensorFlow's serialized Examples, parsed with the spec, through input_layer.
    let g = Graph::new();
    let examples: Vec<Vec<u8>> = want["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let h = h.as_str().unwrap();
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                .collect()
        })
        .collect();
    let serialized = constant(&g, Tensor::from_byte_strings(&examples)).unwrap();
    let features = fc::make_parse_example_spec(&spec_cols()).unwrap();
    let parsed = weir_ops::parsing::parse_example(&serialized, &features).unwrap();
    let feats = fc::from_parsed_features(&parsed);
    let dense: Vec<FeatureColumn> = spec_cols().into_iter().filter(|c| c.is_dense()).collect();
    let out = fc::input_layer(&feats, &dense).unwrap();
    check_variables(&g, &want["variables"], "parse_example_spec");
    let sess = session(&g);
    assert_tensor(
        &sess.eval(&out).unwrap(),
        &want["output"],
        "parsed input_layer",
    );
}

#[test]
fn column_errors() {
    let want = expected("errors");
    let e = |name: &str| &want[name];
    assert_error(
        NumericColumn::new("x").shape(&[2, 0]).build(),
        e("numeric_shape"),
        "numeric_shape",
    );
    assert_error(
        NumericColumn::new("x").dtype(DType::String).build(),
        e("numeric_dtype"),
        "numeric_dtype",
    );
    assert_error(
        NumericColumn::new("x")
            .shape(&[2])
            .default_values(vec![1.0, 2.0, 3.0])
            .build(),
        e("numeric_default_shape"),
        "numeric_default_shape",
    );
    assert_error(
        fc::bucketized_column(&num("x"), &[1.0, 1.0]),
        e("bucketized_unsorted"),
        "unsorted",
    );
    assert_error(
        fc::bucketized_column(&num("x"), &[]),
        e("bucketized_empty"),
        "empty",
    );
    assert_error(
        fc::bucketized_column(&identity("x", 3), &[1.0]),
        e("bucketized_source"),
        "source",
    );
    let square = NumericColumn::new("x").shape(&[2, 2]).build().unwrap();
    assert_error(
        fc::bucketized_column(&square, &[1.0]),
        e("bucketized_2d"),
        "bucketized_2d",
    );
    assert_error(
        fc::categorical_column_with_identity("x", 0),
        e("identity_buckets"),
        "identity_buckets",
    );
    assert_error(
        IdentityCategoricalColumn::new("x", 3)
            .default_value(3)
            .build(),
        e("identity_default"),
        "identity_default",
    );
    assert_error(
        fc::categorical_column_with_hash_bucket("x", 0),
        e("hash_size"),
        "hash_size",
    );
    assert_error(
        HashedCategoricalColumn::new("x", 10)
            .dtype(DType::F32)
            .build(),
        e("hash_dtype"),
        "hash_dtype",
    );
    assert_error(
        fc::categorical_column_with_vocabulary_list("x", Vec::<String>::new()),
        e("vocab_empty"),
        "vocab_empty",
    );
    assert_error(
        fc::categorical_column_with_vocabulary_list("x", ["a", "b", "a"]),
        e("vocab_duplicate"),
        "vocab_duplicate",
    );
    assert_error(
        VocabularyListCategoricalColumn::new("x", ["a"])
            .default_value(0)
            .num_oov_buckets(1)
            .build(),
        e("vocab_oov_and_default"),
        "vocab_oov_and_default",
    );
    assert_error(
        VocabularyListCategoricalColumn::new("x", ["a"])
            .num_oov_buckets(-1)
            .build(),
        e("vocab_negative_oov"),
        "vocab_negative_oov",
    );
    assert_error(
        VocabularyListCategoricalColumn::new("x", ["a"])
            .dtype(DType::I64)
            .build(),
        e("vocab_dtype"),
        "vocab_dtype",
    );
    assert_error(
        fc::categorical_column_with_vocabulary_file("x", "/nonexistent/vocab.txt"),
        e("vocab_file_missing"),
        "vocab_file_missing",
    );
    assert_error(
        fc::categorical_column_with_vocabulary_file("x", ""),
        e("vocab_file_empty"),
        "vocab_file_empty",
    );
    assert_error(
        VocabularyFileCategoricalColumn::new("x", &vocab_file())
            .vocabulary_size(0)
            .build(),
        e("vocab_file_size"),
        "vocab_file_size",
    );
    assert_error(
        WeightedCategoricalColumn::new(&identity("x", 3), "w")
            .dtype(DType::String)
            .build(),
        e("weighted_dtype"),
        "weighted_dtype",
    );
    assert_error(
        fc::indicator_column(&num("x")),
        e("indicator_input"),
        "indicator_input",
    );
    assert_error(
        fc::embedding_column(&identity("x", 3), 0),
        e("embedding_dimension"),
        "embedding_dimension",
    );
    assert_error(
        EmbeddingColumn::new(&identity("x", 3), 2)
            .ckpt_to_load_from("a")
            .build(),
        e("embedding_ckpt"),
        "embedding_ckpt",
    );
    assert_error(
        fc::make_parse_example_spec(&[num("x"), identity("x", 3)]).map(|_| ()),
        e("parse_spec_conflict"),
        "parse_spec_conflict",
    );
    assert_error(
        fc::make_parse_example_spec(&[
            fc::weighted_categorical_column(&identity("x", 3), "x").unwrap()
        ])
        .map(|_| ()),
        e("weighted_spec_conflict"),
        "weighted_spec_conflict",
    );
}

#[test]
fn input_errors() {
    input_layer_case("err_not_dense", vec![identity("x", 3)]);
    input_layer_case("err_empty_columns", vec![]);
    let x1 = NumericColumn::new("x").shape(&[1]).build().unwrap();
    input_layer_case("err_duplicate", vec![num("x"), x1]);
    input_layer_case("err_missing_feature", vec![num("y")]);
    input_layer_case("err_rank0", vec![num("x")]);
    input_layer_case("err_sparse_numeric", vec![num("x")]);
    input_layer_case("err_batch_size", vec![num("a"), num("b")]);
    input_layer_case("err_identity_float", vec![indicator(identity("x", 3))]);
    let hashed = fc::categorical_column_with_hash_bucket("h", 3).unwrap();
    input_layer_case("err_hash_int_input", vec![indicator(hashed)]);
    let words = fc::categorical_column_with_vocabulary_list("w", ["a"]).unwrap();
    input_layer_case("err_vocab_dtype_input", vec![indicator(words)]);
    let weighted = fc::weighted_categorical_column(&identity("id", 3), "w").unwrap();
    input_layer_case("err_weight_dtype", vec![indicator(weighted)]);
}

#[test]
fn embedding_from_checkpoint() {
    let ckpt = data_dir().join("ckpt/model").to_string_lossy().into_owned();
    let col = EmbeddingColumn::new(&identity("x", 4), 2)
        .combiner("sum")
        .ckpt_to_load_from(&ckpt)
        .tensor_name_in_ckpt("saved/table")
        .build()
        .unwrap();
    input_layer_case("embedding_ckpt", vec![col]);
}

/// `tf.compat.v1.nn.safe_embedding_lookup_sparse` itself: rank-3 ids, `default_id`, weights
/// kept by `"sum"` and pruned by the others, two `"div"` shards with `max_norm`.
#[test]
fn safe_embedding_lookup_sparse_matches_tensorflow() {
    for case in [
        "safe_rank3",
        "safe_default_id",
        "safe_sum_negative_weights",
        "safe_partitioned",
    ] {
        let want = expected(case);
        let g = Graph::new();
        let sparse = |v: &Value| match features(&g, &serde_json::json!({ "k": v })).remove("k") {
            Some(FeatureTensor::Sparse(s)) => s,
            _ => panic!("{case}: not sparse"),
        };
        let ids = sparse(&want["ids"]);
        let weights = (!want["weights"].is_null()).then(|| sparse(&want["weights"]));
        let params: Vec<_> = want["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| constant(&g, tensor(p)).unwrap())
            .collect();
        let kw = &want["kwargs"];
        let mut lookup =
            SafeEmbeddingLookupSparse::new().combiner(kw["combiner"].as_str().unwrap());
        if let Some(d) = kw["default_id"].as_i64() {
            lookup = lookup.default_id(d);
        }
        if let Some(m) = kw["max_norm"].as_f64() {
            lookup = lookup.max_norm(m);
        }
        let out = lookup.build(&params, &ids, weights.as_ref()).unwrap();
        // TensorFlow folds the constant dense shape into the static shape; weir knows the
        // rank and the embedding dims.
        let want_shape = want["static_shape"].as_array().unwrap();
        let shape = out.shape();
        let dims = shape.dims().unwrap();
        assert_eq!(dims.len(), want_shape.len(), "{case}: rank");
        assert_eq!(
            dims.last().copied().flatten(),
            want_shape
                .last()
                .and_then(Value::as_u64)
                .map(|d| d as usize)
        );
        let sess = Session::new(&g).unwrap();
        assert_tensor(&sess.eval(&out).unwrap(), &want["output"], case);
    }
}
