//! The block RNN ops (`LSTMBlockCell`, `BlockLSTM`, `BlockLSTMV2`, `GRUBlockCell` and their
//! backward kernels) against TensorFlow 2.21: every case of tests/data/rnn_block/expected.json
//! (written by make_rnn_block.py there) built with weir's builders, comparing static shapes,
//! values and errors (code and message).
//!
//! Values agree within a tolerance, not bit for bit: TensorFlow's products are Eigen's blocked
//! GEMMs (a different summation order) and its float `tanh`/`sigmoid` are Eigen's polynomial
//! approximations, a few ulps from the libm functions weir uses. With inputs of order one and
//! at most 12 products per dot product, each such difference is a few float32 ulps of values of
//! order one, which the sequence ops carry through at most five (contracting) steps. The
//! tolerance is `1e-6 * (1 + |want|)`, about 8 ulps at 1.0 (the largest difference measured is
//! 1.8e-7, and half the outputs agree bit for bit); a wrong gate order, clip or peephole term
//! is off by 1e-2 or more. Half-precision cases (TensorFlow rounds after every Eigen
//! operation, weir after each stored value) get two half ulps, `2e-3 * (1 + |want|)`.

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::placeholder;
use weir_ops::nn::rnn_block::{
    block_lstm_grad, gru_block_cell, gru_block_cell_grad, lstm_block_cell_grad, BlockLstm,
    LstmBlockCell,
};

use crate::io_util::{check_all_cases, check_tf_error, expected_cases, run_built_case};

fn dtype(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float16" => DType::F16,
        "float64" => DType::F64,
        "int64" => DType::I64,
        other => panic!("dtype {other}"),
    }
}

/// A recorded tensor (`{dtype, shape, values}`, floats as decimals).
fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let floats = || vals.iter().map(|x| x.as_f64().unwrap());
    match dtype(v["dtype"].as_str().unwrap()) {
        DType::F32 => Tensor::from_vec(&dims, floats().map(|x| x as f32).collect()),
        DType::F64 => Tensor::from_vec(&dims, floats().collect()),
        DType::F16 => Tensor::from_vec(
            &dims,
            floats()
                .map(|x| weir_graph::f16::from_f32(x as f32))
                .collect(),
        ),
        DType::I64 => Tensor::from_vec(&dims, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        _ => unreachable!(),
    }
    .unwrap()
}

fn f32s(t: &Tensor) -> Vec<f32> {
    match t.dtype() {
        DType::F16 => t
            .as_slice::<weir_graph::f16>()
            .unwrap()
            .iter()
            .map(|v| v.to_f32())
            .collect(),
        _ => t.to_vec::<f32>().unwrap(),
    }
}

fn attr_f32(c: &Value, name: &str) -> Option<f32> {
    c["attrs"]
        .get(name)
        .and_then(Value::as_f64)
        .map(|v| v as f32)
}

fn attr_bool(c: &Value, name: &str) -> Option<bool> {
    c["attrs"].get(name).and_then(Value::as_bool)
}

/// The case's op on placeholders of the recorded (or, for dynamic cases, unknown) shapes.
pub fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    let dynamic = c["dynamic"].as_bool().unwrap_or(false);
    let mut ins = Vec::new();
    for spec in c["inputs"].as_array().unwrap() {
        let t = tensor(spec);
        let shape = if dynamic {
            Shape::unknown()
        } else {
            Shape::from(t.shape())
        };
        let p = placeholder(g, t.dtype(), shape)?;
        feeds.push((p.clone(), t));
        ins.push(p);
    }
    let peep = attr_bool(c, "use_peephole");
    let op = c["op"].as_str().unwrap();
    match op {
        "LSTMBlockCell" => {
            let mut cell = LstmBlockCell::new();
            if let Some(v) = attr_f32(c, "forget_bias") {
                cell = cell.forget_bias(v);
            }
            if let Some(v) = attr_f32(c, "cell_clip") {
                cell = cell.cell_clip(v);
            }
            if let Some(v) = peep {
                cell = cell.use_peephole(v);
            }
            let i = &ins;
            Ok(cell
                .build(&i[0], &i[1], &i[2], &i[3], &i[4], &i[5], &i[6], &i[7])?
                .to_vec())
        }
        "LSTMBlockCellGrad" => {
            let i = &ins;
            let o = lstm_block_cell_grad(
                [&i[0], &i[1], &i[2], &i[3], &i[4], &i[5], &i[6], &i[7]],
                [&i[8], &i[9], &i[10], &i[11], &i[12], &i[13]],
                &i[14],
                &i[15],
                peep.unwrap(),
            )?;
            Ok(vec![
                o.cs_prev_grad,
                o.dicfo,
                o.wci_grad,
                o.wcf_grad,
                o.wco_grad,
            ])
        }
        "BlockLSTM" | "BlockLSTMV2" => {
            let mut b = if op == "BlockLSTM" {
                BlockLstm::new()
            } else {
                BlockLstm::v2()
            };
            if let Some(v) = attr_f32(c, "forget_bias") {
                b = b.forget_bias(v);
            }
            if let Some(v) = attr_f32(c, "cell_clip") {
                b = b.cell_clip(v);
            }
            if let Some(v) = peep {
                b = b.use_peephole(v);
            }
            let i = &ins;
            Ok(b.build(
                &i[0], &i[1], &i[2], &i[3], &i[4], &i[5], &i[6], &i[7], &i[8],
            )?
            .to_vec())
        }
        "BlockLSTMGrad" | "BlockLSTMGradV2" => {
            let i = &ins;
            block_lstm_grad(
                op == "BlockLSTMGradV2",
                [
                    &i[0], &i[1], &i[2], &i[3], &i[4], &i[5], &i[6], &i[7], &i[8],
                ],
                [&i[9], &i[10], &i[11], &i[12], &i[13], &i[14], &i[15]],
                &i[16],
                &i[17],
                peep.unwrap(),
            )
        }
        "GRUBlockCell" => {
            let i = &ins;
            let o = gru_block_cell(&i[0], &i[1], &i[2], &i[3], &i[4], &i[5])?;
            Ok(vec![o.r, o.u, o.c, o.h])
        }
        "GRUBlockCellGrad" => {
            let i = &ins;
            let o = gru_block_cell_grad(
                [&i[0], &i[1], &i[2], &i[3], &i[4], &i[5]],
                &i[6],
                &i[7],
                &i[8],
                &i[9],
            )?;
            Ok(vec![o.d_x, o.d_h_prev, o.d_c_bar, o.d_r_bar_u_bar])
        }
        other => panic!("op {other}"),
    }
}

/// The largest `|got - want| / (1 + |want|)` over the elements (after checking dtype and
/// shape).
fn rel_error(name: &str, got: &Tensor, want: &Value) -> f64 {
    let w = tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    f32s(got)
        .iter()
        .zip(f32s(&w))
        .map(|(&a, b)| {
            if a.is_nan() && b.is_nan() {
                0.0
            } else {
                (a as f64 - b as f64).abs() / (1.0 + (b as f64).abs())
            }
        })
        .fold(0.0, f64::max)
}

fn check_error(name: &str, got: &weir_graph::Error, want: &Value) {
    if want["dtype"].as_bool().unwrap_or(false) {
        // TensorFlow's Python wrapper words disallowed dtypes its own way.
        assert_eq!(got.code(), Code::InvalidArgument, "{name}: {got}");
    } else {
        check_tf_error(name, got, want);
    }
}

#[test]
fn block_rnn_ops_match_tensorflow() {
    let cases = expected_cases("rnn_block");
    assert!(cases.len() >= 130, "only {} cases", cases.len());
    check_all_cases(&cases, |c| {
        run_built_case(
            c,
            c.get("build_error"),
            |g, feeds| build(g, c, feeds),
            check_error,
            |name, got| {
                let want = c["outputs"].as_array().unwrap();
                assert_eq!(got.len(), want.len(), "{name}: outputs");
                for (k, (g, w)) in got.iter().zip(want).enumerate() {
                    let tol = if g.dtype() == DType::F16 { 2e-3 } else { 1e-6 };
                    let e = rel_error(name, g, w);
                    assert!(
                        e <= tol,
                        "{name}: output {k} off by {e:e} (tolerance {tol:e})"
                    );
                }
            },
        )
    });
}

#[test]
fn static_shapes_of_unknown_inputs() {
    // Every case's recorded static shapes are checked by run_built_case; here the shapes
    // that depend on unknown dimensions are spelled out.
    let g = Graph::new();
    let p = |s: Vec<Option<usize>>| placeholder(&g, DType::F32, Shape::new(s)).unwrap();
    let seq = placeholder(&g, DType::I64, Shape::new(vec![])).unwrap();
    let (x, st, w, v) = (
        p(vec![None, Some(2), None]),
        p(vec![None, None]),
        p(vec![None, None]),
        p(vec![None]),
    );
    let out = BlockLstm::new()
        .build(&seq, &x, &st, &st, &w, &v, &v, &v, &p(vec![Some(12)]))
        .unwrap();
    assert_eq!(out.h.shape(), Shape::new(vec![None, Some(2), Some(3)]));
}

#[test]
fn seq_len_max_out_of_range_is_an_error() {
    // TensorFlow 2.21 aborts the process here (a CHECK in Tensor::Slice).
    for (seq, grad) in [(4i64, false), (-1, false), (5, true)] {
        let g = Graph::new();
        let c = |dims: &[usize]| {
            let n = dims.iter().product();
            weir_ops::array::constant(&g, Tensor::from_vec(dims, vec![0.25f32; n]).unwrap())
                .unwrap()
        };
        let s = weir_ops::array::constant(&g, Tensor::scalar(seq)).unwrap();
        let (x, st, w, v, b) = (c(&[3, 2, 1]), c(&[2, 1]), c(&[2, 4]), c(&[1]), c(&[4]));
        let out = if grad {
            let y = c(&[3, 2, 1]);
            block_lstm_grad(
                false,
                [&s, &x, &st, &st, &w, &v, &v, &v, &b],
                [&y, &y, &y, &y, &y, &y, &y],
                &y,
                &y,
                false,
            )
            .unwrap()
        } else {
            BlockLstm::new()
                .build(&s, &x, &st, &st, &w, &v, &v, &v, &b)
                .unwrap()
                .to_vec()
        };
        let err = weir_session::Session::new(&g)
            .unwrap()
            .run(&weir_session::RunArgs::new().fetch(&out[0]))
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(
            err.message()
                .starts_with(&format!("seq_len_max must be between 0 and 3 but is {seq}")),
            "{err}"
        );
    }
}
