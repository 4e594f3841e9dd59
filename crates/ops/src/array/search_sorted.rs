//! `LowerBound` and `UpperBound` (`tf.searchsorted`): for each value, the index in its row
//! of a sorted sequence where it would be inserted, before (`left`) or after (`right`) equal
//! elements.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Tensor,
    TensorType,
};

/// `tf.searchsorted(sorted_sequence, values, side, out_type)`: both inputs are viewed as
/// rows over their last dim (`[-1, n]`); `side` is `"left"` (op `LowerBound`) or `"right"`
/// (op `UpperBound`); the result has `values`' shape and dtype `out_type` (int32 or int64).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::{constant, searchsorted};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let s = constant(&g, [1.0f32, 3.0, 3.0, 7.0])?;
/// let i = searchsorted(&s, constant(&g, [3.0f32, 8.0])?, "right", DType::I32)?;
/// assert_eq!(Session::new(&g)?.eval(&i)?.to_vec::<i32>()?, vec![3, 4]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn searchsorted(
    sorted_sequence: impl Into<Output>,
    values: impl Into<Output>,
    side: &str,
    out_type: DType,
) -> Result<Output> {
    let (seq, vals) = (sorted_sequence.into(), values.into());
    let op = match side {
        "left" => "LowerBound",
        "right" => "UpperBound",
        _ => {
            return Err(Error::invalid_argument(format!(
                "Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'."
            )))
        }
    };
    let g = seq.graph().clone();
    // As TensorFlow's Python: rows over the last dim, reshaped back to `values`' shape.
    let last = |x: &Output| -> Result<Output> {
        match x.shape().dim(-1) {
            Some(d) => crate::array::constant(&g, d as i32),
            None => {
                let s = crate::array::shape(x)?;
                crate::array::strided_slice_items(&s, &[crate::array::SliceItem::Index(-1)])
            }
        }
    };
    let rows = |x: &Output| -> Result<Output> {
        let minus_one = crate::array::constant(&g, [-1i32])?;
        let n = crate::array::expand_dims(last(x)?, 0)?;
        let shape = crate::array::concat(&[minus_one, n], 0)?;
        crate::array::reshape(x, shape)
    };
    let (seq2, vals2) = (rows(&seq)?, rows(&vals)?);
    let out = crate::new_op(&g, op)
        .input(seq2)
        .input(vals2)
        .attr("out_type", out_type)
        .build()?
        .output(0)?;
    let target = match vals.shape().to_known() {
        Some(d) => {
            super::shape_util::index_const(&g, &d.iter().map(|&v| v as i64).collect::<Vec<_>>())?
        }
        None => crate::array::shape(&vals)?,
    };
    crate::array::reshape(out, target)
}

/// The insertion points of `values` in `seq` (rows of `n` and `m` elements), with
/// `std::lower_bound`'s `<` (or `std::upper_bound`'s) so NaNs land where TensorFlow's do.
fn search<T: TensorType + PartialOrd>(
    seq: &[T],
    values: &[T],
    n: usize,
    m: usize,
    upper: bool,
) -> Vec<i64> {
    let mut out = Vec::with_capacity(values.len());
    for (r, row) in values.chunks(m.max(1)).enumerate() {
        let s = &seq[r * n..(r + 1) * n];
        for v in row {
            let i = if upper {
                s.partition_point(|a| v.partial_cmp(a) != Some(std::cmp::Ordering::Less))
            } else {
                s.partition_point(|a| a < v)
            };
            out.push(i as i64);
        }
    }
    out
}

struct BoundKernel {
    upper: bool,
    out_type: DType,
}

impl Kernel for BoundKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (seq, vals) = (ctx.input(0), ctx.input(1));
        for (i, t) in [seq, vals].iter().enumerate() {
            if t.rank() != 2 {
                return Err(Error::invalid_argument(format!(
                    "input {i} must be 2-D, got rank {}",
                    t.rank()
                )));
            }
        }
        if seq.shape()[0] != vals.shape()[0] {
            return Err(Error::invalid_argument(
                "Leading dim_size of both tensors must match.",
            ));
        }
        let (n, m) = (seq.shape()[1], vals.shape()[1]);
        let dt = seq.dtype();
        let idx = weir_graph::match_real_dtype!(dt,
            T => search::<T>(seq.as_slice::<T>()?, vals.as_slice::<T>()?, n, m, self.upper),
            _ => return Err(Error::invalid_argument(format!("{} does not support {dt}", ctx.node().op_type()))));
        let shape = vals.shape().to_vec();
        let out = if self.out_type == DType::I64 {
            Tensor::from_vec(&shape, idx)?
        } else {
            Tensor::from_vec(&shape, idx.into_iter().map(|v| v as i32).collect())?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 2)?;
    let v = ctx.with_rank(1, 2)?;
    ctx.set_output(0, v);
    Ok(())
}

pub(super) fn register() {
    for op in ["LowerBound", "UpperBound"] {
        register_op(super::unique_v2::default_type(
            OpDef::new(op)
                .input("sorted_inputs", ArgType::Attr("T"))
                .input("values", ArgType::Attr("T"))
                .output("output", ArgType::Attr("out_type"))
                .type_attr("T", DType::REAL_NUMBER)
                .type_attr("out_type", &[DType::I32, DType::I64])
                .shape_fn(shape_fn),
            "out_type",
            DType::I32,
        ));
        register_kernel(op, |n| {
            Ok(Box::new(BoundKernel {
                upper: n.op_type() == "UpperBound",
                out_type: n.attr("out_type")?,
            }))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_per_row() {
        let seq = [1.0f32, 3.0, 3.0, 7.0];
        assert_eq!(search(&seq, &[3.0, 8.0, 0.0], 4, 3, false), vec![1, 4, 0]);
        assert_eq!(search(&seq, &[3.0, 8.0, 0.0], 4, 3, true), vec![3, 4, 0]);
    }
}
