//! `Softmax` and `LogSoftmax` over the last axis, shifted by the row maximum as TensorFlow's
//! kernels are, so large logits never overflow.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    bf16, format_dims, ArgType, DType, Error, Kernel, Node, OpContext, OpDef, Output, Result,
    Tensor,
};

use super::{eigen_sum, match_float_or_half, same_as_input0, NnFloat};

/// `tf.nn.softmax(logits)` over the last axis: `exp(x - max) / sum(exp(x - max))`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, nn::softmax};
/// let g = Graph::new();
/// let p = softmax(constant(&g, [1.0f32, 2.0, 3.0])?)?;
/// assert_eq!(p.op().op_type(), "Softmax");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn softmax(logits: impl Into<Output>) -> Result<Output> {
    build("Softmax", logits.into())
}

/// `tf.nn.log_softmax(logits)` over the last axis: `(x - max) - log(sum(exp(x - max)))`.
pub fn log_softmax(logits: impl Into<Output>) -> Result<Output> {
    build("LogSoftmax", logits.into())
}

fn build(op: &str, x: Output) -> Result<Output> {
    if x.shape().rank() == Some(0) {
        return Err(Error::invalid_argument(format!(
            "logits must have >= 1 dimension, got shape {}",
            x.shape()
        )));
    }
    crate::new_op(&x.graph().clone(), op)
        .input(x)
        .build()?
        .output(0)
}

/// Writes softmax (or log-softmax) of each row of `data` (rows of `n`) in place.
pub(crate) fn softmax_rows<T: NnFloat>(data: &mut [T], n: usize, log: bool) {
    if n == 0 {
        return;
    }
    if T::HALF {
        return half_softmax_rows(data, n, log);
    }
    for row in data.chunks_exact_mut(n) {
        let max = row.iter().copied().fold(T::neg_infinity(), T::max);
        let mut sum = T::ZERO;
        for v in row.iter_mut() {
            *v = *v - max;
            sum = sum + v.exp();
        }
        if log {
            let ls = sum.ln();
            for v in row.iter_mut() {
                *v = *v - ls;
            }
        } else {
            for v in row.iter_mut() {
                *v = v.exp() / sum;
            }
        }
    }
}

/// TensorFlow's Eigen softmax for the half types, each operation rounded to `T`: the
/// exponentials are summed in Eigen's packet order ([`eigen_sum`]) and softmax multiplies by
/// the sum's rounded inverse (`exp * sum.inverse()`) rather than dividing.
fn half_softmax_rows<T: NnFloat>(data: &mut [T], n: usize, log: bool) {
    let mut exps = vec![T::ZERO; n];
    for row in data.chunks_exact_mut(n) {
        let max = row.iter().copied().fold(T::neg_infinity(), T::max);
        for (v, e) in row.iter_mut().zip(exps.iter_mut()) {
            *v = *v - max;
            *e = v.exp();
        }
        let sum = eigen_sum(&exps);
        if log {
            let ls = sum.ln();
            for v in row.iter_mut() {
                *v = *v - ls;
            }
        } else {
            let inv = T::ONE / sum;
            for (v, &e) in row.iter_mut().zip(&exps) {
                *v = e * inv;
            }
        }
    }
}

/// bfloat16 softmax as TensorFlow 2.21's CPU kernel computes it: the whole row in f32,
/// rounded once at the end (its bfloat16 `Softmax` does not round intermediates, unlike
/// `LogSoftmax` and float16).
fn bf16_softmax_via_f32(x: &Tensor, n: usize) -> Result<Tensor> {
    let mut wide: Vec<f32> = x.as_slice::<bf16>()?.iter().map(|v| v.to_f32()).collect();
    softmax_rows(&mut wide, n, false);
    Tensor::from_vec(x.shape(), wide.into_iter().map(bf16::from_f32).collect())
}

struct SoftmaxKernel {
    log: bool,
}

fn run<T: NnFloat>(mut x: Tensor, log: bool) -> Result<Tensor> {
    let n = *x.shape().last().ok_or_else(|| {
        Error::invalid_argument(format!(
            "logits must have >= 1 dimension, got {}",
            format_dims(x.shape())
        ))
    })?;
    if T::DTYPE == DType::BF16 && !log {
        return bf16_softmax_via_f32(&x, n);
    }
    softmax_rows(x.as_slice_mut::<T>()?, n, log);
    Ok(x)
}

impl Kernel for SoftmaxKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let out = match_float_or_half!(x.dtype(), T => run::<T>(x, self.log)?);
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SoftmaxKernel {
        log: node.op_type() == "LogSoftmax",
    }))
}

pub(super) fn register() {
    for (name, out) in [("Softmax", "softmax"), ("LogSoftmax", "logsoftmax")] {
        register_op(
            OpDef::new(name)
                .input("logits", ArgType::Attr("T"))
                .output(out, ArgType::Attr("T"))
                .type_attr("T", super::HALF_FLOATS)
                .shape_fn(same_as_input0),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sum_to_one_and_survive_huge_logits() {
        let mut d = vec![1.0f32, 2.0, 3.0, 1000.0, 1000.0, -1000.0];
        softmax_rows(&mut d, 3, false);
        assert!((d[0] + d[1] + d[2] - 1.0).abs() < 1e-6);
        assert!((d[2] - 0.665_240_9).abs() < 1e-6);
        assert_eq!(d[3], 0.5);
        assert_eq!(d[5], 0.0);
        let mut l = vec![1000.0f64, 1000.0];
        softmax_rows(&mut l, 2, true);
        assert!((l[0] + std::f64::consts::LN_2).abs() < 1e-12);
    }
}
