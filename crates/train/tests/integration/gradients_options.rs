//! `tf.gradients`' `stop_gradients` and `unconnected_gradients`, and `tf.hessians`, against
//! TensorFlow 2.21 (tests/data/gradients_options: the same float64 functions built in both).

use serde_json::Value;
use weir_graph::{Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::math::{exp, log, matmul, mul, reduce_sum, sin, square, Axes};
use weir_ops::nn::{log_softmax, sigmoid, tanh};
use weir_session::Session;
use weir_train::gradients::{hessians, Gradients, UnconnectedGradients};

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gradients_options/expected.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The script's inputs (`x` [2, 3], `w` [3, 2], `v` [4]), as it recorded them.
fn inputs(g: &Graph) -> (Output, Output, Output) {
    let all = cases();
    let c = all.iter().find(|c| c["kind"] == "inputs").unwrap();
    let vals = |k: &str| -> Vec<f64> {
        c[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let t =
        |k: &str, shape: &[usize]| constant(g, Tensor::from_vec(shape, vals(k)).unwrap()).unwrap();
    (t("X", &[2, 3]), t("W", &[3, 2]), t("V", &[4]))
}

/// The script's functions: the ys and xs of each.
fn function(g: &Graph, name: &str) -> (Vec<Output>, Vec<Output>) {
    let (x, w, v) = inputs(g);
    let sum = |t: Output| reduce_sum(t, Axes::All).unwrap();
    match name {
        "cube" => (vec![sum(mul(mul(&v, &v).unwrap(), &v).unwrap())], vec![v]),
        "mlp" => {
            let h = tanh(matmul(&x, &w).unwrap()).unwrap();
            (
                vec![sum(mul(sigmoid(&h).unwrap(), &h).unwrap())],
                vec![x, w],
            )
        }
        "log_softmax" => {
            let eye = constant(
                g,
                Tensor::from_vec(&[2, 2], vec![1.0f64, 0.0, 0.0, 1.0]).unwrap(),
            )
            .unwrap();
            let l = log_softmax(matmul(&x, &w).unwrap()).unwrap();
            (vec![sum(mul(l, eye).unwrap())], vec![w])
        }
        "two_ys" => (
            vec![
                sum(exp(&v).unwrap()),
                sum(mul(square(&v).unwrap(), log(&v).unwrap()).unwrap()),
            ],
            vec![v],
        ),
        other => panic!("function {other}"),
    }
}

#[test]
fn hessians_match_tensorflow() {
    let mut n = 0;
    for c in cases().iter().filter(|c| c["kind"] == "hessians") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let (ys, xs) = function(&g, name);
        let hs = hessians(&ys, &xs).unwrap_or_else(|e| panic!("{name}: {e}"));
        let sess = Session::new(&g).unwrap();
        for (h, want) in hs.iter().zip(c["hessians"].as_array().unwrap()) {
            let got = sess.eval(h).unwrap();
            let shape: Vec<usize> = want["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(got.shape(), shape.as_slice(), "{name}");
            assert_eq!(h.shape().to_known(), Some(shape), "{name}: static shape");
            let want: Vec<f64> = want["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            // The same ops as TensorFlow's graph, unrolled: within a few ulp of the largest
            // entry (Eigen's matmul sums in its own order).
            let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (i, (a, b)) in got.to_vec::<f64>().unwrap().iter().zip(&want).enumerate() {
                assert!(
                    (a - b).abs() <= 16.0 * f64::EPSILON * scale,
                    "{name}[{i}]: {a} vs {b}"
                );
            }
        }
        n += 1;
    }
    assert_eq!(n, 4);
}

#[test]
fn stop_gradients_and_unconnected_gradients_match_tensorflow() {
    let g = Graph::new();
    let a = constant(&g, 0.5f64).unwrap();
    let b = mul(constant(&g, 2.0f64).unwrap(), &a).unwrap();
    let c = mul(sin(&b).unwrap(), &a).unwrap();
    let u = constant(&g, 3.0f64).unwrap();
    let sum_ab = weir_ops::math::add(&a, &b).unwrap();
    let built = [
        (
            "doc",
            Gradients::new()
                .stop_gradients(&[a.clone(), b.clone()])
                .build(&[sum_ab], &[a.clone(), b.clone()]),
        ),
        (
            "chain stop b",
            Gradients::new()
                .stop_gradients(std::slice::from_ref(&b))
                .build(std::slice::from_ref(&c), &[a.clone(), b.clone()]),
        ),
        (
            "chain no stop",
            Gradients::new().build(std::slice::from_ref(&c), &[a.clone(), b.clone()]),
        ),
        (
            "unconnected zero",
            Gradients::new()
                .unconnected_gradients(UnconnectedGradients::Zero)
                .build(std::slice::from_ref(&c), &[a.clone(), u.clone()]),
        ),
        (
            "unconnected none",
            Gradients::new().build(std::slice::from_ref(&c), &[a.clone(), u.clone()]),
        ),
    ];
    let sess = Session::new(&g).unwrap();
    let cases = cases();
    for (name, grads) in built {
        let want = cases.iter().find(|c| c["name"] == name).unwrap()["grads"]
            .as_array()
            .unwrap()
            .clone();
        let grads = grads.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(grads.len(), want.len(), "{name}");
        for (k, (d, w)) in grads.iter().zip(&want).enumerate() {
            match (d, w.as_f64()) {
                (None, None) => {}
                (Some(d), Some(w)) => {
                    let got = sess.eval(d).unwrap().to_scalar::<f64>().unwrap();
                    assert!(
                        (got - w).abs() <= 4.0 * f64::EPSILON * w.abs().max(1.0),
                        "{name}[{k}]: {got} vs {w}"
                    );
                }
                other => panic!("{name}[{k}]: {other:?}"),
            }
        }
    }
}

#[test]
fn hessians_refuse_what_tensorflow_cannot_do() {
    // A linear function's first derivative does not depend on x: TensorFlow fails too.
    let g = Graph::new();
    let x = constant(&g, [1.0f64, 2.0]).unwrap();
    let y = reduce_sum(mul(&x, constant(&g, 3.0f64).unwrap()).unwrap(), Axes::All).unwrap();
    let e = hessians(&[y], &[x]).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    // An x of unknown size cannot be unrolled.
    let p = weir_ops::array::placeholder(&g, weir_graph::DType::F64, weir_graph::Shape::unknown())
        .unwrap();
    let y = reduce_sum(mul(mul(&p, &p).unwrap(), &p).unwrap(), Axes::All).unwrap();
    let e = hessians(&[y], &[p]).unwrap_err();
    assert!(e.message().contains("static shape"), "{e}");
}

#[test]
fn floor_mod_gradient_matches_tensorflow() {
    let mut n = 0;
    for c in cases().iter().filter(|c| c["kind"] == "floormod") {
        let name = c["name"].as_str().unwrap();
        let vals = |k: &str| -> Vec<f64> {
            c[k].as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        let g = Graph::new();
        let f32s = c["dtype"] == "float32";
        let t = |v: Vec<f64>, shape: &[usize]| {
            let t = if f32s {
                Tensor::from_vec(shape, v.iter().map(|&x| x as f32).collect()).unwrap()
            } else {
                Tensor::from_vec(shape, v).unwrap()
            };
            constant(&g, t).unwrap()
        };
        let (x, y) = (t(vals("x"), &[2, 3]), t(vals("y"), &[3]));
        let gy = t(vals("grad_ys"), &[2, 3]);
        let z = weir_ops::math::floormod(&x, &y).unwrap();
        let d = Gradients::new()
            .grad_ys(&[gy])
            .build(&[z], &[x, y])
            .unwrap();
        let sess = Session::new(&g).unwrap();
        for (k, key) in [(0, "dx"), (1, "dy")] {
            let got = sess.eval(d[k].as_ref().unwrap()).unwrap();
            let got: Vec<f64> = if f32s {
                got.to_vec::<f32>()
                    .unwrap()
                    .into_iter()
                    .map(f64::from)
                    .collect()
            } else {
                got.to_vec::<f64>().unwrap()
            };
            // Each entry is one product, or a sum of two: exact, or off by the summation order.
            let eps = if f32s {
                f64::from(f32::EPSILON)
            } else {
                f64::EPSILON
            };
            for (a, b) in got.iter().zip(vals(key)) {
                assert!(
                    (a - b).abs() <= 4.0 * eps * b.abs().max(1.0),
                    "{name} {key}: {a} vs {b}"
                );
            }
        }
        n += 1;
    }
    assert_eq!(n, 2);
}
