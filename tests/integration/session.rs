//! Session runs: feeds, fetches, targets, pruning, plan caching, errors.

use std::sync::atomic::{AtomicUsize, Ordering};

use weir::graph::registry::{register_kernel, register_op};
use weir::graph::{ArgType, Kernel, OpContext, OpDef};
use weir::prelude::*;

#[test]
fn feed_replaces_any_tensor() -> Result<()> {
    // TF_SEMANTICS §1.1: d = (a + b) * 2; feeding a constant or an intermediate.
    let g = Graph::new();
    let a = constant_named(&g, 1i32, "a")?;
    let b = constant_named(&g, 3i32, "b")?;
    let c = add(&a, &b)?;
    let d = mul(&c, constant(&g, 2i32)?)?;
    let sess = Session::new(&g)?;
    assert_eq!(sess.eval(&d)?.to_scalar::<i32>()?, 8);
    let r = sess.run(&RunArgs::new().feed(&a, 10i32).fetch(&d))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 26);
    let r = sess.run(&RunArgs::new().feed(&c, 10i32).fetch(&d))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 20);
    // Fetching a fed tensor returns the fed value.
    let r = sess.run(&RunArgs::new().feed(&c, 5i32).fetch(&c).fetch(&d))?;
    assert_eq!(
        (r[0].to_scalar::<i32>()?, r[1].to_scalar::<i32>()?),
        (5, 10)
    );
    // By name.
    let r = sess.run(&RunArgs::new().feed_name("a:0", 0i32).fetch_name(&d.name()))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 6);
    Ok(())
}

#[test]
fn a_control_dependency_on_a_fed_placeholder_is_satisfied_by_its_feed() -> Result<()> {
    // TensorFlow's feed rewrite moves a fed Placeholder's control edges to its feed, so the
    // placeholder never runs (tf.metrics.mean builds such an edge); other fed nodes still run.
    let g = Graph::new();
    let p = Placeholder::new(DType::F32).name("p").build(&g)?;
    let y = {
        let _c = g.control_dependencies(&[p.op()])?;
        identity(constant(&g, 3.0f32)?)?
    };
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().feed(&p, 1.0f32).fetch(&y))?;
    assert_eq!(r[0].to_scalar::<f32>()?, 3.0);
    // Unfed, it still must be fed.
    let e = sess.eval(&y).unwrap_err();
    assert!(e
        .message()
        .starts_with("You must feed a value for placeholder tensor 'p'"));
    Ok(())
}

#[test]
fn missing_placeholder_feed_names_it() -> Result<()> {
    let g = Graph::new();
    let p = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(2)]))
        .name("p")
        .build(&g)?;
    let y = add(&p, &p)?;
    let sess = Session::new(&g)?;
    let e = sess.eval(&y).unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(
        e.message(),
        "You must feed a value for placeholder tensor 'p' with dtype float and shape [?,2]"
    );
    assert_eq!(e.node().unwrap().name, "p");
    let q = Placeholder::new(DType::I64).name("q").build(&g)?;
    let e = sess.eval(&q).unwrap_err();
    assert_eq!(
        e.message(),
        "You must feed a value for placeholder tensor 'q' with dtype int64"
    );
    Ok(())
}

#[test]
fn feeds_of_wrong_dtype_or_shape_are_invalid_argument() -> Result<()> {
    let g = Graph::new();
    let p = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(2)]))
        .name("p")
        .build(&g)?;
    let sess = Session::new(&g)?;
    let bad_shape = Tensor::from_vec(&[1, 3], vec![0.0f32; 3])?;
    let e = sess
        .run(&RunArgs::new().feed(&p, bad_shape).fetch(&p))
        .unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(
        e.message(),
        "Cannot feed value of shape (1, 3) for Tensor p:0, which has shape (None, 2)"
    );
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![1.0f32, 2.0]))
                .fetch(&p),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument(), "rank 1 into rank 2: {e}");
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[1, 2], vec![1i32, 2])?)
                .fetch(&p),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument());
    assert!(e.message().contains("dtype int32"), "{e}");
    let ok = sess.run(
        &RunArgs::new()
            .feed(&p, Tensor::from_vec(&[3, 2], vec![1.0f32; 6])?)
            .fetch(&p),
    )?;
    assert_eq!(ok[0].shape(), &[3, 2]);
    Ok(())
}

#[test]
fn placeholder_with_default_yields_its_input_unless_fed() -> Result<()> {
    let g = Graph::new();
    let d = constant(&g, [1.0f32, 2.0])?;
    let p = placeholder_with_default(&d, Shape::new(vec![None]))?;
    let sess = Session::new(&g)?;
    assert_eq!(sess.eval(&p)?.to_vec::<f32>()?, vec![1.0, 2.0]);
    let r = sess.run(
        &RunArgs::new()
            .feed(&p, Tensor::from(vec![5.0f32, 6.0, 7.0]))
            .fetch(&p),
    )?;
    assert_eq!(r[0].to_vec::<f32>()?, vec![5.0, 6.0, 7.0]);
    let e = sess
        .run(&RunArgs::new().feed(&p, Tensor::from(3.0f32)).fetch(&p))
        .unwrap_err();
    assert!(e.is_invalid_argument());
    assert!(placeholder_with_default(&d, Shape::known(&[3])).is_err());
    Ok(())
}

#[test]
fn foreign_and_unknown_fetches_are_clear_errors() -> Result<()> {
    let g = Graph::new();
    let other = Graph::new();
    let a = constant(&g, 1.0f32)?;
    let b = constant(&other, 1.0f32)?;
    let sess = Session::new(&g)?;
    let e = sess.eval(&b).unwrap_err();
    assert!(e.is_invalid_argument());
    assert!(
        e.message().contains("is not an element of this graph"),
        "{e}"
    );
    let e = sess
        .run(&RunArgs::new().feed(&b, 1.0f32).fetch(&a))
        .unwrap_err();
    assert!(
        e.message().contains("is not an element of this graph"),
        "{e}"
    );
    let e = sess.run(&RunArgs::new().fetch_name("nope:0")).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    let e = sess.run(&RunArgs::new().target_name("nope")).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    let e = sess.run(&RunArgs::new().fetch_name("Const")).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    let foreign_op = no_op(&other)?;
    assert!(sess
        .run_target(&foreign_op)
        .unwrap_err()
        .is_invalid_argument());
    Ok(())
}

/// A kernel that counts its executions, to observe pruning and per-run deduplication.
struct Counting;
static COUNT: AtomicUsize = AtomicUsize::new(0);
impl Kernel for Counting {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        COUNT.fetch_add(1, Ordering::SeqCst);
        ctx.set_output(0, Tensor::from(1.0f32));
        Ok(())
    }
}

fn counting(g: &Graph) -> Result<Output> {
    register_op(
        OpDef::new("CountingForTest")
            .output("y", ArgType::Fixed(DType::F32))
            .stateful(),
    );
    register_kernel("CountingForTest", |_| Ok(Box::new(Counting)));
    g.new_operation("CountingForTest").build()?.output(0)
}

#[test]
fn only_the_needed_subgraph_runs_once_per_run() -> Result<()> {
    let g = Graph::new();
    let c = counting(&g)?;
    let y = add(&c, &c)?;
    let z = mul(&y, &c)?;
    let unrelated = constant(&g, 0.0f32)?;
    let sess = Session::new(&g)?;
    let before = COUNT.load(Ordering::SeqCst);
    sess.eval(&unrelated)?;
    assert_eq!(COUNT.load(Ordering::SeqCst), before, "not needed, not run");
    let r = sess.run(&RunArgs::new().fetch(&z).fetch(&z).fetch(&y))?;
    assert_eq!(
        COUNT.load(Ordering::SeqCst),
        before + 1,
        "each op at most once per run"
    );
    assert_eq!(r[0], r[1]);
    assert_eq!(r[0].to_scalar::<f32>()?, 2.0);
    // Feeding y cuts c off only where y was its sole path: z still needs c.
    sess.run(&RunArgs::new().feed(&y, 10.0f32).fetch(&z))?;
    assert_eq!(COUNT.load(Ordering::SeqCst), before + 2);
    sess.run(&RunArgs::new().feed(&c, 3.0f32).fetch(&z))?;
    assert_eq!(
        COUNT.load(Ordering::SeqCst),
        before + 2,
        "fed: the counting op is pruned"
    );
    Ok(())
}

#[test]
fn control_dependencies_run_first() -> Result<()> {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0i32)?).name("v").build()?;
    let init = global_variables_initializer(&g)?;
    let bump = v.assign_add(constant(&g, 1i32)?)?;
    let read_after = {
        let _d = g.control_dependencies(&[bump.op()])?;
        identity(&v)?
    };
    let grouped = group(&g, &[bump.op()], Some("bump_all"))?;
    let sess = Session::new(&g)?;
    sess.run_target(&init)?;
    assert_eq!(sess.eval(&read_after)?.to_scalar::<i32>()?, 1);
    sess.run_target(&grouped)?;
    assert_eq!(sess.eval(&v)?.to_scalar::<i32>()?, 2);
    let t = tuple(&[v.value(), bump.clone()])?;
    let r = sess.run(&RunArgs::new().fetch(&t[0]).fetch(&t[1]))?;
    assert_eq!(r[1].to_scalar::<i32>()?, 3);
    Ok(())
}

#[test]
fn closed_session_refuses_runs() -> Result<()> {
    let g = Graph::new();
    let c = constant(&g, 1.0f32)?;
    let sess = Session::new(&g)?;
    let h = sess.handle();
    sess.close();
    sess.close();
    let e = sess.eval(&c).unwrap_err();
    assert!(e.is_failed_precondition());
    assert_eq!(e.message(), "Attempted to use a closed Session.");
    drop(sess);
    assert!(h.is_closed());
    assert!(h.eval(&c).is_err());
    Ok(())
}

#[test]
fn sessions_keep_separate_state() -> Result<()> {
    let g = Graph::new();
    let v = Variable::new(constant(&g, 1.0f32)?)?;
    let init = global_variables_initializer(&g)?;
    let inc = v.assign_add(constant(&g, 1.0f32)?)?;
    let s1 = Session::new(&g)?;
    let s2 = Session::new(&g)?;
    s1.run_target(&init)?;
    s2.run_target(&init)?;
    s1.eval(&inc)?;
    s1.eval(&inc)?;
    assert_eq!(s1.eval(&v)?.to_scalar::<f32>()?, 3.0);
    assert_eq!(s2.eval(&v)?.to_scalar::<f32>()?, 1.0);
    Ok(())
}

#[test]
fn graph_may_grow_after_the_session_starts() -> Result<()> {
    let g = Graph::new();
    let a = constant(&g, 2.0f32)?;
    let sess = Session::new(&g)?;
    assert_eq!(sess.eval(&a)?.to_scalar::<f32>()?, 2.0);
    let b = (&a * 3.0)?;
    assert_eq!(sess.eval(&b)?.to_scalar::<f32>()?, 6.0);
    Ok(())
}

#[test]
fn independent_expensive_branches_agree_with_sequential_runs() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, Some(64)]))?;
    let w1 = constant(
        &g,
        Tensor::from_vec(&[64, 32], (0..64 * 32).map(|i| (i % 7) as f32).collect())?,
    )?;
    let w2 = constant(
        &g,
        Tensor::from_vec(&[64, 32], (0..64 * 32).map(|i| (i % 5) as f32).collect())?,
    )?;
    let y = add(matmul(&x, &w1)?, matmul(&x, &w2)?)?;
    let feed = Tensor::from_vec(&[16, 64], (0..16 * 64).map(|i| (i % 3) as f32).collect())?;
    let par = Session::with_options(&g, SessionOptions::default().inter_op_threads(2))?;
    let seq = Session::with_options(&g, SessionOptions::default().inter_op_threads(1))?;
    let args = RunArgs::new().feed(&x, feed).fetch(&y);
    let a = par.run(&args)?;
    let b = seq.run(&args)?;
    assert_eq!(a, b);
    // A failure in one branch fails the run with that error.
    let bad = RunArgs::new()
        .feed(&x, Tensor::from_vec(&[1, 64], vec![f32::NAN; 64])?)
        .fetch(&y);
    assert!(par.run(&bad).is_ok(), "NaN is data, not an error");
    Ok(())
}

#[test]
fn reused_and_extended_run_args_use_the_right_plan() -> Result<()> {
    // A RunArgs remembers its plan; a clone extended with another fetch must not reuse it.
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::scalar())?;
    let y = (&x * 2.0)?;
    let z = (&x + 1.0)?;
    let sess = Session::new(&g)?;
    let mut base = RunArgs::new().feed(&x, 3.0f32).fetch(&y);
    assert_eq!(sess.run(&base)?[0].to_scalar::<f32>()?, 6.0);
    let more = base.clone().fetch(&z);
    let r = sess.run(&more)?;
    assert_eq!(
        (r[0].to_scalar::<f32>()?, r[1].to_scalar::<f32>()?),
        (6.0, 4.0)
    );
    base.set_feed_value(0, 5.0f32);
    assert_eq!(sess.run(&base)?[0].to_scalar::<f32>()?, 10.0);
    // The same args on another session of another graph plan anew.
    let other = Session::new(&g)?;
    assert_eq!(other.run(&base)?[0].to_scalar::<f32>()?, 10.0);
    Ok(())
}

#[test]
fn a_run_keeps_no_tensor_alive_after_it_returns() -> Result<()> {
    // Runs reuse per-thread scratch vectors; neither a fed value nor an intermediate may stay
    // in them once the run is over, whether it succeeded or failed.
    let g = Graph::new();
    let x = Placeholder::new(DType::F32).name("x").build(&g)?;
    let y = identity(&x)?;
    let z = (&y * 2.0f32)?;
    let sess = Session::new(&g)?;
    let fed = Tensor::from(vec![1.0f32, 2.0, 3.0]);
    let out = sess.run(&RunArgs::new().feed(&x, fed.clone()).fetch(&y).fetch(&z))?;
    assert_eq!(out[1].to_vec::<f32>()?, vec![2.0, 4.0, 6.0]);
    drop(out);
    assert!(
        fed.is_unique(),
        "the fed tensor is still referenced after the run"
    );
    // A failing run (wrong dtype) leaves nothing behind either.
    let bad = sess.run(&RunArgs::new().feed(&x, Tensor::from(vec![1i32])).fetch(&z));
    assert!(bad.unwrap_err().is_invalid_argument());
    let out = sess.run(&RunArgs::new().feed(&x, fed.clone()).fetch(&z))?;
    drop(out);
    assert!(fed.is_unique());
    Ok(())
}
