//! Dataset arguments given as tensors (`I64Arg`): the initializable iterator of TensorFlow's
//! programmer's guide, `Dataset.range(max_value)` with `max_value` a placeholder fed to the
//! initializer, and `batch`, `take`, `skip`, `repeat`, `shuffle`, `prefetch` and `shard` counts
//! fed the same way; with TensorFlow 2.21's messages for a tensor that is not an int64 scalar.

use std::time::Duration;

use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data::{Dataset, Iterator};
use weir_session::{RunArgs, Session};

const BOUND: Duration = Duration::from_secs(20);

fn scalar(g: &Graph, dtype: DType) -> Output {
    placeholder(g, dtype, Shape::scalar()).unwrap()
}

/// Runs the initializer with `feeds`, then reads every element's first component.
fn read_all(sess: &Session, it: &Iterator, feeds: &[(&Output, i64)]) -> Vec<Vec<i64>> {
    let mut init = RunArgs::new()
        .target(&it.initializer().unwrap())
        .timeout(BOUND);
    for (p, v) in feeds {
        init = init.feed(*p, Tensor::from(*v));
    }
    sess.run(&init).unwrap();
    let next = it.get_next().unwrap();
    let mut out = Vec::new();
    loop {
        match sess.run(&RunArgs::new().fetch(&next[0]).timeout(BOUND)) {
            Ok(v) => out.push(v[0].to_vec::<i64>().unwrap()),
            Err(e) if e.is_out_of_range() => return out,
            Err(e) => panic!("{e}"),
        }
        assert!(out.len() < 1000, "no end");
    }
}

#[test]
fn the_guides_initializable_iterator_reads_a_range_up_to_a_fed_max_value() {
    let g = Graph::new();
    let max_value = scalar(&g, DType::I64);
    let it = Dataset::range(&g, 0, &max_value, 1)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let flat = |v: Vec<Vec<i64>>| v.concat();
    assert_eq!(
        flat(read_all(&sess, &it, &[(&max_value, 10)])),
        (0..10).collect::<Vec<_>>()
    );
    assert_eq!(
        flat(read_all(&sess, &it, &[(&max_value, 3)])),
        vec![0, 1, 2]
    );
}

#[test]
fn counts_and_sizes_fed_to_the_initializer() {
    let g = Graph::new();
    let [batch, take, skip, repeat, buffer, shards, index] =
        [(); 7].map(|_| scalar(&g, DType::I64));
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .shard(&shards, &index)
        .unwrap()
        .skip(&skip)
        .unwrap()
        .take(&take)
        .unwrap()
        .repeat(&repeat)
        .unwrap()
        .shuffle_with(&buffer)
        .seed(5)
        .build()
        .unwrap()
        .prefetch(&buffer)
        .unwrap()
        .batch(&batch)
        .unwrap();
    assert_eq!(ds.output_shapes(), &[Shape::new(vec![None])]);
    let it = ds.make_initializable_iterator().unwrap();
    let sess = Session::new(&g).unwrap();
    // shard(2, 0): 0 2 4 6 8; skip 1, take 3: 2 4 6; twice; no shuffling with a buffer of 1.
    let feeds = [
        (&batch, 4),
        (&take, 3),
        (&skip, 1),
        (&repeat, 2),
        (&buffer, 1),
        (&shards, 2),
        (&index, 0),
    ];
    assert_eq!(
        read_all(&sess, &it, &feeds),
        vec![vec![2, 4, 6, 2], vec![4, 6]]
    );
    // The same iterator, re-initialized with other values.
    let feeds = [
        (&batch, 10),
        (&take, -1),
        (&skip, 0),
        (&repeat, 1),
        (&buffer, 1),
        (&shards, 1),
        (&index, 0),
    ];
    assert_eq!(
        read_all(&sess, &it, &feeds),
        vec![(0..10).collect::<Vec<_>>()]
    );
}

#[test]
fn a_constant_batch_size_tensor_gives_a_static_batch_dimension() {
    let g = Graph::new();
    let four = constant(&g, 4i64).unwrap();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .batch_with(&four, true)
        .unwrap();
    assert_eq!(ds.output_shapes(), &[Shape::new(vec![Some(4)])]);
    let fed = scalar(&g, DType::I64);
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .batch_with(&fed, true)
        .unwrap();
    assert_eq!(ds.output_shapes(), &[Shape::new(vec![None])]);
}

#[test]
fn a_tensor_that_is_not_an_int64_scalar_is_refused_as_tensorflow_refuses_it() {
    let g = Graph::new();
    let p32 = scalar(&g, DType::I32);
    let ds = Dataset::range(&g, 0, 10, 1).unwrap();
    let e = ds.batch(&p32).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        e.message(),
        "batch_size: Tensor conversion requested dtype int64 for Tensor with dtype int32: \
         <tf.Tensor 'Placeholder:0' shape=() dtype=int32>"
    );
    let e = Dataset::range(&g, 0, &p32, 1).unwrap_err();
    assert!(
        e.message()
            .starts_with("stop: Tensor conversion requested dtype int64"),
        "{e}"
    );
    let e = ds.repeat(&p32).unwrap_err();
    assert!(e.message().starts_with("count: "), "{e}");
    let e = ds.shuffle(&p32).unwrap_err();
    assert!(e.message().starts_with("buffer_size: "), "{e}");
    let v = placeholder(&g, DType::I64, Shape::new(vec![Some(2)])).unwrap();
    let e = ds.take(&v).unwrap_err();
    assert!(
        e.message()
            .starts_with("Shape must be rank 0 but is rank 1"),
        "{e}"
    );
}

#[test]
fn a_one_shot_iterator_cannot_capture_a_fed_count() {
    let g = Graph::new();
    let n = scalar(&g, DType::I64);
    let e = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .take(&n)
        .unwrap()
        .make_one_shot_iterator()
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().starts_with("Cannot capture a placeholder"),
        "{e}"
    );
}
