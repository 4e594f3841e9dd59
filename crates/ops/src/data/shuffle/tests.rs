//! The prefetch iterator's threading, with inputs that count, fail and block on purpose.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use weir_graph::{CancellationToken, DType, Error, Result, Tensor};

use super::prefetch::Prefetch;
use super::{DatasetBase, Element, IteratorBase, IteratorContext, Words};

/// How long any wait in these tests may take before the test fails.
const BOUND: Duration = Duration::from_secs(10);

/// `0, 1, ..., len - 1` (forever without `len`), InvalidArgument instead of `fail_at`; when
/// `block_at` is reached, each read waits until its context is cancelled.
#[derive(Default)]
struct Probe {
    len: Option<i64>,
    fail_at: Option<i64>,
    block_at: Option<i64>,
    reads: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
}

struct ProbeIter {
    next: i64,
    len: Option<i64>,
    fail_at: Option<i64>,
    block_at: Option<i64>,
    reads: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
}

impl DatasetBase for Probe {
    fn output_dtypes(&self) -> &[DType] {
        &[DType::I64]
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(ProbeIter {
            next: 0,
            len: self.len,
            fail_at: self.fail_at,
            block_at: self.block_at,
            reads: self.reads.clone(),
            dropped: self.dropped.clone(),
        }))
    }
}

impl IteratorBase for ProbeIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        if self.block_at.is_some_and(|b| self.next >= b) {
            let start = Instant::now();
            while start.elapsed() < BOUND {
                ctx.check()?;
                std::thread::sleep(Duration::from_millis(2));
            }
            return Err(Error::internal("the probe's read was never cancelled"));
        }
        if self.len.is_some_and(|n| self.next >= n) {
            return Ok(None);
        }
        let v = self.next;
        self.next += 1;
        if self.fail_at == Some(v) {
            return Err(Error::invalid_argument(format!("bad element {v}")));
        }
        Ok(Some(vec![Tensor::scalar(v)]))
    }
}

impl Drop for ProbeIter {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

fn ctx() -> IteratorContext {
    IteratorContext {
        cancellation: CancellationToken::new(),
        deadline: Some(Instant::now() + BOUND),
    }
}

fn value(e: Option<Element>) -> Option<i64> {
    e.map(|e| e[0].to_scalar::<i64>().unwrap())
}

fn wait_for(what: &str, f: impl Fn() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < BOUND, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn keeps_order_and_ends_after_the_buffered_elements() {
    for capacity in [1, 3, 1000] {
        let ds = Prefetch {
            input: Arc::new(Probe {
                len: Some(50),
                ..Probe::default()
            }),
            capacity,
        };
        let mut it = ds.make_iterator().unwrap();
        let c = ctx();
        let got: Vec<i64> = (0..50)
            .map(|_| value(it.get_next(&c).unwrap()).unwrap())
            .collect();
        assert_eq!(got, (0..50).collect::<Vec<_>>());
        assert_eq!(value(it.get_next(&c).unwrap()), None);
        assert_eq!(value(it.get_next(&c).unwrap()), None);
    }
}

#[test]
fn reads_at_most_the_buffer_ahead() {
    let reads = Arc::new(AtomicUsize::new(0));
    let ds = Prefetch {
        input: Arc::new(Probe {
            reads: reads.clone(),
            ..Probe::default()
        }),
        capacity: 4,
    };
    let mut it = ds.make_iterator().unwrap();
    assert_eq!(value(it.get_next(&ctx()).unwrap()), Some(0));
    // One taken, four buffered, at most one more read waiting for room.
    wait_for("the buffer to fill", || reads.load(Ordering::SeqCst) >= 5);
    std::thread::sleep(Duration::from_millis(30));
    assert!(reads.load(Ordering::SeqCst) <= 6);
}

#[test]
fn errors_come_at_their_element_and_reading_goes_on() {
    let ds = Prefetch {
        input: Arc::new(Probe {
            len: Some(5),
            fail_at: Some(2),
            ..Probe::default()
        }),
        capacity: 2,
    };
    let mut it = ds.make_iterator().unwrap();
    let c = ctx();
    assert_eq!(value(it.get_next(&c).unwrap()), Some(0));
    assert_eq!(value(it.get_next(&c).unwrap()), Some(1));
    let e = it.get_next(&c).unwrap_err();
    assert_eq!(e.message(), "bad element 2");
    assert_eq!(value(it.get_next(&c).unwrap()), Some(3));
    assert_eq!(value(it.get_next(&c).unwrap()), Some(4));
    assert_eq!(value(it.get_next(&c).unwrap()), None);
}

#[test]
fn dropping_the_iterator_stops_a_producer_waiting_for_room() {
    let dropped = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let ds = Prefetch {
        input: Arc::new(Probe {
            reads: reads.clone(),
            dropped: dropped.clone(),
            ..Probe::default()
        }),
        capacity: 2,
    };
    let mut it = ds.make_iterator().unwrap();
    assert_eq!(value(it.get_next(&ctx()).unwrap()), Some(0));
    wait_for("the buffer to fill", || reads.load(Ordering::SeqCst) >= 3);
    drop(it);
    wait_for("the producer to drop its input", || {
        dropped.load(Ordering::SeqCst)
    });
}

#[test]
fn dropping_the_iterator_cancels_a_read_under_way() {
    let dropped = Arc::new(AtomicBool::new(false));
    let ds = Prefetch {
        input: Arc::new(Probe {
            block_at: Some(1),
            dropped: dropped.clone(),
            ..Probe::default()
        }),
        capacity: 3,
    };
    let mut it = ds.make_iterator().unwrap();
    assert_eq!(value(it.get_next(&ctx()).unwrap()), Some(0));
    let start = Instant::now();
    drop(it);
    assert!(start.elapsed() < Duration::from_secs(1), "drop blocked");
    wait_for("the producer to drop its input", || {
        dropped.load(Ordering::SeqCst)
    });
}

#[test]
fn a_waiting_get_next_ends_on_cancellation_and_at_the_deadline() {
    let ds = Prefetch {
        input: Arc::new(Probe {
            block_at: Some(0),
            ..Probe::default()
        }),
        capacity: 2,
    };
    let mut it = ds.make_iterator().unwrap();
    let token = CancellationToken::new();
    let c = IteratorContext {
        cancellation: token.clone(),
        deadline: Some(Instant::now() + BOUND),
    };
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        token.cancel(Error::cancelled("Session was closed"));
    });
    let start = Instant::now();
    let e = it.get_next(&c).unwrap_err();
    assert!(e.is_cancelled(), "{e}");
    assert!(start.elapsed() < BOUND);
    canceller.join().unwrap();

    let c = IteratorContext {
        cancellation: CancellationToken::new(),
        deadline: Some(Instant::now() + Duration::from_millis(30)),
    };
    let e = it.get_next(&c).unwrap_err();
    assert!(e.is_deadline_exceeded(), "{e}");
}

#[test]
fn zero_reads_on_demand() {
    let reads = Arc::new(AtomicUsize::new(0));
    let ds = Prefetch {
        input: Arc::new(Probe {
            reads: reads.clone(),
            ..Probe::default()
        }),
        capacity: 0,
    };
    let mut it = ds.make_iterator().unwrap();
    assert_eq!(value(it.get_next(&ctx()).unwrap()), Some(0));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(reads.load(Ordering::SeqCst), 1);
}

#[test]
fn words_are_tensorflows_single_sample_stream() {
    // TensorFlow 2.21: range(10).shuffle(4, seed=5) with graph seed 1 and
    // reshuffle_each_iteration=False reads 2 4 1 5 3 0 8 6 7 9: the iterator's words mod 4, 4,
    // 4, 4, 4, 4, 4, 3, 2, 1 pick those from a buffer kept in TensorFlow's order.
    let mut w = Words::new(1, 5);
    let mut buf: std::collections::VecDeque<i64> = (0..4).collect();
    let mut next = 4;
    let mut out = Vec::new();
    while !buf.is_empty() {
        let i = (u64::from(w.next_u32()) % buf.len() as u64) as usize;
        out.push(buf.swap_remove_front(i).unwrap());
        if next < 10 {
            buf.push_back(next);
            next += 1;
        }
    }
    assert_eq!(out, vec![2, 4, 1, 5, 3, 0, 8, 6, 7, 9]);
}
