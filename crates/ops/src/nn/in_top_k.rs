//! `InTopKV2`: whether each target is among the top `k` predictions.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

/// `tf.nn.in_top_k(predictions, targets, k)`: for each row of `predictions` (float
/// `[batch, classes]`), whether fewer than `k` classes score strictly higher than the target
/// class. As in TensorFlow, ties count in the target's favour, and a row is false when its
/// target is out of range or any of its predictions is not finite.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, nn::in_top_k};
/// let g = Graph::new();
/// let p = constant(&g, Tensor::from_vec(&[1, 3], vec![0.1f32, 0.8, 0.1])?)?;
/// let hit = in_top_k(&p, constant(&g, [1i32])?, 1)?;
/// assert_eq!(hit.dtype(), weir_graph::DType::Bool);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn in_top_k(
    predictions: impl Into<Output>,
    targets: impl Into<Output>,
    k: i64,
) -> Result<Output> {
    let (p, t) = (predictions.into(), targets.into());
    let g = crate::util::same_graph(&[&p, &t])?.clone();
    let k = match t.dtype() {
        DType::I64 => crate::array::constant_named(&g, k, "k")?,
        _ => crate::array::constant_named(&g, k as i32, "k")?,
    };
    crate::new_op(&g, "InTopKV2")
        .input(p)
        .input(t)
        .input(k)
        .build()?
        .output(0)
}

/// The InTopK test of one row, TensorFlow's semantics.
fn row_in_top_k(row: &[f32], target: i64, k: i64) -> bool {
    if target < 0 || target as usize >= row.len() {
        return false;
    }
    let tp = row[target as usize];
    if !tp.is_finite() {
        return false;
    }
    let mut higher = 0i64;
    for &p in row {
        if !p.is_finite() {
            return false;
        }
        if p > tp {
            higher += 1;
        }
    }
    higher < k
}

/// `InTopKV2`'s kernel (`k` the third input), or TensorFlow 1's `InTopK`'s (`k` an attr).
struct InTopKKernel {
    k_attr: Option<i64>,
}

impl Kernel for InTopKKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (p, t) = (ctx.input(0), ctx.input(1));
        if p.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "predictions must be 2-dimensional, got {}",
                format_dims(p.shape())
            )));
        }
        if t.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "targets must be 1-dimensional, got {}",
                format_dims(t.shape())
            )));
        }
        let (batch, classes) = (p.shape()[0], p.shape()[1]);
        if t.shape()[0] != batch {
            return Err(Error::invalid_argument(format!(
                "First dimension of predictions {batch} must match length of targets {}",
                t.shape()[0]
            )));
        }
        let targets: Vec<i64> = match t.dtype() {
            DType::I32 => t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect(),
            _ => t.to_vec::<i64>()?,
        };
        let k = match self.k_attr {
            Some(k) => k,
            None => {
                let k = ctx.input(2);
                match k.dtype() {
                    DType::I32 => k.to_scalar::<i32>()? as i64,
                    _ => k.to_scalar::<i64>()?,
                }
            }
        };
        let preds = p.as_slice::<f32>()?;
        let out: Vec<bool> = (0..batch)
            .map(|b| row_in_top_k(&preds[b * classes..(b + 1) * classes], targets[b], k))
            .collect();
        ctx.set_output(0, Tensor::from(out));
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let p = ctx.with_rank(0, 2)?;
    let t = ctx.with_rank(1, 1)?;
    if ctx.num_inputs() > 2 {
        ctx.with_rank(2, 0)?;
    }
    let batch = Shape::new(vec![p.dim(0)]).merge_with(&t)?;
    ctx.set_output(0, batch);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("InTopKV2")
            .input("predictions", ArgType::Fixed(DType::F32))
            .input("targets", ArgType::Attr("T"))
            .input("k", ArgType::Attr("T"))
            .output("precision", ArgType::Fixed(DType::Bool))
            .type_attr("T", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("InTopKV2", |_| Ok(Box::new(InTopKKernel { k_attr: None })));
    // TensorFlow 1's form, which `tf.nn.in_top_k` built before 1.3.
    register_op(
        OpDef::new("InTopK")
            .input("predictions", ArgType::Fixed(DType::F32))
            .input("targets", ArgType::Attr("T"))
            .output("precision", ArgType::Fixed(DType::Bool))
            .attr("k", AttrKind::Int, None)
            .type_attr("T", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("InTopK", |node| {
        Ok(Box::new(InTopKKernel {
            k_attr: Some(node.attr("k")?),
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_nan_and_range() {
        let row = [0.1f32, 0.5, 0.5, 0.2];
        assert!(row_in_top_k(&row, 1, 1));
        assert!(row_in_top_k(&row, 2, 1)); // a tie does not push the target out
        assert!(!row_in_top_k(&row, 3, 2));
        assert!(row_in_top_k(&row, 3, 3));
        assert!(!row_in_top_k(&row, 4, 4));
        assert!(!row_in_top_k(&row, -1, 4));
        assert!(!row_in_top_k(&[0.1, f32::NAN], 0, 2));
        assert!(!row_in_top_k(&[f32::INFINITY, 0.1], 1, 2));
        assert!(!row_in_top_k(&row, 1, 0));
    }
}
