//! `Bitcast` (`tf.bitcast`): the bytes of a tensor read as another numeric type; and
//! `BroadcastArgs` (`tf.broadcast_dynamic_shape`): the broadcast of two shape vectors.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, LeBytes, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

use super::shape_util::to_i64s;

/// `tf.bitcast(input, type)` (op `Bitcast`): the same bytes as `type` elements. A wider
/// `type` consumes the last dim (which must hold exactly the ratio); a narrower one adds a
/// last dim of the ratio.
pub fn bitcast(input: impl Into<Output>, dtype: DType) -> Result<Output> {
    let x = input.into();
    let g = x.graph().clone();
    crate::new_op(&g, "Bitcast")
        .input(x)
        .attr("type", dtype)
        .build()?
        .output(0)
}

/// `tf.broadcast_dynamic_shape(shape_x, shape_y)` (op `BroadcastArgs`): the shape two
/// tensors of these (1-D int32/int64) shapes broadcast to.
pub fn broadcast_dynamic_shape(
    shape_x: impl Into<Output>,
    shape_y: impl Into<Output>,
) -> Result<Output> {
    let x = shape_x.into();
    let g = x.graph().clone();
    crate::new_op(&g, "BroadcastArgs")
        .input(x)
        .input(shape_y.into())
        .build()?
        .output(0)
}

/// TensorFlow's Bitcast types (less the quantized ones, which weir does not have).
const BITCAST_TYPES: &[DType] = &[
    DType::BF16,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I64,
    DType::I32,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::I8,
    DType::I16,
    DType::C64,
    DType::C128,
];

fn to_bytes<T: LeBytes>(x: &Tensor) -> Result<Vec<u8>> {
    let xs = x.as_slice::<T>()?;
    let mut out = Vec::with_capacity(xs.len() * T::SIZE);
    for &v in xs {
        v.put(&mut out);
    }
    Ok(out)
}

fn from_bytes<T: LeBytes>(b: &[u8], shape: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(shape, b.chunks_exact(T::SIZE).map(T::get).collect())
}

fn size_of(dt: DType) -> Result<usize> {
    dt.size_of()
        .ok_or_else(|| Error::invalid_argument(format!("Bitcast does not support {dt}")))
}

/// The output shape of a bitcast from `from` to `to` of an input of `shape`.
fn bitcast_shape(shape: &[usize], from: DType, to: DType) -> Result<Vec<usize>> {
    let (a, b) = (size_of(from)?, size_of(to)?);
    let fail = || {
        Error::invalid_argument(format!(
            "Cannot bitcast from {} to {}",
            from.proto_number(),
            to.proto_number()
        ))
    };
    let mut out = shape.to_vec();
    if a > b {
        out.push(a / b);
    } else if a < b {
        if out.last() != Some(&(b / a)) {
            return Err(fail());
        }
        out.pop();
    }
    Ok(out)
}

struct BitcastKernel {
    to: DType,
}

impl Kernel for BitcastKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let from = x.dtype();
        let shape = bitcast_shape(x.shape(), from, self.to)?;
        let bytes = weir_graph::match_le_dtype!(from,
            T => to_bytes::<T>(x)?,
            _ => return Err(Error::invalid_argument(format!("Bitcast does not support {from}"))));
        let to = self.to;
        let out = weir_graph::match_le_dtype!(to,
            T => from_bytes::<T>(&bytes, &shape)?,
            _ => return Err(Error::invalid_argument(format!("Bitcast does not support {to}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn bitcast_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let (from, to): (DType, DType) = (ctx.attr("T")?, ctx.attr("type")?);
    let (a, b) = (size_of(from)?, size_of(to)?);
    let x = ctx.input_shape(0).clone();
    let Some(dims) = x.dims() else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let mut out = dims.to_vec();
    if a > b {
        out.push(Some(a / b));
    } else if a < b {
        let fail = |msg: String| {
            Error::invalid_argument(format!(
                "Cannot bitcast from {} to {} due to shape. {msg}",
                from.proto_number(),
                to.proto_number()
            ))
        };
        match out.last() {
            // TensorFlow's shape function asks for rank >= 1 in its generic words.
            None => {
                return Err(Error::invalid_argument(
                    "Shape must be at least rank 1 but is rank 0",
                ))
            }
            Some(Some(d)) if *d != b / a => {
                return Err(fail(format!("{d} does not match {}", b / a)))
            }
            _ => {}
        }
        out.pop();
    }
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

/// Numpy's broadcast of two shapes, or TensorFlow's "Incompatible shapes" error.
fn broadcast(a: &[i64], b: &[i64]) -> Result<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0i64; n];
    for i in 0..n {
        let x = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let y = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = if x == y || y == 1 {
            x
        } else if x == 1 {
            y
        } else {
            let show = |v: &[i64]| {
                let parts: Vec<String> = v.iter().map(i64::to_string).collect();
                format!("[{}]", parts.join(","))
            };
            return Err(Error::invalid_argument(format!(
                "Incompatible shapes: {} vs. {}",
                show(a),
                show(b)
            )));
        };
    }
    Ok(out)
}

struct BroadcastArgsKernel;

impl Kernel for BroadcastArgsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        for i in 0..2 {
            let s = ctx.input(i);
            if s.rank() != 1 {
                return Err(Error::invalid_argument(format!(
                    "In[{i}] must be a vector.{}",
                    format_dims(s.shape())
                )));
            }
        }
        let out = broadcast(&to_i64s(ctx.input(0))?, &to_i64s(ctx.input(1))?)?;
        let t = if ctx.input(0).dtype() == DType::I64 {
            Tensor::from(out)
        } else {
            Tensor::from(out.into_iter().map(|v| v as i32).collect::<Vec<_>>())
        };
        ctx.set_output(0, t);
        Ok(())
    }
}

fn broadcast_args_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let a = ctx.with_rank(0, 1)?;
    let b = ctx.with_rank(1, 1)?;
    let n = match (a.dim(0), b.dim(0)) {
        (Some(x), Some(y)) => Some(x.max(y)),
        _ => None,
    };
    ctx.set_output(0, Shape::new(vec![n]));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("Bitcast")
            .input("input", ArgType::Attr("T"))
            .output("output", ArgType::Attr("type"))
            .type_attr("T", BITCAST_TYPES)
            .type_attr("type", BITCAST_TYPES)
            .shape_fn(bitcast_shape_fn),
    );
    register_kernel("Bitcast", |n| {
        Ok(Box::new(BitcastKernel {
            to: n.attr("type")?,
        }))
    });
    register_op(
        OpDef::new("BroadcastArgs")
            .input("s0", ArgType::Attr("T"))
            .input("s1", ArgType::Attr("T"))
            .output("r0", ArgType::Attr("T"))
            .type_attr("T", &[DType::I32, DType::I64])
            .shape_fn(broadcast_args_shape_fn),
    );
    register_kernel("BroadcastArgs", |_| Ok(Box::new(BroadcastArgsKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_like_numpy() {
        assert_eq!(broadcast(&[2, 1], &[4, 1, 3]).unwrap(), vec![4, 2, 3]);
        assert_eq!(broadcast(&[0, 1], &[1, 4]).unwrap(), vec![0, 4]);
        assert_eq!(
            broadcast(&[2, 2], &[4, 1, 3]).unwrap_err().message(),
            "Incompatible shapes: [2,2] vs. [4,1,3]"
        );
    }

    #[test]
    fn bitcast_shapes() {
        assert_eq!(
            bitcast_shape(&[2], DType::F32, DType::I16).unwrap(),
            vec![2, 2]
        );
        assert_eq!(
            bitcast_shape(&[3, 2], DType::I16, DType::I32).unwrap(),
            vec![3]
        );
        assert!(bitcast_shape(&[3], DType::I16, DType::I32).is_err());
        let b = to_bytes::<f32>(&Tensor::from(vec![1.0f32])).unwrap();
        assert_eq!(b, vec![0, 0, 128, 63]);
    }
}
