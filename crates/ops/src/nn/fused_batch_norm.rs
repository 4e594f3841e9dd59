//! `FusedBatchNormV3` (`tf.nn.fused_batch_norm`, what `tf.layers.batch_normalization` builds),
//! TensorFlow 1's `FusedBatchNorm` / `FusedBatchNormV2`, and the shared OpDef plumbing of
//! their backward kernels (in `fused_batch_norm_grad.rs`).
//!
//! Semantics are TensorFlow 2.21's CPU kernel: in training `y` is normalized with the batch's
//! mean and *biased* variance, `batch_variance` is the Bessel-corrected (n / (n - 1)) variance,
//! and with `exponential_avg_factor != 1` both statistics are blended with the `mean` /
//! `variance` inputs. `reserve_space_1` / `reserve_space_2` hold the batch mean and the biased
//! variance (not its inverse: that is cuDNN's layout), which the gradient reads back;
//! `reserve_space_3` (V3 only) is a scalar 0. In inference `y` uses the given statistics, the
//! two statistic outputs echo them and the reserve spaces are zeros (TensorFlow leaves them
//! uninitialized; they read as zeros there too).
//!
//! Only float32 is registered, as on TensorFlow's CPU (weir has no half). Channels-last data
//! (NHWC, or NDHWC for 5-D input) runs; NCHW/NCDHW are accepted when the graph is built, as
//! in TensorFlow, but refused when the kernel runs, because weir's kernel does not transpose.
//! Sums are accumulated in float64 and rounded once, so results can differ from TensorFlow's
//! Eigen reductions in the last bits.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Dim, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

/// `tf.nn.fused_batch_norm(x, scale, offset, mean, variance, epsilon, data_format="NHWC",
/// is_training)`: batch normalization of the NHWC tensor `x` over its last dimension, as
/// `(y, running_mean, running_variance)`.
///
/// In training (`is_training = true`) `y` is normalized with the batch's statistics;
/// `running_variance` is the batch's unbiased variance. `mean` and `variance` may be left out
/// then, and TensorFlow passes empty vectors in their place. In inference both must be given
/// and are used as the population statistics.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::fused_batch_norm};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[1, 2, 2, 1], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
/// let scale = constant(&g, Tensor::from(vec![2.0f32]))?;
/// let offset = constant(&g, Tensor::from(vec![0.5f32]))?;
/// let (y, mean, var) = fused_batch_norm(&x, &scale, &offset, None, None, 0.0, true)?;
/// let sess = Session::new(&g)?;
/// assert_eq!(sess.eval(&mean)?.to_vec::<f32>()?, [2.5]);
/// // Unbiased: 5 / 3, while y is normalized with the biased variance 1.25.
/// assert!((sess.eval(&var)?.to_vec::<f32>()?[0] - 5.0 / 3.0).abs() < 1e-6);
/// let y = sess.eval(&y)?.to_vec::<f32>()?;
/// assert!((y[3] - (0.5 + 2.0 * 1.5 / 1.25f32.sqrt())).abs() < 1e-6);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn fused_batch_norm(
    x: impl Into<Output>,
    scale: impl Into<Output>,
    offset: impl Into<Output>,
    mean: Option<Output>,
    variance: Option<Output>,
    epsilon: f32,
    is_training: bool,
) -> Result<(Output, Output, Output)> {
    let (x, scale, offset) = (x.into(), scale.into(), offset.into());
    let g = crate::util::same_graph(&[&x, &scale, &offset])?.clone();
    let (mean, variance) = match (mean, variance) {
        (Some(m), Some(v)) => (m, v),
        (m, v) if !is_training => {
            let show = |o: &Option<Output>| match o {
                Some(o) => format!("<tf.Tensor '{}'>", o.name()),
                None => "None".to_string(),
            };
            return Err(Error::invalid_argument(format!(
                "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or \
                 `exponential_avg_factor` != 1.0. Received: `mean` {} and `variance` {}",
                show(&m),
                show(&v)
            )));
        }
        (m, v) => {
            let empty = || crate::array::constant(&g, Tensor::from(Vec::<f32>::new()));
            (m.map_or_else(empty, Ok)?, v.map_or_else(empty, Ok)?)
        }
    };
    crate::util::same_graph(&[&x, &mean, &variance])?;
    let op = crate::new_op(&g, "FusedBatchNormV3")
        .input(x)
        .input(scale)
        .input(offset)
        .input(mean)
        .input(variance)
        .attr("epsilon", epsilon)
        .attr("is_training", is_training)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}

/// The formats each version's `data_format` allows (TensorFlow's OpDef lists).
const FORMATS_V3: &[&str] = &["NHWC", "NCHW", "NDHWC", "NCDHW"];
const FORMATS_V1: &[&str] = &["NHWC", "NCHW"];

pub(super) fn allowed_formats(op_type: &str) -> &'static [&'static str] {
    if op_type.ends_with("V3") {
        FORMATS_V3
    } else {
        FORMATS_V1
    }
}

/// `data_format`, checked against the OpDef's list as TensorFlow's `ValidateNodeDef` does
/// (weir's OpDef does not express allowed strings).
pub(super) fn data_format(op_type: &str, format: String) -> Result<String> {
    let allowed = allowed_formats(op_type);
    if !allowed.contains(&format.as_str()) {
        let list: Vec<String> = allowed.iter().map(|f| format!("\"{f}\"")).collect();
        return Err(Error::invalid_argument(format!(
            "Value for attr 'data_format' of \"{format}\" is not in the list of allowed values: {}",
            list.join(", ")
        )));
    }
    Ok(format)
}

/// The static rank a format implies and the index of its channel dimension.
pub(super) fn layout(format: &str) -> (usize, usize) {
    match format {
        "NDHWC" => (5, 4),
        "NCDHW" => (5, 1),
        "NCHW" => (4, 1),
        _ => (4, 3),
    }
}

/// Merges two static dimensions with TensorFlow's `Merge` message.
pub(super) fn merge_dim(ctx: &InferenceContext<'_>, a: Dim, b: Dim) -> Result<Dim> {
    match (a, b) {
        (Some(p), Some(q)) if p != q => {
            let shapes: Vec<String> = (0..ctx.num_inputs())
                .map(|i| ctx.input_shape(i).to_string())
                .collect();
            Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {p} and {q} for '{}' with input shapes: {}.",
                ctx.op_type,
                shapes.join(", ")
            )))
        }
        (Some(p), _) | (None, Some(p)) => Ok(Some(p)),
        (None, None) => Ok(None),
    }
}

/// `shape` with dimension `i` replaced (unknown rank stays unknown).
pub(super) fn replace_dim(shape: &Shape, i: usize, d: Dim) -> Shape {
    match shape.dims() {
        Some(dims) => {
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(i) {
                *slot = d;
            }
            Shape::new(dims)
        }
        None => Shape::unknown(),
    }
}

/// TensorFlow's `FusedBatchNormShape` (+ `FusedBatchNormV3Shape`'s unknown output 5): in
/// training with the default factor `mean` and `variance` are not checked, since they may be
/// empty.
fn forward_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let format = data_format(ctx.op_type, ctx.attr("data_format")?)?;
    let (rank, c) = layout(&format);
    let x = ctx.with_rank(0, rank)?;
    let is_training: bool = ctx.attr("is_training")?;
    let factor: f32 = ctx.attr("exponential_avg_factor").unwrap_or(1.0);
    let checked = if is_training && factor == 1.0 { 3 } else { 5 };
    let mut channel = x.dim(c as isize);
    for i in 1..checked {
        let v = ctx.with_rank(i, 1)?;
        channel = merge_dim(ctx, channel, v.dim(0))?;
    }
    ctx.set_output(0, replace_dim(&x, c, channel));
    for i in 1..5 {
        ctx.set_output(i, Shape::new(vec![channel]));
    }
    Ok(())
}

/// The attributes both kernels read, checked when the kernel is made.
pub(super) struct Config {
    pub(super) epsilon: f32,
    pub(super) factor: f32,
    pub(super) is_training: bool,
    pub(super) format: String,
}

impl Config {
    pub(super) fn from_node(node: &Node) -> Result<Config> {
        Ok(Config {
            epsilon: node.attr("epsilon")?,
            factor: node.attr("exponential_avg_factor").unwrap_or(1.0),
            is_training: node.attr("is_training")?,
            format: data_format(node.op_type(), node.attr("data_format")?)?,
        })
    }

    /// The channel dimension of a run-time input of `rank` dimensions (TensorFlow's
    /// `GetTensorFeatureDimIndex`).
    pub(super) fn channel_dim(&self, rank: usize) -> usize {
        if self.format.starts_with("NC") {
            1
        } else {
            rank - 1
        }
    }

    /// weir's kernels walk the data as `[rest, channels]`; TensorFlow's CPU kernels transpose
    /// channels-first data first, which weir does not (yet) do.
    pub(super) fn require_channels_last(&self, op: &str) -> Result<()> {
        if self.format.starts_with("NC") {
            return Err(Error::unimplemented(format!(
                "weir's CPU {op} supports only channels-last data (NHWC, NDHWC), got {}",
                self.format
            )));
        }
        Ok(())
    }
}

/// `1 / sqrt(v)`, Eigen's `rsqrt`.
pub(super) fn rsqrt(v: f32) -> f32 {
    1.0 / v.sqrt()
}

/// InvalidArgument unless `t` is a vector: `"{what} must be 1-dimensional[2,1]"`.
pub(super) fn require_vector(t: &Tensor, what: &str) -> Result<()> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "{what} must be 1-dimensional{}",
            format_dims(t.shape())
        )));
    }
    Ok(())
}

/// InvalidArgument unless `t` has rank 4 or 5.
pub(super) fn require_4_or_5d(t: &Tensor) -> Result<()> {
    if !(t.rank() == 4 || t.rank() == 5) {
        return Err(Error::invalid_argument(format!(
            "input must be 4 or 5-dimensional{}",
            format_dims(t.shape())
        )));
    }
    Ok(())
}

/// InvalidArgument unless `t` holds one element per channel.
pub(super) fn require_channels(t: &Tensor, what: &str, channels: usize) -> Result<()> {
    if t.num_elements() != channels {
        return Err(Error::invalid_argument(format!(
            "{what} must have the same number of elements as the channels of x, got {} and {channels}",
            t.num_elements()
        )));
    }
    Ok(())
}

/// The five (V3: six) outputs of one forward run.
struct Outputs {
    y: Vec<f32>,
    mean: Vec<f32>,
    variance: Vec<f32>,
    saved_mean: Vec<f32>,
    saved_var: Vec<f32>,
}

/// Training: batch statistics per channel over `x` seen as `[rest, c]`.
fn train(cfg: &Config, x: &[f32], c: usize, t: [&[f32]; 4]) -> Outputs {
    let [scale, offset, old_mean, old_var] = t;
    let rest = x.len() / c;
    let rest_inv = 1.0f32 / rest as f32;
    // Bessel's correction, as TensorFlow computes it (a single row divides by 1).
    let adjust = rest as f32 / rest.saturating_sub(1).max(1) as f32;
    let mut acc = vec![0.0f64; c];
    for row in x.chunks_exact(c) {
        for (a, &v) in acc.iter_mut().zip(row) {
            *a += v as f64;
        }
    }
    let mean: Vec<f32> = acc.iter().map(|&s| s as f32 * rest_inv).collect();
    acc.iter_mut().for_each(|a| *a = 0.0);
    for row in x.chunks_exact(c) {
        for ((a, &v), &m) in acc.iter_mut().zip(row).zip(&mean) {
            let d = v - m;
            *a += (d * d) as f64;
        }
    }
    let var: Vec<f32> = acc.iter().map(|&s| s as f32 * rest_inv).collect();
    let y = normalize(cfg, x, c, [scale, offset, &mean, &var]);
    let (new_mean, new_var) = if cfg.factor == 1.0 {
        (mean.clone(), var.iter().map(|&v| v * adjust).collect())
    } else {
        let keep = 1.0 - cfg.factor;
        let m = mean
            .iter()
            .zip(old_mean)
            .map(|(&b, &o)| keep * o + cfg.factor * b)
            .collect();
        let v = var
            .iter()
            .zip(old_var)
            .map(|(&b, &o)| keep * o + (cfg.factor * adjust) * b)
            .collect();
        (m, v)
    };
    Outputs {
        y,
        mean: new_mean,
        variance: new_var,
        saved_mean: mean,
        saved_var: var,
    }
}

/// `(x - mean) * rsqrt(variance + epsilon) * scale + offset` per channel, for rows of `c`
/// channels; `t` is `[scale, offset, mean, variance]`.
fn normalize(cfg: &Config, x: &[f32], c: usize, t: [&[f32]; 4]) -> Vec<f32> {
    let [scale, offset, mean, var] = t;
    let factor: Vec<f32> = var
        .iter()
        .zip(scale)
        .map(|(&v, &s)| rsqrt(v + cfg.epsilon) * s)
        .collect();
    let mut y = x.to_vec();
    for row in y.chunks_exact_mut(c) {
        for (((v, &m), &f), &o) in row.iter_mut().zip(mean).zip(&factor).zip(offset) {
            *v = (*v - m) * f + o;
        }
    }
    y
}

/// Inference: normalization with the given statistics, which the outputs echo.
fn infer(cfg: &Config, x: &[f32], c: usize, t: [&[f32]; 4]) -> Outputs {
    let [_, _, mean, var] = t;
    let y = normalize(cfg, x, c, t);
    Outputs {
        y,
        mean: mean.to_vec(),
        variance: var.to_vec(),
        saved_mean: vec![0.0; c],
        saved_var: vec![0.0; c],
    }
}

struct FusedBatchNormKernel {
    cfg: Config,
    v3: bool,
}

impl Kernel for FusedBatchNormKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let cfg = &self.cfg;
        // TensorFlow's half and bfloat16 kernels normalize in float (their `U`) and round y.
        let x_dtype = ctx.input(0).dtype();
        let widened = match x_dtype {
            DType::F16 | DType::BF16 => Some(super::widen_half(ctx.input(0))?),
            _ => None,
        };
        let [x, scale, offset, mean, var] = [0, 1, 2, 3, 4].map(|i| ctx.input(i));
        let x = widened.as_ref().unwrap_or(x);
        require_4_or_5d(x)?;
        require_vector(scale, "scale")?;
        require_vector(offset, "offset")?;
        require_vector(mean, "estimated_mean")?;
        require_vector(var, "estimated_variance")?;
        let c = x.shape()[cfg.channel_dim(x.rank())];
        require_channels(scale, "scale", c)?;
        require_channels(offset, "offset", c)?;
        let stats_used = !cfg.is_training || cfg.factor != 1.0;
        if stats_used {
            let prefix = if cfg.is_training {
                "When exponential_avg_factor != 1"
            } else {
                "When is_training=false"
            };
            require_channels(mean, &format!("{prefix}, mean"), c)?;
            require_channels(var, &format!("{prefix}, variance"), c)?;
        }
        cfg.require_channels_last(ctx.node().op_type())?;
        let vshape = scale.shape().to_vec();
        let out = if x.num_elements() == 0 {
            // TensorFlow's empty-input case: NaN statistics.
            Outputs {
                y: Vec::new(),
                mean: vec![f32::NAN; c],
                variance: vec![f32::NAN; c],
                saved_mean: vec![0.0; c],
                saved_var: vec![0.0; c],
            }
        } else {
            let xs = x.as_slice::<f32>()?;
            let vecs = [scale, offset, mean, var];
            let [s, o, m, v] = vecs.map(|t| t.as_slice::<f32>());
            let t = [s?, o?, m?, v?];
            if cfg.is_training {
                train(cfg, xs, c, t)
            } else {
                infer(cfg, xs, c, t)
            }
        };
        let xshape = x.shape().to_vec();
        let y = Tensor::from_vec(&xshape, out.y)?;
        ctx.set_output(0, crate::math::cast::cast_tensor(&y, x_dtype)?);
        ctx.set_output(1, Tensor::from_vec(&vshape, out.mean)?);
        ctx.set_output(2, Tensor::from_vec(&vshape, out.variance)?);
        ctx.set_output(3, Tensor::from_vec(&vshape, out.saved_mean)?);
        ctx.set_output(4, Tensor::from_vec(&vshape, out.saved_var)?);
        if self.v3 {
            ctx.set_output(5, Tensor::from_vec(&[], vec![0.0f32])?);
        }
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(FusedBatchNormKernel {
        cfg: Config::from_node(node)?,
        v3: node.op_type() == "FusedBatchNormV3",
    }))
}

/// The attributes every version shares; `U` only from V2 on; `halves`: `T` also takes half
/// and bfloat16 (the forward V2 and V3: TensorFlow's mixed-precision signature, float
/// statistics).
pub(super) fn common_attrs(def: OpDef, with_u: bool, halves: bool) -> OpDef {
    let xs: &[DType] = if halves {
        &[DType::F16, DType::BF16, DType::F32]
    } else {
        &[DType::F32]
    };
    let def = def
        .type_attr("T", xs)
        .attr("epsilon", AttrKind::Float, Some(AttrValue::Float(0.0001)))
        .attr(
            "data_format",
            AttrKind::Str,
            Some(AttrValue::Str("NHWC".into())),
        )
        .attr("is_training", AttrKind::Bool, Some(AttrValue::Bool(true)));
    if with_u {
        def.type_attr("U", &[DType::F32])
    } else {
        def
    }
}

pub(super) fn register() {
    for (name, u) in [
        ("FusedBatchNorm", "T"),
        ("FusedBatchNormV2", "U"),
        ("FusedBatchNormV3", "U"),
    ] {
        let mut def = common_attrs(OpDef::new(name), u == "U", u == "U")
            .attr(
                "exponential_avg_factor",
                AttrKind::Float,
                Some(AttrValue::Float(1.0)),
            )
            .input("x", ArgType::Attr("T"));
        for input in ["scale", "offset", "mean", "variance"] {
            def = def.input(input, ArgType::Attr(u));
        }
        def = def.output("y", ArgType::Attr("T"));
        for output in [
            "batch_mean",
            "batch_variance",
            "reserve_space_1",
            "reserve_space_2",
        ] {
            def = def.output(output, ArgType::Attr(u));
        }
        if name == "FusedBatchNormV3" {
            def = def.output("reserve_space_3", ArgType::Attr(u));
        }
        register_op(def.shape_fn(forward_shape));
        register_kernel(name, make);
    }
    super::fused_batch_norm_grad::register();
}
