//! `LSTMBlockCell` (one step of `tf.contrib.rnn.LSTMBlockCell`) and its backward kernel
//! `LSTMBlockCellGrad`.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Error, InferenceContext, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use super::lstm_math::{bprop, fprop, Config, Dims, GateLayout, Gates, Saved, Scratch, Weights};
use super::{from_f32s, require_dim, require_rank, require_shape, rounding, to_f32s, LSTM_TYPES};

/// The options of `tf.raw_ops.LSTMBlockCell`: `forget_bias=1.0`, `cell_clip=3.0` (0 or below
/// disables clipping; `tf.contrib.rnn.LSTMBlockCell` passes -1 unless given one),
/// `use_peephole=False`.
#[derive(Clone, Copy, Debug)]
pub struct LstmBlockCell {
    forget_bias: f32,
    cell_clip: f32,
    use_peephole: bool,
}

impl Default for LstmBlockCell {
    fn default() -> Self {
        LstmBlockCell {
            forget_bias: 1.0,
            cell_clip: 3.0,
            use_peephole: false,
        }
    }
}

/// The seven outputs of `LSTMBlockCell` (or, each with a leading time dimension, of
/// `BlockLSTM`): input gate, cell state, forget gate, output gate, cell input, `tanh(cs)` and
/// the cell output `h`.
#[derive(Clone, Debug)]
pub struct LstmCellOutputs {
    /// The input gate.
    pub i: Output,
    /// The cell state.
    pub cs: Output,
    /// The forget gate.
    pub f: Output,
    /// The output gate.
    pub o: Output,
    /// The cell input (`tanh` of its pre-activation).
    pub ci: Output,
    /// `tanh(cs)`.
    pub co: Output,
    /// The cell output `o * co`.
    pub h: Output,
}

impl LstmCellOutputs {
    pub(super) fn of(op: &weir_graph::Operation) -> Result<LstmCellOutputs> {
        Ok(LstmCellOutputs {
            i: op.output(0)?,
            cs: op.output(1)?,
            f: op.output(2)?,
            o: op.output(3)?,
            ci: op.output(4)?,
            co: op.output(5)?,
            h: op.output(6)?,
        })
    }

    /// The outputs in the op's order.
    pub fn to_vec(&self) -> Vec<Output> {
        vec![
            self.i.clone(),
            self.cs.clone(),
            self.f.clone(),
            self.o.clone(),
            self.ci.clone(),
            self.co.clone(),
            self.h.clone(),
        ]
    }
}

impl LstmBlockCell {
    /// TensorFlow's defaults.
    pub fn new() -> LstmBlockCell {
        LstmBlockCell::default()
    }

    /// Added to the forget gate's pre-activation.
    pub fn forget_bias(mut self, v: f32) -> LstmBlockCell {
        self.forget_bias = v;
        self
    }

    /// Clamps the cell state to `[-v, v]` when `v > 0`.
    pub fn cell_clip(mut self, v: f32) -> LstmBlockCell {
        self.cell_clip = v;
        self
    }

    /// Whether the gates see the cell state through the diagonal weights `wci`, `wcf`, `wco`.
    pub fn use_peephole(mut self, v: bool) -> LstmBlockCell {
        self.use_peephole = v;
        self
    }

    /// Adds the `LSTMBlockCell` node: one LSTM step of `x` (`[batch, input]`) from the state
    /// `cs_prev`, `h_prev` (`[batch, cell]`), with `w` (`[input + cell, 4 cell]`, gates in the
    /// order i, c, f, o), peepholes `wci`, `wcf`, `wco` (`[cell]`) and bias `b` (`[4 cell]`).
    ///
    /// ```
    /// # use weir_graph::Tensor;
    /// # use weir_ops::{array::constant, nn::rnn_block::LstmBlockCell};
    /// let g = weir_graph::Graph::new();
    /// let z = |n: usize| constant(&g, Tensor::from(vec![0.0f32; n])).unwrap();
    /// let m = |r: usize, c: usize| constant(&g, Tensor::from_vec(&[r, c], vec![0.5f32; r * c]).unwrap()).unwrap();
    /// let out = LstmBlockCell::new().build(&m(1, 2), &m(1, 3), &m(1, 3), &m(5, 12), &z(3), &z(3), &z(3), &z(12))?;
    /// assert_eq!(out.h.shape(), weir_graph::Shape::new(vec![Some(1), Some(3)]));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        self,
        x: &Output,
        cs_prev: &Output,
        h_prev: &Output,
        w: &Output,
        wci: &Output,
        wcf: &Output,
        wco: &Output,
        b: &Output,
    ) -> Result<LstmCellOutputs> {
        let mut op = crate::new_op(x.graph(), "LSTMBlockCell");
        for t in [x, cs_prev, h_prev, w, wci, wcf, wco, b] {
            op = op.input(t);
        }
        let node = op
            .attr("forget_bias", self.forget_bias)
            .attr("cell_clip", self.cell_clip)
            .attr("use_peephole", self.use_peephole)
            .build()?;
        LstmCellOutputs::of(&node)
    }
}

/// `tf.raw_ops.LSTMBlockCell` with TensorFlow's defaults (see [`LstmBlockCell`]).
#[allow(clippy::too_many_arguments)]
pub fn lstm_block_cell(
    x: &Output,
    cs_prev: &Output,
    h_prev: &Output,
    w: &Output,
    wci: &Output,
    wcf: &Output,
    wco: &Output,
    b: &Output,
) -> Result<LstmCellOutputs> {
    LstmBlockCell::new().build(x, cs_prev, h_prev, w, wci, wcf, wco, b)
}

/// The outputs of `LSTMBlockCellGrad`: the gradients of `cs_prev`, of the four gate
/// pre-activations (`dicfo`, `[batch, 4 cell]`) and of the peepholes.
#[derive(Clone, Debug)]
pub struct LstmBlockCellGradOutputs {
    /// The gradient of `cs_prev`.
    pub cs_prev_grad: Output,
    /// The gradient of the gate pre-activations, in `w`'s column order.
    pub dicfo: Output,
    /// The gradient of `wci` (zeros without peepholes).
    pub wci_grad: Output,
    /// The gradient of `wcf`.
    pub wcf_grad: Output,
    /// The gradient of `wco`.
    pub wco_grad: Output,
}

/// `tf.raw_ops.LSTMBlockCellGrad`: `inputs` are the forward op's eight inputs (x, cs_prev,
/// h_prev, w, wci, wcf, wco, b), `saved` its outputs i, cs, f, o, ci, co, then the gradients
/// of `cs` and `h`.
pub fn lstm_block_cell_grad(
    inputs: [&Output; 8],
    saved: [&Output; 6],
    cs_grad: &Output,
    h_grad: &Output,
    use_peephole: bool,
) -> Result<LstmBlockCellGradOutputs> {
    let mut op = crate::new_op(inputs[0].graph(), "LSTMBlockCellGrad");
    for t in inputs.into_iter().chain(saved).chain([cs_grad, h_grad]) {
        op = op.input(t);
    }
    let node = op.attr("use_peephole", use_peephole).build()?;
    Ok(LstmBlockCellGradOutputs {
        cs_prev_grad: node.output(0)?,
        dicfo: node.output(1)?,
        wci_grad: node.output(2)?,
        wcf_grad: node.output(3)?,
        wco_grad: node.output(4)?,
    })
}

fn rank_msg(name: &'static str, rank: usize) -> impl FnOnce(usize) -> String {
    move |r| format!("{name} must be rank {rank} but is rank {r}.")
}

/// The checks both kernels make on the forward inputs, in TensorFlow's order (rank checks
/// come first here, where TensorFlow would read dimensions that do not exist); the step's
/// sizes.
fn check_inputs(inputs: &[Tensor]) -> Result<Dims> {
    let names = ["x_tensor", "cs_prev_tensor", "h_prev_tensor", "w_tensor"];
    for (t, name) in inputs.iter().zip(names) {
        require_rank(t, 2, rank_msg(name, 2))?;
    }
    require_rank(&inputs[7], 1, rank_msg("b_tensor", 1))?;
    let (x, cs_prev, h_prev, w, b) = (&inputs[0], &inputs[1], &inputs[2], &inputs[3], &inputs[7]);
    let (batch, input, cell) = (x.shape()[0], x.shape()[1], cs_prev.shape()[1]);
    require_dim("cs_prev.dims(0) != batch_size", cs_prev.shape()[0], batch)?;
    require_dim("h_prev.dims(0) != batch_size", h_prev.shape()[0], batch)?;
    require_dim("h_prev.dims(1) != cell_size", h_prev.shape()[1], cell)?;
    require_dim(
        "w.dim_size(0) != input_size + cell_size",
        w.shape()[0],
        input + cell,
    )?;
    require_dim("w.dim_size(1) != cell_size * 4", w.shape()[1], cell * 4)?;
    require_dim("b.dim_size(0) != cell_size * 4", b.shape()[0], cell * 4)?;
    Ok(Dims { batch, input, cell })
}

/// With peepholes, `wci`, `wcf` and `wco` must hold one weight per cell (weir's own check:
/// TensorFlow reads past them).
fn check_peepholes(inputs: &[Tensor], cell: usize) -> Result<()> {
    for (t, name) in inputs[4..7].iter().zip(["wci", "wcf", "wco"]) {
        require_shape(t, name, &[cell])?;
    }
    Ok(())
}

/// The step configuration of a node: its attrs (`BlockLSTMV2` has no `forget_bias`, the grad
/// ops no `cell_clip`; both act as 0) and the rounding of `dtype`.
pub(super) fn config(node: &Node, layout: GateLayout, dtype: weir_graph::DType) -> Result<Config> {
    let float = |name: &str| -> Result<f32> {
        match node.attr_value(name) {
            Some(_) => node.attr::<f32>(name),
            None => Ok(0.0),
        }
    };
    Ok(Config {
        forget_bias: float("forget_bias")?,
        cell_clip: float("cell_clip")?,
        peephole: node.attr::<bool>("use_peephole")?,
        layout,
        q: rounding(dtype),
    })
}

struct LstmBlockCellKernel;

impl Kernel for LstmBlockCellKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs().to_vec();
        let d = check_inputs(&inputs)?;
        let cs_prev = &inputs[1];
        if d.batch == 0 || d.cell == 0 {
            return Err(Error::invalid_argument(format!(
                "cs_prev_tensor is empty, has shape: ({},{}).",
                cs_prev.shape()[0],
                cs_prev.shape()[1]
            )));
        }
        for (t, name) in inputs[4..7]
            .iter()
            .zip(["wci_tensor", "wcf_tensor", "wco_tensor"])
        {
            require_rank(t, 1, rank_msg(name, 1))?;
        }
        let dtype = inputs[0].dtype();
        let cfg = config(ctx.node(), GateLayout::Icfo, dtype)?;
        if cfg.peephole {
            check_peepholes(&inputs, d.cell)?;
        }
        let v: Vec<Vec<f32>> = inputs.iter().map(to_f32s).collect::<Result<_>>()?;
        let wt = Weights {
            w: &v[3],
            wci: &v[4],
            wcf: &v[5],
            wco: &v[6],
            b: &v[7],
        };
        let n = d.batch * d.cell;
        let mut outs = vec![vec![0.0f32; n]; 7];
        {
            let [i, cs, f, o, ci, co, h] = &mut outs[..] else {
                unreachable!("seven outputs")
            };
            let gates = Gates {
                i,
                cs,
                f,
                o,
                ci,
                co,
                h,
            };
            fprop(
                &cfg,
                d,
                &v[0],
                &v[1],
                &v[2],
                &wt,
                &mut Scratch::default(),
                gates,
            );
        }
        for (k, vals) in outs.into_iter().enumerate() {
            ctx.set_output(k, from_f32s(dtype, &[d.batch, d.cell], vals)?);
        }
        Ok(())
    }
}

struct LstmBlockCellGradKernel;

impl Kernel for LstmBlockCellGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs().to_vec();
        let d = check_inputs(&inputs)?;
        let named = [
            ("i", "i.dim_size", 8),
            ("cs", "cs.dim_size", 9),
            ("f", "f.dim_size", 10),
            ("o", "o.dim_size", 11),
            ("ci", "ci.dim_size", 12),
            ("co", "co.dim_size", 13),
            ("cs_grad", "cs_grad_tensor.dims", 14),
            ("h_grad", "h_grad_tensor.dims", 15),
        ];
        for (name, what, k) in named {
            let t = &inputs[k];
            require_rank(t, 2, |r| format!("{name} must be rank 2 but is rank {r}"))?;
            require_dim(&format!("{what}(0) != batch_size"), t.shape()[0], d.batch)?;
            // TensorFlow's message for `f`'s second dimension names `i`.
            let what1 = if name == "f" { "i.dim_size" } else { what };
            require_dim(&format!("{what1}(1) != cell_size"), t.shape()[1], d.cell)?;
        }
        let dtype = inputs[0].dtype();
        let cfg = config(ctx.node(), GateLayout::Icfo, dtype)?;
        if cfg.peephole {
            check_peepholes(&inputs, d.cell)?;
        }
        let v: Vec<Vec<f32>> = inputs.iter().map(to_f32s).collect::<Result<_>>()?;
        let wt = Weights {
            w: &v[3],
            wci: &v[4],
            wcf: &v[5],
            wco: &v[6],
            b: &v[7],
        };
        let sv = Saved {
            cs_prev: &v[1],
            i: &v[8],
            cs: &v[9],
            f: &v[10],
            o: &v[11],
            ci: &v[12],
            co: &v[13],
        };
        let mut dgates = vec![0.0f32; d.batch * 4 * d.cell];
        let mut cs_prev_grad = vec![0.0f32; d.batch * d.cell];
        let mut peep = vec![0.0f32; 3 * d.cell];
        bprop(
            &cfg,
            d,
            &sv,
            &wt,
            &v[14],
            &v[15],
            &mut dgates,
            &mut cs_prev_grad,
            &mut peep,
        );
        ctx.set_output(0, from_f32s(dtype, &[d.batch, d.cell], cs_prev_grad)?);
        ctx.set_output(1, from_f32s(dtype, &[d.batch, 4 * d.cell], dgates)?);
        for k in 0..3 {
            let shape = inputs[4 + k].shape().to_vec();
            let vals = if cfg.peephole {
                peep[k * d.cell..(k + 1) * d.cell].to_vec()
            } else {
                vec![0.0; shape.iter().product()]
            };
            ctx.set_output(2 + k, from_f32s(dtype, &shape, vals)?);
        }
        Ok(())
    }
}

/// The shape both cell ops start from: `x` and `cs_prev` as matrices; `(batch, cell)`.
fn cell_dims(ctx: &InferenceContext<'_>) -> Result<(Option<usize>, Option<usize>)> {
    let x = ctx.with_rank(0, 2)?;
    let cs = ctx.with_rank(1, 2)?;
    let batch = x.dims().and_then(|d| d[0]);
    let cell = cs.dims().and_then(|d| d[1]);
    Ok((batch, cell))
}

fn inputs_of(def: OpDef) -> OpDef {
    ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"]
        .into_iter()
        .fold(def, |d, n| d.input(n, ArgType::Attr("T")))
}

pub(super) fn register() {
    let outputs = |def: OpDef| {
        ["i", "cs", "f", "o", "ci", "co", "h"]
            .into_iter()
            .fold(def, |d, n| d.output(n, ArgType::Attr("T")))
    };
    register_op(
        outputs(inputs_of(OpDef::new("LSTMBlockCell")))
            .attr("forget_bias", AttrKind::Float, Some(AttrValue::Float(1.0)))
            .attr("cell_clip", AttrKind::Float, Some(AttrValue::Float(3.0)))
            .attr("use_peephole", AttrKind::Bool, Some(AttrValue::Bool(false)))
            .type_attr("T", LSTM_TYPES)
            .shape_fn(|ctx| {
                let (batch, cell) = cell_dims(ctx)?;
                for k in 0..7 {
                    ctx.set_output(k, Shape::new(vec![batch, cell]));
                }
                Ok(())
            }),
    );
    let grad_inputs = ["i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad"]
        .into_iter()
        .fold(inputs_of(OpDef::new("LSTMBlockCellGrad")), |d, n| {
            d.input(n, ArgType::Attr("T"))
        });
    register_op(
        ["cs_prev_grad", "dicfo", "wci_grad", "wcf_grad", "wco_grad"]
            .into_iter()
            .fold(grad_inputs, |d, n| d.output(n, ArgType::Attr("T")))
            .attr("use_peephole", AttrKind::Bool, None)
            .type_attr("T", LSTM_TYPES)
            .shape_fn(|ctx| {
                let (batch, cell) = cell_dims(ctx)?;
                ctx.set_output(0, Shape::new(vec![batch, cell]));
                ctx.set_output(1, Shape::new(vec![batch, cell.map(|c| 4 * c)]));
                for k in 2..5 {
                    ctx.set_output(k, Shape::new(vec![cell]));
                }
                Ok(())
            }),
    );
    register_kernel("LSTMBlockCell", |_| Ok(Box::new(LstmBlockCellKernel)));
    register_kernel("LSTMBlockCellGrad", |_| {
        Ok(Box::new(LstmBlockCellGradKernel))
    });
}
