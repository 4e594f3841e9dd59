//! A sparse tensor as strings and back: `SerializeSparse` and `SerializeManySparse`
//! (`tf.io.serialize_sparse`, `tf.io.serialize_many_sparse`) write the `TensorProto` of each
//! of its three tensors, byte for byte as TensorFlow does; `DeserializeSparse` (what tf.data
//! uses) and `DeserializeManySparse` (`tf.io.deserialize_many_sparse`) read any batch of them
//! back as one sparse tensor. Only the string form exists here: weir has no variant dtype.

pub(crate) mod kernels;
#[cfg(test)]
mod tests;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrDef, AttrKind, AttrValue, DType, Error, InferenceContext, OpDef, Output, Result,
    Shape,
};

use super::SparseOutput;

/// `tf.io.serialize_sparse(sp)` (op `SerializeSparse`): a string vector `[3]` holding the
/// serialized `TensorProto`s of the indices, the values and the dense shape of `sp`.
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::array::constant;
/// use weir_ops::sparse::{deserialize_sparse, serialize_sparse, SparseOutput};
/// use weir_session::{RunArgs, Session};
///
/// let g = Graph::new();
/// let sp = SparseOutput::new(
///     constant(&g, weir_graph::Tensor::from_vec(&[2, 2], vec![0i64, 1, 1, 0])?)?,
///     constant(&g, [1.5f32, 2.5])?,
///     constant(&g, [2i64, 3])?,
/// )?;
/// let bytes = serialize_sparse(&sp)?;
/// let back = deserialize_sparse(&bytes, DType::F32)?;
/// let out = Session::new(&g)?.run(&RunArgs::new().fetch(&bytes).fetch(&back.dense_shape))?;
/// assert_eq!(out[0].shape(), &[3]);
/// assert_eq!(out[1].to_vec::<i64>()?, vec![2, 3]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn serialize_sparse(sp: &SparseOutput) -> Result<Output> {
    serialize_op("SerializeSparse", sp)
}

/// `tf.io.serialize_many_sparse(sp)` (op `SerializeManySparse`): row `i` of the string matrix
/// `[N, 3]` (N the first dense dimension) serializes row `i` of `sp`, a sparse tensor of one
/// rank less; `sp`'s indices must be in order.
pub fn serialize_many_sparse(sp: &SparseOutput) -> Result<Output> {
    serialize_op("SerializeManySparse", sp)
}

/// `tf.raw_ops.DeserializeSparse(serialized, dtype)`: the sparse tensors serialized in the
/// string tensor `[d1, ..., dP, 3]`, each of the same rank R with `dtype` values, as one
/// sparse tensor of rank P + R whose leading indices say where each came from.
pub fn deserialize_sparse(serialized: &Output, dtype: DType) -> Result<SparseOutput> {
    let op = crate::new_op(serialized.graph(), "DeserializeSparse")
        .input(serialized)
        .attr("dtype", dtype)
        .build()?;
    SparseOutput::from_op(&op)
}

/// `tf.io.deserialize_many_sparse(serialized, dtype, rank)` (op `DeserializeManySparse`): the
/// `N` sparse tensors serialized in the rows of the string matrix `[N, 3]` as one sparse
/// tensor with a new leading dimension. `rank`, when given, is that result's rank, and sets
/// the static shapes of its indices and dense shape as Python's `set_shape` does.
pub fn deserialize_many_sparse(
    serialized: &Output,
    dtype: DType,
    rank: Option<usize>,
) -> Result<SparseOutput> {
    let mut b = crate::new_op(serialized.graph(), "DeserializeManySparse")
        .input(serialized)
        .attr("dtype", dtype);
    if let Some(r) = rank {
        b = b
            .output_shape(0, Shape::new(vec![None, Some(r)]))
            .output_shape(2, Shape::new(vec![Some(r)]));
    }
    SparseOutput::from_op(&b.build()?)
}

fn serialize_op(op_type: &str, sp: &SparseOutput) -> Result<Output> {
    crate::new_op(sp.graph(), op_type)
        .input(&sp.indices)
        .input(&sp.values)
        .input(&sp.dense_shape)
        .build()?
        .output(0)
}

/// A type attr of TensorFlow's that weir only has in its string form (the other is variant).
fn string_only(name: &'static str) -> AttrDef {
    AttrDef {
        name,
        kind: AttrKind::Type,
        default: Some(AttrValue::Type(DType::String)),
        allowed: Some(&[DType::String]),
        min: None,
    }
}

fn serialize_shape(ctx: &mut InferenceContext<'_>, rows: Option<Option<usize>>) -> Result<()> {
    ctx.with_rank(0, 2)?;
    ctx.with_rank(1, 1)?;
    ctx.with_rank(2, 1)?;
    let out = match rows {
        None => Shape::new(vec![Some(3)]),
        Some(n) => Shape::new(vec![n, Some(3)]),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn serialize_one_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    serialize_shape(ctx, None)
}

fn serialize_many_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    serialize_shape(ctx, Some(None))
}

/// Requires the last dimension of the serialized input, when known, to be 3.
fn last_dim_three(op: &str, s: &Shape) -> Result<()> {
    if let Some(Some(d)) = s.dims().and_then(|d| d.last().copied()) {
        if d != 3 {
            return Err(Error::invalid_argument(format!(
                "Dimension must be 3 but is {d} for '{op}' (input shape {s})"
            )));
        }
    }
    Ok(())
}

fn deserialize_outputs(ctx: &mut InferenceContext<'_>) {
    ctx.set_output(0, Shape::new(vec![None, None]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![None]));
}

fn deserialize_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(0).clone();
    if s.rank() == Some(0) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank 1 but is rank 0 for 'DeserializeSparse' (input shape {s})"
        )));
    }
    last_dim_three("DeserializeSparse", &s)?;
    deserialize_outputs(ctx);
    Ok(())
}

fn deserialize_many_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.with_rank(0, 2)?;
    last_dim_three("DeserializeManySparse", &s)?;
    deserialize_outputs(ctx);
    Ok(())
}

fn serialize_def(op: &'static str, shape: fn(&mut InferenceContext<'_>) -> Result<()>) -> OpDef {
    let mut def = OpDef::new(op)
        .input("sparse_indices", ArgType::Fixed(DType::I64))
        .input("sparse_values", ArgType::Attr("T"))
        .input("sparse_shape", ArgType::Fixed(DType::I64))
        .output("serialized_sparse", ArgType::Attr("out_type"))
        .type_attr("T", DType::ALL_DATA)
        .shape_fn(shape);
    def.attrs.push(string_only("out_type"));
    def
}

fn deserialize_def(op: &'static str, shape: fn(&mut InferenceContext<'_>) -> Result<()>) -> OpDef {
    let serialized = if op == "DeserializeSparse" {
        ArgType::Attr("Tserialized")
    } else {
        ArgType::Fixed(DType::String)
    };
    let mut def = OpDef::new(op)
        .input("serialized_sparse", serialized)
        .output("sparse_indices", ArgType::Fixed(DType::I64))
        .output("sparse_values", ArgType::Attr("dtype"))
        .output("sparse_shape", ArgType::Fixed(DType::I64))
        .type_attr("dtype", DType::ALL_DATA)
        .shape_fn(shape);
    if op == "DeserializeSparse" {
        def.attrs.push(string_only("Tserialized"));
    }
    def
}

pub(super) fn register() {
    register_op(serialize_def("SerializeSparse", serialize_one_shape));
    register_kernel("SerializeSparse", |_| {
        Ok(Box::new(kernels::SerializeKernel { many: false }))
    });
    register_op(serialize_def("SerializeManySparse", serialize_many_shape));
    register_kernel("SerializeManySparse", |_| {
        Ok(Box::new(kernels::SerializeKernel { many: true }))
    });
    register_op(deserialize_def("DeserializeSparse", deserialize_shape));
    register_op(deserialize_def(
        "DeserializeManySparse",
        deserialize_many_shape,
    ));
    for op in ["DeserializeSparse", "DeserializeManySparse"] {
        register_kernel(op, |node| {
            Ok(Box::new(kernels::DeserializeKernel {
                dtype: node.attr("dtype")?,
            }))
        });
    }
}
