//! Gradients through the block RNN ops against TensorFlow 2.21's `tf.gradients` (every case of
//! tests/data/rnn_block_grad/expected.json, written by make_rnn_block_grad.py there), and
//! against weir's numeric gradient checker where the registered gradient is the true
//! derivative.
//!
//! The TensorFlow comparison allows `1e-6 * (1 + |want|)` (the largest difference measured
//! is 1.4e-7): the gradients are sums over the
//! batch and (for `BlockLSTM`) the time steps of products whose order Eigen's GEMMs choose,
//! on top of the forward values' few-ulp differences (see the ops' test, rnn_block.rs); a
//! gradient with a wrong gate, missing peephole or dropped incoming gradient is off by 1e-2 or
//! more. The numeric checks run in float32 with central differences of step 1e-3, good to
//! about 1e-2 on these magnitudes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::rnn_block::{gru_block_cell, BlockLstm, LstmBlockCell};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rnn_block_grad/expected.json");
    let text = std::fs::read_to_string(&path).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Array(c) => c,
        other => panic!("not an array: {other}"),
    }
}

fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &dims,
            vals.iter().map(|x| x.as_f64().unwrap() as f32).collect(),
        ),
        "int64" => Tensor::from_vec(&dims, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

/// Placeholders with the values they are fed.
type Feeds = Vec<(Output, Tensor)>;

/// The case's op on placeholders of static shape: its outputs and the placeholders with their
/// values.
fn build(g: &Graph, c: &Value) -> Result<(Vec<Output>, Feeds)> {
    let mut feeds = Vec::new();
    for spec in c["inputs"].as_array().unwrap() {
        let t = tensor(spec);
        let p = placeholder(g, t.dtype(), Shape::from(t.shape()))?;
        feeds.push((p, t));
    }
    let i: Vec<Output> = feeds.iter().map(|(p, _)| p.clone()).collect();
    let attrs = &c["attrs"];
    let f = |k: &str| attrs.get(k).and_then(Value::as_f64).map(|v| v as f32);
    let peep = attrs.get("use_peephole").and_then(Value::as_bool);
    let outs = match c["op"].as_str().unwrap() {
        "LSTMBlockCell" => {
            let mut cell = LstmBlockCell::new();
            if let Some(v) = f("forget_bias") {
                cell = cell.forget_bias(v);
            }
            if let Some(v) = f("cell_clip") {
                cell = cell.cell_clip(v);
            }
            if let Some(v) = peep {
                cell = cell.use_peephole(v);
            }
            cell.build(&i[0], &i[1], &i[2], &i[3], &i[4], &i[5], &i[6], &i[7])?
                .to_vec()
        }
        op @ ("BlockLSTM" | "BlockLSTMV2") => {
            let mut b = if op == "BlockLSTM" {
                BlockLstm::new()
            } else {
                BlockLstm::v2()
            };
            if let Some(v) = f("forget_bias") {
                b = b.forget_bias(v);
            }
            if let Some(v) = f("cell_clip") {
                b = b.cell_clip(v);
            }
            if let Some(v) = peep {
                b = b.use_peephole(v);
            }
            b.build(
                &i[0], &i[1], &i[2], &i[3], &i[4], &i[5], &i[6], &i[7], &i[8],
            )?
            .to_vec()
        }
        "GRUBlockCell" => {
            let o = gru_block_cell(&i[0], &i[1], &i[2], &i[3], &i[4], &i[5])?;
            vec![o.r, o.u, o.c, o.h]
        }
        other => panic!("op {other}"),
    };
    Ok((outs, feeds))
}

#[test]
fn gradients_match_tensorflow() {
    let cases = cases();
    let mut compared = 0;
    let mut worst = 0.0f64;
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let (outs, feeds) = build(&g, c).unwrap_or_else(|e| panic!("{name}: {e}"));
        let gys: BTreeMap<usize, Tensor> = c["grad_ys"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.parse().unwrap(), tensor(v)))
            .collect();
        let ys: Vec<Output> = gys.keys().map(|&k| outs[k].clone()).collect();
        let gy: Vec<Output> = gys
            .values()
            .map(|t| constant(&g, t.clone()).unwrap())
            .collect();
        let want: BTreeMap<usize, &Value> = c["grads"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.parse().unwrap(), v))
            .collect();
        let xs: Vec<Output> = want.keys().map(|&k| feeds[k].0.clone()).collect();
        let grads = gradients(&ys, &xs, Some(&gy)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = RunArgs::new();
        for (p, t) in &feeds {
            args = args.feed(p, t.clone());
        }
        for d in &grads {
            args = args.fetch(
                d.as_ref()
                    .unwrap_or_else(|| panic!("{name}: missing gradient")),
            );
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for ((k, w), v) in want.iter().zip(&got) {
            let w = tensor(w);
            assert_eq!(v.shape(), w.shape(), "{name}: d/d input {k}");
            let err = v
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .zip(w.to_vec::<f32>().unwrap())
                .map(|(&a, b)| (a as f64 - b as f64).abs() / (1.0 + (b as f64).abs()))
                .fold(0.0, f64::max);
            assert!(err <= 1e-6, "{name}: d/d input {k} off by {err:e}");
            worst = worst.max(err);
            compared += 1;
        }
    }
    assert_eq!(cases.len(), 19);
    assert!(compared >= 130, "only {compared} gradients");
    eprintln!("{compared} gradients, largest relative difference {worst:e}");
}

/// Symbolic against central differences, for each float input of `c`'s op, with `y` the
/// output `out` (the cell state or output, which the gradients are defined through).
fn numeric_check(c: &Value, out: usize) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let (outs, feeds) = build(&g, c).unwrap();
    let mut checked = 0;
    for (k, (p, t)) in feeds.iter().enumerate() {
        if t.dtype() != DType::F32 {
            continue;
        }
        let others: Vec<(Output, Tensor)> = feeds
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .map(|(_, f)| f.clone())
            .collect();
        let err = gradient_error(p, t, &outs[out], &others).unwrap();
        assert!(
            err < 2e-2,
            "{name}: input {k} numeric gradient off by {err}"
        );
        checked += 1;
    }
    assert!(checked >= 6, "{name}: only {checked} inputs");
}

#[test]
fn gradients_match_numeric_derivatives() {
    let cases = cases();
    // No active clipping (TensorFlow's backward kernels ignore the clip): LSTMBlockCell case
    // 1 (peepholes, clip off), BlockLSTM cases 1 and 4 (peepholes, clip off, the second with
    // seq_len_max 0), and every GRU case.
    let picks = [
        ("lstm_cell_1", 6),
        ("lstm_cell_1", 1),
        ("BlockLSTM_1", 6),
        ("BlockLSTM_4", 1),
        ("gru_0", 3),
        ("gru_1", 3),
        ("gru_3", 3),
    ];
    for (name, out) in picks {
        let c = cases.iter().find(|c| c["name"] == name).unwrap();
        numeric_check(c, out);
    }
}

#[test]
fn block_lstm_v2_gradient_uses_block_lstm_gate_order() {
    // TensorFlow 2.21 registers BlockLSTMGrad (gates i, c, f, o) for BlockLSTMV2 (i, f, c, o):
    // weir reproduces it, so the gradient is not V2's derivative once the cell-input and
    // forget blocks differ. The numeric check must see that difference.
    let c = cases()
        .into_iter()
        .find(|c| c["name"] == "BlockLSTMV2_1")
        .unwrap();
    let g = Graph::new();
    let (outs, feeds) = build(&g, &c).unwrap();
    let (p, t) = &feeds[4];
    let others: Vec<(Output, Tensor)> = feeds
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != 4)
        .map(|(_, f)| f.clone())
        .collect();
    let err = gradient_error(p, t, &outs[6], &others).unwrap();
    assert!(
        err > 0.1,
        "BlockLSTMV2's w gradient matches its derivative ({err})"
    );
}

/// `dynamic_rnn` over a block cell against the same network built from weir's composite
/// cell with the same variable values (contrib's block cells share `LSTMCell`'s and
/// `GRUCell`'s gate layouts): outputs, final states and the gradients of
/// `sum(outputs) + sum(states)` with respect to the inputs and every variable (unless
/// `!with_grads`).
fn compare_cells(
    block: &dyn weir_train::rnn::RnnCell,
    composite: &dyn weir_train::rnn::RnnCell,
    pairs: &[(&str, &str)],
    with_grads: bool,
) {
    use weir_ops::math::{add, reduce_sum, Axes};
    use weir_ops::state::{global_variables_initializer, trainable_variables};
    let g = Graph::new();
    let n = 2 * 4 * 3;
    let x = (0..n).map(|k| ((k as f32) * 0.7).sin()).collect();
    let x = constant(&g, Tensor::from_vec(&[2, 4, 3], x).unwrap()).unwrap();
    let mut runs = Vec::new();
    for (k, cell) in [block, composite].into_iter().enumerate() {
        let (out, state) = weir_train::rnn::DynamicRnn::new()
            .dtype(DType::F32)
            .scope(&format!("net{k}"))
            .build(cell, &x)
            .unwrap();
        let mut loss = reduce_sum(&out, Axes::All).unwrap();
        for s in &state {
            loss = add(&loss, reduce_sum(s, Axes::All).unwrap()).unwrap();
        }
        runs.push((out, state, loss));
    }
    let vars = trainable_variables(&g).unwrap();
    let find = |net: usize, suffix: &str| {
        vars.iter()
            .find(|v| v.name().starts_with(&format!("net{net}/")) && v.name().ends_with(suffix))
            .unwrap_or_else(|| panic!("no net{net} variable {suffix}"))
            .clone()
    };
    let sess = Session::new(&g).unwrap();
    sess.run_target(&global_variables_initializer(&g).unwrap())
        .unwrap();
    let mut fetch = Vec::new();
    for (a, b) in pairs {
        let (va, vb) = (find(0, a), find(1, b));
        sess.eval(vb.assign(va.value()).unwrap()).unwrap();
        fetch.push((va, vb));
    }
    let mut results = Vec::new();
    for (k, (out, state, loss)) in runs.iter().enumerate() {
        let mut xs = vec![x.clone()];
        xs.extend(
            fetch
                .iter()
                .map(|(a, b)| if k == 0 { a.value() } else { b.value() }),
        );
        let grads = gradients(std::slice::from_ref(loss), &xs, None).unwrap();
        let mut args = RunArgs::new().fetch(out);
        for s in state {
            args = args.fetch(s);
        }
        for d in grads.iter().filter(|_| with_grads) {
            args = args.fetch(d.as_ref().unwrap());
        }
        results.push(sess.run(&args).unwrap());
    }
    assert_eq!(results[0].len(), results[1].len());
    for (k, (a, b)) in results[0].iter().zip(&results[1]).enumerate() {
        assert_eq!(a.shape(), b.shape(), "fetch {k}");
        for (p, q) in a
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .zip(b.to_vec::<f32>().unwrap())
        {
            assert!(
                (p - q).abs() <= 1e-5 * (1.0 + q.abs()),
                "fetch {k}: {p} vs {q}"
            );
        }
    }
}

#[test]
fn block_cells_in_dynamic_rnn_match_composite_cells() {
    use weir_train::rnn::{GruBlockCell, GruCell, LstmBlockCell, LstmCell};
    let lstm_pairs = [
        ("/kernel", "/kernel"),
        ("/bias", "/bias"),
        ("/w_i_diag", "/w_i_diag"),
        ("/w_f_diag", "/w_f_diag"),
        ("/w_o_diag", "/w_o_diag"),
    ];
    compare_cells(
        &LstmBlockCell::new(5).use_peephole(true).forget_bias(0.5),
        &LstmCell::new(5).use_peepholes(true).forget_bias(0.5),
        &lstm_pairs,
        true,
    );
    compare_cells(
        &LstmBlockCell::new(3).cell_clip(0.2),
        &LstmCell::new(3).cell_clip(0.2),
        &lstm_pairs[..2],
        // TensorFlow's block kernels differentiate as if the cell state were not clipped,
        // `LSTMCell`'s `clip_by_value` stops the gradient where it clips: only the forward
        // values agree.
        false,
    );
    compare_cells(
        &GruBlockCell::new(4),
        &GruCell::new(4),
        &[
            ("/w_ru", "/gates/kernel"),
            ("/b_ru", "/gates/bias"),
            ("/w_c", "/candidate/kernel"),
            ("/b_c", "/candidate/bias"),
        ],
        true,
    );
}
