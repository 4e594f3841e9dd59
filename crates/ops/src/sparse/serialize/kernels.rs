//! The kernels of the sparse serialization ops, with TensorFlow's checks in its order and its
//! messages. The strings a deserializing kernel reads are untrusted: a malformed proto, a
//! negative or huge shape, or lengths that do not fit end in a typed error, and no allocation
//! is sized by a number read from them.

use prost::Message;
use weir_graph::graph_def::proto::TensorProto;
use weir_graph::graph_def::{shape_proto, tensor_from_proto, tensor_proto_content};
use weir_graph::{format_dims, Bytes, DType, Error, Kernel, OpContext, Result, Shape, Tensor};

use super::super::show_index;
use super::super::tensors_map::{check_sparse_ranks, concat_values, stack_indices, take_values};

/// `SerializeSparse`, or with `many` `SerializeManySparse`.
pub(super) struct SerializeKernel {
    pub(super) many: bool,
}

impl Kernel for SerializeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape) = (ctx.input(0), ctx.input(1), ctx.input(2));
        check_sparse_ranks(indices, values, shape)?;
        let out = if self.many {
            serialize_many(indices, values, &shape.to_vec::<i64>()?)?
        } else {
            serialized(indices, values, shape)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The string `[3]` that `SerializeSparse` makes of a sparse tensor's parts.
pub(crate) fn serialized(indices: &Tensor, values: &Tensor, shape: &Tensor) -> Result<Tensor> {
    let parts = vec![
        proto_bytes(indices)?,
        proto_bytes(values)?,
        proto_bytes(shape)?,
    ];
    Tensor::from_vec(&[3], parts)
}

/// The bytes of `t`'s `TensorProto` as TensorFlow's `AsProtoTensorContent` lays it out:
/// `tensor_content` for every dtype, strings too (in TensorFlow's string-list encoding).
pub(super) fn proto_bytes(t: &Tensor) -> Result<Bytes> {
    if t.dtype() != DType::String {
        return Ok(Bytes::from(tensor_proto_content(t)?.encode_to_vec()));
    }
    let p = TensorProto {
        dtype: DType::String.proto_number(),
        tensor_shape: Some(shape_proto(&Shape::known(t.shape()))),
        tensor_content: Bytes::from(encode_string_list(t.as_slice::<Bytes>()?)),
        ..TensorProto::default()
    };
    Ok(Bytes::from(p.encode_to_vec()))
}

/// TensorFlow's `EncodeStringList`: the varint32 length of every string, then the strings.
pub(super) fn encode_string_list(strings: &[Bytes]) -> Vec<u8> {
    let total: usize = strings.iter().map(|s| s.len() + 5).sum();
    let mut out = Vec::with_capacity(total);
    for s in strings {
        let mut len = s.len() as u32;
        while len >= 0x80 {
            out.push((len as u8) | 0x80);
            len >>= 7;
        }
        out.push(len as u8);
    }
    for s in strings {
        out.extend_from_slice(s);
    }
    out
}

/// TensorFlow's `DecodeStringList` of `n` strings, as slices of `content`; `None` unless the
/// lengths are there and the strings fill the rest exactly.
pub(super) fn decode_string_list(content: &Bytes, n: usize) -> Option<Vec<Bytes>> {
    // Each length takes a byte at least, so `n` is bounded by the input's size.
    if n > content.len() {
        return None;
    }
    let mut at = 0usize;
    let mut lens = Vec::with_capacity(n);
    for _ in 0..n {
        let mut len = 0u32;
        let mut shift = 0u32;
        loop {
            let b = *content.get(at)?;
            at += 1;
            len |= u32::from(b & 0x7f).wrapping_shl(shift);
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 28 {
                return None;
            }
        }
        lens.push(len as usize);
    }
    let total = lens.iter().try_fold(0usize, |acc, &l| acc.checked_add(l))?;
    if content.len() - at != total {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for l in lens {
        out.push(content.slice(at..at + l));
        at += l;
    }
    Some(out)
}

/// The rows of a minibatch sparse tensor (checked as TensorFlow checks it), each serialized
/// as a sparse tensor of one rank less: `[rows, 3]`, empty rows included.
pub(super) fn serialize_many(indices: &Tensor, values: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let rank = shape.len();
    if rank <= 1 {
        return Err(Error::invalid_argument(format!(
            "Rank of input SparseTensor should be > 1, but saw rank: {rank}"
        )));
    }
    check_dense_shape(shape)?;
    let (n, cols) = (indices.shape()[0], indices.shape()[1]);
    if n != values.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "indices and values rows (indexing dimension) must match. (indices = {n}, values = {})",
            values.shape()[0]
        )));
    }
    if cols != rank {
        return Err(Error::invalid_argument(
            "Order length must be SparseTensor rank.",
        ));
    }
    let idx = indices.as_slice::<i64>()?;
    indices_valid(idx, rank, shape)?;
    let rows = usize::try_from(shape[0])
        .map_err(|_| Error::invalid_argument(format!("Too many rows: {}", shape[0])))?;
    let blank = [
        proto_bytes(&Tensor::from_vec(&[0, rank - 1], Vec::<i64>::new())?)?,
        proto_bytes(&take_values(values, &[])?)?,
        proto_bytes(&Tensor::from(shape[1..].to_vec()))?,
    ];
    // The number of rows is the caller's; an impossible one is refused, not aborted on.
    let mut out: Vec<Bytes> = Vec::new();
    rows.checked_mul(3)
        .and_then(|len| out.try_reserve_exact(len).ok())
        .ok_or_else(|| {
            Error::resource_exhausted(format!(
                "Cannot allocate the [{rows},3] strings of SerializeManySparse"
            ))
        })?;
    for _ in 0..rows {
        out.extend(blank.iter().cloned());
    }
    // The indices are in order, so each row's entries are consecutive.
    let mut start = 0;
    while start < n {
        let row = idx[start * rank];
        let end = (start..n).find(|&k| idx[k * rank] != row).unwrap_or(n);
        let mut sub = Vec::with_capacity((end - start) * (rank - 1));
        for at in idx[start * rank..end * rank].chunks_exact(rank) {
            sub.extend_from_slice(&at[1..]);
        }
        let ks: Vec<usize> = (start..end).collect();
        // indices_valid put `row` in [0, rows).
        let at = row as usize * 3;
        out[at] = proto_bytes(&Tensor::from_vec(&[end - start, rank - 1], sub)?)?;
        out[at + 1] = proto_bytes(&take_values(values, &ks)?)?;
        start = end;
    }
    Tensor::from_vec(&[rows, 3], out)
}

/// TensorFlow's `MultiplyWithoutOverflow` of two non-negative numbers: their product, -1 when
/// it overflows 64 unsigned bits, negative when it overflows 63.
pub(super) fn multiply_without_overflow(x: i64, y: i64) -> i64 {
    (x as u64).checked_mul(y as u64).map_or(-1, |p| p as i64)
}

/// TensorFlow's checks as it makes a `TensorShape` of `dims`: no negative dimension, and a
/// number of elements that fits in int64.
pub(super) fn check_dense_shape(dims: &[i64]) -> Result<()> {
    let mut n = 1i64;
    for &d in dims {
        if d < 0 {
            return Err(Error::invalid_argument(format!(
                "Expected shape dimensions to be non-negative, got {d}"
            )));
        }
        let p = multiply_without_overflow(n, d);
        if p < 0 {
            return Err(Error::invalid_argument(format!(
                "Encountered overflow when multiplying {n} with {d}, result: {p}"
            )));
        }
        n = p;
    }
    Ok(())
}

/// TensorFlow's `SparseTensor::IndicesValid` for the standard order: every index inside
/// `shape`, and each after the one before it.
pub(super) fn indices_valid(idx: &[i64], rank: usize, shape: &[i64]) -> Result<()> {
    let mut prev: Option<&[i64]> = None;
    for (n, cur) in idx.chunks_exact(rank.max(1)).enumerate() {
        let index = || format!("indices[{n}] = [{}]", show_index(cur));
        if cur.iter().zip(shape).any(|(&x, &d)| x < 0 || x >= d) {
            return Err(Error::invalid_argument(format!(
                "{} is out of bounds: need 0 <= index < [{}]",
                index(),
                show_index(shape)
            )));
        }
        match prev.map(|p| p.cmp(cur)) {
            Some(std::cmp::Ordering::Greater) => {
                return Err(Error::invalid_argument(format!(
                    "{} is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                    index()
                )))
            }
            Some(std::cmp::Ordering::Equal) => {
                return Err(Error::invalid_argument(format!("{} is repeated", index())))
            }
            _ => {}
        }
        prev = Some(cur);
    }
    Ok(())
}

/// `DeserializeSparse` and `DeserializeManySparse`, which share TensorFlow's kernel.
pub(super) struct DeserializeKernel {
    pub(super) dtype: DType,
}

impl Kernel for DeserializeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let [indices, values, shape] = deserialize(ctx.input(0), self.dtype)?;
        ctx.set_output(0, indices);
        ctx.set_output(1, values);
        ctx.set_output(2, shape);
        Ok(())
    }
}

/// The sparse tensors serialized in `s` (`[d1, ..., dP, 3]`) as one, of rank P + R.
pub(super) fn deserialize(s: &Tensor, dtype: DType) -> Result<[Tensor; 3]> {
    let dims = s.shape();
    let Some((&last, prefix)) = dims.split_last() else {
        return Err(Error::invalid_argument(
            "Serialized sparse should have non-zero rank []",
        ));
    };
    if last != 3 {
        return Err(Error::invalid_argument(format!(
            "Serialized sparse should have 3 as the last dimension {}",
            format_dims(dims)
        )));
    }
    let count: usize = prefix.iter().product();
    if count == 0 {
        return Err(Error::invalid_argument(format!(
            "Serialized sparse should have at least 1 serialized tensor, but has a zero dimension {}",
            format_dims(dims)
        )));
    }
    let strs = s.as_slice::<Bytes>()?;
    let mut fill = MAX_FILLED;
    if prefix.is_empty() {
        // TensorFlow hands the one sparse tensor on as it is, unchecked beyond its parts.
        let [indices, values, shape] = element(strs, 0, dtype, &mut fill)?;
        for (k, t) in [(0, &indices), (2, &shape)] {
            if t.dtype() != DType::I64 {
                return Err(Error::internal(format!(
                    "Output {k} of type {} does not match declared output type int64",
                    t.dtype().name()
                )));
            }
        }
        return Ok([indices, values, shape]);
    }
    let mut indices = Vec::with_capacity(count);
    let mut values = Vec::with_capacity(count);
    let mut max: Vec<i64> = Vec::new();
    for (i, parts) in strs.chunks_exact(3).enumerate() {
        let [ind, vals, shape] = element(parts, i, dtype, &mut fill)?;
        for (what, t) in [("indices", &ind), ("dense shape", &shape)] {
            if t.dtype() != DType::I64 {
                return Err(Error::invalid_argument(format!(
                    "SparseTensor[{i}] has {} {what}, which must be int64",
                    t.dtype().name()
                )));
            }
        }
        let shape = shape.to_vec::<i64>()?;
        let mut expanded = vec![1];
        expanded.extend_from_slice(&shape);
        check_dense_shape(&expanded)?;
        if i == 0 {
            max = shape;
        } else if shape.len() != max.len() {
            return Err(Error::invalid_argument(format!(
                "Inconsistent shape across SparseTensors: rank prior to SparseTensor[{i}] was: {} but rank of SparseTensor[{i}] is: {}",
                max.len(),
                shape.len()
            )));
        } else {
            for (m, d) in max.iter_mut().zip(&shape) {
                *m = (*m).max(*d);
            }
        }
        indices.push(ind);
        values.push(vals);
    }
    let mut stacked = vec![count as i64];
    stacked.extend_from_slice(&max);
    check_dense_shape(&stacked)?;
    let parts: Vec<&Tensor> = indices.iter().collect();
    let mut idx = stack_indices(&parts, max.len())?;
    let values = concat_values(&values, dtype)?;
    let mut shape = stacked;
    if prefix.len() > 1 {
        let mut target: Vec<i64> = prefix.iter().map(|&d| d as i64).collect();
        target.extend_from_slice(&max);
        idx = reshape_indices(&idx, &shape, &target)?;
        shape = target;
    }
    let nnz = values.num_elements();
    Ok([
        Tensor::from_vec(&[nnz, shape.len()], idx)?,
        values,
        Tensor::from(shape),
    ])
}

/// Row-major strides of `dims`.
fn strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; dims.len()];
    for j in (0..dims.len().saturating_sub(1)).rev() {
        s[j] = s[j + 1].wrapping_mul(dims[j + 1]);
    }
    s
}

/// TensorFlow's reshape of sparse indices (rows of `from.len()` coordinates) from the dense
/// shape `from` to `to`, of as many elements: each index's row-major offset, read again in the
/// new shape. As in TensorFlow, coordinates are not checked against the shape; one outside it
/// lands where the arithmetic puts it (a shape with no elements has nowhere to put it).
pub(super) fn reshape_indices(idx: &[i64], from: &[i64], to: &[i64]) -> Result<Vec<i64>> {
    let (fs, ts) = (strides(from), strides(to));
    let rows = idx.len() / from.len().max(1);
    let mut out = Vec::with_capacity(rows * to.len());
    for at in idx.chunks_exact(from.len().max(1)) {
        let mut id = at
            .iter()
            .zip(&fs)
            .fold(0i64, |acc, (&x, &s)| acc.wrapping_add(x.wrapping_mul(s)));
        for &s in &ts {
            let (Some(q), Some(r)) = (id.checked_div(s), id.checked_rem(s)) else {
                return Err(Error::invalid_argument(format!(
                    "SparseTensor index [{}] lies outside the dense shape [{}], which has no elements",
                    show_index(at),
                    show_index(from)
                )));
            };
            out.push(q);
            id = r;
        }
    }
    Ok(out)
}

/// Element `i` of a serialized batch (its three strings), checked as TensorFlow checks it;
/// `fill` is what remains of the batch's allowance for values its protos leave out.
fn element(parts: &[Bytes], i: usize, dtype: DType, fill: &mut usize) -> Result<[Tensor; 3]> {
    let indices = tensor_of(&parts[0], fill)?;
    if indices.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "Expected serialized_sparse[{i}, 0] to represent an index matrix but received shape {}",
            format_dims(indices.shape())
        )));
    }
    let values = tensor_of(&parts[1], fill)?;
    if values.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected serialized_sparse[{i}, 1] to represent a values vector but received shape {}",
            format_dims(values.shape())
        )));
    }
    if values.dtype() != dtype {
        return Err(Error::invalid_argument(format!(
            "Requested SparseTensor of type {} but SparseTensor[{i}].values.dtype() == {}",
            dtype.name(),
            values.dtype().name()
        )));
    }
    let (n, rank) = (indices.shape()[0], indices.shape()[1]);
    if n != values.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "Expected row counts of SparseTensor[{i}].indices and SparseTensor[{i}].values to match but they do not: {n} vs. {}",
            values.shape()[0]
        )));
    }
    let shape = tensor_of(&parts[2], fill)?;
    if shape.rank() != 1 {
        // (TensorFlow's message names column 1 here.)
        return Err(Error::invalid_argument(format!(
            "Expected serialized_sparse[{i}, 1] to be a shape vector but its shape is {}",
            format_dims(shape.shape())
        )));
    }
    if rank != shape.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "Expected column counts of SparseTensor[{i}].indices to match size of SparseTensor[{i}].shape but they do not: {rank} vs. {}",
            shape.shape()[0]
        )));
    }
    Ok([indices, values, shape])
}

/// The most elements the protos of one batch may declare beyond the values they carry:
/// TensorFlow repeats the last value (or zero) to fill a shape, and a few bytes must not fill
/// gigabytes here. (TensorFlow's own protos always carry every value.)
pub(super) const MAX_FILLED: usize = 1 << 20;

/// A serialized `TensorProto` as a tensor, as TensorFlow's `Tensor::FromProto` reads it: values
/// beyond the shape's are ignored, missing ones repeat the last (or zero), at most `fill` of
/// them (which this lowers).
pub(super) fn tensor_of(bytes: &[u8], fill: &mut usize) -> Result<Tensor> {
    let mut p = TensorProto::decode(bytes)
        .map_err(|_| Error::invalid_argument("Could not parse serialized proto"))?;
    let bad = || Error::invalid_argument("Could not construct tensor from proto");
    let dtype = DType::from_proto_number(p.dtype)
        .filter(|d| *d != DType::Resource)
        .ok_or_else(bad)?;
    let mut n = 1usize;
    let mut dims = Vec::new();
    if let Some(s) = &p.tensor_shape {
        if s.unknown_rank {
            return Err(bad());
        }
        for d in &s.dim {
            let d = usize::try_from(d.size).map_err(|_| bad())?;
            n = n
                .checked_mul(d)
                .filter(|&n| n <= i64::MAX as usize)
                .ok_or_else(bad)?;
            dims.push(d);
        }
    }
    if dtype == DType::String && !p.tensor_content.is_empty() {
        let strings = decode_string_list(&p.tensor_content, n).ok_or_else(bad)?;
        return Tensor::from_vec(&dims, strings).map_err(|_| bad());
    }
    if !p.tensor_content.is_empty() {
        // Numbers must fill the shape exactly.
        let size = dtype.size_of().ok_or_else(bad)?;
        if n.checked_mul(size) != Some(p.tensor_content.len()) {
            return Err(bad());
        }
    } else {
        let given = match dtype {
            DType::F32 => p.float_val.len(),
            DType::F64 => p.double_val.len(),
            DType::I64 => p.int64_val.len(),
            DType::Bool => p.bool_val.len(),
            DType::String => p.string_val.len(),
            _ => p.int_val.len(),
        };
        let missing = n.saturating_sub(given);
        *fill = fill.checked_sub(missing).ok_or_else(bad)?;
        p.float_val.truncate(n);
        p.double_val.truncate(n);
        p.int_val.truncate(n);
        p.int64_val.truncate(n);
        p.bool_val.truncate(n);
        p.string_val.truncate(n);
    }
    tensor_from_proto(&p).map_err(|_| bad())
}
