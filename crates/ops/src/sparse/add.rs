//! `tf.sparse.add`: a sparse tensor plus a dense one (op `SparseTensorDenseAdd`, dense result)
//! or plus another sparse one (op `SparseAdd`, sparse result), and `SparseAddGrad`, the
//! backward op of `SparseAdd`.

use std::cmp::Ordering;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor,
};

use super::arith::{index_values, Real};
use super::SparseOutput;

fn invalid(msg: String) -> Error {
    Error::invalid_argument(msg)
}

/// Space-separated values, as TensorFlow's `SummarizeValue` prints a vector.
fn summarize(v: &[i64]) -> String {
    let mut parts: Vec<String> = v.iter().take(10).map(i64::to_string).collect();
    if v.len() > 10 {
        parts.push("...".into());
    }
    parts.join(" ")
}

// ---------------------------------------------------------------------------------------------
// SparseTensorDenseAdd

/// `tf.sparse.add(sp, dense)` (op `SparseTensorDenseAdd`): the dense tensor `dense` with each
/// value of `sp` added at its index (repeated indices add up). The shapes must be equal (no
/// broadcasting); ranks 1 to 5.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_tensor_dense_add, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[1, 1], vec![1i64])?)?,
///     constant(&g, vec![5.0f32])?,
///     constant(&g, vec![3i64])?,
/// )?;
/// let y = sparse_tensor_dense_add(&sp, constant(&g, vec![1.0f32, 1.0, 1.0])?)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [1.0, 6.0, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_tensor_dense_add(sp: &SparseOutput, dense: impl Into<Output>) -> Result<Output> {
    let dense = dense.into();
    let g = crate::util::same_graph(&[&sp.indices, &dense])?.clone();
    crate::new_op(&g, "SparseTensorDenseAdd")
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .input(&dense)
        .build()?
        .output(0)
}

struct DenseAddKernel;

impl Kernel for DenseAddKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape, b) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if indices.rank() != 2 {
            return Err(invalid(format!(
                "Input a_indices should be a matrix but received shape: {}",
                format_dims(indices.shape())
            )));
        }
        if values.rank() != 1 || shape.rank() != 1 {
            return Err(invalid(format!(
                "Inputs a_values and a_shape should be vectors but received shapes: {} and {}",
                format_dims(values.shape()),
                format_dims(shape.shape())
            )));
        }
        let (nnz, ndims) = (indices.shape()[0], indices.shape()[1]);
        for (want, got) in [(nnz, values.shape()[0]), (ndims, shape.shape()[0])] {
            if want != got {
                return Err(invalid(format!(
                    "Dimensions {want} and {got} are not compatible"
                )));
            }
        }
        if ndims != b.rank() {
            return Err(invalid(format!(
                "Two operands have different ranks; received: {ndims} and {}",
                b.rank()
            )));
        }
        let dims = index_values(shape)?;
        for (i, (&s, &d)) in dims.iter().zip(b.shape()).enumerate() {
            if s != d as i64 {
                return Err(invalid(format!(
                    "Dimension {i} does not equal (no broadcasting is supported): sparse side \
                     {s} vs dense side {d}"
                )));
            }
        }
        let ix = index_values(indices)?;
        let mut offsets = Vec::with_capacity(nnz);
        for (z, idx) in ix.chunks_exact(ndims.max(1)).take(nnz).enumerate() {
            let mut off = 0usize;
            for (d, (&x, &size)) in idx.iter().zip(b.shape()).enumerate() {
                if x < 0 || x as u64 >= size as u64 {
                    return Err(invalid(format!(
                        "Sparse tensor has an invalid index on dimension {d}: a_indices({z},{d}) \
                         = {x}, dense tensor shape: {}",
                        summarize(&dims)
                    )));
                }
                off = off * size + x as usize;
            }
            offsets.push(off);
        }
        if !(1..=5).contains(&ndims) {
            return Err(invalid(format!(
                "Only tensors with ranks between 1 and 5 are currently supported.  Tensor \
                 rank: {ndims}"
            )));
        }
        let out = weir_graph::match_real_dtype!(b.dtype(), T => scatter_add::<T>(b, values, &offsets)?,
            _ => return Err(invalid(format!("SparseTensorDenseAdd does not support {}", b.dtype()))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn scatter_add<T: Real>(b: &Tensor, values: &Tensor, offsets: &[usize]) -> Result<Tensor> {
    let mut out = b.as_slice::<T>()?.to_vec();
    for (&o, &v) in offsets.iter().zip(values.as_slice::<T>()?) {
        out[o] = out[o].add(v);
    }
    Tensor::from_vec(b.shape(), out)
}

// ---------------------------------------------------------------------------------------------
// SparseAdd

/// `tf.sparse.add(a, b, threshold)` (op `SparseAdd`): the sparse sum of two sparse tensors of
/// one shape. Both must be in row-major order (`tf.sparse.reorder`); their entries are merged
/// in that order, and where an index is in both, the sum is kept only when
/// `threshold <= |sum|` (so a NaN sum is dropped unless nothing else is). `threshold` is a
/// scalar of the values' dtype (0 keeps every sum).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_add, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = |ix: Vec<i64>, v: Vec<f32>| -> weir_graph::Result<SparseOutput> {
///     let n = v.len();
///     SparseOutput::new(constant(&g, Tensor::from_vec(&[n, 1], ix)?)?, constant(&g, v)?,
///                       constant(&g, vec![4i64])?)
/// };
/// let s = sparse_add(&sp(vec![0, 2], vec![1.0, 2.0])?, &sp(vec![2, 3], vec![-2.0, 5.0])?,
///                    constant(&g, 0.5f32)?)?;
/// assert_eq!(Session::new(&g)?.eval(&s.values)?.to_vec::<f32>()?, [1.0, 5.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_add(
    a: &SparseOutput,
    b: &SparseOutput,
    threshold: impl Into<Output>,
) -> Result<SparseOutput> {
    let thresh = threshold.into();
    let g = crate::util::same_graph(&[&a.indices, &b.indices, &thresh])?.clone();
    let op = crate::new_op(&g, "SparseAdd")
        .input(&a.indices)
        .input(&a.values)
        .input(&a.dense_shape)
        .input(&b.indices)
        .input(&b.values)
        .input(&b.dense_shape)
        .input(&thresh)
        .build()?;
    SparseOutput::from_op(&op)
}

struct SparseAddKernel;

/// Compares row `i` of `a` with row `j` of `b` (both `[n, dims]` row-major).
fn cmp_rows(a: &[i64], i: usize, b: &[i64], j: usize, dims: usize) -> Ordering {
    a[i * dims..(i + 1) * dims].cmp(&b[j * dims..(j + 1) * dims])
}

impl Kernel for SparseAddKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a_ix, a_v, a_sh) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (b_ix, b_v, b_sh, thresh) = (ctx.input(3), ctx.input(4), ctx.input(5), ctx.input(6));
        if a_ix.rank() != 2 || b_ix.rank() != 2 {
            return Err(invalid(format!(
                "Input indices should be matrices but received shapes: {} and {}",
                format_dims(a_ix.shape()),
                format_dims(b_ix.shape())
            )));
        }
        let (a_nnz, b_nnz, dims) = (a_ix.shape()[0], b_ix.shape()[0], a_ix.shape()[1]);
        if b_ix.shape()[1] != dims {
            return Err(invalid(format!(
                "Input indices must have the same dimension, got {dims} and {}",
                b_ix.shape()[1]
            )));
        }
        if a_v.rank() != 1 || b_v.rank() != 1 {
            return Err(invalid(format!(
                "Input values should be vectors but received shapes: {} and {}",
                format_dims(a_v.shape()),
                format_dims(b_v.shape())
            )));
        }
        if a_v.shape()[0] != a_nnz || b_v.shape()[0] != b_nnz {
            return Err(invalid(format!(
                "Expected {a_nnz} and {b_nnz} non-empty input values, got {} and {}",
                a_v.shape()[0],
                b_v.shape()[0]
            )));
        }
        if a_sh.rank() != 1 || b_sh.rank() != 1 {
            return Err(invalid(format!(
                "Input shapes should be a vector but received shapes {} and {}",
                format_dims(a_sh.shape()),
                format_dims(b_sh.shape())
            )));
        }
        if a_sh.num_elements() != dims {
            return Err(invalid(format!(
                "Second dimension of a_indices and length of a_shape must match, got {dims} \
                 and {}",
                a_sh.num_elements()
            )));
        }
        if dims == 0 {
            return Err(invalid("Tesors must not be empty".into()));
        }
        let (sa, sb) = (a_sh.as_slice::<i64>()?, b_sh.as_slice::<i64>()?);
        if sa.len() != sb.len() {
            return Err(invalid(format!(
                "Operands do not have the same ranks; got shapes: {} and {}",
                summarize(sa),
                summarize(sb)
            )));
        }
        for (i, (x, y)) in sa.iter().zip(sb).enumerate() {
            if x != y {
                return Err(invalid(format!(
                    "Operands' shapes do not match: got {x} and {y} for dimension {i}"
                )));
            }
        }
        if thresh.rank() != 0 {
            return Err(invalid(format!(
                "The magnitude threshold must be a scalar: got shape {}",
                format_dims(thresh.shape())
            )));
        }
        let (ai, bi) = (a_ix.as_slice::<i64>()?, b_ix.as_slice::<i64>()?);
        let merged = weir_graph::match_real_dtype!(a_v.dtype(), T => merge::<T>(ai, a_v, bi, b_v, thresh, dims)?,
            _ => return Err(invalid(format!("SparseAdd does not support {}", a_v.dtype()))));
        let (ix, values) = merged;
        let n = values.num_elements();
        let shape = a_sh.clone();
        ctx.set_output(0, Tensor::from_vec(&[n, dims], ix)?);
        ctx.set_output(1, values);
        ctx.set_output(2, shape);
        Ok(())
    }
}

/// TensorFlow's merge of two row-major index lists: the smaller index first, and the sum
/// (when `thresh <= |sum|`) where both have one.
fn merge<T: Real>(
    ai: &[i64],
    a_v: &Tensor,
    bi: &[i64],
    b_v: &Tensor,
    thresh: &Tensor,
    dims: usize,
) -> Result<(Vec<i64>, Tensor)> {
    let (av, bv) = (a_v.as_slice::<T>()?, b_v.as_slice::<T>()?);
    let thresh = thresh.to_scalar::<T>()?;
    let (mut i, mut j) = (0, 0);
    let mut ix = Vec::with_capacity((av.len() + bv.len()) * dims);
    let mut out = Vec::with_capacity(av.len() + bv.len());
    let row = |m: &[i64], k: usize| m[k * dims..(k + 1) * dims].to_vec();
    while i < av.len() && j < bv.len() {
        match cmp_rows(ai, i, bi, j, dims) {
            Ordering::Less => {
                ix.extend(row(ai, i));
                out.push(av[i]);
                i += 1;
            }
            Ordering::Equal => {
                let s = av[i].add(bv[j]);
                if s.within(thresh) {
                    ix.extend(row(ai, i));
                    out.push(s);
                }
                i += 1;
                j += 1;
            }
            Ordering::Greater => {
                ix.extend(row(bi, j));
                out.push(bv[j]);
                j += 1;
            }
        }
    }
    for (k, &v) in av.iter().enumerate().skip(i) {
        ix.extend(row(ai, k));
        out.push(v);
    }
    for (k, &v) in bv.iter().enumerate().skip(j) {
        ix.extend(row(bi, k));
        out.push(v);
    }
    let n = out.len();
    Ok((ix, Tensor::from_vec(&[n], out)?))
}

fn sparse_add_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a_shape = ctx.with_rank(2, 1)?;
    ctx.set_output(0, Shape::new(vec![None, a_shape.dim(0)]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, a_shape);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// SparseAddGrad

/// Op `SparseAddGrad`: the gradients of `SparseAdd`'s two value inputs from the gradient of
/// its output values, by matching `a_indices` and `b_indices` against `sum_indices` (all in
/// row-major order); entries a threshold dropped get zero.
pub fn sparse_add_grad(
    backprop_val_grad: impl Into<Output>,
    a_indices: impl Into<Output>,
    b_indices: impl Into<Output>,
    sum_indices: impl Into<Output>,
) -> Result<(Output, Output)> {
    let (gr, a, b, s) = (
        backprop_val_grad.into(),
        a_indices.into(),
        b_indices.into(),
        sum_indices.into(),
    );
    let g = crate::util::same_graph(&[&gr, &a, &b, &s])?.clone();
    let op = crate::new_op(&g, "SparseAddGrad")
        .input(&gr)
        .input(&a)
        .input(&b)
        .input(&s)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

struct AddGradKernel;

impl Kernel for AddGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grad, a, b, sum) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if a.rank() != 2 || b.rank() != 2 || sum.rank() != 2 {
            return Err(invalid(format!(
                "Input indices should be matrices but received shapes: {} and {} and {}",
                format_dims(a.shape()),
                format_dims(b.shape()),
                format_dims(sum.shape())
            )));
        }
        if grad.rank() != 1 {
            return Err(invalid(format!(
                "Input backprop_val_grad should be a vector but received shape: {}",
                format_dims(grad.shape())
            )));
        }
        let dims = a.shape()[1];
        if b.shape()[1] != dims || sum.shape()[1] != dims {
            return Err(invalid(format!(
                "The densified operands should have the same ndims; for A, B, sum got: \
                 {dims}{}{}",
                b.shape()[1],
                sum.shape()[1]
            )));
        }
        if grad.num_elements() != sum.shape()[0] {
            return Err(invalid(format!(
                "# elements of backprop_val_grad and # rows of sum_indices should match (#nnz \
                 of sum): got {} and {}",
                grad.num_elements(),
                sum.shape()[0]
            )));
        }
        let (ai, bi, si) = (
            a.as_slice::<i64>()?,
            b.as_slice::<i64>()?,
            sum.as_slice::<i64>()?,
        );
        let (ga, gb) = weir_graph::match_real_dtype!(grad.dtype(), T => add_grad::<T>(grad, (ai, a.shape()[0]), (bi, b.shape()[0]), si, dims)?,
            _ => return Err(invalid(format!("SparseAddGrad does not support {}", grad.dtype()))));
        ctx.set_output(0, ga);
        ctx.set_output(1, gb);
        Ok(())
    }
}

/// TensorFlow's set intersection of `a` and `b` with `sum`: each of `a`, `b` takes the
/// gradient of the sum entry with its index.
fn add_grad<T: Real>(
    grad: &Tensor,
    (ai, a_nnz): (&[i64], usize),
    (bi, b_nnz): (&[i64], usize),
    si: &[i64],
    dims: usize,
) -> Result<(Tensor, Tensor)> {
    let gv = grad.as_slice::<T>()?;
    let s_nnz = gv.len();
    let mut ga = vec![T::default(); a_nnz];
    let mut gb = vec![T::default(); b_nnz];
    let (mut i, mut j, mut k) = (0, 0, 0);
    // One step of TensorFlow's COMPARE: whether the index was >= the sum's index.
    let step = |m: &[i64], idx: &mut usize, out: &mut [T], k: usize| -> bool {
        match cmp_rows(m, *idx, si, k, dims) {
            Ordering::Equal => {
                out[*idx] = gv[k];
                *idx += 1;
                true
            }
            Ordering::Less => {
                *idx += 1;
                false
            }
            Ordering::Greater => true,
        }
    };
    while i < a_nnz && j < b_nnz && k < s_nnz {
        let a_geq = step(ai, &mut i, &mut ga, k);
        let b_geq = step(bi, &mut j, &mut gb, k);
        if a_geq && b_geq {
            k += 1;
        }
    }
    while i < a_nnz && k < s_nnz {
        if step(ai, &mut i, &mut ga, k) {
            k += 1;
        }
    }
    while j < b_nnz && k < s_nnz {
        if step(bi, &mut j, &mut gb, k) {
            k += 1;
        }
    }
    Ok((
        Tensor::from_vec(&[a_nnz], ga)?,
        Tensor::from_vec(&[b_nnz], gb)?,
    ))
}

fn add_grad_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx.with_rank(1, 2)?;
    let b = ctx.with_rank(2, 2)?;
    ctx.set_output(0, Shape::new(vec![a.dim(0)]));
    ctx.set_output(1, Shape::new(vec![b.dim(0)]));
    Ok(())
}

/// The value types of TensorFlow's `SparseAdd` and `SparseAddGrad` kernels.
const ADD_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I64,
    DType::I32,
    DType::I16,
    DType::I8,
];

pub(super) fn register() {
    register_op(
        OpDef::new("SparseTensorDenseAdd")
            .input("a_indices", ArgType::Attr("Tindices"))
            .input("a_values", ArgType::Attr("T"))
            .input("a_shape", ArgType::Attr("Tindices"))
            .input("b", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::REAL_NUMBER)
            .type_attr("Tindices", &[DType::I32, DType::I64])
            .shape_fn(|ctx| {
                let s = ctx.input_shape(3).clone();
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("SparseTensorDenseAdd", |_| Ok(Box::new(DenseAddKernel)));
    register_op(
        OpDef::new("SparseAdd")
            .input("a_indices", ArgType::Fixed(DType::I64))
            .input("a_values", ArgType::Attr("T"))
            .input("a_shape", ArgType::Fixed(DType::I64))
            .input("b_indices", ArgType::Fixed(DType::I64))
            .input("b_values", ArgType::Attr("T"))
            .input("b_shape", ArgType::Fixed(DType::I64))
            .input("thresh", ArgType::Attr("Treal"))
            .output("sum_indices", ArgType::Fixed(DType::I64))
            .output("sum_values", ArgType::Attr("T"))
            .output("sum_shape", ArgType::Fixed(DType::I64))
            .type_attr("T", ADD_TYPES)
            .type_attr("Treal", ADD_TYPES)
            .shape_fn(sparse_add_shape_fn),
    );
    register_kernel("SparseAdd", |_| Ok(Box::new(SparseAddKernel)));
    register_op(
        OpDef::new("SparseAddGrad")
            .input("backprop_val_grad", ArgType::Attr("T"))
            .input("a_indices", ArgType::Fixed(DType::I64))
            .input("b_indices", ArgType::Fixed(DType::I64))
            .input("sum_indices", ArgType::Fixed(DType::I64))
            .output("a_val_grad", ArgType::Attr("T"))
            .output("b_val_grad", ArgType::Attr("T"))
            .type_attr("T", ADD_TYPES)
            .shape_fn(add_grad_shape_fn),
    );
    register_kernel("SparseAddGrad", |_| Ok(Box::new(AddGradKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sums_common_indices_and_thresholds_only_sums() {
        let a = Tensor::from_vec(&[2], vec![0.01f32, 2.0]).unwrap();
        let b = Tensor::from_vec(&[2], vec![-0.01f32, -1.99]).unwrap();
        let t = Tensor::scalar(0.5f32);
        let (ix, v) = merge::<f32>(&[0, 0, 1, 1], &a, &[0, 1, 1, 1], &b, &t, 2).unwrap();
        assert_eq!(ix, vec![0, 0, 0, 1]);
        assert_eq!(v.to_vec::<f32>().unwrap(), [0.01, -0.01]);
    }

    #[test]
    fn grad_matches_entries_against_the_sum() {
        let g = Tensor::from_vec(&[4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let (ga, gb) = add_grad::<f32>(
            &g,
            (&[0, 0, 1, 1], 2),
            (&[0, 1, 1, 1, 2, 0], 3),
            &[0, 0, 0, 1, 1, 1, 2, 0],
            2,
        )
        .unwrap();
        assert_eq!(ga.to_vec::<f32>().unwrap(), [1.0, 3.0]);
        assert_eq!(gb.to_vec::<f32>().unwrap(), [2.0, 3.0, 4.0]);
    }

    #[test]
    fn summaries_are_space_separated() {
        assert_eq!(summarize(&[2, 3]), "2 3");
    }
}
