//! `BasicRNNCell` and `GRUCell` (TensorFlow's `rnn_cell_impl`), with its variable names and
//! initial values.

use std::sync::Arc;

use weir_graph::{Output, Result};
use weir_ops::array::{concat, split};
use weir_ops::init_ops::Initializer;
use weir_ops::math::{add, matmul, mul, sub, tanh};
use weir_ops::nn::{bias_add, sigmoid};

use super::cell::{check_state, input_depth, CellVars, RnnCell, VarSpec};

/// An activation function of a cell (`tf.tanh` by default).
pub type Activation = Arc<dyn Fn(&Output) -> Result<Output> + Send + Sync>;

pub(crate) fn default_activation() -> Activation {
    Arc::new(|x: &Output| tanh(x))
}

/// `tf.nn.rnn_cell.BasicRNNCell(num_units, activation=tanh, name="basic_rnn_cell")`:
/// `h = activation([x, h] W + b)`, with `kernel` `[depth + units, units]` (the variable
/// scope's initializer) and `bias` `[units]` (zeros).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{BasicRnnCell, RnnCell};
/// let g = Graph::new();
/// let cell = BasicRnnCell::new(4);
/// let (out, state) = cell.call(&zeros(&g, DType::F32, &[2, 3])?, &[zeros(&g, DType::F32, &[2, 4])?])?;
/// assert_eq!(out.shape().python_str(), "(2, 4)");
/// assert_eq!(state.len(), 1);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct BasicRnnCell {
    units: usize,
    activation: Activation,
    vars: CellVars,
}

impl BasicRnnCell {
    /// A cell of `num_units` units named `basic_rnn_cell`.
    pub fn new(num_units: usize) -> BasicRnnCell {
        BasicRnnCell::named(num_units, "basic_rnn_cell")
    }

    /// A cell whose variables go in the scope `name`.
    pub fn named(num_units: usize, name: &str) -> BasicRnnCell {
        BasicRnnCell {
            units: num_units,
            activation: default_activation(),
            vars: CellVars::new(name),
        }
    }

    /// Another activation than `tanh`.
    pub fn activation(mut self, f: Activation) -> BasicRnnCell {
        self.activation = f;
        self
    }
}

impl RnnCell for BasicRnnCell {
    fn state_size(&self) -> Vec<usize> {
        vec![self.units]
    }

    fn output_size(&self) -> usize {
        self.units
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, 1, "BasicRNNCell")?;
        let (g, depth, n) = (inputs.graph(), input_depth(inputs)?, self.units);
        let v = self.vars.get(g, inputs.dtype(), || {
            vec![
                VarSpec {
                    name: "kernel",
                    shape: vec![depth + n, n],
                    initializer: None,
                },
                VarSpec {
                    name: "bias",
                    shape: vec![n],
                    initializer: Some(Initializer::Zeros),
                },
            ]
        })?;
        let gates = bias_add(
            &matmul(&concat(&[inputs.clone(), state[0].clone()], 1)?, &v[0])?,
            &v[1],
        )?;
        let h = (self.activation)(&gates)?;
        Ok((h.clone(), vec![h]))
    }
}

/// `tf.nn.rnn_cell.GRUCell(num_units, activation=tanh, kernel_initializer=None,
/// bias_initializer=None, name="gru_cell")`: reset and update gates `r, u = sigmoid([x, h]
/// W_g + b_g)`, candidate `c = activation([x, r * h] W_c + b_c)`, `h' = u * h + (1 - u) * c`.
/// Variables `gates/kernel`, `gates/bias` (ones), `candidate/kernel`, `candidate/bias` (zeros).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{GruCell, RnnCell};
/// let g = Graph::new();
/// let (out, _) = GruCell::new(2).call(&zeros(&g, DType::F32, &[1, 3])?, &[zeros(&g, DType::F32, &[1, 2])?])?;
/// assert_eq!(out.shape().python_str(), "(1, 2)");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct GruCell {
    units: usize,
    activation: Activation,
    kernel_initializer: Option<Initializer>,
    bias_initializer: Option<Initializer>,
    vars: CellVars,
}

impl GruCell {
    /// A cell of `num_units` units named `gru_cell`.
    pub fn new(num_units: usize) -> GruCell {
        GruCell::named(num_units, "gru_cell")
    }

    /// A cell whose variables go in the scope `name`.
    pub fn named(num_units: usize, name: &str) -> GruCell {
        GruCell {
            units: num_units,
            activation: default_activation(),
            kernel_initializer: None,
            bias_initializer: None,
            vars: CellVars::new(name),
        }
    }

    /// Another activation than `tanh` for the candidate.
    pub fn activation(mut self, f: Activation) -> GruCell {
        self.activation = f;
        self
    }

    /// The initializer of both kernels (default: the variable scope's).
    pub fn kernel_initializer(mut self, init: Initializer) -> GruCell {
        self.kernel_initializer = Some(init);
        self
    }

    /// The initializer of both biases (default: ones for the gates, zeros for the candidate).
    pub fn bias_initializer(mut self, init: Initializer) -> GruCell {
        self.bias_initializer = Some(init);
        self
    }
}

impl RnnCell for GruCell {
    fn state_size(&self) -> Vec<usize> {
        vec![self.units]
    }

    fn output_size(&self) -> usize {
        self.units
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, 1, "GRUCell")?;
        let (g, depth, n) = (inputs.graph(), input_depth(inputs)?, self.units);
        let v = self.vars.get(g, inputs.dtype(), || {
            let bias =
                |default: Initializer| Some(self.bias_initializer.clone().unwrap_or(default));
            vec![
                VarSpec {
                    name: "gates/kernel",
                    shape: vec![depth + n, 2 * n],
                    initializer: self.kernel_initializer.clone(),
                },
                VarSpec {
                    name: "gates/bias",
                    shape: vec![2 * n],
                    initializer: bias(Initializer::Ones),
                },
                VarSpec {
                    name: "candidate/kernel",
                    shape: vec![depth + n, n],
                    initializer: self.kernel_initializer.clone(),
                },
                VarSpec {
                    name: "candidate/bias",
                    shape: vec![n],
                    initializer: bias(Initializer::Zeros),
                },
            ]
        })?;
        let h = &state[0];
        let gates = bias_add(
            &matmul(&concat(&[inputs.clone(), h.clone()], 1)?, &v[0])?,
            &v[1],
        )?;
        let ru = split(&sigmoid(&gates)?, 2, 1)?;
        let (r, u) = (&ru[0], &ru[1]);
        let candidate = bias_add(
            &matmul(&concat(&[inputs.clone(), mul(r, h)?], 1)?, &v[2])?,
            &v[3],
        )?;
        let c = (self.activation)(&candidate)?;
        let one = weir_ops::math::cast(&weir_ops::array::constant(g, 1.0f32)?, u.dtype())?;
        let new_h = add(&mul(u, h)?, &mul(&sub(&one, u)?, &c)?)?;
        Ok((new_h.clone(), vec![new_h]))
    }
}
