//! Sparse tensors in `tf.data` against TensorFlow 2.21 (tf.compat.v1 graph mode): every case of
//! `data/tfdata_sparse/expected.json` (written by `make_tfdata_sparse.py` there) is built here
//! again under the same name and must give TensorFlow's element spec (tensor or sparse, dtype,
//! static shape per component), its elements value for value (a sparse component's indices,
//! values and dense shape) and its end, or its build-time error. Every run has a timeout.

use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use weir_graph::{Code, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, expand_dims, fill, size, stack};
use weir_ops::data::{
    Component, ComponentSpec, Dataset, InterleaveOptions, MakeBatchedFeaturesDataset,
    MapAndBatchOptions, MapOptions,
};
use weir_ops::io::{Compression, TfRecordWriter};
use weir_ops::math::{add, cast, greater};
use weir_ops::parsing::{
    parse_single_example, Features, FixedLenFeature, SparseFeature, VarLenFeature,
};
use weir_ops::sparse::{sparse_reorder, sparse_tensor_to_dense, SparseOutput};
use weir_session::{RunArgs, Session};

use crate::io_util::b64;

use crate::parsing_support::code_of;

/// How long any run in these tests may take before the test fails.
const BOUND: Duration = Duration::from_secs(20);

fn doc() -> Value {
    serde_json::from_str(include_str!("../data/tfdata_sparse/expected.json")).unwrap()
}

fn records(g: &Graph, doc: &Value) -> Result<Output> {
    let recs: Vec<weir_graph::Bytes> = doc["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| b64(r.as_str().unwrap()).into())
        .collect();
    constant(g, Tensor::from_vec(&[recs.len()], recs)?)
}

/// Writes the records into the TFRecord files make_tfdata_sparse.py writes, in a fresh
/// folder; returns their pattern.
fn write_files(doc: &Value, name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("weir_data_sparse_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let recs = doc["records"].as_array().unwrap();
    let mut at = 0;
    for (i, n) in doc["files"].as_array().unwrap().iter().enumerate() {
        let n = n.as_u64().unwrap() as usize;
        let mut w =
            TfRecordWriter::create(dir.join(format!("part-{i}.tfrecord")), Compression::None)
                .unwrap();
        for r in &recs[at..at + n] {
            w.write(b64(r.as_str().unwrap())).unwrap();
        }
        w.close().unwrap();
        at += n;
    }
    dir.join("part-*.tfrecord").to_str().unwrap().to_string()
}

fn features(label: bool) -> Features {
    let f = Features::new()
        .add("age", FixedLenFeature::new(&[], DType::I64).default(-1i64))
        .add("kws", VarLenFeature::new(DType::String))
        .add("w", VarLenFeature::new(DType::F32))
        .add("sp", SparseFeature::new("idx", "val", DType::F32, 6));
    if label {
        f.add("label", FixedLenFeature::new(&[], DType::I64))
    } else {
        f
    }
}

/// `records().map(lambda s: tuple(parse_single_example(s, {k: ...})[k] for k in keys))`.
fn parsed_single(g: &Graph, doc: &Value, keys: &[&str]) -> Result<Dataset> {
    let all = features(true);
    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    Dataset::from_tensor_slices(&[records(g, doc)?])?.map_components(move |x| {
        let mut out = Vec::new();
        for k in &keys {
            let one: Features =
                std::iter::once((k.as_str(), all.get(k).unwrap().clone())).collect();
            let p = parse_single_example(x[0].tensor()?, &one)?;
            out.push(match p.get(k).unwrap() {
                weir_ops::parsing::ParsedFeature::Dense(o) => Component::Tensor(o.clone()),
                weir_ops::parsing::ParsedFeature::Sparse(s) => s.clone().into(),
            });
        }
        Ok(out)
    })
}

fn sp(
    g: &Graph,
    indices: Vec<i64>,
    rank: usize,
    values: Tensor,
    shape: Vec<i64>,
) -> Result<SparseOutput> {
    let n = indices.len() / rank;
    SparseOutput::new(
        constant(g, Tensor::from_vec(&[n, rank], indices)?)?,
        constant(g, values)?,
        constant(g, shape)?,
    )
}

fn sp34(g: &Graph) -> Result<SparseOutput> {
    sp(
        g,
        vec![0, 1, 0, 3, 2, 0],
        2,
        Tensor::from(vec![1.5f32, 2.5, 3.5]),
        vec![3, 4],
    )
}

fn sp_str(g: &Graph) -> Result<SparseOutput> {
    sp(
        g,
        vec![0, 0, 1, 1, 1, 2],
        2,
        Tensor::from_strings(&["a", "b", "c"]),
        vec![2, 3],
    )
}

/// `[1], [2, 2], [3, 3, 3], ...` up to `n - 1`.
fn filled(g: &Graph, n: i64) -> Result<Dataset> {
    Dataset::range(g, 1, n, 1)?.map(|x| Ok(vec![fill(expand_dims(&x[0], 0)?, &x[0])?]))
}

/// The pipeline of case `name`, as make_tfdata_sparse.py builds it; the component names of a
/// features dataset are checked against `tf.nest`'s order here too.
fn build(g: &Graph, doc: &Value, name: &str) -> Result<Dataset> {
    let ps = |keys: &[&str]| parsed_single(g, doc, keys);
    let recs = || Dataset::from_tensor_slices(&[records(g, doc)?]);
    let sorted = ["age", "kws", "label", "sp", "w"];
    let ped = |ds: Dataset, f: &Features, options: MapOptions| -> Result<Dataset> {
        let (ds, names) = ds.parse_example_dataset(f, options)?;
        let want: Vec<&str> = f.names().collect();
        assert_eq!(names, want, "{name}: component names");
        Ok(ds)
    };
    let mbf = |batch: i64, label: bool| {
        MakeBatchedFeaturesDataset::new(&[write_files(doc, name).as_str()], batch, features(label))
            .shuffle(false)
    };
    let mbf_build = |m: MakeBatchedFeaturesDataset, want: &[&str]| -> Result<Dataset> {
        let (ds, names) = m.build(g)?;
        assert_eq!(names, want, "{name}: component names");
        Ok(ds)
    };
    match name {
        "sparse_slices" => Dataset::from_sparse_tensor_slices(&sp34(g)?),
        "tensor_slices_sparse" => Dataset::from_component_slices(&[sp34(g)?.into()]),
        "tensor_slices_mixed" => Dataset::from_component_slices(&[
            constant(g, vec![10i32, 20])?.into(),
            sp_str(g)?.into(),
        ]),
        "tensors_sparse" => Dataset::from_components(&[sp_str(g)?.into()]),
        "map_varlen" => ps(&["kws"]),
        "map_varlen_batch" => ps(&["age", "kws"])?.batch(2),
        "map_varlen_batch_drop" => ps(&["w"])?.batch_with(2, true),
        "map_sparse_feature" => ps(&["sp"])?.batch(3),
        "batch_unbatch" => ps(&["kws"])?.batch(3)?.unbatch(),
        "batch_map_unbatch" => ps(&["kws"])?
            .batch(2)?
            .map_components(|x| Ok(vec![sparse_reorder(x[0].sparse()?)?.into()]))?
            .unbatch(),
        "batch_batch" => ps(&["w"])?.batch(2)?.batch(2),
        "map_sparse_to_dense" => ps(&["w"])?.map_components(|x| {
            let s = x[0].sparse()?;
            Ok(vec![sparse_tensor_to_dense(s, None)?.into(), s.into()])
        }),
        "filter_sparse" => ps(&["kws", "age"])?.filter_components(|x| {
            let n = size(&x[0].sparse()?.values)?;
            greater(&n, constant(n.graph(), 0i32)?)
        }),
        "take_while_sparse" => ps(&["kws", "age"])?.take_while_components(|x| {
            let n = size(&x[0].sparse()?.values)?;
            greater(&n, constant(n.graph(), 0i32)?)
        }),
        "reduce_sparse" => {
            let zero = || constant(g, 0i64);
            let state = ps(&["kws", "age"])?.reduce_components(&[zero()?, zero()?], |s, x| {
                let n = cast(size(&x[0].sparse()?.values)?, DType::I64)?;
                Ok(vec![add(&s[0], &n)?, add(&s[1], x[1].tensor()?)?])
            })?;
            Dataset::from_tensors(&state)
        }
        "zip_sparse" => Dataset::zip(&[ps(&["kws"])?, Dataset::range(g, 0, 10, 1)?]),
        "concat_sparse" => ps(&["w"])?.take(2)?.concatenate(&ps(&["w"])?.skip(3)?),
        "repeat_take" => ps(&["kws"])?.repeat(Some(2))?.skip(3)?.take(4),
        "shuffle_seeded" => ps(&["kws"])?.shuffle_with(5).seed(3).build(),
        "prefetch_cache" => ps(&["kws"])?.cache()?.prefetch(2),
        "enumerate_sparse" => ps(&["w"])?.enumerate(5),
        "interleave_sparse" => {
            let o = InterleaveOptions {
                cycle_length: Some(2),
                block_length: Some(1),
                ..Default::default()
            };
            Dataset::range(g, 0, 2, 1)?.interleave_with(|_| ps(&["kws"])?.take(2), o)
        }
        "flat_map_sparse" => Dataset::range(g, 0, 2, 1)?.flat_map(|_| ps(&["w"])?.take(3)),
        "map_and_batch_sparse" | "map_and_batch_sparse_drop" => {
            let (key, drop) = match name {
                "map_and_batch_sparse" => ("kws", false),
                _ => ("sp", true),
            };
            let one: Features =
                std::iter::once((key, features(true).get(key).unwrap().clone())).collect();
            recs()?.map_and_batch_components(
                |x| {
                    Ok(vec![parse_single_example(x[0].tensor()?, &one)?
                        .sparse(key)?
                        .into()])
                },
                2,
                MapAndBatchOptions::default().drop_remainder(drop),
            )
        }
        "dsb_basic" => filled(g, 5)?.dense_to_sparse_batch(2, &Shape::new(vec![None])),
        "dsb_fixed" => filled(g, 5)?.dense_to_sparse_batch(3, &Shape::from([5])),
        "dsb_too_big" => filled(g, 5)?.dense_to_sparse_batch(3, &Shape::from([3])),
        "dsb_rank2" => Dataset::range(g, 1, 4, 1)?
            .map(|x| {
                let two = constant(x[0].graph(), 2i64)?;
                Ok(vec![fill(stack(&[x[0].clone(), two], 0)?, &x[0])?])
            })?
            .dense_to_sparse_batch(2, &Shape::new(vec![None, Some(2)])),
        "dsb_rank_mismatch" => {
            filled(g, 4)?.dense_to_sparse_batch(2, &Shape::new(vec![None, Some(2)]))
        }
        "dsb_zeros" => Dataset::from_tensor_slices(&[constant(
            g,
            Tensor::from_vec(&[2, 2], vec![0i32, 1, 2, 0])?,
        )?])?
        .dense_to_sparse_batch(2, &Shape::from([2])),
        "dsb_scalars" => Dataset::range(g, 1, 4, 1)?.dense_to_sparse_batch(2, &Shape::scalar()),
        "ped_basic" => ped(recs()?.batch(2)?, &features(true), MapOptions::parallel(1)),
        "ped_parallel" => ped(recs()?.batch(3)?, &features(true), MapOptions::parallel(2)),
        "ped_static_batch" => ped(
            recs()?.batch_with(2, true)?,
            &Features::new().add("kws", VarLenFeature::new(DType::String)),
            MapOptions::parallel(1),
        ),
        "ped_not_vector" => ped(recs()?, &features(true), MapOptions::parallel(1)),
        "ped_bad_type" => ped(
            recs()?.batch(2)?,
            &Features::new().add("age", FixedLenFeature::new(&[], DType::F32)),
            MapOptions::parallel(1),
        ),
        "mbf_one_epoch" => mbf_build(mbf(2, true).num_epochs(Some(1)), &sorted),
        "mbf_label" => mbf_build(
            mbf(2, true).num_epochs(Some(1)).label_key("label"),
            &["age", "kws", "sp", "w", "label"],
        ),
        "mbf_drop" => mbf_build(
            mbf(2, false).num_epochs(Some(2)).drop_final_batch(true),
            &["age", "kws", "sp", "w"],
        ),
        "mbf_forever" => mbf_build(mbf(3, false), &["age", "kws", "sp", "w"])?.take(4),
        "mbf_bad_label" => mbf_build(mbf(2, true).label_key("nope"), &[]),
        other => panic!("no pipeline for case {other}"),
    }
}

pub(crate) fn encode(t: &Tensor) -> Value {
    let data = match t.dtype() {
        DType::I64 => json!(t.to_vec::<i64>().unwrap()),
        DType::I32 => json!(t.to_vec::<i32>().unwrap()),
        DType::F32 => json!(t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect::<Vec<_>>()),
        DType::String => json!(t
            .as_slice::<weir_graph::Bytes>()
            .unwrap()
            .iter()
            .map(|b| base64::engine::general_purpose::STANDARD.encode(b))
            .collect::<Vec<_>>()),
        other => panic!("unexpected dtype {other}"),
    };
    let dtype = match t.dtype() {
        DType::String => "string",
        d => d.python_name(),
    };
    json!({"dtype": dtype, "shape": t.shape(), "data": data})
}

pub(crate) fn spec_json(s: &ComponentSpec) -> Value {
    let dtype = match s.dtype() {
        DType::String => "string",
        d => d.python_name(),
    };
    let shape = match s.shape().dims() {
        None => Value::Null,
        Some(d) => json!(d),
    };
    let kind = if s.is_sparse() { "sparse" } else { "tensor" };
    json!({"kind": kind, "dtype": dtype, "shape": shape})
}

pub(crate) fn check_error(name: &str, got: &Error, want: &Value) {
    assert_eq!(
        got.code(),
        code_of(want["class"].as_str().unwrap()),
        "{name}: {got}"
    );
    let mut message = want["message"].as_str().unwrap().to_string();
    if name == "mbf_bad_label" {
        // TensorFlow lists a dict's keys in the order the Python literal gave them; weir's
        // `Features` keeps them sorted, so its message lists them sorted.
        message = message.replace(
            "['age', 'kws', 'w', 'sp', 'label']",
            "['age', 'kws', 'label', 'sp', 'w']",
        );
    }
    assert_eq!(got.message(), message, "{name}");
}

/// Checks one case against TensorFlow's record.
fn check(doc: &Value, want: &Value) {
    let name = want["name"].as_str().unwrap();
    check_case(want, |g| build(g, doc, name));
}

/// Checks one pipeline, built by `build` in a new graph, against TensorFlow's record `want`:
/// the build error, or the element spec, every element and how the iteration ended.
pub(crate) fn check_case(want: &Value, build: impl FnOnce(&Graph) -> Result<Dataset>) {
    let name = want["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g);
    if let Some(e) = want.get("error") {
        check_error(name, &built.expect_err(name), e);
        return;
    }
    let ds = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let spec: Vec<Value> = ds.element_spec().iter().map(spec_json).collect();
    assert_eq!(Value::from(spec), want["spec"], "{name}: element spec");
    let next = ds
        .make_one_shot_iterator()
        .unwrap()
        .get_next_components()
        .unwrap();
    let mut args = RunArgs::new().timeout(BOUND);
    for c in &next {
        match c {
            Component::Tensor(o) => args = args.fetch(o),
            Component::Sparse(s) => {
                for o in s.outputs() {
                    args = args.fetch(&o);
                }
            }
        }
    }
    let sess = Session::new(&g).unwrap();
    let want_items = want["elements"].as_array().unwrap();
    let mut got = Vec::new();
    let end = loop {
        assert!(
            got.len() <= want_items.len(),
            "{name}: more elements than TensorFlow's"
        );
        match sess.run(&args) {
            Ok(v) => {
                let mut values = v.iter();
                let element: Vec<Value> = next
                    .iter()
                    .map(|c| match c {
                        Component::Tensor(_) => encode(values.next().unwrap()),
                        Component::Sparse(_) => {
                            let mut part = || encode(values.next().unwrap());
                            json!({"indices": part(), "values": part(), "dense_shape": part()})
                        }
                    })
                    .collect();
                got.push(Value::from(element));
            }
            Err(e) => break e,
        }
    };
    assert_eq!(&got, want_items, "{name}: elements");
    match &want["end"] {
        Value::Null => assert!(end.is_out_of_range(), "{name}: ended with {end}"),
        w => check_error(name, &end, w),
    }
}

#[test]
fn sparse_components_match_tensorflow() {
    let doc = doc();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 42);
    let failed: Vec<&str> = cases
        .iter()
        .filter(|want| std::panic::catch_unwind(|| check(&doc, want)).is_err())
        .map(|want| want["name"].as_str().unwrap())
        .collect();
    assert!(failed.is_empty(), "cases unlike TensorFlow: {failed:?}");
}

#[test]
fn dense_only_methods_refuse_sparse_components_by_name() {
    let g = Graph::new();
    let ds = Dataset::from_component_slices(&[sp34(&g).unwrap().into()]).unwrap();
    let e = ds.map(|x| Ok(x.to_vec())).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("dataset.map") && e.message().contains("SparseTensor"),
        "{e}"
    );
    let it = ds.make_one_shot_iterator().unwrap();
    let e = it.get_next().unwrap_err();
    assert!(e.message().contains("get_next_components"), "{e}");
    let e = ds.padded_batch(2, None, None, false).unwrap_err();
    assert!(e.message().contains("padded_batch"), "{e}");
}

#[test]
fn an_iterator_from_an_element_spec_reads_sparse_components() {
    let g = Graph::new();
    let ds = Dataset::from_component_slices(&[sp34(&g).unwrap().into()]).unwrap();
    let it = weir_ops::data::Iterator::from_element_spec(&g, &ds.element_spec()).unwrap();
    let init = it.make_initializer(&ds).unwrap();
    let next = it.get_next_components().unwrap();
    let s = next[0].sparse().unwrap();
    assert_eq!(s.indices.shape(), Shape::new(vec![None, Some(1)]));
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().target(&init).timeout(BOUND))
        .unwrap();
    let v = sess
        .run(
            &RunArgs::new()
                .fetch(&s.values)
                .fetch(&s.dense_shape)
                .timeout(BOUND),
        )
        .unwrap();
    assert_eq!(v[0].to_vec::<f32>().unwrap(), vec![1.5, 2.5]);
    assert_eq!(v[1].to_vec::<i64>().unwrap(), vec![4]);
    let dense = Dataset::range(&g, 0, 3, 1).unwrap();
    assert_eq!(
        it.make_initializer(&dense).unwrap_err().code(),
        Code::InvalidArgument
    );
}
