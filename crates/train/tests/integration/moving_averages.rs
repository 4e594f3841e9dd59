//! ExponentialMovingAverage: TensorFlow's update rule (with num_updates and zero_debias) checked
//! against hand-computed values, and the evaluate-with-averages pattern through
//! variables_to_restore and a second graph.

use weir_graph::{DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::{RunArgs, Session};
use weir_train::{get_or_create_global_step, ExponentialMovingAverage, Saver};

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn shadows_follow_tensorflows_rule_with_num_updates_capping_the_decay() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, Tensor::from(vec![1.0f32, -2.0]))?)
        .name("w")
        .build()?;
    let step = get_or_create_global_step(&g)?;
    let mut ema = ExponentialMovingAverage::new(0.99).num_updates(step.value());
    let update = ema.apply(std::slice::from_ref(&w))?;
    assert_eq!(update.name(), "ExponentialMovingAverage");
    let shadow = ema.average(&w).expect("a shadow");
    assert_eq!(shadow.name(), "w/ExponentialMovingAverage");
    assert_eq!(ema.average_name(&w), "w/ExponentialMovingAverage");
    let x = placeholder(&g, DType::F32, Shape::known(&[2]))?;
    let set_w = w.assign(&x)?;
    let set_step = step.assign(constant(&g, Tensor::scalar(5i64))?)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    // The shadow starts at w's initial value.
    assert_eq!(sess.eval(shadow.value())?.to_vec::<f32>()?, vec![1.0, -2.0]);
    sess.run(
        &RunArgs::new()
            .feed(&x, Tensor::from(vec![3.0f32, 0.0]))
            .fetch(&set_w),
    )?;
    sess.run_target(&set_step.op())?;
    sess.run_target(&update)?;
    // decay = min(0.99, (1 + 5) / (10 + 5)) = 0.4; shadow -= (shadow - w) * 0.6.
    let got = sess.eval(shadow.value())?.to_vec::<f32>()?;
    let want = [1.0 - (1.0 - 3.0) * 0.6f32, -2.0 - (-2.0 - 0.0) * 0.6f32];
    assert!(
        close(got[0], want[0]) && close(got[1], want[1]),
        "{got:?} vs {want:?}"
    );
    Ok(())
}

#[test]
fn a_tensor_average_starts_at_zero_and_zero_debias_removes_the_start() -> Result<()> {
    let g = Graph::new();
    let loss = placeholder(&g, DType::F32, Shape::scalar())?;
    let mut plain = ExponentialMovingAverage::new(0.9).name("plain");
    let up_plain = plain.apply_tensors(std::slice::from_ref(&loss))?;
    let mut debiased = ExponentialMovingAverage::new(0.9)
        .zero_debias(true)
        .name("debiased");
    let up_debiased = debiased.apply_tensors(std::slice::from_ref(&loss))?;
    let a = plain.average_of(&loss).unwrap();
    let b = debiased.average_of(&loss).unwrap();
    assert_eq!(a.name(), format!("{}/plain", loss.op().name()));
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let (mut plain_v, mut biased_v) = (0.0f32, 0.0f32);
    for (i, value) in [4.0f32, 2.0, 8.0].into_iter().enumerate() {
        sess.run(
            &RunArgs::new()
                .feed(&loss, Tensor::scalar(value))
                .target(&up_plain)
                .target(&up_debiased),
        )?;
        plain_v -= (plain_v - value) * (1.0 - 0.9);
        biased_v -= (biased_v - value) * (1.0 - 0.9);
        let debiased_v = biased_v / (1.0 - 0.9f32.powi(i as i32 + 1));
        assert!(close(sess.eval(a.value())?.to_scalar::<f32>()?, plain_v));
        assert!(close(sess.eval(b.value())?.to_scalar::<f32>()?, debiased_v));
    }
    // The first debiased value is the first input exactly.
    Ok(())
}

#[test]
fn integer_variables_are_refused_in_tensorflows_words() {
    let g = Graph::new();
    let n = Variable::builder(constant(&g, 3i32).unwrap())
        .name("n")
        .build()
        .unwrap();
    let e = ExponentialMovingAverage::new(0.9)
        .apply(&[n])
        .err()
        .unwrap();
    assert!(e.is_invalid_argument());
    assert_eq!(
        e.message(),
        "The variables must be half, float, or double: n"
    );
}

/// Training's graph: w, the global step, w's average.
fn model(g: &Graph) -> Result<(Variable, Variable, ExponentialMovingAverage)> {
    let w = Variable::builder(constant(g, 0.0f32)?).name("w").build()?;
    let step = get_or_create_global_step(g)?;
    let mut ema = ExponentialMovingAverage::new(0.5);
    ema.apply(std::slice::from_ref(&w))?;
    Ok((w, step, ema))
}

#[test]
fn an_evaluation_graph_restores_the_averages_into_the_variables() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("weir-ema-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("model.ckpt").to_string_lossy().into_owned();
    // Training: w goes to 8, its average to 4 after one update with decay 0.5.
    {
        let g = Graph::new();
        let (w, _, mut ema) = model(&g)?;
        let set = w.assign(constant(&g, 8.0f32)?)?;
        let update = ema.apply(std::slice::from_ref(&w))?;
        let sess = Session::new(&g)?;
        sess.run_target(&global_variables_initializer(&g)?)?;
        sess.run_target(&set.op())?;
        sess.run_target(&update)?;
        Saver::new(&g)?.save(&sess, &prefix, None)?;
    }
    // Evaluation: the same model code, restored through variables_to_restore.
    let g = Graph::new();
    let (w, step, ema) = model(&g)?;
    let map = ema.variables_to_restore(&g, None)?;
    let names: Vec<&str> = map.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["w/ExponentialMovingAverage", "global_step"]);
    let sess = Session::new(&g)?;
    Saver::for_named_variables(&map)?.restore(&sess, &prefix)?;
    assert_eq!(sess.eval(w.value())?.to_scalar::<f32>()?, 4.0);
    assert_eq!(sess.eval(step.value())?.to_scalar::<i64>()?, 0);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
