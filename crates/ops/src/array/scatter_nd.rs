//! `ScatterNd` (`tf.scatter_nd`): updates summed into a zero tensor of a given shape at the
//! coordinates in `indices`. The shape, the geometry and every index are checked, in
//! TensorFlow's order and words, before the output is allocated or written.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, Bytes, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, to_i64s};
use crate::math::Arith;

/// `tf.scatter_nd(indices, updates, shape)`: a zero tensor of `shape` (an int32 or int64
/// vector) with each `updates` slice added at the coordinate given by the innermost dim of
/// `indices`; duplicate coordinates are summed, out-of-range ones are InvalidArgument.
///
/// ```
/// # use weir_graph::{Graph, Shape, Tensor};
/// # use weir_ops::array::{constant, scatter_nd};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let indices = constant(&g, Tensor::from_vec(&[3, 1], vec![4, 1, 4])?)?;
/// let updates = constant(&g, Tensor::from(vec![1.0f32, 2.0, 3.0]))?;
/// let out = scatter_nd(&indices, &updates, constant(&g, Tensor::from(vec![6]))?)?;
/// assert_eq!(out.shape(), Shape::known(&[6]));
/// let v = Session::new(&g)?.eval(&out)?.to_vec::<f32>()?;
/// assert_eq!(v, vec![0.0, 2.0, 0.0, 0.0, 4.0, 0.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn scatter_nd(
    indices: impl Into<Output>,
    updates: impl Into<Output>,
    shape: impl Into<Output>,
) -> Result<Output> {
    let (i, u, s) = (indices.into(), updates.into(), shape.into());
    let g = crate::util::same_graph(&[&i, &u, &s])?.clone();
    crate::new_op(&g, "ScatterNd")
        .input(i)
        .input(u)
        .input(s)
        .build()?
        .output(0)
}

/// The dims of a shape given as values (TensorFlow's `TensorShapeUtils::MakeShape`): negative
/// dims and element counts past `i64::MAX` are InvalidArgument.
fn make_shape(v: &[i64]) -> Result<Vec<usize>> {
    let mut n: i64 = 1;
    let mut dims = Vec::with_capacity(v.len());
    for &d in v {
        let du = usize::try_from(d)
            .map_err(|_| Error::invalid_argument(format!("Dimension {d} must be >= 0")))?;
        n = n.checked_mul(d).ok_or_else(|| {
            let shown: Vec<String> = v.iter().map(i64::to_string).collect();
            Error::invalid_argument(format!(
                "Shape [{}] would have more than 2**63 - 1 elements",
                shown.join(",")
            ))
        })?;
        dims.push(du);
    }
    Ok(dims)
}

/// A buffer of `n` copies of `fill` for a tensor of `shape`; a size the allocator refuses is
/// ResourceExhausted in TensorFlow's words instead of an abort.
pub(crate) fn alloc_filled<T: Clone>(
    shape: &[usize],
    n: usize,
    fill: T,
    dtype: DType,
) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::resource_exhausted(format!(
            "OOM when allocating tensor with shape{} and type {dtype} on \
             /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
            format_dims(shape)
        ))
    })?;
    v.resize(n, fill);
    Ok(v)
}

fn geometry_error(ix: usize, shape: &[usize], outer: usize, us: &[usize]) -> Error {
    Error::invalid_argument(format!(
        "Dimensions [{ix},{}) of input[shape={}] must match dimensions [{outer},{}) of \
         updates[shape={}]",
        shape.len(),
        format_dims(shape),
        us.len(),
        format_dims(us)
    ))
}

/// The flat slice offset of each index row, every coordinate checked against `shape`.
fn slice_offsets(idx: &[i64], is: &[usize], shape: &[usize]) -> Result<Vec<usize>> {
    super::gather::index_row_offsets(idx, is, shape, "shape")
}

fn scatter<T: TensorType + Default>(
    updates: &Tensor,
    rows: &[usize],
    shape: &[usize],
    n: usize,
    inner: usize,
    add: impl Fn(&T, &T) -> T,
) -> Result<Tensor> {
    let u = updates.as_slice::<T>()?;
    let mut out = alloc_filled(shape, n, T::default(), updates.dtype())?;
    for (r, &off) in rows.iter().enumerate() {
        let dst = &mut out[off * inner..(off + 1) * inner];
        for (o, v) in dst.iter_mut().zip(&u[r * inner..(r + 1) * inner]) {
            *o = add(o, v);
        }
    }
    Tensor::from_vec(shape, out)
}

/// [`scatter`] with the sum of TensorFlow's kernel for `dt`: `+` (each add rounded, for the
/// half types), `||` for bools, concatenation for strings.
fn scatter_any(
    updates: &Tensor,
    rows: &[usize],
    shape: &[usize],
    n: usize,
    inner: usize,
) -> Result<Tensor> {
    let dt = updates.dtype();
    weir_graph::match_real_dtype!(dt, T => scatter::<T>(updates, rows, shape, n, inner, |a, b| T::add(*a, *b)),
    _ => weir_graph::match_half_dtype!(dt, T => scatter::<T>(updates, rows, shape, n, inner, |a, b| T::add(*a, *b)),
    _ => weir_graph::match_complex_dtype!(dt, T => scatter::<T>(updates, rows, shape, n, inner, |a, b| a + b),
    _ => match dt {
        DType::Bool => scatter::<bool>(updates, rows, shape, n, inner, |a, b| *a || *b),
        DType::String => scatter::<Bytes>(updates, rows, shape, n, inner, |a, b| {
            let mut v = Vec::with_capacity(a.len() + b.len());
            v.extend_from_slice(a);
            v.extend_from_slice(b);
            Bytes::from(v)
        }),
        _ => Err(Error::invalid_argument(format!("Cannot scatter {dt} tensors"))),
    })))
}

struct ScatterNdKernel;

impl Kernel for ScatterNdKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (it, ut, st) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (is, us) = (it.shape(), ut.shape());
        if is.is_empty() {
            return Err(Error::invalid_argument(format!(
                "Indices shape must have rank at least one. Found:{}",
                format_dims(is)
            )));
        }
        if us.is_empty() {
            return Err(Error::invalid_argument(format!(
                "Updates shape must have rank at least one. Found:{}",
                format_dims(us)
            )));
        }
        let shape = make_shape(&to_i64s(st)?)?;
        let (n_idx, n_upd) = (it.num_elements(), ut.num_elements());
        // TensorFlow compares the number of shape *values* here, not the output's size.
        let valid_empty =
            (n_idx == 0 && n_upd == 0) || (st.num_elements() != 0 && n_idx != 0 && n_upd != 0);
        if !valid_empty {
            return Err(Error::invalid_argument(
                "Indices and updates specified for empty output shape",
            ));
        }
        let outer = is.len() - 1;
        if us.len() < outer || is[..outer] != us[..outer] {
            return Err(Error::invalid_argument(format!(
                "Dimensions [0,{outer}) of indices[shape={}] must match dimensions [0,{outer}) \
                 of updates[shape={}]",
                format_dims(is),
                format_dims(us)
            )));
        }
        let ix = is[outer];
        if ix > shape.len() || us.len() - outer != shape.len() - ix {
            return Err(geometry_error(ix, &shape, outer, us));
        }
        if us[outer..] != shape[ix..] {
            return Err(geometry_error(ix, &shape, outer, us));
        }
        if st.rank() != 1 {
            return Err(Error::invalid_argument("Shape must be a vector"));
        }
        let n: usize = shape.iter().product();
        if n == 0 && (n_idx > 0 || n_upd > 0) {
            return Err(Error::invalid_argument(format!(
                "Indices and updates specified for empty output.  indices shape: {}",
                format_dims(is)
            )));
        }
        let rows = slice_offsets(&to_i64s(it)?, is, &shape)?;
        let inner: usize = shape[ix..].iter().product();
        let out = scatter_any(ut, &rows, &shape, n, inner)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let out = match const_i64s(ctx, 2)? {
        Some(v) => Shape::new(make_shape(&v)?.into_iter().map(Some).collect::<Vec<_>>()),
        None => super::shape_util::unknown_dims(ctx.input_shape(2).dim(0)),
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ScatterNd")
            .input("indices", ArgType::Attr("Tindices"))
            .input("updates", ArgType::Attr("T"))
            .input("shape", ArgType::Attr("Tindices"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tindices", &[DType::I32, DType::I64])
            .shape_fn(shape_fn),
    );
    register_kernel("ScatterNd", |_| Ok(Box::new(ScatterNdKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_before_allocation() {
        assert!(make_shape(&[-4]).is_err());
        assert!(make_shape(&[1 << 40, 1 << 40]).is_err());
        assert_eq!(make_shape(&[2, 3]).unwrap(), vec![2, 3]);
        assert_eq!(
            slice_offsets(&[1, 0, 0, 1], &[2, 2], &[2, 2]).unwrap(),
            vec![2, 1]
        );
        assert!(slice_offsets(&[2, 0], &[1, 2], &[2, 2]).is_err());
    }
}
