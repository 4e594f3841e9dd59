//! `QuantizeAndDequantizeV2`, `V3` and `V4` and `QuantizeAndDequantizeV4Grad`: values rounded
//! to the grid of a signed or unsigned `num_bits`-bit integer, whole-tensor or per slice along
//! `axis`, and scaled back, with TensorFlow 2.21's CPU kernels for float32 and float64.
//!
//! The range is given (`range_given`, then values are clamped to it) or is the input's own
//! minimum and maximum. The scale is the largest that keeps both ends within the integer
//! range, so one end may move inward and 0 stays exact. `V4` is `V2` with a gradient that
//! zeroes outside the range (`V4Grad`); `V3` takes `num_bits` as a tensor and rounds half to
//! even. The kernels are in `qdq_kernels`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Operation, Output, Result,
    Shape,
};

use super::qdq_kernels::{make_qdq, make_v4_grad};
use super::{merge, merge_dim, quant_node, shape_error, with_rank, with_rank_at_least, QuantArg};

/// The options of `tf.quantization.quantize_and_dequantize(input, input_min, input_max,
/// signed_input=True, num_bits=8, range_given=False, round_mode='HALF_TO_EVEN', name=None,
/// narrow_range=False, axis=None)` and of `tf.quantization.quantize_and_dequantize_v2` (same
/// arguments), with TensorFlow's defaults. The first builds a `QuantizeAndDequantizeV2` node,
/// whose gradient passes through everywhere; the second a `QuantizeAndDequantizeV4` node,
/// whose gradient is zero outside the range.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, quantization::QuantizeAndDequantize};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, [-1.0f32, -0.5, 0.3, 2.0])?;
/// let q = QuantizeAndDequantize::new()
///     .num_bits(3)
///     .range_given(true)
///     .quantize_and_dequantize_v2(&x, -1.0f32, 0.75f32)?;
/// assert_eq!(q.name(), "QuantizeAndDequantizeV4:0");
/// // Signed 3 bits: -4..=3 steps of 1/4, clamped to [-1, 0.75].
/// assert_eq!(Session::new(&g)?.eval(&q)?.to_vec::<f32>()?, [-1.0, -0.5, 0.25, 0.75]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct QuantizeAndDequantize {
    signed_input: bool,
    num_bits: i64,
    range_given: bool,
    round_mode: String,
    narrow_range: bool,
    axis: Option<i64>,
    name: Option<String>,
}

impl Default for QuantizeAndDequantize {
    fn default() -> Self {
        Self::new()
    }
}

impl QuantizeAndDequantize {
    /// `signed_input=True, num_bits=8, range_given=False, round_mode='HALF_TO_EVEN',
    /// narrow_range=False, axis=None`.
    pub fn new() -> Self {
        QuantizeAndDequantize {
            signed_input: true,
            num_bits: 8,
            range_given: false,
            round_mode: "HALF_TO_EVEN".into(),
            narrow_range: false,
            axis: None,
            name: None,
        }
    }

    /// Quantizes to a signed (default) or unsigned integer.
    pub fn signed_input(mut self, signed_input: bool) -> Self {
        self.signed_input = signed_input;
        self
    }

    /// The bit width: 1 to 61 signed, 1 to 62 unsigned (checked when the node runs).
    pub fn num_bits(mut self, num_bits: i64) -> Self {
        self.num_bits = num_bits;
        self
    }

    /// Uses `input_min` and `input_max` as the range (and clamps to it) instead of the
    /// input's own minimum and maximum.
    pub fn range_given(mut self, range_given: bool) -> Self {
        self.range_given = range_given;
        self
    }

    /// `"HALF_TO_EVEN"` (default) or `"HALF_UP"` (any other fails when the node is added).
    pub fn round_mode(mut self, round_mode: &str) -> Self {
        self.round_mode = round_mode.into();
        self
    }

    /// A signed range symmetric around 0 (`-127..=127` for 8 bits, not `-128..=127`).
    pub fn narrow_range(mut self, narrow_range: bool) -> Self {
        self.narrow_range = narrow_range;
        self
    }

    /// Quantizes each slice along `axis` with its own range (negative counts from the end and
    /// needs the input's rank); `input_min` and `input_max` are then vectors.
    pub fn axis(mut self, axis: i64) -> Self {
        self.axis = Some(axis);
        self
    }

    /// The node's name (default: the op type).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }

    /// `axis` as TensorFlow's Python passes it to the op: -1 when none, counted from the
    /// front when negative.
    fn op_axis(&self, input: &Output) -> Result<i64> {
        match self.axis {
            None => Ok(-1),
            Some(a) if a >= 0 => Ok(a),
            Some(a) => match input.shape().rank() {
                None => Err(Error::invalid_argument(
                    "input should have known rank to use negative axis.",
                )),
                Some(0) => Err(Error::invalid_argument("integer modulo by zero")),
                Some(r) => Ok(a.rem_euclid(r as i64)),
            },
        }
    }

    fn node(&self, op_type: &str, input: Output, min: QuantArg, max: QuantArg) -> Result<Output> {
        let attrs = [
            ("signed_input", self.signed_input.into()),
            ("num_bits", self.num_bits.into()),
            ("range_given", self.range_given.into()),
            ("round_mode", self.round_mode.as_str().into()),
            ("narrow_range", self.narrow_range.into()),
            ("axis", self.op_axis(&input)?.into()),
        ];
        let dt = input.dtype();
        let args = vec![
            ("input", input.into(), dt),
            ("input_min", min, dt),
            ("input_max", max, dt),
        ];
        quant_node(op_type, self.name.as_deref(), args, &attrs)?.output(0)
    }

    /// `tf.quantization.quantize_and_dequantize`: a `QuantizeAndDequantizeV2` node.
    pub fn quantize_and_dequantize(
        &self,
        input: impl Into<Output>,
        input_min: impl Into<QuantArg>,
        input_max: impl Into<QuantArg>,
    ) -> Result<Output> {
        let (min, max) = (input_min.into(), input_max.into());
        self.node("QuantizeAndDequantizeV2", input.into(), min, max)
    }

    /// `tf.quantization.quantize_and_dequantize_v2`: a `QuantizeAndDequantizeV4` node.
    pub fn quantize_and_dequantize_v2(
        &self,
        input: impl Into<Output>,
        input_min: impl Into<QuantArg>,
        input_max: impl Into<QuantArg>,
    ) -> Result<Output> {
        let (min, max) = (input_min.into(), input_max.into());
        self.node("QuantizeAndDequantizeV4", input.into(), min, max)
    }
}

/// `tf.quantization.quantize_and_dequantize(input, input_min, input_max)` with TensorFlow's
/// defaults (signed 8 bits, the input's own range): a `QuantizeAndDequantizeV2` node.
pub fn quantize_and_dequantize(
    input: impl Into<Output>,
    input_min: impl Into<QuantArg>,
    input_max: impl Into<QuantArg>,
) -> Result<Output> {
    QuantizeAndDequantize::new().quantize_and_dequantize(input, input_min, input_max)
}

/// `tf.quantization.quantize_and_dequantize_v2(input, input_min, input_max)` with
/// TensorFlow's defaults: a `QuantizeAndDequantizeV4` node.
pub fn quantize_and_dequantize_v2(
    input: impl Into<Output>,
    input_min: impl Into<QuantArg>,
    input_max: impl Into<QuantArg>,
) -> Result<Output> {
    QuantizeAndDequantize::new().quantize_and_dequantize_v2(input, input_min, input_max)
}

/// `tf.raw_ops.QuantizeAndDequantizeV3(input, input_min, input_max, num_bits,
/// signed_input=True, range_given=True, narrow_range=False, axis=-1)` as a builder with
/// TensorFlow's defaults: `num_bits` is an int32 scalar tensor (or a number) and values round
/// half to even. `axis` is passed as is (-1: the whole tensor).
#[derive(Clone, Debug)]
pub struct QuantizeAndDequantizeV3 {
    signed_input: bool,
    range_given: bool,
    narrow_range: bool,
    axis: i64,
    name: Option<String>,
}

impl Default for QuantizeAndDequantizeV3 {
    fn default() -> Self {
        Self::new()
    }
}

impl QuantizeAndDequantizeV3 {
    /// `signed_input=True, range_given=True, narrow_range=False, axis=-1`.
    pub fn new() -> Self {
        QuantizeAndDequantizeV3 {
            signed_input: true,
            range_given: true,
            narrow_range: false,
            axis: -1,
            name: None,
        }
    }

    /// Quantizes to a signed (default) or unsigned integer.
    pub fn signed_input(mut self, signed_input: bool) -> Self {
        self.signed_input = signed_input;
        self
    }

    /// Uses `input_min` and `input_max` as the range (the default) or the input's own.
    pub fn range_given(mut self, range_given: bool) -> Self {
        self.range_given = range_given;
        self
    }

    /// A signed range symmetric around 0.
    pub fn narrow_range(mut self, narrow_range: bool) -> Self {
        self.narrow_range = narrow_range;
        self
    }

    /// The dimension quantized slice by slice, or -1 for the whole tensor.
    pub fn axis(mut self, axis: i64) -> Self {
        self.axis = axis;
        self
    }

    /// The node's name (default: the op type).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Adds the `QuantizeAndDequantizeV3` node.
    pub fn build(
        &self,
        input: impl Into<Output>,
        input_min: impl Into<QuantArg>,
        input_max: impl Into<QuantArg>,
        num_bits: impl Into<QuantArg>,
    ) -> Result<Output> {
        let input = input.into();
        let dt = input.dtype();
        let args = vec![
            ("input", input.into(), dt),
            ("input_min", input_min.into(), dt),
            ("input_max", input_max.into(), dt),
            ("num_bits", num_bits.into(), DType::I32),
        ];
        let attrs = [
            ("signed_input", self.signed_input.into()),
            ("range_given", self.range_given.into()),
            ("narrow_range", self.narrow_range.into()),
            ("axis", self.axis.into()),
        ];
        quant_node(
            "QuantizeAndDequantizeV3",
            self.name.as_deref(),
            args,
            &attrs,
        )?
        .output(0)
    }
}

/// `tf.raw_ops.QuantizeAndDequantizeV4Grad(gradients, input, input_min, input_max, axis=-1)`:
/// the gradient of `QuantizeAndDequantizeV4` with respect to its input (`gradients` where the
/// input lies in `[input_min, input_max]`, zero elsewhere), and zeros for the range.
pub fn quantize_and_dequantize_v4_grad(
    gradients: impl Into<Output>,
    input: impl Into<Output>,
    input_min: impl Into<Output>,
    input_max: impl Into<Output>,
    axis: i64,
) -> Result<[Output; 3]> {
    let inputs = [
        gradients.into(),
        input.into(),
        input_min.into(),
        input_max.into(),
    ];
    let g = crate::util::same_graph(&inputs.iter().collect::<Vec<_>>())?.clone();
    let op: Operation = crate::new_op(&g, "QuantizeAndDequantizeV4Grad")
        .inputs(inputs)
        .attr("axis", axis)
        .build()?;
    Ok([op.output(0)?, op.output(1)?, op.output(2)?])
}

/// The checks TensorFlow's shape functions make on the range inputs `min` and `max` and on
/// `axis` against input `x`; the range's shape.
fn range_shape(ctx: &InferenceContext<'_>, x: usize, min: usize, max: usize) -> Result<Shape> {
    if let Ok(mode) = ctx.attr::<String>("round_mode") {
        if mode != "HALF_TO_EVEN" && mode != "HALF_UP" {
            return Err(Error::invalid_argument(format!(
                "Attr 'round_mode' of '{}' Op passed string '{mode}' not in: \"HALF_TO_EVEN\", \"HALF_UP\".",
                ctx.op_type
            )));
        }
    }
    let axis: i64 = ctx.attr("axis")?;
    let minmax = with_rank(ctx, ctx.input_shape(min), usize::from(axis != -1))?;
    let minmax = merge(ctx, ctx.input_shape(max), &minmax)?;
    if axis < -1 {
        return Err(shape_error(
            ctx,
            format!("axis should be at least -1, got {axis}"),
        ));
    }
    if axis != -1 {
        let input = with_rank_at_least(ctx, ctx.input_shape(x), axis as usize + 1)?;
        merge_dim(ctx, minmax.dim(0), input.dim(axis as isize))?;
    }
    Ok(minmax)
}

fn qdq_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    range_shape(ctx, 0, 1, 2)?;
    if ctx.num_inputs() == 4 {
        with_rank(ctx, ctx.input_shape(3), 0)?;
    }
    let s = ctx.input_shape(0).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn v4_grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let minmax = range_shape(ctx, 0, 2, 3)?;
    let inputs = merge(ctx, ctx.input_shape(0), ctx.input_shape(1))?;
    ctx.set_output(0, inputs);
    ctx.set_output(1, minmax.clone());
    ctx.set_output(2, minmax);
    Ok(())
}

/// The dtypes the ops take (TensorFlow's CPU kernels exist for float and double only).
const QDQ_TYPES: &[DType] = &[DType::BF16, DType::F16, DType::F32, DType::F64];

pub(super) fn register() {
    let t = || ArgType::Attr("T");
    let flag = |b: bool| Some(AttrValue::Bool(b));
    let v2_like = |name: &str| {
        OpDef::new(name)
            .input("input", t())
            .input("input_min", t())
            .input("input_max", t())
            .output("output", t())
            .attr("signed_input", AttrKind::Bool, flag(true))
            .attr("num_bits", AttrKind::Int, Some(AttrValue::Int(8)))
            .attr("range_given", AttrKind::Bool, flag(false))
            .type_attr("T", QDQ_TYPES)
            .attr("round_mode", AttrKind::Str, Some("HALF_TO_EVEN".into()))
            .attr("narrow_range", AttrKind::Bool, flag(false))
            .attr("axis", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(qdq_shape)
    };
    register_op(v2_like("QuantizeAndDequantizeV2"));
    register_op(v2_like("QuantizeAndDequantizeV4"));
    register_op(
        OpDef::new("QuantizeAndDequantizeV3")
            .input("input", t())
            .input("input_min", t())
            .input("input_max", t())
            .input("num_bits", ArgType::Fixed(DType::I32))
            .output("output", t())
            .attr("signed_input", AttrKind::Bool, flag(true))
            .attr("range_given", AttrKind::Bool, flag(true))
            .type_attr("T", QDQ_TYPES)
            .attr("narrow_range", AttrKind::Bool, flag(false))
            .attr("axis", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(qdq_shape),
    );
    register_op(
        OpDef::new("QuantizeAndDequantizeV4Grad")
            .input("gradients", t())
            .input("input", t())
            .input("input_min", t())
            .input("input_max", t())
            .output("input_backprop", t())
            .output("input_min_backprop", t())
            .output("input_max_backprop", t())
            .type_attr("T", QDQ_TYPES)
            .attr("axis", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(v4_grad_shape),
    );
    for op in [
        "QuantizeAndDequantizeV2",
        "QuantizeAndDequantizeV3",
        "QuantizeAndDequantizeV4",
    ] {
        register_kernel(op, make_qdq);
    }
    register_kernel("QuantizeAndDequantizeV4Grad", make_v4_grad);
}
