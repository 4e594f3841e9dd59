//! Tensors made from a value and a shape: `Fill` (`tf.fill`, `tf.zeros`, `tf.ones`),
//! `ZerosLike`, `OnesLike` and `OneHot`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, scalar_of, ArgType, AttrKind, AttrValue, DType, Error, Graph, InferenceContext,
    Kernel, Node, OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, scalar_i64, to_i64s, IndexArg};

/// `tf.fill(dims, value)`: a tensor of shape `dims` with every element `value` (a scalar).
///
/// ```
/// # use weir_graph::{Graph, Shape};
/// # use weir_ops::array::{constant, fill};
/// let g = Graph::new();
/// let t = fill([2, 3], &constant(&g, 7i64)?)?;
/// assert_eq!(t.shape(), Shape::known(&[2, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn fill(dims: impl Into<IndexArg>, value: &Output) -> Result<Output> {
    let g = value.graph().clone();
    let d = dims.into().to_output(&g)?;
    crate::new_op(&g, "Fill")
        .input(d)
        .input(value)
        .build()?
        .output(0)
}

fn filled(g: &Graph, scope: &str, dtype: DType, shape: &[usize], one: bool) -> Result<Output> {
    let _scope = g.name_scope(scope);
    let v = match (dtype, one) {
        (DType::Bool, o) => Tensor::from(o),
        (DType::String, false) => Tensor::from(""),
        (dt, o) => scalar_of(dt, if o { 1.0 } else { 0.0 })?,
    };
    let value = crate::array::constant(g, v)?;
    fill(shape.iter().map(|&d| d as i64).collect::<Vec<_>>(), &value)
}

/// `tf.zeros(shape, dtype)`: zeros (`false`, `""`) of a known shape.
pub fn zeros(g: &Graph, dtype: DType, shape: &[usize]) -> Result<Output> {
    filled(g, "zeros", dtype, shape, false)
}

/// `tf.ones(shape, dtype)`: ones (`true`) of a known shape.
pub fn ones(g: &Graph, dtype: DType, shape: &[usize]) -> Result<Output> {
    filled(g, "ones", dtype, shape, true)
}

/// `tf.zeros_like(x)`: zeros of `x`'s run-time shape and dtype.
pub fn zeros_like(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    crate::new_op(&x.graph().clone(), "ZerosLike")
        .input(x)
        .build()?
        .output(0)
}

/// `tf.ones_like(x)`: ones of `x`'s run-time shape and dtype.
pub fn ones_like(x: impl Into<Output>) -> Result<Output> {
    let x = x.into();
    crate::new_op(&x.graph().clone(), "OnesLike")
        .input(x)
        .build()?
        .output(0)
}

/// The options of `tf.one_hot(indices, depth, on_value=1, off_value=0, axis=-1,
/// dtype=tf.float32)`.
#[derive(Clone, Debug)]
pub struct OneHot {
    depth: i64,
    on_value: f64,
    off_value: f64,
    axis: i64,
    dtype: DType,
}

impl OneHot {
    /// One-hot vectors of length `depth` as float32 1.0/0.0, along a new last axis.
    pub fn new(depth: i64) -> OneHot {
        OneHot {
            depth,
            on_value: 1.0,
            off_value: 0.0,
            axis: -1,
            dtype: DType::F32,
        }
    }

    /// The value at the index.
    pub fn on_value(mut self, v: f64) -> OneHot {
        self.on_value = v;
        self
    }

    /// The value elsewhere.
    pub fn off_value(mut self, v: f64) -> OneHot {
        self.off_value = v;
        self
    }

    /// Where the new axis goes (-1: last).
    pub fn axis(mut self, axis: i64) -> OneHot {
        self.axis = axis;
        self
    }

    /// The output dtype (numeric or bool; for bool, non-zero values mean `true`).
    pub fn dtype(mut self, dtype: DType) -> OneHot {
        self.dtype = dtype;
        self
    }

    /// Adds the node for `indices` (uint8, int32 or int64; out-of-range indices give all
    /// `off_value`).
    pub fn build(self, indices: impl Into<Output>) -> Result<Output> {
        let i = indices.into();
        let g = i.graph().clone();
        let _scope = g.name_scope("one_hot");
        let value = |v: f64| -> Result<Tensor> {
            if self.dtype == DType::Bool {
                Ok(Tensor::from(v != 0.0))
            } else {
                scalar_of(self.dtype, v)
            }
        };
        let depth = crate::array::constant(
            &g,
            i32::try_from(self.depth).map_err(|_| {
                Error::invalid_argument(format!("depth {} does not fit in int32", self.depth))
            })?,
        )?;
        let on = crate::array::constant(&g, value(self.on_value)?)?;
        let off = crate::array::constant(&g, value(self.off_value)?)?;
        crate::new_op(&g, "OneHot")
            .input(i)
            .input(depth)
            .input(on)
            .input(off)
            .attr("axis", self.axis)
            .build()?
            .output(0)
    }
}

/// `tf.one_hot(indices, depth)`: float32 one-hot vectors along a new last axis.
pub fn one_hot(indices: impl Into<Output>, depth: i64) -> Result<Output> {
    OneHot::new(depth).build(indices)
}

fn fill_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    if let Some(r) = ctx.input_shape(1).rank() {
        if r != 0 {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 0 but is rank {r} for 'Fill' (value has shape {})",
                ctx.input_shape(1)
            )));
        }
    }
    let out = match const_i64s(ctx, 0)? {
        Some(d) => Shape::new(check_dims(&d)?.into_iter().map(Some).collect::<Vec<_>>()),
        None => match ctx.input_partial_shape(0) {
            // Parts of the shape known at build time: `fill(stack([n, 1]), v)` is [?, 1].
            Some(p) => p.clone(),
            None => super::shape_util::unknown_dims(ctx.input_shape(0).dim(0)),
        },
    };
    ctx.set_output(0, out);
    Ok(())
}

fn check_dims(d: &[i64]) -> Result<Vec<usize>> {
    d.iter()
        .enumerate()
        .map(|(i, &v)| {
            usize::try_from(v).map_err(|_| {
                Error::invalid_argument(format!("Dimension {v} must be >= 0 (dims[{i}])"))
            })
        })
        .collect()
}

struct FillKernel;

impl Kernel for FillKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (d, v) = (ctx.input(0), ctx.input(1));
        if d.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "dims must be a vector, got shape {}",
                format_dims(d.shape())
            )));
        }
        if v.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "value must be a scalar, got shape {}",
                format_dims(v.shape())
            )));
        }
        let dims = check_dims(&to_i64s(d)?)?;
        let dt = v.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => Tensor::filled::<T>(&dims, v.to_scalar::<T>()?),
            _ => return Err(Error::invalid_argument(format!("Cannot fill with {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

struct LikeKernel(bool);

/// The scalar 1 of `dt` (`true` for bool), for every dtype `OnesLike` takes.
fn one_of(dt: DType) -> Result<Tensor> {
    crate::math::cast::cast_tensor(&Tensor::from(1i32), dt)
}

/// `OnesLike`'s types, in the order of TensorFlow's op registration.
const ONES_LIKE_TYPES: &[DType] = &[
    DType::BF16,
    DType::F16,
    DType::F32,
    DType::F64,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::I32,
    DType::U32,
    DType::I64,
    DType::U64,
    DType::C64,
    DType::C128,
    DType::Bool,
];

impl Kernel for LikeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let (dt, shape) = (x.dtype(), x.shape().to_vec());
        let out = if self.0 {
            let one = one_of(dt)?;
            weir_graph::match_data_dtype!(dt, T => Tensor::filled::<T>(&shape, one.to_scalar::<T>()?),
                _ => return Err(Error::invalid_argument(format!("OnesLike does not support {dt}"))))
        } else {
            Tensor::zeros(dt, &shape)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn one_hot_axis(axis: i64, rank: usize) -> Result<usize> {
    if axis == -1 {
        return Ok(rank);
    }
    if axis < 0 || axis as usize > rank {
        return Err(Error::invalid_argument(format!(
            "Expected axis to be -1 or between [0, {}).  But received: {axis}",
            rank + 1
        )));
    }
    Ok(axis as usize)
}

fn one_hot_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let axis: i64 = ctx.attr("axis")?;
    let i = ctx.input_shape(0).clone();
    let depth = ctx
        .input_const(1)
        .map(|t| scalar_i64(t, "depth"))
        .transpose()?;
    if let Some(d) = depth {
        if d < 0 {
            return Err(Error::invalid_argument(format!(
                "depth must be non-negative, got: {d}"
            )));
        }
    }
    let out = match i.dims() {
        Some(dims) => {
            let a = one_hot_axis(axis, dims.len())?;
            let mut d = dims.to_vec();
            d.insert(a, depth.map(|d| d as usize));
            Shape::new(d)
        }
        None => Shape::unknown(),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn one_hot_fill<T: TensorType>(
    idx: &[i64],
    prefix: usize,
    depth: usize,
    suffix: usize,
    on: T,
    off: T,
) -> Vec<T> {
    let mut out = vec![off; prefix * depth * suffix];
    for p in 0..prefix {
        for s in 0..suffix {
            let v = idx[p * suffix + s];
            if v >= 0 && (v as usize) < depth {
                out[(p * depth + v as usize) * suffix + s] = on.clone();
            }
        }
    }
    out
}

struct OneHotKernel(i64);

impl Kernel for OneHotKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (i, d, on, off) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let depth = scalar_i64(d, "depth")?;
        if depth < 0 {
            return Err(Error::invalid_argument(format!(
                "depth must be non-negative, got: {depth}"
            )));
        }
        for (t, what) in [(on, "on_value"), (off, "off_value")] {
            if t.rank() != 0 {
                return Err(Error::invalid_argument(format!(
                    "{what} must be a scalar, but got: {}",
                    format_dims(t.shape())
                )));
            }
        }
        let idx: Vec<i64> = match i.dtype() {
            DType::U8 => i.as_slice::<u8>()?.iter().map(|&v| v as i64).collect(),
            _ => to_i64s(i)?,
        };
        let axis = one_hot_axis(self.0, i.rank())?;
        let prefix: usize = i.shape()[..axis].iter().product();
        let suffix: usize = i.shape()[axis..].iter().product();
        let mut shape = i.shape().to_vec();
        shape.insert(axis, depth as usize);
        let dt = on.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => Tensor::from_vec(&shape,
            one_hot_fill(&idx, prefix, depth as usize, suffix, on.to_scalar::<T>()?, off.to_scalar::<T>()?))?,
            _ => return Err(Error::invalid_argument(format!("OneHot does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_one_hot(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(OneHotKernel(node.attr("axis")?)))
}

pub(super) fn register() {
    register_op(
        OpDef::new("Fill")
            .input("dims", ArgType::Attr("index_type"))
            .input("value", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("index_type", &[DType::I32, DType::I64])
            .shape_fn(fill_shape_fn),
    );
    register_kernel("Fill", |_| Ok(Box::new(FillKernel)));
    for (name, one, types) in [
        ("ZerosLike", false, DType::ALL_DATA),
        ("OnesLike", true, ONES_LIKE_TYPES),
    ] {
        register_op(
            OpDef::new(name)
                .input("x", ArgType::Attr("T"))
                .output("y", ArgType::Attr("T"))
                .type_attr("T", types)
                .shape_fn(|ctx| {
                    let s = ctx.input_shape(0).clone();
                    ctx.set_output(0, s);
                    Ok(())
                }),
        );
        if one {
            register_kernel(name, |_| Ok(Box::new(LikeKernel(true))));
        } else {
            register_kernel(name, |_| Ok(Box::new(LikeKernel(false))));
        }
    }
    register_op(
        OpDef::new("OneHot")
            .input("indices", ArgType::Attr("TI"))
            .input("depth", ArgType::Fixed(DType::I32))
            .input("on_value", ArgType::Attr("T"))
            .input("off_value", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("TI", &[DType::U8, DType::I32, DType::I64])
            .attr("axis", AttrKind::Int, Some(AttrValue::Int(-1)))
            .shape_fn(one_hot_shape_fn),
    );
    register_kernel("OneHot", make_one_hot);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hot_layouts() {
        // indices [2] = [1, 5] with depth 3 along the last axis: row 2 is all off.
        assert_eq!(one_hot_fill(&[1, 5], 2, 3, 1, 1, 0), vec![0, 1, 0, 0, 0, 0]);
        // Along axis 0: [depth, n].
        assert_eq!(one_hot_fill(&[0, 2], 1, 3, 2, 1, 0), vec![1, 0, 0, 0, 0, 1]);
        assert_eq!(one_hot_fill(&[-1], 1, 2, 1, 7, 3), vec![3, 3]);
        assert_eq!(one_hot_axis(-1, 2).unwrap(), 2);
        assert_eq!(
            one_hot_axis(5, 1).unwrap_err().message(),
            "Expected axis to be -1 or between [0, 2).  But received: 5"
        );
        assert!(check_dims(&[2, -1]).is_err());
    }
}
