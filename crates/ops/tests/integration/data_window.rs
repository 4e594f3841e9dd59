//! `Dataset.window` against what TensorFlow 2.21 returned (`tests/data/tfdata_window`, written
//! by `make_window.py` there): each window batched whole by a `flat_map`, run after run,
//! element errors at the windows that take them, argument errors; and windows of tuples.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::data::Dataset;
use weir_ops::math::add;
use weir_ops::string::string_to_number;
use weir_session::Session;

use crate::io_util::run;

fn cases() -> Vec<Value> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tfdata_window/expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str::<Value>(&s)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn input(g: &Graph, case: &Value) -> Dataset {
    match case.get("strings") {
        Some(strings) => {
            let s: Vec<&str> = strings
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            Dataset::from_tensor_slices(&[constant(g, Tensor::from(s.as_slice())).unwrap()])
                .unwrap()
                .map(|x| Ok(vec![string_to_number(&x[0], DType::I64)?]))
                .unwrap()
        }
        None => Dataset::range(g, 0, case["n"].as_i64().unwrap(), 1).unwrap(),
    }
}

#[test]
fn windows_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), 19);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let ds = input(&g, case)
            .window(
                case["size"].as_i64().unwrap(),
                case["shift"].as_i64(),
                case["stride"].as_i64().unwrap_or(1),
                case["drop_remainder"].as_bool().unwrap_or(false),
            )
            .unwrap()
            .flat_map(|w| w[0].batch(100))
            .unwrap();
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let sess = Session::new(&g).unwrap();
        let runs = case["runs"].as_array().unwrap();
        for (k, want) in runs.iter().enumerate() {
            let got = run(&sess, &[&next[0]]);
            match (want.get("value"), got) {
                (Some(v), Ok(t)) => {
                    let v: Vec<i64> = v
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_i64().unwrap())
                        .collect();
                    assert_eq!(t[0].to_vec::<i64>().unwrap(), v, "{name} run {k}");
                }
                (None, Err(e)) => {
                    assert_eq!(want["error"], "InvalidArgumentError", "{name}");
                    assert_eq!(e.code(), Code::InvalidArgument, "{name} run {k}: {e}");
                    // TensorFlow prefixes a map function's error with the function's and the
                    // iterator's names ("Error in user-defined function passed to
                    // MapDataset:109 transformation with iterator: ...: "); weir does not.
                    let tf = want["message"].as_str().unwrap();
                    assert!(tf.ends_with(e.message()), "{name} run {k}: {e} vs {tf}");
                }
                (_, got) => panic!("{name} run {k}: expected {want}, got {got:?}"),
            }
        }
        if runs.last().and_then(|r| r.get("value")).is_some() || runs.is_empty() {
            let end = run(&sess, &[&next[0]]).unwrap_err();
            assert_eq!(end.code(), Code::OutOfRange, "{name}: {end}");
        }
    }
}

/// Each component's window is its own dataset; zipping their batches back gives the window's
/// elements together (TensorFlow: [[0, 11], [22, 33], [44]] for x + 10x over windows of 2).
#[test]
fn windows_of_tuples_give_a_dataset_per_component() {
    let g = Graph::new();
    let x = Dataset::range(&g, 0, 5, 1).unwrap();
    let tens = x
        .map(|v| Ok(vec![weir_ops::math::mul(&v[0], constant(&g, 10i64)?)?]))
        .unwrap();
    let ds = Dataset::zip(&[x, tens])
        .unwrap()
        .window(2, None, 1, false)
        .unwrap()
        .flat_map(|w| Dataset::zip(&[w[0].batch(2)?, w[1].batch(2)?]))
        .unwrap()
        .map(|ab| Ok(vec![add(&ab[0], &ab[1])?]))
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let got: Vec<Vec<i64>> = (0..3)
        .map(|_| run(&sess, &[&next[0]]).unwrap()[0].to_vec::<i64>().unwrap())
        .collect();
    assert_eq!(got, vec![vec![0, 11], vec![22, 33], vec![44]]);
    assert_eq!(
        run(&sess, &[&next[0]]).unwrap_err().code(),
        Code::OutOfRange
    );
}

/// Windows interleaved two at a time (TensorFlow: 0 2 1 3 4 5 for windows of 2 over 6).
#[test]
fn windows_interleave() {
    let g = Graph::new();
    let ds = Dataset::range(&g, 0, 6, 1)
        .unwrap()
        .window(2, None, 1, false)
        .unwrap()
        .interleave(|w| Ok(w[0].clone()), 2, 1)
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let got: Vec<i64> = (0..6)
        .map(|_| {
            run(&sess, &[&next[0]]).unwrap()[0]
                .to_scalar::<i64>()
                .unwrap()
        })
        .collect();
    assert_eq!(got, [0, 2, 1, 3, 4, 5]);
}
