//! The batch half of the SequenceExample parser: `FastParseSequenceExample` over a vector of
//! serialized `tf.train.SequenceExample`s, the work of `parse_sequence_example`.
//!
//! The passes are TensorFlow's, so the same input fails with the same error: every example's
//! features are located first, then every feature's sizes are counted across the batch (the
//! longest context dense feature and feature list set the padded shapes), then the outputs are
//! filled feature by feature. The per-example reading is the single-example parser's.

use bytes::Bytes;
use weir_graph::{DType, Error, Result, SparseTensor, Tensor};

use super::super::example::{lossy, with_value_type, ParsedTensors, Value};
use super::super::features::DenseSpec;
use super::super::sequence::{
    context_len, extract, list_lengths, ListSpec, Protos, SequenceConfig,
};
use super::super::sequence_values::{
    check_context_length, list_rows, push_context_dense, push_context_sparse, push_list_dense,
    push_list_sparse,
};
use super::ragged::{self, RaggedTensors};

/// What `parse_sequence_example` returns for a batch: context features, feature lists, and the
/// number of rows of each dense feature list in each example.
#[derive(Clone, Debug)]
pub struct SequenceBatchTensors {
    /// Context features: dense `[B] + shape` (`FixedLenFeature`) and sparse `[B, max]`
    /// (`VarLenFeature`).
    pub context: ParsedTensors,
    /// Feature lists: dense `[B, T] + shape`, padded with zeros or empty strings
    /// (`FixedLenSequenceFeature`), and sparse `[B, T, max]` (`VarLenFeature`).
    pub feature_lists: ParsedTensors,
    /// int64 `[B]` per dense feature list: its number of rows in each example.
    pub lengths: Vec<Tensor>,
    /// Ragged context features (`ParseSequenceExampleV2`'s context ragged keys).
    pub context_ragged: Vec<RaggedTensors>,
    /// Ragged feature lists (`ParseSequenceExampleV2`'s feature-list ragged keys).
    pub feature_list_ragged: Vec<RaggedTensors>,
}

/// The batch being parsed, and how its examples are named in errors.
pub(super) struct Batch<'a> {
    pub(super) serialized: &'a [Bytes],
    names: &'a [Bytes],
    pub(super) protos: Vec<Protos>,
    /// Whether outputs have a batch dimension (false: one scalar example, as TensorFlow parses
    /// a scalar `serialized`).
    pub(super) batch: bool,
}

impl Batch<'_> {
    pub(super) fn name(&self, e: usize) -> String {
        self.names
            .get(e)
            .map_or_else(|| "<unknown>".to_string(), |n| lossy(n).into_owned())
    }

    pub(super) fn len(&self) -> usize {
        self.serialized.len()
    }

    /// `dims` with the batch dimension in front when there is one.
    fn shape(&self, dims: &[usize]) -> Vec<usize> {
        let mut s = Vec::with_capacity(dims.len() + 1);
        if self.batch {
            s.push(self.len());
        }
        s.extend_from_slice(dims);
        s
    }
}

/// Parses a batch of serialized SequenceExamples: `FastParseSequenceExample`, the work of
/// `parse_sequence_example`. `ctx_defaults[d]` is the default of context dense feature `d`
/// (empty = required); `names` (empty, or one per example) name the examples in error messages.
/// With `batch` false, `serialized` holds one example and the outputs have no batch dimension
/// (TensorFlow's scalar input).
pub fn parse_sequence_example_batch(
    cfg: &SequenceConfig,
    ctx_defaults: &[Tensor],
    serialized: &[Bytes],
    names: &[Bytes],
    batch: bool,
) -> Result<SequenceBatchTensors> {
    if !names.is_empty() && names.len() != serialized.len() {
        return Err(Error::invalid_argument(
            "example_names must be empty or have the correct number of elements",
        ));
    }
    if !batch && serialized.len() != 1 {
        return Err(Error::invalid_argument(format!(
            "Expected one serialized example without a batch, got {}",
            serialized.len()
        )));
    }
    if ctx_defaults.len() != cfg.ctx_dense.len() {
        return Err(Error::invalid_argument(format!(
            "Expected len(context_dense_defaults) == len(context_dense_keys) but got: {} vs. {}",
            ctx_defaults.len(),
            cfg.ctx_dense.len()
        )));
    }
    let mut b = Batch {
        serialized,
        names,
        protos: Vec::with_capacity(serialized.len()),
        batch,
    };
    for (e, ser) in serialized.iter().enumerate() {
        let p = extract(cfg, ser, &b.name(e))?;
        b.protos.push(p);
    }
    // Sizes across the batch: a context dense feature's starts at its default's size. Counting
    // checks every requested feature's type before any output is made, as TensorFlow does.
    let nd = cfg.ctx_dense.len();
    let ctx_keys = cfg
        .ctx_dense
        .iter()
        .zip(ctx_defaults)
        .map(|(d, t)| (&d.name, d.dtype, t.num_elements()))
        .chain(cfg.ctx_sparse.iter().map(|(k, t)| (k, *t, 0)))
        .chain(cfg.ctx_ragged.iter().map(|r| (&r.name, r.dtype, 0)));
    let mut ctx_len = Vec::with_capacity(nd + cfg.ctx_sparse.len());
    for (i, (key, dtype, mut len)) in ctx_keys.enumerate() {
        for (e, (p, ser)) in b.protos.iter().zip(serialized).enumerate() {
            let Some(pr) = p.ctx[i] else {
                continue;
            };
            let n = with_value_type!(dtype, T => context_len::<T>(ser, pr)).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Name: {}, Context feature: {key}.  Data types don't match. Expected type: {dtype}",
                    b.name(e)
                ))
            })?;
            len = if i < nd { len.max(n) } else { len + n };
        }
        ctx_len.push(len);
    }
    let nfd = cfg.fl_dense.len();
    let fl_keys = cfg
        .fl_dense
        .iter()
        .map(|d| (&d.name, d.dtype))
        .chain(cfg.fl_sparse.iter().map(|(k, t)| (k, *t)))
        .chain(cfg.fl_ragged.iter().map(|r| (&r.name, r.dtype)));
    let mut fl_len = Vec::with_capacity(nfd + cfg.fl_sparse.len());
    for (i, (key, dtype)) in fl_keys.enumerate() {
        let mut len = 0usize;
        for (e, (p, ser)) in b.protos.iter().zip(serialized).enumerate() {
            let Some(pr) = p.fl[i].filter(|p| p.0 != p.1) else {
                continue;
            };
            let name = b.name(e);
            let n = with_value_type!(dtype, T => list_lengths::<T>(ser, pr, dtype, key, &name)?);
            len = if i < nfd { len.max(n) } else { len + n };
        }
        fl_len.push(len);
    }
    let ctx_dense = cfg
        .ctx_dense
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            with_value_type!(spec.dtype, T => context_dense::<T>(&b, i, spec, &ctx_defaults[i], ctx_len[i]))
        })
        .collect::<Result<Vec<_>>>()?;
    let ctx_sparse = cfg
        .ctx_sparse
        .iter()
        .enumerate()
        .map(
            |(i, (key, dtype))| with_value_type!(*dtype, T => context_sparse::<T>(&b, nd + i, key)),
        )
        .collect::<Result<Vec<_>>>()?;
    let mut lengths = Vec::with_capacity(nfd);
    let mut fl_dense = Vec::with_capacity(nfd);
    for (i, spec) in cfg.fl_dense.iter().enumerate() {
        let (values, rows) =
            with_value_type!(spec.dtype, T => list_dense::<T>(&b, i, spec, fl_len[i])?);
        fl_dense.push(values);
        lengths.push(rows);
    }
    let fl_sparse = cfg
        .fl_sparse
        .iter()
        .enumerate()
        .map(|(i, (key, dtype))| with_value_type!(*dtype, T => list_sparse::<T>(&b, nfd + i, *dtype, key)))
        .collect::<Result<Vec<_>>>()?;
    let (context_ragged, feature_list_ragged) = ragged::parse(cfg, &b)?;
    Ok(SequenceBatchTensors {
        context: ParsedTensors {
            dense: ctx_dense,
            sparse: ctx_sparse,
        },
        feature_lists: ParsedTensors {
            dense: fl_dense,
            sparse: fl_sparse,
        },
        lengths,
        context_ragged,
        feature_list_ragged,
    })
}

/// A size that does not fit in memory, as an error rather than an overflow.
fn too_big() -> Error {
    Error::resource_exhausted("parse_sequence_example: output too large")
}

fn context_dense<T: Value>(
    b: &Batch<'_>,
    i: usize,
    spec: &DenseSpec,
    default: &Tensor,
    length: usize,
) -> Result<Tensor> {
    check_context_length(spec, length)?;
    let mut values: Vec<T> = Vec::with_capacity(b.len().saturating_mul(length).min(1 << 20));
    for e in 0..b.len() {
        let name = b.name(e);
        let p = b.protos[e].ctx[i];
        push_context_dense(
            spec,
            default,
            &b.serialized[e],
            p,
            length,
            &name,
            &mut values,
        )?;
    }
    Tensor::from_vec(&b.shape(&spec.shape), values)
}

fn context_sparse<T: Value>(b: &Batch<'_>, i: usize, key: &str) -> Result<SparseTensor> {
    let mut values: Vec<T> = Vec::new();
    let mut indices: Vec<i64> = Vec::new();
    let mut max_cols = 0usize;
    for e in 0..b.len() {
        let n = push_context_sparse(&b.serialized[e], b.protos[e].ctx[i], key, &mut values)?;
        max_cols = max_cols.max(n);
        for c in 0..n {
            if b.batch {
                indices.push(e as i64);
            }
            indices.push(c as i64);
        }
    }
    let n = values.len();
    let rank = if b.batch { 2 } else { 1 };
    Ok(SparseTensor {
        indices: Tensor::from_vec(&[n, rank], indices)?,
        values: Tensor::from_vec(&[n], values)?,
        dense_shape: Tensor::from_vec(
            &[rank],
            b.shape(&[max_cols]).iter().map(|&d| d as i64).collect(),
        )?,
    })
}

/// A dense feature list padded to the longest example, and each example's number of rows.
fn list_dense<T: Value>(
    b: &Batch<'_>,
    i: usize,
    spec: &ListSpec,
    length: usize,
) -> Result<(Tensor, Tensor)> {
    let max_rows = list_rows(spec, length)?;
    let stride: usize = spec.row.iter().product();
    let per = max_rows.checked_mul(stride).ok_or_else(too_big)?;
    b.len().checked_mul(per).ok_or_else(too_big)?;
    let mut values: Vec<T> = Vec::with_capacity((b.len() * per).min(1 << 20));
    let mut rows = Vec::with_capacity(b.len());
    for e in 0..b.len() {
        let before = values.len();
        let name = b.name(e);
        let p = b.protos[e].fl[i];
        rows.push(push_list_dense(spec, &b.serialized[e], p, &name, &mut values)? as i64);
        values.resize(before + per, T::zero());
    }
    let mut dims = vec![max_rows];
    dims.extend_from_slice(&spec.row);
    let lengths = if b.batch {
        Tensor::from_vec(&[b.len()], rows)?
    } else {
        Tensor::from_vec(&[], rows)?
    };
    Ok((Tensor::from_vec(&b.shape(&dims), values)?, lengths))
}

fn list_sparse<T: Value>(b: &Batch<'_>, i: usize, dtype: DType, key: &str) -> Result<SparseTensor> {
    let mut values: Vec<T> = Vec::new();
    let mut indices: Vec<i64> = Vec::new();
    let (mut max_rows, mut max_cols) = (0usize, 0usize);
    for e in 0..b.len() {
        let name = b.name(e);
        let example = b.batch.then_some(e as i64);
        let (rows, cols) = push_list_sparse(
            &b.serialized[e],
            b.protos[e].fl[i],
            dtype,
            key,
            &name,
            example,
            &mut values,
            &mut indices,
        )?;
        max_rows = max_rows.max(rows);
        max_cols = max_cols.max(cols);
    }
    let n = values.len();
    let rank = if b.batch { 3 } else { 2 };
    let shape: Vec<i64> = b
        .shape(&[max_rows, max_cols])
        .iter()
        .map(|&d| d as i64)
        .collect();
    Ok(SparseTensor {
        indices: Tensor::from_vec(&[n, rank], indices)?,
        values: Tensor::from_vec(&[n], values)?,
        dense_shape: Tensor::from_vec(&[rank], shape)?,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::parsing::{Features, FixedLenFeature, FixedLenSequenceFeature, VarLenFeature};

    pub(in super::super) fn delim(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![tag << 3 | 2];
        let mut n = body.len();
        while n >= 0x80 {
            out.push((n & 0x7f) as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
        out.extend_from_slice(body);
        out
    }

    /// A `Feature` holding packed int64 values (each below 128).
    pub(in super::super) fn ints(v: &[u8]) -> Vec<u8> {
        delim(3, &delim(1, v))
    }

    pub(in super::super) fn floats(v: &[f32]) -> Vec<u8> {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        delim(2, &delim(1, &b))
    }

    fn entry(key: &str, value: &[u8]) -> Vec<u8> {
        delim(1, &[delim(1, key.as_bytes()), delim(2, value)].concat())
    }

    /// A SequenceExample: context features and feature lists (rows of `Feature` bytes).
    pub(in super::super) fn example(
        ctx: &[(&str, Vec<u8>)],
        lists: &[(&str, Vec<Vec<u8>>)],
    ) -> Bytes {
        let c: Vec<u8> = ctx.iter().flat_map(|(k, v)| entry(k, v)).collect();
        let l: Vec<u8> = lists
            .iter()
            .flat_map(|(k, rows)| {
                let fl: Vec<u8> = rows.iter().flat_map(|r| delim(1, r)).collect();
                entry(k, &fl)
            })
            .collect();
        Bytes::from([delim(1, &c), delim(2, &l)].concat())
    }

    fn config() -> (SequenceConfig, Vec<Tensor>) {
        let ctx = Features::new()
            .add(
                "n",
                FixedLenFeature::new(&[], DType::I64).default(Tensor::from(vec![7i64])),
            )
            .add("tags", VarLenFeature::new(DType::I64));
        let seq = Features::new()
            .add(
                "v",
                FixedLenSequenceFeature::new(&[2], DType::F32).allow_missing(true),
            )
            .add("s", VarLenFeature::new(DType::I64));
        let cfg = SequenceConfig::new(&ctx, &seq).unwrap();
        let defaults = cfg.ctx_dense.iter().map(|d| d.default.clone()).collect();
        (cfg, defaults)
    }

    fn batch() -> Vec<Bytes> {
        vec![
            example(
                &[("n", ints(&[3])), ("tags", ints(&[1, 2, 3]))],
                &[
                    ("v", vec![floats(&[1.0, 2.0])]),
                    ("s", vec![ints(&[4]), ints(&[5, 6])]),
                ],
            ),
            example(
                &[],
                &[("v", vec![floats(&[3.0, 4.0]), floats(&[5.0, 6.0])])],
            ),
        ]
    }

    #[test]
    fn pads_lists_and_counts_rows() {
        let (cfg, defaults) = config();
        let out = parse_sequence_example_batch(&cfg, &defaults, &batch(), &[], true).unwrap();
        assert_eq!(out.context.dense[0].as_slice::<i64>().unwrap(), &[3, 7]);
        let tags = &out.context.sparse[0];
        assert_eq!(tags.indices.as_slice::<i64>().unwrap(), &[0, 0, 0, 1, 0, 2]);
        assert_eq!(tags.dense_shape.as_slice::<i64>().unwrap(), &[2, 3]);
        let v = &out.feature_lists.dense[0];
        assert_eq!(v.shape(), &[2, 2, 2]);
        assert_eq!(
            v.as_slice::<f32>().unwrap(),
            &[1.0, 2.0, 0.0, 0.0, 3.0, 4.0, 5.0, 6.0]
        );
        assert_eq!(out.lengths[0].as_slice::<i64>().unwrap(), &[1, 2]);
        let s = &out.feature_lists.sparse[0];
        assert_eq!(
            s.indices.as_slice::<i64>().unwrap(),
            &[0, 0, 0, 0, 1, 0, 0, 1, 1]
        );
        assert_eq!(s.dense_shape.as_slice::<i64>().unwrap(), &[2, 2, 2]);
    }

    #[test]
    fn scalar_input_has_no_batch_dimension() {
        let (cfg, defaults) = config();
        let one = &batch()[..1];
        let out = parse_sequence_example_batch(&cfg, &defaults, one, &[], false).unwrap();
        assert_eq!(out.context.dense[0].shape(), &[] as &[usize]);
        assert_eq!(
            out.context.sparse[0].dense_shape.as_slice::<i64>().unwrap(),
            &[3]
        );
        assert_eq!(out.feature_lists.dense[0].shape(), &[1, 2]);
        assert_eq!(out.lengths[0].shape(), &[] as &[usize]);
        assert_eq!(out.feature_lists.sparse[0].indices.shape(), &[3, 2]);
    }

    #[test]
    fn empty_batch() {
        let (cfg, defaults) = config();
        let out = parse_sequence_example_batch(&cfg, &defaults, &[], &[], true).unwrap();
        assert_eq!(out.feature_lists.dense[0].shape(), &[0, 0, 2]);
        assert_eq!(out.lengths[0].shape(), &[0]);
        assert_eq!(
            out.feature_lists.sparse[0]
                .dense_shape
                .as_slice::<i64>()
                .unwrap(),
            &[0, 0, 0]
        );
    }

    #[test]
    fn errors_name_the_example() {
        let ctx = Features::new();
        let seq = Features::new().add("v", FixedLenSequenceFeature::new(&[2], DType::F32));
        let cfg = SequenceConfig::new(&ctx, &seq).unwrap();
        let names = [Bytes::from("first"), Bytes::from("second")];
        let mut exs = batch();
        exs[1] = example(&[], &[]);
        let e = parse_sequence_example_batch(&cfg, &[], &exs, &names, true).unwrap_err();
        assert!(
            e.message()
                .starts_with("Name: second, Feature list 'v' is required"),
            "{e}"
        );
        let e = parse_sequence_example_batch(&cfg, &[], &exs, &names[..1], true).unwrap_err();
        assert_eq!(
            e.message(),
            "example_names must be empty or have the correct number of elements"
        );
        exs[1] = example(&[], &[("v", vec![floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])])]);
        let e = parse_sequence_example_batch(&cfg, &[], &exs, &[], true).unwrap_err();
        assert!(
            e.message()
                .starts_with("Name: <unknown>, Key: v, Index: 0."),
            "{e}"
        );
    }

    /// Every truncation and single-byte corruption of a valid batch parses or fails cleanly.
    #[test]
    fn damaged_bytes_never_panic() {
        let (cfg, defaults) = config();
        let good = batch()[0].to_vec();
        for cut in 0..good.len() {
            let b = [Bytes::copy_from_slice(&good[..cut])];
            let _ = parse_sequence_example_batch(&cfg, &defaults, &b, &[], true);
        }
        for at in 0..good.len() {
            for x in [0x00u8, 0x7f, 0x80, 0xff] {
                let mut d = good.clone();
                d[at] = x;
                let b = [Bytes::from(d)];
                let _ = parse_sequence_example_batch(&cfg, &defaults, &b, &[], true);
            }
        }
    }
}
