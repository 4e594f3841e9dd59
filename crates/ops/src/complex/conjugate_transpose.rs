//! `ConjugateTranspose`: `tf.transpose(a, perm, conjugate=True)` and `tf.linalg.adjoint`, a
//! transpose that also conjugates complex elements (a plain transpose for other dtypes).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape,
    Tensor, TensorType,
};

use crate::array::shape_util::{const_i64s, to_i64s, unknown_dims};
use crate::array::IndexArg;

/// `tf.transpose(a, perm, conjugate=True)` (op `ConjugateTranspose`): dim `i` of the output is
/// dim `perm[i]` of `a`, complex elements conjugated.
pub fn conjugate_transpose(a: impl Into<Output>, perm: impl Into<IndexArg>) -> Result<Output> {
    let x = a.into();
    let g = x.graph().clone();
    let p = perm.into().to_output(&g)?;
    crate::new_op(&g, "ConjugateTranspose")
        .input(x)
        .input(p)
        .name("transpose")
        .build()?
        .output(0)
}

/// `tf.linalg.adjoint(matrix)`: the conjugate transpose of the two innermost dims (a
/// `ConjugateTranspose` of a matrix or batch of matrices of known rank).
pub fn adjoint(matrix: impl Into<Output>) -> Result<Output> {
    let x = matrix.into();
    let rank = x.shape().rank().ok_or_else(|| {
        Error::invalid_argument("adjoint needs a matrix of known rank".to_string())
    })?;
    if rank < 2 {
        return Err(Error::invalid_argument(format!(
            "Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {}",
            x.shape()
        )));
    }
    let g = x.graph().clone();
    let _scope = g.name_scope("adjoint");
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    let _t = g.name_scope("matrix_transpose");
    conjugate_transpose(&x, perm)
}

/// Checks `perm` is a permutation of `0..rank` (TensorFlow's messages).
fn check_perm(perm: &[i64], rank: usize) -> Result<Vec<usize>> {
    if perm.len() != rank {
        return Err(Error::invalid_argument(format!(
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {}",
            perm.len()
        )));
    }
    let mut seen = vec![false; rank];
    for &d in perm {
        if d < 0 || d as usize >= rank {
            return Err(Error::invalid_argument(format!(
                "{d} is out of range [0 .. {rank})"
            )));
        }
        seen[d as usize] = true;
    }
    if let Some(i) = seen.iter().position(|&s| !s) {
        let shown: Vec<String> = perm.iter().map(i64::to_string).collect();
        return Err(Error::invalid_argument(format!(
            "{i} is missing from {{{}}}.",
            shown.join(",")
        )));
    }
    Ok(perm.iter().map(|&d| d as usize).collect())
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let x = ctx.input_shape(0).clone();
    let rank = x.rank().or(ctx.input_shape(1).dim(0));
    let (Some(r), Some(perm)) = (rank, const_i64s(ctx, 1)?) else {
        ctx.set_output(0, unknown_dims(rank));
        return Ok(());
    };
    // As TensorFlow's TransposeShapeFn: the range is checked here, duplicates by the kernel.
    let mut dims = Vec::with_capacity(r);
    for &p in &perm {
        let d = if p < 0 { p + r as i64 } else { p };
        if d < 0 || d >= r as i64 {
            return Err(Error::invalid_argument(format!(
                "perm dim {p} is out of range of input rank {r}"
            )));
        }
        dims.push(x.dim(d as isize));
    }
    ctx.set_output(0, Shape::new(dims));
    Ok(())
}

/// `x` in the permuted layout, each element passed through `f`: the output is written in order
/// while an odometer steps the input offset by each output axis's input stride.
pub(crate) fn permute_map<T: TensorType>(
    x: &Tensor,
    perm: &[usize],
    f: impl Fn(&T) -> T,
) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let in_shape = x.shape();
    let rank = perm.len();
    let out_shape: Vec<usize> = perm.iter().map(|&p| in_shape[p]).collect();
    let mut in_strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        in_strides[i] = in_strides[i + 1] * in_shape[i + 1];
    }
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let mut out = Vec::with_capacity(src.len());
    let mut idx = vec![0usize; rank];
    let mut off = 0usize;
    for _ in 0..src.len() {
        out.push(f(&src[off]));
        for ax in (0..rank).rev() {
            idx[ax] += 1;
            off += strides[ax];
            if idx[ax] < out_shape[ax] {
                break;
            }
            off -= strides[ax] * out_shape[ax];
            idx[ax] = 0;
        }
    }
    Tensor::from_vec(&out_shape, out)
}

struct ConjugateTransposeKernel;

impl Kernel for ConjugateTransposeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let perm = to_i64s(ctx.input(1))?;
        let x = ctx.input(0);
        let perm = check_perm(&perm, x.rank())?;
        let out = match x.dtype() {
            DType::C64 => permute_map::<weir_graph::Complex<f32>>(x, &perm, |z| z.conj())?,
            DType::C128 => permute_map::<weir_graph::Complex<f64>>(x, &perm, |z| z.conj())?,
            dt => weir_graph::match_data_dtype!(dt, T => permute_map::<T>(x, &perm, T::clone)?,
                _ => return Err(Error::invalid_argument(format!("Cannot transpose {dt} tensors")))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("ConjugateTranspose")
            .input("x", ArgType::Attr("T"))
            .input("perm", ArgType::Attr("Tperm"))
            .output("y", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tperm", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("ConjugateTranspose", |_| {
        Ok(Box::new(ConjugateTransposeKernel))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutes_and_conjugates() {
        let x = Tensor::from_vec(&[2, 3], (0..6).collect::<Vec<i32>>()).unwrap();
        let t = permute_map::<i32>(&x, &[1, 0], |v| *v).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![0, 3, 1, 4, 2, 5]);
        assert!(check_perm(&[0, 0], 2).is_err());
    }
}
