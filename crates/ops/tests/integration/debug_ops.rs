//! `CheckNumerics` and `DivNoNan`: values and messages as TensorFlow 2.21 gave them.

use weir_graph::{Code, Graph, Result, Tensor};
use weir_ops::array::{check_numerics, constant};
use weir_ops::math::div_no_nan;
use weir_session::Session;

#[test]
fn check_numerics_names_what_it_found() -> Result<()> {
    let g = Graph::new();
    let cases = [
        (
            vec![1.0f32, f32::NAN, f32::INFINITY],
            "bad x",
            Some("bad x : Tensor had Inf and NaN values"),
        ),
        (vec![f32::NAN], "m", Some("m : Tensor had NaN values")),
        (
            vec![f32::NEG_INFINITY],
            "m",
            Some("m : Tensor had Inf values"),
        ),
        (vec![1.0, 2.0], "m", None),
    ];
    let sess_checks: Vec<_> = cases
        .iter()
        .map(|(v, msg, _)| check_numerics(constant(&g, v.clone()).unwrap(), msg).unwrap())
        .collect();
    let f64_check = check_numerics(constant(&g, [1.0f64, f64::NAN])?, "d")?;
    let sess = Session::new(&g)?;
    for (t, (v, _, want)) in sess_checks.iter().zip(&cases) {
        match (sess.eval(t), want) {
            (Ok(got), None) => assert_eq!(got.to_vec::<f32>()?, *v),
            (Err(e), Some(m)) => {
                assert_eq!(e.code(), Code::InvalidArgument);
                assert_eq!(e.message(), *m);
            }
            (got, want) => panic!("{got:?} vs {want:?}"),
        }
    }
    assert_eq!(
        sess.eval(&f64_check).unwrap_err().message(),
        "d : Tensor had NaN values"
    );
    // Integers are not checkable, as in TensorFlow's signature.
    assert!(check_numerics(constant(&g, [1i32])?, "m").is_err());
    Ok(())
}

#[test]
fn div_no_nan_is_zero_wherever_the_divisor_is() -> Result<()> {
    let g = Graph::new();
    let a = div_no_nan(
        constant(&g, [1.0f32, 2.0, 0.0, -1.0])?,
        constant(&g, [0.0f32, 4.0, 0.0, 0.0])?,
    )?;
    let b = div_no_nan(
        constant(&g, [1.0f32, f32::NAN, f32::INFINITY])?,
        constant(&g, [0.0f32, 0.0, 0.0])?,
    )?;
    let c = div_no_nan(
        constant(&g, Tensor::from_vec(&[2, 1], vec![1.0f32, 2.0])?)?,
        constant(&g, [2.0f32, 0.0])?,
    )?;
    // Integers are divided as floats: int32 becomes float64, as TensorFlow's Python does.
    let d = div_no_nan(constant(&g, [3i32, 1])?, constant(&g, [2i32, 0])?)?;
    assert_eq!(d.dtype(), weir_graph::DType::F64);
    let sess = Session::new(&g)?;
    assert_eq!(sess.eval(&a)?.to_vec::<f32>()?, [0.0, 0.5, 0.0, 0.0]);
    assert_eq!(sess.eval(&b)?.to_vec::<f32>()?, [0.0, 0.0, 0.0]);
    let c = sess.eval(&c)?;
    assert_eq!(
        (c.shape(), c.to_vec::<f32>()?),
        (&[2usize, 2][..], vec![0.5, 0.0, 1.0, 0.0])
    );
    assert_eq!(sess.eval(&d)?.to_vec::<f64>()?, [1.5, 0.0]);
    Ok(())
}
