//! `ParseSequenceExample` (`tf.io.parse_sequence_example`) against TensorFlow 2.21
//! (tests/data/parse_sequence_batch/expected.json, written by make_parse_sequence_batch.py
//! there): context features, padded feature lists and their lengths, sparse feature lists,
//! static shapes, and error codes and messages for batches of 0, 1 and 3 examples and scalar
//! input. Messages are compared before TensorFlow's " for '{{node ...}}'" suffix.

use serde_json::Value;
use weir_graph::{Bytes, DType, Error, Graph, Output, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::parsing::{
    Features, FixedLenFeature, FixedLenSequenceFeature, ParseSequenceExample, ParsedFeature,
    ParsedFeatures, VarLenFeature,
};
use weir_session::Session;

use crate::io_util::{b64, check_all_cases, expect_same_outcome, fetch_and_feed, shape_of, usizes};

fn cases() -> Vec<Value> {
    crate::io_util::expected_cases("parse_sequence_batch")
}

fn dtype_named(s: &Value) -> DType {
    match s.as_str().unwrap() {
        "int64" => DType::I64,
        "float32" => DType::F32,
        "string" => DType::String,
        other => panic!("dtype {other}"),
    }
}

fn flat(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| flat(x, out)),
        x => out.push(x.clone()),
    }
}

/// A tensor of `dtype` and `dims` from JSON values (strings base64; floats as numbers).
fn tensor(dtype: DType, dims: &[usize], v: &Value) -> Tensor {
    let mut vals = Vec::new();
    flat(v, &mut vals);
    match dtype {
        DType::I64 => Tensor::from_vec(dims, vals.iter().map(|x| x.as_i64().unwrap()).collect()),
        DType::F32 => Tensor::from_vec(
            dims,
            vals.iter().map(|x| x.as_f64().unwrap() as f32).collect(),
        ),
        _ => Tensor::from_vec(
            dims,
            vals.iter()
                .map(|x| Bytes::from(b64(x.as_str().unwrap())))
                .collect(),
        ),
    }
    .unwrap()
}

fn features(specs: &Value) -> Features {
    let mut f = Features::new();
    for s in specs.as_array().unwrap() {
        let key = s["key"].as_str().unwrap();
        let dtype = dtype_named(&s["dtype"]);
        f = match s["kind"].as_str().unwrap() {
            "var" => f.add(key, VarLenFeature::new(dtype)),
            "fixed" => {
                let shape = usizes(&s["shape"]);
                let mut x = FixedLenFeature::new(&shape, dtype);
                if let Some(d) = s.get("default") {
                    x = x.default(tensor(dtype, &shape, d));
                }
                f.add(key, x)
            }
            _ => {
                let mut x = FixedLenSequenceFeature::new(&usizes(&s["shape"]), dtype)
                    .allow_missing(s["allow_missing"].as_bool().unwrap());
                if let Some(d) = s.get("default") {
                    x = x.default(tensor(dtype, &[], d));
                }
                f.add(key, x)
            }
        };
    }
    f
}

/// The three parsed dicts, flattened in key order: each dense output, or a sparse feature's
/// indices, values and dense_shape.
fn outputs(parsed: &[ParsedFeatures; 3]) -> Vec<Output> {
    let mut outs = Vec::new();
    for p in parsed {
        for (_, f) in p.iter() {
            match f {
                ParsedFeature::Dense(o) => outs.push(o.clone()),
                ParsedFeature::Sparse(s) => {
                    outs.extend([s.indices.clone(), s.values.clone(), s.dense_shape.clone()])
                }
            }
        }
    }
    outs
}

fn build(
    g: &Graph,
    c: &Value,
    feeds: &mut Vec<(Output, Tensor)>,
) -> Result<[ParsedFeatures; 3], Error> {
    let s = &c["serialized"];
    let value = tensor(DType::String, &usizes(&s["dims"]), &s["values"]);
    let ser = match s.get("shape") {
        None => constant(g, value).unwrap(),
        Some(shape) => {
            let p = placeholder(g, DType::String, shape_of(shape)).unwrap();
            feeds.push((p.clone(), value));
            p
        }
    };
    let mut op = ParseSequenceExample::new().name("ParseSequenceExample");
    if let Some(names) = c.get("example_names") {
        let names: Vec<Bytes> = names
            .as_array()
            .unwrap()
            .iter()
            .map(|n| Bytes::from(n.as_str().unwrap().to_string()))
            .collect();
        op = op.example_names(constant(g, Tensor::from(names)).unwrap());
    }
    let (a, b, l) = op.build(&ser, &features(&c["context"]), &features(&c["sequence"]))?;
    Ok([a, b, l])
}

/// The recorded static shapes (or values), flattened like [`outputs`].
fn flatten_recorded(groups: &Value, sparse_parts: &[&str]) -> Vec<Value> {
    let mut out = Vec::new();
    for g in groups.as_array().unwrap() {
        for (_, v) in g.as_object().unwrap() {
            match v {
                Value::Object(m) if m.contains_key("indices") => {
                    out.extend(sparse_parts.iter().map(|p| m[*p].clone()))
                }
                Value::Array(a) if sparse_parts.is_empty() && a.len() == 3 && a[0].is_array() => {
                    out.extend(a.iter().cloned())
                }
                x => out.push(x.clone()),
            }
        }
    }
    out
}

fn check_value(name: &str, got: &Tensor, want: &Value) {
    let dims = usizes(&want["dims"]);
    assert_eq!(got.shape(), &dims[..], "{name}: shape");
    let vals = want["values"].as_array().unwrap();
    match got.dtype() {
        DType::I64 => {
            let w: Vec<i64> = vals.iter().map(|x| x.as_i64().unwrap()).collect();
            assert_eq!(got.as_slice::<i64>().unwrap(), &w[..], "{name}");
        }
        DType::F32 => {
            let w: Vec<u32> = vals.iter().map(|x| x.as_u64().unwrap() as u32).collect();
            let g: Vec<u32> = got
                .as_slice::<f32>()
                .unwrap()
                .iter()
                .map(|f| f.to_bits())
                .collect();
            assert_eq!(g, w, "{name}");
        }
        _ => {
            let w: Vec<Vec<u8>> = vals.iter().map(|x| b64(x.as_str().unwrap())).collect();
            let g: Vec<Vec<u8>> = got
                .as_slice::<Bytes>()
                .unwrap()
                .iter()
                .map(|b| b.to_vec())
                .collect();
            assert_eq!(g, w, "{name}");
        }
    }
}

/// Runs one case; returns whether it ended in an error (at build or run time).
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, c, &mut feeds);
    let Some(parsed) = expect_same_outcome(
        name,
        built,
        c.get("build_error"),
        crate::io_util::check_tf_error,
    ) else {
        return true;
    };
    let outs = outputs(&parsed);
    let shapes = flatten_recorded(&c["static"], &[]);
    assert_eq!(outs.len(), shapes.len(), "{name}: outputs");
    for (o, s) in outs.iter().zip(&shapes) {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape");
    }
    let ran = Session::new(&g).unwrap().run(&fetch_and_feed(&outs, feeds));
    let Some(got) = expect_same_outcome(name, ran, c.get("error"), crate::io_util::check_tf_error)
    else {
        return true;
    };
    let want = flatten_recorded(&c["outputs"], &["indices", "values", "dense_shape"]);
    assert_eq!(got.len(), want.len(), "{name}: fetched");
    for (i, (t, w)) in got.iter().zip(&want).enumerate() {
        check_value(&format!("{name} output {i}"), t, w);
    }
    false
}

#[test]
fn every_case_matches_tensorflow() {
    let cases = cases();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    check_all_cases(&cases, run_case);
}

/// A batch parses as its examples do one at a time with `parse_single_sequence_example`, padded
/// to the longest: the batched and single parsers share their reading of an example.
#[test]
fn batch_rows_match_single_example_parses() {
    let c = cases()
        .into_iter()
        .find(|c| c["name"] == "batch3_all_kinds")
        .unwrap();
    let g = Graph::new();
    let ctx = features(&c["context"]);
    let seq = features(&c["sequence"]);
    let records: Vec<Bytes> = c["serialized"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Bytes::from(b64(s.as_str().unwrap())))
        .collect();
    let all = constant(&g, Tensor::from(records.clone())).unwrap();
    let (_, batch_seq, lengths) =
        weir_ops::parsing::parse_sequence_example(&all, &ctx, &seq).unwrap();
    let sess = Session::new(&g).unwrap();
    let run = |o: &Output| sess.run(&fetch_and_feed([o], vec![])).unwrap().remove(0);
    let padded = run(&batch_seq.dense("vec").unwrap());
    let lens = run(&lengths.dense("vec").unwrap());
    let t_max = padded.shape()[1];
    for (e, r) in records.iter().enumerate() {
        let one = constant(&g, Tensor::scalar(r.clone())).unwrap();
        let (_, s) = weir_ops::parsing::parse_single_sequence_example(&one, &ctx, &seq).unwrap();
        let single = run(&s.dense("vec").unwrap());
        let rows = single.shape()[0];
        assert_eq!(lens.as_slice::<i64>().unwrap()[e], rows as i64);
        let row = &padded.as_slice::<f32>().unwrap()[e * t_max * 2..(e + 1) * t_max * 2];
        assert_eq!(&row[..rows * 2], single.as_slice::<f32>().unwrap());
        assert!(row[rows * 2..].iter().all(|&x| x == 0.0));
    }
}

/// The exported node is TensorFlow's own `ParseSequenceExample` with exactly the attrs of its
/// OpDef in TensorFlow 2.21 (listed from `op_def_registry.get('ParseSequenceExample')`), so
/// TensorFlow imports and runs it as it is (checked by hand: `tf.import_graph_def` of such a
/// graph parses two examples as weir does).
#[test]
fn the_op_exports_as_tensorflows_parse_sequence_example() {
    use weir_graph::{DType, Graph, Shape};
    use weir_ops::parsing::{
        parse_sequence_example, Features, FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,
    };
    let g = Graph::new();
    let s = weir_ops::array::placeholder(&g, DType::String, Shape::new(vec![None])).unwrap();
    parse_sequence_example(
        &s,
        &Features::new()
            .add("len", FixedLenFeature::new(&[], DType::I64).default(-1i64))
            .add("tags", VarLenFeature::new(DType::String)),
        &Features::new()
            .add("vecs", FixedLenSequenceFeature::new(&[2], DType::F32))
            .add("toks", VarLenFeature::new(DType::I64)),
    )
    .unwrap();
    let def = g.as_graph_def(false).unwrap();
    let node = def
        .node
        .iter()
        .find(|n| n.op == "ParseSequenceExample")
        .expect("a ParseSequenceExample node");
    let mut attrs: Vec<&str> = node.attr.keys().map(String::as_str).collect();
    attrs.sort_unstable();
    let mut tf = vec![
        "feature_list_dense_missing_assumed_empty",
        "context_sparse_keys",
        "context_dense_keys",
        "feature_list_sparse_keys",
        "feature_list_dense_keys",
        "Ncontext_sparse",
        "Ncontext_dense",
        "Nfeature_list_sparse",
        "Nfeature_list_dense",
        "context_sparse_types",
        "Tcontext_dense",
        "feature_list_dense_types",
        "context_dense_shapes",
        "feature_list_sparse_types",
        "feature_list_dense_shapes",
    ];
    tf.sort_unstable();
    assert_eq!(attrs, tf);
    assert_eq!(
        node.input.len(),
        3,
        "serialized, debug_name, one context default"
    );
}
