//! `tf.nn.bidirectional_dynamic_rnn`: one cell run forward over the sequences and another
//! over them reversed (each within its length), as TensorFlow 1's rnn.py builds it.

use weir_graph::{DType, Error, Output, Result};
use weir_ops::array::{reverse, reverse_sequence};

use super::cell::RnnCell;
use super::dynamic::DynamicRnn;
use crate::variable_scope::VariableScope;

/// The outputs `(output_fw, output_bw)` and final states `(state_fw, state_bw)` of
/// [`BidirectionalDynamicRnn::build`].
pub type BidirectionalOutputs = ((Output, Output), (Vec<Output>, Vec<Output>));

/// `tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
/// initial_state_fw=None, initial_state_bw=None, dtype=None, parallel_iterations=None,
/// swap_memory=False, time_major=False, scope=None)` with its options.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{BasicLstmCell, BidirectionalDynamicRnn, GruCell};
/// let g = Graph::new();
/// let inputs = zeros(&g, DType::F32, &[4, 6, 3])?; // batch 4, 6 steps, 3 features
/// let ((fw, bw), (state_fw, state_bw)) = BidirectionalDynamicRnn::new()
///     .dtype(DType::F32)
///     .build(&BasicLstmCell::new(5), &GruCell::new(2), &inputs)?;
/// assert_eq!(fw.shape().python_str(), "(4, 6, 5)");
/// assert_eq!(bw.shape().python_str(), "(4, 6, 2)");
/// assert_eq!((state_fw.len(), state_bw.len()), (2, 1));
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct BidirectionalDynamicRnn {
    sequence_length: Option<Output>,
    initial_state_fw: Option<Vec<Output>>,
    initial_state_bw: Option<Vec<Output>>,
    dtype: Option<DType>,
    parallel_iterations: Option<i64>,
    swap_memory: bool,
    time_major: bool,
    scope: Option<String>,
}

impl BidirectionalDynamicRnn {
    /// TensorFlow's defaults: batch-major inputs, scope `bidirectional_rnn`.
    pub fn new() -> BidirectionalDynamicRnn {
        BidirectionalDynamicRnn::default()
    }

    /// The length of each sequence (a `[batch]` int32/int64 vector): the backward cell reads
    /// each sequence reversed within its length, and both stop at its end.
    pub fn sequence_length(mut self, lengths: &Output) -> Self {
        self.sequence_length = Some(lengths.clone());
        self
    }

    /// The forward cell's initial state (default: zeros of `dtype`).
    pub fn initial_state_fw(mut self, state: &[Output]) -> Self {
        self.initial_state_fw = Some(state.to_vec());
        self
    }

    /// The backward cell's initial state (default: zeros of `dtype`).
    pub fn initial_state_bw(mut self, state: &[Output]) -> Self {
        self.initial_state_bw = Some(state.to_vec());
        self
    }

    /// The dtype of the zero initial states (needed unless both initial states are given).
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = Some(dtype);
        self
    }

    /// `parallel_iterations` of both loops (default: `dynamic_rnn`'s 32).
    pub fn parallel_iterations(mut self, n: i64) -> Self {
        self.parallel_iterations = Some(n);
        self
    }

    /// TensorFlow's `swap_memory` (no effect in weir's one memory).
    pub fn swap_memory(mut self, on: bool) -> Self {
        self.swap_memory = on;
        self
    }

    /// Inputs and outputs are `[time, batch, depth]` rather than `[batch, time, depth]`.
    pub fn time_major(mut self, on: bool) -> Self {
        self.time_major = on;
        self
    }

    /// The variable scope (default `bidirectional_rnn`); the cells' variables live in its
    /// `fw` and `bw` scopes.
    pub fn scope(mut self, name: &str) -> Self {
        self.scope = Some(name.to_string());
        self
    }

    /// The [`DynamicRnn`] of one direction.
    fn direction(&self, scope: &str, initial_state: Option<&[Output]>) -> DynamicRnn {
        let mut rnn = DynamicRnn::new()
            .scope(scope)
            .swap_memory(self.swap_memory)
            .time_major(self.time_major);
        if let Some(n) = self.parallel_iterations {
            rnn = rnn.parallel_iterations(n);
        }
        if let Some(l) = &self.sequence_length {
            rnn = rnn.sequence_length(l);
        }
        if let Some(s) = initial_state {
            rnn = rnn.initial_state(s);
        }
        if let Some(d) = self.dtype {
            rnn = rnn.dtype(d);
        }
        rnn
    }

    /// rnn.py's `_reverse`: `reverse_sequence` within the lengths when there are any, a plain
    /// reverse of the time axis otherwise.
    fn reverse_time(&self, x: &Output) -> Result<Output> {
        let (time_axis, batch_axis) = if self.time_major { (0, 1) } else { (1, 0) };
        match &self.sequence_length {
            Some(l) => reverse_sequence(x, l, time_axis, batch_axis),
            None => reverse(x, [time_axis]),
        }
    }

    /// Runs `cell_fw` over `inputs` and `cell_bw` over them reversed in time; the backward
    /// outputs are reversed back, so both are aligned with `inputs`.
    pub fn build(
        &self,
        cell_fw: &dyn RnnCell,
        cell_bw: &dyn RnnCell,
        inputs: &Output,
    ) -> Result<BidirectionalOutputs> {
        if inputs.shape().rank().is_some_and(|r| r < 3) {
            return Err(Error::invalid_argument(format!(
                "Expected input tensor {} to have rank at least 3, got {}",
                inputs.name(),
                inputs.shape().rank().unwrap_or(0)
            )));
        }
        let g = inputs.graph().clone();
        let (fw, tmp, state_bw) = {
            let _vs = VariableScope::new(self.scope.as_deref().unwrap_or("bidirectional_rnn"))
                .enter(&g)?;
            let fw = self
                .direction("fw", self.initial_state_fw.as_deref())
                .build(cell_fw, inputs)?;
            // TensorFlow reverses the inputs inside the `bw` scope, then runs dynamic_rnn there.
            let reversed = {
                let _bw = g.name_scope("bw");
                self.reverse_time(inputs)?
            };
            let (tmp, state_bw) = self
                .direction("bw", self.initial_state_bw.as_deref())
                .build(cell_bw, &reversed)?;
            (fw, tmp, state_bw)
        };
        let (output_fw, state_fw) = fw;
        let output_bw = self.reverse_time(&tmp)?;
        Ok(((output_fw, output_bw), (state_fw, state_bw)))
    }
}

/// `tf.nn.bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, dtype=dtype)`: both cells from
/// zero states of `dtype`, over batch-major `inputs`; `((output_fw, output_bw), (state_fw,
/// state_bw))`. Options are on [`BidirectionalDynamicRnn`].
pub fn bidirectional_dynamic_rnn(
    cell_fw: &dyn RnnCell,
    cell_bw: &dyn RnnCell,
    inputs: &Output,
    dtype: DType,
) -> Result<BidirectionalOutputs> {
    BidirectionalDynamicRnn::new()
        .dtype(dtype)
        .build(cell_fw, cell_bw, inputs)
}
