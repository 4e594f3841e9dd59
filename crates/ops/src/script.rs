//! Script ops: Rust closures run as graph ops, TensorFlow's `tf.compat.v1.py_func` and
//! `tf.numpy_function` (ops `PyFunc` and `PyFuncStateless`) with the closure in place of the
//! Python function.
//!
//! As in TensorFlow, the op names its function by a `token` attr (`pyfunc_0`, `pyfunc_1`, ...)
//! in a process-wide registry, and the graph keeps the function alive: a graph's ops find
//! their functions for as long as the graph exists, in any session of this process (a
//! GraphDef written elsewhere carries only the token, as TensorFlow's does).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Weak};

use parking_lot::Mutex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, DType, Error, Graph, Kernel, Node, OpContext, OpDef, Operation, Output,
    Result, Tensor,
};

/// The graph collection that holds the functions of a graph's script ops (TensorFlow's
/// `Graph._py_funcs_used_in_graph`).
const KEEP_ALIVE: &str = "_py_funcs_used_in_graph";

/// Registered functions by token, held weakly: their graphs own them.
struct Registry {
    next: u64,
    functions: HashMap<String, Weak<dyn Any + Send + Sync>>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| {
    Mutex::new(Registry {
        next: 0,
        functions: HashMap::new(),
    })
});

/// Registers `function` under a new token (TensorFlow's `FuncRegistry.insert`), kept alive by
/// `g`, and returns the token.
pub(crate) fn register_function<T: Any + Send + Sync>(g: &Graph, function: Arc<T>) -> String {
    let mut r = REGISTRY.lock();
    // Tokens of dropped graphs are forgotten as new ones come.
    r.functions.retain(|_, f| f.strong_count() > 0);
    let token = format!("pyfunc_{}", r.next);
    r.next += 1;
    let any: Arc<dyn Any + Send + Sync> = function.clone();
    r.functions.insert(token.clone(), Arc::downgrade(&any));
    drop(r);
    g.add_object_to_collection(KEEP_ALIVE, function);
    token
}

/// The function registered under `token`, if its graph still exists and it has type `T`.
pub(crate) fn find_function<T: Any + Send + Sync>(token: &str) -> Option<Arc<T>> {
    let f = REGISTRY.lock().functions.get(token)?.upgrade()?;
    f.downcast::<T>().ok()
}

/// TensorFlow's error when a token names no function.
pub(crate) fn not_found(token: &str) -> Error {
    Error::invalid_argument(format!("callback {token} is not found"))
}

/// The signature of a script op's function: the op's inputs in, its outputs out.
type Callback = dyn Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync;

/// A [`Callback`] in a sized box, so the registry can hand it back by type.
struct ScriptFunction(Box<Callback>);

/// `tf.compat.v1.py_func(func, inp, Tout, stateful=True, name=None)` with a Rust closure:
/// an op that calls `func` with its inputs' values and outputs what it returns (op `PyFunc`,
/// or `PyFuncStateless` when not stateful). Each returned tensor must have its `Tout` dtype
/// (InvalidArgument "0-th value returned by pyfunc_3 is double, but expects float"), and their
/// number must be `Tout`'s; an error `func` returns fails the run as it is. Outputs have
/// unknown shapes, as in TensorFlow.
///
/// ```
/// use weir_graph::{DType, Graph, Tensor};
/// use weir_ops::{array::constant, script::PyFunc};
///
/// let g = Graph::new();
/// let x = constant(&g, [1.0f32, 2.0])?;
/// let doubled = PyFunc::new(|args: &[Tensor]| {
///     let v: Vec<f32> = args[0].as_slice::<f32>()?.iter().map(|a| a * 2.0).collect();
///     Ok(vec![Tensor::from(v)])
/// })
/// .build(&g, &[x], &[DType::F32])?;
/// assert_eq!(doubled.op_type(), "PyFunc");
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[must_use = "the op is added to the graph by `build`"]
pub struct PyFunc {
    function: Arc<ScriptFunction>,
    stateful: bool,
    name: Option<String>,
}

impl PyFunc {
    /// A stateful op calling `func` (TensorFlow's default).
    pub fn new(func: impl Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static) -> PyFunc {
        PyFunc {
            function: Arc::new(ScriptFunction(Box::new(func))),
            stateful: true,
            name: None,
        }
    }

    /// `stateful`: false makes it `PyFuncStateless`, for a function whose outputs depend only
    /// on its inputs.
    pub fn stateful(mut self, stateful: bool) -> PyFunc {
        self.stateful = stateful;
        self
    }

    /// The op's name.
    pub fn name(mut self, name: &str) -> PyFunc {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the op to `g` with inputs `inp` and outputs of dtypes `tout` (none: an op to run
    /// as a target).
    pub fn build(self, g: &Graph, inp: &[Output], tout: &[DType]) -> Result<Operation> {
        for i in inp {
            if !i.graph().ptr_eq(g) {
                return Err(Error::invalid_argument(format!(
                    "Tensor {} must be from the same graph as the py_func.",
                    i.name()
                )));
            }
        }
        let token = register_function(g, self.function);
        let op = if self.stateful {
            "PyFunc"
        } else {
            "PyFuncStateless"
        };
        crate::new_op(g, op)
            .maybe_name(self.name.as_deref())
            .inputs(inp)
            .attr("token", token)
            .attr("Tin", inp.iter().map(Output::dtype).collect::<Vec<_>>())
            .attr("Tout", tout.to_vec())
            .build()
    }
}

/// `tf.compat.v1.py_func(func, inp, Tout)`: [`PyFunc`]'s stateful op, its outputs.
///
/// ```
/// use weir_graph::{DType, Graph, Tensor};
/// use weir_ops::{array::constant, script::py_func};
///
/// let g = Graph::new();
/// let words = constant(&g, ["a", "bb"])?;
/// let lengths = py_func(
///     &g,
///     |args: &[Tensor]| {
///         let n: Vec<i64> = args[0].to_strings()?.iter().map(|s| s.len() as i64).collect();
///         Ok(vec![Tensor::from(n)])
///     },
///     &[words],
///     &[DType::I64],
/// )?;
/// assert_eq!(lengths[0].dtype(), DType::I64);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn py_func(
    g: &Graph,
    func: impl Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
    inp: &[Output],
    tout: &[DType],
) -> Result<Vec<Output>> {
    Ok(PyFunc::new(func).build(g, inp, tout)?.outputs())
}

/// `tf.numpy_function(func, inp, Tout, stateful=True)`: the same op as [`py_func`].
pub fn numpy_function(
    g: &Graph,
    func: impl Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
    inp: &[Output],
    tout: &[DType],
) -> Result<Vec<Output>> {
    py_func(g, func, inp, tout)
}

struct PyFuncKernel {
    token: String,
    /// Held weakly, as the registry does: the graph owns the function.
    function: Option<Weak<ScriptFunction>>,
    tout: Vec<DType>,
}

impl Kernel for PyFuncKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let function = self
            .function
            .as_ref()
            .and_then(Weak::upgrade)
            .ok_or_else(|| not_found(&self.token))?;
        let args: Vec<Tensor> = (0..ctx.num_inputs())
            .map(|i| ctx.input(i).clone())
            .collect();
        let out = (function.0)(&args)?;
        if out.len() != self.tout.len() {
            return Err(Error::invalid_argument(format!(
                "{} returns {} values, but expects to see {} values.",
                self.token,
                out.len(),
                self.tout.len()
            )));
        }
        for (i, (t, want)) in out.iter().zip(&self.tout).enumerate() {
            if t.dtype() != *want {
                return Err(Error::invalid_argument(format!(
                    "{i}-th value returned by {} is {}, but expects {}",
                    self.token,
                    t.dtype().name(),
                    want.name()
                )));
            }
        }
        for (i, t) in out.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let token: String = node.attr("token")?;
    let function = find_function::<ScriptFunction>(&token).map(|f| Arc::downgrade(&f));
    Ok(Box::new(PyFuncKernel {
        token,
        function,
        tout: node.attr("Tout")?,
    }))
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    for (op, stateful) in [("PyFunc", true), ("PyFuncStateless", false)] {
        let mut def = OpDef::new(op)
            .input("input", ArgType::List("Tin"))
            .output("output", ArgType::List("Tout"))
            .attr("token", AttrKind::Str, None)
            .attr("Tin", AttrKind::Types, None)
            .attr("Tout", AttrKind::Types, None);
        if stateful {
            def = def.stateful();
        }
        register_op(def);
        register_kernel(op, make);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_kept_while_their_graph_lives() {
        let token = {
            let g = Graph::new();
            let token = register_function(&g, Arc::new(7u32));
            assert_eq!(find_function::<u32>(&token).as_deref(), Some(&7));
            assert!(find_function::<String>(&token).is_none());
            token
        };
        assert!(find_function::<u32>(&token).is_none());
        assert_eq!(
            not_found(&token).message(),
            format!("callback {token} is not found")
        );
    }
}
