//! `SparseMatMul`: TensorFlow's float32 matrix product that takes float32 or bfloat16 operands
//! and hints that either is mostly zeros (`tf.matmul(a, b, a_is_sparse=True)` builds it, and
//! so does a product mixing bfloat16 with float32). The hints change TensorFlow's kernel, not
//! the product; weir's float32 kernel skips the zeros of a sparse left operand by itself.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Result, Shape, Tensor,
};

use super::cast::cast_tensor;

/// One `SparseMatMul` node's transposes.
struct SparseMatMulKernel {
    transpose_a: bool,
    transpose_b: bool,
}

impl Kernel for SparseMatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let as_f32 = |t: &Tensor| match t.dtype() {
            DType::F32 => Ok(t.clone()),
            _ => cast_tensor(t, DType::F32),
        };
        let (a, b) = (as_f32(ctx.input(0))?, as_f32(ctx.input(1))?);
        let (sa, sb) = (a.shape(), b.shape());
        for (i, s) in [(0, sa), (1, sb)] {
            if s.len() != 2 {
                return Err(Error::invalid_argument(format!(
                    "{} is not a matrix",
                    if i == 0 { "a" } else { "b" }
                )));
            }
        }
        let k_a = if self.transpose_a { sa[0] } else { sa[1] };
        let k_b = if self.transpose_b { sb[1] } else { sb[0] };
        if k_a != k_b {
            return Err(Error::invalid_argument(format!(
                "Matrix size incompatible: a: {}, b: {}",
                format_dims(sa),
                format_dims(sb)
            )));
        }
        let out = super::matmul::product2::<f32>(self.transpose_a, self.transpose_b, &a, &b)?;
        ctx.set_output(0, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SparseMatMulKernel {
        transpose_a: node.attr("transpose_a")?,
        transpose_b: node.attr("transpose_b")?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx.with_rank(0, 2)?;
    let b = ctx.with_rank(1, 2)?;
    let (ta, tb): (bool, bool) = (ctx.attr("transpose_a")?, ctx.attr("transpose_b")?);
    let (m, ka) = if ta {
        (a.dim(1), a.dim(0))
    } else {
        (a.dim(0), a.dim(1))
    };
    let (kb, n) = if tb {
        (b.dim(1), b.dim(0))
    } else {
        (b.dim(0), b.dim(1))
    };
    if let (Some(x), Some(y)) = (ka, kb) {
        if x != y {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {x} and {y} for 'SparseMatMul' with input shapes: {a}, {b}."
            )));
        }
    }
    ctx.set_output(0, Shape::new(vec![m, n]));
    Ok(())
}

/// `Ta` and `Tb`: float32 or bfloat16, float32 by default.
const OPERAND_TYPES: &[DType] = &[DType::F32, DType::BF16];

pub(super) fn register() {
    let flag = || Some(AttrValue::Bool(false));
    let mut def = OpDef::new("SparseMatMul")
        .input("a", ArgType::Attr("Ta"))
        .input("b", ArgType::Attr("Tb"))
        .output("product", ArgType::Fixed(DType::F32))
        .attr("transpose_a", AttrKind::Bool, flag())
        .attr("transpose_b", AttrKind::Bool, flag())
        .attr("a_is_sparse", AttrKind::Bool, flag())
        .attr("b_is_sparse", AttrKind::Bool, flag())
        .type_attr("Ta", OPERAND_TYPES)
        .type_attr("Tb", OPERAND_TYPES)
        .shape_fn(shape_fn);
    for a in def
        .attrs
        .iter_mut()
        .filter(|a| a.name == "Ta" || a.name == "Tb")
    {
        a.default = Some(AttrValue::Type(DType::F32));
    }
    register_op(def);
    register_kernel("SparseMatMul", make);
}
