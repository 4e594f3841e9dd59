//! Gradients of the block RNN ops: `BlockLSTM` and `BlockLSTMV2` as TensorFlow 2.21's
//! `rnn_grad.py` registers them, and `LSTMBlockCell` and `GRUBlockCell` as
//! `tf.contrib.rnn` (TensorFlow 1.x's `lstm_ops.py`, `gru_ops.py`) registered them.

use weir_graph::{AttrValue, Error, Output, Result};
use weir_ops::array::{concat, slice};
use weir_ops::math::MatMul;
use weir_ops::nn::bias_add_grad;

use super::op_node;
use super::registry::{register_gradient, GradContext};

type Grads = Result<Vec<Option<Output>>>;

/// The incoming gradient of output `i`, or zeros shaped like it (TensorFlow differentiates a
/// multi-output op with zeros for the outputs nothing downstream needs).
fn grad_or_zeros(ctx: &GradContext<'_>, i: usize) -> Result<Output> {
    match ctx.grad(i) {
        Some(d) => Ok(d.clone()),
        None => super::op(ctx.graph(), "ZerosLike", &[&ctx.output(i)], &[]),
    }
}

/// Static dimension `k` of a matrix input, or the error `_LSTMBlockCellGrad` raises.
fn static_dim(x: &Output, k: usize, what: &str) -> Result<Option<usize>> {
    match x.shape().dims() {
        Some(d) if d.len() != 2 => Err(Error::invalid_argument(format!(
            "Shape {} must have rank 2",
            x.shape()
        ))),
        Some(d) => Ok(d[k]),
        None if k == 0 => Ok(None),
        None => Err(Error::invalid_argument(format!(
            "{what} should not be None."
        ))),
    }
}

/// `_LSTMBlockCellGrad` of `tf.contrib.rnn`: `LSTMBlockCellGrad` gives the gradients of
/// `cs_prev`, the peepholes and the gate pre-activations `dicfo`; `dicfo w^T` splits into the
/// gradients of `x` and `h_prev`, `[x, h_prev]^T dicfo` is `w`'s and `bias_add_grad(dicfo)`
/// `b`'s.
fn lstm_block_cell_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let ins: Vec<Output> = (0..8).map(|k| ctx.input(k)).collect();
    let (x, cs_prev, h_prev, w) = (&ins[0], &ins[1], &ins[2], &ins[3]);
    let batch = static_dim(x, 0, "batch_size")?.map_or(-1, |b| b as i64);
    let input = static_dim(x, 1, "input_size from `x`")?
        .ok_or_else(|| Error::invalid_argument("input_size from `x` should not be None."))?
        as i64;
    let cell = static_dim(cs_prev, 1, "cell_size from `cs_prev`")?
        .ok_or_else(|| Error::invalid_argument("cell_size from `cs_prev` should not be None."))?
        as i64;
    let mut args: Vec<Output> = ins.clone();
    args.extend((0..6).map(|k| ctx.output(k)));
    args.push(grad_or_zeros(ctx, 1)?);
    args.push(grad_or_zeros(ctx, 6)?);
    let refs: Vec<&Output> = args.iter().collect();
    let peep = AttrValue::Bool(ctx.attr::<bool>("use_peephole")?);
    let grad = op_node(g, "LSTMBlockCellGrad", &refs, &[("use_peephole", peep)])?;
    let dicfo = grad.output(1)?;
    let xh_grad = MatMul::new().transpose_b(true).build(&dicfo, w)?;
    let x_grad = slice(&xh_grad, vec![0i64, 0], vec![batch, input])?;
    let h_prev_grad = slice(&xh_grad, vec![0i64, input], vec![batch, cell])?;
    let xh = concat(&[x.clone(), h_prev.clone()], 1)?;
    let w_grad = MatMul::new().transpose_a(true).build(&xh, &dicfo)?;
    let b_grad = bias_add_grad(&dicfo)?;
    Ok(vec![
        Some(x_grad),
        Some(grad.output(0)?),
        Some(h_prev_grad),
        Some(w_grad),
        Some(grad.output(2)?),
        Some(grad.output(3)?),
        Some(grad.output(4)?),
        Some(b_grad),
    ])
}

/// `_block_lstm_grad` of `rnn_grad.py`: one `BlockLSTMGrad` from the gradients of `cs` and
/// `h`. TensorFlow registers it for `BlockLSTMV2` too, so `BlockLSTMV2`'s gradient is
/// computed with `BlockLSTM`'s gate order (i, c, f, o) although its weights hold i, f, c, o:
/// weir reproduces TensorFlow's values, which differ from the true derivative there.
fn block_lstm_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let mut args: Vec<Output> = (0..9).map(|k| ctx.input(k)).collect();
    args.extend((0..7).map(|k| ctx.output(k)));
    args.push(grad_or_zeros(ctx, 1)?);
    args.push(grad_or_zeros(ctx, 6)?);
    let refs: Vec<&Output> = args.iter().collect();
    let peep = AttrValue::Bool(ctx.attr::<bool>("use_peephole")?);
    let grad = op_node(g, "BlockLSTMGrad", &refs, &[("use_peephole", peep)])?;
    let mut out = vec![None];
    for k in 0..8 {
        out.push(Some(grad.output(k)?));
    }
    Ok(out)
}

/// `_GRUBlockCellGrad` of `tf.contrib.rnn`: `GRUBlockCellGrad` gives the gradients of `x`,
/// `h_prev` and the pre-activations; `[x, h_prev]^T d_r_bar_u_bar` is `w_ru`'s,
/// `[x, h_prev * r]^T d_c_bar` `w_c`'s, and their `bias_add_grad`s the biases'. Only the
/// gradient of `h` flows back (those of `r`, `u` and `c` are dropped, as TensorFlow drops
/// them).
fn gru_block_cell_grad(ctx: &GradContext<'_>) -> Grads {
    let g = ctx.graph();
    let ins: Vec<Output> = (0..6).map(|k| ctx.input(k)).collect();
    let (x, h_prev) = (&ins[0], &ins[1]);
    let r = ctx.output(0);
    let mut args = ins.clone();
    args.extend([
        r.clone(),
        ctx.output(1),
        ctx.output(2),
        grad_or_zeros(ctx, 3)?,
    ]);
    let refs: Vec<&Output> = args.iter().collect();
    let grad = op_node(g, "GRUBlockCellGrad", &refs, &[])?;
    let (d_c_bar, d_r_bar_u_bar) = (grad.output(2)?, grad.output(3)?);
    let x_h_prev = concat(&[x.clone(), h_prev.clone()], 1)?;
    let d_w_ru = MatMul::new()
        .transpose_a(true)
        .build(&x_h_prev, &d_r_bar_u_bar)?;
    let d_b_ru = bias_add_grad(&d_r_bar_u_bar)?;
    let h_prevr = super::op(g, "Mul", &[h_prev, &r], &[])?;
    let x_h_prevr = concat(&[x.clone(), h_prevr], 1)?;
    let d_w_c = MatMul::new()
        .transpose_a(true)
        .build(&x_h_prevr, &d_c_bar)?;
    let d_b_c = bias_add_grad(&d_c_bar)?;
    Ok(vec![
        Some(grad.output(0)?),
        Some(grad.output(1)?),
        Some(d_w_ru),
        Some(d_w_c),
        Some(d_b_ru),
        Some(d_b_c),
    ])
}

pub(super) fn register() {
    register_gradient("LSTMBlockCell", lstm_block_cell_grad);
    register_gradient("BlockLSTM", block_lstm_grad);
    register_gradient("BlockLSTMV2", block_lstm_grad);
    register_gradient("GRUBlockCell", gru_block_cell_grad);
}
