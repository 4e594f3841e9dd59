//! `tf.nn.dynamic_rnn` and `tf.nn.static_rnn`: a cell run over the time steps of a batch of
//! sequences, in a `while_loop` reading the inputs from a TensorArray and writing the outputs
//! to another (dynamic), or unrolled into the graph (static).

use weir_graph::{DType, Error, Output, Result, Shape};
use weir_ops::array::{constant, gather, identity_named, shape, transpose};
use weir_ops::control_flow::WhileLoop;
use weir_ops::math::{
    add, cast, greater_equal, less, maximum, minimum, reduce_max, reduce_min, select, Axes,
};
use weir_ops::tensor_array::TensorArray;

use super::cell::{BatchSize, RnnCell};
use crate::variable_scope::VariableScope;

/// `tf.nn.dynamic_rnn(cell, inputs, ...)` with its options; see [`dynamic_rnn`].
#[derive(Clone, Debug)]
pub struct DynamicRnn {
    sequence_length: Option<Output>,
    initial_state: Option<Vec<Output>>,
    dtype: Option<DType>,
    parallel_iterations: i64,
    swap_memory: bool,
    time_major: bool,
    scope: Option<String>,
}

impl Default for DynamicRnn {
    fn default() -> Self {
        DynamicRnn {
            sequence_length: None,
            initial_state: None,
            dtype: None,
            parallel_iterations: 32,
            swap_memory: false,
            time_major: false,
            scope: None,
        }
    }
}

impl DynamicRnn {
    /// TensorFlow's defaults: batch-major inputs, 32 parallel iterations, scope `rnn`.
    pub fn new() -> DynamicRnn {
        DynamicRnn::default()
    }

    /// The length of each sequence (a `[batch]` integer vector): past its end a sequence's
    /// outputs are zeros and its state stays as it was.
    pub fn sequence_length(mut self, lengths: &Output) -> DynamicRnn {
        self.sequence_length = Some(lengths.clone());
        self
    }

    /// The state to start from (default: zeros of `dtype`).
    pub fn initial_state(mut self, state: &[Output]) -> DynamicRnn {
        self.initial_state = Some(state.to_vec());
        self
    }

    /// The dtype of the zero initial state (needed without an initial state).
    pub fn dtype(mut self, dtype: DType) -> DynamicRnn {
        self.dtype = Some(dtype);
        self
    }

    /// `parallel_iterations` of the loop (32 by default).
    pub fn parallel_iterations(mut self, n: i64) -> DynamicRnn {
        self.parallel_iterations = n;
        self
    }

    /// TensorFlow's `swap_memory` (no effect in weir's one memory).
    pub fn swap_memory(mut self, on: bool) -> DynamicRnn {
        self.swap_memory = on;
        self
    }

    /// Inputs and outputs are `[time, batch, depth]` rather than `[batch, time, depth]`.
    pub fn time_major(mut self, on: bool) -> DynamicRnn {
        self.time_major = on;
        self
    }

    /// The variable scope (default `rnn`).
    pub fn scope(mut self, name: &str) -> DynamicRnn {
        self.scope = Some(name.to_string());
        self
    }

    /// Runs `cell` over `inputs`: the outputs of every step (`[batch, time, output_size]`, or
    /// time-major) and the final state.
    pub fn build(&self, cell: &dyn RnnCell, inputs: &Output) -> Result<(Output, Vec<Output>)> {
        let g = inputs.graph().clone();
        let _vs = VariableScope::new(self.scope.as_deref().unwrap_or("rnn")).enter(&g)?;
        let rank = inputs
            .shape()
            .rank()
            .ok_or_else(|| Error::invalid_argument("dynamic_rnn needs inputs of known rank"))?;
        if rank < 3 {
            return Err(Error::invalid_argument(format!(
                "Expected input tensor {} to have rank at least 3, got {}",
                inputs.name(),
                rank
            )));
        }
        let x = if self.time_major {
            inputs.clone()
        } else {
            transpose(inputs, batch_time_perm(rank))?
        };
        let batch = BatchSize::of(&transpose(&x, batch_time_perm(rank))?)?;
        let dtype = self.dtype.or(self
            .initial_state
            .as_ref()
            .and_then(|s| s.first())
            .map(Output::dtype));
        let state = match (&self.initial_state, self.dtype) {
            (Some(s), _) => s.clone(),
            (None, Some(d)) => cell.zero_state(&batch, d)?,
            (None, None) => {
                return Err(Error::invalid_argument(
                    "If there is no initial_state, you must give a dtype.",
                ))
            }
        };
        let dtype = dtype.unwrap_or(inputs.dtype());
        let sequence_length = match &self.sequence_length {
            Some(s) => {
                if s.shape().rank().is_some_and(|r| r != 1) {
                    return Err(Error::invalid_argument(format!(
                        "sequence_length must be a vector of length batch_size, but saw shape: {}",
                        s.shape().python_str()
                    )));
                }
                Some(identity_named(&cast(s, DType::I32)?, "sequence_length")?)
            }
            None => None,
        };
        let (outputs, final_state) =
            self.dynamic_loop(cell, &x, state, &batch, dtype, sequence_length.as_ref())?;
        let outputs = if self.time_major {
            outputs
        } else {
            transpose(&outputs, batch_time_perm(rank))?
        };
        Ok((outputs, final_state))
    }

    fn dynamic_loop(
        &self,
        cell: &dyn RnnCell,
        x: &Output,
        state: Vec<Output>,
        batch: &BatchSize,
        dtype: DType,
        sequence_length: Option<&Output>,
    ) -> Result<(Output, Vec<Output>)> {
        let g = x.graph().clone();
        let dims: Vec<Option<usize>> = x.shape().dims().map(<[_]>::to_vec).unwrap_or_default();
        let time_steps = match dims.first().copied().flatten() {
            Some(t) => constant(&g, t as i32)?,
            None => gather(&shape(x)?, &constant(&g, 0i32)?, 0)?,
        };
        let out_size = cell.output_size();
        let zero_output = batch.zeros(out_size, dtype)?;
        let _scope = g.name_scope("dynamic_rnn");
        let base = g.current_scope();
        let input_ta = TensorArray::new(x.dtype())
            .size(&time_steps)
            .element_shape(Shape::new(dims.get(1..).unwrap_or(&[]).to_vec()))
            .tensor_array_name(&format!("{base}input_0"))
            .build(&g)?
            .unstack(x)?;
        let batch_dim = dims.get(1).copied().flatten();
        let output_ta = TensorArray::new(dtype)
            .size(&time_steps)
            .element_shape(Shape::new(vec![batch_dim, Some(out_size)]))
            .tensor_array_name(&format!("{base}output_0"))
            .build(&g)?;
        let loop_bound = match sequence_length {
            Some(s) => {
                let longest = reduce_max(s, Axes::All)?;
                minimum(&time_steps, &maximum(&constant(&g, 1i32)?, &longest)?)?
            }
            None => time_steps.clone(),
        };
        let mut vars = vec![constant(&g, 0i32)?, output_ta.flow().clone()];
        vars.extend(state);
        let out = WhileLoop::new()
            .parallel_iterations(self.parallel_iterations)
            .swap_memory(self.swap_memory)
            .maximum_iterations(&time_steps)
            .build(
                |v| less(&v[0], &loop_bound),
                |v| {
                    let (time, state) = (&v[0], &v[2..]);
                    let input_t = input_ta.read(time)?;
                    let (mut output, mut next) = cell.call(&input_t, state)?;
                    if let Some(s) = sequence_length {
                        // Past a sequence's end: zeros out, the state kept.
                        let done = greater_equal(time, s)?;
                        output = select(&done, &zero_output, &output)?;
                        next = state
                            .iter()
                            .zip(&next)
                            .map(|(old, new)| select(&done, old, new))
                            .collect::<Result<_>>()?;
                    }
                    let written = output_ta.with_flow(&v[1]).write(time, &output)?;
                    let mut r = vec![add(time, &constant(&g, 1i32)?)?, written.flow().clone()];
                    r.extend(next);
                    Ok(r)
                },
                &vars,
            )?;
        let outputs = output_ta.with_flow(&out[1]).stack()?;
        Ok((outputs, out[2..].to_vec()))
    }
}

/// The permutation that swaps the first two dimensions of a tensor of rank `rank`.
fn batch_time_perm(rank: usize) -> Vec<i32> {
    let mut p: Vec<i32> = (0..rank as i32).collect();
    p.swap(0, 1);
    p
}

/// `tf.nn.dynamic_rnn(cell, inputs, dtype=dtype)`: `cell` run over the time steps of `inputs`
/// (`[batch, time, depth]`) in a `while_loop`, from a zero state of `dtype`; the outputs of every
/// step and the final state. Options (`sequence_length`, `initial_state`, `time_major`, ...) are
/// on [`DynamicRnn`]. Gradients flow through it, so it trains.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{dynamic_rnn, BasicLstmCell};
/// let g = Graph::new();
/// let inputs = zeros(&g, DType::F32, &[8, 20, 5])?; // batch 8, 20 steps, 5 features
/// let (outputs, state) = dynamic_rnn(&BasicLstmCell::new(16), &inputs, DType::F32)?;
/// assert_eq!(outputs.shape().python_str(), "(8, 20, 16)");
/// assert_eq!(state.len(), 2); // c, h
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn dynamic_rnn(
    cell: &dyn RnnCell,
    inputs: &Output,
    dtype: DType,
) -> Result<(Output, Vec<Output>)> {
    DynamicRnn::new().dtype(dtype).build(cell, inputs)
}

/// `tf.nn.static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
/// scope=None)`: `cell` unrolled over the list of per-step inputs (`[batch, depth]` each); the
/// output of each step and the final state. With `sequence_length`, outputs past a sequence's
/// end are zeros and its state is kept (TensorFlow gives the same values with conds; weir
/// selects).
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{static_rnn, BasicRnnCell};
/// let g = Graph::new();
/// let steps = vec![zeros(&g, DType::F32, &[4, 3])?; 5];
/// let (outputs, _) = static_rnn(&BasicRnnCell::new(2), &steps, None, Some(DType::F32), None, None)?;
/// assert_eq!(outputs.len(), 5);
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn static_rnn(
    cell: &dyn RnnCell,
    inputs: &[Output],
    initial_state: Option<&[Output]>,
    dtype: Option<DType>,
    sequence_length: Option<&Output>,
    scope: Option<&str>,
) -> Result<(Vec<Output>, Vec<Output>)> {
    let first = inputs
        .first()
        .ok_or_else(|| Error::invalid_argument("inputs must not be empty"))?;
    let g = first.graph().clone();
    let _vs = VariableScope::new(scope.unwrap_or("rnn")).enter(&g)?;
    let batch = BatchSize::of(first)?;
    let mut state = match (initial_state, dtype) {
        (Some(s), _) => s.to_vec(),
        (None, Some(d)) => cell.zero_state(&batch, d)?,
        (None, None) => {
            return Err(Error::invalid_argument(
                "If no initial_state is provided, dtype must be specified",
            ))
        }
    };
    let dtype = dtype.unwrap_or(first.dtype());
    let lengths = sequence_length
        .map(|s| identity_named(&cast(s, DType::I32)?, "sequence_length"))
        .transpose()?;
    let zero_output = match &lengths {
        Some(_) => Some(batch.zeros(cell.output_size(), dtype)?),
        None => None,
    };
    if let Some(l) = &lengths {
        // TensorFlow computes them too (for its conds); kept for the same graph reads.
        reduce_min(l, Axes::All)?;
    }
    let mut outputs = Vec::with_capacity(inputs.len());
    for (t, x) in inputs.iter().enumerate() {
        let (mut out, mut next) = cell.call(x, &state)?;
        if let (Some(l), Some(zero)) = (&lengths, &zero_output) {
            let done = greater_equal(&constant(&g, t as i32)?, l)?;
            out = select(&done, zero, &out)?;
            next = state
                .iter()
                .zip(&next)
                .map(|(old, new)| select(&done, old, new))
                .collect::<Result<_>>()?;
        }
        outputs.push(out);
        state = next;
    }
    Ok((outputs, state))
}
