//! The Example and SequenceExample payloads of `tfrecord/examples.json` and
//! `tfrecord/sequence_examples.json` (serialized by TensorFlow 2.21), parsed by weir and
//! compared with the features TensorFlow decoded, value for value.

use crate::parsing_support;

use std::collections::BTreeMap;

use parsing_support::*;
use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Tensor};
use weir_ops::array::constant;
use weir_ops::parsing::{
    parse_example, parse_example_batch, parse_sequence_example_tensors,
    parse_single_example_tensors, ExampleConfig, Features, FixedLenFeature,
    FixedLenSequenceFeature, SequenceConfig, VarLenFeature,
};
use weir_session::{RunArgs, Session};

fn kind_dtype(kind: &Value) -> DType {
    match kind.as_str() {
        Some("bytes_list") => DType::String,
        Some("float_list") => DType::F32,
        // int64 lists, and features with no kind (parsed as empty int64 lists).
        _ => DType::I64,
    }
}

/// The values of a fixture feature (`{"kind", "values" | "values_b64", "bits"}`) as a 1-D tensor.
fn values(f: &Value) -> Tensor {
    let n = match kind_dtype(&f["kind"]) {
        DType::String => f["values_b64"].as_array().unwrap().len(),
        DType::F32 => f["bits"].as_array().unwrap().len(),
        _ => f["values"].as_array().unwrap().len(),
    };
    let dtype = match kind_dtype(&f["kind"]) {
        DType::String => "string",
        DType::F32 => "float32",
        _ => "int64",
    };
    let mut t = f.clone();
    t["dtype"] = Value::from(dtype);
    t["shape"] = Value::from(vec![n]);
    if f["kind"].is_null() {
        t["values"] = Value::from(Vec::<i64>::new());
    }
    tensor(&t)
}

fn records(file: &str) -> Vec<Value> {
    load(file)["records"].as_array().unwrap().clone()
}

fn serialized(r: &Value) -> Bytes {
    Bytes::from(b64(r["serialized_b64"].as_str().unwrap()))
}

#[test]
fn every_example_record_parses_to_its_features() {
    let recs = records("tfrecord/examples.json");
    assert_eq!(recs.len(), 100);
    for r in &recs {
        let idx = r["index"].as_u64().unwrap();
        let feats = r["example"]["features"].as_object().unwrap();
        let ser = serialized(r);
        // Every feature as a VarLenFeature of its kind.
        let sparse: Vec<(String, DType)> = feats
            .iter()
            .map(|(k, f)| (k.clone(), kind_dtype(&f["kind"])))
            .collect();
        // Every feature with a kind as a FixedLenFeature of exactly its length.
        let fixed: Vec<(String, DType, Vec<usize>, Option<Tensor>)> = feats
            .iter()
            .filter(|(_, f)| !f["kind"].is_null())
            .map(|(k, f)| {
                (
                    k.to_string(),
                    kind_dtype(&f["kind"]),
                    vec![values(f).num_elements()],
                    None,
                )
            })
            .collect();
        let cfg = ExampleConfig::from_parts(vec![], sparse).unwrap();
        let out = parse_single_example_tensors(&cfg, &ser).unwrap();
        for ((k, f), sp) in feats.iter().zip(&out.sparse) {
            let want = values(f);
            let n = want.num_elements();
            assert_tensor_eq(&sp.values, &want, &format!("record {idx} {k:?}"));
            assert_eq!(sp.dense_shape.to_vec::<i64>().unwrap(), vec![n as i64]);
            assert_eq!(
                sp.indices.to_vec::<i64>().unwrap(),
                (0..n as i64).collect::<Vec<_>>()
            );
        }
        let cfg = ExampleConfig::from_parts(fixed.clone(), vec![]).unwrap();
        let out = parse_single_example_tensors(&cfg, &ser).unwrap();
        for ((k, _, _, _), t) in fixed.iter().zip(&out.dense) {
            assert_tensor_eq(t, &values(&feats[k]), &format!("record {idx} fixed {k:?}"));
        }
    }
}

#[test]
fn all_example_records_parse_as_one_batch_in_a_session() {
    let recs = records("tfrecord/examples.json");
    // Features whose kind is the same in every record that has them.
    let mut kinds: BTreeMap<String, Option<DType>> = BTreeMap::new();
    for r in &recs {
        for (k, f) in r["example"]["features"].as_object().unwrap() {
            if f["kind"].is_null() {
                continue;
            }
            let d = kind_dtype(&f["kind"]);
            let e = kinds.entry(k.clone()).or_insert(Some(d));
            if *e != Some(d) {
                *e = None;
            }
        }
    }
    let kinds: Vec<(String, DType)> = kinds
        .into_iter()
        .filter_map(|(k, d)| d.map(|d| (k, d)))
        .collect();
    assert!(kinds.len() > 10);
    let features: Features = kinds
        .iter()
        .map(|(k, d)| (k.clone(), VarLenFeature::new(*d)))
        .collect();
    let g = Graph::new();
    let batch = Tensor::from(recs.iter().map(serialized).collect::<Vec<_>>());
    let parsed = parse_example(constant(&g, batch.clone()).unwrap(), &features).unwrap();
    let sess = Session::new(&g).unwrap();
    for (k, dtype) in &kinds {
        let sp = parsed.sparse(k).unwrap();
        let out = sess
            .run(
                &RunArgs::new()
                    .fetch(&sp.indices)
                    .fetch(&sp.values)
                    .fetch(&sp.dense_shape),
            )
            .unwrap();
        let ix = out[0].to_vec::<i64>().unwrap();
        let mut row_start = 0usize;
        let mut max = 0usize;
        for (row, r) in recs.iter().enumerate() {
            let f = &r["example"]["features"][k.as_str()];
            let want = if f.is_null() || f["kind"].is_null() {
                Tensor::zeros(*dtype, &[0]).unwrap()
            } else {
                values(f)
            };
            let n = want.num_elements();
            max = max.max(n);
            let got = out[1].slice_axis0(row_start, row_start + n).unwrap();
            assert_tensor_eq(&got, &want, &format!("{k} row {row}"));
            for i in 0..n {
                assert_eq!(
                    &ix[(row_start + i) * 2..(row_start + i) * 2 + 2],
                    &[row as i64, i as i64]
                );
            }
            row_start += n;
        }
        assert_eq!(row_start, out[1].num_elements(), "{k}: total values");
        assert_eq!(
            out[2].to_vec::<i64>().unwrap(),
            vec![recs.len() as i64, max as i64]
        );
    }
    // The same batch through the pure function agrees with the session.
    let cfg = ExampleConfig::from_parts(vec![], kinds.clone()).unwrap();
    let direct = parse_example_batch(&cfg, batch.as_slice::<Bytes>().unwrap(), &[]).unwrap();
    assert_eq!(direct.sparse.len(), kinds.len());
}

#[test]
fn every_sequence_example_record_parses_to_its_features() {
    let recs = records("tfrecord/sequence_examples.json");
    assert_eq!(recs.len(), 12);
    for r in &recs {
        let idx = r["index"].as_u64().unwrap();
        let se = &r["sequence_example"];
        let ctx = se["context"].as_object().unwrap();
        let lists = se["feature_lists"].as_object().unwrap();
        let mut context = Features::new();
        for (k, f) in ctx {
            context = context.add(
                k,
                FixedLenFeature::new(&[values(f).num_elements()], kind_dtype(&f["kind"])),
            );
        }
        let list_dtype = |steps: &[Value]| {
            steps
                .first()
                .map(|s| kind_dtype(&s["kind"]))
                .unwrap_or(DType::I64)
        };
        // Dense views of the lists whose steps all have the same length.
        let mut dense_lists = Vec::new();
        for (k, steps) in lists {
            let steps = steps.as_array().unwrap();
            let lens: Vec<usize> = steps.iter().map(|s| values(s).num_elements()).collect();
            if !lens.is_empty() && lens.iter().all(|&l| l == lens[0] && l > 0) {
                dense_lists.push(k.clone());
            }
        }
        let var_lists: Features = lists
            .iter()
            .map(|(k, steps)| {
                (
                    k.clone(),
                    VarLenFeature::new(list_dtype(steps.as_array().unwrap())),
                )
            })
            .collect();
        let ser = serialized(r);
        let ctx_defaults: Vec<Tensor> = ctx
            .iter()
            .map(|(_, f)| Tensor::zeros(kind_dtype(&f["kind"]), &[0]).unwrap())
            .collect();
        if !context.is_empty() || !var_lists.is_empty() {
            let cfg = SequenceConfig::new(&context, &var_lists).unwrap();
            let out =
                parse_sequence_example_tensors(&cfg, &ctx_defaults, &ser, "<unknown>").unwrap();
            for ((k, f), t) in ctx.iter().zip(&out.context.dense) {
                assert_tensor_eq(t, &values(f), &format!("record {idx} context {k}"));
            }
            for ((k, steps), sp) in lists.iter().zip(&out.feature_lists.sparse) {
                let steps = steps.as_array().unwrap();
                let vals: Vec<Tensor> = steps.iter().map(values).collect();
                let total: usize = vals.iter().map(Tensor::num_elements).sum();
                let max = vals.iter().map(Tensor::num_elements).max().unwrap_or(0);
                assert_eq!(
                    sp.dense_shape.to_vec::<i64>().unwrap(),
                    vec![steps.len() as i64, max as i64],
                    "record {idx} {k}"
                );
                assert_eq!(sp.values.num_elements(), total, "record {idx} {k}");
                let ix = sp.indices.to_vec::<i64>().unwrap();
                let mut at = 0;
                for (row, v) in vals.iter().enumerate() {
                    let n = v.num_elements();
                    assert_tensor_eq(
                        &sp.values.slice_axis0(at, at + n).unwrap(),
                        v,
                        &format!("record {idx} {k} step {row}"),
                    );
                    for i in 0..n {
                        assert_eq!(&ix[(at + i) * 2..(at + i) * 2 + 2], &[row as i64, i as i64]);
                    }
                    at += n;
                }
            }
        }
        if !dense_lists.is_empty() {
            let dense: Features = dense_lists
                .iter()
                .map(|k| {
                    let steps = lists[k].as_array().unwrap();
                    let n = values(&steps[0]).num_elements();
                    (
                        k.clone(),
                        FixedLenSequenceFeature::new(&[n], list_dtype(steps)),
                    )
                })
                .collect();
            let cfg = SequenceConfig::new(&Features::new(), &dense).unwrap();
            let out = parse_sequence_example_tensors(&cfg, &[], &ser, "<unknown>").unwrap();
            for (k, t) in dense_lists.iter().zip(&out.feature_lists.dense) {
                let steps = lists[k].as_array().unwrap();
                let n = values(&steps[0]).num_elements();
                assert_eq!(t.shape(), &[steps.len(), n], "record {idx} {k}");
                for (row, s) in steps.iter().enumerate() {
                    assert_tensor_eq(
                        &t.index_axis0(row).unwrap(),
                        &values(s),
                        &format!("record {idx} {k} row {row}"),
                    );
                }
            }
        }
        // A required dense list that the record lacks is the documented error; allowed
        // missing gives [0, ...].
        let missing = Features::new().add("nope", FixedLenSequenceFeature::new(&[2], DType::F32));
        let cfg = SequenceConfig::new(&Features::new(), &missing).unwrap();
        let e = parse_sequence_example_tensors(&cfg, &[], &ser, "<unknown>").unwrap_err();
        assert!(
            e.message().starts_with(
                "Name: <unknown>, Feature list 'nope' is required but could not be found."
            ),
            "{e}"
        );
        let allowed = Features::new().add(
            "nope",
            FixedLenSequenceFeature::new(&[2], DType::F32).allow_missing(true),
        );
        let cfg = SequenceConfig::new(&Features::new(), &allowed).unwrap();
        let out = parse_sequence_example_tensors(&cfg, &[], &ser, "<unknown>").unwrap();
        assert_eq!(out.feature_lists.dense[0].shape(), &[0, 2]);
    }
}
