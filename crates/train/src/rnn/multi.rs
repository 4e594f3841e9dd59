//! `MultiRNNCell`: cells stacked, each feeding the next.

use weir_graph::{Output, Result};

use super::cell::{check_state, RnnCell};
use crate::variable_scope::VariableScope;

/// `tf.nn.rnn_cell.MultiRNNCell(cells)`: the cells applied in turn, each to the previous one's
/// output; its state is each cell's state in turn, and each cell's variables go in the scope
/// `multi_rnn_cell/cell_<k>`.
///
/// ```
/// # use weir_graph::{DType, Graph};
/// # use weir_ops::array::zeros;
/// use weir_train::rnn::{BasicLstmCell, GruCell, MultiRnnCell, RnnCell};
/// let cell = MultiRnnCell::new(vec![Box::new(BasicLstmCell::new(4)), Box::new(GruCell::new(2))]);
/// assert_eq!((cell.state_size(), cell.output_size()), (vec![4, 4, 2], 2));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct MultiRnnCell {
    cells: Vec<Box<dyn RnnCell>>,
    name: String,
}

impl MultiRnnCell {
    /// The cells stacked, named `multi_rnn_cell`.
    pub fn new(cells: Vec<Box<dyn RnnCell>>) -> MultiRnnCell {
        MultiRnnCell {
            cells,
            name: "multi_rnn_cell".to_string(),
        }
    }
}

impl RnnCell for MultiRnnCell {
    fn state_size(&self) -> Vec<usize> {
        self.cells.iter().flat_map(|c| c.state_size()).collect()
    }

    fn output_size(&self) -> usize {
        self.cells.last().map_or(0, |c| c.output_size())
    }

    fn call(&self, inputs: &Output, state: &[Output]) -> Result<(Output, Vec<Output>)> {
        check_state(state, self.state_size().len(), "MultiRNNCell")?;
        let g = inputs.graph();
        let _outer = VariableScope::new(&self.name).enter(g)?;
        let mut x = inputs.clone();
        let mut next = Vec::with_capacity(state.len());
        let mut at = 0;
        for (k, cell) in self.cells.iter().enumerate() {
            let n = cell.state_size().len();
            let _scope = VariableScope::new(&format!("cell_{k}")).enter(g)?;
            let (out, s) = cell.call(&x, &state[at..at + n])?;
            x = out;
            next.extend(s);
            at += n;
        }
        Ok((x, next))
    }
}
