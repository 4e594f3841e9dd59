//! Variables with TensorFlow 1.x semantics (TF_SEMANTICS §1.2).

use weir::prelude::*;
use weir::train::get_or_create_global_step;

#[test]
fn nodes_and_names_match_tensorflow() -> Result<()> {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, [1.0f32, 2.0])?)
        .name("v")
        .build()?;
    assert_eq!(v.name(), "v");
    assert_eq!(v.op().op_type(), "VariableV2");
    assert_eq!(v.initializer().name(), "v/Assign");
    assert_eq!(v.value().name(), "v/read:0");
    assert_eq!(v.initial_value().name(), "v/initial_value:0");
    assert_eq!(v.shape(), Shape::known(&[2]));
    let v2 = Variable::builder(constant(&g, 0.0f32)?).name("v").build()?;
    assert_eq!(v2.name(), "v_1");
    assert_eq!(v2.value().name(), "v_1/read:0");
    let unnamed = Variable::new(constant(&g, 0.0f32)?)?;
    assert_eq!(unnamed.name(), "Variable");
    Ok(())
}

#[test]
fn collections_follow_trainable_and_collections_options() -> Result<()> {
    let g = Graph::new();
    let a = Variable::builder(constant(&g, 0.0f32)?).name("a").build()?;
    let b = Variable::builder(constant(&g, 0.0f32)?)
        .name("b")
        .trainable(false)
        .build()?;
    let c = Variable::builder(constant(&g, 0.0f32)?)
        .name("c")
        .trainable(false)
        .collections(&[])
        .build()?;
    let _d = Variable::builder(constant(&g, 0i64)?)
        .name("d")
        .collections(&[graph_keys::LOCAL_VARIABLES])
        .build()?;
    let names = |vs: Vec<Variable>| vs.iter().map(Variable::name).collect::<Vec<_>>();
    assert_eq!(names(global_variables(&g)?), vec!["a", "b"]);
    // trainable (default true) joins TRAINABLE_VARIABLES even with custom collections.
    assert_eq!(names(trainable_variables(&g)?), vec!["a", "d"]);
    assert_eq!(names(local_variables(&g)?), vec!["d"]);
    drop((a, b, c));
    Ok(())
}

#[test]
fn uninitialized_read_is_failed_precondition_naming_it() -> Result<()> {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 1.0f32)?).name("v").build()?;
    let inc = v.assign_add(constant(&g, 1.0f32)?)?;
    let sess = Session::new(&g)?;
    let e = sess.eval(&v).unwrap_err();
    assert!(e.is_failed_precondition());
    assert_eq!(e.message(), "Attempting to use uninitialized value v");
    assert!(sess.eval(&inc).unwrap_err().is_failed_precondition());
    let report = report_uninitialized_variables(&g, None)?;
    assert_eq!(sess.eval(&report)?.to_strings()?, vec!["v"]);
    assert!(!sess.eval(v.is_initialized()?)?.to_scalar::<bool>()?);
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert!(sess.eval(&report)?.to_strings()?.is_empty());
    assert!(sess.eval(v.is_initialized()?)?.to_scalar::<bool>()?);
    Ok(())
}

#[test]
fn assign_family_returns_new_values() -> Result<()> {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 1.0f32)?).name("v").build()?;
    let add = v.assign_add(constant(&g, 2.5f32)?)?;
    let sub = v.assign_sub(constant(&g, 0.5f32)?)?;
    let set = v.assign(constant(&g, 10.0f32)?)?;
    let sess = Session::new(&g)?;
    // assign works on an uninitialized variable and initializes it.
    assert_eq!(sess.eval(&set)?.to_scalar::<f32>()?, 10.0);
    sess.run_target(&v.initializer())?;
    assert_eq!(sess.eval(&add)?.to_scalar::<f32>()?, 3.5);
    assert_eq!(sess.eval(&sub)?.to_scalar::<f32>()?, 3.0);
    assert_eq!(sess.eval(&v)?.to_scalar::<f32>()?, 3.0);
    Ok(())
}

#[test]
fn assign_shape_checks() -> Result<()> {
    let g = Graph::new();
    let w = Variable::builder(constant(&g, [1.0f32, 2.0])?)
        .name("w")
        .build()?;
    // A known mismatch is a build-time error.
    assert!(w.assign(constant(&g, [1.0f32, 2.0, 3.0])?).is_err());
    let p = placeholder(&g, DType::F32, Shape::unknown())?;
    let a = w.assign(&p)?;
    let sess = Session::new(&g)?;
    sess.run_target(&w.initializer())?;
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![1.0f32, 2.0, 3.0]))
                .fetch(&a),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(
        e.message(),
        "Assign requires shapes of both tensors to match. lhs shape= [2] rhs shape= [3]"
    );
    // validate_shape=false lets the variable change shape.
    let free = Variable::builder(constant(&g, [1.0f32])?)
        .validate_shape(false)
        .name("free")
        .build()?;
    let reshape = free.assign_any_shape(&p)?;
    sess.run_target(&free.initializer())?;
    let r = sess.run(
        &RunArgs::new()
            .feed(&p, Tensor::from(vec![4.0f32, 5.0, 6.0]))
            .fetch(&reshape),
    )?;
    assert_eq!(r[0].shape(), &[3]);
    assert_eq!(sess.eval(&free)?.to_vec::<f32>()?, vec![4.0, 5.0, 6.0]);
    // Type mismatches are build-time errors.
    assert!(w.assign_add(constant(&g, [1i32, 2])?).is_err());
    Ok(())
}

#[test]
fn count_up_to_stops_at_the_limit() -> Result<()> {
    let g = Graph::new();
    let c = Variable::builder(constant(&g, 0i64)?)
        .name("counter")
        .trainable(false)
        .build()?;
    let next = c.count_up_to(2)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(sess.eval(&next)?.to_scalar::<i64>()?, 0);
    assert_eq!(sess.eval(&next)?.to_scalar::<i64>()?, 1);
    let e = sess.eval(&next).unwrap_err();
    assert!(e.is_out_of_range());
    assert_eq!(e.message(), "Reached limit of 2");
    assert_eq!(sess.eval(&c)?.to_scalar::<i64>()?, 2);
    Ok(())
}

#[test]
fn initializers_group_and_are_named_init() -> Result<()> {
    let g = Graph::new();
    let a = Variable::new(constant(&g, 1.0f32)?)?;
    let l = Variable::builder(constant(&g, 2.0f32)?)
        .collections(&[graph_keys::LOCAL_VARIABLES])
        .trainable(false)
        .build()?;
    let init = global_variables_initializer(&g)?;
    assert_eq!(init.name(), "init");
    assert_eq!(global_variables_initializer(&g)?.name(), "init_1");
    let local = local_variables_initializer(&g)?;
    let none = variables_initializer(&g, &[], "nothing")?;
    let sess = Session::new(&g)?;
    sess.run_target(&none)?;
    sess.run_target(&init)?;
    assert_eq!(sess.eval(&a)?.to_scalar::<f32>()?, 1.0);
    assert!(sess.eval(&l).unwrap_err().is_failed_precondition());
    sess.run_target(&local)?;
    assert_eq!(sess.eval(&l)?.to_scalar::<f32>()?, 2.0);
    Ok(())
}

#[test]
fn variable_initialized_from_a_fed_placeholder() -> Result<()> {
    // The preloaded-data pattern: the data never becomes a graph constant.
    let g = Graph::new();
    let init_data = Placeholder::new(DType::F32)
        .shape([3usize])
        .name("init_data")
        .build(&g)?;
    let data = Variable::builder(&init_data)
        .trainable(false)
        .collections(&[])
        .name("data")
        .build()?;
    let doubled = (&data.value() * 2.0)?;
    let sess = Session::new(&g)?;
    sess.run(
        &RunArgs::new()
            .feed(&init_data, Tensor::from(vec![1.0f32, 2.0, 3.0]))
            .target(&data.initializer()),
    )?;
    for _ in 0..3 {
        assert_eq!(sess.eval(&doubled)?.to_vec::<f32>()?, vec![2.0, 4.0, 6.0]);
    }
    assert!(global_variables(&g)?.is_empty());
    Ok(())
}

#[test]
fn global_step() -> Result<()> {
    let g = Graph::new();
    let step = get_or_create_global_step(&g)?;
    assert_eq!(step.name(), "global_step");
    assert_eq!(step.dtype(), DType::I64);
    assert!(trainable_variables(&g)?.is_empty());
    assert_eq!(global_variables(&g)?.len(), 1);
    assert_eq!(get_or_create_global_step(&g)?.name(), "global_step");
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    assert_eq!(sess.eval(&step)?.to_scalar::<i64>()?, 0);
    Ok(())
}
