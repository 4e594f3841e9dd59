//! `SparseSegmentSum`, `SparseSegmentMean` and `SparseSegmentSqrtN`, which reduce the rows of
//! `data` picked by `indices` into sorted segments, and their backward ops
//! `SparseSegmentSumGrad`, `SparseSegmentMeanGrad` and `SparseSegmentSqrtNGrad`, which spread a
//! segment gradient back onto the picked rows (what `tf.nn.embedding_lookup_sparse` builds on).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use super::binary::Arith;
use crate::array::shape_util::to_i64s;

/// How a sparse segment op combines the rows of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Sum,
    Mean,
    SqrtN,
}

/// The ops whose output has `num_segments` rows (TensorFlow's Python picks them when
/// `num_segments` is given).
const NUM_OPS: [(&str, Mode); 3] = [
    ("SparseSegmentSumWithNumSegments", Mode::Sum),
    ("SparseSegmentMeanWithNumSegments", Mode::Mean),
    ("SparseSegmentSqrtNWithNumSegments", Mode::SqrtN),
];

const OPS: [(&str, &str, Mode); 3] = [
    ("SparseSegmentSum", "SparseSegmentSumGrad", Mode::Sum),
    ("SparseSegmentMean", "SparseSegmentMeanGrad", Mode::Mean),
    ("SparseSegmentSqrtN", "SparseSegmentSqrtNGrad", Mode::SqrtN),
];

/// Adds a sparse segment reduction `op` (optionally named, with TensorFlow's `sparse_gradient`
/// attribute, which weir records but whose gradient is always dense).
pub(crate) fn sparse_segment_op(
    op: &str,
    data: Output,
    indices: Output,
    segment_ids: Output,
    name: Option<&str>,
    sparse_gradient: bool,
) -> Result<Output> {
    let g = crate::util::same_graph(&[&data, &indices, &segment_ids])?.clone();
    crate::new_op(&g, op)
        .maybe_name(name)
        .input(data)
        .input(indices)
        .input(segment_ids)
        .attr("sparse_gradient", sparse_gradient)
        .build()?
        .output(0)
}

/// `tf.sparse.segment_sum(data, indices, segment_ids)` (op `SparseSegmentSum`): `out[s]` is
/// the sum of `data[indices[i]]` over the `i` with `segment_ids[i] == s`. Segment ids must be
/// sorted; the output has `last id + 1` rows, zero for ids that do not occur.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, math::sparse_segment_sum};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let data = constant(&g, Tensor::from_vec(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?)?;
/// let y = sparse_segment_sum(&data, constant(&g, [0, 2, 1])?, constant(&g, [0, 0, 1])?)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [6.0, 8.0, 3.0, 4.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_segment_sum(
    data: impl Into<Output>,
    indices: impl Into<Output>,
    segment_ids: impl Into<Output>,
) -> Result<Output> {
    let (d, i, s) = (data.into(), indices.into(), segment_ids.into());
    sparse_segment_op("SparseSegmentSum", d, i, s, None, false)
}

/// `tf.sparse.segment_mean(data, indices, segment_ids)` (op `SparseSegmentMean`): as
/// [`sparse_segment_sum`], divided by the number of rows in each segment (floats only).
pub fn sparse_segment_mean(
    data: impl Into<Output>,
    indices: impl Into<Output>,
    segment_ids: impl Into<Output>,
) -> Result<Output> {
    let (d, i, s) = (data.into(), indices.into(), segment_ids.into());
    sparse_segment_op("SparseSegmentMean", d, i, s, None, false)
}

/// `tf.sparse.segment_sqrt_n(data, indices, segment_ids)` (op `SparseSegmentSqrtN`): as
/// [`sparse_segment_sum`], divided by the square root of each segment's row count.
pub fn sparse_segment_sqrt_n(
    data: impl Into<Output>,
    indices: impl Into<Output>,
    segment_ids: impl Into<Output>,
) -> Result<Output> {
    let (d, i, s) = (data.into(), indices.into(), segment_ids.into());
    sparse_segment_op("SparseSegmentSqrtN", d, i, s, None, false)
}

fn grad_op(op: &str, grad: Output, indices: Output, seg: Output, dim0: Output) -> Result<Output> {
    let g = crate::util::same_graph(&[&grad, &indices, &seg, &dim0])?.clone();
    crate::new_op(&g, op)
        .inputs([grad, indices, seg, dim0])
        .build()?
        .output(0)
}

/// TensorFlow's `SparseSegmentSumGrad(grad, indices, segment_ids, output_dim0)`: the gradient
/// of [`sparse_segment_sum`] with respect to its `data` (`output_dim0` rows).
pub fn sparse_segment_sum_grad(
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    segment_ids: impl Into<Output>,
    output_dim0: impl Into<Output>,
) -> Result<Output> {
    let (a, b, c, d) = (
        grad.into(),
        indices.into(),
        segment_ids.into(),
        output_dim0.into(),
    );
    grad_op("SparseSegmentSumGrad", a, b, c, d)
}

/// TensorFlow's `SparseSegmentMeanGrad(grad, indices, segment_ids, output_dim0)`: the gradient
/// of [`sparse_segment_mean`] with respect to its `data`.
pub fn sparse_segment_mean_grad(
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    segment_ids: impl Into<Output>,
    output_dim0: impl Into<Output>,
) -> Result<Output> {
    let (a, b, c, d) = (
        grad.into(),
        indices.into(),
        segment_ids.into(),
        output_dim0.into(),
    );
    grad_op("SparseSegmentMeanGrad", a, b, c, d)
}

/// TensorFlow's `SparseSegmentSqrtNGrad(grad, indices, segment_ids, output_dim0)`: the
/// gradient of [`sparse_segment_sqrt_n`] with respect to its `data`.
pub fn sparse_segment_sqrt_n_grad(
    grad: impl Into<Output>,
    indices: impl Into<Output>,
    segment_ids: impl Into<Output>,
    output_dim0: impl Into<Output>,
) -> Result<Output> {
    let (a, b, c, d) = (
        grad.into(),
        indices.into(),
        segment_ids.into(),
        output_dim0.into(),
    );
    grad_op("SparseSegmentSqrtNGrad", a, b, c, d)
}

/// The indices and segment ids, checked as TensorFlow's kernels check them.
fn index_vectors(indices: &Tensor, segment_ids: &Tensor) -> Result<(Vec<i64>, Vec<i64>)> {
    if indices.rank() != 1 {
        return Err(Error::invalid_argument("indices should be a vector."));
    }
    if segment_ids.rank() != 1 {
        return Err(Error::invalid_argument("segment_ids should be a vector."));
    }
    if indices.num_elements() != segment_ids.num_elements() {
        return Err(Error::invalid_argument(
            "segment_ids and indices should have same size.",
        ));
    }
    Ok((to_i64s(indices)?, to_i64s(segment_ids)?))
}

/// How `Mean` and `SqrtN` scale a segment of `n` rows, with the factors computed as
/// TensorFlow's kernels compute them (in double, then converted).
#[derive(Clone, Copy)]
struct Scale<T> {
    /// What divides the sum: `n` or `sqrt(n)`.
    divisor: fn(usize) -> T,
    /// What multiplies each row's gradient: `1 / n` or `1 / sqrt(n)`.
    grad_factor: fn(usize) -> T,
}

/// `None` for `Sum`, which only adds.
type Norm<T> = Option<Scale<T>>;

fn to_float<T: num_traits::Float>(v: f64) -> T {
    num_traits::cast::<f64, T>(v).unwrap_or_else(T::one)
}

fn norm_of<T: num_traits::Float>(mode: Mode) -> Norm<T> {
    match mode {
        Mode::Sum => None,
        Mode::Mean => Some(Scale {
            divisor: |n| to_float::<T>(n as f64),
            grad_factor: |n| to_float::<T>(1.0 / (n.max(1) as f64)),
        }),
        Mode::SqrtN => Some(Scale {
            divisor: |n| to_float::<T>((n as f64).sqrt()),
            grad_factor: |n| to_float::<T>(1.0 / (n.max(1) as f64).sqrt()),
        }),
    }
}

/// The forward reduction, walking segments in order as TensorFlow's kernel does (so its
/// checks fail in the same order), into `num_segments` rows when given (the
/// `*WithNumSegments` ops), else into `last id + 1` rows.
fn reduce_rows<T: Arith>(
    data: &Tensor,
    idx: &[i64],
    seg: &[i64],
    norm: Norm<T>,
    num_segments: Option<i64>,
) -> Result<Tensor> {
    let shape = data.shape();
    if shape.is_empty() {
        return Err(Error::invalid_argument("data must be at least 1-D"));
    }
    let (dim0, inner) = (shape[0], shape[1..].iter().product::<usize>());
    let last_plus_one = seg.last().map_or(0, |&l| l.wrapping_add(1));
    let rows = match num_segments {
        Some(n) if n < last_plus_one => {
            return Err(Error::invalid_argument(
                "segment ids must be < num_segments",
            ))
        }
        Some(n) => n,
        None => last_plus_one,
    };
    let rows =
        usize::try_from(rows).map_err(|_| Error::invalid_argument("segment ids must be >= 0"))?;
    if !seg.is_empty() && rows == 0 {
        return Err(Error::invalid_argument("segment ids must be >= 0"));
    }
    let mut out_shape = shape.to_vec();
    out_shape[0] = rows;
    let mut out = vec![T::default(); rows * inner];
    let d = data.as_slice::<T>()?;
    // Row offsets of the current segment and a group sum, reused across segments.
    let mut picked = Vec::new();
    let mut group = vec![T::default(); inner];
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
            .filter(|&s| s < rows)
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Segment id {id} out of range [0, {rows}), possibly because 'segment_ids' \
                 input is not sorted."
                ))
            })?;
        picked.clear();
        for (i, &j) in idx.iter().enumerate().take(end).skip(start) {
            let r = usize::try_from(j)
                .ok()
                .filter(|&r| r < dim0)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Bad: indices[{i}] == {j} out of range [0, {dim0})"
                    ))
                })?;
            picked.push(r * inner);
        }
        let dst = &mut out[s * inner..(s + 1) * inner];
        sum_segment(d, &picked, dst, &mut group, norm);
        start = end;
    }
    Tensor::from_vec(&out_shape, out)
}

/// One segment's rows (at offsets `picked` of `d`) combined into `dst` in TensorFlow's order:
/// the first `n % 8` rows (8 or 9 when that is 0 or 1) left to right, scaled by `1 / divisor`
/// when there are fewer than 10 rows; then each further group of 8, summed left to right, is
/// added; 10 or more rows divide by the divisor at the end.
fn sum_segment<T: Arith>(d: &[T], picked: &[usize], dst: &mut [T], group: &mut [T], norm: Norm<T>) {
    let (n, inner) = (picked.len(), dst.len());
    let row = |k: usize| &d[picked[k]..picked[k] + inner];
    let first = match n {
        0 => return,
        1 => 1,
        _ => match n & 7 {
            0 => 8,
            1 => 9,
            r => r,
        },
    };
    dst.copy_from_slice(row(0));
    for k in 1..first {
        for (o, &v) in dst.iter_mut().zip(row(k)) {
            *o = T::add(*o, v);
        }
    }
    if let (Some(sc), 2..=9) = (norm, n) {
        let factor = T::div(T::one(), (sc.divisor)(n));
        for o in dst.iter_mut() {
            *o = T::mul(*o, factor);
        }
    }
    for g0 in (first..n).step_by(8) {
        group.copy_from_slice(row(g0));
        for k in g0 + 1..g0 + 8 {
            for (o, &v) in group.iter_mut().zip(row(k)) {
                *o = T::add(*o, v);
            }
        }
        for (o, &v) in dst.iter_mut().zip(group.iter()) {
            *o = T::add(*o, v);
        }
    }
    if let (Some(sc), true) = (norm, n >= 10) {
        let m = (sc.divisor)(n);
        for o in dst.iter_mut() {
            *o = T::div(*o, m);
        }
    }
}

/// The backward op: `out[indices[i]] += grad[segment_ids[i]] * factor(segment size)`.
fn spread<T: Arith>(
    grad: &Tensor,
    idx: &[i64],
    seg: &[i64],
    out_rows: usize,
    norm: Norm<T>,
) -> Result<Tensor> {
    let shape = grad.shape();
    if shape.is_empty() {
        return Err(Error::invalid_argument("grad must be at least 1-D"));
    }
    let (rows, inner) = (shape[0], shape[1..].iter().product::<usize>());
    let mut counts = vec![0usize; rows];
    for &s in seg {
        let s = usize::try_from(s)
            .ok()
            .filter(|&s| s < rows)
            .ok_or_else(|| {
                Error::invalid_argument(format!("Segment id {s} out of range [0, {rows})."))
            })?;
        counts[s] += 1;
    }
    let g = grad.as_slice::<T>()?;
    let mut out_shape = shape.to_vec();
    out_shape[0] = out_rows;
    let mut out = vec![T::default(); out_rows * inner];
    for (&j, &s) in idx.iter().zip(seg) {
        let r = usize::try_from(j)
            .ok()
            .filter(|&r| r < out_rows)
            .ok_or_else(|| {
                Error::invalid_argument(format!("Index {j} out of range [0, {out_rows})."))
            })?;
        let s = s as usize;
        let src = &g[s * inner..(s + 1) * inner];
        for (o, &v) in out[r * inner..(r + 1) * inner].iter_mut().zip(src) {
            let v = match norm {
                Some(sc) => T::mul(v, (sc.grad_factor)(counts[s])),
                None => v,
            };
            *o = T::add(*o, v);
        }
    }
    Tensor::from_vec(&out_shape, out)
}

struct SparseSegmentKernel {
    mode: Mode,
    grad: bool,
    /// A `*WithNumSegments` op: input 3 fixes the number of output rows.
    num_segments: bool,
}

/// The `num_segments` input, checked as TensorFlow's `ValidateSparseSegmentReduction` does.
fn num_segments_of(t: &Tensor) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "num_segments should be a scalar, not shape {}",
            format_dims(t.shape())
        )));
    }
    let n = to_i64s(t)?[0];
    if n < 0 {
        return Err(Error::invalid_argument("segment ids must be >= 0"));
    }
    Ok(n)
}

fn run<T: Arith>(k: &SparseSegmentKernel, ctx: &OpContext<'_>, norm: Norm<T>) -> Result<Tensor> {
    let num_segments = match k.num_segments {
        true => Some(num_segments_of(ctx.input(3))?),
        false => None,
    };
    let (idx, seg) = index_vectors(ctx.input(1), ctx.input(2))?;
    if !k.grad {
        return reduce_rows::<T>(ctx.input(0), &idx, &seg, norm, num_segments);
    }
    let dim0 = ctx.input(3);
    if dim0.rank() != 0 {
        return Err(Error::invalid_argument("output_dim0 should be a scalar."));
    }
    let rows = usize::try_from(to_i64s(dim0)?[0])
        .map_err(|_| Error::invalid_argument("output_dim0 must be non-negative"))?;
    spread::<T>(ctx.input(0), &idx, &seg, rows, norm)
}

impl Kernel for SparseSegmentKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dt = ctx.input(0).dtype();
        let out = match (dt, self.mode) {
            (DType::F32, m) => run::<f32>(self, ctx, norm_of(m))?,
            (DType::F64, m) => run::<f64>(self, ctx, norm_of(m))?,
            (_, Mode::Sum) if !self.grad => weir_graph::match_real_dtype!(dt,
                T => run::<T>(self, ctx, None)?,
                _ => return Err(Error::invalid_argument(format!("Cannot sum {dt} segments")))),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "{} takes float or double data, got {dt}",
                    ctx.node().op_type()
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    if let Some(&(_, mode)) = NUM_OPS.iter().find(|(name, _)| *name == op) {
        return Ok(Box::new(SparseSegmentKernel {
            mode,
            grad: false,
            num_segments: true,
        }));
    }
    OPS.iter()
        .find_map(|&(fwd, bwd, mode)| {
            (op == fwd || op == bwd).then(|| {
                Box::new(SparseSegmentKernel {
                    mode,
                    grad: op == bwd,
                    num_segments: false,
                }) as Box<dyn Kernel>
            })
        })
        .ok_or_else(|| Error::internal(format!("no sparse segment kernel for {op}")))
}

/// Requires a rank-1 input `i` (TensorFlow's `WithRank(c->input(i), 1)`).
fn vector(ctx: &InferenceContext<'_>, i: usize) -> Result<Shape> {
    ctx.with_rank(i, 1)
}

/// Merges the lengths of the indices and the segment ids, in TensorFlow's words.
fn merge_lengths(ctx: &InferenceContext<'_>) -> Result<()> {
    let (a, b) = (vector(ctx, 1)?, vector(ctx, 2)?);
    if let (Some(x), Some(y)) = (a.dim(0), b.dim(0)) {
        if x != y {
            return Err(Error::invalid_argument(format!(
                "Dimension 0 in both shapes must be equal, but are {x} and {y}. Shapes are {a} \
                 and {b}. for '{}'",
                ctx.op_type
            )));
        }
    }
    Ok(())
}

fn forward_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    merge_lengths(ctx)?;
    // TensorFlow's shape function for the `*WithNumSegments` ops: a scalar `num_segments`
    // whose constant value, when known, is the output's first dim.
    let rows = match ctx.num_inputs() {
        4 => {
            if let Some(r) = ctx.input_shape(3).rank().filter(|&r| r != 0) {
                return Err(Error::invalid_argument(format!(
                    "Shape must be rank 0 but is rank {r} for '{}'",
                    ctx.op_type
                )));
            }
            ctx.input_const(3)
                .and_then(|t| to_i64s(t).ok())
                .and_then(|v| v.first().and_then(|&d| usize::try_from(d).ok()))
        }
        _ => None,
    };
    let out = match ctx.input_shape(0).dims() {
        Some([]) => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank 1 but is rank 0 for '{}'",
                ctx.op_type
            )))
        }
        Some(d) => Shape::new(vec![rows]).concatenate(&Shape::new(d[1..].to_vec())),
        None => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn grad_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    merge_lengths(ctx)?;
    if let Some(r) = ctx.input_shape(3).rank().filter(|&r| r != 0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 0 but is rank {r} for '{}'",
            ctx.op_type
        )));
    }
    let rows = ctx
        .input_const(3)
        .and_then(|t| to_i64s(t).ok())
        .and_then(|v| v.first().and_then(|&d| usize::try_from(d).ok()));
    let out = match ctx.input_shape(0).dims() {
        Some(d) if !d.is_empty() => {
            Shape::new(vec![rows]).concatenate(&Shape::new(d[1..].to_vec()))
        }
        Some(d) => {
            return Err(Error::invalid_argument(format!(
                "Shape must be at least rank 1 but is rank 0 for '{}' (grad {})",
                ctx.op_type,
                format_dims(&d.iter().map(|v| v.unwrap_or(0)).collect::<Vec<_>>())
            )))
        }
        None => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    let index_attrs = |def: OpDef| {
        def.type_attr("Tidx", &[DType::I32, DType::I64])
            .type_attr("Tsegmentids", &[DType::I32, DType::I64])
    };
    for (fwd, bwd, mode) in OPS {
        let types: &'static [DType] = match mode {
            Mode::Sum => DType::REAL_NUMBER,
            _ => &[DType::F32, DType::F64],
        };
        register_op(
            index_attrs(OpDef::new(fwd))
                .input("data", ArgType::Attr("T"))
                .input("indices", ArgType::Attr("Tidx"))
                .input("segment_ids", ArgType::Attr("Tsegmentids"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", types)
                .attr(
                    "sparse_gradient",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(false)),
                )
                .shape_fn(forward_shape),
        );
        register_op(
            index_attrs(OpDef::new(bwd))
                .input("grad", ArgType::Attr("T"))
                .input("indices", ArgType::Attr("Tidx"))
                .input("segment_ids", ArgType::Attr("Tsegmentids"))
                .input("output_dim0", ArgType::Fixed(DType::I32))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", &[DType::F32, DType::F64])
                .shape_fn(grad_shape),
        );
        register_kernel(fwd, make);
        register_kernel(bwd, make);
    }
    for (name, mode) in NUM_OPS {
        let types: &'static [DType] = match mode {
            Mode::Sum => DType::REAL_NUMBER,
            _ => &[DType::F32, DType::F64],
        };
        register_op(
            index_attrs(OpDef::new(name))
                .input("data", ArgType::Attr("T"))
                .input("indices", ArgType::Attr("Tidx"))
                .input("segment_ids", ArgType::Attr("Tsegmentids"))
                .input("num_segments", ArgType::Attr("Tnumsegments"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", types)
                .type_attr("Tnumsegments", &[DType::I32, DType::I64])
                .attr(
                    "sparse_gradient",
                    AttrKind::Bool,
                    Some(AttrValue::Bool(false)),
                )
                .shape_fn(forward_shape),
        );
        register_kernel(name, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{constant, placeholder};
    use weir_graph::{Code, Graph};

    fn data() -> Tensor {
        Tensor::from_vec(&[3, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap()
    }

    #[test]
    fn reductions_and_their_spreads() {
        let d = data();
        let (idx, seg) = (vec![0, 2, 1, 2], vec![0, 0, 2, 2]);
        let sum = reduce_rows::<f64>(&d, &idx, &seg, None, None).unwrap();
        assert_eq!(sum.shape(), [3, 2]);
        assert_eq!(
            sum.to_vec::<f64>().unwrap(),
            [6.0, 8.0, 0.0, 0.0, 8.0, 10.0]
        );
        let mean = reduce_rows::<f64>(&d, &idx, &seg, norm_of(Mode::Mean), None).unwrap();
        assert_eq!(
            mean.to_vec::<f64>().unwrap(),
            [3.0, 4.0, 0.0, 0.0, 4.0, 5.0]
        );
        let sq = reduce_rows::<f64>(&d, &idx, &seg, norm_of(Mode::SqrtN), None).unwrap();
        let r2 = 2f64.sqrt();
        assert_eq!(
            sq.to_vec::<f64>().unwrap(),
            [6.0 / r2, 8.0 / r2, 0.0, 0.0, 8.0 / r2, 10.0 / r2]
        );
        let empty = reduce_rows::<f64>(&d, &[], &[], None, None).unwrap();
        assert_eq!(empty.shape(), [0, 2]);
        let grad = Tensor::from_vec(&[3, 1], vec![1.0f64, 10.0, 100.0]).unwrap();
        let back = spread::<f64>(&grad, &idx, &seg, 4, norm_of(Mode::Mean)).unwrap();
        assert_eq!(back.to_vec::<f64>().unwrap(), [0.5, 50.0, 50.5, 0.0]);
    }

    #[test]
    fn errors_have_tensorflow_kinds_and_messages() {
        let d = data();
        let e = |r: Result<Tensor>| {
            let e = r.unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
            e.message().to_string()
        };
        assert_eq!(
            e(reduce_rows::<f64>(&d, &[0, 1, 2], &[1, 0, 0], None, None)),
            "segment ids are not increasing"
        );
        assert_eq!(
            e(reduce_rows::<f64>(&d, &[0, 5, 2], &[0, 0, 1], None, None)),
            "Bad: indices[1] == 5 out of range [0, 3)"
        );
        assert_eq!(
            e(reduce_rows::<f64>(&d, &[0, 1, 2], &[-1, 0, 0], None, None)),
            "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted."
        );
        let v = |x: Vec<i32>| Tensor::from(x);
        assert_eq!(
            e(index_vectors(&v(vec![0, 1]), &v(vec![0, 0, 1])).map(|_| d.clone())),
            "segment_ids and indices should have same size."
        );
        let m = Tensor::from_vec(&[1, 2], vec![0i32, 1]).unwrap();
        assert_eq!(
            e(index_vectors(&m, &v(vec![0, 0])).map(|_| d.clone())),
            "indices should be a vector."
        );
        assert!(e(spread::<f64>(&d, &[0], &[0], 0, None)).contains("out of range"));
        // The shape function's checks, at graph construction.
        let g = Graph::new();
        let x = placeholder(&g, DType::F32, Shape::known(&[3, 2])).unwrap();
        let err = sparse_segment_sum(
            &x,
            constant(&g, [0, 1]).unwrap(),
            constant(&g, [0, 0, 1]).unwrap(),
        )
        .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err
            .message()
            .contains("Dimension 0 in both shapes must be equal, but are 2 and 3"));
        let ix = constant(&g, Tensor::from_vec(&[1, 2], vec![0i32, 1]).unwrap()).unwrap();
        let err = sparse_segment_sum(&x, ix, constant(&g, [0, 0]).unwrap()).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        let ints = placeholder(&g, DType::I32, Shape::known(&[3, 2])).unwrap();
        let err = sparse_segment_mean(
            &ints,
            constant(&g, [0]).unwrap(),
            constant(&g, [0]).unwrap(),
        )
        .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(sparse_segment_sum(
            &ints,
            constant(&g, [0]).unwrap(),
            constant(&g, [0]).unwrap()
        )
        .is_ok());
    }
}
