//! `MaxPoolV2` and `MaxPoolGradV2`: `MaxPool` and `MaxPoolGrad` with `ksize` and `strides`
//! as int32 tensor inputs, what `tf.nn.max_pool` emits when they are tensors. The kernels are
//! [`super::pool`]'s; the window is read and checked when the op runs, with TensorFlow's
//! messages, and the shape is inferred only when both inputs are constants.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::match_real_or_half;
use super::padding::{check_nhwc, spatial_pair, static_dim, Padding};
use super::pool::{backward, forward, PoolAttrs};
use crate::array::shape_util::to_i64s;

/// `tf.nn.max_pool(value, ksize, strides, padding)` with tensor `ksize` and `strides` (op
/// `MaxPoolV2`, NHWC): each an int32 vector of 4 values.
pub fn max_pool_v2(
    value: impl Into<Output>,
    ksize: impl Into<Output>,
    strides: impl Into<Output>,
    padding: Padding,
) -> Result<Output> {
    let (x, k, s) = (value.into(), ksize.into(), strides.into());
    let g = crate::util::same_graph(&[&x, &k, &s])?.clone();
    crate::new_op(&g, "MaxPoolV2")
        .inputs([x, k, s])
        .attr("padding", padding.as_str())
        .attr("data_format", "NHWC")
        .build()?
        .output(0)
}

/// TensorFlow's `MaxPoolGradV2(orig_input, orig_output, grad, ksize, strides)`: the gradient
/// of [`max_pool_v2`], routed to the first maximum of each window.
pub fn max_pool_grad_v2(
    orig_input: impl Into<Output>,
    orig_output: impl Into<Output>,
    grad: impl Into<Output>,
    ksize: impl Into<Output>,
    strides: impl Into<Output>,
    padding: Padding,
) -> Result<Output> {
    let ins = [
        orig_input.into(),
        orig_output.into(),
        grad.into(),
        ksize.into(),
        strides.into(),
    ];
    let g = crate::util::same_graph(&ins.iter().collect::<Vec<_>>())?.clone();
    crate::new_op(&g, "MaxPoolGradV2")
        .inputs(ins)
        .attr("padding", padding.as_str())
        .attr("data_format", "NHWC")
        .build()?
        .output(0)
}

/// The window and strides of a run, with the checks TensorFlow's V2 kernels make before
/// pooling (`stride_word` is "stride" forward and "strides" backward, as in its messages).
fn window(k: &Tensor, s: &Tensor, padding: Padding, grad: bool) -> Result<PoolAttrs> {
    let (k, s) = (to_i64s(k)?, to_i64s(s)?);
    if k.len() != 4 {
        return Err(Error::invalid_argument(
            "Sliding window ksize field must specify 4 dimensions",
        ));
    }
    if s.len() != 4 {
        let word = if grad { "strides" } else { "stride" };
        return Err(Error::invalid_argument(format!(
            "Sliding window {word} field must specify 4 dimensions"
        )));
    }
    if k[0] != 1 || s[0] != 1 {
        return Err(Error::unimplemented(
            "Pooling is not yet supported on the batch dimension.",
        ));
    }
    if grad && (k[3] != 1 || s[3] != 1) {
        return Err(Error::unimplemented(
            "MaxPoolingGrad is not yet supported on the depth dimension.",
        ));
    }
    Ok(PoolAttrs {
        ksize: spatial_pair(&k, "ksize")?,
        strides: spatial_pair(&s, "strides")?,
        padding: padding.into(),
    })
}

struct PoolV2Kernel {
    padding: Padding,
    grad: bool,
}

impl Kernel for PoolV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let out = if self.grad {
            for (i, what) in [(0, "tensor_in"), (1, "tensor_out"), (2, "out_backprop")] {
                if ctx.input(i).rank() != 4 {
                    return Err(Error::invalid_argument(format!(
                        "{what} must be 4-dimensional"
                    )));
                }
            }
            let a = window(ctx.input(3), ctx.input(4), self.padding, true)?;
            match_real_or_half!(x.dtype(), T => backward::<T>(a, x, ctx.input(1), ctx.input(2))?)
        } else {
            let a = window(ctx.input(1), ctx.input(2), self.padding, false)?;
            if x.rank() != 4 {
                return Err(Error::invalid_argument(format!(
                    "tensor_in must be 4-dimensional, got {}",
                    format_dims(x.shape())
                )));
            }
            match_real_or_half!(x.dtype(), T => forward::<T>(a, x)?)
        };
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    check_nhwc(&node.attr::<String>("data_format")?)?;
    Ok(Box::new(PoolV2Kernel {
        padding: Padding::parse(&node.attr::<String>("padding")?)?,
        grad: node.op_type() == "MaxPoolGradV2",
    }))
}

/// A `ksize`/`strides` input: a vector of 4 (TensorFlow's `WithRank` and `WithValue`).
fn four_vector(ctx: &InferenceContext<'_>, i: usize) -> Result<()> {
    let s = ctx.with_rank(i, 1)?;
    match s.dim(0) {
        Some(d) if d != 4 => Err(Error::invalid_argument(format!(
            "Dimension must be 4 but is {d} for '{}'",
            ctx.op_type
        ))),
        _ => Ok(()),
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    check_nhwc(&ctx.attr::<String>("data_format")?)?;
    let padding = Padding::parse(&ctx.attr::<String>("padding")?)?;
    let x = ctx.with_rank(0, 4)?;
    four_vector(ctx, 1)?;
    four_vector(ctx, 2)?;
    let consts = (ctx.input_const(1).cloned(), ctx.input_const(2).cloned());
    let (Some(k), Some(s)) = consts else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let (k, s) = (to_i64s(&k)?, to_i64s(&s)?);
    let dim = |d: Option<usize>, i: usize| -> Result<Option<usize>> {
        let (k, s) = (k[i].max(0) as usize, s[i].max(0) as usize);
        static_dim(d, Some(k), s, padding.into(), 0)
    };
    let out = Shape::new(vec![
        dim(x.dim(0), 0)?,
        dim(x.dim(1), 1)?,
        dim(x.dim(2), 2)?,
        dim(x.dim(3), 3)?,
    ]);
    ctx.set_output(0, out);
    Ok(())
}

fn grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.with_rank(0, 4)?;
    ctx.set_output(0, x);
    Ok(())
}

pub(super) fn register() {
    let common = |def: OpDef, types| {
        def.type_attr("T", types)
            .attr("padding", AttrKind::Str, None)
            .attr(
                "data_format",
                AttrKind::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
    };
    register_op(
        common(OpDef::new("MaxPoolV2"), super::MAX_POOL_TYPES)
            .input("input", ArgType::Attr("T"))
            .input("ksize", ArgType::Fixed(DType::I32))
            .input("strides", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .shape_fn(shape_fn),
    );
    register_op(
        common(OpDef::new("MaxPoolGradV2"), DType::REAL_AND_HALF)
            .input("orig_input", ArgType::Attr("T"))
            .input("orig_output", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .input("ksize", ArgType::Fixed(DType::I32))
            .input("strides", ArgType::Fixed(DType::I32))
            .output("output", ArgType::Attr("T"))
            .shape_fn(grad_shape_fn),
    );
    register_kernel("MaxPoolV2", make);
    register_kernel("MaxPoolGradV2", make);
}
