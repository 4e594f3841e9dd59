//! Gradients of the sparse structure ops (`SparseReorder`, `SparseSlice`, `SparseSoftmax`,
//! `SparseFillEmptyRows`, `SparseToDense`, and the failing `SparseSparseMaximum` /
//! `SparseSparseMinimum`) against TensorFlow 2.21's `tf.gradients` with a fixed `grad_ys`: every
//! "gradient" case of crates/ops/tests/data/sparse_grad_ops/expected.json, bit for bit (the
//! gradients copy, gather and sum in TensorFlow's order; `SparseSoftmax`'s runs the same
//! elementwise ops and `SparseReduceSum` in TensorFlow's order), with the gradients' static
//! shapes; and against weir's numeric checker (central differences: within 1e-6 for float64,
//! 2e-2 for float32).

#[path = "../../../ops/tests/integration/sparse_grad_ops/spec.rs"]
mod spec;

use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sparse::{
    sparse_fill_empty_rows, sparse_fill_empty_rows_grad, sparse_maximum, sparse_minimum,
    sparse_reorder, sparse_slice, sparse_slice_grad, sparse_softmax, SparseOutput, SparseToDense,
};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

/// Cases whose forward op is not the function TensorFlow's gradient differentiates: for
/// unsorted indices `SparseSoftmax` returns its values in row-major order beside the unsorted
/// indices, and the gradient (TensorFlow's too) pairs them as if they matched.
const NOT_NUMERIC: &[&str] = &["softmax_unsorted"];

/// Cases where weir's forward op differs from TensorFlow's: weir's `SparseSoftmax` keeps a
/// denormal probability (exp(-100) in float32) that TensorFlow, running with denormals flushed
/// to zero, makes 0; the gradient then carries a denormal where TensorFlow's has 0. Compared
/// with denormals flushed.
const FLUSH_DENORMALS: &[&str] = &["softmax_denormal_output"];

fn flush(t: &Tensor) -> Tensor {
    let v: Vec<f32> = t
        .as_slice::<f32>()
        .unwrap()
        .iter()
        .map(|&x| {
            if x.abs() < f32::MIN_POSITIVE {
                0.0 * x.signum()
            } else {
                x
            }
        })
        .collect();
    Tensor::from_vec(t.shape(), v).unwrap()
}

fn cases() -> &'static [Value] {
    static CASES: OnceLock<Vec<Value>> = OnceLock::new();
    CASES.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/sparse_grad_ops/expected.json");
        let all: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        all.into_iter().filter(|c| c["op"] == "gradient").collect()
    })
}

/// A case's graph: its input placeholders with their values, and the forward op's outputs.
struct Built {
    inputs: Vec<(Output, Tensor)>,
    outputs: Vec<Output>,
}

fn sparse(ins: &[(Output, Tensor)], at: usize) -> SparseOutput {
    // Grouped directly, as TensorFlow's raw ops take them.
    SparseOutput {
        indices: ins[at].0.clone(),
        values: ins[at + 1].0.clone(),
        dense_shape: ins[at + 2].0.clone(),
    }
}

fn build(g: &Graph, c: &Value) -> Result<Built> {
    let inputs: Vec<(Output, Tensor)> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let v = spec::tensor(s);
            let p = placeholder(g, v.dtype(), Shape::known(v.shape())).unwrap();
            (p, v)
        })
        .collect();
    let sp = sparse(&inputs, 0);
    let outputs = match c["fn"].as_str().unwrap() {
        "reorder" => {
            let r = sparse_reorder(&sp)?;
            vec![r.indices, r.values]
        }
        "slice" => sparse_slice(&sp, &inputs[3].0, &inputs[4].0)?
            .outputs()
            .to_vec(),
        "softmax" => vec![sparse_softmax(&sp)?.values],
        "fill" => {
            let (out, empty) = sparse_fill_empty_rows(&sp, &inputs[3].0)?;
            let map = out.values.op().output(3)?;
            vec![out.indices, out.values, empty, map]
        }
        "to_dense" => vec![SparseToDense::new()
            .validate_indices(c["validate"].as_bool().unwrap())
            .build(&inputs[0].0, &inputs[1].0, &inputs[2].0, &inputs[3].0)?],
        "maximum" => sparse_maximum(&sp, &sparse(&inputs, 3))?.outputs()[..2].to_vec(),
        "minimum" => sparse_minimum(&sp, &sparse(&inputs, 3))?.outputs()[..2].to_vec(),
        other => panic!("fn {other}"),
    };
    Ok(Built { inputs, outputs })
}

fn xs_of(c: &Value) -> Vec<usize> {
    c["xs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// The weir error code of the exception TensorFlow raised while building the gradients: its
/// `ValueError`s are shape-function and shape-check failures; the `TypeError` is 2.21's
/// min/max gradient failing before its own `NotImplementedError`.
fn code_of(python_type: &str) -> Code {
    match python_type {
        "ValueError" => Code::InvalidArgument,
        "TypeError" | "NotImplementedError" => Code::Unimplemented,
        other => panic!("exception {other}"),
    }
}

/// Checks one case against TensorFlow; returns whether TensorFlow failed.
fn check_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, c).unwrap_or_else(|e| panic!("{name}: {e}"));
    let y = &built.outputs[c["y"].as_u64().unwrap() as usize];
    let xs: Vec<Output> = xs_of(c)
        .iter()
        .map(|&i| built.inputs[i].0.clone())
        .collect();
    let gy = constant(&g, spec::tensor(&c["grad_ys"])).unwrap();
    let grads = gradients(std::slice::from_ref(y), &xs, Some(&[gy]));
    if let Some(want) = c.get("grad_error") {
        let e = grads.expect_err(name);
        assert_eq!(
            e.code(),
            code_of(want["type"].as_str().unwrap()),
            "{name}: {e}"
        );
        if want["type"] == "ValueError" {
            let msg = want["message"].as_str().unwrap();
            assert!(e.message().ends_with(msg), "{name}: {e} vs {msg}");
        }
        return true;
    }
    let grads = grads.unwrap_or_else(|e| panic!("{name}: {e}"));
    let shapes = c["grad_shapes"].as_array().unwrap();
    let mut args = RunArgs::new();
    for (x, v) in &built.inputs {
        args = args.feed(x, v.clone());
    }
    let mut fetched = Vec::new();
    for (k, (d, want)) in grads.iter().zip(c["grads"].as_array().unwrap()).enumerate() {
        match d {
            None => assert!(want.is_null(), "{name}: no gradient {k}"),
            Some(d) => {
                let s = &shapes[k];
                assert_eq!(d.shape(), spec::static_shape(s), "{name}: static shape {k}");
                args = args.fetch(d);
                fetched.push((k, spec::tensor(want)));
            }
        }
    }
    let got = Session::new(&g)
        .unwrap()
        .run(&args)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    for ((k, want), got) in fetched.iter().zip(&got) {
        let got = &if FLUSH_DENORMALS.contains(&name) {
            flush(got)
        } else {
            got.clone()
        };
        spec::assert_same(&format!("{name}: gradient {k}"), got, want);
    }
    false
}

#[test]
fn gradients_match_tensorflow() {
    let mut failed = Vec::new();
    let mut errors = 0;
    for c in cases() {
        match std::panic::catch_unwind(|| check_case(c)) {
            Ok(e) => errors += usize::from(e),
            Err(_) => failed.push(c["name"].as_str().unwrap()),
        }
    }
    assert!(failed.is_empty(), "cases differ: {failed:?}");
    assert!(cases().len() >= 35, "{} cases", cases().len());
    let want = cases()
        .iter()
        .filter(|c| c.get("grad_error").is_some())
        .count();
    assert_eq!(errors, want);
}

#[test]
fn gradients_match_central_differences() {
    let mut n = 0;
    for c in cases().iter().filter(|c| c.get("grads").is_some()) {
        let name = c["name"].as_str().unwrap();
        if NOT_NUMERIC.contains(&name) {
            continue;
        }
        for i in xs_of(c) {
            let g = Graph::new();
            let built = build(&g, c).unwrap();
            let (x, xv) = built.inputs[i].clone();
            let tol = match x.dtype() {
                DType::F64 => 1e-6,
                // Central differences in float32 with a step of 1e-3.
                DType::F32 => 2e-2,
                _ => continue,
            };
            let others: Vec<(Output, Tensor)> = built
                .inputs
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, p)| p.clone())
                .collect();
            let y = &built.outputs[c["y"].as_u64().unwrap() as usize];
            let err = gradient_error(&x, &xv, y, &others).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(err < tol, "{name}: d/d input {i} is off by {err}");
            n += 1;
        }
    }
    assert!(n >= 35, "only {n} numeric checks");
}

/// TensorFlow registers no gradient for the backward ops themselves (`tf.gradients` through
/// them raises LookupError): weir's is NotFound naming the op.
#[test]
fn backward_ops_have_no_gradient() {
    let g = Graph::new();
    let grad = constant(&g, vec![1.0f64, 2.0]).unwrap();
    let map = constant(&g, vec![1i64]).unwrap();
    let (d, _) = sparse_fill_empty_rows_grad(&map, &grad).unwrap();
    let e = gradients(&[d], std::slice::from_ref(&grad), None).unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
    assert!(
        e.message().contains("op type: SparseFillEmptyRowsGrad"),
        "{e}"
    );
    let ix = constant(&g, Tensor::from_vec(&[2, 1], vec![0i64, 1]).unwrap()).unwrap();
    let start = constant(&g, vec![0i64]).unwrap();
    let d = sparse_slice_grad(&grad, &ix, &start, &ix).unwrap();
    let e = gradients(&[d], &[grad], None).unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e}");
}
