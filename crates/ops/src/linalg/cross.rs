//! `Cross` (`tf.linalg.cross`): the pairwise cross product of the 3-vectors in the last
//! dimension of two tensors of the same shape, for every real number type.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output, Result,
    Shape, Tensor, TensorType,
};

/// `tf.linalg.cross(a, b)`: `a x b` for each pair of 3-vectors in the last dimension of `a`
/// and `b`, which have the same shape.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, linalg::cross};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = cross(constant(&g, [1.0f32, 0.0, 0.0])?, constant(&g, [0.0f32, 1.0, 0.0])?)?;
/// assert_eq!(Session::new(&g)?.eval(&x)?.to_vec::<f32>()?, vec![0.0, 0.0, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn cross(a: impl Into<Output>, b: impl Into<Output>) -> Result<Output> {
    let (a, b) = (a.into(), b.into());
    let g = crate::util::same_graph(&[&a, &b])?.clone();
    crate::new_op(&g, "Cross")
        .input(a)
        .input(b)
        .build()?
        .output(0)
}

/// `x1 y2 - x2 y1`, wrapping for integers as TensorFlow's kernel does in practice.
trait CrossTerm: TensorType + Copy {
    fn term(x1: Self, y2: Self, x2: Self, y1: Self) -> Self;
}

macro_rules! wrapping_terms {
    ($($t:ty),*) => {$(
        impl CrossTerm for $t {
            fn term(x1: $t, y2: $t, x2: $t, y1: $t) -> $t {
                x1.wrapping_mul(y2).wrapping_sub(x2.wrapping_mul(y1))
            }
        }
    )*};
}

wrapping_terms!(i8, i16, i32, i64, u8, u16);

impl CrossTerm for f32 {
    fn term(x1: f32, y2: f32, x2: f32, y1: f32) -> f32 {
        x1 * y2 - x2 * y1
    }
}

impl CrossTerm for f64 {
    fn term(x1: f64, y2: f64, x2: f64, y1: f64) -> f64 {
        x1 * y2 - x2 * y1
    }
}

fn cross_typed<T: CrossTerm>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    let mut out = Vec::with_capacity(x.len());
    for (u, v) in x.chunks_exact(3).zip(y.chunks_exact(3)) {
        out.push(T::term(u[1], v[2], u[2], v[1]));
        out.push(T::term(u[2], v[0], u[0], v[2]));
        out.push(T::term(u[0], v[1], u[1], v[0]));
    }
    Tensor::from_vec(a.shape(), out)
}

struct CrossKernel;

impl Kernel for CrossKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        if a.shape() != b.shape() {
            return Err(Error::invalid_argument(format!(
                "Both inputs must be of same shape: {} vs. {}",
                format_dims(a.shape()),
                format_dims(b.shape())
            )));
        }
        if a.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "Input must be at least 1D{}",
                format_dims(a.shape())
            )));
        }
        if a.shape().last() != Some(&3) {
            return Err(Error::failed_precondition(
                "Cross-products are only defined for 3-element vectors.",
            ));
        }
        let out = match a.dtype() {
            DType::F32 => cross_typed::<f32>(a, b)?,
            DType::F64 => cross_typed::<f64>(a, b)?,
            DType::I8 => cross_typed::<i8>(a, b)?,
            DType::I16 => cross_typed::<i16>(a, b)?,
            DType::I32 => cross_typed::<i32>(a, b)?,
            DType::I64 => cross_typed::<i64>(a, b)?,
            DType::U8 => cross_typed::<u8>(a, b)?,
            _ => cross_typed::<u16>(a, b)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// TensorFlow's: both inputs of rank >= 1, merged, with a last dimension of 3.
fn cross_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (a, b) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    for s in [&a, &b] {
        if s.rank() == Some(0) {
            return Err(Error::invalid_argument(
                "Shape must be at least rank 1 but is rank 0",
            ));
        }
    }
    let s = a.merge_with(&b)?;
    if let Some(d) = s.dim(-1).filter(|&d| d != 3) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 3 but is {d}"
        )));
    }
    let s = match s.dims() {
        Some(d) => {
            let mut d = d.to_vec();
            let r = d.len();
            d[r - 1] = Some(3);
            Shape::new(d)
        }
        None => s,
    };
    ctx.set_output(0, s);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Cross")
            .input("a", ArgType::Attr("T"))
            .input("b", ArgType::Attr("T"))
            .output("product", ArgType::Attr("T"))
            .type_attr("T", DType::REAL_NUMBER)
            .shape_fn(cross_shape_fn),
    );
    register_kernel("Cross", |_| Ok(Box::new(CrossKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crosses_rows_and_wraps_integers() {
        let a = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, i32::MAX, 0, 1]).unwrap();
        let b = Tensor::from_vec(&[2, 3], vec![4i32, 5, 6, 0, 2, 0]).unwrap();
        let x = cross_typed::<i32>(&a, &b).unwrap().to_vec::<i32>().unwrap();
        assert_eq!(x, vec![-3, 6, -3, -2, 0, i32::MAX.wrapping_mul(2)]);
    }
}
