//! `Dataset.group_by_window` and `Dataset.bucket_by_sequence_length` against what TensorFlow
//! 2.21 returned (`tests/data/tfdata_group`, written by `make_group.py` there), run after run.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, gather, shape, size};
use weir_ops::data::{BucketOptions, Dataset};
use weir_ops::math::{add, floormod, mul};
use weir_session::Session;

use crate::io_util::run;

fn expected() -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tfdata_group/expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

fn int(g: &Graph, v: i64) -> Output {
    constant(g, v).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// The sequences as a generator dataset of int64 vectors, as the TensorFlow script made them.
fn seqs(g: &Graph, want: &Value) -> Dataset {
    let seqs: Vec<Vec<i64>> = want["seqs"].as_array().unwrap().iter().map(ints).collect();
    Dataset::from_generator(
        g,
        move || {
            seqs.clone()
                .into_iter()
                .map(|s| Ok(vec![Tensor::from(s)]))
                .collect::<Vec<_>>()
        },
        &[DType::I64],
        Some(&[Shape::new(vec![None])]),
    )
    .unwrap()
}

fn length_scalar(x: &[Output]) -> Result<Output> {
    weir_ops::array::StridedSlice::new()
        .shrink_axis_mask(1)
        .build(shape(&x[0])?, &[0], &[1], &[1])
}

fn batch10(_: &Output, d: &Dataset) -> Result<Dataset> {
    d.batch(10)
}

fn build(name: &str, g: &Graph, want: &Value) -> Dataset {
    let r = |n: i64| Dataset::range(g, 0, n, 1).unwrap();
    let modulo = |m: i64| move |x: &[Output]| floormod(&x[0], constant(x[0].graph(), m)?);
    let bucket = |boundaries: &[i64], sizes: &[i64], o: BucketOptions| {
        seqs(g, want).bucket_by_sequence_length(length_scalar, boundaries, sizes, o)
    };
    let d = BucketOptions::default;
    match name {
        "mod3_window2" => r(10).group_by_window(modulo(3), batch10, 2),
        "window_size_func" => {
            r(12).group_by_window_with(modulo(3), batch10, |k| add(k, constant(k.graph(), 1i64)?))
        }
        "leftovers_by_key" => r(14).group_by_window(
            |x| {
                floormod(
                    mul(&x[0], constant(x[0].graph(), 5i64)?)?,
                    constant(x[0].graph(), 7i64)?,
                )
            },
            batch10,
            100,
        ),
        "leftovers_negative_keys" => {
            let keys = Tensor::from(ints(&want["keys"]));
            r(12).group_by_window(
                move |x| gather(constant(x[0].graph(), keys)?, &x[0], 0),
                batch10,
                100,
            )
        }
        "reduce_uses_key" => r(6).group_by_window(
            modulo(2),
            |k, d| {
                let k = k.clone();
                d.map(move |v| Ok(vec![add(mul(&v[0], constant(v[0].graph(), 100i64)?)?, &k)?]))
            },
            2,
        ),
        "window_size_zero" => r(4).group_by_window_with(modulo(2), batch10, |k| {
            weir_ops::math::sub(k, constant(k.graph(), 1i64)?)
        }),
        "bucket" => bucket(&[3, 5], &[2, 2, 2], d()),
        "bucket_pad_to_boundary" => seqs(g, want).take(5).unwrap().bucket_by_sequence_length(
            length_scalar,
            &[3, 6],
            &[2, 2, 2],
            BucketOptions {
                pad_to_bucket_boundary: true,
                ..d()
            },
        ),
        "bucket_pad_to_boundary_too_long" => bucket(
            &[3, 6],
            &[2, 2, 2],
            BucketOptions {
                pad_to_bucket_boundary: true,
                ..d()
            },
        ),
        "bucket_no_padding" => seqs(g, want)
            .map(|x| Ok(vec![size(&x[0])?]))
            .unwrap()
            .bucket_by_sequence_length(
                |x| Ok(x[0].clone()),
                &[3, 5],
                &[2, 3, 1],
                BucketOptions {
                    no_padding: true,
                    ..d()
                },
            ),
        "bucket_drop_remainder" => bucket(
            &[3, 5],
            &[2, 2, 2],
            BucketOptions {
                drop_remainder: true,
                ..d()
            },
        ),
        "bucket_drop_remainder_big" => bucket(
            &[3, 5],
            &[3, 2, 2],
            BucketOptions {
                drop_remainder: true,
                ..d()
            },
        ),
        "bucket_padding_value" => bucket(
            &[3, 5],
            &[2, 2, 2],
            BucketOptions {
                padding_values: Some(vec![int(g, -1)]),
                ..d()
            },
        ),
        "bucket_padded_shapes" => bucket(
            &[3, 5],
            &[2, 2, 2],
            BucketOptions {
                padded_shapes: Some(vec![Shape::known(&[8])]),
                ..d()
            },
        ),
        "bucket_one_boundary" => {
            seqs(g, want).bucket_by_sequence_length(|x| size(&x[0]), &[4], &[3, 1], d())
        }
        other => panic!("unknown case {other}"),
    }
    .unwrap()
}

/// A run's value as nested i64 lists, the shape of `tolist()`.
fn to_json(t: &Tensor) -> Value {
    let v: Vec<i64> = match t.dtype() {
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(i64::from)
            .collect(),
        _ => t.to_vec::<i64>().unwrap(),
    };
    match t.shape() {
        [] => Value::from(v[0]),
        [_] => Value::from(v),
        [_, cols] => Value::from(v.chunks(*cols).map(|r| r.to_vec()).collect::<Vec<_>>()),
        other => panic!("unexpected shape {other:?}"),
    }
}

#[test]
fn groups_and_buckets_match_tensorflow() {
    let want = expected();
    let cases = want["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 15);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let next = build(name, &g, &want)
            .make_one_shot_iterator()
            .unwrap()
            .get_next()
            .unwrap();
        let sess = Session::new(&g).unwrap();
        let runs = case["runs"].as_array().unwrap();
        for (k, r) in runs.iter().enumerate() {
            let got = run(&sess, &[&next[0]]);
            match (r.get("value"), got) {
                (Some(v), Ok(t)) => assert_eq!(&to_json(&t[0]), v, "{name} run {k}"),
                (None, Err(e)) => {
                    let tf = r["message"].as_str().unwrap();
                    if r["error"] == "InternalError" {
                        // TensorFlow wraps the failed assertion of the reduce function in
                        // Internal "from running user-defined function ..."; weir returns
                        // the assertion's own InvalidArgument.
                        assert_eq!(e.code(), Code::InvalidArgument, "{name} run {k}: {e}");
                        assert!(
                            e.message().contains("When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries)."),
                            "{name} run {k}: {e}"
                        );
                    } else {
                        assert_eq!(e.code(), Code::InvalidArgument, "{name} run {k}: {e}");
                        assert_eq!(e.message(), tf, "{name} run {k}");
                    }
                }
                (_, got) => panic!("{name} run {k}: expected {r}, got {got:?}"),
            }
        }
        if runs.last().and_then(|r| r.get("value")).is_some() {
            let end = run(&sess, &[&next[0]]).unwrap_err();
            assert_eq!(end.code(), Code::OutOfRange, "{name}: {end}");
        }
    }
}

#[test]
fn functions_must_return_int64_scalars_and_sizes_must_line_up() {
    let g = Graph::new();
    let r = Dataset::range(&g, 0, 4, 1).unwrap();
    let e = r
        .group_by_window(|x| weir_ops::math::cast(&x[0], DType::I32), batch10, 2)
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its \
         return type is TensorSpec(shape=(), dtype=tf.int32, name=None)."
    );
    let e = r
        .group_by_window_with(
            |x| Ok(x[0].clone()),
            batch10,
            |k| weir_ops::array::stack(&[k.clone(), k.clone()], 0),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Invalid `window_size_func`. `window_size_func` must return a single `tf.int64` scalar \
         tensor but its return type is TensorSpec(shape=(2,), dtype=tf.int64, name=None)."
    );
    let e = r
        .bucket_by_sequence_length(
            |x| Ok(x[0].clone()),
            &[3, 5],
            &[2, 2],
            BucketOptions::default(),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but \
         `len(bucket_batch_sizes)=2` and `len(bucket_boundaries)=2`."
    );
}
