//! `ignore_errors`, `get_single_element`, `take_while`, `unique`, `choose_from_datasets` and
//! `scan` against TensorFlow 2.21 (tf.compat.v1 graph mode): every case of
//! `data/tfdata_more/expected.json` (written by `make_more.py` there) is built here again under
//! the same name and must give TensorFlow's static shapes, elements, errors among them and end
//! (OutOfRange "End of sequence" or the error's code and message), or TensorFlow's build-time
//! error message (a Python TypeError or ValueError is InvalidArgument here). Every run has a
//! timeout.

use std::time::Duration;

use serde_json::{json, Value};
use weir_graph::{Code, DType, Error, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{
    check_numerics, concat, constant, expand_dims, fill, placeholder_with_default, stack,
};
use weir_ops::data::Dataset;
use weir_ops::math::{add, cast, equal, greater, less, mul, sub, truediv};
use weir_ops::string::string_join;
use weir_session::{RunArgs, Session};

use crate::parsing_support::code_of;

/// How long any run in these tests may take before the test fails.
const BOUND: Duration = Duration::from_secs(20);

fn doc() -> Value {
    serde_json::from_str(include_str!("../data/tfdata_more/expected.json")).unwrap()
}

fn c(g: &Graph, t: impl Into<Tensor>) -> Result<Output> {
    constant(g, t.into())
}

fn slices(g: &Graph, t: impl Into<Tensor>) -> Result<Dataset> {
    Dataset::from_tensor_slices(&[c(g, t)?])
}

fn tensors(g: &Graph, t: impl Into<Tensor>) -> Result<Dataset> {
    Dataset::from_tensors(&[c(g, t)?])
}

fn range(g: &Graph, start: i64, stop: i64) -> Result<Dataset> {
    Dataset::range(g, start, stop, 1)
}

fn ch(g: &Graph, v: Vec<i64>) -> Result<Dataset> {
    slices(g, v)
}

/// `check_numerics(1 / x, message)`.
fn recip(x: &Output, message: &str) -> Result<Output> {
    let one = constant(x.graph(), 1.0f32)?;
    check_numerics(truediv(one, x)?, message)
}

/// 1.0, error, 0.5, error, 0.33333334.
fn failing(g: &Graph) -> Result<Dataset> {
    slices(g, vec![1.0f32, 0.0, 2.0, 0.0, 3.0])?.map(|x| Ok(vec![recip(&x[0], "boom")?]))
}

/// 1, error, 0, error, 0.
fn failing_i64(g: &Graph) -> Result<Dataset> {
    failing(g)?.map(|x| Ok(vec![cast(&x[0], DType::I64)?]))
}

/// `check_numerics(1 / x, "p") > 0.4`.
fn recip_pred(x: &[Output]) -> Result<Output> {
    greater(recip(&x[0], "p")?, constant(x[0].graph(), 0.4f32)?)
}

/// `fill(dims, value)` with `dims` the stacked int64 scalars.
fn fill_dims(dims: &[Output], value: &Output) -> Result<Output> {
    fill(stack(dims, 0)?, value)
}

fn i64c(x: &Output, v: i64) -> Result<Output> {
    constant(x.graph(), v)
}

/// `tf.concat([s, [x]], 0)`.
fn append(s: &Output, x: &Output) -> Result<Output> {
    concat(&[s.clone(), stack(std::slice::from_ref(x), 0)?], 0)
}

type Cfd = fn(&[Dataset], &Dataset, bool) -> Result<Dataset>;

/// The pipeline of case `name`, as make_more.py builds it.
fn build(g: &Graph, name: &str) -> Result<Dataset> {
    let cfd: Cfd = Dataset::choose_from_datasets;
    let f32s = |v: Vec<f32>| slices(g, v);
    match name {
        // ignore_errors
        "ie_map" | "ie_experimental" => failing(g)?.ignore_errors(),
        "ie_log" => failing(g)?.ignore_errors_with(true),
        "ie_no_errors" => range(g, 0, 3)?.ignore_errors(),
        "ie_all_fail" => f32s(vec![0.0, 0.0])?
            .map(|x| Ok(vec![recip(&x[0], "boom")?]))?
            .ignore_errors(),
        "ie_step_zero" => Dataset::range(g, 0, 5, 0)?.ignore_errors(),
        "ie_batch" => failing(g)?.batch(2)?.ignore_errors(),
        "ie_take_while" => f32s(vec![1.0, 2.0, 0.0, 3.0, 0.5])?
            .take_while(recip_pred)?
            .ignore_errors(),
        "ie_choose" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &ch(g, vec![0, 2, 1, 5, 0])?,
            true,
        )?
        .ignore_errors(),
        // get_single_element (the dataset; check() adds the op)
        "gse_one" => range(g, 0, 1),
        "gse_empty" => range(g, 0, 0),
        "gse_two" => range(g, 0, 2),
        "gse_tuple" => Dataset::from_tensors(&[c(g, vec![1i32, 2])?, c(g, "a")?]),
        "gse_batch" => range(g, 0, 5)?.batch(5),
        "gse_error" => failing(g),
        "gse_second_error" => f32s(vec![1.0, 0.0])?.map(|x| Ok(vec![recip(&x[0], "boom")?])),
        "gse_filtered" => range(g, 0, 10)?.filter(|x| equal(&x[0], i64c(&x[0], 7)?)),
        // take_while
        "tw_less" => range(g, 0, 10)?.take_while(|x| less(&x[0], i64c(&x[0], 4)?)),
        "tw_none" => range(g, 0, 10)?.take_while(|x| less(&x[0], i64c(&x[0], 0)?)),
        "tw_all" => range(g, 0, 3)?.take_while(|x| less(&x[0], i64c(&x[0], 100)?)),
        "tw_captured" => {
            let limit = mul(c(g, 3i64)?, c(g, 2i64)?)?;
            range(g, 0, 10)?.take_while(|x| less(&x[0], &limit))
        }
        "tw_pair" => Dataset::zip(&[range(g, 0, 10)?, Dataset::range(g, 10, 0, -1)?])?
            .take_while(|x| less(&x[0], &x[1])),
        "tw_not_bool" => range(g, 0, 10)?.take_while(|x| Ok(x[0].clone())),
        "tw_vector" => range(g, 0, 10)?.take_while(|x| {
            stack(
                &[less(&x[0], i64c(&x[0], 4)?)?, less(&x[0], i64c(&x[0], 3)?)?],
                0,
            )
        }),
        "tw_predicate_error" => f32s(vec![1.0, 2.0, 0.0, 3.0])?.take_while(recip_pred),
        "tw_input_error" => {
            failing(g)?.take_while(|x| less(&x[0], constant(x[0].graph(), 100.0f32)?))
        }
        "tw_repeat" => range(g, 0, 3)?
            .take_while(|x| less(&x[0], i64c(&x[0], 2)?))?
            .repeat(Some(2)),
        // unique
        "un_int32" => slices(g, vec![1i32, 2, 1, 3, 2, 4])?.unique(),
        "un_int64" => range(g, 0, 4)?.repeat(Some(3))?.unique(),
        "un_string" => slices(g, Tensor::from_strings(&["a", "b", "a", "c", ""]))?.unique(),
        "un_float" => f32s(vec![1.0, 2.0])?.unique(),
        "un_int8" => slices(g, vec![1i8, 2])?.unique(),
        "un_pair" => Dataset::zip(&[range(g, 0, 3)?, range(g, 0, 3)?])?.unique(),
        "un_vectors" => slices(
            g,
            Tensor::from_vec(&[4, 2], vec![1i32, 2, 1, 2, 3, 4, 2, 1])?,
        )?
        .unique(),
        "un_experimental" => range(g, 0, 3)?.repeat(Some(2))?.unique(),
        "un_ragged" => slices(g, vec![1i64, 2, 1, 2, 3])?
            .map(|x| Ok(vec![fill_dims(&x[..1], &x[0])?]))?
            .unique(),
        "un_shapes" => slices(g, vec![1i64, 2, 1, 0])?
            .map(|x| {
                // tf.fill([x, 1], 7); weir's Fill infers [None, None] from a stacked `[x, 1]`,
                // so the column is added by expand_dims to keep TensorFlow's static [None, 1].
                let seven = constant(x[0].graph(), 7i32)?;
                Ok(vec![expand_dims(fill_dims(&x[..1], &seven)?, -1)?])
            })?
            .concatenate(&tensors(g, Tensor::from_vec(&[1, 1], vec![7i32])?)?)?
            .concatenate(&tensors(g, Tensor::from_vec(&[2, 1], vec![7i32, 7])?)?)?
            .unique(),
        "un_scalar_vs_vector" => tensors(g, 1i32)?
            .concatenate(&tensors(g, vec![1i32])?)?
            .unique(),
        "un_empty" => range(g, 0, 0)?.unique(),
        "un_error" => failing_i64(g)?.unique(),
        // choose_from_datasets
        "cfd_basic" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &ch(g, vec![0, 1, 1, 0, 0, 1])?,
            true,
        ),
        "cfd_stop_true" | "cfd_stop_false" => cfd(
            &[range(g, 0, 2)?, range(g, 10, 13)?],
            &ch(g, vec![0, 0, 0, 1, 1])?,
            name == "cfd_stop_true",
        ),
        "cfd_all_empty_false" => cfd(
            &[range(g, 0, 1)?, range(g, 10, 11)?],
            &ch(g, vec![0, 1, 0, 1, 0, 1, 1])?,
            false,
        ),
        "cfd_forever_false" | "cfd_forever_true" => cfd(
            &[range(g, 0, 1)?, range(g, 10, 11)?],
            &ch(g, vec![0, 1])?.repeat(None)?,
            name == "cfd_forever_true",
        ),
        "cfd_index_range" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &ch(g, vec![0, 2, 1, 5, 0])?,
            true,
        ),
        "cfd_index_negative" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &ch(g, vec![0, -1, 1])?,
            true,
        ),
        "cfd_choice_int32" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &slices(g, vec![0i32, 1])?,
            true,
        ),
        "cfd_choice_float" => cfd(&[range(g, 0, 3)?], &f32s(vec![0.0])?, true),
        "cfd_choice_vector" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &tensors(g, vec![0i64, 1])?,
            true,
        ),
        "cfd_choice_pair" => cfd(
            &[range(g, 0, 3)?],
            &Dataset::zip(&[ch(g, vec![0])?, ch(g, vec![0])?])?,
            true,
        ),
        "cfd_dtype" => cfd(
            &[range(g, 0, 3)?, f32s(vec![1.0])?],
            &ch(g, vec![0, 1])?,
            true,
        ),
        "cfd_structure" => cfd(
            &[
                range(g, 0, 3)?,
                Dataset::zip(&[range(g, 0, 1)?, range(g, 0, 1)?])?,
            ],
            &ch(g, vec![0, 1])?,
            true,
        ),
        "cfd_third" => cfd(
            &[
                range(g, 0, 3)?,
                range(g, 0, 3)?,
                slices(g, Tensor::from_strings(&["a"]))?,
            ],
            &ch(g, vec![0])?,
            true,
        ),
        "cfd_both_bad" => cfd(
            &[range(g, 0, 3)?, slices(g, Tensor::from_strings(&["a"]))?],
            &slices(g, vec![0i32])?,
            true,
        ),
        "cfd_empty_list" => cfd(&[], &ch(g, vec![0])?, true),
        "cfd_shapes" => cfd(
            &[
                slices(g, Tensor::from_vec(&[1, 2], vec![1i32, 2])?)?,
                slices(g, Tensor::from_vec(&[1, 3], vec![1i32, 2, 3])?)?,
            ],
            &ch(g, vec![0, 1])?,
            true,
        ),
        "cfd_ranks" => cfd(
            &[tensors(g, vec![1i32, 2])?, tensors(g, 5i32)?],
            &ch(g, vec![0, 1])?,
            true,
        ),
        "cfd_one" => cfd(&[range(g, 0, 3)?], &ch(g, vec![0, 0])?, true),
        "cfd_input_error" => cfd(
            &[failing_i64(g)?, range(g, 10, 13)?],
            &ch(g, vec![0, 0, 1, 0])?,
            true,
        ),
        "cfd_choice_error" => cfd(
            &[range(g, 0, 3)?, range(g, 10, 13)?],
            &failing_i64(g)?,
            true,
        ),
        "cfd_pairs" => cfd(
            &[
                Dataset::zip(&[range(g, 0, 3)?, range(g, 0, 3)?])?,
                Dataset::zip(&[range(g, 10, 13)?, range(g, 10, 13)?])?,
            ],
            &ch(g, vec![1, 0])?,
            true,
        ),
        "cfd_strings" | "cfd_strings_false" => cfd(
            &[
                slices(g, Tensor::from_strings(&["a", "b"]))?,
                slices(g, Tensor::from_strings(&["x"]))?,
            ],
            &ch(g, vec![1, 0, 1, 0])?,
            name == "cfd_strings",
        ),
        "cfd_choice_empty" => cfd(&[range(g, 0, 3)?], &ch(g, vec![])?, true),
        // scan
        "sc_sum" => range(g, 0, 5)?.scan(&[c(g, 0i64)?], |s, x| {
            let ten = i64c(&x[0], 10)?;
            Ok((vec![add(&s[0], &x[0])?], vec![mul(&s[0], ten)?]))
        }),
        "sc_pair" => {
            let words = slices(g, Tensor::from_strings(&["a", "b", "c", "d"]))?;
            Dataset::zip(&[range(g, 0, 4)?, words])?.scan(&[c(g, 0i64)?, c(g, "")?], |s, x| {
                let state = vec![
                    add(&s[0], &x[0])?,
                    string_join(&[s[1].clone(), x[1].clone()], "")?,
                ];
                Ok((state, vec![s[0].clone(), s[1].clone(), x[0].clone()]))
            })
        }
        "sc_dtype" => range(g, 0, 5)?.scan(&[c(g, 0i32)?], |s, x| {
            Ok((vec![cast(&x[0], DType::I64)?], vec![s[0].clone()]))
        }),
        "sc_growing" => range(g, 1, 4)?.scan(&[c(g, vec![0i64])?], |s, x| {
            Ok((vec![append(&s[0], &x[0])?], vec![s[0].clone()]))
        }),
        "sc_relaxed" => {
            let init = placeholder_with_default(c(g, vec![0i64])?, Shape::new(vec![None]))?;
            range(g, 1, 4)?.scan(&[init], |s, x| {
                Ok((vec![append(&s[0], &x[0])?], vec![s[0].clone()]))
            })
        }
        "sc_input_error" => failing(g)?.scan(&[c(g, 0.0f32)?], |s, x| {
            Ok((vec![add(&s[0], &x[0])?], vec![s[0].clone()]))
        }),
        "sc_function_error" => range(g, 0, 3)?.scan(&[c(g, 1.0f32)?], |s, _x| {
            let zero = constant(s[0].graph(), 0.0f32)?;
            let st = check_numerics(truediv(&s[0], zero)?, "st")?;
            Ok((vec![st], vec![s[0].clone()]))
        }),
        "sc_forever_take" => range(g, 0, 3)?
            .repeat(None)?
            .scan(&[c(g, 1i64)?], |s, _x| {
                let two = i64c(&s[0], 2)?;
                Ok((vec![mul(&s[0], two)?], vec![s[0].clone()]))
            })?
            .take(6),
        "sc_captured" => {
            let (ten, one) = (c(g, 10i64)?, c(g, 1i64)?);
            range(g, 0, 4)?.scan(&[c(g, 0i64)?], |s, x| {
                Ok((
                    vec![add(&s[0], mul(&x[0], &ten)?)?],
                    vec![add(&s[0], &one)?],
                ))
            })
        }
        "sc_experimental" => range(g, 0, 4)?.scan(&[c(g, 100i64)?], |s, x| {
            Ok((vec![sub(&s[0], &x[0])?], vec![s[0].clone(), x[0].clone()]))
        }),
        other => Err(Error::unimplemented(format!(
            "no pipeline for case {other}"
        ))),
    }
}

/// A component as make_more.py records it: `{dtype, shape, data}`.
fn encode(t: &Tensor) -> Value {
    let data = match t.dtype() {
        DType::I64 => json!(t.to_vec::<i64>().unwrap()),
        DType::I32 => json!(t.to_vec::<i32>().unwrap()),
        DType::F32 => json!(t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect::<Vec<_>>()),
        DType::String => json!(t.to_strings().unwrap()),
        DType::Bool => json!(t.to_vec::<bool>().unwrap()),
        other => panic!("unexpected dtype {other}"),
    };
    let dtype = match t.dtype() {
        DType::String => "string",
        d => d.python_name(),
    };
    json!({"dtype": dtype, "shape": t.shape(), "data": data})
}

fn shape_json(s: &Shape) -> Value {
    match s.dims() {
        None => Value::Null,
        Some(d) => json!(d),
    }
}

/// Checks `got` against TensorFlow's `{class, message}`. TensorFlow puts "Error in
/// user-defined function passed to MapDataset:<n> transformation with iterator: <path>: "
/// before a map function's own message; weir gives the function's message alone.
fn check_error(name: &str, got: &Error, want: &Value) {
    let (class, message) = (
        want["class"].as_str().unwrap(),
        want["message"].as_str().unwrap(),
    );
    assert_eq!(got.code(), code_of(class), "{name}: {got}");
    if message.starts_with("Error in user-defined function passed to MapDataset:") {
        assert!(
            message.ends_with(&format!(": {}", got.message())),
            "{name}: {got} is not the end of {message:?}"
        );
    } else {
        assert_eq!(got.message(), message, "{name}");
    }
}

fn is_continued(item: &Value) -> bool {
    item.get("error").is_some()
}

/// Checks one case against TensorFlow's record.
fn check(name: &str, want: &Value) {
    let g = Graph::new();
    let built = build(&g, name);
    if let Some(e) = want.get("build_error") {
        check_error(name, &built.expect_err(name), e);
        return;
    }
    let ds = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let shapes: Vec<Value> = ds.output_shapes().iter().map(shape_json).collect();
    assert_eq!(Value::from(shapes), want["shapes"], "{name}: static shapes");
    let sess = Session::new(&g).unwrap();
    if name.starts_with("gse_") {
        let outs = ds.get_single_element().unwrap();
        let shapes: Vec<Value> = outs.iter().map(|o| shape_json(&o.shape())).collect();
        assert_eq!(Value::from(shapes), want["shapes"], "{name}: op shapes");
        let mut args = RunArgs::new().timeout(BOUND);
        for o in &outs {
            args = args.fetch(o);
        }
        match (sess.run(&args), want.get("error")) {
            (Ok(v), None) => assert_eq!(
                Value::from(v.iter().map(encode).collect::<Vec<_>>()),
                want["value"],
                "{name}"
            ),
            (Err(e), Some(w)) => check_error(name, &e, w),
            (got, _) => panic!("{name}: got {got:?}, TensorFlow {want}"),
        }
        return;
    }
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let mut args = RunArgs::new().timeout(BOUND);
    for o in &next {
        args = args.fetch(o);
    }
    let want_items = want["items"].as_array().unwrap();
    let continues = want_items.iter().any(is_continued);
    let mut got = 0;
    let end = loop {
        assert!(
            got <= want_items.len(),
            "{name}: more items than TensorFlow's"
        );
        match sess.run(&args) {
            Ok(v) => {
                let v = Value::from(v.iter().map(encode).collect::<Vec<_>>());
                assert_eq!(Some(&v), want_items.get(got), "{name}: item {got}");
            }
            Err(e) if continues && !e.is_out_of_range() => {
                let w = want_items.get(got).and_then(|w| w.get("error"));
                let w = w.unwrap_or_else(|| panic!("{name}: item {got} is an error: {e}"));
                check_error(name, &e, w);
            }
            Err(e) => break e,
        }
        got += 1;
    };
    assert_eq!(
        got,
        want_items.len(),
        "{name}: items before the end ({end})"
    );
    check_error(name, &end, &want["end"]);
}

#[test]
fn more_transformations_match_tensorflow() {
    let doc = doc();
    assert_eq!(doc["tensorflow"], "2.21.0");
    let cases = doc["cases"].as_object().unwrap();
    assert_eq!(cases.len(), 76);
    let failed: Vec<&String> = cases
        .iter()
        .filter(|(name, want)| std::panic::catch_unwind(|| check(name, want)).is_err())
        .map(|(name, _)| name)
        .collect();
    assert!(failed.is_empty(), "cases unlike TensorFlow: {failed:?}");
}

/// `range(10)` mapped through a function that waits for a value from a queue nothing is
/// enqueued to, and the queue.
fn blocked_map(g: &Graph) -> (Dataset, weir_ops::data_flow::Queue) {
    let q = weir_ops::data_flow::FifoQueue::new(10, &[DType::I64])
        .build(g)
        .unwrap();
    let ds = range(g, 0, 10)
        .unwrap()
        .map(|x| Ok(vec![add(&x[0], &q.dequeue()?[0])?]))
        .unwrap();
    (ds, q)
}

/// A cancellation is not an error to drop: closing the session ends a get_next whose map
/// function waits in a queue. (A run's timeout does not reach into a dataset function's call
/// in weir, so the wait is ended by the session's close here.)
#[test]
fn ignore_errors_passes_a_cancellation_through() {
    let g = Graph::new();
    let (ds, _q) = blocked_map(&g);
    let it = ds
        .ignore_errors()
        .unwrap()
        .make_one_shot_iterator()
        .unwrap();
    let fetch = it.get_next().unwrap()[0].clone();
    let sess = Session::new(&g).unwrap();
    let handle = sess.handle();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        tx.send(handle.run(&RunArgs::new().fetch(&fetch).timeout(BOUND)))
            .unwrap();
    });
    assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    sess.close();
    let e = rx
        .recv_timeout(BOUND)
        .expect("get_next did not return after the session closed")
        .unwrap_err();
    assert_eq!(e.code(), Code::Cancelled, "{e}");
    waiter.join().unwrap();
}

/// An input that fails on every element: TensorFlow's ignore_errors loops until the input ends
/// (here: practically never); weir's ends too with the run's deadline or cancellation.
#[test]
fn ignore_errors_of_endless_failures_honours_the_run_timeout_and_session_close() {
    let g = Graph::new();
    let ds = Dataset::range(&g, 1, i64::MAX, 1)
        .unwrap()
        .map(|x| {
            let zero = i64c(&x[0], 0)?;
            Ok(vec![recip(&cast(mul(&x[0], zero)?, DType::F32)?, "boom")?])
        })
        .unwrap()
        .ignore_errors()
        .unwrap();
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let started = std::time::Instant::now();
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&next[0])
                .timeout(Duration::from_millis(200)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    assert!(started.elapsed() < BOUND);

    let handle = sess.handle();
    let (tx, rx) = std::sync::mpsc::channel();
    let fetch = next[0].clone();
    let waiter = std::thread::spawn(move || {
        tx.send(handle.run(&RunArgs::new().fetch(&fetch).timeout(BOUND)))
            .unwrap();
    });
    assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
    sess.close();
    let e = rx
        .recv_timeout(BOUND)
        .expect("get_next did not return after the session closed")
        .unwrap_err();
    assert_eq!(e.code(), Code::Cancelled, "{e}");
    waiter.join().unwrap();
}

/// A dataset that never yields (a filter that drops everything of an endless range):
/// get_single_element ends with the run's deadline.
#[test]
fn get_single_element_honours_the_run_timeout() {
    let g = Graph::new();
    let ds = Dataset::range(&g, 0, i64::MAX, 1)
        .unwrap()
        .filter(|x| less(&x[0], i64c(&x[0], 0)?))
        .unwrap();
    let outs = ds.get_single_element().unwrap();
    let sess = Session::new(&g).unwrap();
    let started = std::time::Instant::now();
    let e = sess
        .run(
            &RunArgs::new()
                .fetch(&outs[0])
                .timeout(Duration::from_millis(100)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    assert!(started.elapsed() < BOUND);
}

/// Each run of the op reads the dataset afresh, and an initializable iterator over a scan or a
/// choice starts again from the initial state.
#[test]
fn single_elements_and_reinitialized_iterators_start_afresh() -> Result<()> {
    let g = Graph::new();
    let outs = range(&g, 0, 4)?.batch(4)?.get_single_element()?;
    let sess = Session::new(&g)?;
    let fetch = RunArgs::new().fetch(&outs[0]).timeout(BOUND);
    for _ in 0..2 {
        assert_eq!(sess.run(&fetch)?[0].to_vec::<i64>()?, vec![0, 1, 2, 3]);
    }
    let choice = ch(&g, vec![1, 0, 1])?;
    let chosen =
        Dataset::choose_from_datasets(&[range(&g, 0, 3)?, range(&g, 10, 13)?], &choice, true)?;
    let ds = chosen.scan(&[c(&g, 0i64)?], |s, x| {
        let sum = add(&s[0], &x[0])?;
        Ok((vec![sum.clone()], vec![sum]))
    })?;
    let it = ds.make_initializable_iterator()?;
    let next = it.get_next()?;
    let fetch = RunArgs::new().fetch(&next[0]).timeout(BOUND);
    for _ in 0..2 {
        sess.run_target(&it.initializer()?)?;
        let mut got = Vec::new();
        let end = loop {
            match sess.run(&fetch) {
                Ok(v) => got.push(v[0].to_scalar::<i64>()?),
                Err(e) => break e,
            }
            assert!(got.len() <= 3);
        };
        assert_eq!(got, vec![10, 10, 21]);
        assert_eq!(end.code(), Code::OutOfRange);
    }
    Ok(())
}

/// The ops and attrs TensorFlow 2.21 emits in graph mode.
#[test]
fn ops_carry_tensorflows_names_and_attrs() -> Result<()> {
    let g = Graph::new();
    let choice = ch(&g, vec![0])?;
    let ds = Dataset::choose_from_datasets(&[range(&g, 0, 3)?, range(&g, 5, 6)?], &choice, false)?;
    let op = g.node(ds.handle().node_id());
    assert_eq!(op.op_type(), "DirectedInterleaveDataset");
    assert_eq!(op.attr::<i64>("N")?, 2);
    assert!(!op.attr::<bool>("stop_on_empty_dataset")?);
    assert_eq!(op.inputs().len(), 3);
    let scanned = ds.scan(&[c(&g, 0i64)?], |s, x| {
        Ok((vec![add(&s[0], &x[0])?], vec![s[0].clone()]))
    })?;
    let op = g.node(scanned.handle().node_id());
    assert_eq!(op.op_type(), "ScanDataset");
    assert_eq!(op.attr::<Vec<DType>>("Tstate")?, vec![DType::I64]);
    assert!(op.attr::<bool>("preserve_cardinality")?);
    assert!(op.attr::<bool>("use_default_device")?);
    let ignored = scanned.ignore_errors()?;
    let op = g.node(ignored.handle().node_id());
    assert_eq!(op.op_type(), "IgnoreErrorsDataset");
    assert!(!op.attr::<bool>("log_warning")?);
    let unique = ignored.unique()?;
    assert_eq!(g.node(unique.handle().node_id()).op_type(), "UniqueDataset");
    let taken = unique.take_while(|x| less(&x[0], i64c(&x[0], 3)?))?;
    assert_eq!(
        g.node(taken.handle().node_id()).op_type(),
        "TakeWhileDataset"
    );
    let single = taken.get_single_element()?;
    assert_eq!(
        g.node(single[0].node_id()).op_type(),
        "DatasetToSingleElement"
    );
    Ok(())
}

/// An error that does not move its input on: TensorFlow 2.21's TextLineDataset fails on a
/// missing file again each time ignore_errors asks, so the read never ends (seen with TF 2.21:
/// it hangs past the run's timeout). weir's does the same, and the run's deadline ends it.
#[test]
fn ignore_errors_over_a_missing_file_ends_with_the_run_timeout() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("weir_data_more_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, "x\ny\n").unwrap();
    let missing = dir.join("missing.txt");
    let g = Graph::new();
    let names = c(
        &g,
        Tensor::from_strings(&[missing.to_str().unwrap(), good.to_str().unwrap()]),
    )?;
    let ds = weir_ops::data::TextLineDataset::new(&names)
        .build()?
        .ignore_errors()?;
    let next = ds.make_one_shot_iterator()?.get_next()?;
    let sess = Session::new(&g)?;
    let fetch = RunArgs::new()
        .fetch(&next[0])
        .timeout(Duration::from_millis(500));
    let mut got = Vec::new();
    let end = loop {
        match sess.run(&fetch) {
            Ok(v) => got.push(v[0].to_strings()?[0].clone()),
            Err(e) => break e,
        }
        assert!(got.len() <= 2);
    };
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(got.is_empty(), "{got:?}");
    assert_eq!(end.code(), Code::DeadlineExceeded, "{end}");
    Ok(())
}
