//! `Dataset.from_generator` with Rust closures: elements, a fresh generator per iterator,
//! TensorFlow 2.21's messages for elements of the wrong shape or structure (checked on
//! `tf.data.Dataset.from_generator`), going on after them, and errors passed through.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use weir_graph::{Code, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::data::Dataset;
use weir_session::{RunArgs, Session};

use crate::io_util::run;

/// Each run's first component as an i64 vector, or the run's error; until End of sequence.
fn drain(sess: &Session, next: &[Output]) -> Vec<Result<Vec<i64>, Error>> {
    let mut out = vec![];
    for _ in 0..100 {
        match run(sess, &[&next[0]]) {
            Ok(t) => out.push(Ok(t[0].to_vec::<i64>().unwrap())),
            Err(e) if e.code() == Code::OutOfRange => return out,
            Err(e) => out.push(Err(e)),
        }
    }
    panic!("no End of sequence");
}

#[test]
fn elements_come_from_a_fresh_generator_per_iterator() {
    let g = Graph::new();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let ds = Dataset::from_generator(
        &g,
        move || {
            c.fetch_add(1, Ordering::SeqCst);
            (1..4i64).map(|i| Ok(vec![Tensor::scalar(i), Tensor::from(vec![i as f32; 2])]))
        },
        &[DType::I64, DType::F32],
        Some(&[Shape::scalar(), Shape::new(vec![Some(2)])]),
    )
    .unwrap()
    .batch(2)
    .unwrap();
    assert_eq!(ds.output_shapes()[1], Shape::new(vec![None, Some(2)]));
    let it = ds.make_initializable_iterator().unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    for epoch in 1..=2 {
        sess.run(&RunArgs::new().target(&it.initializer().unwrap()))
            .unwrap();
        let got: Vec<Vec<i64>> = drain(&sess, &next)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(got, vec![vec![1, 2], vec![3]]);
        assert_eq!(calls.load(Ordering::SeqCst), epoch);
    }
}

#[test]
fn bad_elements_fail_at_their_place_in_tensorflows_words() {
    let g = Graph::new();
    let ds = Dataset::from_generator(
        &g,
        || {
            vec![
                Ok(vec![Tensor::from(vec![1i64, 2])]),
                Ok(vec![Tensor::from(vec![1i64, 2, 3])]),
                Ok(vec![Tensor::scalar(5i64)]),
                Ok(vec![Tensor::from(vec![1.0f32, 2.0])]),
                Ok(vec![]),
                Err(Error::invalid_argument("boom")),
                Ok(vec![Tensor::from(vec![4i64, 5])]),
            ]
        },
        &[DType::I64],
        Some(&[Shape::new(vec![Some(2)])]),
    )
    .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let got = drain(&sess, &next);
    assert_eq!(got.len(), 7);
    assert_eq!(got[0].as_ref().unwrap(), &[1, 2]);
    let message = |i: usize| {
        let e = got[i].as_ref().unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        e.message().to_string()
    };
    assert_eq!(
        message(1),
        "TypeError: `generator` yielded an element of shape (3,) where an element of shape (2,) \
         was expected."
    );
    assert_eq!(
        message(2),
        "TypeError: `generator` yielded an element of shape () where an element of shape (2,) \
         was expected."
    );
    assert_eq!(
        message(3),
        "TypeError: `generator` yielded an element that did not match the expected structure. \
         The expected structure was TensorSpec(shape=(2,), dtype=tf.int64, name=None), but the \
         yielded element was (a float32 tensor of shape (2,))."
    );
    assert!(message(4).contains("but the yielded element was ()."));
    assert_eq!(message(5), "boom");
    assert_eq!(got[6].as_ref().unwrap(), &[4, 5]);
}

#[test]
fn a_dropped_graph_takes_its_generator_along() {
    let owned = Arc::new(());
    let g = Graph::new();
    let o = owned.clone();
    let ds = Dataset::from_generator(
        &g,
        move || {
            let _ = &o;
            std::iter::empty()
        },
        &[DType::I64],
        None,
    )
    .unwrap();
    assert_eq!(ds.output_shapes(), &[Shape::unknown()]);
    assert_eq!(Arc::strong_count(&owned), 2);
    drop((ds, g));
    assert_eq!(Arc::strong_count(&owned), 1);
}

#[test]
fn shapes_must_match_the_types() {
    let g = Graph::new();
    let e = Dataset::from_generator(
        &g,
        std::iter::empty,
        &[DType::I64, DType::I64],
        Some(&[Shape::scalar()]),
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}
