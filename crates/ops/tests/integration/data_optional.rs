//! `get_next_as_optional` and `Optional` against TensorFlow 2.21 (checked on `tf.compat.v1`):
//! `has_value` true for each element and false at the end (no OutOfRange), `get_value` of an
//! empty optional InvalidArgument "The given optional does not have a value.", one element per
//! run shared by `has_value` and `get_value`, an uninitialized iterator's FailedPrecondition,
//! and `Optional::from_value` / `Optional::empty`.

use weir_graph::{Code, DType, Graph, Shape};
use weir_ops::array::constant;
use weir_ops::data::{Dataset, Optional};
use weir_session::{RunArgs, Session};

use crate::io_util::run;

#[test]
fn the_end_of_a_dataset_is_an_empty_optional() {
    let g = Graph::new();
    let it = Dataset::range(&g, 0, 2, 1)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next_as_optional().unwrap();
    let (has, value) = (next.has_value().unwrap(), next.get_value().unwrap());
    assert_eq!((has.dtype(), has.shape()), (DType::Bool, Shape::scalar()));
    assert_eq!(
        (value[0].dtype(), value[0].shape()),
        (DType::I64, Shape::scalar())
    );
    let sess = Session::new(&g).unwrap();
    let init = RunArgs::new().target(&it.initializer().unwrap());
    sess.run(&init).unwrap();
    let flags: Vec<bool> = (0..3)
        .map(|_| run(&sess, &[&has]).unwrap()[0].to_scalar::<bool>().unwrap())
        .collect();
    assert_eq!(flags, [true, true, false]);
    sess.run(&init).unwrap();
    for x in 0..2i64 {
        let v = run(&sess, &[&has, &value[0]]).unwrap();
        assert!(v[0].to_scalar::<bool>().unwrap());
        assert_eq!(v[1].to_scalar::<i64>().unwrap(), x);
    }
    for _ in 0..2 {
        let e = run(&sess, &[&has, &value[0]]).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert_eq!(e.message(), "The given optional does not have a value.");
    }
    // Never initialized: the iterator's own error.
    let other = Dataset::range(&g, 0, 2, 1)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let e = run(
        &sess,
        &[&other.get_next_as_optional().unwrap().has_value().unwrap()],
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e
        .message()
        .starts_with("GetNext() failed because the iterator has not been"));
}

#[test]
fn optionals_from_values_and_empty_ones() {
    let g = Graph::new();
    let full = Optional::from_value(&[
        constant(&g, 7i32).unwrap(),
        constant(&g, vec!["a", "b"]).unwrap(),
    ])
    .unwrap();
    let empty = Optional::empty(&g, &[DType::F32], &[Shape::known(&[2])]).unwrap();
    let value = full.get_value().unwrap();
    assert_eq!(value[1].shape(), Shape::known(&[2]));
    let sess = Session::new(&g).unwrap();
    let v = run(
        &sess,
        &[
            &full.has_value().unwrap(),
            &value[0],
            &value[1],
            &empty.has_value().unwrap(),
        ],
    )
    .unwrap();
    assert!(v[0].to_scalar::<bool>().unwrap());
    assert_eq!(v[1].to_scalar::<i32>().unwrap(), 7);
    assert_eq!(v[2].to_strings().unwrap(), ["a", "b"]);
    assert!(!v[3].to_scalar::<bool>().unwrap());
    let e = run(&sess, &[&empty.get_value().unwrap()[0]]).unwrap_err();
    assert_eq!(e.message(), "The given optional does not have a value.");
}
