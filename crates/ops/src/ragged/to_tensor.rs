//! `RaggedTensorToTensor`: `RaggedTensor.to_tensor(default_value, shape)`, padding (or
//! truncating) every ragged row into a dense tensor.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor, TensorType,
};

use super::checks::{bounded, ints};
use super::RaggedOutput;

/// How one row-partition tensor of `RaggedTensorToTensor` describes a ragged dimension
/// (TensorFlow's `RowPartitionType` names, the strings of the `row_partition_types` attr).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowPartitionType {
    /// A scalar: the number of rows of the outermost dimension (only first, and followed by
    /// `ValueRowids` partitions).
    FirstDimSize,
    /// For each value, the row it belongs to (non-decreasing).
    ValueRowids,
    /// The row splits: row `i` holds values `splits[i]..splits[i + 1]`.
    RowSplits,
}

impl RowPartitionType {
    /// The attr string (`"ROW_SPLITS"`).
    pub fn as_str(self) -> &'static str {
        match self {
            RowPartitionType::FirstDimSize => "FIRST_DIM_SIZE",
            RowPartitionType::ValueRowids => "VALUE_ROWIDS",
            RowPartitionType::RowSplits => "ROW_SPLITS",
        }
    }
}

/// The partition types of a node, checked as TensorFlow's shape function checks them.
fn partition_types(names: &[String]) -> Result<Vec<RowPartitionType>> {
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        out.push(match n.as_str() {
            "FIRST_DIM_SIZE" => RowPartitionType::FirstDimSize,
            "VALUE_ROWIDS" => RowPartitionType::ValueRowids,
            "ROW_SPLITS" => RowPartitionType::RowSplits,
            "ROW_LENGTHS" | "ROW_LIMITS" | "ROW_STARTS" => {
                return Err(Error::invalid_argument(format!(
                    "Unsupported partition type: {n}"
                )))
            }
            _ => {
                return Err(Error::invalid_argument(format!(
                    "Unknown string for partition info type: {n}"
                )))
            }
        });
    }
    match out.first() {
        None => Err(Error::invalid_argument("No row_partition_types given.")),
        Some(RowPartitionType::ValueRowids) => {
            Err(Error::invalid_argument("VALUE_ROWIDS cannot be first"))
        }
        Some(RowPartitionType::FirstDimSize) if out.len() < 2 => Err(Error::invalid_argument(
            "FIRST_DIM_SIZE must be followed by a row partition",
        )),
        _ => Ok(out),
    }
}

/// Options of `rt.to_tensor(default_value=None, shape=None)` (op `RaggedTensorToTensor` with
/// `ROW_SPLITS` partitions).
#[derive(Clone, Debug, Default)]
pub struct RaggedToTensor {
    default_value: Option<Tensor>,
    default_output: Option<Output>,
    shape: Option<Shape>,
}

impl RaggedToTensor {
    /// TensorFlow's defaults: pad with zeros, as large as the ragged tensor's bounding box.
    pub fn new() -> RaggedToTensor {
        RaggedToTensor::default()
    }

    /// The padding value (of the values' dtype; a scalar, or a shape that broadcasts to one
    /// value's inner shape).
    pub fn default_value(mut self, v: impl Into<Tensor>) -> Self {
        self.default_value = Some(v.into());
        self.default_output = None;
        self
    }

    /// The padding value as a graph output.
    pub fn default_value_output(mut self, v: impl Into<Output>) -> Self {
        self.default_output = Some(v.into());
        self.default_value = None;
        self
    }

    /// The output's shape: a known dim truncates or pads that dimension, an unknown one is as
    /// long as the longest row (TensorFlow's `shape=[None, 3]`).
    pub fn shape(mut self, shape: impl Into<Shape>) -> Self {
        self.shape = Some(shape.into());
        self
    }

    /// Adds the op for `rt`.
    pub fn build(&self, rt: &RaggedOutput) -> Result<Output> {
        use crate::array::constant;
        let g = rt.graph().clone();
        let _scope = g.name_scope("RaggedToTensor");
        let default = match (&self.default_output, &self.default_value) {
            (Some(o), _) => o.clone(),
            (None, Some(t)) => constant(&g, t.clone())?,
            (None, None) => constant(&g, Tensor::zeros(rt.dtype(), &[])?)?,
        };
        let sdt = rt.row_splits_dtype();
        let dims: Option<Vec<i64>> = self.shape.as_ref().and_then(|s| {
            s.dims()
                .map(|d| d.iter().map(|x| x.map_or(-1, |v| v as i64)).collect())
        });
        let shape_t = match (dims, sdt) {
            (None, DType::I32) => Tensor::scalar(-1i32),
            (None, _) => Tensor::scalar(-1i64),
            (Some(d), DType::I32) => {
                Tensor::from_vec(&[d.len()], d.iter().map(|&x| x as i32).collect())?
            }
            (Some(d), _) => Tensor::from_vec(&[d.len()], d)?,
        };
        let types = vec![RowPartitionType::RowSplits; rt.ragged_rank()];
        ragged_tensor_to_tensor_op(
            constant(&g, shape_t)?,
            &rt.flat_values,
            default,
            &rt.nested_row_splits,
            &types,
        )
    }
}

/// The raw op `RaggedTensorToTensor(shape, values, default_value, row_partition_tensors,
/// row_partition_types)`: `shape` an int32/int64 scalar `-1` (unknown) or vector (`-1` for an
/// unknown dim).
pub fn ragged_tensor_to_tensor_op(
    shape: impl Into<Output>,
    values: &Output,
    default_value: impl Into<Output>,
    row_partition_tensors: &[Output],
    row_partition_types: &[RowPartitionType],
) -> Result<Output> {
    let g = values.graph().clone();
    let types: Vec<String> = row_partition_types
        .iter()
        .map(|t| t.as_str().to_string())
        .collect();
    crate::new_op(&g, "RaggedTensorToTensor")
        .input(shape)
        .input(values)
        .input(default_value)
        .inputs(row_partition_tensors.iter().cloned())
        .attr(
            "num_row_partition_tensors",
            row_partition_tensors.len() as i64,
        )
        .attr("row_partition_types", types)
        .build()?
        .output(0)
}

/// A shape's dims as TensorFlow's `TensorShape::DebugString` prints a partial shape.
fn debug_dims(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(","))
}

/// The output dims, `-1` where the data decides, from the `shape` input and the values' shape.
fn combine_shapes(ragged_rank: usize, shape: Option<&[i64]>, values: &[usize]) -> Result<Vec<i64>> {
    let want = ragged_rank + values.len();
    let mut out: Vec<i64> = match shape {
        None => vec![-1; want],
        Some(s) => s.to_vec(),
    };
    let shown = || shape.map_or("<unknown>".to_string(), debug_dims);
    if out.len() != want {
        return Err(Error::invalid_argument(format!(
            "rt_input.shape and shape={} are incompatible: rt_input.rank = {want} but shape.rank \
             = {}",
            shown(),
            out.len()
        )));
    }
    for i in 1..values.len() {
        let k = out.len() - values.len() + i;
        let v = values[i] as i64;
        if out[k] >= 0 && out[k] != v {
            return Err(Error::invalid_argument(format!(
                "rt_input.shape and shape={} are incompatible: rt_input.shape[{}] = {v} but \
                 shape[{}] = {}",
                shown(),
                i + ragged_rank,
                i + ragged_rank,
                out[k]
            )));
        }
        out[k] = v;
    }
    Ok(out)
}

fn validate_default(default: &[usize], values: &[usize]) -> Result<()> {
    let shown = |d: &[usize]| format_dims(d);
    if default.len() >= values.len() {
        return Err(Error::invalid_argument(format!(
            "default_value.shape={} and rt_input.flat_values.shape={} are incompatible: \
             default_value.rank = {}  must be less than rt_input.flat_values.rank = {}",
            shown(default),
            shown(values),
            default.len(),
            values.len()
        )));
    }
    for i in 0..default.len().min(values.len() - 1) {
        let (d, v) = (default[i], values[i + 1]);
        if d != 1 && d != v {
            let at = i as i64 - default.len() as i64;
            return Err(Error::invalid_argument(format!(
                "default_value.shape={} and rt_input.flat_values.shape={} are incompatible: \
                 default_value.shape[{at}] = {d} but rt_input.flat_values.shape[{at}] = {v}",
                shown(default),
                shown(values)
            )));
        }
    }
    Ok(())
}

/// Where each value of the next level goes in the output (`-1`: dropped), given where each
/// row of this level starts (`parent`), for one row partition.
fn next_level(
    kind: RowPartitionType,
    part: &[i64],
    parent: &[i64],
    stride: i64,
    width: i64,
) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    match kind {
        RowPartitionType::RowSplits => {
            if part.len().saturating_sub(1) > parent.len() {
                return Err(Error::invalid_argument(format!(
                    "Row partition size is greater than output size: {} > {}",
                    part.len() - 1,
                    parent.len()
                )));
            }
            let total = part.last().copied().unwrap_or(0);
            bounded(total, DType::I64, &[])?;
            for (i, w) in part.windows(2).enumerate() {
                let len = w[1] - w[0];
                if len > total - out.len() as i64 {
                    return Err(Error::invalid_argument("Invalid row split size."));
                }
                let kept = if parent[i] < 0 {
                    0
                } else {
                    width.min(len).max(0)
                };
                out.extend((0..kept).map(|j| parent[i] + j * stride));
                out.extend((kept..len).map(|_| -1));
            }
            if !part.is_empty() && out.len() as i64 != total {
                return Err(Error::invalid_argument("Invalid row split size."));
            }
        }
        RowPartitionType::ValueRowids => {
            let mut column = 0i64;
            let mut prev: Option<i64> = None;
            let mut at = -1i64;
            for &row in part {
                if prev == Some(row) {
                    if at >= 0 {
                        column += 1;
                        at = if column < width { at + stride } else { -1 };
                    }
                } else {
                    let which = if prev.is_none() { "current" } else { "next" };
                    let p = usize::try_from(row)
                        .ok()
                        .and_then(|r| parent.get(r))
                        .ok_or_else(|| {
                            Error::invalid_argument(format!(
                                "Got {which}_value_rowid={row} which is not less than {}",
                                parent.len()
                            ))
                        })?;
                    column = 0;
                    at = *p;
                    prev = Some(row);
                }
                out.push(at);
            }
        }
        RowPartitionType::FirstDimSize => {
            return Err(Error::invalid_argument(
                "Unsupported partition type:FIRST_DIM_SIZE",
            ))
        }
    }
    Ok(out)
}

fn max_width(kind: RowPartitionType, part: &[i64]) -> i64 {
    match kind {
        RowPartitionType::RowSplits => part.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0),
        _ => {
            let (mut best, mut run) = (0i64, 0i64);
            for (i, &r) in part.iter().enumerate() {
                run = if i > 0 && part[i - 1] == r {
                    run + 1
                } else {
                    1
                };
                best = best.max(run);
            }
            best
        }
    }
}

fn fill<T: TensorType>(
    values: &Tensor,
    default: &Tensor,
    index: &[i64],
    dims: &[usize],
    inner: &[usize],
) -> Result<Tensor> {
    let v = values.as_slice::<T>()?;
    let d = default.as_slice::<T>()?;
    let width: usize = inner.iter().product();
    // The default broadcast (right-aligned) to one value's shape.
    let pad: Vec<T> = if d.len() == width {
        d.to_vec()
    } else if d.len() == 1 {
        vec![d[0].clone(); width]
    } else {
        let dd = default.shape();
        let off = inner
            .len()
            .checked_sub(dd.len())
            .ok_or_else(|| Error::invalid_argument("Error broadcasting default_value"))?;
        if dd
            .iter()
            .zip(&inner[off..])
            .any(|(&a, &b)| a != 1 && a != b)
        {
            return Err(Error::invalid_argument("Error broadcasting default_value"));
        }
        (0..width)
            .map(|flat| {
                let (mut rest, mut src, mut mul) = (flat, 0usize, 1usize);
                for k in (0..inner.len()).rev() {
                    let c = rest % inner[k];
                    rest /= inner[k];
                    if k >= off {
                        let dk = dd[k - off];
                        src += (c % dk) * mul;
                        mul *= dk;
                    }
                }
                d[src].clone()
            })
            .collect()
    };
    let total: usize = dims.iter().product();
    let slots = total.checked_div(width).unwrap_or(0);
    let mut out = Vec::with_capacity(total);
    for _ in 0..slots {
        out.extend_from_slice(&pad);
    }
    let nvals = values.shape().first().copied().unwrap_or(0);
    for (k, &dst) in index.iter().enumerate() {
        if dst < 0 {
            continue;
        }
        if k >= nvals {
            return Err(Error::invalid_argument(format!(
                "The row partitions reach value {k} but there are only {nvals} values"
            )));
        }
        let dst = dst as usize * width;
        if let (Some(o), Some(s)) = (
            out.get_mut(dst..dst + width),
            v.get(k * width..(k + 1) * width),
        ) {
            o.clone_from_slice(s);
        }
    }
    Tensor::from_vec(dims, out)
}

struct ToTensorKernel {
    types: Vec<RowPartitionType>,
}

impl Kernel for ToTensorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (shape_t, values, default) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let first = ctx.input(3);
        if first.num_elements() == 0 {
            return Err(Error::invalid_argument(
                "Invalid first partition input. Tensor requires at least one element.",
            ));
        }
        let starts_with_size = self.types[0] == RowPartitionType::FirstDimSize;
        let first_dim = if starts_with_size {
            ints(first)?[0]
        } else {
            first.shape().first().map_or(0, |&d| d as i64 - 1)
        };
        let ragged: Vec<RowPartitionType> = self.types[usize::from(starts_with_size)..].to_vec();
        let parts: Vec<Vec<i64>> = (0..ragged.len())
            .map(|i| ints(ctx.input(3 + usize::from(starts_with_size) + i)))
            .collect::<Result<_>>()?;
        let rr = ragged.len();
        if values.rank() == 0 {
            return Err(Error::invalid_argument("values must have rank at least 1"));
        }
        validate_default(default.shape(), values.shape())?;
        let shape = match shape_t.rank() {
            0 => None,
            1 => Some(ints(shape_t)?),
            r => {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at most rank 1 but is rank {r}"
                )))
            }
        };
        if let Some(&bad) = shape.iter().flatten().find(|&&d| d < -1) {
            return Err(Error::invalid_argument(format!(
                "Dimension {bad} must be >= -1"
            )));
        }
        let mut size = combine_shapes(rr, shape.as_deref(), values.shape())?;
        if size[0] < 0 {
            size[0] = first_dim;
        }
        for i in 1..=rr {
            if size[i] < 0 {
                size[i] = max_width(ragged[i - 1], &parts[i - 1]);
            }
        }
        if let Some(&bad) = size.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!(
                "Dimension {bad} must be >= 0"
            )));
        }
        let total = size
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
            .unwrap_or(i64::MAX);
        let dims: Vec<usize> = size.iter().map(|&d| d as usize).collect();
        bounded(total, values.dtype(), &dims)?;
        let inner = &dims[rr + 1..];
        // stride[i]: output slots (of one value each) per step along dimension i.
        let mut stride = vec![1i64; rr + 1];
        for i in (0..rr).rev() {
            stride[i] = stride[i + 1] * size[i + 1];
        }
        let mut index: Vec<i64> = Vec::new();
        if total > 0 {
            let n = first_dim.max(0);
            bounded(n, DType::I64, &[])?;
            index = (0..n)
                .map(|i| if i < size[0] { i * stride[0] } else { -1 })
                .collect();
            for i in 1..=rr {
                index = next_level(ragged[i - 1], &parts[i - 1], &index, stride[i], size[i])?;
            }
        }
        let dt = values.dtype();
        let out = weir_graph::match_data_dtype!(dt, T => fill::<T>(values, default, &index, &dims, inner)?,
            _ => return Err(Error::invalid_argument(format!("RaggedTensorToTensor does not support {dt}"))));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(ToTensorKernel {
        types: partition_types(&node.attr::<Vec<String>>("row_partition_types")?)?,
    }))
}

fn shape_fn(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let types = partition_types(&ctx.attr::<Vec<String>>("row_partition_types")?)?;
    let n = ctx.attr::<i64>("num_row_partition_tensors")? as usize;
    if n != types.len() {
        return Err(Error::invalid_argument(format!(
            "Number of row_partition_types ({}) does not match num_row_partition_tensors ({n})",
            types.len()
        )));
    }
    let rr = types.len() - usize::from(types[0] == RowPartitionType::FirstDimSize);
    let values = ctx.input_shape(1).clone();
    let shape: Option<Vec<i64>> = match ctx.input_const(0) {
        Some(t) if t.rank() == 1 => Some(ints(t)?),
        _ => None,
    };
    let out = match (values.dims(), shape) {
        (None, None) => Shape::unknown(),
        (None, Some(s)) => Shape::new(
            s.iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Vec<_>>(),
        ),
        (Some(v), s) => {
            let mut dims: Vec<Option<usize>> = match &s {
                Some(s) => s.iter().map(|&d| usize::try_from(d).ok()).collect(),
                None => vec![None; rr + v.len()],
            };
            if dims.len() != rr + v.len() {
                return Err(Error::invalid_argument(format!(
                    "rt_input.shape and shape={} are incompatible: rt_input.rank = {} but \
                     shape.rank = {}",
                    debug_dims(s.as_deref().unwrap_or(&[])),
                    rr + v.len(),
                    dims.len()
                )));
            }
            let off = dims.len() - v.len();
            for i in 1..v.len() {
                if dims[off + i].is_none() {
                    dims[off + i] = v[i];
                }
            }
            Shape::new(dims)
        }
    };
    ctx.set_output(0, out);
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("RaggedTensorToTensor")
            .input("shape", ArgType::Attr("Tshape"))
            .input("values", ArgType::Attr("T"))
            .input("default_value", ArgType::Attr("T"))
            .input(
                "row_partition_tensors",
                ArgType::Repeated {
                    count: "num_row_partition_tensors",
                    ty: "Tindex",
                },
            )
            .output("result", ArgType::Attr("T"))
            .type_attr("T", DType::ALL_DATA)
            .type_attr("Tindex", &[DType::I64, DType::I32])
            .type_attr("Tshape", &[DType::I64, DType::I32])
            .int_attr_min("num_row_partition_tensors", 1)
            .attr("row_partition_types", AttrKind::Strs, None)
            .shape_fn(shape_fn),
    );
    register_kernel("RaggedTensorToTensor", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_rows_and_drops_overflow() {
        let parent = [0, 3, -1];
        let got = next_level(RowPartitionType::RowSplits, &[0, 2, 6, 7], &parent, 1, 3).unwrap();
        assert_eq!(got, vec![0, 1, 3, 4, 5, -1, -1]);
        let got = next_level(RowPartitionType::ValueRowids, &[0, 0, 2], &parent, 1, 1).unwrap();
        assert_eq!(got, vec![0, -1, -1]);
        let e = next_level(RowPartitionType::ValueRowids, &[0, 5], &parent, 1, 1).unwrap_err();
        assert_eq!(
            e.message(),
            "Got next_value_rowid=5 which is not less than 3"
        );
    }
}
