//! `UnsortedSegmentMax`, `UnsortedSegmentMin` and `UnsortedSegmentProd`: reduce the slices of
//! `data` into `num_segments` rows by id, in any order. As in TensorFlow, the ids may have any
//! rank that is a prefix of `data`'s shape, negative ids drop their slice, and segments no id
//! names hold the reduction's identity (the lowest finite value for max, the highest for min,
//! 1 for prod). The id checks and the shape function are shared with `UnsortedSegmentJoin`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::binary::Arith;

/// The reduction of an unsorted segment op.
#[derive(Clone, Copy)]
enum Reducer {
    Max,
    Min,
    Prod,
}

const OPS: [(&str, Reducer); 3] = [
    ("UnsortedSegmentMax", Reducer::Max),
    ("UnsortedSegmentMin", Reducer::Min),
    ("UnsortedSegmentProd", Reducer::Prod),
];

fn build(op: &str, data: Output, ids: impl Into<Output>, n: impl Into<Output>) -> Result<Output> {
    crate::new_op(&data.graph().clone(), op)
        .input(data)
        .input(ids)
        .input(n)
        .build()?
        .output(0)
}

/// `tf.math.unsorted_segment_max(data, segment_ids, num_segments)`: `out[s]` is the maximum of
/// the slices of `data` whose id is `s`; empty segments hold the type's lowest finite value.
pub fn unsorted_segment_max(
    data: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
) -> Result<Output> {
    build("UnsortedSegmentMax", data.into(), segment_ids, num_segments)
}

/// `tf.math.unsorted_segment_min(data, segment_ids, num_segments)`: `out[s]` is the minimum of
/// the slices of `data` whose id is `s`; empty segments hold the type's highest finite value.
pub fn unsorted_segment_min(
    data: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
) -> Result<Output> {
    build("UnsortedSegmentMin", data.into(), segment_ids, num_segments)
}

/// `tf.math.unsorted_segment_prod(data, segment_ids, num_segments)`: `out[s]` is the product of
/// the slices of `data` whose id is `s`; empty segments hold 1.
pub fn unsorted_segment_prod(
    data: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
) -> Result<Output> {
    build(
        "UnsortedSegmentProd",
        data.into(),
        segment_ids,
        num_segments,
    )
}

/// Finite extremes: TensorFlow fills empty max/min segments with `numeric_limits::lowest()` /
/// `max()`, which for floats are `∓MAX`, not infinities (Dilation2D starts its maxima there).
pub(crate) trait Finite: Arith {
    const LOWEST: Self;
    const HIGHEST: Self;
}

macro_rules! finite {
    ($($t:ty),*) => {$(
        impl Finite for $t {
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
        }
    )*};
}
finite!(
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    weir_graph::f16,
    weir_graph::bf16
);

/// The segment ids as i64, whichever of int32/int64 they are.
pub(crate) fn segment_ids(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::I64 => t.to_vec::<i64>(),
        _ => Ok(t.as_slice::<i32>()?.iter().map(|&v| v as i64).collect()),
    }
}

/// TensorFlow's `ValidateUnsortedSegmentReduction`: a scalar, non-negative `num_segments` and
/// ids whose shape starts `data`'s. Returns the segment count and the output shape.
pub(crate) fn validate(data: &Tensor, ids: &Tensor, num: &Tensor) -> Result<(usize, Vec<usize>)> {
    if num.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "num_segments should be a scalar, not shape {}",
            format_dims(num.shape())
        )));
    }
    let (d, i) = (data.shape(), ids.shape());
    if d.len() < i.len() || d[..i.len()] != *i {
        return Err(Error::invalid_argument(format!(
            "data.shape = {} does not start with segment_ids.shape = {}",
            format_dims(d),
            format_dims(i)
        )));
    }
    let n = segment_ids(num)?[0];
    let n = usize::try_from(n).map_err(|_| {
        Error::invalid_argument(format!("Input num_segments == {n} must not be negative."))
    })?;
    let mut out = vec![n];
    out.extend_from_slice(&d[i.len()..]);
    Ok((n, out))
}

/// The output row of the `k`-th id, `None` for a negative id (whose slice is dropped), and
/// TensorFlow's InvalidArgument, naming the id's multi-index, for one past the segments.
pub(crate) fn row_of(k: usize, id: i64, n: usize, ids_shape: &[usize]) -> Result<Option<usize>> {
    if id < 0 {
        return Ok(None);
    }
    match usize::try_from(id).ok().filter(|&r| r < n) {
        Some(r) => Ok(Some(r)),
        None => {
            let mut idx = vec![0usize; ids_shape.len()];
            let mut rest = k;
            for (slot, &dim) in idx.iter_mut().zip(ids_shape).rev() {
                *slot = rest % dim;
                rest /= dim;
            }
            let idx: Vec<String> = idx.iter().map(|i| i.to_string()).collect();
            Err(Error::invalid_argument(format!(
                "segment_ids[{}] = {id} is out of range [0, {n})",
                idx.join(",")
            )))
        }
    }
}

fn reduce<T: Finite>(red: Reducer, data: &Tensor, ids: &Tensor, num: &Tensor) -> Result<Tensor> {
    let (n, out_shape) = validate(data, ids, num)?;
    let seg = segment_ids(ids)?;
    let inner: usize = out_shape[1..].iter().product();
    let fill = match red {
        Reducer::Max => T::LOWEST,
        Reducer::Min => T::HIGHEST,
        Reducer::Prod => T::one(),
    };
    let total = n.checked_mul(inner).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Shape {} would have more than 2**63 - 1 elements",
            format_dims(&out_shape)
        ))
    })?;
    let mut out = crate::array::alloc_filled(&out_shape, total, fill, data.dtype())?;
    let d = data.as_slice::<T>()?;
    for (k, &id) in seg.iter().enumerate() {
        let Some(r) = row_of(k, id, n, ids.shape())? else {
            continue;
        };
        let src = &d[k * inner..(k + 1) * inner];
        let dst = &mut out[r * inner..(r + 1) * inner];
        for (o, &v) in dst.iter_mut().zip(src) {
            // TensorFlow keeps the new value unless it is strictly worse, so a NaN replaces
            // the running result and a later number replaces a NaN.
            *o = match red {
                Reducer::Max if v < *o => *o,
                Reducer::Min if v > *o => *o,
                Reducer::Max | Reducer::Min => v,
                Reducer::Prod => T::mul(*o, v),
            };
        }
    }
    Tensor::from_vec(&out_shape, out)
}

struct UnsortedKernel(Reducer);

impl Kernel for UnsortedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, ids, num) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let dt = data.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => reduce::<T>(self.0, data, ids, num)?,
            _ => weir_graph::match_half_dtype!(dt, T => reduce::<T>(self.0, data, ids, num)?,
            _ => return Err(Error::invalid_argument(format!("Cannot reduce {dt} segments")))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's `UnsortedSegmentReductionShapeFn`: `[num_segments] + data.shape[ids.rank:]`,
/// with `num_segments` a scalar (non-negative when constant) and the ids' shape a prefix of
/// `data`'s.
pub(crate) fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    if let Some(r) = ctx.input_shape(2).rank().filter(|&r| r != 0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 0 but is rank {r}"
        )));
    }
    let n = match ctx.input_const(2) {
        Some(t) => {
            let v = segment_ids(t)?.first().copied().unwrap_or(0);
            Some(usize::try_from(v).map_err(|_| {
                Error::invalid_argument(format!(
                    "Dimension size, given by scalar input 2, must be non-negative but is {v}"
                ))
            })?)
        }
        None => None,
    };
    let (data, ids) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    let out = match (data.dims(), ids.dims()) {
        (Some(d), Some(i)) => {
            if d.len() < i.len() {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at least rank {} but is rank {}",
                    i.len(),
                    d.len()
                )));
            }
            for (&a, &b) in d.iter().zip(i) {
                if let (Some(a), Some(b)) = (a, b) {
                    if a != b {
                        return Err(Error::invalid_argument(format!(
                            "Dimensions must be equal, but are {a} and {b}"
                        )));
                    }
                }
            }
            Shape::new(vec![n]).concatenate(&Shape::new(d[i.len()..].to_vec()))
        }
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn make(node: &weir_graph::Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    OPS.iter()
        .find(|(name, _)| *name == op)
        .map(|&(_, red)| Box::new(UnsortedKernel(red)) as Box<dyn Kernel>)
        .ok_or_else(|| Error::internal(format!("no unsorted segment kernel for {op}")))
}

pub(super) fn register() {
    for (name, _) in OPS {
        register_op(
            OpDef::new(name)
                .input("data", ArgType::Attr("T"))
                .input("segment_ids", ArgType::Attr("Tindices"))
                .input("num_segments", ArgType::Attr("Tnumsegments"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", super::arith_ext::REAL_AND_HALF)
                .type_attr("Tindices", &[DType::I32, DType::I64])
                .type_attr("Tnumsegments", &[DType::I32, DType::I64])
                .shape_fn(shape_fn),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_names_the_multi_index() {
        let e = row_of(5, 7, 3, &[2, 3]).unwrap_err();
        assert_eq!(e.message(), "segment_ids[1,2] = 7 is out of range [0, 3)");
        assert_eq!(row_of(0, -4, 3, &[2, 3]).unwrap(), None);
        assert_eq!(row_of(1, 2, 3, &[2, 3]).unwrap(), Some(2));
    }

    #[test]
    fn empty_segments_hold_finite_identities() {
        let data = Tensor::from_vec(&[1], vec![2.0f32]).unwrap();
        let ids = Tensor::from_vec(&[1], vec![1i32]).unwrap();
        let num = Tensor::from(3i32);
        let max = reduce::<f32>(Reducer::Max, &data, &ids, &num).unwrap();
        assert_eq!(max.to_vec::<f32>().unwrap(), [f32::MIN, 2.0, f32::MIN]);
        let prod = reduce::<f32>(Reducer::Prod, &data, &ids, &num).unwrap();
        assert_eq!(prod.to_vec::<f32>().unwrap(), [1.0, 2.0, 1.0]);
    }
}
