//! Losses: `SparseSoftmaxCrossEntropyWithLogits` and `SoftmaxCrossEntropyWithLogits` (each with
//! TensorFlow's two outputs, loss and backprop), weir's fused `SigmoidCrossEntropyWithLogits`
//! with its `SigmoidCrossEntropyWithLogitsGrad`, and `L2Loss`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::{drop_last_dim, eigen_sum, match_float_or_half, NnFloat};

/// `tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)`: the
/// per-example loss `-log(softmax(logits)[label])`, computed from shifted logits so it never
/// overflows. `labels` (int32 or int64) has the shape of `logits` without its last dimension;
/// a label outside `[0, classes)` fails the run with InvalidArgument, as on TensorFlow's CPU.
///
/// The node is TensorFlow's `SparseSoftmaxCrossEntropyWithLogits`; its second output is the
/// backprop `softmax(logits) - onehot(labels)`, which the gradient uses.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::sparse_softmax_cross_entropy_with_logits};
/// let g = Graph::new();
/// let logits = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 1.0, 2.0, 3.0])?)?;
/// let loss = sparse_softmax_cross_entropy_with_logits(constant(&g, [2i32, 0])?, &logits)?;
/// assert_eq!(loss.shape(), weir_graph::Shape::known(&[2]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_softmax_cross_entropy_with_logits(
    labels: impl Into<Output>,
    logits: impl Into<Output>,
) -> Result<Output> {
    let (labels, logits) = (labels.into(), logits.into());
    let (ls, gs) = (labels.shape(), logits.shape());
    if let (Some(lr), Some(gr)) = (ls.rank(), gs.rank()) {
        if gr == 0 {
            return Err(Error::invalid_argument(format!(
                "Logits cannot be scalars - received shape {gs}."
            )));
        }
        if lr != gr - 1 {
            return Err(Error::invalid_argument(format!(
                "Rank mismatch: Rank of labels (received {lr}) should equal rank of logits minus 1 (received {gr})."
            )));
        }
        if !ls.is_compatible_with(&drop_last_dim(&gs)) {
            return Err(Error::invalid_argument(format!(
                "Shape mismatch: The shape of labels (received {ls}) should equal the shape of logits except for the last dimension (received {gs})."
            )));
        }
    }
    let g = crate::util::same_graph(&[&logits, &labels])?.clone();
    // TensorFlow computes a float16 loss in float32 and casts the cost back (not bfloat16).
    let half = logits.dtype() == DType::F16;
    let logits = if half {
        crate::math::cast(logits, DType::F32)?
    } else {
        logits
    };
    let cost = crate::new_op(&g, "SparseSoftmaxCrossEntropyWithLogits")
        .input(logits)
        .input(labels)
        .build()?
        .output(0)?;
    if half {
        crate::math::cast(cost, DType::F16)
    } else {
        Ok(cost)
    }
}

/// `tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)` (TensorFlow 1.x
/// semantics): the per-example loss `sum(-labels * log_softmax(logits))` over the last axis,
/// for `labels` of the same shape as `logits`, taken as given (not normalized). The node's
/// second output is the backprop `softmax(logits) - labels`.
pub fn softmax_cross_entropy_with_logits(
    labels: impl Into<Output>,
    logits: impl Into<Output>,
) -> Result<Output> {
    let (labels, logits) = (labels.into(), logits.into());
    if !labels.shape().is_compatible_with(&logits.shape()) {
        return Err(Error::invalid_argument(format!(
            "Shapes {} and {} are incompatible",
            logits.shape(),
            labels.shape()
        )));
    }
    let g = crate::util::same_graph(&[&logits, &labels])?.clone();
    // TensorFlow computes float16 and bfloat16 losses in float32 (labels cast along) and
    // casts the cost back.
    let half = matches!(logits.dtype(), DType::F16 | DType::BF16);
    let dtype = logits.dtype();
    let (logits, labels) = if half {
        (
            crate::math::cast(logits, DType::F32)?,
            crate::math::cast(labels, DType::F32)?,
        )
    } else {
        (logits, labels)
    };
    let cost = crate::new_op(&g, "SoftmaxCrossEntropyWithLogits")
        .input(logits)
        .input(labels)
        .build()?
        .output(0)?;
    if half {
        crate::math::cast(cost, dtype)
    } else {
        Ok(cost)
    }
}

/// `tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)`: elementwise
/// `max(x, 0) - x * z + log(1 + exp(-|x|))`, TensorFlow's stable formula.
///
/// TensorFlow composes this from several ops; here it is one node, weir's fused
/// `SigmoidCrossEntropyWithLogits(logits, labels)`, whose gradient is
/// [`sigmoid_cross_entropy_with_logits_grad`].
pub fn sigmoid_cross_entropy_with_logits(
    labels: impl Into<Output>,
    logits: impl Into<Output>,
) -> Result<Output> {
    let (labels, logits) = (labels.into(), logits.into());
    if !labels.shape().is_compatible_with(&logits.shape()) {
        return Err(Error::invalid_argument(format!(
            "logits and labels must have the same shape ({} vs {})",
            logits.shape(),
            labels.shape()
        )));
    }
    let g = crate::util::same_graph(&[&logits, &labels])?.clone();
    crate::new_op(&g, "SigmoidCrossEntropyWithLogits")
        .input(logits)
        .input(labels)
        .build()?
        .output(0)
}

/// weir's `SigmoidCrossEntropyWithLogitsGrad(logits, labels, grad)`: two outputs, the
/// gradients with respect to logits, `grad * (sigmoid(x) - z)`, and labels, `-grad * x`.
pub fn sigmoid_cross_entropy_with_logits_grad(
    logits: impl Into<Output>,
    labels: impl Into<Output>,
    grad: impl Into<Output>,
) -> Result<(Output, Output)> {
    let (x, z, dy) = (logits.into(), labels.into(), grad.into());
    let g = crate::util::same_graph(&[&x, &z, &dy])?.clone();
    let op = crate::new_op(&g, "SigmoidCrossEntropyWithLogitsGrad")
        .input(x)
        .input(z)
        .input(dy)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.nn.l2_loss(t)`: `sum(t ** 2) / 2`, a scalar.
pub fn l2_loss(t: impl Into<Output>) -> Result<Output> {
    let t = t.into();
    crate::new_op(&t.graph().clone(), "L2Loss")
        .input(t)
        .build()?
        .output(0)
}

/// A label as an index: int32 or int64 values, checked against `classes` later.
fn label_values(labels: &Tensor) -> Result<Vec<i64>> {
    Ok(match labels.dtype() {
        DType::I32 => labels
            .as_slice::<i32>()?
            .iter()
            .map(|&v| v as i64)
            .collect(),
        DType::I64 => labels.to_vec::<i64>()?,
        dt => {
            return Err(Error::invalid_argument(format!(
                "labels must be int32 or int64, got {dt}"
            )))
        }
    })
}

/// Per-row loss and backprop of softmax cross-entropy. `target(row, j)` is the label weight
/// of class `j`; `logits` is overwritten by the backprop.
fn xent_rows<T: NnFloat>(
    logits: &mut [T],
    n: usize,
    mut target: impl FnMut(usize, usize) -> T,
) -> Vec<T> {
    let rows = logits.len().checked_div(n).unwrap_or(0);
    let mut loss = Vec::with_capacity(rows);
    // The half types round every operation and sum in Eigen's packet order, as TensorFlow's
    // xent functor does; the scratch row holds the terms of those sums.
    let mut terms = if T::HALF {
        vec![T::ZERO; n]
    } else {
        Vec::new()
    };
    for (r, row) in logits.chunks_exact_mut(n.max(1)).enumerate().take(rows) {
        let max = row.iter().copied().fold(T::neg_infinity(), T::max);
        if T::HALF {
            for (v, e) in row.iter_mut().zip(terms.iter_mut()) {
                *v = *v - max;
                *e = v.exp();
            }
            let sum = eigen_sum(&terms);
            let log_sum = sum.ln();
            for (j, (v, e)) in row.iter().zip(terms.iter_mut()).enumerate() {
                *e = target(r, j) * (log_sum - *v);
            }
            loss.push(eigen_sum(&terms));
            for (j, v) in row.iter_mut().enumerate() {
                *v = v.exp() / sum - target(r, j);
            }
            continue;
        }
        let mut sum = T::ZERO;
        for v in row.iter_mut() {
            *v = *v - max;
            sum = sum + v.exp();
        }
        let log_sum = sum.ln();
        let mut l = T::ZERO;
        for (j, v) in row.iter_mut().enumerate() {
            let t = target(r, j);
            if t != T::ZERO {
                l = l + t * (log_sum - *v);
            }
            *v = v.exp() / sum - t;
        }
        loss.push(l);
    }
    loss
}

fn sparse_xent<T: NnFloat>(mut logits: Tensor, labels: &Tensor) -> Result<(Tensor, Tensor)> {
    let (gs, ls) = (logits.shape().to_vec(), labels.shape().to_vec());
    if gs.is_empty() || ls.as_slice() != &gs[..gs.len() - 1] {
        return Err(Error::invalid_argument(format!(
            "logits and labels must have the same first dimension, got logits shape {} and labels shape {}",
            format_dims(&gs),
            format_dims(&ls)
        )));
    }
    let n = gs[gs.len() - 1];
    let idx = label_values(labels)?;
    if n == 0 && !idx.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Must have at least one class, but got logits shape {}",
            format_dims(&gs)
        )));
    }
    if let Some(&bad) = idx.iter().find(|&&v| v < 0 || v >= n as i64) {
        let all: Vec<String> = idx.iter().map(i64::to_string).collect();
        return Err(Error::invalid_argument(format!(
            "Received a label value of {bad} which is outside the valid range of [0, {n}).  Label values: {}",
            all.join(" ")
        )));
    }
    let one = T::ONE;
    let loss = xent_rows(logits.as_slice_mut::<T>()?, n, |r, j| {
        if idx[r] as usize == j {
            one
        } else {
            T::ZERO
        }
    });
    Ok((Tensor::from_vec(&ls, loss)?, logits))
}

fn dense_xent<T: NnFloat>(mut logits: Tensor, labels: &Tensor) -> Result<(Tensor, Tensor)> {
    let gs = logits.shape().to_vec();
    if gs.is_empty() || labels.shape() != gs.as_slice() {
        return Err(Error::invalid_argument(format!(
            "logits and labels must be same size: logits_size={} labels_size={}",
            format_dims(&gs),
            format_dims(labels.shape())
        )));
    }
    let n = gs[gs.len() - 1];
    let z = labels.as_slice::<T>()?;
    let loss = xent_rows(logits.as_slice_mut::<T>()?, n, |r, j| z[r * n + j]);
    Ok((Tensor::from_vec(&gs[..gs.len() - 1], loss)?, logits))
}

struct XentKernel {
    sparse: bool,
}

impl Kernel for XentKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let logits = ctx.take_input(0);
        let labels = ctx.input(1);
        let (loss, backprop) = match_float_or_half!(logits.dtype(), T => if self.sparse {
            sparse_xent::<T>(logits, labels)?
        } else {
            dense_xent::<T>(logits, labels)?
        });
        ctx.set_output(0, loss);
        ctx.set_output(1, backprop);
        Ok(())
    }
}

/// `max(x, 0) - x * z + log1p(exp(-|x|))`, TensorFlow's stable sigmoid cross-entropy.
pub(crate) fn sigmoid_xent<T: NnFloat>(x: T, z: T) -> T {
    let relu = if x >= T::ZERO { x } else { T::ZERO };
    relu - x * z + (-x.abs()).exp().ln_1p()
}

/// `1 / (1 + exp(-x))` without overflow for large `|x|`.
pub(crate) fn stable_sigmoid<T: NnFloat>(x: T) -> T {
    if x >= T::ZERO {
        T::ONE / (T::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (T::ONE + e)
    }
}

struct SigmoidXentKernel;

impl Kernel for SigmoidXentKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0);
        let z = ctx.input(1);
        let what = "SigmoidCrossEntropyWithLogits";
        let out = match_float_or_half!(x.dtype(), T => super::zip_in_place::<T>(x, z, what, sigmoid_xent)?);
        ctx.set_output(0, out);
        Ok(())
    }
}

struct SigmoidXentGradKernel;

fn sigmoid_xent_grad<T: NnFloat>(x: &Tensor, z: &Tensor, dy: &Tensor) -> Result<(Tensor, Tensor)> {
    let what = "SigmoidCrossEntropyWithLogitsGrad";
    super::same_shape(x, z, what)?;
    super::same_shape(x, dy, what)?;
    let (xs, zs, ds) = (x.as_slice::<T>()?, z.as_slice::<T>()?, dy.as_slice::<T>()?);
    let mut dx = Vec::with_capacity(xs.len());
    let mut dz = Vec::with_capacity(xs.len());
    for ((&a, &b), &g) in xs.iter().zip(zs).zip(ds) {
        dx.push(g * (stable_sigmoid(a) - b));
        dz.push(-(g * a));
    }
    Ok((
        Tensor::from_vec(x.shape(), dx)?,
        Tensor::from_vec(x.shape(), dz)?,
    ))
}

impl Kernel for SigmoidXentGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, z, dy) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (dx, dz) = match_float_or_half!(x.dtype(), T => sigmoid_xent_grad::<T>(x, z, dy)?);
        ctx.set_output(0, dx);
        ctx.set_output(1, dz);
        Ok(())
    }
}

/// TensorFlow's `(t.square() * T(0.5)).sum()` in a half type: each product rounded, the sum
/// in Eigen's packet order.
fn half_l2_loss<T: NnFloat>(t: &Tensor) -> Result<T> {
    let half = T::from(0.5).unwrap_or(T::ZERO);
    let terms: Vec<T> = t.as_slice::<T>()?.iter().map(|&v| v * v * half).collect();
    Ok(eigen_sum(&terms))
}

struct L2LossKernel;

impl Kernel for L2LossKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        // Summed in f64: a long f32 sum of squares loses digits TensorFlow's tree sum keeps.
        let out = match t.dtype() {
            DType::F32 => {
                let s: f64 = t
                    .as_slice::<f32>()?
                    .iter()
                    .map(|&v| (v as f64) * (v as f64))
                    .sum();
                Tensor::scalar((s * 0.5) as f32)
            }
            DType::F64 => {
                let s: f64 = t.as_slice::<f64>()?.iter().map(|&v| v * v).sum();
                Tensor::scalar(s * 0.5)
            }
            DType::F16 => Tensor::scalar(half_l2_loss::<weir_graph::f16>(t)?),
            DType::BF16 => Tensor::scalar(half_l2_loss::<weir_graph::bf16>(t)?),
            dt => {
                return Err(Error::invalid_argument(format!(
                    "L2Loss does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn xent_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let logits = ctx.input_shape(0).clone();
    let loss = if ctx.op_type == "SparseSoftmaxCrossEntropyWithLogits" {
        drop_last_dim(&logits).merge_with(ctx.input_shape(1))?
    } else {
        let merged = logits.merge_with(ctx.input_shape(1))?;
        drop_last_dim(&merged)
    };
    let backprop = match (loss.dims(), logits.dims()) {
        (Some(l), Some(g)) if !g.is_empty() => {
            let mut d = l.to_vec();
            d.push(g[g.len() - 1]);
            Shape::new(d)
        }
        _ => logits,
    };
    ctx.set_output(0, loss);
    ctx.set_output(1, backprop);
    Ok(())
}

fn sig_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let mut s = ctx.input_shape(0).merge_with(ctx.input_shape(1))?;
    if ctx.num_inputs() == 3 {
        s = s.merge_with(ctx.input_shape(2))?;
        ctx.set_output(1, s.clone());
    }
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseSoftmaxCrossEntropyWithLogits")
            .input("features", ArgType::Attr("T"))
            .input("labels", ArgType::Attr("Tlabels"))
            .output("loss", ArgType::Attr("T"))
            .output("backprop", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .type_attr("Tlabels", &[DType::I32, DType::I64])
            .shape_fn(xent_shape),
    );
    register_kernel("SparseSoftmaxCrossEntropyWithLogits", |_| {
        Ok(Box::new(XentKernel { sparse: true }))
    });
    register_op(
        OpDef::new("SoftmaxCrossEntropyWithLogits")
            .input("features", ArgType::Attr("T"))
            .input("labels", ArgType::Attr("T"))
            .output("loss", ArgType::Attr("T"))
            .output("backprop", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .shape_fn(xent_shape),
    );
    register_kernel("SoftmaxCrossEntropyWithLogits", |_| {
        Ok(Box::new(XentKernel { sparse: false }))
    });
    register_op(
        OpDef::new("SigmoidCrossEntropyWithLogits")
            .input("logits", ArgType::Attr("T"))
            .input("labels", ArgType::Attr("T"))
            .output("loss", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .shape_fn(sig_shape),
    );
    register_kernel("SigmoidCrossEntropyWithLogits", |_: &Node| {
        Ok(Box::new(SigmoidXentKernel))
    });
    register_op(
        OpDef::new("SigmoidCrossEntropyWithLogitsGrad")
            .input("logits", ArgType::Attr("T"))
            .input("labels", ArgType::Attr("T"))
            .input("grad", ArgType::Attr("T"))
            .output("logits_backprop", ArgType::Attr("T"))
            .output("labels_backprop", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .shape_fn(sig_shape),
    );
    register_kernel("SigmoidCrossEntropyWithLogitsGrad", |_| {
        Ok(Box::new(SigmoidXentGradKernel))
    });
    register_op(
        OpDef::new("L2Loss")
            .input("t", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::HALF_FLOATS)
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("L2Loss", |_| Ok(Box::new(L2LossKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_xent_matches_formula_and_rejects_bad_labels() {
        let logits =
            Tensor::from_vec(&[2, 3], vec![1.0f64, 2.0, 3.0, 1000.0, 0.0, -1000.0]).unwrap();
        let (loss, bp) = sparse_xent::<f64>(logits.clone(), &Tensor::from(vec![2i32, 0])).unwrap();
        let l = loss.to_vec::<f64>().unwrap();
        let lse = (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
        assert!((l[0] - (lse - 3.0)).abs() < 1e-12);
        assert_eq!(l[1], 0.0);
        let b = bp.to_vec::<f64>().unwrap();
        assert!((b[2] - (3f64.exp() / lse.exp() - 1.0)).abs() < 1e-12);
        let e = sparse_xent::<f64>(logits, &Tensor::from(vec![1i64, 5])).unwrap_err();
        assert_eq!(
            e.message(),
            "Received a label value of 5 which is outside the valid range of [0, 3).  Label values: 1 5"
        );
    }

    #[test]
    fn sigmoid_xent_is_stable() {
        assert!((sigmoid_xent(0.0f64, 1.0) - std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(sigmoid_xent(1000.0f32, 1.0), 0.0);
        assert_eq!(sigmoid_xent(-1000.0f32, 0.0), 0.0);
        assert_eq!(sigmoid_xent(-1000.0f32, 1.0), 1000.0);
        assert_eq!(stable_sigmoid(-1000.0f64), 0.0);
    }
}
