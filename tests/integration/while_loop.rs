//! `tf.while_loop` (TensorFlow 1's frames of Enter, Merge, LoopCond, Switch, NextIteration and
//! Exit): values, options, loops in loops and conds in loops, stateful ops run once per
//! iteration, and errors. Every expected value and message below is what TensorFlow 2.21 gave
//! for the same graph (`tf.compat.v1.while_loop` with control flow v1).

use weir::graph::Code;
use weir::prelude::*;

fn i32s(g: &Graph, v: i32) -> Result<Output> {
    constant(g, v)
}

/// `while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * k + 1.0), [0, 1.0])`, `k` = 3
/// from outside the loop.
fn counting_loop(g: &Graph) -> Result<Vec<Output>> {
    let k = constant(g, 3.0f32)?;
    while_loop(
        |v| less(&v[0], &i32s(g, 5)?),
        |v| {
            Ok(vec![
                add(&v[0], &i32s(g, 1)?)?,
                add(&mul(&v[1], &k)?, &constant(g, 1.0f32)?)?,
            ])
        },
        &[i32s(g, 0)?, constant(g, 1.0f32)?],
    )
}

#[test]
fn runs_the_body_while_the_condition_holds() -> Result<()> {
    let g = Graph::new();
    let out = counting_loop(&g)?;
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out[0]).fetch(&out[1]))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 5);
    assert_eq!(r[1].to_scalar::<f32>()?, 364.0);
    // Fetching one exit alone runs the whole loop too.
    assert_eq!(sess.eval(&out[1])?.to_scalar::<f32>()?, 364.0);
    assert_eq!(sess.eval(&out[0])?.to_scalar::<i32>()?, 5);
    Ok(())
}

#[test]
fn builds_tensorflow_s_nodes() -> Result<()> {
    let g = Graph::new();
    counting_loop(&g)?;
    let ops = |name: &str| g.operation_by_name(name).map(|o| o.op_type());
    for (name, op) in [
        ("while/Enter", "Enter"),
        ("while/Enter_1", "Enter"),
        ("while/Merge", "Merge"),
        ("while/Merge_1", "Merge"),
        ("while/Less", "Less"),
        ("while/LoopCond", "LoopCond"),
        ("while/Switch", "Switch"),
        ("while/Switch_1", "Switch"),
        ("while/Identity", "Identity"),
        ("while/Identity_1", "Identity"),
        // weir names math ops by op type where Python's operators say `add`, `mul`.
        ("while/AddV2", "AddV2"),
        ("while/Mul", "Mul"),
        ("while/Mul/Enter", "Enter"),
        ("while/AddV2_1", "AddV2"),
        ("while/NextIteration", "NextIteration"),
        ("while/NextIteration_1", "NextIteration"),
        ("while/Exit", "Exit"),
        ("while/Exit_1", "Exit"),
    ] {
        assert_eq!(ops(name).as_deref(), Some(op), "{name}");
    }
    let enter = g.operation_by_name("while/Mul/Enter").unwrap();
    assert_eq!(enter.attr::<String>("frame_name")?, "while/while_context");
    assert!(enter.attr::<bool>("is_constant")?);
    assert_eq!(enter.attr::<i64>("parallel_iterations")?, 10);
    let var_enter = g.operation_by_name("while/Enter").unwrap();
    assert!(!var_enter.attr::<bool>("is_constant")?);
    // Constants wait for the pivot: the first Merge in the condition, the first Identity in
    // the body.
    let names = |op: &str| -> Vec<String> {
        g.operation_by_name(op)
            .unwrap()
            .control_inputs()
            .iter()
            .map(|o| o.name())
            .collect()
    };
    assert_eq!(names("while/Const"), ["while/Merge"]);
    assert_eq!(names("while/Const_1"), ["while/Identity"]);
    // The back edge.
    let merge = g.operation_by_name("while/Merge").unwrap();
    let back = g.with_nodes(|n| n[merge.id()].loop_back_edge()).unwrap();
    assert_eq!(g.operation(back.0)?.name(), "while/NextIteration");
    Ok(())
}

#[test]
fn maximum_iterations_stops_the_loop() -> Result<()> {
    let g = Graph::new();
    let out = WhileLoop::new().maximum_iterations(&i32s(&g, 3)?).build(
        |v| less(&v[0], &i32s(&g, 100)?),
        |v| Ok(vec![add(&v[0], &i32s(&g, 1)?)?]),
        &[i32s(&g, 0)?],
    )?;
    assert_eq!(out.len(), 1);
    assert_eq!(Session::new(&g)?.eval(&out[0])?.to_scalar::<i32>()?, 3);
    assert!(g.operation_by_name("while/iteration_counter").is_some());

    let g = Graph::new();
    let out = WhileLoop::new()
        .maximum_iterations(&constant(&g, 4i64)?)
        .build(
            |v| less(&v[0], &i32s(&g, 100)?),
            |v| {
                Ok(vec![
                    add(&v[0], &i32s(&g, 1)?)?,
                    mul(&v[1], &constant(&g, 2.0f32)?)?,
                ])
            },
            &[i32s(&g, 0)?, constant(&g, 1.5f32)?],
        )?;
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out[0]).fetch(&out[1]))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 4);
    assert_eq!(r[1].to_scalar::<f32>()?, 24.0);
    Ok(())
}

#[test]
fn loops_nest() -> Result<()> {
    let g = Graph::new();
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 4)?),
        |v| {
            let i = v[0].clone();
            let inner = while_loop(
                |w| less(&w[0], &i),
                |w| Ok(vec![add(&w[0], &i32s(&g, 1)?)?, add(&w[1], &w[0])?]),
                &[i32s(&g, 0)?, v[1].clone()],
            )?;
            Ok(vec![add(&v[0], &i32s(&g, 1)?)?, inner[1].clone()])
        },
        &[i32s(&g, 0)?, i32s(&g, 0)?],
    )?;
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out[0]).fetch(&out[1]))?;
    assert_eq!((r[0].to_scalar::<i32>()?, r[1].to_scalar::<i32>()?), (4, 4));
    assert!(g.operation_by_name("while/while/Enter").is_some());
    let inner = g.operation_by_name("while/while/Enter").unwrap();
    assert_eq!(
        inner.attr::<String>("frame_name")?,
        "while/while/while_context"
    );
    Ok(())
}

#[test]
fn a_cond_in_the_body_takes_one_branch_per_iteration() -> Result<()> {
    let g = Graph::new();
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 6)?),
        |v| {
            let (i, x) = (v[0].clone(), v[1].clone());
            let even = equal(
                &weir::ops::math::floormod(&i, &i32s(&g, 2)?)?,
                &i32s(&g, 0)?,
            )?;
            let x2 = cond(
                &even,
                || add(&x, &cast(&i, DType::F32)?),
                || mul(&x, &constant(&g, 2.0f32)?),
            )?;
            Ok(vec![add(&i, &i32s(&g, 1)?)?, x2])
        },
        &[i32s(&g, 0)?, constant(&g, 1.0f32)?],
    )?;
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out[0]).fetch(&out[1]))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 6);
    assert_eq!(r[1].to_scalar::<f32>()?, 24.0);
    Ok(())
}

#[test]
fn shape_invariants_let_a_variable_grow() -> Result<()> {
    let g = Graph::new();
    let out = WhileLoop::new()
        .shape_invariants(vec![Shape::new(vec![None])])
        .build(
            |v| less(&size(&v[0])?, &i32s(&g, 5)?),
            |v| Ok(vec![concat(&[v[0].clone(), shape(&v[0])?], 0)?]),
            &[constant(&g, vec![7i32])?],
        )?;
    assert_eq!(out[0].shape(), Shape::new(vec![None]));
    let r = Session::new(&g)?.eval(&out[0])?;
    assert_eq!(r.to_vec::<i32>()?, vec![7, 1, 2, 3, 4]);
    Ok(())
}

#[test]
fn the_condition_reads_a_fed_placeholder() -> Result<()> {
    let g = Graph::new();
    let n = Placeholder::new(DType::I32)
        .shape(Shape::scalar())
        .name("n")
        .build(&g)?;
    let out = while_loop(
        |v| less(&v[0], &n),
        |v| {
            Ok(vec![
                add(&v[0], &i32s(&g, 1)?)?,
                add(&v[1], &mul(&v[0], &v[0])?)?,
            ])
        },
        &[i32s(&g, 0)?, i32s(&g, 0)?],
    )?;
    let sess = Session::new(&g)?;
    for (fed, want) in [(7, (7, 91)), (0, (0, 0))] {
        let r = sess.run(&RunArgs::new().feed(&n, fed).fetch(&out[0]).fetch(&out[1]))?;
        assert_eq!((r[0].to_scalar::<i32>()?, r[1].to_scalar::<i32>()?), want);
    }
    let e = sess.eval(&out[0]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.message().contains("'n'"), "{e}");
    Ok(())
}

#[test]
fn values_from_outside_are_computed_once_and_read_every_iteration() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32)
        .shape(Shape::known(&[3]))
        .name("x")
        .build(&g)?;
    let w = reduce_sum(&x, Axes::All)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| Ok(vec![add(&v[0], &i32s(&g, 1)?)?, add(&mul(&v[1], &w)?, &x)?]),
        &[i32s(&g, 0)?, zeros(&g, DType::F32, &[3])?],
    )?;
    let sess = Session::new(&g)?;
    let r = sess.run(
        &RunArgs::new()
            .feed(&x, Tensor::from(vec![1.0f32, 2.0, 0.5]))
            .fetch(&out[1]),
    )?;
    assert_eq!(r[0].to_vec::<f32>()?, vec![16.75, 33.5, 8.375]);
    Ok(())
}

#[test]
fn a_dequeue_in_the_body_runs_once_per_iteration() -> Result<()> {
    let g = Graph::new();
    let q = FifoQueue::new(20, &[DType::F32])
        .shapes(&[Shape::scalar()])
        .build(&g)?;
    let init = q.enqueue_many(&[constant(
        &g,
        (1..=10).map(|v| v as f32).collect::<Vec<_>>(),
    )?])?;
    let start = {
        let _d = g.control_dependencies(&[init])?;
        i32s(&g, 0)?
    };
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| {
            Ok(vec![
                add(&v[0], &i32s(&g, 1)?)?,
                add(&v[1], &q.dequeue()?[0])?,
            ])
        },
        &[start, constant(&g, 0.0f32)?],
    )?;
    let size = {
        let _d = g.control_dependencies(&[out[1].op()])?;
        q.size()?
    };
    let sess = Session::new(&g)?;
    let r = sess.run(&RunArgs::new().fetch(&out[0]).fetch(&out[1]).fetch(&size))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 3);
    assert_eq!(r[1].to_scalar::<f32>()?, 6.0);
    assert_eq!(r[2].to_scalar::<i32>()?, 7);
    Ok(())
}

#[test]
fn a_variable_assigned_in_the_body_is_assigned_every_iteration() -> Result<()> {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0.0f32)?).name("v").build()?;
    let out = while_loop(
        |x| less(&x[0], &i32s(&g, 4)?),
        |x| {
            let a = v.assign_add(constant(&g, 2.0f32)?)?;
            let _d = g.control_dependencies(&[a.op()])?;
            Ok(vec![add(&x[0], &i32s(&g, 1)?)?])
        },
        &[i32s(&g, 0)?],
    )?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(sess.eval(&out[0])?.to_scalar::<i32>()?, 4);
    assert_eq!(sess.eval(v.value())?.to_scalar::<f32>()?, 8.0);
    Ok(())
}

#[test]
fn values_inside_the_loop_cannot_be_fetched() -> Result<()> {
    let g = Graph::new();
    counting_loop(&g)?;
    let merge = g.tensor_by_name("while/Merge:0")?;
    let e = Session::new(&g)?.eval(&merge).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(
        e.message()
            .contains("inside while loop 'while/while_context'"),
        "{e}"
    );
    Ok(())
}

#[test]
fn bad_loops_are_refused_with_tensorflow_s_messages() -> Result<()> {
    let g = Graph::new();
    let e = while_loop(
        |v| less(&size(&v[0])?, &i32s(&g, 5)?),
        |v| Ok(vec![concat(&[v[0].clone(), constant(&g, vec![1i32])?], 0)?]),
        &[constant_named(&g, vec![0i32], "Const")?],
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "Input tensor 'Const:0' enters the loop with shape (1,), but has shape (2,) after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape."
    );
    let g = Graph::new();
    let e = WhileLoop::new()
        .shape_invariants(vec![Shape::known(&[3])])
        .build(
            |v| less(&size(&v[0])?, &i32s(&g, 5)?),
            |v| Ok(vec![v[0].clone()]),
            &[constant_named(&g, vec![0i32, 1], "Const")?],
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "The shape invariant specified for Const:0 is not compatible with the initial shape of the loop variable. It enters the loop with shape (2,), but the specified shape invariant is (3,)."
    );
    let g = Graph::new();
    let e = while_loop(
        |v| less(&v[0], &i32s(&g, 5)?),
        |v| Ok(vec![v[0].clone()]),
        &[i32s(&g, 0)?, i32s(&g, 1)?],
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "The two structures don't have the same nested structure."
    );
    let e = while_loop(|v| Ok(v[0].clone()), |v| Ok(v.to_vec()), &[i32s(&g, 0)?]).unwrap_err();
    assert_eq!(
        e.message(),
        "Input 'input' of 'LoopCond' Op has type int32 that does not match expected type of bool."
    );
    let e = while_loop(|v| Ok(v[0].clone()), |v| Ok(v.to_vec()), &[]).unwrap_err();
    assert_eq!(e.message(), "'loop_vars' must be provided.");
    let e = WhileLoop::new()
        .parallel_iterations(0)
        .build(|v| Ok(v[0].clone()), |v| Ok(v.to_vec()), &[i32s(&g, 0)?])
        .unwrap_err();
    assert_eq!(
        e.message(),
        "'parallel_iterations' must be a positive integer."
    );
    let e = WhileLoop::new()
        .maximum_iterations(&constant(&g, vec![3i32])?)
        .build(
            |v| less(&v[0], &i32s(&g, 5)?),
            |v| Ok(v.to_vec()),
            &[i32s(&g, 0)?],
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "'maximum_iterations' must be a scalar. Received shape: (1,)"
    );
    Ok(())
}

#[test]
fn a_loop_that_never_ends_stops_at_the_run_s_timeout() -> Result<()> {
    let g = Graph::new();
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 1)?),
        |v| Ok(vec![mul(&v[0], &i32s(&g, 1)?)?]),
        &[i32s(&g, 0)?],
    )?;
    let sess = Session::new(&g)?;
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&out[0])
                .timeout(std::time::Duration::from_millis(200)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    Ok(())
}

#[test]
fn a_dequeue_waiting_in_a_loop_is_cancelled_when_the_session_closes() -> Result<()> {
    let g = Graph::new();
    let q = FifoQueue::new(2, &[DType::F32])
        .shapes(&[Shape::scalar()])
        .build(&g)?;
    let out = while_loop(
        |v| less(&v[0], &i32s(&g, 3)?),
        |v| {
            Ok(vec![
                add(&v[0], &i32s(&g, 1)?)?,
                add(&v[1], &q.dequeue()?[0])?,
            ])
        },
        &[i32s(&g, 0)?, constant(&g, 0.0f32)?],
    )?;
    let sess = Session::new(&g)?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let sess = &sess;
        let fetched = out[1].clone();
        s.spawn(move || tx.send(sess.eval(&fetched)).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(100));
        sess.close();
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the run did not end after close");
        assert_eq!(r.unwrap_err().code(), Code::Cancelled);
    });
    Ok(())
}
