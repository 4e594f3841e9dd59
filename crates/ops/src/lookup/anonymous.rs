//! The anonymous table ops (`AnonymousHashTable`, `AnonymousMutableHashTable`,
//! `AnonymousMutableHashTableOfTensors`, `AnonymousMutableDenseHashTable`): each run makes a
//! fresh table that no name reaches, only the handle the op outputs, as TensorFlow's kernels
//! do for `experimental_is_anonymous=True` tables.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Resource, ResourceHandle, Result, Shape, Tensor,
};

use super::dense_table::{dense_attrs, dense_table_shape, DenseSpec, DenseTable};
use super::kernels::{no_kernel, HASH_TABLE_TYPES, MUTABLE_TABLE_TYPES};
use super::table::{LookupTable, TableKind};

/// Numbers the anonymous tables, so that each handle names its own.
static ANONYMOUS: AtomicU64 = AtomicU64::new(0);

/// What an anonymous table op makes.
enum Made {
    /// A `HashTable` or a `MutableHashTable` (of vectors when `value_shape` is one).
    Table {
        kind: TableKind,
        key_dtype: DType,
        value_dtype: DType,
        value_shape: Option<Shape>,
    },
    Dense(DenseSpec),
}

/// The kernel of an anonymous table op: a new table on every run.
struct CreateAnonymous {
    made: Made,
    node: String,
}

/// TensorFlow's `MutableHashTableOfTensors` check of its value shape.
fn vector_shape(s: &Shape) -> Result<Vec<usize>> {
    match s.to_known() {
        Some(d) if d.len() == 1 => Ok(d),
        known => Err(Error::invalid_argument(format!(
            "Default value must be a vector, got shape {}",
            known.map_or_else(|| s.to_string(), |d| format_dims(&d))
        ))),
    }
}

impl Kernel for CreateAnonymous {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let table: Arc<dyn Resource> = match &self.made {
            Made::Table {
                kind,
                key_dtype,
                value_dtype,
                value_shape,
            } => {
                let shape = value_shape.as_ref().map(vector_shape).transpose()?;
                let t =
                    LookupTable::new(*kind, *key_dtype, *value_dtype, shape.unwrap_or_default())
                        .ok_or_else(|| {
                            Error::internal(format!(
                                "No table holds {key_dtype} keys and {value_dtype} values"
                            ))
                        })?;
                Arc::new(t)
            }
            Made::Dense(spec) => Arc::new(DenseTable::new(spec, ctx.input(0), Some(ctx.input(1)))?),
        };
        let n = ANONYMOUS.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}_{n}", self.node);
        ctx.set_output(0, Tensor::scalar(ResourceHandle::new("", &name, table)));
        Ok(())
    }
}

fn make_anonymous(node: &Node) -> Result<Box<dyn Kernel>> {
    let op = node.op_type();
    let made = if op == "AnonymousMutableDenseHashTable" {
        Made::Dense(DenseSpec::of(node)?)
    } else {
        let key_dtype: DType = node.attr("key_dtype")?;
        let value_dtype: DType = node.attr("value_dtype")?;
        let (kind, types, value_shape) = match op {
            "AnonymousHashTable" => (TableKind::Hash, HASH_TABLE_TYPES, None),
            "AnonymousMutableHashTable" => (TableKind::Mutable, MUTABLE_TABLE_TYPES, None),
            _ => (
                TableKind::Mutable,
                MUTABLE_TABLE_TYPES,
                Some(node.attr::<Shape>("value_shape")?),
            ),
        };
        if !types.contains(&(key_dtype, value_dtype)) {
            return Err(no_kernel(node, types));
        }
        Made::Table {
            kind,
            key_dtype,
            value_dtype,
            value_shape,
        }
    };
    Ok(Box::new(CreateAnonymous {
        made,
        node: node.name().to_string(),
    }))
}

fn scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn anonymous_def(name: &str) -> OpDef {
    OpDef::new(name)
        .output("table_handle", ArgType::Fixed(DType::Resource))
        .attr("key_dtype", AttrKind::Type, None)
        .attr("value_dtype", AttrKind::Type, None)
        .stateful()
        .shape_fn(scalar)
}

/// Registers the anonymous table ops with TensorFlow's signatures.
pub(super) fn register() {
    register_op(anonymous_def("AnonymousHashTable"));
    register_op(anonymous_def("AnonymousMutableHashTable"));
    register_op(anonymous_def("AnonymousMutableHashTableOfTensors").attr(
        "value_shape",
        AttrKind::Shape,
        Some(AttrValue::Shape(Shape::scalar())),
    ));
    register_op(
        dense_attrs(
            OpDef::new("AnonymousMutableDenseHashTable")
                .input("empty_key", ArgType::Attr("key_dtype"))
                .input("deleted_key", ArgType::Attr("key_dtype"))
                .output("table_handle", ArgType::Fixed(DType::Resource)),
        )
        .stateful()
        .shape_fn(dense_table_shape),
    );
    for op in [
        "AnonymousHashTable",
        "AnonymousMutableHashTable",
        "AnonymousMutableHashTableOfTensors",
        "AnonymousMutableDenseHashTable",
    ] {
        register_kernel(op, make_anonymous);
    }
}
