//! `BlockLSTM` and `BlockLSTMV2` (a whole sequence of LSTM steps in one op,
//! `tf.contrib.rnn.LSTMBlockFusedCell`) and their backward kernels `BlockLSTMGrad` and
//! `BlockLSTMGradV2`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Error, Kernel, OpContext, OpDef, Output, Result, Shape,
    Tensor,
};

use super::lstm_cell::{config, LstmCellOutputs};
use super::lstm_math::{bprop, fprop, Dims, GateLayout, Gates, Saved, Scratch, Weights};
use super::{
    concat_rows, from_f32s, matmul_at_acc, matmul_bt, require_dim, require_rank, require_shape,
    to_f32s, LSTM_TYPES,
};

/// The seven outputs of `BlockLSTM`, each `[time, batch, cell]`: the per-step values of
/// [`LstmCellOutputs`]. Past `seq_len_max` the cell states and outputs are zero.
pub type BlockLstmOutputs = LstmCellOutputs;

/// The options of `tf.raw_ops.BlockLSTM` (`forget_bias=1.0`, `cell_clip=3.0`,
/// `use_peephole=False`, gates i, c, f, o) or, from [`BlockLstm::v2`], of
/// `tf.raw_ops.BlockLSTMV2` (`cell_clip=0.0`, no forget bias, gates i, f, c, o).
#[derive(Clone, Copy, Debug)]
pub struct BlockLstm {
    v2: bool,
    forget_bias: f32,
    cell_clip: f32,
    use_peephole: bool,
}

impl Default for BlockLstm {
    fn default() -> Self {
        BlockLstm {
            v2: false,
            forget_bias: 1.0,
            cell_clip: 3.0,
            use_peephole: false,
        }
    }
}

impl BlockLstm {
    /// `BlockLSTM` with TensorFlow's defaults.
    pub fn new() -> BlockLstm {
        BlockLstm::default()
    }

    /// `BlockLSTMV2` with TensorFlow's defaults (no clipping).
    pub fn v2() -> BlockLstm {
        BlockLstm {
            v2: true,
            forget_bias: 0.0,
            cell_clip: 0.0,
            use_peephole: false,
        }
    }

    /// Added to the forget gate's pre-activation (`BlockLSTM` only: `BlockLSTMV2` has no such
    /// attribute, and ignores this).
    pub fn forget_bias(mut self, v: f32) -> BlockLstm {
        self.forget_bias = v;
        self
    }

    /// Clamps the cell state to `[-v, v]` when `v > 0`.
    pub fn cell_clip(mut self, v: f32) -> BlockLstm {
        self.cell_clip = v;
        self
    }

    /// Whether the gates see the cell state through `wci`, `wcf`, `wco`.
    pub fn use_peephole(mut self, v: bool) -> BlockLstm {
        self.use_peephole = v;
        self
    }

    /// Adds the node: `seq_len_max` (int64 scalar) steps of `x` (`[time, batch, input]`) from
    /// `cs_prev`, `h_prev` (`[batch, cell]`), with the weights of
    /// [`LstmBlockCell::build`](super::LstmBlockCell::build).
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        self,
        seq_len_max: &Output,
        x: &Output,
        cs_prev: &Output,
        h_prev: &Output,
        w: &Output,
        wci: &Output,
        wcf: &Output,
        wco: &Output,
        b: &Output,
    ) -> Result<BlockLstmOutputs> {
        let op_type = if self.v2 { "BlockLSTMV2" } else { "BlockLSTM" };
        let mut op = crate::new_op(x.graph(), op_type);
        for t in [seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b] {
            op = op.input(t);
        }
        if !self.v2 {
            op = op.attr("forget_bias", self.forget_bias);
        }
        let node = op
            .attr("cell_clip", self.cell_clip)
            .attr("use_peephole", self.use_peephole)
            .build()?;
        LstmCellOutputs::of(&node)
    }
}

/// `tf.raw_ops.BlockLSTM` with TensorFlow's defaults (see [`BlockLstm`]).
#[allow(clippy::too_many_arguments)]
pub fn block_lstm(
    seq_len_max: &Output,
    x: &Output,
    cs_prev: &Output,
    h_prev: &Output,
    w: &Output,
    wci: &Output,
    wcf: &Output,
    wco: &Output,
    b: &Output,
) -> Result<BlockLstmOutputs> {
    BlockLstm::new().build(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b)
}

/// `tf.raw_ops.BlockLSTMGrad` (or `BlockLSTMGradV2` when `v2`): `inputs` are the forward op's
/// nine inputs, `saved` its seven outputs; returns the gradients of x, cs_prev, h_prev, w,
/// wci, wcf, wco and b.
pub fn block_lstm_grad(
    v2: bool,
    inputs: [&Output; 9],
    saved: [&Output; 7],
    cs_grad: &Output,
    h_grad: &Output,
    use_peephole: bool,
) -> Result<Vec<Output>> {
    let op_type = if v2 {
        "BlockLSTMGradV2"
    } else {
        "BlockLSTMGrad"
    };
    let mut op = crate::new_op(inputs[0].graph(), op_type);
    for t in inputs.into_iter().chain(saved).chain([cs_grad, h_grad]) {
        op = op.input(t);
    }
    let node = op.attr("use_peephole", use_peephole).build()?;
    (0..8).map(|k| node.output(k)).collect()
}

fn rank_err(msg: String) -> Error {
    Error::invalid_argument(msg)
}

fn seq_len_max(t: &Tensor, timelen: usize) -> Result<usize> {
    let v = t.to_scalar::<i64>()?;
    usize::try_from(v)
        .ok()
        .filter(|&s| s <= timelen)
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "seq_len_max must be between 0 and {timelen} but is {v}"
            ))
        })
}

fn check_scalar(t: &Tensor) -> Result<()> {
    require_rank(t, 0, |r| {
        format!("`seq_len_max_tensor` must be rank 0 but is rank {r}")
    })
}

/// `BlockLSTMOp`'s checks, in its order; the sizes and the time length.
fn check_forward(inputs: &[Tensor]) -> Result<(Dims, usize)> {
    check_scalar(&inputs[0])?;
    let x = &inputs[1];
    if x.rank() != 3 {
        return Err(rank_err("x must be 3D".into()));
    }
    let (timelen, batch, input) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    let (cs_prev, h_prev, w, b) = (&inputs[2], &inputs[3], &inputs[4], &inputs[8]);
    require_rank(cs_prev, 2, |_| "cs_prev must be 2D".into())?;
    require_dim("cs_prev.dims(0) != batch_size", cs_prev.shape()[0], batch)?;
    let cell = cs_prev.shape()[1];
    require_rank(h_prev, 2, |_| "h_prev must be 2D".into())?;
    require_dim("h_prev.dims(0) != batch_size", h_prev.shape()[0], batch)?;
    require_dim("h_prev.dims(1) != cell_size", h_prev.shape()[1], cell)?;
    require_rank(w, 2, |_| "w must be 2D".into())?;
    require_dim(
        "w.dim_size(0) != input_size + cell_size",
        w.shape()[0],
        input + cell,
    )?;
    require_dim("w.dim_size(1) != cell_size * 4", w.shape()[1], cell * 4)?;
    for (t, name) in inputs[5..8].iter().zip(["wci", "wcf", "wco"]) {
        require_rank(t, 1, |_| format!("{name} must be 1D"))?;
        require_dim(
            &format!("{name}.dim_size(0) != cell_size"),
            t.shape()[0],
            cell,
        )?;
    }
    require_rank(b, 1, |_| "b must be 1D".into())?;
    require_dim("b.dim_size(0) != cell_size * 4", b.shape()[0], cell * 4)?;
    Ok((Dims { batch, input, cell }, timelen))
}

struct BlockLstmKernel(GateLayout);

impl Kernel for BlockLstmKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs().to_vec();
        let (d, timelen) = check_forward(&inputs)?;
        let steps = seq_len_max(&inputs[0], timelen)?;
        let dtype = inputs[1].dtype();
        let cfg = config(ctx.node(), self.0, dtype)?;
        let v: Vec<Vec<f32>> = inputs[1..].iter().map(to_f32s).collect::<Result<_>>()?;
        let (x, wt) = (
            &v[0],
            Weights {
                w: &v[3],
                wci: &v[4],
                wcf: &v[5],
                wco: &v[6],
                b: &v[7],
            },
        );
        let (n, xn) = (d.batch * d.cell, d.batch * d.input);
        let mut outs = vec![vec![0.0f32; timelen * n]; 7];
        let mut s = Scratch::default();
        for t in 0..steps {
            let [i, cs, f, o, ci, co, h] = &mut outs[..] else {
                unreachable!("seven outputs")
            };
            let (cs_before, cs_now) = cs.split_at_mut(t * n);
            let (h_before, h_now) = h.split_at_mut(t * n);
            let cs_prev: &[f32] = if t == 0 {
                &v[1]
            } else {
                &cs_before[(t - 1) * n..]
            };
            let h_prev: &[f32] = if t == 0 {
                &v[2]
            } else {
                &h_before[(t - 1) * n..]
            };
            let r = t * n..(t + 1) * n;
            let gates = Gates {
                i: &mut i[r.clone()],
                cs: &mut cs_now[..n],
                f: &mut f[r.clone()],
                o: &mut o[r.clone()],
                ci: &mut ci[r.clone()],
                co: &mut co[r],
                h: &mut h_now[..n],
            };
            fprop(
                &cfg,
                d,
                &x[t * xn..(t + 1) * xn],
                cs_prev,
                h_prev,
                &wt,
                &mut s,
                gates,
            );
        }
        for (k, vals) in outs.into_iter().enumerate() {
            ctx.set_output(k, from_f32s(dtype, &[timelen, d.batch, d.cell], vals)?);
        }
        Ok(())
    }
}

/// `BlockLSTMGradOp`'s checks, in its order, then weir's own checks of the shapes TensorFlow
/// reads without checking; the sizes and the time length.
fn check_backward(inputs: &[Tensor], peephole: bool) -> Result<(Dims, usize)> {
    check_scalar(&inputs[0])?;
    let x = &inputs[1];
    require_rank(x, 3, |r| format!("x must be rank 3 but is rank {r}"))?;
    let (timelen, batch, input) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    for (t, name) in inputs[2..4].iter().zip(["cs_prev", "h_prev"]) {
        require_rank(t, 2, |r| format!("{name} must be rank 2 but is rank {r}"))?;
    }
    let w = &inputs[4];
    require_rank(w, 2, |r| format!("w must be rank 2 but is rank {r}"))?;
    let cols = w.shape()[1];
    if cols == 0 || cols % 4 != 0 {
        return Err(Error::invalid_argument(format!(
            "w matrix columns must be a positive multiple of 4, but got {cols}"
        )));
    }
    let cell = cols / 4;
    if input + cell != w.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "w matrix rows don't match: {} vs. {}",
            input + cell,
            w.shape()[0]
        )));
    }
    for (t, name) in inputs[5..9].iter().zip(["wci", "wcf", "wco", "b"]) {
        require_rank(t, 1, |r| format!("{name} must be rank 1 but is rank {r}"))?;
    }
    let b_len = inputs[8].shape()[0];
    if cell != b_len / 4 {
        return Err(Error::invalid_argument(format!(
            "w and b cell_size don't match: {cell} vs. {b_len}"
        )));
    }
    for (t, name) in inputs[9..16]
        .iter()
        .zip(["i", "cs", "f", "o", "ci", "co", "h"])
    {
        require_rank(t, 3, |r| format!("{name} must be rank 3. Received: {r}"))?;
    }
    let seq = [timelen, batch, cell];
    for (t, name) in inputs[9..18]
        .iter()
        .zip(["i", "cs", "f", "o", "ci", "co", "h", "cs_grad", "h_grad"])
    {
        require_shape(t, name, &seq)?;
    }
    require_shape(&inputs[2], "cs_prev", &[batch, cell])?;
    require_shape(&inputs[3], "h_prev", &[batch, cell])?;
    require_shape(&inputs[8], "b", &[4 * cell])?;
    if peephole {
        for (t, name) in inputs[5..8].iter().zip(["wci", "wcf", "wco"]) {
            require_shape(t, name, &[cell])?;
        }
    }
    Ok((Dims { batch, input, cell }, timelen))
}

struct BlockLstmGradKernel(GateLayout);

impl Kernel for BlockLstmGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs().to_vec();
        let dtype = inputs[1].dtype();
        let cfg = config(ctx.node(), self.0, dtype)?;
        let (d, timelen) = check_backward(&inputs, cfg.peephole)?;
        let steps = seq_len_max(&inputs[0], timelen)?;
        let q = cfg.q;
        let v: Vec<Vec<f32>> = inputs[1..].iter().map(to_f32s).collect::<Result<_>>()?;
        let wt = Weights {
            w: &v[3],
            wci: &v[4],
            wcf: &v[5],
            wco: &v[6],
            b: &v[7],
        };
        let (x, i, cs, f, o, ci, co, h) =
            (&v[0], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14]);
        let (cs_grad, h_grad) = (&v[15], &v[16]);
        let (n, xn, c4, xh_w) = (
            d.batch * d.cell,
            d.batch * d.input,
            4 * d.cell,
            d.input + d.cell,
        );
        let mut x_grad = vec![0.0f32; timelen * xn];
        let mut cs_prev_grad = vec![0.0f32; n];
        let mut h_prev_grad = vec![0.0f32; n];
        let mut w_grad = vec![0.0f32; xh_w * c4];
        let mut b_grad = vec![0.0f32; c4];
        let mut peep_grad = vec![0.0f32; 3 * d.cell];
        let (mut csg, mut hg, mut dgates) =
            (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; d.batch * c4]);
        let (mut xh, mut xh_grad, mut w_step) = (
            Vec::new(),
            vec![0.0f32; d.batch * xh_w],
            vec![0.0f32; xh_w * c4],
        );
        let mut peep = vec![0.0f32; 3 * d.cell];
        for t in (0..steps).rev() {
            let r = t * n..(t + 1) * n;
            for k in 0..n {
                csg[k] = q(cs_prev_grad[k] + cs_grad[r.start + k]);
                hg[k] = q(h_prev_grad[k] + h_grad[r.start + k]);
            }
            let (cs_prev, h_prev) = if t == 0 {
                (&v[1][..], &v[2][..])
            } else {
                (&cs[r.start - n..r.start], &h[r.start - n..r.start])
            };
            let sv = Saved {
                cs_prev,
                i: &i[r.clone()],
                cs: &cs[r.clone()],
                f: &f[r.clone()],
                o: &o[r.clone()],
                ci: &ci[r.clone()],
                co: &co[r.clone()],
            };
            bprop(
                &cfg,
                d,
                &sv,
                &wt,
                &csg,
                &hg,
                &mut dgates,
                &mut cs_prev_grad,
                &mut peep,
            );
            matmul_bt(&dgates, wt.w, d.batch, c4, xh_w, &mut xh_grad);
            for bi in 0..d.batch {
                let row = &xh_grad[bi * xh_w..(bi + 1) * xh_w];
                for (dst, &g) in x_grad[t * xn + bi * d.input..]
                    .iter_mut()
                    .zip(&row[..d.input])
                {
                    *dst = q(g);
                }
                for (dst, &g) in h_prev_grad[bi * d.cell..(bi + 1) * d.cell]
                    .iter_mut()
                    .zip(&row[d.input..])
                {
                    *dst = q(g);
                }
            }
            concat_rows(
                &x[t * xn..(t + 1) * xn],
                h_prev,
                d.batch,
                d.input,
                d.cell,
                &mut xh,
            );
            w_step.fill(0.0);
            matmul_at_acc(&xh, &dgates, d.batch, xh_w, c4, &mut w_step);
            for (acc, &s) in w_grad.iter_mut().zip(&w_step) {
                *acc = q(*acc + q(s));
            }
            for (j, acc) in b_grad.iter_mut().enumerate() {
                let s: f32 = (0..d.batch).map(|bi| dgates[bi * c4 + j]).sum();
                *acc = q(*acc + q(s));
            }
            if cfg.peephole {
                for (acc, &s) in peep_grad.iter_mut().zip(&peep) {
                    *acc = q(*acc + s);
                }
            }
        }
        let dims = |k: usize| inputs[k].shape().to_vec();
        ctx.set_output(0, from_f32s(dtype, &dims(1), x_grad)?);
        ctx.set_output(1, from_f32s(dtype, &dims(2), cs_prev_grad)?);
        ctx.set_output(2, from_f32s(dtype, &dims(3), h_prev_grad)?);
        ctx.set_output(3, from_f32s(dtype, &dims(4), w_grad)?);
        for k in 0..3 {
            let shape = dims(5 + k);
            let vals = if cfg.peephole {
                peep_grad[k * d.cell..(k + 1) * d.cell].to_vec()
            } else {
                vec![0.0; shape.iter().product()]
            };
            ctx.set_output(4 + k, from_f32s(dtype, &shape, vals)?);
        }
        ctx.set_output(7, from_f32s(dtype, &dims(8), b_grad)?);
        Ok(())
    }
}

fn forward_def(name: &str, v2: bool) -> OpDef {
    let mut def = OpDef::new(name).input("seq_len_max", ArgType::Fixed(DType::I64));
    for n in ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"] {
        def = def.input(n, ArgType::Attr("T"));
    }
    for n in ["i", "cs", "f", "o", "ci", "co", "h"] {
        def = def.output(n, ArgType::Attr("T"));
    }
    if !v2 {
        def = def.attr("forget_bias", AttrKind::Float, Some(AttrValue::Float(1.0)));
    }
    let clip = if v2 { 0.0 } else { 3.0 };
    def.attr("cell_clip", AttrKind::Float, Some(AttrValue::Float(clip)))
        .attr("use_peephole", AttrKind::Bool, Some(AttrValue::Bool(false)))
        .type_attr("T", LSTM_TYPES)
        .shape_fn(|ctx| {
            let x = ctx.with_rank(1, 3)?;
            let last = ctx.num_inputs() - 1;
            let b = ctx.with_rank(last, 1)?;
            let (time, batch) = match x.dims() {
                Some(d) => (d[0], d[1]),
                None => (None, None),
            };
            let cell = match b.dims().and_then(|d| d[0]) {
                Some(n) if n % 4 != 0 => {
                    return Err(Error::invalid_argument(format!(
                        "Dimension size must be evenly divisible by 4 but is {n}"
                    )))
                }
                other => other.map(|n| n / 4),
            };
            for k in 0..7 {
                ctx.set_output(k, Shape::new(vec![time, batch, cell]));
            }
            Ok(())
        })
}

fn backward_def(name: &str) -> OpDef {
    let mut def = OpDef::new(name).input("seq_len_max", ArgType::Fixed(DType::I64));
    for n in [
        "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "i", "cs", "f", "o", "ci", "co",
        "h", "cs_grad", "h_grad",
    ] {
        def = def.input(n, ArgType::Attr("T"));
    }
    for n in [
        "x_grad",
        "cs_prev_grad",
        "h_prev_grad",
        "w_grad",
        "wci_grad",
        "wcf_grad",
        "wco_grad",
        "b_grad",
    ] {
        def = def.output(n, ArgType::Attr("T"));
    }
    def.attr("use_peephole", AttrKind::Bool, None)
        .type_attr("T", LSTM_TYPES)
        .shape_fn(|ctx| {
            let ranks = [3, 2, 2, 2, 1, 1, 1, 1];
            let mut shapes = Vec::with_capacity(8);
            for (k, &r) in ranks.iter().enumerate() {
                shapes.push(ctx.with_rank(k + 1, r)?);
            }
            for (k, s) in shapes.into_iter().enumerate() {
                ctx.set_output(k, s);
            }
            Ok(())
        })
}

pub(super) fn register() {
    register_op(forward_def("BlockLSTM", false));
    register_op(forward_def("BlockLSTMV2", true));
    register_op(backward_def("BlockLSTMGrad"));
    register_op(backward_def("BlockLSTMGradV2"));
    register_kernel("BlockLSTM", |_| {
        Ok(Box::new(BlockLstmKernel(GateLayout::Icfo)))
    });
    register_kernel("BlockLSTMV2", |_| {
        Ok(Box::new(BlockLstmKernel(GateLayout::Ifco)))
    });
    register_kernel("BlockLSTMGrad", |_| {
        Ok(Box::new(BlockLstmGradKernel(GateLayout::Icfo)))
    });
    register_kernel("BlockLSTMGradV2", |_| {
        Ok(Box::new(BlockLstmGradKernel(GateLayout::Ifco)))
    });
}
