//! Gradients of `DivNoNan`, `CheckNumerics` and `Print`, against central differences and the
//! values and messages TensorFlow 2.21 gave.

use weir_graph::{DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{check_numerics, constant, placeholder};
use weir_ops::logging::print;
use weir_ops::math::{self, div_no_nan};
use weir_session::{RunArgs, Session};
use weir_train::gradients::{check::gradient_error, gradients};

#[test]
fn div_no_nan_gradients_match_tensorflow_and_central_differences() -> Result<()> {
    // TensorFlow: gradients of div_no_nan([3, 2], [0, 4]) are [0, 0.25] and [0, -0.125].
    let g = Graph::new();
    let (w, v) = (constant(&g, [3.0f32, 2.0])?, constant(&g, [0.0f32, 4.0])?);
    let grads = gradients(&[div_no_nan(&w, &v)?], &[w.clone(), v.clone()], None)?;
    let sess = Session::new(&g)?;
    let got: Vec<Vec<f32>> = grads
        .iter()
        .map(|d| sess.eval(d.as_ref().unwrap())?.to_vec::<f32>())
        .collect::<Result<_>>()?;
    assert_eq!(got, [vec![0.0, 0.25], vec![0.0, -0.125]]);
    // Away from zero divisors it is x / y's derivative, with broadcasting reduced back.
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(&[2, 3]))?;
    let y = placeholder(&g, DType::F64, Shape::known(&[3]))?;
    let q = div_no_nan(&x, &y)?;
    let (xv, yv) = (
        Tensor::from_vec(&[2, 3], vec![0.5f64, -1.0, 2.0, 1.5, 0.25, -0.75])?,
        Tensor::from(vec![1.25f64, -0.5, 2.0]),
    );
    assert!(gradient_error(&x, &xv, &q, &[(y.clone(), yv.clone())])? < 1e-6);
    assert!(gradient_error(&y, &yv, &q, &[(x, xv)])? < 1e-6);
    Ok(())
}

#[test]
fn check_numerics_checks_its_gradient_with_tensorflows_message() -> Result<()> {
    let g = Graph::new();
    let w = constant(&g, [3.0f32, 2.0])?;
    let checked = check_numerics(&w, "cn")?;
    let ones = gradients(
        std::slice::from_ref(&checked),
        std::slice::from_ref(&w),
        None,
    )?[0]
        .clone()
        .unwrap();
    // The gradient through a NaN product: TensorFlow's message, bytes repr included.
    let nan = math::mul(&checked, &constant(&g, [f32::NAN, 1.0])?)?;
    let bad = gradients(&[nan], std::slice::from_ref(&w), None)?[0]
        .clone()
        .unwrap();
    let sess = Session::new(&g)?;
    assert_eq!(sess.eval(&ones)?.to_vec::<f32>()?, [1.0, 1.0]);
    let err = sess.eval(&bad).unwrap_err();
    assert_eq!(
        err.message(),
        "Not a number (NaN) or infinity (Inf) values detected in gradient. b'cn' : Tensor had NaN values"
    );
    Ok(())
}

#[test]
fn print_passes_its_gradient_to_its_input_only() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(&[3]))?;
    let y = math::square(&print(&x, std::slice::from_ref(&x))?)?;
    let xv = Tensor::from(vec![0.5f64, -1.0, 2.0]);
    assert!(gradient_error(&x, &xv, &y, &[])? < 1e-6);
    let sess = Session::new(&g)?;
    let d = gradients(&[y], std::slice::from_ref(&x), None)?[0]
        .clone()
        .unwrap();
    let r = sess.run(&RunArgs::new().feed(&x, xv).fetch(&d))?;
    assert_eq!(r[0].to_vec::<f64>()?, [1.0, -2.0, 4.0]);
    Ok(())
}
