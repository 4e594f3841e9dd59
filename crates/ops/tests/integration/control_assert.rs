//! `tf.debugging.Assert` (the `Assert` op): messages compared with the ones the real TensorFlow
//! 2.21 gave for the same data and summarize (tensor/summarize.rs holds the per-value cases).

use weir_graph::{Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::control_flow::{assert, Assert};
use weir_session::{RunArgs, Session};

#[test]
fn a_true_condition_passes_and_a_false_one_fails_with_the_summarized_data() -> Result<()> {
    let g = Graph::new();
    let cond = placeholder(&g, DType::Bool, Shape::scalar())?;
    let msg = constant(&g, "x is")?;
    let x = constant(&g, vec![1i32, 2, 3, 4, 5])?;
    let check = assert(&cond, &[msg.clone(), x.clone()])?;
    let all = Assert::new().summarize(-1).build(&cond, &[x])?;
    let sess = Session::new(&g)?;
    let run =
        |op, value: bool| sess.run(&RunArgs::new().feed(&cond, Tensor::from(value)).target(op));
    run(&check, true)?;
    let e = run(&check, false).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.to_string()
            .contains("assertion failed: [x is] [1 2 3...]"),
        "{e}"
    );
    let e = run(&all, false).unwrap_err();
    assert!(
        e.to_string().contains("assertion failed: [1 2 3 4 5]"),
        "{e}"
    );
    Ok(())
}

#[test]
fn ops_guarded_by_a_failing_assert_do_not_run() -> Result<()> {
    let g = Graph::new();
    let cond = constant(&g, false)?;
    let check = assert(&cond, &[constant(&g, "no")?])?;
    let guarded = weir_ops::control_flow::group(&g, &[check], Some("guarded"))?;
    let sess = Session::new(&g)?;
    let e = sess.run(&RunArgs::new().target(&guarded)).unwrap_err();
    assert!(e.to_string().contains("assertion failed: [no]"), "{e}");
    Ok(())
}

#[test]
fn a_condition_that_is_not_a_scalar_is_refused_as_tensorflow_refuses_it() -> Result<()> {
    let g = Graph::new();
    let cond = placeholder(&g, DType::Bool, Shape::unknown())?;
    let check = assert(&cond, &[constant(&g, 1i32)?])?;
    let sess = Session::new(&g)?;
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&cond, Tensor::from(vec![true, true]))
                .target(&check),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.to_string().contains("In[0] should be a scalar: [2]"),
        "{e}"
    );
    Ok(())
}
