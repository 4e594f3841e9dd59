//! tf.data's core: tensor sources, map, filter, batch, repeat, skip, take and the three kinds of
//! iterators, with TensorFlow 2.21's values and messages (tf.compat.v1 graph mode).

use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data::{Dataset, Iterator};
use weir_ops::math::{add, mul};
use weir_ops::state::Variable;
use weir_session::{RunArgs, Session};

/// Runs `next` until OutOfRange "End of sequence", returning each run's first component as
/// i64s; fails after 1,000 runs.
fn drain_i64(sess: &Session, next: &[Output]) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    for _ in 0..1000 {
        match sess.run(&RunArgs::new().fetch(&next[0])) {
            Ok(v) => out.push(v[0].to_vec::<i64>().unwrap()),
            Err(e) => {
                assert_eq!(e.code(), Code::OutOfRange, "{e}");
                assert_eq!(e.message(), "End of sequence");
                // And again on every later call.
                let again = sess.run(&RunArgs::new().fetch(&next[0])).unwrap_err();
                assert_eq!(again.code(), Code::OutOfRange);
                return out;
            }
        }
    }
    panic!("the iterator did not end");
}

fn one_shot(ds: &Dataset) -> (Session, Vec<Output>) {
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    (Session::new(ds.graph()).unwrap(), next)
}

fn range_of(g: &Graph, v: Vec<i64>) -> Dataset {
    Dataset::from_tensor_slices(&[constant(g, Tensor::from(v)).unwrap()]).unwrap()
}

#[test]
fn slices_map_and_batch_end_with_a_short_batch() {
    let g = Graph::new();
    let ds = range_of(&g, vec![1, 2, 3, 4, 5])
        .map(|x| Ok(vec![mul(&x[0], &x[0])?]))
        .unwrap()
        .batch(2)
        .unwrap();
    assert_eq!(ds.output_shapes(), &[Shape::new(vec![None])]);
    let (sess, next) = one_shot(&ds);
    assert_eq!(
        drain_i64(&sess, &next),
        vec![vec![1, 4], vec![9, 16], vec![25]]
    );
}

#[test]
fn drop_remainder_makes_the_batch_dimension_static() {
    let g = Graph::new();
    let rows = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 5, 6]).unwrap(),
    )
    .unwrap();
    let ds = Dataset::from_tensor_slices(&[rows])
        .unwrap()
        .batch_with(2, true)
        .unwrap();
    assert_eq!(ds.output_shapes(), &[Shape::known(&[2, 2])]);
    let (sess, next) = one_shot(&ds);
    let v = sess.run(&RunArgs::new().fetch(&next[0])).unwrap();
    assert_eq!(v[0].shape(), &[2, 2]);
    assert_eq!(v[0].to_vec::<i32>().unwrap(), vec![1, 2, 3, 4]);
    let e = sess.run(&RunArgs::new().fetch(&next[0])).unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange);
}

#[test]
fn several_components_travel_together() {
    let g = Graph::new();
    let a = constant(&g, Tensor::from(vec![1i64, 2, 3])).unwrap();
    let b = constant(&g, Tensor::from_strings(&["a", "b", "c"])).unwrap();
    let ds = Dataset::from_tensor_slices(&[a, b])
        .unwrap()
        .map(|x| {
            Ok(vec![
                x[1].clone(),
                add(&x[0], constant(x[0].graph(), 10i64)?)?,
            ])
        })
        .unwrap();
    assert_eq!(ds.output_types(), &[DType::String, DType::I64]);
    let (sess, next) = one_shot(&ds);
    for (s, n) in [("a", 11i64), ("b", 12), ("c", 13)] {
        let v = sess
            .run(&RunArgs::new().fetch(&next[0]).fetch(&next[1]))
            .unwrap();
        assert_eq!(v[0].to_strings().unwrap(), vec![s.to_string()]);
        assert_eq!(v[1].to_scalar::<i64>().unwrap(), n);
    }
}

#[test]
fn filter_repeat_skip_and_take_count_as_tensorflow_does() {
    let g = Graph::new();
    let even = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .filter(|x| {
            let two = constant(x[0].graph(), 2i64)?;
            let half = weir_ops::math::floormod(&x[0], &two)?;
            weir_ops::math::equal(&half, constant(x[0].graph(), 0i64)?)
        })
        .unwrap();
    let (sess, next) = one_shot(&even);
    assert_eq!(drain_i64(&sess, &next).concat(), vec![0, 2, 4, 6, 8]);

    // range(10).take(-1).skip(7) -> 7, 8, 9 (TensorFlow 2.21).
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .take(-1)
        .unwrap()
        .skip(7)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next).concat(), vec![7, 8, 9]);

    // range(3).repeat(2).skip(-1) -> nothing.
    let ds = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .repeat(Some(2))
        .unwrap()
        .skip(-1)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert!(drain_i64(&sess, &next).is_empty());

    // repeat(2).batch(4) batches across the epoch boundary; batch(2).repeat(2) repeats the
    // short batch.
    let ds = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .repeat(Some(2))
        .unwrap()
        .batch(4)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next), vec![vec![0, 1, 2, 0], vec![1, 2]]);
    let ds = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .batch(2)
        .unwrap()
        .repeat(Some(2))
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(
        drain_i64(&sess, &next),
        vec![vec![0, 1], vec![2], vec![0, 1], vec![2]]
    );

    // An empty dataset repeated forever ends.
    let ds = Dataset::range(&g, 0, 0, 1).unwrap().repeat(None).unwrap();
    let (sess, next) = one_shot(&ds);
    assert!(drain_i64(&sess, &next).is_empty());

    // Forever is forever: take 7 of range(3) repeated.
    let ds = Dataset::range(&g, 5, 2, -1)
        .unwrap()
        .repeat(None)
        .unwrap()
        .take(7)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next).concat(), vec![5, 4, 3, 5, 4, 3, 5]);
}

#[test]
fn an_initializable_iterator_reads_placeholders_fed_to_its_initializer() {
    let g = Graph::new();
    let p = placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap();
    let it = Dataset::from_tensor_slices(std::slice::from_ref(&p))
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.run(&RunArgs::new().fetch(&next[0])).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(
        e.message(),
        "GetNext() failed because the iterator has not been initialized. Ensure that you have \
         run the initializer operation for this iterator before getting the next element."
    );
    for vals in [vec![4i64, 5], vec![7, 8, 9]] {
        sess.run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vals.clone()))
                .target(&it.initializer().unwrap()),
        )
        .unwrap();
        assert_eq!(drain_i64(&sess, &next).concat(), vals);
    }
    // Re-initializing in the middle restarts.
    sess.run(
        &RunArgs::new()
            .feed(&p, Tensor::from(vec![1i64, 2]))
            .target(&it.initializer().unwrap()),
    )
    .unwrap();
    assert_eq!(
        sess.run(&RunArgs::new().fetch(&next[0])).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap(),
        1
    );
    sess.run(
        &RunArgs::new()
            .feed(&p, Tensor::from(vec![3i64]))
            .target(&it.initializer().unwrap()),
    )
    .unwrap();
    assert_eq!(drain_i64(&sess, &next).concat(), vec![3]);
}

#[test]
fn a_reinitializable_iterator_switches_between_datasets() {
    let g = Graph::new();
    let train = range_of(&g, vec![1, 2, 3, 4]).batch(2).unwrap();
    let val = range_of(&g, vec![10, 20, 30]).batch(2).unwrap();
    let it = Iterator::from_structure(&g, train.output_types(), train.output_shapes()).unwrap();
    let (to_train, to_val) = (
        it.make_initializer(&train).unwrap(),
        it.make_initializer(&val).unwrap(),
    );
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&to_train).unwrap();
    assert_eq!(drain_i64(&sess, &next), vec![vec![1, 2], vec![3, 4]]);
    sess.run_target(&to_val).unwrap();
    assert_eq!(drain_i64(&sess, &next), vec![vec![10, 20], vec![30]]);

    let floats =
        Dataset::from_tensor_slices(&[constant(&g, Tensor::from(vec![1.0f32])).unwrap()]).unwrap();
    let ints = Iterator::from_structure(&g, &[DType::I64], &[Shape::scalar()]).unwrap();
    let e = ints.make_initializer(&floats).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected output types tf.int64 but got dataset with output types tf.float32."
    );
    let pairs = Iterator::from_structure(&g, &[DType::I64], &[Shape::known(&[2])]).unwrap();
    let triples = Dataset::from_tensor_slices(&[constant(
        &g,
        Tensor::from_vec(&[1, 3], vec![1i64, 2, 3]).unwrap(),
    )
    .unwrap()])
    .unwrap();
    let e = pairs.make_initializer(&triples).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected output shapes compatible with TensorShape([2]) but got dataset with output \
         shapes TensorShape([3])."
    );
}

#[test]
fn map_functions_capture_outside_tensors_and_read_variables() {
    let g = Graph::new();
    let scale = constant(&g, 3i64).unwrap();
    let v = Variable::builder(constant(&g, 100i64).unwrap())
        .build()
        .unwrap();
    let bump = v.assign_add(constant(&g, 1i64).unwrap()).unwrap();
    let ds = range_of(&g, vec![1, 2])
        .map(|x| {
            let scaled = mul(&x[0], &scale)?;
            // A read made here runs at each call; `v.value()`, made outside, would be
            // captured once, when the dataset is made.
            Ok(vec![add(&scaled, v.read_value()?)?])
        })
        .unwrap();
    let (sess, next) = one_shot(&ds);
    sess.run_target(&v.initializer()).unwrap();
    let first = sess.run(&RunArgs::new().fetch(&next[0])).unwrap()[0]
        .to_scalar::<i64>()
        .unwrap();
    assert_eq!(first, 103);
    sess.run_target(&bump.op()).unwrap();
    // The variable is read at each call, not when the dataset was made.
    let second = sess.run(&RunArgs::new().fetch(&next[0])).unwrap()[0]
        .to_scalar::<i64>()
        .unwrap();
    assert_eq!(second, 107);
}

#[test]
fn bad_datasets_fail_with_tensorflows_messages() {
    let g = Graph::new();
    let p = placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap();
    let e = Dataset::from_tensor_slices(std::slice::from_ref(&p))
        .unwrap()
        .make_one_shot_iterator()
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Cannot capture a placeholder (name:Placeholder, type:Placeholder) by value."
    );
    let a = constant(&g, Tensor::from(vec![1i32, 2])).unwrap();
    let b = constant(&g, Tensor::from(vec![1i32, 2, 3])).unwrap();
    let e = Dataset::from_tensor_slices(&[a.clone(), b]).unwrap_err();
    assert_eq!(e.message(), "Dimensions 2 and 3 are not compatible");
    let e = Dataset::from_tensor_slices(&[constant(&g, 1i32).unwrap()]).unwrap_err();
    assert_eq!(
        e.message(),
        "Unbatching a tensor is only supported for rank >= 1"
    );
    let e = Dataset::range(&g, 0, 5, 1)
        .unwrap()
        .filter(|_| constant(&g, Tensor::from(vec![true])))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return \
         type is TensorSpec(shape=(1,), dtype=tf.bool, name=None)."
    );

    let run_err = |ds: Dataset| {
        let (sess, next) = one_shot(&ds);
        sess.run(&RunArgs::new().fetch(&next[0])).unwrap_err()
    };
    let e = run_err(Dataset::range(&g, 0, 10, 0).unwrap());
    assert_eq!(
        (e.code(), e.message()),
        (Code::InvalidArgument, "step must be a non-zero integer.")
    );
    let e = run_err(Dataset::range(&g, 0, 3, 1).unwrap().batch(0).unwrap());
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Batch size must be greater than zero."
        )
    );
    // Elements of different sizes do not batch.
    let tiled = range_of(&g, vec![1, 2, 3])
        .map(|x| {
            let one =
                weir_ops::array::reshape(&x[0], constant(x[0].graph(), Tensor::from(vec![1i32]))?)?;
            Ok(vec![weir_ops::array::tile(
                &one,
                &weir_ops::math::cast(&one, DType::I32)?,
            )?])
        })
        .unwrap()
        .batch(2)
        .unwrap();
    let e = run_err(tiled);
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Cannot add tensor to the batch: number of elements does not match. Shapes are: \
             [tensor]: [2], [batch]: [1]"
        )
    );
}

#[test]
fn a_feedable_iterator_reads_the_iterator_whose_handle_is_fed() {
    let g = Graph::new();
    let h = placeholder(&g, DType::String, Shape::scalar()).unwrap();
    let feedable = Iterator::from_string_handle(&h, &[DType::I64], &[Shape::scalar()]).unwrap();
    let next = feedable.get_next().unwrap();
    let a = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .make_one_shot_iterator()
        .unwrap();
    let b = Dataset::range(&g, 10, 13, 1)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let pairs = Iterator::from_string_handle(
        &h,
        &[DType::I64, DType::I64],
        &[Shape::scalar(), Shape::scalar()],
    )
    .unwrap()
    .get_next()
    .unwrap();
    let floats = Iterator::from_string_handle(&h, &[DType::F32], &[Shape::scalar()])
        .unwrap()
        .get_next()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let handles = sess
        .run(
            &RunArgs::new()
                .fetch(a.string_handle().unwrap())
                .fetch(b.string_handle().unwrap()),
        )
        .unwrap();
    sess.run_target(&b.initializer().unwrap()).unwrap();
    let take = |handle: &Tensor| {
        sess.run(&RunArgs::new().feed(&h, handle.clone()).fetch(&next[0]))
            .unwrap()[0]
            .to_scalar::<i64>()
            .unwrap()
    };
    // Each iterator keeps its place (TensorFlow 2.21: 0 10 1).
    assert_eq!(
        [take(&handles[0]), take(&handles[1]), take(&handles[0])],
        [0, 10, 1]
    );
    let err = |out: &Output, handle: &Tensor| {
        sess.run(&RunArgs::new().feed(&h, handle.clone()).fetch(out))
            .unwrap_err()
    };
    let e = err(&pairs[0], &handles[0]);
    assert_eq!(
        e.message(),
        "Number of components does not match: expected 2 types but got 1."
    );
    let e = err(&floats[0], &handles[0]);
    assert_eq!(
        e.message(),
        "Data type mismatch at component 0: expected float but got int64."
    );
    let e = err(
        &next[0],
        &Tensor::from_strings(&["garbage"]).reshape(&[]).unwrap(),
    );
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Could not parse string_handle as a valid ResourceHandle"
        )
    );
}

#[test]
fn a_map_function_captures_a_placeholder_fed_to_the_initializer() {
    let g = Graph::new();
    let offset = placeholder(&g, DType::I64, Shape::scalar()).unwrap();
    let ds = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .map(|x| Ok(vec![add(&x[0], &offset)?]))
        .unwrap();
    // A one-shot iterator cannot capture it (TensorFlow's ValueError)...
    let e = ds.make_one_shot_iterator().unwrap_err();
    assert_eq!(
        e.message(),
        "Cannot capture a placeholder (name:Placeholder, type:Placeholder) by value."
    );
    // ...an initializable one takes the value fed to its initializer.
    let it = ds.make_initializable_iterator().unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    for off in [100i64, 7] {
        sess.run(
            &RunArgs::new()
                .feed(&offset, Tensor::scalar(off))
                .target(&it.initializer().unwrap()),
        )
        .unwrap();
        assert_eq!(
            drain_i64(&sess, &next).concat(),
            vec![off, off + 1, off + 2]
        );
    }
}

#[test]
fn shard_keeps_every_nth_element_from_its_index() {
    let g = Graph::new();
    let shard = |n: i64, i: i64, len: i64| {
        let ds = Dataset::range(&g, 0, len, 1).unwrap().shard(n, i).unwrap();
        let (sess, next) = one_shot(&ds);
        match sess.run(&RunArgs::new().fetch(&next[0])) {
            Err(e) if e.code() == Code::InvalidArgument => Err(e.message().to_string()),
            Err(e) => {
                assert_eq!(e.code(), Code::OutOfRange, "{e}");
                Ok(vec![])
            }
            Ok(first) => {
                let mut all = first[0].to_vec::<i64>().unwrap();
                all.extend(drain_i64(&sess, &next).concat());
                Ok(all)
            }
        }
    };
    // TensorFlow 2.21's values and messages.
    assert_eq!(shard(3, 1, 10), Ok(vec![1, 4, 7]));
    assert_eq!(shard(3, 0, 10), Ok(vec![0, 3, 6, 9]));
    assert_eq!(shard(1, 0, 4), Ok(vec![0, 1, 2, 3]));
    assert_eq!(shard(5, 4, 3), Ok(vec![]));
    assert_eq!(
        shard(0, 0, 4),
        Err("Number of shards must be greater than zero (currently num_shards = 0).".into())
    );
    assert_eq!(
        shard(2, -1, 4),
        Err("Index must be between 0 and 1 (currently index = -1).".into())
    );
    assert_eq!(
        shard(2, 2, 4),
        Err("Index must be between 0 and 1 (currently index = 2).".into())
    );
}

#[test]
fn cache_replays_the_first_full_pass() {
    // TensorFlow 2.21: map(x*10 + v).cache().repeat(2) gives the first epoch's values twice,
    // and a new initializer run makes a new, empty cache.
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0i64).unwrap())
        .build()
        .unwrap();
    let bump = v.assign_add(constant(&g, 1i64).unwrap()).unwrap();
    let ten = constant(&g, 10i64).unwrap();
    let cached = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .map(|x| Ok(vec![add(mul(&x[0], &ten)?, v.read_value()?)?]))
        .unwrap()
        .cache()
        .unwrap();
    let it = cached
        .repeat(Some(2))
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&v.initializer()).unwrap();
    sess.run_target(&it.initializer().unwrap()).unwrap();
    let take = || {
        sess.run(&RunArgs::new().fetch(&next[0])).unwrap()[0]
            .to_scalar::<i64>()
            .unwrap()
    };
    let first: Vec<i64> = (0..3).map(|_| take()).collect();
    assert_eq!(first, vec![0, 10, 20]);
    // The second epoch replays the cache: the variable's new value is not read.
    sess.run_target(&bump.op()).unwrap();
    assert_eq!(drain_i64(&sess, &next).concat(), vec![0, 10, 20]);
    sess.run_target(&it.initializer().unwrap()).unwrap();
    assert_eq!(drain_i64(&sess, &next).concat(), vec![1, 11, 21, 1, 11, 21]);

    // An iterator dropped half-way leaves no cache behind: the next pass reads the input.
    let it = cached
        .take(1)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next().unwrap();
    sess.run_target(&it.initializer().unwrap()).unwrap();
    assert_eq!(drain_i64(&sess, &next).concat(), vec![1]);
}

/// Elements that fail, under `take` and `skip`, as TensorFlow 2.21 gives them: `take(3)` does
/// not count a failed element (1, error, 3, error, 5); `skip(2)` loses what it skipped when an
/// element fails, so of 1 x 3 y 5 6 it returns the two errors and then ends.
#[test]
fn take_and_skip_of_failing_elements_are_tensorflows() {
    let runs = |f: fn(&Dataset) -> weir_graph::Result<Dataset>| -> Vec<Option<i64>> {
        let g = Graph::new();
        let strings = constant(&g, ["1", "x", "3", "y", "5", "6"]).unwrap();
        let ds = Dataset::from_tensor_slices(&[strings])
            .unwrap()
            .map(|s| Ok(vec![weir_ops::string::string_to_number(&s[0], DType::I64)?]))
            .unwrap();
        let next = f(&ds)
            .unwrap()
            .make_one_shot_iterator()
            .unwrap()
            .get_next()
            .unwrap();
        let sess = Session::new(&g).unwrap();
        let mut out = vec![];
        for _ in 0..20 {
            match sess.run(&RunArgs::new().fetch(&next[0])) {
                Ok(t) => out.push(Some(t[0].to_scalar::<i64>().unwrap())),
                Err(e) if e.code() == Code::OutOfRange => return out,
                Err(e) => {
                    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
                    out.push(None);
                }
            }
        }
        panic!("no end: {out:?}");
    };
    assert_eq!(runs(|d| d.take(3)), [Some(1), None, Some(3), None, Some(5)]);
    assert_eq!(runs(|d| d.skip(2)), [None, None]);
}
