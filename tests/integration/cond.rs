//! `tf.cond` (TensorFlow 1's Switch/Merge control flow): values, the ops of the untaken branch
//! not running, dead fetches, errors and gradients. Every expected value and message below is
//! what TensorFlow 2.21 gave for the same graph (`tf.compat.v1` with control flow v1).

use weir::graph::Code;
use weir::ops::array::identity_named;
use weir::prelude::*;

fn bool_placeholder(g: &Graph) -> Result<Output> {
    Placeholder::new(DType::Bool)
        .shape(Shape::scalar())
        .name("p")
        .build(g)
}

fn run_with(sess: &Session, p: &Output, b: bool, fetches: &[&Output]) -> Result<Vec<Tensor>> {
    let mut args = RunArgs::new().feed(p, b);
    for f in fetches {
        args = args.fetch(*f);
    }
    sess.run(&args)
}

/// `tf.cond(p, lambda: x * 2.0, lambda: tf.constant(7.0) + 1.0)`.
fn doubling_cond(g: &Graph) -> Result<(Output, Output)> {
    let p = bool_placeholder(g)?;
    let x = constant_named(g, 3.0f32, "x")?;
    let y = cond(&p, || x.clone() * 2.0f32, || constant(g, 7.0f32)? + 1.0f32)?;
    Ok((p, y))
}

#[test]
fn takes_the_branch_the_predicate_selects() -> Result<()> {
    let g = Graph::new();
    let (p, y) = doubling_cond(&g)?;
    let sess = Session::new(&g)?;
    assert_eq!(
        run_with(&sess, &p, true, &[&y])?[0].to_scalar::<f32>()?,
        6.0
    );
    assert_eq!(
        run_with(&sess, &p, false, &[&y])?[0].to_scalar::<f32>()?,
        8.0
    );
    // The Merge's value_index says which branch it forwarded.
    let index = g.tensor_by_name("cond/Merge:1")?;
    assert_eq!(
        run_with(&sess, &p, true, &[&index])?[0].to_scalar::<i32>()?,
        1
    );
    assert_eq!(
        run_with(&sess, &p, false, &[&index])?[0].to_scalar::<i32>()?,
        0
    );
    Ok(())
}

#[test]
fn builds_tensorflow_1s_ops() -> Result<()> {
    let g = Graph::new();
    let (_, y) = doubling_cond(&g)?;
    assert_eq!(y.name(), "cond/Merge:0");
    let describe = |name: &str| -> Result<(String, Vec<String>, Vec<String>)> {
        let n = g
            .operation_by_name(name)
            .ok_or_else(|| Error::not_found(name))?
            .node();
        let inputs = n
            .inputs()
            .iter()
            .map(|&(m, i)| format!("{}:{i}", g.node(m).name()))
            .collect();
        let controls = n
            .control_inputs()
            .iter()
            .map(|&m| g.node(m).name().to_string())
            .collect();
        Ok((n.op_type().to_string(), inputs, controls))
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        describe("cond/Switch")?,
        ("Switch".into(), s(&["p:0", "p:0"]), vec![])
    );
    assert_eq!(
        describe("cond/switch_t")?,
        ("Identity".into(), s(&["cond/Switch:1"]), vec![])
    );
    assert_eq!(
        describe("cond/switch_f")?,
        ("Identity".into(), s(&["cond/Switch:0"]), vec![])
    );
    assert_eq!(
        describe("cond/pred_id")?,
        ("Identity".into(), s(&["p:0"]), vec![])
    );
    // The value from outside goes through a Switch named under the op that reads it; the
    // branch's constants wait for the branch's pivot.
    assert_eq!(
        describe("cond/Mul/Switch")?,
        ("Switch".into(), s(&["x:0", "cond/pred_id:0"]), vec![])
    );
    assert_eq!(
        describe("cond/Mul")?,
        (
            "Mul".into(),
            s(&["cond/Mul/Switch:1", "cond/Const:0"]),
            vec![]
        )
    );
    assert_eq!(
        describe("cond/Const")?,
        ("Const".into(), vec![], s(&["cond/switch_t"]))
    );
    assert_eq!(
        describe("cond/Const_1")?,
        ("Const".into(), vec![], s(&["cond/switch_f"]))
    );
    assert_eq!(
        describe("cond/Merge")?,
        ("Merge".into(), s(&["cond/AddV2:0", "cond/Mul:0"]), vec![])
    );
    Ok(())
}

#[test]
fn a_dead_fetch_is_an_error_counted_in_sorted_fetch_order() -> Result<()> {
    let g = Graph::new();
    let (p, y) = doubling_cond(&g)?;
    let mul = g.tensor_by_name("cond/Mul:0")?;
    let sess = Session::new(&g)?;
    let err = run_with(&sess, &p, false, &[&mul]).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(err.message(), "Retval[0] does not have value");
    // TensorFlow's session sorts the fetches by name: "cond/Merge:0" < "cond/Mul:0".
    let err = run_with(&sess, &p, false, &[&mul, &y]).unwrap_err();
    assert_eq!(err.message(), "Retval[1] does not have value");
    // The pivot of the untaken branch is dead too; the taken one is live.
    let pivot_t = g.tensor_by_name("cond/switch_t:0")?;
    assert!(run_with(&sess, &p, true, &[&pivot_t])?[0].to_scalar::<bool>()?);
    assert_eq!(
        run_with(&sess, &p, false, &[&pivot_t])
            .unwrap_err()
            .message(),
        "Retval[0] does not have value"
    );
    // A dead op as a target is no error: it just does not run.
    sess.run(&RunArgs::new().feed(&p, false).target(&mul.op()))?;
    Ok(())
}

#[test]
fn feeding_a_value_of_the_untaken_branch_makes_it_live() -> Result<()> {
    let g = Graph::new();
    let (p, y) = doubling_cond(&g)?;
    let (mul, add) = (
        g.tensor_by_name("cond/Mul:0")?,
        g.tensor_by_name("cond/AddV2:0")?,
    );
    let sess = Session::new(&g)?;
    let fetch = |b: bool, fed: &Output| -> Result<f32> {
        sess.run(&RunArgs::new().feed(&p, b).feed(fed, 5.0f32).fetch(&y))?[0].to_scalar()
    };
    assert_eq!(fetch(false, &mul)?, 5.0);
    assert_eq!(fetch(true, &mul)?, 5.0);
    // Both inputs live: the Merge forwards its first, as TensorFlow's did.
    assert_eq!(fetch(true, &add)?, 5.0);
    Ok(())
}

#[test]
fn only_the_taken_branch_runs_its_stateful_ops() -> Result<()> {
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    // tf.cond(p, lambda: tf.assign_add(v, 1).op, lambda: tf.no_op())
    let v = Variable::builder(constant(&g, 0i32)?).name("v").build()?;
    let bump: Operation = cond(
        &p,
        || Ok(v.assign_add(constant(&g, 1i32)?)?.op()),
        || no_op(&g),
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&v.initializer())?;
    for b in [true, false, true] {
        sess.run(&RunArgs::new().feed(&p, b).target(&bump))?;
    }
    assert_eq!(sess.eval(&v)?.to_scalar::<i32>()?, 2);

    // Two queues: each run dequeues from the taken branch's queue only.
    let q1 = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)?;
    let q2 = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)?;
    let fill1 = q1.enqueue_many(&[constant(&g, [1i32, 2, 3])?])?;
    let fill2 = q2.enqueue_many(&[constant(&g, [10i32, 20, 30])?])?;
    let d: Output = cond(
        &p,
        || Ok(q1.dequeue()?.remove(0)),
        || Ok(q2.dequeue()?.remove(0)),
    )?;
    sess.run_target(&fill1)?;
    sess.run_target(&fill2)?;
    let got: Vec<i32> = [true, true, false]
        .iter()
        .map(|&b| run_with(&sess, &p, b, &[&d])?[0].to_scalar::<i32>())
        .collect::<Result<_>>()?;
    assert_eq!(got, [1, 2, 10]);
    let sizes = sess.run(&RunArgs::new().fetch(&q1.size()?).fetch(&q2.size()?))?;
    assert_eq!(
        (sizes[0].to_scalar::<i32>()?, sizes[1].to_scalar::<i32>()?),
        (1, 2)
    );
    Ok(())
}

#[test]
fn the_parallel_executor_skips_the_untaken_branch_too() -> Result<()> {
    // Two independent 256x256 products make the plan run on the inter-op pool.
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let ones = constant(&g, Tensor::from_vec(&[256, 256], vec![1.0f32; 256 * 256])?)?;
    let twos = constant(&g, Tensor::from_vec(&[256, 256], vec![2.0f32; 256 * 256])?)?;
    let (a, b): (Output, Output) = cond(
        &p,
        || Ok((matmul(&ones, &ones)?, matmul(&twos, &twos)?)),
        || Ok((ones.clone(), twos.clone())),
    )?;
    let sum = Reduce::sum().build(&add(&a, &b)?)?;
    let sess = Session::with_options(&g, SessionOptions::default().inter_op_threads(2))?;
    for _ in 0..3 {
        assert_eq!(
            run_with(&sess, &p, true, &[&sum])?[0].to_scalar::<f32>()?,
            (256.0 + 1024.0) * 65536.0
        );
        assert_eq!(
            run_with(&sess, &p, false, &[&sum])?[0].to_scalar::<f32>()?,
            3.0 * 65536.0
        );
    }
    let inner = g.tensor_by_name("cond/MatMul:0")?;
    assert_eq!(
        run_with(&sess, &p, false, &[&inner]).unwrap_err().message(),
        "Retval[0] does not have value"
    );
    Ok(())
}

#[test]
fn nested_conds_guard_outer_values_through_both_predicates() -> Result<()> {
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let q = Placeholder::new(DType::Bool)
        .shape(Shape::scalar())
        .name("q")
        .build(&g)?;
    let w = constant_named(&g, 2.0f32, "w")?;
    // cond(p, lambda: cond(q, lambda: w + 1, lambda: w + 2), lambda: w + 3)
    let z: Output = cond(
        &p,
        || cond(&q, || w.clone() + 1.0f32, || w.clone() + 2.0f32),
        || w.clone() + 3.0f32,
    )?;
    let sess = Session::new(&g)?;
    for (pb, qb, want) in [
        (true, true, 3.0),
        (true, false, 4.0),
        (false, true, 5.0),
        (false, false, 5.0),
    ] {
        let r = sess.run(&RunArgs::new().feed(&p, pb).feed(&q, qb).fetch(&z))?;
        assert_eq!(r[0].to_scalar::<f32>()?, want, "p={pb} q={qb}");
    }
    Ok(())
}

#[test]
fn branches_must_agree_and_the_predicate_must_be_a_boolean_scalar() -> Result<()> {
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let err = cond(&p, || constant(&g, 1i32), || constant(&g, 2.0f32)).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(
        err.message(),
        "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received int32 from 'true_fn' and float32 from 'false_fn'."
    );
    let err = cond(
        &p,
        || Ok(vec![constant(&g, 1i32)?, constant(&g, 2i32)?]),
        || Ok(vec![constant(&g, 2i32)?]),
    )
    .unwrap_err();
    assert!(
        err.message()
            .starts_with("The two structures don't have the same nested structure"),
        "{err}"
    );
    let err = cond(
        &constant(&g, [true])?,
        || constant(&g, 1i32),
        || constant(&g, 2i32),
    )
    .unwrap_err();
    assert!(
        err.message().contains("Shape must be rank 0 but is rank 1"),
        "{err}"
    );
    let err = cond(
        &constant(&g, 1i32)?,
        || constant(&g, 1i32),
        || constant(&g, 2i32),
    )
    .unwrap_err();
    assert_eq!(
        err.message(),
        "Input 'pred' of 'Switch' Op has type int32 that does not match expected type of bool."
    );
    // A fed predicate that is not a scalar fails in the Switch at run time.
    let pp = Placeholder::new(DType::Bool).build(&g)?;
    let (_, if_true) = switch(&constant(&g, [1i32, 2])?, &pp)?;
    let sess = Session::new(&g)?;
    let err = sess
        .run(
            &RunArgs::new()
                .feed(&pp, Tensor::from_vec(&[2], vec![true, false])?)
                .fetch(&if_true),
        )
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message()
            .contains("The second input must be a scalar, but it has shape [2]"),
        "{err}"
    );
    Ok(())
}

#[test]
fn merge_shapes_and_inputs_follow_tensorflow() -> Result<()> {
    let g = Graph::new();
    let (out, index) = merge(&[constant(&g, 1i32)?, constant(&g, 2i32)?])?;
    assert_eq!(index.shape(), Shape::scalar());
    // Outside any cond both inputs are live: the first is forwarded.
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out).fetch(&index))?;
    assert_eq!((r[0].to_scalar::<i32>()?, r[1].to_scalar::<i32>()?), (1, 0));
    let shape_of = |a: Output, b: Output| -> Result<Shape> { Ok(merge(&[a, b])?.0.shape()) };
    assert_eq!(
        shape_of(constant(&g, 1i32)?, constant(&g, [2i32])?)?,
        Shape::unknown()
    );
    assert_eq!(
        shape_of(constant(&g, [1i32])?, constant(&g, [2i32, 3])?)?,
        Shape::new(vec![None])
    );
    assert_eq!(
        shape_of(
            constant(&g, Tensor::from_vec(&[1, 1], vec![1i32])?)?,
            constant(&g, [2i32, 3])?
        )?,
        Shape::unknown()
    );
    let err = merge(&[constant(&g, 1i32)?, constant(&g, 2.0f32)?]).unwrap_err();
    assert_eq!(
        err.message(),
        "Tensors in list passed to 'inputs' of 'Merge' Op have types [int32, float32] that don't all match."
    );
    Ok(())
}

#[test]
fn gradients_flow_through_the_taken_branch_only() -> Result<()> {
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let w = Variable::builder(constant(&g, 2.0f32)?).name("w").build()?;
    let wv = w.value();
    // cond(p, lambda: w * w, lambda: 3.0 * w) and cond(p, lambda: w * w, lambda: 5.0)
    let y1: Output = cond(&p, || wv.clone() * &wv, || wv.clone() * 3.0f32)?;
    let y2: Output = cond(&p, || wv.clone() * &wv, || constant(&g, 5.0f32))?;
    let g1 = gradients(&[y1], std::slice::from_ref(&wv), None)?[0]
        .clone()
        .ok_or_else(|| Error::internal("no gradient"))?;
    let g2 = gradients(&[y2], std::slice::from_ref(&wv), None)?[0]
        .clone()
        .ok_or_else(|| Error::internal("no gradient"))?;
    let sess = Session::new(&g)?;
    sess.run_target(&w.initializer())?;
    let at = |b: bool, t: &Output| -> Result<f32> { run_with(&sess, &p, b, &[t])?[0].to_scalar() };
    assert_eq!((at(true, &g1)?, at(false, &g1)?), (4.0, 3.0));
    assert_eq!((at(true, &g2)?, at(false, &g2)?), (4.0, 0.0));
    Ok(())
}

#[test]
fn an_optimizer_trains_through_a_cond() -> Result<()> {
    // The usual `is_training` switch: the training loss when true, an evaluation loss when
    // false; minimizing the cond's value only ever follows the taken branch.
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let w = Variable::builder(constant(&g, 0.0f32)?).name("w").build()?;
    let wv = w.value();
    let loss: Output = cond(
        &p,
        || square(&(wv.clone() - 3.0f32)?),
        || square(&(wv.clone() + 10.0f32)?),
    )?;
    let step = GradientDescentOptimizer::new(0.25).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&w.initializer())?;
    for _ in 0..40 {
        sess.run(&RunArgs::new().feed(&p, true).target(&step))?;
    }
    assert!((sess.eval(&wv)?.to_scalar::<f32>()? - 3.0).abs() < 1e-4);
    Ok(())
}

#[test]
fn case_takes_the_first_true_predicate_with_tensorflows_checks() -> Result<()> {
    // tf.case([(x < 5, 1), (x < 10, 2)], default=3), the same with exclusive=True, and
    // without a default.
    let g = Graph::new();
    let x = Placeholder::new(DType::I32)
        .shape(Shape::scalar())
        .name("x")
        .build(&g)?;
    let small = identity_named(less(&x, &constant(&g, 5i32)?)?, "small")?;
    let medium = identity_named(less(&x, &constant(&g, 10i32)?)?, "medium")?;
    let cases = |exclusive: bool, default: bool| -> Result<Output> {
        let c = Case::new()
            .when(&small, || constant(&g, 1i32))
            .when(&medium, || constant(&g, 2i32))
            .exclusive(exclusive);
        if default {
            c.default(|| constant(&g, 3i32)).build()
        } else {
            c.build()
        }
    };
    let plain = cases(false, true)?;
    let exclusive = cases(true, true)?;
    let no_default = cases(false, false)?;
    assert_eq!(plain.name(), "case/cond/Merge:0");
    let sess = Session::new(&g)?;
    let run = |t: &Output, v: i32| -> std::result::Result<i32, String> {
        sess.run(&RunArgs::new().feed(&x, v).fetch(t))
            .and_then(|r| r[0].to_scalar::<i32>())
            .map_err(|e| {
                assert_eq!(e.code(), Code::InvalidArgument, "{e}");
                e.message().to_string()
            })
    };
    assert_eq!(
        [run(&plain, 1), run(&plain, 7), run(&plain, 12)],
        [Ok(1), Ok(2), Ok(3)]
    );
    assert_eq!(run(&exclusive, 7), Ok(2));
    assert_eq!(run(&exclusive, 12), Ok(3));
    let err = run(&exclusive, 1).unwrap_err();
    assert!(
        err.contains("assertion failed: [Input error: exclusive=True: more than 1 conditions (small:0, medium:0) evaluated as True:] [1 1]"),
        "{err}"
    );
    assert_eq!([run(&no_default, 1), run(&no_default, 7)], [Ok(1), Ok(2)]);
    let err = run(&no_default, 12).unwrap_err();
    assert!(
        err.contains(
            "assertion failed: [Input error: None of conditions evaluated as True:] [0 0]"
        ),
        "{err}"
    );
    let bad = Case::new()
        .when(&constant(&g, 1i32)?, || constant(&g, 1i32))
        .default(|| constant(&g, 3i32))
        .build()
        .unwrap_err();
    assert!(
        bad.message()
            .starts_with("pred must be Tensor of type bool: Const"),
        "{bad}"
    );
    Ok(())
}

#[test]
fn a_cond_on_is_training_picks_between_two_running_queue_pipelines() -> Result<()> {
    // The TF1 idiom `tf.cond(is_training, ...)` over two input pipelines kept full by queue
    // runners. TensorFlow 2.21 gave exactly these first elements of five batches: with batches
    // dequeued outside the cond (`lambda: train_batch`) every run dequeues from both pipelines
    // (its well-known trap); with the dequeues built inside the branches, only the taken one.
    let wait = std::time::Duration::from_secs(20);
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let rows = |start: i32| -> Result<Vec<Output>> {
        let values: Vec<i32> = (start..start + 100).collect();
        SliceInputProducer::new(&[constant(&g, values)?])
            .shuffle(false)
            .build()
    };
    let (train, eval) = (
        Batch::new(&rows(0)?, 4).capacity(8).build()?.remove(0),
        Batch::new(&rows(1000)?, 4).capacity(8).build()?.remove(0),
    );
    let outside: Output = cond(&p, || Ok(train.clone()), || Ok(eval.clone()))?;
    let queue = |start: i32| -> Result<Queue> {
        let q = FifoQueue::new(8, &[DType::I32])
            .shapes(&[Shape::scalar()])
            .build(&g)?;
        let enqueue = q.enqueue(&rows(start)?)?;
        add_queue_runner(&QueueRunner::new(&q, &[enqueue])?, None);
        Ok(q)
    };
    let (q1, q2) = (queue(0)?, queue(1000)?);
    let inside: Output = cond(
        &p,
        || Ok(q1.dequeue_many(4)?.remove(0)),
        || Ok(q2.dequeue_many(4)?.remove(0)),
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&local_variables_initializer(&g)?)?;
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess.handle(), &coord)?;
    let firsts = |x: &Output| -> Result<Vec<i32>> {
        [true, true, false, true, false]
            .iter()
            .map(|&b| {
                let r = sess.run(&RunArgs::new().feed(&p, b).fetch(x).timeout(wait))?;
                Ok(r[0].to_vec::<i32>()?[0])
            })
            .collect()
    };
    assert_eq!(firsts(&outside)?, [0, 4, 1008, 12, 1016]);
    assert_eq!(firsts(&inside)?, [0, 4, 1000, 8, 1004]);
    coord.request_stop(None)?;
    coord.join(&threads, std::time::Duration::from_secs(10))?;
    Ok(())
}

#[test]
fn variables_made_in_a_branch_live_outside_it_as_in_tensorflow() -> Result<()> {
    // TensorFlow 2.21: tf.cond(p, lambda: get_variable("v", initializer=lambda: 3.0) * 2,
    // lambda: tf.Variable(lambda: 5.0, name="u") + 1): the variables' nodes are built outside
    // the cond ("v", "v/Assign", "v/read" read through a Switch), the initializers run without
    // feeding p, and the values are 6 and 6.
    let g = Graph::new();
    let p = bool_placeholder(&g)?;
    let y: Output = cond(
        &p,
        || {
            let v = GetVariable::new("v")
                .shape(&[])
                .initializer(Initializer::constant(3.0f32))
                .build(&g)?;
            v.value() * 2.0f32
        },
        || {
            let u = {
                let _lifted = g.init_scope();
                Variable::builder(constant(&g, 5.0f32)?).name("u").build()?
            };
            u.value() + 1.0f32
        },
    )?;
    for name in ["v", "v/Assign", "v/read", "cond/u", "cond/u/Assign"] {
        let node = g.operation_by_name(name).unwrap().node();
        assert_eq!(node.control_flow_context(), None, "{name}");
        assert!(node.control_inputs().is_empty(), "{name}");
    }
    let read = g.operation_by_name("v/read").unwrap().output(0)?;
    assert!(g
        .operations()
        .iter()
        .any(|op| op.op_type() == "Switch" && op.node().inputs()[0] == (read.node_id(), 0)));
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(
        run_with(&sess, &p, true, &[&y])?[0].to_scalar::<f32>()?,
        6.0
    );
    assert_eq!(
        run_with(&sess, &p, false, &[&y])?[0].to_scalar::<f32>()?,
        6.0
    );
    // An initial value built inside the branch cannot initialize outside it.
    let err = cond(
        &p,
        || {
            let w = Variable::builder(constant(&g, 1.0f32)?).name("w").build()?;
            Ok(w.value())
        },
        || constant(&g, 0.0f32),
    )
    .unwrap_err();
    assert!(
        err.message().starts_with(
            "Initializer for variable cond_1/w/ is from inside a control-flow construct"
        ),
        "{err}"
    );
    Ok(())
}

#[test]
fn variables_ignore_control_dependencies_in_force() -> Result<()> {
    // TensorFlow's variables are built in an init_scope: their initializer does not wait for
    // the ops of a control_dependencies block they were made in.
    let g = Graph::new();
    let counter = Variable::builder(constant(&g, 0i32)?)
        .name("counter")
        .build()?;
    let bump = counter.assign_add(constant(&g, 1i32)?)?;
    // (A constant built inside the block would wait for `bump` itself, as in TensorFlow.)
    let seven = constant(&g, 7i32)?;
    let v = {
        let _deps = g.control_dependencies(&[bump.op()])?;
        Variable::builder(seven).name("v").build()?
    };
    assert!(v.initializer().node().control_inputs().is_empty());
    let sess = Session::new(&g)?;
    sess.run_target(&counter.initializer())?;
    sess.run_target(&v.initializer())?;
    assert_eq!(sess.eval(&counter)?.to_scalar::<i32>()?, 0);
    Ok(())
}
