//! Tensors kept in a session between runs under string handles: TensorFlow's `SessionState`
//! (per session) and `TensorStore` (per run), which `GetSessionHandle`, `GetSessionTensor` and
//! `DeleteSessionTensor` use.
//!
//! A handle op does not put its tensor in the session at once: it adds it to its run's store,
//! and only when the run succeeds does the session move the tensors of the handle ops it fetched
//! into its state. So a failed run, or a handle nobody fetched, keeps nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};

use parking_lot::Mutex;

use crate::{Error, Result, Tensor};

/// The device every weir tensor lives on, as TensorFlow's handles name it.
pub const HANDLE_DEVICE: &str = "/job:localhost/replica:0/task:0/device:CPU:0";

/// The tensors one session keeps under handles, and its counter of handle ids:
/// TensorFlow's `SessionState`.
#[derive(Debug, Default)]
pub struct SessionState {
    tensors: Mutex<HashMap<String, Tensor>>,
    next_id: AtomicI64,
}

impl SessionState {
    /// An empty state whose first handle id is 0.
    pub fn new() -> SessionState {
        SessionState::default()
    }

    /// A fresh id for a handle; ids count up from 0 in each session.
    pub fn new_id(&self) -> i64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// The tensor kept under `handle`; InvalidArgument when there is none.
    pub fn get_tensor(&self, handle: &str) -> Result<Tensor> {
        self.tensors.lock().get(handle).cloned().ok_or_else(|| {
            Error::invalid_argument(format!(
                "The tensor with handle '{handle}' is not in the session store."
            ))
        })
    }

    /// Keeps `tensor` under `handle`; InvalidArgument when the handle is taken.
    pub fn add_tensor(&self, handle: &str, tensor: Tensor) -> Result<()> {
        let mut map = self.tensors.lock();
        if map.contains_key(handle) {
            return Err(Error::invalid_argument(format!(
                "Failed to add a tensor with handle '{handle}' to the session store."
            )));
        }
        map.insert(handle.to_string(), tensor);
        Ok(())
    }

    /// Frees the tensor kept under `handle`; InvalidArgument when there is none.
    pub fn delete_tensor(&self, handle: &str) -> Result<()> {
        match self.tensors.lock().remove(handle) {
            Some(_) => Ok(()),
            None => Err(Error::invalid_argument(format!(
                "Failed to delete a tensor with handle '{handle}' in the session store."
            ))),
        }
    }

    /// The number of tensors kept.
    pub fn len(&self) -> usize {
        self.tensors.lock().len()
    }

    /// Whether no tensor is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The handle string of the tensor a node named `node_name` kept with id `id`:
/// `"<node>;<id>;<device>"`, as TensorFlow's `TensorStore::TensorAndKey::GetHandle` makes it.
pub fn tensor_handle_string(node_name: &str, id: i64) -> String {
    format!("{node_name};{id};{HANDLE_DEVICE}")
}

/// The tensors the handle ops of one run produced, by node name, waiting for the run to end:
/// TensorFlow's `TensorStore`.
#[derive(Debug, Default)]
pub struct TensorStore {
    /// (node name, handle id, tensor); a run has few handle ops, so a list beats a map.
    tensors: Mutex<Vec<(String, i64, Tensor)>>,
}

impl TensorStore {
    /// An empty store (allocates nothing until a handle op runs).
    pub fn new() -> TensorStore {
        TensorStore::default()
    }

    /// Adds the tensor that node `node_name` keeps with handle id `id`; InvalidArgument when the
    /// node already added one in this run.
    pub fn add_tensor(&self, node_name: &str, id: i64, tensor: Tensor) -> Result<()> {
        let mut list = self.tensors.lock();
        if list.iter().any(|(n, _, _)| n == node_name) {
            return Err(Error::invalid_argument(format!(
                "Failed to add a tensor with name '{node_name}' to the tensor store."
            )));
        }
        list.push((node_name.to_string(), id, tensor));
        Ok(())
    }

    /// Whether no handle op ran.
    pub fn is_empty(&self) -> bool {
        self.tensors.lock().is_empty()
    }

    /// Moves into `state` the tensors of the nodes whose outputs the run fetched
    /// (`fetch_names`, as `node:index` or `node`), each under its handle string.
    pub fn save_tensors<'n>(
        &self,
        fetch_names: impl IntoIterator<Item = &'n str>,
        state: &SessionState,
    ) -> Result<()> {
        let list = self.tensors.lock();
        if list.is_empty() {
            return Ok(());
        }
        for name in fetch_names {
            let node = match name.rsplit_once(':') {
                Some((n, i)) if i.bytes().all(|b| b.is_ascii_digit()) => n,
                _ => name,
            };
            if let Some((n, id, t)) = list.iter().find(|(n, _, _)| n == node) {
                state.add_tensor(&tensor_handle_string(n, *id), t.clone())?;
            }
        }
        Ok(())
    }
}

/// What a kernel reaches of its session's handle store in one run: the session's state and the
/// run's store.
#[derive(Clone, Copy, Debug)]
pub struct SessionRunState<'a> {
    /// The session's kept tensors.
    pub state: &'a SessionState,
    /// This run's tensors waiting to be kept.
    pub store: &'a TensorStore,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_fetched_handles_are_kept_under_their_handle_strings() {
        let state = SessionState::new();
        let store = TensorStore::new();
        assert!(store.is_empty());
        let (a, b) = (state.new_id(), state.new_id());
        assert_eq!((a, b), (0, 1));
        store.add_tensor("h", a, Tensor::scalar(1.0f32)).unwrap();
        store
            .add_tensor("unfetched", b, Tensor::scalar(2.0f32))
            .unwrap();
        let e = store
            .add_tensor("h", 7, Tensor::scalar(3.0f32))
            .unwrap_err();
        assert!(e.is_invalid_argument());
        store.save_tensors(["h:0", "other:0"], &state).unwrap();
        assert_eq!(state.len(), 1);
        let key = format!("h;0;{HANDLE_DEVICE}");
        assert_eq!(
            state.get_tensor(&key).unwrap().to_vec::<f32>().unwrap(),
            [1.0]
        );
        let e = state.add_tensor(&key, Tensor::scalar(0.0f32)).unwrap_err();
        assert!(
            e.message().contains("Failed to add a tensor with handle"),
            "{e}"
        );
        state.delete_tensor(&key).unwrap();
        let e = state.delete_tensor(&key).unwrap_err();
        assert_eq!(
            e.message(),
            format!("Failed to delete a tensor with handle '{key}' in the session store.")
        );
        let e = state.get_tensor(&key).unwrap_err();
        assert!(e.is_invalid_argument() && e.message().contains("is not in the session store"));
        assert!(state.is_empty());
    }
}
