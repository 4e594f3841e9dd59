//! `crossed_column` and `shared_embedding_columns` against TensorFlow 2.21's
//! `tf.compat.v1.feature_column` (tests/data/feature_column/expected_more.json, made by
//! make_feature_column_more.py there): hashed crosses of dense and sparse, string, integer
//! and float features, of bucketized (1-D and 2-D), identity and vocabulary columns and of
//! nested crosses, through `_transform_features`, indicator and embedding columns and
//! `linear_model`; shared tables through `input_layer` (once, twice, with options, weighted,
//! vocabulary and crossed columns) and `linear_model`, with TensorFlow's variable names and
//! collections; names, parse specs and the errors with their messages.

use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Code, Graph};
use weir_ops::array::constant;
use weir_ops::sparse::SparseOutput;
use weir_ops::state::{collection_variables, global_variables};
use weir_session::RunArgs;
use weir_train::feature_column::{
    self as fc, CrossKey, CrossedColumn, EmbeddingColumn, FeatureColumn, InputLayer, LinearModel,
    SharedEmbeddingColumns, Transformed, VocabularyFileCategoricalColumn,
    VocabularyListCategoricalColumn,
};

use super::feature_column::{
    assert_error, assert_tensor, check_variables, data_dir, features, session, table, tensor,
};

fn expected(case: &str) -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    let all = DATA.get_or_init(|| {
        let text = std::fs::read_to_string(data_dir().join("expected_more.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    });
    let v = &all[case];
    assert!(!v.is_null(), "no case {case} in expected_more.json");
    v
}

fn num(key: &str) -> FeatureColumn {
    fc::numeric_column(key).unwrap()
}

fn identity(key: &str, n: i64) -> FeatureColumn {
    fc::categorical_column_with_identity(key, n).unwrap()
}

/// `bucketized_column(numeric_column("p"), [0, 10])`.
fn buck() -> FeatureColumn {
    fc::bucketized_column(&num("p"), &[0.0, 10.0]).unwrap()
}

/// `categorical_column_with_vocabulary_list("w", ["a", "b", "c"], num_oov_buckets=1)`.
fn voc() -> FeatureColumn {
    VocabularyListCategoricalColumn::new("w", ["a", "b", "c"])
        .num_oov_buckets(1)
        .build()
        .unwrap()
}

fn cross(keys: Vec<CrossKey>, n: i64) -> FeatureColumn {
    fc::crossed_column(keys, n).unwrap()
}

fn key(c: &FeatureColumn) -> CrossKey {
    CrossKey::from(c)
}

fn s(k: &str) -> CrossKey {
    CrossKey::from(k)
}

fn names(columns: &[FeatureColumn], want: &Value, case: &str) {
    let got: Vec<String> = columns.iter().map(FeatureColumn::name).collect();
    let want: Vec<String> = serde_json::from_value(want["names"].clone()).unwrap();
    assert_eq!(got, want, "{case}: names");
}

/// `_transform_features` over the case's features: each column's sparse ids as TensorFlow's.
fn transform_case(case: &str, columns: Vec<FeatureColumn>) {
    let want = expected(case);
    names(&columns, want, case);
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let out = fc::transform_features(&feats, &columns).unwrap_or_else(|e| panic!("{case}: {e}"));
    let sess = session(&g);
    let want_out = want["output"].as_object().unwrap();
    assert_eq!(out.len(), want_out.len(), "{case}");
    for (name, w) in want_out {
        let Transformed::Sparse(sp) = &out[name] else {
            panic!("{case}/{name}: not sparse")
        };
        let w = &w["sparse"];
        let r = sess
            .run(
                &RunArgs::new()
                    .fetch(&sp.indices)
                    .fetch(&sp.values)
                    .fetch(&sp.dense_shape),
            )
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_tensor(&r[0], &w["indices"], &format!("{case} indices"));
        assert_tensor(&r[1], &w["values"], &format!("{case} values"));
        assert_tensor(&r[2], &w["dense_shape"], &format!("{case} dense_shape"));
    }
}

/// `input_layer` (or, with `model`, `linear_model` with TensorFlow's assigned variable values)
/// over the case's features: output, variables and collections, or the build error.
fn layer_case(case: &str, columns: Vec<FeatureColumn>, layer: Option<InputLayer>) {
    let want = expected(case);
    names(&columns, want, case);
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let built = layer.unwrap_or_default().build(&feats, &columns);
    if let Some(msg) = want.get("build_error") {
        return assert_error(built, msg, case);
    }
    let out = built.unwrap_or_else(|e| panic!("{case}: {e}"));
    check_variables(&g, &want["variables"], case);
    check_collections(&g, want, case);
    let sess = session(&g);
    assert_tensor(&sess.eval(&out).unwrap(), &want["output"], case);
}

fn check_collections(g: &Graph, want: &Value, case: &str) {
    let Some(cols) = want.get("collections").and_then(Value::as_object) else {
        return;
    };
    for (key, vars) in cols {
        let got: Vec<String> = collection_variables(g, key)
            .unwrap()
            .iter()
            .map(|v| v.name())
            .collect();
        let vars: Vec<String> = serde_json::from_value(vars.clone()).unwrap();
        assert_eq!(got, vars, "{case}: collection {key}");
    }
}

fn linear_case(case: &str, columns: Vec<FeatureColumn>, model: LinearModel) {
    let want = expected(case);
    names(&columns, want, case);
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

#[test]
fn crossed_column_transforms() {
    transform_case("cross_dense_strings", vec![cross(vec![s("a"), s("b")], 10)]);
    let keyed = CrossedColumn::new([s("b"), s("a")], 1000)
        .hash_key(12345)
        .build()
        .unwrap();
    transform_case("cross_hash_key", vec![keyed]);
    transform_case(
        "cross_no_modulo_key_order",
        vec![cross(vec![s("b"), s("a")], 1000)],
    );
    transform_case(
        "cross_sparse_dense_mix",
        vec![cross(vec![s("s"), s("n")], 50)],
    );
    transform_case(
        "cross_float_and_int32",
        vec![cross(vec![s("f"), s("i32"), s("n")], 30)],
    );
    let inner = cross(vec![s("s"), s("n")], 5);
    transform_case("cross_nested", vec![cross(vec![key(&inner), s("i32")], 40)]);
    transform_case(
        "cross_bucketized_vocab_transform",
        vec![cross(vec![key(&buck()), key(&voc())], 20)],
    );
    let q = fc::NumericColumn::new("q").shape(&[2]).build().unwrap();
    let bq = fc::bucketized_column(&q, &[1.0, 2.0]).unwrap();
    transform_case(
        "cross_bucketized_2d_identity",
        vec![cross(vec![key(&bq), key(&identity("id", 6))], 25)],
    );
    let vocab = data_dir().join("vocab.txt").to_string_lossy().into_owned();
    let file = VocabularyFileCategoricalColumn::new("f", &vocab)
        .num_oov_buckets(2)
        .build()
        .unwrap();
    transform_case(
        "cross_vocab_file_string",
        vec![cross(vec![key(&file), s("k")], 9)],
    );
}

#[test]
fn crossed_column_in_layers() {
    let bv = || cross(vec![key(&buck()), key(&voc())], 20);
    layer_case(
        "cross_indicator",
        vec![fc::indicator_column(&bv()).unwrap()],
        None,
    );
    for comb in ["sum", "mean", "sqrtn"] {
        let c = cross(vec![key(&buck()), s("w")], 12);
        let emb = EmbeddingColumn::new(&c, 3)
            .combiner(comb)
            .initializer(table(12, 3))
            .build()
            .unwrap();
        layer_case(&format!("cross_embedding_{comb}"), vec![emb], None);
    }
    let multi = vec![
        fc::indicator_column(&cross(vec![s("w"), key(&identity("id", 6))], 7)).unwrap(),
        num("p"),
        EmbeddingColumn::new(&bv(), 2)
            .initializer(table(20, 2))
            .build()
            .unwrap(),
    ];
    layer_case("cross_input_layer_multi", multi, None);
    for comb in ["sum", "mean"] {
        let cols = vec![bv(), cross(vec![s("w"), s("id")], 8), num("p")];
        let model = LinearModel::new().units(2).sparse_combiner(comb);
        linear_case(&format!("cross_linear_model_{comb}"), cols, model);
    }
}

#[test]
fn crossed_column_errors() {
    let weighted = fc::weighted_categorical_column(&identity("id", 3), "wt").unwrap();
    let c = cross(vec![key(&weighted), s("k")], 5);
    layer_case(
        "cross_err_weighted",
        vec![fc::indicator_column(&c).unwrap()],
        None,
    );
    layer_case(
        "cross_err_not_dense",
        vec![cross(vec![s("a"), s("b")], 10)],
        None,
    );
    let missing = cross(vec![s("a"), s("zz")], 10);
    layer_case(
        "cross_err_missing",
        vec![fc::indicator_column(&missing).unwrap()],
        None,
    );
    let want = &expected("errors");
    let msg = |name: &str| &want[name]["message"];
    assert_error(
        fc::crossed_column(["a", "b"], 0),
        msg("cross_bucket_size"),
        "cross_bucket_size",
    );
    assert_error(
        fc::crossed_column(["a"], 10),
        msg("cross_one_key"),
        "cross_one_key",
    );
    let hashed = fc::categorical_column_with_hash_bucket("h", 10).unwrap();
    assert_error(
        fc::crossed_column([key(&hashed), s("b")], 10),
        msg("cross_hashed_key"),
        "cross_hashed_key",
    );
    assert_error(
        fc::crossed_column([key(&num("x")), s("b")], 10),
        msg("cross_numeric_key"),
        "cross_numeric_key",
    );
    // TensorFlow prints the initializer object's address; weir `<initializer>`.
    let emb = fc::embedding_column(&identity("e", 4), 2).unwrap();
    let e = fc::crossed_column([key(&emb), s("b")], 10).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let tf_msg = msg("cross_embedding_key").as_str().unwrap();
    let cut = tf_msg.find("initializer=").unwrap();
    assert_eq!(e.message()[..cut], tf_msg[..cut]);
}

#[test]
fn crossed_column_names_and_specs() {
    let want = expected("cross_names");
    assert_eq!(cross(vec![s("b"), s("a")], 5).name(), want["simple"]);
    assert_eq!(
        cross(vec![key(&buck()), key(&voc()), s("c")], 5).name(),
        want["columns"]
    );
    let inner = cross(vec![s("z"), s("a")], 3);
    assert_eq!(
        cross(vec![key(&inner), key(&buck())], 5).name(),
        want["nested"]
    );
    let ab = cross(vec![s("b"), s("a")], 5);
    assert_eq!(
        fc::embedding_column(&ab, 2).unwrap().name(),
        want["embedding"]
    );
    assert_eq!(fc::indicator_column(&ab).unwrap().name(), want["indicator"]);
    assert_eq!(ab.num_buckets(), want["num_buckets"].as_i64());
    let shared = |cols: &[FeatureColumn]| -> Vec<String> {
        fc::shared_embedding_columns(cols, 2)
            .unwrap()
            .iter()
            .map(FeatureColumn::name)
            .collect()
    };
    let shared_want: Vec<String> = serde_json::from_value(want["shared"].clone()).unwrap();
    assert_eq!(shared(&[identity("b", 4), identity("a", 4)]), shared_want);
    let wb = fc::weighted_categorical_column(&identity("b", 4), "w").unwrap();
    let weighted_want: Vec<String> =
        serde_json::from_value(want["shared_weighted"].clone()).unwrap();
    assert_eq!(shared(&[wb, identity("a", 4)]), weighted_want);

    let spec_of = |cols: &[FeatureColumn], case: &str| {
        let spec = fc::merged_parse_example_spec(cols).unwrap();
        let want = expected(case).as_object().unwrap();
        assert_eq!(spec.len(), want.len(), "{case}");
        for (k, v) in want {
            assert_eq!(spec[k].to_string(), v.as_str().unwrap(), "{case}: {k}");
        }
    };
    let de = cross(vec![s("d"), key(&identity("e", 4))], 3);
    spec_of(
        &[cross(vec![key(&buck()), key(&voc()), s("c"), key(&de)], 5)],
        "cross_spec",
    );
    let wa = fc::weighted_categorical_column(&identity("a", 4), "wa").unwrap();
    spec_of(
        &fc::shared_embedding_columns(&[wa, identity("b", 4)], 2).unwrap(),
        "shared_spec",
    );
}

fn shared(cols: &[FeatureColumn], dim: usize, rows: usize) -> SharedEmbeddingColumns {
    SharedEmbeddingColumns::new(cols, dim).initializer(table(rows, dim))
}

#[test]
fn shared_embedding_columns_in_input_layer() {
    let (a, b) = (identity("a", 4), identity("b", 4));
    for comb in ["sum", "mean", "sqrtn"] {
        let cols = shared(&[b.clone(), a.clone()], 2, 4)
            .combiner(comb)
            .build()
            .unwrap();
        layer_case(&format!("shared_{comb}"), cols, None);
    }
    let mut cols = shared(&[a.clone(), b.clone()], 3, 4)
        .shared_embedding_collection_name("my_shared")
        .build()
        .unwrap();
    cols.push(num("p"));
    layer_case("shared_named_collection", cols, None);
    let wa = fc::weighted_categorical_column(&a, "wa").unwrap();
    let cols = shared(&[wa, b.clone()], 2, 4)
        .max_norm(1.0)
        .build()
        .unwrap();
    layer_case("shared_weighted_vocab", cols, None);
    let vocab = |k: &str| fc::categorical_column_with_vocabulary_list(k, ["x", "y", "z"]).unwrap();
    let cols = shared(&[vocab("v"), vocab("u")], 2, 3)
        .combiner("sum")
        .trainable(false)
        .build()
        .unwrap();
    layer_case("shared_vocab_lists", cols, None);
    let crosses = [
        cross(vec![s("u"), s("a")], 6),
        cross(vec![s("v"), s("b")], 6),
    ];
    let cols = shared(&crosses, 2, 6).build().unwrap();
    layer_case("shared_crossed", cols, None);
    let cols = shared(&[a.clone(), b.clone()], 2, 4).build().unwrap();
    let options = InputLayer::new()
        .weight_collections(&["my_vars"])
        .trainable(false);
    layer_case("shared_options", cols, Some(options));
}

#[test]
fn shared_embedding_columns_twice_and_linear() {
    let (a, b) = (identity("a", 4), identity("b", 4));
    // Two input layers over the same columns share the one table of the collection.
    let want = expected("shared_twice");
    let g = Graph::new();
    let feats = features(&g, &want["features"]);
    let cols = shared(&[a.clone(), b.clone()], 2, 4).build().unwrap();
    let first = fc::input_layer(&feats, &cols).unwrap();
    let second = InputLayer::new()
        .weight_collections(&["my_vars"])
        .trainable(false)
        .build(&feats, &cols)
        .unwrap();
    check_variables(&g, &want["variables"], "shared_twice");
    let sess = session(&g);
    assert_tensor(&sess.eval(&first).unwrap(), &want["output"], "first");
    assert_tensor(&sess.eval(&second).unwrap(), &want["output2"], "second");

    let mut cols = shared(&[a.clone(), b.clone()], 2, 4)
        .shared_embedding_collection_name("zz")
        .build()
        .unwrap();
    cols.extend([num("p"), a.clone()]);
    linear_case("shared_linear_model", cols, LinearModel::new().units(2));

    let mut cols = shared(&[a, b], 2, 4)
        .shared_embedding_collection_name("c")
        .build()
        .unwrap();
    let other = [identity("u_id", 5), identity("v_id", 5)];
    cols.extend(
        shared(&other, 2, 5)
            .shared_embedding_collection_name("c")
            .build()
            .unwrap(),
    );
    layer_case("shared_err_collection_shape", cols, None);
}

#[test]
fn shared_embedding_default_initializer() {
    let want = expected("shared_default_init");
    let g = Graph::new();
    let cols =
        fc::shared_embedding_columns(&[identity("x", 2000), identity("y", 2000)], 4).unwrap();
    let x = constant(
        &g,
        weir_graph::Tensor::from_vec(&[1, 1], vec![1i64]).unwrap(),
    )
    .unwrap();
    let y = constant(
        &g,
        weir_graph::Tensor::from_vec(&[1, 1], vec![2i64]).unwrap(),
    )
    .unwrap();
    let feats = [("x".to_string(), x.into()), ("y".to_string(), y.into())].into();
    fc::input_layer(&feats, &cols).unwrap();
    check_variables(&g, &want["variables"], "shared_default_init");
    let sess = session(&g);
    let w = sess
        .eval(global_variables(&g).unwrap()[0].value())
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let n = w.len() as f64;
    let mean = w.iter().map(|&v| v as f64).sum::<f64>() / n;
    let std = (w.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
    let max_abs = w.iter().fold(0f32, |m, v| m.max(v.abs()));
    // truncated_normal(stddev=0.5): within two stddevs, std about 0.88 * 0.5 (TF: 0.439).
    assert!(max_abs <= 1.0, "{max_abs}");
    assert!(mean.abs() < 0.02, "{mean}");
    let tf_std = want["std"].as_f64().unwrap();
    assert!((std - tf_std).abs() < 0.015, "{std} vs {tf_std}");
}

#[test]
fn shared_embedding_errors() {
    let want = &expected("errors");
    let msg = |name: &str| &want[name]["message"];
    let (a, b) = (identity("a", 4), identity("b", 4));
    assert_error(
        fc::shared_embedding_columns(&[a.clone(), b.clone()], 0),
        msg("shared_dimension"),
        "shared_dimension",
    );
    assert_error(
        SharedEmbeddingColumns::new(&[a.clone(), b.clone()], 2)
            .tensor_name_in_ckpt("t")
            .build(),
        msg("shared_ckpt"),
        "shared_ckpt",
    );
    let vb = fc::categorical_column_with_vocabulary_list("b", ["x", "y", "z", "w"]).unwrap();
    assert_error(
        fc::shared_embedding_columns(&[a.clone(), vb], 2),
        msg("shared_types"),
        "shared_types",
    );
    assert_error(
        fc::shared_embedding_columns(&[cross(vec![s("a"), s("c")], 4), buck()], 2),
        msg("shared_types_bucketized"),
        "shared_types_bucketized",
    );
    assert_error(
        fc::shared_embedding_columns(&[a.clone(), identity("b", 5)], 2),
        msg("shared_buckets"),
        "shared_buckets",
    );
    let wb = fc::weighted_categorical_column(&identity("b", 5), "w").unwrap();
    assert_error(
        fc::shared_embedding_columns(&[wb, a], 2),
        msg("shared_weighted_buckets"),
        "shared_weighted_buckets",
    );
    assert_error(
        fc::shared_embedding_columns(&[buck(), num("x")], 2),
        msg("shared_not_categorical"),
        "shared_not_categorical",
    );
    let e = fc::shared_embedding_columns(&[], 2).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

/// The sparse ids a crossed column gives are what `sparse_cross_hashed` gives for its keys.
#[test]
fn crossed_column_is_sparse_cross_hashed() {
    let g = Graph::new();
    let a = constant(
        &g,
        weir_graph::Tensor::from_strings(&["x", "y"])
            .reshape(&[2, 1])
            .unwrap(),
    )
    .unwrap();
    let b = SparseOutput::new(
        constant(
            &g,
            weir_graph::Tensor::from_vec(&[2, 2], vec![0i64, 0, 1, 0]).unwrap(),
        )
        .unwrap(),
        constant(&g, vec![4i64, 5]).unwrap(),
        constant(&g, vec![2i64, 1]).unwrap(),
    )
    .unwrap();
    let feats = [
        ("a".to_string(), a.clone().into()),
        ("b".to_string(), b.clone().into()),
    ]
    .into();
    let out = fc::transform_features(&feats, &[cross(vec![s("a"), s("b")], 17)]).unwrap();
    let Transformed::Sparse(ids) = &out["a_X_b"] else {
        panic!("not sparse")
    };
    let direct = weir_ops::sparse::sparse_cross_hashed(
        [weir_ops::sparse::CrossInput::from(&a), (&b).into()],
        17,
        None,
    )
    .unwrap();
    let sess = session(&g);
    assert_eq!(
        sess.eval(&ids.values).unwrap().to_vec::<i64>().unwrap(),
        sess.eval(&direct.values).unwrap().to_vec::<i64>().unwrap()
    );
}
