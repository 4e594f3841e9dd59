//! Optimizers: a few steps of each through `apply_gradients` with constant gradients, checked
//! against an independent f64 implementation of TensorFlow's update rule; slot names and
//! collections; the global step; errors.

use weir_graph::{graph_keys, DType, Graph, Operation, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::state::{
    global_variables, global_variables_initializer, trainable_variables, Variable,
};
use weir_session::{RunArgs, Session};
use weir_train::{
    get_or_create_global_step, AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer,
    MomentumOptimizer, Optimizer, RMSPropOptimizer,
};

const W0: [f32; 3] = [1.0, -2.0, 0.5];
const G: [f32; 3] = [0.3, -1.5, 2.0];
const STEPS: usize = 4;

fn setup() -> Result<(Graph, Variable, Output)> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, W0)?).name("w").build()?;
    let grad = constant(&g, G)?;
    Ok((g, w, grad))
}

/// Runs `train` STEPS times and returns w after each step.
fn run_steps(g: &Graph, w: &Variable, train: &Operation) -> Result<Vec<Vec<f32>>> {
    let sess = Session::new(g)?;
    sess.run_target(&global_variables_initializer(g)?)?;
    let mut out = Vec::new();
    for _ in 0..STEPS {
        sess.run_target(train)?;
        out.push(sess.eval(w)?.to_vec::<f32>()?);
    }
    Ok(out)
}

fn assert_close(got: &[Vec<f32>], want: &[Vec<f64>]) {
    assert_eq!(got.len(), want.len());
    for (step, (g, w)) in got.iter().zip(want).enumerate() {
        for (a, b) in g.iter().zip(w) {
            assert!(
                ((*a as f64) - b).abs() <= 1e-5 * b.abs().max(1.0),
                "step {step}: got {g:?}, want {w:?}"
            );
        }
    }
}

/// Reference: per-element state updated by `rule(var, state, grad)` for STEPS steps.
fn reference<const S: usize>(
    init: [f64; S],
    mut rule: impl FnMut(usize, &mut f64, &mut [f64; S], f64),
) -> Vec<Vec<f64>> {
    let mut var: Vec<f64> = W0.iter().map(|&v| v as f64).collect();
    let mut state = [init; 3];
    (1..=STEPS)
        .map(|t| {
            for i in 0..3 {
                rule(t, &mut var[i], &mut state[i], G[i] as f64);
            }
            var.clone()
        })
        .collect()
}

#[test]
fn gradient_descent_steps_and_global_step() -> Result<()> {
    let (g, w, grad) = setup()?;
    let step = get_or_create_global_step(&g)?;
    let mut opt = GradientDescentOptimizer::new(0.1);
    let train = opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?;
    assert_eq!(train.name(), "GradientDescent");
    assert_eq!(train.op_type(), "AssignAdd");
    let want = reference([], |_, v, _, g| *v -= 0.1 * g);
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let mut got = Vec::new();
    for i in 0..STEPS {
        sess.run_target(&train)?;
        got.push(sess.eval(&w)?.to_vec::<f32>()?);
        assert_eq!(sess.eval(&step)?.to_scalar::<i64>()?, i as i64 + 1);
    }
    assert_close(&got, &want);
    let in_train_op = g.get_collection(graph_keys::TRAIN_OP).len();
    assert_eq!(in_train_op, 1);
    Ok(())
}

#[test]
fn momentum_and_nesterov() -> Result<()> {
    for nesterov in [false, true] {
        let (g, w, grad) = setup()?;
        let mut opt = MomentumOptimizer::new(0.05, 0.9).use_nesterov(nesterov);
        let train = opt.apply_gradients(&[(Some(grad), w.clone())], None, None)?;
        assert_eq!(train.name(), "Momentum");
        let slot = opt.get_slot(&w, "momentum").unwrap();
        assert_eq!(slot.name(), "w/Momentum");
        let want = reference([0.0], |_, v, s, g| {
            s[0] = s[0] * 0.9 + g;
            if nesterov {
                *v -= g * 0.05 + s[0] * 0.9 * 0.05;
            } else {
                *v -= s[0] * 0.05;
            }
        });
        assert_close(&run_steps(&g, &w, &train)?, &want);
    }
    Ok(())
}

#[test]
fn adagrad_starts_accumulators_at_point_one() -> Result<()> {
    let (g, w, grad) = setup()?;
    let mut opt = AdagradOptimizer::new(0.2);
    let train = opt.apply_gradients(&[(Some(grad), w.clone())], None, None)?;
    let acc = opt.get_slot(&w, "accumulator").unwrap();
    assert_eq!(acc.name(), "w/Adagrad");
    let want = reference([0.1f32 as f64], |_, v, s, g| {
        s[0] += g * g;
        *v -= 0.2 * g / s[0].sqrt();
    });
    assert_close(&run_steps(&g, &w, &train)?, &want);
    let bad = AdagradOptimizer::new(0.2)
        .initial_accumulator_value(0.0)
        .apply_gradients(&[(Some(constant(&g, G)?), w.clone())], None, None)
        .unwrap_err();
    assert_eq!(
        bad.message(),
        "initial_accumulator_value must be positive: 0"
    );
    Ok(())
}

#[test]
fn rmsprop_plain_with_momentum_and_centered() -> Result<()> {
    for (momentum, centered) in [(0.0, false), (0.5, false), (0.5, true)] {
        let (g, w, grad) = setup()?;
        let mut opt = RMSPropOptimizer::new(0.01)
            .momentum(momentum)
            .centered(centered);
        let train = opt.apply_gradients(&[(Some(grad), w.clone())], None, None)?;
        let names: Vec<String> = ["rms", "mg", "momentum"]
            .iter()
            .filter_map(|s| opt.get_slot(&w, s).map(|v| v.name()))
            .collect();
        if centered {
            assert_eq!(names, vec!["w/RMSProp", "w/RMSProp_1", "w/RMSProp_2"]);
        } else {
            assert_eq!(names, vec!["w/RMSProp", "w/RMSProp_1"]);
        }
        let (rho, eps, lr) = (0.9f32 as f64, 1e-10f32 as f64, 0.01f32 as f64);
        let mom_c = momentum as f32 as f64;
        // State: [ms, mg, mom]; ms starts at 1.
        let want = reference([1.0, 0.0, 0.0], |_, v, s, g| {
            s[0] += (g * g - s[0]) * (1.0 - rho);
            let denom = if centered {
                s[1] += (g - s[1]) * (1.0 - rho);
                s[0] - s[1] * s[1] + eps
            } else {
                s[0] + eps
            };
            s[2] = s[2] * mom_c + g * lr / denom.sqrt();
            *v -= s[2];
        });
        assert_close(&run_steps(&g, &w, &train)?, &want);
    }
    Ok(())
}

#[test]
fn adam_bias_correction_and_beta_powers() -> Result<()> {
    let (g, w, grad) = setup()?;
    let step = get_or_create_global_step(&g)?;
    let mut opt = AdamOptimizer::new(0.1);
    let train = opt.apply_gradients(&[(Some(grad), w.clone())], Some(&step), None)?;
    assert_eq!(train.name(), "Adam");
    assert!(g.operation_by_name("Adam/update").is_some());
    assert!(g.operation_by_name("Adam/update_w/ApplyAdam").is_some());
    let (b1, b2, eps, lr) = (
        0.9f32 as f64,
        0.999f32 as f64,
        1e-8f32 as f64,
        0.1f32 as f64,
    );
    let want = reference([0.0, 0.0], |t, v, s, g| {
        let alpha = lr * (1.0 - b2.powi(t as i32)).sqrt() / (1.0 - b1.powi(t as i32));
        s[0] += (g - s[0]) * (1.0 - b1);
        s[1] += (g * g - s[1]) * (1.0 - b2);
        *v -= s[0] * alpha / (s[1].sqrt() + eps);
    });
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let b1p = global_variables(&g)?
        .into_iter()
        .find(|v| v.name() == "beta1_power")
        .unwrap();
    let mut got = Vec::new();
    for t in 1..=STEPS {
        sess.run_target(&train)?;
        got.push(sess.eval(&w)?.to_vec::<f32>()?);
        let p = sess.eval(&b1p)?.to_scalar::<f32>()? as f64;
        assert!(
            (p - b1.powi(t as i32 + 1)).abs() < 1e-6,
            "beta1_power {p} at step {t}"
        );
    }
    assert_close(&got, &want);
    assert_eq!(sess.eval(&step)?.to_scalar::<i64>()?, STEPS as i64);

    // Slots and powers: global, not trainable, named as TensorFlow names them.
    let mut globals: Vec<String> = global_variables(&g)?.iter().map(Variable::name).collect();
    globals.sort();
    assert_eq!(
        globals,
        vec![
            "beta1_power",
            "beta2_power",
            "global_step",
            "w",
            "w/Adam",
            "w/Adam_1"
        ]
    );
    let trainable: Vec<String> = trainable_variables(&g)?
        .iter()
        .map(Variable::name)
        .collect();
    assert_eq!(trainable, vec!["w"]);
    Ok(())
}

#[test]
fn two_variables_share_one_step_and_slots_stay_per_variable() -> Result<()> {
    let g = Graph::new();
    let a = Variable::builder(constant(&g, [1.0f32])?)
        .name("a")
        .build()?;
    let b = Variable::builder(constant(&g, [2.0f32, 3.0])?)
        .name("b")
        .build()?;
    let mut opt = AdamOptimizer::new(0.5);
    let ga = constant(&g, [1.0f32])?;
    let gb = constant(&g, [-1.0f32, 1.0])?;
    let train = opt.apply_gradients(
        &[
            (Some(ga), a.clone()),
            (None, b.clone()),
            (Some(gb), b.clone()),
        ],
        None,
        None,
    )?;
    assert_eq!(opt.get_slot(&b, "m").unwrap().name(), "b/Adam");
    assert!(opt.get_slot(&a, "v").is_some());
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    sess.run_target(&train)?;
    // Adam's first step moves every element by about lr against its gradient's sign.
    let av = sess.eval(&a)?.to_vec::<f32>()?;
    let bv = sess.eval(&b)?.to_vec::<f32>()?;
    assert!((av[0] - 0.5).abs() < 1e-5, "{av:?}");
    assert!(
        (bv[0] - 2.5).abs() < 1e-5 && (bv[1] - 2.5).abs() < 1e-5,
        "{bv:?}"
    );
    // A second apply reuses the slots; its op scope is uniquified.
    let again = opt.apply_gradients(&[(Some(constant(&g, [1.0f32])?), a.clone())], None, None)?;
    assert_eq!(again.name(), "Adam_1");
    assert_eq!(global_variables(&g)?.len(), 2 + 4 + 2);
    Ok(())
}

#[test]
fn learning_rate_can_be_a_fed_tensor() -> Result<()> {
    let (g, w, grad) = setup()?;
    let lr = placeholder(&g, DType::F32, weir_graph::Shape::scalar())?;
    let mut opt = GradientDescentOptimizer::new(&lr);
    let train = opt.apply_gradients(&[(Some(grad), w.clone())], None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    sess.run(
        &RunArgs::new()
            .feed(&lr, Tensor::from(1.0f32))
            .target(&train),
    )?;
    let v = sess.eval(&w)?.to_vec::<f32>()?;
    assert_eq!(v, vec![W0[0] - G[0], W0[1] - G[1], W0[2] - G[2]]);
    Ok(())
}

#[test]
fn errors_follow_tensorflow() -> Result<()> {
    let (g, w, grad) = setup()?;
    let mut opt = GradientDescentOptimizer::new(0.1);
    let e = opt
        .apply_gradients(&[(None, w.clone())], None, None)
        .unwrap_err();
    assert_eq!(
        e.message(),
        "No gradients provided for any variable: [\"w\"]."
    );
    assert!(opt.apply_gradients(&[], None, None).is_err());
    let wrong = constant(&g, [1.0f32, 2.0])?;
    let e = opt
        .apply_gradients(&[(Some(wrong), w.clone())], None, None)
        .unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    // Applying to an uninitialized variable fails at run time, naming it.
    let train = opt.apply_gradients(&[(Some(grad), w.clone())], None, None)?;
    let sess = Session::new(&g)?;
    let e = sess.run_target(&train).unwrap_err();
    assert!(e.is_failed_precondition(), "{e}");
    assert!(e.message().contains("uninitialized value w"), "{e}");
    // An integer loss is rejected before differentiating.
    let e = opt
        .compute_gradients(&constant(&g, 1i32)?, None)
        .unwrap_err();
    assert!(e.message().starts_with("Invalid type int32"), "{e}");
    Ok(())
}
