//! The loss collections: `tf.compat.v1.losses.add_loss`, `get_losses`,
//! `get_regularization_losses`, `get_regularization_loss` and `get_total_loss`.

use weir_graph::{graph_keys, CollectionItem, Error, Graph, Output, Result};
use weir_ops::array::constant;

use super::named_op;

/// `tf.compat.v1.losses.add_loss(loss, loss_collection)`: appends `loss` to the collection
/// (`"losses"` by TensorFlow's default); nothing when the collection is `None`.
pub fn add_loss(loss: &Output, loss_collection: Option<&str>) -> Result<()> {
    match loss_collection {
        Some(key) if !key.is_empty() => loss.graph().add_to_collection(key, loss.clone()),
        _ => Ok(()),
    }
}

/// The tensors of collection `key` whose names start with `scope` (all when `None`):
/// `tf.get_collection(key, scope)`, whose `re.match` is a prefix match for plain names.
fn tensors(graph: &Graph, key: &str, scope: Option<&str>) -> Vec<Output> {
    graph
        .get_collection(key)
        .into_iter()
        .filter_map(|item| match item {
            CollectionItem::Output(o) => Some(o),
            _ => None,
        })
        .filter(|o| scope.is_none_or(|s| o.name().starts_with(s)))
        .collect()
}

/// `tf.compat.v1.losses.get_losses(scope, loss_collection)`: the tensors of
/// `loss_collection` (TensorFlow's default `"losses"`) whose names start with `scope`.
pub fn get_losses(graph: &Graph, scope: Option<&str>, loss_collection: &str) -> Vec<Output> {
    tensors(graph, loss_collection, scope)
}

/// `tf.compat.v1.losses.get_regularization_losses(scope)`: the `"regularization_losses"`
/// collection (filled by regularizers), filtered by name prefix.
pub fn get_regularization_losses(graph: &Graph, scope: Option<&str>) -> Vec<Output> {
    tensors(graph, graph_keys::REGULARIZATION_LOSSES, scope)
}

/// `tf.compat.v1.losses.get_regularization_loss(scope)`: the sum of the regularization
/// losses, an `AddN` named `total_regularization_loss`, or a float32 constant 0.0 when there
/// are none.
pub fn get_regularization_loss(graph: &Graph, scope: Option<&str>) -> Result<Output> {
    let losses = get_regularization_losses(graph, scope);
    if losses.is_empty() {
        return constant(graph, 0.0f32);
    }
    add_n_named(graph, &losses, "total_regularization_loss")
}

/// `tf.compat.v1.losses.get_total_loss(add_regularization_losses)`: the sum of the `"losses"`
/// collection and, when asked, of the regularization losses, named `total_loss`.
/// InvalidArgument (TensorFlow's ValueError) when there is nothing to add.
pub fn get_total_loss(graph: &Graph, add_regularization_losses: bool) -> Result<Output> {
    GetTotalLoss::new()
        .add_regularization_losses(add_regularization_losses)
        .build(graph)
}

/// The options of `tf.compat.v1.losses.get_total_loss(add_regularization_losses=True,
/// name="total_loss", scope=None)`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::array::constant;
/// use weir_train::losses::{absolute_difference, GetTotalLoss};
/// let g = Graph::new();
/// let l = constant(&g, [1.0f32, 2.0])?;
/// absolute_difference(&l, &l)?;
/// let total = GetTotalLoss::new().name("objective").build(&g)?;
/// assert_eq!(total.name(), "objective:0");
/// assert!(GetTotalLoss::new().scope("tower_1").build(&g).is_err()); // no losses there
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GetTotalLoss {
    add_regularization_losses: bool,
    name: String,
    scope: Option<String>,
}

impl Default for GetTotalLoss {
    fn default() -> GetTotalLoss {
        GetTotalLoss::new()
    }
}

impl GetTotalLoss {
    /// TensorFlow's defaults: regularization losses included, named `total_loss`, any scope.
    pub fn new() -> GetTotalLoss {
        GetTotalLoss {
            add_regularization_losses: true,
            name: "total_loss".to_string(),
            scope: None,
        }
    }

    /// Whether the `"regularization_losses"` collection is added too (default true).
    pub fn add_regularization_losses(mut self, add: bool) -> GetTotalLoss {
        self.add_regularization_losses = add;
        self
    }

    /// The sum's name (default `total_loss`).
    pub fn name(mut self, name: &str) -> GetTotalLoss {
        self.name = name.to_string();
        self
    }

    /// Only the losses whose names start with `scope`.
    pub fn scope(mut self, scope: &str) -> GetTotalLoss {
        self.scope = Some(scope.to_string());
        self
    }

    /// Adds the sum.
    pub fn build(self, graph: &Graph) -> Result<Output> {
        let scope = self.scope.as_deref();
        let mut losses = get_losses(graph, scope, graph_keys::LOSSES);
        if self.add_regularization_losses {
            losses.extend(get_regularization_losses(graph, scope));
        }
        add_n_named(graph, &losses, &self.name)
    }
}

/// `math_ops.add_n(inputs, name)`: an `Identity` for one input, else `AddN`; TensorFlow's
/// ValueError (as InvalidArgument) for none or for inputs of different dtypes or shapes.
fn add_n_named(graph: &Graph, inputs: &[Output], name: &str) -> Result<Output> {
    let bad = || {
        Error::invalid_argument(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape.",
        )
    };
    let first = inputs.first().ok_or_else(bad)?;
    if inputs
        .iter()
        .any(|t| t.dtype() != first.dtype() || !t.shape().is_compatible_with(&first.shape()))
    {
        return Err(bad());
    }
    let refs: Vec<&Output> = inputs.iter().collect();
    if inputs.len() == 1 {
        return named_op(graph, "Identity", &refs, Some(name));
    }
    named_op(graph, "AddN", &refs, Some(name))
}
