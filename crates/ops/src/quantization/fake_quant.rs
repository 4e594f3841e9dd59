//! `FakeQuantWithMinMaxArgs` (the range as attributes) and `FakeQuantWithMinMaxVars` (the
//! range as scalar tensors, which training learns), with their gradient ops.
//!
//! Both nudge `[min, max]` to the nearest range whose grid of `2^num_bits - 1` steps (one
//! fewer with `narrow_range`) has 0.0 on it, clamp to that range and round half up to the
//! grid. A value is counted from the grid's zero point, so 0.0 and the grid values come out
//! exact. The gradients pass the incoming gradient through inside the nudged range; `Vars`'
//! gradient also sends what falls below (above) the range to `min` (`max`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Operation, Output, Result, Tensor,
};

use super::{ftz, merge, quant_node, six_digits, with_rank, QuantArg};

/// `tf.quantization.fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8,
/// narrow_range=False, name=None)` and its gradient op, as a builder holding TensorFlow's
/// defaults. The range is fixed in the node's attributes; `inputs` are float32.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, quantization::FakeQuantWithMinMaxArgs};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, [-1.5f32, -0.3, 0.0, 0.6, 2.5])?;
/// // Two bits over [-1, 2]: the grid -1, 0, 1, 2.
/// let q = FakeQuantWithMinMaxArgs::new().min(-1.0).max(2.0).num_bits(2).build(&x)?;
/// assert_eq!(q.name(), "FakeQuantWithMinMaxArgs:0");
/// assert_eq!(Session::new(&g)?.eval(&q)?.to_vec::<f32>()?, [-1.0, 0.0, 0.0, 1.0, 2.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FakeQuantWithMinMaxArgs {
    min: f32,
    max: f32,
    num_bits: i64,
    narrow_range: bool,
    name: Option<String>,
}

impl Default for FakeQuantWithMinMaxArgs {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeQuantWithMinMaxArgs {
    /// `min=-6.0, max=6.0, num_bits=8, narrow_range=False`.
    pub fn new() -> Self {
        FakeQuantWithMinMaxArgs {
            min: -6.0,
            max: 6.0,
            num_bits: 8,
            narrow_range: false,
            name: None,
        }
    }

    /// The low end of the range (must be below `max` when the node runs).
    pub fn min(mut self, min: f32) -> Self {
        self.min = min;
        self
    }

    /// The high end of the range.
    pub fn max(mut self, max: f32) -> Self {
        self.max = max;
        self
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

    fn node(&self, op_type: &str, inputs: Vec<Output>) -> Result<Output> {
        let g = crate::util::same_graph(&inputs.iter().collect::<Vec<_>>())?.clone();
        crate::new_op(&g, op_type)
            .maybe_name(self.name.as_deref())
            .inputs(inputs)
            .attr("min", self.min)
            .attr("max", self.max)
            .attr("num_bits", self.num_bits)
            .attr("narrow_range", self.narrow_range)
            .build()?
            .output(0)
    }

    /// Adds the `FakeQuantWithMinMaxArgs` node.
    pub fn build(&self, inputs: impl Into<Output>) -> Result<Output> {
        self.node("FakeQuantWithMinMaxArgs", vec![inputs.into()])
    }

    /// Adds the `FakeQuantWithMinMaxArgsGradient` node
    /// (`tf.quantization.fake_quant_with_min_max_args_gradient`): `gradients` where `inputs`
    /// lie in the nudged range, zero elsewhere.
    pub fn gradient(
        &self,
        gradients: impl Into<Output>,
        inputs: impl Into<Output>,
    ) -> Result<Output> {
        self.node(
            "FakeQuantWithMinMaxArgsGradient",
            vec![gradients.into(), inputs.into()],
        )
    }
}

/// `tf.quantization.fake_quant_with_min_max_args(inputs)` with TensorFlow's defaults
/// (`[-6, 6]`, 8 bits); [`FakeQuantWithMinMaxArgs`] takes the other arguments.
pub fn fake_quant_with_min_max_args(inputs: impl Into<Output>) -> Result<Output> {
    FakeQuantWithMinMaxArgs::new().build(inputs)
}

/// `tf.quantization.fake_quant_with_min_max_args_gradient(gradients, inputs)` with
/// TensorFlow's defaults.
pub fn fake_quant_with_min_max_args_gradient(
    gradients: impl Into<Output>,
    inputs: impl Into<Output>,
) -> Result<Output> {
    FakeQuantWithMinMaxArgs::new().gradient(gradients, inputs)
}

/// `tf.quantization.fake_quant_with_min_max_vars(inputs, min, max, num_bits=8,
/// narrow_range=False, name=None)` and its gradient op, as a builder holding TensorFlow's
/// defaults. `min` and `max` are float32 scalars: tensors (variables, as training learns
/// them) or numbers, which become constants named after the argument as in TensorFlow.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, quantization::FakeQuantWithMinMaxVars};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, [-7.0f32, 0.0, 3.0])?;
/// let q = FakeQuantWithMinMaxVars::new().build(&x, -6.0f32, 6.0f32)?;
/// assert_eq!(q.op().inputs()[1].name(), "FakeQuantWithMinMaxVars/min:0");
/// // The gradient with respect to `min` sums the incoming gradients below the range.
/// let [_, dmin, _] = FakeQuantWithMinMaxVars::new().gradient(&x, &x, -6.0f32, 6.0f32)?;
/// assert_eq!(Session::new(&g)?.eval(&dmin)?.to_scalar::<f32>()?, -7.0);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FakeQuantWithMinMaxVars {
    num_bits: i64,
    narrow_range: bool,
    name: Option<String>,
}

impl Default for FakeQuantWithMinMaxVars {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeQuantWithMinMaxVars {
    /// `num_bits=8, narrow_range=False`.
    pub fn new() -> Self {
        FakeQuantWithMinMaxVars {
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
            ("num_bits", AttrValue::Int(self.num_bits)),
            ("narrow_range", AttrValue::Bool(self.narrow_range)),
        ];
        quant_node(op_type, self.name.as_deref(), args, &attrs)
    }

    /// Adds the `FakeQuantWithMinMaxVars` node.
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
        self.node("FakeQuantWithMinMaxVars", args)?.output(0)
    }

    /// Adds the `FakeQuantWithMinMaxVarsGradient` node
    /// (`tf.quantization.fake_quant_with_min_max_vars_gradient`): the gradients with respect
    /// to `inputs`, `min` and `max`.
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
        let op = self.node("FakeQuantWithMinMaxVarsGradient", args)?;
        Ok([op.output(0)?, op.output(1)?, op.output(2)?])
    }
}

/// `tf.quantization.fake_quant_with_min_max_vars(inputs, min, max)` with 8 bits;
/// [`FakeQuantWithMinMaxVars`] takes the other arguments.
pub fn fake_quant_with_min_max_vars(
    inputs: impl Into<Output>,
    min: impl Into<QuantArg>,
    max: impl Into<QuantArg>,
) -> Result<Output> {
    FakeQuantWithMinMaxVars::new().build(inputs, min, max)
}

/// `tf.quantization.fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max)` with
/// 8 bits: the gradients with respect to `inputs`, `min` and `max`.
pub fn fake_quant_with_min_max_vars_gradient(
    gradients: impl Into<Output>,
    inputs: impl Into<Output>,
    min: impl Into<QuantArg>,
    max: impl Into<QuantArg>,
) -> Result<[Output; 3]> {
    FakeQuantWithMinMaxVars::new().gradient(gradients, inputs, min, max)
}

/// A range nudged so that 0.0 is on its grid (TensorFlow's `Nudge`), in float32 throughout.
#[derive(Clone, Copy, Debug)]
pub(super) struct Nudged {
    pub min: f32,
    pub max: f32,
    pub scale: f32,
    /// `(quant_max - quant_min) / (max - min)`, computed apart rather than as `1 / scale`.
    pub inv_scale: f32,
}

impl Nudged {
    /// Every operation flushes subnormals, as TensorFlow's kernels run (see [`ftz`]).
    pub fn new(min: f32, max: f32, (quant_min, quant_max): (i32, i32)) -> Nudged {
        let (min, max) = (ftz(min), ftz(max));
        let (qmin, qmax) = (quant_min as f32, quant_max as f32);
        let width = ftz(max - min);
        let scale = ftz(width / (qmax - qmin));
        let inv_scale = ftz((qmax - qmin) / width);
        let from_min = ftz(qmin - ftz(min / scale));
        // A NaN zero point (min == max) casts to 0, as C++'s conversion does on x86.
        let zero_point = if from_min < qmin {
            quant_min as u16
        } else if from_min > qmax {
            quant_max as u16
        } else {
            from_min.round() as u16
        } as f32;
        Nudged {
            min: ftz((qmin - zero_point) * scale),
            max: ftz((qmax - zero_point) * scale),
            scale,
            inv_scale,
        }
    }

    /// `x` clamped to the range, with `std::min`/`std::max` semantics (NaN stays NaN).
    fn clamp(&self, x: f32) -> f32 {
        let c = if self.max < x { self.max } else { x };
        if c < self.min {
            self.min
        } else {
            c
        }
    }

    /// The grid index of 0.0, from which values are counted.
    fn quant_zero(&self) -> f32 {
        ftz(ftz(-self.min * self.inv_scale) + 0.5).floor()
    }

    /// `x` on the grid, `steps` turning a shifted value into grid steps: a product with
    /// `inv_scale` (as `Args` and `PerChannel` compute) or a quotient by `scale` (`Vars`).
    fn quantize(&self, x: &[f32], out: &mut Vec<f32>, steps: impl Fn(f32) -> f32) {
        let zero = self.quant_zero();
        out.extend(x.iter().map(|&v| {
            let shifted = ftz(self.clamp(ftz(v)) - self.min);
            let q = ftz(ftz(steps(shifted) - zero) + 0.5).floor();
            ftz(q * self.scale)
        }));
    }

    /// `x` on the grid, scaled by `inv_scale` (as `Args` and `PerChannel` do).
    pub fn quantize_mul(&self, x: &[f32], out: &mut Vec<f32>) {
        self.quantize(x, out, |v| ftz(v * self.inv_scale));
    }

    /// `x` on the grid, divided by `scale` (as `Vars` does).
    fn quantize_div(&self, x: &[f32], out: &mut Vec<f32>) {
        self.quantize(x, out, |v| ftz(v / self.scale));
    }

    /// `g` times 1 where `x` is inside the range, else 0: NaN and infinite gradients outside
    /// become NaN, as TensorFlow's product makes them.
    fn masked(g: f32, inside: bool) -> f32 {
        ftz(ftz(g) * f32::from(u8::from(inside)))
    }

    /// The gradient to the input.
    pub fn pass(&self, g: f32, x: f32) -> f32 {
        let x = ftz(x);
        Self::masked(g, x >= self.min && x <= self.max)
    }

    /// The parts of the gradient going to `min` and to `max`.
    pub fn beyond(&self, g: f32, x: f32) -> (f32, f32) {
        let x = ftz(x);
        (Self::masked(g, x < self.min), Self::masked(g, x > self.max))
    }
}

/// The `(quant_min, quant_max)` grid of a node's `num_bits` and `narrow_range`, checked as
/// TensorFlow's kernels check them when they are made.
pub(super) fn grid(node: &Node) -> Result<(i32, i32)> {
    let num_bits: i64 = node.attr("num_bits")?;
    if !(2..=16).contains(&num_bits) {
        return Err(Error::invalid_argument(
            "num_bits must be between 2 and 16, inclusive",
        ));
    }
    let narrow: bool = node.attr("narrow_range")?;
    Ok((i32::from(narrow), (1 << num_bits) - 1))
}

/// `min` and `max` both zero: TensorFlow's `Vars` kernels leave the values (or gradients) as
/// they are rather than divide by a zero scale.
pub(super) fn is_zero_range(min: f32, max: f32) -> bool {
    min == 0.0 && max == 0.0
}

struct ArgsKernel {
    nudged: Nudged,
}

fn make_args(node: &Node) -> Result<Box<dyn Kernel>> {
    let (min, max): (f32, f32) = (node.attr("min")?, node.attr("max")?);
    // NaN fails the check too, as `min < max` does in TensorFlow.
    if min.partial_cmp(&max) != Some(std::cmp::Ordering::Less) {
        return Err(Error::invalid_argument(format!(
            "min has to be smaller than max, was: {} >= {}",
            six_digits(f64::from(min)),
            six_digits(f64::from(max))
        )));
    }
    let grid = grid(node)?;
    Ok(Box::new(ArgsKernel {
        nudged: Nudged::new(min, max, grid),
    }))
}

impl Kernel for ArgsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        if ctx.num_inputs() == 1 {
            let mut out = Vec::with_capacity(x.num_elements());
            self.nudged.quantize_mul(x.as_slice::<f32>()?, &mut out);
            let t = Tensor::from_vec(x.shape(), out)?;
            ctx.set_output(0, t);
            return Ok(());
        }
        // The gradient op: TensorFlow's binary element-wise kernels check shapes first.
        let (g, x) = (ctx.input(0), ctx.input(1));
        if g.shape() != x.shape() {
            return Err(Error::invalid_argument(format!(
                "Inputs to operation {} of type {} must have the same size and shape.  \
                 Input 0: {} != input 1: {}",
                ctx.node().name(),
                ctx.node().op_type(),
                format_dims(g.shape()),
                format_dims(x.shape())
            )));
        }
        let (gs, xs) = (g.as_slice::<f32>()?, x.as_slice::<f32>()?);
        let out = gs
            .iter()
            .zip(xs)
            .map(|(&g, &x)| self.nudged.pass(g, x))
            .collect();
        let t = Tensor::from_vec(x.shape(), out)?;
        ctx.set_output(0, t);
        Ok(())
    }
}

/// A scalar range input of a `Vars` node, checked as TensorFlow's kernel checks it.
fn scalar_bound(t: &Tensor, name: &str) -> Result<f32> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "`{name}` must be rank 0 but is rank {}",
            t.rank()
        )));
    }
    t.to_scalar::<f32>()
}

struct VarsKernel {
    grid: (i32, i32),
}

impl VarsKernel {
    fn forward(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let min = scalar_bound(ctx.input(1), "min")?;
        let max = scalar_bound(ctx.input(2), "max")?;
        let out = if is_zero_range(min, max) {
            vec![0.0f32; x.num_elements()]
        } else {
            let mut out = Vec::with_capacity(x.num_elements());
            Nudged::new(min, max, self.grid).quantize_div(x.as_slice::<f32>()?, &mut out);
            out
        };
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
        let min = scalar_bound(ctx.input(2), "min")?;
        let max = scalar_bound(ctx.input(3), "max")?;
        let (gs, xs) = (g.as_slice::<f32>()?, x.as_slice::<f32>()?);
        let (dx, dmin, dmax) = if is_zero_range(min, max) {
            (gs.to_vec(), 0.0, 0.0)
        } else {
            let n = Nudged::new(min, max, self.grid);
            let mut dx = Vec::with_capacity(gs.len());
            let (mut dmin, mut dmax) = (0.0f32, 0.0f32);
            for (&g, &x) in gs.iter().zip(xs) {
                dx.push(n.pass(g, x));
                let (lo, hi) = n.beyond(g, x);
                dmin = ftz(dmin + lo);
                dmax = ftz(dmax + hi);
            }
            (dx, dmin, dmax)
        };
        let dx = Tensor::from_vec(x.shape(), dx)?;
        ctx.set_output(0, dx);
        ctx.set_output(1, Tensor::scalar(dmin));
        ctx.set_output(2, Tensor::scalar(dmax));
        Ok(())
    }
}

impl Kernel for VarsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if ctx.num_inputs() == 3 {
            self.forward(ctx)
        } else {
            self.backward(ctx)
        }
    }
}

fn make_vars(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(VarsKernel { grid: grid(node)? }))
}

fn unchanged_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn vars_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    unchanged_shape(ctx)?;
    with_rank(ctx, ctx.input_shape(1), 0)?;
    with_rank(ctx, ctx.input_shape(2), 0)?;
    Ok(())
}

fn vars_gradient_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let inputs = merge(ctx, ctx.input_shape(0), ctx.input_shape(1))?;
    let min_max = with_rank(ctx, ctx.input_shape(2), 0)?;
    let min_max = merge(ctx, &min_max, ctx.input_shape(3))?;
    ctx.set_output(0, inputs);
    ctx.set_output(1, min_max.clone());
    ctx.set_output(2, min_max);
    Ok(())
}

/// The `num_bits` and `narrow_range` attributes every fake-quant op has.
pub(super) fn grid_attrs(def: OpDef) -> OpDef {
    def.attr("num_bits", AttrKind::Int, Some(AttrValue::Int(8)))
        .attr("narrow_range", AttrKind::Bool, Some(AttrValue::Bool(false)))
}

pub(super) fn register() {
    let f = || ArgType::Fixed(DType::F32);
    let range_attrs = |def: OpDef| {
        grid_attrs(
            def.attr("min", AttrKind::Float, Some(AttrValue::Float(-6.0)))
                .attr("max", AttrKind::Float, Some(AttrValue::Float(6.0))),
        )
    };
    register_op(
        range_attrs(OpDef::new("FakeQuantWithMinMaxArgs"))
            .input("inputs", f())
            .output("outputs", f())
            .shape_fn(unchanged_shape),
    );
    register_op(
        range_attrs(OpDef::new("FakeQuantWithMinMaxArgsGradient"))
            .input("gradients", f())
            .input("inputs", f())
            .output("backprops", f())
            .shape_fn(unchanged_shape),
    );
    register_op(
        grid_attrs(OpDef::new("FakeQuantWithMinMaxVars"))
            .input("inputs", f())
            .input("min", f())
            .input("max", f())
            .output("outputs", f())
            .shape_fn(vars_shape),
    );
    register_op(
        grid_attrs(OpDef::new("FakeQuantWithMinMaxVarsGradient"))
            .input("gradients", f())
            .input("inputs", f())
            .input("min", f())
            .input("max", f())
            .output("backprops_wrt_input", f())
            .output("backprop_wrt_min", f())
            .output("backprop_wrt_max", f())
            .shape_fn(vars_gradient_shape),
    );
    register_kernel("FakeQuantWithMinMaxArgs", make_args);
    register_kernel("FakeQuantWithMinMaxArgsGradient", make_args);
    register_kernel("FakeQuantWithMinMaxVars", make_vars);
    register_kernel("FakeQuantWithMinMaxVarsGradient", make_vars);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nudging_puts_zero_on_the_grid() {
        // [-0.1, 25.4] over 255 steps of 0.1: zero point 1, so the range is kept.
        let n = Nudged::new(-0.1, 25.4, (0, 255));
        assert_eq!(n.min, (0.0 - 1.0) * n.scale);
        let mut out = vec![];
        n.quantize_mul(&[0.0, -1.0, 100.0, f32::NAN], &mut out);
        assert_eq!(out[0], 0.0);
        assert_eq!(out[1], -n.scale);
        assert!(out[3].is_nan());
        // A range entirely above zero moves down to start at zero.
        let n = Nudged::new(0.5, 2.0, (0, 255));
        assert_eq!(n.min, 0.0);
    }

    #[test]
    fn gradients_multiply_by_the_mask() {
        let n = Nudged::new(-1.0, 1.0, (0, 255));
        assert!(n.pass(f32::INFINITY, 5.0).is_nan());
        assert!(n.pass(-1.0, 5.0).is_sign_negative());
        assert_eq!(n.beyond(3.0, -2.0), (3.0, 0.0));
    }
}
