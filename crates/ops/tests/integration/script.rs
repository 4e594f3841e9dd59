//! `py_func` / `numpy_function` with Rust closures: values, TensorFlow 2.21's messages for
//! wrong results (checked on `tf.compat.v1.py_func`), errors passed through, no-output ops,
//! and functions living as long as their graph.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use weir_graph::{Code, DType, Error, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::script::{numpy_function, py_func, PyFunc};
use weir_session::{RunArgs, Session};

use crate::io_util::run;

fn doubled(args: &[Tensor]) -> weir_graph::Result<Vec<Tensor>> {
    let v: Vec<f32> = args[0].as_slice::<f32>()?.iter().map(|a| a * 2.0).collect();
    Ok(vec![Tensor::from(v)])
}

#[test]
fn a_closure_computes_the_ops_outputs() {
    let g = Graph::new();
    let x = constant(&g, [1.0f32, 2.0]).unwrap();
    let n = constant(&g, 3i64).unwrap();
    let out = py_func(
        &g,
        |args: &[Tensor]| {
            let mut v = doubled(&args[..1])?;
            v.push(Tensor::scalar(args[1].to_scalar::<i64>()? + 1));
            Ok(v)
        },
        &[x.clone(), n],
        &[DType::F32, DType::I64],
    )
    .unwrap();
    assert_eq!(out[0].op().op_type(), "PyFunc");
    assert_eq!(
        out[0].op().attr::<String>("token").unwrap()[..7],
        *"pyfunc_"
    );
    assert_eq!(out[0].shape().rank(), None);
    let stateless = PyFunc::new(doubled)
        .stateful(false)
        .name("double")
        .build(&g, &[x], &[DType::F32])
        .unwrap();
    assert_eq!(stateless.op_type(), "PyFuncStateless");
    assert_eq!(stateless.name(), "double");
    let sess = Session::new(&g).unwrap();
    let got = run(&sess, &[&out[0], &out[1], &stateless.output(0).unwrap()]).unwrap();
    assert_eq!(got[0].to_vec::<f32>().unwrap(), [2.0, 4.0]);
    assert_eq!(got[1].to_scalar::<i64>().unwrap(), 4);
    assert_eq!(got[2].to_vec::<f32>().unwrap(), [2.0, 4.0]);
}

#[test]
fn wrong_results_get_tensorflows_messages() {
    let g = Graph::new();
    let x = constant(&g, [1.0f32, 2.0]).unwrap();
    let as_f64 = py_func(
        &g,
        |_: &[Tensor]| Ok(vec![Tensor::from(vec![1.0f64])]),
        std::slice::from_ref(&x),
        &[DType::F32],
    )
    .unwrap();
    let two = py_func(
        &g,
        |a: &[Tensor]| Ok(vec![a[0].clone(), a[0].clone()]),
        std::slice::from_ref(&x),
        &[DType::F32],
    )
    .unwrap();
    let one = numpy_function(
        &g,
        |a: &[Tensor]| Ok(vec![a[0].clone()]),
        std::slice::from_ref(&x),
        &[DType::F32, DType::F32],
    )
    .unwrap();
    let failing = py_func(
        &g,
        |_: &[Tensor]| Err(Error::invalid_argument("bad value")),
        &[x],
        &[DType::F32],
    )
    .unwrap();
    let token = |o: &weir_graph::Output| o.op().attr::<String>("token").unwrap();
    let sess = Session::new(&g).unwrap();
    let e = run(&sess, &[&as_f64[0]]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        format!(
            "0-th value returned by {} is double, but expects float",
            token(&as_f64[0])
        )
    );
    let e = run(&sess, &[&two[0]]).unwrap_err();
    assert_eq!(
        e.message(),
        format!(
            "{} returns 2 values, but expects to see 1 values.",
            token(&two[0])
        )
    );
    let e = run(&sess, &[&one[0]]).unwrap_err();
    assert_eq!(
        e.message(),
        format!(
            "{} returns 1 values, but expects to see 2 values.",
            token(&one[0])
        )
    );
    let e = run(&sess, &[&failing[0]]).unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::InvalidArgument, "bad value")
    );
}

/// A function without outputs runs for its effect, as a target; a stateful one runs on every
/// run.
#[test]
fn an_op_without_outputs_runs_as_a_target() {
    let g = Graph::new();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let op = PyFunc::new(move |_: &[Tensor]| {
        c.fetch_add(1, Ordering::SeqCst);
        Ok(vec![])
    })
    .build(&g, &[], &[])
    .unwrap();
    assert_eq!(op.num_outputs(), 0);
    let sess = Session::new(&g).unwrap();
    for _ in 0..3 {
        sess.run(&RunArgs::new().target(&op)).unwrap();
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

/// The graph keeps its functions: a session made after the builder values are gone still
/// finds them, and a second session of the graph calls the same closure.
#[test]
fn functions_live_as_long_as_their_graph() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (g, out) = {
        let g = Graph::new();
        let c = calls.clone();
        let x = constant(&g, 5i32).unwrap();
        let out = py_func(
            &g,
            move |a: &[Tensor]| {
                c.fetch_add(1, Ordering::SeqCst);
                Ok(vec![a[0].clone()])
            },
            &[x],
            &[DType::I32],
        )
        .unwrap();
        (g, out)
    };
    for _ in 0..2 {
        let sess = Session::new(&g).unwrap();
        assert_eq!(
            run(&sess, &[&out[0]]).unwrap()[0]
                .to_scalar::<i32>()
                .unwrap(),
            5
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // The closure (and what it owns) goes with the graph.
    drop((g, out));
    assert_eq!(Arc::strong_count(&calls), 1);
}
