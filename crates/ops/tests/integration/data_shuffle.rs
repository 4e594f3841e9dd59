//! `Dataset.shuffle` and `Dataset.prefetch`: TensorFlow 2.21's shuffle orders
//! (tests/data/tfdata_shuffle/expected.json, written by make_shuffle.py there), and the
//! prefetch thread's order, errors, re-initialization and session close.

use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_ops::data::Dataset;
use weir_ops::data_flow::FifoQueue;
use weir_ops::math::add;
use weir_session::{RunArgs, Session};

/// How long a threaded test may wait for anything before it fails.
const BOUND: Duration = Duration::from_secs(20);

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("tfdata_shuffle")
}

fn opt_i64(v: &Value) -> Option<i64> {
    v.as_i64()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Runs `next` until OutOfRange, returning the scalars; fails after 10,000 runs.
fn drain(sess: &Session, next: &Output) -> Vec<i64> {
    let mut out = Vec::new();
    for _ in 0..10_000 {
        match sess.run(&RunArgs::new().fetch(next)) {
            Ok(v) => out.push(v[0].to_scalar::<i64>().unwrap()),
            Err(e) => {
                assert_eq!(e.code(), Code::OutOfRange, "{e}");
                return out;
            }
        }
    }
    panic!("the iterator did not end");
}

/// A case's dataset, and its shuffle's dataset (for the seeds weir gave it).
fn build_case(g: &Graph, c: &Value) -> (Dataset, Dataset) {
    if let Some(s) = opt_i64(&c["graph_seed"]) {
        g.set_random_seed(s);
    }
    let mut ds = Dataset::range(g, 0, c["n"].as_i64().unwrap(), 1).unwrap();
    if let Some(r) = opt_i64(&c["pre_repeat"]) {
        ds = ds.repeat(Some(r)).unwrap();
    }
    let shuffled = ds
        .shuffle_with(c["buffer"].as_i64().unwrap())
        .maybe_seed(opt_i64(&c["op_seed"]))
        .reshuffle_each_iteration(c["reshuffle"].as_bool().unwrap())
        .build()
        .unwrap();
    let mut ds = shuffled.clone();
    let repeat = c["repeat"].as_i64().unwrap();
    if repeat != 0 {
        ds = ds.repeat((repeat > 0).then_some(repeat)).unwrap();
    }
    if let Some(t) = opt_i64(&c["take"]) {
        ds = ds.take(t).unwrap();
    }
    (ds, shuffled)
}

/// The values of the shuffle op's `seed` and `seed2` inputs.
fn seeds_of(shuffled: &Dataset) -> Vec<i64> {
    let inputs = shuffled.handle().op().inputs();
    inputs[2..4]
        .iter()
        .map(|o| {
            o.op()
                .node()
                .const_value()
                .unwrap()
                .to_scalar::<i64>()
                .unwrap()
        })
        .collect()
}

fn sorted(mut v: Vec<i64>) -> Vec<i64> {
    v.sort_unstable();
    v
}

#[test]
fn seeded_orders_are_tensorflows() {
    let mut exact = 0;
    for c in cases() {
        let g = Graph::new();
        let (ds, shuffled) = build_case(&g, &c);
        let want_orders: Vec<Vec<i64>> = c["orders"].as_array().unwrap().iter().map(ints).collect();
        let got_orders: Vec<Vec<i64>> = if c["reinit"].as_bool() == Some(true) {
            let it = ds.make_initializable_iterator().unwrap();
            let next = it.get_next().unwrap();
            let sess = Session::new(&g).unwrap();
            (0..2)
                .map(|_| {
                    sess.run_target(&it.initializer().unwrap()).unwrap();
                    drain(&sess, &next[0])
                })
                .collect()
        } else {
            let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
            vec![drain(&Session::new(&g).unwrap(), &next[0])]
        };
        assert_eq!(seeds_of(&shuffled), ints(&c["seeds"]), "seeds of case {c}");
        assert_eq!(got_orders, want_orders, "case {c}");
        exact += 1;
    }
    // Every case, the graph-seed-only one included (Graph::get_seed numbers seedless ops as
    // TensorFlow 2.21 does).
    assert_eq!(exact, 34, "cases with TensorFlow's seeds");
}

#[test]
fn reshuffling_gives_each_epoch_its_own_reproducible_order() {
    let run = |reshuffle: bool| {
        let g = Graph::new();
        let ds = Dataset::range(&g, 0, 20, 1)
            .unwrap()
            .shuffle_with(20)
            .seed(7)
            .reshuffle_each_iteration(reshuffle)
            .build()
            .unwrap()
            .repeat(Some(3))
            .unwrap();
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let all = drain(&Session::new(&g).unwrap(), &next[0]);
        all.chunks(20).map(<[i64]>::to_vec).collect::<Vec<_>>()
    };
    let epochs = run(true);
    assert_eq!(epochs.len(), 3);
    for e in &epochs {
        assert_eq!(sorted(e.clone()), (0..20).collect::<Vec<_>>());
    }
    assert_ne!(epochs[0], epochs[1]);
    assert_ne!(epochs[1], epochs[2]);
    assert_eq!(run(true), epochs, "a seeded shuffle is reproducible");
    let fixed = run(false);
    assert_eq!(fixed[0], fixed[1]);
    assert_eq!(fixed[1], fixed[2]);
}

#[test]
fn unseeded_shuffles_permute_and_buffer_one_keeps_the_order() {
    let g = Graph::new();
    let words = constant(&g, Tensor::from_strings(&["a", "b", "c", "d", "e"])).unwrap();
    let ds = Dataset::from_tensor_slices(&[words])
        .unwrap()
        .shuffle(3)
        .unwrap()
        .batch(2)
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let mut got = Vec::new();
    while let Ok(v) = sess.run(&RunArgs::new().fetch(&next[0])) {
        got.extend(v[0].to_strings().unwrap());
    }
    got.sort();
    assert_eq!(got, ["a", "b", "c", "d", "e"]);

    let ds = Dataset::range(&g, 0, 30, 1).unwrap().shuffle(1).unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    assert_eq!(drain(&sess, &next[0]), (0..30).collect::<Vec<_>>());
}

#[test]
fn bad_buffer_sizes_fail_when_the_dataset_is_made() {
    let g = Graph::new();
    let cases = [
        (
            Dataset::range(&g, 0, 5, 1).unwrap().shuffle(0).unwrap(),
            "buffer_size must be greater than zero or UNKNOWN_CARDINALITY",
        ),
        (
            Dataset::range(&g, 0, 5, 1).unwrap().shuffle(-1).unwrap(),
            "buffer_size must be greater than zero or UNKNOWN_CARDINALITY",
        ),
        (
            Dataset::range(&g, 0, 5, 1).unwrap().prefetch(-2).unwrap(),
            "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning",
        ),
    ];
    let sess = Session::new(&g).unwrap();
    for (ds, msg) in cases {
        let it = ds.make_initializable_iterator().unwrap();
        let e = sess.run_target(&it.initializer().unwrap()).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{e}");
        assert!(e.message().contains(msg), "{e}");
    }
}

#[test]
fn prefetch_keeps_the_order_for_every_buffer_size() {
    let g = Graph::new();
    let sess = Session::new(&g).unwrap();
    for size in [0, 1, 3, -1, 1000] {
        let ds = Dataset::range(&g, 0, 100, 1)
            .unwrap()
            .batch(3)
            .unwrap()
            .prefetch(size)
            .unwrap();
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let mut got = Vec::new();
        while let Ok(v) = sess.run(&RunArgs::new().fetch(&next[0])) {
            got.extend(v[0].to_vec::<i64>().unwrap());
        }
        assert_eq!(got, (0..100).collect::<Vec<_>>(), "prefetch({size})");
    }
    // A seeded shuffle reads the same through a prefetch.
    let shuffled = |prefetch: bool| {
        let g = Graph::new();
        let mut ds = Dataset::range(&g, 0, 40, 1)
            .unwrap()
            .shuffle_with(8)
            .seed(3)
            .build()
            .unwrap();
        if prefetch {
            ds = ds.prefetch(4).unwrap();
        }
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        drain(&Session::new(&g).unwrap(), &next[0])
    };
    assert_eq!(shuffled(true), shuffled(false));
}

#[test]
fn prefetch_delivers_errors_at_their_element() {
    let g = Graph::new();
    let s = constant(&g, Tensor::from_strings(&["1", "2", "x", "4"])).unwrap();
    let ds = Dataset::from_tensor_slices(&[s])
        .unwrap()
        .map(|x| Ok(vec![weir_ops::string::string_to_number(&x[0], DType::I64)?]))
        .unwrap()
        .prefetch(2)
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let mut got = Vec::new();
    for _ in 0..6 {
        match sess.run(&RunArgs::new().fetch(&next[0])) {
            Ok(v) => got.push(format!("{}", v[0].to_scalar::<i64>().unwrap())),
            Err(e) => got.push(format!("{:?}", e.code())),
        }
    }
    assert_eq!(
        got,
        ["1", "2", "InvalidArgument", "4", "OutOfRange", "OutOfRange"]
    );
}

#[test]
fn reinitializing_while_the_producer_waits_restarts_the_iterator() {
    let g = Graph::new();
    let ds = Dataset::range(&g, 0, 1_000_000, 1)
        .unwrap()
        .prefetch(2)
        .unwrap();
    let it = ds.make_initializable_iterator().unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let (tx, rx) = mpsc::channel();
    let handle = sess.handle();
    let init = it.initializer().unwrap();
    let worker = std::thread::spawn(move || {
        let fetch = RunArgs::new().fetch(&next[0]);
        for round in 0..50 {
            handle.run_target(&init).unwrap();
            for want in 0..3 {
                let v = handle.run(&fetch).unwrap()[0].to_scalar::<i64>().unwrap();
                assert_eq!(v, want, "round {round}");
            }
            // Let the producer fill its buffer and wait for room.
            if round % 10 == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        tx.send(()).unwrap();
    });
    rx.recv_timeout(BOUND)
        .expect("re-initializing a prefetching iterator hung");
    worker.join().unwrap();
}

#[test]
fn closing_the_session_cancels_a_get_next_waiting_on_the_prefetch() {
    let g = Graph::new();
    // The map's dequeue waits forever: nothing is ever enqueued.
    let q = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .map(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]))
        .unwrap()
        .prefetch(2)
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let handle = sess.handle();
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        tx.send(handle.run(&RunArgs::new().fetch(&next[0])))
            .unwrap();
    });
    // The run is waiting (it cannot finish): close while it waits.
    assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    sess.close();
    let result = rx
        .recv_timeout(BOUND)
        .expect("get_next did not return after the session closed");
    let e = result.unwrap_err();
    assert_eq!(e.code(), Code::Cancelled, "{e}");
    waiter.join().unwrap();
    drop(sess);
}

#[test]
fn a_get_next_waiting_on_the_prefetch_honours_the_run_timeout() {
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .map(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]))
        .unwrap()
        .prefetch(1)
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_millis(50)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    // The element arrives once something is enqueued: the wait did not break the iterator.
    let one = constant(&g, 100i64).unwrap();
    sess.run_target(&q.enqueue(&[one]).unwrap()).unwrap();
    let v = sess.run(&RunArgs::new().fetch(&next[0])).unwrap();
    assert_eq!(v[0].to_scalar::<i64>().unwrap(), 100);
}
