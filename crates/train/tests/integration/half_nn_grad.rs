//! float16 gradients of the nn ops (and of a small MLP: MatMul + BiasAdd + Relu + sparse
//! softmax cross-entropy + sum) against TensorFlow 2.21's `tf.gradients` with a fixed
//! `grad_ys`: the "grad" cases of crates/ops/tests/data/half_nn/expected.json. weir builds
//! the same backward ops in float16 (`ReluGrad`, `SoftmaxCrossEntropyWithLogits`' backprop,
//! `Conv2DBackpropInput`, ...), so values compare bit for bit except where the case's
//! backward kernel is one TensorFlow accumulates in the half type (the convolution backprops:
//! within 4 eps of the largest element; see crates/ops/tests/integration/half_nn.rs).

#[path = "../../../ops/tests/integration/half_nn/cases.rs"]
pub(crate) mod cases;

use std::collections::BTreeMap;

use cases::{assert_scaled, assert_tensor, cases, tensor};
use serde_json::Value;
use weir_graph::{Graph, Output, Result};
use weir_ops::array::constant;
use weir_ops::math::{matmul, Reduce};
use weir_ops::nn::{self, Padding};
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;

/// The case's model on the graph's constants `t`.
fn model(name: &str, t: &BTreeMap<String, Output>) -> Result<Output> {
    let x = || t["x"].clone();
    Ok(match name {
        "grad_relu" => nn::relu(x())?,
        "grad_relu6" => nn::relu6(x())?,
        "grad_elu" => nn::elu(x())?,
        "grad_selu" => nn::selu(x())?,
        "grad_softplus" => nn::softplus(x())?,
        "grad_softsign" => nn::softsign(x())?,
        "grad_leaky_relu" => nn::leaky_relu(x())?,
        "grad_sigmoid" => nn::sigmoid(x())?,
        "grad_tanh" => nn::tanh(x())?,
        "grad_softmax" => nn::softmax(x())?,
        "grad_log_softmax" => nn::log_softmax(x())?,
        "grad_bias_add" => nn::bias_add(x(), t["b"].clone())?,
        "grad_l2_loss" => nn::l2_loss(x())?,
        "grad_sparse_xent" => {
            nn::sparse_softmax_cross_entropy_with_logits(t["labels"].clone(), x())?
        }
        "grad_xent" => nn::softmax_cross_entropy_with_logits(t["p"].clone(), x())?,
        "grad_conv2d" => nn::conv2d(x(), t["f"].clone(), [1, 1, 1, 1], Padding::Valid)?,
        "grad_max_pool" => nn::max_pool(x(), [1, 2, 2, 1], [1, 2, 2, 1], Padding::Valid)?,
        "grad_avg_pool" => nn::avg_pool(x(), [1, 2, 2, 1], [1, 2, 2, 1], Padding::Valid)?,
        "grad_mlp" => {
            let h = nn::relu(nn::bias_add(
                matmul(x(), t["w1"].clone())?,
                t["b1"].clone(),
            )?)?;
            let logits = nn::bias_add(matmul(h, t["w2"].clone())?, t["b2"].clone())?;
            let xent = nn::sparse_softmax_cross_entropy_with_logits(t["labels"].clone(), logits)?;
            Reduce::sum().build(xent)?
        }
        other => panic!("unknown model {other}"),
    })
}

/// Checks one case: its forward value and every gradient TensorFlow recorded.
fn check(c: &Value) -> Result<()> {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut t = BTreeMap::new();
    for (k, v) in c["inputs"].as_object().unwrap() {
        t.insert(k.clone(), constant(&g, tensor(v))?);
    }
    let y = model(name, &t)?;
    let names: Vec<&String> = c["grads"].as_object().unwrap().keys().collect();
    let xs: Vec<Output> = names.iter().map(|k| t[*k].clone()).collect();
    let gy = constant(&g, tensor(&c["grad_ys"]))?;
    let grads = gradients(std::slice::from_ref(&y), &xs, Some(&[gy]))?;
    let mut args = RunArgs::new().fetch(&y);
    for (k, d) in names.iter().zip(&grads) {
        args = args.fetch(
            d.as_ref()
                .unwrap_or_else(|| panic!("{name}: no gradient for {k}")),
        );
    }
    let got = Session::new(&g)?.run(&args)?;
    assert_tensor(&format!("{name}: value"), &got[0], &c["outputs"][0], 0);
    for (k, v) in names.iter().zip(&got[1..]) {
        let what = format!("{name}: d/d{k}");
        if name == "grad_conv2d" {
            assert_scaled(&what, v, &c["grads"][k.as_str()], 4.0);
        } else {
            assert_tensor(&what, v, &c["grads"][k.as_str()], 0);
        }
    }
    Ok(())
}

#[test]
fn half_gradients_match_tensorflow() {
    let mut failures = Vec::new();
    let mut n = 0;
    for c in cases().iter().filter(|c| c["kind"] == "grad") {
        let name = c["name"].as_str().unwrap();
        match std::panic::catch_unwind(|| check(c)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("{name}: {e}")),
            Err(e) => failures.push(
                e.downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| format!("{name}: panicked")),
            ),
        }
        n += 1;
    }
    assert!(n >= 19, "only {n} gradient cases");
    assert!(
        failures.is_empty(),
        "{} of {n} fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
