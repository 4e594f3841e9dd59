//! `tf.experimental.Optional` and `tf.data.experimental.get_next_as_optional`: an element that
//! may be missing, so a graph can test for the end of a dataset (`has_value`) instead of
//! catching OutOfRange. Ops `IteratorGetNextAsOptional`, `OptionalHasValue`,
//! `OptionalGetValue`, `OptionalFromValue` and `OptionalNone`; an optional is a `resource`
//! tensor here (TensorFlow's is a `variant`).

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Graph, Kernel, OpContext, OpDef, Output, Resource,
    ResourceHandle, Result, Shape, Tensor,
};

use super::iterator::{element_shapes, IteratorResource};
use super::{Iterator, IteratorContext};

/// `tf.experimental.Optional`: a handle on a value that may be absent, with its element's
/// dtypes and static shapes.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::data::Dataset;
/// let g = Graph::new();
/// let it = Dataset::range(&g, 0, 2, 1)?.make_one_shot_iterator()?;
/// let next = it.get_next_as_optional()?;
/// let (more, value) = (next.has_value()?, next.get_value()?);
/// // Runs of [more, value[0]]: [true, 0], [true, 1], then `more` is false (and `value` an error).
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Optional {
    handle: Output,
    dtypes: Vec<DType>,
    shapes: Vec<Shape>,
}

impl Optional {
    /// `tf.experimental.Optional.from_value(value)`: an optional holding `components`
    /// (op `OptionalFromValue`).
    pub fn from_value(components: &[Output]) -> Result<Optional> {
        let g = components
            .first()
            .map(|c| c.graph())
            .ok_or_else(|| Error::invalid_argument("An optional's value needs a component"))?;
        let op = crate::new_op(g, "OptionalFromValue")
            .inputs(components.iter().cloned())
            .attr(
                "Toutput_types",
                components.iter().map(|c| c.dtype()).collect::<Vec<_>>(),
            )
            .build()?;
        Ok(Optional {
            handle: op.output(0)?,
            dtypes: components.iter().map(|c| c.dtype()).collect(),
            shapes: components.iter().map(|c| c.shape()).collect(),
        })
    }

    /// `tf.experimental.Optional.empty(element_spec)`: an optional without a value, of an
    /// element of `dtypes` and `shapes` (op `OptionalNone`).
    pub fn empty(g: &Graph, dtypes: &[DType], shapes: &[Shape]) -> Result<Optional> {
        if dtypes.len() != shapes.len() {
            return Err(Error::invalid_argument(format!(
                "An optional's element has {} dtypes but {} shapes",
                dtypes.len(),
                shapes.len()
            )));
        }
        let op = crate::new_op(g, "OptionalNone").build()?;
        Ok(Optional {
            handle: op.output(0)?,
            dtypes: dtypes.to_vec(),
            shapes: shapes.to_vec(),
        })
    }

    /// `optional.has_value()`: a bool scalar (op `OptionalHasValue`).
    pub fn has_value(&self) -> Result<Output> {
        crate::new_op(self.handle.graph(), "OptionalHasValue")
            .input(&self.handle)
            .build()?
            .output(0)
    }

    /// `optional.get_value()`: the value's components; InvalidArgument "The given optional
    /// does not have a value." when it has none (op `OptionalGetValue`).
    pub fn get_value(&self) -> Result<Vec<Output>> {
        let op = crate::new_op(self.handle.graph(), "OptionalGetValue")
            .input(&self.handle)
            .attr("output_types", self.dtypes.clone())
            .attr("output_shapes", self.shapes.clone())
            .build()?;
        Ok(op.outputs())
    }

    /// The optional's handle tensor.
    pub fn handle(&self) -> &Output {
        &self.handle
    }
}

impl Iterator {
    /// `tf.data.experimental.get_next_as_optional(iterator)`: the next element as an
    /// [`Optional`], empty at the end of the dataset instead of OutOfRange (op
    /// `IteratorGetNextAsOptional`).
    pub fn get_next_as_optional(&self) -> Result<Optional> {
        self.dense_only("iterator.get_next_as_optional")?;
        let op = crate::new_op(self.handle().graph(), "IteratorGetNextAsOptional")
            .input(self.handle())
            .attr("output_types", self.output_types().to_vec())
            .attr("output_shapes", self.output_shapes().to_vec())
            .build()?;
        Ok(Optional {
            handle: op.output(0)?,
            dtypes: self.output_types().to_vec(),
            shapes: self.output_shapes().to_vec(),
        })
    }
}

/// The value behind an optional's handle.
struct OptionalValue(Option<Vec<Tensor>>);

impl Resource for OptionalValue {
    fn type_name(&self) -> &str {
        "Optional"
    }
}

fn optional_tensor(value: Option<Vec<Tensor>>) -> Tensor {
    Tensor::scalar(ResourceHandle::new(
        "",
        "optional",
        Arc::new(OptionalValue(value)),
    ))
}

struct GetNextAsOptionalKernel;

impl Kernel for GetNextAsOptionalKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ictx = IteratorContext::of(ctx);
        let value = ctx
            .resource::<IteratorResource>(0)?
            .get_next_if_any(&ictx)?;
        ctx.set_output(0, optional_tensor(value));
        Ok(())
    }

    /// Reading files, or waiting for a prefetching thread.
    fn may_block(&self) -> bool {
        true
    }
}

struct HasValueKernel;

impl Kernel for HasValueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let has = ctx.resource::<OptionalValue>(0)?.0.is_some();
        ctx.set_output(0, Tensor::scalar(has));
        Ok(())
    }
}

struct GetValueKernel;

impl Kernel for GetValueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let value =
            ctx.resource::<OptionalValue>(0)?.0.clone().ok_or_else(|| {
                Error::invalid_argument("The given optional does not have a value.")
            })?;
        if value.len() != ctx.num_outputs() {
            return Err(Error::invalid_argument(format!(
                "The given optional has {} components, not {}",
                value.len(),
                ctx.num_outputs()
            )));
        }
        for (i, t) in value.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

struct FromValueKernel;

impl Kernel for FromValueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let value = ctx.inputs().to_vec();
        ctx.set_output(0, optional_tensor(Some(value)));
        Ok(())
    }
}

struct NoneKernel;

impl Kernel for NoneKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_output(0, optional_tensor(None));
        Ok(())
    }
}

fn scalar_output(ctx: &mut weir_graph::InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("IteratorGetNextAsOptional")
            .input("iterator", ArgType::Fixed(DType::Resource))
            .output("optional", ArgType::Fixed(DType::Resource))
            .attr("output_types", AttrKind::Types, None)
            .attr("output_shapes", AttrKind::Shapes, None)
            .stateful()
            .shape_fn(scalar_output),
    );
    register_kernel("IteratorGetNextAsOptional", |_| {
        Ok(Box::new(GetNextAsOptionalKernel))
    });
    register_op(
        OpDef::new("OptionalHasValue")
            .input("optional", ArgType::Fixed(DType::Resource))
            .output("has_value", ArgType::Fixed(DType::Bool))
            .shape_fn(scalar_output),
    );
    register_kernel("OptionalHasValue", |_| Ok(Box::new(HasValueKernel)));
    register_op(
        OpDef::new("OptionalGetValue")
            .input("optional", ArgType::Fixed(DType::Resource))
            .output("components", ArgType::List("output_types"))
            .attr("output_types", AttrKind::Types, None)
            .attr("output_shapes", AttrKind::Shapes, None)
            .shape_fn(element_shapes),
    );
    register_kernel("OptionalGetValue", |_| Ok(Box::new(GetValueKernel)));
    register_op(
        OpDef::new("OptionalFromValue")
            .input("components", ArgType::List("Toutput_types"))
            .output("optional", ArgType::Fixed(DType::Resource))
            .attr("Toutput_types", AttrKind::Types, None)
            .shape_fn(scalar_output),
    );
    register_kernel("OptionalFromValue", |_| Ok(Box::new(FromValueKernel)));
    register_op(
        OpDef::new("OptionalNone")
            .output("optional", ArgType::Fixed(DType::Resource))
            .shape_fn(scalar_output),
    );
    register_kernel("OptionalNone", |_| Ok(Box::new(NoneKernel)));
}
