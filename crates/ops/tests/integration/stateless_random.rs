//! The stateless random ops (`tf.random.stateless_uniform`, `stateless_normal`,
//! `stateless_truncated_normal`, `stateless_categorical`), `Dataset.random` and
//! `Dataset.sample_from_datasets` against TensorFlow 2.21
//! (tests/data/stateless_random/expected.json, written by make_stateless.py there): values bit
//! for bit, static shapes, element orders, and error codes and messages.
//!
//! Shape-function messages are compared before TensorFlow's " for '{{node ..." suffix (weir's
//! suffix names the op instead).

use serde_json::Value;
use weir_graph::{Code, DType, Error, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data::{Dataset, SampleWeights};
use weir_ops::random::{
    random_uniform, SeedArg, ShapeArg, StatelessCategorical, StatelessRandomNormal,
    StatelessRandomUniform, StatelessTruncatedNormal,
};
use weir_session::{RunArgs, Session};

use crate::io_util::{expect_same_outcome, fetch_and_feed, shape_of as static_shape};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("stateless_random")
}

fn dtype_of(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "bool" => DType::Bool,
        other => panic!("dtype {other}"),
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// The case's seed: a constant of `seed_dtype` (int64 by default), or a placeholder of
/// unknown shape fed with it.
fn seed_of(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> SeedArg {
    let dtype = dtype_of(
        c.get("seed_dtype")
            .and_then(Value::as_str)
            .unwrap_or("int64"),
    );
    let (rows, flat): (Option<usize>, Vec<i64>) = match &c["seed"].as_array().unwrap()[..] {
        [Value::Array(_), ..] => {
            let rows = c["seed"].as_array().unwrap();
            (Some(rows.len()), rows.iter().flat_map(ints).collect())
        }
        _ => (None, ints(&c["seed"])),
    };
    let shape = match rows {
        Some(r) => vec![r, flat.len() / r],
        None => vec![flat.len()],
    };
    let t = match dtype {
        DType::I32 => Tensor::from_vec(&shape, flat.iter().map(|&x| x as i32).collect()),
        _ => Tensor::from_vec(&shape, flat),
    }
    .unwrap();
    if c.get("seed_fed").is_some_and(|f| f.as_bool().unwrap()) {
        let p = placeholder(g, dtype, Shape::unknown()).unwrap();
        feeds.push((p.clone(), t));
        return p.into();
    }
    constant(g, t).unwrap().into()
}

fn shape_of(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> ShapeArg {
    let dims: Vec<usize> = ints(&c["shape"]).iter().map(|&d| d as usize).collect();
    if c.get("shape_fed").is_some_and(|f| f.as_bool().unwrap()) {
        let p = placeholder(g, DType::I32, Shape::known(&[dims.len()])).unwrap();
        let v: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
        feeds.push((p.clone(), Tensor::from(v)));
        return p.into();
    }
    dims.into()
}

/// A JSON number as the builders' scalar: integers stay integers.
fn scalar(v: &Value) -> weir_ops::random::Scalar {
    match v.as_i64() {
        Some(i) => i.into(),
        None => v.as_f64().unwrap().into(),
    }
}

fn logits_of(g: &Graph, c: &Value) -> Output {
    let rows = c["logits"].as_array().unwrap();
    let cols = rows[0].as_array().unwrap().len();
    let flat: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.as_array().unwrap().clone())
        .map(|x| match x.as_str() {
            Some("-inf") => f64::NEG_INFINITY,
            _ => x.as_f64().unwrap(),
        })
        .collect();
    let shape = [rows.len(), cols];
    let t = match c.get("logits_dtype").and_then(Value::as_str) {
        Some("float64") => Tensor::from_vec(&shape, flat),
        _ => Tensor::from_vec(&shape, flat.iter().map(|&x| x as f32).collect()),
    };
    constant(g, t.unwrap()).unwrap()
}

fn build(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Output, Error> {
    let op = c["op"].as_str().unwrap();
    let dtype = c.get("dtype").and_then(Value::as_str).map(dtype_of);
    match op {
        "uniform" | "normal" | "truncated" => {
            let shape = shape_of(g, c, feeds);
            let seed = seed_of(g, c, feeds);
            let dtype = dtype.unwrap_or(DType::F32);
            if op == "uniform" {
                let mut b = StatelessRandomUniform::new(shape, seed).dtype(dtype);
                if c.get("full_range").is_some() {
                    b = b.full_range();
                }
                if let Some(v) = c.get("minval") {
                    b = b.minval(scalar(v));
                }
                if let Some(v) = c.get("maxval") {
                    b = b.maxval(scalar(v));
                }
                return b.build(g);
            }
            let (mean, stddev) = (c.get("mean"), c.get("stddev"));
            if op == "normal" {
                let mut b = StatelessRandomNormal::new(shape, seed).dtype(dtype);
                if let Some(m) = mean {
                    b = b.mean(scalar(m));
                }
                if let Some(s) = stddev {
                    b = b.stddev(scalar(s));
                }
                return b.build(g);
            }
            let mut b = StatelessTruncatedNormal::new(shape, seed).dtype(dtype);
            if let Some(m) = mean {
                b = b.mean(scalar(m));
            }
            if let Some(s) = stddev {
                b = b.stddev(scalar(s));
            }
            b.build(g)
        }
        "categorical" => {
            let seed = seed_of(g, c, feeds);
            let logits = logits_of(g, c);
            let n = c["num_samples"].as_u64().unwrap() as usize;
            let mut b = StatelessCategorical::new(n, seed);
            if let Some(d) = dtype {
                b = b.dtype(d);
            }
            b.build(logits)
        }
        _ => build_dataset(g, c),
    }
}

/// A `Dataset.random` or `sample_from_datasets` case, batched whole into one element.
fn build_dataset(g: &Graph, c: &Value) -> Result<Output, Error> {
    if let Some(s) = c["graph_seed"].as_i64() {
        g.set_random_seed(s);
    }
    for _ in 0..c["before"].as_u64().unwrap() {
        random_uniform(g, [1])?;
    }
    let seed = c["seed"].as_i64();
    let n = c["n"].as_i64().unwrap();
    let ds = if c["op"] == "dataset_random" {
        Dataset::random(g, seed)?
    } else {
        let datasets = c["datasets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let r = ints(r);
                Dataset::range(g, r[0], r[1], 1)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let weights = match &c["weights"] {
            Value::Null => SampleWeights::Uniform,
            Value::Array(w) => {
                SampleWeights::Values(w.iter().map(|x| x.as_f64().unwrap()).collect())
            }
            Value::Object(o) => {
                let rows = o["dataset"].as_array().unwrap();
                let k = rows[0].as_array().unwrap().len();
                let flat: Vec<f32> = rows
                    .iter()
                    .flat_map(|r| r.as_array().unwrap().clone())
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect();
                let t = constant(g, Tensor::from_vec(&[rows.len(), k], flat)?)?;
                SampleWeights::Dataset(Dataset::from_tensor_slices(&[t])?)
            }
            other => panic!("weights {other}"),
        };
        let stop = c["stop_on_empty_dataset"].as_bool().unwrap();
        Dataset::sample_from_datasets(&datasets, weights, seed, stop)?
    };
    let next = ds
        .take(n)?
        .batch(10_000)?
        .make_one_shot_iterator()?
        .get_next()?;
    Ok(next[0].clone())
}

fn check_error(name: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let want = want["message"].as_str().unwrap();
    assert_eq!(
        got.message().split(" for '").next().unwrap(),
        want,
        "{name}"
    );
}

fn bits(want: &Value) -> Vec<u64> {
    want["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

fn check_value(name: &str, got: &Tensor, want: &Value) {
    let shape: Vec<usize> = ints(&want["shape"]).iter().map(|&d| d as usize).collect();
    assert_eq!(got.shape(), &shape[..], "{name}: shape");
    let values = want["values"].as_array().unwrap();
    match got.dtype() {
        DType::F32 => {
            let got: Vec<u64> = got
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits() as u64)
                .collect();
            // Exact: the same bits as TensorFlow's kernel.
            assert_eq!(got, bits(want), "{name}");
        }
        DType::F64 => {
            let got: Vec<u64> = got
                .to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(got, bits(want), "{name}");
        }
        _ => {
            let want: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            let got: Vec<i64> = match got.dtype() {
                DType::I32 => got
                    .to_vec::<i32>()
                    .unwrap()
                    .into_iter()
                    .map(i64::from)
                    .collect(),
                _ => got.to_vec::<i64>().unwrap(),
            };
            assert_eq!(got, want, "{name}");
        }
    }
}

/// Runs one case; returns whether it ended in an error.
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, c, &mut feeds);
    let Some(out) = expect_same_outcome(name, built, c.get("build_error"), check_error) else {
        return true;
    };
    assert_eq!(
        out.shape(),
        static_shape(&c["static_shape"]),
        "{name}: static shape"
    );
    let args = fetch_and_feed([&out], feeds);
    let session = Session::new(&g).unwrap();
    match expect_same_outcome(name, session.run(&args), c.get("error"), check_error) {
        Some(v) => {
            check_value(name, &v[0], &c["out"]);
            // Stateless: a second run gives the same values.
            if c["op"] != "sample" && c["op"] != "dataset_random" {
                let again = session.run(&args).unwrap();
                check_value(name, &again[0], &c["out"]);
            }
            false
        }
        None => true,
    }
}

#[test]
fn matches_tensorflow() {
    let cases = cases();
    let errors = cases.iter().filter(|c| run_case(c)).count();
    assert!(cases.len() >= 290, "{} cases", cases.len());
    assert!(errors >= 10, "{errors} error cases");
}

#[test]
fn seedless_random_datasets_differ() -> Result<(), Error> {
    let g = Graph::new();
    let ds = Dataset::random(&g, None)?.take(4)?.batch(4)?;
    let a = ds.make_initializable_iterator()?;
    let next = a.get_next()?;
    let s = Session::new(&g)?;
    let mut runs = Vec::new();
    for _ in 0..2 {
        s.run(&RunArgs::new().target(&a.initializer()?))?;
        runs.push(s.run(&RunArgs::new().fetch(&next[0]))?[0].to_vec::<i64>()?);
    }
    assert_ne!(runs[0], runs[1]);
    assert!(runs.iter().flatten().all(|&v| (0..1 << 32).contains(&v)));
    Ok(())
}
