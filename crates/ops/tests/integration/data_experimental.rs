//! `tf.data.experimental.shuffle_and_repeat` and `tf.data.experimental.map_and_batch`:
//! TensorFlow 2.21's values, orders, static shapes and errors
//! (tests/data/tfdata_experimental/expected.json, written by make_experimental.py there), and
//! the map_and_batch threads' cancellation, deadlines and re-initialization.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use weir_graph::{Code, DType, Graph, Output, Tensor};
use weir_ops::array::{constant, fill, reshape, stack, IndexArg};
use weir_ops::data::{Dataset, MapAndBatchOptions, AUTOTUNE};
use weir_ops::data_flow::{FifoQueue, Queue};
use weir_ops::math::{add, mul};
use weir_ops::string::string_to_number;
use weir_session::{RunArgs, Session};

/// How long any run or wait in these tests may take before the test fails.
const BOUND: Duration = Duration::from_secs(20);

fn cases(kind: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tfdata_experimental/expected.json");
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == kind)
        .cloned()
        .collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// An int64 tensor as TensorFlow's `tolist()` writes it.
fn nested(shape: &[usize], values: &[i64]) -> Value {
    match shape.split_first() {
        None => json!(values[0]),
        Some((&n, rest)) => {
            let step = rest.iter().product::<usize>();
            Value::Array(
                (0..n)
                    .map(|i| nested(rest, &values[i * step..(i + 1) * step]))
                    .collect(),
            )
        }
    }
}

fn to_json(t: &Tensor) -> Value {
    nested(t.shape(), &t.to_vec::<i64>().unwrap())
}

/// Reads `next` as make_experimental.py does: one event per run, until OutOfRange, `limit`
/// events or `max_errors` errors. Returns the events and whether the dataset ended.
fn read(sess: &Session, next: &[Output], limit: usize, max_errors: usize) -> (Vec<Value>, bool) {
    let mut args = RunArgs::new().timeout(BOUND);
    for o in next {
        args = args.fetch(o);
    }
    let (mut events, mut errors) = (Vec::new(), 0);
    while events.len() < limit && errors < max_errors {
        match sess.run(&args) {
            Ok(v) if v.len() == 1 => events.push(to_json(&v[0])),
            Ok(v) => events.push(Value::Array(v.iter().map(to_json).collect())),
            Err(e) if e.code() == Code::OutOfRange => return (events, true),
            Err(e) => {
                assert_ne!(e.code(), Code::DeadlineExceeded, "a run hung: {e}");
                events.push(json!({"error": format!("{:?}", e.code()), "message": e.message()}));
                errors += 1;
            }
        }
    }
    (events, false)
}

/// TensorFlow's events against weir's: values equal; errors of the same kind, TensorFlow's
/// message weir's or ending in it (TensorFlow names the failing function of an upstream map
/// and its iterator first).
fn assert_events(name: &str, got: &[Value], want: &Value) {
    let want = want.as_array().unwrap();
    assert_eq!(
        got.len(),
        want.len(),
        "{name}: {got:?} vs TensorFlow's {want:?}"
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if w.get("error").is_some() {
            assert_eq!(
                g.get("error"),
                w.get("error"),
                "{name} event {i}: {g} vs {w}"
            );
            let (gm, wm) = (
                g["message"].as_str().unwrap(),
                w["message"].as_str().unwrap(),
            );
            assert!(
                gm == wm || wm.ends_with(&format!(": {gm}")),
                "{name} event {i}: message {gm:?} vs TensorFlow's {wm:?}"
            );
        } else {
            assert_eq!(g, w, "{name} event {i}: {got:?} vs TensorFlow's {want:?}");
        }
    }
}

fn parse_source(g: &Graph, strs: &[String]) -> Dataset {
    let s = constant(g, Tensor::from_strings(strs)).unwrap();
    Dataset::from_tensor_slices(&[s])
        .unwrap()
        .map(|x| Ok(vec![string_to_number(&x[0], DType::I64)?]))
        .unwrap()
}

fn check_runs(name: &str, got: Vec<(Vec<Value>, bool)>, c: &Value) {
    let runs = c["runs"].as_array().unwrap();
    assert_eq!(got.len(), runs.len(), "{name}");
    for ((events, ended), run) in got.iter().zip(runs) {
        assert_events(name, events, &run["events"]);
        assert_eq!(*ended, run["ended"].as_bool().unwrap(), "{name}: ended");
    }
}

#[test]
fn shuffle_and_repeat_gives_tensorflows_orders_and_errors() {
    let cases = cases("shuffle_and_repeat");
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        if let Some(s) = c["graph_seed"].as_i64() {
            g.set_random_seed(s);
        }
        let source = match c["source"].as_str().unwrap() {
            "range" => Dataset::range(&g, 0, c["n"].as_i64().unwrap(), 1).unwrap(),
            _ => parse_source(&g, &strings(&c["strings"])),
        };
        let sar = source
            .shuffle_and_repeat(
                c["buffer"].as_i64().unwrap(),
                c["count"].as_i64(),
                c["op_seed"].as_i64(),
            )
            .unwrap();
        let op = sar.handle().op();
        assert_eq!(op.op_type(), c["op_type"].as_str().unwrap(), "{name}");
        let seeds: Vec<i64> = op.inputs()[2..4]
            .iter()
            .map(|o| {
                let node = o.op().node();
                node.const_value().unwrap().to_scalar::<i64>().unwrap()
            })
            .collect();
        assert_eq!(seeds, ints(&c["seeds"]), "{name}: seeds");
        let mut ds = sar;
        if let Some(t) = c["take"].as_i64() {
            ds = ds.take(t).unwrap();
        }
        let limit = c["limit"].as_u64().unwrap() as usize;
        let max_errors = c["max_errors"].as_u64().unwrap() as usize;
        let sess = Session::new(&g).unwrap();
        let got = if c["reinit"].as_bool().unwrap() {
            let it = ds.make_initializable_iterator().unwrap();
            let next = it.get_next().unwrap();
            (0..2)
                .map(|_| {
                    sess.run_target(&it.initializer().unwrap()).unwrap();
                    read(&sess, &next, limit, max_errors)
                })
                .collect()
        } else {
            let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
            vec![read(&sess, &next, limit, max_errors)]
        };
        check_runs(name, got, c);
    }
    assert!(cases.len() >= 30, "{} cases", cases.len());
}

/// The map functions of make_experimental.py's `FUNCS`.
fn map_func(name: &str, x: &[Output]) -> weir_graph::Result<Vec<Output>> {
    let g = x[0].graph().clone();
    let c = |v: i64| constant(&g, v);
    Ok(match name {
        "double" => vec![mul(&x[0], c(2)?)?],
        "pair" => vec![add(&x[0], c(1)?)?, mul(&x[0], &x[0])?],
        "vec" => vec![stack(&[x[0].clone(), mul(&x[0], c(10)?)?], 0)?],
        "fill" => vec![fill(IndexArg::Tensor(reshape(&x[0], vec![1i64])?), &x[0])?],
        "parse" => vec![string_to_number(&x[0], DType::I64)?],
        "fill2" => vec![fill(
            IndexArg::Tensor(stack(&[x[0].clone(), x[1].clone()], 0)?),
            &x[0],
        )?],
        other => panic!("no function {other}"),
    })
}

fn mab_source(g: &Graph, c: &Value) -> Dataset {
    match c["source"].as_str().unwrap() {
        "range" => Dataset::range(g, 0, c["n"].as_i64().unwrap(), 1).unwrap(),
        "strings" => {
            let s = constant(g, Tensor::from_strings(&strings(&c["strings"]))).unwrap();
            Dataset::from_tensor_slices(&[s]).unwrap()
        }
        "parse" => parse_source(g, &strings(&c["strings"])),
        "ints" => {
            let t = constant(g, Tensor::from(ints(&c["ints"]))).unwrap();
            Dataset::from_tensor_slices(&[t]).unwrap()
        }
        "int_pairs" => {
            let cols: Vec<Output> = c["ints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|col| constant(g, Tensor::from(ints(col))).unwrap())
                .collect();
            Dataset::from_tensor_slices(&cols).unwrap()
        }
        other => panic!("no source {other}"),
    }
}

fn shape_json(s: &weir_graph::Shape) -> Value {
    match s.dims() {
        None => Value::Null,
        Some(d) => Value::Array(
            d.iter()
                .map(|d| d.map_or(Value::Null, |n| json!(n)))
                .collect(),
        ),
    }
}

#[test]
fn map_and_batch_gives_tensorflows_values_shapes_and_errors() {
    let cases = cases("map_and_batch");
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let options = MapAndBatchOptions {
            num_parallel_batches: c["num_parallel_batches"].as_i64(),
            drop_remainder: c["drop_remainder"].as_bool().unwrap(),
            num_parallel_calls: c["num_parallel_calls"].as_i64(),
        };
        let func = c["func"].as_str().unwrap().to_string();
        let built = mab_source(&g, c).map_and_batch(
            |x| map_func(&func, x),
            c["batch_size"].as_i64().unwrap(),
            options,
        );
        if let Some(msg) = c.get("python_error") {
            let e = built.unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{name}");
            assert_eq!(e.message(), msg.as_str().unwrap(), "{name}");
            continue;
        }
        let ds = built.unwrap();
        assert_eq!(
            ds.handle().op().op_type(),
            c["op_type"].as_str().unwrap(),
            "{name}"
        );
        let shapes: Vec<Value> = ds.output_shapes().iter().map(shape_json).collect();
        assert_eq!(Value::Array(shapes), c["shapes"], "{name}: static shapes");
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let sess = Session::new(&g).unwrap();
        let got = read(
            &sess,
            &next,
            c["limit"].as_u64().unwrap() as usize,
            c["max_errors"].as_u64().unwrap() as usize,
        );
        check_runs(name, vec![got], c);
    }
    assert!(cases.len() >= 25, "{} cases", cases.len());
}

/// Every value of a pipeline's int64 batches, in order.
fn drain_flat(sess: &Session, next: &Output) -> Vec<i64> {
    let mut out = Vec::new();
    for _ in 0..100_000 {
        match sess.run(&RunArgs::new().fetch(next).timeout(BOUND)) {
            Ok(v) => out.extend(v[0].to_vec::<i64>().unwrap()),
            Err(e) => {
                assert_eq!(e.code(), Code::OutOfRange, "{e}");
                return out;
            }
        }
    }
    panic!("the iterator did not end");
}

#[test]
fn map_and_batch_equals_map_then_batch_for_every_parallelism() {
    let g = Graph::new();
    let sess = Session::new(&g).unwrap();
    let three = constant(&g, 3i64).unwrap();
    let src = Dataset::range(&g, 0, 1000, 1).unwrap();
    let want = {
        let ds = src
            .map(|x| Ok(vec![mul(&x[0], &three)?]))
            .unwrap()
            .batch(7)
            .unwrap();
        drain_flat(
            &sess,
            &ds.make_one_shot_iterator().unwrap().get_next().unwrap()[0],
        )
    };
    assert_eq!(want.len(), 1000);
    let options = [
        MapAndBatchOptions::default(),
        MapAndBatchOptions::default().num_parallel_calls(1),
        MapAndBatchOptions::default().num_parallel_calls(AUTOTUNE),
        MapAndBatchOptions::default().num_parallel_calls(100),
        MapAndBatchOptions::default().num_parallel_batches(3),
    ];
    for o in options {
        let ds = src
            .map_and_batch(|x| Ok(vec![mul(&x[0], &three)?]), 7, o)
            .unwrap();
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        assert_eq!(drain_flat(&sess, &next[0]), want, "{o:?}");
    }
}

#[test]
fn shuffle_and_repeat_reshuffles_each_epoch_reproducibly() {
    let run = |seed: Option<i64>| {
        let g = Graph::new();
        g.set_random_seed(4);
        let ds = Dataset::range(&g, 0, 20, 1)
            .unwrap()
            .shuffle_and_repeat(6, Some(3), seed)
            .unwrap();
        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let all = drain_flat(&Session::new(&g).unwrap(), &next[0]);
        all.chunks(20).map(<[i64]>::to_vec).collect::<Vec<_>>()
    };
    let epochs = run(Some(9));
    assert_eq!(epochs.len(), 3);
    for e in &epochs {
        let mut s = e.clone();
        s.sort_unstable();
        assert_eq!(s, (0..20).collect::<Vec<_>>(), "an epoch is a permutation");
    }
    assert_ne!(epochs[0], epochs[1]);
    assert_eq!(
        run(Some(9)),
        epochs,
        "a seeded shuffle_and_repeat is reproducible"
    );
    // The order of shuffle(..).repeat(..) with the same seeds: the fused buffer only reads
    // ahead further.
    for (n, buffer, count, seed) in [(20, 6, 3, 9), (7, 100, 4, 1), (30, 1, 2, 5), (9, 2, 5, 3)] {
        let order = |fused: bool| {
            let g = Graph::new();
            g.set_random_seed(4);
            let src = Dataset::range(&g, 0, n, 1).unwrap();
            let ds = if fused {
                src.shuffle_and_repeat(buffer, Some(count), Some(seed))
                    .unwrap()
            } else {
                src.shuffle_with(buffer)
                    .seed(seed)
                    .build()
                    .unwrap()
                    .repeat(Some(count))
                    .unwrap()
            };
            let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
            drain_flat(&Session::new(&g).unwrap(), &next[0])
        };
        assert_eq!(order(true), order(false), "range({n}), buffer {buffer}");
    }
    // Without any seed: still a permutation per epoch.
    let g = Graph::new();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .shuffle_and_repeat(3, Some(2), None)
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let all = drain_flat(&Session::new(&g).unwrap(), &next[0]);
    for e in all.chunks(10) {
        let mut s = e.to_vec();
        s.sort_unstable();
        assert_eq!(s, (0..10).collect::<Vec<_>>());
    }
}

/// A map_and_batch whose function waits for a value from a queue nothing is enqueued to.
fn blocked_map_and_batch(g: &Graph) -> (Vec<Output>, Queue) {
    let q = FifoQueue::new(10, &[DType::I64]).build(g).unwrap();
    let ds = Dataset::range(g, 0, 10, 1)
        .unwrap()
        .map_and_batch(
            |x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]),
            3,
            MapAndBatchOptions::default(),
        )
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    (next, q)
}

#[test]
fn a_waiting_map_and_batch_honours_the_run_timeout_and_resumes_its_batch() {
    let g = Graph::new();
    let (next, q) = blocked_map_and_batch(&g);
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_millis(50)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    // Values arrive: the batch the timed-out run waited for is the next one returned.
    let hundred = constant(&g, 100i64).unwrap();
    let enqueue = q.enqueue(&[hundred]).unwrap();
    for _ in 0..10 {
        sess.run_target(&enqueue).unwrap();
    }
    let v = sess
        .run(&RunArgs::new().fetch(&next[0]).timeout(BOUND))
        .unwrap();
    assert_eq!(v[0].to_vec::<i64>().unwrap(), vec![100, 101, 102]);
}

#[test]
fn closing_the_session_cancels_a_get_next_waiting_on_map_and_batch() {
    let g = Graph::new();
    let (next, _q) = blocked_map_and_batch(&g);
    let sess = Session::new(&g).unwrap();
    let handle = sess.handle();
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        tx.send(handle.run(&RunArgs::new().fetch(&next[0]).timeout(BOUND)))
            .unwrap();
    });
    assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    sess.close();
    let result = rx
        .recv_timeout(BOUND)
        .expect("get_next did not return after the session closed");
    let e = result.unwrap_err();
    assert_eq!(e.code(), Code::Cancelled, "{e}");
    waiter.join().unwrap();
}

#[test]
fn reinitializing_a_busy_map_and_batch_restarts_it() {
    let g = Graph::new();
    let one = constant(&g, 1i64).unwrap();
    let ds = Dataset::range(&g, 0, 1_000_000, 1)
        .unwrap()
        .map_and_batch(
            |x| Ok(vec![add(&x[0], &one)?]),
            4,
            MapAndBatchOptions::default().num_parallel_calls(8),
        )
        .unwrap();
    let it = ds.make_initializable_iterator().unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let (tx, rx) = mpsc::channel();
    let handle = sess.handle();
    let init = it.initializer().unwrap();
    let worker = std::thread::spawn(move || {
        let fetch = RunArgs::new().fetch(&next[0]).timeout(BOUND);
        for round in 0..30 {
            handle.run_target(&init).unwrap();
            for b in 0..2i64 {
                let v = handle.run(&fetch).unwrap()[0].to_vec::<i64>().unwrap();
                assert_eq!(
                    v,
                    (4 * b + 1..4 * b + 5).collect::<Vec<_>>(),
                    "round {round}"
                );
            }
        }
        tx.send(()).unwrap();
    });
    rx.recv_timeout(BOUND)
        .expect("re-initializing a map_and_batch iterator hung");
    worker.join().unwrap();
}
