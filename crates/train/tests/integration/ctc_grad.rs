//! The gradient of `tf.compat.v1.nn.ctc_loss` against TensorFlow 2.21's `tf.gradients` (every
//! loss case of crates/ops/tests/data/ctc/expected.json, with its fixed `grad_ys`) and against
//! weir's numeric gradient checker, and its `PreventGradient` guard against second derivatives.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::CtcLoss;
use weir_ops::sparse::SparseOutput;
use weir_session::Session;
use weir_train::gradients::check::gradient_error;
use weir_train::gradients::gradients;

fn cases() -> Vec<Value> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../ops/tests/data/ctc/expected.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let all: Vec<Value> = serde_json::from_str(&text).unwrap();
    all.into_iter()
        .filter(|c| c["fn"] == "ctc_loss" && c.get("grad_inputs").is_some())
        .collect()
}

/// A recorded tensor: `{dtype, dims, values}`, floats as their bit patterns.
fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &dims,
            vals.iter()
                .map(|x| f32::from_bits(x.as_u64().unwrap() as u32))
                .collect(),
        ),
        "float64" => Tensor::from_vec(
            &dims,
            vals.iter()
                .map(|x| f64::from_bits(x.as_u64().unwrap()))
                .collect(),
        ),
        "int32" => Tensor::from_vec(
            &dims,
            vals.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
        ),
        "int64" => Tensor::from_vec(&dims, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn floats(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect(),
        _ => t.to_vec::<f64>().unwrap(),
    }
}

/// The case's loss of the logits `x` (a constant, or a placeholder when `feedable`).
fn loss_of(g: &Graph, c: &Value, feedable: bool) -> (Output, Output) {
    let inputs = &c["inputs"];
    let k = |name: &str| constant(g, tensor(&inputs[name])).unwrap();
    let logits = tensor(&inputs["logits"]);
    let x = if feedable {
        placeholder(g, logits.dtype(), Shape::known(logits.shape())).unwrap()
    } else {
        constant(g, logits).unwrap()
    };
    let labels =
        SparseOutput::new(k("labels_indices"), k("labels_values"), k("labels_shape")).unwrap();
    let a = &c["attrs"];
    let flag = |n: &str| a[n].as_bool().unwrap();
    let loss = CtcLoss::new()
        .preprocess_collapse_repeated(flag("preprocess_collapse_repeated"))
        .ctc_merge_repeated(flag("ctc_merge_repeated"))
        .ignore_longer_outputs_than_inputs(flag("ignore_longer_outputs_than_inputs"))
        .time_major(flag("time_major"))
        .build(&labels, &x, k("sequence_length"))
        .unwrap();
    (x, loss)
}

/// Bit for bit: the op's own gradient output matches TensorFlow's exactly (see
/// crates/ops/tests/integration/ctc.rs), and the backward graph only scales it by `grad_ys`.
#[test]
fn ctc_loss_gradient_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() >= 15, "only {} cases", cases.len());
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let (x, loss) = loss_of(&g, c, false);
        let gy = constant(&g, tensor(&c["grad_ys"])).unwrap();
        let dx = gradients(&[loss], &[x], Some(&[gy]))
            .unwrap()
            .remove(0)
            .unwrap();
        let got = Session::new(&g).unwrap().eval(&dx).unwrap();
        let want = tensor(&c["grad_inputs"]);
        assert_eq!(got.shape(), want.shape(), "{name}");
        for (i, (a, b)) in floats(&got).iter().zip(floats(&want)).enumerate() {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{name}[{i}]: {a} vs TensorFlow's {b}"
            );
        }
    }
}

/// Central differences of the loss. TensorFlow's log-sum-exp runs through float32
/// `log1pf(expf(.))` even for float64 logits, so a float64 loss over several steps is a
/// staircase with float32 steps (~1e-8 at these magnitudes), which a 1e-6 difference step turns
/// into errors of up to a few 1e-2; float32 (step 1e-3) sees float32 rounding of the loss over
/// 2e-3. Both bounds are far below the gradient's own size (entries up to ~1), so a wrong
/// gradient still fails. A single step has only one path per label, no rounded log-sum-exp,
/// and gets the tight float64 bound.
#[test]
fn ctc_loss_gradient_matches_central_differences() {
    let mut n = 0;
    for c in cases() {
        let name = c["name"].as_str().unwrap();
        let g = Graph::new();
        let (x, loss) = loss_of(&g, &c, true);
        let value = tensor(&c["inputs"]["logits"]);
        let bound = if value.dtype() == DType::F64 {
            5e-2
        } else {
            2e-2
        };
        if floats(&tensor(&c["outputs"][0]))
            .iter()
            .any(|v| !v.is_finite())
        {
            continue;
        }
        let err = gradient_error(&x, &value, &loss, &[]).unwrap();
        assert!(err < bound, "{name}: off by {err}");
        n += 1;
    }
    assert!(n >= 12, "only {n} numeric checks");
}

/// TensorFlow builds the gradient as `expand_dims(grad, -1) * prevent_gradient(gradient)`, and
/// differentiating it again fails with the prevent_gradient's message.
#[test]
fn ctc_loss_has_no_second_derivative() {
    let c = &cases()[0];
    let g = Graph::new();
    let (x, loss) = loss_of(&g, c, false);
    let dx = gradients(&[loss], std::slice::from_ref(&x), None)
        .unwrap()
        .remove(0)
        .unwrap();
    let types: Vec<String> = g
        .operations()
        .iter()
        .filter(|o| o.name().starts_with("gradients/"))
        .map(|o| o.op_type())
        .collect();
    for t in ["PreventGradient", "ExpandDims", "Mul"] {
        assert!(types.iter().any(|x| x == t), "no {t} in {types:?}");
    }
    let dx_value = Session::new(&g).unwrap().eval(&dx).unwrap();
    assert!(floats(&dx_value).iter().all(|v| v.is_finite()));
    let e = gradients(&[dx], &[x], None).unwrap_err();
    assert!(
        e.message().contains(
            "Gradient explicitly disabled. Reason: Currently there is no way to take the \
             second  derivative of ctc_loss due to the fused implementation's interaction  \
             with tf.gradients()"
        ),
        "{e}"
    );
}

/// TensorFlow declares the decoders not differentiable: their outputs pass no gradient back
/// (rather than failing for want of a gradient function).
#[test]
fn ctc_decoders_pass_no_gradient() {
    use weir_ops::nn::{ctc_beam_search_decoder, ctc_greedy_decoder};
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[2, 1, 3], vec![0.5f32, 0.1, 0.2, 0.3, 0.9, 0.1]).unwrap(),
    )
    .unwrap();
    let seq = constant(&g, vec![2i32]).unwrap();
    let (_, greedy) = ctc_greedy_decoder(&x, &seq, true).unwrap();
    let (_, beam) = ctc_beam_search_decoder(&x, &seq, 4, 2, true).unwrap();
    for y in [greedy, beam] {
        let d = gradients(&[y], std::slice::from_ref(&x), None).unwrap();
        assert!(d[0].is_none());
    }
}
