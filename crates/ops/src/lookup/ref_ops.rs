//! TensorFlow 1's table ops (`HashTable`, `MutableHashTable`, `MutableHashTableOfTensors`,
//! `InitializeTable`, `InitializeTableFromTextFile`, `LookupTableFind`, `LookupTableInsert`,
//! `LookupTableSize`, `LookupTableExport`, `LookupTableImport`), which old GraphDefs hold.
//!
//! TensorFlow types their table handle as a string ref; weir models such a ref as a resource
//! handle (as it does a `VariableV2`'s), so these ops share the kernels of their V2 forms. Only
//! TensorFlow's signature messages differ: they name the handle `string_ref`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrDef, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Result, Shape,
};

use super::kernels;

/// A V2 kernel run for a TensorFlow 1 op: its signature errors name the handle as TensorFlow 1
/// types it.
struct RefKernel(Box<dyn Kernel>);

impl Kernel for RefKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        self.0.compute(ctx).map_err(|e| {
            let msg = e.message();
            if msg.starts_with("Signature mismatch, have: resource") {
                let fixed = msg
                    .replacen("have: resource", "have: string_ref", 1)
                    .replacen("expected: resource", "expected: string_ref", 1);
                Error::new(e.code(), fixed)
            } else {
                e
            }
        })
    }
}

fn scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn unknown(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::unknown());
    Ok(())
}

fn export_shapes(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::new(vec![None]));
    ctx.set_output(1, Shape::unknown());
    Ok(())
}

fn table_def(name: &str) -> OpDef {
    OpDef::new(name)
        .output("table_handle", ArgType::Fixed(DType::Resource))
        .resource_name_attrs()
        .attr(
            "use_node_name_sharing",
            AttrKind::Bool,
            Some(AttrValue::Bool(false)),
        )
        .attr("key_dtype", AttrKind::Type, None)
        .attr("value_dtype", AttrKind::Type, None)
        .stateful()
        .shape_fn(scalar)
}

/// An op on a table. TensorFlow marks these V1 ops stateless, their ref input being what keeps
/// them apart; weir's handle is a plain value, so they stay stateful here, as their V2 forms.
fn handle_op(name: &str) -> OpDef {
    OpDef::new(name)
        .input("table_handle", ArgType::Fixed(DType::Resource))
        .stateful()
}

fn keys_values(name: &str, keys: &'static str, values: &'static str) -> OpDef {
    handle_op(name)
        .input("keys", ArgType::Attr(keys))
        .input("values", ArgType::Attr(values))
        .attr(keys, AttrKind::Type, None)
        .attr(values, AttrKind::Type, None)
}

fn int_attr(name: &'static str, default: Option<i64>, min: i64) -> AttrDef {
    AttrDef {
        name,
        kind: AttrKind::Int,
        default: default.map(AttrValue::Int),
        allowed: None,
        min: Some(min),
    }
}

/// Registers TensorFlow 1's table ops.
pub(super) fn register() {
    for op in ["HashTable", "MutableHashTable"] {
        register_op(table_def(op));
        register_kernel(op, kernels::make_create_table);
    }
    register_op(table_def("MutableHashTableOfTensors").attr(
        "value_shape",
        AttrKind::Shape,
        Some(AttrValue::Shape(Shape::scalar())),
    ));
    register_kernel("MutableHashTableOfTensors", kernels::make_create_table);

    register_op(keys_values("InitializeTable", "Tkey", "Tval"));
    register_kernel("InitializeTable", |_| {
        Ok(Box::new(RefKernel(Box::new(kernels::InitializeTable))))
    });

    let mut from_file =
        handle_op("InitializeTableFromTextFile").input("filename", ArgType::Fixed(DType::String));
    from_file.attrs.extend([
        int_attr("key_index", None, -2),
        int_attr("value_index", None, -2),
        int_attr("vocab_size", Some(-1), -1),
    ]);
    register_op(
        from_file
            .attr(
                "delimiter",
                AttrKind::Str,
                Some(AttrValue::Str("\t".to_string())),
            )
            .attr("offset", AttrKind::Int, Some(AttrValue::Int(0))),
    );
    register_kernel("InitializeTableFromTextFile", |node| {
        Ok(Box::new(RefKernel(
            kernels::make_initialize_from_text_file(node)?,
        )))
    });

    register_op(
        handle_op("LookupTableFind")
            .input("keys", ArgType::Attr("Tin"))
            .input("default_value", ArgType::Attr("Tout"))
            .output("values", ArgType::Attr("Tout"))
            .attr("Tin", AttrKind::Type, None)
            .attr("Tout", AttrKind::Type, None)
            .shape_fn(unknown),
    );
    register_kernel("LookupTableFind", |_| {
        Ok(Box::new(RefKernel(Box::new(kernels::Find))))
    });

    register_op(keys_values("LookupTableInsert", "Tin", "Tout"));
    register_kernel("LookupTableInsert", |_| {
        Ok(Box::new(RefKernel(Box::new(kernels::Insert {
            import: false,
        }))))
    });
    register_op(keys_values("LookupTableImport", "Tin", "Tout"));
    register_kernel("LookupTableImport", |_| {
        Ok(Box::new(RefKernel(Box::new(kernels::Insert {
            import: true,
        }))))
    });

    register_op(
        handle_op("LookupTableSize")
            .output("size", ArgType::Fixed(DType::I64))
            .shape_fn(scalar),
    );
    register_kernel("LookupTableSize", |_| {
        Ok(Box::new(RefKernel(Box::new(kernels::Size))))
    });

    register_op(
        handle_op("LookupTableExport")
            .output("keys", ArgType::Attr("Tkeys"))
            .output("values", ArgType::Attr("Tvalues"))
            .attr("Tkeys", AttrKind::Type, None)
            .attr("Tvalues", AttrKind::Type, None)
            .shape_fn(export_shapes),
    );
    register_kernel("LookupTableExport", |_| {
        Ok(Box::new(RefKernel(Box::new(kernels::Export))))
    });
}
