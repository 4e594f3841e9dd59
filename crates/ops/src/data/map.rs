//! `MapDataset` (`Dataset.map`) and `FilterDataset` (`Dataset.filter`): a function of the graph
//! called on each element.

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, AttrKind, DType, Error, Kernel, OpContext, Result};

use super::function::{BoundFunction, FunctionAttr};
use super::{
    dataset_def, dataset_tensor, input_dataset, output_dtypes, DatasetBase, Element, IteratorBase,
    IteratorContext,
};

/// The elements of `input` passed through `f`.
struct Map {
    input: Arc<dyn DatasetBase>,
    f: BoundFunction,
    dtypes: Vec<DType>,
}

impl DatasetBase for Map {
    fn cardinality(&self) -> i64 {
        self.input.cardinality()
    }

    fn output_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(MapIter {
            input: self.input.make_iterator()?,
            f: self.f.clone(),
        }))
    }
}

struct MapIter {
    input: Box<dyn IteratorBase>,
    f: BoundFunction,
}

impl IteratorBase for MapIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        match self.input.get_next(ctx)? {
            Some(e) => self.f.call(e, ctx).map(Some),
            None => Ok(None),
        }
    }
}

/// The elements of `input` for which `predicate` is true.
struct Filter {
    input: Arc<dyn DatasetBase>,
    predicate: BoundFunction,
}

impl DatasetBase for Filter {
    fn output_dtypes(&self) -> &[DType] {
        self.input.output_dtypes()
    }

    fn make_iterator(&self) -> Result<Box<dyn IteratorBase>> {
        Ok(Box::new(FilterIter {
            input: self.input.make_iterator()?,
            predicate: self.predicate.clone(),
        }))
    }
}

struct FilterIter {
    input: Box<dyn IteratorBase>,
    predicate: BoundFunction,
}

impl IteratorBase for FilterIter {
    fn get_next(&mut self, ctx: &IteratorContext) -> Result<Option<Element>> {
        loop {
            let Some(e) = self.input.get_next(ctx)? else {
                return Ok(None);
            };
            let keep = self.predicate.call(e.clone(), ctx)?;
            match keep.as_slice() {
                [t] if t.dtype() == DType::Bool && t.rank() == 0 => {
                    if t.to_scalar::<bool>()? {
                        return Ok(Some(e));
                    }
                }
                _ => {
                    return Err(Error::invalid_argument(
                        "Filter predicate `predicate` must return a scalar bool.",
                    ))
                }
            }
            ctx.check()?;
        }
    }
}

/// The function attr `f` (or `predicate`) of a map or filter node, and its captured inputs.
struct FunctionKernel {
    f: FunctionAttr,
    filter: bool,
}

impl Kernel for FunctionKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = input_dataset(ctx, 0)?;
        let captured = ctx.inputs()[1..].to_vec();
        let f = BoundFunction::new(self.f.get(ctx)?, captured);
        let ds: Arc<dyn DatasetBase> = if self.filter {
            Arc::new(Filter {
                input,
                predicate: f,
            })
        } else {
            Arc::new(Map {
                input,
                f,
                dtypes: output_dtypes(ctx.node())?,
            })
        };
        ctx.set_output(0, dataset_tensor(ds));
        Ok(())
    }
}

/// A dataset op that calls the function of attrs `{prefix}_feeds` / `{prefix}_results` with
/// captured inputs `other_arguments`.
pub(crate) fn function_dataset_def(name: &str, prefix: &'static str) -> weir_graph::OpDef {
    dataset_def(name)
        .input("input_dataset", ArgType::Fixed(DType::Resource))
        .input("other_arguments", ArgType::List("Targuments"))
        .attr("Targuments", AttrKind::Types, None)
        .attr(
            if prefix == "f" {
                "f_feeds"
            } else {
                "predicate_feeds"
            },
            AttrKind::Strs,
            None,
        )
        .attr(
            if prefix == "f" {
                "f_results"
            } else {
                "predicate_results"
            },
            AttrKind::Strs,
            None,
        )
}

pub(super) fn register() {
    register_op(function_dataset_def("MapDataset", "f"));
    register_kernel("MapDataset", |node| {
        Ok(Box::new(FunctionKernel {
            f: FunctionAttr::from_node(node, "f")?,
            filter: false,
        }))
    });
    register_op(function_dataset_def("FilterDataset", "predicate"));
    register_kernel("FilterDataset", |node| {
        Ok(Box::new(FunctionKernel {
            f: FunctionAttr::from_node(node, "predicate")?,
            filter: true,
        }))
    });
}
