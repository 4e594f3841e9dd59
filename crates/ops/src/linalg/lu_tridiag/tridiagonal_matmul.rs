//! `TridiagonalMatMul`: the product of batches of tridiagonal matrices, given by their three
//! diagonals (`[..., 1, M]` each), with `[..., M, N]` right-hand sides.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result, Tensor,
};

use super::scalar::{with_field, Field, FIELDS};
use super::shapes::{at_least, batch, dim_back, merge, merge_dim, with_value};

/// The raw `TridiagonalMatMul` op (`tf.raw_ops.TridiagonalMatMul`): `T rhs` for the tridiagonal
/// `T` with `superdiag` (last entry ignored), `maindiag` and `subdiag` (first entry ignored),
/// each `[..., 1, M]`, and `rhs` `[..., M, N]`.
pub fn tridiagonal_mat_mul(
    superdiag: impl Into<Output>,
    maindiag: impl Into<Output>,
    subdiag: impl Into<Output>,
    rhs: impl Into<Output>,
) -> Result<Output> {
    let (a, b, c, r) = (
        superdiag.into(),
        maindiag.into(),
        subdiag.into(),
        rhs.into(),
    );
    let g = crate::util::same_graph(&[&a, &b, &c, &r])?.clone();
    crate::new_op(&g, "TridiagonalMatMul")
        .input(a)
        .input(b)
        .input(c)
        .input(r)
        .build()?
        .output(0)
}

/// `TridiagonalMatMulShapeFn`, merge for merge.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    at_least(ctx.input_shape(0), 2)?;
    let main = at_least(ctx.input_shape(1), 2)?;
    let sub = at_least(ctx.input_shape(2), 2)?;
    let rhs = at_least(ctx.input_shape(3), 2)?;
    let (s0, s1, s2) = (
        ctx.input_shape(0).clone(),
        ctx.input_shape(1).clone(),
        ctx.input_shape(2).clone(),
    );
    let sup = merge(&s0, &s1)?;
    let rb = merge(&batch(&main), &batch(&rhs))?;
    merge(&batch(&sub), &rb)?;
    let m = merge(&s2, &merge(&sup, &s1)?)?;
    let md = m.dims().map(|d| d.to_vec());
    merge_dim(dim_back(&md, 1), dim_back(&rhs, 2))?;
    with_value(dim_back(&md, 2), 1)?;
    let out = ctx.input_shape(3).clone();
    ctx.set_output(0, out);
    Ok(())
}

fn matmul_typed<T: Field>(ins: [&Tensor; 4]) -> Result<Tensor> {
    let r = ins[0].shape().len();
    if r < 2 {
        return Err(Error::invalid_argument(format!(
            "Input tensor 0 must have rank >= 2, got {r}"
        )));
    }
    let batch_dims = &ins[0].shape()[..r - 2];
    for t in &ins[1..] {
        if t.shape().len() != r {
            return Err(Error::invalid_argument(
                "All input tensors must have the same rank.",
            ));
        }
        if &t.shape()[..r - 2] != batch_dims {
            return Err(Error::invalid_argument(
                "All input tensors must have the same outer dimensions.",
            ));
        }
    }
    let rs = ins[3].shape();
    let (m, n) = (rs[r - 2], rs[r - 1]);
    for (t, what) in ins[..3]
        .iter()
        .zip(["superdiagonal", "main diagonal", "subdiagonal"])
    {
        let s = t.shape();
        if s[r - 2] != 1 || s[r - 1] != m {
            return Err(Error::invalid_argument(format!("Invalid {what} shape.")));
        }
    }
    let (sup, main, sub) = (
        ins[0].as_slice::<T>()?,
        ins[1].as_slice::<T>()?,
        ins[2].as_slice::<T>()?,
    );
    let b = ins[3].as_slice::<T>()?;
    let mut out = vec![T::fzero(); b.len()];
    let nb: usize = batch_dims.iter().product();
    if m > 0 && n > 0 {
        for k in 0..nb {
            let (sp, mn, sb) = (
                &sup[k * m..(k + 1) * m],
                &main[k * m..(k + 1) * m],
                &sub[k * m..(k + 1) * m],
            );
            let x = &b[k * m * n..(k + 1) * m * n];
            let y = &mut out[k * m * n..(k + 1) * m * n];
            // Eigen's three passes: the diagonal product, then the sub- and superdiagonal terms
            // added in turn, each rounded on its own.
            for i in 0..m {
                for j in 0..n {
                    y[i * n + j] = x[i * n + j] * mn[i];
                }
            }
            for i in 1..m {
                for j in 0..n {
                    y[i * n + j] = y[i * n + j] + x[(i - 1) * n + j] * sb[i];
                }
            }
            for i in 0..m - 1 {
                for j in 0..n {
                    y[i * n + j] = y[i * n + j] + x[(i + 1) * n + j] * sp[i];
                }
            }
        }
    }
    Tensor::from_vec(rs, out)
}

struct MatMulKernel;

impl Kernel for MatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ins = [ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3)];
        let out = with_field!(ins[0].dtype(), T => matmul_typed::<T>(ins))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("TridiagonalMatMul")
            .input("superdiag", ArgType::Attr("T"))
            .input("maindiag", ArgType::Attr("T"))
            .input("subdiag", ArgType::Attr("T"))
            .input("rhs", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", FIELDS)
            .shape_fn(shape_fn),
    );
    register_kernel("TridiagonalMatMul", |_| Ok(Box::new(MatMulKernel)));
}
