//! Gradients of `StridedSlice`, `StridedSliceGrad` and `TensorStridedSliceUpdate` against
//! TensorFlow 2.21's `tf.gradients` (the gradient cases of
//! crates/ops/tests/data/strided_slice_write/expected.json: every mask kind, negative strides,
//! empty slices, broadcast update values), plus weir's numeric checker on a chain of slices.

use serde_json::Value;
use weir_graph::{DType, Graph, Tensor};
use weir_ops::array::{constant, placeholder, ArrayExt, StridedSlice};
use weir_ops::math::{mul, reduce_sum};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ops/tests/data/strided_slice_write/expected.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A recorded float tensor (`{dtype, dims, values}` with values as bit patterns).
fn spec(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let bits = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap());
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(&dims, bits.map(|b| f32::from_bits(b as u32)).collect()),
        "float64" => Tensor::from_vec(&dims, bits.map(f64::from_bits).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn masks(c: &Value) -> StridedSlice {
    let m = |k: &str| c[k].as_i64().unwrap();
    StridedSlice::new()
        .begin_mask(m("begin_mask"))
        .end_mask(m("end_mask"))
        .ellipsis_mask(m("ellipsis_mask"))
        .new_axis_mask(m("new_axis_mask"))
        .shrink_axis_mask(m("shrink_axis_mask"))
}

#[test]
fn gradients_match_tensorflow() {
    let mut n = 0;
    for c in cases() {
        let kind = c["kind"].as_str().unwrap();
        if !kind.starts_with("grad_of_") {
            continue;
        }
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let (b, e, s) = (ints(&c["begin"]), ints(&c["end"]), ints(&c["strides"]));
        let m = masks(&c);
        let (y, xs) = match kind {
            "grad_of_slice" => {
                let x = constant(&g, spec(&c["x"])).unwrap();
                (m.build(&x, &b, &e, &s).unwrap(), vec![x])
            }
            "grad_of_grad_op" => {
                let dy = constant(&g, spec(&c["dy"])).unwrap();
                let shape = constant(
                    &g,
                    Tensor::from(
                        ints(&c["shape"])
                            .iter()
                            .map(|&d| d as i32)
                            .collect::<Vec<_>>(),
                    ),
                )
                .unwrap();
                (m.build_grad(shape, &b, &e, &s, &dy).unwrap(), vec![dy])
            }
            _ => {
                let x = constant(&g, spec(&c["x"])).unwrap();
                let v = constant(&g, spec(&c["value"])).unwrap();
                (m.build_update(&x, &b, &e, &s, &v).unwrap(), vec![x, v])
            }
        };
        let gy = constant(&g, spec(&c["grad_ys"])).unwrap();
        let grads = gradients(&[y], &xs, Some(&[gy])).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = RunArgs::new();
        for d in &grads {
            args = args.fetch(d.as_ref().unwrap_or_else(|| panic!("{name}: no gradient")));
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (k, (t, want)) in got.iter().zip(c["grads"].as_array().unwrap()).enumerate() {
            let want = spec(want);
            assert_eq!(t.shape(), want.shape(), "{name}: shape of gradient {k}");
            // Scattering and slicing copy values: bit for bit. The gradient of a broadcast
            // update value sums the slice, in an order Eigen picks by its SIMD packets: within
            // a few ulp of the sum.
            let summed = kind == "grad_of_update" && k == 1;
            let as_f64 = |t: &Tensor| -> Vec<f64> {
                match t.dtype() {
                    DType::F32 => t
                        .to_vec::<f32>()
                        .unwrap()
                        .into_iter()
                        .map(f64::from)
                        .collect(),
                    _ => t.to_vec::<f64>().unwrap(),
                }
            };
            let (a, w) = (as_f64(t), as_f64(&want));
            let ulp = if t.dtype() == DType::F32 {
                f64::from(f32::EPSILON)
            } else {
                f64::EPSILON
            };
            let scale = w.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for (i, (x, y)) in a.iter().zip(&w).enumerate() {
                let tol = if summed { 32.0 * ulp * scale } else { 0.0 };
                assert!(
                    (x - y).abs() <= tol,
                    "{name}: gradient {k}[{i}]: {x} vs {y}"
                );
            }
        }
        n += 1;
    }
    assert!(n >= 100, "only {n} gradient cases");
}

#[test]
fn slice_chain_matches_numeric_gradient() {
    // y = sum(w * x[1:, ::-2][..., tf.newaxis]) with the update of another slice in between.
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, [4, 5]).unwrap();
    let sliced = x.at(weir_ops::s![1.., ..;-2]).unwrap();
    let updated = StridedSlice::new()
        .build_update(
            &sliced,
            &[0, 1],
            &[2, 3],
            &[1, 1],
            mul(
                x.at(weir_ops::s![0, 0..2]).unwrap(),
                constant(&g, 3.0f64).unwrap(),
            )
            .unwrap(),
        )
        .unwrap();
    let w = constant(
        &g,
        Tensor::from_vec(&[3, 3], (0..9).map(|i| 0.5 + i as f64).collect()).unwrap(),
    )
    .unwrap();
    let y = reduce_sum(mul(&updated, &w).unwrap(), [0, 1]).unwrap();
    let xv = Tensor::from_vec(&[4, 5], (0..20).map(|i| (i as f64 * 0.37).sin()).collect()).unwrap();
    let err = gradient_error(&x, &xv, &y, &[]).unwrap();
    assert!(err < 1e-8, "numeric gradient differs by {err}");
}
