//! Set operations on the last dimension of a tensor, as TensorFlow's `tf.sets` has them:
//! `tf.sets.size` (`SetSize`), `tf.sets.intersection`, `tf.sets.union` and
//! `tf.sets.difference` (`DenseToDenseSetOperation`, `DenseToSparseSetOperation` and
//! `SparseToSparseSetOperation`). Every index but the last names a group; the values of a group
//! form a set, and results are [`SparseOutput`](crate::sparse::SparseOutput)s whose rows hold
//! each result set sorted (bytewise for strings).
//!
//! ```
//! use weir_ops::{array::constant, sets};
//! use weir_session::Session;
//!
//! let g = weir_graph::Graph::new();
//! let a = constant(&g, weir_graph::Tensor::from_vec(&[1, 3], vec![3i32, 1, 2])?)?;
//! let b = constant(&g, weir_graph::Tensor::from_vec(&[1, 2], vec![2i32, 5])?)?;
//! let u = sets::union(a, b, true)?;
//! assert_eq!(Session::new(&g)?.eval(&u.values)?.to_vec::<i32>()?, [1, 2, 3, 5]);
//! # Ok::<(), weir_graph::Error>(())
//! ```

mod builders;
mod kernels;

pub use builders::{difference, intersection, size, union, SetInput};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node, OpDef, Result,
    Shape,
};

use kernels::{Inputs, SetOp, SetOperationKernel, SetSizeKernel};

/// The value dtypes TensorFlow registers set kernels for.
const SET_DTYPES: &[DType] = &[
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::String,
];

/// TensorFlow's `WithRankAtLeast(input, 2)`.
fn rank_at_least_2(ctx: &InferenceContext<'_>, i: usize, op: &str) -> Result<()> {
    match ctx.input_shape(i).rank() {
        Some(r) if r < 2 => Err(Error::invalid_argument(format!(
            "Shape must be at least rank 2 but is rank {r} for '{op}' (input {i} has shape {})",
            ctx.input_shape(i)
        ))),
        _ => Ok(()),
    }
}

/// The static rank of a sparse input, from its dense shape's length.
fn sparse_rank(ctx: &InferenceContext<'_>, shape_input: usize) -> Result<Option<usize>> {
    let s = ctx.with_rank(shape_input, 1)?;
    Ok(s.dim(0))
}

fn set_outputs(ctx: &mut InferenceContext<'_>, rank: Option<usize>) {
    ctx.set_output(0, Shape::new(vec![None, rank]));
    ctx.set_output(1, Shape::new(vec![None]));
    ctx.set_output(2, Shape::new(vec![rank]));
}

fn dense_dense_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let op = "DenseToDenseSetOperation";
    rank_at_least_2(ctx, 0, op)?;
    rank_at_least_2(ctx, 1, op)?;
    let (a, b) = (ctx.input_shape(0).clone(), ctx.input_shape(1).clone());
    let rank = match (a.dims(), b.dims()) {
        (Some(da), Some(db)) => {
            // TensorFlow's shape function: same rank and compatible group dimensions.
            if da.len() != db.len() {
                return Err(Error::invalid_argument(format!(
                    "Shape must be rank {} but is rank {} for '{op}' (input shapes {a} and {b})",
                    da.len(),
                    db.len()
                )));
            }
            for (k, (x, y)) in da.iter().zip(db).take(da.len() - 1).enumerate() {
                if let (Some(x), Some(y)) = (x, y) {
                    if x != y {
                        return Err(Error::invalid_argument(format!(
                            "Dimension {k} in both shapes must be equal, but are {x} and {y} \
                             for '{op}' (input shapes {a} and {b})"
                        )));
                    }
                }
            }
            Some(da.len())
        }
        (Some(d), None) | (None, Some(d)) => Some(d.len()),
        (None, None) => None,
    };
    set_outputs(ctx, rank);
    Ok(())
}

fn dense_sparse_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    rank_at_least_2(ctx, 0, "DenseToSparseSetOperation")?;
    ctx.with_rank(1, 2)?;
    ctx.with_rank(2, 1)?;
    let b = sparse_rank(ctx, 3)?;
    let rank = ctx.input_shape(0).rank().or(b);
    set_outputs(ctx, rank);
    Ok(())
}

fn sparse_sparse_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    for (ix, v) in [(0, 1), (3, 4)] {
        ctx.with_rank(ix, 2)?;
        ctx.with_rank(v, 1)?;
    }
    let (a, b) = (sparse_rank(ctx, 2)?, sparse_rank(ctx, 5)?);
    set_outputs(ctx, a.or(b));
    Ok(())
}

fn set_size_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::unknown());
    Ok(())
}

fn operation_def(name: &str, inputs: Inputs) -> OpDef {
    let mut def = OpDef::new(name);
    def = match inputs {
        Inputs::DenseDense => def
            .input("set1", ArgType::Attr("T"))
            .input("set2", ArgType::Attr("T")),
        Inputs::DenseSparse => def
            .input("set1", ArgType::Attr("T"))
            .input("set2_indices", ArgType::Fixed(DType::I64))
            .input("set2_values", ArgType::Attr("T"))
            .input("set2_shape", ArgType::Fixed(DType::I64)),
        Inputs::SparseSparse => def
            .input("set1_indices", ArgType::Fixed(DType::I64))
            .input("set1_values", ArgType::Attr("T"))
            .input("set1_shape", ArgType::Fixed(DType::I64))
            .input("set2_indices", ArgType::Fixed(DType::I64))
            .input("set2_values", ArgType::Attr("T"))
            .input("set2_shape", ArgType::Fixed(DType::I64)),
    };
    def.output("result_indices", ArgType::Fixed(DType::I64))
        .output("result_values", ArgType::Attr("T"))
        .output("result_shape", ArgType::Fixed(DType::I64))
        .attr("set_operation", AttrKind::Str, None)
        .attr(
            "validate_indices",
            AttrKind::Bool,
            Some(AttrValue::Bool(true)),
        )
        .type_attr("T", SET_DTYPES)
        .shape_fn(match inputs {
            Inputs::DenseDense => dense_dense_shape,
            Inputs::DenseSparse => dense_sparse_shape,
            Inputs::SparseSparse => sparse_sparse_shape,
        })
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    register_op(
        OpDef::new("SetSize")
            .input("set_indices", ArgType::Fixed(DType::I64))
            .input("set_values", ArgType::Attr("T"))
            .input("set_shape", ArgType::Fixed(DType::I64))
            .output("size", ArgType::Fixed(DType::I32))
            .attr(
                "validate_indices",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .type_attr("T", SET_DTYPES)
            .shape_fn(set_size_shape),
    );
    register_kernel("SetSize", |node| {
        Ok(Box::new(SetSizeKernel {
            validate: node.attr("validate_indices")?,
        }))
    });
    register_op(operation_def(
        "DenseToDenseSetOperation",
        Inputs::DenseDense,
    ));
    register_op(operation_def(
        "DenseToSparseSetOperation",
        Inputs::DenseSparse,
    ));
    register_op(operation_def(
        "SparseToSparseSetOperation",
        Inputs::SparseSparse,
    ));
    register_kernel("DenseToDenseSetOperation", |n| {
        operation_kernel(n, Inputs::DenseDense)
    });
    register_kernel("DenseToSparseSetOperation", |n| {
        operation_kernel(n, Inputs::DenseSparse)
    });
    register_kernel("SparseToSparseSetOperation", |n| {
        operation_kernel(n, Inputs::SparseSparse)
    });
}

fn operation_kernel(node: &Node, inputs: Inputs) -> Result<Box<dyn Kernel>> {
    let op: String = node.attr("set_operation")?;
    Ok(Box::new(SetOperationKernel {
        op: SetOp::parse(&op)?,
        inputs,
        validate: node.attr("validate_indices")?,
    }))
}
