//! One LSTM step forward and backward, as TensorFlow's `LSTMBlockCellFprop` and
//! `LSTMBlockCellBprop` functors compute it (`lstm_ops.cc`, `lstm_ops.h`), shared by the cell
//! and the sequence kernels.

use super::{concat_rows, matmul, sigmoid};

/// Where the cell-input and forget gates lie among `w`'s four column blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GateLayout {
    /// Input, cell input, forget, output: `LSTMBlockCell` and `BlockLSTM`.
    Icfo,
    /// Input, forget, cell input, output: `BlockLSTMV2`.
    Ifco,
}

impl GateLayout {
    fn c_offset(self, cell: usize) -> usize {
        match self {
            GateLayout::Icfo => cell,
            GateLayout::Ifco => 2 * cell,
        }
    }

    fn f_offset(self, cell: usize) -> usize {
        match self {
            GateLayout::Icfo => 2 * cell,
            GateLayout::Ifco => cell,
        }
    }
}

/// The sizes of one step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dims {
    pub batch: usize,
    pub input: usize,
    pub cell: usize,
}

/// The step's attributes and the rounding of its element type.
#[derive(Clone, Copy)]
pub(super) struct Config {
    pub forget_bias: f32,
    pub cell_clip: f32,
    pub peephole: bool,
    pub layout: GateLayout,
    /// Rounds a value to the kernel's element type (identity for float).
    pub q: fn(f32) -> f32,
}

/// The step's weights: `w` is `(input + cell) x 4 cell`, the rest `cell` or `4 cell` long.
pub(super) struct Weights<'a> {
    pub w: &'a [f32],
    pub wci: &'a [f32],
    pub wcf: &'a [f32],
    pub wco: &'a [f32],
    pub b: &'a [f32],
}

/// The seven `batch x cell` outputs of a step, in the op's order.
pub(super) struct Gates<'a> {
    pub i: &'a mut [f32],
    pub cs: &'a mut [f32],
    pub f: &'a mut [f32],
    pub o: &'a mut [f32],
    pub ci: &'a mut [f32],
    pub co: &'a mut [f32],
    pub h: &'a mut [f32],
}

/// Reused buffers: `[x, h_prev]` and the gate pre-activations.
#[derive(Default)]
pub(super) struct Scratch {
    pub xh: Vec<f32>,
    pub gates: Vec<f32>,
}

/// `clip(v, -c, c)` as Eigen's `scalar_clip_op` orders its comparisons, so NaN stays NaN.
fn clip(v: f32, c: f32) -> f32 {
    let lo = if v < -c { -c } else { v };
    if c < lo {
        c
    } else {
        lo
    }
}

/// One forward step: `gates = [x, h_prev] w + b`, then the gates, cell state and output.
#[allow(clippy::too_many_arguments)]
pub(super) fn fprop(
    cfg: &Config,
    d: Dims,
    x: &[f32],
    cs_prev: &[f32],
    h_prev: &[f32],
    wt: &Weights<'_>,
    s: &mut Scratch,
    out: Gates<'_>,
) {
    let (q, c4) = (cfg.q, 4 * d.cell);
    concat_rows(x, h_prev, d.batch, d.input, d.cell, &mut s.xh);
    s.gates.resize(d.batch * c4, 0.0);
    matmul(&s.xh, wt.w, d.batch, d.input + d.cell, c4, &mut s.gates);
    for row in s.gates.chunks_mut(c4.max(1)) {
        for (g, &bias) in row.iter_mut().zip(wt.b) {
            *g = q(q(*g) + bias);
        }
    }
    let (co_off, fo_off, oo_off) = (
        cfg.layout.c_offset(d.cell),
        cfg.layout.f_offset(d.cell),
        3 * d.cell,
    );
    let fb = q(cfg.forget_bias);
    let clip_at = q(cfg.cell_clip);
    for bi in 0..d.batch {
        let g = &s.gates[bi * c4..(bi + 1) * c4];
        for j in 0..d.cell {
            let k = bi * d.cell + j;
            let cp = cs_prev[k];
            let gi = if cfg.peephole {
                q(g[j] + q(cp * wt.wci[j]))
            } else {
                g[j]
            };
            let i = q(sigmoid(gi));
            let ci = q(g[co_off + j].tanh());
            let gf = q(g[fo_off + j] + fb);
            let gf = if cfg.peephole {
                q(gf + q(cp * wt.wcf[j]))
            } else {
                gf
            };
            let f = q(sigmoid(gf));
            let mut cs = q(q(i * ci) + q(f * cp));
            if cfg.cell_clip > 0.0 {
                cs = clip(cs, clip_at);
            }
            let co = q(cs.tanh());
            let go = g[oo_off + j];
            let go = if cfg.peephole {
                q(go + q(cs * wt.wco[j]))
            } else {
                go
            };
            let o = q(sigmoid(go));
            out.i[k] = i;
            out.cs[k] = cs;
            out.f[k] = f;
            out.o[k] = o;
            out.ci[k] = ci;
            out.co[k] = co;
            out.h[k] = q(o * co);
        }
    }
}

/// A step's saved forward values, each `batch x cell`.
pub(super) struct Saved<'a> {
    pub cs_prev: &'a [f32],
    pub i: &'a [f32],
    pub cs: &'a [f32],
    pub f: &'a [f32],
    pub o: &'a [f32],
    pub ci: &'a [f32],
    pub co: &'a [f32],
}

/// One backward step from the gradients of the cell state and output: writes the gradient of
/// the four gate pre-activations (`dgates`, `batch x 4 cell`, in `cfg.layout`) and of
/// `cs_prev`, and (with peepholes) the batch sums of the peephole gradients into `peep`
/// (`wci`, `wcf`, `wco`, each `cell` long); without peepholes `peep` is left alone.
#[allow(clippy::too_many_arguments)]
pub(super) fn bprop(
    cfg: &Config,
    d: Dims,
    sv: &Saved<'_>,
    wt: &Weights<'_>,
    cs_grad: &[f32],
    h_grad: &[f32],
    dgates: &mut [f32],
    cs_prev_grad: &mut [f32],
    peep: &mut [f32],
) {
    let (q, c4) = (cfg.q, 4 * d.cell);
    let (co_off, fo_off, oo_off) = (
        cfg.layout.c_offset(d.cell),
        cfg.layout.f_offset(d.cell),
        3 * d.cell,
    );
    if cfg.peephole {
        peep[..3 * d.cell].fill(0.0);
    }
    for bi in 0..d.batch {
        for j in 0..d.cell {
            let k = bi * d.cell + j;
            let (i, f, o, ci, co) = (sv.i[k], sv.f[k], sv.o[k], sv.ci[k], sv.co[k]);
            let (cp, hg) = (sv.cs_prev[k], h_grad[k]);
            let do_ = q(q(q(o * q(1.0 - o)) * hg) * co);
            let mut dcs = q(q(q(q(1.0 - q(co * co)) * hg) * o) + cs_grad[k]);
            if cfg.peephole {
                dcs = q(dcs + q(do_ * wt.wco[j]));
            }
            let dci = q(q(q(1.0 - q(ci * ci)) * dcs) * i);
            let df = q(q(q(f * q(1.0 - f)) * dcs) * cp);
            let di = q(q(q(i * q(1.0 - i)) * dcs) * ci);
            let row = &mut dgates[bi * c4..(bi + 1) * c4];
            row[j] = di;
            row[co_off + j] = dci;
            row[fo_off + j] = df;
            row[oo_off + j] = do_;
            let mut cpg = q(dcs * f);
            if cfg.peephole {
                cpg = q(q(cpg + q(di * wt.wci[j])) + q(df * wt.wcf[j]));
                peep[j] += di * cp;
                peep[d.cell + j] += df * cp;
                peep[2 * d.cell + j] += do_ * sv.cs[k];
            }
            cs_prev_grad[k] = cpg;
        }
    }
    if cfg.peephole {
        for v in &mut peep[..3 * d.cell] {
            *v = q(*v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_nan_and_bounds_both_sides() {
        assert_eq!(clip(5.0, 2.0), 2.0);
        assert_eq!(clip(-5.0, 2.0), -2.0);
        assert_eq!(clip(1.5, 2.0), 1.5);
        assert!(clip(f32::NAN, 2.0).is_nan());
    }

    #[test]
    fn v2_swaps_the_cell_input_and_forget_blocks() {
        assert_eq!(
            (GateLayout::Icfo.c_offset(3), GateLayout::Icfo.f_offset(3)),
            (3, 6)
        );
        assert_eq!(
            (GateLayout::Ifco.c_offset(3), GateLayout::Ifco.f_offset(3)),
            (6, 3)
        );
    }

    #[test]
    fn one_step_by_hand() {
        // batch 1, input 1, cell 1, w all zero: every gate sees only its bias.
        let cfg = Config {
            forget_bias: 1.0,
            cell_clip: -1.0,
            peephole: false,
            layout: GateLayout::Icfo,
            q: |v| v,
        };
        let d = Dims {
            batch: 1,
            input: 1,
            cell: 1,
        };
        let (w, b, z) = ([0.0f32; 8], [0.5f32, -0.25, 0.0, 2.0], [0.0f32]);
        let wt = Weights {
            w: &w,
            wci: &z,
            wcf: &z,
            wco: &z,
            b: &b,
        };
        let mut o = [[0.0f32]; 7];
        let [i, cs, f, og, ci, co, h] = &mut o;
        let gates = Gates {
            i,
            cs,
            f,
            o: og,
            ci,
            co,
            h,
        };
        fprop(
            &cfg,
            d,
            &[1.0],
            &[0.5],
            &[0.0],
            &wt,
            &mut Scratch::default(),
            gates,
        );
        let sig = |x: f32| 1.0 / (1.0 + (-x).exp());
        let (i, ci, f) = (sig(0.5), (-0.25f32).tanh(), sig(1.0));
        let cs = i * ci + f * 0.5;
        assert_eq!(o[0][0], i);
        assert_eq!(o[1][0], cs);
        assert_eq!(o[6][0], sig(2.0) * cs.tanh());
    }
}
