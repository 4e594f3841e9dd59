//! The sparse arithmetic ops against TensorFlow 2.21 (tests/data/sparse_math/expected.json,
//! written by make_sparse_math.py there): `SparseTensorDenseMatMul`,
//! `SparseDenseCwise{Mul,Div,Add}`, `SparseTensorDenseAdd`, `SparseAdd`, `SparseAddGrad` and
//! `SparseReduce{Sum,Max}[Sparse]`: every output bit for bit (float sums in TensorFlow's
//! order), static shapes, and every error's code and message. Messages are compared before
//! TensorFlow's " for '{{node ...}}'" suffix (weir's suffix names the op instead).

use serde_json::Value;
use weir_graph::{DType, Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sparse::{
    sparse_add, sparse_add_grad, sparse_dense_cwise_add, sparse_dense_cwise_div,
    sparse_dense_cwise_mul, sparse_reduce_max, sparse_reduce_max_sparse, sparse_reduce_sum,
    sparse_reduce_sum_sparse, sparse_tensor_dense_add, sparse_tensor_dense_matmul, SparseOutput,
};

use crate::io_util::{check_all_cases, run_built_case, shape_of, spec_tensor, usizes};

fn ints<T: Copy + Into<i64>>(v: &[T]) -> Vec<u64> {
    v.iter().map(|&x| x.into() as u64).collect()
}

/// Every element as bits (a NaN as one pattern: TensorFlow and Rust may differ in a NaN's
/// payload, not in where NaNs are).
fn elements(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|x| {
                if x.is_nan() {
                    u64::MAX
                } else {
                    x.to_bits() as u64
                }
            })
            .collect(),
        DType::F64 => t
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() })
            .collect(),
        DType::I8 => ints(t.as_slice::<i8>().unwrap()),
        DType::I16 => ints(t.as_slice::<i16>().unwrap()),
        DType::I32 => ints(t.as_slice::<i32>().unwrap()),
        DType::I64 => ints(t.as_slice::<i64>().unwrap()),
        DType::U8 => ints(t.as_slice::<u8>().unwrap()),
        DType::U16 => ints(t.as_slice::<u16>().unwrap()),
        dt => panic!("{dt}"),
    }
}

/// An input: a constant when the spec says so, else a placeholder of the spec's `shape` (its
/// own dims unless given) fed its value.
fn source(g: &Graph, spec: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec_tensor(spec);
    if spec.get("const").and_then(Value::as_bool) == Some(true) {
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

/// Groups three inputs directly, so that the ops' own checks meet ill-shaped ones.
fn sparse(x: &[Output]) -> SparseOutput {
    SparseOutput {
        indices: x[0].clone(),
        values: x[1].clone(),
        dense_shape: x[2].clone(),
    }
}

fn axes_of(t: &Value) -> Vec<i32> {
    t["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap() as i32)
        .collect()
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let specs = c["inputs"].as_array().unwrap();
    let op = c["op"].as_str().unwrap();
    let attr = |k: &str| c["attrs"][k].as_bool().unwrap_or(false);
    if op.starts_with("reduce") {
        // The axes go through the builder's constant unless the case feeds them (a matrix).
        let x: Vec<Output> = specs[..3].iter().map(|s| source(g, s, feeds)).collect();
        let sp = sparse(&x);
        let axes_spec = &specs[3];
        let keep = attr("keep_dims");
        if axes_spec.get("shape").is_some() || usizes(&axes_spec["dims"]).is_empty() {
            let axes = source(g, axes_spec, feeds);
            let op_type = match op {
                "reduce_sum" => "SparseReduceSum",
                "reduce_max" => "SparseReduceMax",
                "reduce_sum_sparse" => "SparseReduceSumSparse",
                _ => "SparseReduceMaxSparse",
            };
            let node = g
                .new_operation(op_type)
                .input(&sp.indices)
                .input(&sp.values)
                .input(&sp.dense_shape)
                .input(&axes)
                .attr("keep_dims", keep)
                .build()?;
            let n = if op.ends_with("sparse") { 3 } else { 1 };
            return (0..n).map(|i| node.output(i)).collect();
        }
        let axes = axes_of(axes_spec);
        let axes = Some(axes.as_slice());
        return match op {
            "reduce_sum" => sparse_reduce_sum(&sp, axes, keep).map(|o| vec![o]),
            "reduce_max" => sparse_reduce_max(&sp, axes, keep).map(|o| vec![o]),
            "reduce_sum_sparse" => {
                sparse_reduce_sum_sparse(&sp, axes, keep).map(|s| s.outputs().to_vec())
            }
            _ => sparse_reduce_max_sparse(&sp, axes, keep).map(|s| s.outputs().to_vec()),
        };
    }
    let x: Vec<Output> = specs.iter().map(|s| source(g, s, feeds)).collect();
    match op {
        "matmul" => {
            sparse_tensor_dense_matmul(&sparse(&x), &x[3], attr("adjoint_a"), attr("adjoint_b"))
                .map(|o| vec![o])
        }
        "cwise_mul" => sparse_dense_cwise_mul(&sparse(&x), &x[3]).map(|s| vec![s.values]),
        "cwise_div" => sparse_dense_cwise_div(&sparse(&x), &x[3]).map(|s| vec![s.values]),
        "cwise_add" => sparse_dense_cwise_add(&sparse(&x), &x[3]).map(|s| vec![s.values]),
        "dense_add" => sparse_tensor_dense_add(&sparse(&x), &x[3]).map(|o| vec![o]),
        "sparse_add" => {
            sparse_add(&sparse(&x), &sparse(&x[3..]), &x[6]).map(|s| s.outputs().to_vec())
        }
        "add_grad" => sparse_add_grad(&x[0], &x[1], &x[2], &x[3]).map(|(a, b)| vec![a, b]),
        other => panic!("op {other}"),
    }
}

fn check_outputs(name: &str, c: &Value, got: &[Tensor]) {
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let w = spec_tensor(w);
        assert_eq!(g.dtype(), w.dtype(), "{name}: dtype of output {k}");
        assert_eq!(g.shape(), w.shape(), "{name}: shape of output {k}");
        assert_eq!(
            elements(g),
            elements(&w),
            "{name}: output {k}: {g:?} vs {w:?}"
        );
    }
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        crate::io_util::check_tf_error,
        |name, v| check_outputs(name, c, v),
    )
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = crate::io_util::expected_cases("sparse_math");
    assert!(cases.len() >= 420, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}
