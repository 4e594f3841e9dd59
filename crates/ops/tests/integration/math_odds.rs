//! `EuclideanNorm`, `CumulativeLogsumexp`, `SparseSegment*WithNumSegments`, the raw
//! `ClipByValue`, `MaxPoolV2`, `MaxPoolGradV2` and `BiasAddV1` against TensorFlow 2.21: every
//! case of tests/data/math_odds/expected.json (made by make_math_odds.py there), its op type and
//! static shape exactly, its values bit for bit when the case's `rtol` is 0 and otherwise within
//! that relative tolerance (float sums and `exp`/`log1p` in another order or library), and its
//! errors with TensorFlow's code and message. Also `Timestamp`, which has no TensorFlow value
//! to compare with.

use serde_json::Value;
use weir_graph::{bf16, f16, Code, Complex, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{clip_by_value_op, Axes, Reduce, Scan, SparseSegment};
use weir_ops::nn::{bias_add_v1, max_pool_grad_v2, max_pool_v2, Padding};
use weir_session::Session;

use super::io_util::{check_all_cases, check_tf_error, expected_cases, run_built_case};

/// The number of cases make_math_odds.py writes, so a truncated file cannot pass.
const CASES: usize = 146;

/// A recorded tensor: floats (and complex parts) as the integer bits of their values.
fn tensor(v: &Value) -> Tensor {
    let dt = DType::from_name(v["dtype"].as_str().unwrap()).unwrap();
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let u = |x: &Value| x.as_u64().unwrap();
    let i = |x: &Value| x.as_i64().unwrap();
    match dt {
        DType::F16 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f16::from_bits(u(x) as u16)).collect(),
        ),
        DType::BF16 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| bf16::from_bits(u(x) as u16)).collect(),
        ),
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f32::from_bits(u(x) as u32)).collect(),
        ),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(|x| f64::from_bits(u(x))).collect()),
        DType::C64 => Tensor::from_vec(
            &shape,
            vals.chunks(2)
                .map(|p| {
                    Complex::new(
                        f32::from_bits(u(&p[0]) as u32),
                        f32::from_bits(u(&p[1]) as u32),
                    )
                })
                .collect(),
        ),
        DType::C128 => Tensor::from_vec(
            &shape,
            vals.chunks(2)
                .map(|p| Complex::new(f64::from_bits(u(&p[0])), f64::from_bits(u(&p[1]))))
                .collect(),
        ),
        DType::I8 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i8).collect()),
        DType::I16 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i16).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        DType::U8 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u8).collect()),
        DType::U16 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u16).collect()),
        DType::U32 => Tensor::from_vec(&shape, vals.iter().map(|x| u(x) as u32).collect()),
        DType::U64 => Tensor::from_vec(&shape, vals.iter().map(u).collect()),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        _ => panic!("unexpected dtype {dt}"),
    }
    .unwrap()
}

/// Every element as f64 (complex: both parts in turn), for comparisons.
fn values(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F16 => t
            .to_vec::<f16>()
            .unwrap()
            .iter()
            .map(|x| x.to_f64())
            .collect(),
        DType::BF16 => t
            .to_vec::<bf16>()
            .unwrap()
            .iter()
            .map(|x| x.to_f64())
            .collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&x| f64::from(x))
            .collect(),
        DType::F64 => t.to_vec::<f64>().unwrap(),
        DType::C64 => t
            .to_vec::<Complex<f32>>()
            .unwrap()
            .iter()
            .flat_map(|c| [f64::from(c.re), f64::from(c.im)])
            .collect(),
        DType::C128 => t
            .to_vec::<Complex<f64>>()
            .unwrap()
            .iter()
            .flat_map(|c| [c.re, c.im])
            .collect(),
        dt => panic!("no float values for {dt}"),
    }
}

/// Equal bit for bit (any NaN equals any NaN: TensorFlow's and weir's NaNs may differ in sign)
/// when `rtol` is 0, else within `rtol` of TensorFlow's value relative to its magnitude.
fn assert_values(name: &str, got: &Tensor, want: &Tensor, rtol: f64) {
    assert_eq!(got.dtype(), want.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), want.shape(), "{name}: shape");
    if !got.dtype().is_floating() && !got.dtype().is_complex() {
        assert_eq!(got, want, "{name}");
        return;
    }
    let (g, w) = (values(got), values(want));
    for (k, (&a, &b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan())
            || (a == b && a.is_sign_negative() == b.is_sign_negative())
            || (rtol > 0.0 && (a - b).abs() <= rtol * b.abs().max(f64::MIN_POSITIVE));
        assert!(
            ok,
            "{name}: element {k}: got {a:e}, TensorFlow {b:e} (rtol {rtol})"
        );
    }
}

fn padding(c: &Value) -> Padding {
    match c["attrs"]["padding"].as_str().unwrap() {
        "SAME" => Padding::Same,
        _ => Padding::Valid,
    }
}

/// The case's op, built with weir's builder for it.
fn build(c: &Value, t: &[Output]) -> Result<Output> {
    let a = &c["attrs"];
    let flag = |k: &str| a[k].as_bool().unwrap_or(false);
    match c["kind"].as_str().unwrap() {
        "euclidean_norm" => {
            let axis = t.get(1).map_or(Axes::All, |o| Axes::Tensor(o.clone()));
            Reduce::euclidean_norm()
                .axis(axis)
                .keep_dims(flag("keep_dims"))
                .build(&t[0])
        }
        "cumulative_logsumexp" => Scan::logsumexp()
            .axis(a["axis"].as_i64().unwrap_or(0))
            .exclusive(flag("exclusive"))
            .reverse(flag("reverse"))
            .build(&t[0]),
        "sparse_segment" => {
            let b = match a["mode"].as_str().unwrap() {
                "sum" => SparseSegment::sum(),
                "mean" => SparseSegment::mean(),
                _ => SparseSegment::sqrt_n(),
            };
            let b = match t.get(3) {
                Some(n) => b.num_segments(n),
                None => b,
            };
            b.build(&t[0], &t[1], &t[2])
        }
        "clip" => clip_by_value_op(&t[0], &t[1], &t[2]),
        "max_pool_v2" => max_pool_v2(&t[0], &t[1], &t[2], padding(c)),
        "max_pool_grad_v2" => max_pool_grad_v2(&t[0], &t[1], &t[2], &t[3], &t[4], padding(c)),
        "bias_add_v1" => bias_add_v1(&t[0], &t[1]),
        k => panic!("unknown kind {k}"),
    }
}

fn check_error(name: &str, got: &Error, want: &Value) {
    match want.get("code") {
        Some(_) => check_tf_error(name, got, want),
        None => {
            // TensorFlow failed while adding the node: weir's builder must fail there too.
            assert_eq!(got.code(), Code::InvalidArgument, "{name}: {got}");
            let msg = want["message"].as_str().unwrap();
            // Python's dtype TypeErrors have no counterpart message in weir.
            if !msg.starts_with("Value passed to parameter") {
                assert_eq!(got.message().split(" for '").next().unwrap(), msg, "{name}");
            }
        }
    }
}

fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let inputs: Vec<Tensor> = c["inputs"].as_array().unwrap().iter().map(tensor).collect();
    let feed: Vec<bool> = c["feed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_bool().unwrap())
        .collect();
    let rtol = c["rtol"].as_f64().unwrap();
    run_built_case(
        c,
        c.get("build_error"),
        |g: &Graph, feeds: &mut Vec<(Output, Tensor)>| {
            let mut t = Vec::new();
            for (x, &f) in inputs.iter().zip(&feed) {
                if f {
                    let p = placeholder(g, x.dtype(), Shape::unknown())?;
                    feeds.push((p.clone(), x.clone()));
                    t.push(p);
                } else {
                    t.push(constant(g, x.clone())?);
                }
            }
            let out = build(c, &t)?;
            assert_eq!(
                out.op().op_type(),
                c["op_type"].as_str().unwrap(),
                "{name}: op type"
            );
            Ok(vec![out])
        },
        check_error,
        |name, got| assert_values(name, &got[0], &tensor(&c["output"]), rtol),
    )
}

#[test]
fn math_odds_match_tensorflow() {
    let cases: Vec<Value> = expected_cases("math_odds")
        .into_iter()
        .map(|mut c| {
            // run_built_case reads `static_shapes`, one per output.
            let s = c.get("static_shape").cloned().unwrap_or(Value::Null);
            c["static_shapes"] = Value::Array(vec![s]);
            c
        })
        .collect();
    assert_eq!(cases.len(), CASES);
    check_all_cases(&cases, run_case);
}

#[test]
fn timestamp_reads_the_clock_each_run() {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let g = Graph::new();
    let ts = weir_ops::logging::timestamp(&g).unwrap();
    assert_eq!(ts.op().op_type(), "Timestamp");
    assert_eq!(ts.dtype(), DType::F64);
    assert_eq!(ts.shape(), Shape::scalar());
    let sess = Session::new(&g).unwrap();
    let before = now();
    let a = sess.eval(&ts).unwrap().to_vec::<f64>().unwrap()[0];
    std::thread::sleep(std::time::Duration::from_millis(5));
    let b = sess.eval(&ts).unwrap().to_vec::<f64>().unwrap()[0];
    let after = now();
    assert!(
        before <= a && a < b && b <= after,
        "{before} {a} {b} {after}"
    );
}
