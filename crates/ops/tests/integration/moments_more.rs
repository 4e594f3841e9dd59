//! `tf.nn.sufficient_statistics`, `tf.nn.weighted_moments` and float16 `tf.nn.moments` against
//! TensorFlow 2.21
//! (tests/data/moments_more): values, static shapes and the op types TensorFlow's Python
//! builds.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::nn::{sufficient_statistics, weighted_moments};
use weir_session::Session;

use crate::io_util::expected_cases;

fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let b = v["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap());
    match v["dtype"].as_str().unwrap() {
        "float16" => Tensor::from_vec(
            &shape,
            b.map(|x| weir_graph::f16::from_bits(x as u16)).collect(),
        ),
        "float32" => Tensor::from_vec(&shape, b.map(|x| f32::from_bits(x as u32)).collect()),
        "float64" => Tensor::from_vec(&shape, b.map(f64::from_bits).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F16 => t
            .to_vec::<weir_graph::f16>()
            .unwrap()
            .iter()
            .map(|v| f64::from(v.to_f32()))
            .collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => t.to_vec::<f64>().unwrap(),
    }
}

#[test]
fn moments_composites_match_tensorflow() {
    let mut n = 0;
    for c in expected_cases("moments_more") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let x = constant(&g, tensor(&c["x"])).unwrap();
        let other = (!c["other"].is_null()).then(|| constant(&g, tensor(&c["other"])).unwrap());
        let axes: Vec<i64> = c["axes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_i64().unwrap())
            .collect();
        let keep = c["keepdims"].as_bool().unwrap();
        let outs: Vec<Output> = if c["kind"] == "moments" {
            let (m, v) = weir_ops::nn::moments(&x, &axes, keep).unwrap();
            vec![m, v]
        } else if c["kind"] == "sufficient" {
            let (count, m, v, _) = sufficient_statistics(&x, &axes, other.as_ref(), keep).unwrap();
            vec![count, m, v]
        } else {
            let (m, v) = weighted_moments(&x, &axes, other.unwrap(), keep).unwrap();
            vec![m, v]
        };
        // TensorFlow folds `zeros_like` of a static shape into a constant.
        let mut ops: Vec<String> = g
            .operations()
            .into_iter()
            .map(|o| o.op_type())
            .filter(|t| t != "Const" && t != "ZerosLike")
            .collect();
        ops.sort();
        let want: Vec<String> = c["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(ops, want, "{name}: op types");
        let sess = Session::new(&g).unwrap();
        for (k, (o, w)) in outs
            .iter()
            .zip(c["outputs"].as_array().unwrap())
            .enumerate()
        {
            let st: Vec<usize> = c["static"][k]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(o.shape().to_known(), Some(st), "{name}: static shape {k}");
            let (got, want) = (sess.eval(o).unwrap(), tensor(w));
            assert_eq!(got.shape(), want.shape(), "{name}: shape {k}");
            // Sums over a few dozen values: Eigen's reduction order, within a few ulp; float16
            // results are float32 ones rounded once, so at most one float16 ulp apart.
            let eps = match got.dtype() {
                DType::F16 => 2f64.powi(-10) / 16.0,
                DType::F32 => f64::from(f32::EPSILON),
                _ => f64::EPSILON,
            };
            let (a, b) = (as_f64(&got), as_f64(&want));
            let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (i, (p, q)) in a.iter().zip(&b).enumerate() {
                assert!(
                    (p - q).abs() <= 16.0 * eps * scale,
                    "{name}[{k}][{i}]: {p} vs {q}"
                );
            }
        }
        n += 1;
    }
    assert_eq!(n, 19);
}
