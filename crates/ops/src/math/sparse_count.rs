//! Counting integers per batch row into sparse or dense counts: the count ops
//! `DenseCountSparseOutput`, `SparseCountSparseOutput` and `RaggedCountSparseOutput` (what
//! `tf.sparse.bincount` builds), and `SparseBincount` / `RaggedBincount` (what
//! `tf.math.bincount` builds for a sparse or ragged `arr`).

use std::collections::BTreeMap;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Result, Shape, Tensor,
};

use crate::array::shape_util::to_i64s;
use crate::math::Arith;
use crate::sparse::SparseOutput;

mod bincount;
mod python;

pub use python::{MathBincount, SparseBincount};

const WEIGHT_TYPES: &[DType] = &[DType::I32, DType::I64, DType::F32, DType::F64];
const INDEX_TYPES: &[DType] = &[DType::I32, DType::I64];
/// The most counts a kernel allocates (a bound on sizes read from inputs).
const MAX_COUNTS: i64 = 1 << 31;

/// The attrs the three `...CountSparseOutput` ops share (`minlength`, `maxlength`: -1 for
/// none; `binary_output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountAttrs {
    /// The dense output is at least this wide.
    pub minlength: Option<i64>,
    /// Values at or above this are not counted, and the dense output is this wide.
    pub maxlength: Option<i64>,
    /// Count presence (1) instead of occurrences or weights.
    pub binary_output: bool,
}

fn count_op(op_type: &str, inputs: Vec<Output>, attrs: CountAttrs) -> Result<SparseOutput> {
    let refs: Vec<&Output> = inputs.iter().collect();
    let g = crate::util::same_graph(&refs)?.clone();
    let op = crate::new_op(&g, op_type)
        .inputs(inputs)
        .attr("minlength", attrs.minlength.unwrap_or(-1))
        .attr("maxlength", attrs.maxlength.unwrap_or(-1))
        .attr("binary_output", attrs.binary_output)
        .build()?;
    SparseOutput::from_op(&op)
}

/// The raw op `DenseCountSparseOutput(values, weights)`: for a vector or matrix `values`
/// (int32/int64), the sparse counts of each value per row (`weights`: same shape, or empty
/// for ones; its dtype is the counts').
pub fn dense_count_sparse_output(
    values: impl Into<Output>,
    weights: impl Into<Output>,
    attrs: CountAttrs,
) -> Result<SparseOutput> {
    count_op(
        "DenseCountSparseOutput",
        vec![values.into(), weights.into()],
        attrs,
    )
}

/// The raw op `SparseCountSparseOutput(indices, values, dense_shape, weights)`: the sparse
/// counts of `sp`'s values per row (its first index), or overall for a 1-D `sp`.
pub fn sparse_count_sparse_output(
    sp: &SparseOutput,
    weights: impl Into<Output>,
    attrs: CountAttrs,
) -> Result<SparseOutput> {
    count_op(
        "SparseCountSparseOutput",
        vec![
            sp.indices.clone(),
            sp.values.clone(),
            sp.dense_shape.clone(),
            weights.into(),
        ],
        attrs,
    )
}

/// The raw op `RaggedCountSparseOutput(splits, values, weights)`: the sparse counts of each
/// ragged row's values (`splits` int64).
pub fn ragged_count_sparse_output(
    splits: impl Into<Output>,
    values: impl Into<Output>,
    weights: impl Into<Output>,
    attrs: CountAttrs,
) -> Result<SparseOutput> {
    count_op(
        "RaggedCountSparseOutput",
        vec![splits.into(), values.into(), weights.into()],
        attrs,
    )
}

/// The raw op `SparseBincount(indices, values, dense_shape, size, weights, binary_output)`:
/// dense counts `[size]` (1-D `sp`) or `[dense_shape[0], size]` of the values below `size`.
pub fn sparse_bincount_op(
    sp: &SparseOutput,
    size: impl Into<Output>,
    weights: impl Into<Output>,
    binary_output: bool,
) -> Result<Output> {
    let (size, weights) = (size.into(), weights.into());
    let g = sp.graph().clone();
    crate::new_op(&g, "SparseBincount")
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .input(size)
        .input(weights)
        .attr("binary_output", binary_output)
        .build()?
        .output(0)
}

/// The raw op `RaggedBincount(splits, values, size, weights, binary_output)`: dense counts
/// `[nrows, size]` of each ragged row's values below `size`.
pub fn ragged_bincount_op(
    splits: impl Into<Output>,
    values: impl Into<Output>,
    size: impl Into<Output>,
    weights: impl Into<Output>,
    binary_output: bool,
) -> Result<Output> {
    let (s, v, n, w) = (splits.into(), values.into(), size.into(), weights.into());
    let g = crate::util::same_graph(&[&s, &v, &n, &w])?.clone();
    crate::new_op(&g, "RaggedBincount")
        .input(s)
        .input(v)
        .input(n)
        .input(w)
        .attr("binary_output", binary_output)
        .build()?
        .output(0)
}

/// Counts per batch row (a sorted map per row), as the count kernels accumulate them.
struct Counts<W> {
    rows: Vec<BTreeMap<i64, W>>,
    max_value: i64,
}

impl<W: Arith> Counts<W> {
    fn new(rows: usize) -> Counts<W> {
        Counts {
            rows: (0..rows).map(|_| BTreeMap::new()).collect(),
            max_value: 0,
        }
    }

    fn add(&mut self, row: usize, value: i64, weight: Option<W>, attrs: &CountAttrs) {
        let max = attrs.maxlength.unwrap_or(-1);
        if value < 0 || (max > 0 && value >= max) {
            return;
        }
        let slot = self.rows[row].entry(value).or_default();
        *slot = match (attrs.binary_output, weight) {
            (true, _) => W::one(),
            (false, Some(w)) => W::add(*slot, w),
            (false, None) => W::add(*slot, W::one()),
        };
        self.max_value = self.max_value.max(value);
    }

    fn outputs(self, attrs: &CountAttrs, is_1d: bool, ctx: &mut OpContext<'_>) -> Result<()> {
        let (min, max) = (attrs.minlength.unwrap_or(-1), attrs.maxlength.unwrap_or(-1));
        let width = if max > 0 {
            max
        } else {
            (self.max_value + 1).max(min)
        };
        let total: usize = self.rows.iter().map(|r| r.len()).sum();
        let inner = if is_1d { 1 } else { 2 };
        let mut indices = Vec::with_capacity(total * inner);
        let mut values = Vec::with_capacity(total);
        for (b, row) in self.rows.iter().enumerate() {
            for (&v, &c) in row {
                if !is_1d {
                    indices.push(b as i64);
                }
                indices.push(v);
                values.push(c);
            }
        }
        let shape = if is_1d {
            vec![width]
        } else {
            vec![self.rows.len() as i64, width]
        };
        ctx.set_output(0, Tensor::from_vec(&[total, inner], indices)?);
        ctx.set_output(1, Tensor::from_vec(&[total], values)?);
        ctx.set_output(2, Tensor::from_vec(&[shape.len()], shape)?);
        Ok(())
    }
}

/// A tensor as TensorFlow's `Tensor::DebugString` prints an int64 one (first 3 values).
fn debug_string(t: &Tensor) -> Result<String> {
    let v = to_i64s(t)?;
    let mut parts: Vec<String> = v.iter().take(3).map(|x| x.to_string()).collect();
    if v.len() > 3 {
        parts.push("...".to_string());
    }
    Ok(format!(
        "Tensor<type: {} shape: {} values: {}>",
        t.dtype(),
        format_dims(t.shape()),
        parts.join(" ")
    ))
}

fn weights_of<W: Arith>(w: &Tensor) -> Result<Option<&[W]>> {
    Ok(if w.num_elements() == 0 {
        None
    } else {
        Some(w.as_slice::<W>()?)
    })
}

fn no_negatives(values: &[i64]) -> Result<()> {
    if values.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument(
            "Input values must all be non-negative",
        ));
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum CountKind {
    Dense,
    Sparse,
    Ragged,
}

struct CountKernel {
    kind: CountKind,
    attrs: CountAttrs,
}

impl CountKernel {
    fn dense<W: Arith>(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, w) = (ctx.input(0).clone(), ctx.input(1).clone());
        if !matches!(data.rank(), 1 | 2) {
            return Err(Error::invalid_argument(format!(
                "Input must be a 1 or 2-dimensional tensor. Got: {}",
                format_dims(data.shape())
            )));
        }
        let weights = weights_of::<W>(&w)?;
        if weights.is_some() && w.shape() != data.shape() {
            return Err(Error::invalid_argument(format!(
                "Weights and data must have the same shape. Weight shape: {}; data shape: {}",
                format_dims(w.shape()),
                format_dims(data.shape())
            )));
        }
        let is_1d = data.rank() == 1;
        let batches = if is_1d { 1 } else { data.shape()[0] };
        if batches == 0 {
            return Err(Error::invalid_argument(
                "Invalid input: Shapes dimension cannot be 0.",
            ));
        }
        let values = to_i64s(&data)?;
        no_negatives(&values)?;
        let per = values.len() / batches;
        let mut counts = Counts::<W>::new(batches);
        for (i, &v) in values.iter().enumerate() {
            counts.add(i / per.max(1), v, weights.map(|w| w[i]), &self.attrs);
        }
        counts.outputs(&self.attrs, is_1d, ctx)
    }

    fn sparse<W: Arith>(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (ix, vals, shape, w) = (
            ctx.input(0).clone(),
            ctx.input(1).clone(),
            ctx.input(2).clone(),
            ctx.input(3).clone(),
        );
        let bad = |m: String| Err(Error::invalid_argument(m));
        if ix.rank() != 2 {
            return bad(format!(
                "Input indices must be a 2-dimensional tensor. Got: {}",
                format_dims(ix.shape())
            ));
        }
        if vals.rank() != 1 {
            return bad(format!(
                "Input values must be a vector. Got: {}",
                format_dims(vals.shape())
            ));
        }
        if shape.rank() != 1 {
            return bad(format!(
                "Input shape must be a vector. Got: {}",
                format_dims(shape.shape())
            ));
        }
        let (n, rank) = (ix.shape()[0], ix.shape()[1]);
        if vals.shape()[0] != n {
            return bad(format!(
                "Number of values must match first dimension of indices.Got {} values, indices \
                 shape: {}",
                vals.shape()[0],
                format_dims(ix.shape())
            ));
        }
        if shape.shape()[0] != rank {
            return bad(format!(
                "Number of dimensions must match second dimension of indices.Got {} dimensions, \
                 indices shape: {}",
                shape.shape()[0],
                format_dims(ix.shape())
            ));
        }
        if shape.num_elements() == 0 {
            return bad("The shape argument requires at least one element.".to_string());
        }
        let indices = ix.as_slice::<i64>()?;
        let dense = shape.as_slice::<i64>()?;
        for i in 0..n {
            for j in 0..rank {
                let v = indices[i * rank + j];
                if v < 0 || v >= dense[j] {
                    return bad(format!(
                        "Invalid index value at {i}: dimension {j} has value {v} which is not in \
                         [0, {}) (as given by dense shape {}",
                        dense[j],
                        debug_string(&shape)?
                    ));
                }
            }
        }
        let weights = weights_of::<W>(&w)?;
        if weights.is_some() && w.shape() != vals.shape() {
            return bad(format!(
                "Weights and values must have the same shape. Weight shape: {}; values shape: {}",
                format_dims(w.shape()),
                format_dims(vals.shape())
            ));
        }
        let is_1d = dense.len() == 1;
        let batches = if is_1d { 1 } else { dense[0] };
        if batches <= 0 || batches >= i32::MAX as i64 {
            return bad(format!(
                "Cannot allocate {batches} batches, is the dense shape too wide?"
            ));
        }
        if dense.iter().any(|&d| d < 0) {
            return bad(format!(
                "Elements in dense_shape must be >= 0. Instead got:{}",
                debug_string(&shape)?
            ));
        }
        let values = to_i64s(&vals)?;
        no_negatives(&values)?;
        let mut counts = Counts::<W>::new(batches as usize);
        for (i, &v) in values.iter().enumerate() {
            let b = if is_1d { 0 } else { indices[i * rank] as usize };
            counts.add(b, v, weights.map(|w| w[i]), &self.attrs);
        }
        counts.outputs(&self.attrs, is_1d, ctx)
    }

    fn ragged<W: Arith>(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (splits_t, vals, w) = (
            ctx.input(0).clone(),
            ctx.input(1).clone(),
            ctx.input(2).clone(),
        );
        let weights = weights_of::<W>(&w)?;
        if weights.is_some() && w.shape() != vals.shape() {
            return Err(Error::invalid_argument(format!(
                "Weights and values must have the same shape. Weight shape: {}; values shape: {}",
                format_dims(w.shape()),
                format_dims(vals.shape())
            )));
        }
        let splits = splits_t.as_slice::<i64>()?;
        let values = to_i64s(&vals)?;
        let rows = check_splits(splits, values.len(), true)?;
        no_negatives(&values)?;
        let mut counts = Counts::<W>::new(rows);
        for (row, w) in splits.windows(2).enumerate() {
            for i in w[0] as usize..w[1] as usize {
                counts.add(row, values[i], weights.map(|w| w[i]), &self.attrs);
            }
        }
        counts.outputs(&self.attrs, false, ctx)
    }
}

/// The number of rows of `splits` over `n` values, with TensorFlow's errors; rows must be
/// non-decreasing (TensorFlow's kernels read out of bounds otherwise).
fn check_splits(splits: &[i64], n: usize, need_rows: bool) -> Result<usize> {
    let bad = |m: String| Err(Error::invalid_argument(m));
    if splits.len() < 2 && (need_rows || splits.is_empty()) {
        return bad("Must provide at least 2 elements for the splits argument".to_string());
    }
    if splits[0] != 0 {
        return bad(format!("Splits must start with 0, not with {}", splits[0]));
    }
    let last = splits[splits.len() - 1];
    if last != n as i64 {
        return bad(format!(
            "Splits must end with the number of values, got {last} instead of {n}"
        ));
    }
    if splits.windows(2).any(|w| w[1] < w[0]) {
        return bad("Splits must be non-decreasing".to_string());
    }
    Ok(splits.len() - 1)
}

impl Kernel for CountKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let w = ctx.input(ctx.num_inputs() - 1).dtype();
        macro_rules! go {
            ($W:ty) => {
                match self.kind {
                    CountKind::Dense => self.dense::<$W>(ctx),
                    CountKind::Sparse => self.sparse::<$W>(ctx),
                    CountKind::Ragged => self.ragged::<$W>(ctx),
                }
            };
        }
        match w {
            DType::I32 => go!(i32),
            DType::I64 => go!(i64),
            DType::F32 => go!(f32),
            DType::F64 => go!(f64),
            dt => Err(Error::invalid_argument(format!(
                "count ops do not support weights of {dt}"
            ))),
        }
    }
}

fn make_count(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = match node.op_type() {
        "DenseCountSparseOutput" => CountKind::Dense,
        "SparseCountSparseOutput" => CountKind::Sparse,
        _ => CountKind::Ragged,
    };
    let len = |name: &str| -> Result<Option<i64>> {
        let v = node.attr::<i64>(name)?;
        Ok((v >= 0).then_some(v))
    };
    Ok(Box::new(CountKernel {
        kind,
        attrs: CountAttrs {
            minlength: len("minlength")?,
            maxlength: len("maxlength")?,
            binary_output: node.attr("binary_output")?,
        },
    }))
}

fn count_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let rank = match ctx.op_type {
        "DenseCountSparseOutput" => ctx.input_shape(0).rank(),
        "SparseCountSparseOutput" => ctx.input_shape(2).dim(0),
        _ => Some(2),
    };
    ctx.set_output(0, Shape::new(vec![None, rank]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![rank]));
    Ok(())
}

fn count_def(name: &str, inputs: &[(&'static str, ArgType)]) -> OpDef {
    let mut def = OpDef::new(name);
    for (n, t) in inputs {
        def = def.input(n, t.clone());
    }
    def.output("output_indices", ArgType::Fixed(DType::I64))
        .output("output_values", ArgType::Attr("output_type"))
        .output("output_dense_shape", ArgType::Fixed(DType::I64))
        .type_attr("T", INDEX_TYPES)
        .attr("minlength", AttrKind::Int, Some(AttrValue::Int(-1)))
        .attr("maxlength", AttrKind::Int, Some(AttrValue::Int(-1)))
        .attr("binary_output", AttrKind::Bool, None)
        .type_attr("output_type", WEIGHT_TYPES)
        .shape_fn(count_shape)
}

pub(super) fn register() {
    let w = ("weights", ArgType::Attr("output_type"));
    let v = ("values", ArgType::Attr("T"));
    let i64_in = |n: &'static str| (n, ArgType::Fixed(DType::I64));
    register_op(count_def("DenseCountSparseOutput", &[v.clone(), w.clone()]));
    register_op(count_def(
        "SparseCountSparseOutput",
        &[
            i64_in("indices"),
            v.clone(),
            i64_in("dense_shape"),
            w.clone(),
        ],
    ));
    register_op(count_def(
        "RaggedCountSparseOutput",
        &[i64_in("splits"), v, w],
    ));
    for op in [
        "DenseCountSparseOutput",
        "SparseCountSparseOutput",
        "RaggedCountSparseOutput",
    ] {
        register_kernel(op, make_count);
    }
    bincount::register();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_splits_like_tensorflow() {
        assert_eq!(check_splits(&[0, 2, 3], 3, true).unwrap(), 2);
        assert_eq!(
            check_splits(&[1, 3], 3, true).unwrap_err().message(),
            "Splits must start with 0, not with 1"
        );
        assert!(check_splits(&[0, 3, 2, 3], 3, true).is_err());
        assert_eq!(check_splits(&[0], 0, false).unwrap(), 0);
    }
}
