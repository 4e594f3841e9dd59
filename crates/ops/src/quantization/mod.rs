//! Simulated quantization (TensorFlow's `tf.quantization`): the `FakeQuantWithMinMax*` ops
//! that TF1's quantization-aware training (`tf.contrib.quantize`) puts in graphs, their
//! gradient ops, and `QuantizeAndDequantizeV2`/`V3`/`V4` with `QuantizeAndDequantizeV4Grad`.
//!
//! Each op rounds float values to the grid an integer type of `num_bits` bits would hold and
//! turns them back into floats, so a float model sees the precision loss of its quantized
//! deployment. The fake-quant ops first nudge `[min, max]` so that 0.0 lies on the grid; the
//! quantize-and-dequantize ops scale the range so that 0 stays fixed instead. Kernels follow
//! TensorFlow 2.21's CPU kernels operation for operation, so results match bit for bit.

mod fake_quant;
mod fake_quant_per_channel;
mod qdq_kernels;
mod quantize_and_dequantize;

use std::fmt::Display;

use weir_graph::{
    bf16, f16, AttrValue, DType, Dim, Error, InferenceContext, Operation, Output, Result, Shape,
    Tensor,
};

pub use fake_quant::{
    fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars, fake_quant_with_min_max_vars_gradient, FakeQuantWithMinMaxArgs,
    FakeQuantWithMinMaxVars,
};
pub use fake_quant_per_channel::{
    fake_quant_with_min_max_vars_per_channel, fake_quant_with_min_max_vars_per_channel_gradient,
    FakeQuantWithMinMaxVarsPerChannel,
};
pub use quantize_and_dequantize::{
    quantize_and_dequantize, quantize_and_dequantize_v2, quantize_and_dequantize_v4_grad,
    QuantizeAndDequantize, QuantizeAndDequantizeV3,
};

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    fake_quant::register();
    fake_quant_per_channel::register();
    quantize_and_dequantize::register();
}

/// An input that may be given as numbers (`min`, `max`, `input_min`, `num_bits`, ...): a
/// tensor, or numbers that TensorFlow's Python turns into a constant of the op's dtype, named
/// after the argument inside the op's name scope (`FakeQuantWithMinMaxVars/min`).
#[derive(Clone, Debug)]
pub enum QuantArg {
    /// A tensor of the graph.
    Tensor(Output),
    /// Numbers, with the shape they form.
    Numbers(Vec<usize>, Vec<f64>),
}

impl From<Output> for QuantArg {
    fn from(t: Output) -> QuantArg {
        QuantArg::Tensor(t)
    }
}

impl From<&Output> for QuantArg {
    fn from(t: &Output) -> QuantArg {
        QuantArg::Tensor(t.clone())
    }
}

macro_rules! number_args {
    ($($t:ty),*) => {$(
        impl From<$t> for QuantArg {
            fn from(v: $t) -> QuantArg {
                QuantArg::Numbers(vec![], vec![f64::from(v)])
            }
        }
        impl From<Vec<$t>> for QuantArg {
            fn from(v: Vec<$t>) -> QuantArg {
                QuantArg::Numbers(vec![v.len()], v.into_iter().map(f64::from).collect())
            }
        }
        impl From<&[$t]> for QuantArg {
            fn from(v: &[$t]) -> QuantArg {
                v.to_vec().into()
            }
        }
        impl<const N: usize> From<[$t; N]> for QuantArg {
            fn from(v: [$t; N]) -> QuantArg {
                v.to_vec().into()
            }
        }
    )*};
}
number_args!(f32, f64, i32);

impl QuantArg {
    /// The tensor, or the numbers as a constant of `dtype` named `name`.
    fn into_output(self, g: &weir_graph::Graph, name: &str, dtype: DType) -> Result<Output> {
        let (shape, v) = match self {
            QuantArg::Tensor(t) => return Ok(t),
            QuantArg::Numbers(shape, v) => (shape, v),
        };
        let t = match dtype {
            DType::F32 => Tensor::from_vec(&shape, v.iter().map(|&x| x as f32).collect()),
            DType::F64 => Tensor::from_vec(&shape, v),
            DType::F16 => Tensor::from_vec(&shape, v.iter().map(|&x| f16::from_f64(x)).collect()),
            DType::BF16 => Tensor::from_vec(&shape, v.iter().map(|&x| bf16::from_f64(x)).collect()),
            _ => {
                let ints: Option<Vec<i32>> = v
                    .iter()
                    .map(|&x| {
                        (x.fract() == 0.0 && x.abs() <= f64::from(i32::MAX)).then_some(x as i32)
                    })
                    .collect();
                match (dtype, ints) {
                    (DType::I32, Some(ints)) => Tensor::from_vec(&shape, ints),
                    _ => Err(Error::invalid_argument(format!(
                        "Cannot convert {v:?} to a tensor of dtype {}",
                        dtype.python_name()
                    ))),
                }
            }
        }?;
        crate::array::constant_named(g, t, name)
    }
}

/// Adds a node of `op_type` whose inputs may be numbers, as TensorFlow's op wrappers do: in a
/// name scope named after the node (default: the op type), numbers become constants named
/// after their argument, then the node takes the scope's own name. Each argument carries the
/// dtype its numbers take.
fn quant_node(
    op_type: &str,
    name: Option<&str>,
    args: Vec<(&str, QuantArg, DType)>,
    attrs: &[(&str, AttrValue)],
) -> Result<Operation> {
    let tensors: Vec<&Output> = args
        .iter()
        .filter_map(|(_, a, _)| match a {
            QuantArg::Tensor(t) => Some(t),
            QuantArg::Numbers(..) => None,
        })
        .collect();
    let g = crate::util::same_graph(&tensors)?.clone();
    let scope = g.name_scope(name.unwrap_or(op_type));
    let mut b = crate::new_op(&g, op_type).name(scope.prefix());
    for (arg, a, dtype) in args {
        b = b.input(a.into_output(&g, arg, dtype)?);
    }
    for (k, v) in attrs {
        b = b.attr(k, v.clone());
    }
    b.build()
}

// TensorFlow's shape-inference checks, with the words of its `InferenceContext` (weir names
// the op type where TensorFlow names the node).

/// A shape function's error: TensorFlow's message, then the op and the input shapes.
fn shape_error(ctx: &InferenceContext<'_>, msg: impl Display) -> Error {
    let shapes: Vec<String> = (0..ctx.num_inputs())
        .map(|i| match ctx.input_shape(i).rank() {
            Some(_) => ctx.input_shape(i).to_string(),
            None => "?".to_string(),
        })
        .collect();
    Error::invalid_argument(format!(
        "{msg} for '{}' with input shapes: {}.",
        ctx.op_type,
        shapes.join(", ")
    ))
}

/// `WithRank`: `s` of rank `rank` (an unknown rank becomes that rank).
fn with_rank(ctx: &InferenceContext<'_>, s: &Shape, rank: usize) -> Result<Shape> {
    match s.rank() {
        None => Ok(Shape::unknown_of_rank(rank)),
        Some(r) if r == rank => Ok(s.clone()),
        Some(r) => Err(shape_error(
            ctx,
            format!("Shape must be rank {rank} but is rank {r}"),
        )),
    }
}

/// `WithRankAtLeast`.
fn with_rank_at_least(ctx: &InferenceContext<'_>, s: &Shape, rank: usize) -> Result<Shape> {
    match s.rank() {
        Some(r) if r < rank => Err(shape_error(
            ctx,
            format!("Shape must be at least rank {rank} but is rank {r}"),
        )),
        _ => Ok(s.clone()),
    }
}

/// `WithRankAtMost`.
fn with_rank_at_most(ctx: &InferenceContext<'_>, s: &Shape, rank: usize) -> Result<Shape> {
    match s.rank() {
        Some(r) if r > rank => Err(shape_error(
            ctx,
            format!("Shape must be at most rank {rank} but is rank {r}"),
        )),
        _ => Ok(s.clone()),
    }
}

/// `Merge` of two shapes: the more specific of each dimension.
fn merge(ctx: &InferenceContext<'_>, a: &Shape, b: &Shape) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(if a.rank().is_some() { a } else { b }.clone());
    };
    if da.len() != db.len() {
        return Err(shape_error(
            ctx,
            format!(
                "Shapes must be equal rank, but are {} and {}",
                da.len(),
                db.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(da.len());
    for (i, (x, y)) in da.iter().zip(db).enumerate() {
        match (x, y) {
            (Some(p), Some(q)) if p != q => {
                return Err(shape_error(
                    ctx,
                    format!(
                        "Dimension {i} in both shapes must be equal, but are {p} and {q}. \
                         Shapes are {a} and {b}."
                    ),
                ))
            }
            _ => out.push(x.or(*y)),
        }
    }
    Ok(Shape::new(out))
}

/// `Merge` of two dimensions.
fn merge_dim(ctx: &InferenceContext<'_>, a: Dim, b: Dim) -> Result<Dim> {
    match (a, b) {
        (Some(p), Some(q)) if p != q => Err(shape_error(
            ctx,
            format!("Dimensions must be equal, but are {p} and {q}"),
        )),
        _ => Ok(a.or(b)),
    }
}

/// `v`, or a zero of its sign when subnormal. TensorFlow runs its CPU kernels with denormals
/// flushed to zero (FTZ and DAZ): a subnormal operand acts as a zero and a subnormal result
/// becomes one, which decides, e.g., whether the smallest negative float is below a range
/// starting at 0.
fn ftz<T: Flush>(v: T) -> T {
    v.flush()
}

/// The float types whose subnormals [`ftz`] flushes.
trait Flush: Copy {
    fn flush(self) -> Self;
}

macro_rules! flush {
    ($($t:ty),*) => {$(
        impl Flush for $t {
            fn flush(self) -> $t {
                if self.is_subnormal() {
                    (0.0 as $t).copysign(self)
                } else {
                    self
                }
            }
        }
    )*};
}
flush!(f32, f64);

/// A float as TensorFlow's kernel messages print one (`absl::StrCat`: C's `%g`, six
/// significant digits, `nan` whatever its sign).
fn six_digits(v: f64) -> String {
    if v.is_nan() {
        return "nan".to_string();
    }
    let mut out = Vec::new();
    crate::string::format::Spec::default().float(v, b'g', &mut out, &mut String::new());
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_absl_does() {
        // What TensorFlow 2.21's messages printed for these values.
        assert_eq!(six_digits(f64::from(0.1f32)), "0.1");
        assert_eq!(six_digits(f64::from(-3e-7f32)), "-3e-07");
        assert_eq!(six_digits(1e20), "1e+20");
        assert_eq!(six_digits(-1.0 / 3.0), "-0.333333");
        assert_eq!(six_digits(-f64::NAN), "nan");
        assert_eq!(six_digits(f64::NEG_INFINITY), "-inf");
    }
}
