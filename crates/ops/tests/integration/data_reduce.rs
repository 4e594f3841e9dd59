//! `Dataset.reduce` against TensorFlow 2.21 (values checked on `tf.compat.v1` graph mode):
//! sums, an empty dataset's initial state, tuple states, a growing state whose shape TensorFlow
//! relaxes to `[None]`, its messages for a wrong state, and an element's error.

use weir_graph::{Code, DType, Graph, Shape};
use weir_ops::array::{concat, constant, reshape};
use weir_ops::data::Dataset;
use weir_ops::math::{add, cast, mul};
use weir_session::Session;

use crate::io_util::run;

fn range(g: &Graph, n: i64) -> Dataset {
    Dataset::range(g, 0, n, 1).unwrap()
}

#[test]
fn reductions_match_tensorflow() {
    let g = Graph::new();
    let sum = range(&g, 5)
        .reduce(&[constant(&g, 0i64).unwrap()], |s, x| {
            Ok(vec![add(&s[0], &x[0])?])
        })
        .unwrap();
    let empty = range(&g, 0)
        .reduce(&[constant(&g, 7i64).unwrap()], |s, x| {
            Ok(vec![add(&s[0], &x[0])?])
        })
        .unwrap();
    let pair = range(&g, 5)
        .reduce(
            &[constant(&g, 0i64).unwrap(), constant(&g, 1i64).unwrap()],
            |s, x| {
                let one = constant(x[0].graph(), 1i64)?;
                Ok(vec![add(&s[0], &x[0])?, mul(&s[1], add(&x[0], one)?)?])
            },
        )
        .unwrap();
    let grown = range(&g, 4)
        .reduce(
            &[constant(&g, weir_graph::Tensor::from(Vec::<i64>::new())).unwrap()],
            |s, x| Ok(vec![concat(&[s[0].clone(), reshape(&x[0], [1i64])?], 0)?]),
        )
        .unwrap();
    assert_eq!(sum[0].shape(), Shape::scalar());
    assert_eq!(grown[0].shape(), Shape::new(vec![None]));
    let sess = Session::new(&g).unwrap();
    let v = run(&sess, &[&sum[0], &empty[0], &pair[0], &pair[1], &grown[0]]).unwrap();
    assert_eq!(v[0].to_scalar::<i64>().unwrap(), 10);
    assert_eq!(v[1].to_scalar::<i64>().unwrap(), 7);
    assert_eq!(v[2].to_scalar::<i64>().unwrap(), 10);
    assert_eq!(v[3].to_scalar::<i64>().unwrap(), 120);
    assert_eq!(v[4].to_vec::<i64>().unwrap(), [0, 1, 2, 3]);
    // The op reads the dataset again on each run.
    let again = run(&sess, &[&sum[0]]).unwrap();
    assert_eq!(again[0].to_scalar::<i64>().unwrap(), 10);
}

#[test]
fn a_wrong_state_gets_tensorflows_messages() {
    let g = Graph::new();
    let e = range(&g, 4)
        .reduce(&[constant(&g, 0i32).unwrap()], |s, x| {
            Ok(vec![add(cast(&s[0], DType::I64)?, &x[0])?])
        })
        .unwrap_err();
    assert_eq!(
        e.message(),
        "The element types for the new state must match the initial state. Expected <dtype: \
         'int32'> but got <dtype: 'int64'>."
    );
    let e = range(&g, 4)
        .reduce(
            &[constant(&g, 0i64).unwrap(), constant(&g, 0i64).unwrap()],
            |s, x| Ok(vec![add(&s[0], &x[0])?]),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "The number of components of the initial state and the reduce function output does not \
         match. (initial_state=2, output=1)."
    );
}

#[test]
fn an_elements_error_fails_the_run() {
    let g = Graph::new();
    let strings = constant(&g, ["1", "x", "3"]).unwrap();
    let total = Dataset::from_tensor_slices(&[strings])
        .unwrap()
        .map(|s| Ok(vec![weir_ops::string::string_to_number(&s[0], DType::I64)?]))
        .unwrap()
        .reduce(&[constant(&g, 0i64).unwrap()], |s, x| {
            Ok(vec![add(&s[0], &x[0])?])
        })
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let e = run(&sess, &[&total[0]]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "StringToNumberOp could not correctly convert string: x"
    );
}

/// A reduce over an endless dataset ends at its run's deadline.
#[test]
fn an_endless_reduce_ends_at_the_deadline() {
    let g = Graph::new();
    let total = range(&g, 1)
        .repeat(None)
        .unwrap()
        .reduce(&[constant(&g, 0i64).unwrap()], |s, x| {
            Ok(vec![add(&s[0], &x[0])?])
        })
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &weir_session::RunArgs::new()
                .fetch(&total[0])
                .timeout(std::time::Duration::from_millis(200)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
}
