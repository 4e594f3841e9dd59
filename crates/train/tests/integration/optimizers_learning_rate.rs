//! Learning-rate schedules evaluated against the global step, and used by an optimizer.

use weir_graph::{Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::Session;
use weir_train::{
    exponential_decay, get_or_create_global_step, piecewise_constant, GradientDescentOptimizer,
    Optimizer,
};

fn at_steps(g: &Graph, lr: &weir_graph::Output, steps: &[i64]) -> Result<Vec<f32>> {
    let step = get_or_create_global_step(g)?;
    let sess = Session::new(g)?;
    sess.run_target(&global_variables_initializer(g)?)?;
    let mut out = Vec::new();
    for &s in steps {
        sess.run_target(&step.assign(constant(g, s)?)?.op())?;
        out.push(sess.eval(lr)?.to_scalar::<f32>()?);
    }
    Ok(out)
}

#[test]
fn exponential_decay_smooth_and_staircase() -> Result<()> {
    for staircase in [false, true] {
        let g = Graph::new();
        let step = get_or_create_global_step(&g)?;
        let lr = exponential_decay(0.1, &step, 100.0, 0.5, staircase)?;
        assert_eq!(lr.name(), "ExponentialDecay:0");
        let got = at_steps(&g, &lr, &[0, 50, 100, 150, 250])?;
        for (s, v) in [0, 50, 100, 150, 250].iter().zip(got) {
            let mut p = *s as f32 / 100.0;
            if staircase {
                p = p.floor();
            }
            let want = 0.1f32 * 0.5f32.powf(p);
            assert!((v - want).abs() <= 1e-7, "step {s}: {v} vs {want}");
        }
    }
    let g = Graph::new();
    let step = get_or_create_global_step(&g)?;
    assert!(exponential_decay(0.1, &step, 0.0, 0.5, false).is_err());
    Ok(())
}

#[test]
fn piecewise_constant_boundaries_are_upper_inclusive() -> Result<()> {
    let g = Graph::new();
    let step = get_or_create_global_step(&g)?;
    let lr = piecewise_constant(&step, vec![100i64, 200], vec![1.0f32, 0.5, 0.1])?;
    assert_eq!(
        at_steps(&g, &lr, &[0, 100, 101, 200, 201, 10_000])?,
        vec![1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    );
    let e = piecewise_constant(&step, vec![100i32], vec![1.0f32, 0.5]).unwrap_err();
    assert_eq!(
        e.message(),
        "Boundaries (int32) must have the same dtype as x (int64)."
    );
    let e = piecewise_constant(&step, vec![100i64], vec![1.0f32]).unwrap_err();
    assert!(e.message().starts_with("The length of boundaries"));
    Ok(())
}

#[test]
fn an_optimizer_follows_the_decayed_rate() -> Result<()> {
    let g = Graph::new();
    let step = get_or_create_global_step(&g)?;
    let w = Variable::builder(constant(&g, [0.0f32])?)
        .name("w")
        .build()?;
    let lr = exponential_decay(1.0, &step, 1.0, 0.5, true)?;
    let mut opt = GradientDescentOptimizer::new(&lr);
    let train = opt.apply_gradients(
        &[(Some(constant(&g, [-1.0f32])?), w.clone())],
        Some(&step),
        None,
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    for _ in 0..3 {
        sess.run_target(&train)?;
    }
    // Rates 1, 0.5, 0.25 at steps 0, 1, 2.
    assert_eq!(sess.eval(&w)?, Tensor::from(vec![1.75f32]));
    Ok(())
}
