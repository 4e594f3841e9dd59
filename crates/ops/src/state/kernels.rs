//! Variable kernels: `VariableV2`, `ReadVariableOp`, `Assign`, `AssignAdd`, `AssignSub`,
//! `CountUpTo`, `IsVariableInitialized`, `ReportUninitializedVariables`.

use std::sync::OnceLock;

use parking_lot::RwLock;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Output, Resource, ResourceHandle, Result, Shape, Tensor,
};

use super::Variable;
use crate::math::accumulate;

/// The value of a variable in one session: TensorFlow's `Var` resource.
pub struct VariableResource {
    name: String,
    dtype: DType,
    shape: Shape,
    value: RwLock<Option<Tensor>>,
}

impl Resource for VariableResource {
    fn type_name(&self) -> &str {
        "Variable"
    }
}

impl VariableResource {
    fn uninitialized(&self) -> Error {
        Error::failed_precondition(format!(
            "Attempting to use uninitialized value {}",
            self.name
        ))
    }

    /// The value slot under the write lock, for the training kernels that update a variable
    /// and its slots in place together; a kernel locks the variable before its slots, so two
    /// updates of one variable never wait on each other in opposite orders.
    pub(crate) fn lock_value(&self) -> parking_lot::RwLockWriteGuard<'_, Option<Tensor>> {
        self.value.write()
    }

    /// The variable's dtype.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The FailedPrecondition for reading this variable before it has a value.
    pub(crate) fn uninitialized_error(&self) -> Error {
        self.uninitialized()
    }

    /// The current value; FailedPrecondition "Attempting to use uninitialized value v" before
    /// the first assign.
    pub fn read(&self) -> Result<Tensor> {
        self.value
            .read()
            .clone()
            .ok_or_else(|| self.uninitialized())
    }

    /// Whether a value has been assigned.
    pub fn is_initialized(&self) -> bool {
        self.value.read().is_some()
    }

    /// Replaces the value (what `Assign` does); with `validate_shape`, the new value must have
    /// the current value's shape (or fit the declared shape when uninitialized).
    pub fn assign(&self, value: Tensor, validate_shape: bool) -> Result<Tensor> {
        if value.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Cannot assign a {} tensor to variable {} of dtype {}",
                value.dtype(),
                self.name,
                self.dtype
            )));
        }
        let mut slot = self.value.write();
        if validate_shape {
            let ok = match &*slot {
                Some(old) => old.shape() == value.shape(),
                None => self.shape.is_compatible_with_dims(value.shape()),
            };
            if !ok {
                let lhs = match &*slot {
                    Some(old) => format_dims(old.shape()),
                    None => self.shape.to_string(),
                };
                return Err(Error::invalid_argument(format!(
                    "Assign requires shapes of both tensors to match. lhs shape= {lhs} rhs shape= {}",
                    format_dims(value.shape())
                )));
            }
        }
        *slot = Some(value.clone());
        Ok(value)
    }

    /// Adds (or subtracts) `delta` in place under the write lock; the data is copied only when
    /// a reader still holds the old value.
    pub(super) fn update(&self, delta: &Tensor, subtract: bool) -> Result<Tensor> {
        let mut slot = self.value.write();
        let old = slot.take().ok_or_else(|| self.uninitialized())?;
        if old.shape() != delta.shape() {
            let shape = format_dims(old.shape());
            *slot = Some(old);
            return Err(Error::invalid_argument(format!(
                "Cannot update variable with shape {shape} using a Tensor with shape {}, shapes must be equal.",
                format_dims(delta.shape())
            )));
        }
        let new = match accumulate(old.clone(), delta, subtract) {
            Ok(t) => t,
            Err(e) => {
                *slot = Some(old);
                return Err(e);
            }
        };
        drop(old);
        *slot = Some(new.clone());
        Ok(new)
    }

    /// `count_up_to`: returns the old value and increments it, or OutOfRange at `limit`.
    fn count_up_to(&self, limit: i64) -> Result<Tensor> {
        let mut slot = self.value.write();
        let old = slot.as_ref().ok_or_else(|| self.uninitialized())?.clone();
        let (value, next) = match old.dtype() {
            DType::I32 => {
                let v = old.to_scalar::<i32>()? as i64;
                (v, Tensor::scalar(v as i32 + 1))
            }
            DType::I64 => {
                let v = old.to_scalar::<i64>()?;
                (v, Tensor::scalar(v + 1))
            }
            dt => {
                return Err(Error::invalid_argument(format!(
                    "CountUpTo needs an int32 or int64 variable, not {dt}"
                )))
            }
        };
        if value >= limit {
            return Err(Error::out_of_range(format!("Reached limit of {limit}")));
        }
        *slot = Some(next);
        Ok(old)
    }
}

pub(super) fn var_of<'c>(ctx: &'c OpContext<'_>) -> Result<&'c VariableResource> {
    ctx.resource::<VariableResource>(0)
}

/// Finds or creates the variable's resource once per session and outputs its handle.
struct VariableKernel {
    name: String,
    container: String,
    dtype: DType,
    shape: Shape,
    handle: OnceLock<Tensor>,
}

impl Kernel for VariableKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        if let Some(h) = self.handle.get() {
            ctx.set_output(0, h.clone());
            return Ok(());
        }
        let r = ctx
            .resources()
            .lookup_or_create_typed(&self.container, &self.name, || {
                Ok(VariableResource {
                    name: self.name.clone(),
                    dtype: self.dtype,
                    shape: self.shape.clone(),
                    value: RwLock::new(None),
                })
            })?;
        if r.dtype != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Shared variable '{}' has dtype {} but requested dtype was {}",
                self.name, r.dtype, self.dtype
            )));
        }
        let h = Tensor::scalar(ResourceHandle::new(&self.container, &self.name, r));
        let h = self.handle.get_or_init(|| h).clone();
        ctx.set_output(0, h);
        Ok(())
    }

    fn output_is_fixed(&self) -> bool {
        true
    }
}

pub(super) fn make_variable(node: &Node) -> Result<Box<dyn Kernel>> {
    let shared: String = node.attr("shared_name")?;
    Ok(Box::new(VariableKernel {
        name: if shared.is_empty() {
            node.name().to_string()
        } else {
            shared
        },
        container: node.attr("container")?,
        dtype: node.attr("dtype")?,
        shape: node.attr("shape")?,
        handle: OnceLock::new(),
    }))
}

struct ReadKernel;

impl Kernel for ReadKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let v = var_of(ctx)?.read()?;
        ctx.set_output(0, v);
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum AssignKind {
    Assign { validate_shape: bool },
    Add,
    Sub,
}

struct AssignKernel(AssignKind);

impl Kernel for AssignKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let value = ctx.take_input(1);
        let var = var_of(ctx)?;
        let out = match self.0 {
            AssignKind::Assign { validate_shape } => var.assign(value, validate_shape)?,
            AssignKind::Add => var.update(&value, false)?,
            AssignKind::Sub => var.update(&value, true)?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn make_assign(node: &Node) -> Result<Box<dyn Kernel>> {
    let kind = match node.op_type() {
        "Assign" => AssignKind::Assign {
            validate_shape: node.attr("validate_shape")?,
        },
        "AssignAdd" => AssignKind::Add,
        _ => AssignKind::Sub,
    };
    Ok(Box::new(AssignKernel(kind)))
}

pub(super) struct CountUpToKernel(pub(super) i64);

impl Kernel for CountUpToKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let old = var_of(ctx)?.count_up_to(self.0)?;
        ctx.set_output(0, old);
        Ok(())
    }
}

pub(super) struct IsInitializedKernel;

impl Kernel for IsInitializedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let init = var_of(ctx)?.is_initialized();
        ctx.set_output(0, Tensor::scalar(init));
        Ok(())
    }
}

struct ReportKernel(Vec<String>);

impl Kernel for ReportKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut names = Vec::new();
        for (i, name) in self.0.iter().enumerate() {
            let v = ctx.resource::<VariableResource>(i)?;
            if !v.is_initialized() {
                names.push(Bytes::copy_from_slice(name.as_bytes()));
            }
        }
        ctx.set_output(0, Tensor::from(names));
        Ok(())
    }
}

pub(super) fn assign(
    var: &Variable,
    value: Output,
    op: &str,
    validate_shape: bool,
) -> Result<Output> {
    if value.dtype() != var.dtype() {
        return Err(Error::invalid_argument(format!(
            "Cannot {op} a {} tensor to variable {} of dtype {}",
            value.dtype(),
            var.name(),
            var.dtype()
        )));
    }
    if validate_shape && !var.shape().is_compatible_with(&value.shape()) {
        return Err(Error::invalid_argument(format!(
            "Shapes {} and {} are incompatible (variable {})",
            var.shape(),
            value.shape(),
            var.name()
        )));
    }
    let mut b = crate::new_op(var.graph(), op)
        .input(var.handle())
        .input(value);
    if op == "Assign" {
        b = b.attr("validate_shape", validate_shape);
    }
    b.build()?.output(0)
}

pub(super) fn count_up_to(var: &Variable, limit: i64) -> Result<Output> {
    crate::new_op(var.graph(), "CountUpTo")
        .input(var.handle())
        .attr("limit", limit)
        .attr("T", var.dtype())
        .build()?
        .output(0)
}

pub(super) fn is_initialized(var: &Variable) -> Result<Output> {
    crate::new_op(var.graph(), "IsVariableInitialized")
        .input(var.handle())
        .build()?
        .output(0)
}

pub(super) fn report(
    graph: &weir_graph::Graph,
    vars: &[Variable],
    name: Option<&str>,
) -> Result<Output> {
    let names: Vec<String> = vars.iter().map(Variable::name).collect();
    crate::new_op(graph, "ReportUninitializedVariables")
        .maybe_name(name)
        .inputs(vars.iter().map(|v| v.handle().clone()))
        .attr("var_names", names)
        .build()?
        .output(0)
}

fn value_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    let s = ctx.input_shape(1).clone();
    ctx.set_output(0, s);
    Ok(())
}

fn scalar_out(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

pub(super) fn register() {
    let resource = ArgType::Fixed(DType::Resource);
    register_op(
        OpDef::new("VariableV2")
            .output("ref", resource.clone())
            .attr(
                "shape",
                AttrKind::Shape,
                Some(AttrValue::Shape(Shape::unknown())),
            )
            .type_attr("dtype", DType::ALL_DATA)
            .resource_name_attrs()
            .stateful()
            .shape_fn(scalar_out),
    );
    register_kernel("VariableV2", make_variable);
    register_op(
        OpDef::new("ReadVariableOp")
            .input("resource", resource.clone())
            .output("value", ArgType::Attr("dtype"))
            .type_attr("dtype", DType::ALL_DATA)
            .attr(
                "shape",
                AttrKind::Shape,
                Some(AttrValue::Shape(Shape::unknown())),
            )
            .stateful()
            .shape_fn(|ctx| {
                let s: Shape = ctx.attr("shape")?;
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("ReadVariableOp", |_| Ok(Box::new(ReadKernel)));
    for (name, types) in [
        ("Assign", DType::ALL_DATA),
        ("AssignAdd", DType::REAL_NUMBER),
        ("AssignSub", DType::REAL_NUMBER),
    ] {
        let mut def = OpDef::new(name)
            .input("ref", resource.clone())
            .input("value", ArgType::Attr("T"))
            .output("output_ref", ArgType::Attr("T"))
            .type_attr("T", types)
            .attr("use_locking", AttrKind::Bool, Some(AttrValue::Bool(true)))
            .stateful()
            .shape_fn(value_shape);
        if name == "Assign" {
            def = def.attr(
                "validate_shape",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            );
        }
        register_op(def);
        register_kernel(name, make_assign);
    }
    register_op(
        OpDef::new("CountUpTo")
            .input("ref", resource.clone())
            .output("output", ArgType::Attr("T"))
            .type_attr("T", &[DType::I32, DType::I64])
            .attr("limit", AttrKind::Int, None)
            .stateful()
            .shape_fn(scalar_out),
    );
    register_kernel("CountUpTo", |node| {
        Ok(Box::new(CountUpToKernel(node.attr("limit")?)))
    });
    register_op(
        OpDef::new("IsVariableInitialized")
            .input("ref", resource.clone())
            .output("is_initialized", ArgType::Fixed(DType::Bool))
            .stateful()
            .shape_fn(scalar_out),
    );
    register_kernel("IsVariableInitialized", |_| {
        Ok(Box::new(IsInitializedKernel))
    });
    register_op(
        OpDef::new("ReportUninitializedVariables")
            .input(
                "vars",
                ArgType::RepeatedFixed {
                    count: "N",
                    dtype: DType::Resource,
                },
            )
            .output("names", ArgType::Fixed(DType::String))
            .attr("var_names", AttrKind::Strs, None)
            .stateful()
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::unknown_of_rank(1));
                Ok(())
            }),
    );
    register_kernel("ReportUninitializedVariables", |node| {
        Ok(Box::new(ReportKernel(node.attr("var_names")?)))
    });
}
