//! float16 and bfloat16 in the nn ops, random ops, initializers and training apply ops against
//! TensorFlow 2.21: every case of tests/data/half_nn/expected.json (made by make_half_nn.py
//! there) except the gradient ones (weir-train's half_nn_grad.rs) run here. Values compare
//! bit for bit: TensorFlow's half kernels round after each Eigen operation, and weir's do the
//! same in the same order. Tolerances, recorded with their cases: softmax rows of 300 (4 ulp:
//! there Eigen's unrolled packet reduction adds in an order that depends on the SIMD width
//! TensorFlow was built for), and the convolution backprops and bfloat16 AvgPoolGrad (4 eps
//! of the largest output: TensorFlow adds their partial sums in the half type, weir in f32
//! rounding once, which is the more accurate of the two).

#[path = "half_nn/cases.rs"]
mod cases;

use cases::{assert_scaled, assert_tensor, build_raw, cases, tensor, with_attrs};
use serde_json::Value;
use weir_graph::{Code, DType, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::init_ops::{FanMode, Initializer, ScalingDistribution};
use weir_ops::state::Variable;
use weir_session::{RunArgs, Session};

fn run_raw(c: &Value) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let op = build_raw(
        &g,
        c["op"].as_str().unwrap(),
        c["inputs"].as_array().unwrap(),
        &c["attrs"],
    )?;
    let sess = Session::new(&g)?;
    let mut args = RunArgs::new();
    for i in 0..op.num_outputs() {
        args = args.fetch(&op.output(i)?);
    }
    sess.run(&args)
}

fn check_raw(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let got = run_raw(c);
    if let Some(err) = c.get("error") {
        let e = got
            .err()
            .unwrap_or_else(|| panic!("{name}: TensorFlow fails with {err}"));
        // A ValueError/TypeError is TensorFlow's graph-building InvalidArgument; a missing
        // kernel is weir's op def refusing the dtype at build time.
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
        let msg = err["message"].as_str().unwrap();
        if err["type"] == "InvalidArgumentError" && !msg.starts_with("No OpKernel") {
            assert_eq!(e.message(), msg, "{name}");
        }
        return;
    }
    let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut want = c["outputs"].as_array().unwrap().as_slice();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    if let Some(n) = c.get("compare_outputs") {
        want = &want[..n.as_u64().unwrap() as usize];
    }
    let ulp = c.get("ulp").map_or(0, |u| u.as_i64().unwrap() as i32);
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let what = format!("{name} output {k}");
        match c.get("scaled") {
            Some(s) => assert_scaled(&what, g, w, s.as_f64().unwrap() as f32),
            None => assert_tensor(&what, g, w, ulp),
        }
    }
}

fn check_apply(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let vars: Vec<Variable> = c["vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| Variable::new(constant(&g, tensor(v)).unwrap()).unwrap())
        .collect();
    let mut b = g.new_operation(c["op"].as_str().unwrap());
    for v in &vars {
        b = b.input(v.handle().clone());
    }
    for v in c["inputs"].as_array().unwrap() {
        b = b.input(constant(&g, tensor(v)).unwrap());
    }
    let op = with_attrs(b, &c["attrs"])
        .build()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let sess = Session::new(&g).unwrap();
    for v in &vars {
        sess.run_target(&v.initializer()).unwrap();
    }
    sess.run_target(&op)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, (v, w)) in vars
        .iter()
        .zip(c["vars_after"].as_array().unwrap())
        .enumerate()
    {
        let got = sess.eval(v.read_value().unwrap()).unwrap();
        assert_tensor(&format!("{name} variable {i}"), &got, w, 0);
    }
}

fn initializer(c: &Value) -> Initializer {
    let a: Vec<f64> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let seed = c["seed"].as_i64().unwrap();
    match c["init"].as_str().unwrap() {
        "zeros" => Initializer::Zeros,
        "ones" => Initializer::Ones,
        "constant" => Initializer::constant(a[0] as f32),
        "random_uniform" => Initializer::random_uniform(a[0], a[1]).seed(seed),
        "random_normal" => Initializer::random_normal(a[0], a[1]).seed(seed),
        "truncated_normal" => Initializer::truncated_normal(a[0], a[1]).seed(seed),
        "glorot_uniform" => Initializer::glorot_uniform().seed(seed),
        "glorot_normal" => Initializer::glorot_normal().seed(seed),
        "variance_scaling_fan_in_untruncated" => Initializer::variance_scaling(
            a[0],
            FanMode::FanIn,
            ScalingDistribution::UntruncatedNormal,
        )
        .seed(seed),
        other => panic!("unknown initializer {other}"),
    }
}

fn check_init(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let shape: Vec<usize> = c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let dt = DType::from_name(c["dtype"].as_str().unwrap()).unwrap();
    let out = initializer(c)
        .build(&g, &shape, dt)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = Session::new(&g)
        .unwrap()
        .eval(&out)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_tensor(name, &got, &c["outputs"][0], 0);
}

/// Checks every case `pick` selects, reporting all the failures at once; returns how many ran.
fn check_all(pick: impl Fn(&Value) -> bool) -> usize {
    let mut failures = Vec::new();
    let mut n = 0;
    for c in cases().iter().filter(|c| pick(c)) {
        let r = std::panic::catch_unwind(|| match c["kind"].as_str().unwrap() {
            "raw" => check_raw(c),
            "apply" => check_apply(c),
            _ => check_init(c),
        });
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(msg);
        }
        n += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    n
}

fn run_kind(kind: &str, prefix: &str) -> usize {
    let n = check_all(|c| c["kind"] == kind && c["name"].as_str().unwrap().starts_with(prefix));
    assert!(n > 0, "no {kind} cases starting with {prefix}");
    n
}

const RANDOM_OPS: [&str; 6] = [
    "RandomUniform",
    "RandomStandardNormal",
    "TruncatedNormal",
    "StatelessRandomUniform",
    "StatelessRandomNormal",
    "StatelessTruncatedNormal",
];

#[test]
fn nn_ops_match_tensorflow_bit_for_bit() {
    let n =
        check_all(|c| c["kind"] == "raw" && !RANDOM_OPS.contains(&c["op"].as_str().unwrap_or("")));
    assert_eq!(n, 129, "{n} cases");
}

#[test]
fn seeded_random_ops_draw_tensorflows_halves() {
    for op in RANDOM_OPS {
        run_kind("raw", op);
    }
}

#[test]
fn half_initializers_match_tensorflow() {
    assert_eq!(run_kind("init", "init_"), 9);
}

#[test]
fn apply_ops_update_half_variables_as_tensorflow() {
    assert!(run_kind("apply", "") >= 40);
}
