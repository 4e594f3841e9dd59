//! Gradients of FractionalMaxPool and FractionalAvgPool against TensorFlow 2.21's `tf.gradients`
//! (every case of weir-ops' tests/data/fractional_pool/expected.json with a recorded gradient,
//! bit for bit: the max gradient adds each output gradient at the first maximum of its cell,
//! ties included; the avg gradient spreads them in float64 as TensorFlow does), TensorFlow's
//! error where the average pool's input shape is unknown at build time, and against central
//! differences for seeded float64 pools.

use serde_json::Value;
use weir_graph::{Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::FractionalPool;
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

use crate::tf_tensors::{check, tensor};

fn cases() -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ops/tests/data/fractional_pool/expected.json");
    let text = std::fs::read_to_string(path).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Array(a) => a,
        other => panic!("not a list: {other}"),
    }
}

fn pool(c: &Value, x: &Output) -> Result<Output> {
    if let Some(s) = c["graph_seed"].as_i64() {
        x.graph().set_random_seed(s);
    }
    let r: Vec<f32> = c["ratio"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    let mut b = if c["op"] == "max" {
        FractionalPool::max(&r)
    } else {
        FractionalPool::avg(&r)
    };
    b = b
        .pseudo_random(c["pseudo_random"].as_bool().unwrap())
        .overlapping(c["overlapping"].as_bool().unwrap())
        .seed(c["seed"].as_i64().unwrap());
    if c["api"] == "v1" {
        b = b
            .deterministic(c["deterministic"].as_bool().unwrap())
            .seed2(c["seed2"].as_i64().unwrap());
    }
    Ok(b.build(x)?.output)
}

#[test]
fn gradients_match_tensorflow() {
    let mut compared = 0;
    let mut errors = 0;
    for c in cases().iter().filter(|c| c.get("grad_ys").is_some()) {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let xv = tensor(&c["input"]);
        let fed = c["feed"].as_bool().unwrap();
        let x = if fed {
            placeholder(&g, xv.dtype(), Shape::unknown()).unwrap()
        } else {
            constant(&g, xv.clone()).unwrap()
        };
        let y = pool(c, &x).unwrap();
        let gy = constant(&g, tensor(&c["grad_ys"])).unwrap();
        let grads = gradients(
            std::slice::from_ref(&y),
            std::slice::from_ref(&x),
            Some(&[gy]),
        );
        if let Some(want) = c.get("grad_error") {
            let e = grads.expect_err(name);
            assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{name}: {e}");
            // weir's gradients name the op whose gradient function failed before its message.
            let msg = e.message();
            assert_eq!(
                msg.strip_prefix("Gradient of 'FractionalAvgPool': ")
                    .unwrap_or(msg),
                want["message"].as_str().unwrap(),
                "{name}"
            );
            errors += 1;
            continue;
        }
        let d = grads
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .remove(0)
            .unwrap();
        let mut args = RunArgs::new().fetch(&d);
        if fed {
            args = args.feed(&x, xv);
        }
        let got = Session::new(&g).unwrap().run(&args).unwrap().remove(0);
        check(&format!("{name}: gradient"), &got, &c["grad"], 0.0).unwrap();
        compared += 1;
    }
    assert!(
        compared >= 20 && errors == 1,
        "{compared} compared, {errors} errors"
    );
}

#[test]
fn gradients_match_central_differences() {
    let x0: Vec<f64> = (0..2 * 9 * 11 * 2)
        .map(|i| ((i * 37 % 101) as f64) * 0.173 - 7.0)
        .collect();
    let xv = Tensor::from_vec(&[2, 9, 11, 2], x0).unwrap();
    for max in [false, true] {
        for overlapping in [false, true] {
            for pseudo_random in [false, true] {
                let g = Graph::new();
                let x =
                    placeholder(&g, weir_graph::DType::F64, Shape::known(&[2, 9, 11, 2])).unwrap();
                let b = if max {
                    FractionalPool::max(&[1.0, 1.4, 1.7, 1.0])
                } else {
                    FractionalPool::avg(&[1.0, 1.4, 1.7, 1.0])
                };
                let y = b
                    .overlapping(overlapping)
                    .pseudo_random(pseudo_random)
                    .seed(5)
                    .build(&x)
                    .unwrap()
                    .output;
                let err = gradient_error(&x, &xv, &y, &[]).unwrap();
                assert!(err < 1e-6, "max {max} overlapping {overlapping}: {err}");
            }
        }
    }
}
