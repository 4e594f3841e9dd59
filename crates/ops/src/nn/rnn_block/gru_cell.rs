//! `GRUBlockCell` (one step of `tf.contrib.rnn.GRUBlockCell`) and its backward kernel
//! `GRUBlockCellGrad`, as TensorFlow's `GRUBlockCellFprop`/`GRUBlockCellBprop` compute them.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{ArgType, Kernel, OpContext, OpDef, Output, Result, Shape, Tensor};

use super::{
    concat_rows, matmul, matmul_bt, require_dim, require_rank, sigmoid, to_f32s, GRU_TYPES,
};

/// The outputs of `GRUBlockCell`, each `[batch, cell]`: reset gate, update gate, candidate
/// and the new state `h = u * h_prev + (1 - u) * c`.
#[derive(Clone, Debug)]
pub struct GruBlockCellOutputs {
    /// The reset gate.
    pub r: Output,
    /// The update gate.
    pub u: Output,
    /// The candidate state.
    pub c: Output,
    /// The new state (and the cell's output).
    pub h: Output,
}

/// `tf.raw_ops.GRUBlockCell(x, h_prev, w_ru, w_c, b_ru, b_c)`: one GRU step of `x`
/// (`[batch, input]`) from `h_prev` (`[batch, cell]`), with the gate weights `w_ru`
/// (`[input + cell, 2 cell]`, reset then update) and `b_ru`, and the candidate's `w_c`
/// (`[input + cell, cell]`) and `b_c`.
pub fn gru_block_cell(
    x: &Output,
    h_prev: &Output,
    w_ru: &Output,
    w_c: &Output,
    b_ru: &Output,
    b_c: &Output,
) -> Result<GruBlockCellOutputs> {
    let mut op = crate::new_op(x.graph(), "GRUBlockCell");
    for t in [x, h_prev, w_ru, w_c, b_ru, b_c] {
        op = op.input(t);
    }
    let node = op.build()?;
    Ok(GruBlockCellOutputs {
        r: node.output(0)?,
        u: node.output(1)?,
        c: node.output(2)?,
        h: node.output(3)?,
    })
}

/// The outputs of `GRUBlockCellGrad`.
#[derive(Clone, Debug)]
pub struct GruBlockCellGradOutputs {
    /// The gradient of `x`.
    pub d_x: Output,
    /// The gradient of `h_prev`.
    pub d_h_prev: Output,
    /// The gradient of the candidate's pre-activation (`[batch, cell]`).
    pub d_c_bar: Output,
    /// The gradient of the gates' pre-activations (`[batch, 2 cell]`).
    pub d_r_bar_u_bar: Output,
}

/// `tf.raw_ops.GRUBlockCellGrad`: `inputs` are the forward op's six inputs, then its outputs
/// `r`, `u`, `c` and the gradient of `h`.
pub fn gru_block_cell_grad(
    inputs: [&Output; 6],
    r: &Output,
    u: &Output,
    c: &Output,
    d_h: &Output,
) -> Result<GruBlockCellGradOutputs> {
    let mut op = crate::new_op(inputs[0].graph(), "GRUBlockCellGrad");
    for t in inputs.into_iter().chain([r, u, c, d_h]) {
        op = op.input(t);
    }
    let node = op.build()?;
    Ok(GruBlockCellGradOutputs {
        d_x: node.output(0)?,
        d_h_prev: node.output(1)?,
        d_c_bar: node.output(2)?,
        d_r_bar_u_bar: node.output(3)?,
    })
}

#[derive(Clone, Copy)]
struct Dims {
    batch: usize,
    input: usize,
    cell: usize,
}

/// The checks both kernels make on the six forward inputs, in TensorFlow's order and words.
fn check_inputs(t: &[Tensor]) -> Result<Dims> {
    require_rank(&t[0], 2, |r| format!("Rank of x must be 2, got {r}"))?;
    let (batch, input) = (t[0].shape()[0], t[0].shape()[1]);
    require_rank(&t[1], 2, |r| format!("Rank of h_prev must be 2, got {r}"))?;
    require_dim("h_prev.dims(0) != batch_size", t[1].shape()[0], batch)?;
    let cell = t[1].shape()[1];
    require_rank(&t[2], 2, |r| format!("Rank of w_ru_ must be 2, got {r}"))?;
    require_dim(
        "w_ru.dim_size(0) != input_size + cell_size",
        t[2].shape()[0],
        input + cell,
    )?;
    require_dim(
        "w_ru.dim_size(1) != cell_size * 2",
        t[2].shape()[1],
        cell * 2,
    )?;
    require_rank(&t[3], 2, |r| format!("Rank of w_c must be 2, got {r}"))?;
    require_dim(
        "w_c.dim_size(0) != input_size + cell_size",
        t[3].shape()[0],
        input + cell,
    )?;
    require_dim("w_c.dim_size(1) != cell_size", t[3].shape()[1], cell)?;
    require_rank(&t[4], 1, |r| format!("Rank of b_ru must be 1, got {r}"))?;
    require_dim(
        "b_ru.dim_size(0) != cell_size * 2",
        t[4].shape()[0],
        cell * 2,
    )?;
    require_rank(&t[5], 1, |r| format!("Rank of b_c must be 1, got {r}"))?;
    require_dim("b_c.dim_size(0) != cell_size", t[5].shape()[0], cell)?;
    Ok(Dims { batch, input, cell })
}

struct GruBlockCellKernel;

impl Kernel for GruBlockCellKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs().to_vec();
        let d = check_inputs(&inputs)?;
        let v: Vec<Vec<f32>> = inputs.iter().map(to_f32s).collect::<Result<_>>()?;
        let (x, h_prev, w_ru, w_c, b_ru, b_c) = (&v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
        let (n, c2, xh_w) = (d.batch * d.cell, 2 * d.cell, d.input + d.cell);
        let mut xh = Vec::with_capacity(d.batch * xh_w);
        concat_rows(x, h_prev, d.batch, d.input, d.cell, &mut xh);
        let mut ru = vec![0.0f32; d.batch * c2];
        matmul(&xh, w_ru, d.batch, xh_w, c2, &mut ru);
        let (mut r, mut u) = (vec![0.0f32; n], vec![0.0f32; n]);
        let mut hr = vec![0.0f32; n];
        for bi in 0..d.batch {
            for j in 0..d.cell {
                let k = bi * d.cell + j;
                r[k] = sigmoid(ru[bi * c2 + j] + b_ru[j]);
                u[k] = sigmoid(ru[bi * c2 + d.cell + j] + b_ru[d.cell + j]);
                hr[k] = h_prev[k] * r[k];
            }
        }
        concat_rows(x, &hr, d.batch, d.input, d.cell, &mut xh);
        let mut c = vec![0.0f32; n];
        matmul(&xh, w_c, d.batch, xh_w, d.cell, &mut c);
        let mut h = vec![0.0f32; n];
        for (k, cv) in c.iter_mut().enumerate() {
            *cv = (*cv + b_c[k % d.cell.max(1)]).tanh();
            h[k] = u[k] * (h_prev[k] - *cv) + *cv;
        }
        let dims = [d.batch, d.cell];
        for (k, vals) in [r, u, c, h].into_iter().enumerate() {
            ctx.set_output(k, Tensor::from_vec(&dims, vals)?);
        }
        Ok(())
    }
}

struct GruBlockCellGradKernel;

impl Kernel for GruBlockCellGradKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs = ctx.inputs().to_vec();
        let d = check_inputs(&inputs)?;
        // TensorFlow's rank message for `c` names `w_c`.
        for (k, name, rank_name) in [
            (6, "r", "r"),
            (7, "u", "u"),
            (8, "c", "w_c"),
            (9, "d_h", "d_h"),
        ] {
            let t = &inputs[k];
            require_rank(t, 2, |r| format!("Rank of {rank_name} must be 2, got {r}"))?;
            require_dim(
                &format!("{name}.dims(0) != batch_size"),
                t.shape()[0],
                d.batch,
            )?;
            require_dim(
                &format!("{name}.dims(1) != cell_size"),
                t.shape()[1],
                d.cell,
            )?;
        }
        let v: Vec<Vec<f32>> = inputs.iter().map(to_f32s).collect::<Result<_>>()?;
        let (h_prev, w_ru, w_c) = (&v[1], &v[2], &v[3]);
        let (r, u, c, d_h) = (&v[6], &v[7], &v[8], &v[9]);
        let (n, c2, xh_w) = (d.batch * d.cell, 2 * d.cell, d.input + d.cell);
        let mut d_c_bar = vec![0.0f32; n];
        let mut d_ru = vec![0.0f32; d.batch * c2];
        for k in 0..n {
            d_c_bar[k] = (d_h[k] * (1.0 - u[k])) * (1.0 - c[k] * c[k]);
            let (bi, j) = (k / d.cell, k % d.cell);
            d_ru[bi * c2 + d.cell + j] = d_h[k] * (h_prev[k] - c[k]) * u[k] * (1.0 - u[k]);
        }
        let mut comp2 = vec![0.0f32; d.batch * xh_w];
        matmul_bt(&d_c_bar, w_c, d.batch, d.cell, xh_w, &mut comp2);
        let mut d_hr = vec![0.0f32; n];
        for k in 0..n {
            let (bi, j) = (k / d.cell, k % d.cell);
            d_hr[k] = comp2[bi * xh_w + d.input + j];
            d_ru[bi * c2 + j] = (d_hr[k] * h_prev[k] * r[k]) * (1.0 - r[k]);
        }
        let mut comp1 = vec![0.0f32; d.batch * xh_w];
        matmul_bt(&d_ru, w_ru, d.batch, c2, xh_w, &mut comp1);
        let mut d_x = Vec::with_capacity(d.batch * d.input);
        for bi in 0..d.batch {
            let (a, b) = (&comp1[bi * xh_w..], &comp2[bi * xh_w..]);
            d_x.extend((0..d.input).map(|j| a[j] + b[j]));
        }
        let mut d_h_prev = vec![0.0f32; n];
        for k in 0..n {
            let (bi, j) = (k / d.cell, k % d.cell);
            d_h_prev[k] = comp1[bi * xh_w + d.input + j] + d_hr[k] * r[k] + d_h[k] * u[k];
        }
        ctx.set_output(0, Tensor::from_vec(&[d.batch, d.input], d_x)?);
        ctx.set_output(1, Tensor::from_vec(&[d.batch, d.cell], d_h_prev)?);
        ctx.set_output(2, Tensor::from_vec(&[d.batch, d.cell], d_c_bar)?);
        ctx.set_output(3, Tensor::from_vec(&[d.batch, c2], d_ru)?);
        Ok(())
    }
}

pub(super) fn register() {
    let inputs = |def: OpDef| {
        ["x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"]
            .into_iter()
            .fold(def, |d, n| d.input(n, ArgType::Attr("T")))
    };
    register_op(
        inputs(OpDef::new("GRUBlockCell"))
            .output("r", ArgType::Attr("T"))
            .output("u", ArgType::Attr("T"))
            .output("c", ArgType::Attr("T"))
            .output("h", ArgType::Attr("T"))
            .type_attr("T", GRU_TYPES)
            .shape_fn(|ctx| {
                let x = ctx.with_rank(0, 2)?;
                let h = ctx.with_rank(1, 2)?;
                let batch = x.dims().and_then(|d| d[0]);
                let cell = h.dims().and_then(|d| d[1]);
                for k in 0..4 {
                    ctx.set_output(k, Shape::new(vec![batch, cell]));
                }
                Ok(())
            }),
    );
    register_op(
        ["r", "u", "c", "d_h"]
            .into_iter()
            .fold(inputs(OpDef::new("GRUBlockCellGrad")), |d, n| {
                d.input(n, ArgType::Attr("T"))
            })
            .output("d_x", ArgType::Attr("T"))
            .output("d_h_prev", ArgType::Attr("T"))
            .output("d_c_bar", ArgType::Attr("T"))
            .output("d_r_bar_u_bar", ArgType::Attr("T"))
            .type_attr("T", GRU_TYPES)
            .shape_fn(|ctx| {
                let x = ctx.with_rank(0, 2)?;
                let h = ctx.with_rank(1, 2)?;
                let w_ru = ctx.with_rank(2, 2)?;
                let batch = x.dims().and_then(|d| d[0]);
                let cell = h.dims().and_then(|d| d[1]);
                let twice = w_ru.dims().and_then(|d| d[1]);
                ctx.set_output(0, x);
                ctx.set_output(1, Shape::new(vec![batch, cell]));
                ctx.set_output(2, Shape::new(vec![batch, cell]));
                ctx.set_output(3, Shape::new(vec![batch, twice]));
                Ok(())
            }),
    );
    register_kernel("GRUBlockCell", |_| Ok(Box::new(GruBlockCellKernel)));
    register_kernel("GRUBlockCellGrad", |_| Ok(Box::new(GruBlockCellGradKernel)));
}
