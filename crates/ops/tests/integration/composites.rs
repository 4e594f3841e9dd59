//! `tf.tensordot`, `tf.meshgrid` and `tf.math.unsorted_segment_mean`/`sqrt_n` against
//! TensorFlow 2.21 (tests/data/composites): values, static shapes, the op types of the graph
//! TensorFlow's Python builds, and its errors.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Tensor};
use weir_ops::array::{constant, meshgrid, Indexing};
use weir_ops::math::{tensordot, unsorted_segment_mean, unsorted_segment_sqrt_n, TensordotAxes};
use weir_session::Session;

use crate::io_util::expected_cases;

fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let f = |x: &Value| x.as_f64().unwrap();
    let i = |x: &Value| x.as_i64().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(&shape, vals.iter().map(|x| f(x) as f32).collect()),
        "float64" => Tensor::from_vec(&shape, vals.iter().map(f).collect()),
        "int32" => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        "int64" => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn axes(v: &Value) -> TensordotAxes {
    match v.as_u64() {
        Some(n) => TensordotAxes::Count(n as usize),
        None => {
            let l = |k: usize| {
                v[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64().unwrap())
                    .collect()
            };
            TensordotAxes::Pairs(l(0), l(1))
        }
    }
}

fn build(g: &Graph, c: &Value) -> weir_graph::Result<Vec<Output>> {
    let inputs: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| constant(g, tensor(v)).unwrap())
        .collect();
    match c["kind"].as_str().unwrap() {
        "tensordot" => Ok(vec![tensordot(&inputs[0], &inputs[1], axes(&c["axes"]))?]),
        "meshgrid" => {
            let idx = if c["indexing"] == "ij" {
                Indexing::Ij
            } else {
                Indexing::Xy
            };
            meshgrid(&inputs, idx)
        }
        _ => {
            let n = constant(g, c["num_segments"].as_i64().unwrap() as i32)?;
            Ok(vec![if c["fn"] == "mean" {
                unsorted_segment_mean(&inputs[0], &inputs[1], n)?
            } else {
                unsorted_segment_sqrt_n(&inputs[0], &inputs[1], n)?
            }])
        }
    }
}

#[test]
fn composites_match_tensorflow() {
    let mut n = 0;
    for c in expected_cases("composites") {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let outs = match (build(&g, &c), c.get("error")) {
            (Err(e), Some(want)) => {
                assert!(e.is_invalid_argument(), "{name}: {e}");
                // TensorFlow names the tensor by its Python repr; the rest is its words.
                let want = want.as_str().unwrap();
                let tail = want.rsplit_once(").  ").map_or(want, |(_, t)| t);
                assert!(
                    e.message().ends_with(tail),
                    "{name}: {} vs {want}",
                    e.message()
                );
                n += 1;
                continue;
            }
            (Ok(o), None) => o,
            (got, _) => panic!("{name}: {got:?}"),
        };
        let mut ops: Vec<String> = g
            .operations()
            .into_iter()
            .map(|o| o.op_type())
            .filter(|t| t != "Const")
            .collect();
        ops.sort();
        let want_ops: Vec<String> = c["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(ops, want_ops, "{name}: op types");
        let sess = Session::new(&g).unwrap();
        for (k, (o, want)) in outs
            .iter()
            .zip(c["outputs"].as_array().unwrap())
            .enumerate()
        {
            let want_static: Vec<usize> = c["static"][k]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(
                o.shape().to_known(),
                Some(want_static),
                "{name}: static shape {k}"
            );
            let got = sess.eval(o).unwrap();
            let shape: Vec<usize> = want["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(got.shape(), shape.as_slice(), "{name}: shape {k}");
            let w: Vec<f64> = want["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let (a, eps): (Vec<f64>, f64) = match got.dtype() {
                DType::F32 => (
                    got.to_vec::<f32>()
                        .unwrap()
                        .into_iter()
                        .map(f64::from)
                        .collect(),
                    f64::from(f32::EPSILON),
                ),
                DType::F64 => (got.to_vec::<f64>().unwrap(), f64::EPSILON),
                DType::I32 => (
                    got.to_vec::<i32>()
                        .unwrap()
                        .into_iter()
                        .map(f64::from)
                        .collect(),
                    0.0,
                ),
                _ => (
                    got.to_vec::<i64>()
                        .unwrap()
                        .into_iter()
                        .map(|v| v as f64)
                        .collect(),
                    0.0,
                ),
            };
            // Sums of products (tensordot's MatMul, the segment sums) may add in Eigen's
            // order: a few ulp of the largest value.
            let scale = w.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (i, (x, y)) in a.iter().zip(&w).enumerate() {
                assert!(
                    (x - y).abs() <= 8.0 * eps * scale,
                    "{name}[{k}][{i}]: {x} vs {y}"
                );
            }
        }
        n += 1;
    }
    assert_eq!(n, 24);
}
