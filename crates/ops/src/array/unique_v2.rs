//! `UniqueV2` and `UniqueWithCountsV2` (`tf.unique` / `tf.unique_with_counts` with an axis,
//! `tf.raw_ops.UniqueV2`): the distinct slices along an axis in order of first appearance,
//! each slice's index among them and (for the counts form) how often each occurs.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor, TensorType,
};

use super::unique_key::{match_unique_dtype, no_kernel, UniqueKey};

use super::shape_util::{const_i64s, to_i64s};

/// `tf.raw_ops.UniqueV2(x, axis, out_idx)`: `(y, idx)`, the distinct slices of `x` along
/// `axis` (a 1-element vector; an empty one requires a vector `x`) in order of first
/// appearance, and for each slice of `x` the index of its value in `y`.
pub fn unique_v2(
    x: impl Into<Output>,
    axis: impl Into<Output>,
    out_idx: DType,
) -> Result<(Output, Output)> {
    let x = x.into();
    let op = crate::new_op(&x.graph().clone(), "UniqueV2")
        .input(x)
        .input(axis.into())
        .attr("out_idx", out_idx)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.raw_ops.UniqueWithCountsV2(x, axis, out_idx)`: [`unique_v2`] plus the number of
/// occurrences of each distinct slice.
pub fn unique_with_counts_v2(
    x: impl Into<Output>,
    axis: impl Into<Output>,
    out_idx: DType,
) -> Result<(Output, Output, Output)> {
    let x = x.into();
    let op = crate::new_op(&x.graph().clone(), "UniqueWithCountsV2")
        .input(x)
        .input(axis.into())
        .attr("out_idx", out_idx)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}

/// `def` with the type attr `name` (already added with its allowed types) defaulting to
/// `dtype`, as TensorFlow's `out_idx: {int32, int64} = DT_INT32`.
pub(super) fn default_type(mut def: OpDef, name: &str, dtype: DType) -> OpDef {
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == name) {
        a.default = Some(AttrValue::Type(dtype));
    }
    def
}

/// The distinct slices `x[a, i, b]` (over all `a`, `b`) of `x` viewed as `[outer, n, inner]`:
/// for each `i` its unique id, and the first `i` of each id.
fn group<T: UniqueKey>(xs: &[T], outer: usize, n: usize, inner: usize) -> (Vec<i64>, Vec<usize>) {
    let at = |a: usize, i: usize, b: usize| &xs[(a * n + i) * inner + b];
    // Equal keys, and never a NaN (which equals nothing).
    let same = |i: usize, j: usize| {
        (0..outer).all(|a| {
            (0..inner).all(|b| {
                let k = at(a, i, b).key();
                k.is_some() && k == at(a, j, b).key()
            })
        })
    };
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    let (mut ids, mut firsts) = (Vec::with_capacity(n), Vec::new());
    for i in 0..n {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for a in 0..outer {
            for b in 0..inner {
                at(a, i, b).key().hash(&mut h);
            }
        }
        let bucket = buckets.entry(h.finish()).or_default();
        let id = match bucket.iter().find(|&&u| same(firsts[u], i)) {
            Some(&u) => u,
            None => {
                bucket.push(firsts.len());
                firsts.push(i);
                firsts.len() - 1
            }
        };
        ids.push(id as i64);
    }
    (ids, firsts)
}

/// The slices of `x` (as `[outer, n, inner]`) at `firsts`, in that order.
fn take<T: TensorType>(xs: &[T], outer: usize, n: usize, inner: usize, firsts: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(outer * firsts.len() * inner);
    for a in 0..outer {
        for &i in firsts {
            let s = (a * n + i) * inner;
            out.extend_from_slice(&xs[s..s + inner]);
        }
    }
    out
}

fn unique_typed<T: UniqueKey>(
    x: &Tensor,
    axis: Option<usize>,
) -> Result<(Tensor, Vec<i64>, Vec<i64>)> {
    let shape = x.shape();
    let (outer, n, inner, axis) = match axis {
        None => (1, x.num_elements(), 1, 0),
        Some(a) => (
            shape[..a].iter().product(),
            shape[a],
            shape[a + 1..].iter().product(),
            a,
        ),
    };
    let xs = x.as_slice::<T>()?;
    let (ids, firsts) = group(xs, outer, n, inner);
    let mut counts = vec![0i64; firsts.len()];
    for &i in &ids {
        counts[i as usize] += 1;
    }
    let mut out_shape = shape.to_vec();
    if out_shape.is_empty() {
        out_shape.push(firsts.len());
    } else {
        out_shape[axis] = firsts.len();
    }
    let y = Tensor::from_vec(&out_shape, take(xs, outer, n, inner, &firsts))?;
    Ok((y, ids, counts))
}

fn index_tensor(v: Vec<i64>, dtype: DType) -> Tensor {
    if dtype == DType::I32 {
        Tensor::from(v.into_iter().map(|i| i as i32).collect::<Vec<_>>())
    } else {
        Tensor::from(v)
    }
}

/// TensorFlow's checks of `axis`: a vector of at most one element, in `[-rank, rank)`; an empty
/// one means `x` must be a vector.
fn axis_of(x: &Tensor, axis: &Tensor) -> Result<Option<usize>> {
    if axis.rank() != 1 {
        return Err(Error::invalid_argument("axis expects a 1D vector."));
    }
    let a = to_i64s(axis)?;
    if a.len() > 1 {
        return Err(Error::invalid_argument(
            "axis does not support input tensors larger than 1 elements",
        ));
    }
    let r = x.rank() as i64;
    match a.first() {
        None => {
            if x.rank() != 1 {
                return Err(Error::invalid_argument("unique expects a 1D vector."));
            }
            Ok(None)
        }
        Some(&v) => {
            let v = if v < 0 { v + r } else { v };
            if v < 0 || v >= r {
                return Err(Error::invalid_argument(format!(
                    "axis has to be between [0, {r})"
                )));
            }
            Ok(Some(v as usize))
        }
    }
}

struct UniqueV2Kernel {
    out_idx: DType,
    counts: bool,
}

impl Kernel for UniqueV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let axis = axis_of(x, ctx.input(1))?;
        let dt = x.dtype();
        let (y, ids, counts) = match_unique_dtype!(dt, false, T => unique_typed::<T>(x, axis)?,
            _ => return Err(no_kernel(ctx.node(), dt)));
        ctx.set_output(0, y);
        ctx.set_output(1, index_tensor(ids, self.out_idx));
        if self.counts {
            ctx.set_output(2, index_tensor(counts, self.out_idx));
        }
        Ok(())
    }
}

/// As TensorFlow's: `y` keeps only the rank, `idx` has the length of the axis when it is known.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    let axis = const_i64s(ctx, 1)?;
    let y = match x.rank() {
        Some(r) => Shape::unknown_of_rank(r.max(1)),
        None => Shape::unknown(),
    };
    let n = match (x.rank(), axis.as_deref()) {
        (Some(_), Some([])) => x.dim(0),
        (Some(r), Some([a])) => {
            let a = if *a < 0 { a + r as i64 } else { *a };
            if a >= 0 && (a as usize) < r {
                x.dim(a as isize)
            } else {
                None
            }
        }
        _ => None,
    };
    ctx.set_output(0, y);
    ctx.set_output(1, Shape::new(vec![n]));
    if ctx.num_outputs() == 3 {
        ctx.set_output(2, Shape::new(vec![None]));
    }
    Ok(())
}

pub(super) fn register() {
    for (op, counts) in [("UniqueV2", false), ("UniqueWithCountsV2", true)] {
        let mut def = OpDef::new(op)
            .input("x", ArgType::Attr("T"))
            .input("axis", ArgType::Attr("Taxis"))
            .output("y", ArgType::Attr("T"))
            .output("idx", ArgType::Attr("out_idx"));
        if counts {
            def = def.output("count", ArgType::Attr("out_idx"));
        }
        let def = def
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Taxis", &[DType::I32, DType::I64])
            .type_attr("out_idx", &[DType::I32, DType::I64])
            .shape_fn(shape_fn);
        register_op(default_type(def, "out_idx", DType::I32));
        register_kernel(op, |n| {
            Ok(Box::new(UniqueV2Kernel {
                out_idx: n.attr("out_idx")?,
                counts: n.op_type() == "UniqueWithCountsV2",
            }))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_rows_and_columns() {
        let x = Tensor::from_vec(&[3, 3], vec![1, 2, 1, 3, 4, 3, 1, 2, 1]).unwrap();
        let (y, ids, counts) = unique_typed::<i32>(&x, Some(0)).unwrap();
        assert_eq!(y.shape(), &[2, 3]);
        assert_eq!(ids, vec![0, 1, 0]);
        assert_eq!(counts, vec![2, 1]);
        let (y, ids, _) = unique_typed::<i32>(&x, Some(1)).unwrap();
        assert_eq!(y.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 1, 2]);
        assert_eq!(ids, vec![0, 1, 0]);
    }
}
