//! Sparse tensors in `scan` and `window` against TensorFlow 2.21 (tf.compat.v1 graph mode):
//! every case of `data/tfdata_sparse/expected_more.json` (written by
//! `make_tfdata_sparse_more.py` there) is built here again under the same name and must give
//! TensorFlow's element spec, its elements value for value (a sparse component's indices,
//! values and dense shape) and its end, or its build-time error; and each window dataset's
//! element spec must be TensorFlow's. Every run has a timeout.

use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use weir_graph::{Code, DType, Error, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, size};
use weir_ops::data::{Component, ComponentSpec, Dataset, Windows};
use weir_ops::math::{add, cast};
use weir_ops::parsing::{parse_single_example, Features, FixedLenFeature, VarLenFeature};
use weir_ops::sparse::{sparse_add, sparse_concat, sparse_reduce_sum, SparseOutput};
use weir_session::{RunArgs, Session};

use crate::io_util::b64;
use crate::parsing_support::code_of;

/// How long any run in these tests may take before the test fails.
const BOUND: Duration = Duration::from_secs(20);

fn doc() -> Value {
    serde_json::from_str(include_str!("../data/tfdata_sparse/expected_more.json")).unwrap()
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

fn feature(key: &str) -> Features {
    match key {
        "age" => Features::new().add("age", FixedLenFeature::new(&[], DType::I64).default(-1i64)),
        "kws" => Features::new().add("kws", VarLenFeature::new(DType::String)),
        _ => Features::new().add(key, VarLenFeature::new(DType::F32)),
    }
}

/// `records().map(lambda s: tuple(parse_single_example(s, {k: ...})[k] for k in keys))`.
fn parsed_single(g: &Graph, doc: &Value, keys: &[&str]) -> Result<Dataset> {
    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    Dataset::from_tensor_slices(&[records(g, doc)?])?.map_components(move |x| {
        let mut out = Vec::new();
        for k in &keys {
            let p = parse_single_example(x[0].tensor()?, &feature(k))?;
            out.push(match p.get(k).unwrap() {
                weir_ops::parsing::ParsedFeature::Dense(o) => Component::Tensor(o.clone()),
                weir_ops::parsing::ParsedFeature::Sparse(s) => s.clone().into(),
            });
        }
        Ok(out)
    })
}

/// SP34 of make_tfdata_sparse.py: values 1.5, 2.5, 3.5 at [0 1], [0 3], [2 0] of [3 4].
fn sp34(g: &Graph) -> Result<SparseOutput> {
    SparseOutput::new(
        constant(g, Tensor::from_vec(&[3, 2], vec![0i64, 1, 0, 3, 2, 0])?)?,
        constant(g, Tensor::from(vec![1.5f32, 2.5, 3.5]))?,
        constant(g, vec![3i64, 4])?,
    )
}

/// `zip((range(3), from_tensor_slices(SP34)))`.
fn slices(g: &Graph) -> Result<Dataset> {
    Dataset::zip(&[
        Dataset::range(g, 0, 3, 1)?,
        Dataset::from_component_slices(&[sp34(g)?.into()])?,
    ])
}

/// An empty float sparse tensor of dense shape `shape`.
fn empty(g: &Graph, shape: Vec<i64>) -> Result<Component> {
    let rank = shape.len();
    Ok(SparseOutput::new(
        constant(g, Tensor::from_vec(&[0, rank], Vec::<i64>::new())?)?,
        constant(g, Tensor::from(Vec::<f32>::new()))?,
        constant(g, shape)?,
    )?
    .into())
}

fn sp_add(a: &Component, b: &Component) -> Result<SparseOutput> {
    let a = a.sparse()?;
    sparse_add(a, b.sparse()?, constant(a.graph(), 0f32)?)
}

fn count(x: &Component) -> Result<Output> {
    cast(size(&x.sparse()?.values)?, DType::I64)
}

/// The windows of the pipeline `name` of "window_specs".
fn windows(g: &Graph, doc: &Value, name: &str) -> Result<Windows> {
    match name {
        "w" => parsed_single(g, doc, &["w"])?.window(2, Some(1), 1, false),
        "mixed" => slices(g)?.window(2, Some(1), 2, false),
        "kws_age" => parsed_single(g, doc, &["kws", "age"])?.window(3, Some(2), 1, false),
        other => panic!("no windows {other}"),
    }
}

/// The pipeline of case `name`, as make_tfdata_sparse_more.py builds it.
fn build(g: &Graph, doc: &Value, name: &str) -> Result<Dataset> {
    let ps = |keys: &[&str]| parsed_single(g, doc, keys);
    let zero_i64 = || -> Result<Component> { Ok(constant(g, 0i64)?.into()) };
    let zero_f32 = || -> Result<Component> { Ok(constant(g, 0f32)?.into()) };
    match name {
        "scan_sparse_element" => ps(&["w"])?.scan_components(&[zero_i64()?], |s, x| {
            let n = add(s[0].tensor()?, count(&x[0])?)?;
            Ok((vec![n.into()], vec![s[0].clone(), x[0].clone()]))
        }),
        "scan_sparse_element_sum" => slices(g)?.scan_components(&[zero_f32()?], |s, x| {
            let sum = add(
                s[0].tensor()?,
                sparse_reduce_sum(x[1].sparse()?, None, false)?,
            )?;
            Ok((vec![sum.into()], vec![x[0].clone(), s[0].clone()]))
        }),
        "scan_sparse_state_add" => slices(g)?.scan_components(&[empty(g, vec![4])?], |s, x| {
            Ok((
                vec![sp_add(&s[0], &x[1])?.into()],
                vec![sp_add(&s[0], &x[1])?.into()],
            ))
        }),
        "scan_sparse_state_concat" => ps(&["w"])?.scan_components(&[empty(g, vec![0])?], |s, x| {
            let cat = || sparse_concat(0, &[s[0].sparse()?.clone(), x[0].sparse()?.clone()]);
            Ok((vec![cat()?.into()], vec![cat()?.into(), x[0].clone()]))
        }),
        "scan_sparse_state_and_dense" => {
            slices(g)?.scan_components(&[empty(g, vec![4])?, zero_i64()?], |s, x| {
                Ok((
                    vec![
                        sp_add(&s[0], &x[1])?.into(),
                        add(s[1].tensor()?, x[0].tensor()?)?.into(),
                    ],
                    vec![s[0].clone()],
                ))
            })
        }
        "scan_sparse_state_then_batch" => slices(g)?
            .scan_components(&[empty(g, vec![4])?], |s, x| {
                Ok((vec![sp_add(&s[0], &x[1])?.into()], vec![s[0].clone()]))
            })?
            .batch(2),
        "scan_state_dense_to_sparse" => slices(g)?.scan_components(&[zero_f32()?], |_, x| {
            Ok((vec![x[1].clone()], vec![x[0].clone()]))
        }),
        "scan_state_sparse_to_dense" => {
            slices(g)?.scan_components(&[empty(g, vec![4])?], |_, x| {
                let sum = sparse_reduce_sum(x[1].sparse()?, None, false)?;
                Ok((vec![sum.into()], vec![x[0].clone()]))
            })
        }
        "scan_state_sparse_dtype" => slices(g)?.scan_components(&[empty(g, vec![4])?], |_, x| {
            let s = x[1].sparse()?;
            let as_i64 = SparseOutput::new(
                s.indices.clone(),
                cast(&s.values, DType::I64)?,
                s.dense_shape.clone(),
            )?;
            Ok((vec![as_i64.into()], vec![x[0].clone()]))
        }),
        "window_flat_map_batch" => ps(&["w"])?
            .window(2, Some(1), 1, false)?
            .flat_map(|w| w[0].batch(2)),
        "window_drop_stride" => ps(&["w"])?
            .window(2, Some(1), 2, true)?
            .flat_map(|w| w[0].batch(2)),
        "window_shift_past" => ps(&["kws"])?
            .window(2, Some(3), 1, false)?
            .flat_map(|w| w[0].batch(2)),
        "window_flat_map_plain" => slices(g)?
            .window(2, Some(2), 1, false)?
            .flat_map(Dataset::zip),
        "window_zip_batch" => slices(g)?
            .window(2, Some(1), 2, false)?
            .flat_map(|w| Dataset::zip(w)?.batch(2)),
        "window_mixed_batch_each" => ps(&["kws", "age"])?
            .window(3, Some(2), 1, false)?
            .flat_map(|w| Dataset::zip(&[w[0].batch(3)?, w[1].batch(3)?])),
        "window_reduce" => ps(&["w"])?.window(3, Some(2), 1, false)?.flat_map(|w| {
            let zero = constant(g, 0i64)?;
            let total =
                w[0].reduce_components(&[zero], |s, x| Ok(vec![add(&s[0], count(&x[0])?)?]))?;
            Dataset::from_tensors(&total)
        }),
        "window_interleave" => {
            ps(&["w"])?
                .window(2, Some(2), 1, false)?
                .interleave(|w| w[0].batch(2), 2, 1)
        }
        "window_batch_batch" => ps(&["w"])?
            .window(4, Some(4), 1, false)?
            .flat_map(|w| w[0].batch(2)?.batch(2)),
        other => panic!("no pipeline for case {other}"),
    }
}

fn encode(t: &Tensor) -> Value {
    let data = match t.dtype() {
        DType::I64 => json!(t.to_vec::<i64>().unwrap()),
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

fn spec_json(s: &ComponentSpec) -> Value {
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

fn check_error(name: &str, got: &Error, want: &Value) {
    assert_eq!(
        got.code(),
        code_of(want["class"].as_str().unwrap()),
        "{name}: {got}"
    );
    assert_eq!(got.message(), want["message"].as_str().unwrap(), "{name}");
}

/// Checks one case against TensorFlow's record.
fn check(doc: &Value, want: &Value) {
    let name = want["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, doc, name);
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
fn sparse_scan_and_window_match_tensorflow() {
    let doc = doc();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 18);
    let failed: Vec<&str> = cases
        .iter()
        .filter(|want| std::panic::catch_unwind(|| check(&doc, want)).is_err())
        .map(|want| want["name"].as_str().unwrap())
        .collect();
    assert!(failed.is_empty(), "cases unlike TensorFlow: {failed:?}");
}

#[test]
fn window_datasets_of_sparse_components_have_tensorflows_spec() {
    let doc = doc();
    let specs = doc["window_specs"].as_object().unwrap();
    assert_eq!(specs.len(), 3);
    for (name, want) in specs {
        let g = Graph::new();
        let w = windows(&g, &doc, name).unwrap();
        let got: Vec<Value> = w
            .element_spec()
            .iter()
            .map(|s| json!([spec_json(s)]))
            .collect();
        assert_eq!(&Value::from(got), want, "{name}");
        // The dataset of windows itself holds one dataset handle per component.
        assert_eq!(
            w.dataset().output_types().len(),
            want.as_array().unwrap().len()
        );
    }
}

#[test]
fn dense_scan_refuses_sparse_components_by_name() {
    let g = Graph::new();
    let ds = slices(&g).unwrap();
    let e = ds
        .scan(&[constant(&g, 0i64).unwrap()], |s, _| {
            Ok((vec![s[0].clone()], vec![s[0].clone()]))
        })
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("dataset.scan") && e.message().contains("SparseTensor"),
        "{e}"
    );
}
