//! `Dataset::cardinality` (`tf.data.experimental.cardinality`) against TensorFlow 2.21 for the
//! datasets of tests/data/tfdata_cardinality/make_cardinality.py (each built here under the
//! same name), `assert_cardinality`'s codes and messages, and the memory cache that a read of
//! as many elements as its input's cardinality completes (all checked on `tf.compat.v1`).

use weir_graph::{Code, DType, Graph, Output, Result, Shape};
use weir_ops::array::constant;
use weir_ops::data::{Dataset, MapAndBatchOptions, TextLineDataset, TfRecordDataset};
use weir_ops::math::{add, greater, less};
use weir_ops::state::Variable;
use weir_session::{RunArgs, Session};

use crate::io_util::run;

fn r(g: &Graph, start: i64, stop: i64) -> Result<Dataset> {
    Dataset::range(g, start, stop, 1)
}

fn above_2(x: &[Output]) -> Result<Output> {
    greater(&x[0], constant(x[0].graph(), 2i64)?)
}

fn plus_1(x: &[Output]) -> Result<Vec<Output>> {
    Ok(vec![add(&x[0], constant(x[0].graph(), 1i64)?)?])
}

/// make_cardinality.py's dataset `name`, or `None` for one not built here.
fn build(g: &Graph, name: &str) -> Result<Option<Dataset>> {
    let c = |v: i64| constant(g, v);
    Ok(Some(match name {
        "range_10" => r(g, 0, 10)?,
        "range_0" => r(g, 0, 0)?,
        "range_neg" => r(g, 5, 0)?,
        "range_step3" => Dataset::range(g, 1, 11, 3)?,
        "range_down" => Dataset::range(g, 10, 0, -3)?,
        "tensors" => Dataset::from_tensors(&[constant(g, vec![1i32, 2, 3])?])?,
        "slices" => Dataset::from_tensor_slices(&[constant(g, vec![1i32, 2, 3])?])?,
        "batch_3" => r(g, 0, 10)?.batch(3)?,
        "batch_3_drop" => r(g, 0, 10)?.batch_with(3, true)?,
        "batch_inf" => r(g, 0, 10)?.repeat(None)?.batch(3)?,
        "batch_unknown" => r(g, 0, 10)?.filter(above_2)?.batch(3)?,
        "padded_batch_4" => r(g, 0, 10)?.padded_batch(4, Some(&[Shape::scalar()]), None, false)?,
        "padded_batch_4_drop" => {
            r(g, 0, 10)?.padded_batch(4, Some(&[Shape::scalar()]), None, true)?
        }
        "map" => r(g, 0, 7)?.map(plus_1)?,
        "map_parallel" => r(g, 0, 7)?.map_parallel(plus_1, 2)?,
        "filter" => r(g, 0, 7)?.filter(above_2)?,
        "flat_map" => r(g, 0, 3)?.flat_map(|x| Dataset::from_tensors(&[x[0].clone()]))?,
        "take_3" => r(g, 0, 10)?.take(3)?,
        "take_20" => r(g, 0, 10)?.take(20)?,
        "take_neg" => r(g, 0, 10)?.take(-1)?,
        "take_of_inf" => r(g, 0, 10)?.repeat(None)?.take(4)?,
        "take_of_unknown" => r(g, 0, 10)?.filter(above_2)?.take(4)?,
        "take_0_of_unknown" => r(g, 0, 10)?.filter(above_2)?.take(0)?,
        "skip_3" => r(g, 0, 10)?.skip(3)?,
        "skip_20" => r(g, 0, 10)?.skip(20)?,
        "skip_neg" => r(g, 0, 10)?.skip(-1)?,
        "skip_of_inf" => r(g, 0, 10)?.repeat(None)?.skip(4)?,
        "skip_of_unknown" => r(g, 0, 10)?.filter(above_2)?.skip(4)?,
        "repeat_3" => r(g, 0, 4)?.repeat(Some(3))?,
        "repeat_inf" => r(g, 0, 4)?.repeat(None)?,
        "repeat_0" => r(g, 0, 4)?.repeat(Some(0))?,
        "repeat_empty_inf" => r(g, 0, 0)?.repeat(None)?,
        "repeat_unknown" => r(g, 0, 4)?.filter(above_2)?.repeat(Some(2))?,
        "repeat_unknown_inf" => r(g, 0, 4)?.filter(above_2)?.repeat(None)?,
        "shuffle" => r(g, 0, 9)?.shuffle(4)?,
        "shuffle_repeat" => r(g, 0, 9)?.shuffle(4)?.repeat(Some(2))?,
        "shuffle_and_repeat" => r(g, 0, 9)?.shuffle_and_repeat(4, Some(2), None)?,
        "shuffle_and_repeat_inf" => r(g, 0, 9)?.shuffle_and_repeat(4, None, None)?,
        "prefetch" => r(g, 0, 9)?.prefetch(2)?,
        "cache" => r(g, 0, 9)?.cache()?,
        "concatenate" => r(g, 0, 4)?.concatenate(&r(g, 0, 5)?)?,
        "concatenate_inf" => r(g, 0, 4)?.concatenate(&r(g, 0, 5)?.repeat(None)?)?,
        "concatenate_unknown" => r(g, 0, 4)?.concatenate(&r(g, 0, 5)?.filter(above_2)?)?,
        "concatenate_inf_unknown" => r(g, 0, 4)?
            .repeat(None)?
            .concatenate(&r(g, 0, 5)?.filter(above_2)?)?,
        "zip" => Dataset::zip(&[r(g, 0, 4)?, r(g, 0, 6)?])?,
        "zip_inf" => Dataset::zip(&[r(g, 0, 4)?, r(g, 0, 6)?.repeat(None)?])?,
        "zip_all_inf" => Dataset::zip(&[r(g, 0, 4)?.repeat(None)?, r(g, 0, 6)?.repeat(None)?])?,
        "zip_unknown" => Dataset::zip(&[r(g, 0, 4)?, r(g, 0, 6)?.filter(above_2)?])?,
        "shard_3_0" => r(g, 0, 10)?.shard(3, 0)?,
        "shard_3_1" => r(g, 0, 10)?.shard(3, 1)?,
        "shard_3_2" => r(g, 0, 10)?.shard(3, 2)?,
        "shard_inf" => r(g, 0, 10)?.repeat(None)?.shard(3, 2)?,
        "enumerate" => r(g, 0, 5)?.enumerate(0)?,
        "unbatch" => r(g, 0, 10)?.batch(3)?.unbatch()?,
        "map_and_batch" => r(g, 0, 10)?.map_and_batch(plus_1, 3, MapAndBatchOptions::default())?,
        "map_and_batch_drop" => r(g, 0, 10)?.map_and_batch(
            plus_1,
            3,
            MapAndBatchOptions::default().drop_remainder(true),
        )?,
        "scan" => r(g, 0, 6)?.scan(&[c(0)?], |s, x| {
            Ok((vec![add(&s[0], &x[0])?], vec![s[0].clone()]))
        })?,
        "take_while" => r(g, 0, 6)?.take_while(|x| less(&x[0], constant(x[0].graph(), 3i64)?))?,
        "unique" => r(g, 0, 6)?.unique()?,
        "ignore_errors" => r(g, 0, 6)?.ignore_errors()?,
        "text_lines" => TextLineDataset::new(&constant(g, vec!["/dev/null"])?).build()?,
        "tfrecords" => TfRecordDataset::new(&constant(g, vec!["/dev/null"])?).build()?,
        "from_generator" => Dataset::from_generator(
            g,
            || vec![Ok(vec![weir_graph::Tensor::scalar(1i64)])],
            &[DType::I64],
            None,
        )?,
        "list_files" => Dataset::list_files(&constant(g, "/dev/null")?, Some(false), None)?,
        "cache_repeat" => r(g, 0, 3)?.cache()?.repeat(Some(2))?,
        "batch_take_of_inf" => r(g, 0, 3)?.repeat(None)?.take(10)?.batch(4)?,
        _ => return Ok(None),
    }))
}

#[test]
fn cardinalities_match_tensorflow() {
    let cases = crate::io_util::expected_cases("tfdata_cardinality");
    let mut checked = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        if name == "window" {
            continue;
        }
        let want = case["cardinality"].as_i64().unwrap();
        let g = Graph::new();
        let Some(ds) = build(&g, name).unwrap() else {
            continue;
        };
        let n = ds.cardinality().unwrap();
        assert_eq!(n.shape(), Shape::scalar());
        let sess = Session::new(&g).unwrap();
        let got = run(&sess, &[&n]).unwrap()[0].to_scalar::<i64>().unwrap();
        assert_eq!(got, want, "{name}");
        checked += 1;
    }
    // Not built here: interleave, window, group_by_window and choose_from_datasets (unknown in
    // both), and the unbatches of statically sized batches, which TensorFlow counts and weir
    // does not (see data/cardinality.rs).
    let windows = cases.iter().filter(|c| c["name"] == "window").count();
    assert!(
        checked >= cases.len() - windows - 8,
        "{checked} of {}",
        cases.len()
    );
}

#[test]
fn window_cardinalities_match_tensorflow() {
    let cases = crate::io_util::expected_cases("tfdata_cardinality");
    let g = Graph::new();
    let mut counts = vec![];
    let mut wants = vec![];
    for case in cases.iter().filter(|c| c["name"] == "window") {
        let int = |k: &str| case[k].as_i64().unwrap();
        let windows = r(&g, 0, int("n"))
            .unwrap()
            .window(
                int("size"),
                Some(int("shift")),
                int("stride"),
                case["drop_remainder"].as_bool().unwrap(),
            )
            .unwrap();
        counts.push(windows.dataset().cardinality().unwrap());
        wants.push((case.to_string(), int("cardinality")));
    }
    assert_eq!(counts.len(), 180);
    let sess = Session::new(&g).unwrap();
    let fetches: Vec<&Output> = counts.iter().collect();
    let got = run(&sess, &fetches).unwrap();
    for ((case, want), t) in wants.iter().zip(&got) {
        assert_eq!(t.to_scalar::<i64>().unwrap(), *want, "{case}");
    }
}

/// Every element's first component until End of sequence, or the error that ended it.
fn drain(sess: &Session, next: &Output) -> (Vec<i64>, Option<weir_graph::Error>) {
    let mut out = vec![];
    loop {
        match run(sess, &[next]) {
            Ok(v) => out.push(v[0].to_scalar::<i64>().unwrap()),
            Err(e) if e.code() == Code::OutOfRange => return (out, None),
            Err(e) => return (out, Some(e)),
        }
        assert!(out.len() < 100, "no end");
    }
}

#[test]
fn assert_cardinality_checks_the_reading() {
    for (n, stop, read, message) in [
        (
            3,
            5,
            3,
            "expected to contain 3 elements but contained at least 4 elements.",
        ),
        (
            5,
            3,
            3,
            "expected to contain 5 elements but contained only 3 elements.",
        ),
        (
            1,
            0,
            0,
            "expected to contain 1 element but contained only 0 elements.",
        ),
        (
            -1,
            4,
            4,
            "expected to contain an infinite number of elements but contained only 4 elements.",
        ),
        (
            0,
            1,
            0,
            "expected to contain 0 elements but contained at least 1 element.",
        ),
        (
            1,
            3,
            1,
            "expected to contain 1 element but contained at least 2 elements.",
        ),
        (4, 4, 4, ""),
    ] {
        let g = Graph::new();
        let ds = r(&g, 0, stop).unwrap().assert_cardinality(n).unwrap();
        let card = ds.cardinality().unwrap();
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let sess = Session::new(&g).unwrap();
        assert_eq!(
            run(&sess, &[&card]).unwrap()[0].to_scalar::<i64>().unwrap(),
            n
        );
        let (got, err) = drain(&sess, &next[0]);
        assert_eq!(got, (0..read).collect::<Vec<i64>>(), "{n} of {stop}");
        match err {
            None => assert!(message.is_empty(), "{n} of {stop}: no error"),
            Some(e) => {
                assert_eq!(e.code(), Code::FailedPrecondition);
                assert_eq!(e.message(), format!("Input dataset was {message}"));
            }
        }
    }
}

#[test]
fn a_memory_cache_is_complete_once_it_holds_its_inputs_cardinality() {
    // TensorFlow: range(3).map(x + counter += 100).cache().take(k).repeat(2) gives
    // [100, 201, 302, 100, 201, 302] for k = 3 (the cache completes at 3 elements) and
    // [100, 201, 300, 401] for k = 2 (the second epoch reads the input again).
    for (k, want) in [
        (3, vec![100, 201, 302, 100, 201, 302]),
        (2, vec![100, 201, 300, 401]),
    ] {
        let g = Graph::new();
        let counter = Variable::builder(constant(&g, 0i64).unwrap())
            .build()
            .unwrap();
        let ds = r(&g, 0, 3)
            .unwrap()
            .map(|x| {
                let bumped = counter.assign_add(constant(x[0].graph(), 100i64)?)?;
                Ok(vec![add(&x[0], bumped)?])
            })
            .unwrap()
            .cache()
            .unwrap()
            .take(k)
            .unwrap()
            .repeat(Some(2))
            .unwrap();
        let it = ds.make_initializable_iterator().unwrap();
        let next = it.get_next().unwrap();
        let sess = Session::new(&g).unwrap();
        sess.run(&RunArgs::new().target(&counter.initializer()))
            .unwrap();
        sess.run(&RunArgs::new().target(&it.initializer().unwrap()))
            .unwrap();
        let (got, err) = drain(&sess, &next[0]);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, want, "take({k})");
    }
}

#[test]
fn a_counter_counts_for_ever() {
    // TensorFlow 2.21: Counter(5, -2).take(4) is 5, 3, 1, -1; Counter() has cardinality -1;
    // a float32 Counter(0.5, 0.25) gives 0.5, 0.75, 1.0.
    let g = Graph::new();
    let down =
        Dataset::counter(&constant(&g, 5i64).unwrap(), &constant(&g, -2i64).unwrap()).unwrap();
    let n = down.cardinality().unwrap();
    let next = down
        .take(4)
        .unwrap()
        .make_one_shot_iterator()
        .unwrap()
        .get_next()
        .unwrap();
    let floats = Dataset::counter(
        &constant(&g, 0.5f32).unwrap(),
        &constant(&g, 0.25f32).unwrap(),
    )
    .unwrap();
    assert_eq!(floats.output_types(), [DType::F32]);
    assert_eq!(floats.output_shapes(), [Shape::scalar()]);
    let fnext = floats.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(
        run(&sess, &[&n]).unwrap()[0].to_scalar::<i64>().unwrap(),
        -1
    );
    assert_eq!(drain(&sess, &next[0]), (vec![5, 3, 1, -1], None));
    let got: Vec<f32> = (0..3)
        .map(|_| {
            run(&sess, &[&fnext[0]]).unwrap()[0]
                .to_scalar::<f32>()
                .unwrap()
        })
        .collect();
    assert_eq!(got, [0.5, 0.75, 1.0]);
    let e = Dataset::counter(&constant(&g, 0i64).unwrap(), &constant(&g, 1i32).unwrap());
    assert_eq!(e.unwrap_err().code(), Code::InvalidArgument);
}
