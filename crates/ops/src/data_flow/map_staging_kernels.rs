//! OpDefs and kernels of TensorFlow's map staging ops: `MapStage`, `MapPeek`, `MapUnstage`,
//! `MapUnstageNoKey`, `MapSize`, `MapIncompleteSize`, `MapClear` and their `OrderedMap*` twins.
//!
//! The ops take no handle: each finds (or makes) its session's map by its `container` and
//! `shared_name` attrs (the node name when `shared_name` is empty), as TensorFlow's
//! `GetStagingMap` does, so the first op to run sets the map's `dtypes`, `capacity` and
//! `memory_limit`. A map and an ordered map of one name are two maps, as they are two resource
//! types in TensorFlow.

use std::sync::{Arc, OnceLock};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, DType, Error, InferenceContext, Kernel, Node,
    OpContext, OpDef, Resource, Result, Shape, Tensor,
};

use super::map_staging_store::{check_ordering, Key, StagingMap, Wait};

/// The unordered and the ordered map of one container and name.
#[derive(Default)]
struct StagingMaps {
    unordered: OnceLock<Arc<StagingMap>>,
    ordered: OnceLock<Arc<StagingMap>>,
}

impl Resource for StagingMaps {
    fn type_name(&self) -> &str {
        "StagingMap"
    }
}

/// TensorFlow's `IsValidContainerName`: `[A-Za-z0-9.][A-Za-z0-9_.\-/]*`.
fn valid_container(c: &str) -> bool {
    let mut chars = c.chars();
    chars
        .next()
        .is_some_and(|f| f.is_ascii_alphanumeric() || f == '.')
        && chars.all(|ch| ch.is_ascii_alphanumeric() || "_.-/".contains(ch))
}

/// Which map a node reaches, and how to make it if it is the first.
struct MapAttrs {
    ordered: bool,
    container: String,
    shared_name: String,
    components: usize,
    capacity: usize,
    memory_limit: usize,
}

impl MapAttrs {
    fn of(node: &Node) -> Result<MapAttrs> {
        let shared: String = node.attr("shared_name")?;
        let dtypes: Vec<DType> = node.attr("dtypes")?;
        let size = |name: &str| -> Result<usize> {
            Ok(usize::try_from(node.attr::<i64>(name)?).unwrap_or(0))
        };
        Ok(MapAttrs {
            ordered: node.op_type().starts_with("Ordered"),
            container: node.attr("container")?,
            shared_name: if shared.is_empty() {
                node.name().to_string()
            } else {
                shared
            },
            components: dtypes.len(),
            capacity: size("capacity")?,
            memory_limit: size("memory_limit")?,
        })
    }

    /// TensorFlow's `GetStagingMap`: the session's map, made on first use.
    fn map(&self, ctx: &OpContext<'_>) -> Result<Arc<StagingMap>> {
        if !self.container.is_empty() && !valid_container(&self.container) {
            return Err(Error::invalid_argument(format!(
                "container contains invalid characters: {}",
                self.container
            )));
        }
        if self.shared_name.starts_with('_') {
            return Err(Error::invalid_argument(format!(
                "shared_name cannot start with '_':{}",
                self.shared_name
            )));
        }
        let maps =
            ctx.resources()
                .lookup_or_create_typed(&self.container, &self.shared_name, || {
                    Ok(StagingMaps::default())
                })?;
        let slot = if self.ordered {
            &maps.ordered
        } else {
            &maps.unordered
        };
        let map = slot.get_or_init(|| {
            Arc::new(StagingMap::new(
                self.ordered,
                self.components,
                self.capacity,
                self.memory_limit,
            ))
        });
        Ok(map.clone())
    }
}

fn wait<'a>(ctx: &'a OpContext<'_>) -> Wait<'a> {
    Wait {
        cancel: ctx.cancellation(),
        deadline: ctx.deadline(),
    }
}

fn indices_of(t: &Tensor) -> Result<Vec<i32>> {
    Ok(t.as_slice::<i32>()?.to_vec())
}

/// The key of a peek or get, which must be a scalar.
fn scalar_key(t: &Tensor) -> Result<i64> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "key must be an int64 scalar: {}",
            format_dims(t.shape())
        )));
    }
    Ok(t.as_slice::<i64>()?[0])
}

/// Sets the outputs from `first` on, checking dtypes as TensorFlow's executor does.
fn set_values(ctx: &mut OpContext<'_>, first: usize, values: Vec<Tensor>) -> Result<()> {
    for (i, v) in values.into_iter().enumerate() {
        let want = ctx.output_dtype(first + i);
        if v.dtype() != want {
            return Err(Error::internal(format!(
                "Output {} of type {} does not match declared output type {} for node {{{{node {}}}}}",
                first + i,
                v.dtype().name(),
                want.name(),
                ctx.node().name()
            )));
        }
        ctx.set_output(first + i, v);
    }
    Ok(())
}

/// Refuses indices that would not fill the op's outputs (TensorFlow writes past them), after
/// TensorFlow's own checks of the indices.
fn check_outputs(indices: &[i32], outputs: usize) -> Result<()> {
    check_ordering(indices)?;
    if indices.len() != outputs {
        return Err(Error::invalid_argument(format!(
            "output/indices size mismatch: {outputs} vs. {}",
            indices.len()
        )));
    }
    Ok(())
}

struct StageKernel(MapAttrs);

impl Kernel for StageKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let map = self.0.map(ctx)?;
        let key = ctx.input(0);
        match key.num_elements() {
            0 => return Err(Error::invalid_argument("key must not be empty")),
            1 => {}
            _ => {
                return Err(Error::invalid_argument(format!(
                    "key must be an int64 scalar, got tensor with shape: {}",
                    format_dims(key.shape())
                )))
            }
        }
        let key = Key {
            value: key.as_slice::<i64>()?[0],
            tensor: key.clone(),
        };
        let indices = indices_of(ctx.input(1))?;
        let values = ctx.inputs()[2..].to_vec();
        map.put(&key, &indices, values, &wait(ctx))
    }

    /// Waits while the map is full or over its memory limit.
    fn may_block(&self) -> bool {
        true
    }
}

struct PeekKernel {
    map: MapAttrs,
    take: bool,
}

impl Kernel for PeekKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let map = self.map.map(ctx)?;
        let key = scalar_key(ctx.input(0))?;
        let indices = indices_of(ctx.input(1))?;
        check_outputs(&indices, ctx.num_outputs())?;
        let values = if self.take {
            map.pop(key, &indices, &wait(ctx))?
        } else {
            map.peek(key, &indices, &wait(ctx))?
        };
        set_values(ctx, 0, values)
    }

    /// Waits until the key is staged.
    fn may_block(&self) -> bool {
        true
    }
}

struct UnstageNoKeyKernel(MapAttrs);

impl Kernel for UnstageNoKeyKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let map = self.0.map(ctx)?;
        let indices = indices_of(ctx.input(0))?;
        check_outputs(&indices, ctx.num_outputs() - 1)?;
        let (key, values) = map.pop_any(&indices, &wait(ctx))?;
        ctx.set_output(0, key);
        set_values(ctx, 1, values)
    }

    /// Waits while the map is empty.
    fn may_block(&self) -> bool {
        true
    }
}

struct SizeKernel {
    map: MapAttrs,
    incomplete: bool,
}

impl Kernel for SizeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let map = self.map.map(ctx)?;
        let n = if self.incomplete {
            map.incomplete_size()
        } else {
            map.size()
        };
        ctx.set_output(0, Tensor::scalar(n.min(i32::MAX as usize) as i32));
        Ok(())
    }
}

struct ClearKernel(MapAttrs);

impl Kernel for ClearKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        self.0.map(ctx)?.clear();
        Ok(())
    }
}

fn scalar_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

/// The attrs every map op has, in TensorFlow's order, `extra` (list attrs) after the limits.
fn map_op(name: &str, extra: &[&'static str]) -> OpDef {
    let mut def = OpDef::new(name);
    for limit in ["capacity", "memory_limit"] {
        def = def.attr(limit, AttrKind::Int, Some(AttrValue::Int(0)));
        if let Some(a) = def.attrs.last_mut() {
            a.min = Some(0);
        }
    }
    for list in extra {
        def = def.attr(list, AttrKind::Types, None);
    }
    def.resource_name_attrs().stateful()
}

/// TensorFlow's `list(type) >= 1` constraint, which OpDef cannot state.
fn nonempty(node: &Node, attr: &str) -> Result<()> {
    if node.attr::<Vec<DType>>(attr)?.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Length for attr '{attr}' of 0 must be at least minimum 1"
        )));
    }
    Ok(())
}

fn peek_kernel(node: &Node, take: bool) -> Result<Box<dyn Kernel>> {
    nonempty(node, "dtypes")?;
    Ok(Box::new(PeekKernel {
        map: MapAttrs::of(node)?,
        take,
    }))
}

fn size_kernel(node: &Node, incomplete: bool) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(SizeKernel {
        map: MapAttrs::of(node)?,
        incomplete,
    }))
}

pub(super) fn register() {
    for prefix in ["", "Ordered"] {
        let name = |op: &str| format!("{prefix}{op}");
        register_op(
            map_op(&name("MapStage"), &["dtypes", "fake_dtypes"])
                .input("key", ArgType::Fixed(DType::I64))
                .input("indices", ArgType::Fixed(DType::I32))
                .input("values", ArgType::List("fake_dtypes")),
        );
        for op in ["MapPeek", "MapUnstage"] {
            register_op(
                map_op(&name(op), &["dtypes"])
                    .input("key", ArgType::Fixed(DType::I64))
                    .input("indices", ArgType::Fixed(DType::I32))
                    .output("values", ArgType::List("dtypes")),
            );
        }
        register_op(
            map_op(&name("MapUnstageNoKey"), &["dtypes"])
                .input("indices", ArgType::Fixed(DType::I32))
                .output("key", ArgType::Fixed(DType::I64))
                .output("values", ArgType::List("dtypes")),
        );
        for op in ["MapSize", "MapIncompleteSize"] {
            register_op(
                map_op(&name(op), &["dtypes"])
                    .output("size", ArgType::Fixed(DType::I32))
                    .shape_fn(scalar_shape),
            );
        }
        register_op(map_op(&name("MapClear"), &["dtypes"]));

        register_kernel(&name("MapStage"), |n| {
            nonempty(n, "fake_dtypes")?;
            Ok(Box::new(StageKernel(MapAttrs::of(n)?)))
        });
        register_kernel(&name("MapPeek"), |n| peek_kernel(n, false));
        register_kernel(&name("MapUnstage"), |n| peek_kernel(n, true));
        register_kernel(&name("MapUnstageNoKey"), |n| {
            nonempty(n, "dtypes")?;
            Ok(Box::new(UnstageNoKeyKernel(MapAttrs::of(n)?)))
        });
        register_kernel(&name("MapSize"), |n| size_kernel(n, false));
        register_kernel(&name("MapIncompleteSize"), |n| size_kernel(n, true));
        register_kernel(&name("MapClear"), |n| {
            Ok(Box::new(ClearKernel(MapAttrs::of(n)?)))
        });
    }
}
