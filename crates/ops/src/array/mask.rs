//! Masks and set-like ops: `Where` (coordinates of true elements), `Unique`, and the
//! composites `boolean_mask` and `sequence_mask`, built from the same ops TensorFlow's Python
//! layer uses so graphs have TensorFlow's structure.

use std::collections::HashMap;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor, TensorType,
};

use super::shape_util::known_product;
use super::unique_key::{match_unique_dtype, no_kernel, UniqueKey};

/// `tf.where(condition)` with one argument (op `Where`): the coordinates of the true (non-zero)
/// elements, as an int64 `[num_true, rank]` matrix in row-major order.
pub fn where_indices(condition: impl Into<Output>) -> Result<Output> {
    let c = condition.into();
    crate::new_op(&c.graph().clone(), "Where")
        .input(c)
        .build()?
        .output(0)
}

/// `tf.unique(x)`: the distinct elements of a vector in order of first appearance, and for each
/// element of `x` the index of its value in them (int32). Returns `(y, idx)`.
pub fn unique(x: impl Into<Output>) -> Result<(Output, Output)> {
    unique_typed(x, DType::I32)
}

/// `tf.unique(x, out_idx)` with an int32 or int64 `idx`.
pub fn unique_typed(x: impl Into<Output>, out_idx: DType) -> Result<(Output, Output)> {
    let x = x.into();
    let op = crate::new_op(&x.graph().clone(), "Unique")
        .input(x)
        .attr("out_idx", out_idx)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.boolean_mask(tensor, mask, axis)`: the entries of `tensor` where `mask` (a bool tensor
/// matching `tensor`'s dims from `axis` on) is true, flattened into one dim at `axis`.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{boolean_mask, constant};
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[3, 2], vec![1, 2, 3, 4, 5, 6])?)?;
/// let m = constant(&g, [true, false, true])?;
/// let y = boolean_mask(&x, &m, 0)?;
/// assert_eq!(y.shape(), Shape::new(vec![None, Some(2)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn boolean_mask(tensor: &Output, mask: &Output, axis: i64) -> Result<Output> {
    let g = crate::util::same_graph(&[tensor, mask])?.clone();
    let _scope = g.name_scope("boolean_mask");
    let ms = mask.shape();
    let Some(nm) = ms.rank() else {
        return Err(Error::invalid_argument(
            "Number of mask dimensions must be specified, even if some dimensions are None.  E.g. shape=[None] is ok, but shape=None is not.",
        ));
    };
    if nm == 0 {
        return Err(Error::invalid_argument("mask cannot be scalar."));
    }
    if mask.dtype() != DType::Bool {
        return Err(Error::invalid_argument(format!(
            "mask must be a bool tensor, got {}",
            mask.dtype()
        )));
    }
    let ts = tensor.shape();
    let axis = if axis < 0 {
        let r = ts.rank().ok_or_else(|| {
            Error::invalid_argument("A negative axis needs a tensor of known rank")
        })? as i64;
        axis + r
    } else {
        axis
    };
    let a = axis.max(0) as usize;
    if let Some(td) = ts.dims() {
        if td.len() < a + nm {
            return Err(Error::invalid_argument(format!(
                "Shapes {ts} and {ms} are incompatible: the mask needs dims {a}..{} of the tensor",
                a + nm
            )));
        }
        let part = Shape::new(td[a..a + nm].to_vec());
        if !part.is_compatible_with(&ms) {
            return Err(Error::invalid_argument(format!(
                "Shapes {part} and {ms} are incompatible"
            )));
        }
    }
    let (flat_tensor, flat_mask) = if nm == 1 {
        (tensor.clone(), mask.clone())
    } else {
        (
            flatten_masked_dims(tensor, a, nm)?,
            crate::array::reshape(mask, [-1])?,
        )
    };
    let idx = crate::array::squeeze(where_indices(&flat_mask)?, &[1])?;
    crate::array::gather(&flat_tensor, &idx, a as i64)
}

/// `tensor` with dims `a..a+n` merged into one; a constant target shape when the static shape
/// allows it, else computed from `tf.shape` as TensorFlow does.
fn flatten_masked_dims(tensor: &Output, a: usize, n: usize) -> Result<Output> {
    if let Some(td) = tensor.shape().dims() {
        let merged = known_product(&td[a..a + n]);
        let mut target: Vec<Option<usize>> = td[..a].to_vec();
        target.push(merged);
        target.extend_from_slice(&td[a + n..]);
        if target.iter().filter(|d| d.is_none()).count() <= 1 {
            let t: Vec<i64> = target.iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
            return crate::array::reshape(tensor, t);
        }
    }
    let s = crate::array::shape(tensor)?;
    let head = crate::array::strided_slice(&s, &[0], &[a as i64], &[1])?;
    let mid = crate::array::strided_slice(&s, &[a as i64], &[(a + n) as i64], &[1])?;
    let tail =
        crate::array::StridedSlice::new()
            .end_mask(1)
            .build(&s, &[(a + n) as i64], &[0], &[1])?;
    let lead = crate::math::Reduce::prod()
        .axis(0)
        .keep_dims(true)
        .build(&mid)?;
    let target = crate::array::concat(&[head, lead, tail], 0)?;
    crate::array::reshape(tensor, target)
}

/// The options of `tf.sequence_mask(lengths, maxlen=None, dtype=tf.bool)`.
#[derive(Clone, Debug, Default)]
pub struct SequenceMask {
    maxlen: Option<i64>,
    dtype: Option<DType>,
}

impl SequenceMask {
    /// `maxlen` = the largest length, output bool.
    pub fn new() -> SequenceMask {
        SequenceMask::default()
    }

    /// The length of the last output dim.
    pub fn maxlen(mut self, n: i64) -> SequenceMask {
        self.maxlen = Some(n);
        self
    }

    /// The output dtype (bool by default; others get 1/0 through `Cast`).
    pub fn dtype(mut self, dt: DType) -> SequenceMask {
        self.dtype = Some(dt);
        self
    }

    /// Adds the mask of `lengths`: `mask[i..., j] = j < lengths[i...]`.
    pub fn build(self, lengths: impl Into<Output>) -> Result<Output> {
        let lengths = lengths.into();
        let g = lengths.graph().clone();
        let _scope = g.name_scope("SequenceMask");
        let lt = lengths.dtype();
        if !lt.is_integer() {
            return Err(Error::invalid_argument(format!(
                "lengths must be integers, got {lt}"
            )));
        }
        let maxlen = match self.maxlen {
            Some(n) => crate::array::constant(&g, weir_graph::scalar_of(lt, n as f64)?)?,
            None => {
                let m = crate::math::reduce_max(&lengths, crate::math::Axes::All)?;
                crate::math::maximum(
                    crate::array::constant(&g, weir_graph::scalar_of(lt, 0.0)?)?,
                    m,
                )?
            }
        };
        let zero = crate::array::constant(&g, weir_graph::scalar_of(lt, 0.0)?)?;
        let one = crate::array::constant(&g, weir_graph::scalar_of(lt, 1.0)?)?;
        let row = crate::math::range_from(&zero, &maxlen, &one)?;
        let matrix = crate::array::expand_dims(&lengths, -1)?;
        let result = crate::math::less(&row, &matrix)?;
        match self.dtype {
            Some(dt) if dt != DType::Bool => crate::math::cast(&result, dt),
            _ => Ok(result),
        }
    }
}

/// `tf.sequence_mask(lengths, maxlen)`: a bool mask of shape `lengths.shape + [maxlen]`.
pub fn sequence_mask(lengths: impl Into<Output>, maxlen: Option<i64>) -> Result<Output> {
    let m = SequenceMask::new();
    match maxlen {
        Some(n) => m.maxlen(n).build(lengths),
        None => m.build(lengths),
    }
}

fn where_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let r = ctx.input_shape(0).rank();
    ctx.set_output(0, Shape::new(vec![None, r]));
    Ok(())
}

fn coordinates<T: TensorType + PartialEq>(x: &Tensor, zero: T) -> Result<Tensor> {
    let xs = x.as_slice::<T>()?;
    let shape = x.shape();
    let r = shape.len();
    let n = xs.iter().filter(|v| **v != zero).count();
    let mut out: Vec<i64> = Vec::with_capacity(n * r);
    for (flat, v) in xs.iter().enumerate() {
        if *v == zero {
            continue;
        }
        let start = out.len();
        out.resize(start + r, 0);
        let mut f = flat;
        for j in (0..r).rev() {
            out[start + j] = (f % shape[j]) as i64;
            f /= shape[j];
        }
    }
    Tensor::from_vec(&[n, r], out)
}

struct WhereKernel;

impl Kernel for WhereKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let dt = x.dtype();
        let out = match dt {
            DType::Bool => coordinates(x, false)?,
            // TensorFlow's op def takes float16, but its CPU kernel refuses it.
            DType::F16 => return Err(Error::unimplemented(
                "No WhereOp available for float16/half type on CPU; dying in CPU WhereOp to avoid silently creating costly copies from device.",
            )),
            DType::BF16 => coordinates(x, weir_graph::bf16::ZERO)?,
            DType::C64 => coordinates(x, weir_graph::Complex::<f32>::new(0.0, 0.0))?,
            DType::C128 => coordinates(x, weir_graph::Complex::<f64>::new(0.0, 0.0))?,
            _ => weir_graph::match_real_dtype!(dt, T => coordinates::<T>(x, T::zero())?,
                _ => return Err(Error::invalid_argument(format!("Where does not support {dt}")))),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn unique_values<T: UniqueKey>(xs: &[T]) -> (Vec<T>, Vec<i64>) {
    let mut seen: HashMap<T::Key, i64> = HashMap::with_capacity(xs.len());
    let mut y = Vec::new();
    let mut idx = Vec::with_capacity(xs.len());
    for v in xs {
        let next = y.len() as i64;
        let i = match v.key() {
            Some(k) => *seen.entry(k).or_insert(next),
            None => next,
        };
        if i == next {
            y.push(v.clone());
        }
        idx.push(i);
    }
    (y, idx)
}

struct UniqueKernel(DType);

impl Kernel for UniqueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        if x.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "unique expects a 1D vector, got shape {}",
                format_dims(x.shape())
            )));
        }
        fn go<T: UniqueKey>(x: &Tensor) -> Result<(Tensor, Vec<i64>)> {
            let (y, idx) = unique_values(x.as_slice::<T>()?);
            Ok((Tensor::from_vec(&[y.len()], y)?, idx))
        }
        let dt = x.dtype();
        let (y, idx) = match_unique_dtype!(dt, false, T => go::<T>(x)?,
            _ => return Err(no_kernel(ctx.node(), dt)));
        let idx = if self.0 == DType::I32 {
            Tensor::from(idx.into_iter().map(|i| i as i32).collect::<Vec<_>>())
        } else {
            Tensor::from(idx)
        };
        ctx.set_output(0, y);
        ctx.set_output(1, idx);
        Ok(())
    }
}

fn unique_shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.with_rank(0, 1)?;
    let t: DType = ctx.attr("out_idx")?;
    if !matches!(t, DType::I32 | DType::I64) {
        return Err(Error::invalid_argument(format!(
            "out_idx must be int32 or int64, got {t}"
        )));
    }
    ctx.set_output(0, Shape::new(vec![None]));
    ctx.set_output(1, s);
    Ok(())
}

fn make_unique(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(UniqueKernel(node.attr("out_idx")?)))
}

/// `Where`'s types, in the order of TensorFlow's op registration (less the quantized ones).
const WHERE_TYPES: &[DType] = &[
    DType::F32,
    DType::F64,
    DType::I32,
    DType::U8,
    DType::I16,
    DType::I8,
    DType::C64,
    DType::I64,
    DType::BF16,
    DType::U16,
    DType::C128,
    DType::F16,
    DType::U32,
    DType::U64,
    DType::Bool,
];

pub(super) fn register() {
    register_op(
        OpDef::new("Where")
            .input("input", ArgType::Attr("T"))
            .output("index", ArgType::Fixed(DType::I64))
            .type_attr("T", WHERE_TYPES)
            .shape_fn(where_shape_fn),
    );
    register_kernel("Where", |_| Ok(Box::new(WhereKernel)));
    register_op(
        OpDef::new("Unique")
            .input("x", ArgType::Attr("T"))
            .output("y", ArgType::Attr("T"))
            .output("idx", ArgType::Attr("out_idx"))
            .type_attr("T", DType::ALL_DATA)
            .attr("out_idx", AttrKind::Type, Some(AttrValue::Type(DType::I32)))
            .shape_fn(unique_shape_fn),
    );
    register_kernel("Unique", make_unique);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_keeps_first_order_and_merges_signed_zero() {
        let (y, idx) = unique_values(&[1, 1, 2, 4, 4, 4, 7, 8, 8]);
        assert_eq!(y, vec![1, 2, 4, 7, 8]);
        assert_eq!(idx, vec![0, 0, 1, 2, 2, 2, 3, 4, 4]);
        let (y, idx) = unique_values(&[0.0f32, -0.0, f32::NAN, f32::NAN]);
        assert_eq!(y.len(), 3);
        assert_eq!(idx, vec![0, 0, 1, 2]);
    }

    #[test]
    fn coordinates_are_row_major() {
        let x = Tensor::from_vec(&[2, 2], vec![true, false, false, true]).unwrap();
        let c = coordinates(&x, false).unwrap();
        assert_eq!(c.shape(), &[2, 2]);
        assert_eq!(c.to_vec::<i64>().unwrap(), vec![0, 0, 1, 1]);
        let s = coordinates(&Tensor::from(3i32), 0).unwrap();
        assert_eq!(s.shape(), &[1, 0]);
    }
}
