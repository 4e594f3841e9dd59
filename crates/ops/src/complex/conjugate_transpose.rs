//! `ConjugateTranspose`: `tf.transpose(a, perm, conjugate=True)` and `tf.linalg.adjoint`, a
//! transpose that also conjugates complex elements (a plain transpose for other dtypes).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Shape,
};

use crate::array::shape_util::{const_i64s, to_i64s, unknown_dims};
use crate::array::transpose::{check_perm, permute};
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

struct ConjugateTransposeKernel;

impl Kernel for ConjugateTransposeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let perm = to_i64s(ctx.input(1))?;
        let x = ctx.input(0);
        let perm = check_perm(&perm, x.rank())?;
        let dt = x.dtype();
        // Transpose's copy, then the conjugate in place: the permuted tensor is ours alone.
        let mut out = weir_graph::match_data_dtype!(dt, T => permute::<T>(x, &perm)?,
            _ => return Err(Error::invalid_argument(format!("Cannot transpose {dt} tensors"))));
        weir_graph::match_complex_dtype!(dt, T => {
            for z in out.as_slice_mut::<T>()? {
                *z = z.conj();
            }
        }, _ => {});
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
