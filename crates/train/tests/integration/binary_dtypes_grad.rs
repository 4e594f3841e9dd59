//! Gradients of the binary math ops (the `x*f(y)` ops and `MulNoNan` too), reductions,
//! matmuls, cumsum and select on float16, bfloat16 and complex64 against TensorFlow 2.21's
//! `tf.gradients` with a fixed `grad_ys`: every `grads` case of crates/ops/tests/data/binary_dtypes/expected.json. The gradient graphs
//! compute in the input's dtype (half gradients in half) and conjugate complex inputs as
//! TensorFlow's `math_grad.py` does; float16 results match bit for bit, complex ones within
//! the few ulps the case records (products summed in another order, `Pow`'s logarithm).

use crate::tf_tensors::{check, tensor};
use serde_json::Value;
use weir_graph::{AttrValue, Graph, Output, Result, Tensor};
use weir_ops::array::constant;
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;

fn grad_cases() -> &'static [Value] {
    static E: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    E.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/binary_dtypes/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["grads"]
        .as_array()
        .unwrap()
}

/// The case's op on constants, its gradients with respect to the recorded inputs, evaluated.
fn run(case: &Value) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let mut b = g.new_operation(case["op"].as_str().unwrap());
    let mut inputs: Vec<Output> = vec![];
    for input in case["inputs"].as_array().unwrap() {
        let c = constant(&g, tensor(&input[1]))?;
        b = b.input(c.clone());
        inputs.push(c);
    }
    for (k, v) in case["attrs"].as_object().unwrap() {
        b = b.attr(k, AttrValue::Bool(v.as_bool().unwrap()));
    }
    let y = b.build()?.output(0)?;
    let xs: Vec<Output> = case["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| inputs[i.as_u64().unwrap() as usize].clone())
        .collect();
    let gy = constant(&g, tensor(&case["grad_ys"]))?;
    let grads = gradients(&[y], &xs, Some(&[gy]))?;
    let mut args = RunArgs::new();
    for d in &grads {
        args = args.fetch(d.as_ref().expect("a gradient for every input"));
    }
    Session::new(&g)?.run(&args)
}

#[test]
fn gradients_match_tensorflow() {
    let mut failures = vec![];
    for case in grad_cases() {
        let name = case["name"].as_str().unwrap();
        let ulps = case["ulps"].as_f64().unwrap();
        match run(case) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(got) => {
                for (i, (g, want)) in got
                    .iter()
                    .zip(case["grads"].as_array().unwrap())
                    .enumerate()
                {
                    if let Err(e) = check(&format!("{name} d/dx{i}"), g, want, ulps) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(grad_cases().len() >= 35, "{} cases", grad_cases().len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
