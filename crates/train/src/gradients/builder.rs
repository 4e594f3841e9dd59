//! [`Gradients`]: `tf.gradients` with all of its arguments.

use std::collections::HashSet;

use weir_graph::{Error, Output, Result};

use super::{backward, op, register_all};

/// What `tf.gradients` returns for an `x` that no `y` depends on: TensorFlow's
/// `tf.UnconnectedGradients`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnconnectedGradients {
    /// `None` (TensorFlow's default).
    #[default]
    None,
    /// Zeros of the `x`'s shape and dtype.
    Zero,
}

/// `tf.gradients(ys, xs, grad_ys=None, name="gradients", stop_gradients=None,
/// unconnected_gradients=UnconnectedGradients.NONE)`: the derivative of `sum(ys)` with respect
/// to each of `xs`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::{array::constant, math::{add, mul}};
/// # use weir_session::Session;
/// # use weir_train::gradients::{Gradients, UnconnectedGradients};
/// let g = Graph::new();
/// let (a, b) = (constant(&g, 2.0f32)?, constant(&g, 5.0f32)?);
/// let a2 = mul(&a, &a)?;
/// let y = add(&a2, &b)?;
/// // a2 is held constant: y's gradient reaches it, and stops there.
/// let d = Gradients::new()
///     .stop_gradients(&[a2.clone()])
///     .unconnected_gradients(UnconnectedGradients::Zero)
///     .build(&[y], &[a, b, a2])?;
/// let sess = Session::new(&g)?;
/// let got: Vec<f32> = d.iter().map(|t| sess.eval(t.as_ref().unwrap()).unwrap().to_scalar::<f32>().unwrap()).collect();
/// assert_eq!(got, vec![0.0, 1.0, 1.0]);
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Gradients {
    grad_ys: Option<Vec<Output>>,
    stop_gradients: Vec<Output>,
    unconnected: UnconnectedGradients,
    name: Option<String>,
}

impl Gradients {
    /// TensorFlow's defaults: ones as `grad_ys`, no stops, `None` for unconnected `xs`, the
    /// name scope `gradients`.
    pub fn new() -> Gradients {
        Gradients::default()
    }

    /// The gradient flowing into each `y` (one per `y`; default ones of its shape).
    pub fn grad_ys(mut self, grad_ys: &[Output]) -> Gradients {
        self.grad_ys = Some(grad_ys.to_vec());
        self
    }

    /// Tensors held constant: each gets its gradient, but nothing flows on to what made it.
    pub fn stop_gradients(mut self, stops: &[Output]) -> Gradients {
        self.stop_gradients = stops.to_vec();
        self
    }

    /// What an `x` that no `y` depends on gets.
    pub fn unconnected_gradients(mut self, u: UnconnectedGradients) -> Gradients {
        self.unconnected = u;
        self
    }

    /// The name scope of the backward ops (`gradients`).
    pub fn name(mut self, name: &str) -> Gradients {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the backward graph: one gradient per `x`, `None` where no `y` depends on it (or
    /// zeros, with [`UnconnectedGradients::Zero`]) and for integer `xs`.
    pub fn build(self, ys: &[Output], xs: &[Output]) -> Result<Vec<Option<Output>>> {
        register_all();
        weir_ops::register_all_ops();
        let first = ys
            .first()
            .ok_or_else(|| Error::invalid_argument("gradients needs at least one y"))?;
        let g = first.graph().clone();
        let grad_ys = self.grad_ys.as_deref().unwrap_or(&[]);
        for t in ys
            .iter()
            .chain(xs)
            .chain(grad_ys)
            .chain(&self.stop_gradients)
        {
            if !t.graph().ptr_eq(&g) {
                return Err(Error::invalid_argument(format!(
                    "Tensor {} is not from the same graph as {}",
                    t.name(),
                    first.name()
                )));
            }
        }
        let grad_ys = match &self.grad_ys {
            Some(gy) if gy.len() != ys.len() => {
                return Err(Error::invalid_argument(format!(
                    "Passed {} grad_ys for {} ys",
                    gy.len(),
                    ys.len()
                )))
            }
            Some(gy) => gy.iter().cloned().map(Some).collect(),
            None => vec![None; ys.len()],
        };
        let stop: HashSet<usize> = self.stop_gradients.iter().map(Output::node_id).collect();
        let scope = self.name.as_deref().unwrap_or("gradients");
        let grads = backward(&g, ys, xs, grad_ys, &stop, scope)?;
        if self.unconnected == UnconnectedGradients::None {
            return Ok(grads);
        }
        let _scope = g.name_scope(scope);
        grads
            .into_iter()
            .zip(xs)
            .map(|(d, x)| match d {
                Some(d) => Ok(Some(d)),
                None => op(&g, "ZerosLike", &[x], &[]).map(Some),
            })
            .collect()
    }
}
