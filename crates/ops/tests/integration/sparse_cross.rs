//! The sparse feature crosses against TensorFlow 2.21 (tests/data/sparse_cross/expected.json,
//! written by make_sparse_cross.py there): `tf.sparse.cross` (`SparseCrossV2`),
//! `tf.sparse.cross_hashed` (`SparseCross`), and the raw ops `SparseCross`, `SparseCrossV2` and
//! `SparseCrossHashed`: output indices, values (every string and hash) and dense shapes, static
//! shapes, and every error's code and message (before TensorFlow's " for '{{node ...}}'"
//! suffix).

use serde_json::Value;
use weir_graph::{Code, DType, Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sparse::{
    sparse_cross, sparse_cross_hashed, sparse_cross_hashed_v2, sparse_cross_v1, sparse_cross_v2,
    CrossInput, CrossLists, SparseCrossAttrs, SparseOutput,
};
use weir_session::Session;

use crate::io_util::{check_all_cases, run_built_case, shape_of, spec_dtype, spec_tensor};

/// A placeholder of the spec's `shape` (its own dims unless given), fed its value.
fn source(g: &Graph, spec: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(spec);
    let shape = match spec.get("shape") {
        Some(s) => shape_of(s),
        None => weir_graph::Shape::known(value.shape()),
    };
    let p = placeholder(g, value.dtype(), shape).unwrap();
    feeds.push((p.clone(), value));
    p
}

fn sources(g: &Graph, specs: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Vec<Output> {
    specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| source(g, s, feeds))
        .collect()
}

/// The builders' inputs: sparse tensors grouped without `SparseOutput::new`'s checks, so the
/// kernels meet ill-shaped inputs, and dense tensors.
fn cross_inputs(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Vec<CrossInput> {
    c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| match i.get("sparse") {
            Some(parts) => {
                let p = sources(g, parts, feeds);
                CrossInput::Sparse(SparseOutput {
                    indices: p[0].clone(),
                    values: p[1].clone(),
                    dense_shape: p[2].clone(),
                })
            }
            None => CrossInput::Dense(source(g, &i["dense"], feeds)),
        })
        .collect()
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let op = c["op"].as_str().unwrap();
    let out = match op {
        "cross" => {
            let ins = cross_inputs(g, c, feeds);
            let sep = c.get("separator").map_or("_X_", |s| s.as_str().unwrap());
            sparse_cross(ins, sep)?
        }
        "cross_hashed" => {
            let ins = cross_inputs(g, c, feeds);
            let buckets = c.get("num_buckets").map_or(0, |v| v.as_i64().unwrap());
            let key = c.get("hash_key").map(|v| v.as_i64().unwrap());
            sparse_cross_hashed(ins, buckets, key)?
        }
        _ => {
            let l = c["lists"].as_array().unwrap();
            let lists = CrossLists {
                indices: sources(g, &l[0], feeds),
                values: sources(g, &l[1], feeds),
                shapes: sources(g, &l[2], feeds),
                dense_inputs: sources(g, &l[3], feeds),
            };
            match op {
                "raw_v1" => {
                    let a = &c["attrs"];
                    let attrs = SparseCrossAttrs {
                        hashed_output: a["hashed_output"].as_bool().unwrap(),
                        num_buckets: a["num_buckets"].as_i64().unwrap(),
                        hash_key: a["hash_key"].as_i64().unwrap(),
                        out_type: spec_dtype(a["out_type"].as_str().unwrap()),
                        internal_type: spec_dtype(a["internal_type"].as_str().unwrap()),
                    };
                    sparse_cross_v1(g, &lists, &attrs)?
                }
                "raw_v2" => sparse_cross_v2(&lists, source(g, &c["sep"], feeds))?,
                "raw_hashed" => sparse_cross_hashed_v2(
                    &lists,
                    source(g, &c["num_buckets"], feeds),
                    source(g, &c["strong_hash"], feeds),
                    source(g, &c["salt"], feeds),
                )?,
                other => panic!("op {other}"),
            }
        }
    };
    Ok(out.outputs().to_vec())
}

fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        crate::io_util::check_tf_error,
        |name, v| crate::io_util::check_spec_outputs(name, c, v),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = crate::io_util::expected_cases("sparse_cross");
    assert!(cases.len() >= 170, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// A sparse `[rows, width]` string input from its rows' values.
fn strings(g: &Graph, rows: &[&[&str]]) -> SparseOutput {
    let mut ix = Vec::new();
    let mut vals = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (k, v) in row.iter().enumerate() {
            ix.extend([r as i64, k as i64]);
            vals.push(*v);
        }
    }
    let width = rows.iter().map(|r| r.len()).max().unwrap_or(0) as i64;
    SparseOutput::new(
        constant(g, Tensor::from_vec(&[vals.len(), 2], ix).unwrap()).unwrap(),
        constant(g, Tensor::from_strings(&vals)).unwrap(),
        constant(g, vec![rows.len() as i64, width]).unwrap(),
    )
    .unwrap()
}

/// Inputs whose rows hold many values give every product, row by row, and inputs far larger
/// in their batch size than in their entries run in time.
#[test]
fn products_and_sparse_batches() {
    let g = Graph::new();
    let a = strings(&g, &[&["a", "b", "c"], &[], &["d"]]);
    let b = strings(&g, &[&["1", "2"], &["3"], &["4", "5", "6"]]);
    let crossed = sparse_cross([&a, &b], "+").unwrap();
    let sess = Session::new(&g).unwrap();
    let v = sess.eval(&crossed.values).unwrap().to_strings().unwrap();
    assert_eq!(
        v,
        ["a+1", "a+2", "b+1", "b+2", "c+1", "c+2", "d+4", "d+5", "d+6"]
    );
    assert_eq!(
        sess.eval(&crossed.dense_shape)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [3, 6]
    );

    // A batch of 2^40 rows with two entries: no per-row work.
    let huge = 1i64 << 40;
    let sp = |vals: [&str; 2]| {
        SparseOutput::new(
            constant(
                &g,
                Tensor::from_vec(&[2, 2], vec![5i64, 0, huge - 1, 0]).unwrap(),
            )
            .unwrap(),
            constant(&g, vals.to_vec()).unwrap(),
            constant(&g, vec![huge, 1]).unwrap(),
        )
        .unwrap()
    };
    let crossed = sparse_cross_hashed([sp(["x", "y"]), sp(["p", "q"])], 10, None).unwrap();
    let out = sess
        .run(
            &weir_session::RunArgs::new()
                .fetch(&crossed.indices)
                .fetch(&crossed.dense_shape),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<i64>().unwrap(), [5, 0, huge - 1, 0]);
    assert_eq!(out[1].to_vec::<i64>().unwrap(), [huge, 1]);
}

/// A negative batch size (on which TensorFlow's kernel crashes) is an InvalidArgument error,
/// and so is an empty input list for the builders, which have no graph to build in.
#[test]
fn bad_batches_and_empty_inputs_are_errors() {
    let g = Graph::new();
    let sp = SparseOutput::new(
        constant(&g, Tensor::from_vec(&[0, 2], Vec::<i64>::new()).unwrap()).unwrap(),
        constant(&g, Tensor::from_vec(&[0], Vec::<i64>::new()).unwrap()).unwrap(),
        constant(&g, vec![-3i64, 2]).unwrap(),
    )
    .unwrap();
    let crossed = sparse_cross([&sp], "_").unwrap();
    let err = Session::new(&g).unwrap().eval(&crossed.values).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("-3"), "{err}");
    let none: Vec<CrossInput> = Vec::new();
    assert_eq!(
        sparse_cross(none.clone(), "_").unwrap_err().code(),
        Code::InvalidArgument
    );
    assert_eq!(
        sparse_cross_hashed(none, 0, None).unwrap_err().code(),
        Code::InvalidArgument
    );
    assert_eq!(crossed.values.dtype(), DType::String);
}
