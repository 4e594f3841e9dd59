//! `TensorHandle`: Python's `session_ops.TensorHandle`, a tensor kept in a session between runs
//! that later runs use by feeding its handle string.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use weir_graph::{Bytes, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::session_ops::{delete_session_tensor, get_session_tensor, handle_string};

use crate::{RunArgs, SessionHandle};

/// A handle to a tensor kept in a session: TensorFlow's Python `TensorHandle`, which
/// `sess.run` returns for a `tf.get_session_handle` fetch.
///
/// Feed it (its handle string) to the placeholder of `get_session_tensor`, as
/// `sess.run(b, feed_dict={p: h.handle})` does. Dropping it frees the tensor (Python frees
/// dead handles when it collects them), unless [`delete`](Self::delete) already did or
/// [`get_raw_handle`](Self::get_raw_handle) took over its lifetime.
///
/// ```
/// use weir_graph::{DType, Graph};
/// use weir_ops::array::constant;
/// use weir_ops::math::mul;
/// use weir_ops::session_ops::{get_session_handle, get_session_tensor};
/// use weir_session::{RunArgs, Session, TensorHandle};
///
/// let g = Graph::new();
/// let c = mul(&constant(&g, 10.0f32)?, &constant(&g, 5.0f32)?)?;
/// let h = get_session_handle(&c, None)?;
/// let sess = Session::new(&g)?;
/// let h = TensorHandle::fetch(&sess, &h)?;
/// assert_eq!(h.handle(), "GetSessionHandle;0;/job:localhost/replica:0/task:0/device:CPU:0");
/// let (p, a) = get_session_tensor(&g, h.handle(), DType::F32, None)?;
/// let b = mul(&a, &constant(&g, 10.0f32)?)?;
/// let out = sess.run(&RunArgs::new().feed(&p, &h).fetch(&b))?;
/// assert_eq!(out[0].to_vec::<f32>()?, [500.0]);
/// assert_eq!(h.eval()?.to_vec::<f32>()?, [50.0]);
/// h.delete()?;
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct TensorHandle {
    handle: String,
    dtype: DType,
    session: SessionHandle,
    /// Python's `_auto_gc_enabled`: cleared by `delete` and `get_raw_handle`.
    auto_gc: AtomicBool,
}

/// The placeholder and op `eval` or `delete` feed a handle to, made once per graph and key as
/// Python keeps them in `graph._handle_readers` and `graph._handle_deleters`. Names, not
/// outputs: an output holds its graph, and the graph holds this.
struct HandleOps {
    key: String,
    holder: String,
    op: String,
}

const READERS: &str = "_handle_readers";
const DELETERS: &str = "_handle_deleters";

/// The cached (placeholder, op) of `key` in collection `collection`, made by `make` if absent.
fn cached_ops(
    graph: &Graph,
    collection: &str,
    key: &str,
    make: impl FnOnce() -> Result<(Output, String)>,
) -> Result<(Output, String)> {
    let found = graph
        .get_collection_of::<HandleOps>(collection)
        .into_iter()
        .find(|h| h.key == key);
    if let Some(h) = found {
        return Ok((graph.tensor_by_name(&h.holder)?, h.op.clone()));
    }
    let (holder, op) = make()?;
    graph.add_object_to_collection(
        collection,
        Arc::new(HandleOps {
            key: key.to_string(),
            holder: holder.name(),
            op: op.clone(),
        }),
    );
    Ok((holder, op))
}

impl TensorHandle {
    /// A handle to the tensor of dtype `dtype` kept in `session` under `handle`
    /// (`TensorHandle(handle, dtype, session)`).
    pub fn new(handle: impl Into<String>, dtype: DType, session: &SessionHandle) -> TensorHandle {
        TensorHandle {
            handle: handle.into(),
            dtype,
            session: session.clone(),
            auto_gc: AtomicBool::new(true),
        }
    }

    /// Runs the handle op `handle_op` (a `GetSessionHandle` or `GetSessionHandleV2` output) and
    /// returns its handle, as `sess.run(h)` does.
    pub fn fetch(session: &SessionHandle, handle_op: &Output) -> Result<TensorHandle> {
        let value = session
            .run(&RunArgs::new().fetch(handle_op))?
            .pop()
            .ok_or_else(|| Error::internal("run returned no value"))?;
        TensorHandle::from_fetched(session, handle_op, &value)
    }

    /// The handle that `value`, fetched from the handle op `handle_op` by a run of `session`,
    /// stands for (what `sess.run` makes of a handle among several fetches).
    pub fn from_fetched(
        session: &SessionHandle,
        handle_op: &Output,
        value: &Tensor,
    ) -> Result<TensorHandle> {
        let op = handle_op.op();
        if !matches!(
            op.op_type().as_str(),
            "GetSessionHandle" | "GetSessionHandleV2"
        ) {
            return Err(Error::invalid_argument(format!(
                "{} is not the output of a GetSessionHandle op",
                handle_op.name()
            )));
        }
        let dtype: DType = op.attr("T")?;
        Ok(TensorHandle::new(handle_string(value)?, dtype, session))
    }

    /// The handle string, `"<node>;<id>;<device>"` (Python's `handle` property).
    pub fn handle(&self) -> &str {
        &self.handle
    }

    /// The dtype of the kept tensor.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    fn check_live(&self) -> Result<()> {
        if self.auto_gc.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(Error::invalid_argument(format!(
                "Persistent tensor {} may have already been deleted.",
                self.handle
            )))
        }
    }

    /// The kept tensor's value (Python's `eval()`), read by a `GetSessionTensor` made once per
    /// graph for handles of this node. InvalidArgument (Python's TypeError) after `delete`.
    pub fn eval(&self) -> Result<Tensor> {
        self.check_live()?;
        let graph = self.session.graph();
        let parts: Vec<&str> = self.handle.split(';').collect();
        let key = format!("{};{}", parts[0], parts[parts.len() - 1]);
        let (holder, reader) = cached_ops(graph, READERS, &key, || {
            let (holder, reader) = get_session_tensor(graph, &self.handle, self.dtype, None)?;
            Ok((holder, reader.name()))
        })?;
        let args = RunArgs::new().feed(&holder, self).fetch_name(&reader);
        self.session
            .run(&args)?
            .pop()
            .ok_or_else(|| Error::internal("run returned no value"))
    }

    /// Frees the kept tensor now (Python's `delete()`), with a `DeleteSessionTensor` made once
    /// per graph. InvalidArgument (Python's TypeError) when already deleted.
    pub fn delete(&self) -> Result<()> {
        self.check_live()?;
        self.auto_gc.store(false, Ordering::Release);
        let graph = self.session.graph();
        let (holder, deleter) = cached_ops(graph, DELETERS, "0", || {
            let (holder, deleter) = delete_session_tensor(graph, &self.handle, None)?;
            Ok((holder, deleter.name()))
        })?;
        let args = RunArgs::new().feed(&holder, self).target_name(&deleter);
        self.session.run(&args).map(|_| ())
    }

    /// The handle string, leaving the kept tensor's lifetime to the caller: dropping this
    /// handle no longer frees it (Python's `get_raw_handle()`).
    pub fn get_raw_handle(&self) -> String {
        self.auto_gc.store(false, Ordering::Release);
        self.handle.clone()
    }
}

impl std::fmt::Display for TensorHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.handle)
    }
}

impl std::fmt::Debug for TensorHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TensorHandle({}, {})", self.handle, self.dtype)
    }
}

/// The value a placeholder is fed for a handle: its handle string.
impl From<&TensorHandle> for Tensor {
    fn from(h: &TensorHandle) -> Tensor {
        Tensor::scalar(Bytes::from(h.handle.clone()))
    }
}

impl Drop for TensorHandle {
    fn drop(&mut self) {
        if self.auto_gc.load(Ordering::Acquire) {
            // Straight from the session's store: no run, so nothing can block or fail here.
            // Already gone (deleted through its raw string) is fine.
            let _ = self.session.session_state().delete_tensor(&self.handle);
        }
    }
}
