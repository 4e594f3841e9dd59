//! BiasAdd, BiasAddV1 and BiasAddGrad on every number type (NHWC and NCHW), MaxPool,
//! MaxPoolV2, MaxPoolGrad, MaxPoolGradV2, MaxPoolWithArgmax and MaxPoolGradWithArgmax on every
//! real type, Relu, Relu6 and their gradients on the integer types, TopKV2 on the half types,
//! Dilation2D and its backprops on the half types (integer sums wrapping), and explicit padding
//! in MaxPool, MaxPoolGrad, Conv2D, DepthwiseConv2dNative and their backprops, against
//! TensorFlow 2.21: every
//! case of tests/data/nn_dtypes/expected.json (made by make_nn_dtypes.py there) built from raw
//! ops and run here, bit for bit. Integer sums wrap as TensorFlow's do. Where TensorFlow
//! rejects a case, weir fails with InvalidArgument at the same stage (when the node is added,
//! or when it runs) and, for the messages TensorFlow's kernels and shape functions write, in
//! the same words.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::{AttrValue, Code, Error, Graph, Output, Tensor};
use weir_ops::array::constant;
use weir_session::Session;

use crate::binary_dtypes::data::{check, tensor};

fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nn_dtypes/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

fn attr(k: &str, v: &Value) -> AttrValue {
    match v {
        Value::Bool(x) => AttrValue::Bool(*x),
        Value::String(s) => AttrValue::Str(s.clone()),
        Value::Array(a) => AttrValue::Ints(a.iter().map(|x| x.as_i64().unwrap()).collect()),
        v => panic!("attr {k}: {v}"),
    }
}

/// Adds the case's op on constants; its outputs.
fn build(g: &Graph, case: &Value) -> weir_graph::Result<Vec<Output>> {
    let mut b = g.new_operation(case["op"].as_str().unwrap());
    for input in case["inputs"].as_array().unwrap() {
        b = b.input(constant(g, tensor(&input[1]))?);
    }
    for (k, v) in case["attrs"].as_object().unwrap() {
        b = b.attr(k, attr(k, v));
    }
    Ok(b.build()?.outputs())
}

/// Where weir failed, if it did.
enum Got {
    Value(Vec<Tensor>),
    Build(Error),
    Run(Error),
}

fn run(case: &Value) -> Got {
    let g = Graph::new();
    let ys = match build(&g, case) {
        Ok(ys) => ys,
        Err(e) => return Got::Build(e),
    };
    match Session::new(&g).and_then(|s| ys.iter().map(|y| s.eval(y)).collect()) {
        Ok(t) => Got::Value(t),
        Err(e) => Got::Run(e),
    }
}

/// TensorFlow's shape-function messages name the node as `'{{node X}} = X[...](...)'` where
/// weir names the op, or end there: the words around that must be the same.
fn same_message(weir: &str, tf: &str) -> bool {
    let Some((tf_head, tf_rest)) = tf.split_once(" for '") else {
        return weir == tf;
    };
    match weir.split_once(" for '") {
        Some((head, rest)) => {
            // weir may name the op without the input shapes.
            let tail = |s: &str| s.split_once("' with ").map(|(_, t)| t.to_string());
            tf_head == head && tail(rest).is_none_or(|t| tail(tf_rest) == Some(t))
        }
        None => weir == tf_head,
    }
}

fn outcome(case: &Value) -> Result<(), String> {
    let name = case["name"].as_str().unwrap();
    let err = case.get("error");
    match (run(case), err) {
        (Got::Value(ts), None) => match case.get("outputs") {
            // Ops with several outputs: each as recorded.
            Some(want) => {
                let want = want.as_array().unwrap();
                if ts.len() != want.len() {
                    return Err(format!(
                        "{name}: {} outputs, TensorFlow {}",
                        ts.len(),
                        want.len()
                    ));
                }
                ts.iter()
                    .zip(want)
                    .enumerate()
                    .try_for_each(|(i, (t, w))| check(&format!("{name}:{i}"), t, w, 0.0))
            }
            None => check(name, &ts[0], &case["output"], 0.0),
        },
        (Got::Build(e), Some(err)) | (Got::Run(e), Some(err))
            if e.code() != Code::InvalidArgument =>
        {
            Err(format!("{name}: TensorFlow fails with {err}, weir: {e}"))
        }
        (Got::Build(e), Some(err)) if err["stage"] == "build" => {
            let tf = err["message"].as_str().unwrap();
            // Type and attribute checks are worded by TensorFlow's Python layer; its shape
            // functions' words (the messages naming the node) must be weir's.
            let shape_fn = tf.contains(" for '{{node ");
            if shape_fn && !same_message(e.message(), tf) {
                return Err(format!(
                    "{name}: weir says {:?}, TensorFlow {tf:?}",
                    e.message()
                ));
            }
            Ok(())
        }
        (Got::Run(e), Some(err)) if err["stage"] == "run" => {
            let tf = err["message"].as_str().unwrap();
            if e.message() == tf {
                Ok(())
            } else {
                Err(format!(
                    "{name}: weir says {:?}, TensorFlow {tf:?}",
                    e.message()
                ))
            }
        }
        (Got::Value(_), Some(err)) => Err(format!("{name}: TensorFlow fails with {err}")),
        (Got::Build(e), err) => Err(format!("{name}: weir fails adding the node: {e} ({err:?})")),
        (Got::Run(e), err) => Err(format!("{name}: weir fails running: {e} ({err:?})")),
    }
}

#[test]
fn every_case_matches_tensorflow() {
    let failures: Vec<String> = cases().iter().filter_map(|c| outcome(c).err()).collect();
    assert!(cases().len() >= 545, "{} cases", cases().len());
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases().len(),
        failures.join("\n")
    );
}

/// The builders set what the raw cases set: `BiasAdd::data_format` and the int pools.
#[test]
fn builders_take_data_format_and_integer_pools() -> weir_graph::Result<()> {
    use weir_ops::nn::{max_pool, BiasAdd, Padding};
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[1, 2, 2, 2], vec![1u8, 2, 3, 4, 5, 6, 7, 8])?,
    )?;
    let nchw = BiasAdd::new().data_format("NCHW");
    let y = nchw.build(&x, constant(&g, Tensor::from(vec![250u8, 1]))?)?;
    let db = nchw.grad(&y)?;
    let pooled = max_pool(&x, [1, 2, 2, 1], [1, 1, 1, 1], Padding::Valid)?;
    let s = Session::new(&g)?;
    assert_eq!(
        s.eval(&y)?.to_vec::<u8>()?,
        vec![251, 252, 253, 254, 6, 7, 8, 9]
    );
    // 251 + 252 + 253 + 254 = 1010 wraps to 1010 - 3 * 256.
    assert_eq!(s.eval(&db)?.to_vec::<u8>()?, vec![242, 30]);
    assert_eq!(s.eval(&pooled)?.to_vec::<u8>()?, vec![7, 8]);
    let e = BiasAdd::new()
        .data_format("NCDHW")
        .build(&x, constant(&g, [1u8, 2])?);
    assert_eq!(e.unwrap_err().code(), Code::InvalidArgument);
    Ok(())
}
