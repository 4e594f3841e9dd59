//! The SparseTensorsMap ops: how TensorFlow's batchers carry a `SparseTensor` through a queue.
//! `AddSparseToTensorsMap` (and `AddManySparseToTensorsMap`, one entry per row of a minibatch)
//! keeps a sparse tensor in a session resource and outputs an int64 handle, which a queue can
//! hold like any scalar; `TakeManySparseFromTensorsMap` takes a vector of handles back out as
//! one sparse tensor with a new leading batch dimension.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, DType, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Resource, Result, Shape, Tensor,
};

use super::SparseOutput;

/// One stored sparse tensor: int64 indices `[n, rank]`, values `[n]`, int64 shape `[rank]`.
struct Entry {
    indices: Tensor,
    values: Tensor,
    shape: Vec<i64>,
}

/// The session resource the ops share: stored sparse tensors by handle.
struct SparseTensorsMap {
    name: String,
    state: Mutex<(i64, HashMap<i64, Entry>)>,
}

impl Resource for SparseTensorsMap {
    fn type_name(&self) -> &str {
        "SparseTensorsMap"
    }
}

impl SparseTensorsMap {
    fn add(&self, entries: Vec<Entry>) -> Vec<i64> {
        let mut st = self.state.lock();
        entries
            .into_iter()
            .map(|e| {
                let h = st.0;
                st.0 += 1;
                st.1.insert(h, e);
                h
            })
            .collect()
    }
}

/// `AddSparseToTensorsMap`: stores a sparse tensor, outputs its int64 scalar handle. The map is
/// named by `shared_name`, or by this op's name when that is empty (as in TensorFlow).
pub fn add_sparse_to_tensors_map(sp: &SparseOutput, shared_name: Option<&str>) -> Result<Output> {
    add_op("AddSparseToTensorsMap", sp, shared_name)
}

/// `AddManySparseToTensorsMap`: stores each row (along dimension 0) of a minibatch sparse
/// tensor as its own entry, of rank one less, and outputs their int64 handles `[rows]`.
pub fn add_many_sparse_to_tensors_map(
    sp: &SparseOutput,
    shared_name: Option<&str>,
) -> Result<Output> {
    add_op("AddManySparseToTensorsMap", sp, shared_name)
}

fn add_op(op_type: &str, sp: &SparseOutput, shared_name: Option<&str>) -> Result<Output> {
    crate::new_op(sp.graph(), op_type)
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .attr("container", "")
        .attr("shared_name", shared_name.unwrap_or(""))
        .build()?
        .output(0)
}

/// `TakeManySparseFromTensorsMap`: removes the entries of the int64 `handles` from the map
/// named `shared_name` (the name of the op that added them, unless they were added under a
/// shared name) and returns them as one sparse tensor of `dtype` values, entry `i` being row
/// `i`; each other dimension is the largest among the entries.
pub fn take_many_sparse_from_tensors_map(
    handles: &Output,
    dtype: DType,
    shared_name: &str,
) -> Result<SparseOutput> {
    let op = crate::new_op(handles.graph(), "TakeManySparseFromTensorsMap")
        .input(handles)
        .attr("dtype", dtype)
        .attr("container", "")
        .attr("shared_name", shared_name)
        .build()?;
    SparseOutput::from_op(&op)
}

/// The map an op reads or writes: its `shared_name`, or (for the ops that add) its own name.
struct MapOp {
    container: String,
    name: String,
}

impl MapOp {
    fn of(node: &Node, name_by_default: bool) -> Result<MapOp> {
        let mut name: String = node.attr("shared_name")?;
        if name.is_empty() {
            if !name_by_default {
                return Err(Error::invalid_argument(format!(
                    "{} needs the shared_name of the map its handles come from",
                    node.op_type()
                )));
            }
            name = node.name().to_string();
        }
        Ok(MapOp {
            container: node.attr("container")?,
            name,
        })
    }

    fn map(&self, ctx: &OpContext<'_>) -> Result<Arc<SparseTensorsMap>> {
        ctx.resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(SparseTensorsMap {
                    name: self.name.clone(),
                    state: Mutex::new((1, HashMap::new())),
                })
            })
    }
}

/// The three inputs of an add op, checked as TensorFlow checks them.
fn sparse_inputs(ctx: &OpContext<'_>) -> Result<(Tensor, Tensor, Vec<i64>)> {
    let (indices, values, shape) = (ctx.input(0), ctx.input(1), ctx.input(2));
    check_sparse_ranks(indices, values, shape)?;
    let shape = shape.to_vec::<i64>()?;
    let (n, r) = (indices.shape()[0], indices.shape()[1]);
    if values.shape()[0] != n || r != shape.len() {
        return Err(Error::invalid_argument(format!(
            "Sparse tensor of indices {}, values {} and shape {} does not fit together",
            format_dims(indices.shape()),
            format_dims(values.shape()),
            format_dims(&[shape.len()])
        )));
    }
    Ok((indices.clone(), values.clone(), shape))
}

/// TensorFlow's first checks of a sparse tensor given to a kernel as three inputs: a matrix of
/// indices, a vector of values and a vector shape.
pub(super) fn check_sparse_ranks(indices: &Tensor, values: &Tensor, shape: &Tensor) -> Result<()> {
    if indices.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "Input indices should be a matrix but received shape {}",
            format_dims(indices.shape())
        )));
    }
    if values.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Input values should be a vector but received shape {}",
            format_dims(values.shape())
        )));
    }
    if shape.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "Input shape should be a vector but received shape {}",
            format_dims(shape.shape())
        )));
    }
    Ok(())
}

struct AddKernel {
    map: MapOp,
    many: bool,
}

impl Kernel for AddKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (indices, values, shape) = sparse_inputs(ctx)?;
        let map = self.map.map(ctx)?;
        if !self.many {
            let h = map.add(vec![Entry {
                indices,
                values,
                shape,
            }]);
            ctx.set_output(0, Tensor::scalar(h[0]));
            return Ok(());
        }
        if shape.len() < 2 {
            return Err(Error::invalid_argument(format!(
                "Rank of input SparseTensor should be > 1, but saw rank: {}",
                shape.len()
            )));
        }
        let rows = usize::try_from(shape[0]).map_err(|_| {
            Error::invalid_argument(format!("Negative minibatch size: {}", shape[0]))
        })?;
        let r = shape.len();
        let idx = indices.as_slice::<i64>()?;
        // The value positions of each row, in their order.
        let mut of_row: Vec<Vec<usize>> = vec![Vec::new(); rows];
        for (k, at) in idx.chunks_exact(r).enumerate() {
            let row = usize::try_from(at[0])
                .ok()
                .filter(|&b| b < rows)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Index {k} of the minibatch SparseTensor has row {}, outside [0, {rows})",
                        at[0]
                    ))
                })?;
            of_row[row].push(k);
        }
        let entries = of_row
            .iter()
            .map(|ks| {
                let mut sub = Vec::with_capacity(ks.len() * (r - 1));
                for &k in ks {
                    sub.extend_from_slice(&idx[k * r + 1..(k + 1) * r]);
                }
                Ok(Entry {
                    indices: Tensor::from_vec(&[ks.len(), r - 1], sub)?,
                    values: take_values(&values, ks)?,
                    shape: shape[1..].to_vec(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let handles = map.add(entries);
        ctx.set_output(0, Tensor::from(handles));
        Ok(())
    }
}

struct TakeManyKernel {
    map: MapOp,
    dtype: DType,
}

impl Kernel for TakeManyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let handles = ctx.input(0);
        if handles.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "sparse_handles should be a vector but received shape {}",
                format_dims(handles.shape())
            )));
        }
        let handles = handles.to_vec::<i64>()?;
        let map = self.map.map(ctx)?;
        let entries: Vec<Entry> = {
            let mut st = map.state.lock();
            // Every handle is checked before any entry leaves the map, so a refused take loses
            // nothing.
            let mut seen = HashSet::with_capacity(handles.len());
            let mut rank = None;
            for (i, h) in handles.iter().enumerate() {
                let e = st.1.get(h).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "Unable to find SparseTensor: {h} in map: {}",
                        map.name
                    ))
                })?;
                if !seen.insert(*h) {
                    return Err(Error::invalid_argument(format!(
                        "SparseTensor handle {h} appears twice in sparse_handles"
                    )));
                }
                if e.values.dtype() != self.dtype {
                    return Err(Error::invalid_argument(format!(
                        "Requested SparseTensor of type {} but SparseTensor[{i}].values.dtype() == {}",
                        self.dtype,
                        e.values.dtype()
                    )));
                }
                let r = *rank.get_or_insert(e.shape.len());
                if e.shape.len() != r {
                    return Err(Error::invalid_argument(format!(
                        "Inconsistent rank across SparseTensors: rank prior to SparseTensor[{i}] was: {} but rank of SparseTensor[{i}] is: {}",
                        r + 1,
                        e.shape.len() + 1
                    )));
                }
            }
            handles.iter().filter_map(|h| st.1.remove(h)).collect()
        };
        let rank = entries.first().map_or(0, |e| e.shape.len());
        let mut shape = vec![entries.len() as i64];
        shape.extend(std::iter::repeat_n(0i64, rank));
        for e in &entries {
            for (d, &s) in e.shape.iter().enumerate() {
                shape[d + 1] = shape[d + 1].max(s);
            }
        }
        let total: usize = entries.iter().map(|e| e.values.num_elements()).sum();
        let parts: Vec<&Tensor> = entries.iter().map(|e| &e.indices).collect();
        let indices = stack_indices(&parts, rank)?;
        let values: Vec<Tensor> = entries.into_iter().map(|e| e.values).collect();
        ctx.set_output(0, Tensor::from_vec(&[total, rank + 1], indices)?);
        ctx.set_output(1, concat_values(&values, self.dtype)?);
        ctx.set_output(2, Tensor::from(shape));
        Ok(())
    }
}

/// The index matrices `parts` (int64 `[n_i, rank]` each) one after another, each row prefixed
/// by the number of its part: the indices of the sparse tensor whose row `i` is part `i`.
pub(super) fn stack_indices(parts: &[&Tensor], rank: usize) -> Result<Vec<i64>> {
    let total: usize = parts
        .iter()
        .map(|t| t.shape().first().copied().unwrap_or(0))
        .sum();
    let mut indices = Vec::with_capacity(total.saturating_mul(rank + 1));
    for (i, t) in parts.iter().enumerate() {
        let at = t.as_slice::<i64>()?;
        let n = t.shape().first().copied().unwrap_or(0);
        if at.len() != n * rank {
            return Err(Error::internal(format!(
                "Index matrix {i} has shape {}, not [{n},{rank}]",
                format_dims(t.shape())
            )));
        }
        for k in 0..n {
            indices.push(i as i64);
            indices.extend_from_slice(&at[k * rank..(k + 1) * rank]);
        }
    }
    Ok(indices)
}

/// Values `ks` of the vector `t`, in that order.
pub(super) fn take_values(t: &Tensor, ks: &[usize]) -> Result<Tensor> {
    let dt = t.dtype();
    weir_graph::match_data_dtype!(dt, T => {
        Tensor::from_vec(&[ks.len()], pick(t.as_slice::<T>()?, ks))
    }, _ => Err(Error::invalid_argument(format!("Cannot store {dt} values in a SparseTensorsMap"))))
}

fn pick<T: Clone>(v: &[T], ks: &[usize]) -> Vec<T> {
    ks.iter().map(|&k| v[k].clone()).collect()
}

/// The vectors `parts` (all of `dtype`) end to end.
pub(super) fn concat_values(parts: &[Tensor], dtype: DType) -> Result<Tensor> {
    weir_graph::match_data_dtype!(dtype, T => {
        let mut out: Vec<T> = Vec::with_capacity(parts.iter().map(Tensor::num_elements).sum());
        for p in parts {
            out.extend_from_slice(p.as_slice::<T>()?);
        }
        Ok(Tensor::from(out))
    }, _ => Err(Error::invalid_argument(format!("Cannot take {dtype} values from a SparseTensorsMap"))))
}

fn add_shape(ctx: &mut InferenceContext<'_>, many: bool) -> Result<()> {
    ctx.with_rank(0, 2)?;
    ctx.with_rank(1, 1)?;
    ctx.with_rank(2, 1)?;
    let out = if many {
        Shape::new(vec![None])
    } else {
        Shape::scalar()
    };
    ctx.set_output(0, out);
    Ok(())
}

fn take_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 1)?;
    ctx.set_output(0, Shape::new(vec![None, None]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![None]));
    Ok(())
}

fn add_one_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    add_shape(ctx, false)
}

fn add_many_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    add_shape(ctx, true)
}

/// The OpDef of the two add ops, which differ in their output's name and shape.
fn add_def(
    op: &'static str,
    output: &'static str,
    shape: fn(&mut InferenceContext<'_>) -> Result<()>,
) -> OpDef {
    OpDef::new(op)
        .input("sparse_indices", ArgType::Fixed(DType::I64))
        .input("sparse_values", ArgType::Attr("T"))
        .input("sparse_shape", ArgType::Fixed(DType::I64))
        .output(output, ArgType::Fixed(DType::I64))
        .type_attr("T", DType::ALL_DATA)
        .resource_name_attrs()
        .stateful()
        .shape_fn(shape)
}

pub(super) fn register() {
    register_op(add_def(
        "AddSparseToTensorsMap",
        "sparse_handle",
        add_one_shape,
    ));
    register_kernel("AddSparseToTensorsMap", |node| {
        Ok(Box::new(AddKernel {
            map: MapOp::of(node, true)?,
            many: false,
        }))
    });
    register_op(add_def(
        "AddManySparseToTensorsMap",
        "sparse_handles",
        add_many_shape,
    ));
    register_kernel("AddManySparseToTensorsMap", |node| {
        Ok(Box::new(AddKernel {
            map: MapOp::of(node, true)?,
            many: true,
        }))
    });
    register_op(
        OpDef::new("TakeManySparseFromTensorsMap")
            .input("sparse_handles", ArgType::Fixed(DType::I64))
            .output("sparse_indices", ArgType::Fixed(DType::I64))
            .output("sparse_values", ArgType::Attr("dtype"))
            .output("sparse_shape", ArgType::Fixed(DType::I64))
            .type_attr("dtype", DType::ALL_DATA)
            .resource_name_attrs()
            .stateful()
            .shape_fn(take_shape),
    );
    register_kernel("TakeManySparseFromTensorsMap", |node| {
        Ok(Box::new(TakeManyKernel {
            map: MapOp::of(node, false)?,
            dtype: node.attr("dtype")?,
        }))
    });
}
