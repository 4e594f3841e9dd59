//! The fused recurrent-cell ops of `tf.contrib.rnn` (TensorFlow's `rnn_ops.cc`):
//! `LSTMBlockCell` and `LSTMBlockCellGrad` (one LSTM step, `tf.contrib.rnn.LSTMBlockCell`),
//! `BlockLSTM`, `BlockLSTMV2` and their `BlockLSTMGrad`/`BlockLSTMGradV2` (a whole sequence,
//! `tf.contrib.rnn.LSTMBlockFusedCell`), and `GRUBlockCell`/`GRUBlockCellGrad`
//! (`tf.contrib.rnn.GRUBlockCell`).
//!
//! The gates of `LSTMBlockCell` and `BlockLSTM` lie in `w`'s columns in the order input, cell
//! input, forget, output (`ICFO`); `BlockLSTMV2` uses input, forget, cell input, output (`IFCO`)
//! and has no `forget_bias` (it is 0). A `cell_clip` above 0 clamps the cell state to
//! `[-cell_clip, cell_clip]`; 0 or below disables it.
//!
//! The kernels follow TensorFlow's CPU kernels expression for expression in `f32` (the matrix
//! products sum each dot product in order, so they differ from Eigen's blocked products by a
//! few rounding errors). For `half`, the arithmetic runs in `f32` and every tensor TensorFlow
//! stores in half precision (the gate pre-activations and each output) is rounded to half where
//! TensorFlow stores it.

mod block_lstm;
mod gru_cell;
mod lstm_cell;
mod lstm_math;

pub use block_lstm::{block_lstm, block_lstm_grad, BlockLstm, BlockLstmOutputs};
pub use gru_cell::{
    gru_block_cell, gru_block_cell_grad, GruBlockCellGradOutputs, GruBlockCellOutputs,
};
pub use lstm_cell::{
    lstm_block_cell, lstm_block_cell_grad, LstmBlockCell, LstmBlockCellGradOutputs, LstmCellOutputs,
};

use weir_graph::{format_dims, DType, Error, Result, Tensor};

/// The dtypes of the LSTM kernels (`T: {half, float}`).
const LSTM_TYPES: &[DType] = &[DType::F16, DType::F32];

/// The dtype of the GRU kernels (`T: {float}`).
const GRU_TYPES: &[DType] = &[DType::F32];

/// A tensor's elements as `f32` (half exactly widened), for the kernels' `f32` arithmetic.
fn to_f32s(t: &Tensor) -> Result<Vec<f32>> {
    match t.dtype() {
        DType::F16 => Ok(t
            .as_slice::<weir_graph::f16>()?
            .iter()
            .map(|v| v.to_f32())
            .collect()),
        DType::F32 => t.to_vec::<f32>(),
        other => Err(Error::invalid_argument(format!(
            "Unsupported dtype {other}: the block RNN kernels take half or float"
        ))),
    }
}

/// `values` as a tensor of `dtype` (half rounded to nearest even) and shape `dims`.
fn from_f32s(dtype: DType, dims: &[usize], values: Vec<f32>) -> Result<Tensor> {
    match dtype {
        DType::F16 => Tensor::from_vec(
            dims,
            values.into_iter().map(weir_graph::f16::from_f32).collect(),
        ),
        _ => Tensor::from_vec(dims, values),
    }
}

/// The rounding of a value TensorFlow stores in a tensor of `dtype`: identity for float, the
/// round trip through half for half.
fn rounding(dtype: DType) -> fn(f32) -> f32 {
    fn same(v: f32) -> f32 {
        v
    }
    fn half(v: f32) -> f32 {
        weir_graph::f16::from_f32(v).to_f32()
    }
    if dtype == DType::F16 {
        half
    } else {
        same
    }
}

/// `1 / (1 + exp(-x))`, in the overflow-safe form weir's `Sigmoid` kernel uses.
fn sigmoid(x: f32) -> f32 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `out[m][n] = sum_k a[m][k] * b[k][n]` (`a` is `m x k`, `b` is `k x n`), each sum in order.
fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize, out: &mut [f32]) {
    out[..m * n].fill(0.0);
    for r in 0..m {
        let row = &mut out[r * n..(r + 1) * n];
        for (kk, &av) in a[r * k..(r + 1) * k].iter().enumerate() {
            for (o, &bv) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *o += av * bv;
            }
        }
    }
}

/// `out[m][k] = sum_n a[m][n] * b[k][n]`: `a` times the transpose of `b` (`k x n`).
fn matmul_bt(a: &[f32], b: &[f32], m: usize, n: usize, k: usize, out: &mut [f32]) {
    for r in 0..m {
        let ar = &a[r * n..(r + 1) * n];
        for c in 0..k {
            let br = &b[c * n..(c + 1) * n];
            out[r * k + c] = ar.iter().zip(br).fold(0.0, |s, (&x, &y)| s + x * y);
        }
    }
}

/// `acc[k][n] += sum_m a[m][k] * b[m][n]`: the transpose of `a` (`m x k`) times `b` (`m x n`).
fn matmul_at_acc(a: &[f32], b: &[f32], m: usize, k: usize, n: usize, acc: &mut [f32]) {
    for r in 0..m {
        let br = &b[r * n..(r + 1) * n];
        for (kk, &av) in a[r * k..(r + 1) * k].iter().enumerate() {
            for (o, &bv) in acc[kk * n..(kk + 1) * n].iter_mut().zip(br) {
                *o += av * bv;
            }
        }
    }
}

/// `[x, h]` row by row: the `batch x (input + cell)` matrix the gates multiply.
fn concat_rows(x: &[f32], h: &[f32], batch: usize, input: usize, cell: usize, out: &mut Vec<f32>) {
    out.clear();
    for b in 0..batch {
        out.extend_from_slice(&x[b * input..(b + 1) * input]);
        out.extend_from_slice(&h[b * cell..(b + 1) * cell]);
    }
}

/// InvalidArgument unless `t` has rank `rank`, worded by `msg(actual rank)`.
fn require_rank(t: &Tensor, rank: usize, msg: impl FnOnce(usize) -> String) -> Result<()> {
    if t.rank() == rank {
        Ok(())
    } else {
        Err(Error::invalid_argument(msg(t.rank())))
    }
}

/// InvalidArgument `"{what}: {got} vs. {want}"` unless `got == want` (TensorFlow's wording for
/// its dimension checks).
fn require_dim(what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!("{what}: {got} vs. {want}")))
    }
}

/// InvalidArgument unless `t`'s shape is `dims` (weir's own check where TensorFlow's kernel
/// reads out of bounds instead).
fn require_shape(t: &Tensor, name: &str, dims: &[usize]) -> Result<()> {
    if t.shape() == dims {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "{name} must have shape {} but has shape {}",
            format_dims(dims),
            format_dims(t.shape())
        )))
    }
}

/// Registers the block RNN ops and kernels.
pub(crate) fn register() {
    lstm_cell::register();
    block_lstm::register();
    gru_cell::register();
}
