//! `LinSpace` (`tf.lin_space`): `num` evenly spaced values from `start` to `stop`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrValue, DType, Error, InferenceContext, Kernel, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::shape_util::{const_i64s, to_i64s};

/// `tf.lin_space(start, stop, num)`: a vector of `num` values from `start` to `stop` (float
/// scalars of one dtype; `num` an int32 or int64 scalar, at least 1) in equal steps, the last
/// exactly `stop`. TensorFlow 2's `tf.linspace` gives the same values for scalar bounds.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::{constant, lin_space};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let v = lin_space(constant(&g, 0.0f32)?, constant(&g, 1.0f32)?, constant(&g, 5)?)?;
/// assert_eq!(Session::new(&g)?.eval(&v)?.to_vec::<f32>()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn lin_space(
    start: impl Into<Output>,
    stop: impl Into<Output>,
    num: impl Into<Output>,
) -> Result<Output> {
    let (a, b, n) = (start.into(), stop.into(), num.into());
    let g = crate::util::same_graph(&[&a, &b, &n])?.clone();
    crate::new_op(&g, "LinSpace")
        .input(a)
        .input(b)
        .input(n)
        .build()?
        .output(0)
}

fn values<T: num_traits::Float + weir_graph::TensorType>(
    start: T,
    stop: T,
    num: usize,
) -> Result<Vec<T>> {
    let mut v = crate::array::alloc_filled(&[num], num, start, T::DTYPE)?;
    if num > 1 {
        let steps = T::from(num - 1).unwrap_or_else(T::one);
        let step = (stop - start) / steps;
        for (i, x) in v.iter_mut().enumerate().take(num - 1) {
            *x = start + step * T::from(i).unwrap_or_else(<T as num_traits::Zero>::zero);
        }
        v[num - 1] = stop;
    }
    Ok(v)
}

struct LinSpaceKernel;

impl Kernel for LinSpaceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        for (i, what) in ["start", "stop", "num"].iter().enumerate() {
            let t = ctx.input(i);
            if t.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "{what} must be a scalar, not shape {}",
                    format_dims(t.shape())
                )));
            }
        }
        let num = to_i64s(ctx.input(2))?[0];
        if num <= 0 {
            return Err(Error::invalid_argument(format!("Requires num > 0: {num}")));
        }
        let n = num as usize;
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = match a.dtype() {
            DType::F64 => Tensor::from(values(a.to_scalar::<f64>()?, b.to_scalar::<f64>()?, n)?),
            _ => Tensor::from(values(a.to_scalar::<f32>()?, b.to_scalar::<f32>()?, n)?),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for i in 0..3 {
        ctx.with_rank(i, 0)?;
    }
    let n = match const_i64s(ctx, 2)? {
        Some(v) => {
            if v[0] <= 0 {
                return Err(Error::invalid_argument(format!(
                    "Requires num > 0: {}",
                    v[0]
                )));
            }
            Some(v[0] as usize)
        }
        None => None,
    };
    ctx.set_output(0, Shape::new(vec![n]));
    Ok(())
}

pub(super) fn register() {
    let mut def = OpDef::new("LinSpace")
        .input("start", ArgType::Attr("T"))
        .input("stop", ArgType::Attr("T"))
        .input("num", ArgType::Attr("Tidx"))
        .output("output", ArgType::Attr("T"))
        .type_attr("T", DType::FLOAT)
        .type_attr("Tidx", &[DType::I32, DType::I64])
        .shape_fn(shape_fn);
    // `Tidx: {int32, int64} = DT_INT32`.
    if let Some(a) = def.attrs.iter_mut().find(|a| a.name == "Tidx") {
        a.default = Some(AttrValue::Type(DType::I32));
    }
    register_op(def);
    register_kernel("LinSpace", |_| Ok(Box::new(LinSpaceKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_end_exactly_at_stop() {
        assert_eq!(
            values(10.0f64, -5.0, 4).unwrap(),
            vec![10.0, 5.0, 0.0, -5.0]
        );
        assert_eq!(values(3.0f32, 7.0, 1).unwrap(), vec![3.0]);
        let v = values(0.0f32, 1.0, 7).unwrap();
        assert_eq!(v[6], 1.0);
    }
}
