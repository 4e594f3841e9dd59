//! The small TF1 ops against TensorFlow 2.21: `DataFormatDimMap`, `DataFormatVecPermute`, the
//! inplace ops (`InplaceUpdate`/`Add`/`Sub`, `DeepCopy`, the `inplace_ops` helpers),
//! `ParallelConcat` (`tf.parallel_stack`) and `BatchNormWithGlobalNormalization` with its Grad
//! op. Every case of tests/data/small_ops_tf1/expected.json (made by make_small_ops_tf1.py
//! there) runs here but the `tf.gradients` ones (weir-train's batch_norm_global_grad.rs):
//! values bit for bit (a case's `ulps` loosens that, for float32 batch norm over 8 channels
//! or more, where TensorFlow estimates `rsqrt` in hardware), static shapes, node names, and
//! errors with TensorFlow's code and message. TensorFlow's Python-side build errors
//! (ValueError, TypeError) must be InvalidArguments of weir's builder or run with the same
//! message up to TensorFlow's node suffix.

use std::sync::OnceLock;

use serde_json::Value;
use weir_graph::graph_def::{parse_text, ImportGraphDef};
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{
    constant, deep_copy, parallel_concat, parallel_stack, placeholder, Inplace, InplaceOp,
};
use weir_ops::nn::DataFormat;
use weir_ops::nn::{batch_norm_with_global_normalization, BatchNormWithGlobalNormalization};
use weir_session::{RunArgs, Session};

use super::binary_dtypes::data;
use super::dtypes_util::normalized_message;
use super::io_util::shape_of;

fn cases() -> &'static [Value] {
    static E: OnceLock<Value> = OnceLock::new();
    E.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/small_ops_tf1/expected.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    })["cases"]
        .as_array()
        .unwrap()
}

/// A recorded tensor; strings as their text.
fn tensor(v: &Value) -> Tensor {
    if v["dtype"] == "string" {
        let shape: Vec<usize> = v["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let vals = v["values"].as_array().unwrap();
        let strings = vals
            .iter()
            .map(|s| Bytes::from(s.as_str().unwrap().as_bytes().to_vec()))
            .collect();
        return Tensor::from_vec(&shape, strings).unwrap();
    }
    data::tensor(v)
}

fn compare(name: &str, got: &Tensor, want: &Value, ulps: f64) {
    if want["dtype"] == "string" {
        assert_eq!(got.dtype(), DType::String, "{name}");
        let w = tensor(want);
        assert_eq!(got.shape(), w.shape(), "{name}: shape");
        assert_eq!(
            got.as_slice::<Bytes>().unwrap(),
            w.as_slice::<Bytes>().unwrap(),
            "{name}"
        );
        return;
    }
    data::compare(name, got, want, ulps);
}

/// The case's inputs: constants, or placeholders of unknown shape fed the values.
fn sources(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Vec<Output> {
    let unknown = c.get("unknown_shape").is_some();
    c["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let t = tensor(v);
            if unknown {
                let p = placeholder(g, t.dtype(), Shape::unknown()).unwrap();
                feeds.push((p.clone(), t));
                p
            } else {
                constant(g, t).unwrap()
            }
        })
        .collect()
}

fn inplace_op(name: &str) -> InplaceOp {
    match name {
        "InplaceUpdate" | "inplace_update" | "alias_inplace_update" => InplaceOp::Update,
        "InplaceAdd" | "inplace_add" | "alias_inplace_add" => InplaceOp::Add,
        _ => InplaceOp::Sub,
    }
}

fn formats(c: &Value) -> DataFormat {
    let a = &c["attrs"];
    let mut f = DataFormat::new();
    if let Some(s) = a.get("src_format") {
        f = f.src_format(s.as_str().unwrap());
    }
    if let Some(d) = a.get("dst_format") {
        f = f.dst_format(d.as_str().unwrap());
    }
    f
}

/// The case's graph on `x`, the way its builder function makes it.
fn build(c: &Value, x: &[Output]) -> Result<Vec<Output>> {
    let one = |o: Result<Output>| o.map(|o| vec![o]);
    match c["kind"].as_str().unwrap() {
        "dim_map" => one(formats(c).dim_map(&x[0])),
        "vec_permute" => one(formats(c).vec_permute(&x[0])),
        "inplace" => one(inplace_op(c["op"].as_str().unwrap()).build(&x[0], &x[1], &x[2])),
        "deep_copy" => one(deep_copy(&x[0])),
        "inplace_helper" => {
            let f = c["fn"].as_str().unwrap();
            let helper = Inplace::new(inplace_op(f)).alias(f.starts_with("alias"));
            one(match x {
                [x, v] => helper.build(x, None, v),
                _ => helper.build(&x[0], Some(x[1].clone()), &x[2]),
            })
        }
        "parallel_stack" => one(parallel_stack(x)),
        "parallel_concat" => one(parallel_concat(x, shape_of(&c["shape"]))),
        "bn_composite" => one(batch_norm_with_global_normalization(
            &x[0],
            &x[1],
            &x[2],
            &x[3],
            &x[4],
            c["variance_epsilon"].as_f64().unwrap(),
            c["scale_after_normalization"].as_bool().unwrap(),
        )),
        "bn_op" => {
            let a = &c["attrs"];
            let op = BatchNormWithGlobalNormalization::new(
                a["variance_epsilon"].as_f64().unwrap() as f32,
                a["scale_after_normalization"].as_bool().unwrap(),
            )
            .name("op");
            if c["op"] == "BatchNormWithGlobalNormalization" {
                one(op.build(&x[0], &x[1], &x[2], &x[3], &x[4]))
            } else {
                op.grad(&x[0], &x[1], &x[2], &x[3], &x[4])
            }
        }
        other => panic!("unknown kind {other}"),
    }
}

/// Where weir's message deliberately differs: weir-graph's op-def check names a refused
/// dtype with TensorFlow's C++ name (`float`), TensorFlow's Python with its Python one.
const DIFFERENT: &[(&str, &str)] = &[(
    "dim_map_float_input",
    "Value passed to parameter 'x' has DataType float not in list of allowed values: int32, \
     int64",
)];

fn check_error(name: &str, e: &Error, want: &Value) {
    assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
    if let Some((_, msg)) = DIFFERENT.iter().find(|(n, _)| *n == name) {
        return assert_eq!(e.message(), *msg, "{name}");
    }
    let want_msg = want["message"].as_str().unwrap();
    let got = if want["stage"] == "build" {
        e.message().split(" for '").next().unwrap().to_string()
    } else {
        normalized_message(e.message())
    };
    assert_eq!(got, normalized_message(want_msg), "{name}");
}

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let x = sources(&g, c, &mut feeds);
    let built = build(c, &x);
    let want_err = c.get("error");
    let outs = match (built, want_err) {
        (Ok(o), _) => o,
        (Err(e), Some(w)) if w["stage"] == "build" => return check_error(name, &e, w),
        (Err(e), _) => panic!("{name}: weir fails to build: {e}"),
    };
    if let Some(shapes) = c.get("static_shapes").filter(|_| want_err.is_none()) {
        for (k, (o, s)) in outs.iter().zip(shapes.as_array().unwrap()).enumerate() {
            assert_eq!(o.shape(), shape_of(s), "{name}: static shape of output {k}");
        }
    }
    if let Some(names) = c.get("names").filter(|_| c["kind"] != "inplace_helper") {
        let got: Vec<String> = outs.iter().map(Output::name).collect();
        assert_eq!(got, names.as_array().unwrap().to_vec(), "{name}: names");
    }
    let mut args = RunArgs::new();
    for o in &outs {
        args = args.fetch(o);
    }
    for (p, v) in feeds {
        args = args.feed(&p, v);
    }
    let ran = Session::new(&g).and_then(|s| s.run(&args));
    match (ran, want_err) {
        (Err(e), Some(w)) => check_error(name, &e, w),
        (Ok(v), Some(w)) => panic!("{name}: got {v:?}, TensorFlow fails with {w}"),
        (Err(e), None) => panic!("{name}: {e}"),
        (Ok(vals), None) => {
            let want = c["outputs"].as_array().unwrap();
            assert_eq!(vals.len(), want.len(), "{name}: outputs");
            let ulps = c.get("ulps").and_then(Value::as_f64).unwrap_or(0.0);
            for (k, (v, w)) in vals.iter().zip(want).enumerate() {
                compare(&format!("{name} output {k}"), v, w, ulps);
            }
        }
    }
}

/// Runs the cases whose kind is one of `kinds`, reporting every one that differs.
fn check_kinds(kinds: &[&str]) {
    let picked: Vec<&Value> = cases()
        .iter()
        .filter(|c| kinds.contains(&c["kind"].as_str().unwrap()))
        .collect();
    assert!(!picked.is_empty(), "no cases of {kinds:?}");
    let failed: Vec<&str> = picked
        .iter()
        .filter(|c| std::panic::catch_unwind(|| check(c)).is_err())
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases differ from TensorFlow: {failed:?}",
        failed.len(),
        picked.len()
    );
}

#[test]
fn data_format_ops_match_tensorflow() {
    check_kinds(&["dim_map", "vec_permute"]);
}

#[test]
fn inplace_ops_match_tensorflow() {
    check_kinds(&["inplace", "deep_copy", "inplace_helper"]);
}

#[test]
fn parallel_concat_matches_tensorflow() {
    check_kinds(&["parallel_stack", "parallel_concat"]);
}

#[test]
fn batch_norm_with_global_normalization_matches_tensorflow() {
    check_kinds(&["bn_op", "bn_composite"]);
}

#[test]
fn old_graph_def_imports_and_runs_like_tensorflow() {
    // A producer-8 GraphDef with every op here, the DataFormat ops' default attrs left out.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/small_ops_tf1");
    let text = std::fs::read_to_string(dir.join("small_ops_graph.pbtxt")).unwrap();
    let def = parse_text(&text).unwrap();
    let g = Graph::new();
    weir_ops::import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
    let c = cases().iter().find(|c| c["kind"] == "graph_def").unwrap();
    let mut args = RunArgs::new();
    for f in c["fetches"].as_array().unwrap() {
        args = args.fetch_name(f.as_str().unwrap());
    }
    let got = Session::new(&g).unwrap().run(&args).unwrap();
    for ((v, w), f) in got
        .iter()
        .zip(c["outputs"].as_array().unwrap())
        .zip(c["fetches"].as_array().unwrap())
    {
        compare(f.as_str().unwrap(), v, w, 0.0);
    }
}

#[test]
fn inplace_ops_leave_their_input_alone() {
    // TensorFlow's kernels alias x; weir's leave a tensor others hold untouched.
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap()).unwrap();
    let v = constant(&g, Tensor::from_vec(&[1, 2], vec![10i32, 20]).unwrap()).unwrap();
    let i = constant(&g, Tensor::from(vec![1i32])).unwrap();
    let y = InplaceOp::Add.build(&x, &i, &v).unwrap();
    let out = Session::new(&g)
        .unwrap()
        .run(&RunArgs::new().fetch(&x).fetch(&y))
        .unwrap();
    assert_eq!(out[0].to_vec::<i32>().unwrap(), [1, 2, 3, 4]);
    assert_eq!(out[1].to_vec::<i32>().unwrap(), [1, 2, 13, 24]);
}

#[test]
fn parallel_concat_zero_fills_rows_past_its_inputs() {
    // TensorFlow leaves those rows uninitialized; weir zeroes them.
    let g = Graph::new();
    let a = constant(&g, Tensor::from_vec(&[1, 2], vec![1.5f32, 2.5]).unwrap()).unwrap();
    let y = parallel_concat(&[a], Shape::known(&[3, 2])).unwrap();
    assert_eq!(y.shape(), Shape::known(&[3, 2]));
    let v = Session::new(&g).unwrap().eval(&y).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), [1.5, 2.5, 0.0, 0.0, 0.0, 0.0]);
}
