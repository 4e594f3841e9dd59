"""Records TensorFlow 2.21's tf.gradients (tf.compat.v1, graph mode, CPU) through the block RNN
ops for crates/train/tests/integration/rnn_block_grad.rs: BlockLSTM and BlockLSTMV2 with the
gradient TensorFlow 2.21 registers (rnn_grad.py, BlockLSTMGrad for both), and LSTMBlockCell and
GRUBlockCell with the gradient functions tf.contrib.rnn registered in TensorFlow 1.x
(lstm_ops.py's _LSTMBlockCellGrad, gru_ops.py's _GRUBlockCellGrad; TensorFlow 2.21 still has
the ops and their backward kernels but no gradient for them, so this script registers
contrib's functions, reproduced below).

Run: ~/.cache/weir-bench/venv/bin/python make_rnn_block_grad.py   (writes expected.json)

Each case: {"name", "op", "attrs", "inputs": [tensor...] (the op's inputs in order),
"grad_ys": {output index: tensor}, "grads": {input index: tensor}}; a tensor is
{"dtype", "shape", "values"}.
"""

import json
import math
import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.framework import ops  # noqa: E402
from tensorflow.python.ops import gen_rnn_ops  # noqa: E402

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []
f32 = np.float32


@ops.RegisterGradient("LSTMBlockCell")
def _lstm_block_cell_grad(op, *grad):
    """tf.contrib.rnn's _LSTMBlockCellGrad (TensorFlow 1.15)."""
    (x, cs_prev, h_prev, w, wci, wcf, wco, b) = op.inputs
    (i, cs, f, o, ci, co, _) = op.outputs
    (_, cs_grad, _, _, _, _, h_grad) = grad
    batch_size = x.get_shape().with_rank(2).dims[0].value
    if batch_size is None:
        batch_size = -1
    input_size = x.get_shape().with_rank(2).dims[1].value
    cell_size = cs_prev.get_shape().with_rank(2).dims[1].value
    (cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad) = gen_rnn_ops.lstm_block_cell_grad(
        x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, i=i, cs=cs,
        f=f, o=o, ci=ci, co=co, cs_grad=cs_grad, h_grad=h_grad,
        use_peephole=op.get_attr("use_peephole"))
    xh_grad = tf.matmul(dicfo, w, transpose_b=True)
    x_grad = tf.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = tf.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    xh = tf.concat([x, h_prev], 1)
    w_grad = tf.matmul(xh, dicfo, transpose_a=True)
    b_grad = tf.raw_ops.BiasAddGrad(out_backprop=dicfo)
    return (x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad)


@ops.RegisterGradient("GRUBlockCell")
def _gru_block_cell_grad(op, *grad):
    """tf.contrib.rnn's _GRUBlockCellGrad (TensorFlow 1.15)."""
    x, h_prev, w_ru, w_c, b_ru, b_c = op.inputs
    r, u, c, _ = op.outputs
    _, _, _, d_h = grad
    d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = gen_rnn_ops.gru_block_cell_grad(
        x=x, h_prev=h_prev, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c, r=r, u=u, c=c, d_h=d_h)
    x_h_prev = tf.concat([x, h_prev], 1)
    d_w_ru = tf.matmul(x_h_prev, d_r_bar_u_bar, transpose_a=True)
    d_b_ru = tf.raw_ops.BiasAddGrad(out_backprop=d_r_bar_u_bar)
    x_h_prevr = tf.concat([x, h_prev * r], 1)
    d_w_c = tf.matmul(x_h_prevr, d_c_bar, transpose_a=True)
    d_b_c = tf.raw_ops.BiasAddGrad(out_backprop=d_c_bar)
    return d_x, d_h_prev, d_w_ru, d_w_c, d_b_ru, d_b_c


def enc(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        vals = [float(str(v)) if math.isfinite(v) else str(v)
                for v in a.astype(np.float32).reshape(-1)]
    else:
        vals = [int(v) for v in a.reshape(-1).tolist()]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": vals}


def vals(shape, seed, scale=1.0):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 1.37 + seed * 0.71) * scale).reshape(shape).astype(f32)


NAMES = {
    "LSTMBlockCell": ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"],
    "BlockLSTM": ["seq_len_max", "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"],
    "GRUBlockCell": ["x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"],
}
NAMES["BlockLSTMV2"] = NAMES["BlockLSTM"]


def add(name, op, inputs, attrs, grad_outputs):
    g = tf.Graph()
    with g.as_default():
        ts = [tf.constant(a) for a in inputs]
        outs = getattr(tf.raw_ops, op)(**dict(zip(NAMES[op], ts)), **attrs)
        gys = {k: vals(outs[k].shape.as_list(), 50 + k, 0.7) for k in grad_outputs}
        xs = [k for k, a in enumerate(inputs) if np.asarray(a).dtype == f32]
        grads = tf.gradients([outs[k] for k in gys], [ts[k] for k in xs],
                             grad_ys=[tf.constant(v) for v in gys.values()])
        with tf.Session(graph=g) as s:
            got = s.run(grads)
    CASES.append({"name": name, "op": op, "attrs": attrs, "inputs": [enc(a) for a in inputs],
                  "grad_ys": {str(k): enc(v) for k, v in gys.items()},
                  "grads": {str(k): enc(v) for k, v in zip(xs, got)}})


def lstm_weights(inp, cell, seed):
    return [vals([inp + cell, 4 * cell], seed + 3, 0.6)] + \
        [vals([cell], seed + 4 + k, 0.5) for k in range(3)] + [vals([4 * cell], seed + 7, 0.4)]


for n, (batch, inp, cell, peep, clip, fb, outs) in enumerate([
        (1, 2, 3, False, 3.0, 1.0, (1, 6)), (2, 3, 4, True, -1.0, 1.0, (1, 6)),
        (3, 5, 2, False, 0.5, 0.3, (6,)), (4, 1, 3, True, 0.0, 0.0, (0, 1, 6)),
        (2, 2, 2, True, 3.0, 1.0, (1,))]):
    ins = [vals([batch, inp], n, 1.5), vals([batch, cell], n + 1, 2.0),
           vals([batch, cell], n + 2, 0.9)] + lstm_weights(inp, cell, n)
    attrs = {"forget_bias": fb, "cell_clip": clip, "use_peephole": peep}
    add("lstm_cell_%d" % n, "LSTMBlockCell", ins, attrs, outs)

for n, (time, batch, inp, cell, peep, clip, seq, outs) in enumerate([
        (3, 2, 3, 4, False, 3.0, 3, (1, 6)), (4, 1, 2, 3, True, -1.0, 4, (6,)),
        (4, 3, 2, 2, True, 0.5, 2, (1, 6)), (5, 2, 3, 5, False, 0.0, 3, (0, 6)),
        (2, 2, 2, 3, True, -1.0, 0, (1, 6))]):
    for op in ("BlockLSTM", "BlockLSTMV2"):
        ins = [np.int64(seq), vals([time, batch, inp], n, 1.2), vals([batch, cell], n + 1, 1.5),
               vals([batch, cell], n + 2, 0.9)] + lstm_weights(inp, cell, n)
        attrs = {"cell_clip": clip, "use_peephole": peep}
        if op == "BlockLSTM":
            attrs["forget_bias"] = 0.7
        add("%s_%d" % (op, n), op, ins, attrs, outs)

for n, (batch, inp, cell, outs) in enumerate([(1, 2, 3, (3,)), (2, 3, 4, (3,)),
                                              (4, 1, 2, (0, 3)), (3, 5, 5, (3,))]):
    ins = [vals([batch, inp], n, 1.3), vals([batch, cell], n + 1, 0.9),
           vals([inp + cell, 2 * cell], n + 2, 0.7), vals([inp + cell, cell], n + 3, 0.7),
           vals([2 * cell], n + 4, 0.5), vals([cell], n + 5, 0.5)]
    add("gru_%d" % n, "GRUBlockCell", ins, {}, outs)

with open(os.path.join(HERE, "expected.json"), "w") as fh:
    json.dump(CASES, fh, indent=0)
print(len(CASES), "cases")
