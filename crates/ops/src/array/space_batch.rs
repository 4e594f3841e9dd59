//! `SpaceToBatchND` and `BatchToSpaceND` (`tf.space_to_batch_nd`, `tf.batch_to_space_nd`):
//! blocks of the spatial dims moved into the batch and back, with padding and cropping; and
//! their V1 forms `SpaceToBatch` / `BatchToSpace` (4-D input, one square `block_size`).
//! Elements after the spatial dims move as contiguous runs.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

use super::shape_util::{const_i64s, to_i64s, IndexArg};

fn build(op: &str, input: Output, block: Option<IndexArg>, pads: IndexArg) -> Result<Output> {
    let g = input.graph().clone();
    let mut b = crate::new_op(&g, op).input(input);
    if let Some(block) = &block {
        b = b.input(block.to_output(&g)?);
    }
    b.input(pads.to_output(&g)?).build()?.output(0)
}

/// `tf.space_to_batch_nd(input, block_shape, paddings)` (op `SpaceToBatchND`): the `M`
/// spatial dims after the batch dim padded, split into blocks of `block_shape`, and the block
/// offsets moved into the batch dim.
pub fn space_to_batch_nd(
    input: impl Into<Output>,
    block_shape: impl Into<IndexArg>,
    paddings: impl Into<IndexArg>,
) -> Result<Output> {
    build(
        "SpaceToBatchND",
        input.into(),
        Some(block_shape.into()),
        paddings.into(),
    )
}

/// `tf.batch_to_space_nd(input, block_shape, crops)` (op `BatchToSpaceND`): the inverse of
/// [`space_to_batch_nd`], cropping the spatial dims by `crops`.
pub fn batch_to_space_nd(
    input: impl Into<Output>,
    block_shape: impl Into<IndexArg>,
    crops: impl Into<IndexArg>,
) -> Result<Output> {
    build(
        "BatchToSpaceND",
        input.into(),
        Some(block_shape.into()),
        crops.into(),
    )
}

/// TensorFlow 1's Python `space_to_batch` / `batch_to_space`: the ND op with the block
/// `[block_size, block_size]` as an int64 constant, on a 4-D input.
fn build_v1(op: &str, input: Output, pads: IndexArg, block_size: i64) -> Result<Output> {
    let g = input.graph().clone();
    let block = crate::array::constant(&g, Tensor::from(vec![block_size, block_size]))?;
    let out = build(op, input, Some(IndexArg::Tensor(block)), pads)?;
    if let Some(r) = out.shape().rank().filter(|&r| r != 4) {
        return Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {r}"
        )));
    }
    Ok(out)
}

/// `tf.compat.v1.space_to_batch(input, paddings, block_size)`: as TensorFlow 1's Python, a
/// `SpaceToBatchND` of a 4-D input with the block `[block_size, block_size]` (the V1 op
/// `SpaceToBatch` is registered for imported graphs).
pub fn space_to_batch(
    input: impl Into<Output>,
    paddings: impl Into<IndexArg>,
    block_size: i64,
) -> Result<Output> {
    build_v1("SpaceToBatchND", input.into(), paddings.into(), block_size)
}

/// `tf.compat.v1.batch_to_space(input, crops, block_size)`: as TensorFlow 1's Python, a
/// `BatchToSpaceND` of a 4-D input with the block `[block_size, block_size]` (the V1 op
/// `BatchToSpace` is registered for imported graphs).
pub fn batch_to_space(
    input: impl Into<Output>,
    crops: impl Into<IndexArg>,
    block_size: i64,
) -> Result<Output> {
    build_v1("BatchToSpaceND", input.into(), crops.into(), block_size)
}

/// The checked geometry of one run: the block, the padding (or crops) per spatial dim, and
/// the shapes on both sides.
struct Geometry {
    block: Vec<usize>,
    /// Padding before each spatial dim (SpaceToBatch) or crop before it (BatchToSpace).
    before: Vec<usize>,
    input: Vec<usize>,
    output: Vec<usize>,
}

/// TensorFlow's kernel checks of `block_shape` and `paddings`/`crops`, in its order.
fn geometry(
    x: &[usize],
    block: &Tensor,
    pads: &Tensor,
    to_batch: bool,
    block_size_v1: Option<usize>,
) -> Result<Geometry> {
    let block: Vec<i64> = match block_size_v1 {
        Some(b) => vec![b as i64; 2],
        None => {
            if block.rank() != 1 {
                return Err(Error::invalid_argument(format!(
                    "block_shape rank should be 1 instead of {}",
                    block.rank()
                )));
            }
            to_i64s(block)?
        }
    };
    let m = block.len();
    if x.len() < 1 + m {
        return Err(Error::invalid_argument(format!(
            "input rank should be >= {} instead of {}",
            1 + m,
            x.len()
        )));
    }
    let what = if to_batch { "paddings" } else { "crops" };
    if pads.rank() != 2 || pads.shape()[0] != m || pads.shape()[1] != 2 {
        return Err(Error::invalid_argument(format!(
            "{what} should have shape [{m}, 2] instead of {}",
            format_dims(pads.shape())
        )));
    }
    let p = to_i64s(pads)?;
    let mut out = x.to_vec();
    let mut before = Vec::with_capacity(m);
    let mut product = 1usize;
    for (i, &b) in block.iter().enumerate() {
        if b < 1 {
            return Err(Error::invalid_argument(format!(
                "All values in block_shape must be positive, got value, {b} at index {i}."
            )));
        }
        product *= b as usize;
    }
    if !to_batch && x[0] % product != 0 {
        return Err(Error::invalid_argument(format!(
            "Input batch dimension ({}) is not divisible by product of block sizes ({product})",
            x[0]
        )));
    }
    for i in 0..m {
        let (start, end, b) = (p[2 * i], p[2 * i + 1], block[i]);
        let size = x[i + 1] as i64;
        if to_batch {
            if start < 0 || end < 0 {
                return Err(Error::invalid_argument("Paddings must be non-negative"));
            }
            let padded = size + start + end;
            if padded % b != 0 {
                return Err(Error::invalid_argument(format!(
                    "padded_shape[{i}]={padded} is not divisible by block_shape[{i}]={b}"
                )));
            }
            out[i + 1] = (padded / b) as usize;
        } else {
            if start < 0 || end < 0 {
                return Err(Error::invalid_argument("Crops must be non-negative"));
            }
            let cropped = size * b - start - end;
            if cropped < 0 {
                return Err(Error::invalid_argument(format!(
                    "cropped_shape[{i}]={cropped} must be non-negative"
                )));
            }
            out[i + 1] = cropped as usize;
        }
        before.push(start as usize);
    }
    out[0] = if to_batch {
        x[0] * product
    } else {
        x[0] / product
    };
    Ok(Geometry {
        block: block.iter().map(|&b| b as usize).collect(),
        before,
        input: x.to_vec(),
        output: out,
    })
}

fn row_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Writes the output in order: for each output batch entry and spatial position, the run of
/// trailing elements it takes from the input, or zeros where it falls in the padding.
fn shuffle<T: TensorType>(x: &Tensor, geo: &Geometry, to_batch: bool) -> Result<Tensor> {
    let src = x.as_slice::<T>()?;
    let m = geo.block.len();
    let run: usize = geo.input[m + 1..].iter().product();
    let in_strides = row_strides(&geo.input);
    let total: usize = geo.output.iter().product();
    let mut out: Vec<T> = Vec::with_capacity(total);
    if total == 0 {
        return Tensor::from_vec(&geo.output, out);
    }
    // The batch of the side with more entries is (block offset, entry) with the entry fastest.
    let small_batch = if to_batch {
        geo.input[0]
    } else {
        geo.output[0]
    };
    let spatial_out = &geo.output[1..=m];
    let mut pos = vec![0usize; m];
    let mut k = vec![0usize; m];
    for ob in 0..geo.output[0] {
        for p in pos.iter_mut() {
            *p = 0;
        }
        if to_batch {
            let mut kflat = ob / small_batch;
            for i in (0..m).rev() {
                k[i] = kflat % geo.block[i];
                kflat /= geo.block[i];
            }
        }
        let points: usize = spatial_out.iter().product();
        for _ in 0..points {
            // The input element this output position reads, if any.
            let mut offset = 0usize;
            let mut inside = true;
            if to_batch {
                offset += (ob % small_batch) * in_strides[0];
                for i in 0..m {
                    let q = (pos[i] * geo.block[i] + k[i]) as i64 - geo.before[i] as i64;
                    if q < 0 || q as usize >= geo.input[i + 1] {
                        inside = false;
                        break;
                    }
                    offset += q as usize * in_strides[i + 1];
                }
            } else {
                let mut kflat = 0usize;
                for i in 0..m {
                    let q = pos[i] + geo.before[i];
                    kflat = kflat * geo.block[i] + q % geo.block[i];
                    offset += (q / geo.block[i]) * in_strides[i + 1];
                }
                offset += (kflat * small_batch + ob) * in_strides[0];
            }
            if inside {
                out.extend_from_slice(&src[offset..offset + run]);
            } else {
                out.extend(std::iter::repeat_n(T::zero(), run));
            }
            for i in (0..m).rev() {
                pos[i] += 1;
                if pos[i] < spatial_out[i] {
                    break;
                }
                pos[i] = 0;
            }
        }
    }
    Tensor::from_vec(&geo.output, out)
}

struct SpaceBatchKernel {
    to_batch: bool,
    /// The V1 ops' `block_size` (their inputs are `input, paddings`).
    block_size: Option<usize>,
}

impl Kernel for SpaceBatchKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0);
        let geo = match self.block_size {
            Some(bs) => {
                if x.rank() != 4 {
                    return Err(Error::invalid_argument(format!(
                        "Input rank should be: 4instead of: {}",
                        x.rank()
                    )));
                }
                geometry(
                    x.shape(),
                    ctx.input(1),
                    ctx.input(1),
                    self.to_batch,
                    Some(bs),
                )?
            }
            None => geometry(x.shape(), ctx.input(1), ctx.input(2), self.to_batch, None)?,
        };
        let dt = x.dtype();
        let out = weir_graph::match_data_dtype!(dt,
            T => shuffle::<T>(x, &geo, self.to_batch)?,
            _ => return Err(Error::invalid_argument(format!("{} does not support {dt}", ctx.node().op_type()))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    let block_size = if op.ends_with("ND") {
        None
    } else {
        Some(node.attr::<i64>("block_size")? as usize)
    };
    Ok(Box::new(SpaceBatchKernel {
        to_batch: op.starts_with("SpaceToBatch"),
        block_size,
    }))
}

/// TensorFlow's `SpaceToBatchShapeHelper` / `BatchToSpaceShapeHelper`: the output's rank is
/// the input's; its dims are known where the block, the paddings and the input dim are.
fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let op = ctx.op_type;
    let to_batch = op.starts_with("SpaceToBatch");
    let nd = op.ends_with("ND");
    let x = if nd {
        ctx.input_shape(0).clone()
    } else {
        ctx.with_rank(0, 4)?
    };
    let pads_i = if nd { 2 } else { 1 };
    let block: Option<Vec<i64>> = if nd {
        let bs = ctx.with_rank(1, 1)?;
        let _ = bs;
        const_i64s(ctx, 1)?
    } else {
        let b: i64 = ctx.attr("block_size")?;
        Some(vec![b, b])
    };
    let pads_shape = ctx.with_rank(pads_i, 2)?;
    if pads_shape.dim(1).is_some_and(|d| d != 2) {
        return Err(Error::invalid_argument(format!(
            "Dimension must be 2 but is {} for '{op}'",
            pads_shape.dim(1).unwrap_or(0)
        )));
    }
    let pads = const_i64s(ctx, pads_i)?;
    let Some(dims) = x.dims().map(<[_]>::to_vec) else {
        ctx.set_output(0, Shape::unknown());
        return Ok(());
    };
    let mut out: Vec<Option<usize>> = vec![None; dims.len()];
    let Some(block) = block else {
        ctx.set_output(0, Shape::new(out));
        return Ok(());
    };
    let m = block.len();
    if dims.len() < 1 + m {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank {} but is rank {}",
            1 + m,
            dims.len()
        )));
    }
    if block.iter().any(|&b| b < 1) {
        return Err(Error::invalid_argument("block_shape must be positive"));
    }
    let product: i64 = block.iter().product();
    out[m + 1..].copy_from_slice(&dims[m + 1..]);
    out[0] = dims[0]
        .map(|b| {
            if to_batch {
                Ok(b * product as usize)
            } else if b % product as usize != 0 {
                Err(Error::invalid_argument(format!(
                    "Dimension size must be evenly divisible by {product} but is {b}"
                )))
            } else {
                Ok(b / product as usize)
            }
        })
        .transpose()?;
    if let Some(p) = pads {
        if p.iter().any(|&v| v < 0) {
            return Err(Error::invalid_argument(if to_batch {
                "paddings cannot be negative"
            } else {
                "crops cannot be negative"
            }));
        }
        for i in 0..m {
            let Some(size) = dims[i + 1] else { continue };
            let (s, e, b) = (p[2 * i], p[2 * i + 1], block[i]);
            let size = size as i64;
            out[i + 1] = Some(if to_batch {
                let padded = size + s + e;
                if padded % b != 0 {
                    return Err(Error::invalid_argument(format!(
                        "Dimension size must be evenly divisible by {b} but is {padded}"
                    )));
                }
                (padded / b) as usize
            } else {
                let cropped = size * b - s - e;
                if cropped < 0 {
                    return Err(Error::invalid_argument(format!(
                        "Negative dimension size caused by subtracting {} from {}",
                        s + e,
                        size * b
                    )));
                }
                cropped as usize
            });
        }
    }
    ctx.set_output(0, Shape::new(out));
    Ok(())
}

const INDEX: &[DType] = &[DType::I32, DType::I64];

pub(super) fn register() {
    for (op, pads) in [("SpaceToBatchND", "paddings"), ("BatchToSpaceND", "crops")] {
        let pads_attr = if pads == "paddings" {
            "Tpaddings"
        } else {
            "Tcrops"
        };
        register_op(
            OpDef::new(op)
                .input("input", ArgType::Attr("T"))
                .input("block_shape", ArgType::Attr("Tblock_shape"))
                .input(pads, ArgType::Attr(pads_attr))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .type_attr("Tblock_shape", INDEX)
                .type_attr(pads_attr, INDEX)
                .shape_fn(shape_fn),
        );
        register_kernel(op, make);
    }
    for (op, pads) in [("SpaceToBatch", "paddings"), ("BatchToSpace", "crops")] {
        register_op(
            OpDef::new(op)
                .input("input", ArgType::Attr("T"))
                .input(pads, ArgType::Attr("Tidx"))
                .output("output", ArgType::Attr("T"))
                .type_attr("T", DType::ALL_DATA)
                .type_attr("Tidx", INDEX)
                .int_attr_min("block_size", 2)
                .shape_fn(shape_fn),
        );
        register_kernel(op, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_to_batch_and_back_round_trip() {
        let x = Tensor::from_vec(&[1, 4, 4, 1], (0..16).collect::<Vec<i32>>()).unwrap();
        let block = Tensor::from(vec![2i32, 2]);
        let pads = Tensor::from_vec(&[2, 2], vec![0i32; 4]).unwrap();
        let geo = geometry(x.shape(), &block, &pads, true, None).unwrap();
        let y = shuffle::<i32>(&x, &geo, true).unwrap();
        assert_eq!(y.shape(), &[4, 2, 2, 1]);
        assert_eq!(
            y.to_vec::<i32>().unwrap()[..4],
            [0, 2, 8, 10],
            "block offset (0, 0) first"
        );
        let geo = geometry(y.shape(), &block, &pads, false, None).unwrap();
        let z = shuffle::<i32>(&y, &geo, false).unwrap();
        assert_eq!(z.to_vec::<i32>().unwrap(), x.to_vec::<i32>().unwrap());
    }
}
