//! The sparse backward ops against TensorFlow 2.21 (tests/data/sparse_grad_ops/expected.json,
//! written by make_sparse_grad_ops.py there): `SparseFillEmptyRowsGrad` and `SparseSliceGrad`
//! for every number type, their outputs bit for bit (the default value's gradient sums in the
//! value type, in order, as TensorFlow's kernel does, so no tolerance is needed), static
//! shapes, and every error's code and message. Messages are compared before TensorFlow's
//! " for '{{node ...}}'" suffix (weir's suffix names the op instead).

mod spec;

use serde_json::Value;
use weir_graph::{Code, Error, Graph, Output, Tensor};
use weir_ops::array::placeholder;
use weir_ops::sparse::{sparse_fill_empty_rows_grad, sparse_slice_grad};

use crate::io_util::{check_all_cases, check_tf_error, run_built_case, shape_of};

/// Cases whose TensorFlow message is Python's dtype-list `TypeError` (with quantized types weir
/// lacks): the code only.
const CODE_ONLY: &[&str] = &["slice_grad_string", "slice_grad_bool"];

/// A placeholder of the spec's `shape` (its own dims unless given) fed its value.
fn source(g: &Graph, s: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    let value = spec::tensor(s);
    let shape = match s.get("shape") {
        Some(sh) => shape_of(sh),
        None => weir_graph::Shape::known(value.shape()),
    };
    let p = placeholder(g, value.dtype(), shape).unwrap();
    feeds.push((p.clone(), value));
    p
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>, Error> {
    let ins: Vec<Output> = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| source(g, s, feeds))
        .collect();
    Ok(match c["op"].as_str().unwrap() {
        "fill_grad" => {
            let (d_values, d_default) = sparse_fill_empty_rows_grad(&ins[0], &ins[1])?;
            vec![d_values, d_default]
        }
        "slice_grad" => vec![sparse_slice_grad(&ins[0], &ins[1], &ins[2], &ins[3])?],
        other => panic!("op {other}"),
    })
}

fn check_error(name: &str, got: &Error, want: &Value) {
    if CODE_ONLY.contains(&name) {
        let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
        assert_eq!(got.code(), code, "{name}: {got}");
        return;
    }
    check_tf_error(name, got, want)
}

fn run_case(c: &Value) -> bool {
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(g, c, feeds),
        check_error,
        |name, got| {
            let want = c["outputs"].as_array().unwrap();
            assert_eq!(got.len(), want.len(), "{name}: outputs");
            for (k, (g, w)) in got.iter().zip(want).enumerate() {
                spec::assert_same(&format!("{name} output {k}"), g, &spec::tensor(w));
            }
        },
    )
}

#[test]
fn sparse_grad_ops_match_tensorflow() {
    // The "gradient" cases are weir-train's (sparse_more_grad.rs).
    let cases: Vec<Value> = crate::io_util::expected_cases("sparse_grad_ops")
        .into_iter()
        .filter(|c| c["op"] != "gradient")
        .collect();
    assert!(cases.len() >= 70, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// Extreme indices and starts end in a result or an error, never a panic or an overflow trap.
#[test]
fn extreme_indices_end_in_a_result_or_an_error() {
    use weir_ops::array::constant;
    let g = Graph::new();
    let ix = |v: Vec<i64>| constant(&g, Tensor::from_vec(&[v.len() / 2, 2], v).unwrap()).unwrap();
    let grad = constant(&g, vec![1.0f32]).unwrap();
    let start = constant(&g, vec![i64::MAX, i64::MIN]).unwrap();
    let slice = sparse_slice_grad(
        &grad,
        ix(vec![i64::MIN, i64::MAX, 0, 0]),
        &start,
        ix(vec![1, -1]),
    )
    .unwrap();
    let map = constant(&g, vec![i64::MAX, i64::MIN]).unwrap();
    let (fill, _) = sparse_fill_empty_rows_grad(&map, &grad).unwrap();
    let sess = weir_session::Session::new(&g).unwrap();
    // i64::MAX + 1 wraps to i64::MIN and i64::MIN - 1 to i64::MAX, as TensorFlow's C++ does.
    assert_eq!(
        sess.eval(&slice).unwrap().to_vec::<f32>().unwrap(),
        [1.0, 0.0]
    );
    let e = sess.eval(&fill).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}
