//! The gradient of `Einsum` (TensorFlow's `_EinsumGrad`): each operand's gradient is another
//! einsum of the output's gradient with the other operand; labels only the operand has are
//! broadcast back, and broadcast `...` dimensions are summed back to the operand's shape.

use weir_graph::{AttrValue, DType, Error, Output, Result, Tensor};

use super::super::op;
use super::super::registry::GradContext;
use super::super::util::{konst, shape_of};

const ELLIPSIS: &str = "...";

fn einsum(inputs: &[&Output], equation: &str) -> Result<Output> {
    op(
        &inputs[0].graph().clone(),
        "Einsum",
        inputs,
        &[("equation", AttrValue::Str(equation.to_string()))],
    )
}

/// The axis of `label` in `subs`: from the front before the ellipsis, from the back after it.
fn axis_of(subs: &str, label: char) -> Option<i64> {
    let mut parts = subs.splitn(2, ELLIPSIS);
    let head = parts.next().unwrap_or("");
    if let Some(i) = head.find(label) {
        return Some(i as i64);
    }
    let tail = parts.next()?;
    tail.find(label).map(|i| i as i64 - tail.len() as i64)
}

/// The labels of `subs` not in `keep`, sorted (TensorFlow iterates a Python set).
fn reduced_labels(subs: &str, keep: &str) -> Vec<char> {
    let mut v: Vec<char> = subs
        .chars()
        .filter(|&c| c != '.' && !keep.contains(c))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The dims of `x` at `axes` (negative from the end) as an int32 vector: constants where
/// they are known, gathered from `tf.shape(x)` otherwise.
fn dims_at(x: &Output, axes: &[i64]) -> Result<Output> {
    let g = x.graph().clone();
    let rank = x.shape().rank().ok_or_else(|| {
        Error::unimplemented("The gradient of einsum needs its operands' ranks to be known")
    })? as i64;
    let pos: Vec<i64> = axes
        .iter()
        .map(|&a| if a < 0 { a + rank } else { a })
        .collect();
    let known: Option<Vec<i32>> = pos
        .iter()
        .map(|&a| x.shape().dim(a as isize).map(|d| d as i32))
        .collect();
    if let Some(k) = known {
        return konst(&g, Tensor::from(k));
    }
    let idx = konst(
        &g,
        Tensor::from(pos.iter().map(|&a| a as i32).collect::<Vec<_>>()),
    )?;
    let zero = konst(&g, Tensor::scalar(0i32))?;
    op(&g, "GatherV2", &[&shape_of(x)?, &idx, &zero], &[])
}

/// `_GetGradReduced`: the gradient `grad` of an operand without its `reduced` labels
/// (subscripts `grad_subs`) broadcast back to the operand `x` (subscripts `x_subs`).
fn grad_reduced(
    grad: &Output,
    grad_subs: &str,
    x_subs: &str,
    x: &Output,
    reduced: &[char],
) -> Result<Output> {
    let g = grad.graph().clone();
    let axes: Vec<i64> = reduced
        .iter()
        .map(|&c| {
            axis_of(x_subs, c).ok_or_else(|| Error::internal(format!("label {c} not in {x_subs}")))
        })
        .collect::<Result<_>>()?;
    let without: String = x_subs.chars().filter(|c| !reduced.contains(c)).collect();
    let x_shape = match x.shape().to_known() {
        Some(d) => konst(
            &g,
            Tensor::from(d.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        )?,
        None => shape_of(x)?,
    };
    // TensorFlow's test counts characters, so an ellipsis counts as a repeated label too.
    let distinct = |s: &str| {
        let mut c: Vec<char> = s.chars().collect();
        c.sort_unstable();
        c.dedup();
        c.len()
    };
    let repeated = distinct(x_subs) + distinct(grad_subs) < x_subs.len() + grad_subs.len();
    if !repeated && without == grad_subs {
        // The reduced labels become dims of size 1, broadcast back to x's shape.
        let axes_t = konst(
            &g,
            Tensor::from(axes.iter().map(|&a| a as i32).collect::<Vec<_>>()),
        )?;
        let kept = op(&g, "ReducedShape", &[&x_shape, &axes_t], &[])?;
        let r = op(&g, "Reshape", &[grad, &kept], &[])?;
        return op(&g, "BroadcastTo", &[&r, &x_shape], &[]);
    }
    let zero = konst(&g, Tensor::scalar(0i32))?;
    let grad_shape = match grad.shape().to_known() {
        Some(d) => konst(
            &g,
            Tensor::from(d.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        )?,
        None => shape_of(grad)?,
    };
    let full = op(
        &g,
        "ConcatV2",
        &[&dims_at(x, &axes)?, &grad_shape, &zero],
        &[],
    )?;
    let ones = konst(&g, Tensor::from(vec![1i32; reduced.len()]))?;
    let ones_shape = op(&g, "ConcatV2", &[&ones, &grad_shape, &zero], &[])?;
    let r = op(&g, "Reshape", &[grad, &ones_shape], &[])?;
    let b = op(&g, "BroadcastTo", &[&r, &full], &[])?;
    let subs: String = reduced.iter().collect();
    einsum(&[&b], &format!("{subs}{grad_subs}->{x_subs}"))
}

/// `_GetGradWrt`: the gradient of the operand `x` (subscripts `x_subs`) from the output's
/// gradient and the other operand.
fn grad_wrt(
    grad: &Output,
    other: &Output,
    x: &Output,
    x_subs: &str,
    other_subs: &str,
    out_subs: &str,
) -> Result<Output> {
    let reduced = reduced_labels(x_subs, &format!("{out_subs}{other_subs}"));
    let left: String = x_subs.chars().filter(|c| !reduced.contains(c)).collect();
    let g = einsum(&[grad, other], &format!("{out_subs},{other_subs}->{left}"))?;
    if reduced.is_empty() {
        return Ok(g);
    }
    grad_reduced(&g, &left, x_subs, x, &reduced)
}

/// Sums the broadcast `...` dims of `grad` (an operand's gradient, with the output's batch
/// dims) back to the operand `x`'s; needs static shapes.
fn unbroadcast(grad: &Output, x: &Output, x_subs: &str) -> Result<Output> {
    let (Some(gs), Some(xs)) = (grad.shape().to_known(), x.shape().to_known()) else {
        return Err(Error::unimplemented(
            "The gradient of einsum with broadcast dimensions needs static shapes",
        ));
    };
    if gs == xs {
        return Ok(grad.clone());
    }
    let pre = x_subs.find(ELLIPSIS).unwrap_or(x_subs.len());
    let named = x_subs.chars().filter(|&c| c != '.').count();
    let (ex, eg) = (xs.len() - named, gs.len() - named);
    let mut axes: Vec<i32> = (pre..pre + eg - ex).map(|a| a as i32).collect();
    for i in 0..ex {
        let ga = pre + eg - ex + i;
        if xs[pre + i] == 1 && gs[ga] != 1 {
            axes.push(ga as i32);
        }
    }
    let g = grad.graph().clone();
    let summed = op(
        &g,
        "Sum",
        &[grad, &konst(&g, Tensor::from(axes))?],
        &[("keep_dims", AttrValue::Bool(false))],
    )?;
    let shape: Vec<i32> = xs.iter().map(|&d| d as i32).collect();
    op(
        &g,
        "Reshape",
        &[&summed, &konst(&g, Tensor::from(shape))?],
        &[],
    )
}

pub(super) fn einsum_grad(ctx: &GradContext<'_>) -> Result<Vec<Option<Output>>> {
    let grad = ctx.grad0()?;
    let eq: String = ctx.attr("equation")?;
    let (ins, out) = eq
        .split_once("->")
        .ok_or_else(|| Error::invalid_argument(format!("Einsum equation without '->': {eq}")))?;
    if ctx.num_inputs() == 1 {
        let x = ctx.input(0);
        let reduced = reduced_labels(ins, out);
        let dx = if reduced.is_empty() {
            einsum(&[&grad], &format!("{out}->{ins}"))?
        } else {
            grad_reduced(&grad, out, ins, &x, &reduced)?
        };
        return Ok(vec![Some(dx)]);
    }
    let (xs, ys) = ins
        .split_once(',')
        .ok_or_else(|| Error::invalid_argument(format!("Einsum equation for two inputs: {eq}")))?;
    let (mut xs, mut ys) = (xs.to_string(), ys.to_string());
    if out.contains(ELLIPSIS) {
        for s in [&mut xs, &mut ys] {
            if !s.contains(ELLIPSIS) {
                s.push_str(ELLIPSIS);
            }
        }
    }
    let (x, y) = (ctx.input(0), ctx.input(1));
    if x.dtype() != DType::F32 && x.dtype() != DType::F64 {
        return Ok(vec![None, None]);
    }
    let mut dx = grad_wrt(&grad, &y, &x, &xs, &ys, out)?;
    let mut dy = grad_wrt(&grad, &x, &y, &ys, &xs, out)?;
    if out.contains(ELLIPSIS) {
        dx = unbroadcast(&dx, &x, &xs)?;
        dy = unbroadcast(&dy, &y, &ys)?;
    }
    Ok(vec![Some(dx), Some(dy)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_reduced_labels() {
        assert_eq!(axis_of("ij...k", 'j'), Some(1));
        assert_eq!(axis_of("ij...kl", 'k'), Some(-2));
        assert_eq!(axis_of("ij", 'k'), None);
        assert_eq!(reduced_labels("ijk", "k,jk"), vec!['i']);
        assert_eq!(reduced_labels("...ij", "...j"), vec!['i']);
    }
}
