//! Gradients of the complex and FFT ops against TensorFlow 2.21's `tf.gradients` (the cases of
//! crates/ops/tests/data/spectral/expected.json with recorded gradients: `Complex` with and
//! without broadcasting, `Real`, `Imag`, `Conj`, `Angle`, `ComplexAbs`, `ConjugateTranspose`,
//! `tf.linalg.adjoint`, `FFT`/`IFFT` in 1-3 D, `RFFT`, `IRFFT`, `IRFFT2D`), and a chain of
//! complex ops against weir's numeric gradient checker.

#[allow(dead_code)]
#[path = "../../../ops/tests/integration/spectral/build.rs"]
mod build;

use build::{assert_close, build, cases, tensor};
use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::complex::{complex, conj, conjugate_transpose, imag};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

/// Builds each case's gradients with `grad_ys` and compares them with TensorFlow's, within
/// `tol(case name, dtype)` of the largest expected magnitude; returns the number of cases.
fn check_gradients(fft: bool, tol: impl Fn(&str, DType) -> f64) -> usize {
    let mut n = 0;
    let cases = cases();
    let with_grads = cases.iter().filter(|c| c.get("grads").is_some());
    for case in with_grads.filter(|c| c["op"].as_str().unwrap().contains("fft") == fft) {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build(&g, case).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = case["grads"].as_object().unwrap();
        let xs: Vec<Output> = want
            .keys()
            .map(|k| built.inputs[k.parse::<usize>().unwrap()].clone())
            .collect();
        let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
        let grads = gradients(std::slice::from_ref(&built.output), &xs, Some(&[gy]))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = RunArgs::new();
        for d in &grads {
            args = args.fetch(d.as_ref().unwrap_or_else(|| panic!("{name}: no gradient")));
        }
        let got = Session::new(&g)
            .unwrap()
            .run(&args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for ((k, w), v) in want.iter().zip(&got) {
            assert_close(&format!("{name}: d/dx{k}"), v, w, tol(name, v.dtype()));
        }
        n += 1;
    }
    n
}

#[test]
fn complex_gradients_match_tensorflow() {
    let n = check_gradients(false, |name, dt| {
        // Moving parts between real and complex tensors is exact. The broadcast cases sum, in
        // an order that may differ from Eigen's, and Angle's and ComplexAbs's gradients divide
        // complex numbers, which weir and std::complex round differently: a few ulp.
        if name.contains("bcast")
            || name == "complex_scalar"
            || name.contains("angle")
            || name.contains("abs")
        {
            match dt {
                DType::F32 | DType::C64 => 1e-6,
                _ => 2e-15,
            }
        } else {
            0.0
        }
    });
    assert!(n >= 12, "only {n} gradient cases");
}

#[test]
fn fft_gradients_match_tensorflow() {
    // As the transforms themselves (crates/ops/tests/integration/spectral.rs): DUCC and rustfft
    // round differently, within a few ulp of the transform's magnitude.
    let n = check_gradients(true, |_, dt| match dt {
        DType::F32 | DType::C64 => 4e-6,
        _ => 1e-13,
    });
    assert!(n >= 12, "only {n} gradient cases");
}

#[test]
fn a_chain_of_complex_ops_matches_central_differences() {
    // imag(conj(conjugate_transpose(complex(c, x)))) == transpose(x): the gradient flows back
    // through Imag, Conj, ConjugateTranspose and Complex.
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(&[2, 3])).unwrap();
    let c = constant(&g, Tensor::from_vec(&[2, 3], vec![0.5f64; 6]).unwrap()).unwrap();
    let z = complex(&c, &x).unwrap();
    let t = conjugate_transpose(&z, [1, 0]).unwrap();
    let y = imag(conj(&t).unwrap()).unwrap();
    let v = Tensor::from_vec(&[2, 3], vec![0.1f64, -0.7, 1.3, 2.0, -1.1, 0.4]).unwrap();
    let err = gradient_error(&x, &v, &y, &[]).unwrap();
    assert!(err < 1e-9, "off by {err}");
}
