//! `tf.contrib.rnn.LSTMBlockCell` and `tf.contrib.rnn.GRUBlockCell`: the LSTM and GRU cells
//! whose step is one fused op (`LSTMBlockCell`, `GRUBlockCell`), with contrib's variable names
//! and initial values.

use weir_graph::{Output, Result};
use weir_ops::array::zeros;
use weir_ops::init_ops::Initializer;
use weir_ops::nn::rnn_block;

use super::cell::{check_state, input_depth, CellVars, RnnCell, VarSpec};

/// `tf.contrib.rnn.LSTMBlockCell(num_units, forget_bias=1.0, cell_clip=None,
/// use_peephole=False, name="lstm_cell")`: an LSTM step as one `LSTMBlockCell` op, with
/// `kernel` `[depth + units, 4 units]` (gates i, c, f, o), `bias` (zeros) and, with
/// peepholes, `w_i_diag`, `w_f_diag`, `w_o_diag`. Its state is `[c, h]`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{LstmBlockCell, RnnCell};
/// let g = Graph::new();
/// let cell = LstmBlockCell::new(3);
/// let state = [zeros(&g, DType::F32, &[2, 3])?, zeros(&g, DType::F32, &[2, 3])?];
/// let (h, next) = cell.call(&zeros(&g, DType::F32, &[2, 5])?, &state)?;
/// assert_eq!((h.shape().python_str(), next.len()), ("(2, 3)".to_string(), 2));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct LstmBlockCell {
    units: usize,
    forget_bias: f32,
    cell_clip: Option<f32>,
    use_peephole: bool,
    vars: CellVars,
}

impl LstmBlockCell {
    /// A cell of `num_units` units named `lstm_cell`.
    pub fn new(num_units: usize) -> LstmBlockCell {
        LstmBlockCell::named(num_units, "lstm_cell")
    }

    /// A cell whose variables go in the scope `name`.
    pub fn named(num_units: usize, name: &str) -> LstmBlockCell {
        LstmBlockCell {
            units: num_units,
            forget_bias: 1.0,
            cell_clip: None,
            use_peephole: false,
            vars: CellVars::new(name),
        }
    }

    /// What the forget gate's input is offset by (1.0 by default).
    pub fn forget_bias(mut self, b: f32) -> LstmBlockCell {
        self.forget_bias = b;
        self
    }

    /// Clamps the cell state to `[-c, c]` (by default it is not clipped).
    pub fn cell_clip(mut self, c: f32) -> LstmBlockCell {
        self.cell_clip = Some(c);
        self
    }

    /// Whether the gates see the cell state through diagonal peephole weights.
    pub fn use_peephole(mut self, p: bool) -> LstmBlockCell {
        self.use_peephole = p;
        self
    }
}

impl RnnCell for LstmBlockCell {
    fn state_size(&self) -> Vec<usize> {
        vec![self.units, self.units]
    }

    fn output_size(&self) -> usize {
        self.units
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, 2, "LSTMBlockCell")?;
        let (g, depth, n) = (inputs.graph(), input_depth(inputs)?, self.units);
        let v = self.vars.get(g, inputs.dtype(), || {
            let mut specs = vec![
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
            ];
            if self.use_peephole {
                for name in ["w_i_diag", "w_f_diag", "w_o_diag"] {
                    specs.push(VarSpec {
                        name,
                        shape: vec![n],
                        initializer: None,
                    });
                }
            }
            specs
        })?;
        let (wci, wcf, wco) = if self.use_peephole {
            (v[2].clone(), v[3].clone(), v[4].clone())
        } else {
            let z = zeros(g, inputs.dtype(), &[n])?;
            (z.clone(), z.clone(), z)
        };
        let out = rnn_block::LstmBlockCell::new()
            .forget_bias(self.forget_bias)
            .cell_clip(self.cell_clip.unwrap_or(-1.0))
            .use_peephole(self.use_peephole)
            .build(inputs, &state[0], &state[1], &v[0], &wci, &wcf, &wco, &v[1])?;
        Ok((out.h.clone(), vec![out.cs, out.h]))
    }
}

/// `tf.contrib.rnn.GRUBlockCell(num_units, name="gru_cell")`: a GRU step as one
/// `GRUBlockCell` op, with `w_ru` `[depth + units, 2 units]`, `b_ru` (ones), `w_c`
/// `[depth + units, units]` and `b_c` (zeros). Its state is `[h]`.
pub struct GruBlockCell {
    units: usize,
    vars: CellVars,
}

impl GruBlockCell {
    /// A cell of `num_units` units named `gru_cell`.
    pub fn new(num_units: usize) -> GruBlockCell {
        GruBlockCell::named(num_units, "gru_cell")
    }

    /// A cell whose variables go in the scope `name`.
    pub fn named(num_units: usize, name: &str) -> GruBlockCell {
        GruBlockCell {
            units: num_units,
            vars: CellVars::new(name),
        }
    }
}

impl RnnCell for GruBlockCell {
    fn state_size(&self) -> Vec<usize> {
        vec![self.units]
    }

    fn output_size(&self) -> usize {
        self.units
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, 1, "GRUBlockCell")?;
        let (g, depth, n) = (inputs.graph(), input_depth(inputs)?, self.units);
        let v = self.vars.get(g, inputs.dtype(), || {
            let spec = |name, shape, initializer| VarSpec {
                name,
                shape,
                initializer,
            };
            vec![
                spec("w_ru", vec![depth + n, 2 * n], None),
                spec("b_ru", vec![2 * n], Some(Initializer::Ones)),
                spec("w_c", vec![depth + n, n], None),
                spec("b_c", vec![n], Some(Initializer::Zeros)),
            ]
        })?;
        let out = rnn_block::gru_block_cell(inputs, &state[0], &v[0], &v[2], &v[1], &v[3])?;
        Ok((out.h.clone(), vec![out.h]))
    }
}
