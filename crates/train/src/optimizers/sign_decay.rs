//! `tf.contrib.opt`'s sign decay functions (`sign_decay.py`): the schedules AddSign and
//! PowerSign multiply `sign(g) * sign(m)` by, computed in float32 from the global step with
//! TensorFlow's ops in TensorFlow's order.

use std::sync::Arc;

use weir_graph::{DType, Error, Output, Result};
use weir_ops::array::constant;
use weir_ops::math::{add, cast, cos, floormod, greater_equal, maximum, minimum, mul, realdiv};
use weir_ops::math::{select, sub};
use weir_ops::state::Variable;

/// A sign decay function: given the global step `apply_gradients` receives (`None` when it
/// gets none), the float32 decay of this step.
pub type SignDecayFn = Arc<dyn Fn(Option<&Variable>) -> Result<Output> + Send + Sync>;

fn f32_const(step: &Output, v: f64) -> Result<Output> {
    constant(step.graph(), v as f32)
}

/// `min(global_step, decay_steps)` in the step's dtype.
fn clipped(step: &Variable, decay_steps: i64) -> Result<Output> {
    let s = Output::from(step);
    let d = constant(
        s.graph(),
        weir_graph::scalar_of(s.dtype(), decay_steps as f64)?,
    )?;
    minimum(&s, d)
}

fn required(step: Option<&Variable>, what: &str) -> Result<Variable> {
    step.cloned()
        .ok_or_else(|| Error::invalid_argument(format!("global_step is required for {what}.")))
}

/// `0.5 * (1 + cos(pi * fraction))`, with float32 `pi`.
fn half_cosine(fraction: &Output) -> Result<Output> {
    let pi = f32_const(fraction, std::f64::consts::PI)?;
    let c = cos(mul(pi, fraction)?)?;
    mul(
        f32_const(fraction, 0.5)?,
        add(f32_const(fraction, 1.0)?, c)?,
    )
}

/// `tf.contrib.opt.sign_decay.get_linear_decay_fn(decay_steps)`: linear annealing,
/// `max(0, (decay_steps - global_step) / decay_steps)`, the difference taken in int32.
pub fn get_linear_decay_fn(decay_steps: i64) -> SignDecayFn {
    Arc::new(move |step| {
        let step = required(step, "linear_decay")?;
        let gs = clipped(&step, decay_steps)?;
        let g = gs.graph().clone();
        let remaining = sub(constant(&g, decay_steps as i32)?, cast(&gs, DType::I32)?)?;
        let decayed = realdiv(
            cast(remaining, DType::F32)?,
            constant(&g, decay_steps as f32)?,
        )?;
        maximum(constant(&g, 0.0f32)?, decayed)
    })
}

/// `tf.contrib.opt.sign_decay.get_cosine_decay_fn(decay_steps, num_periods=0.5,
/// zero_after=None)` (`None` takes TensorFlow's default): cosine annealing,
/// `0.5 * (1 + cos(2 * pi * num_periods * global_step / decay_steps))`, 0 once
/// `2 * num_periods * global_step / decay_steps` reaches `2 * zero_after`.
pub fn get_cosine_decay_fn(
    decay_steps: i64,
    num_periods: Option<f64>,
    zero_after: Option<f64>,
) -> SignDecayFn {
    let num_periods = num_periods.unwrap_or(0.5);
    Arc::new(move |step| {
        let step = required(step, "cosine_decay")?;
        let gs = clipped(&step, decay_steps)?;
        let completed = realdiv(
            cast(&gs, DType::F32)?,
            constant(gs.graph(), decay_steps as f32)?,
        )?;
        let fraction = mul(f32_const(&completed, 2.0 * num_periods)?, &completed)?;
        let decayed = half_cosine(&fraction)?;
        match zero_after {
            None => Ok(decayed),
            Some(z) => {
                let off = greater_equal(&fraction, f32_const(&fraction, 2.0 * z)?)?;
                select(off, f32_const(&fraction, 0.0)?, decayed)
            }
        }
    })
}

/// `tf.contrib.opt.sign_decay.get_restart_decay_fn(decay_steps, num_periods=1,
/// zero_after=None)` (`None` takes TensorFlow's default): a cosine decay restarted every
/// `decay_steps / num_periods` steps, `0.5 * (1 + cos(pi * (num_periods * global_step %
/// decay_steps) / decay_steps))`, 0 once `num_periods * global_step / decay_steps` reaches
/// `zero_after`. As in TensorFlow, `zero_after` takes a whole `num_periods` (the product is
/// taken in the step's integer type).
pub fn get_restart_decay_fn(
    decay_steps: i64,
    num_periods: Option<f64>,
    zero_after: Option<f64>,
) -> SignDecayFn {
    let num_periods = num_periods.unwrap_or(1.0);
    Arc::new(move |step| {
        let step = required(step, "cosine_decay")?;
        let gs = clipped(&step, decay_steps)?;
        let g = gs.graph().clone();
        let steps_f = constant(&g, decay_steps as f32)?;
        let scaled = mul(constant(&g, num_periods as f32)?, cast(&gs, DType::F32)?)?;
        let num = floormod(scaled, &steps_f)?;
        let decayed = half_cosine(&realdiv(num, &steps_f)?)?;
        let Some(z) = zero_after else {
            return Ok(decayed);
        };
        if num_periods.fract() != 0.0 {
            return Err(Error::invalid_argument(format!(
                "Expected {}, but got {num_periods} of type 'float'.",
                gs.dtype().python_name()
            )));
        }
        let periods = constant(&g, weir_graph::scalar_of(gs.dtype(), num_periods)?)?;
        let tmp = realdiv(cast(mul(periods, &gs)?, DType::F32)?, &steps_f)?;
        let off = greater_equal(tmp, constant(&g, z as f32)?)?;
        select(off, constant(&g, 0.0f32)?, decayed)
    })
}

/// The decay as a tensor of `dtype` (TensorFlow casts the float32 decay to each variable's).
pub(super) fn decay_as(decay: &Output, dtype: DType) -> Result<Output> {
    if decay.dtype() == dtype {
        Ok(decay.clone())
    } else {
        cast(decay, dtype)
    }
}
