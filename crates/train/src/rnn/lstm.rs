//! `BasicLSTMCell` and `LSTMCell` (TensorFlow's `rnn_cell_impl`), with their variable names
//! and initial values. Their state is `[c, h]` (TensorFlow's `LSTMStateTuple(c, h)`).

use weir_graph::{Output, Result};
use weir_ops::array::{concat, constant, split};
use weir_ops::init_ops::Initializer;
use weir_ops::math::{add, cast, clip_by_value, matmul, mul};
use weir_ops::nn::{bias_add, sigmoid};

use super::basic::{default_activation, Activation};
use super::cell::{check_state, input_depth, CellVars, RnnCell, VarSpec};

/// A scalar of `like`'s dtype.
fn scalar(like: &Output, v: f32) -> Result<Output> {
    cast(&constant(like.graph(), v)?, like.dtype())
}

/// `tf.nn.rnn_cell.BasicLSTMCell(num_units, forget_bias=1.0, activation=tanh,
/// name="basic_lstm_cell")`: gates `i, j, f, o` from `[x, h] W + b` (`kernel`
/// `[depth + units, 4 units]`, `bias` zeros), `c' = c * sigmoid(f + forget_bias) + sigmoid(i) *
/// activation(j)`, `h' = activation(c') * sigmoid(o)`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{BasicLstmCell, RnnCell};
/// let g = Graph::new();
/// let cell = BasicLstmCell::new(3);
/// let state = [zeros(&g, DType::F32, &[2, 3])?, zeros(&g, DType::F32, &[2, 3])?]; // c, h
/// let (h, next) = cell.call(&zeros(&g, DType::F32, &[2, 5])?, &state)?;
/// assert_eq!((h.shape().python_str(), next.len()), ("(2, 3)".to_string(), 2));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct BasicLstmCell {
    units: usize,
    forget_bias: f32,
    activation: Activation,
    vars: CellVars,
}

impl BasicLstmCell {
    /// A cell of `num_units` units named `basic_lstm_cell`.
    pub fn new(num_units: usize) -> BasicLstmCell {
        BasicLstmCell::named(num_units, "basic_lstm_cell")
    }

    /// A cell whose variables go in the scope `name`.
    pub fn named(num_units: usize, name: &str) -> BasicLstmCell {
        BasicLstmCell {
            units: num_units,
            forget_bias: 1.0,
            activation: default_activation(),
            vars: CellVars::new(name),
        }
    }

    /// What the forget gate's input is offset by (1.0 by default).
    pub fn forget_bias(mut self, b: f32) -> BasicLstmCell {
        self.forget_bias = b;
        self
    }

    /// Another activation than `tanh`.
    pub fn activation(mut self, f: Activation) -> BasicLstmCell {
        self.activation = f;
        self
    }
}

impl RnnCell for BasicLstmCell {
    fn state_size(&self) -> Vec<usize> {
        vec![self.units, self.units]
    }

    fn output_size(&self) -> usize {
        self.units
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, 2, "BasicLSTMCell")?;
        let (g, depth, n) = (inputs.graph(), input_depth(inputs)?, self.units);
        let v = self.vars.get(g, inputs.dtype(), || {
            vec![
                VarSpec {
                    name: "kernel",
                    shape: vec![depth + n, 4 * n],
                    initializer: None,
                },
                VarSpec {
                    name: "bias",
                    shape: vec![4 * n],
                    initializer: Some(Initializer::Zeros),
                },
            ]
        })?;
        let (c, h) = (&state[0], &state[1]);
        let gates = bias_add(
            &matmul(&concat(&[inputs.clone(), h.clone()], 1)?, &v[0])?,
            &v[1],
        )?;
        let ijfo = split(&gates, 4, 1)?;
        let forget = sigmoid(&add(&ijfo[2], &scalar(c, self.forget_bias)?)?)?;
        let new_c = add(
            &mul(c, &forget)?,
            &mul(&sigmoid(&ijfo[0])?, &(self.activation)(&ijfo[1])?)?,
        )?;
        let new_h = mul(&(self.activation)(&new_c)?, &sigmoid(&ijfo[3])?)?;
        Ok((new_h.clone(), vec![new_c, new_h]))
    }
}

/// `tf.nn.rnn_cell.LSTMCell(num_units, use_peepholes=False, cell_clip=None, initializer=None,
/// num_proj=None, proj_clip=None, forget_bias=1.0, activation=tanh, name="lstm_cell")`: the
/// LSTM of [`BasicLstmCell`], with optional peepholes (`w_f_diag`, `w_i_diag`, `w_o_diag`), a
/// clipped cell state, and a projection of the output (`projection/kernel`).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{LstmCell, RnnCell};
/// let g = Graph::new();
/// let cell = LstmCell::new(3).use_peepholes(true).num_proj(2);
/// assert_eq!((cell.state_size(), cell.output_size()), (vec![3, 2], 2));
/// let state = [zeros(&g, DType::F32, &[1, 3])?, zeros(&g, DType::F32, &[1, 2])?];
/// let (m, _) = cell.call(&zeros(&g, DType::F32, &[1, 4])?, &state)?;
/// assert_eq!(m.shape().python_str(), "(1, 2)");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct LstmCell {
    units: usize,
    use_peepholes: bool,
    cell_clip: Option<f32>,
    initializer: Option<Initializer>,
    num_proj: Option<usize>,
    proj_clip: Option<f32>,
    forget_bias: f32,
    activation: Activation,
    vars: CellVars,
}

impl LstmCell {
    /// A cell of `num_units` units named `lstm_cell`.
    pub fn new(num_units: usize) -> LstmCell {
        LstmCell::named(num_units, "lstm_cell")
    }

    /// A cell whose variables go in the scope `name`.
    pub fn named(num_units: usize, name: &str) -> LstmCell {
        LstmCell {
            units: num_units,
            use_peepholes: false,
            cell_clip: None,
            initializer: None,
            num_proj: None,
            proj_clip: None,
            forget_bias: 1.0,
            activation: default_activation(),
            vars: CellVars::new(name),
        }
    }

    /// Diagonal peephole connections from the cell state to the gates.
    pub fn use_peepholes(mut self, on: bool) -> LstmCell {
        self.use_peepholes = on;
        self
    }

    /// Clips the cell state to `[-clip, clip]`.
    pub fn cell_clip(mut self, clip: f32) -> LstmCell {
        self.cell_clip = Some(clip);
        self
    }

    /// The initializer of the kernels and peepholes (default: the variable scope's).
    pub fn initializer(mut self, init: Initializer) -> LstmCell {
        self.initializer = Some(init);
        self
    }

    /// Projects the output to `n` units (the state's `h` part then has `n` units).
    pub fn num_proj(mut self, n: usize) -> LstmCell {
        self.num_proj = Some(n);
        self
    }

    /// Clips the projected output to `[-clip, clip]`.
    pub fn proj_clip(mut self, clip: f32) -> LstmCell {
        self.proj_clip = Some(clip);
        self
    }

    /// What the forget gate's input is offset by (1.0 by default).
    pub fn forget_bias(mut self, b: f32) -> LstmCell {
        self.forget_bias = b;
        self
    }

    /// Another activation than `tanh`.
    pub fn activation(mut self, f: Activation) -> LstmCell {
        self.activation = f;
        self
    }
}

impl RnnCell for LstmCell {
    fn state_size(&self) -> Vec<usize> {
        vec![self.units, self.num_proj.unwrap_or(self.units)]
    }

    fn output_size(&self) -> usize {
        self.num_proj.unwrap_or(self.units)
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, 2, "LSTMCell")?;
        let (g, depth, n) = (inputs.graph(), input_depth(inputs)?, self.units);
        let h_depth = self.output_size();
        let v = self.vars.get(g, inputs.dtype(), || {
            let mut specs = vec![
                VarSpec {
                    name: "kernel",
                    shape: vec![depth + h_depth, 4 * n],
                    initializer: self.initializer.clone(),
                },
                VarSpec {
                    name: "bias",
                    shape: vec![4 * n],
                    initializer: Some(Initializer::Zeros),
                },
            ];
            if self.use_peepholes {
                for name in ["w_f_diag", "w_i_diag", "w_o_diag"] {
                    specs.push(VarSpec {
                        name,
                        shape: vec![n],
                        initializer: self.initializer.clone(),
                    });
                }
            }
            if let Some(p) = self.num_proj {
                specs.push(VarSpec {
                    name: "projection/kernel",
                    shape: vec![n, p],
                    initializer: self.initializer.clone(),
                });
            }
            specs
        })?;
        let (c_prev, m_prev) = (&state[0], &state[1]);
        let lstm = bias_add(
            &matmul(&concat(&[inputs.clone(), m_prev.clone()], 1)?, &v[0])?,
            &v[1],
        )?;
        let ijfo = split(&lstm, 4, 1)?;
        let (i, j, f, o) = (&ijfo[0], &ijfo[1], &ijfo[2], &ijfo[3]);
        let forget_bias = scalar(c_prev, self.forget_bias)?;
        let mut c = if self.use_peepholes {
            add(
                &mul(
                    &sigmoid(&add(&add(f, &forget_bias)?, &mul(&v[2], c_prev)?)?)?,
                    c_prev,
                )?,
                &mul(
                    &sigmoid(&add(i, &mul(&v[3], c_prev)?)?)?,
                    &(self.activation)(j)?,
                )?,
            )?
        } else {
            add(
                &mul(&sigmoid(&add(f, &forget_bias)?)?, c_prev)?,
                &mul(&sigmoid(i)?, &(self.activation)(j)?)?,
            )?
        };
        if let Some(clip) = self.cell_clip {
            c = clip_by_value(&c, &scalar(&c, -clip)?, &scalar(&c, clip)?)?;
        }
        let mut m = if self.use_peepholes {
            mul(
                &sigmoid(&add(o, &mul(&v[4], &c)?)?)?,
                &(self.activation)(&c)?,
            )?
        } else {
            mul(&sigmoid(o)?, &(self.activation)(&c)?)?
        };
        if self.num_proj.is_some() {
            let proj = v.last().expect("a projection kernel");
            m = matmul(&m, proj)?;
            if let Some(clip) = self.proj_clip {
                m = clip_by_value(&m, &scalar(&m, -clip)?, &scalar(&m, clip)?)?;
            }
        }
        Ok((m.clone(), vec![c, m]))
    }
}
