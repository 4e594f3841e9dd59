//! `tf.data.experimental.group_by_reducer` against what TensorFlow 2.21 returned
//! (`tests/data/tfdata_group_reducer`, written by `make_group_reducer.py` there): each
//! pipeline's output types and shapes, its runs one by one, or the error building it raised.

use std::path::PathBuf;

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{concat, constant, fill, gather, reshape, stack, zeros};
use weir_ops::data::{Dataset, Reducer};
use weir_ops::math::{add, cast, floormod, mul, range_from, sub, truediv};
use weir_session::Session;

use crate::io_util::{run, shape_of};

fn expected() -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tfdata_group_reducer/expected.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

fn int(x: &Output, v: i64) -> Result<Output> {
    constant(x.graph(), v)
}

/// `x % m` of an element's first component.
fn modulo(m: i64) -> impl Fn(&[Output]) -> Result<Output> {
    move |x| floormod(&x[0], int(&x[0], m)?)
}

fn zero(k: &Output) -> Result<Vec<Output>> {
    Ok(vec![int(k, 0)?])
}

fn key_state(k: &Output) -> Result<Vec<Output>> {
    Ok(vec![k.clone()])
}

fn sum(s: &[Output], x: &[Output]) -> Result<Vec<Output>> {
    Ok(vec![add(&s[0], &x[0])?])
}

fn same(s: &[Output]) -> Result<Vec<Output>> {
    Ok(s.to_vec())
}

fn sum_and_count(s: &[Output], x: &[Output]) -> Result<Vec<Output>> {
    Ok(vec![add(&s[0], &x[0])?, add(&s[1], int(&s[1], 1)?)?])
}

fn zeros2(k: &Output) -> Result<Vec<Output>> {
    Ok(vec![int(k, 0)?, int(k, 0)?])
}

/// The pipeline `make_group_reducer.py` builds under `name`.
fn build(name: &str, g: &Graph, want: &Value) -> Result<Dataset> {
    let r = |n: i64| Dataset::range(g, 0, n, 1);
    match name {
        "parity_count" => r(10)?.group_by_reducer(
            modulo(2),
            Reducer::new(zero, |s, _| Ok(vec![add(&s[0], int(&s[0], 1)?)?]), same),
        ),
        "parity_sum" => r(10)?.group_by_reducer(modulo(2), Reducer::new(zero, sum, same)),
        "tuple_state" => {
            r(10)?.group_by_reducer(modulo(3), Reducer::new(zeros2, sum_and_count, same))
        }
        "finalize_changes_dtype_and_shape" => r(10)?.group_by_reducer(
            modulo(3),
            Reducer::new(zeros2, sum_and_count, |s| {
                Ok(vec![
                    truediv(cast(&s[0], DType::F32)?, cast(&s[1], DType::F32)?)?,
                    stack(&[s[0].clone(), s[1].clone()], 0)?,
                ])
            }),
        ),
        "keys_ascending" => {
            let keys: Vec<i64> = want["keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_i64().unwrap())
                .collect();
            let keys = Tensor::from(keys);
            r(12)?.group_by_reducer(
                move |x| gather(constant(x[0].graph(), keys)?, &x[0], 0),
                Reducer::new(
                    zero,
                    |s, x| Ok(vec![add(mul(&s[0], int(&s[0], 100)?)?, &x[0])?]),
                    same,
                ),
            )
        }
        "init_uses_key" => r(8)?.group_by_reducer(
            modulo(4),
            Reducer::new(|k| Ok(vec![mul(k, int(k, 1000)?)?]), sum, same),
        ),
        "captured_tensors" => {
            let offset = constant(g, 7i64)?;
            let (o1, o2, o3, o4) = (offset.clone(), offset.clone(), offset.clone(), offset);
            r(9)?.group_by_reducer(
                move |x| floormod(add(&x[0], &o1)?, int(&x[0], 3)?),
                Reducer::new(
                    move |k| Ok(vec![mul(k, &o2)?]),
                    move |s, x| Ok(vec![add(&s[0], mul(&x[0], &o3)?)?]),
                    move |s| Ok(vec![sub(&s[0], &o4)?]),
                ),
            )
        }
        "tuple_elements" => {
            let elements = r(6)?.map(|x| {
                let half = mul(cast(&x[0], DType::F32)?, constant(x[0].graph(), 0.5f32)?)?;
                Ok(vec![x[0].clone(), half])
            })?;
            elements.group_by_reducer(
                modulo(2),
                Reducer::new(
                    |k| Ok(vec![int(k, 0)?, constant(k.graph(), 0.0f32)?]),
                    |s, e| Ok(vec![add(&s[0], &e[0])?, add(&s[1], &e[1])?]),
                    same,
                ),
            )
        }
        "single_key" => r(5)?.group_by_reducer(
            |x| int(&x[0], 5),
            Reducer::new(
                key_state,
                |s, x| Ok(vec![add(mul(&s[0], int(&s[0], 10)?)?, &x[0])?]),
                same,
            ),
        ),
        "state_grows" => r(7)?.group_by_reducer(
            modulo(3),
            Reducer::new(
                |k| Ok(vec![zeros(k.graph(), DType::I64, &[0])?]),
                |s, x| {
                    Ok(vec![concat(
                        &[s[0].clone(), reshape(&x[0], vec![1i64])?],
                        0,
                    )?])
                },
                same,
            ),
        ),
        "state_rank_changes" => r(6)?.group_by_reducer(
            modulo(2),
            Reducer::new(
                key_state,
                |s, x| Ok(vec![reshape(add(&s[0], &x[0])?, vec![-1i64])?]),
                same,
            ),
        ),
        "empty_input" => r(0)?.group_by_reducer(modulo(2), Reducer::new(zero, sum, same)),
        "key_not_scalar_at_run" => r(5)?.group_by_reducer(
            |x| {
                let dims = range_from(
                    &int(&x[0], 0)?,
                    &floormod(&x[0], int(&x[0], 2)?)?,
                    &int(&x[0], 1)?,
                )?;
                fill(dims, &x[0])
            },
            Reducer::new(key_state, sum, same),
        ),
        "key_int32" => r(5)?.group_by_reducer(
            |x| cast(floormod(&x[0], int(&x[0], 2)?)?, DType::I32),
            Reducer::new(key_state, sum, same),
        ),
        "key_vector" => r(5)?.group_by_reducer(
            |x| stack(&[x[0].clone(), x[0].clone()], 0),
            Reducer::new(key_state, sum, same),
        ),
        "reduce_wrong_dtype" => r(5)?.group_by_reducer(
            modulo(2),
            Reducer::new(
                key_state,
                |s, x| Ok(vec![cast(add(&s[0], &x[0])?, DType::I32)?]),
                same,
            ),
        ),
        "reduce_wrong_dtype_tuple" => r(5)?.group_by_reducer(
            modulo(2),
            Reducer::new(
                |k| Ok(vec![k.clone(), constant(k.graph(), 1.0f32)?]),
                |s, x| Ok(vec![add(&s[0], &x[0])?, constant(s[0].graph(), 1i32)?]),
                |s| Ok(vec![s[0].clone()]),
            ),
        ),
        "reduce_too_few_components" => r(5)?.group_by_reducer(
            modulo(2),
            Reducer::new(
                |k| Ok(vec![k.clone(), k.clone()]),
                |s, x| Ok(vec![add(&s[0], &x[0])?]),
                |s| Ok(vec![s[0].clone()]),
            ),
        ),
        "reduce_too_many_components" => r(5)?.group_by_reducer(
            modulo(2),
            Reducer::new(
                key_state,
                |s, x| Ok(vec![add(&s[0], &x[0])?, s[0].clone()]),
                same,
            ),
        ),
        other => panic!("unknown case {other}"),
    }
}

/// A component's value as `tolist()` gives it: nested lists of numbers.
fn to_json(t: &Tensor) -> Value {
    let flat: Vec<Value> = match t.dtype() {
        DType::I64 => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::I32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(|x| Value::from(f64::from(x)))
            .collect(),
        other => panic!("unexpected dtype {other}"),
    };
    nest(&flat, t.shape())
}

fn nest(flat: &[Value], shape: &[usize]) -> Value {
    match shape {
        [] => flat[0].clone(),
        [_] => Value::from(flat.to_vec()),
        [n, rest @ ..] => {
            let size = flat.len() / n.max(&1);
            Value::from(
                (0..*n)
                    .map(|i| nest(&flat[i * size..(i + 1) * size], rest))
                    .collect::<Vec<_>>(),
            )
        }
    }
}

/// Cases TensorFlow builds although the reduce function's state has more or fewer components
/// than the initial state's (its runs then misread the state): weir rejects them when built.
const STATE_COUNT_MISMATCH: [(&str, usize, usize); 2] = [
    ("reduce_too_few_components", 1, 2),
    ("reduce_too_many_components", 2, 1),
];

#[test]
fn group_by_reducer_matches_tensorflow() {
    let want = expected();
    let cases = want["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 19);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let g = Graph::new();
        let built = build(name, &g, &want);
        if let Some(&(_, new, old)) = STATE_COUNT_MISMATCH.iter().find(|c| c.0 == name) {
            let e = built.unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
            assert_eq!(
                e.message(),
                format!(
                    "Invalid `reducer`. The new state has {new} components but the initial \
                     state has {old}."
                ),
                "{name}"
            );
            continue;
        }
        if let Some(err) = case.get("build_error") {
            // TensorFlow's Python raises TypeError or ValueError; weir, InvalidArgument.
            let e = built.unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
            assert_eq!(e.message(), err["message"].as_str().unwrap(), "{name}");
            continue;
        }
        let ds = built.unwrap_or_else(|e| panic!("{name}: {e}"));
        let types: Vec<&str> = ds.output_types().iter().map(|d| d.python_name()).collect();
        let want_types: Vec<&str> = case["output_types"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(types, want_types, "{name}");
        let want_shapes: Vec<Shape> = case["output_shapes"]
            .as_array()
            .unwrap()
            .iter()
            .map(shape_of)
            .collect();
        assert_eq!(ds.output_shapes(), want_shapes.as_slice(), "{name}");

        let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
        let fetches: Vec<&Output> = next.iter().collect();
        let sess = Session::new(&g).unwrap();
        let runs = case["runs"].as_array().unwrap();
        for (k, r) in runs.iter().enumerate() {
            let got = run(&sess, &fetches);
            match (r.get("value"), got) {
                (Some(v), Ok(t)) => {
                    let got: Vec<Value> = t.iter().map(to_json).collect();
                    assert_eq!(&Value::from(got), v, "{name} run {k}");
                }
                (None, Err(e)) => {
                    assert_eq!(r["error"], "InvalidArgumentError", "{name} run {k}");
                    assert_eq!(e.code(), Code::InvalidArgument, "{name} run {k}: {e}");
                    assert_eq!(
                        e.message(),
                        r["message"].as_str().unwrap(),
                        "{name} run {k}"
                    );
                }
                (_, got) => panic!("{name} run {k}: expected {r}, got {got:?}"),
            }
        }
        let end = run(&sess, &fetches).unwrap_err();
        assert_eq!(end.code(), Code::OutOfRange, "{name}: {end}");
    }
}

#[test]
fn a_new_iterator_starts_over() -> Result<()> {
    // Each initialization of the iterator reads the input again, from its start.
    let g = Graph::new();
    let ds =
        Dataset::range(&g, 0, 6, 1)?.group_by_reducer(modulo(2), Reducer::new(zero, sum, same))?;
    let it = ds.make_initializable_iterator()?;
    let next = it.get_next()?;
    let sess = Session::new(&g)?;
    for _ in 0..2 {
        sess.run(&weir_session::RunArgs::new().target(&it.initializer()?))?;
        let got: Vec<i64> = (0..2)
            .map(|_| run(&sess, &[&next[0]]).unwrap()[0].to_vec::<i64>().unwrap()[0])
            .collect();
        assert_eq!(got, vec![6, 9]);
        assert_eq!(
            run(&sess, &[&next[0]]).unwrap_err().code(),
            Code::OutOfRange
        );
    }
    Ok(())
}
