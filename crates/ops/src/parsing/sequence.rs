//! `tf.io.parse_single_sequence_example`: a serialized `tf.train.SequenceExample` decoded from
//! the wire format into context features and feature lists, with the checks and messages of
//! TensorFlow's `FastParseSequenceExample` for one example.

use bytes::Bytes;
use weir_graph::{DType, Error, Result, SparseTensor, Tensor};

use super::example::{kind_of, with_value_type, ParsedTensors, Value};
use super::features::{fixed_len_spec, var_len_dtype, DenseSpec, Feature, Features};
use super::sequence_values::{
    check_context_length, list_rows, push_context_dense, push_context_sparse, push_list_dense,
    push_list_sparse,
};
use super::wire::{delimited_tag, fixed32_tag, varint_tag, Kind, Reader, Sink};

/// A feature list of fixed-shape elements (`FixedLenSequenceFeature` in `sequence_features`).
#[derive(Clone, Debug)]
pub(crate) struct ListSpec {
    pub(crate) name: String,
    pub(crate) dtype: DType,
    pub(crate) row: Vec<usize>,
    pub(crate) allow_missing: bool,
}

/// A `RaggedFeature` without partitions (the ragged keys of `ParseSequenceExampleV2`): its
/// values and the dtype of its row splits (int32 or int64).
#[derive(Clone, Debug)]
pub(crate) struct RaggedSpec {
    pub(crate) name: String,
    pub(crate) dtype: DType,
    pub(crate) splits: DType,
}

/// The features one sequence parse extracts.
#[derive(Clone, Debug)]
pub struct SequenceConfig {
    pub(crate) ctx_dense: Vec<DenseSpec>,
    pub(crate) ctx_sparse: Vec<(String, DType)>,
    pub(crate) ctx_ragged: Vec<RaggedSpec>,
    pub(crate) fl_dense: Vec<ListSpec>,
    pub(crate) fl_sparse: Vec<(String, DType)>,
    pub(crate) fl_ragged: Vec<RaggedSpec>,
}

impl SequenceConfig {
    /// A config from the `context_features` and `sequence_features` dicts, checked as Python's
    /// `parse_single_sequence_example` checks them.
    pub fn new(context: &Features, sequence: &Features) -> Result<SequenceConfig> {
        if context.is_empty() && sequence.is_empty() {
            return Err(Error::invalid_argument("Missing features."));
        }
        let mut cfg = SequenceConfig {
            ctx_dense: Vec::new(),
            ctx_sparse: Vec::new(),
            ctx_ragged: Vec::new(),
            fl_dense: Vec::new(),
            fl_sparse: Vec::new(),
            fl_ragged: Vec::new(),
        };
        for (name, f) in &context.map {
            match f {
                Feature::FixedLen(f) => cfg.ctx_dense.push(fixed_len_spec(name, f)?),
                Feature::VarLen(f) => cfg.ctx_sparse.push((name.clone(), var_len_dtype(f)?)),
                other => {
                    return Err(Error::invalid_argument(format!(
                        "Unsupported {} for context feature {name}: use FixedLenFeature or VarLenFeature",
                        feature_type_name(other)
                    )))
                }
            }
        }
        for (name, f) in &sequence.map {
            match f {
                Feature::FixedLenSequence(f) => {
                    if f.default.is_some() {
                        return Err(Error::invalid_argument(format!(
                            "Unsupported: default_value of FixedLenSequenceFeature {name} in sequence_features"
                        )));
                    }
                    let d = super::features::sequence_spec(name, f)?;
                    cfg.fl_dense.push(ListSpec {
                        name: name.clone(),
                        dtype: d.dtype,
                        row: d.shape,
                        allow_missing: f.allow_missing,
                    });
                }
                Feature::VarLen(f) => cfg.fl_sparse.push((name.clone(), var_len_dtype(f)?)),
                other => {
                    return Err(Error::invalid_argument(format!(
                        "Unsupported {} for sequence feature {name}: use FixedLenSequenceFeature or VarLenFeature",
                        feature_type_name(other)
                    )))
                }
            }
        }
        Ok(cfg)
    }
}

fn feature_type_name(f: &Feature) -> &'static str {
    match f {
        Feature::FixedLen(_) => "FixedLenFeature",
        Feature::VarLen(_) => "VarLenFeature",
        Feature::FixedLenSequence(_) => "FixedLenSequenceFeature",
        Feature::Sparse(_) => "SparseFeature",
    }
}

/// Counts values without storing them.
struct Count(usize);

impl<T> Sink<T> for Count {
    fn push(&mut self, _: T) {
        self.0 += 1;
    }
    fn room(&self) -> usize {
        usize::MAX
    }
    fn count_only(&mut self, n: usize) {
        self.0 += n;
    }
}

fn field_number(k: Kind) -> u8 {
    match k {
        Kind::Bytes => 1,
        Kind::Float => 2,
        _ => 3,
    }
}

/// One `Feature` of `dtype` at the reader (TensorFlow's `Parse{Bytes,Float,Int64}Feature`):
/// the number of values, or `None` if it is not of that kind or malformed. When `counting`,
/// a truncated bytes value still counts, as in TensorFlow's length pass.
pub(crate) fn feature_values<T: Value>(
    base: &Bytes,
    r: &mut Reader<'_>,
    sink: &mut impl Sink<T>,
    counting: bool,
) -> Option<usize> {
    let kind = T::KIND;
    if !r.expect_tag(delimited_tag(field_number(kind))) {
        return None;
    }
    let len = r.read_varint32()?;
    if len == 0 {
        return Some(0);
    }
    let old = r.push_limit(len);
    let mut n = 0usize;
    match kind {
        Kind::Bytes => {
            while !r.at_end() {
                if !r.expect_tag(delimited_tag(1)) {
                    return None;
                }
                let l = r.read_varint32()? as usize;
                if counting {
                    r.skip(l);
                } else {
                    let (s, e) = r.read_raw(l)?;
                    sink.push(T::from_slice(base, s, e)?);
                }
                n += 1;
            }
        }
        Kind::Float | Kind::Int64 => {
            let packed = delimited_tag(1);
            let single = if kind == Kind::Float {
                fixed32_tag(1)
            } else {
                varint_tag(1)
            };
            let tag = r.peek();
            if tag == packed {
                r.expect_tag(packed);
                let l = r.read_varint32()?;
                let inner = r.push_limit(l);
                while !r.at_end() {
                    sink.push(T::read_number(r)?);
                    n += 1;
                }
                r.pop_limit(inner);
            } else if tag == single {
                while !r.at_end() {
                    if !r.expect_tag(single) {
                        return None;
                    }
                    sink.push(T::read_number(r)?);
                    n += 1;
                }
            } else {
                return None;
            }
        }
        Kind::None => return None,
    }
    r.pop_limit(old);
    Some(n)
}

/// `SkipEmptyFeature`: a 2-byte `Feature` holding an empty list of the right kind.
pub(crate) fn skip_empty_feature(r: &mut Reader<'_>, dtype: DType) -> bool {
    r.expect_tag(delimited_tag(field_number(kind_of(dtype)))) && r.read_varint32() == Some(0)
}

/// Where each requested feature's serialized proto is, after the extraction pass: context
/// features (dense, sparse, then ragged) and feature lists (dense, sparse, then ragged), in
/// config order.
pub(crate) struct Protos {
    pub(crate) ctx: Vec<Option<(usize, usize)>>,
    pub(crate) fl: Vec<Option<(usize, usize)>>,
}

/// Finds the requested features of one serialized SequenceExample (`name` names it in errors).
pub(crate) fn extract(cfg: &SequenceConfig, buf: &[u8], name: &str) -> Result<Protos> {
    let invalid = || {
        Error::invalid_argument(format!(
            "Invalid protocol message input, example id: {name}"
        ))
    };
    let ctx_names: Vec<&str> = cfg
        .ctx_dense
        .iter()
        .map(|d| d.name.as_str())
        .chain(cfg.ctx_sparse.iter().map(|s| s.0.as_str()))
        .chain(cfg.ctx_ragged.iter().map(|r| r.name.as_str()))
        .collect();
    let fl_names: Vec<&str> = cfg
        .fl_dense
        .iter()
        .map(|d| d.name.as_str())
        .chain(cfg.fl_sparse.iter().map(|s| s.0.as_str()))
        .chain(cfg.fl_ragged.iter().map(|r| r.name.as_str()))
        .collect();
    let mut p = Protos {
        ctx: vec![None; ctx_names.len()],
        fl: vec![None; fl_names.len()],
    };
    let mut r = Reader::new(buf, 0, buf.len());
    while !r.at_end() {
        let context = if r.expect_tag(delimited_tag(1)) {
            true
        } else if r.expect_tag(delimited_tag(2)) {
            false
        } else if r.skip_unknown_field() {
            continue;
        } else {
            return Err(invalid());
        };
        let (names, slots) = if context {
            (&ctx_names, &mut p.ctx)
        } else {
            (&fl_names, &mut p.fl)
        };
        let len = r.read_varint32().ok_or_else(invalid)?;
        let old = r.push_limit(len);
        while !r.at_end() {
            if !r.expect_tag(delimited_tag(1)) {
                return Err(invalid());
            }
            let elen = r.read_varint32().ok_or_else(invalid)?;
            let inner = r.push_limit(elen);
            if !r.expect_tag(delimited_tag(1)) {
                return Err(invalid());
            }
            let key = r.read_string().ok_or_else(invalid)?;
            if !r.expect_tag(delimited_tag(2)) {
                return Err(invalid());
            }
            let value = r.read_string().ok_or_else(invalid)?;
            if !r.at_end() {
                return Err(invalid());
            }
            r.pop_limit(inner);
            let key = &buf[key.0..key.1];
            // TensorFlow keeps one proto per key: features requested twice share it.
            for (slot, n) in slots.iter_mut().zip(names.iter()) {
                if n.as_bytes() == key {
                    *slot = Some(value);
                }
            }
        }
        r.pop_limit(old);
    }
    Ok(p)
}

/// The number of values of a context feature, or `None` when it is not of `T`'s kind.
pub(crate) fn context_len<T: Value>(base: &Bytes, proto: (usize, usize)) -> Option<usize> {
    if proto.0 == proto.1 {
        return Some(0);
    }
    let mut r = Reader::new(base, proto.0, proto.1);
    feature_values::<T>(base, &mut r, &mut Count(0), true)
}

/// Rows and total values of a feature list (`GetSequenceFeatureLengths`).
pub(crate) fn list_lengths<T: Value>(
    base: &Bytes,
    proto: (usize, usize),
    dtype: DType,
    key: &str,
    name: &str,
) -> Result<usize> {
    let bad =
        || Error::invalid_argument(format!("Error in sequence feature {key} in example {name}"));
    let mut r = Reader::new(base, proto.0, proto.1);
    let (mut rows, mut total) = (0usize, 0usize);
    while !r.at_end() {
        if !r.expect_tag(delimited_tag(1)) {
            return Err(bad());
        }
        let fb = r.read_varint32().ok_or_else(bad)?;
        let mismatch = || {
            Error::invalid_argument(format!(
                "Name: {name}, Feature list: {key}, Index: {rows}.  Data types don't match. Expected type: {dtype}"
            ))
        };
        if fb > 2 {
            let old = r.push_limit(fb);
            total += feature_values::<T>(base, &mut r, &mut Count(0), true).ok_or_else(mismatch)?;
            r.pop_limit(old);
        } else if fb == 2 {
            if !skip_empty_feature(&mut r, dtype) {
                return Err(mismatch());
            }
        } else if fb != 0 {
            return Err(bad());
        }
        rows += 1;
    }
    Ok(total)
}

fn context_dense<T: Value>(
    spec: &DenseSpec,
    default: &Tensor,
    base: &Bytes,
    proto: Option<(usize, usize)>,
    length: usize,
    name: &str,
) -> Result<Tensor> {
    check_context_length(spec, length)?;
    let mut values: Vec<T> = Vec::new();
    push_context_dense(spec, default, base, proto, length, name, &mut values)?;
    Tensor::from_vec(&spec.shape, values)
}

fn context_sparse<T: Value>(
    base: &Bytes,
    proto: Option<(usize, usize)>,
    key: &str,
) -> Result<SparseTensor> {
    let mut v: Vec<T> = Vec::new();
    push_context_sparse(base, proto, key, &mut v)?;
    let n = v.len();
    Ok(SparseTensor {
        indices: Tensor::from_vec(&[n, 1], (0..n as i64).collect())?,
        values: Tensor::from_vec(&[n], v)?,
        dense_shape: Tensor::from(vec![n as i64]),
    })
}

fn list_dense<T: Value>(
    spec: &ListSpec,
    base: &Bytes,
    proto: Option<(usize, usize)>,
    length: usize,
    name: &str,
) -> Result<Tensor> {
    let max_rows = list_rows(spec, length)?;
    let stride: usize = spec.row.iter().product();
    let mut values: Vec<T> = Vec::with_capacity(length.min(1 << 20));
    push_list_dense(spec, base, proto, name, &mut values)?;
    values.resize(max_rows * stride, T::zero());
    let mut shape = vec![max_rows];
    shape.extend_from_slice(&spec.row);
    Tensor::from_vec(&shape, values)
}

fn list_sparse<T: Value>(
    base: &Bytes,
    proto: Option<(usize, usize)>,
    dtype: DType,
    key: &str,
    name: &str,
) -> Result<SparseTensor> {
    let mut values: Vec<T> = Vec::new();
    let mut indices: Vec<i64> = Vec::new();
    let (rows, max_cols) = push_list_sparse(
        base,
        proto,
        dtype,
        key,
        name,
        None,
        &mut values,
        &mut indices,
    )?;
    let n = values.len();
    Ok(SparseTensor {
        indices: Tensor::from_vec(&[n, 2], indices)?,
        values: Tensor::from_vec(&[n], values)?,
        dense_shape: Tensor::from(vec![rows as i64, max_cols as i64]),
    })
}

/// The context features and feature lists of one SequenceExample.
#[derive(Clone, Debug)]
pub struct SequenceTensors {
    /// Context features: dense (`FixedLenFeature`) and sparse (`VarLenFeature`).
    pub context: ParsedTensors,
    /// Feature lists: dense `[T] + shape` (`FixedLenSequenceFeature`) and sparse `[T, max]`
    /// (`VarLenFeature`).
    pub feature_lists: ParsedTensors,
}

/// Parses one serialized SequenceExample; `ctx_defaults[d]` is the default of context dense
/// feature `d` (empty = required) and `name` names the example in messages.
pub fn parse_sequence_example_tensors(
    cfg: &SequenceConfig,
    ctx_defaults: &[Tensor],
    serialized: &Bytes,
    name: &str,
) -> Result<SequenceTensors> {
    if ctx_defaults.len() != cfg.ctx_dense.len() {
        return Err(Error::invalid_argument(format!(
            "Expected {} context_dense_defaults but got {}",
            cfg.ctx_dense.len(),
            ctx_defaults.len()
        )));
    }
    let p = extract(cfg, serialized, name)?;
    let nd = cfg.ctx_dense.len();
    // Context lengths: a dense feature's length starts at its default's size.
    let mut ctx_len = Vec::with_capacity(p.ctx.len());
    // Ragged features are only parsed in batches (`ParseSequenceExampleV2`).
    let (nc, nf) = (
        nd + cfg.ctx_sparse.len(),
        cfg.fl_dense.len() + cfg.fl_sparse.len(),
    );
    for (i, proto) in p.ctx.iter().take(nc).enumerate() {
        let (key, dtype, start) = if i < nd {
            (
                &cfg.ctx_dense[i].name,
                cfg.ctx_dense[i].dtype,
                ctx_defaults[i].num_elements(),
            )
        } else {
            (&cfg.ctx_sparse[i - nd].0, cfg.ctx_sparse[i - nd].1, 0)
        };
        let mut len = start;
        if let Some(pr) = proto {
            let n = with_value_type!(dtype, T => context_len::<T>(serialized, *pr)).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Name: {name}, Context feature: {key}.  Data types don't match. Expected type: {dtype}"
                ))
            })?;
            len = if i < nd { len.max(n) } else { len + n };
        }
        ctx_len.push(len);
    }
    let nfd = cfg.fl_dense.len();
    let mut fl_len = Vec::with_capacity(p.fl.len());
    for (i, proto) in p.fl.iter().take(nf).enumerate() {
        let (key, dtype) = if i < nfd {
            (&cfg.fl_dense[i].name, cfg.fl_dense[i].dtype)
        } else {
            (&cfg.fl_sparse[i - nfd].0, cfg.fl_sparse[i - nfd].1)
        };
        let len = match proto {
            Some(pr) if pr.0 != pr.1 => {
                with_value_type!(dtype, T => list_lengths::<T>(serialized, *pr, dtype, key, name)?)
            }
            _ => 0,
        };
        fl_len.push(len);
    }
    let ctx_dense = cfg
        .ctx_dense
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            with_value_type!(spec.dtype, T => context_dense::<T>(spec, &ctx_defaults[i], serialized, p.ctx[i], ctx_len[i], name))
        })
        .collect::<Result<Vec<_>>>()?;
    let ctx_sparse = cfg
        .ctx_sparse
        .iter()
        .enumerate()
        .map(|(i, (key, dtype))| with_value_type!(*dtype, T => context_sparse::<T>(serialized, p.ctx[nd + i], key)))
        .collect::<Result<Vec<_>>>()?;
    let fl_dense = cfg
        .fl_dense
        .iter()
        .enumerate()
        .map(|(i, spec)| with_value_type!(spec.dtype, T => list_dense::<T>(spec, serialized, p.fl[i], fl_len[i], name)))
        .collect::<Result<Vec<_>>>()?;
    let fl_sparse = cfg
        .fl_sparse
        .iter()
        .enumerate()
        .map(|(i, (key, dtype))| with_value_type!(*dtype, T => list_sparse::<T>(serialized, p.fl[nfd + i], *dtype, key, name)))
        .collect::<Result<Vec<_>>>()?;
    Ok(SequenceTensors {
        context: ParsedTensors {
            dense: ctx_dense,
            sparse: ctx_sparse,
        },
        feature_lists: ParsedTensors {
            dense: fl_dense,
            sparse: fl_sparse,
        },
    })
}
