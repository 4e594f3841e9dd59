//! The special unary math ops (trigonometric and hyperbolic, expm1, rint, Inv, erf ... zeta,
//! polygamma, the Bessel functions) and softplus, softsign, selu, crelu with their grad ops
//! against TensorFlow 2.21: every case of tests/data/math_special/expected.json (made by
//! make_math_special.py there), values within a few ulp (see `allowed`), NaN, infinities
//! and signed zeros exactly, errors with TensorFlow's code and kernel messages.

mod build;

use build::{build, cases, numbers, tensor};
use serde_json::Value;
use weir_graph::{Code, DType, Graph, Result, Tensor};
use weir_session::Session;

/// How many ulp (of the expected value, in the case's float type) weir may differ by, and the
/// absolute error allowed besides.
///
/// TensorFlow evaluates float32 in float32 (Eigen's rational `erf`, Cephes' float `digamma`
/// and Bessel fits, `zeta` summed in float32, ...), each a few float32 ulp from the true value;
/// weir evaluates in float64 and rounds once, so the two differ by those few ulp. In float64
/// weir is within 1-2 ulp of 50-digit values (mpmath) on every case here, while TensorFlow's
/// Eigen kernels are not always: its vectorized sinh/cosh/expm1/acos/atanh are up to 33 ulp
/// off on the sweeps, zeta and polygamma up to 27, digamma's reflection up to ~150 ulp of its
/// terms (weir's 14), and its acosh computes `log(x + sqrt(x² - 1))`, which loses half the
/// digits near 1 (weir uses `log1p`); the bounds below admit TensorFlow's error, not weir's.
/// Where a function's algorithm cancels (lgamma near its negative roots, digamma near 1.4616
/// and on reflection, selu's `exp(x) - 1` in float32) the error is absolute, a few ulp of the
/// terms. `x` is the element's (first) input. TensorFlow flushes subnormal results to zero, so differences below the smallest
/// normal number do not count.
fn allowed(fn_name: &str, dt: DType, x: f64) -> (f64, f64) {
    let f32 = dt == DType::F32;
    let eps = if f32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let (ulps, atol) = match fn_name {
        "lgamma" if f32 => (8.0, 4.0 * eps),
        "lgamma" => (4.0, 16.0 * eps),
        "digamma" if f32 => (8.0, 4.0 * eps),
        // TensorFlow's error grows with the reflection's cot term near the poles.
        "digamma" => (512.0, 256.0 * eps),
        // TensorFlow's float32 Chebyshev fits are up to 6 ulp off (checked against mpmath).
        "bessel_i0e" | "bessel_i1e" | "bessel_i0" | "bessel_i1" if f32 => (8.0, 0.0),
        "zeta" | "polygamma" => (32.0, 0.0),
        "sinh" | "cosh" | "expm1" | "acos" | "asin" | "atanh" | "asinh" | "tan" | "atan"
            if !f32 =>
        {
            (40.0, 0.0)
        }
        "acosh" if !f32 => (f64::EPSILON.sqrt() / eps, 0.0),
        // TensorFlow's float64 erfc rounds x² inside exp(-x²): its error grows as 2x² ulp.
        "erfc" if !f32 => (4.0 + 2.0 * x * x, 0.0),
        "selu" => (4.0, 4.0 * 1.7580993408473768 * eps),
        _ => (4.0, 0.0),
    };
    let min_normal = if f32 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    (ulps, atol.max(min_normal))
}

/// The element where `got` is furthest from TensorFlow's `want` beyond what `allowed` admits
/// there (its first input being `x`): the excess in ulp over the allowance (NaN when a NaN,
/// infinity or sign of zero differs), and its index; `None` when every element is admitted.
fn worst_excess(
    got: &Tensor,
    want: &Tensor,
    x: &[f64],
    allowed: impl Fn(f64) -> (f64, f64),
) -> Option<(f64, usize)> {
    let eps = if want.dtype() == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let mut worst: Option<(f64, usize)> = None;
    for (i, (a, b)) in numbers(got).into_iter().zip(numbers(want)).enumerate() {
        if (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative()) {
            continue;
        }
        let (ulps, atol) = allowed(x.get(i).copied().unwrap_or(f64::NAN));
        let excess = if !a.is_finite() || !b.is_finite() {
            f64::NAN
        } else if (a - b).abs() <= atol {
            continue;
        } else {
            (a - b).abs() / (b.abs() * eps) - ulps
        };
        if excess > 0.0 && worst.is_none_or(|(w, _)| excess > w) || excess.is_nan() {
            worst = Some((excess, i));
            if excess.is_nan() {
                break;
            }
        }
    }
    worst
}

fn run(case: &Value) -> Result<Tensor> {
    let g = Graph::new();
    let built = build(&g, case)?;
    let sess = Session::new(&g)?;
    let out = sess.eval(&built.output)?;
    assert!(
        built.output.shape().is_compatible_with_dims(out.shape()),
        "{}: static shape {} vs {:?}",
        case["name"],
        built.output.shape(),
        out.shape()
    );
    Ok(out)
}

fn check(case: &Value) -> Option<String> {
    let name = case["name"].as_str().unwrap();
    let result = run(case);
    if let Some(err) = case.get("error") {
        let e = match result {
            Err(e) => e,
            Ok(out) => {
                return Some(format!(
                    "{name}: TensorFlow fails with {err}, weir gives {out:?}"
                ))
            }
        };
        if e.code() != Code::InvalidArgument {
            return Some(format!("{name}: {e}"));
        }
        if err["type"] == "InvalidArgumentError" && e.message() != err["message"].as_str().unwrap()
        {
            return Some(format!(
                "{name}: message {:?} vs TensorFlow's {}",
                e.message(),
                err["message"]
            ));
        }
        return None;
    }
    let got = match result {
        Ok(t) => t,
        Err(e) => return Some(format!("{name}: {e}")),
    };
    let want = tensor(&case["outputs"][0]);
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Some(format!("{name}: got {got:?}, TensorFlow {want:?}"));
    }
    let fn_name = case["fn"].as_str().unwrap();
    let first = case["inputs"].as_object().unwrap().values().next().unwrap();
    let x = numbers(&tensor(first));
    let worst = worst_excess(&got, &want, &x, |v| allowed(fn_name, want.dtype(), v));
    if let Some((excess, at)) = worst {
        let inputs: Vec<String> = case["inputs"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                let t = numbers(&tensor(v));
                format!("{k} = {:?}", t.get(at).or(t.first()))
            })
            .collect();
        return Some(format!(
            "{name}: {excess} ulp beyond the allowance at {}: got {:e}, TensorFlow {:e}",
            inputs.join(", "),
            numbers(&got)[at],
            numbers(&want)[at]
        ));
    }
    None
}

fn check_all(filter: impl Fn(&str) -> bool) {
    let mut n = 0;
    let mut failures = Vec::new();
    for case in cases() {
        if filter(case["fn"].as_str().unwrap()) {
            n += 1;
            failures.extend(check(case));
        }
    }
    assert!(n > 0, "no cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const ELEMENTARY: &[&str] = &[
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "rint",
    "inv",
];
const NN: &[&str] = &[
    "softplus",
    "softsign",
    "selu",
    "softplus_grad",
    "softsign_grad",
    "selu_grad",
    "crelu",
];

#[test]
fn elementary_functions_match_tensorflow() {
    check_all(|f| ELEMENTARY.contains(&f));
}

#[test]
fn special_functions_match_tensorflow() {
    check_all(|f| !ELEMENTARY.contains(&f) && !NN.contains(&f));
}

#[test]
fn smooth_activations_match_tensorflow() {
    check_all(|f| NN.contains(&f));
}

#[test]
fn crelu_and_the_scoped_builders_name_nodes_as_tensorflow() {
    use weir_ops::array::constant;
    let g = Graph::new();
    let x = constant(&g, Tensor::from(vec![1.0f32, -2.0])).unwrap();
    let y = weir_ops::nn::crelu(&x).unwrap();
    assert_eq!(y.op().name(), "CRelu/Relu");
    assert!(g.operation_by_name("CRelu").is_some());
    assert_eq!(
        weir_ops::math::erfinv(&x).unwrap().op().name(),
        "erfinv/Erfinv"
    );
    assert_eq!(
        weir_ops::math::ndtri(&x).unwrap().op().name(),
        "ndtri/Ndtri"
    );
    let i0e = weir_ops::math::bessel_i0e(&x).unwrap();
    assert_eq!(i0e.op().name(), "bessel_i0e/BesselI0e");
    let i1 = weir_ops::math::bessel_i1(&x).unwrap();
    assert_eq!(i1.op().name(), "bessel_i1/BesselI1");
    assert_eq!(weir_ops::math::zeta(&x, &x).unwrap().op().name(), "Zeta");
}
