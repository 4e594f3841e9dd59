//! The complex ops (`Complex`, `Real`, `Imag`, `Angle`, `ComplexAbs`, `Conj`,
//! `ConjugateTranspose`) against TensorFlow 2.21: every such case of
//! tests/data/spectral/expected.json, values bit for bit (weir computes each element with the
//! same single libm call as TensorFlow's Eigen: `atan2`, `hypot`), static shapes, and errors.
//! One exception: TensorFlow's complex128 `Angle` runs Eigen's vectorized `atan2` polynomial,
//! which differs from libm's correctly rounded result by up to 1 ulp; those values are
//! compared within 2.5e-16 of the largest magnitude (at most pi, so about 1 ulp).

use serde_json::Value;
use weir_graph::{Complex, DType, Graph, Tensor};
use weir_session::Session;

use crate::io_util::check_all_cases;
use crate::spectral::build::cases;
use crate::spectral::run_case;

#[test]
fn complex_ops_match_tensorflow() {
    let cases: Vec<Value> = cases()
        .into_iter()
        .filter(|c| {
            let op = c["op"].as_str().unwrap();
            !op.contains("fft") && !crate::spectral::SIGNAL_OPS.contains(&op)
        })
        .collect();
    assert!(cases.len() >= 30, "{} complex cases", cases.len());
    check_all_cases(&cases, |c| {
        if c["name"] == "angle_complex128" {
            run_case(c, |_| 2.5e-16)
        } else {
            run_case(c, |_| 0.0)
        }
    });
}

#[test]
fn tout_must_match_the_input() {
    // TensorFlow registers Real only for complex64 -> float32 and complex128 -> float64.
    let g = Graph::new();
    let z = weir_ops::array::constant(
        &g,
        Tensor::from_vec(&[1], vec![Complex::new(1.0f32, 2.0)]).unwrap(),
    )
    .unwrap();
    weir_ops::register_all_ops();
    let r = g
        .new_operation("Real")
        .input(&z)
        .attr("Tout", DType::F64)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let e = Session::new(&g).unwrap().eval(&r).unwrap_err();
    assert_eq!(e.code(), weir_graph::Code::NotFound, "{e}");
}
