//! Optimizers end to end: `minimize` builds gradients and updates that lower a real loss.

use weir_graph::{graph_keys, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{self, Reduce};
use weir_ops::nn;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::{RunArgs, Session};
use weir_train::{
    get_or_create_global_step, AdagradOptimizer, AdamOptimizer, GradientDescentOptimizer,
    MomentumOptimizer, Optimizer, RMSPropOptimizer,
};

/// A softmax classifier on two separable clusters; returns (first loss, last loss, step).
fn train(mut opt: impl Optimizer, steps: usize) -> Result<(f32, f32, i64)> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(2)]))?;
    let labels = placeholder(&g, DType::I64, Shape::new(vec![None]))?;
    let w = Variable::builder(constant(&g, Tensor::from_vec(&[2, 2], vec![0.0f32; 4])?)?)
        .name("w")
        .build()?;
    let b = Variable::builder(constant(&g, Tensor::from(vec![0.0f32; 2]))?)
        .name("b")
        .build()?;
    let logits = nn::bias_add(&math::matmul(&x, &w)?, &b)?;
    let loss = Reduce::mean().build(&nn::sparse_softmax_cross_entropy_with_logits(
        &labels, &logits,
    )?)?;
    let step = get_or_create_global_step(&g)?;
    let train = opt.minimize(&loss, None, Some(&step))?;
    assert_eq!(g.get_collection(graph_keys::TRAIN_OP).len(), 1);
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let xs = Tensor::from_vec(&[4, 2], vec![1.0f32, 1.0, 2.0, 1.5, -1.0, -1.0, -1.5, -2.0])?;
    let ys = Tensor::from(vec![0i64, 0, 1, 1]);
    let args = RunArgs::new().feed(&x, xs).feed(&labels, ys);
    let first = sess.run(&args.clone().fetch(&loss))?[0].to_scalar::<f32>()?;
    for _ in 0..steps {
        sess.run(&args.clone().target(&train))?;
    }
    let last = sess.run(&args.fetch(&loss))?[0].to_scalar::<f32>()?;
    let s = sess.eval(&step)?.to_scalar::<i64>()?;
    Ok((first, last, s))
}

#[test]
fn every_optimizer_lowers_the_loss() -> Result<()> {
    let runs: Vec<(&str, (f32, f32, i64))> = vec![
        ("sgd", train(GradientDescentOptimizer::new(0.5), 50)?),
        ("momentum", train(MomentumOptimizer::new(0.1, 0.9), 50)?),
        ("adagrad", train(AdagradOptimizer::new(0.5), 50)?),
        ("rmsprop", train(RMSPropOptimizer::new(0.05), 50)?),
        ("adam", train(AdamOptimizer::new(0.05), 50)?),
    ];
    for (name, (first, last, step)) in runs {
        assert!(
            (first - std::f32::consts::LN_2).abs() < 1e-5,
            "{name}: initial loss {first}"
        );
        assert!(last < 0.1, "{name}: loss {first} -> {last}");
        assert_eq!(step, 50, "{name}: global step");
    }
    Ok(())
}

#[test]
fn gradients_reach_reads_under_control_dependencies() -> Result<()> {
    // compute_gradients differentiates with respect to the variable, so every read counts.
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 3.0f32)?).name("v").build()?;
    let bump = v.assign_add(constant(&g, 0.0f32)?)?;
    let fresh = {
        let _d = g.control_dependencies(&[bump.op()])?;
        math::mul(&v, &v)?
    };
    let loss = math::add(&fresh, v.value())?; // d/dv = 2v + 1 = 7
    let opt = GradientDescentOptimizer::new(1.0);
    let gv = opt.compute_gradients(&loss, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let grad = sess.eval(gv[0].0.as_ref().expect("a gradient"))?;
    assert_eq!(grad.to_scalar::<f32>()?, 7.0);
    Ok(())
}

#[test]
fn slots_made_under_control_dependencies_initialize_without_the_step() -> Result<()> {
    // TF1's batch-norm pattern: `with control_dependencies(update_ops): minimize(loss)`. The
    // update op reads a variable, so an initializer depending on it would fail (or run it).
    let g = Graph::new();
    let w = Variable::builder(constant(&g, Tensor::from(vec![1.0f32, 2.0]))?)
        .name("w")
        .build()?;
    let moving = Variable::builder(constant(&g, 0.0f32)?)
        .name("moving_mean")
        .trainable(false)
        .build()?;
    let update = moving.assign(Reduce::mean().build(w.value())?)?;
    let loss = Reduce::sum().build(math::square(w.value())?)?;
    let step = get_or_create_global_step(&g)?;
    let train = {
        let _after = g.control_dependencies(&[update.op()])?;
        AdamOptimizer::new(0.1).minimize(&loss, None, Some(&step))?
    };
    let mut ema = weir_train::ExponentialMovingAverage::new(0.5);
    let averaged = {
        let _after = g.control_dependencies(std::slice::from_ref(&train))?;
        ema.apply(std::slice::from_ref(&w))?
    };
    let sess = Session::new(&g)?;
    // Neither Adam's slots nor the average's shadow waits on the update or the step.
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(sess.eval(moving.value())?.to_scalar::<f32>()?, 0.0);
    assert_eq!(sess.eval(step.value())?.to_scalar::<i64>()?, 0);
    sess.run(&RunArgs::new().target(&averaged))?;
    assert_eq!(sess.eval(moving.value())?.to_scalar::<f32>()?, 1.5);
    assert_eq!(sess.eval(step.value())?.to_scalar::<i64>()?, 1);
    Ok(())
}
