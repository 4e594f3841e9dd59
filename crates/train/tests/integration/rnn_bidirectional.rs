//! `bidirectional_dynamic_rnn` against TensorFlow 2.21 (tests/data/rnn_bidirectional/
//! make_rnn_bidirectional.py wrote expected.json): the variables it creates (TensorFlow's
//! names under `bidirectional_rnn/fw` and `/bw`, and shapes), and, with every variable set to
//! the recorded values, the forward and backward outputs, both final states and the gradients
//! of `sum(w_fw * out_fw) + sum(w_bw * out_bw) + sum(states)` with respect to the inputs and
//! every variable, within 1e-5 (float32 cells of a few units over four steps: only the
//! rounding of the sums inside the cells differs).

use std::path::Path;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::math::{add, mul, reduce_sum, Axes};
use weir_ops::state::{global_variables_initializer, trainable_variables};
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;
use weir_train::rnn::{
    BasicLstmCell, BasicRnnCell, BidirectionalDynamicRnn, GruCell, LstmCell, RnnCell,
};

fn cases() -> Vec<Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rnn_bidirectional/expected.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn f32s(v: &Value) -> Vec<f32> {
    match v {
        Value::Array(a) => a.iter().flat_map(f32s).collect(),
        x => vec![x.as_f64().unwrap() as f32],
    }
}

fn dims(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

fn close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 1e-5 * b.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

/// The shape of a nested JSON array.
fn nested_shape(v: &Value) -> Vec<usize> {
    let mut shape = Vec::new();
    let mut cur = v;
    while let Some(a) = cur.as_array() {
        shape.push(a.len());
        cur = &a[0];
    }
    shape
}

fn tensor(g: &Graph, v: &Value) -> Result<Output> {
    constant(g, Tensor::from_vec(&nested_shape(v), f32s(v))?)
}

fn weights(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let w = (0..n)
        .map(|i| 0.5 + ((i * 7919 + 13) % 1000) as f32 / 1000.0)
        .collect();
    Tensor::from_vec(shape, w).unwrap()
}

fn check(case: &Value, fw: &dyn RnnCell, bw: &dyn RnnCell) -> Result<()> {
    let name = case["name"].as_str().unwrap();
    let opts = &case["options"];
    let g = Graph::new();
    let x = tensor(&g, &case["x"])?;
    let mut b = BidirectionalDynamicRnn::new().dtype(DType::F32);
    if let Some(l) = opts.get("sequence_length") {
        let lens: Vec<i64> = l
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        // The recorded int64 case stays int64 (reverse_sequence takes either).
        let t = if name.contains("int64") {
            Tensor::from(lens)
        } else {
            Tensor::from(lens.iter().map(|&v| v as i32).collect::<Vec<_>>())
        };
        b = b.sequence_length(&constant(&g, t)?);
    }
    if opts.get("time_major").and_then(Value::as_bool) == Some(true) {
        b = b.time_major(true);
    }
    if let Some(s) = opts.get("initial_state_fw") {
        b = b.initial_state_fw(&[tensor(&g, s)?]);
    }
    if let Some(s) = opts.get("initial_state_bw") {
        b = b.initial_state_bw(&[tensor(&g, s)?]);
    }
    let ((out_fw, out_bw), (st_fw, st_bw)) = b.build(fw, bw, &x)?;
    let w_fw = constant(&g, weights(&dims(&case["out_fw_shape"])))?;
    let w_bw = constant(&g, weights(&dims(&case["out_bw_shape"])))?;
    let mut loss = add(
        &reduce_sum(&mul(&w_fw, &out_fw)?, Axes::All)?,
        &reduce_sum(&mul(&w_bw, &out_bw)?, Axes::All)?,
    )?;
    for s in st_fw.iter().chain(&st_bw) {
        loss = add(&loss, &reduce_sum(s, Axes::All)?)?;
    }
    let vars = trainable_variables(&g)?;
    let want_vars = case["vars"].as_array().unwrap();
    let names: Vec<(String, Vec<usize>)> = vars
        .iter()
        .map(|v| (format!("{}:0", v.name()), v.shape().to_known().unwrap()))
        .collect();
    let want_names: Vec<(String, Vec<usize>)> = want_vars
        .iter()
        .map(|v| (v[0].as_str().unwrap().to_string(), dims(&v[1])))
        .collect();
    assert_eq!(names, want_names, "{name}: variables");
    let mut xs = vec![x.clone()];
    xs.extend(vars.iter().map(|v| v.value()));
    let grads = gradients(std::slice::from_ref(&loss), &xs, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    for (v, w) in vars.iter().zip(want_vars) {
        let value = Tensor::from_vec(&dims(&w[1]), f32s(&w[2]))?;
        sess.eval(&v.assign(constant(&g, value)?)?)?;
    }
    let mut args = RunArgs::new().fetch(&out_fw).fetch(&out_bw);
    for t in st_fw.iter().chain(&st_bw) {
        args = args.fetch(t);
    }
    for d in &grads {
        args = args.fetch(d.as_ref().unwrap());
    }
    let r = sess.run(&args)?;
    let got = |i: usize| r[i].to_vec::<f32>().unwrap();
    assert_eq!(
        r[0].shape(),
        dims(&case["out_fw_shape"]).as_slice(),
        "{name}"
    );
    assert_eq!(
        r[1].shape(),
        dims(&case["out_bw_shape"]).as_slice(),
        "{name}"
    );
    close(
        &got(0),
        &f32s(&case["out_fw"]),
        &format!("{name}: output_fw"),
    );
    close(
        &got(1),
        &f32s(&case["out_bw"]),
        &format!("{name}: output_bw"),
    );
    let mut at = 2;
    for (key, n) in [("st_fw", st_fw.len()), ("st_bw", st_bw.len())] {
        let want = case[key].as_array().unwrap();
        assert_eq!(want.len(), n, "{name}: {key}");
        for (k, s) in want.iter().enumerate() {
            close(&got(at), &f32s(s), &format!("{name}: {key}[{k}]"));
            at += 1;
        }
    }
    close(&got(at), &f32s(&case["dx"]), &format!("{name}: d inputs"));
    for (k, d) in case["dvars"].as_array().unwrap().iter().enumerate() {
        close(
            &got(at + 1 + k),
            &f32s(d),
            &format!("{name}: d {}", names[k].0),
        );
    }
    Ok(())
}

fn case(name: &str) -> Value {
    cases()
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

#[test]
fn lstm_forward_gru_backward_with_lengths() -> Result<()> {
    check(
        &case("lstm_gru_lengths"),
        &BasicLstmCell::new(3),
        &GruCell::new(2),
    )
}

#[test]
fn time_major_without_lengths_from_an_initial_state() -> Result<()> {
    check(
        &case("rnn_time_major_no_lengths"),
        &BasicRnnCell::new(3),
        &BasicRnnCell::new(2),
    )
}

#[test]
fn int64_lengths_with_an_empty_sequence_and_a_backward_initial_state() -> Result<()> {
    check(
        &case("lstm_int64_lengths_initial_bw"),
        &LstmCell::new(2),
        &GruCell::new(3),
    )
}

#[test]
fn every_case_is_checked() {
    assert_eq!(cases().len(), 3);
}
