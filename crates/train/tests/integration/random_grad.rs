//! The gradient of `tf.random.gamma` w.r.t. alpha and beta against TensorFlow 2.21's
//! `tf.gradients` (tests/data/random_grad/expected.json, written by make_random_grad.py there):
//! the seeded samples, then `d loss / d alpha` (through `RandomGammaGrad`) and `d loss / d beta`
//! (through the division by beta and the broadcast), within a few ulps of the summed terms.

use serde_json::Value;
use weir_graph::{DType, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::math::{mul, reduce_sum, Axes};
use weir_ops::random::RandomGamma;
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/random_grad/expected.json");
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

fn flatten(v: &Value, dims: &mut Vec<usize>, depth: usize, out: &mut Vec<f64>) {
    match v {
        Value::Array(xs) => {
            if dims.len() == depth {
                dims.push(xs.len());
            }
            for x in xs {
                flatten(x, dims, depth + 1, out);
            }
        }
        x => out.push(x.as_f64().unwrap()),
    }
}

fn tensor(v: &Value, dtype: DType) -> Tensor {
    let (mut dims, mut xs) = (vec![], vec![]);
    flatten(v, &mut dims, 0, &mut xs);
    match dtype {
        DType::F32 => Tensor::from_vec(&dims, xs.iter().map(|&x| x as f32).collect()),
        _ => Tensor::from_vec(&dims, xs),
    }
    .unwrap()
}

fn doubles(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&x| x as f64)
            .collect(),
        _ => t.as_slice::<f64>().unwrap().to_vec(),
    }
}

fn want(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Within `tol` relative to the largest magnitude (sums of products reorder roundings).
fn assert_close(name: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{name}");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol * scale, "{name}[{k}]: {a} vs {b}");
    }
}

#[test]
fn gamma_gradients_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), 6);
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let dt = if c["dtype"] == "float32" {
            DType::F32
        } else {
            DType::F64
        };
        let g = Graph::new();
        g.set_random_seed(1);
        let shape: Vec<usize> = c["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let alpha = constant(&g, tensor(&c["alpha"], dt)).unwrap();
        let mut b = RandomGamma::new(shape, alpha.clone()).dtype(dt).seed(7);
        let mut xs = vec![alpha];
        if let Some(beta) = c.get("beta") {
            let beta = constant(&g, tensor(beta, dt)).unwrap();
            b = b.beta(beta.clone());
            xs.push(beta);
        }
        let s = b.build(&g).unwrap();
        let sq = if c.get("linear").is_some() {
            s.clone()
        } else {
            mul(&s, &s).unwrap()
        };
        let loss = reduce_sum(&sq, Axes::All).unwrap();
        let grads = gradients(&[loss], &xs, None).unwrap();
        let mut args = RunArgs::new().fetch(&s);
        for gr in &grads {
            args = args.fetch(gr.as_ref().unwrap());
        }
        let out = Session::new(&g).unwrap().run(&args).unwrap();
        let tol = if dt == DType::F32 { 1e-5 } else { 1e-12 };
        assert_close(
            &format!("{name} samples"),
            &doubles(&out[0]),
            &want(&c["samples"]),
            tol,
        );
        assert_close(
            &format!("{name} d/dalpha"),
            &doubles(&out[1]),
            &want(&c["grad_alpha"]),
            tol,
        );
        if let Some(w) = c.get("grad_beta") {
            assert_close(&format!("{name} d/dbeta"), &doubles(&out[2]), &want(w), tol);
        }
    }
}
