//! The structural sparse ops against TensorFlow 2.21 (tests/data/sparse_structure/expected.json,
//! written by make_sparse_structure.py there): `tf.sparse.fill_empty_rows`, `retain`, `slice`,
//! `split`, `transpose`, `to_indicator`, `reset_shape`, `softmax`, `maximum` and `minimum`:
//! output indices, values (floats bit for bit) and dense shapes, static shapes, and every
//! error's code and message. Messages are compared before TensorFlow's " for '{{node ...}}'"
//! suffix (weir's suffix names the op instead); where TensorFlow's message names dtypes weir
//! does not have (the allowed-types lists), or Python objects, only the code is compared.

use serde_json::Value;
use weir_graph::{Code, Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder, IndexArg};
use weir_ops::sparse::{
    sparse_fill_empty_rows, sparse_maximum, sparse_minimum, sparse_reset_shape, sparse_retain,
    sparse_slice, sparse_softmax, sparse_split, sparse_to_indicator, sparse_transpose,
    SparseOutput,
};
use weir_session::Session;

use crate::io_util::{check_all_cases, fetch_and_feed, run_built_case, shape_of, spec_tensor};

/// Cases whose TensorFlow message names Python objects or dtypes weir lacks: code only.
const CODE_ONLY: &[&str] = &[
    "fill_dtype_mismatch",
    "softmax_int",
    "maximum_bool",
    "minimum_bool",
    "maximum_dtype_mismatch",
    "minimum_dtype_mismatch",
    "split_zero",
    "maximum_string",
    "minimum_string",
];

/// Cases TensorFlow fails when running and weir when building, with the same code and message:
/// weir's `Cast` refuses a string input in its shape function.
const FAILS_AT_BUILD: &[&str] = &["indicator_string"];

/// An input: a constant when the spec says so, else a placeholder of the spec's `shape` (its
/// own dims unless given) fed its value.
fn source(g: &Graph, spec: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(spec);
    if spec.get("const").is_some() {
        return constant(g, value).unwrap();
    }
    let shape = match spec.get("shape") {
        Some(s) => shape_of(s),
        None => weir_graph::Shape::known(value.shape()),
    };
    let p = placeholder(g, value.dtype(), shape).unwrap();
    feeds.push((p.clone(), value));
    p
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let ins: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| source(g, s, feeds))
        .collect();
    // Grouped directly, so that the ops' own shape checks meet ill-shaped inputs.
    let sp = SparseOutput {
        indices: ins[0].clone(),
        values: ins[1].clone(),
        dense_shape: ins[2].clone(),
    };
    let parts = |s: SparseOutput| s.outputs().to_vec();
    Ok(match c["op"].as_str().unwrap() {
        "fill" => {
            let (out, empty) = sparse_fill_empty_rows(&sp, &ins[3])?;
            let mut v = parts(out);
            v.push(empty);
            v
        }
        "retain" => parts(sparse_retain(&sp, &ins[3])?),
        "slice" => parts(sparse_slice(&sp, &ins[3], &ins[4])?),
        "split" => {
            let k = c["num_split"].as_u64().unwrap() as usize;
            let pieces = sparse_split(&sp, k, c["axis"].as_i64().unwrap())?;
            let mut v: Vec<Output> = pieces.iter().map(|p| p.indices.clone()).collect();
            v.extend(pieces.iter().map(|p| p.values.clone()));
            v.extend(pieces.iter().map(|p| p.dense_shape.clone()));
            v
        }
        "transpose" => {
            let perm = c.get("perm").filter(|p| !p.is_null()).map(ints);
            parts(sparse_transpose(&sp, perm.as_deref())?)
        }
        "indicator" => vec![sparse_to_indicator(&sp, c["vocab_size"].as_i64().unwrap())?],
        "reset_shape" => {
            let new_shape: Option<IndexArg> = match (ins.get(3), c.get("new_shape")) {
                (Some(t), _) => Some(t.into()),
                (None, Some(v)) if !v.is_null() => Some(ints(v).into()),
                _ => None,
            };
            parts(sparse_reset_shape(&sp, new_shape)?)
        }
        "softmax" => parts(sparse_softmax(&sp)?),
        op @ ("maximum" | "minimum") => {
            let b = SparseOutput {
                indices: ins[3].clone(),
                values: ins[4].clone(),
                dense_shape: ins[5].clone(),
            };
            let f = if op == "maximum" {
                sparse_maximum
            } else {
                sparse_minimum
            };
            parts(f(&sp, &b)?)
        }
        other => panic!("op {other}"),
    })
}

fn check_error(name: &str, got: &Error, want: &Value) {
    if CODE_ONLY.contains(&name) {
        let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
        assert_eq!(got.code(), code, "{name}: {got}");
        return;
    }
    crate::io_util::check_tf_error(name, got, want)
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        if FAILS_AT_BUILD.contains(&c["name"].as_str().unwrap()) {
            c.get("error")
        } else {
            c.get("build_error")
        },
        |g, feeds| build(g, c, feeds),
        check_error,
        |name, v| crate::io_util::check_spec_outputs(name, c, v),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = crate::io_util::expected_cases("sparse_structure");
    assert!(cases.len() >= 280, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// Extreme sizes, starts and indices end in a result or an error, never a panic or an abort.
#[test]
fn extreme_inputs_end_in_a_result_or_an_error() {
    let big = i64::MAX;
    let mat = |rows: usize, v: Vec<i64>| {
        let cols = v.len() / rows.max(1);
        Tensor::from_vec(&[rows, cols], v).unwrap()
    };
    let sparse = |g: &Graph, ix: Tensor, shape: Vec<i64>| {
        let n = ix.shape()[0];
        SparseOutput::new(
            constant(g, ix).unwrap(),
            constant(g, vec![1.5f32; n]).unwrap(),
            constant(g, shape).unwrap(),
        )
        .unwrap()
    };
    type Build = Box<dyn Fn(&Graph) -> Result<Vec<Output>, Error>>;
    let cases: Vec<(&str, Build)> = vec![
        (
            "slice",
            Box::new(move |g| {
                let sp = sparse(g, mat(1, vec![5, -3]), vec![big, 3]);
                Ok(sparse_slice(&sp, [i64::MIN, i64::MIN], [big, big])?
                    .outputs()
                    .to_vec())
            }),
        ),
        (
            "fill_rows",
            Box::new(move |g| {
                let sp = sparse(g, mat(1, vec![0, 0]), vec![big, 2]);
                let (o, e) = sparse_fill_empty_rows(&sp, constant(g, 0.0f32)?)?;
                Ok(vec![o.indices, e])
            }),
        ),
        (
            "split",
            Box::new(move |g| {
                let sp = sparse(g, mat(1, vec![big - 1, 0]), vec![big, 4]);
                Ok(sparse_split(&sp, 3, 0)?
                    .into_iter()
                    .map(|s| s.indices)
                    .collect())
            }),
        ),
        (
            "softmax",
            Box::new(move |g| {
                let sp = sparse(g, mat(1, vec![big - 1, 3]), vec![big, big]);
                Ok(sparse_softmax(&sp)?.outputs().to_vec())
            }),
        ),
        (
            "maximum",
            Box::new(move |g| {
                let a = sparse(g, mat(1, vec![big - 1, 3]), vec![big, big]);
                let b = sparse(g, mat(1, vec![0, big - 1]), vec![big, big]);
                Ok(sparse_maximum(&a, &b)?.outputs().to_vec())
            }),
        ),
        (
            "transpose",
            Box::new(move |g| {
                let sp = sparse(g, mat(1, vec![0, 1]), vec![2, 2]);
                Ok(sparse_transpose(&sp, Some(&[big, 0]))?.outputs().to_vec())
            }),
        ),
        (
            "reset_shape",
            Box::new(move |g| {
                let sp = sparse(g, mat(1, vec![big, big]), vec![big, big]);
                Ok(sparse_reset_shape(&sp, None)?.outputs().to_vec())
            }),
        ),
        (
            "indicator",
            Box::new(move |g| {
                let ix = constant(g, mat(1, vec![0, 0]))?;
                let sp =
                    SparseOutput::new(ix, constant(g, vec![3i64])?, constant(g, vec![2i64, 2])?)?;
                Ok(vec![sparse_to_indicator(&sp, big)?])
            }),
        ),
    ];
    for (name, build) in cases {
        let g = Graph::new();
        let outs = match build(&g) {
            Ok(o) => o,
            Err(_) => continue,
        };
        let sess = Session::new(&g).unwrap();
        let ran = sess.run(&fetch_and_feed(&outs, vec![]));
        if let Err(e) = ran {
            assert!(!e.message().is_empty(), "{name}");
        }
    }
}
