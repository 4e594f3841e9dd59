//! `DirectedInterleaveDataset` (`Dataset.choose_from_datasets`): each element taken from the
//! dataset that the next element of a choice dataset names.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, DType, Error, Kernel, OpContext, Result};

use super::super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, Dataset, DatasetBase, Element,
    IteratorBase, IteratorContext,
};
use super::{common_supertype, dtype_list, element_spec};

/// The elements of `inputs` in the order `selector`'s indices give.
struct DirectedInterleave {
    selector: Arc<dyn DatasetBase>,
    inputs: Vec<Arc<dyn DatasetBase>>,
    dtypes: Vec<DType>,
    stop_on_empty_dataset: bool,
}

impl DatasetBase for DirectedInterleave {
    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        let inputs = self
            .inputs
            .iter()
            .map(|d| d.make_iterator().map(Some))
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(DirectedInterleaveIter {
            selector: Some(self.selector.make_iterator()?),
            active: inputs.len(),
            inputs,
            stop_on_empty_dataset: self.stop_on_empty_dataset,
        }))
    }
}

struct DirectedInterleaveIter {
    /// `None` once the interleave has ended.
    selector: Option<Box<dyn IteratorBase>>,
    /// Each input's iterator, `None` once it has ended.
    inputs: Vec<Option<Box<dyn IteratorBase>>>,
    /// The inputs that have not ended.
    active: usize,
    stop_on_empty_dataset: bool,
}

impl DirectedInterleaveIter {
    fn end(&mut self) -> Result<Option<Element>> {
        self.selector = None;
        self.inputs.clear();
        self.active = 0;
        Ok(None)
    }
}

impl IteratorBase for DirectedInterleaveIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let mut skipped = 0u32;
        loop {
            // Once every input has ended nothing more can come, however long the selector.
            if self.active == 0 {
                return self.end();
            }
            let Some(selector) = self.selector.as_mut() else {
                return Ok(None);
            };
            let Some(choice) = selector.get_next(ctx)? else {
                return self.end();
            };
            let n = self.inputs.len();
            let index = match choice.as_slice() {
                [t] if t.dtype() == DType::I64 && t.num_elements() == 1 => t.to_scalar::<i64>()?,
                _ => {
                    return Err(Error::invalid_argument(
                        "The selector dataset's elements must be scalar int64 tensors.",
                    ))
                }
            };
            let Some(slot) = usize::try_from(index)
                .ok()
                .and_then(|i| self.inputs.get_mut(i))
            else {
                return Err(Error::invalid_argument(format!(
                    "Selector index out of range: {index} >= {n}"
                )));
            };
            if let Some(input) = slot.as_mut() {
                if let Some(e) = input.get_next(ctx)? {
                    return Ok(Some(e));
                }
                *slot = None;
                self.active -= 1;
                if self.stop_on_empty_dataset {
                    return self.end();
                }
            }
            skipped += 1;
            if skipped % 1024 == 0 {
                ctx.check()?;
            }
        }
    }
}

struct DirectedInterleaveKernel {
    stop_on_empty_dataset: bool,
}

impl Kernel for DirectedInterleaveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let selector = input_dataset(ctx, 0)?;
        if selector.output_dtypes() != [DType::I64] {
            return Err(Error::invalid_argument(format!(
                "The selector input must be a dataset of scalar int64 elements, not {}",
                dtype_list(selector.output_dtypes())
            )));
        }
        let inputs = (1..ctx.inputs().len())
            .map(|i| input_dataset(ctx, i))
            .collect::<Result<Vec<_>>>()?;
        let dtypes = output_dtypes(ctx.node())?;
        for (i, d) in inputs.iter().enumerate() {
            if d.output_dtypes() != dtypes {
                return Err(Error::invalid_argument(format!(
                    "All inputs must have the same output_dtypes. First input has types {}, and \
                     input {i} has types {}",
                    dtype_list(&dtypes),
                    dtype_list(d.output_dtypes())
                )));
            }
        }
        let ds = DirectedInterleave {
            selector,
            inputs,
            dtypes,
            stop_on_empty_dataset: self.stop_on_empty_dataset,
        };
        ctx.set_output(0, dataset_tensor(Arc::new(ds)));
        Ok(())
    }
}

impl Dataset {
    /// `tf.data.Dataset.choose_from_datasets(datasets, choice_dataset,
    /// stop_on_empty_dataset)`: each element taken from `datasets[i]` for the next index `i`
    /// of `choice_dataset`, a dataset of scalar int64 (op `DirectedInterleaveDataset`).
    ///
    /// The datasets must have the same dtypes; each static shape is the most specific one all
    /// of theirs fit. An index out of range fails that element (InvalidArgument "Selector
    /// index out of range: 2 >= 2") and reading may go on. When a chosen dataset has ended,
    /// the whole ends if `stop_on_empty_dataset`, and otherwise the index is skipped; it
    /// ends in any case with `choice_dataset` or once every dataset has ended.
    ///
    /// ```
    /// use weir_graph::{Graph, Tensor};
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    ///
    /// let g = Graph::new();
    /// let a = Dataset::range(&g, 0, 3, 1)?;
    /// let b = Dataset::range(&g, 10, 13, 1)?;
    /// let choice = constant(&g, Tensor::from(vec![0i64, 1, 1, 0]))?;
    /// let choice = Dataset::from_tensor_slices(&[choice])?;
    /// let ds = Dataset::choose_from_datasets(&[a, b], &choice, true)?;
    /// // In a session: 0, 10, 11, 1, then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn choose_from_datasets(
        datasets: &[Dataset],
        choice_dataset: &Dataset,
        stop_on_empty_dataset: bool,
    ) -> Result<Dataset> {
        let Some(first) = datasets.first() else {
            return Err(Error::invalid_argument(
                "Invalid `datasets`. `datasets` should not be empty.",
            ));
        };
        for d in datasets {
            d.dense_only("Dataset.choose_from_datasets")?;
        }
        let (cd, cs) = (
            choice_dataset.output_types(),
            choice_dataset.output_shapes(),
        );
        if cd != [DType::I64] || cs[0].rank() != Some(0) {
            return Err(Error::invalid_argument(format!(
                "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` \
                 tensors but are {}.",
                element_spec(cd, cs)
            )));
        }
        let mut shapes = first.output_shapes().to_vec();
        for (i, d) in datasets.iter().enumerate().skip(1) {
            if d.output_types() != first.output_types() {
                return Err(Error::invalid_argument(format!(
                    "Invalid `datasets`. `datasets` must have compatible element specs.\n \
                     Dataset 0 element_spec={}.\nDataset {i} element_spec={}.",
                    element_spec(first.output_types(), first.output_shapes()),
                    element_spec(d.output_types(), d.output_shapes())
                )));
            }
            for (s, t) in shapes.iter_mut().zip(d.output_shapes()) {
                *s = common_supertype(s, t);
            }
        }
        Dataset::build(
            crate::new_op(choice_dataset.graph(), "DirectedInterleaveDataset")
                .input(choice_dataset.handle())
                .inputs(datasets.iter().map(|d| d.handle().clone()))
                .attr("N", datasets.len() as i64)
                .attr("stop_on_empty_dataset", stop_on_empty_dataset),
            first.output_types().to_vec(),
            shapes,
        )
    }
}

pub(super) fn register() {
    register_op(
        dataset_def("DirectedInterleaveDataset")
            .input("selector_input_dataset", ArgType::Fixed(DType::Resource))
            .input(
                "data_input_datasets",
                ArgType::RepeatedFixed {
                    count: "N",
                    dtype: DType::Resource,
                },
            )
            .int_attr_min("N", 1)
            .attr(
                "stop_on_empty_dataset",
                AttrKind::Bool,
                Some(weir_graph::AttrValue::Bool(false)),
            ),
    );
    register_kernel("DirectedInterleaveDataset", |node| {
        Ok(Box::new(DirectedInterleaveKernel {
            stop_on_empty_dataset: node.attr("stop_on_empty_dataset")?,
        }))
    });
}
