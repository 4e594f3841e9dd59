//! Stress: 8 enqueue threads and 4 dequeue threads move 1,000,000 elements through each queue
//! kind (of 2,000,000 offered: the queue is closed mid-way, once a million have come out), and
//! the multiset of dequeued elements must equal what was successfully enqueued: nothing lost,
//! nothing twice.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use weir_graph::{DType, Graph, Operation, Output, Shape, Tensor};
use weir_ops::array::placeholder;
use weir_ops::data_flow::{FifoQueue, PaddingFifoQueue, PriorityQueue, Queue, RandomShuffleQueue};
use weir_session::{RunArgs, Session, SessionHandle};

const TOTAL: usize = 2_000_000;
const ENQUEUERS: usize = 8;
const DEQUEUERS: usize = 4;
const RUN_TIMEOUT: Duration = Duration::from_secs(30);

struct Graphs {
    g: Graph,
    q: Queue,
    p_many: Output,
    enq_many: Operation,
    p_one: Output,
    enq_one: Operation,
    deq_one: Vec<Output>,
    deq_many: Vec<Vec<Output>>,
    up_to: Vec<Vec<Output>>,
    close: Operation,
    cancel_close: Operation,
}

fn build(kind: &str) -> Graphs {
    let g = Graph::new();
    let scalar = [Shape::scalar()];
    let q = match kind {
        "fifo" => FifoQueue::new(2000, &[DType::I64])
            .shapes(&scalar)
            .build(&g),
        "padding" => PaddingFifoQueue::new(2000, &[DType::I64], &scalar).build(&g),
        "shuffle" => RandomShuffleQueue::new(3000, 500, &[DType::I64])
            .shapes(&scalar)
            .seed(11)
            .build(&g),
        _ => PriorityQueue::new(2000, &[DType::I64], &scalar).build(&g),
    }
    .unwrap();
    let comps = if kind == "priority" { 2 } else { 1 };
    let p_many = placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap();
    let p_one = placeholder(&g, DType::I64, Shape::scalar()).unwrap();
    let enq_many = q.enqueue_many(&vec![p_many.clone(); comps]).unwrap();
    let enq_one = q.enqueue(&vec![p_one.clone(); comps]).unwrap();
    let deq_one = q.dequeue().unwrap();
    let deq_many = [64, 333]
        .iter()
        .map(|&n| q.dequeue_many(n).unwrap())
        .collect();
    let up_to = [100, 517]
        .iter()
        .map(|&n| q.dequeue_up_to(n).unwrap())
        .collect();
    let close = q.close(false).unwrap();
    let cancel_close = q.close(true).unwrap();
    Graphs {
        g,
        q,
        p_many,
        enq_many,
        p_one,
        enq_one,
        deq_one,
        deq_many,
        up_to,
        close,
        cancel_close,
    }
}

/// The value component of a dequeued tuple (the last one; a PriorityQueue's first is the
/// priority, equal to the value here).
fn values(out: &[Tensor]) -> Vec<i64> {
    let v = out.last().unwrap().to_vec::<i64>().unwrap();
    if out.len() == 2 {
        assert_eq!(
            out[0].to_vec::<i64>().unwrap(),
            v,
            "priority and value travel together"
        );
    }
    v
}

fn stress(kind: &'static str) {
    stress_with(kind, TOTAL, false);
}

/// Moves up to `total` elements; closes once half have come out, cancelling pending enqueues
/// when `cancel`. A cancelled enqueue_many keeps the rows it had pushed (a prefix of its
/// batch), so those rows may come out too, but nothing else may.
fn stress_with(kind: &'static str, total: usize, cancel: bool) {
    let t0 = Instant::now();
    let gs = Arc::new(build(kind));
    let sess = Session::new(&gs.g).unwrap();
    let enqueued = Arc::new(Mutex::new(Vec::<i64>::with_capacity(total)));
    let failed = Arc::new(Mutex::new(Vec::<Vec<i64>>::new()));
    let dequeued_count = Arc::new(AtomicUsize::new(0));
    let per = total / ENQUEUERS;
    let mut enq_threads = Vec::new();
    for t in 0..ENQUEUERS {
        let (h, gs, enqueued, failed) =
            (sess.handle(), gs.clone(), enqueued.clone(), failed.clone());
        enq_threads.push(thread::spawn(move || {
            let mut next = (t * per) as i64;
            let end = ((t + 1) * per) as i64;
            let batch = 300 + 97 * t as i64;
            let mut mine = Vec::new();
            while next < end {
                // Thread 7 mixes single enqueues in; the others enqueue whole batches.
                let (run, vals) = if t == ENQUEUERS - 1 && next % 3 == 0 {
                    (
                        RunArgs::new()
                            .feed(&gs.p_one, Tensor::from(next))
                            .target(&gs.enq_one),
                        vec![next],
                    )
                } else {
                    let hi = (next + batch).min(end);
                    let vals: Vec<i64> = (next..hi).collect();
                    (
                        RunArgs::new()
                            .feed(&gs.p_many, Tensor::from(vals.clone()))
                            .target(&gs.enq_many),
                        vals,
                    )
                };
                match h.run(&run.timeout(RUN_TIMEOUT)) {
                    Ok(_) => mine.extend_from_slice(&vals),
                    Err(e) => {
                        assert!(e.is_cancelled(), "{kind}: enqueue failed with {e}");
                        let closed = e.message().ends_with("is closed.");
                        assert!(
                            closed || (cancel && e.message() == "Enqueue operation was cancelled"),
                            "{e}"
                        );
                        failed.lock().push(vals);
                        break;
                    }
                }
                next += vals.len() as i64;
            }
            enqueued.lock().extend(mine);
        }));
    }
    let mut deq_threads = Vec::new();
    for t in 0..DEQUEUERS {
        let (h, gs, count) = (sess.handle(), gs.clone(), dequeued_count.clone());
        deq_threads.push(thread::spawn(move || -> Vec<i64> {
            let mut mine = Vec::new();
            let mut i = 0usize;
            loop {
                i += 1;
                let fetches: &[Output] = match t {
                    0 => &gs.deq_many[0],
                    1 => &gs.up_to[(i % 2 == 0) as usize],
                    2 if i % 50 == 0 => &gs.deq_one,
                    2 => &gs.deq_many[1],
                    _ => &gs.up_to[1],
                };
                let mut args = RunArgs::new().timeout(RUN_TIMEOUT);
                for f in fetches {
                    args = args.fetch(f);
                }
                match h.run(&args) {
                    Ok(out) => {
                        let v = values(&out);
                        count.fetch_add(v.len(), Ordering::Relaxed);
                        mine.extend(v);
                    }
                    Err(e) => {
                        assert!(e.is_out_of_range(), "{kind}: dequeue failed with {e}");
                        return mine;
                    }
                }
            }
        }));
    }
    // Close mid-way: once half of the elements have come out.
    while dequeued_count.load(Ordering::Relaxed) < total / 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{kind}: no progress"
        );
        thread::sleep(Duration::from_millis(2));
    }
    let close = if cancel { &gs.cancel_close } else { &gs.close };
    sess.run(&RunArgs::new().target(close).timeout(RUN_TIMEOUT))
        .unwrap();
    for t in enq_threads {
        t.join().unwrap();
    }
    let mut got: Vec<i64> = Vec::new();
    for t in deq_threads {
        got.extend(t.join().unwrap());
    }
    // dequeue_many threads leave fewer than their batch behind: drain the rest.
    let drain = &gs.up_to[1];
    while let Ok(out) = sess.run(
        &RunArgs::new()
            .fetch(&drain[drain.len() - 1])
            .fetch(&drain[0])
            .timeout(RUN_TIMEOUT),
    ) {
        got.extend(out[0].to_vec::<i64>().unwrap());
    }
    let size = sess
        .run(&RunArgs::new().fetch(gs.q.size().unwrap()))
        .unwrap()[0]
        .to_scalar::<i32>()
        .unwrap();
    assert_eq!(size, 0);
    let mut want = std::mem::take(&mut *enqueued.lock());
    assert!(
        want.len() >= total / 2 && want.len() < total,
        "{kind}: closed mid-way, {} enqueued",
        want.len()
    );
    got.sort_unstable();
    assert!(
        got.windows(2).all(|w| w[0] != w[1]),
        "{kind}: an element came out twice"
    );
    // Rows of failed enqueues that came out: without cancelling there are none; with it,
    // each failed batch contributed a prefix of its rows.
    let mut extra = Vec::new();
    for vals in failed.lock().iter() {
        let out: Vec<i64> = vals
            .iter()
            .copied()
            .filter(|v| got.binary_search(v).is_ok())
            .collect();
        assert!(
            cancel || out.is_empty(),
            "{kind}: rows of a failed enqueue came out"
        );
        assert_eq!(
            out.as_slice(),
            &vals[..out.len()],
            "{kind}: kept rows are not a prefix"
        );
        extra.extend(out);
    }
    want.extend(extra);
    want.sort_unstable();
    assert_eq!(got.len(), want.len(), "{kind}: element count");
    assert!(
        got == want,
        "{kind}: the multiset of dequeued elements differs from what was enqueued"
    );
    eprintln!("{kind}: {} elements in {:?}", got.len(), t0.elapsed());
    let _: &SessionHandle = &sess;
}

#[test]
fn stress_fifo_queue() {
    stress("fifo");
}

#[test]
fn stress_padding_fifo_queue() {
    stress("padding");
}

#[test]
fn stress_random_shuffle_queue() {
    stress("shuffle");
}

#[test]
fn stress_priority_queue() {
    stress("priority");
}

#[test]
fn stress_fifo_queue_cancelling_close() {
    stress_with("fifo", TOTAL / 4, true);
}

#[test]
fn stress_random_shuffle_queue_cancelling_close() {
    stress_with("shuffle", TOTAL / 4, true);
}
