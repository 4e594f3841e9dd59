//! `SparseSparseMaximum` and `SparseSparseMinimum`: elementwise max/min of two sparse tensors.

use std::cmp::Ordering;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Result, Shape, Tensor,
};

use super::checks::{indices_in_bounds, sparse_shapes, summarize};
use super::SparseOutput;

/// `tf.sparse.maximum(sp_a, sp_b)` (op `SparseSparseMaximum`): the elementwise maximum over the
/// union of both tensors' indices, a missing entry counting as zero (NaN wins). Both must have
/// the same dense shape and be in row-major order; the result has `sp_a`'s dense shape.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_maximum, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let shape = constant(&g, vec![3i64])?;
/// let a = SparseOutput::new(constant(&g, Tensor::from_vec(&[1, 1], vec![0i64])?)?,
///     constant(&g, vec![-1.0f32])?, shape.clone())?;
/// let b = SparseOutput::new(constant(&g, Tensor::from_vec(&[1, 1], vec![2i64])?)?,
///     constant(&g, vec![4.0f32])?, shape)?;
/// let m = sparse_maximum(&a, &b)?;
/// assert_eq!(Session::new(&g)?.eval(&m.values)?.to_vec::<f32>()?, [0.0, 4.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_maximum(sp_a: &SparseOutput, sp_b: &SparseOutput) -> Result<SparseOutput> {
    binary(sp_a, sp_b, "SparseSparseMaximum")
}

/// `tf.sparse.minimum(sp_a, sp_b)` (op `SparseSparseMinimum`): the elementwise minimum over the
/// union of both tensors' indices, a missing entry counting as zero (NaN wins); see
/// [`sparse_maximum`].
pub fn sparse_minimum(sp_a: &SparseOutput, sp_b: &SparseOutput) -> Result<SparseOutput> {
    binary(sp_a, sp_b, "SparseSparseMinimum")
}

fn binary(a: &SparseOutput, b: &SparseOutput, op_type: &str) -> Result<SparseOutput> {
    let g = crate::util::same_graph(&[&a.indices, &b.indices])?.clone();
    let _scope = g.name_scope(op_type);
    let op = crate::new_op(&g, op_type)
        .input(&a.indices)
        .input(&a.values)
        .input(&a.dense_shape)
        .input(&b.indices)
        .input(&b.values)
        .input(&b.dense_shape)
        .build()?;
    SparseOutput::new(op.output(0)?, op.output(1)?, a.dense_shape.clone())
}

/// The union of two row-major index lists (TensorFlow's `UnionSparseIndicesAndValues`): per
/// output entry, the position in `a` and in `b` of its operands (`None` for an implicit zero),
/// and whether its index is taken from `a`.
fn union(
    a: &[i64],
    na: usize,
    b: &[i64],
    nb: usize,
    rank: usize,
) -> Vec<(Option<usize>, Option<usize>)> {
    let ra = |i: usize| &a[i * rank..(i + 1) * rank];
    let rb = |j: usize| &b[j * rank..(j + 1) * rank];
    let mut out = Vec::with_capacity(na + nb);
    let (mut i, mut j) = (0, 0);
    while i < na && j < nb {
        match ra(i).cmp(rb(j)) {
            Ordering::Less => {
                out.push((Some(i), None));
                i += 1;
            }
            Ordering::Equal => {
                out.push((Some(i), Some(j)));
                i += 1;
                j += 1;
            }
            Ordering::Greater => {
                out.push((None, Some(j)));
                j += 1;
            }
        }
    }
    out.extend((i..na).map(|i| (Some(i), None)));
    out.extend((j..nb).map(|j| (None, Some(j))));
    out
}

/// Max and min that return NaN when either operand is NaN (Eigen's NaN-propagating functors).
trait MinMax: Copy + Default {
    fn max_of(self, o: Self) -> Self;
    fn min_of(self, o: Self) -> Self;
}

macro_rules! int_minmax {
    ($($t:ty),*) => {$(
        impl MinMax for $t {
            fn max_of(self, o: Self) -> Self { Ord::max(self, o) }
            fn min_of(self, o: Self) -> Self { Ord::min(self, o) }
        }
    )*};
}
int_minmax!(i8, i16, i32, i64, u8, u16);

macro_rules! float_minmax {
    ($($t:ty),*) => {$(
        impl MinMax for $t {
            fn max_of(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN } else if self < o { o } else { self }
            }
            fn min_of(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() { <$t>::NAN } else if o < self { o } else { self }
            }
        }
    )*};
}
float_minmax!(f32, f64);

fn combine<T: MinMax + weir_graph::TensorType>(
    av: &Tensor,
    bv: &Tensor,
    pairs: &[(Option<usize>, Option<usize>)],
    max: bool,
) -> Result<Tensor> {
    let (a, b) = (av.as_slice::<T>()?, bv.as_slice::<T>()?);
    let vals = pairs
        .iter()
        .map(|&(i, j)| {
            let x = i.map_or_else(T::default, |i| a[i]);
            let y = j.map_or_else(T::default, |j| b[j]);
            if max {
                x.max_of(y)
            } else {
                x.min_of(y)
            }
        })
        .collect();
    Tensor::from_vec(&[pairs.len()], vals)
}

struct MinMaxKernel {
    max: bool,
}

impl Kernel for MinMaxKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs();
        let (ai, av, ash) = (&inputs[0], &inputs[1], &inputs[2]);
        let (bi, bv, bsh) = (&inputs[3], &inputs[4], &inputs[5]);
        let (na, rank) = sparse_shapes(ai, av, ash)?;
        let a_shape = ash.to_vec::<i64>()?;
        indices_in_bounds(ai.as_slice::<i64>()?, rank, &a_shape)?;
        let (nb, b_rank) = sparse_shapes(bi, bv, bsh)?;
        let b_shape = bsh.to_vec::<i64>()?;
        indices_in_bounds(bi.as_slice::<i64>()?, b_rank, &b_shape)?;
        if a_shape.len() != b_shape.len() {
            return Err(Error::invalid_argument(format!(
                "Operands do not have the same ranks; got shapes: {} and {}",
                summarize(&a_shape, 10),
                summarize(&b_shape, 10)
            )));
        }
        for (d, (x, y)) in a_shape.iter().zip(&b_shape).enumerate() {
            if x != y {
                return Err(Error::invalid_argument(format!(
                    "Operands' shapes do not match: got {x} and {y} for dimension {d}"
                )));
            }
        }
        let (a, b) = (ai.as_slice::<i64>()?, bi.as_slice::<i64>()?);
        let pairs = union(a, na, b, nb, rank);
        let mut out_ix = Vec::with_capacity(pairs.len() * rank);
        for &(i, j) in &pairs {
            match (i, j) {
                (Some(i), _) => out_ix.extend_from_slice(&a[i * rank..(i + 1) * rank]),
                (None, Some(j)) => out_ix.extend_from_slice(&b[j * rank..(j + 1) * rank]),
                (None, None) => {}
            }
        }
        let dt = av.dtype();
        let max = self.max;
        let values = match dt {
            DType::F32 => combine::<f32>(av, bv, &pairs, max)?,
            DType::F64 => combine::<f64>(av, bv, &pairs, max)?,
            DType::I8 => combine::<i8>(av, bv, &pairs, max)?,
            DType::I16 => combine::<i16>(av, bv, &pairs, max)?,
            DType::I32 => combine::<i32>(av, bv, &pairs, max)?,
            DType::I64 => combine::<i64>(av, bv, &pairs, max)?,
            DType::U8 => combine::<u8>(av, bv, &pairs, max)?,
            DType::U16 => combine::<u16>(av, bv, &pairs, max)?,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "Sparse maximum/minimum does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, Tensor::from_vec(&[pairs.len(), rank], out_ix)?);
        ctx.set_output(1, values);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for (i, rank) in [2, 1, 1, 2, 1, 1].into_iter().enumerate() {
        ctx.with_rank(i, rank)?;
    }
    ctx.set_output(0, Shape::new(vec![None, None]));
    ctx.set_output(1, Shape::new(vec![None]));
    Ok(())
}

pub(super) fn register() {
    for (name, max) in [
        ("SparseSparseMaximum", true),
        ("SparseSparseMinimum", false),
    ] {
        register_op(
            OpDef::new(name)
                .input("a_indices", ArgType::Fixed(DType::I64))
                .input("a_values", ArgType::Attr("T"))
                .input("a_shape", ArgType::Fixed(DType::I64))
                .input("b_indices", ArgType::Fixed(DType::I64))
                .input("b_values", ArgType::Attr("T"))
                .input("b_shape", ArgType::Fixed(DType::I64))
                .output("output_indices", ArgType::Fixed(DType::I64))
                .output("output_values", ArgType::Attr("T"))
                .type_attr("T", DType::REAL_NUMBER)
                .shape_fn(shape_fn),
        );
        if max {
            register_kernel(name, |_| Ok(Box::new(MinMaxKernel { max: true })));
        } else {
            register_kernel(name, |_| Ok(Box::new(MinMaxKernel { max: false })));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{union, MinMax};

    #[test]
    fn union_merges_row_major_lists() {
        let pairs = union(&[0, 0, 1, 1], 2, &[0, 1, 1, 1], 2, 2);
        assert_eq!(
            pairs,
            [(Some(0), None), (None, Some(0)), (Some(1), Some(1))]
        );
        assert!(1.0f32.max_of(f32::NAN).is_nan());
        assert!(f32::NAN.min_of(1.0).is_nan());
        assert_eq!((-3i8).max_of(0), 0);
    }
}
