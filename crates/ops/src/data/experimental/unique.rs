//! `UniqueDataset` (`Dataset.unique`): each distinct element once, at its first occurrence.

use std::collections::HashSet;
use std::sync::Arc;

use bytes::Bytes;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, DType, Error, Kernel, OpContext, Result, Tensor};

use super::super::{
    dataset_def, dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// An element's identity: its shape and values (a scalar `1` and a vector `[1]` differ).
#[derive(PartialEq, Eq, Hash)]
enum Key {
    I32(Vec<usize>, Vec<i32>),
    I64(Vec<usize>, Vec<i64>),
    Str(Vec<usize>, Vec<Bytes>),
}

impl Key {
    fn of(t: &Tensor) -> Result<Key> {
        let shape = t.shape().to_vec();
        Ok(match t.dtype() {
            DType::I32 => Key::I32(shape, t.to_vec()?),
            DType::I64 => Key::I64(shape, t.to_vec()?),
            DType::String => Key::Str(shape, t.to_vec()?),
            other => return Err(unsupported(other)),
        })
    }
}

fn unsupported(dtype: DType) -> Error {
    Error::invalid_argument(format!(
        "UniqueDataset only supports inputs of type int32, int64 or string, not {dtype}."
    ))
}

/// The elements of `input`, each seen once.
struct Unique {
    input: Arc<dyn DatasetBase>,
}

impl DatasetBase for Unique {
    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(UniqueIter {
            input: Some(self.input.make_iterator()?),
            seen: HashSet::new(),
        }))
    }
}

struct UniqueIter {
    /// `None` once the input has ended.
    input: Option<Box<dyn IteratorBase>>,
    seen: HashSet<Key>,
}

impl IteratorBase for UniqueIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let mut repeats = 0u32;
        while let Some(input) = self.input.as_mut() {
            let Some(e) = input.get_next(ctx)? else {
                self.input = None;
                break;
            };
            let [t] = e.as_slice() else {
                return Err(single_component());
            };
            if self.seen.insert(Key::of(t)?) {
                return Ok(Some(e));
            }
            repeats += 1;
            if repeats % 1024 == 0 {
                ctx.check()?;
            }
        }
        Ok(None)
    }
}

fn single_component() -> Error {
    Error::invalid_argument("UniqueDataset only supports inputs with a single component.")
}

struct UniqueKernel;

impl Kernel for UniqueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        match input.output_dtypes() {
            [DType::I32 | DType::I64 | DType::String] => {}
            [other] => return Err(unsupported(*other)),
            _ => return Err(single_component()),
        }
        ctx.set_output(0, dataset_tensor(Arc::new(Unique { input })));
        Ok(())
    }
}

impl Dataset {
    /// `dataset.unique()` (`tf.data.experimental.unique()`): each distinct element once, where
    /// it first occurs (op `UniqueDataset`). Elements must be single int32, int64 or string
    /// tensors of any shape; two elements are the same when their shapes and values are.
    ///
    /// ```
    /// use weir_graph::{Graph, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let xs = constant(&g, Tensor::from(vec![1i32, 2, 1, 3, 2]))?;
    /// let ds = Dataset::from_tensor_slices(&[xs])?.unique()?;
    /// // In a session: 1, 2, 3, then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn unique(&self) -> Result<Dataset> {
        self.dense_only("dataset.unique")?;
        // As TensorFlow's Python: every component's dtype is checked here, the number of
        // components only by the kernel when the dataset is made.
        if let Some(d) = self
            .output_types()
            .iter()
            .find(|d| !matches!(d, DType::I32 | DType::I64 | DType::String))
        {
            return Err(Error::invalid_argument(format!(
                "`tf.data.Dataset.unique` does not support type <dtype: '{}'> -- only \
                 `tf.int32`, `tf.int64`, and `tf.string` are supported.",
                d.python_name()
            )));
        }
        self.derive(crate::new_op(self.graph(), "UniqueDataset").input(self.handle()))
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("UniqueDataset").input("input_dataset", ArgType::Fixed(DType::Resource)),
    );
    register_kernel("UniqueDataset", |_| Ok(Box::new(UniqueKernel)));
}
