//! `CacheDataset` (`Dataset.cache()`): the input's elements kept in memory by the first
//! iterator that reads them all, and replayed to every later one. With a file name, the cache
//! is a file instead ([`super::cache_file`]).
//!
//! As in TensorFlow, the cache belongs to the dataset object: an initializer that makes the
//! dataset again (a new `MakeIterator` run) starts an empty cache, and an iterator dropped
//! before the input's end (or before it read as many elements as the input's cardinality)
//! leaves the cache empty.

use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, OpContext, Result};

use super::{
    dataset_def, dataset_tensor, input_dataset, DatasetBase, Element, IteratorBase, IteratorContext,
};

/// Every element of the input, once a pass has read them all.
type Cached = Arc<Mutex<Option<Arc<Vec<Element>>>>>;

struct Cache {
    input: Arc<dyn DatasetBase>,
    cached: Cached,
}

impl DatasetBase for Cache {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        if let Some(all) = self.cached.lock().clone() {
            return Ok(Box::new(Replay { all, next: 0 }));
        }
        Ok(Box::new(Fill {
            input: Some(self.input.make_iterator()?),
            seen: Vec::new(),
            cached: self.cached.clone(),
            expected: self.input.cardinality(),
        }))
    }
}

/// Reads the input and keeps what it hands out; the cache is set when the input ends, or as
/// soon as it holds as many elements as the input's cardinality says it has (as in TensorFlow:
/// so `cache().take(n).repeat()` of an `n`-element input reads the input once).
struct Fill {
    input: Option<Box<dyn IteratorBase>>,
    seen: Vec<Element>,
    cached: Cached,
    /// The input's cardinality.
    expected: i64,
}

impl IteratorBase for Fill {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let Some(input) = self.input.as_mut() else {
            return Ok(None);
        };
        match input.get_next(ctx)? {
            Some(e) => {
                self.seen.push(e.clone());
                if i64::try_from(self.seen.len()).ok() == Some(self.expected) {
                    let all = Arc::new(std::mem::take(&mut self.seen));
                    self.cached.lock().get_or_insert(all);
                }
                Ok(Some(e))
            }
            None => {
                self.input = None;
                let all = Arc::new(std::mem::take(&mut self.seen));
                // A pass that ended first has filled it already: theirs stays.
                self.cached.lock().get_or_insert(all);
                Ok(None)
            }
        }
    }
}

/// Hands out the cached elements.
struct Replay {
    all: Arc<Vec<Element>>,
    next: usize,
}

impl IteratorBase for Replay {
    fn get_next(&mut self, _ctx: &IteratorContext) -> Result<Option<Element>> {
        let e = self.all.get(self.next).cloned();
        self.next += 1;
        Ok(e)
    }
}

struct CacheKernel;

impl Kernel for CacheKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let filename = ctx.input(1);
        if filename.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "filename must be a scalar, got shape {}",
                weir_graph::format_dims(filename.shape())
            )));
        }
        let filename =
            String::from_utf8_lossy(&filename.to_scalar::<weir_graph::Bytes>()?).into_owned();
        if !filename.is_empty() {
            let ds = super::cache_file::FileCache { input, filename };
            ctx.set_output(0, dataset_tensor(Arc::new(ds)));
            return Ok(());
        }
        let ds = Cache {
            input,
            cached: Arc::new(Mutex::new(None)),
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("CacheDataset")
            .input("input_dataset", ArgType::Fixed(DType::Resource))
            .input("filename", ArgType::Fixed(DType::String)),
    );
    register_kernel("CacheDataset", |_| Ok(Box::new(CacheKernel)));
}
