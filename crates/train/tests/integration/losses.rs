//! `weir_train::losses` against TensorFlow 2.21's `tf.compat.v1.losses`: every loss function x
//! weights (numbers, 0, a scalar tensor, broadcastable and non-broadcastable shapes) x every
//! reduction, the loss value and its gradient with respect to predictions/logits within 1e-5
//! relative, the loss tensor's name, the `losses` collection, TensorFlow's errors, and the
//! collection readers (tests/data/losses_metrics, made by make_losses_metrics.py there).

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{Code, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, constant_named};
use weir_session::Session;
use weir_train::gradients::gradients;
use weir_train::losses::{
    self, AbsoluteDifference, CosineDistance, GetTotalLoss, HingeLoss, HuberLoss, LogLoss,
    MeanPairwiseSquaredError, MeanSquaredError, Reduction, SigmoidCrossEntropy,
    SoftmaxCrossEntropy, SparseSoftmaxCrossEntropy, Weights,
};

fn expected() -> &'static Value {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/losses_metrics/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })
}

pub(crate) fn flat(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(flat).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap()],
        other => panic!("not a number: {other}"),
    }
}

pub(crate) fn assert_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (a, b) in got.iter().zip(want) {
        assert!(
            (a - b).abs() <= 1e-5 * b.abs() + 1e-6,
            "{what}: got {got:?}, TensorFlow {want:?}"
        );
    }
}

pub(crate) fn values(t: &Tensor) -> Vec<f64> {
    use weir_graph::DType;
    match t.dtype() {
        DType::F64 => t.to_vec::<f64>().unwrap(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::I64 => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|v| v as f64)
            .collect(),
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        dt => panic!("unexpected dtype {dt}"),
    }
}

fn t2(rows: &[&[f32]]) -> Tensor {
    let cols = rows[0].len();
    Tensor::from_vec(&[rows.len(), cols], rows.concat()).unwrap()
}

const LABELS: [&[f32]; 3] = [&[0., 1., 1., 0.], &[1., 0., 0.5, 1.], &[0.2, 0.8, 1., 0.]];
const BINARY: [&[f32]; 3] = [&[0., 1., 1., 0.], &[1., 0., 0., 1.], &[1., 1., 0., 0.]];
const PREDS: [&[f32]; 3] = [
    &[0.1, 0.8, 0.6, 0.3],
    &[0.9, 0.2, 0.4, 0.7],
    &[0.35, 0.55, 0.95, 0.05],
];
const LOGITS: [&[f32]; 3] = [
    &[1.5, -0.5, 0.3, 2.0],
    &[-1.2, 0.7, 0.1, -0.3],
    &[0.4, -2.2, 1.1, 0.9],
];

fn wide() -> Tensor {
    let v: Vec<f32> = PREDS.concat().iter().map(|p| p * 3.0 - 1.0).collect();
    Tensor::from_vec(&[3, 4], v).unwrap()
}

fn onehot() -> Tensor {
    let mut v = vec![0f32; 12];
    for (r, c) in [3usize, 1, 2].into_iter().enumerate() {
        v[r * 4 + c] = 1.0;
    }
    Tensor::from_vec(&[3, 4], v).unwrap()
}

/// The weights of case `name` as the script makes them: a number, or a tensor to make into a
/// constant (after the labels and predictions).
fn weights_of(name: &str) -> Option<std::result::Result<f64, Tensor>> {
    Some(match name {
        "default" => return None,
        "scalar" => Ok(2.5),
        "zero" => Ok(0.0),
        "tscalar" => Err(Tensor::scalar(0.5f32)),
        "col" => Err(t2(&[&[1.], &[0.], &[2.]])),
        "row" => Err(t2(&[&[1., 0., 0.5, 2.]])),
        "full" => Err(t2(&[
            &[1., 0., 2., 1.],
            &[0., 0., 0., 0.],
            &[0.5, 1., 1., 3.],
        ])),
        "bad_rank" => Err(Tensor::from(vec![1f32, 2., 3.])),
        "bad_dim" => Err(t2(&[&[1., 2.], &[3., 4.], &[5., 6.]])),
        "vec" => Err(Tensor::from(vec![1f32, 0., 2.])),
        "bad" => Err(Tensor::from(vec![1f32, 2., 3., 4.])),
        other => panic!("unknown weights {other}"),
    })
}

/// Applies the options every loss builder has.
macro_rules! opts {
    ($b:expr, $w:expr, $red:expr) => {{
        let mut b = $b;
        if let Some(w) = $w {
            b = b.weights(w);
        }
        if let Some(r) = $red {
            b = b.reduction(r);
        }
        b.build()
    }};
}

/// Builds case `loss/weights/reduction` in `g`; the loss and the tensor differentiated.
fn build_case(g: &Graph, loss: &str, wname: &str, red: &str) -> Result<(Output, Output)> {
    let (labels, x) = match loss {
        "log_loss" => (t2(&BINARY), t2(&PREDS)),
        "hinge_loss" | "sigmoid_cross_entropy" | "sigmoid_cross_entropy_smooth" => {
            (t2(&BINARY), t2(&LOGITS))
        }
        "huber_loss" | "huber_loss_delta" => (t2(&LABELS), wide()),
        "softmax_cross_entropy" | "softmax_cross_entropy_smooth" => (onehot(), t2(&LOGITS)),
        "sparse_softmax_cross_entropy" => (Tensor::from(vec![3i32, 1, 2]), t2(&LOGITS)),
        "sparse_softmax_cross_entropy_col" => (
            Tensor::from_vec(&[3, 1], vec![3i32, 1, 2]).unwrap(),
            t2(&LOGITS),
        ),
        _ => (t2(&LABELS), t2(&PREDS)),
    };
    let l = constant(g, labels)?;
    let x = constant(g, x)?;
    let w: Option<Weights> = match weights_of(wname) {
        None => None,
        Some(Ok(v)) => Some(v.into()),
        Some(Err(t)) => Some(constant(g, t)?.into()),
    };
    let r: Option<Reduction> = match red {
        "mean" => None,
        s => Some(s.parse()?),
    };
    let out = match loss {
        "absolute_difference" => opts!(AbsoluteDifference::new(&l, &x), w, r),
        "mean_squared_error" => opts!(MeanSquaredError::new(&l, &x), w, r),
        "huber_loss" => opts!(HuberLoss::new(&l, &x), w, r),
        "huber_loss_delta" => opts!(HuberLoss::new(&l, &x).delta(0.3), w, r),
        "log_loss" => opts!(LogLoss::new(&l, &x), w, r),
        "hinge_loss" => opts!(HingeLoss::new(&l, &x), w, r),
        "cosine_distance" => opts!(CosineDistance::new(&l, &x, 1), w, r),
        "sigmoid_cross_entropy" => opts!(SigmoidCrossEntropy::new(&l, &x), w, r),
        "sigmoid_cross_entropy_smooth" => {
            opts!(SigmoidCrossEntropy::new(&l, &x).label_smoothing(0.2), w, r)
        }
        "softmax_cross_entropy" => opts!(SoftmaxCrossEntropy::new(&l, &x), w, r),
        "softmax_cross_entropy_smooth" => {
            opts!(SoftmaxCrossEntropy::new(&l, &x).label_smoothing(0.1), w, r)
        }
        "sparse_softmax_cross_entropy" | "sparse_softmax_cross_entropy_col" => {
            opts!(SparseSoftmaxCrossEntropy::new(&l, &x), w, r)
        }
        "mean_pairwise_squared_error" => {
            let mut b = MeanPairwiseSquaredError::new(&l, &x);
            if let Some(w) = w {
                b = b.weights(w);
            }
            b.build()
        }
        other => panic!("unknown loss {other}"),
    }?;
    Ok((out, x))
}

#[test]
fn every_loss_weights_and_reduction_matches_tensorflow() {
    let cases = expected()["losses"].as_object().unwrap();
    let mut failures = Vec::new();
    for (key, want) in cases {
        let parts: Vec<&str> = key.split('/').collect();
        let g = Graph::new();
        let built = build_case(&g, parts[0], parts[1], parts[2]);
        if let Some(msg) = want.get("message") {
            match built {
                Err(e) => {
                    assert_eq!(e.code(), Code::InvalidArgument, "{key}: {e}");
                    let msg = msg.as_str().unwrap();
                    assert!(e.message().starts_with(msg), "{key}: {e} vs {msg}");
                }
                Ok(_) => failures.push(format!("{key}: built, TensorFlow refuses")),
            }
            continue;
        }
        let (loss, x) = built.unwrap_or_else(|e| panic!("{key}: {e}"));
        let grad = gradients(std::slice::from_ref(&loss), &[x], None).unwrap()[0]
            .clone()
            .unwrap();
        let s = Session::new(&g).unwrap();
        let out = s
            .run(&weir_session::RunArgs::new().fetch(&loss).fetch(&grad))
            .unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_close(
            &format!("{key} loss"),
            &values(&out[0]),
            &flat(&want["loss"]),
        );
        assert_close(
            &format!("{key} grad"),
            &values(&out[1]),
            &flat(&want["grad"]),
        );
        if loss.name() != want["name"].as_str().unwrap() {
            failures.push(format!("{key}: name {} vs {}", loss.name(), want["name"]));
        }
        let names: Vec<String> = losses::get_losses(&g, None, "losses")
            .iter()
            .map(Output::name)
            .collect();
        let want_names: Vec<String> = want["collection"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, want_names, "{key}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn collections_and_total_loss_match_tensorflow() {
    let want = &expected()["collections"];
    let g = Graph::new();
    let lab = constant(&g, t2(&LABELS)).unwrap();
    let pred = constant(&g, t2(&PREDS)).unwrap();
    let a = losses::absolute_difference(&lab, &pred).unwrap();
    let m = {
        let _s = g.name_scope("tower");
        MeanSquaredError::new(&lab, &pred)
            .weights(2.0)
            .build()
            .unwrap()
    };
    HuberLoss::new(&lab, &pred)
        .loss_collection(None)
        .build()
        .unwrap();
    let binary = constant(&g, t2(&BINARY)).unwrap();
    let c = LogLoss::new(&binary, &pred)
        .loss_collection(Some("custom"))
        .build()
        .unwrap();
    losses::add_loss(
        &constant_named(&g, 0.25f32, "extra").unwrap(),
        Some("losses"),
    )
    .unwrap();
    let reg1 = constant_named(&g, 0.5f32, "reg1").unwrap();
    let reg2 = constant_named(&g, 0.125f32, "reg2").unwrap();
    let no_reg = losses::get_regularization_loss(&g, None).unwrap();
    g.add_to_collection("regularization_losses", reg1).unwrap();
    g.add_to_collection("regularization_losses", reg2).unwrap();
    let total = losses::get_total_loss(&g, true).unwrap();
    let plain = GetTotalLoss::new()
        .add_regularization_losses(false)
        .name("plain")
        .build(&g)
        .unwrap();
    let reg = losses::get_regularization_loss(&g, None).unwrap();
    let e = GetTotalLoss::new().scope("nothing").build(&g).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(e.message(), want["empty_error"].as_str().unwrap());

    let names = |v: Vec<Output>| -> Vec<String> { v.iter().map(Output::name).collect() };
    let strs = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(losses::get_losses(&g, None, "losses")),
        strs(&want["losses"])
    );
    assert_eq!(
        names(losses::get_losses(&g, Some("tower"), "losses")),
        strs(&want["tower"])
    );
    assert_eq!(
        names(losses::get_losses(&g, None, "custom")),
        strs(&want["custom"])
    );
    assert_eq!(
        names(losses::get_regularization_losses(&g, None)),
        strs(&want["regularization"])
    );
    let want_names = strs(&want["names"]);
    // The first is a constant 0.0 whose name depends on how many constants came before.
    assert_eq!(
        [total.name(), plain.name(), reg.name()],
        want_names[1..],
        "total, plain, regularization"
    );
    let s = Session::new(&g).unwrap();
    let got: Vec<f64> = [a, m, c, no_reg, total, plain, reg]
        .iter()
        .map(|t| values(&s.eval(t).unwrap())[0])
        .collect();
    assert_close("collection values", &got, &flat(&want["values"]));
}
