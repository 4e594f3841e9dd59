//! The TensorFlow cases of `data/nn_extras/expected.json` (written by `make_nn_extras.py`) and
//! the weir graph of each: shared by weir-ops' `nn_extras` (values) and weir-train's
//! `nn_extras_grad` (gradients), which includes this file by path.

#![allow(dead_code)]

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::math::{self, Axes};
use weir_ops::nn::{self, EmbeddingLookup, EmbeddingLookupSparse, Padding};
use weir_ops::sparse::SparseOutput;
use weir_session::{RunArgs, Session};

/// One TensorFlow case.
pub struct Case {
    pub kind: String,
    pub args: Value,
    /// The float inputs, in order: what the gradients are taken with respect to.
    pub floats: Vec<(String, Tensor)>,
    pub ints: Vec<(String, Tensor)>,
    pub outputs: Vec<Tensor>,
    pub weights: Vec<Tensor>,
    /// TensorFlow's gradient of `sum(w * y)` per float input (`None`: not connected).
    pub grads: Vec<Option<Tensor>>,
}

impl Case {
    /// A short description for failure messages.
    pub fn label(&self) -> String {
        format!("{} {}", self.kind, self.args)
    }
}

fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "nan" => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        v => v.as_f64().expect("a number"),
    }
}

fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data: Vec<f64> = v["data"].as_array().unwrap().iter().map(number).collect();
    match v["dtype"].as_str().unwrap() {
        "float64" => Tensor::from_vec(&shape, data),
        "float32" => Tensor::from_vec(&shape, data.iter().map(|&x| x as f32).collect()),
        "int32" => Tensor::from_vec(&shape, data.iter().map(|&x| x as i32).collect()),
        "int64" => Tensor::from_vec(&shape, data.iter().map(|&x| x as i64).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn named(v: &Value) -> Vec<(String, Tensor)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), tensor(&p[1])))
        .collect()
}

/// Every case, in the file's order.
pub fn cases() -> Vec<Case> {
    let doc: Value = serde_json::from_str(include_str!("../data/nn_extras/expected.json")).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            kind: c["kind"].as_str().unwrap().to_string(),
            args: c["args"].clone(),
            floats: named(&c["floats"]),
            ints: named(&c["ints"]),
            outputs: c["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(tensor)
                .collect(),
            weights: c["weights"]
                .as_array()
                .unwrap()
                .iter()
                .map(tensor)
                .collect(),
            grads: c["grads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| (!g.is_null()).then(|| tensor(g)))
                .collect(),
        })
        .collect()
}

/// A case's graph: placeholders for the float inputs (with their static shapes, or unknown
/// shapes when `dynamic`), constants for the integer ones, and the outputs.
pub struct Built {
    pub graph: Graph,
    pub floats: Vec<Output>,
    pub feeds: Vec<(Output, Tensor)>,
    pub ys: Vec<Output>,
}

impl Built {
    /// Runs `fetches` with the case's inputs fed.
    pub fn run(&self, fetches: &[Output]) -> Result<Vec<Tensor>> {
        let sess = Session::new(&self.graph)?;
        let mut args = RunArgs::new();
        for (o, t) in &self.feeds {
            args = args.feed(o, t.clone());
        }
        for f in fetches {
            args = args.fetch(f);
        }
        sess.run(&args)
    }
}

fn ints4(v: &Value) -> [i64; 4] {
    let v: Vec<i64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    [v[0], v[1], v[2], v[3]]
}

fn rate(v: &Value) -> Option<[i64; 2]> {
    v.as_array()
        .map(|r| [r[0].as_i64().unwrap(), r[1].as_i64().unwrap()])
}

fn padding(v: &Value) -> Padding {
    Padding::parse(v.as_str().unwrap()).unwrap()
}

fn axes(v: &Value) -> Axes {
    match v {
        Value::Null => Axes::All,
        Value::Array(a) => Axes::List(a.iter().map(|d| d.as_i64().unwrap()).collect()),
        n => Axes::List(vec![n.as_i64().unwrap()]),
    }
}

/// The list with `None` at the positions `args["none"]` names (TensorFlow's `None` entries).
fn with_nones(xs: &[Output], none: &Value) -> Vec<Option<Output>> {
    let none: Vec<usize> = none
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let mut it = xs.iter();
    (0..xs.len() + none.len())
        .map(|i| {
            if none.contains(&i) {
                None
            } else {
                it.next().cloned()
            }
        })
        .collect()
}

/// Builds `case` in a new graph.
pub fn build(case: &Case, dynamic: bool) -> Result<Built> {
    let g = Graph::new();
    let mut floats = Vec::new();
    let mut feeds = Vec::new();
    let mut by_name = std::collections::HashMap::new();
    for (name, t) in &case.floats {
        let shape = if dynamic {
            Shape::unknown()
        } else {
            Shape::known(t.shape())
        };
        let p = placeholder(&g, t.dtype(), shape)?;
        feeds.push((p.clone(), t.clone()));
        floats.push(p.clone());
        by_name.insert(name.as_str(), p);
    }
    for (name, t) in &case.ints {
        by_name.insert(name.as_str(), constant(&g, t.clone())?);
    }
    let a = &case.args;
    let get = |n: &str| by_name[n].clone();
    let params: Vec<Output> = case
        .floats
        .iter()
        .filter(|(n, _)| n.starts_with('p') && n[1..].parse::<usize>().is_ok())
        .map(|(n, _)| get(n))
        .collect();
    let ys = match case.kind.as_str() {
        "embedding_lookup" => {
            let mut e = EmbeddingLookup::new().partition_strategy(a["strategy"].as_str().unwrap());
            if let Some(m) = a["max_norm"].as_f64() {
                e = e.max_norm(m);
            }
            vec![e.build(&params, get("ids"))?]
        }
        "embedding_lookup_sparse" => {
            let sp = |v: Output| SparseOutput::new(get("sp_indices"), v, get("sp_shape"));
            let ids = sp(get("sp_ids"))?;
            let weights = match by_name.get("sp_weights") {
                Some(w) => Some(sp(w.clone())?),
                None => None,
            };
            let mut e = EmbeddingLookupSparse::new()
                .combiner(a["combiner"].as_str().unwrap())
                .partition_strategy(a["strategy"].as_str().unwrap());
            if let Some(m) = a["max_norm"].as_f64() {
                e = e.max_norm(m);
            }
            vec![e.build(&params, &ids, weights.as_ref())?]
        }
        "sparse_segment" => {
            let (d, i, s) = (get("data"), get("indices"), get("segment_ids"));
            vec![match a["op"].as_str().unwrap() {
                "sum" => math::sparse_segment_sum(d, i, s)?,
                "mean" => math::sparse_segment_mean(d, i, s)?,
                _ => math::sparse_segment_sqrt_n(d, i, s)?,
            }]
        }
        "clip_by_norm" => vec![match a["clip_norm"].as_f64() {
            Some(c) => math::clip_by_norm(&get("t"), c, axes(&a["axes"]))?,
            None => math::clip_by_norm(&get("t"), get("clip"), axes(&a["axes"]))?,
        }],
        "global_norm" => {
            let ts: Vec<Output> = floats.clone();
            vec![math::global_norm(with_nones(&ts, &a["none"]))?]
        }
        "clip_by_global_norm" => {
            let ts: Vec<Output> = case
                .floats
                .iter()
                .filter(|(n, _)| n.starts_with('t'))
                .map(|(n, _)| get(n))
                .collect();
            let use_norm = by_name.get("use_norm").cloned();
            let clip = a["clip_norm"].as_f64().unwrap();
            let (clipped, norm) =
                math::clip_by_global_norm(with_nones(&ts, &a["none"]), clip, use_norm)?;
            let mut ys: Vec<Output> = clipped.into_iter().flatten().collect();
            ys.push(norm);
            ys
        }
        "clip_by_average_norm" => vec![math::clip_by_average_norm(
            &get("t"),
            a["clip_norm"].as_f64().unwrap(),
        )?],
        "l2_normalize" => vec![nn::l2_normalize(
            get("x"),
            axes(&a["axis"]),
            a["epsilon"].as_f64().unwrap(),
        )?],
        "conv2d_transpose" => vec![nn::conv2d_transpose(
            get("value"),
            get("filter"),
            ints4(&a["output_shape"]),
            ints4(&a["strides"]),
            padding(&a["padding"]),
        )?],
        "depthwise_conv2d" => vec![nn::depthwise_conv2d(
            get("input"),
            get("filter"),
            ints4(&a["strides"]),
            padding(&a["padding"]),
            rate(&a["rate"]),
        )?],
        "separable_conv2d" => vec![nn::separable_conv2d(
            get("input"),
            get("depthwise_filter"),
            get("pointwise_filter"),
            ints4(&a["strides"]),
            padding(&a["padding"]),
            rate(&a["rate"]),
        )?],
        other => panic!("unknown case kind {other}"),
    };
    Ok(Built {
        graph: g,
        floats,
        feeds,
        ys,
    })
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        _ => t.to_vec::<f64>().unwrap(),
    }
}

/// Asserts `got` equals TensorFlow's `want` in shape and within 1e-5 relative (1e-9 absolute
/// near zero) elementwise, NaN matching NaN and infinities matching exactly.
pub fn assert_close(got: &Tensor, want: &Tensor, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    for (i, (a, b)) in as_f64(got).into_iter().zip(as_f64(want)).enumerate() {
        let ok = if b.is_nan() {
            a.is_nan()
        } else if b.is_infinite() {
            a == b
        } else {
            (a - b).abs() <= 1e-5 * b.abs() + 1e-9
        };
        assert!(ok, "{what}: element {i}: got {a}, TensorFlow {b}");
    }
}
