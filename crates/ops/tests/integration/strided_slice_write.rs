//! `StridedSliceGrad`, `TensorStridedSliceUpdate`, `StridedSliceAssign` and
//! `ResourceStridedSliceAssign` against TensorFlow 2.21 (tests/data/strided_slice_write: every
//! mask kind, negative strides, empty slices, broadcast values, five dtypes, and TensorFlow's
//! errors), compared bit for bit.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default, StridedSlice};
use weir_ops::state::Variable;
use weir_session::Session;

use crate::io_util::{check_spec_outputs, check_tf_error, expected_cases, spec_tensor};

fn cases() -> Vec<Value> {
    expected_cases("strided_slice_write")
}

const MASKS: [&str; 5] = [
    "begin_mask",
    "end_mask",
    "ellipsis_mask",
    "new_axis_mask",
    "shrink_axis_mask",
];

fn masks(c: &Value) -> StridedSlice {
    let m = |k: &str| c[k].as_i64().unwrap();
    StridedSlice::new()
        .begin_mask(m("begin_mask"))
        .end_mask(m("end_mask"))
        .ellipsis_mask(m("ellipsis_mask"))
        .new_axis_mask(m("new_axis_mask"))
        .shrink_axis_mask(m("shrink_axis_mask"))
}

/// Index input `key` (or `shape`) in the case's index dtype: a constant, or a
/// `placeholder_with_default` (unknown shape) when the case was fed so that the kernel, not
/// the shape function, sees a bad value.
fn index(g: &Graph, c: &Value, key: &str) -> Output {
    let v = &c[key];
    let t = match (v.as_array().unwrap().first(), c["index"].as_str()) {
        (Some(Value::Array(_)), _) => {
            let rows: Vec<Vec<i32>> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_i64().unwrap() as i32)
                        .collect()
                })
                .collect();
            let flat: Vec<i32> = rows.concat();
            Tensor::from_vec(&[rows.len(), flat.len() / rows.len()], flat).unwrap()
        }
        (_, Some("int64")) => Tensor::from(
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect::<Vec<_>>(),
        ),
        _ => Tensor::from(
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap() as i32)
                .collect::<Vec<_>>(),
        ),
    };
    let k = constant(g, t).unwrap();
    if c["fed"].as_bool() == Some(true) {
        placeholder_with_default(k, Shape::unknown()).unwrap()
    } else {
        k
    }
}

/// Runs one forward case: the op's output, or the error it gave.
fn run_case(c: &Value) -> weir_graph::Result<Tensor> {
    let g = Graph::new();
    let (b, e, s) = (
        index(&g, c, "begin"),
        index(&g, c, "end"),
        index(&g, c, "strides"),
    );
    let m = masks(c);
    let kind = c["kind"].as_str().unwrap();
    let sess = |out: &Output| Session::new(&g).and_then(|s| s.eval(out));
    match kind {
        "grad_op" => {
            let dy_key = if c.get("dy").is_some() { "dy" } else { "value" };
            let dy = constant(&g, spec_tensor(&c[dy_key]))?;
            let out = m.build_grad_from(index(&g, c, "shape"), b, e, s, dy)?;
            sess(&out)
        }
        "update" | "assign" | "resource_assign" => {
            let x = match c.get("x") {
                Some(x) => spec_tensor(x),
                None => {
                    let dims: Vec<usize> = c["shape"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_u64().unwrap() as usize)
                        .collect();
                    let n = dims.iter().product::<usize>();
                    Tensor::from_vec(&dims, (0..n).map(|i| i as f32).collect()).unwrap()
                }
            };
            let value = constant(&g, spec_tensor(&c["value"]))?;
            if kind == "update" {
                let out = m.build_update_from(constant(&g, x)?, b, e, s, value)?;
                return sess(&out);
            }
            let var = Variable::new(constant(&g, x)?)?;
            let session = Session::new(&g)?;
            session.run_target(&var.initializer())?;
            if kind == "assign" {
                let out = m.build_assign_from(&var, b, e, s, value)?;
                return session.eval(&out);
            }
            let mut op = g
                .new_operation("ResourceStridedSliceAssign")
                .input(var.handle())
                .input(&b)
                .input(&e)
                .input(&s)
                .input(&value);
            for k in MASKS {
                op = op.attr(k, c[k].as_i64().unwrap());
            }
            session.run_target(&op.build()?)?;
            session.eval(var.value())
        }
        other => panic!("kind {other}"),
    }
}

#[test]
fn strided_slice_writes_match_tensorflow() {
    let mut counts = std::collections::BTreeMap::new();
    for c in cases() {
        let kind = c["kind"].as_str().unwrap().to_string();
        if !matches!(kind.as_str(), "grad_op" | "update" | "assign") {
            continue;
        }
        let name = c["name"].as_str().unwrap();
        let got = run_case(&c);
        match (&got, c.get("error")) {
            (Ok(t), None) => check_spec_outputs(name, &c, std::slice::from_ref(t)),
            (Err(e), Some(want)) => check_tf_error(name, e, want),
            (Ok(_), Some(want)) => panic!("{name}: no error, TensorFlow said {want}"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
        *counts.entry(kind.clone()).or_insert(0) += 1;
        if kind == "assign" {
            // TensorFlow's resource variables run ResourceStridedSliceAssign: same checks,
            // same value.
            let mut r = c.clone();
            r["kind"] = Value::from("resource_assign");
            match (run_case(&r), c.get("error")) {
                (Ok(t), None) => check_spec_outputs(name, &c, &[t]),
                (Err(e), Some(want)) => check_tf_error(name, &e, want),
                (got, _) => panic!("{name} (resource): {got:?}"),
            }
        }
    }
    assert!(
        counts["grad_op"] >= 40 && counts["update"] >= 80 && counts["assign"] >= 8,
        "{counts:?}"
    );
}

#[test]
fn variable_slice_assign_from_items_and_bad_input() {
    let g = Graph::new();
    let v = Variable::new(
        constant(
            &g,
            Tensor::from_vec(&[3, 4], (0..12).collect::<Vec<i32>>()).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let up = v
        .assign_at(weir_ops::s![1.., ..;2], constant(&g, [-1, -2]).unwrap())
        .unwrap();
    assert_eq!(up.op().op_type(), "StridedSliceAssign");
    assert_eq!(up.shape(), Shape::known(&[3, 4]));
    let session = Session::new(&g).unwrap();
    // Before the initializer runs the variable has no value.
    let e = session.eval(&up).unwrap_err();
    assert!(e.is_failed_precondition(), "{e}");
    session.run_target(&v.initializer()).unwrap();
    assert_eq!(
        session.eval(&up).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 3, -1, 5, -2, 7, -1, 9, -2, 11]
    );
    // A value of the wrong dtype is refused when the graph is built.
    let e = v
        .assign_at(weir_ops::s![0], constant(&g, [1.0f32; 4]).unwrap())
        .unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    // A failed write leaves the variable as it was.
    let bad = v
        .assign_at(weir_ops::s![.., 0], constant(&g, [1, 2]).unwrap())
        .unwrap();
    let e = session.eval(&bad).unwrap_err();
    assert_eq!(
        e.message().split(" for '").next().unwrap(),
        "Cannot broadcast input shape [2] into final shape [3]"
    );
    assert_eq!(
        session.eval(v.value()).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 3, -1, 5, -2, 7, -1, 9, -2, 11]
    );
}

#[test]
fn static_shapes_of_the_write_ops() {
    let g = Graph::new();
    let dy = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap()).unwrap();
    let dx = StridedSlice::new()
        .build_grad(
            constant(&g, [6, 4]).unwrap(),
            &[1, 0],
            &[3, 4],
            &[1, 2],
            &dy,
        )
        .unwrap();
    assert_eq!(dx.shape(), Shape::known(&[6, 4]));
    assert_eq!(dx.dtype(), DType::F32);
    let fed = placeholder_with_default(constant(&g, [6, 4]).unwrap(), Shape::known(&[2])).unwrap();
    let (b, e, s) = (
        constant(&g, [1, 0]).unwrap(),
        constant(&g, [3, 4]).unwrap(),
        constant(&g, [1, 2]).unwrap(),
    );
    let dx = StridedSlice::new()
        .build_grad_from(fed, b, e, s, dy)
        .unwrap();
    assert_eq!(dx.shape(), Shape::new(vec![None, None]));
    let x = constant(&g, Tensor::from_vec(&[3, 4], vec![0i64; 12]).unwrap()).unwrap();
    let y = StridedSlice::new()
        .build_update(&x, &[0], &[1], &[1], constant(&g, 5i64).unwrap())
        .unwrap();
    assert_eq!(y.shape(), Shape::known(&[3, 4]));
}
