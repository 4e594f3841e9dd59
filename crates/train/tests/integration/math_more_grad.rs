//! Gradients of `Prod`, `Cumprod`, `SegmentProd`, `UnsortedSegmentSum`, `GatherNd`,
//! `BroadcastTo`, `MirrorPad`, `MirrorPadGrad` and `TruncateDiv` against TensorFlow 2.21's
//! `tf.gradients` with a fixed `grad_ys` (tests/data/math_more_grad/expected.json, made by
//! make_math_more_grad.py), and against weir's numeric gradient checker; and the
//! `MirrorPadGrad` op's values, static shapes and errors against TensorFlow's.
//!
//! Floats are recorded bit for bit. The backward graphs are TensorFlow's ops in TensorFlow's
//! order, so most gradients match exactly; where they differ it is by the rounding of a
//! product or sum computed in another order (see `GRAD_ULPS`).

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{bf16, f16, Code, Complex, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{
    broadcast_to, constant, gather_nd, mirror_pad_grad, placeholder_with_default, Pad, PadMode,
};
use weir_ops::math::{segment_prod, truncatediv, unsorted_segment_sum, Axes, Reduce, Scan};
use weir_session::{RunArgs, Session};
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let p =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/math_more_grad/expected.json");
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

fn of_kind(kind: &'static str) -> impl Iterator<Item = &'static Value> {
    cases().iter().filter(move |c| c["kind"] == kind)
}

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
    let pairs = |f: &dyn Fn(u64) -> f64| -> Vec<(f64, f64)> {
        vals.chunks(2).map(|c| (f(u(&c[0])), f(u(&c[1])))).collect()
    };
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
            pairs(&|b| f32::from_bits(b as u32) as f64)
                .into_iter()
                .map(|(re, im)| Complex::new(re as f32, im as f32))
                .collect(),
        ),
        DType::C128 => Tensor::from_vec(
            &shape,
            pairs(&f64::from_bits)
                .into_iter()
                .map(|(re, im)| Complex::new(re, im))
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

/// Every element as integer bits (complex: both parts), so floats compare exactly and
/// distances can be counted in ulps.
// The dtype macro also binds `T = i64`, whose cast to i64 is then a no-op.
#[allow(clippy::unnecessary_cast)]
fn bits(t: &Tensor) -> Vec<i64> {
    match t.dtype() {
        DType::F16 => t
            .to_vec::<f16>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits() as i64)
            .collect(),
        DType::BF16 => t
            .to_vec::<bf16>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits() as i64)
            .collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|x| ordered32(*x))
            .collect(),
        DType::F64 => t
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| ordered64(*x))
            .collect(),
        DType::C64 => t
            .to_vec::<Complex<f32>>()
            .unwrap()
            .iter()
            .flat_map(|c| [ordered32(c.re), ordered32(c.im)])
            .collect(),
        DType::C128 => t
            .to_vec::<Complex<f64>>()
            .unwrap()
            .iter()
            .flat_map(|c| [ordered64(c.re), ordered64(c.im)])
            .collect(),
        DType::Bool => t
            .to_vec::<bool>()
            .unwrap()
            .iter()
            .map(|&b| b as i64)
            .collect(),
        dt => weir_graph::match_real_dtype!(dt,
            T => t.to_vec::<T>().unwrap().iter().map(|&v| v as i64).collect(),
            _ => panic!("unexpected dtype {dt}")),
    }
}

/// Float bits mapped to integers in the floats' order (so `a - b` counts ulps across zero).
fn ordered32(x: f32) -> i64 {
    let b = x.to_bits() as i32;
    (if b < 0 { i32::MIN - b } else { b }) as i64
}

fn ordered64(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    if b < 0 {
        i64::MIN - b
    } else {
        b
    }
}

/// Compares `got` with a recorded tensor: dtype, shape, and each element within `ulps`.
fn assert_close(name: &str, got: &Tensor, want: &Value, ulps: i64) {
    if let Err(e) = close(name, got, want, ulps) {
        panic!("{e}");
    }
}

fn close(name: &str, got: &Tensor, want: &Value, ulps: i64) -> std::result::Result<(), String> {
    let want = tensor(want);
    if (got.dtype(), got.shape()) != (want.dtype(), want.shape()) {
        return Err(format!("{name}: got {got:?}, want {want:?}"));
    }
    if got.dtype().is_complex() && ulps > 0 {
        return close_complex(name, got, &want, ulps);
    }
    let (g, w) = (bits(got), bits(&want));
    let worst = g
        .iter()
        .zip(&w)
        .map(|(a, b)| (a - b).abs())
        .max()
        .unwrap_or(0);
    if worst > ulps {
        return Err(format!("{name}: {worst} ulps off ({got:?} vs {want:?})"));
    }
    Ok(())
}

/// Complex values within `eps_count` machine epsilons of the expected modulus: a complex
/// product rounds each part on its own, so a small part can be many of its own ulps off while
/// the number as a whole is within an ulp or two.
fn close_complex(
    name: &str,
    got: &Tensor,
    want: &Tensor,
    eps_count: i64,
) -> std::result::Result<(), String> {
    let parts = |t: &Tensor| -> Vec<(f64, f64)> {
        match t.dtype() {
            DType::C64 => t
                .to_vec::<Complex<f32>>()
                .unwrap()
                .iter()
                .map(|c| (c.re as f64, c.im as f64))
                .collect(),
            _ => t
                .to_vec::<Complex<f64>>()
                .unwrap()
                .iter()
                .map(|c| (c.re, c.im))
                .collect(),
        }
    };
    let eps = if got.dtype() == DType::C64 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    for (k, (a, b)) in parts(got).iter().zip(parts(want)).enumerate() {
        let err = (a.0 - b.0).hypot(a.1 - b.1);
        if err > eps_count as f64 * eps * b.0.hypot(b.1) {
            return Err(format!("{name}: element {k} is {a:?}, want {b:?}"));
        }
    }
    Ok(())
}

fn check_error(name: &str, got: &Error, want: &Value) {
    let code = match want["type"].as_str().unwrap() {
        "UnimplementedError" => Code::Unimplemented,
        "InvalidArgumentError" | "ValueError" => Code::InvalidArgument,
        t => panic!("{name}: error type {t}"),
    };
    assert_eq!(got.code(), code, "{name}: {got}");
    let want = want["message"].as_str().unwrap();
    let got = got.message();
    if want.starts_with("No OpKernel") {
        // TensorFlow lists its attrs in hash order and names its XLA kernels too.
        let strip = |m: &str| -> Vec<String> {
            m.lines()
                .filter(|l| !l.contains("XLA_CPU_JIT"))
                .map(|l| l.split(" with these attrs").next().unwrap().to_string())
                .collect()
        };
        assert_eq!(strip(got), strip(want), "{name}");
        for attr in ["T=DT_BOOL", "Tpaddings=DT_INT32", "mode=\"SYMMETRIC\""] {
            assert!(got.contains(attr), "{name}: {got}");
        }
        return;
    }
    let got = got.split(" for '").next().unwrap();
    let want = want.split(" for '").next().unwrap();
    assert_eq!(got, want, "{name}");
}

fn input(case: &Value, k: &str) -> Option<Tensor> {
    case["inputs"].get(k).map(tensor)
}

/// The differentiated inputs of a gradient case (`x`, and `y` for truncatediv): placeholders
/// with the recorded value as default, shaped as it or of unknown shape.
fn differentiable(g: &Graph, case: &Value, k: &str) -> Result<Option<Output>> {
    let Some(t) = input(case, k) else {
        return Ok(None);
    };
    let shape = if case["dynamic"].as_bool().unwrap_or(false) {
        Shape::unknown()
    } else {
        Shape::known(t.shape())
    };
    Ok(Some(placeholder_with_default(constant(g, t)?, shape)?))
}

fn mode(case: &Value) -> PadMode {
    let m = case["attrs"]["mode"].as_str().or(case["mode"].as_str());
    match m.unwrap() {
        "REFLECT" => PadMode::Reflect,
        "SYMMETRIC" => PadMode::Symmetric,
        _ => PadMode::Constant,
    }
}

/// Builds a gradient case's forward op: its output and the inputs to differentiate.
fn build(g: &Graph, case: &Value) -> Result<(Output, Vec<Output>)> {
    let x = differentiable(g, case, "x")?.unwrap();
    let c = |k: &str| constant(g, input(case, k).unwrap());
    let attrs = &case["attrs"];
    let flag = |k: &str| attrs[k].as_bool().unwrap();
    let mut xs = vec![x.clone()];
    let y = match case["fn"].as_str().unwrap() {
        "prod" => {
            let axes = match input(case, "axis") {
                Some(a) => Axes::Tensor(constant(g, a)?),
                None => Axes::All,
            };
            Reduce::prod()
                .axis(axes)
                .keep_dims(flag("keep_dims"))
                .build(&x)?
        }
        "cumprod" => Scan::prod()
            .axis(attrs["axis"].as_i64().unwrap())
            .exclusive(flag("exclusive"))
            .reverse(flag("reverse"))
            .build(&x)?,
        "segment_prod" => segment_prod(&x, c("ids")?)?,
        "unsorted_segment_sum" => unsorted_segment_sum(&x, c("ids")?, c("num")?)?,
        "gather_nd" => gather_nd(&x, c("indices")?)?,
        "broadcast_to" => broadcast_to(&x, c("shape")?)?,
        "mirror_pad" => Pad::new()
            .mode(mode(case))
            .build_from(x.clone(), c("paddings")?)?,
        "mirror_pad_grad" => mirror_pad_grad(&x, c("paddings")?, mode(case))?,
        "truncatediv" => {
            let y = differentiable(g, case, "y")?.unwrap();
            xs.push(y.clone());
            truncatediv(&x, &y)?
        }
        f => panic!("unknown fn {f}"),
    };
    Ok((y, xs))
}

/// How many ulps weir's gradient may be from TensorFlow's, by case name prefix: the backward
/// graphs are TensorFlow's ops, but weir's `Sum` kernel adds the 8 values of each column of
/// `broadcast_to`'s gradient pairwise where Eigen adds them in sequence (the float32 case is 6
/// ulps off: terms up to 2 in magnitude cancelling to a sum of 0.9 to 1.7).
///
/// For complex results the allowance is in machine epsilons of each number's modulus
/// (`close_complex`): weir's complex products (`Mul`, `Cumprod`) round the parts differently
/// from Eigen's, e.g. 0.14089644 for TensorFlow's 0.14089668 as the imaginary part of 3.02.
const GRAD_ULPS: &[(&str, i64)] = &[("broadcast_to", 16), ("prod_complex", 4)];

fn grad_ulps(name: &str) -> i64 {
    GRAD_ULPS
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map_or(0, |&(_, u)| u)
}

/// Cases weir gets wrong outside this module: its `SegmentProd` does not take complex data,
/// which TensorFlow's does.
const KNOWN_DEVIATIONS: &[&str] = &["segment_prod_complex64"];

/// One gradient case against TensorFlow's: the forward value (or error), then each gradient.
fn check_grad_case(case: &Value) -> std::result::Result<(), String> {
    let name = case["name"].as_str().unwrap();
    let fail = |e: Error| format!("{name}: {e}");
    let g = Graph::new();
    let (y, xs) = build(&g, case).map_err(fail)?;
    let sess = Session::new(&g).unwrap();
    let ran = sess.run(&RunArgs::new().fetch(&y));
    if let Some(want) = case.get("error") {
        // TensorFlow's forward op fails already.
        check_error(name, &ran.unwrap_err(), want);
        return Ok(());
    }
    // weir's Prod kernel multiplies in another order than Eigen's reduction.
    let out_ulps = if name.starts_with("prod") { 4 } else { 0 };
    close(
        &format!("{name}: output"),
        &ran.map_err(fail)?[0],
        &case["output"],
        out_ulps,
    )?;
    let gy = constant(&g, tensor(&case["grad_ys"])).unwrap();
    let grads = gradients(std::slice::from_ref(&y), &xs, Some(&[gy])).map_err(fail)?;
    let sess = Session::new(&g).unwrap();
    let want = case["grads"].as_array().unwrap();
    for (k, (d, w)) in grads.iter().zip(want).enumerate() {
        match (d, w) {
            (None, Value::Null) => {}
            (Some(d), w) if !w.is_null() => {
                let got = sess.run(&RunArgs::new().fetch(d)).map_err(fail)?;
                close(
                    &format!("{name}: d/d input {k}"),
                    &got[0],
                    w,
                    grad_ulps(name),
                )?;
            }
            (d, w) => return Err(format!("{name}: input {k}: weir {d:?}, TensorFlow {w}")),
        }
    }
    Ok(())
}

#[test]
fn gradients_match_tensorflow() {
    let cases: Vec<&Value> = of_kind("grad")
        .filter(|c| !KNOWN_DEVIATIONS.iter().any(|n| c["name"] == *n))
        .collect();
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|c| check_grad_case(c).err())
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert_eq!(cases.len(), 98, "gradient cases");
}

/// Cases whose TensorFlow gradient is not the derivative by design: `cumprod`'s divides by
/// the input, giving 0 where it is 0 (`div_no_nan`); truncatediv has none.
fn numeric(case: &Value) -> bool {
    let name = case["name"].as_str().unwrap();
    case.get("error").is_none()
        && matches!(input(case, "x").unwrap().dtype(), DType::F32 | DType::F64)
        && !KNOWN_DEVIATIONS.contains(&name)
        && !name.starts_with("cumprod_zeros")
        && name != "truncatediv"
        && input(case, "x").unwrap().shape().iter().product::<usize>() > 0
}

#[test]
fn gradients_match_central_differences() {
    let (mut n64, mut n32) = (0, 0);
    for case in of_kind("grad").filter(|c| numeric(c)) {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let (y, xs) = build(&g, case).unwrap();
        let x = input(case, "x").unwrap();
        let err = gradient_error(&xs[0], &x, &y, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Central differences: float64 is tight; float32 with a step of 1e-3 is rough.
        let tol = if x.dtype() == DType::F64 {
            n64 += 1;
            1e-6
        } else {
            n32 += 1;
            2e-2
        };
        assert!(err < tol, "{name}: off by {err}");
    }
    assert_eq!((n64, n32), (39, 34), "numeric checks (float64, float32)");
}

#[test]
fn backward_graphs_use_tensorflows_ops() {
    let count_after = |g: &Graph, from: usize, t: &str| {
        g.with_nodes(|n| n[from..].iter().filter(|n| n.op_type() == t).count())
    };
    let grad_graph = |name: &str| {
        let case = cases().iter().find(|c| c["name"] == name).unwrap();
        let g = Graph::new();
        let (y, xs) = build(&g, case).unwrap();
        let from = g.with_nodes(|n| n.len());
        gradients(&[y], &xs, None).unwrap();
        (g, from)
    };
    let (g, from) = grad_graph("prod_zeros_axis0_float32");
    for (t, k) in [
        ("Cumprod", 2),
        ("ListDiff", 1),
        ("InvertPermutation", 1),
        ("Transpose", 2),
    ] {
        assert_eq!(count_after(&g, from, t), k, "{t}");
    }
    let (g, from) = grad_graph("prod_dynamic_float64");
    assert_eq!(count_after(&g, from, "DynamicStitch"), 1);
    let (g, from) = grad_graph("gather_nd_rows_float32");
    assert_eq!(count_after(&g, from, "UnsortedSegmentSum"), 1);
    assert_eq!(count_after(&g, from, "ScatterNd"), 0);
    let (g, from) = grad_graph("gather_nd_slices_float32");
    assert_eq!(count_after(&g, from, "ScatterNd"), 1);
    let (g, from) = grad_graph("mirror_pad_2d_reflect_float32");
    assert_eq!(count_after(&g, from, "MirrorPadGrad"), 1);
    let (g, from) = grad_graph("mirror_pad_grad_grad_symmetric_float64");
    assert_eq!(count_after(&g, from, "MirrorPad"), 1);
    let (g, from) = grad_graph("broadcast_to_mixed_float32");
    assert_eq!(count_after(&g, from, "BroadcastGradientArgs"), 1);
}

/// The `MirrorPadGrad` graph of a forward case: its output, or the error of adding it.
fn build_pad_grad(g: &Graph, case: &Value) -> Result<Output> {
    let x = constant(g, input(case, "x").unwrap())?;
    let x = match &case["dynamic"] {
        Value::Bool(true) => placeholder_with_default(x, Shape::unknown())?,
        Value::Array(d) => placeholder_with_default(
            x,
            Shape::new(
                d.iter()
                    .map(|v| v.as_u64().map(|v| v as usize))
                    .collect::<Vec<_>>(),
            ),
        )?,
        _ => x,
    };
    let p = constant(g, input(case, "paddings").unwrap())?;
    let p = if case["dynamic_paddings"].as_bool().unwrap() {
        placeholder_with_default(p, Shape::unknown())?
    } else {
        p
    };
    if case["mode"] == "CONSTANT" {
        // weir's builder only names the two mirror modes; the raw op takes any string.
        return g
            .new_operation("MirrorPadGrad")
            .input(x)
            .input(p)
            .attr("mode", "CONSTANT")
            .build()?
            .output(0);
    }
    mirror_pad_grad(x, p, mode(case))
}

#[test]
fn mirror_pad_grad_matches_tensorflow() {
    let (mut values, mut errors) = (0, 0);
    for case in of_kind("mirror_pad_grad") {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build_pad_grad(&g, case);
        if let Some(want) = case.get("build_error") {
            check_error(name, &built.unwrap_err(), want);
            errors += 1;
            continue;
        }
        let y = built.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want_shape = match &case["static_shape"] {
            Value::Null => Shape::unknown(),
            Value::Array(d) => Shape::new(
                d.iter()
                    .map(|v| v.as_u64().map(|v| v as usize))
                    .collect::<Vec<_>>(),
            ),
            s => panic!("{name}: shape {s}"),
        };
        assert_eq!(y.shape(), want_shape, "{name}: static shape");
        let ran = Session::new(&g).unwrap().run(&RunArgs::new().fetch(&y));
        match (ran, case.get("error")) {
            (Ok(mut v), None) => {
                // Sums in TensorFlow's order, each rounded as Eigen rounds it: exact.
                assert_close(name, &v.remove(0), &case["output"], 0);
                values += 1;
            }
            (Err(e), Some(want)) => {
                check_error(name, &e, want);
                errors += 1;
            }
            (r, w) => panic!("{name}: weir {r:?}, TensorFlow {w:?}"),
        }
    }
    assert_eq!(
        (values, errors),
        (29, 21),
        "MirrorPadGrad cases (values, errors)"
    );
}
