//! The OpDefs of the lookup-table ops, with TensorFlow's names, arguments, attrs and defaults,
//! so that GraphDefs TensorFlow writes import and run.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrDef, AttrKind, AttrValue, DType, InferenceContext, OpDef, Result, Shape,
};

use super::kernels;

fn scalar(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

/// The values of a lookup have the keys' shape followed by the table's value shape, which only
/// the table knows: the builders set it, as Python's `set_shape` does.
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

fn handle_op(name: &str) -> OpDef {
    OpDef::new(name)
        .input("table_handle", ArgType::Fixed(DType::Resource))
        .stateful()
}

fn int_attr(name: &'static str, default: Option<i64>, min: Option<i64>) -> AttrDef {
    AttrDef {
        name,
        kind: AttrKind::Int,
        default: default.map(AttrValue::Int),
        allowed: None,
        min,
    }
}

pub(super) fn register() {
    for op in ["HashTableV2", "MutableHashTableV2"] {
        register_op(table_def(op));
        register_kernel(op, kernels::make_create_table);
    }
    register_op(table_def("MutableHashTableOfTensorsV2").attr(
        "value_shape",
        AttrKind::Shape,
        Some(AttrValue::Shape(Shape::scalar())),
    ));
    register_kernel("MutableHashTableOfTensorsV2", kernels::make_create_table);

    register_op(
        handle_op("LookupTableFindV2")
            .input("keys", ArgType::Attr("Tin"))
            .input("default_value", ArgType::Attr("Tout"))
            .output("values", ArgType::Attr("Tout"))
            .attr("Tin", AttrKind::Type, None)
            .attr("Tout", AttrKind::Type, None)
            .shape_fn(unknown),
    );
    register_kernel("LookupTableFindV2", |_| Ok(Box::new(kernels::Find)));

    for op in ["LookupTableInsertV2", "LookupTableImportV2"] {
        register_op(
            handle_op(op)
                .input("keys", ArgType::Attr("Tin"))
                .input("values", ArgType::Attr("Tout"))
                .attr("Tin", AttrKind::Type, None)
                .attr("Tout", AttrKind::Type, None),
        );
    }
    register_kernel("LookupTableInsertV2", |_| {
        Ok(Box::new(kernels::Insert { import: false }))
    });
    register_kernel("LookupTableImportV2", |_| {
        Ok(Box::new(kernels::Insert { import: true }))
    });

    register_op(
        handle_op("LookupTableRemoveV2")
            .input("keys", ArgType::Attr("Tin"))
            .attr("Tin", AttrKind::Type, None),
    );
    register_kernel("LookupTableRemoveV2", |_| Ok(Box::new(kernels::Remove)));

    register_op(
        handle_op("LookupTableSizeV2")
            .output("size", ArgType::Fixed(DType::I64))
            .shape_fn(scalar),
    );
    register_kernel("LookupTableSizeV2", |_| Ok(Box::new(kernels::Size)));

    register_op(
        handle_op("LookupTableExportV2")
            .output("keys", ArgType::Attr("Tkeys"))
            .output("values", ArgType::Attr("Tvalues"))
            .attr("Tkeys", AttrKind::Type, None)
            .attr("Tvalues", AttrKind::Type, None)
            .shape_fn(export_shapes),
    );
    register_kernel("LookupTableExportV2", |_| Ok(Box::new(kernels::Export)));

    register_op(
        handle_op("InitializeTableV2")
            .input("keys", ArgType::Attr("Tkey"))
            .input("values", ArgType::Attr("Tval"))
            .attr("Tkey", AttrKind::Type, None)
            .attr("Tval", AttrKind::Type, None),
    );
    register_kernel("InitializeTableV2", |_| {
        Ok(Box::new(kernels::InitializeTable))
    });

    let mut from_file =
        handle_op("InitializeTableFromTextFileV2").input("filename", ArgType::Fixed(DType::String));
    from_file.attrs.extend([
        int_attr("key_index", None, Some(-2)),
        int_attr("value_index", None, Some(-2)),
        int_attr("vocab_size", Some(-1), Some(-1)),
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
    register_kernel(
        "InitializeTableFromTextFileV2",
        kernels::make_initialize_from_text_file,
    );
}
