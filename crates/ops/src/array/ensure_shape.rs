//! Ops that pass their input on while asserting something about it: `EnsureShape`
//! (`tf.ensure_shape`, a run-time shape check) and `GuaranteeConst` (`tf.guarantee_const`);
//! and `Empty` (`tf.raw_ops.Empty`), a new tensor of a shape computed at run time.
//! (`PreventGradient` lives with the CTC ops, whose gradient uses it: `nn::prevent_gradient`.)

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, Graph, InferenceContext, Kernel,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::shape_util::{to_i64s, IndexArg};

/// `tf.ensure_shape(x, shape)` (op `EnsureShape`): `x`, after checking at run time that its
/// shape is compatible with `shape` (unknown dims match anything); the static shape becomes
/// the merge of both.
pub fn ensure_shape(x: impl Into<Output>, shape: impl Into<Shape>) -> Result<Output> {
    let x = x.into();
    let g = x.graph().clone();
    crate::new_op(&g, "EnsureShape")
        .input(x)
        .attr("shape", shape.into())
        .build()?
        .output(0)
}

/// `tf.guarantee_const(input)` (op `GuaranteeConst`): `input`, promising the runtime that it
/// is constant during the session.
pub fn guarantee_const(input: impl Into<Output>) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    crate::new_op(&g, "GuaranteeConst")
        .input(x)
        .build()?
        .output(0)
}

/// `tf.raw_ops.Empty(shape, dtype, init)`: a tensor of `shape` (an int32 vector, known here
/// or computed by the graph). TensorFlow leaves it uninitialized unless `init`; weir always
/// zero-fills it.
pub fn empty(
    graph: &Graph,
    shape: impl Into<IndexArg>,
    dtype: DType,
    init: bool,
) -> Result<Output> {
    let s = shape.into().to_output(graph)?;
    crate::new_op(graph, "Empty")
        .input(s)
        .attr("dtype", dtype)
        .attr("init", init)
        .build()?
        .output(0)
}

/// The static form of `s` TensorFlow prints in messages: `[2,?]`.
fn debug_shape(s: &Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|v| v.map_or("?".to_string(), |v| v.to_string()))
                .collect();
            format!("[{}]", parts.join(","))
        }
    }
}

struct EnsureShapeKernel {
    expected: Shape,
}

impl Kernel for EnsureShapeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        if !self.expected.is_compatible_with_dims(x.shape()) {
            // TensorFlow names the input tensor; a kernel here knows only its own node, which
            // `tf.ensure_shape` names after its input anyway.
            return Err(Error::invalid_argument(format!(
                "Shape of tensor {} {} is not compatible with expected shape {}.",
                ctx.node().name(),
                format_dims(x.shape()),
                debug_shape(&self.expected)
            )));
        }
        ctx.set_output(0, x);
        Ok(())
    }
}

fn ensure_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let want: Shape = ctx.attr("shape")?;
    let have = ctx.input_shape(0).clone();
    let merged = have.merge_with(&want).map_err(|_| {
        Error::invalid_argument(format!(
            "Shapes {} and {} are incompatible",
            debug_shape(&want),
            debug_shape(&have)
        ))
    })?;
    ctx.set_output(0, merged);
    Ok(())
}

struct PassThrough;

impl Kernel for PassThrough {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        ctx.set_output(0, x);
        Ok(())
    }
}

fn same_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

struct EmptyKernel {
    dtype: DType,
}

impl Kernel for EmptyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = ctx.input(0);
        if s.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "shape must be a vector of int32, got shape {}",
                format_dims(s.shape())
            )));
        }
        let mut dims = Vec::with_capacity(s.num_elements());
        for d in to_i64s(s)? {
            if d < 0 {
                return Err(Error::invalid_argument(format!(
                    "Dimension {d} must be >= 0"
                )));
            }
            dims.push(d as usize);
        }
        ctx.set_output(0, Tensor::zeros(self.dtype, &dims)?);
        Ok(())
    }
}

fn empty_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 1)?;
    let out = match ctx.input_const(0) {
        Some(t) => Shape::from_i64(&to_i64s(t)?),
        None => match ctx.input_partial_shape(0) {
            Some(s) => s.clone(),
            None => match ctx.input_shape(0).dim(0) {
                Some(n) => Shape::unknown_of_rank(n),
                None => Shape::unknown(),
            },
        },
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("EnsureShape")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .attr("shape", AttrKind::Shape, None)
            .type_attr("T", DType::ALL)
            .shape_fn(ensure_shape_fn),
    );
    register_kernel("EnsureShape", |n| {
        Ok(Box::new(EnsureShapeKernel {
            expected: n.attr("shape")?,
        }))
    });
    register_op(
        OpDef::new("GuaranteeConst")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL)
            .stateful()
            .shape_fn(same_shape_fn),
    );
    register_kernel("GuaranteeConst", |_| Ok(Box::new(PassThrough)));
    register_op(
        OpDef::new("Empty")
            .input("shape", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("dtype"))
            .type_attr("dtype", DType::ALL_DATA)
            .attr("init", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .stateful()
            .shape_fn(empty_shape_fn),
    );
    register_kernel("Empty", |n| {
        Ok(Box::new(EmptyKernel {
            dtype: n.attr("dtype")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_print_like_tensorflow() {
        assert_eq!(debug_shape(&Shape::new(vec![Some(3), None])), "[3,?]");
        assert_eq!(debug_shape(&Shape::unknown()), "<unknown>");
    }
}
