//! `TakeWhileDataset` (`Dataset.take_while`): the elements up to the first for which a
//! predicate is false.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{DType, Error, Kernel, OpContext, Output, Result};

use super::super::function::{build_function, BoundFunction, BuiltFunction, FunctionAttr};
use super::super::map::function_dataset_def;
use super::super::structure::Component;
use super::super::{
    dataset_tensor, input_dataset, Dataset, DatasetBase, Element, IteratorBase, IteratorContext,
};
use super::tensor_spec;

/// The elements of `input` while `predicate` holds.
struct TakeWhile {
    input: Arc<dyn DatasetBase>,
    predicate: BoundFunction,
}

impl DatasetBase for TakeWhile {
    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(TakeWhileIter {
            input: Some(self.input.make_iterator()?),
            predicate: self.predicate.clone(),
        }))
    }
}

struct TakeWhileIter {
    /// `None` once the input has ended or the predicate has been false.
    input: Option<Box<dyn IteratorBase>>,
    predicate: BoundFunction,
}

impl IteratorBase for TakeWhileIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        let Some(input) = self.input.as_mut() else {
            return Ok(None);
        };
        let Some(e) = input.get_next(ctx)? else {
            self.input = None;
            return Ok(None);
        };
        let keep = self.predicate.call(e.clone(), ctx)?;
        let holds = match keep.as_slice() {
            [t] if t.dtype() == DType::Bool && t.rank() == 0 => t.to_scalar::<bool>()?,
            _ => {
                return Err(Error::invalid_argument(
                    "`predicate` must return a scalar bool tensor.",
                ))
            }
        };
        if holds {
            Ok(Some(e))
        } else {
            self.input = None;
            Ok(None)
        }
    }
}

struct TakeWhileKernel {
    predicate: FunctionAttr,
}

impl Kernel for TakeWhileKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let captured = ctx.inputs()[1..].to_vec();
        let predicate = BoundFunction::new(self.predicate.get(ctx)?, captured);
        ctx.set_output(0, dataset_tensor(Arc::new(TakeWhile { input, predicate })));
        Ok(())
    }
}

impl Dataset {
    /// `dataset.take_while(predicate)` (`tf.data.experimental.take_while`): the elements up to,
    /// not including, the first for which `predicate` (a scalar bool of the element's
    /// components) is false (op `TakeWhileDataset`).
    ///
    /// ```
    /// use weir_graph::Graph;
    /// use weir_ops::array::constant;
    /// use weir_ops::data::Dataset;
    /// use weir_ops::math::less;
    ///
    /// let g = Graph::new();
    /// let ds = Dataset::range(&g, 0, 10, 1)?
    ///     .take_while(|x| less(&x[0], constant(x[0].graph(), 4i64)?))?;
    /// // In a session: 0, 1, 2, 3, then OutOfRange "End of sequence".
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn take_while(
        &self,
        predicate: impl FnOnce(&[Output]) -> Result<Output>,
    ) -> Result<Dataset> {
        self.dense_only("dataset.take_while")?;
        let func = build_function(
            self.graph(),
            "take_while",
            self.output_types(),
            self.output_shapes(),
            |x| Ok(vec![predicate(x)?]),
        )?;
        self.take_while_dataset(func)
    }

    /// [`take_while`](Self::take_while) for elements that may hold sparse tensors: `predicate`
    /// reads the components as [`map_components`](Self::map_components)'s function does.
    pub fn take_while_components(
        &self,
        predicate: impl FnOnce(&[Component]) -> Result<Output>,
    ) -> Result<Dataset> {
        let (func, _) =
            self.component_function("take_while", |x| Ok(vec![predicate(x)?.into()]))?;
        self.take_while_dataset(func)
    }

    /// The `TakeWhileDataset` of the built predicate `func`.
    fn take_while_dataset(&self, func: BuiltFunction) -> Result<Dataset> {
        let p = &func.results[0];
        if p.dtype() != DType::Bool || p.shape().rank() != Some(0) {
            return Err(Error::invalid_argument(format!(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its \
                 return type is{}.",
                tensor_spec(p.dtype(), &p.shape())
            )));
        }
        let b = crate::new_op(self.graph(), "TakeWhileDataset")
            .input(self.handle())
            .inputs(func.captured.iter().cloned())
            .attr(
                "Targuments",
                func.captured.iter().map(|o| o.dtype()).collect::<Vec<_>>(),
            );
        self.derive(func.attrs(b, "predicate"))
    }
}

pub(super) fn register() {
    register_op(function_dataset_def("TakeWhileDataset", "predicate"));
    register_kernel("TakeWhileDataset", |node| {
        Ok(Box::new(TakeWhileKernel {
            predicate: FunctionAttr::from_node(node, "predicate")?,
        }))
    });
}
