//! The session's [`FunctionRuntime`]: a function of the graph (`tf.data`'s `map` function, a
//! one-shot iterator's dataset factory) runs as a run of the session with its arguments fed.

use std::sync::{Arc, Weak};
use std::time::Instant;

use weir_graph::{CancellationToken, Error, FunctionRuntime, GraphFunction, Result, Tensor};

use crate::callable::PreparedRun;
use crate::session::Inner;
use crate::SessionHandle;

/// Lent to the session's kernels through its resource manager. It holds the session weakly:
/// the resources that keep functions (iterators, datasets) live in the session, and a strong
/// reference back would keep a dropped session alive.
pub(crate) struct SessionFunctions {
    pub(crate) inner: Weak<Inner>,
}

fn session(inner: &Weak<Inner>) -> Result<SessionHandle> {
    inner
        .upgrade()
        .map(SessionHandle::from_inner)
        .ok_or_else(|| Error::failed_precondition("Attempted to use a closed Session."))
}

impl FunctionRuntime for SessionFunctions {
    fn instantiate(&self, args: &[String], results: &[String]) -> Result<Arc<dyn GraphFunction>> {
        let sess = session(&self.inner)?;
        let g = sess.graph();
        let find = |names: &[String]| -> Result<Vec<_>> {
            names.iter().map(|n| g.tensor_by_name(n)).collect()
        };
        Ok(Arc::new(SessionFunction {
            inner: self.inner.clone(),
            run: PreparedRun::new(&find(results)?, &[], &find(args)?),
        }))
    }
}

struct SessionFunction {
    inner: Weak<Inner>,
    run: PreparedRun,
}

impl GraphFunction for SessionFunction {
    fn call(
        &self,
        args: &[Tensor],
        cancellation: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        let sess = session(&self.inner)?;
        // Cancelled by the session's close (its parent) or by the caller's token.
        let token = sess.close_token().child();
        let _link = {
            let t = token.clone();
            let caller = cancellation.clone();
            cancellation.register(move || {
                t.cancel(
                    caller
                        .error()
                        .unwrap_or_else(|| Error::cancelled("The function call was cancelled")),
                )
            })
        };
        if let Some(e) = cancellation.error() {
            return Err(e);
        }
        self.run.call_with(&sess, args, Some(token), deadline)
    }
}
