//! The batch half of the Example parser: `FastParseExample`, the work of `parse_example`.

use bytes::Bytes;
use weir_graph::{format_dims, DType, Error, Result, Tensor};

use super::example::{
    could_not_parse, first_or_zero, kind_name, kind_of, lossy, sequence_shape_string, unsupported,
    AsF32, ExampleConfig, ParsedTensors, Ragged, Slot, Value,
};
use super::features::DenseSpec;
use super::wire::{example_entries, feature_kind, int64_list, Entry, Fixed, Kind};
use crate::util::vectorized;

/// The output of one dense feature across a batch while it is being filled.
enum DenseBatch {
    Fixed(FixedBuf),
    Sequence(RaggedBuf),
}

enum FixedBuf {
    I64(Vec<i64>),
    /// An int64 feature converted to float32 as it is decoded (for a following Cast).
    I64AsF32(Vec<f32>),
    F32(Vec<f32>),
    Str(Vec<Bytes>),
}

/// Features of at least this many values per example are zeroed example by example.
const PER_EXAMPLE_FILL: usize = 64;

impl FixedBuf {
    /// The buffer of a batch of `batch` examples of `per` values each. A large feature is
    /// filled one example at a time (`open_example`), so the zeroes a parse overwrites are
    /// written while they are in cache, not in a pass over the whole batch before it; a small
    /// one is cheaper zeroed at once.
    fn new(dtype: DType, as_f32: bool, batch: usize, per: usize) -> FixedBuf {
        fn zeroed<T: Clone>(cap: usize, filled: usize, zero: T) -> Vec<T> {
            let mut v = Vec::with_capacity(cap);
            v.resize(filled, zero);
            v
        }
        let n = batch * per;
        let filled = if per >= PER_EXAMPLE_FILL { 0 } else { n };
        match dtype {
            DType::I64 if as_f32 => FixedBuf::I64AsF32(zeroed(n, filled, 0.0)),
            DType::I64 => FixedBuf::I64(zeroed(n, filled, 0)),
            DType::F32 => FixedBuf::F32(zeroed(n, filled, 0.0)),
            _ => FixedBuf::Str(zeroed(n, filled, Bytes::new())),
        }
    }

    /// Makes room for the next example's `per` values (zero until parsed or defaulted), unless
    /// `new` zeroed the whole batch.
    fn open_example(&mut self, per: usize) {
        if per < PER_EXAMPLE_FILL {
            return;
        }
        match self {
            FixedBuf::I64(v) => v.resize(v.len() + per, 0),
            FixedBuf::F32(v) | FixedBuf::I64AsF32(v) => v.resize(v.len() + per, 0.0),
            FixedBuf::Str(v) => v.resize(v.len() + per, Bytes::new()),
        }
    }
}

enum RaggedBuf {
    I64(Ragged<i64>),
    F32(Ragged<f32>),
    Str(Ragged<Bytes>),
}

impl RaggedBuf {
    fn new(dtype: DType, batch: usize) -> RaggedBuf {
        match dtype {
            DType::I64 => RaggedBuf::I64(Ragged::new(batch)),
            DType::F32 => RaggedBuf::F32(Ragged::new(batch)),
            _ => RaggedBuf::Str(Ragged::new(batch)),
        }
    }

    /// Closes the current example.
    fn end_example(&mut self) {
        match self {
            RaggedBuf::I64(r) => r.ends.push(r.values.len()),
            RaggedBuf::F32(r) => r.ends.push(r.values.len()),
            RaggedBuf::Str(r) => r.ends.push(r.values.len()),
        }
    }
}

/// Where a batch error happened: `Name: ex0, Key: a, Index: 3.  `.
struct At<'a> {
    name: &'a [u8],
    key: &'a [u8],
    index: usize,
}

impl At<'_> {
    fn error(&self, what: &str) -> Error {
        Error::invalid_argument(format!(
            "Name: {}, Key: {}, Index: {}.  {what}",
            lossy(self.name),
            lossy(self.key),
            self.index
        ))
    }
}

fn batch_fixed<T: Value>(
    out: &mut [T],
    spec: &DenseSpec,
    base: &Bytes,
    value: (usize, usize),
    at: &At<'_>,
) -> Result<()> {
    fill_fixed(out, T::SHORT, spec, at, |f| {
        T::parse_list(base, value.0, value.1, f)
    })
}

/// Fills `out` with one example's values of a fixed-length feature through `parse`, with
/// TensorFlow's errors for a list that does not parse or has the wrong length (`short` names
/// the feature's type in them).
fn fill_fixed<O>(
    out: &mut [O],
    short: &str,
    spec: &DenseSpec,
    at: &At<'_>,
    parse: impl FnOnce(&mut Fixed<'_, O>) -> bool,
) -> Result<()> {
    let mut f = Fixed::new(out);
    if !parse(&mut f) {
        return Err(at.error("Can't parse serialized Example."));
    }
    if !f.is_full() {
        return Err(at.error(&format!(
            "Number of {short} values != expected.  Values size: {} but output shape: {}",
            f.n,
            format_dims(&spec.shape)
        )));
    }
    Ok(())
}

fn batch_ragged<T: Value>(
    r: &mut Ragged<T>,
    stride: Option<(usize, &[usize])>,
    base: &Bytes,
    value: (usize, usize),
    at: &At<'_>,
) -> Result<()> {
    let before = r.values.len();
    if !T::parse_list(base, value.0, value.1, &mut r.values) {
        return Err(at.error("Can't parse serialized Example."));
    }
    if let Some((stride, row)) = stride {
        let n = r.values.len() - before;
        if (stride == 0 && n != 0) || (stride != 0 && n % stride != 0) {
            return Err(at.error(&format!(
                "Number of {} values is not a multiple of stride length. Saw {n} values but output shape is: {}",
                T::SHORT,
                sequence_shape_string(row)
            )));
        }
    }
    r.ends.push(r.values.len());
    Ok(())
}

/// Parses a batch of serialized Examples: `FastParseExample`, the work of `parse_example`.
/// `names` (empty, or one per example) name the examples in error messages.
pub fn parse_example_batch(
    cfg: &ExampleConfig,
    serialized: &[Bytes],
    names: &[Bytes],
) -> Result<ParsedTensors> {
    parse_batch_with(cfg, &cfg.defaults(), &[], serialized, names)
}

/// [`parse_example_batch`] with `defaults[d]` in place of dense feature `d`'s default; a
/// fixed-length int64 feature `d` with `as_f32[d]` set comes out as float32, converted as `Cast`
/// converts it and then scaled as the fused op would, an example at a time while its values
/// are in cache (`as_f32` may be empty).
pub(crate) fn parse_batch_with(
    cfg: &ExampleConfig,
    defaults: &[Tensor],
    as_f32: &[AsF32],
    serialized: &[Bytes],
    names: &[Bytes],
) -> Result<ParsedTensors> {
    let b = serialized.len();
    if !names.is_empty() && names.len() != b {
        return Err(Error::invalid_argument(format!(
            "Expected len(names) == len(serialized), but got: {} vs. {b}",
            names.len()
        )));
    }
    let mut dense: Vec<DenseBatch> = cfg
        .dense
        .iter()
        .enumerate()
        .map(|(d, spec)| {
            if spec.variable_length {
                DenseBatch::Sequence(RaggedBuf::new(spec.dtype, b))
            } else {
                DenseBatch::Fixed(FixedBuf::new(
                    spec.dtype,
                    AsF32::cast(as_f32, d),
                    b,
                    spec.shape.iter().product::<usize>(),
                ))
            }
        })
        .collect();
    let mut sparse: Vec<RaggedBuf> = cfg
        .sparse
        .iter()
        .map(|(_, dt)| RaggedBuf::new(*dt, b))
        .collect();
    let elems: Vec<usize> = cfg.dense.iter().map(|d| d.shape.iter().product()).collect();
    let mut dense_last = vec![usize::MAX; cfg.dense.len()];
    let mut sparse_last = vec![usize::MAX; cfg.sparse.len()];
    let mut entries: Vec<Entry> = Vec::new();
    for (ex, ser) in serialized.iter().enumerate() {
        if !example_entries(ser, &mut entries) {
            return Err(could_not_parse(ser));
        }
        for (out, &per) in dense.iter_mut().zip(&elems) {
            if let DenseBatch::Fixed(f) = out {
                f.open_example(per);
            }
        }
        let name: &[u8] = names.get(ex).map(|n| &n[..]).unwrap_or(b"<unknown>");
        let buf: &[u8] = ser;
        for e in entries.iter().rev() {
            let key = &buf[e.key.0..e.key.1];
            let Some(slot) = cfg.index.find(key) else {
                continue;
            };
            let at = At {
                name,
                key,
                index: ex,
            };
            let kind = feature_kind(buf, e.value.0, e.value.1).map_err(|_| unsupported())?;
            match slot {
                Slot::Dense(d) => {
                    if kind == Kind::None || dense_last[d] == ex {
                        continue;
                    }
                    dense_last[d] = ex;
                    let spec = &cfg.dense[d];
                    if kind != kind_of(spec.dtype) {
                        return Err(at.error(&format!(
                            "Data types don't match. Data type: {} but expected type: {}",
                            kind_name(kind),
                            spec.dtype
                        )));
                    }
                    let n = elems[d];
                    let range = ex * n..(ex + 1) * n;
                    match &mut dense[d] {
                        DenseBatch::Fixed(FixedBuf::I64(v)) => {
                            batch_fixed(&mut v[range], spec, ser, e.value, &at)?
                        }
                        DenseBatch::Fixed(FixedBuf::F32(v)) => {
                            batch_fixed(&mut v[range], spec, ser, e.value, &at)?
                        }
                        DenseBatch::Fixed(FixedBuf::I64AsF32(v)) => {
                            fill_fixed(&mut v[range], i64::SHORT, spec, &at, |f| {
                                int64_list::<f32>(ser, e.value.0, e.value.1, f)
                            })?
                        }
                        DenseBatch::Fixed(FixedBuf::Str(v)) => {
                            batch_fixed(&mut v[range], spec, ser, e.value, &at)?
                        }
                        DenseBatch::Sequence(r) => {
                            let stride = Some((n, &spec.shape[..]));
                            match r {
                                RaggedBuf::I64(r) => batch_ragged(r, stride, ser, e.value, &at)?,
                                RaggedBuf::F32(r) => batch_ragged(r, stride, ser, e.value, &at)?,
                                RaggedBuf::Str(r) => batch_ragged(r, stride, ser, e.value, &at)?,
                            }
                        }
                    }
                }
                Slot::Sparse(s) => {
                    if sparse_last[s] == ex {
                        continue;
                    }
                    sparse_last[s] = ex;
                    let dtype = cfg.sparse[s].1;
                    if kind != Kind::None && kind != kind_of(dtype) {
                        return Err(at.error(&format!(
                            "Data types don't match. Expected type: {dtype}, Actual type: {}",
                            kind_name(kind)
                        )));
                    }
                    let r = &mut sparse[s];
                    if kind == Kind::None {
                        r.end_example();
                    } else {
                        match r {
                            RaggedBuf::I64(r) => batch_ragged(r, None, ser, e.value, &at)?,
                            RaggedBuf::F32(r) => batch_ragged(r, None, ser, e.value, &at)?,
                            RaggedBuf::Str(r) => batch_ragged(r, None, ser, e.value, &at)?,
                        }
                    }
                }
            }
        }
        for (d, spec) in cfg.dense.iter().enumerate() {
            if dense_last[d] == ex {
                continue;
            }
            match &mut dense[d] {
                DenseBatch::Sequence(r) => r.end_example(),
                DenseBatch::Fixed(buf) => {
                    let n = elems[d];
                    let default = &defaults[d];
                    if default.num_elements() == 0 {
                        return Err(Error::invalid_argument(format!(
                            "Name: {}, Feature: {} (data type: {}) is required but could not be found.",
                            lossy(name),
                            spec.name,
                            spec.dtype
                        )));
                    }
                    let range = ex * n..(ex + 1) * n;
                    match buf {
                        FixedBuf::I64(v) => v[range].copy_from_slice(default.as_slice::<i64>()?),
                        FixedBuf::F32(v) => v[range].copy_from_slice(default.as_slice::<f32>()?),
                        FixedBuf::I64AsF32(v) => {
                            for (o, &x) in v[range].iter_mut().zip(default.as_slice::<i64>()?) {
                                *o = x as f32;
                            }
                        }
                        FixedBuf::Str(v) => v[range].clone_from_slice(default.as_slice::<Bytes>()?),
                    }
                }
            }
        }
        for (s, r) in sparse.iter_mut().enumerate() {
            if sparse_last[s] != ex {
                r.end_example();
            }
        }
        for (d, &n) in elems.iter().enumerate() {
            if let (Some(scale), DenseBatch::Fixed(FixedBuf::I64AsF32(v))) =
                (AsF32::scale(as_f32, d), &mut dense[d])
            {
                vectorized(|| scale.apply_all(&mut v[ex * n..(ex + 1) * n]));
            }
        }
    }
    let dense = dense
        .into_iter()
        .zip(cfg.dense.iter().zip(defaults))
        .map(|(buf, (spec, default))| {
            let mut shape = vec![b];
            shape.extend_from_slice(&spec.shape);
            match buf {
                DenseBatch::Fixed(FixedBuf::I64(v)) => Tensor::from_vec(&shape, v),
                DenseBatch::Fixed(FixedBuf::F32(v) | FixedBuf::I64AsF32(v)) => {
                    Tensor::from_vec(&shape, v)
                }
                DenseBatch::Fixed(FixedBuf::Str(v)) => Tensor::from_vec(&shape, v),
                DenseBatch::Sequence(RaggedBuf::I64(r)) => {
                    r.into_padded(&spec.shape, first_or_zero(default)?)
                }
                DenseBatch::Sequence(RaggedBuf::F32(r)) => {
                    r.into_padded(&spec.shape, first_or_zero(default)?)
                }
                DenseBatch::Sequence(RaggedBuf::Str(r)) => {
                    r.into_padded(&spec.shape, first_or_zero(default)?)
                }
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let sparse = sparse
        .into_iter()
        .map(|r| match r {
            RaggedBuf::I64(r) => r.into_sparse(Some(b)),
            RaggedBuf::F32(r) => r.into_sparse(Some(b)),
            RaggedBuf::Str(r) => r.into_sparse(Some(b)),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ParsedTensors { dense, sparse })
}
