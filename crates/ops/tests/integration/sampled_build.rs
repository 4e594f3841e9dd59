//! The TensorFlow cases of `data/sampled/expected.json` (written by `make_sampled.py`) and the
//! weir graph of each loss case: shared by weir-ops' `sampled` (values) and weir-train's
//! `sampled_grad` (gradients), which includes this file by path.

#![allow(dead_code)]

use serde_json::Value;
use weir_graph::{Graph, Output, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::nn::{CandidateSamples, SampledLoss};

/// The whole recorded document.
pub fn doc() -> Value {
    serde_json::from_str(include_str!("../data/sampled/expected.json")).unwrap()
}

/// A tensor recorded as `{dtype, shape, data}`.
pub fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data = v["data"].as_array().unwrap();
    let f = || data.iter().map(|x| x.as_f64().unwrap());
    match v["dtype"].as_str().unwrap() {
        "float64" => Tensor::from_vec(&shape, f().collect()),
        "float32" => Tensor::from_vec(&shape, f().map(|x| x as f32).collect()),
        "int32" => Tensor::from_vec(
            &shape,
            data.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        "int64" => Tensor::from_vec(&shape, data.iter().map(|x| x.as_i64().unwrap()).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        weir_graph::DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        weir_graph::DType::F64 => t.to_vec::<f64>().unwrap(),
        weir_graph::DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|v| v as f64)
            .collect(),
    }
}

/// Same shape and dtype, and every element within `rel` relative (absolute near zero).
pub fn assert_close(got: &Tensor, want: &Tensor, rel: f64, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    for (i, (a, b)) in as_f64(got).into_iter().zip(as_f64(want)).enumerate() {
        assert!(
            (a - b).abs() <= rel * b.abs().max(1.0),
            "{what}: element {i}: got {a}, want {b}"
        );
    }
}

/// One loss case: its graph, the float inputs (weight shards, biases, inputs) and the loss.
pub struct Built {
    pub graph: Graph,
    pub case: Value,
    /// Weight shards, then biases, then inputs: what the gradients are taken with respect to.
    pub floats: Vec<Output>,
    pub loss: Output,
    /// `sum(loss * loss_weights)`.
    pub objective: Output,
}

/// Builds recorded loss case `case`.
pub fn build(case: &Value) -> Result<Built> {
    let g = Graph::new();
    let c = |k: &str| constant(&g, tensor(&case[k]));
    let weights = case["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| constant(&g, tensor(w)))
        .collect::<Result<Vec<_>>>()?;
    let (biases, inputs) = (c("biases")?, c("inputs")?);
    let sampled = CandidateSamples::new(c("sampled")?, c("true_expected")?, c("sampled_expected")?);
    let num_sampled = case["sampled"]["shape"][0].as_u64().unwrap() as usize;
    let num_classes = case["num_classes"].as_u64().unwrap() as usize;
    let opts = match case["kind"].as_str().unwrap() {
        "nce" => SampledLoss::nce(num_sampled, num_classes),
        _ => SampledLoss::sampled_softmax(num_sampled, num_classes),
    };
    let loss = opts
        .num_true(case["num_true"].as_u64().unwrap() as usize)
        .remove_accidental_hits(case["remove_hits"].as_bool().unwrap())
        .partition_strategy(case["strategy"].as_str().unwrap())
        .sampled_values(sampled)
        .build(&weights, &biases, c("labels")?, &inputs)?;
    let weighted = weir_ops::math::mul(&loss, c("loss_weights")?)?;
    let objective = weir_ops::math::Reduce::sum()
        .axis(weir_ops::math::Axes::All)
        .build(&weighted)?;
    let mut floats = weights;
    floats.extend([biases, inputs]);
    Ok(Built {
        graph: g,
        case: case.clone(),
        floats,
        loss,
        objective,
    })
}

/// A short description of a loss case.
pub fn label(case: &Value) -> String {
    format!(
        "{} num_true={} remove_hits={} shards={} {}",
        case["kind"],
        case["num_true"],
        case["remove_hits"],
        case["weights"].as_array().unwrap().len(),
        case["strategy"]
    )
}
