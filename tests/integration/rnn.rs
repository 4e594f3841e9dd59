//! Recurrent networks against TensorFlow 2.21 (tests/data/rnn/make_rnn.py wrote
//! expected.json): each cell run by dynamic_rnn or static_rnn on one batch gives TensorFlow's
//! variable names and shapes, initial values, outputs, final state, gradients and three Adam
//! steps' losses.

use std::path::PathBuf;

use serde_json::Value as Json;
use weir::prelude::*;
use weir::train::rnn::{
    static_rnn, BasicLstmCell, BasicRnnCell, DynamicRnn, GruCell, LstmCell, MultiRnnCell, RnnCell,
};

fn expected(case: &str) -> Json {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rnn/expected.json");
    let mut all: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all[case].take()
}

fn f32s(v: &Json) -> Vec<f32> {
    match v {
        Json::Array(a) => a.iter().flat_map(f32s).collect(),
        x => vec![x.as_f64().unwrap() as f32],
    }
}

fn close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 1e-4 * b.abs().max(1.0),
            "{what}: {got:?} vs {want:?}"
        );
    }
}

const X: [f32; 16] = [
    0.5, -1.0, 1.0, 0.25, -0.5, 2.0, 0.1, 0.2, 0.3, 0.3, -1.0, 0.5, 0.2, -0.2, 1.5, 0.0,
];

/// Builds `case` with `build` (given the batch `[2, 4, 2]`) under a variable scope `v` whose
/// initializer is TensorFlow's `random_uniform_initializer(-0.5, 0.5, seed=3)`, and checks it
/// against TensorFlow's run of the same graph.
fn check(
    case: &str,
    build: impl FnOnce(&Graph, &Output) -> Result<(Output, Vec<Output>)>,
) -> Result<()> {
    let want = expected(case);
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[2, 4, 2], X.to_vec())?)?;
    let (outputs, state) = {
        let _v = VariableScope::new("v")
            .initializer(Initializer::random_uniform(-0.5, 0.5).seed(3))
            .enter(&g)?;
        build(&g, &x)?
    };
    let mut loss = reduce_sum(&mul(&outputs, &outputs)?, Axes::All)?;
    for s in &state {
        loss = add(&loss, &reduce_sum(s, Axes::All)?)?;
    }
    let vars = trainable_variables(&g)?;
    let names: Vec<(String, Vec<usize>)> = vars
        .iter()
        .map(|v| {
            (
                format!("{}:0", v.name()),
                v.shape().to_known().unwrap_or_default(),
            )
        })
        .collect();
    let want_names: Vec<(String, Vec<usize>)> = want["vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let dims = p[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize);
            (p[0].as_str().unwrap().to_string(), dims.collect())
        })
        .collect();
    assert_eq!(names, want_names, "{case}: variables");
    let mut xs = vec![x.clone()];
    xs.extend(vars.iter().map(Variable::value));
    let grads = gradients(std::slice::from_ref(&loss), &xs, None)?;
    let step = AdamOptimizer::new(0.05).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    for (i, v) in vars.iter().enumerate() {
        let got = sess.eval(v.value())?.to_vec::<f32>()?;
        close(
            &got,
            &f32s(&want["init"][i]),
            &format!("{case}: initial {}", v.name()),
        );
    }
    let mut args = RunArgs::new().fetch(&outputs);
    for t in state
        .iter()
        .chain(grads.iter().map(|g| g.as_ref().unwrap()))
    {
        args = args.fetch(t);
    }
    let r = sess.run(&args)?;
    close(
        &r[0].to_vec::<f32>()?,
        &f32s(&want["outputs"]),
        &format!("{case}: outputs"),
    );
    for (k, s) in want["state"].as_array().unwrap().iter().enumerate() {
        close(
            &r[1 + k].to_vec::<f32>()?,
            &f32s(s),
            &format!("{case}: state {k}"),
        );
    }
    let at = 1 + state.len();
    close(
        &r[at].to_vec::<f32>()?,
        &f32s(&want["dx"]),
        &format!("{case}: d inputs"),
    );
    for (k, d) in want["dvars"].as_array().unwrap().iter().enumerate() {
        close(
            &r[at + 1 + k].to_vec::<f32>()?,
            &f32s(d),
            &format!("{case}: d {}", names[k].0),
        );
    }
    let mut losses = Vec::new();
    for _ in 0..3 {
        losses.push(sess.run(&RunArgs::new().fetch(&loss).target(&step))?[0].to_scalar::<f32>()?);
    }
    close(
        &losses,
        &f32s(&want["losses"]),
        &format!("{case}: Adam losses"),
    );
    Ok(())
}

#[test]
fn a_basic_rnn_cell_in_dynamic_rnn() -> Result<()> {
    check("basic_rnn", |_, x| {
        DynamicRnn::new()
            .dtype(DType::F32)
            .build(&BasicRnnCell::new(3), x)
    })
}

#[test]
fn a_basic_lstm_cell_with_sequence_lengths() -> Result<()> {
    check("basic_lstm_seq", |g, x| {
        DynamicRnn::new()
            .dtype(DType::F32)
            .sequence_length(&constant(g, vec![4i32, 2])?)
            .build(&BasicLstmCell::new(3), x)
    })
}

#[test]
fn a_gru_cell_time_major_from_an_initial_state() -> Result<()> {
    check("gru_time_major", |g, x| {
        let h0 = constant(
            g,
            Tensor::from_vec(&[2, 3], vec![0.1f32, 0.2, 0.3, -0.1, 0.0, 0.5])?,
        )?;
        DynamicRnn::new()
            .time_major(true)
            .initial_state(&[h0])
            .build(&GruCell::new(3), &transpose(x, [1, 0, 2])?)
    })
}

#[test]
fn an_lstm_cell_with_peepholes_a_projection_and_a_clip() -> Result<()> {
    check("lstm_peep_proj", |_, x| {
        let cell = LstmCell::new(3)
            .use_peepholes(true)
            .num_proj(2)
            .cell_clip(1.0);
        DynamicRnn::new().dtype(DType::F32).build(&cell, x)
    })
}

#[test]
fn a_multi_rnn_cell_of_a_basic_and_a_gru_cell() -> Result<()> {
    check("multi", |_, x| {
        let cells: Vec<Box<dyn RnnCell>> =
            vec![Box::new(BasicRnnCell::new(3)), Box::new(GruCell::new(2))];
        DynamicRnn::new()
            .dtype(DType::F32)
            .build(&MultiRnnCell::new(cells), x)
    })
}

#[test]
fn a_basic_lstm_cell_in_static_rnn() -> Result<()> {
    check("static_lstm", |_, x| {
        let steps = unstack(x, None, 1)?;
        let (outs, state) = static_rnn(
            &BasicLstmCell::new(3),
            &steps,
            None,
            Some(DType::F32),
            None,
            None,
        )?;
        Ok((stack(&outs, 1)?, state))
    })
}
