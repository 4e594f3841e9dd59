//! What every recurrent cell is: TensorFlow's `tf.nn.rnn_cell.RNNCell`, and the variables a
//! cell makes on its first call.

use parking_lot::Mutex;
use weir_graph::{DType, Error, Graph, Output, Result};
use weir_ops::array::{constant, fill, stack};
use weir_ops::init_ops::Initializer;

use crate::variable_scope::{GetVariable, VariableScope};

/// A recurrent cell (TensorFlow's `RNNCell`): one step maps the inputs `[batch, depth]` and the
/// state to an output `[batch, output_size]` and the next state.
///
/// A state is a list of tensors `[batch, size]`, one per [`state_size`](Self::state_size)
/// entry: one for a plain or GRU cell, `[c, h]` for an LSTM (TensorFlow's `LSTMStateTuple`),
/// each cell's in turn for a [`MultiRnnCell`](super::MultiRnnCell).
pub trait RnnCell: Send + Sync {
    /// The size of each part of the state (`cell.state_size`, flattened).
    fn state_size(&self) -> Vec<usize>;

    /// The size of the output (`cell.output_size`).
    fn output_size(&self) -> usize;

    /// One step (`cell(inputs, state)`): the output and the next state. The first call makes
    /// the cell's variables in the current variable scope; later calls reuse them.
    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)>;

    /// The state of zeros for `batch_size` rows (`cell.zero_state(batch_size, dtype)`).
    fn zero_state(&self, batch_size: &BatchSize, dtype: DType) -> Result<Vec<Output>> {
        self.state_size()
            .into_iter()
            .map(|n| batch_size.zeros(n, dtype))
            .collect()
    }
}

/// How many rows a batch has: known when the graph is built, or a scalar int32 tensor.
#[derive(Clone, Debug)]
pub enum BatchSize {
    /// A size known when building.
    Static(Graph, usize),
    /// A size known when running.
    Dynamic(Output),
}

impl BatchSize {
    /// The batch size of `x` (its first dimension): static when its shape says it.
    pub fn of(x: &Output) -> Result<BatchSize> {
        match x.shape().dims().and_then(|d| d.first().copied().flatten()) {
            Some(n) => Ok(BatchSize::Static(x.graph().clone(), n)),
            None => {
                let shape = weir_ops::array::shape(x)?;
                let first = weir_ops::array::gather(&shape, &constant(x.graph(), 0i32)?, 0)?;
                Ok(BatchSize::Dynamic(first))
            }
        }
    }

    /// Zeros `[batch, n]` of `dtype`.
    pub fn zeros(&self, n: usize, dtype: DType) -> Result<Output> {
        match self {
            BatchSize::Static(g, b) => weir_ops::array::zeros(g, dtype, &[*b, n]),
            BatchSize::Dynamic(b) => {
                let g = b.graph();
                let dims = stack(&[b.clone(), constant(g, n as i32)?], 0)?;
                let zero = weir_ops::math::cast(&constant(g, 0.0f32)?, dtype)?;
                fill(&dims, &zero)
            }
        }
    }
}

/// A variable a cell makes: its name in the cell's scope, shape and initializer (`None`: the
/// variable scope's, as `add_variable` without one).
pub(crate) struct VarSpec {
    pub name: &'static str,
    pub shape: Vec<usize>,
    pub initializer: Option<Initializer>,
}

/// The variables of one cell, made on its first call (TensorFlow builds a cell's layer then).
pub(crate) struct CellVars {
    name: String,
    values: Mutex<Option<Vec<Output>>>,
}

impl CellVars {
    pub(crate) fn new(name: &str) -> CellVars {
        CellVars {
            name: name.to_string(),
            values: Mutex::new(None),
        }
    }

    /// The values of the cell's variables: made now, in the variable scope `<current>/<name>`,
    /// the first time; the same ones after.
    pub(crate) fn get(
        &self,
        g: &Graph,
        dtype: DType,
        specs: impl FnOnce() -> Vec<VarSpec>,
    ) -> Result<Vec<Output>> {
        let mut values = self.values.lock();
        if let Some(v) = values.as_ref() {
            return Ok(v.clone());
        }
        let _scope = VariableScope::new(&self.name).enter(g)?;
        let made = specs()
            .into_iter()
            .map(|s| {
                let mut b = GetVariable::new(s.name).shape(&s.shape).dtype(dtype);
                if let Some(init) = s.initializer {
                    b = b.initializer(init);
                }
                Ok(b.build(g)?.value())
            })
            .collect::<Result<Vec<_>>>()?;
        *values = Some(made.clone());
        Ok(made)
    }
}

/// The last dimension of `x`, which a cell's kernel is sized by: it must be known.
pub(crate) fn input_depth(x: &Output) -> Result<usize> {
    x.shape()
        .dims()
        .and_then(|d| d.last().copied().flatten())
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "The last dimension of the inputs to a cell should be defined. Found {}",
                x.shape().python_str()
            ))
        })
}

/// Checks that a cell got `n` state tensors.
pub(crate) fn check_state(state: &[Output], n: usize, cell: &str) -> Result<()> {
    if state.len() != n {
        return Err(Error::invalid_argument(format!(
            "{cell} takes a state of {n} tensors, got {}",
            state.len()
        )));
    }
    Ok(())
}
