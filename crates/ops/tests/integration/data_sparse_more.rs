//! Sparse tensors in `scan` and `window` against TensorFlow 2.21 (tf.compat.v1 graph mode):
//! every case of `data/tfdata_sparse/expected_more.json` (written by
//! `make_tfdata_sparse_more.py` there) is built here again under the same name and must give
//! TensorFlow's element spec, its elements value for value (a sparse component's indices,
//! values and dense shape) and its end, or its build-time error; and each window dataset's
//! element spec must be TensorFlow's. Every run has a timeout.

use serde_json::{json, Value};
use weir_graph::{Code, DType, Graph, Output, Result, Tensor};
use weir_ops::array::{constant, size};
use weir_ops::data::{Component, Dataset, Windows};
use weir_ops::math::{add, cast};
use weir_ops::parsing::{parse_single_example, Features, FixedLenFeature, VarLenFeature};
use weir_ops::sparse::{sparse_add, sparse_concat, sparse_reduce_sum, SparseOutput};

use crate::data_sparse::{check_case, spec_json};
use crate::io_util::b64;

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

/// Checks one case against TensorFlow's record.
fn check(doc: &Value, want: &Value) {
    let name = want["name"].as_str().unwrap();
    check_case(want, |g| build(g, doc, name));
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
