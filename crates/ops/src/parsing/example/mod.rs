//! The Example parser: TensorFlow's fast parsing of serialized `tf.train.Example` protos,
//! decoded straight from the wire format into the output buffers (no `Example` structs),
//! for one scalar input (`parse_single_example`) or a batch (`parse_example`).
//!
//! Semantics follow `example_proto_fast_parsing.cc`: map entries are visited last to first so
//! the last value of a repeated key wins; only requested features are decoded (others may be
//! garbage); a `Feature` with no kind set counts as missing; error texts differ between the
//! single and the batch path exactly as TensorFlow's do.

use bytes::Bytes;
use weir_graph::{DType, Error, OutputScale, Result, SparseTensor, Tensor, TensorType};

use super::features::DenseSpec;
use super::wire::{escape_bytes, example_entries, feature_kind, int64_list, Entry, Fixed, Kind};
use crate::math::cast::cast_tensor;

mod config;
mod value;

pub(crate) use config::Slot;
pub use config::{ExampleConfig, ParsedTensors};
pub(crate) use value::{kind_name, kind_of, with_value_type, Ragged, Value};

/// A fixed-length int64 dense feature that a run plan asks for as float32 (a fused `Cast`),
/// and the fused `Mul` or `RealDiv` by a constant after that Cast, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct AsF32 {
    pub(crate) cast: bool,
    pub(crate) scale: Option<OutputScale>,
}

impl AsF32 {
    /// Whether dense feature `d` comes out as float32 (`of` may be empty).
    pub(crate) fn cast(of: &[AsF32], d: usize) -> bool {
        of.get(d).is_some_and(|a| a.cast)
    }

    /// The scale dense feature `d` gets after its cast, if any.
    pub(crate) fn scale(of: &[AsF32], d: usize) -> Option<OutputScale> {
        of.get(d).and_then(|a| a.scale)
    }
}

pub(crate) fn could_not_parse(serialized: &[u8]) -> Error {
    Error::invalid_argument(format!(
        "Could not parse example input, value: '{}'",
        escape_bytes(serialized)
    ))
}

pub(crate) fn unsupported() -> Error {
    Error::invalid_argument("Unsupported datatype.")
}

pub(crate) fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// `[?,d1,...]`: the shape of a sequence feature as TensorFlow prints it.
pub(crate) fn sequence_shape_string(row: &[usize]) -> String {
    let mut s = String::from("[?");
    for d in row {
        s.push(',');
        s.push_str(&d.to_string());
    }
    s.push(']');
    s
}

pub(crate) fn first_or_zero<T: TensorType>(t: &Tensor) -> Result<T> {
    Ok(t.as_slice::<T>()?.first().cloned().unwrap_or_else(T::zero))
}

/// A single example's feature `key` failed: `Key: a.  <what>`.
fn single_error(key: &[u8], what: &str) -> Error {
    Error::invalid_argument(format!("Key: {}.  {what}", lossy(key)))
}

/// [`parse_single_dense`] of a fixed-length int64 feature, decoded straight to float32 (for a
/// fused Cast), with the same errors.
fn parse_single_fixed_as_f32(
    spec: &DenseSpec,
    base: &Bytes,
    key: &[u8],
    value: (usize, usize),
) -> Result<Tensor> {
    single_fixed(spec, key, i64::LIST, |f: &mut Fixed<'_, f32>| {
        int64_list(base, value.0, value.1, f)
    })
}

/// `t` (float32) with `scale` applied to each value: in place when `t` is not shared (a parsed
/// feature), otherwise in a copy.
fn scaled(mut t: Tensor, scale: OutputScale) -> Result<Tensor> {
    scale.apply_all(t.as_slice_mut::<f32>()?);
    Ok(t)
}

/// One example's values of a fixed-length feature through `parse`, with TensorFlow's errors for
/// a list (`list` names its kind) that does not parse or has the wrong length.
fn single_fixed<O: TensorType>(
    spec: &DenseSpec,
    key: &[u8],
    list: &str,
    parse: impl FnOnce(&mut Fixed<'_, O>) -> bool,
) -> Result<Tensor> {
    let parse_error =
        |what: String| single_error(key, &format!("Can't parse serialized Example: {what}"));
    let mut out = vec![O::zero(); spec.shape.iter().product()];
    let mut f = Fixed::new(&mut out);
    if !parse(&mut f) {
        return Err(parse_error(format!("Parsing {list} failed.")));
    }
    if !f.is_full() {
        return Err(parse_error(format!("Some {list} slice was not parsed.")));
    }
    Tensor::from_vec(&spec.shape, out)
}

fn parse_single_dense<T: Value>(
    spec: &DenseSpec,
    base: &Bytes,
    key: &[u8],
    value: (usize, usize),
) -> Result<Tensor> {
    if !spec.variable_length {
        return single_fixed(spec, key, T::LIST, |f: &mut Fixed<'_, T>| {
            T::parse_list(base, value.0, value.1, f)
        });
    }
    let parse_error =
        |what: String| single_error(key, &format!("Can't parse serialized Example: {what}"));
    let mut v: Vec<T> = Vec::new();
    if !T::parse_list(base, value.0, value.1, &mut v) {
        return Err(parse_error(if T::KIND == Kind::Bytes {
            "Could not get num elements in bytes_list.".to_string()
        } else {
            format!("Parsing {} failed.", T::LIST)
        }));
    }
    let stride: usize = spec.shape.iter().product();
    if (stride == 0 && !v.is_empty()) || (stride != 0 && v.len() % stride != 0) {
        return Err(Error::invalid_argument(format!(
            "Error while parsing feature with key {}: number of elements should be divisible by {stride}, found {} instead",
            lossy(key),
            v.len()
        )));
    }
    let mut shape = vec![v.len().checked_div(stride).unwrap_or(0)];
    shape.extend_from_slice(&spec.shape);
    Tensor::from_vec(&shape, v)
}

fn parse_single_sparse<T: Value>(
    base: &Bytes,
    key: &[u8],
    value: (usize, usize),
) -> Result<SparseTensor> {
    let mut r = Ragged::<T>::new(1);
    if !T::parse_list(base, value.0, value.1, &mut r.values) {
        let what = if T::KIND == Kind::Bytes {
            "Could not get num elements in bytes_list.".to_string()
        } else {
            format!("Parsing {} failed.", T::LIST)
        };
        return Err(single_error(
            key,
            &format!("Can't parse serialized Example: {what}"),
        ));
    }
    r.ends.push(r.values.len());
    r.into_sparse(None)
}

fn empty_sparse_single(dtype: DType) -> Result<SparseTensor> {
    Ok(SparseTensor {
        indices: Tensor::from_vec::<i64>(&[0, 1], Vec::new())?,
        values: Tensor::zeros(dtype, &[0])?,
        dense_shape: Tensor::from(vec![0i64]),
    })
}

/// Parses one serialized Example: `FastParseSingleExample`, the work of `parse_single_example`.
pub fn parse_single_example(cfg: &ExampleConfig, serialized: &Bytes) -> Result<ParsedTensors> {
    parse_single_with(cfg, &cfg.defaults(), &[], serialized)
}

/// [`parse_single_example`] with `defaults[d]` in place of dense feature `d`'s default; a
/// fixed-length int64 feature `d` with `as_f32[d]` set comes out as float32, converted as `Cast`
/// converts it and then scaled as the fused op would (`as_f32` may be empty).
pub(crate) fn parse_single_with(
    cfg: &ExampleConfig,
    defaults: &[Tensor],
    as_f32: &[AsF32],
    serialized: &Bytes,
) -> Result<ParsedTensors> {
    let mut entries: Vec<Entry> = Vec::new();
    if !example_entries(serialized, &mut entries) {
        return Err(could_not_parse(serialized));
    }
    let buf: &[u8] = serialized;
    let mut dense: Vec<Option<Tensor>> = vec![None; cfg.dense.len()];
    let mut sparse: Vec<Option<SparseTensor>> = vec![None; cfg.sparse.len()];
    for e in entries.iter().rev() {
        let key = &buf[e.key.0..e.key.1];
        let Some(slot) = cfg.index.find(key) else {
            continue;
        };
        let kind = feature_kind(buf, e.value.0, e.value.1).map_err(|_| unsupported())?;
        if kind == Kind::None {
            continue;
        }
        match slot {
            Slot::Dense(d) => {
                if dense[d].is_some() {
                    continue;
                }
                let spec = &cfg.dense[d];
                if kind != kind_of(spec.dtype) {
                    return Err(single_error(
                        key,
                        &format!(
                            "Data types don't match. Data type: {} but expected type: {}",
                            kind_name(kind),
                            spec.dtype
                        ),
                    ));
                }
                let t = if AsF32::cast(as_f32, d) && !spec.variable_length {
                    parse_single_fixed_as_f32(spec, serialized, key, e.value)?
                } else {
                    with_value_type!(spec.dtype, T => parse_single_dense::<T>(spec, serialized, key, e.value)?)
                };
                dense[d] = Some(t);
            }
            Slot::Sparse(s) => {
                if sparse[s].is_some() {
                    continue;
                }
                let dtype = cfg.sparse[s].1;
                if kind != kind_of(dtype) {
                    return Err(single_error(
                        key,
                        &format!(
                            "Data types don't match. Expected type: {dtype}, Actual type: {}",
                            kind_name(kind)
                        ),
                    ));
                }
                let t = with_value_type!(dtype, T => parse_single_sparse::<T>(serialized, key, e.value)?);
                sparse[s] = Some(t);
            }
        }
    }
    let dense = dense
        .into_iter()
        .zip(cfg.dense.iter().zip(defaults))
        .enumerate()
        .map(|(d, (t, (spec, default)))| match t {
            Some(t) => Ok(t),
            None if spec.variable_length => {
                let mut shape = vec![0];
                shape.extend_from_slice(&spec.shape);
                Tensor::zeros(spec.dtype, &shape)
            }
            None if default.num_elements() == 0 => Err(Error::invalid_argument(format!(
                "Feature: {} (data type: {}) is required but could not be found.",
                spec.name, spec.dtype
            ))),
            None if AsF32::cast(as_f32, d) => {
                cast_tensor(default, DType::F32)?.reshape(&spec.shape)
            }
            None => default.reshape(&spec.shape),
        })
        .collect::<Result<Vec<_>>>()?;
    let dense = dense
        .into_iter()
        .enumerate()
        .map(|(d, t)| match AsF32::scale(as_f32, d) {
            Some(scale) => scaled(t, scale),
            None => Ok(t),
        })
        .collect::<Result<Vec<_>>>()?;
    let sparse = sparse
        .into_iter()
        .zip(&cfg.sparse)
        .map(|(t, (_, dtype))| match t {
            Some(t) => Ok(t),
            None => empty_sparse_single(*dtype),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ParsedTensors { dense, sparse })
}

#[cfg(test)]
mod tests {
    use super::super::example_batch::parse_example_batch;
    use super::*;

    fn hex(s: &str) -> Bytes {
        Bytes::from(
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect::<Vec<u8>>(),
        )
    }

    fn cfg_a(shape: Vec<usize>, default: Option<Tensor>) -> ExampleConfig {
        ExampleConfig::from_parts(vec![("a".into(), DType::I64, shape, default)], vec![]).unwrap()
    }

    #[test]
    fn single_fixed_len_and_errors() {
        let ex = hex("0a0d0a0b0a016112061a040a020102"); // {a: [1, 2]}
        let out = parse_single_example(&cfg_a(vec![2], None), &ex).unwrap();
        assert_eq!(out.dense[0].to_vec::<i64>().unwrap(), vec![1, 2]);
        let e = parse_single_example(&cfg_a(vec![3], None), &ex).unwrap_err();
        assert_eq!(
            e.message(),
            "Key: a.  Can't parse serialized Example: Some int64_list slice was not parsed."
        );
        let f = ExampleConfig::from_parts(vec![("a".into(), DType::F32, vec![2], None)], vec![])
            .unwrap();
        let e = parse_single_example(&f, &ex).unwrap_err();
        assert_eq!(
            e.message(),
            "Key: a.  Data types don't match. Data type: int64 but expected type: float"
        );
        let e = parse_single_example(&cfg_a(vec![], None), &Bytes::new()).unwrap_err();
        assert_eq!(
            e.message(),
            "Feature: a (data type: int64) is required but could not be found."
        );
        let d =
            parse_single_example(&cfg_a(vec![], Some(Tensor::from(5i64))), &Bytes::new()).unwrap();
        assert_eq!(d.dense[0].to_vec::<i64>().unwrap(), vec![5]);
        let e = parse_single_example(&cfg_a(vec![], None), &hex("0a05616263")).unwrap_err();
        assert_eq!(
            e.message(),
            "Could not parse example input, value: '\\n\\x05abc'"
        );
    }

    #[test]
    fn last_value_of_a_repeated_key_wins() {
        // Two concatenated Examples {a: [1, 2]} then {a: [1]}.
        let mut two = hex("0a0d0a0b0a016112061a040a020102").to_vec();
        two.extend_from_slice(&hex("0a0b0a090a016112041a020801"));
        let out = parse_single_example(&cfg_a(vec![1], None), &Bytes::from(two)).unwrap();
        assert_eq!(out.dense[0].to_vec::<i64>().unwrap(), vec![1]);
    }

    #[test]
    fn batch_var_len_gives_row_major_sparse() {
        let cfg = ExampleConfig::from_parts(vec![], vec![("a".into(), DType::I64)]).unwrap();
        let batch = [
            hex("0a0d0a0b0a016112061a040a020102"),
            hex("0a0b0a090a016112041a020805"),
            Bytes::new(),
        ];
        let out = parse_example_batch(&cfg, &batch, &[]).unwrap();
        let sp = &out.sparse[0];
        assert_eq!(sp.indices.to_vec::<i64>().unwrap(), vec![0, 0, 0, 1, 1, 0]);
        assert_eq!(sp.values.to_vec::<i64>().unwrap(), vec![1, 2, 5]);
        assert_eq!(sp.dense_shape.to_vec::<i64>().unwrap(), vec![3, 2]);
    }

    #[test]
    fn batch_errors_name_the_example() {
        let batch = [hex("0a0d0a0b0a016112061a040a020102"), Bytes::new()];
        let names = [Bytes::from_static(b"x0"), Bytes::from_static(b"x1")];
        let e = parse_example_batch(&cfg_a(vec![2], None), &batch, &names).unwrap_err();
        assert_eq!(
            e.message(),
            "Name: x1, Feature: a (data type: int64) is required but could not be found."
        );
        let e = parse_example_batch(&cfg_a(vec![], None), &batch, &[]).unwrap_err();
        assert_eq!(e.message(), "Name: <unknown>, Key: a, Index: 0.  Number of int64 values != expected.  Values size: 2 but output shape: []");
    }
}
