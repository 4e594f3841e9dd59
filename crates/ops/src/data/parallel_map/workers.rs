//! The parallel map's iterator and its worker threads.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::{CancellationToken, Error, Monitor, Result};

use crate::data::function::BoundFunction;
use crate::data::{Element, IteratorBase, IteratorContext};

/// The name of every worker thread (what `/proc/<pid>/task/*/comm` shows).
pub(crate) const THREAD_NAME: &str = "weir-data-map";

/// The input, read by one thread at a time.
struct Input {
    /// `None` once it has ended.
    iterator: Option<Box<dyn IteratorBase>>,
    /// The position of the next element read.
    next: u64,
}

/// What the workers and the consumer share, under the monitor's lock.
#[derive(Default)]
struct Buffer {
    /// Finished calls by input position.
    results: BTreeMap<u64, Result<Element>>,
    /// Places taken: calls running plus results not yet consumed.
    reserved: usize,
    /// Results handed out.
    consumed: u64,
    /// The number of input elements, once the input has ended.
    end: Option<u64>,
    /// Workers still running.
    live: usize,
}

struct Shared {
    /// `None` passes elements through: a prefetcher.
    f: Option<BoundFunction>,
    input: Mutex<Input>,
    buffer: Arc<Monitor<Buffer>>,
    /// Cancelled when the iterator is dropped: the workers' waits end.
    stop: CancellationToken,
    capacity: usize,
}

/// The iterator of a parallel map; without a function, one that reads its input ahead on
/// its own threads (an interleave's prefetcher).
pub(crate) struct ParallelMapIter {
    shared: Arc<Shared>,
    /// Threads to start at the first `get_next`; 0 once started.
    threads: usize,
    deterministic: bool,
}

impl ParallelMapIter {
    pub(crate) fn new(
        input: Box<dyn IteratorBase>,
        f: Option<BoundFunction>,
        capacity: usize,
        threads: usize,
        deterministic: bool,
    ) -> ParallelMapIter {
        ParallelMapIter {
            shared: Arc::new(Shared {
                f,
                input: Mutex::new(Input {
                    iterator: Some(input),
                    next: 0,
                }),
                buffer: Monitor::new(Buffer::default()),
                stop: CancellationToken::new(),
                capacity: capacity.max(1),
            }),
            threads: threads.max(1),
            deterministic,
        }
    }

    fn start(&mut self) -> Result<()> {
        if self.threads == 0 {
            return Ok(());
        }
        let n = std::mem::take(&mut self.threads);
        self.shared.buffer.lock().live = n;
        for i in 0..n {
            let shared = self.shared.clone();
            let spawned = std::thread::Builder::new()
                .name(THREAD_NAME.to_string())
                .spawn(move || work(&shared));
            if let Err(e) = spawned {
                let mut b = self.shared.buffer.lock();
                b.live -= n - i;
                if b.live == 0 {
                    return Err(Error::resource_exhausted(format!(
                        "Could not start a parallel map thread: {e}"
                    )));
                }
                break;
            }
        }
        Ok(())
    }
}

impl Drop for ParallelMapIter {
    fn drop(&mut self) {
        // Waiting workers wake and leave; one inside a call leaves when the call returns.
        self.shared
            .stop
            .cancel(Error::cancelled("The iterator was destroyed"));
    }
}

impl IteratorBase for ParallelMapIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        self.start()?;
        let det = self.deterministic;
        let monitor = &self.shared.buffer;
        let mut b = monitor.lock();
        let ready = |b: &mut Buffer| {
            b.end == Some(b.consumed)
                || b.live == 0
                || if det {
                    b.results.contains_key(&b.consumed)
                } else {
                    !b.results.is_empty()
                }
        };
        monitor.wait_while(&mut b, &ctx.cancellation, ctx.deadline, |b| !ready(b))?;
        if b.end == Some(b.consumed) {
            return Ok(None);
        }
        let taken = if det {
            let at = b.consumed;
            b.results.remove(&at)
        } else {
            b.results.pop_first().map(|(_, r)| r)
        };
        let Some(result) = taken else {
            return Err(Error::internal(
                "The parallel map's worker threads stopped before the input ended",
            ));
        };
        b.consumed += 1;
        b.reserved -= 1;
        drop(b);
        monitor.notify_all();
        result.map(Some)
    }
}

/// Counts a worker out when it leaves, however it leaves.
struct Live<'a>(&'a Shared);

impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.buffer.lock().live -= 1;
        self.0.buffer.notify_all();
    }
}

/// A worker: reserve a place, read an element, call the function, file the result; until the
/// input ends or the iterator is dropped.
fn work(shared: &Shared) {
    let _live = Live(shared);
    let ctx = IteratorContext {
        cancellation: shared.stop.clone(),
        deadline: None,
    };
    loop {
        {
            let mut b = shared.buffer.lock();
            let waited = shared.buffer.wait_while(&mut b, &shared.stop, None, |b| {
                b.end.is_none() && b.reserved >= shared.capacity
            });
            if waited.is_err() || b.end.is_some() {
                return;
            }
            b.reserved += 1;
        }
        let (position, read) = {
            let mut input = shared.input.lock();
            let position = input.next;
            let read = match input.iterator.as_mut() {
                Some(it) => it.get_next(&ctx),
                None => Ok(None),
            };
            match read {
                Ok(None) => {
                    // Let the input's files and threads go now.
                    let ended = input.iterator.take();
                    drop(input);
                    drop(ended);
                    let mut b = shared.buffer.lock();
                    b.reserved -= 1;
                    b.end.get_or_insert(position);
                    drop(b);
                    shared.buffer.notify_all();
                    return;
                }
                Ok(Some(e)) => {
                    input.next += 1;
                    (position, Ok(e))
                }
                // An input error is the element at its position, as in TensorFlow.
                Err(e) => {
                    input.next += 1;
                    (position, Err(e))
                }
            }
        };
        if shared.stop.is_cancelled() {
            return;
        }
        let result = match &shared.f {
            Some(f) => read.and_then(|e| f.call(e, &ctx)),
            None => read,
        };
        shared.buffer.lock().results.insert(position, result);
        shared.buffer.notify_all();
    }
}
