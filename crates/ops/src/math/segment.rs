//! `UnsortedSegmentSum`, which sums rows into segments by id (the dense gradient of `gather`),
//! and the sorted reductions `SegmentSum`, `SegmentMean`, `SegmentMax`, `SegmentMin` and
//! `SegmentProd`, whose ids must be non-decreasing.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape,
    Tensor, TensorType,
};

use super::arith_ext::ComplexArith;
use super::binary::Arith;
use super::reduce_eigen::columns;
use super::unsorted_segment::{row_of, segment_ids, shape_fn, validate};

/// `tf.math.unsorted_segment_sum(data, segment_ids, num_segments)`: `out[s] = sum of data[i]`
/// over `i` with `segment_ids[i] == s`; negative ids are dropped, ids past the segments are
/// InvalidArgument.
pub fn unsorted_segment_sum(
    data: impl Into<Output>,
    segment_ids: impl Into<Output>,
    num_segments: impl Into<Output>,
) -> Result<Output> {
    let d = data.into();
    crate::new_op(&d.graph().clone(), "UnsortedSegmentSum")
        .input(d)
        .input(segment_ids)
        .input(num_segments)
        .build()?
        .output(0)
}

/// TensorFlow's `UnsortedSegmentSum` kernel: ids of any shape that starts `data`'s, negative
/// ids dropped, one past the segments InvalidArgument (the checks the other unsorted
/// reductions make, shared with them).
fn unsorted_sum<T: TensorType + Copy + Default>(
    data: &Tensor,
    ids: &Tensor,
    num: &Tensor,
    add: impl Fn(T, T) -> T,
) -> Result<Tensor> {
    let (n, out_shape) = validate(data, ids, num)?;
    let seg = segment_ids(ids)?;
    let d = data.as_slice::<T>()?;
    let inner: usize = out_shape[1..].iter().product();
    let total = n.checked_mul(inner).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Shape {} would have more than 2**63 - 1 elements",
            weir_graph::format_dims(&out_shape)
        ))
    })?;
    let mut out = vec![T::default(); total];
    for (k, &id) in seg.iter().enumerate() {
        let Some(r) = row_of(k, id, n, ids.shape())? else {
            continue;
        };
        let dst = &mut out[r * inner..(r + 1) * inner];
        for (o, &v) in dst.iter_mut().zip(&d[k * inner..(k + 1) * inner]) {
            *o = add(*o, v);
        }
    }
    Tensor::from_vec(&out_shape, out)
}

struct SegmentSumKernel;

impl Kernel for SegmentSumKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, ids, num) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let dt = data.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => unsorted_sum::<T>(data, ids, num, T::add)?,
            _ => weir_graph::match_half_dtype!(dt, T => unsorted_sum::<T>(data, ids, num, T::add)?,
            _ => weir_graph::match_complex_dtype!(dt,
                T => unsorted_sum::<T>(data, ids, num, <T as ComplexArith>::add)?,
            _ => return Err(Error::invalid_argument(format!("Cannot sum {dt} segments"))))));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The reduction of a sorted segment op.
#[derive(Clone, Copy)]
enum Reducer {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
}

const SORTED: [(&str, Reducer); 5] = [
    ("SegmentSum", Reducer::Sum),
    ("SegmentMean", Reducer::Mean),
    ("SegmentMax", Reducer::Max),
    ("SegmentMin", Reducer::Min),
    ("SegmentProd", Reducer::Prod),
];

fn sorted(op: &str, data: Output, segment_ids: impl Into<Output>) -> Result<Output> {
    crate::new_op(&data.graph().clone(), op)
        .input(data)
        .input(segment_ids)
        .build()?
        .output(0)
}

/// `tf.math.segment_sum(data, segment_ids)`: `out[s]` is the sum of the rows of `data` whose
/// id is `s`; ids (a vector as long as `data`'s first dim) must be sorted and non-negative,
/// the output has `last id + 1` rows and rows of missing ids are 0.
pub fn segment_sum(data: impl Into<Output>, segment_ids: impl Into<Output>) -> Result<Output> {
    sorted("SegmentSum", data.into(), segment_ids)
}

/// `tf.math.segment_mean(data, segment_ids)`: the mean of each segment (integer division for
/// integer types), 0 for missing ids; ids as in [`segment_sum`].
pub fn segment_mean(data: impl Into<Output>, segment_ids: impl Into<Output>) -> Result<Output> {
    sorted("SegmentMean", data.into(), segment_ids)
}

/// `tf.math.segment_max(data, segment_ids)`: the maximum of each segment; missing ids give 0
/// (not the type's lowest value), as in TensorFlow. Ids as in [`segment_sum`].
pub fn segment_max(data: impl Into<Output>, segment_ids: impl Into<Output>) -> Result<Output> {
    sorted("SegmentMax", data.into(), segment_ids)
}

/// `tf.math.segment_min(data, segment_ids)`: the minimum of each segment; missing ids give 0,
/// as in TensorFlow. Ids as in [`segment_sum`].
pub fn segment_min(data: impl Into<Output>, segment_ids: impl Into<Output>) -> Result<Output> {
    sorted("SegmentMin", data.into(), segment_ids)
}

/// `tf.math.segment_prod(data, segment_ids)`: the product of each segment, 1 for missing ids;
/// ids as in [`segment_sum`].
pub fn segment_prod(data: impl Into<Output>, segment_ids: impl Into<Output>) -> Result<Output> {
    sorted("SegmentProd", data.into(), segment_ids)
}

fn reduce_rows<T: Arith>(red: Reducer, rows: &[T], inner: usize, dst: &mut [T]) {
    let n = rows.len().checked_div(inner).unwrap_or(0);
    // TensorFlow reduces a segment's rows with Eigen, whose order shows in the half types'
    // sums and products (packets of 8 outputs, four accumulators down each column).
    if matches!(T::DTYPE, DType::F16 | DType::BF16) && n > 1 {
        let v = match red {
            Reducer::Sum => Some(columns(rows, 1, n, inner, 8, T::default(), &T::add)),
            Reducer::Prod => Some(columns(rows, 1, n, inner, 8, T::one(), &T::mul)),
            _ => None,
        };
        if let Some(v) = v {
            dst.copy_from_slice(&v);
            return;
        }
    }
    dst.copy_from_slice(&rows[..inner]);
    for r in 1..n {
        let src = &rows[r * inner..(r + 1) * inner];
        for (o, &v) in dst.iter_mut().zip(src) {
            *o = match red {
                Reducer::Sum | Reducer::Mean => T::add(*o, v),
                Reducer::Max => T::max(*o, v),
                Reducer::Min => T::min(*o, v),
                Reducer::Prod => T::mul(*o, v),
            };
        }
    }
    if let Reducer::Mean = red {
        for o in dst.iter_mut() {
            *o = T::div_count(*o, n);
        }
    }
}

/// TensorFlow's `SegmentReductionOp`: rows are allocated from the last id alone, then the
/// segments are walked in order, so the checks fail in the same order as TensorFlow's.
fn sorted_reduce<T: Arith>(red: Reducer, data: &Tensor, seg: &[i64]) -> Result<Tensor> {
    let shape = data.shape();
    let rows_out = seg.last().map_or(0, |&l| l.wrapping_add(1));
    let rows_out = usize::try_from(rows_out)
        .map_err(|_| Error::invalid_argument("segment ids must be >= 0"))?;
    let inner: usize = shape[1..].iter().product();
    let mut out_shape = shape.to_vec();
    out_shape[0] = rows_out;
    let n = rows_out.checked_mul(inner).ok_or_else(|| {
        Error::invalid_argument(format!(
            "Shape {} would have more than 2**63 - 1 elements",
            weir_graph::format_dims(&out_shape)
        ))
    })?;
    let fill = match red {
        Reducer::Prod => T::one(),
        _ => T::default(),
    };
    let mut out = crate::array::alloc_filled(&out_shape, n, fill, data.dtype())?;
    if seg.is_empty() {
        return Tensor::from_vec(&out_shape, out);
    }
    if rows_out == 0 {
        return Err(Error::invalid_argument("segment ids must be >= 0"));
    }
    let d = data.as_slice::<T>()?;
    let mut start = 0;
    while start < seg.len() {
        let id = seg[start];
        let mut end = start + 1;
        while end < seg.len() && seg[end] == id {
            end += 1;
        }
        if end < seg.len() && seg[end] < id {
            return Err(Error::invalid_argument("segment ids are not increasing"));
        }
        let s = usize::try_from(id)
            .ok()
            .filter(|&s| s < rows_out)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Segment id {id} out of range [0, {rows_out}), possibly because \
                     'segment_ids' input is not sorted."
                ))
            })?;
        reduce_rows(
            red,
            &d[start * inner..end * inner],
            inner,
            &mut out[s * inner..(s + 1) * inner],
        );
        start = end;
    }
    Tensor::from_vec(&out_shape, out)
}

struct SortedKernel(Reducer);

impl Kernel for SortedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, it) = (ctx.input(0), ctx.input(1));
        if it.rank() != 1 {
            return Err(Error::invalid_argument("segment_ids should be a vector."));
        }
        if data.rank() < 1 {
            return Err(Error::invalid_argument("input must be at least rank 1"));
        }
        if it.num_elements() != data.shape()[0] {
            return Err(Error::invalid_argument(
                "segment_ids should be the same size as dimension 0 of input.",
            ));
        }
        let seg = segment_ids(it)?;
        let dt = data.dtype();
        let out = weir_graph::match_real_dtype!(dt, T => sorted_reduce::<T>(self.0, data, &seg)?,
            _ => weir_graph::match_half_dtype!(dt, T => sorted_reduce::<T>(self.0, data, &seg)?,
            _ => return Err(Error::invalid_argument(format!("Cannot reduce {dt} segments")))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_sorted(node: &weir_graph::Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    SORTED
        .iter()
        .find(|(name, _)| *name == op)
        .map(|&(_, red)| Box::new(SortedKernel(red)) as Box<dyn Kernel>)
        .ok_or_else(|| Error::internal(format!("no sorted segment kernel for {op}")))
}

fn sorted_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    // The row count is known only when the ids are constants: their last value plus one.
    let rows = ctx
        .input_const(1)
        .and_then(|t| segment_ids(t).ok())
        .and_then(|v| {
            v.last()
                .map_or(Some(0), |&l| usize::try_from(l.wrapping_add(1)).ok())
        });
    let out = match ctx.input_shape(0).dims() {
        Some(d) if !d.is_empty() => {
            Shape::new(vec![rows]).concatenate(&Shape::new(d[1..].to_vec()))
        }
        _ => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("UnsortedSegmentSum")
            .input("data", ArgType::Attr("T"))
            .input("segment_ids", ArgType::Attr("Tindices"))
            .input("num_segments", ArgType::Attr("Tnumsegments"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", super::arith_ext::ALL_NUMBERS)
            .type_attr("Tindices", &[DType::I32, DType::I64])
            .type_attr("Tnumsegments", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("UnsortedSegmentSum", |_| Ok(Box::new(SegmentSumKernel)));
    for (name, _) in SORTED {
        register_op(
            OpDef::new(name)
                .input("data", ArgType::Attr("T"))
                .input("segment_ids", ArgType::Attr("Tindices"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", super::arith_ext::REAL_AND_HALF)
                .type_attr("Tindices", &[DType::I32, DType::I64])
                .shape_fn(sorted_shape_fn),
        );
        register_kernel(name, make_sorted);
    }
}
