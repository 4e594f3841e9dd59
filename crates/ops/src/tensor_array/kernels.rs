//! Kernels of the TensorArray V3 ops, checking their inputs in the order and words of
//! TensorFlow's tensor_array_ops.cc.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use weir_graph::{
    format_dims, match_data_dtype, DType, Error, Kernel, Node, OpContext, ResourceHandle, Result,
    Shape, Tensor, TensorType,
};

use super::resource::TensorArrayResource;
use crate::array::shape_util::to_i64s;

/// TensorFlow's process-wide `tensor_array_counter`, which makes every array's name unique.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The container TensorFlow puts TensorArrays in.
const CONTAINER: &str = "_tensor_arrays";

fn array<'c>(ctx: &'c OpContext<'_>) -> Result<&'c TensorArrayResource> {
    ctx.resource::<TensorArrayResource>(0)
}

fn check_dtype(ta: &TensorArrayResource, requested: DType) -> Result<()> {
    if ta.dtype() != requested {
        return Err(Error::invalid_argument(format!(
            "TensorArray dtype is {} but Op requested dtype {}.",
            ta.dtype().name(),
            requested.name()
        )));
    }
    Ok(())
}

fn check_write_dtype(ta: &TensorArrayResource, value: &Tensor) -> Result<()> {
    if value.dtype() != ta.dtype() {
        return Err(Error::invalid_argument(format!(
            "TensorArray dtype is {} but Op is trying to write dtype {}.",
            ta.dtype().name(),
            value.dtype().name()
        )));
    }
    Ok(())
}

fn scalar_index(t: &Tensor) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "TensorArray index must be scalar, but had shape: {}",
            format_dims(t.shape())
        )));
    }
    Ok(to_i64s(t)?[0])
}

fn vector(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    if t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected {what} to be a vector, but received shape: {}",
            format_dims(t.shape())
        )));
    }
    to_i64s(t)
}

/// The tensors `parts` joined along dimension 0 into one of `shape` (same dtype throughout).
fn join_rows(dtype: DType, parts: &[Tensor], shape: &[usize]) -> Result<Tensor> {
    fn go<T: TensorType>(parts: &[Tensor], shape: &[usize]) -> Result<Tensor> {
        let mut out: Vec<T> = Vec::with_capacity(shape.iter().product());
        for p in parts {
            out.extend_from_slice(p.as_slice::<T>()?);
        }
        Tensor::from_vec(shape, out)
    }
    match_data_dtype!(dtype, T => go::<T>(parts, shape),
        _ => Err(Error::unimplemented(format!("TensorArrays of {dtype} cannot be gathered or concatenated"))))
}

/// `TensorArrayV3`: a new, empty array on every run.
struct CreateKernel {
    dtype: DType,
    element_shape: Shape,
    dynamic_size: bool,
    clear_after_read: bool,
    identical_element_shapes: bool,
    name: String,
}

impl Kernel for CreateKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let size = ctx.input(0);
        if size.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "TensorArray size must be scalar, but had shape: {}",
                format_dims(size.shape())
            )));
        }
        let size = size.to_scalar::<i32>()?;
        if size < 0 {
            return Err(Error::invalid_argument("Size should be >= 0."));
        }
        let unique = format!("{}_{}", self.name, COUNTER.fetch_add(1, Ordering::Relaxed));
        let ta = TensorArrayResource::new(
            unique.clone(),
            self.dtype,
            size as usize,
            self.element_shape.clone(),
            self.identical_element_shapes,
            self.dynamic_size,
            self.clear_after_read,
        );
        let handle = ResourceHandle::new(CONTAINER, &unique, Arc::new(ta));
        ctx.set_output(0, Tensor::scalar(handle));
        ctx.set_output(1, Tensor::scalar(0.0f32));
        Ok(())
    }
}

pub(super) fn make_create(node: &Node) -> Result<Box<dyn Kernel>> {
    let name: String = node.attr("tensor_array_name")?;
    Ok(Box::new(CreateKernel {
        dtype: node.attr("dtype")?,
        element_shape: node.attr("element_shape")?,
        dynamic_size: node.attr("dynamic_size")?,
        clear_after_read: node.attr("clear_after_read")?,
        identical_element_shapes: node.attr("identical_element_shapes")?,
        name: if name.is_empty() {
            node.name().to_string()
        } else {
            name
        },
    }))
}

/// `TensorArrayGradV3`: the gradient array of the input array for gradient `source` (made on
/// first use), and the flow passed on.
pub(super) struct GradKernel(pub String);

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let flow = ctx.input(1).clone();
        let grad = array(ctx)?.grad(&self.0)?;
        let name = grad.name().to_string();
        let handle = ResourceHandle::new(CONTAINER, &name, grad);
        ctx.set_output(0, Tensor::scalar(handle));
        ctx.set_output(1, flow);
        Ok(())
    }
}

/// `TensorArrayWriteV3`.
pub(super) struct WriteKernel;

impl Kernel for WriteKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let flow = ctx.input(3).clone();
        let index = scalar_index(ctx.input(1))?;
        let ta = array(ctx)?;
        let value = ctx.input(2).clone();
        check_write_dtype(ta, &value)?;
        ta.write(index, value)?;
        ctx.set_output(0, flow);
        Ok(())
    }
}

/// `TensorArrayReadV3`.
pub(super) struct ReadKernel(pub DType);

impl Kernel for ReadKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let index = scalar_index(ctx.input(1))?;
        let ta = array(ctx)?;
        check_dtype(ta, self.0)?;
        let value = ta.read(index)?;
        ctx.set_output(0, value);
        Ok(())
    }
}

/// `TensorArrayGatherV3`: the elements at `indices`, stacked.
pub(super) struct GatherKernel {
    pub dtype: DType,
    pub element_shape: Shape,
}

impl Kernel for GatherKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ta = array(ctx)?;
        check_dtype(ta, self.dtype)?;
        ta.set_element_shape(&self.element_shape)?;
        let indices = vector(ctx.input(1), "indices")?;
        let out = if indices.is_empty() {
            let Some(dims) = self.element_shape.to_known() else {
                return Err(Error::unimplemented(format!(
                    "TensorArray has size zero, but element shape {} is not fully defined. Currently only static shapes are supported when packing zero-size TensorArrays.",
                    self.element_shape
                )));
            };
            Tensor::zeros(self.dtype, &[&[0][..], &dims].concat())?
        } else {
            let values = ta.read_many(&indices)?;
            let first = values[0].shape().to_vec();
            if !self.element_shape.is_compatible_with_dims(&first) {
                return Err(Error::invalid_argument(format!(
                    "TensorArray was passed element_shape {} which does not match the Tensor at index 0: {}",
                    self.element_shape,
                    format_dims(&first)
                )));
            }
            for (i, v) in values.iter().enumerate().skip(1) {
                if v.shape() != first.as_slice() {
                    return Err(Error::invalid_argument(format!(
                        "TensorArray has inconsistent shapes.  Index 0 has shape: {} but index {i} has shape: {}",
                        format_dims(&first),
                        format_dims(v.shape())
                    )));
                }
            }
            join_rows(self.dtype, &values, &[&[values.len()][..], &first].concat())?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `TensorArrayScatterV3`: row `k` of `value` written at `indices[k]`.
pub(super) struct ScatterKernel;

impl Kernel for ScatterKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let flow = ctx.input(3).clone();
        let ta = array(ctx)?;
        let value = ctx.input(2).clone();
        check_write_dtype(ta, &value)?;
        if value.rank() == 0 {
            return Err(Error::invalid_argument(format!(
                "Input value for unpack must be at least a vector but received shape: {}",
                format_dims(value.shape())
            )));
        }
        let mut array_size = ta.size()? as i64;
        let indices = vector(ctx.input(1), "indices")?;
        let rows = value.shape()[0];
        if indices.len() != rows {
            return Err(Error::invalid_argument(format!(
                "Expected len(indices) == values.shape[0], but saw: {} vs. {rows}",
                indices.len()
            )));
        }
        let max_index = indices.iter().copied().max().unwrap_or(-1);
        if ta.has_dynamic_size() && array_size < max_index + 1 {
            array_size = max_index + 1;
        }
        if max_index >= array_size {
            return Err(Error::invalid_argument(format!(
                "Max scatter index must be < array size ({max_index} vs. {array_size})"
            )));
        }
        let values = (0..rows)
            .map(|r| value.index_axis0(r))
            .collect::<Result<Vec<_>>>()?;
        ta.write_many(&indices, values)?;
        ctx.set_output(0, flow);
        Ok(())
    }
}

/// `TensorArrayConcatV3`: every element joined along dimension 0, and their lengths.
pub(super) struct ConcatKernel {
    pub dtype: DType,
    pub element_shape_except0: Shape,
}

impl Kernel for ConcatKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ta = array(ctx)?;
        check_dtype(ta, self.dtype)?;
        let size = ta.size()?;
        if size == 0 {
            let Some(dims) = self.element_shape_except0.to_known() else {
                return Err(Error::unimplemented(format!(
                    "TensorArray has size zero, but element_shape_except0 {} is not fully defined. Currently only static shapes are supported when concatenating zero-size TensorArrays.",
                    self.element_shape_except0
                )));
            };
            ctx.set_output(0, Tensor::zeros(self.dtype, &[&[0][..], &dims].concat())?);
            ctx.set_output(1, Tensor::from(Vec::<i64>::new()));
            return Ok(());
        }
        let indices: Vec<i64> = (0..size as i64).collect();
        let values = ta.read_many(&indices)?;
        let mut lengths = Vec::with_capacity(values.len());
        let mut except0: &[usize] = &[];
        for (i, v) in values.iter().enumerate() {
            let Some((&len, rest)) = v.shape().split_first() else {
                return Err(Error::invalid_argument(format!(
                    "Concat saw a scalar shape at index {i} but requires at least vectors.  Did you mean to call pack?"
                )));
            };
            lengths.push(len as i64);
            if i == 0 {
                except0 = rest;
                if !self.element_shape_except0.is_compatible_with_dims(rest) {
                    return Err(Error::invalid_argument(format!(
                        "TensorArray was passed element_shape_except0 {} but index 0 has (excepting dimension 0) shape: {} which does not match.",
                        self.element_shape_except0,
                        format_dims(rest)
                    )));
                }
            } else if rest != except0 {
                return Err(Error::invalid_argument(format!(
                    "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: {} but index {i} has (excepting dimension 0) shape: {}",
                    format_dims(except0),
                    format_dims(rest)
                )));
            }
        }
        let total = lengths.iter().sum::<i64>() as usize;
        let shape = [&[total][..], except0].concat();
        let out = join_rows(self.dtype, &values, &shape)?;
        ctx.set_output(0, out);
        ctx.set_output(1, Tensor::from(lengths));
        Ok(())
    }
}

/// `TensorArraySplitV3`: `value` cut along dimension 0 into pieces of `lengths`, one per
/// element.
pub(super) struct SplitKernel;

impl Kernel for SplitKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let flow = ctx.input(3).clone();
        let ta = array(ctx)?;
        let value = ctx.input(1).clone();
        let lengths_t = ctx.input(2);
        if lengths_t.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected lengths to be a vector, received shape: {}",
                format_dims(lengths_t.shape())
            )));
        }
        let lengths = to_i64s(lengths_t)?;
        let total: i64 = lengths.iter().sum();
        if value.rank() == 0 {
            return Err(Error::invalid_argument(format!(
                "Expected value to be at least a vector, but received shape: {}",
                format_dims(value.shape())
            )));
        }
        if total != value.shape()[0] as i64 {
            return Err(Error::invalid_argument(format!(
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is {total} and value's shape is: {}",
                format_dims(value.shape())
            )));
        }
        if let Some((i, l)) = lengths.iter().enumerate().find(|(_, &l)| l < 0) {
            // TensorFlow aborts the process here; weir refuses the input.
            return Err(Error::invalid_argument(format!(
                "Expected lengths to be non-negative, but lengths[{i}] is {l}"
            )));
        }
        let mut array_size = ta.size()?;
        if ta.has_dynamic_size() && array_size < lengths.len() {
            array_size = lengths.len();
        }
        if array_size != lengths.len() {
            return Err(Error::invalid_argument(format!(
                "TensorArray's size is not equal to the size of lengths ({array_size} vs. {}), and the TensorArray is not marked as dynamically resizeable",
                lengths.len()
            )));
        }
        check_write_dtype(ta, &value)?;
        let mut start = 0usize;
        let mut pieces = Vec::with_capacity(lengths.len());
        for &l in &lengths {
            let end = start + l as usize;
            pieces.push(value.slice_axis0(start, end)?);
            start = end;
        }
        let indices: Vec<i64> = (0..lengths.len() as i64).collect();
        ta.write_many(&indices, pieces)?;
        ctx.set_output(0, flow);
        Ok(())
    }
}

/// `TensorArraySizeV3`.
pub(super) struct SizeKernel;

impl Kernel for SizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = array(ctx)?.size()?;
        let n = i32::try_from(n).map_err(|_| {
            Error::out_of_range(format!("TensorArray size {n} does not fit in an int32"))
        })?;
        ctx.set_output(0, Tensor::scalar(n));
        Ok(())
    }
}

/// `TensorArrayCloseV3`.
pub(super) struct CloseKernel;

impl Kernel for CloseKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        array(ctx)?.close();
        Ok(())
    }
}
