//! The gradient of `BatchNormWithGlobalNormalization` against TensorFlow 2.21's `tf.gradients`
//! (with a fixed `grad_ys`) of the op with respect to all five of its inputs, in float16,
//! float32 and float64, with and without `scale_after_normalization`: the "bn_gradients" cases
//! of crates/ops/tests/data/small_ops_tf1/expected.json (made by make_small_ops_tf1.py
//! there, on a GraphDef of producer version 8, since TensorFlow 2.21's Python no longer builds
//! the deprecated op). Values compare bit for bit, except the case over 9 float32 channels
//! (within its recorded `ulps`: TensorFlow estimates float's packet-path `rsqrt` in hardware).

use std::sync::OnceLock;

use crate::tf_tensors::{compare, tensor};
use serde_json::Value;
use weir_graph::{Graph, Output, Result};
use weir_ops::array::constant;
use weir_ops::nn::BatchNormWithGlobalNormalization;
use weir_session::{RunArgs, Session};
use weir_train::gradients::gradients;

fn cases() -> Vec<&'static Value> {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../ops/tests/data/small_ops_tf1/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "bn_gradients")
        .collect()
}

fn check(c: &Value) -> Result<()> {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let xs = c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| constant(&g, tensor(v)))
        .collect::<Result<Vec<Output>>>()?;
    let a = &c["attrs"];
    let y = BatchNormWithGlobalNormalization::new(
        a["variance_epsilon"].as_f64().unwrap() as f32,
        a["scale_after_normalization"].as_bool().unwrap(),
    )
    .build(&xs[0], &xs[1], &xs[2], &xs[3], &xs[4])?;
    let gy = constant(&g, tensor(&c["grad_ys"]))?;
    let grads = gradients(std::slice::from_ref(&y), &xs, Some(&[gy]))?;
    let mut args = RunArgs::new().fetch(&y);
    for (k, d) in grads.iter().enumerate() {
        let d = d
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no gradient for input {k}"));
        // One backward node, as TensorFlow's gradient function builds.
        assert_eq!(
            d.op().op_type(),
            "BatchNormWithGlobalNormalizationGrad",
            "{name}"
        );
        args = args.fetch(d);
    }
    assert!(c["op_types"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t == "BatchNormWithGlobalNormalizationGrad"));
    let got = Session::new(&g)?.run(&args)?;
    let ulps = c["ulps"].as_f64().unwrap();
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    let what = ["value", "dt", "dm", "dv", "dbeta", "dgamma"];
    for ((v, w), what) in got.iter().zip(want).zip(what) {
        compare(&format!("{name}: {what}"), v, w, ulps);
    }
    Ok(())
}

#[test]
fn batch_norm_with_global_normalization_gradients_match_tensorflow() {
    let cases = cases();
    assert_eq!(cases.len(), 8, "bn_gradients cases");
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|c| match std::panic::catch_unwind(|| check(c)) {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("{}: {e}", c["name"])),
            Err(_) => Some(format!("{}: differs", c["name"])),
        })
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
