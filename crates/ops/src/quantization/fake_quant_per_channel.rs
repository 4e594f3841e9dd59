//! `FakeQuantWithMinMaxVarsPerChannel` and its gradient op: fake quantization with one
//! `[min, max]` range per channel of the last dimension (a convolution's output channels).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Operation, Output,
    Result, Tensor,
};

use super::fake_quant::{grid, grid_attrs, is_zero_range, Nudged};
use super::{
    ftz, merge, merge_dim, quant_node, with_rank, with_rank_at_least, with_rank_at_most, QuantArg,
};

/// `tf.quantization.fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8,
/// narrow_range=False, name=None)` and its gradient op, as a builder holding TensorFlow's
/// defaults. `min` and `max` are float32 vectors with one entry per channel of the last
/// dimension of `inputs` (of rank 1 or more; the gradient op takes at most rank 4).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, quantization::FakeQuantWithMinMaxVarsPerChannel};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 2], vec![0.26f32, 0.26, 5.0, -5.0])?)?;
/// let q = FakeQuantWithMinMaxVarsPerChannel::new()
///     .num_bits(2)
///     .build(&x, [0.0f32, -1.5], [1.5f32, 0.0])?;
/// assert_eq!(q.name(), "FakeQuantWithMinMaxVarsPerChannel:0");
/// // Channel 0 steps by 0.5 from 0 up to 1.5; channel 1 by 0.5 from -1.5 up to 0.
/// assert_eq!(Session::new(&g)?.eval(&q)?.to_vec::<f32>()?, [0.5, 0.0, 1.5, -1.5]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FakeQuantWithMinMaxVarsPerChannel {
    num_bits: i64,
    narrow_range: bool,
    name: Option<String>,
}

impl Default for FakeQuantWithMinMaxVarsPerChannel {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeQuantWithMinMaxVarsPerChannel {
    /// `num_bits=8, narrow_range=False`.
    pub fn new() -> Self {
        FakeQuantWithMinMaxVarsPerChannel {
            num_bits: 8,
            narrow_range: false,
            name: None,
        }
    }

    /// The bit width, 2 to 16 (checked when the node runs, as TensorFlow does).
    pub fn num_bits(mut self, num_bits: i64) -> Self {
        self.num_bits = num_bits;
        self
    }

    /// Quantizes to `[1, 2^num_bits - 1]` instead of `[0, 2^num_bits - 1]`.
    pub fn narrow_range(mut self, narrow_range: bool) -> Self {
        self.narrow_range = narrow_range;
        self
    }

    /// The node's name (default: the op type).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }

    fn node(&self, op_type: &str, args: Vec<(&str, QuantArg)>) -> Result<Operation> {
        let args = args.into_iter().map(|(n, a)| (n, a, DType::F32)).collect();
        let attrs = [
            ("num_bits", self.num_bits.into()),
            ("narrow_range", self.narrow_range.into()),
        ];
        quant_node(op_type, self.name.as_deref(), args, &attrs)
    }

    /// Adds the `FakeQuantWithMinMaxVarsPerChannel` node.
    pub fn build(
        &self,
        inputs: impl Into<Output>,
        min: impl Into<QuantArg>,
        max: impl Into<QuantArg>,
    ) -> Result<Output> {
        let args = vec![
            ("inputs", inputs.into().into()),
            ("min", min.into()),
            ("max", max.into()),
        ];
        self.node("FakeQuantWithMinMaxVarsPerChannel", args)?
            .output(0)
    }

    /// Adds the `FakeQuantWithMinMaxVarsPerChannelGradient` node
    /// (`tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient`): the gradients
    /// with respect to `inputs`, `min` and `max`.
    pub fn gradient(
        &self,
        gradients: impl Into<Output>,
        inputs: impl Into<Output>,
        min: impl Into<QuantArg>,
        max: impl Into<QuantArg>,
    ) -> Result<[Output; 3]> {
        let args = vec![
            ("gradients", gradients.into().into()),
            ("inputs", inputs.into().into()),
            ("min", min.into()),
            ("max", max.into()),
        ];
        let op = self.node("FakeQuantWithMinMaxVarsPerChannelGradient", args)?;
        Ok([op.output(0)?, op.output(1)?, op.output(2)?])
    }
}

/// `tf.quantization.fake_quant_with_min_max_vars_per_channel(inputs, min, max)` with 8 bits;
/// [`FakeQuantWithMinMaxVarsPerChannel`] takes the other arguments.
pub fn fake_quant_with_min_max_vars_per_channel(
    inputs: impl Into<Output>,
    min: impl Into<QuantArg>,
    max: impl Into<QuantArg>,
) -> Result<Output> {
    FakeQuantWithMinMaxVarsPerChannel::new().build(inputs, min, max)
}

/// `tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min,
/// max)` with 8 bits: the gradients with respect to `inputs`, `min` and `max`.
pub fn fake_quant_with_min_max_vars_per_channel_gradient(
    gradients: impl Into<Output>,
    inputs: impl Into<Output>,
    min: impl Into<QuantArg>,
    max: impl Into<QuantArg>,
) -> Result<[Output; 3]> {
    FakeQuantWithMinMaxVarsPerChannel::new().gradient(gradients, inputs, min, max)
}

/// The per-channel ranges of a node's `min` and `max` inputs, checked as TensorFlow's kernel
/// checks them against the depth (the last dimension) of `x`.
fn channel_ranges(x: &Tensor, min: &Tensor, max: &Tensor) -> Result<Vec<(f32, f32)>> {
    // TensorFlow's shape function rejects a scalar when it knows the rank; its kernel aborts.
    let Some(&depth) = x.shape().last() else {
        return Err(Error::invalid_argument(
            "Shape must be at least rank 1 but is rank 0",
        ));
    };
    for (t, name) in [(min, "min"), (max, "max")] {
        if t.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "`{name}` must be rank 1 but is rank {}",
                t.rank()
            )));
        }
        if t.shape()[0] != depth {
            return Err(Error::invalid_argument(format!(
                "{name} has incorrect size, expected {depth} was {}",
                t.shape()[0]
            )));
        }
    }
    let (lo, hi) = (min.as_slice::<f32>()?, max.as_slice::<f32>()?);
    Ok(lo.iter().copied().zip(hi.iter().copied()).collect())
}

struct PerChannelKernel {
    grid: (i32, i32),
}

impl PerChannelKernel {
    fn forward(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let ranges = channel_ranges(x, ctx.input(1), ctx.input(2))?;
        let xs = x.as_slice::<f32>()?;
        let depth = ranges.len();
        // Channels interleave in memory: quantize channel by channel, then scatter back.
        let mut out = vec![0.0f32; xs.len()];
        let (mut column, mut q) = (Vec::new(), Vec::new());
        for (c, &(min, max)) in ranges.iter().enumerate() {
            if is_zero_range(min, max) {
                continue;
            }
            column.clear();
            column.extend(xs.iter().skip(c).step_by(depth));
            q.clear();
            Nudged::new(min, max, self.grid).quantize_mul(&column, &mut q);
            for (slot, v) in out.iter_mut().skip(c).step_by(depth).zip(&q) {
                *slot = *v;
            }
        }
        let t = Tensor::from_vec(x.shape(), out)?;
        ctx.set_output(0, t);
        Ok(())
    }

    fn backward(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (g, x) = (ctx.input(0), ctx.input(1));
        if g.shape() != x.shape() {
            return Err(Error::invalid_argument(
                "gradient and input must be the same size",
            ));
        }
        let ranges = channel_ranges(x, ctx.input(2), ctx.input(3))?;
        let (gs, xs) = (g.as_slice::<f32>()?, x.as_slice::<f32>()?);
        let depth = ranges.len();
        let nudged: Vec<Option<Nudged>> = ranges
            .iter()
            .map(|&(lo, hi)| (!is_zero_range(lo, hi)).then(|| Nudged::new(lo, hi, self.grid)))
            .collect();
        let mut dx = Vec::with_capacity(gs.len());
        let (mut dmin, mut dmax) = (vec![0.0f32; depth], vec![0.0f32; depth]);
        for (i, (&g, &x)) in gs.iter().zip(xs).enumerate() {
            let c = i % depth;
            match &nudged[c] {
                // A zero range passes the whole gradient to the input.
                None => dx.push(g),
                Some(n) => {
                    dx.push(n.pass(g, x));
                    let (lo, hi) = n.beyond(g, x);
                    dmin[c] = ftz(dmin[c] + lo);
                    dmax[c] = ftz(dmax[c] + hi);
                }
            }
        }
        let dx = Tensor::from_vec(x.shape(), dx)?;
        ctx.set_output(0, dx);
        ctx.set_output(1, Tensor::from_vec(&[depth], dmin)?);
        ctx.set_output(2, Tensor::from_vec(&[depth], dmax)?);
        Ok(())
    }
}

impl Kernel for PerChannelKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if ctx.num_inputs() == 3 {
            self.forward(ctx)
        } else {
            self.backward(ctx)
        }
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(PerChannelKernel { grid: grid(node)? }))
}

fn per_channel_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let input = with_rank_at_least(ctx, ctx.input_shape(0), 1)?;
    let min = with_rank(ctx, ctx.input_shape(1), 1)?;
    let max = with_rank(ctx, ctx.input_shape(2), 1)?;
    merge_dim(ctx, input.dim(-1), min.dim(0))?;
    merge_dim(ctx, input.dim(-1), max.dim(0))?;
    merge_dim(ctx, min.dim(0), max.dim(0))?;
    ctx.set_output(0, input);
    Ok(())
}

fn per_channel_gradient_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let inputs = with_rank_at_least(ctx, ctx.input_shape(0), 1)?;
    let inputs = with_rank_at_most(ctx, &inputs, 4)?;
    let inputs = merge(ctx, &inputs, ctx.input_shape(1))?;
    let last_dim = weir_graph::Shape::new(vec![inputs.dim(-1)]);
    let min_max = with_rank(ctx, ctx.input_shape(2), 1)?;
    let min_max = merge(ctx, &min_max, &last_dim)?;
    let min_max = merge(ctx, ctx.input_shape(3), &min_max)?;
    ctx.set_output(0, inputs);
    ctx.set_output(1, min_max.clone());
    ctx.set_output(2, min_max);
    Ok(())
}

pub(super) fn register() {
    let f = || ArgType::Fixed(DType::F32);
    register_op(
        grid_attrs(OpDef::new("FakeQuantWithMinMaxVarsPerChannel"))
            .input("inputs", f())
            .input("min", f())
            .input("max", f())
            .output("outputs", f())
            .shape_fn(per_channel_shape),
    );
    register_op(
        grid_attrs(OpDef::new("FakeQuantWithMinMaxVarsPerChannelGradient"))
            .input("gradients", f())
            .input("inputs", f())
            .input("min", f())
            .input("max", f())
            .output("backprops_wrt_input", f())
            .output("backprop_wrt_min", f())
            .output("backprop_wrt_max", f())
            .shape_fn(per_channel_gradient_shape),
    );
    register_kernel("FakeQuantWithMinMaxVarsPerChannel", make);
    register_kernel("FakeQuantWithMinMaxVarsPerChannelGradient", make);
}
