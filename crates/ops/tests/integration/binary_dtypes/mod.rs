//! The binary math, comparison, select, reduction, scan, segment, arg-max and matmul ops on
//! float16, bfloat16, complex64 and complex128, against TensorFlow 2.21: every case of
//! tests/data/binary_dtypes/expected.json (made by make_binary_dtypes.py there) built from raw
//! ops and run here. Outputs match bit for bit unless the case allows some ulps (complex `Pow`,
//! whose glibc `cpow` weir does not reproduce, and complex products, which Eigen's blocked
//! kernel sums in another order); where TensorFlow rejects a dtype, weir must fail with
//! InvalidArgument when the node is added.

pub mod data;

use data::{cases, check, tensor};
use serde_json::Value;
use weir_graph::{AttrValue, Code, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_session::Session;

/// Builds the case's op on constants and runs it.
fn run(case: &Value) -> Result<Tensor> {
    let g = Graph::new();
    let mut b = g.new_operation(case["op"].as_str().unwrap());
    for input in case["inputs"].as_array().unwrap() {
        b = b.input(constant(&g, tensor(&input[1]))?);
    }
    for (k, v) in case["attrs"].as_object().unwrap() {
        let v = match v {
            Value::Bool(x) => AttrValue::Bool(*x),
            v => panic!("attr {k}: {v}"),
        };
        b = b.attr(k, v);
    }
    let out = b.build()?.output(0)?;
    Session::new(&g)?.eval(&out)
}

#[test]
fn every_case_matches_tensorflow() {
    let mut failures = vec![];
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let got = run(case);
        let outcome = match (got, case.get("error")) {
            (Err(e), Some(_)) if e.code() == Code::InvalidArgument => Ok(()),
            (r, Some(err)) => Err(format!("{name}: TensorFlow fails with {err}, weir: {r:?}")),
            (Err(e), None) => Err(format!("{name}: {e}")),
            (Ok(t), None) => check(name, &t, &case["output"], case["ulps"].as_f64().unwrap()),
        };
        if let Err(e) = outcome {
            failures.push(e);
        }
    }
    assert!(cases().len() >= 300, "{} cases", cases().len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
