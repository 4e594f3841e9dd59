//! The elementwise unary math ops in float16, bfloat16, complex64 and complex128 against
//! TensorFlow 2.21: every value of tests/data/unary_dtypes/expected.json (made by
//! make_unary_dtypes.py there, stored as bit patterns), and the errors of the dtypes TF's op
//! defs reject (InvalidArgument at build time) or have no CPU kernel for (TF's message); and
//! `AddN` in those dtypes.
//!
//! Half results must match bit for bit (any NaN matches any NaN): TensorFlow computes them in
//! float32 and rounds once, as weir does. Complex parts must match within the per-op ulp
//! bounds of `complex_ulps` (see there why).

use serde_json::Value;
use weir_graph::{bf16, f16, Code, Complex, DType, Graph, Output, Result, Tensor};
use weir_session::Session;

fn expected() -> Value {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/unary_dtypes/expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn dtype(name: &str) -> DType {
    match name {
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "complex64" => DType::C64,
        "complex128" => DType::C128,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        other => panic!("dtype {other}"),
    }
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect()
}

/// The pairs `[re, im]` of bit patterns of a complex case.
fn pairs(v: &Value) -> Vec<(u64, u64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect()
}

fn input(dt: DType, x: &Value) -> Tensor {
    match dt {
        DType::F16 => Tensor::from(
            u64s(x)
                .into_iter()
                .map(|b| f16::from_bits(b as u16))
                .collect::<Vec<_>>(),
        ),
        DType::BF16 => Tensor::from(
            u64s(x)
                .into_iter()
                .map(|b| bf16::from_bits(b as u16))
                .collect::<Vec<_>>(),
        ),
        DType::C64 => Tensor::from(
            pairs(x)
                .into_iter()
                .map(|(r, i)| Complex::new(f32::from_bits(r as u32), f32::from_bits(i as u32)))
                .collect::<Vec<_>>(),
        ),
        _ => Tensor::from(
            pairs(x)
                .into_iter()
                .map(|(r, i)| Complex::new(f64::from_bits(r), f64::from_bits(i)))
                .collect::<Vec<_>>(),
        ),
    }
}

fn unary(g: &Graph, op: &str, x: &Output) -> Result<Output> {
    weir_ops::register_all_ops();
    g.new_operation(op).input(x.clone()).build()?.output(0)
}

fn run(op: &str, x: Tensor) -> Result<Tensor> {
    let g = Graph::new();
    let c = weir_ops::array::constant(&g, x)?;
    let y = unary(&g, op, &c)?;
    Session::new(&g)?.eval(&y)
}

/// The distance in ulps of two floats of `bits` bits (0 for two NaNs; `u64::MAX` for a NaN
/// and a number).
fn ulps(a: f64, b: f64, ordered: impl Fn(f64) -> i64) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => ordered(a).abs_diff(ordered(b)),
        _ => u64::MAX,
    }
}

fn ordered32(v: f64) -> i64 {
    let b = (v as f32).to_bits() as i32;
    (if b < 0 { i32::MIN - b } else { b }) as i64
}

fn ordered64(v: f64) -> i64 {
    let b = v.to_bits() as i64;
    if b < 0 {
        i64::MIN - b
    } else {
        b
    }
}

/// The ops whose complex kernels TensorFlow takes from the C library (`csin`, `catan`, ...),
/// which weir's num-complex formulas match only on moderate finite inputs: weir does not
/// reproduce glibc's special-value and overflow handling.
const LIBC_OPS: &[&str] = &["Sin", "Cos", "Tan", "Sinh", "Cosh", "Tanh"];

/// Ops TensorFlow has complex kernels of that weir does not take complex for yet (its op defs
/// reject complex, so these must fail to build).
const NO_COMPLEX_YET: &[&str] = &["Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh"];

/// The largest difference in ulps allowed per part of a complex result: 0 for the exact ops;
/// TensorFlow's float32 `exp`, `log`, `sin`, `cos`, `atan2` are Eigen's polynomial
/// approximations (a few ulps from the correctly rounded values Rust's give), and its scalar
/// complex division in `Log1p` rounds differently from weir's scaled one, which the
/// cancellation of `(1 + x) - 1` magnifies.
fn complex_ulps(op: &str) -> u64 {
    match op {
        "Neg" | "Square" => 0,
        "Log1p" => 16,
        _ if LIBC_OPS.contains(&op) => 16,
        _ => 4,
    }
}

/// Half ops whose TensorFlow float32 kernel is an approximation (Eigen's polynomial `exp`,
/// `log`, `tanh`, `erf`, ..., the C library's `asinh`, `lgammaf`, and a reciprocal that loses
/// accuracy above 2^110) a few float32 ulps from weir's: where the float32 value lies that near
/// a rounding boundary of the half type, the two round to neighbours. These may differ by one
/// half-type ulp (and in the sign of a zero); every other op matches bit for bit.
const HALF_ONE_ULP: &[&str] = &[
    "Asinh",
    "BesselI0e",
    "BesselI1e",
    "Digamma",
    "Erf",
    "Exp",
    "Expm1",
    "Inv",
    "Lgamma",
    "Log",
    "Log1p",
    "Reciprocal",
    "Tanh",
];

/// The position of a half bit pattern on the number line (both zeros at 0).
fn ordered16(b: u64) -> i64 {
    if b & 0x8000 != 0 {
        -((b & 0x7fff) as i64)
    } else {
        b as i64
    }
}

fn check_half(op: &str, dt: DType, x: &Value, want: &Value) -> Vec<String> {
    let out = run(op, input(dt, x)).unwrap_or_else(|e| panic!("{op} {dt}: {e}"));
    let want = u64s(want);
    let xs = u64s(x);
    let got: Vec<(u64, bool)> = match out.dtype() {
        DType::Bool => out
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(|b| (b as u64, false))
            .collect(),
        DType::F16 => out
            .to_vec::<f16>()
            .unwrap()
            .into_iter()
            .map(|v| (v.to_bits() as u64, v.is_nan()))
            .collect(),
        _ => out
            .to_vec::<bf16>()
            .unwrap()
            .into_iter()
            .map(|v| (v.to_bits() as u64, v.is_nan()))
            .collect(),
    };
    let want_nan = |b: u64| match out.dtype() {
        DType::F16 => f16::from_bits(b as u16).is_nan(),
        DType::BF16 => bf16::from_bits(b as u16).is_nan(),
        _ => false,
    };
    let mut bad = vec![];
    for (i, (&(g, g_nan), &w)) in got.iter().zip(&want).enumerate() {
        let near = HALF_ONE_ULP.contains(&op) && ordered16(g).abs_diff(ordered16(w)) <= 1
            // 1 / 2^126: TensorFlow's approximate reciprocal lands just under bfloat16's
            // smallest normal, and flushes it to zero.
            || (op == "Inv" || op == "Reciprocal") && (g & 0x7fff, w & 0x7fff) == (0x80, 0);
        if g != w && !(g_nan && want_nan(w)) && !near {
            bad.push(format!(
                "{op} {dt} x=0x{:04x}: weir 0x{g:04x}, TF 0x{w:04x}",
                xs[i]
            ));
        }
    }
    bad
}

fn check_complex(op: &str, dt: DType, x: &Value, want: &Value) -> Vec<String> {
    let out = run(op, input(dt, x)).unwrap_or_else(|e| panic!("{op} {dt}: {e}"));
    let got: Vec<(f64, f64)> = if dt == DType::C64 {
        out.to_vec::<Complex<f32>>()
            .unwrap()
            .into_iter()
            .map(|z| (z.re as f64, z.im as f64))
            .collect()
    } else {
        out.to_vec::<Complex<f64>>()
            .unwrap()
            .into_iter()
            .map(|z| (z.re, z.im))
            .collect()
    };
    let part = |b: u64| {
        if dt == DType::C64 {
            f32::from_bits(b as u32) as f64
        } else {
            f64::from_bits(b)
        }
    };
    let ord = if dt == DType::C64 {
        ordered32
    } else {
        ordered64
    };
    let tol = complex_ulps(op);
    let xs = pairs(x);
    let mut bad = vec![];
    for (i, (&(gr, gi), &(wr, wi))) in got.iter().zip(&pairs(want)).enumerate() {
        let (xr, xi) = (part(xs[i].0), part(xs[i].1));
        if LIBC_OPS.contains(&op) && !(xr.abs() <= 30.0 && xi.abs() <= 30.0) {
            continue;
        }
        let (wr, wi) = (part(wr), part(wi));
        let d = ulps(gr, wr, ord).max(ulps(gi, wi, ord));
        if d > tol {
            bad.push(format!(
                "{op} {dt} x=({:e}, {:e}): weir ({gr:e}, {gi:e}), TF ({wr:e}, {wi:e}), {d} ulp",
                xr, xi
            ));
        }
    }
    bad
}

#[test]
fn unary_ops_match_tensorflow_in_half_and_complex() {
    let data = expected();
    let (mut bad, mut summary) = (vec![], vec![]);
    let mut checked = 0;
    for case in data["cases"].as_array().unwrap() {
        let dt = dtype(case["dtype"].as_str().unwrap());
        for (op, want) in case["ops"].as_object().unwrap() {
            checked += 1;
            if dt.is_complex() && NO_COMPLEX_YET.contains(&op.as_str()) {
                let g = Graph::new();
                let c = weir_ops::array::constant(&g, input(dt, &case["x"])).unwrap();
                let e = unary(&g, op, &c).expect_err(op);
                assert_eq!(e.code(), Code::InvalidArgument, "{op} {dt}: {e}");
                continue;
            }
            let b = if dt.is_complex() {
                check_complex(op, dt, &case["x"], want)
            } else {
                check_half(op, dt, &case["x"], want)
            };
            if !b.is_empty() {
                summary.push(format!("{op} {dt}: {}", b.len()));
                bad.extend(b.into_iter().take(200));
            }
        }
    }
    assert!(checked > 100, "only {checked} cases");
    assert!(
        bad.is_empty(),
        "mismatches per op: {}\n{}",
        summary.join(", "),
        bad.join("\n")
    );
}

#[test]
fn unsupported_dtypes_fail_as_in_tensorflow() {
    let data = expected();
    for e in data["errors"].as_array().unwrap() {
        let (op, dt) = (
            e["op"].as_str().unwrap(),
            dtype(e["dtype"].as_str().unwrap()),
        );
        let zeros = Tensor::zeros(dt, &[2]).unwrap();
        let err = match e["kind"].as_str().unwrap() {
            // The op def rejects the dtype: the graph does not build.
            "TypeError" => {
                let g = Graph::new();
                let c = weir_ops::array::constant(&g, zeros).unwrap();
                unary(&g, op, &c).expect_err(&format!("{op} {dt} builds"))
            }
            _ => {
                let err = run(op, zeros).expect_err(&format!("{op} {dt} runs"));
                assert_eq!(err.message(), e["message"].as_str().unwrap(), "{op} {dt}");
                err
            }
        };
        assert_eq!(err.code(), Code::InvalidArgument, "{op} {dt}: {err}");
    }
}

/// `AddN` sums in TensorFlow's order, `((in0 + in1) + in2) + ...`: bit for bit in every dtype.
#[test]
fn add_n_matches_tensorflow_in_half_and_complex() {
    let data = expected();
    let cases = data["add_n"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for case in cases {
        let dt = dtype(case["dtype"].as_str().unwrap());
        let g = Graph::new();
        let ins: Vec<Output> = case["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| weir_ops::array::constant(&g, input(dt, v)).unwrap())
            .collect();
        let sum = weir_ops::math::add_n(&ins).unwrap();
        let got = Session::new(&g).unwrap().eval(&sum).unwrap();
        let want = input(dt, &case["sum"]);
        assert_eq!(got.dtype(), dt);
        let n = ins.len();
        match dt {
            DType::F16 => assert_eq!(
                got.to_vec::<f16>().unwrap(),
                want.to_vec::<f16>().unwrap(),
                "{dt} {n}"
            ),
            DType::BF16 => assert_eq!(
                got.to_vec::<bf16>().unwrap(),
                want.to_vec::<bf16>().unwrap(),
                "{dt} {n}"
            ),
            DType::C64 => assert_eq!(
                got.to_vec::<Complex<f32>>().unwrap(),
                want.to_vec::<Complex<f32>>().unwrap(),
                "{dt} {n}"
            ),
            _ => assert_eq!(
                got.to_vec::<Complex<f64>>().unwrap(),
                want.to_vec::<Complex<f64>>().unwrap(),
                "{dt} {n}"
            ),
        }
    }
}
