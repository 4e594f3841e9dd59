//! The kernels of `SparseBincount` and `RaggedBincount`: dense counts per row of a sparse or
//! ragged tensor's values below `size`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Result, Shape, Tensor,
};

use super::{check_splits, weights_of, INDEX_TYPES, MAX_COUNTS, WEIGHT_TYPES};
use crate::array::shape_util::to_i64s;
use crate::math::Arith;

/// Dense counts into `out` (`[rows, size]` row-major) of value `i` in row `row_of(i)`.
fn bin_into<W: Arith>(
    values: &[i64],
    row_of: impl Fn(usize) -> usize,
    weights: Option<&[W]>,
    size: usize,
    binary: bool,
    out: &mut [W],
) {
    for (i, &v) in values.iter().enumerate() {
        if v < 0 || v as usize >= size {
            continue;
        }
        let slot = &mut out[row_of(i) * size + v as usize];
        *slot = match (binary, weights) {
            (true, _) => W::one(),
            (false, Some(w)) => W::add(*slot, w[i]),
            (false, None) => W::add(*slot, W::one()),
        };
    }
}

fn bin_size(t: &Tensor) -> Result<usize> {
    let size = to_i64s(t)?.first().copied().unwrap_or(0);
    if size < 0 {
        return Err(Error::invalid_argument(format!(
            "size ({size}) must be non-negative"
        )));
    }
    Ok(size as usize)
}

fn alloc<W: Arith>(rows: usize, size: usize, dt: DType) -> Result<Vec<W>> {
    let n = (rows as i64).saturating_mul(size as i64);
    if n > MAX_COUNTS {
        return Err(Error::resource_exhausted(format!(
            "OOM when allocating tensor with shape{} and type {dt} on \
             /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
            format_dims(&[rows, size])
        )));
    }
    Ok(vec![W::default(); n as usize])
}

struct SparseBincountKernel {
    binary: bool,
}

impl SparseBincountKernel {
    fn run<W: Arith>(&self, ctx: &mut OpContext<'_>) -> Result<Tensor> {
        let (ix, vals, shape, size_t, w) = (
            ctx.input(0),
            ctx.input(1),
            ctx.input(2),
            ctx.input(3),
            ctx.input(4),
        );
        let size = bin_size(size_t)?;
        let values = to_i64s(vals)?;
        let weights = weights_of::<W>(w)?;
        let dense = shape.as_slice::<i64>()?;
        if dense.len() == 1 {
            if values.iter().any(|&v| v < 0) {
                return Err(Error::invalid_argument("Input arr must be non-negative!"));
            }
            if weights.is_some_and(|w| w.len() != values.len()) {
                return Err(Error::invalid_argument(
                    "Input indices and weights must have the same size.",
                ));
            }
            let mut out = alloc::<W>(1, size, w.dtype())?;
            bin_into(&values, |_| 0, weights, size, self.binary, &mut out);
            return Tensor::from_vec(&[size], out);
        }
        if ix.rank() != 2 || ix.shape()[1] != dense.len() || ix.shape()[0] != values.len() {
            return Err(Error::invalid_argument(format!(
                "Sparse tensor indices {} do not match values {} and dense shape {}",
                format_dims(ix.shape()),
                format_dims(vals.shape()),
                format_dims(shape.shape())
            )));
        }
        let rank = dense.len();
        let indices = ix.as_slice::<i64>()?;
        for (i, row) in indices.chunks(rank.max(1)).enumerate() {
            if row.iter().zip(dense).any(|(&x, &d)| x < 0 || x >= d) {
                let parts: Vec<String> = row.iter().map(|x| x.to_string()).collect();
                return Err(Error::invalid_argument(format!(
                    "Sparse index tuple indices[{i}, :] = [{}] is out of bounds",
                    parts.join(", ")
                )));
            }
        }
        if weights.is_some_and(|w| w.len() != values.len()) {
            return Err(Error::invalid_argument(
                "Input indices and weights must have the same size.",
            ));
        }
        let rows = usize::try_from(dense[0]).unwrap_or(0);
        let mut out = alloc::<W>(rows, size, w.dtype())?;
        bin_into(
            &values,
            |i| indices[i * rank] as usize,
            weights,
            size,
            self.binary,
            &mut out,
        );
        Tensor::from_vec(&[rows, size], out)
    }
}

impl Kernel for SparseBincountKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dt = ctx.input(4).dtype();
        let out = match dt {
            DType::I32 => self.run::<i32>(ctx)?,
            DType::I64 => self.run::<i64>(ctx)?,
            DType::F32 => self.run::<f32>(ctx)?,
            DType::F64 => self.run::<f64>(ctx)?,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "SparseBincount does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

struct RaggedBincountKernel {
    binary: bool,
}

impl RaggedBincountKernel {
    fn run<W: Arith>(&self, ctx: &mut OpContext<'_>) -> Result<Tensor> {
        let (splits_t, vals, size_t, w) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let size = bin_size(size_t)?;
        let splits = splits_t.as_slice::<i64>()?;
        let values = to_i64s(vals)?;
        let rows = check_splits(splits, values.len(), false)?;
        let weights = weights_of::<W>(w)?;
        if weights.is_some_and(|w| w.len() != values.len()) {
            return Err(Error::invalid_argument(format!(
                "Weights and values must have the same shape. Weight shape: {}; values shape: {}",
                format_dims(w.shape()),
                format_dims(vals.shape())
            )));
        }
        if values.iter().any(|&v| v < 0) {
            return Err(Error::invalid_argument("Input must be non-negative"));
        }
        let mut row_of = vec![0usize; values.len()];
        for (r, s) in splits.windows(2).enumerate() {
            for slot in &mut row_of[s[0] as usize..s[1] as usize] {
                *slot = r;
            }
        }
        let mut out = alloc::<W>(rows, size, w.dtype())?;
        bin_into(&values, |i| row_of[i], weights, size, self.binary, &mut out);
        Tensor::from_vec(&[rows, size], out)
    }
}

impl Kernel for RaggedBincountKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dt = ctx.input(3).dtype();
        let out = match dt {
            DType::I32 => self.run::<i32>(ctx)?,
            DType::I64 => self.run::<i64>(ctx)?,
            DType::F32 => self.run::<f32>(ctx)?,
            DType::F64 => self.run::<f64>(ctx)?,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "RaggedBincount does not support {dt}"
                )))
            }
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn bincount_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let size_at = if ctx.op_type == "SparseBincount" {
        3
    } else {
        2
    };
    let size = ctx
        .input_const(size_at)
        .and_then(|t| to_i64s(t).ok())
        .and_then(|v| v.first().copied())
        .and_then(|n| usize::try_from(n).ok());
    let out = if ctx.op_type == "RaggedBincount" {
        let rows = ctx.input_shape(0).dim(0).map(|n| n.saturating_sub(1));
        Shape::new(vec![rows, size])
    } else {
        match ctx.input_shape(2).dim(0) {
            Some(1) => Shape::new(vec![size]),
            Some(_) => Shape::new(vec![None, size]),
            None => Shape::unknown(),
        }
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    let binary = || Some(AttrValue::Bool(false));
    register_op(
        OpDef::new("SparseBincount")
            .input("indices", ArgType::Fixed(DType::I64))
            .input("values", ArgType::Attr("Tidx"))
            .input("dense_shape", ArgType::Fixed(DType::I64))
            .input("size", ArgType::Attr("Tidx"))
            .input("weights", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("Tidx", INDEX_TYPES)
            .type_attr("T", WEIGHT_TYPES)
            .attr("binary_output", AttrKind::Bool, binary())
            .shape_fn(bincount_shape),
    );
    register_kernel("SparseBincount", |n| {
        Ok(Box::new(SparseBincountKernel {
            binary: n.attr("binary_output")?,
        }))
    });
    register_op(
        OpDef::new("RaggedBincount")
            .input("splits", ArgType::Fixed(DType::I64))
            .input("values", ArgType::Attr("Tidx"))
            .input("size", ArgType::Attr("Tidx"))
            .input("weights", ArgType::Attr("T"))
            .output("output", ArgType::Attr("T"))
            .type_attr("Tidx", INDEX_TYPES)
            .type_attr("T", WEIGHT_TYPES)
            .attr("binary_output", AttrKind::Bool, binary())
            .shape_fn(bincount_shape),
    );
    register_kernel("RaggedBincount", |n| {
        Ok(Box::new(RaggedBincountKernel {
            binary: n.attr("binary_output")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_skip_values_out_of_range() {
        let mut out = vec![0i32; 6];
        bin_into(&[0, 2, 5, -1, 2], |i| i / 3, None, 3, false, &mut out);
        assert_eq!(out, vec![1, 0, 1, 0, 0, 1]);
    }
}
