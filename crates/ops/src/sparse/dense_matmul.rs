//! `tf.sparse.sparse_dense_matmul` (op `SparseTensorDenseMatMul`): a sparse matrix times a
//! dense one, either optionally adjointed.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Output, Result, Shape, Tensor,
};

use super::arith::{alloc_output, index_values, Real};
use super::SparseOutput;

/// `tf.sparse.sparse_dense_matmul(sp_a, b, adjoint_a, adjoint_b)` (op
/// `SparseTensorDenseMatMul`): the dense product `op(sp_a) . op(b)` of a rank-2 sparse tensor
/// and a matrix, where `op` transposes when its adjoint flag is set. Repeated indices add up;
/// indices need not be sorted but must be in bounds. float32, float64 and int32.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, sparse::{sparse_tensor_dense_matmul, SparseOutput}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, Tensor::from_vec(&[2, 2], vec![0i64, 1, 1, 0])?)?,
///     constant(&g, vec![2.0f32, 3.0])?,
///     constant(&g, vec![2i64, 2])?,
/// )?;
/// let b = constant(&g, Tensor::from_vec(&[2, 1], vec![10.0f32, 100.0])?)?;
/// let y = sparse_tensor_dense_matmul(&sp, &b, false, false)?;
/// assert_eq!(Session::new(&g)?.eval(&y)?.to_vec::<f32>()?, [200.0, 30.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn sparse_tensor_dense_matmul(
    sp_a: &SparseOutput,
    b: impl Into<Output>,
    adjoint_a: bool,
    adjoint_b: bool,
) -> Result<Output> {
    let b = b.into();
    let g = crate::util::same_graph(&[&sp_a.indices, &b])?.clone();
    crate::new_op(&g, "SparseTensorDenseMatMul")
        .input(&sp_a.indices)
        .input(&sp_a.values)
        .input(&sp_a.dense_shape)
        .input(&b)
        .attr("adjoint_a", adjoint_a)
        .attr("adjoint_b", adjoint_b)
        .build()?
        .output(0)
}

struct MatMulKernel {
    adjoint_a: bool,
    adjoint_b: bool,
}

fn check(ok: bool, msg: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(msg))
    }
}

impl Kernel for MatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape, b) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        check(b.rank() == 2, "Tensor 'b' is not a matrix")?;
        check(shape.rank() == 1, "Tensor 'a_shape' is not a vector")?;
        check(
            shape.num_elements() == 2,
            "Tensor 'a_shape' must have 2 elements",
        )?;
        check(values.rank() == 1, "Tensor 'a_values' is not a vector")?;
        check(indices.rank() == 2, "Tensor 'a_indices' is not a matrix")?;
        let nnz = indices.shape()[0];
        check(
            nnz == values.num_elements(),
            "Number of rows of a_indices does not match number of entries in a_values",
        )?;
        check(
            indices.shape()[1] == 2,
            "Number of columns of a_indices does not match number of entries in a_shape",
        )?;
        let a_shape = shape.as_slice::<i64>()?;
        let (bd0, bd1) = (b.shape()[0] as i64, b.shape()[1] as i64);
        let (outer_left, inner_left) = if self.adjoint_a {
            (a_shape[1], a_shape[0])
        } else {
            (a_shape[0], a_shape[1])
        };
        let (outer_right, inner_right) = if self.adjoint_b {
            (bd0, bd1)
        } else {
            (bd1, bd0)
        };
        if inner_left != inner_right {
            return Err(Error::invalid_argument(format!(
                "Cannot multiply A and B because inner dimension does not match: {inner_left} \
                 vs. {inner_right}.  Did you forget a transpose?  Dimensions of A: [{}, {}).  \
                 Dimensions of B: {}",
                a_shape[0],
                a_shape[1],
                format_dims(b.shape())
            )));
        }
        let rows = usize::try_from(outer_left).map_err(|_| {
            Error::invalid_argument(format!(
                "Expected shape dimensions to be non-negative, got {outer_left}"
            ))
        })?;
        let cols = outer_right as usize;
        let ix = index_values(indices)?;
        let args = Args {
            ix: &ix,
            values,
            b,
            rows,
            cols,
            adjoint_a: self.adjoint_a,
            adjoint_b: self.adjoint_b,
        };
        let out = match values.dtype() {
            DType::F32 => args.run::<f32>()?,
            DType::F64 => args.run::<f64>()?,
            DType::I32 => args.run::<i32>()?,
            dt => {
                return Err(Error::invalid_argument(format!(
                    "SparseTensorDenseMatMul does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

struct Args<'a> {
    ix: &'a [i64],
    values: &'a Tensor,
    b: &'a Tensor,
    rows: usize,
    cols: usize,
    adjoint_a: bool,
    adjoint_b: bool,
}

impl Args<'_> {
    /// TensorFlow's CPU functor: zeros, then for each entry in order (checking its column,
    /// then its row) the entry times a row of `op(b)` added to a row of the output.
    fn run<T: Real>(&self) -> Result<Tensor> {
        let dims = [self.rows, self.cols];
        let mut out = alloc_output(&dims, T::default(), T::DTYPE)?;
        let vals = self.values.as_slice::<T>()?;
        let b = self.b.as_slice::<T>()?;
        if out.is_empty() || vals.is_empty() || b.is_empty() {
            return Tensor::from_vec(&dims, out);
        }
        let (b_rows, b_cols) = (self.b.shape()[0], self.b.shape()[1]);
        let lhs_right = if self.adjoint_b { b_cols } else { b_rows };
        let (m_at, k_at) = if self.adjoint_a { (1, 0) } else { (0, 1) };
        for (i, &a) in vals.iter().enumerate() {
            let (m, k) = (self.ix[2 * i + m_at], self.ix[2 * i + k_at]);
            if k < 0 || k as usize >= lhs_right {
                return Err(Error::invalid_argument(format!(
                    "k ({k}) from index[{i},{k_at}] out of bounds (>={lhs_right})"
                )));
            }
            if m < 0 || m as usize >= self.rows {
                return Err(Error::invalid_argument(format!(
                    "m ({m}) from index[{i},{m_at}] out of bounds (>={})",
                    self.rows
                )));
            }
            let (m, k) = (m as usize, k as usize);
            let row = &mut out[m * self.cols..(m + 1) * self.cols];
            if self.adjoint_b {
                for (n, o) in row.iter_mut().enumerate() {
                    *o = o.add(a.mul(b[n * b_cols + k]));
                }
            } else {
                for (o, &x) in row.iter_mut().zip(&b[k * b_cols..(k + 1) * b_cols]) {
                    *o = o.add(a.mul(x));
                }
            }
        }
        Tensor::from_vec(&dims, out)
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 2)?;
    ctx.with_rank(1, 1)?;
    let a_shape = crate::random::shape_from_input(ctx, 2)?;
    if let Some(r) = a_shape.rank().filter(|&r| r != 2) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 2 but is rank {r} for '{}'",
            ctx.op_type
        )));
    }
    let b = ctx.with_rank(3, 2)?;
    let adjoint_a: bool = ctx.attr("adjoint_a")?;
    let adjoint_b: bool = ctx.attr("adjoint_b")?;
    let a_dim = |i: isize| {
        if a_shape.rank().is_some() {
            a_shape.dim(i)
        } else {
            None
        }
    };
    let b_dim = |i: isize| if b.rank().is_some() { b.dim(i) } else { None };
    let out_right = b_dim(if adjoint_b { 0 } else { 1 });
    let out_left = a_dim(if adjoint_a { 1 } else { 0 });
    let inner_left = a_dim(if adjoint_a { 0 } else { 1 });
    let inner_right = b_dim(if adjoint_b { 1 } else { 0 });
    if let (Some(l), Some(r)) = (inner_left, inner_right) {
        if l != r {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {l} and {r} for '{}'",
                ctx.op_type
            )));
        }
    }
    ctx.set_output(0, Shape::new(vec![out_left, out_right]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SparseTensorDenseMatMul")
            .input("a_indices", ArgType::Attr("Tindices"))
            .input("a_values", ArgType::Attr("T"))
            .input("a_shape", ArgType::Fixed(DType::I64))
            .input("b", ArgType::Attr("T"))
            .output("product", ArgType::Attr("T"))
            .type_attr("T", &[DType::F32, DType::F64, DType::I32])
            .type_attr("Tindices", &[DType::I32, DType::I64])
            .attr("adjoint_a", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .attr("adjoint_b", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .shape_fn(shape_fn),
    );
    register_kernel("SparseTensorDenseMatMul", |node| {
        Ok(Box::new(MatMulKernel {
            adjoint_a: node.attr("adjoint_a")?,
            adjoint_b: node.attr("adjoint_b")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::constant;
    use weir_graph::Graph;
    use weir_session::Session;

    fn sp(g: &Graph, ix: Vec<i64>, v: Vec<f64>, shape: Vec<i64>) -> SparseOutput {
        let n = v.len();
        SparseOutput::new(
            constant(g, Tensor::from_vec(&[n, 2], ix).unwrap()).unwrap(),
            constant(g, v).unwrap(),
            constant(g, shape).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn every_adjoint_combination_matches_the_dense_product() {
        // a = [[1, 0, 2], [0, 3, 0]]; b = [[1, 2], [3, 4], [5, 6]].
        for (aa, ab) in [(false, false), (false, true), (true, false), (true, true)] {
            let g = Graph::new();
            let (ix, shape) = if aa {
                (vec![0, 0, 2, 0, 1, 1], vec![3, 2])
            } else {
                (vec![0, 0, 0, 2, 1, 1], vec![2, 3])
            };
            let a = sp(&g, ix, vec![1.0, 2.0, 3.0], shape);
            let b = if ab {
                Tensor::from_vec(&[2, 3], vec![1.0f64, 3.0, 5.0, 2.0, 4.0, 6.0]).unwrap()
            } else {
                Tensor::from_vec(&[3, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap()
            };
            let y = sparse_tensor_dense_matmul(&a, constant(&g, b).unwrap(), aa, ab).unwrap();
            assert_eq!(y.shape(), Shape::known(&[2, 2]));
            let got = Session::new(&g).unwrap().eval(&y).unwrap();
            assert_eq!(
                got.to_vec::<f64>().unwrap(),
                [11.0, 14.0, 9.0, 12.0],
                "{aa} {ab}"
            );
        }
    }

    #[test]
    fn out_of_range_indices_and_huge_shapes_are_errors() {
        let g = Graph::new();
        let a = sp(&g, vec![0, 5], vec![1.0], vec![2, 3]);
        let b = constant(&g, Tensor::from_vec(&[3, 1], vec![1.0f64; 3]).unwrap()).unwrap();
        let y = sparse_tensor_dense_matmul(&a, &b, false, false).unwrap();
        let e = Session::new(&g).unwrap().eval(&y).unwrap_err();
        assert!(e
            .message()
            .starts_with("k (5) from index[0,1] out of bounds (>=3)"));
        let g = Graph::new();
        let a = sp(&g, vec![0, 0], vec![1.0], vec![i64::MAX / 2, 3]);
        let b = constant(&g, Tensor::from_vec(&[3, 4], vec![1.0f64; 12]).unwrap()).unwrap();
        let y = sparse_tensor_dense_matmul(&a, &b, false, false).unwrap();
        let e = Session::new(&g).unwrap().eval(&y).unwrap_err();
        assert!(e.is_resource_exhausted(), "{e}");
    }
}
