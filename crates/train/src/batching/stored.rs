//! The batchers' inputs that are not a plain list of dense tensors: a dictionary of tensors
//! (batched under the same keys) and SparseTensors (carried through the queue as handles into
//! a SparseTensorsMap), as TensorFlow's `input.py` handles them.

use std::collections::BTreeMap;

use weir_graph::{Error, Output, Result, Shape};
use weir_ops::sparse::{
    add_many_sparse_to_tensors_map, add_sparse_to_tensors_map, take_many_sparse_from_tensors_map,
    SparseOutput,
};

use super::{build, spec, Spec};

/// A spec whose tensors come as a dictionary: TensorFlow's `_as_tensor_list` orders them by
/// key, and `build_dict` gives the batches back under the same keys.
pub(super) fn dict_spec(what: &'static str, tensors: &[(&str, Output)], batch_size: usize) -> Spec {
    let mut sorted: Vec<(&str, Output)> = tensors.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut s = spec(
        what,
        vec![sorted.iter().map(|(_, t)| t.clone()).collect()],
        false,
        batch_size,
    );
    s.keys = Some(sorted.iter().map(|(k, _)| k.to_string()).collect());
    s
}

/// Builds a batcher whose tensors came as a dictionary; the batches keyed the same way.
pub(super) fn build_dict(spec: Spec) -> Result<BTreeMap<String, Output>> {
    let keys = spec.keys.clone().ok_or_else(|| {
        Error::invalid_argument(format!(
            "{}: build_dict needs the tensors given as a dictionary (from_dict)",
            spec.what
        ))
    })?;
    if let Some(k) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::invalid_argument(format!(
            "{}: the key '{}' appears twice in the dictionary of tensors",
            spec.what, k[0]
        )));
    }
    let outs = build(spec)?;
    Ok(keys.into_iter().zip(outs).collect())
}

/// What a batcher with SparseTensor inputs returns ([`Batch::build_all`](crate::Batch::build_all)): one batch per dense
/// input, in order, and one sparse batch per SparseTensor input, in order.
#[derive(Clone, Debug)]
pub struct Batched {
    /// The dense batches.
    pub dense: Vec<Output>,
    /// The sparse batches: each input's indices with the batch row prefixed, and a dense shape
    /// of `[batch, largest of each dimension]`.
    pub sparse: Vec<SparseOutput>,
}

/// Builds a batcher with SparseTensor inputs as TensorFlow's `_store_sparse_tensors` does:
/// each SparseTensor is kept in a SparseTensorsMap and its int64 handle (one per row with
/// `enqueue_many`) rides through the queue; after the dequeue, `TakeManySparseFromTensorsMap`
/// turns the batch of handles back into one sparse tensor.
pub(super) fn build_all(mut spec: Spec) -> Result<Batched> {
    let sparse = std::mem::take(&mut spec.sparse);
    let dense_count = spec.lists[0].len();
    let mut maps = Vec::with_capacity(sparse.len());
    for sp in &sparse {
        let handle = if spec.enqueue_many {
            add_many_sparse_to_tensors_map(sp, None)?
        } else {
            add_sparse_to_tensors_map(sp, None)?
        };
        maps.push((handle.op().name(), sp.dtype()));
        spec.lists[0].push(handle);
        if let Some(shapes) = &mut spec.shapes {
            if shapes.len() < spec.lists[0].len() {
                shapes.push(Shape::scalar());
            }
        }
    }
    let mut outs = build(spec)?;
    let handles = outs.split_off(dense_count);
    let sparse = handles
        .iter()
        .zip(maps)
        .map(|(h, (map, dtype))| take_many_sparse_from_tensors_map(h, dtype, &map))
        .collect::<Result<Vec<_>>>()?;
    Ok(Batched {
        dense: outs,
        sparse,
    })
}
