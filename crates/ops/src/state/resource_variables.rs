//! TensorFlow's resource-variable ops (`VarHandleOp`, `AssignVariableOp`, ...), which graphs
//! written by TensorFlow 2's `tf.compat.v1` use for every variable. weir's variables already
//! live behind resource handles, so these are its variable kernels under TensorFlow's
//! signatures; they let such graphs be imported and run.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Kernel, Node, OpContext, OpDef, Result, Shape, Tensor,
};

use super::kernels::{make_variable, var_of, CountUpToKernel, IsInitializedKernel};

/// `AssignVariableOp`, `AssignAddVariableOp`, `AssignSubVariableOp`: the assignment, with no
/// output (TensorFlow reads the variable again where it needs the value).
struct AssignNoOutput {
    subtract: Option<bool>,
    validate_shape: bool,
}

impl Kernel for AssignNoOutput {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let value = ctx.take_input(1);
        let var = var_of(ctx)?;
        match self.subtract {
            None => var.assign(value, self.validate_shape)?,
            Some(subtract) => var.update(&value, subtract)?,
        };
        Ok(())
    }
}

/// `VariableShape`: the shape of a resource variable's value (what `tf.shape` of a TensorFlow 2
/// variable builds), as int32 or int64.
struct VariableShapeKernel(DType);

impl Kernel for VariableShapeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let value = var_of(ctx)?.read()?;
        let dims = value.shape();
        let out = if self.0 == DType::I32 {
            let dims: Vec<i32> = dims
                .iter()
                .map(|&d| {
                    i32::try_from(d).map_err(|_| {
                        weir_graph::Error::invalid_argument(format!(
                            "Shape {} does not fit in int32",
                            weir_graph::format_dims(dims)
                        ))
                    })
                })
                .collect::<Result<_>>()?;
            Tensor::from(dims)
        } else {
            Tensor::from(dims.iter().map(|&d| d as i64).collect::<Vec<i64>>())
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_assign(node: &Node) -> Result<Box<dyn Kernel>> {
    let (subtract, validate_shape) = match node.op_type() {
        "AssignVariableOp" => (None, node.attr("validate_shape")?),
        "AssignAddVariableOp" => (Some(false), false),
        _ => (Some(true), false),
    };
    Ok(Box::new(AssignNoOutput {
        subtract,
        validate_shape,
    }))
}

pub(super) fn register() {
    let resource = ArgType::Fixed(DType::Resource);
    register_op(
        OpDef::new("VarHandleOp")
            .output("resource", resource.clone())
            .resource_name_attrs()
            .type_attr("dtype", DType::ALL_DATA)
            .attr(
                "shape",
                AttrKind::Shape,
                Some(AttrValue::Shape(Shape::unknown())),
            )
            .attr(
                "allowed_devices",
                AttrKind::Strs,
                Some(AttrValue::Strs(vec![])),
            )
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("VarHandleOp", make_variable);
    register_op(
        OpDef::new("VariableShape")
            .input("input", resource.clone())
            .output("output", ArgType::Attr("out_type"))
            .attr(
                "out_type",
                AttrKind::Type,
                Some(AttrValue::Type(DType::I32)),
            )
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::new(vec![None]));
                Ok(())
            }),
    );
    register_kernel("VariableShape", |node| {
        let t: DType = node.attr("out_type")?;
        if !matches!(t, DType::I32 | DType::I64) {
            return Err(weir_graph::Error::invalid_argument(format!(
                "VariableShape's out_type must be int32 or int64, not {t}"
            )));
        }
        Ok(Box::new(VariableShapeKernel(t)))
    });
    for name in [
        "AssignVariableOp",
        "AssignAddVariableOp",
        "AssignSubVariableOp",
    ] {
        let types = if name == "AssignVariableOp" {
            DType::ALL_DATA
        } else {
            DType::REAL_NUMBER
        };
        let mut def = OpDef::new(name)
            .input("resource", resource.clone())
            .input("value", ArgType::Attr("dtype"))
            .type_attr("dtype", types)
            .stateful();
        if name == "AssignVariableOp" {
            def = def.attr(
                "validate_shape",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            );
        }
        register_op(def);
        register_kernel(name, make_assign);
    }
    // What `string_input_producer(num_epochs=N)` counts its epochs with in TensorFlow 2's
    // graphs: CountUpTo on a resource variable.
    register_op(
        OpDef::new("ResourceCountUpTo")
            .input("resource", resource.clone())
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::I32, DType::I64])
            .attr("limit", AttrKind::Int, None)
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("ResourceCountUpTo", |node| {
        Ok(Box::new(CountUpToKernel(node.attr("limit")?)))
    });
    register_op(
        OpDef::new("VarIsInitializedOp")
            .input("resource", resource.clone())
            .output("is_initialized", ArgType::Fixed(DType::Bool))
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("VarIsInitializedOp", |_| Ok(Box::new(IsInitializedKernel)));
    // TensorFlow 2's savers call it before reading a variable to save: it turns off the
    // copy-on-read mode of variables shared with sparse updates, which weir's variables do
    // not have, so it only checks its input is a variable.
    register_op(
        OpDef::new("DisableCopyOnRead")
            .input("resource", resource)
            .stateful(),
    );
    register_kernel("DisableCopyOnRead", |_| {
        Ok(Box::new(DisableCopyOnReadKernel))
    });
}

struct DisableCopyOnReadKernel;

impl Kernel for DisableCopyOnReadKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        var_of(ctx).map(|_| ())
    }
}
