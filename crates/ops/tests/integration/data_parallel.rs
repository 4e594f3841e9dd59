//! tf.data's parallel map, interleave and flat_map against TensorFlow 2.21
//! (`tests/data/tfdata_interleave/expected.json`, written by `make_tfdata_interleave.py`), and
//! the parallel map's threads: input order, errors in place, stopping on re-initialization and
//! on the session's close. Every wait is bounded.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{check_numerics, constant};
use weir_ops::data::{Dataset, InterleaveOptions, MapOptions, AUTOTUNE};
use weir_ops::data_flow::FifoQueue;
use weir_ops::math::{add, cast, div, greater_equal, mul, range_from, sub, Reduce};
use weir_session::{RunArgs, Session};

fn expected() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tfdata_interleave/expected.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Every run of `next[0]` until OutOfRange: `Ok(value)` or the run's error; fails after 1,000.
fn drain(sess: &Session, next: &[Output]) -> Vec<Result<Tensor, weir_graph::Error>> {
    let mut out = Vec::new();
    for _ in 0..1000 {
        match sess.run(&RunArgs::new().fetch(&next[0])) {
            Ok(mut v) => out.push(Ok(v.remove(0))),
            Err(e) if e.code() == Code::OutOfRange => {
                assert_eq!(e.message(), "End of sequence");
                return out;
            }
            Err(e) => out.push(Err(e)),
        }
    }
    panic!("the iterator did not end");
}

fn drain_i64(sess: &Session, next: &[Output]) -> Vec<i64> {
    drain(sess, next)
        .into_iter()
        .map(|r| r.unwrap().to_scalar::<i64>().unwrap())
        .collect()
}

fn one_shot(ds: &Dataset) -> (Session, Vec<Output>) {
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    (Session::new(ds.graph()).unwrap(), next)
}

/// The fixture's padded rows as a dataset of rows.
fn rows(g: &Graph, fixture: &Value) -> Dataset {
    let rows: Vec<Vec<i64>> = fixture["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(i64s)
        .collect();
    let width = rows[0].len();
    let flat: Vec<i64> = rows.concat();
    let t = Tensor::from_vec(&[rows.len(), width], flat).unwrap();
    Dataset::from_tensor_slices(&[constant(g, t).unwrap()]).unwrap()
}

/// A row's values without the -1 padding: the inner dataset of uneven length.
fn inner(row: &[Output]) -> weir_graph::Result<Dataset> {
    Dataset::from_tensor_slices(&[row[0].clone()])?
        .filter(|v| greater_equal(&v[0], constant(v[0].graph(), 0i64)?))
}

#[test]
fn interleave_orders_match_tensorflow() {
    let fixture = expected();
    let mut ran = 0;
    for case in fixture["interleave"].as_array().unwrap() {
        let (cycle, block) = (
            case["cycle"].as_i64().unwrap(),
            case["block"].as_i64().unwrap(),
        );
        let g = Graph::new();
        let ds = rows(&g, &fixture).interleave(inner, cycle, block).unwrap();
        assert_eq!(ds.output_types(), &[DType::I64]);
        assert_eq!(ds.output_shapes(), &[Shape::scalar()]);
        let (sess, next) = one_shot(&ds);
        assert_eq!(
            drain_i64(&sess, &next),
            i64s(&case["values"]),
            "cycle {cycle}, block {block}"
        );
        ran += 1;
    }
    assert_eq!(ran, 15);

    // Two "files" with cycle 2, block 1 alternate until one runs out.
    let g = Graph::new();
    let files = constant(
        &g,
        Tensor::from_vec(&[2, 5], vec![1i64, 2, 3, 4, 5, 6, 7, -1, -1, -1]).unwrap(),
    )
    .unwrap();
    let ds = Dataset::from_tensor_slices(&[files])
        .unwrap()
        .interleave(inner, 2, 1)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next), i64s(&fixture["two_files"]));
}

#[test]
fn parallel_interleave_keeps_tensorflows_deterministic_order() {
    if in_own_process("data_parallel::parallel_interleave_keeps_tensorflows_deterministic_order") {
        return;
    }
    let _serial = serial();
    let fixture = expected();
    let mut ran = 0;
    for case in fixture["parallel_interleave"].as_array().unwrap() {
        let [cycle, block, n] =
            ["cycle", "block", "num_parallel_calls"].map(|k| case[k].as_i64().unwrap());
        let g = Graph::new();
        let ds = rows(&g, &fixture)
            .interleave_with(
                inner,
                InterleaveOptions::new(cycle, block).num_parallel_calls(n),
            )
            .unwrap();
        assert_eq!(ds.handle().op().op_type(), "ParallelInterleaveDatasetV4");
        let (sess, next) = one_shot(&ds);
        assert_eq!(
            drain_i64(&sess, &next),
            i64s(&case["values"]),
            "cycle {cycle}, block {block}, num_parallel_calls {n}"
        );
        ran += 1;
    }
    assert_eq!(ran, 33);
    // AUTOTUNE everywhere, and deterministic = false, keep the order too.
    let g = Graph::new();
    let options = InterleaveOptions::new(3, 2)
        .num_parallel_calls(AUTOTUNE)
        .deterministic(false);
    let ds = rows(&g, &fixture).interleave_with(inner, options).unwrap();
    let (sess, next) = one_shot(&ds);
    let want = fixture["interleave"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cycle"] == 3 && c["block"] == 2)
        .unwrap();
    assert_eq!(drain_i64(&sess, &next), i64s(&want["values"]));
    drop(sess);
    // The read-ahead threads end with their iterators.
    #[cfg(target_os = "linux")]
    wait_for_threads(0, "after the sessions' end");
}

#[test]
fn autotune_cycle_length_is_one_per_core() {
    let fixture = expected();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as i64;
    let g = Graph::new();
    let auto = rows(&g, &fixture).interleave(inner, AUTOTUNE, 1).unwrap();
    let per_core = rows(&g, &fixture).interleave(inner, cores, 1).unwrap();
    let (sess, next) = one_shot(&auto);
    let got = drain_i64(&sess, &next);
    let (sess, next) = one_shot(&per_core);
    assert_eq!(got, drain_i64(&sess, &next));
    let same_cores = fixture["cpu_count"].as_i64() == Some(cores);
    if same_cores {
        assert_eq!(got, i64s(&fixture["interleave_autotune"]));
    }

    // With num_parallel_calls: n up to one per core; with AUTOTUNE, a third of the cores.
    let _serial = serial();
    for case in fixture["parallel_interleave_autotune"].as_array().unwrap() {
        let n = case["num_parallel_calls"].as_i64().unwrap();
        let options = InterleaveOptions {
            cycle_length: None,
            block_length: None,
            num_parallel_calls: Some(n),
            deterministic: None,
        };
        let cycle = if n == AUTOTUNE {
            (cores + 2) / 3
        } else {
            n.min(cores)
        };
        let auto = rows(&g, &fixture).interleave_with(inner, options).unwrap();
        let fixed = rows(&g, &fixture).interleave(inner, cycle, 1).unwrap();
        let (sess, next) = one_shot(&auto);
        let got = drain_i64(&sess, &next);
        let (sess, next) = one_shot(&fixed);
        assert_eq!(got, drain_i64(&sess, &next), "{n}");
        if same_cores {
            assert_eq!(got, i64s(&case["values"]), "{n}");
        }
    }
}

#[test]
fn flat_map_concatenates_as_tensorflow_does() {
    let fixture = expected();
    let g = Graph::new();
    let ds = rows(&g, &fixture).flat_map(inner).unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next), i64s(&fixture["flat_map"]));

    // The function may capture outside tensors and build any dataset.
    let ten = constant(&g, 10i64).unwrap();
    let ds = Dataset::range(&g, 1, 4, 1)
        .unwrap()
        .flat_map(|x| {
            Dataset::from_tensors(&[mul(&x[0], &ten)?])?
                .repeat(Some(2))?
                .map(|y| Ok(vec![add(&y[0], constant(y[0].graph(), 1i64)?)?]))
        })
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next), vec![11, 11, 21, 21, 31, 31]);
}

fn square(x: &[Output]) -> weir_graph::Result<Vec<Output>> {
    Ok(vec![mul(&x[0], &x[0])?])
}

#[test]
fn parallel_map_keeps_tensorflows_order() {
    let _serial = serial();
    let fixture = expected();
    for case in fixture["parallel_map"].as_array().unwrap() {
        let n = case["num_parallel_calls"].as_i64().unwrap();
        let g = Graph::new();
        let ds = Dataset::range(&g, 0, 30, 1)
            .unwrap()
            .map_parallel(square, n)
            .unwrap();
        assert_eq!(ds.handle().op().op_type(), "ParallelMapDatasetV2");
        let (sess, next) = one_shot(&ds);
        assert_eq!(drain_i64(&sess, &next), i64s(&case["values"]), "{n}");
    }
}

/// Work that takes longer the smaller `x` is: the sum of `0..(40 - x) * 20000`.
fn slow_for_small(x: &[Output]) -> weir_graph::Result<Vec<Output>> {
    let g = x[0].graph();
    let n = mul(sub(constant(g, 40i64)?, &x[0])?, constant(g, 20000i64)?)?;
    let r = range_from(&constant(g, 0i64)?, &n, &constant(g, 1i64)?)?;
    let total = Reduce::sum().build(r)?;
    Ok(vec![x[0].clone(), total])
}

#[test]
fn a_slow_function_still_gives_input_order() {
    let _serial = serial();
    let g = Graph::new();
    let ds = Dataset::range(&g, 0, 40, 1)
        .unwrap()
        .map_parallel(slow_for_small, 4)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    assert_eq!(drain_i64(&sess, &next), (0..40).collect::<Vec<_>>());

    // Not deterministic: every element once, in any order.
    let ds = Dataset::range(&g, 0, 40, 1)
        .unwrap()
        .map_with(slow_for_small, MapOptions::parallel(4).deterministic(false))
        .unwrap();
    assert_eq!(
        ds.handle().op().attr::<String>("deterministic").unwrap(),
        "false"
    );
    let (sess, next) = one_shot(&ds);
    let mut got = drain_i64(&sess, &next);
    got.sort_unstable();
    assert_eq!(got, (0..40).collect::<Vec<_>>());

    // Without num_parallel_calls it is the plain map.
    let ds = Dataset::range(&g, 0, 3, 1)
        .unwrap()
        .map_with(square, MapOptions::default())
        .unwrap();
    assert_eq!(ds.handle().op().op_type(), "MapDataset");
}

/// `check_numerics(1 / (x - k))`: an infinity, so InvalidArgument, at `x == k`.
fn bad_at(k: i64) -> impl FnOnce(&[Output]) -> weir_graph::Result<Vec<Output>> {
    move |x| {
        let g = x[0].graph();
        let d = cast(sub(&x[0], constant(g, k)?)?, DType::F32)?;
        let y = div(constant(g, 1.0f32)?, d)?;
        Ok(vec![check_numerics(y, "bad element")?])
    }
}

#[test]
fn an_error_in_the_function_arrives_at_its_element() {
    let _serial = serial();
    let fixture = expected();
    for case in fixture["map_errors"].as_array().unwrap() {
        let n = case["num_parallel_calls"].as_i64();
        let g = Graph::new();
        let ds = Dataset::range(&g, 0, 7, 1)
            .unwrap()
            .map_with(
                bad_at(3),
                MapOptions {
                    num_parallel_calls: n,
                    deterministic: None,
                },
            )
            .unwrap();
        let (sess, next) = one_shot(&ds);
        let got = drain(&sess, &next);
        let want = case["results"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{n:?}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            match (g, w[0].as_str().unwrap()) {
                (Ok(t), "ok") => {
                    let v = t.to_scalar::<f32>().unwrap();
                    assert!(
                        (v as f64 - w[1].as_f64().unwrap()).abs() < 1e-6,
                        "{n:?} {i}"
                    );
                }
                (Err(e), "err") => {
                    assert_eq!(e.code(), Code::InvalidArgument, "{n:?} {i}");
                    // TensorFlow prefixes "Error in user-defined function passed to ...".
                    let tf = w[2].as_str().unwrap();
                    assert!(tf.ends_with(e.message()), "{n:?} {i}: {e} vs {tf}");
                    assert_eq!(e.message(), "bad element : Tensor had Inf values");
                }
                _ => panic!("{n:?} {i}: {g:?} vs {w}"),
            }
        }
    }

    // Far into the stream with many calls in flight: exactly the first 20 come first.
    let g = Graph::new();
    let ds = Dataset::range(&g, 0, 60, 1)
        .unwrap()
        .map_parallel(bad_at(20), 8)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    let got = drain(&sess, &next);
    assert_eq!(got.len(), 60);
    for (i, r) in got.iter().enumerate() {
        assert_eq!(r.is_err(), i == 20, "{i}: {r:?}");
    }
}

#[test]
fn bad_arguments_fail_with_tensorflows_messages() {
    let fixture = expected();
    for case in fixture["build_errors"].as_array().unwrap() {
        let name = case["case"].as_str().unwrap();
        let words: Vec<&str> = name.split(' ').collect();
        let g = Graph::new();
        let ds = match words.as_slice() {
            ["cycle_length", n] => rows(&g, &fixture).interleave(inner, n.parse().unwrap(), 1),
            ["block_length", n] => rows(&g, &fixture).interleave(inner, 2, n.parse().unwrap()),
            ["num_parallel_calls", n] => Dataset::range(&g, 0, 3, 1)
                .unwrap()
                .map_parallel(|x| Ok(x.to_vec()), n.parse().unwrap()),
            ["interleave", "num_parallel_calls", n, "cycle_length", c] => {
                let options = InterleaveOptions::new(c.parse().unwrap(), 1)
                    .num_parallel_calls(n.parse().unwrap());
                rows(&g, &fixture).interleave_with(inner, options)
            }
            _ => panic!("unknown case {name}"),
        }
        .unwrap();
        let (sess, next) = one_shot(&ds);
        let e = sess.run(&RunArgs::new().fetch(&next[0])).unwrap_err();
        let want = &case["results"][0];
        assert_eq!(want[1], "InvalidArgumentError", "{name}");
        assert_eq!(
            (e.code(), e.message()),
            (Code::InvalidArgument, want[2].as_str().unwrap()),
            "{name}"
        );
    }
}

/// Serializes the tests that start parallel map threads, so thread counts are this test's.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs test `name` of this binary alone in a child process and returns true in the caller,
/// which then returns: the tests that count parallel map threads read a process-wide count,
/// which the other tests of this binary (running at the same time, each with threads of the
/// same name) would change under them. In the child it returns false and the test runs.
fn in_own_process(name: &str) -> bool {
    if std::env::var_os("WEIR_TEST_ALONE").is_some() {
        return false;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1"])
        .env("WEIR_TEST_ALONE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} alone:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

/// The process's parallel map worker threads (Linux names them in `/proc/self/task`).
fn map_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end() == "weir-data-map")
        .count()
}

/// Waits up to ten seconds for `map_threads() == n`; fails loudly after.
fn wait_for_threads(n: usize, why: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = map_threads();
        if now == n {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{why}: {now} parallel map threads after 10 s, expected {n}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn reinitializing_stops_the_old_threads() {
    if in_own_process("data_parallel::reinitializing_stops_the_old_threads") {
        return;
    }
    let _serial = serial();
    wait_for_threads(0, "before the test");
    let g = Graph::new();
    let it = Dataset::range(&g, 0, 1_000_000, 1)
        .unwrap()
        .map_parallel(square, 3)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    for _ in 0..3 {
        sess.run_target(&it.initializer().unwrap()).unwrap();
        // Threads start at the first get_next.
        assert_eq!(map_threads(), 0);
        for want in [0i64, 1, 4, 9] {
            let v = sess.run(&RunArgs::new().fetch(&next[0])).unwrap();
            assert_eq!(v[0].to_scalar::<i64>().unwrap(), want);
        }
        wait_for_threads(3, "after get_next");
        sess.run_target(&it.initializer().unwrap()).unwrap();
        wait_for_threads(0, "after re-initializing");
    }
    sess.run(&RunArgs::new().fetch(&next[0])).unwrap();
    wait_for_threads(3, "after get_next");
    drop(sess);
    wait_for_threads(0, "after the session's end");
}

#[test]
fn closing_the_session_ends_a_waiting_get_next() {
    if in_own_process("data_parallel::closing_the_session_ends_a_waiting_get_next") {
        return;
    }
    let _serial = serial();
    let g = Graph::new();
    // The function waits for a queue nobody fills.
    let q = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .map_parallel(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]), 2)
        .unwrap();
    let (sess, next) = one_shot(&ds);
    let handle = sess.handle();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let r = handle.run(&RunArgs::new().fetch(&next[0]));
        tx.send(r).unwrap();
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        rx.try_recv().is_err(),
        "get_next returned with an empty queue"
    );
    let closed = Instant::now();
    sess.close();
    let r = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("get_next still waits 10 s after the session's close");
    assert!(closed.elapsed() < Duration::from_secs(10));
    let e = r.unwrap_err();
    assert_eq!(e.code(), Code::Cancelled, "{e}");
    reader.join().unwrap();
    drop(sess);
    #[cfg(target_os = "linux")]
    wait_for_threads(0, "after the session's end");
}

#[cfg(target_os = "linux")]
#[test]
fn reinitializing_cancels_a_function_call_blocked_in_an_op() {
    if in_own_process("data_parallel::reinitializing_cancels_a_function_call_blocked_in_an_op") {
        return;
    }
    let _serial = serial();
    wait_for_threads(0, "before the test");
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let it = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .map_parallel(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]), 1)
        .unwrap()
        .make_initializable_iterator()
        .unwrap();
    let next = it.get_next().unwrap();
    let enqueue = q.enqueue(&[constant(&g, 5i64).unwrap()]).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_target(&it.initializer().unwrap()).unwrap();
    // The worker's call waits in the dequeue; get_next times out.
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_millis(200)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    wait_for_threads(1, "while the call waits");
    // Re-initializing drops the old iterator, whose token cancels the call in the dequeue: the
    // old worker leaves without taking the element enqueued next.
    sess.run_target(&it.initializer().unwrap()).unwrap();
    wait_for_threads(0, "after re-initializing");
    sess.run_target(&enqueue).unwrap();
    let v = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_secs(10)),
        )
        .unwrap();
    assert_eq!(v[0].to_scalar::<i64>().unwrap(), 5);
}

#[test]
fn a_get_next_waiting_behind_another_ends_with_its_own_timeout() {
    let _serial = serial();
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .map(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]))
        .unwrap();
    let (sess, next) = one_shot(&ds);
    // The first get_next waits in the map's dequeue, holding the iterator.
    let handle = sess.handle();
    let first_next = next[0].clone();
    let first = std::thread::spawn(move || handle.run(&RunArgs::new().fetch(&first_next)));
    std::thread::sleep(Duration::from_millis(100));
    // A second one, with a timeout, waits for the iterator and gives up on time (run on a
    // thread, so a regression fails here instead of hanging the test).
    let (tx, rx) = mpsc::channel();
    let handle = sess.handle();
    let second_next = next[0].clone();
    let second = std::thread::spawn(move || {
        let r = handle.run(
            &RunArgs::new()
                .fetch(&second_next)
                .timeout(Duration::from_millis(200)),
        );
        tx.send(r).unwrap();
    });
    let e = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the second get_next ignored its timeout")
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    second.join().unwrap();
    sess.close();
    let r = first.join().unwrap();
    assert_eq!(r.unwrap_err().code(), Code::Cancelled);
}

/// A dataset function blocked in an op ends at its caller's run deadline: a map waiting on a
/// queue nobody fills gives DeadlineExceeded to a get_next run with a 200 ms timeout, and an
/// element enqueued afterwards still reaches the next get_next.
#[test]
fn a_function_blocked_in_an_op_ends_at_the_runs_deadline() {
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let ds = Dataset::range(&g, 0, 10, 1)
        .unwrap()
        .map(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]))
        .unwrap();
    let (sess, next) = one_shot(&ds);
    let started = Instant::now();
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_millis(200)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let hundred = constant(&g, 100i64).unwrap();
    let enqueue = q.enqueue(&[hundred]).unwrap();
    sess.run_target(&enqueue).unwrap();
    let v = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_secs(20)),
        )
        .unwrap();
    // The timed-out call consumed element 0; the next call maps element 1.
    assert_eq!(v[0].to_scalar::<i64>().unwrap(), 101);
}
