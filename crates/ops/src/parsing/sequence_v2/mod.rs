//! `ParseSequenceExampleV2`: what TensorFlow 2's `tf.io.parse_sequence_example` and
//! `tf.io.parse_single_sequence_example` build. Its feature keys are string inputs (read each
//! run, the parser config cached while they stay the same), its feature lists may be missing
//! as a bool input says, and it adds ragged features (values and row splits of `Tsplits`).
//! The parsing is weir's batched `FastParseSequenceExample` ([`parse_sequence_example_batch`]),
//! which also parses a scalar `serialized` without a batch dimension.

mod builder;
mod signature;

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{format_dims, DType, Error, Kernel, Node, OpContext, Result, Shape, Tensor};

pub use builder::{ParseSequenceExampleV2, ParseSequenceExampleV2Outputs, VectorInput};

use super::features::DenseSpec;
use super::sequence::{ListSpec, RaggedSpec, SequenceConfig};
use super::sequence_batch::{parse_sequence_example_batch, SequenceBatchTensors};
use signature::{V2Attrs, V2Layout};

/// The inputs before the context dense defaults: serialized, debug_name, the six key vectors
/// and feature_list_dense_missing_assumed_empty.
const FIXED_INPUTS: usize = 9;

/// A parser config and the key inputs it was built from.
struct Keyed {
    keys: Vec<Vec<Bytes>>,
    missing: Vec<bool>,
    cfg: SequenceConfig,
}

struct ParseSequenceExampleV2Kernel {
    attrs: V2Attrs,
    layout: V2Layout,
    /// The config of the last run's keys: they are inputs, but in practice the same constants
    /// every run.
    keyed: Mutex<Option<Arc<Keyed>>>,
}

fn text(b: &Bytes) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Checks that no key is both of one kind and of another in one group (context or feature
/// lists), in TensorFlow's order: sparse, then ragged, then dense keys.
fn check_kinds(group: &str, sparse: &[String], ragged: &[String], dense: &[String]) -> Result<()> {
    if let Some(k) = ragged.iter().find(|k| sparse.contains(k)) {
        return Err(Error::invalid_argument(format!(
            "{group} feature {k} cannot be both ragged and sparse"
        )));
    }
    if let Some(k) = dense
        .iter()
        .find(|k| sparse.contains(k) || ragged.contains(k))
    {
        return Err(Error::invalid_argument(format!(
            "{group} feature {k} cannot be both dense and sparse"
        )));
    }
    Ok(())
}

impl ParseSequenceExampleV2Kernel {
    /// The key inputs (2..8) and the missing-assumed-empty flags, checked against the attrs
    /// with TensorFlow's messages.
    fn keys<'c>(&self, ctx: &'c OpContext<'_>) -> Result<(Vec<&'c [Bytes]>, &'c [bool])> {
        let a = &self.attrs;
        let keys = (2..8)
            .map(|i| ctx.input(i).as_slice::<Bytes>())
            .collect::<Result<Vec<_>>>()?;
        let missing = ctx.input(8).as_slice::<bool>()?;
        let checks = [
            (
                keys[1].len() == a.context_dense_types.len(),
                "Expected len(context_dense_keys) to match len(Tcontext_dense)",
            ),
            (
                keys[0].len() == a.context_sparse_types.len(),
                "Expected len(context_sparse_keys) to match Ncontext_sparse",
            ),
            (
                keys[2].len() == a.context_ragged_value_types.len(),
                "Expected len(context_ragged_keys) to match len(context_ragged_value_types)",
            ),
            (
                keys[4].len() == a.feature_list_dense_types.len(),
                "Expected len(feature_list_dense_keys) to match Nfeature_list_dense",
            ),
            (
                missing.len() == a.feature_list_dense_types.len(),
                "Expected len(feature_list_dense_missing_assumed_empty to match Nfeature_list_dense",
            ),
            (
                keys[3].len() == a.feature_list_sparse_types.len(),
                "Expected len(feature_list_sparse_keys) to match Nfeature_list_sparse",
            ),
            (
                keys[5].len() == a.feature_list_ragged_value_types.len(),
                "Expected len(feature_list_ragged_keys) to match len(feature_list_ragged_value_types)",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, message)) => Err(Error::invalid_argument(*message)),
            None => Ok((keys, missing)),
        }
    }

    /// The parser config of `keys` (context sparse, dense, ragged, feature-list sparse,
    /// dense, ragged) and `missing`: the cached one when they are the same.
    fn config(&self, keys: &[&[Bytes]], missing: &[bool]) -> Result<Arc<Keyed>> {
        let mut keyed = self.keyed.lock();
        if let Some(k) = keyed.as_ref() {
            if k.missing == missing && k.keys.iter().zip(keys).all(|(a, b)| a == b) {
                return Ok(k.clone());
            }
        }
        let names: Vec<Vec<String>> = keys.iter().map(|k| k.iter().map(text).collect()).collect();
        check_kinds("Context", &names[0], &names[2], &names[1])?;
        check_kinds("Sequence", &names[3], &names[5], &names[4])?;
        let a = &self.attrs;
        let known = |s: &Shape, key: &str| {
            s.to_known().ok_or_else(|| {
                Error::invalid_argument(format!("Shape of feature {key} is not fully defined"))
            })
        };
        let ragged = |names: &[String], values: &[DType], splits: &[DType]| -> Vec<RaggedSpec> {
            names
                .iter()
                .zip(values.iter().zip(splits))
                .map(|(name, (&dtype, &splits))| RaggedSpec {
                    name: name.clone(),
                    dtype,
                    splits,
                })
                .collect()
        };
        let mut cfg = SequenceConfig {
            ctx_dense: Vec::new(),
            ctx_sparse: names[0]
                .iter()
                .cloned()
                .zip(a.context_sparse_types.iter().copied())
                .collect(),
            ctx_ragged: ragged(
                &names[2],
                &a.context_ragged_value_types,
                &a.context_ragged_split_types,
            ),
            fl_dense: Vec::new(),
            fl_sparse: names[3]
                .iter()
                .cloned()
                .zip(a.feature_list_sparse_types.iter().copied())
                .collect(),
            fl_ragged: ragged(
                &names[5],
                &a.feature_list_ragged_value_types,
                &a.feature_list_ragged_split_types,
            ),
        };
        for ((name, &dtype), s) in names[1]
            .iter()
            .zip(&a.context_dense_types)
            .zip(&a.context_dense_shapes)
        {
            cfg.ctx_dense.push(DenseSpec {
                shape: known(s, name)?,
                name: name.clone(),
                dtype,
                variable_length: false,
                default: Tensor::zeros(dtype, &[0])?,
            });
        }
        for (((name, &dtype), s), &allow_missing) in names[4]
            .iter()
            .zip(&a.feature_list_dense_types)
            .zip(&a.feature_list_dense_shapes)
            .zip(missing)
        {
            cfg.fl_dense.push(ListSpec {
                row: known(s, name)?,
                name: name.clone(),
                dtype,
                allow_missing,
            });
        }
        let k = Arc::new(Keyed {
            keys: keys.iter().map(|k| k.to_vec()).collect(),
            missing: missing.to_vec(),
            cfg,
        });
        *keyed = Some(k.clone());
        Ok(k)
    }

    /// TensorFlow's checks of the context dense defaults against the attrs.
    fn check_defaults(&self, defaults: &[Tensor]) -> Result<()> {
        let a = &self.attrs;
        if defaults.len() != a.context_dense_types.len() {
            return Err(Error::invalid_argument(format!(
                "Expected len(context_dense_defaults) == len(context_dense_keys) but got: {} vs. {}",
                defaults.len(),
                a.context_dense_types.len()
            )));
        }
        for (d, t) in defaults.iter().enumerate() {
            if t.num_elements() == 0 {
                continue;
            }
            let want = &a.context_dense_shapes[d];
            if Shape::known(t.shape()) != *want {
                return Err(Error::invalid_argument(format!(
                    "default_value[{d}].shape() == {} != context_dense_shapes[{d}] == {want}",
                    format_dims(t.shape())
                )));
            }
            if t.dtype() != a.context_dense_types[d] {
                return Err(Error::invalid_argument(format!(
                    "context_dense_defaults[{d}].dtype() == {} != context_dense_types[{d}] == {}",
                    t.dtype(),
                    a.context_dense_types[d]
                )));
            }
        }
        Ok(())
    }

    fn set_outputs(&self, ctx: &mut OpContext<'_>, out: SequenceBatchTensors) {
        let l = &self.layout;
        let sparse =
            |ctx: &mut OpContext<'_>, base: usize, parts: Vec<weir_graph::SparseTensor>| {
                let n = parts.len();
                for (i, sp) in parts.into_iter().enumerate() {
                    ctx.set_output(base + i, sp.indices);
                    ctx.set_output(base + n + i, sp.values);
                    ctx.set_output(base + 2 * n + i, sp.dense_shape);
                }
            };
        sparse(ctx, 0, out.context.sparse);
        for (i, t) in out.context.dense.into_iter().enumerate() {
            ctx.set_output(l.context_dense + i, t);
        }
        for (i, r) in out.context_ragged.into_iter().enumerate() {
            ctx.set_output(l.context_ragged_values + i, r.values);
            ctx.set_output(l.context_ragged_splits + i, r.row_splits);
        }
        sparse(ctx, l.feature_list_sparse, out.feature_lists.sparse);
        for (i, t) in out.feature_lists.dense.into_iter().enumerate() {
            ctx.set_output(l.feature_list_dense + i, t);
        }
        for (i, t) in out.lengths.into_iter().enumerate() {
            ctx.set_output(l.feature_list_lengths + i, t);
        }
        for (i, r) in out.feature_list_ragged.into_iter().enumerate() {
            ctx.set_output(l.feature_list_ragged_values + i, r.values);
            if let Some(outer) = r.outer_splits {
                ctx.set_output(l.feature_list_ragged_outer + i, outer);
            }
            ctx.set_output(l.feature_list_ragged_inner + i, r.row_splits);
        }
    }
}

impl Kernel for ParseSequenceExampleV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ser = ctx.input(0);
        if ser.rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "Expected serialized to be a scalar or vector, got shape: {}",
                format_dims(ser.shape())
            )));
        }
        let (keys, missing) = self.keys(ctx)?;
        let defaults = &ctx.inputs()[FIXED_INPUTS..];
        self.check_defaults(defaults)?;
        let serialized = ser.as_slice::<Bytes>()?;
        let names = ctx.input(1).as_slice::<Bytes>()?;
        if !names.is_empty() && names.len() != serialized.len() {
            return Err(Error::invalid_argument(
                "example_names must be empty or have the correct number of elements",
            ));
        }
        let keyed = self.config(&keys, missing)?;
        let out =
            parse_sequence_example_batch(&keyed.cfg, defaults, serialized, names, ser.rank() == 1)?;
        self.set_outputs(ctx, out);
        Ok(())
    }

    fn is_expensive(&self) -> bool {
        true
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let attrs = V2Attrs::read(node.attrs())?;
    Ok(Box::new(ParseSequenceExampleV2Kernel {
        layout: V2Layout::of(&attrs),
        attrs,
        keyed: Mutex::new(None),
    }))
}

pub(super) fn register() {
    register_op(signature::op_def());
    register_kernel("ParseSequenceExampleV2", make);
}

#[cfg(test)]
mod tests {
    use super::*;
    use signature::V2Layout;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn a_key_of_two_kinds_is_refused_in_tensorflows_order() {
        assert!(check_kinds("Context", &s(&["a"]), &s(&["b"]), &s(&["c"])).is_ok());
        let e = check_kinds("Context", &s(&["a"]), &s(&["a"]), &s(&["a"])).unwrap_err();
        assert_eq!(
            e.message(),
            "Context feature a cannot be both ragged and sparse"
        );
        let e = check_kinds("Sequence", &s(&[]), &s(&["r"]), &s(&["r"])).unwrap_err();
        assert_eq!(
            e.message(),
            "Sequence feature r cannot be both dense and sparse"
        );
    }

    #[test]
    fn outputs_are_laid_out_in_tensorflows_order() {
        let l = V2Layout::new(1, 2, 1, 1, 1, 2);
        assert_eq!(
            [
                l.context_dense,
                l.context_ragged_values,
                l.context_ragged_splits,
                l.feature_list_sparse,
                l.feature_list_dense,
                l.feature_list_lengths,
                l.feature_list_ragged_values,
                l.feature_list_ragged_outer,
                l.feature_list_ragged_inner,
            ],
            [3, 5, 6, 7, 10, 11, 12, 14, 16]
        );
    }
}
