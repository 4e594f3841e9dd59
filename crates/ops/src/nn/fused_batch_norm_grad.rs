//! `FusedBatchNormGradV3` (and TensorFlow 1's `FusedBatchNormGrad` / `FusedBatchNormGradV2`):
//! the backward kernel `_FusedBatchNormV3Grad` builds, TensorFlow 2.21's CPU formulas.
//!
//! In training `reserve_space_1` / `reserve_space_2` are the forward pass's batch mean and
//! biased variance, and the gradient of `x` goes through the batch statistics too:
//! `dx = scale * rsqrt(var + eps) * (dy - mean(dy) - (x - mean) * mean(dy * (x - mean)) /
//! (var + eps))`. In inference they are the population mean and variance, constants of the
//! forward pass, so `dx = dy * scale * rsqrt(var + eps)`. In both modes
//! `dscale = sum(dy * (x - mean)) * rsqrt(var + eps)` and `doffset = sum(dy)`.
//! `reserve_space_3` is not read; the last two outputs are empty vectors.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Result, Shape, Tensor,
};

use super::fused_batch_norm::{
    common_attrs, data_format, layout, merge_dim, replace_dim, require_4_or_5d, require_channels,
    require_vector, rsqrt, Config,
};

/// TensorFlow's `FusedBatchNormGradShape`: `x_backprop` has `y_backprop`'s shape with the
/// channel merged across every input; the placeholder outputs are `[0]`.
fn grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let format = data_format(ctx.op_type, ctx.attr("data_format")?)?;
    let (rank, c) = layout(&format);
    let dy = ctx.with_rank(0, rank)?;
    let x = ctx.with_rank(1, rank)?;
    let mut channel = merge_dim(ctx, dy.dim(c as isize), x.dim(c as isize))?;
    for i in 2..5 {
        let v = ctx.with_rank(i, 1)?;
        channel = merge_dim(ctx, channel, v.dim(0))?;
    }
    ctx.set_output(0, replace_dim(&dy, c, channel));
    ctx.set_output(1, Shape::new(vec![channel]));
    ctx.set_output(2, Shape::new(vec![channel]));
    ctx.set_output(3, Shape::known(&[0]));
    ctx.set_output(4, Shape::known(&[0]));
    Ok(())
}

/// Per-channel sums over `[rest, c]` rows, accumulated in float64 and rounded once.
fn channel_sums(
    c: usize,
    rows: impl Iterator<Item = usize>,
    f: impl Fn(usize, usize) -> f64,
) -> Vec<f32> {
    let mut acc = vec![0.0f64; c];
    for r in rows {
        for (k, a) in acc.iter_mut().enumerate() {
            *a += f(r, k);
        }
    }
    acc.into_iter().map(|s| s as f32).collect()
}

struct Grads {
    dx: Vec<f32>,
    dscale: Vec<f32>,
    doffset: Vec<f32>,
}

fn backward(
    cfg: &Config,
    dy: &[f32],
    x: &[f32],
    c: usize,
    scale: &[f32],
    mean: &[f32],
    var: &[f32],
) -> Grads {
    let rest = x.len() / c;
    let at = |s: &[f32], r: usize, k: usize| s[r * c + k];
    let coef0: Vec<f32> = var.iter().map(|&v| rsqrt(v + cfg.epsilon)).collect();
    let doffset = channel_sums(c, 0..rest, |r, k| at(dy, r, k) as f64);
    // sum(dy * (x - mean)); TensorFlow's training formula scales x first, which only moves
    // rounding.
    let dy_xc = channel_sums(c, 0..rest, |r, k| {
        (at(dy, r, k) * (at(x, r, k) - mean[k])) as f64
    });
    let dscale: Vec<f32> = dy_xc.iter().zip(&coef0).map(|(&s, &k)| s * k).collect();
    let mut dx = dy.to_vec();
    if cfg.is_training {
        let rest_inv = 1.0f32 / rest as f32;
        let dy_mean: Vec<f32> = doffset.iter().map(|&s| s * rest_inv).collect();
        let coef1: Vec<f32> = scale.iter().zip(&coef0).map(|(&s, &k)| s * k).collect();
        let coef2: Vec<f32> = coef0
            .iter()
            .zip(&dy_xc)
            .map(|(&k, &s)| k * k * (s / rest as f32))
            .collect();
        for (row, xr) in dx.chunks_exact_mut(c).zip(x.chunks_exact(c)) {
            for k in 0..c {
                let xc = xr[k] - mean[k];
                row[k] = coef1[k] * ((row[k] - dy_mean[k]) - xc * coef2[k]);
            }
        }
    } else {
        let coef: Vec<f32> = coef0.iter().zip(scale).map(|(&k, &s)| k * s).collect();
        for row in dx.chunks_exact_mut(c) {
            for (v, &f) in row.iter_mut().zip(&coef) {
                *v *= f;
            }
        }
    }
    Grads {
        dx,
        dscale,
        doffset,
    }
}

struct FusedBatchNormGradKernel {
    cfg: Config,
}

impl Kernel for FusedBatchNormGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let cfg = &self.cfg;
        let [dy, x, scale, mean, var] = [0, 1, 2, 3, 4].map(|i| ctx.input(i));
        require_4_or_5d(dy)?;
        require_4_or_5d(x)?;
        require_vector(scale, "scale")?;
        require_vector(mean, "saved mean")?;
        require_vector(var, "saved variance")?;
        if x.shape() != dy.shape() {
            return Err(Error::invalid_argument(format!(
                "x and y_backprop must have same shape, but x has shape {} and y_backprop has shape {}",
                weir_graph::format_dims(x.shape()),
                weir_graph::format_dims(dy.shape())
            )));
        }
        let c = x.shape()[cfg.channel_dim(x.rank())];
        require_channels(scale, "scale", c)?;
        require_channels(mean, "reserve_space_1", c)?;
        require_channels(var, "reserve_space_2", c)?;
        let vshape = scale.shape().to_vec();
        let g = if x.num_elements() == 0 {
            Grads {
                dx: Vec::new(),
                dscale: vec![0.0; c],
                doffset: vec![0.0; c],
            }
        } else {
            let op = ctx.node().op_type();
            if cfg.is_training {
                cfg.require_channels_last(op)?;
            } else if cfg.format.starts_with("NC") {
                // TensorFlow's own refusal (its Python gradient transposes to NHWC first).
                return Err(Error::invalid_argument(
                    "The implementation of FusedBatchNormGrad with is_training=False only support NHWC tensor format for now.",
                ));
            }
            backward(
                cfg,
                dy.as_slice::<f32>()?,
                x.as_slice::<f32>()?,
                c,
                scale.as_slice::<f32>()?,
                mean.as_slice::<f32>()?,
                var.as_slice::<f32>()?,
            )
        };
        let xshape = x.shape().to_vec();
        ctx.set_output(0, Tensor::from_vec(&xshape, g.dx)?);
        ctx.set_output(1, Tensor::from_vec(&vshape, g.dscale)?);
        ctx.set_output(2, Tensor::from_vec(&vshape, g.doffset)?);
        ctx.set_output(3, Tensor::from_vec(&[0], Vec::<f32>::new())?);
        ctx.set_output(4, Tensor::from_vec(&[0], Vec::<f32>::new())?);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(FusedBatchNormGradKernel {
        cfg: Config::from_node(node)?,
    }))
}

pub(super) fn register() {
    for (name, u, outs) in [
        (
            "FusedBatchNormGrad",
            "T",
            ["reserve_space_3", "reserve_space_4"],
        ),
        (
            "FusedBatchNormGradV2",
            "U",
            ["reserve_space_3", "reserve_space_4"],
        ),
        (
            "FusedBatchNormGradV3",
            "U",
            ["reserve_space_4", "reserve_space_5"],
        ),
    ] {
        // V2/V3 take `scale` as float32 whatever T is; V1 has T alone.
        let scale = if u == "T" {
            ArgType::Attr("T")
        } else {
            ArgType::Fixed(DType::F32)
        };
        let mut def = common_attrs(OpDef::new(name), u == "U", false)
            .input("y_backprop", ArgType::Attr("T"))
            .input("x", ArgType::Attr("T"))
            .input("scale", scale)
            .input("reserve_space_1", ArgType::Attr(u))
            .input("reserve_space_2", ArgType::Attr(u));
        if name == "FusedBatchNormGradV3" {
            def = def.input("reserve_space_3", ArgType::Attr(u));
        }
        def = def.output("x_backprop", ArgType::Attr("T"));
        for output in ["scale_backprop", "offset_backprop", outs[0], outs[1]] {
            def = def.output(output, ArgType::Attr(u));
        }
        register_op(def.shape_fn(grad_shape));
        register_kernel(name, make);
    }
}
