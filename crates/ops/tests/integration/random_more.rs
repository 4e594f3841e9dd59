//! `tf.random.gamma` (`RandomGamma`), `tf.random.poisson` (`RandomPoissonV2`),
//! `parameterized_truncated_normal` and `RandomGammaGrad` against TensorFlow 2.21
//! (tests/data/random_more/expected.json, written by make_random_more.py there): seeded samples
//! bit for bit, static shapes, and errors (code and message, build-time ones before weir's
//! " for '<op>'" suffix).

use serde_json::Value;
use weir_graph::{f16, DType, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::random::{
    random_gamma_grad, ParameterizedTruncatedNormal, RandomGamma, RandomPoisson,
};

use crate::io_util::{
    check_all_cases, check_spec_outputs, check_tf_error, expected_cases, run_built_case,
    spec_dtype, spec_tensor,
};

/// A nested JSON list (or number) flattened, with its dims.
fn flatten(v: &Value, dims: &mut Vec<usize>, depth: usize, out: &mut Vec<f64>) {
    match v {
        Value::Array(xs) => {
            if dims.len() == depth {
                dims.push(xs.len());
            }
            for x in xs {
                flatten(x, dims, depth + 1, out);
            }
        }
        Value::String(x) => out.push(x.parse().unwrap()),
        x => out.push(x.as_f64().unwrap()),
    }
}

/// A constant of `dtype` from a nested list, each value rounded once from the double.
fn tensor(v: &Value, dtype: DType) -> Tensor {
    let (mut dims, mut xs) = (vec![], vec![]);
    flatten(v, &mut dims, 0, &mut xs);
    match dtype {
        DType::F16 => Tensor::from_vec(&dims, xs.iter().map(|&x| f16::from_f64(x)).collect()),
        DType::F32 => Tensor::from_vec(&dims, xs.iter().map(|&x| x as f32).collect()),
        DType::F64 => Tensor::from_vec(&dims, xs),
        DType::I32 => Tensor::from_vec(&dims, xs.iter().map(|&x| x as i32).collect()),
        dt => panic!("{dt}"),
    }
    .unwrap()
}

fn dtype_of(c: &Value, key: &str) -> DType {
    spec_dtype(c.get(key).and_then(Value::as_str).unwrap_or("float32"))
}

fn shape(c: &Value) -> Vec<usize> {
    c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

fn build(c: &Value, g: &Graph, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    g.set_random_seed(c.get("graph_seed").and_then(Value::as_i64).unwrap_or(1));
    let dt = dtype_of(c, "dtype");
    let seed = c.get("seed").and_then(Value::as_i64);
    let out = match c["op"].as_str().unwrap() {
        "gamma" => {
            let mut b = RandomGamma::new(shape(c), constant(g, tensor(&c["alpha"], dt))?).dtype(dt);
            if let Some(beta) = c.get("beta") {
                b = b.beta(constant(g, tensor(beta, dt))?);
            }
            if let Some(s) = seed {
                b = b.seed(s);
            }
            b.build(g)?
        }
        "poisson" => {
            let lam = constant(g, tensor(&c["lam"], dtype_of(c, "lam_dtype")))?;
            let mut b = RandomPoisson::new(shape(c), lam).dtype(dt);
            if let Some(s) = seed {
                b = b.seed(s);
            }
            b.build(g)?
        }
        "ptn" => {
            let mut b = if c.get("shape_fed").is_some() {
                let p = placeholder(g, DType::I32, weir_graph::Shape::unknown())?;
                let dims: Vec<i32> = c["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_i64().unwrap() as i32)
                    .collect();
                feeds.push((p.clone(), Tensor::from(dims)));
                ParameterizedTruncatedNormal::new(p)
            } else {
                ParameterizedTruncatedNormal::new(shape(c))
            }
            .dtype(dt);
            for k in ["means", "stddevs", "minvals", "maxvals"] {
                if let Some(v) = c.get(k) {
                    let o = constant(g, tensor(v, dt))?;
                    b = match k {
                        "means" => b.means(o),
                        "stddevs" => b.stddevs(o),
                        "minvals" => b.minvals(o),
                        _ => b.maxvals(o),
                    };
                }
            }
            if let Some(s) = seed {
                b = b.seed(s);
            }
            b.build(g)?
        }
        "gamma_grad" => random_gamma_grad(
            constant(g, tensor(&c["alpha"], dt))?,
            constant(g, tensor(&c["sample"], dt))?,
        )?,
        op => panic!("{op}"),
    };
    Ok(vec![out])
}

/// Floats within `ulps` units in the last place of TensorFlow's, same dtype and shape.
fn check_ulps(name: &str, c: &Value, got: &[Tensor], ulps: i64) {
    let want = spec_tensor(&c["out"]);
    assert_eq!(got[0].dtype(), want.dtype(), "{name}");
    assert_eq!(got[0].shape(), want.shape(), "{name}");
    let (g, w) = (cast_f64(&got[0]), cast_f64(&want));
    for (k, (a, b)) in g.iter().zip(&w).enumerate() {
        let same = a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let step = b.abs()
            * f64::from(f32::EPSILON)
            * if want.dtype() == DType::F64 {
                f64::EPSILON / f64::from(f32::EPSILON)
            } else {
                1.0
            };
        assert!(
            same || (a - b).abs() <= ulps as f64 * step,
            "{name}[{k}]: {a} vs {b}"
        );
    }
}

fn cast_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&x| x as f64)
            .collect(),
        DType::F64 => t.as_slice::<f64>().unwrap().to_vec(),
        DType::F16 => t
            .as_slice::<f16>()
            .unwrap()
            .iter()
            .map(|x| x.to_f64())
            .collect(),
        dt => panic!("{dt}"),
    }
}

/// Values bit for bit, except: a division by a constant `beta`, which TensorFlow's Grappler
/// rewrites to a multiplication by its reciprocal (1 ulp away), and `RandomGammaGrad` in
/// float64, whose series and `digamma` can round differently from Eigen's compiled code
/// (within 2 ulps).
fn check_case(c: &Value) -> bool {
    let mut c = c.clone();
    c["static_shapes"] = Value::Array(vec![c["static_shape"].clone()]);
    if let Some(out) = c.get("out").cloned() {
        c["outputs"] = Value::Array(vec![out]);
    }
    let c = &c;
    run_built_case(
        c,
        c.get("build_error"),
        |g, feeds| build(c, g, feeds),
        check_tf_error,
        |name, got| {
            let op = c["op"].as_str().unwrap();
            if c.get("beta").is_some() || (op == "gamma_grad" && got[0].dtype() == DType::F64) {
                check_ulps(name, c, got, 2);
            } else {
                check_spec_outputs(name, c, got);
            }
        },
    )
}

#[test]
fn random_more_matches_tensorflow() {
    let cases = expected_cases("random_more");
    assert!(cases.len() >= 160, "{} cases", cases.len());
    check_all_cases(&cases, check_case);
}
