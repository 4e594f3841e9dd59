//! TensorFlow 1's learning-rate schedules checked against the real TensorFlow 2.21:
//! `tests/data/learning_rate/make_learning_rate.py` evaluated each schedule in
//! `tf.compat.v1` graph mode at many global steps, and recorded the bit patterns of the
//! values, the result's name and dtype, and the nodes TensorFlow built. weir must build the
//! same nodes and produce the same bits.

use std::collections::HashMap;

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape};
use weir_ops::array::{constant, Placeholder};
use weir_ops::random::Scalar;
use weir_session::{RunArgs, Session};
use weir_train::optimizers::LearningRate;
use weir_train::{
    cosine_decay, CosineDecay, CosineDecayRestarts, InverseTimeDecay, LinearCosineDecay,
    NaturalExpDecay, NoisyLinearCosineDecay, PolynomialDecay,
};

fn data() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/learning_rate/learning_rate.json"
    );
    let text = std::fs::read_to_string(path).expect("learning_rate.json");
    serde_json::from_str(&text).expect("valid JSON")
}

/// A Python number from the JSON: ints stay ints (they build a different graph).
fn py(v: &Value) -> Scalar {
    match v.as_i64() {
        Some(i) => Scalar::Int(i),
        None => Scalar::Float(v.as_f64().expect("a number")),
    }
}

/// The learning rate as the script passed it: a Python float, or "f64:x" for
/// `tf.constant(x, tf.float64)`.
fn learning_rate(g: &Graph, v: &Value) -> Result<LearningRate> {
    Ok(match v.as_str() {
        Some(s) => LearningRate::Tensor(constant(g, s[4..].parse::<f64>().expect("f64"))?),
        None => LearningRate::Value(v.as_f64().expect("a number")),
    })
}

/// Builds `case`'s schedule with weir's builder for TensorFlow's function `case["fn"]`.
fn build(g: &Graph, step: &Output, case: &Value) -> Result<Output> {
    let lr = learning_rate(g, &case["lr"])?;
    let args = case["args"].as_object().expect("args");
    let num = |k: &str| args.get(k).map(py);
    let flag = |k: &str| args.get(k).and_then(Value::as_bool).unwrap_or(false);
    let steps = || num("decay_steps").expect("decay_steps");
    match case["fn"].as_str().expect("fn") {
        "polynomial_decay" => {
            let mut b = PolynomialDecay::new(lr, step, steps()).cycle(flag("cycle"));
            if let Some(v) = num("end_learning_rate") {
                b = b.end_learning_rate(v);
            }
            if let Some(v) = num("power") {
                b = b.power(v);
            }
            b.build()
        }
        "natural_exp_decay" => {
            NaturalExpDecay::new(lr, step, steps(), num("decay_rate").expect("decay_rate"))
                .staircase(flag("staircase"))
                .build()
        }
        "inverse_time_decay" => {
            InverseTimeDecay::new(lr, step, steps(), num("decay_rate").expect("decay_rate"))
                .staircase(flag("staircase"))
                .build()
        }
        "cosine_decay" => {
            let mut b = CosineDecay::new(lr, step, steps());
            if let Some(v) = num("alpha") {
                b = b.alpha(v);
            }
            b.build()
        }
        "cosine_decay_restarts" => {
            let first = num("first_decay_steps").expect("first_decay_steps");
            let mut b = CosineDecayRestarts::new(lr, step, first);
            if let Some(v) = num("t_mul") {
                b = b.t_mul(v);
            }
            if let Some(v) = num("m_mul") {
                b = b.m_mul(v);
            }
            if let Some(v) = num("alpha") {
                b = b.alpha(v);
            }
            b.build()
        }
        "linear_cosine_decay" => {
            let mut b = LinearCosineDecay::new(lr, step, steps());
            if let Some(v) = num("num_periods") {
                b = b.num_periods(v);
            }
            if let Some(v) = num("alpha") {
                b = b.alpha(v);
            }
            if let Some(v) = num("beta") {
                b = b.beta(v);
            }
            b.build()
        }
        "noisy_linear_cosine_decay" => {
            let mut b = NoisyLinearCosineDecay::new(lr, step, steps());
            if let Some(v) = num("initial_variance") {
                b = b.initial_variance(v);
            }
            if let Some(v) = num("variance_decay") {
                b = b.variance_decay(v);
            }
            if let Some(v) = num("num_periods") {
                b = b.num_periods(v);
            }
            if let Some(v) = num("alpha") {
                b = b.alpha(v);
            }
            if let Some(v) = num("beta") {
                b = b.beta(v);
            }
            b.build()
        }
        other => panic!("unknown schedule {other}"),
    }
}

fn step_placeholder(g: &Graph) -> Result<Output> {
    Placeholder::new(DType::I64)
        .shape(Shape::scalar())
        .name("step")
        .build(g)
}

/// The schedule's value at each step, as bit patterns in TensorFlow's hex format.
fn values(g: &Graph, step: &Output, lr: &Output, steps: &[Value]) -> Result<Vec<String>> {
    let sess = Session::new(g)?;
    steps
        .iter()
        .map(|s| {
            let args = RunArgs::new()
                .feed(step, s.as_i64().expect("step"))
                .fetch(lr);
            let t = sess.run(&args)?.remove(0);
            Ok(match t.dtype() {
                DType::F32 => format!("{:08x}", t.to_scalar::<f32>()?.to_bits()),
                _ => format!("{:016x}", t.to_scalar::<f64>()?.to_bits()),
            })
        })
        .collect()
}

/// Every node but the step, as TensorFlow lists them: name, op type, input tensor names.
fn nodes(g: &Graph) -> Vec<Value> {
    let ops = g.operations();
    let names: HashMap<usize, String> = ops.iter().map(|o| (o.id(), o.name())).collect();
    ops.iter()
        .filter(|o| o.name() != "step")
        .map(|o| {
            let inputs: Vec<String> = o
                .node()
                .inputs()
                .iter()
                .map(|(id, i)| format!("{}:{i}", names[id]))
                .collect();
            serde_json::json!([o.name(), o.op_type(), inputs])
        })
        .collect()
}

fn check(case: &Value, seed: Option<i64>) -> Result<()> {
    let g = Graph::new();
    if let Some(s) = seed {
        g.set_random_seed(s);
    }
    let step = step_placeholder(&g)?;
    let lr = build(&g, &step, case)?;
    let what = format!("{} {} {}", case["fn"], case["lr"], case["args"]);
    assert_eq!(lr.name(), case["name"].as_str().unwrap(), "{what}");
    assert_eq!(lr.dtype().python_name(), case["dtype"], "{what}");
    // TensorFlow 2.21 builds SGDR's period switch as a functional StatelessIf; weir builds
    // TensorFlow 1's Switch/Merge cond, so only its values are compared.
    if case["fn"] != "cosine_decay_restarts" {
        assert_eq!(Value::Array(nodes(&g)), case["nodes"], "{what}");
    }
    let steps = case["steps"].as_array().unwrap();
    let got = values(&g, &step, &lr, steps)?;
    let want = case["values"].as_array().unwrap();
    for ((s, got), want) in steps.iter().zip(&got).zip(want) {
        assert_eq!(got, want, "{what} at step {s}");
    }
    Ok(())
}

#[test]
fn schedules_match_tensorflow_bit_for_bit() -> Result<()> {
    let data = data();
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 30);
    for case in cases {
        check(case, None)?;
    }
    Ok(())
}

/// A value's bits (TensorFlow's hex format) as a number.
fn from_bits(h: &str) -> f64 {
    match h.len() {
        8 => f32::from_bits(u32::from_str_radix(h, 16).expect("hex")) as f64,
        _ => f64::from_bits(u64::from_str_radix(h, 16).expect("hex")),
    }
}

#[test]
fn tensorflow_default_session_differs_only_in_the_last_bits() -> Result<()> {
    // TensorFlow's default session runs Grappler, which turns `x / constant` into
    // `x * (1 / constant)`; the literal graph (what weir runs, and what "values" holds) rounds
    // differently in about one value in nine. Each difference stays within 2^-19 of the
    // initial learning rate (the largest recorded one is 1.2e-6 of it).
    let data = data();
    let (mut total, mut differ) = (0, 0);
    for case in data["cases"].as_array().unwrap() {
        let lr = match &case["lr"] {
            Value::String(s) => s[4..].parse::<f64>().expect("f64"),
            v => v.as_f64().expect("a number"),
        };
        let exact = case["values"].as_array().unwrap();
        let optimized = case["values_grappler"].as_array().unwrap();
        for (a, b) in exact.iter().zip(optimized) {
            let (a, b) = (a.as_str().unwrap(), b.as_str().unwrap());
            total += 1;
            if a == b {
                // Identical bits, NaN included (SGDR with t_mul < 1 takes the log of a
                // negative number once the periods run out, in TensorFlow as here).
                continue;
            }
            differ += 1;
            let diff = (from_bits(a) - from_bits(b)).abs();
            assert!(diff <= lr * 2f64.powi(-19), "{} {a} vs {b}", case["fn"]);
        }
    }
    assert!(differ * 5 < total, "{differ} of {total} differ");
    Ok(())
}

#[test]
fn seeded_noise_matches_tensorflow() -> Result<()> {
    let data = data();
    for case in data["noisy"].as_array().unwrap() {
        check(case, case["seed"].as_i64())?;
        // The noise op's seeds are TensorFlow's (graph seed, first op-seed offset).
        let g = Graph::new();
        g.set_random_seed(case["seed"].as_i64().unwrap());
        let step = step_placeholder(&g)?;
        build(&g, &step, case)?;
        let rnd = g
            .operations()
            .into_iter()
            .find(|o| o.op_type() == "RandomStandardNormal")
            .unwrap();
        let seeds = [rnd.attr::<i64>("seed")?, rnd.attr::<i64>("seed2")?];
        assert_eq!(serde_json::json!(seeds), case["seeds"]);
    }
    Ok(())
}

#[test]
fn unseeded_noise_varies_around_linear_cosine() -> Result<()> {
    // Without a graph seed the noise is fresh each run: at a fixed step the schedule's values
    // scatter around the noiseless one with the variance TensorFlow's formula gives.
    let g = Graph::new();
    let step = step_placeholder(&g)?;
    let noisy = NoisyLinearCosineDecay::new(1.0, &step, 100)
        .beta(0.0)
        .build()?;
    let plain = LinearCosineDecay::new(1.0, &step, 100).beta(0.0).build()?;
    let sess = Session::new(&g)?;
    let at = 20i64;
    let run = |t: &Output| -> Result<f64> {
        let args = RunArgs::new().feed(&step, at).fetch(t);
        Ok(sess.run(&args)?[0].to_scalar::<f32>()? as f64)
    };
    let base = run(&plain)?;
    // lr * (alpha + linear + noise) * cosine: the noise enters scaled by the cosine factor.
    let cosine = 0.5 * (1.0 + (std::f64::consts::PI * 0.2).cos());
    let n = 4000;
    let noise: Vec<f64> = (0..n)
        .map(|_| Ok((run(&noisy)? - base) / cosine))
        .collect::<Result<_>>()?;
    let mean = noise.iter().sum::<f64>() / n as f64;
    let var = noise.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let want_var = 1.0 / 21f64.powf(0.55);
    assert!(
        mean.abs() < 4.0 * (want_var / n as f64).sqrt(),
        "mean {mean}"
    );
    assert!(
        (var / want_var - 1.0).abs() < 0.1,
        "var {var} vs {want_var}"
    );
    Ok(())
}

#[test]
fn tensorflow_errors() -> Result<()> {
    let data = data();
    for case in data["errors"].as_array().unwrap() {
        let g = Graph::new();
        let step = step_placeholder(&g)?;
        let e = build(&g, &step, case).unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{case}");
        let want = case["error"].as_str().unwrap();
        assert!(
            want.starts_with(e.message()),
            "{}: weir {:?}, TensorFlow {want:?}",
            case["fn"],
            e.message()
        );
    }
    Ok(())
}

#[test]
fn plain_functions_and_names() -> Result<()> {
    let g = Graph::new();
    let step = weir_train::get_or_create_global_step(&g)?;
    let a = weir_train::polynomial_decay(0.1, &step, 100, 0.01, 2.0, false)?;
    let b = weir_train::polynomial_decay(0.1, &step, 100, 0.01, 2.0, true)?;
    assert_eq!(a.name(), "PolynomialDecay:0");
    assert_eq!(b.name(), "PolynomialDecay_1:0");
    let c = cosine_decay(0.1, &step, 100, 0.0)?;
    assert_eq!(c.name(), "CosineDecay/Mul_3:0");
    let d = PolynomialDecay::new(0.1, &step, 100).name("poly").build()?;
    assert_eq!(d.name(), "poly:0");
    // A learning rate tensor must be a float.
    let e = PolynomialDecay::new(constant(&g, 1i32)?, &step, 100)
        .build()
        .unwrap_err();
    assert_eq!(e.code(), weir_graph::Code::InvalidArgument);
    Ok(())
}
