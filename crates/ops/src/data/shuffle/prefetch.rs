//! `PrefetchDataset` (`Dataset.prefetch`): a background thread reads the input ahead into a
//! bounded buffer.
//!
//! The producer thread starts at the iterator's first `get_next` and reads with its own
//! [`IteratorContext`], whose token the iterator's drop cancels (re-initialization, the
//! session's end). It never holds the buffer's lock while it reads the input, and every wait on
//! either side ends on cancellation: the consumer's on its run's token and deadline, the
//! producer's on its own token. Dropping the iterator does not join the thread (a read of the
//! input may still be under way); the thread ends once that read returns.

use std::collections::VecDeque;
use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, CancellationToken, DType, Error, Kernel, Monitor, OpContext,
    Result,
};

use super::super::{
    dataset_def, dataset_tensor, input_dataset, DatasetBase, Element, IteratorBase, IteratorContext,
};

/// TensorFlow's `AUTOTUNE` as a prefetch buffer size.
const AUTOTUNE: i64 = -1;

/// The buffer size weir uses for `AUTOTUNE`: a fixed 8 elements (TensorFlow tunes it at run
/// time).
pub(super) const AUTOTUNE_BUFFER: usize = 8;

/// `input`, read ahead into a buffer of `capacity` elements (0: read on demand).
pub(super) struct Prefetch {
    pub(super) input: Arc<dyn DatasetBase>,
    pub(super) capacity: usize,
}

impl DatasetBase for Prefetch {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let input = self.input.make_iterator()?;
        if self.capacity == 0 {
            return Ok(input);
        }
        Ok(Box::new(PrefetchIter {
            shared: Monitor::new(Buffer {
                items: VecDeque::new(),
                finished: false,
            }),
            capacity: self.capacity,
            pending: Some(input),
            producer: CancellationToken::new(),
        }))
    }
}

/// What the producer and the consumer share.
struct Buffer {
    /// Read elements and errors, in the input's order.
    items: VecDeque<Result<Element>>,
    /// The producer is done: the input ended, or the producer stopped.
    finished: bool,
}

struct PrefetchIter {
    shared: Arc<Monitor<Buffer>>,
    capacity: usize,
    /// The input's iterator until the producer thread takes it.
    pending: Option<Box<dyn IteratorBase>>,
    /// The producer's token: cancelled when this iterator is dropped.
    producer: CancellationToken,
}

impl PrefetchIter {
    fn start(&mut self) -> Result<()> {
        let Some(input) = self.pending.take() else {
            return Ok(());
        };
        let shared = self.shared.clone();
        let ctx = IteratorContext {
            cancellation: self.producer.clone(),
            deadline: None,
        };
        let capacity = self.capacity;
        let spawned = std::thread::Builder::new()
            .name("weir-prefetch".to_string())
            .spawn(move || produce(input, &shared, &ctx, capacity));
        match spawned {
            Ok(_) => Ok(()),
            Err(e) => {
                self.shared.lock().finished = true;
                Err(Error::resource_exhausted(format!(
                    "Could not start the prefetch thread: {e}"
                )))
            }
        }
    }
}

/// Marks the buffer finished when the producer returns, however it returns.
struct Finish<'a>(&'a Arc<Monitor<Buffer>>);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.lock().finished = true;
        self.0.notify_all();
    }
}

/// The producer thread: reads `input` into the buffer until the input ends or `ctx` is
/// cancelled.
fn produce(
    mut input: Box<dyn IteratorBase>,
    shared: &Arc<Monitor<Buffer>>,
    ctx: &IteratorContext,
    capacity: usize,
) {
    let _finish = Finish(shared);
    loop {
        {
            let mut buf = shared.lock();
            let room = shared.wait_while(&mut buf, &ctx.cancellation, None, |b| {
                b.items.len() >= capacity
            });
            if room.is_err() || ctx.cancellation.is_cancelled() {
                drop(buf);
                return;
            }
        }
        // Read without the lock: the consumer takes elements meanwhile.
        let item = input.get_next(ctx);
        if ctx.cancellation.is_cancelled() {
            return;
        }
        // An error takes its element's place; the reads go on after it, as in TensorFlow.
        let item = match item {
            Ok(Some(e)) => Ok(e),
            Ok(None) => return,
            Err(e) => Err(e),
        };
        shared.lock().items.push_back(item);
        shared.notify_all();
    }
}

impl IteratorBase for PrefetchIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        self.start()?;
        let mut buf = self.shared.lock();
        self.shared
            .wait_while(&mut buf, &ctx.cancellation, ctx.deadline, |b| {
                b.items.is_empty() && !b.finished
            })?;
        match buf.items.pop_front() {
            Some(item) => {
                drop(buf);
                self.shared.notify_all();
                item.map(Some)
            }
            None => Ok(None),
        }
    }
}

impl Drop for PrefetchIter {
    fn drop(&mut self) {
        // Wakes the producer's wait through its registration; a read under way sees the
        // token when it returns.
        self.producer
            .cancel(Error::cancelled("The prefetch iterator was destroyed"));
        self.shared.notify_all();
    }
}

struct PrefetchKernel;

impl Kernel for PrefetchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let buffer_size = ctx.input(1).to_scalar::<i64>()?;
        let capacity = match buffer_size {
            AUTOTUNE => AUTOTUNE_BUFFER,
            n if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => {
                return Err(Error::invalid_argument(
                    "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning",
                ))
            }
        };
        ctx.set_output(0, dataset_tensor(Arc::new(Prefetch { input, capacity })));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("PrefetchDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("buffer_size", ArgType::Fixed(DType::I64))
            .attr("slack_period", AttrKind::Int, Some(AttrValue::Int(0)))
            .attr(
                "legacy_autotune",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .attr("buffer_size_min", AttrKind::Int, Some(AttrValue::Int(0))),
    );
    register_kernel("PrefetchDataset", |_| Ok(Box::new(PrefetchKernel)));
}
