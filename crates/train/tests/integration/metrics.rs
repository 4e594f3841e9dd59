//! `weir_train::metrics` against TensorFlow 2.21's `tf.compat.v1.metrics`: every streaming
//! metric, with and without weights, fed 3 batches through placeholders: the value before any
//! update (0), the update op's result and the value after batch 1 and after batch 3, within
//! 1e-5 relative; the local variables' names and collections; the value and update tensors'
//! names and the metrics/updates collections (tests/data/losses_metrics, made by
//! make_losses_metrics.py there).

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::placeholder;
use weir_ops::state::{
    collection_variables, global_variables, local_variables, local_variables_initializer,
    trainable_variables, Variable,
};
use weir_session::{RunArgs, Session};
use weir_train::metrics::{
    Accuracy, Auc, Curve, FalseNegatives, FalseNegativesAtThresholds, FalsePositives,
    FalsePositivesAtThresholds, Mean, MeanAbsoluteError, MeanIou, MeanPerClassAccuracy,
    MeanSquaredError, Precision, PrecisionAtThresholds, Recall, RecallAtThresholds,
    RootMeanSquaredError, SummationMethod, TrueNegatives, TrueNegativesAtThresholds, TruePositives,
    TruePositivesAtThresholds,
};

use super::losses::{assert_close, flat, values};

fn expected() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/losses_metrics/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One input array: its batches (the first axis) as tensors, and its dtype.
struct Batches {
    dtype: DType,
    batch_shape: Vec<usize>,
    batches: Vec<Tensor>,
}

fn batches(arr: &Value) -> Batches {
    let shape: Vec<usize> = arr["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let data = flat(&arr["data"]);
    let per: usize = shape[1..].iter().product();
    let dtype = match arr["dtype"].as_str().unwrap() {
        "float32" => DType::F32,
        "int64" => DType::I64,
        "int32" => DType::I32,
        other => panic!("dtype {other}"),
    };
    let batches = data
        .chunks(per)
        .map(|c| match dtype {
            DType::F32 => Tensor::from_vec(&shape[1..], c.iter().map(|&v| v as f32).collect()),
            DType::I64 => Tensor::from_vec(&shape[1..], c.iter().map(|&v| v as i64).collect()),
            _ => Tensor::from_vec(&shape[1..], c.iter().map(|&v| v as i32).collect()),
        })
        .collect::<Result<Vec<_>>>()
        .unwrap();
    Batches {
        dtype,
        batch_shape: shape[1..].to_vec(),
        batches,
    }
}

/// Applies the options every metric builder has.
macro_rules! opts {
    ($b:expr, $w:expr) => {{
        let mut b = $b.metrics_collections(&["mc"]).updates_collections(&["uc"]);
        if let Some(w) = $w {
            b = b.weights(w);
        }
        b.build()
    }};
}

/// Builds metric `name` (the case key without its `/weightedN`) on `x` (labels, predictions
/// or values) and optional weights, with the script's arguments.
fn build(name: &str, x: &[Output], w: Option<&Output>) -> Result<(Output, Output)> {
    let t3 = [0.25, 0.5, 0.75];
    match name {
        "mean" => opts!(Mean::new(&x[0]), w),
        "accuracy" => opts!(Accuracy::new(&x[0], &x[1]), w),
        "mean_absolute_error" => opts!(MeanAbsoluteError::new(&x[0], &x[1]), w),
        "mean_squared_error" => opts!(MeanSquaredError::new(&x[0], &x[1]), w),
        "root_mean_squared_error" => opts!(RootMeanSquaredError::new(&x[0], &x[1]), w),
        "true_positives" => opts!(TruePositives::new(&x[0], &x[1]), w),
        "false_positives" => opts!(FalsePositives::new(&x[0], &x[1]), w),
        "true_negatives" => opts!(TrueNegatives::new(&x[0], &x[1]), w),
        "false_negatives" => opts!(FalseNegatives::new(&x[0], &x[1]), w),
        "precision" => opts!(Precision::new(&x[0], &x[1]), w),
        "recall" => opts!(Recall::new(&x[0], &x[1]), w),
        "mean_iou" => opts!(MeanIou::new(&x[0], &x[1], 3), w),
        "mean_per_class_accuracy" => opts!(MeanPerClassAccuracy::new(&x[0], &x[1], 3), w),
        "auc" => opts!(Auc::new(&x[0], &x[1]), w),
        "auc_pr" => opts!(Auc::new(&x[0], &x[1]).curve(Curve::Pr), w),
        "auc_pr_careful" => opts!(
            Auc::new(&x[0], &x[1])
                .curve(Curve::Pr)
                .summation_method(SummationMethod::CarefulInterpolation),
            w
        ),
        "auc_minoring" => opts!(
            Auc::new(&x[0], &x[1]).summation_method("minoring".parse()?),
            w
        ),
        "auc_majoring" => opts!(
            Auc::new(&x[0], &x[1]).summation_method(SummationMethod::Majoring),
            w
        ),
        "auc_5" => opts!(Auc::new(&x[0], &x[1]).num_thresholds(5), w),
        "auc_thresholds" => opts!(Auc::new(&x[0], &x[1]).thresholds(&[0.6, 0.3]), w),
        "precision_at_thresholds" => opts!(PrecisionAtThresholds::new(&x[0], &x[1], &t3), w),
        "recall_at_thresholds" => opts!(RecallAtThresholds::new(&x[0], &x[1], &t3), w),
        "true_positives_at_thresholds" => {
            opts!(TruePositivesAtThresholds::new(&x[0], &x[1], &t3), w)
        }
        "false_positives_at_thresholds" => opts!(
            FalsePositivesAtThresholds::new(&x[0], &x[1], &[0.25, 0.5]),
            w
        ),
        "true_negatives_at_thresholds" => opts!(
            TrueNegativesAtThresholds::new(&x[0], &x[1], &[0.25, 0.5]),
            w
        ),
        "false_negatives_at_thresholds" => {
            opts!(FalseNegativesAtThresholds::new(&x[0], &x[1], &[0.5]), w)
        }
        other => panic!("unknown metric {other}"),
    }
}

fn names(vars: Vec<Variable>) -> Vec<String> {
    vars.iter().map(|v| format!("{}:0", v.name())).collect()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn tensor_names(g: &Graph, key: &str) -> Vec<String> {
    g.get_collection(key)
        .into_iter()
        .map(|item| match item {
            weir_graph::CollectionItem::Output(o) => o.name(),
            _ => panic!("{key} holds something other than a tensor"),
        })
        .collect()
}

#[test]
fn every_metric_over_three_batches_matches_tensorflow() {
    let all = expected();
    let arrays = &all["arrays"];
    let cases = all["metrics"].as_object().unwrap();
    assert!(cases.len() > 40);
    for (key, want) in cases {
        let name = key.split('/').next().unwrap();
        let g = Graph::new();
        let mut inputs: Vec<Batches> = want["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| batches(&arrays[n.as_str().unwrap()]))
            .collect();
        if let Some(w) = want["weights"].as_str() {
            inputs.push(batches(&arrays[w]));
        }
        let phs: Vec<Output> = inputs
            .iter()
            .map(|b| placeholder(&g, b.dtype, Shape::known(&b.batch_shape)).unwrap())
            .collect();
        let n_x = want["inputs"].as_array().unwrap().len();
        let w = want["weights"].as_str().map(|_| &phs[n_x]);
        let (value, update) = build(name, &phs[..n_x], w).unwrap_or_else(|e| panic!("{key}: {e}"));
        let s = Session::new(&g).unwrap();
        s.run_target(&local_variables_initializer(&g).unwrap())
            .unwrap();
        let check = |what: &str, t: &Output| -> Vec<f64> {
            values(&s.eval(t).unwrap_or_else(|e| panic!("{key} {what}: {e}")))
        };
        assert_close(
            &format!("{key} value0"),
            &check("value0", &value),
            &flat(&want["value0"]),
        );
        for i in 0..3 {
            let mut args = RunArgs::new().fetch(&update);
            for (ph, b) in phs.iter().zip(&inputs) {
                args = args.feed(ph, b.batches[i].clone());
            }
            let u = values(
                &s.run(&args)
                    .unwrap_or_else(|e| panic!("{key} batch {i}: {e}"))[0],
            );
            let v = check("value", &value);
            let step = if i == 0 { "1" } else { "3" };
            if i != 1 {
                assert_close(
                    &format!("{key} update{step}"),
                    &u,
                    &flat(&want[&format!("update{step}")]),
                );
                assert_close(
                    &format!("{key} value{step}"),
                    &v,
                    &flat(&want[&format!("value{step}")]),
                );
            }
        }
        assert_eq!(
            names(local_variables(&g).unwrap()),
            strs(&want["variables"]),
            "{key}"
        );
        assert_eq!(
            names(collection_variables(&g, "metric_variables").unwrap()),
            strs(&want["metric_variables"]),
            "{key}"
        );
        assert_eq!(trainable_variables(&g).unwrap().len(), 0, "{key}");
        assert_eq!(global_variables(&g).unwrap().len(), 0, "{key}");
        assert_eq!(value.name(), want["value_name"].as_str().unwrap(), "{key}");
        assert_eq!(
            update.name(),
            want["update_name"].as_str().unwrap(),
            "{key}"
        );
        assert_eq!(tensor_names(&g, "mc"), strs(&want["mc"]), "{key}");
        assert_eq!(tensor_names(&g, "uc"), strs(&want["uc"]), "{key}");
    }
}
