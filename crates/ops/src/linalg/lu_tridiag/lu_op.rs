//! `Lu` (`tf.linalg.lu`): the LU decomposition with partial pivoting of batches of square
//! matrices, as Eigen's `PartialPivLU` computes it for TensorFlow's CPU kernel.

use std::cmp::Ordering;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::scalar::{with_field, Field};
use super::shapes::{at_least, batch, dim_back, merge_dim};

/// `tf.linalg.lu(input)`: `(lu, p)`, the packed factors (unit lower `L` below the diagonal, `U`
/// on and above it) and the int32 row permutation `p` of each square matrix of `input`, with
/// `input[..., p, :] = L U`. InvalidArgument "Input is not invertible." on an exactly zero
/// pivot.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, linalg::lu};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let a = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 4.0, 2.0])?)?;
/// let (lu, p) = lu(&a)?;
/// let s = Session::new(&g)?;
/// assert_eq!(s.eval(&p)?.to_vec::<i32>()?, vec![1, 0]);
/// assert_eq!(s.eval(&lu)?.to_vec::<f64>()?, vec![4.0, 2.0, 0.25, 1.5]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn lu(input: impl Into<Output>) -> Result<(Output, Output)> {
    lu_with_index_type(input, DType::I32)
}

/// `tf.linalg.lu(input, output_idx_type)`: [`lu`] with the permutation in `output_idx_type`
/// (int32 or int64).
pub fn lu_with_index_type(
    input: impl Into<Output>,
    output_idx_type: DType,
) -> Result<(Output, Output)> {
    let x = input.into();
    let op = crate::new_op(&x.graph().clone(), "Lu")
        .input(x)
        .attr("output_idx_type", output_idx_type)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// Eigen's unblocked `partial_lu_inplace` on the row-major `n x n` matrix `a`: pivots on the
/// first entry of largest modulus, divides the column by the pivot (skipping a zero column)
/// and subtracts the rank-1 update. `perm[i]` is the original row of row `i`.
pub(crate) fn partial_piv_lu<T: Field>(a: &mut [T], n: usize, perm: &mut [usize]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let mut best = k;
        let mut best_abs = a[k * n + k].modulus();
        for i in k + 1..n {
            let m = a[i * n + k].modulus();
            if m > best_abs {
                best = i;
                best_abs = m;
            }
        }
        if best_abs != <T::Real as num_traits::Zero>::zero() {
            if best != k {
                for j in 0..n {
                    a.swap(k * n + j, best * n + j);
                }
                perm.swap(k, best);
            }
            let pivot = a[k * n + k];
            for i in k + 1..n {
                a[i * n + k] = a[i * n + k].quot(pivot);
            }
        }
        for i in k + 1..n {
            let f = a[i * n + k];
            for j in k + 1..n {
                let u = a[k * n + j];
                a[i * n + j] = a[i * n + j] - f * u;
            }
        }
    }
}

fn lu_typed<T: Field>(x: &Tensor, idx: DType) -> Result<(Tensor, Tensor)> {
    let s = x.shape();
    let r = s.len();
    if r < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor must have rank >= 2, got {r}"
        )));
    }
    let n = s[r - 1];
    if s[r - 2] != n {
        return Err(Error::invalid_argument("Input matrix must be square."));
    }
    let mut lu = x.as_slice::<T>()?.to_vec();
    let mut p_dims = s[..r - 2].to_vec();
    p_dims.push(n);
    let nb: usize = s[..r - 2].iter().product();
    let mut perm = vec![0usize; n];
    let mut ps = Vec::with_capacity(nb * n);
    let mut singular = false;
    if n > 0 {
        for m in lu.chunks_exact_mut(n * n) {
            partial_piv_lu(m, n, &mut perm);
            ps.extend_from_slice(&perm);
            // TensorFlow checks each matrix after factoring it, all of them in parallel shards.
            let zero = <T::Real as num_traits::Zero>::zero();
            let min = (0..n).map(|i| m[i * n + i].modulus()).fold(None, |acc, v| {
                Some(match acc {
                    Some(a) if a <= v => a,
                    _ => v,
                })
            });
            singular |= min.is_some_and(|v| v.partial_cmp(&zero) != Some(Ordering::Greater));
        }
    }
    if singular {
        return Err(Error::invalid_argument("Input is not invertible."));
    }
    let p = if idx == DType::I64 {
        Tensor::from_vec(&p_dims, ps.iter().map(|&v| v as i64).collect())?
    } else {
        Tensor::from_vec(&p_dims, ps.iter().map(|&v| v as i32).collect())?
    };
    Ok((Tensor::from_vec(s, lu)?, p))
}

struct LuKernel(DType);

impl Kernel for LuKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let (lu, p) = with_field!(x.dtype(), T => lu_typed::<T>(x, self.0))?;
        ctx.set_output(0, lu);
        ctx.set_output(1, p);
        Ok(())
    }
}

/// TensorFlow's `LuShapeFn`.
fn lu_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let idx: DType = ctx.attr("output_idx_type")?;
    if !matches!(idx, DType::I32 | DType::I64) {
        return Err(Error::invalid_argument(format!(
            "Value for attr 'output_idx_type' of {idx} is not in the list of allowed values: \
             int32, int64"
        )));
    }
    let d = at_least(ctx.input_shape(0), 2)?;
    let n = merge_dim(dim_back(&d, 2), dim_back(&d, 1))?;
    let b = batch(&d);
    ctx.set_output(0, b.concatenate(&Shape::new(vec![n, n])));
    ctx.set_output(1, b.concatenate(&Shape::new(vec![n])));
    Ok(())
}

fn make_lu(node: &Node) -> Result<Box<dyn Kernel>> {
    let t: DType = node.attr("T")?;
    let idx: DType = node.attr("output_idx_type")?;
    if t == DType::F16 {
        let mut kernels = String::new();
        for i in ["DT_INT64", "DT_INT32"] {
            for k in ["DT_COMPLEX128", "DT_COMPLEX64", "DT_DOUBLE", "DT_FLOAT"] {
                kernels.push_str(&format!(
                    "  device='CPU'; T in [{k}]; output_idx_type in [{i}]\n"
                ));
            }
        }
        return Err(Error::invalid_argument(format!(
            "No OpKernel was registered to support Op 'Lu' used by {{{{node {}}}}} with these \
             attrs: [output_idx_type={}, T={}]\nRegistered devices: [CPU]\nRegistered \
             kernels:\n{kernels}",
            node.name(),
            idx.proto_name(),
            t.proto_name()
        )));
    }
    Ok(Box::new(LuKernel(idx)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Lu")
            .input("input", ArgType::Attr("T"))
            .output("lu", ArgType::Attr("T"))
            .output("p", ArgType::Attr("output_idx_type"))
            .type_attr(
                "T",
                &[DType::F64, DType::F32, DType::F16, DType::C64, DType::C128],
            )
            .attr(
                "output_idx_type",
                AttrKind::Type,
                Some(AttrValue::Type(DType::I32)),
            )
            .shape_fn(lu_shape_fn),
    );
    register_kernel("Lu", make_lu);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pivots_on_the_first_largest_entry_and_rejects_zero_pivots() {
        let a = Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, -1.0, 3.0]).unwrap();
        let (lu, p) = lu_typed::<f64>(&a, DType::I32).unwrap();
        assert_eq!(p.to_vec::<i32>().unwrap(), vec![0, 1]);
        assert_eq!(lu.to_vec::<f64>().unwrap(), vec![1.0, 2.0, -1.0, 5.0]);
        let s = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 2.0, 4.0]).unwrap();
        let e = lu_typed::<f32>(&s, DType::I32).unwrap_err();
        assert_eq!(e.message(), "Input is not invertible.");
        let empty = Tensor::from_vec(&[3, 0, 0], Vec::<f64>::new()).unwrap();
        let (_, p) = lu_typed::<f64>(&empty, DType::I64).unwrap();
        assert_eq!(p.shape(), &[3, 0]);
    }
}
