//! Fractional pooling (`tf.nn.fractional_max_pool`, `tf.nn.fractional_avg_pool` and their
//! `tf.compat.v1` forms): the ops `FractionalMaxPool`, `FractionalAvgPool` and the backward
//! ops their gradients call, `FractionalMaxPoolGrad` and `FractionalAvgPoolGrad`, with
//! TensorFlow's signatures, defaults and shape functions. The forward kernels and the pooling
//! sequences are in `fractional_pool_kernels.rs`, the backward ones in `fractional_pool_grad.rs`.
//!
//! Graham's fractional pooling (<https://arxiv.org/abs/1412.6071>) shrinks each spatial
//! dimension by a ratio between 1 and 2 (or more) using cells of `k` or `k + 1` rows: the
//! random boundaries come from a Philox generator seeded with the node's `seed` and `seed2`,
//! so a seeded weir node pools the regions TensorFlow's pools.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Output, Result, Shape,
};

use super::fractional_pool_grad::make_grad;
use super::fractional_pool_kernels::make_forward;

/// The types TensorFlow registers the fractional pools for.
const TYPES: &[DType] = &[DType::F32, DType::F64, DType::I32, DType::I64];

/// The three outputs of a fractional pool: the pooled tensor and the cumulative boundaries
/// of its row and column cells (int64, each starting at 0 and ending at the input's size).
#[derive(Clone, Debug)]
pub struct FractionalPoolOutputs {
    /// The pooled `[batch, rows, cols, channels]` tensor.
    pub output: Output,
    /// The row boundaries: `rows + 1` values from 0 to the input's height.
    pub row_pooling_sequence: Output,
    /// The column boundaries: `cols + 1` values from 0 to the input's width.
    pub col_pooling_sequence: Output,
}

/// The options of `tf.nn.fractional_max_pool` / `tf.nn.fractional_avg_pool` (ops
/// `FractionalMaxPool` / `FractionalAvgPool`): TensorFlow's defaults are `pseudo_random =
/// false`, `overlapping = false`, `seed = 0` (a new random pooling every run). Setting
/// [`deterministic`](Self::deterministic) or [`seed2`](Self::seed2) switches to the
/// `tf.compat.v1.nn` functions, which pass `deterministic`, `seed` and `seed2` to the op as
/// given.
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::{array::placeholder, nn::FractionalPool};
///
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[1, 10, 12, 3]))?;
/// let pooled = FractionalPool::max(&[1.0, 1.5, 1.5, 1.0]).seed(7).build(&x)?;
/// assert_eq!(pooled.output.shape(), Shape::known(&[1, 6, 8, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FractionalPool {
    op: &'static str,
    pooling_ratio: Vec<f32>,
    pseudo_random: bool,
    overlapping: bool,
    seed: i64,
    v1: Option<(bool, i64)>,
    name: Option<String>,
}

impl FractionalPool {
    /// `tf.nn.fractional_max_pool(value, pooling_ratio)`. `pooling_ratio` is a list of 4
    /// (`[1.0, rows, cols, 1.0]`), of 2 or 1 (Python's scalar form: both spatial ratios).
    pub fn max(pooling_ratio: &[f32]) -> FractionalPool {
        FractionalPool::new("FractionalMaxPool", pooling_ratio)
    }

    /// `tf.nn.fractional_avg_pool(value, pooling_ratio)`; `pooling_ratio` is a list of 4.
    pub fn avg(pooling_ratio: &[f32]) -> FractionalPool {
        FractionalPool::new("FractionalAvgPool", pooling_ratio)
    }

    fn new(op: &'static str, pooling_ratio: &[f32]) -> FractionalPool {
        FractionalPool {
            op,
            pooling_ratio: pooling_ratio.to_vec(),
            pseudo_random: false,
            overlapping: false,
            seed: 0,
            v1: None,
            name: None,
        }
    }

    /// Graham's pseudo-random cell boundaries instead of random ones (default false).
    pub fn pseudo_random(mut self, v: bool) -> Self {
        self.pseudo_random = v;
        self
    }

    /// Adjacent cells share their boundary row and column (default false).
    pub fn overlapping(mut self, v: bool) -> Self {
        self.overlapping = v;
        self
    }

    /// Nonzero: the same regions every run, from the graph and op seeds (`get_seed`); with
    /// the v1 options, the op's `seed` attr as given.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = seed;
        self
    }

    /// `tf.compat.v1`'s `deterministic`: keep one pooling for every run of a session's node.
    pub fn deterministic(mut self, v: bool) -> Self {
        self.v1 = Some((v, self.v1.map_or(0, |p| p.1)));
        self
    }

    /// `tf.compat.v1`'s `seed2`, the op's second seed as given.
    pub fn seed2(mut self, seed2: i64) -> Self {
        self.v1 = Some((self.v1.is_some_and(|p| p.0), seed2));
        self
    }

    /// The node's name (default the op type).
    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// The 4 ratios `tf.nn.fractional_max_pool` passes the op, with its Python checks.
    fn max_ratio(&self) -> Result<Vec<f32>> {
        let r = &self.pooling_ratio;
        let listed = python_list(r);
        if r.len() == 1 {
            if r[0] < 1.0 {
                return Err(Error::invalid_argument(format!(
                    "`pooling_ratio` should be >= 1.0. Received: pooling_ratio={}",
                    python_float(r[0])
                )));
            }
            return Ok(vec![1.0, r[0], r[0], 1.0]);
        }
        if r.is_empty() || r[0] != 1.0 || r[r.len() - 1] != 1.0 {
            return Err(Error::invalid_argument(format!(
                "`pooling_ratio` should have first and last elements with value 1.0. \
                 Received: pooling_ratio={listed}"
            )));
        }
        if r.iter().any(|&v| v < 1.0) {
            return Err(Error::invalid_argument(format!(
                "`pooling_ratio` elements should be >= 1.0. Received: pooling_ratio={listed}"
            )));
        }
        match r.len() {
            4 => Ok(r.clone()),
            2 => Ok(vec![1.0, r[0], r[1], 1.0]),
            n => Err(Error::invalid_argument(format!(
                "pooling_ratio should be of length 1, 2 or 4. Received: pooling_ratio={listed} \
                 of length {n}"
            ))),
        }
    }

    /// Adds the node.
    pub fn build(self, value: impl Into<Output>) -> Result<FractionalPoolOutputs> {
        let x = value.into();
        let g = x.graph().clone();
        let ratio = match (self.op, self.v1) {
            ("FractionalMaxPool", None) => self.max_ratio()?,
            _ => self.pooling_ratio.clone(),
        };
        if ratio.len() < 4 {
            return Err(Error::invalid_argument(format!(
                "Attr 'pooling_ratio' of '{}' Op passed list of length {} less than minimum 4.",
                self.op,
                ratio.len()
            )));
        }
        let (deterministic, seed, seed2) = match self.v1 {
            Some((d, s2)) => (d, self.seed, s2),
            None if self.seed == 0 => (false, 0, 0),
            None => {
                let (s1, s2) = g.get_seed(Some(self.seed));
                (true, s1, s2)
            }
        };
        let mut b = crate::new_op(&g, self.op)
            .input(x)
            .attr("pooling_ratio", ratio)
            .attr("pseudo_random", self.pseudo_random)
            .attr("overlapping", self.overlapping)
            .attr("deterministic", deterministic)
            .attr("seed", seed)
            .attr("seed2", seed2);
        if let Some(n) = &self.name {
            b = b.name(n.as_str());
        }
        let node = b.build()?;
        Ok(FractionalPoolOutputs {
            output: node.output(0)?,
            row_pooling_sequence: node.output(1)?,
            col_pooling_sequence: node.output(2)?,
        })
    }
}

/// `tf.nn.fractional_max_pool(value, pooling_ratio)` with TensorFlow's defaults (random
/// regions, a new pooling every run); see [`FractionalPool`] for the options.
pub fn fractional_max_pool(
    value: impl Into<Output>,
    pooling_ratio: &[f32],
) -> Result<FractionalPoolOutputs> {
    FractionalPool::max(pooling_ratio).build(value)
}

/// `tf.nn.fractional_avg_pool(value, pooling_ratio)` with TensorFlow's defaults; see
/// [`FractionalPool`] for the options.
pub fn fractional_avg_pool(
    value: impl Into<Output>,
    pooling_ratio: &[f32],
) -> Result<FractionalPoolOutputs> {
    FractionalPool::avg(pooling_ratio).build(value)
}

/// TensorFlow's `FractionalMaxPoolGrad`: `out_backprop` routed to the first maximum of each
/// cell the sequences describe (the gradient of [`fractional_max_pool`]).
pub fn fractional_max_pool_grad(
    orig_input: impl Into<Output>,
    orig_output: impl Into<Output>,
    out_backprop: impl Into<Output>,
    row_pooling_sequence: impl Into<Output>,
    col_pooling_sequence: impl Into<Output>,
    overlapping: bool,
) -> Result<Output> {
    let ins = [
        orig_input.into(),
        orig_output.into(),
        out_backprop.into(),
        row_pooling_sequence.into(),
        col_pooling_sequence.into(),
    ];
    let g = crate::util::same_graph(&ins.iter().collect::<Vec<_>>())?.clone();
    crate::new_op(&g, "FractionalMaxPoolGrad")
        .inputs(ins)
        .attr("overlapping", overlapping)
        .build()?
        .output(0)
}

/// TensorFlow's `FractionalAvgPoolGrad`: each `out_backprop` value spread evenly over its
/// cell of an input of shape `orig_input_tensor_shape` (int64; the gradient of
/// [`fractional_avg_pool`]).
pub fn fractional_avg_pool_grad(
    orig_input_tensor_shape: impl Into<Output>,
    out_backprop: impl Into<Output>,
    row_pooling_sequence: impl Into<Output>,
    col_pooling_sequence: impl Into<Output>,
    overlapping: bool,
) -> Result<Output> {
    let ins = [
        orig_input_tensor_shape.into(),
        out_backprop.into(),
        row_pooling_sequence.into(),
        col_pooling_sequence.into(),
    ];
    let g = crate::util::same_graph(&ins.iter().collect::<Vec<_>>())?.clone();
    crate::new_op(&g, "FractionalAvgPoolGrad")
        .inputs(ins)
        .attr("overlapping", overlapping)
        .build()?
        .output(0)
}

/// A float as TensorFlow's `StrCat` writes it: `%.6g`, or `%.9g` when six digits do not
/// read back as the same float.
pub(crate) fn format_float(v: f32) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let short = c_g(v as f64, 6);
    if short.parse::<f32>().ok() == Some(v) {
        short
    } else {
        c_g(v as f64, 9)
    }
}

/// A double as TensorFlow's `StrCat` writes it: `%.15g`, or `%.17g` when 15 digits do not
/// read back as the same double.
pub(crate) fn format_double(v: f64) -> String {
    if !v.is_finite() {
        return format_float(v as f32);
    }
    let short = c_g(v, 15);
    if short.parse::<f64>().ok() == Some(v) {
        short
    } else {
        c_g(v, 17)
    }
}

/// C's `%.{p}g`.
fn c_g(v: f64, p: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{:.*e}", p - 1, v);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    }
}

/// A float as Python's `repr` shows the float64 it widens to.
fn python_float(v: f32) -> String {
    format!("{:?}", v as f64)
}

/// A list of floats as Python shows it.
fn python_list(v: &[f32]) -> String {
    let items: Vec<String> = v.iter().map(|&x| python_float(x)).collect();
    format!("[{}]", items.join(", "))
}

/// `FractionalPoolShapeFn`: `floor(dim / ratio)` (in float) for each known dim; the sequence
/// outputs are vectors of the pooled row and column counts, as TensorFlow declares them (the
/// kernels' sequences hold one boundary more).
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.with_rank(0, 4)?;
    let ratio: Vec<f32> = ctx.attr("pooling_ratio")?;
    if ratio.len() != 4 {
        return Err(Error::invalid_argument(
            "pooling_ratio field must specify 4 dimensions",
        ));
    }
    if let Some(&r) = ratio.iter().find(|&&r| r.is_nan() || r < 1.0) {
        return Err(Error::invalid_argument(format!(
            "pooling_ratio cannot be smaller than 1, got: {}",
            format_float(r)
        )));
    }
    let dims: Vec<Option<usize>> = (0..4)
        .map(|i| {
            x.dim(i as isize)
                .map(|d| (d as f32 / ratio[i]).floor() as usize)
        })
        .collect();
    ctx.set_output(1, Shape::new(vec![dims[1]]));
    ctx.set_output(2, Shape::new(vec![dims[2]]));
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

/// `FractionalMaxPoolGrad`: orig_input's shape, of rank 4.
fn max_grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.with_rank(0, 4)?;
    ctx.set_output(0, x);
    Ok(())
}

/// `FractionalAvgPoolGrad`: the shape `orig_input_tensor_shape` holds when it is a
/// constant, else unknown of rank 4.
fn avg_grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let out = match ctx.input_const(0) {
        Some(t) => {
            let dims = t.to_vec::<i64>()?;
            if let Some(&d) = dims.iter().find(|&&d| d < 0) {
                return Err(Error::invalid_argument(format!(
                    "Invalid value in tensor used for shape: {d}"
                )));
            }
            Shape::from_i64(&dims)
        }
        None => Shape::unknown_of_rank(4),
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    for op in ["FractionalMaxPool", "FractionalAvgPool"] {
        register_op(
            OpDef::new(op)
                .input("value", ArgType::Attr("T"))
                .output("output", ArgType::Attr("T"))
                .output("row_pooling_sequence", ArgType::Fixed(DType::I64))
                .output("col_pooling_sequence", ArgType::Fixed(DType::I64))
                .attr("pooling_ratio", AttrKind::Floats, None)
                .attr(
                    "pseudo_random",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(false)),
                )
                .attr("overlapping", AttrKind::Bool, Some(AttrValue::Bool(false)))
                .attr(
                    "deterministic",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(false)),
                )
                .attr("seed", AttrKind::Int, Some(AttrValue::Int(0)))
                .attr("seed2", AttrKind::Int, Some(AttrValue::Int(0)))
                .type_attr("T", TYPES)
                .shape_fn(shape_fn),
        );
        register_kernel(op, make_forward);
    }
    register_op(
        OpDef::new("FractionalMaxPoolGrad")
            .input("orig_input", ArgType::Attr("T"))
            .input("orig_output", ArgType::Attr("T"))
            .input("out_backprop", ArgType::Attr("T"))
            .input("row_pooling_sequence", ArgType::Fixed(DType::I64))
            .input("col_pooling_sequence", ArgType::Fixed(DType::I64))
            .output("output", ArgType::Attr("T"))
            .attr("overlapping", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", TYPES)
            .shape_fn(max_grad_shape_fn),
    );
    register_op(
        OpDef::new("FractionalAvgPoolGrad")
            .input("orig_input_tensor_shape", ArgType::Fixed(DType::I64))
            .input("out_backprop", ArgType::Attr("T"))
            .input("row_pooling_sequence", ArgType::Fixed(DType::I64))
            .input("col_pooling_sequence", ArgType::Fixed(DType::I64))
            .output("output", ArgType::Attr("T"))
            .attr("overlapping", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", TYPES)
            .shape_fn(avg_grad_shape_fn),
    );
    register_kernel("FractionalMaxPoolGrad", make_grad);
    register_kernel("FractionalAvgPoolGrad", make_grad);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_tensorflow_prints_them() {
        assert_eq!(format_float(0.5), "0.5");
        assert_eq!(format_float(11.0), "11");
        assert_eq!(format_float(1.44), "1.44");
        assert_eq!(format_float(2f32.sqrt()), "1.41421354");
        assert_eq!(format_float(-1.0), "-1");
        assert_eq!(format_float(1e-7), "1e-07");
        assert_eq!(format_double(0.1), "0.1");
        assert_eq!(format_double(1.0 / 3.0), "0.33333333333333331");
        assert_eq!(python_list(&[1.0, 1.5, 0.5]), "[1.0, 1.5, 0.5]");
    }
}
