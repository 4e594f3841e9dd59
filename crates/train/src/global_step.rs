//! The global step counter (`tf.train.get_or_create_global_step`).

use weir_graph::{graph_keys, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::state::Variable;
use weir_session::SessionHandle;

/// `tf.train.get_global_step()`: the variable in the `GLOBAL_STEP` collection, if any.
pub fn get_global_step(graph: &Graph) -> Result<Option<Variable>> {
    let vars = weir_ops::state::collection_variables(graph, graph_keys::GLOBAL_STEP)?;
    Ok(vars.into_iter().next())
}

/// `tf.train.get_or_create_global_step()`: an int64 scalar variable `global_step`, in
/// `GLOBAL_VARIABLES` and `GLOBAL_STEP`, not trainable, starting at 0.
///
/// ```
/// # use weir_graph::Graph;
/// let g = Graph::new();
/// let step = weir_train::get_or_create_global_step(&g)?;
/// assert_eq!(step.value().name(), "global_step/read:0");
/// let again = weir_train::get_or_create_global_step(&g)?;
/// assert_eq!(again.name(), "global_step");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn get_or_create_global_step(graph: &Graph) -> Result<Variable> {
    if let Some(v) = get_global_step(graph)? {
        return Ok(v);
    }
    let zero = {
        let _scope = graph.name_scope("global_step/Initializer");
        weir_ops::array::constant_named(graph, Tensor::scalar(0i64), "zeros")?
    };
    Variable::builder(zero)
        .name("global_step")
        .trainable(false)
        .collections(&[graph_keys::GLOBAL_VARIABLES, graph_keys::GLOBAL_STEP])
        .build()
}

/// A fetched global step as an integer (`training_util.global_step`): TensorFlow allows
/// int32 and int64 steps.
pub(crate) fn step_of(t: &Tensor) -> Result<i64> {
    match t.dtype() {
        DType::I64 => t.to_scalar::<i64>(),
        DType::I32 => Ok(i64::from(t.to_scalar::<i32>()?)),
        other => Err(Error::invalid_argument(format!(
            "The global step is {other:?}, not an integer"
        ))),
    }
}

/// `training_util.global_step(sess, global_step_tensor)`: the step's current value.
pub(crate) fn read_step(session: &SessionHandle, step: &Output) -> Result<i64> {
    step_of(&session.eval(step)?)
}
