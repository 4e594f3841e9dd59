//! Queues with component `names` (TF_SEMANTICS §2.1): elements go in and come out as
//! dictionaries, with TensorFlow's ValueErrors for a list where a dictionary is needed, a
//! dictionary where the queue has no names, and keys that do not match.

use std::time::Duration;

use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::data_flow::{FifoQueue, PaddingFifoQueue, RandomShuffleQueue};
use weir_session::{RunArgs, Session};

fn invalid(r: weir_graph::Result<impl std::fmt::Debug>, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert_eq!(e.message(), msg);
}

#[test]
fn a_queue_with_names_takes_and_gives_dictionaries() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I32, DType::String])
        .shapes(&[Shape::scalar(), Shape::scalar()])
        .names(&["n", "s"])
        .build(&g)
        .unwrap();
    assert_eq!(q.names(), Some(&["n".to_string(), "s".to_string()][..]));
    // Keys in any order; each lands in its own component.
    let one = q
        .enqueue_dict(&[
            (
                "s",
                constant(&g, Tensor::from(vec!["a"]).reshape(&[]).unwrap()).unwrap(),
            ),
            ("n", constant(&g, 1i32).unwrap()),
        ])
        .unwrap();
    let many = q
        .enqueue_many_dict(&[
            ("n", constant(&g, vec![2i32, 3]).unwrap()),
            ("s", constant(&g, vec!["b", "c"]).unwrap()),
        ])
        .unwrap();
    let first = q.dequeue_dict().unwrap();
    assert_eq!(first.keys().collect::<Vec<_>>(), ["n", "s"]);
    let rest = q.dequeue_many_dict(2).unwrap();
    let sess = Session::new(&g).unwrap();
    let t = |o: &Output| RunArgs::new().fetch(o).timeout(Duration::from_secs(10));
    sess.run(&RunArgs::new().target(&one).target(&many))
        .unwrap();
    let got = sess.run(&t(&first["n"]).fetch(&first["s"])).unwrap();
    assert_eq!(got[0].to_scalar::<i32>().unwrap(), 1);
    assert_eq!(got[1].to_strings().unwrap(), vec!["a"]);
    let got = sess.run(&t(&rest["n"]).fetch(&rest["s"])).unwrap();
    assert_eq!(got[0].to_vec::<i32>().unwrap(), vec![2, 3]);
    assert_eq!(got[1].to_strings().unwrap(), vec!["b", "c"]);
}

#[test]
fn dictionaries_and_lists_are_refused_where_tensorflow_refuses_them() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let named = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .names(&["n"])
        .build(&g)
        .unwrap();
    let plain = FifoQueue::new(10, &[DType::I32]).build(&g).unwrap();
    let one = constant(&g, 1i32).unwrap();
    let ones = constant(&g, vec![1i32]).unwrap();
    invalid(
        named.enqueue(std::slice::from_ref(&one)),
        "You must enqueue a dictionary in a Queue with names",
    );
    invalid(
        named.enqueue_many(std::slice::from_ref(&ones)),
        "You must enqueue a dictionary in a Queue with names",
    );
    invalid(
        plain.enqueue_dict(&[("n", one.clone())]),
        "Queue must have names to enqueue a dictionary",
    );
    invalid(
        named.enqueue_dict(&[("m", one.clone()), ("a", one.clone())]),
        "Keys in dictionary to enqueue do not match names of Queue.  Dictionary: ['a', 'm'],Queue: ['n']",
    );
    invalid(
        plain.dequeue_dict(),
        "Queue must have names to dequeue a dictionary",
    );
    // The values are still checked against the component dtypes.
    assert!(named
        .enqueue_dict(&[("n", constant(&g, 1.5f32).unwrap())])
        .is_err());
}

#[test]
fn names_must_match_the_dtypes_in_number() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    invalid(
        PaddingFifoQueue::new(
            5,
            &[DType::I32, DType::F32],
            &[Shape::scalar(), Shape::scalar()],
        )
        .names(&["a"])
        .build(&g),
        "Queue names must have the same length as dtypes,received len(names)=1,len 2",
    );
}
