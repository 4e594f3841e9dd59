//! The ragged features of `ParseSequenceExampleV2`: a context `RaggedFeature` becomes its values
//! and the row splits over the examples, a feature-list one its values, the splits of each
//! example's rows (outer) and of each row's values (inner), as `FastParseSequenceExample`
//! writes them.

use weir_graph::{DType, Result, Tensor};

use super::super::example::{with_value_type, Value};
use super::super::sequence::{RaggedSpec, SequenceConfig};
use super::super::sequence_values::{push_context_sparse, push_list_rows};
use super::parse::Batch;

/// A parsed ragged feature: the flat values and their row splits, in the feature's splits
/// dtype (int32 or int64).
#[derive(Clone, Debug)]
pub struct RaggedTensors {
    /// The values of every example (and row), concatenated: `[N]`.
    pub values: Tensor,
    /// The splits of `values`: over the examples for a context feature (`[B + 1]`), over the
    /// rows of all examples for a feature list (`[rows + 1]`). For a context feature of a scalar
    /// input TensorFlow outputs a scalar it never sets; weir's holds 0.
    pub row_splits: Tensor,
    /// A feature list's splits of the rows over the examples (`[B + 1]`; a scalar, 0, for a
    /// scalar input, which TensorFlow leaves unset); `None` for a context feature.
    pub outer_splits: Option<Tensor>,
}

/// The ragged context features and feature lists of the batch `b` (whose features were found
/// and type-checked by the caller), in `cfg` order.
pub(super) fn parse(
    cfg: &SequenceConfig,
    b: &Batch<'_>,
) -> Result<(Vec<RaggedTensors>, Vec<RaggedTensors>)> {
    let ctx_at = cfg.ctx_dense.len() + cfg.ctx_sparse.len();
    let context = cfg
        .ctx_ragged
        .iter()
        .enumerate()
        .map(|(i, spec)| with_value_type!(spec.dtype, T => context::<T>(b, ctx_at + i, spec)))
        .collect::<Result<Vec<_>>>()?;
    let fl_at = cfg.fl_dense.len() + cfg.fl_sparse.len();
    let lists = cfg
        .fl_ragged
        .iter()
        .enumerate()
        .map(|(i, spec)| with_value_type!(spec.dtype, T => list::<T>(b, fl_at + i, spec)))
        .collect::<Result<Vec<_>>>()?;
    Ok((context, lists))
}

/// Splits (cumulative sizes starting at 0) as a tensor of `dtype`: a vector for a batch, else
/// TensorFlow's scalar.
fn splits(dtype: DType, splits: Vec<i64>, vector: bool) -> Result<Tensor> {
    if !vector {
        return Tensor::zeros(dtype, &[]);
    }
    let n = splits.len();
    match dtype {
        DType::I32 => Tensor::from_vec(&[n], splits.into_iter().map(|s| s as i32).collect()),
        _ => Tensor::from_vec(&[n], splits),
    }
}

fn context<T: Value>(b: &Batch<'_>, at: usize, spec: &RaggedSpec) -> Result<RaggedTensors> {
    let mut values: Vec<T> = Vec::new();
    let mut row_splits = Vec::with_capacity(b.len() + 1);
    row_splits.push(0i64);
    for e in 0..b.len() {
        push_context_sparse(
            &b.serialized[e],
            b.protos[e].ctx[at],
            &spec.name,
            &mut values,
        )?;
        row_splits.push(values.len() as i64);
    }
    Ok(RaggedTensors {
        values: Tensor::from_vec(&[values.len()], values)?,
        row_splits: splits(spec.splits, row_splits, b.batch)?,
        outer_splits: None,
    })
}

fn list<T: Value>(b: &Batch<'_>, at: usize, spec: &RaggedSpec) -> Result<RaggedTensors> {
    let mut values: Vec<T> = Vec::new();
    let mut inner = vec![0i64];
    let mut outer = Vec::with_capacity(b.len() + 1);
    outer.push(0i64);
    let mut total = 0i64;
    for e in 0..b.len() {
        let name = b.name(e);
        let rows = push_list_rows(
            &b.serialized[e],
            b.protos[e].fl[at],
            spec.dtype,
            &spec.name,
            &name,
            &mut values,
            |added| {
                total += added as i64;
                inner.push(total);
            },
        )?;
        let last = outer.last().copied().unwrap_or(0);
        outer.push(last + rows as i64);
    }
    Ok(RaggedTensors {
        values: Tensor::from_vec(&[values.len()], values)?,
        row_splits: splits(spec.splits, inner, true)?,
        outer_splits: Some(splits(spec.splits, outer, b.batch)?),
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse::tests::{example, floats, ints};
    use super::super::parse_sequence_example_batch;
    use super::*;
    use bytes::Bytes;

    fn config() -> SequenceConfig {
        let spec = |name: &str, dtype, splits| RaggedSpec {
            name: name.into(),
            dtype,
            splits,
        };
        SequenceConfig {
            ctx_dense: Vec::new(),
            ctx_sparse: Vec::new(),
            ctx_ragged: vec![spec("c", DType::I64, DType::I32)],
            fl_dense: Vec::new(),
            fl_sparse: Vec::new(),
            fl_ragged: vec![spec("f", DType::F32, DType::I64)],
        }
    }

    fn batch() -> Vec<Bytes> {
        vec![
            example(
                &[("c", ints(&[1, 2]))],
                &[("f", vec![floats(&[1.0]), floats(&[]), floats(&[2.0, 3.0])])],
            ),
            example(&[], &[]),
            example(&[("c", ints(&[3]))], &[("f", vec![floats(&[4.0])])]),
        ]
    }

    #[test]
    fn splits_over_examples_and_rows() {
        let out = parse_sequence_example_batch(&config(), &[], &batch(), &[], true).unwrap();
        let c = &out.context_ragged[0];
        assert_eq!(c.values.as_slice::<i64>().unwrap(), &[1, 2, 3]);
        assert_eq!(c.row_splits.as_slice::<i32>().unwrap(), &[0, 2, 2, 3]);
        assert!(c.outer_splits.is_none());
        let f = &out.feature_list_ragged[0];
        assert_eq!(f.values.as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(f.row_splits.as_slice::<i64>().unwrap(), &[0, 1, 1, 3, 4]);
        let outer = f.outer_splits.as_ref().unwrap();
        assert_eq!(outer.as_slice::<i64>().unwrap(), &[0, 3, 3, 4]);
    }

    #[test]
    fn a_scalar_input_has_scalar_example_splits() {
        let one = &batch()[..1];
        let out = parse_sequence_example_batch(&config(), &[], one, &[], false).unwrap();
        let c = &out.context_ragged[0];
        assert_eq!(c.row_splits.shape(), &[] as &[usize]);
        let f = &out.feature_list_ragged[0];
        assert_eq!(f.row_splits.as_slice::<i64>().unwrap(), &[0, 1, 1, 3]);
        assert_eq!(f.outer_splits.as_ref().unwrap().shape(), &[] as &[usize]);
    }

    /// Every truncation and single-byte corruption parses or fails cleanly.
    #[test]
    fn damaged_bytes_never_panic() {
        let good = batch()[0].to_vec();
        for cut in 0..good.len() {
            let b = [Bytes::copy_from_slice(&good[..cut])];
            let _ = parse_sequence_example_batch(&config(), &[], &b, &[], true);
        }
        for at in 0..good.len() {
            for x in [0x00u8, 0x02, 0x7f, 0x80, 0xff] {
                let mut d = good.clone();
                d[at] = x;
                let _ = parse_sequence_example_batch(&config(), &[], &[Bytes::from(d)], &[], true);
            }
        }
    }
}
