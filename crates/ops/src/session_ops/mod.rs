//! Session handles (TensorFlow's `session_ops`): `GetSessionHandle` and `GetSessionHandleV2`
//! keep a tensor in the session after the run that fetches their handle, `GetSessionTensor`
//! reads it back in a later run from the fed handle string, and `DeleteSessionTensor` frees it.
//!
//! The tensors live in the session's [`SessionState`](weir_graph::SessionState), which the
//! kernels reach through [`OpContext::session_state`]. A handle op only adds its tensor to its
//! run's store; the session keeps it when the run succeeds and fetched the handle, so a failed
//! run, or a handle nobody fetched, keeps nothing (as TensorFlow's `DirectSession` does).

use std::sync::Arc;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    tensor_handle_string, ArgType, Bytes, DType, Error, Graph, Kernel, OpContext, OpDef, Operation,
    Output, Resource, ResourceHandle, Result, SessionRunState, Shape, Tensor,
};

use crate::array::Placeholder;

/// The container (and type name) of a `GetSessionHandleV2` resource handle, TensorFlow's
/// `SessionState::kTensorHandleResourceTypeName`.
pub const TENSOR_HANDLE_KEY: &str = "TensorHandle";

/// `tf.get_session_handle(data, name=None)`: a scalar string handle to `data`; the run that
/// fetches it keeps `data` in the session under that handle (`"<node>;<id>;<device>"`).
///
/// Feed the handle string to the placeholder of [`get_session_tensor`] to use the kept tensor in
/// a later run, and free it with [`delete_session_tensor`] (or weir-session's `TensorHandle`).
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::array::constant;
/// use weir_ops::math::mul;
/// use weir_ops::session_ops::{delete_session_tensor, get_session_handle, get_session_tensor};
///
/// let g = Graph::new();
/// let c = mul(&constant(&g, 10.0f32)?, &constant(&g, 5.0f32)?)?;
/// let h = get_session_handle(&c, None)?;
/// assert_eq!(h.name(), "GetSessionHandle:0");
/// // A run fetching `h` returns the handle string; a later run feeds it to `p`.
/// let handle = "GetSessionHandle;0;/job:localhost/replica:0/task:0/device:CPU:0";
/// let (p, a) = get_session_tensor(&g, handle, DType::F32, None)?;
/// let b = mul(&a, &constant(&g, 10.0f32)?)?;
/// let (holder, deleter) = delete_session_tensor(&g, handle, None)?;
/// assert_eq!((p.dtype(), b.dtype(), holder.dtype()), (DType::String, DType::F32, DType::String));
/// assert_eq!(deleter.op_type(), "DeleteSessionTensor");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn get_session_handle(data: &Output, name: Option<&str>) -> Result<Output> {
    crate::new_op(data.graph(), "GetSessionHandle")
        .maybe_name(name)
        .input(data)
        .build()?
        .output(0)
}

/// The `GetSessionHandleV2` op (`tf.raw_ops.GetSessionHandleV2(value, name)`): like
/// [`get_session_handle`], but the handle is a scalar resource whose container is
/// `"TensorHandle"` and whose name is the handle string.
pub fn get_session_handle_v2(value: &Output, name: Option<&str>) -> Result<Output> {
    crate::new_op(value.graph(), "GetSessionHandleV2")
        .maybe_name(name)
        .input(value)
        .build()?
        .output(0)
}

/// `tf.get_session_tensor(handle, dtype, name=None)`: a string placeholder to feed a handle
/// string to, and the `dtype` tensor kept under the fed handle (`GetSessionTensor`, named
/// `name`). `handle` is the handle whose device the ops go on; weir has one device.
pub fn get_session_tensor(
    graph: &Graph,
    handle: &str,
    dtype: DType,
    name: Option<&str>,
) -> Result<(Output, Output)> {
    // Python puts the ops on the handle's device (weir has one), so it must parse.
    check_device_spec(handle_device(handle))?;
    let holder = Placeholder::new(DType::String).build(graph)?;
    let tensor = crate::new_op(graph, "GetSessionTensor")
        .maybe_name(name)
        .input(&holder)
        .attr("dtype", dtype)
        .build()?
        .output(0)?;
    Ok((holder, tensor))
}

/// `tf.delete_session_tensor(handle, name=None)`: a string placeholder to feed a handle string
/// to, and the `DeleteSessionTensor` op (named `name`) that frees the tensor kept under it.
pub fn delete_session_tensor(
    graph: &Graph,
    handle: &str,
    name: Option<&str>,
) -> Result<(Output, Operation)> {
    check_device_spec(handle_device(handle))?;
    let holder = Placeholder::new(DType::String).build(graph)?;
    let deleter = crate::new_op(graph, "DeleteSessionTensor")
        .maybe_name(name)
        .input(&holder)
        .build()?;
    Ok((holder, deleter))
}

/// The device a handle string names (its part after the last `;`), as Python's
/// `TensorHandle._get_device_name` reads it.
pub fn handle_device(handle: &str) -> &str {
    handle.rsplit(';').next().unwrap_or(handle)
}

/// Checks a device spec as Python's `DeviceSpec.from_string` parses it (`/job:x/replica:0/
/// task:0/device:CPU:0`, `/cpu:0`, or empty); InvalidArgument (Python's ValueError) naming the
/// first part it does not know.
fn check_device_spec(spec: &str) -> Result<()> {
    for part in spec.split('/') {
        let fields: Vec<&str> = part.split(':').collect();
        let known = match fields.as_slice() {
            [key, _] if matches!(*key, "job" | "replica" | "task") => true,
            [ty] | [ty, _] if matches!(ty.to_ascii_uppercase().as_str(), "CPU" | "GPU" | "TPU") => {
                true
            }
            ["device", _, _] => true,
            [first, ..] => first.is_empty(),
            [] => true,
        };
        if !known {
            return Err(Error::invalid_argument(format!(
                "Unknown attribute '{}' is encountered while parsing the device spec: '{spec}'.",
                fields[0]
            )));
        }
    }
    Ok(())
}

/// The handle string of a fetched handle: the string of a `GetSessionHandle`, or the name of a
/// `GetSessionHandleV2` resource handle.
pub fn handle_string(fetched: &Tensor) -> Result<String> {
    match fetched.dtype() {
        DType::String => Ok(String::from_utf8_lossy(&fetched.to_scalar::<Bytes>()?).into_owned()),
        DType::Resource => Ok(fetched.to_scalar::<ResourceHandle>()?.name().to_string()),
        other => Err(Error::invalid_argument(format!(
            "A tensor handle is a string or a resource, not a {other}"
        ))),
    }
}

/// What a `GetSessionHandleV2` resource handle points to: nothing but its name, as in
/// TensorFlow, where the kept tensor is found by the handle's name.
struct TensorHandleMarker;

impl Resource for TensorHandleMarker {
    fn type_name(&self) -> &str {
        TENSOR_HANDLE_KEY
    }
}

/// The session's handle store and the run's; FailedPrecondition outside a session.
fn session_state<'a>(ctx: &OpContext<'a>, op: &str) -> Result<SessionRunState<'a>> {
    ctx.session_state()
        .ok_or_else(|| Error::failed_precondition(format!("{op} called on null session state")))
}

/// The one handle string of input 0.
fn input_handle(ctx: &OpContext<'_>) -> Result<String> {
    let t = ctx.input(0);
    if !t.shape().is_empty() {
        return Err(Error::invalid_argument(format!(
            "`handle` must be a scalar, got shape {}",
            weir_graph::format_dims(t.shape())
        )));
    }
    Ok(String::from_utf8_lossy(&t.to_scalar::<Bytes>()?).into_owned())
}

struct GetSessionHandleKernel {
    resource: bool,
}

impl Kernel for GetSessionHandleKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let op = if self.resource {
            "GetSessionHandleV2"
        } else {
            "GetSessionHandle"
        };
        let run = session_state(ctx, op)?;
        let id = run.state.new_id();
        let node = ctx.node().name().to_string();
        run.store.add_tensor(&node, id, ctx.input(0).clone())?;
        let handle = tensor_handle_string(&node, id);
        let out = if self.resource {
            Tensor::scalar(ResourceHandle::new(
                TENSOR_HANDLE_KEY,
                &handle,
                Arc::new(TensorHandleMarker),
            ))
        } else {
            Tensor::scalar(Bytes::from(handle))
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

struct GetSessionTensorKernel {
    dtype: DType,
}

impl Kernel for GetSessionTensorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let handle = input_handle(ctx)?;
        let run = session_state(ctx, "GetSessionTensor")?;
        let value = run.state.get_tensor(&handle)?;
        // TensorFlow's executor checks each output against its declared dtype.
        if value.dtype() != self.dtype {
            return Err(Error::internal(format!(
                "Output 0 of type {} does not match declared output type {} for node {{{{node {}}}}}",
                value.dtype(),
                self.dtype,
                ctx.node().name()
            )));
        }
        ctx.set_output(0, value);
        Ok(())
    }
}

struct DeleteSessionTensorKernel;

impl Kernel for DeleteSessionTensorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let handle = input_handle(ctx)?;
        session_state(ctx, "DeleteSessionTensor")?
            .state
            .delete_tensor(&handle)
    }
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    for (op, out) in [
        ("GetSessionHandle", DType::String),
        ("GetSessionHandleV2", DType::Resource),
    ] {
        register_op(
            OpDef::new(op)
                .input("value", ArgType::Attr("T"))
                .output("handle", ArgType::Fixed(out))
                .type_attr("T", DType::ALL)
                .stateful()
                .shape_fn(|ctx| {
                    ctx.set_output(0, Shape::scalar());
                    Ok(())
                }),
        );
    }
    register_kernel("GetSessionHandle", |_| {
        Ok(Box::new(GetSessionHandleKernel { resource: false }))
    });
    register_kernel("GetSessionHandleV2", |_| {
        Ok(Box::new(GetSessionHandleKernel { resource: true }))
    });
    register_op(
        OpDef::new("GetSessionTensor")
            .input("handle", ArgType::Fixed(DType::String))
            .output("value", ArgType::Attr("dtype"))
            .type_attr("dtype", DType::ALL)
            .stateful()
            .shape_fn(|ctx| {
                ctx.with_rank(0, 0)?;
                ctx.set_output(0, Shape::unknown());
                Ok(())
            }),
    );
    register_kernel("GetSessionTensor", |node| {
        Ok(Box::new(GetSessionTensorKernel {
            dtype: node.attr("dtype")?,
        }))
    });
    register_op(
        OpDef::new("DeleteSessionTensor")
            .input("handle", ArgType::Fixed(DType::String))
            .stateful()
            .shape_fn(|ctx| {
                ctx.with_rank(0, 0)?;
                Ok(())
            }),
    );
    register_kernel("DeleteSessionTensor", |_| {
        Ok(Box::new(DeleteSessionTensorKernel))
    });
}

#[cfg(test)]
mod tests {
    use weir_graph::{
        CancellationToken, ResourceManager, SessionState, TensorStore, HANDLE_DEVICE,
    };

    use super::*;

    /// Runs `out`'s kernel by hand with `inputs`, in the given session state and run store.
    fn run_kernel(
        out: &Operation,
        inputs: Vec<Tensor>,
        run: Option<SessionRunState<'_>>,
    ) -> Result<Vec<Option<Tensor>>> {
        let node = out.node();
        let kernel = weir_graph::registry::kernel_factory(node.op_type())?(&node)?;
        let (rm, token) = (ResourceManager::new(), CancellationToken::new());
        let mut inputs = inputs;
        let mut outputs = vec![None; node.output_dtypes().len()];
        let mut ctx = OpContext::new(&node, &mut inputs, &mut outputs, &rm, &token, None)
            .with_session_state(run);
        kernel.compute(&mut ctx)?;
        Ok(outputs)
    }

    #[test]
    fn handle_ops_keep_their_tensor_in_the_run_store_and_read_it_from_the_session() {
        crate::register_all_ops();
        let g = Graph::new();
        let c = crate::array::constant(&g, 3.0f32).unwrap();
        let h = get_session_handle(&c, None).unwrap();
        let h2 = get_session_handle_v2(&c, Some("h2")).unwrap();
        let (state, store) = (SessionState::new(), TensorStore::new());
        let run = SessionRunState {
            state: &state,
            store: &store,
        };
        let out = run_kernel(&h.op(), vec![Tensor::scalar(3.0f32)], Some(run)).unwrap();
        let s = handle_string(out[0].as_ref().unwrap()).unwrap();
        assert_eq!(s, format!("GetSessionHandle;0;{HANDLE_DEVICE}"));
        let out = run_kernel(&h2.op(), vec![Tensor::scalar(4.0f32)], Some(run)).unwrap();
        let r = out[0]
            .as_ref()
            .unwrap()
            .to_scalar::<ResourceHandle>()
            .unwrap();
        assert_eq!(
            (r.container(), r.name()),
            (TENSOR_HANDLE_KEY, format!("h2;1;{HANDLE_DEVICE}").as_str())
        );
        assert_eq!(handle_device(&s), HANDLE_DEVICE);
        // Nothing is kept until the session saves the fetched handles.
        assert!(state.is_empty());
        store.save_tensors(["GetSessionHandle:0"], &state).unwrap();
        let (_, t) = get_session_tensor(&g, &s, DType::F32, None).unwrap();
        let got = run_kernel(&t.op(), vec![Tensor::from(s.as_str())], Some(run)).unwrap();
        assert_eq!(got[0].as_ref().unwrap().to_vec::<f32>().unwrap(), [3.0]);
        let e = run_kernel(&t.op(), vec![Tensor::from(s.as_str())], None).unwrap_err();
        assert!(e.is_failed_precondition(), "{e}");
        assert_eq!(e.message(), "GetSessionTensor called on null session state");
        let e = run_kernel(
            &t.op(),
            vec![Tensor::from(vec![s.as_str(), "x"])],
            Some(run),
        )
        .unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
    }
}
