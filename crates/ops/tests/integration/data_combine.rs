//! `Dataset.zip`, `concatenate`, `padded_batch`, `unbatch` and `enumerate` against TensorFlow
//! 2.21 (tf.compat.v1 graph mode): every case of `data/tfdata_combine/expected.json` (written by
//! `make_tfdata_combine.py` there) is built here again under the same name and must give
//! TensorFlow's static shapes, elements and end (OutOfRange "End of sequence" or the error's
//! code and message), or TensorFlow's build-time error message (a Python TypeError or
//! ValueError is InvalidArgument here).

use serde_json::{json, Value};
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{check_numerics, constant, fill, stack};
use weir_ops::data::Dataset;
use weir_ops::math::{cast, truediv};
use weir_ops::parsing::{parse_tensor, serialize_tensor};
use weir_session::{RunArgs, Session};

use crate::parsing_support::code_of;

fn doc() -> Value {
    serde_json::from_str(include_str!("../data/tfdata_combine/expected.json")).unwrap()
}

fn c(g: &Graph, t: impl Into<Tensor>) -> Result<Output> {
    constant(g, t.into())
}

fn slices(g: &Graph, t: impl Into<Tensor>) -> Result<Dataset> {
    Dataset::from_tensor_slices(&[c(g, t)?])
}

fn tensors(g: &Graph, ts: Vec<Tensor>) -> Result<Dataset> {
    let cs = ts
        .into_iter()
        .map(|t| constant(g, t))
        .collect::<Result<Vec<_>>>()?;
    Dataset::from_tensors(&cs)
}

fn range(g: &Graph, start: i64, stop: i64) -> Result<Dataset> {
    Dataset::range(g, start, stop, 1)
}

fn m(shape: &[usize], v: Vec<i32>) -> Tensor {
    Tensor::from_vec(shape, v).unwrap()
}

/// `fill([n], x)` as a map function's graph.
fn fill_n(n: &Output, x: &Output) -> Result<Output> {
    fill(stack(std::slice::from_ref(n), 0)?, x)
}

/// `[1], [2, 2], [3, 3, 3], [4, 4, 4, 4]`.
fn ragged(g: &Graph) -> Result<Dataset> {
    range(g, 1, 5)?.map(|x| Ok(vec![fill_n(&x[0], &x[0])?]))
}

/// `["a"], ["b", "b"], ["c", "c", "c"]`.
fn words(g: &Graph) -> Result<Dataset> {
    let w = slices(g, Tensor::from_strings(&["a", "b", "c"]))?;
    Dataset::zip(&[range(g, 1, 4)?, w])?.map(|x| Ok(vec![fill_n(&x[0], &x[1])?]))
}

/// `fill([x, 2], x)` for x in 1..3.
fn matrices(g: &Graph) -> Result<Dataset> {
    range(g, 1, 4)?.map(|x| {
        let two = constant(x[0].graph(), 2i64)?;
        fill(stack(&[x[0].clone(), two], 0)?, &x[0]).map(|t| vec![t])
    })
}

/// One int32 element of unknown static rank.
fn parsed(g: &Graph, t: Tensor) -> Result<Dataset> {
    let s = serialize_tensor(c(g, t)?)?;
    Dataset::from_tensors(&[s])?.map(|x| Ok(vec![parse_tensor(&x[0], DType::I32)?]))
}

/// Two float elements whose map fails (`check_numerics` of x / 0).
fn failing(g: &Graph) -> Result<Dataset> {
    slices(g, vec![1.0f32, 2.0])?.map(|x| {
        let zero = constant(x[0].graph(), 0.0f32)?;
        Ok(vec![check_numerics(truediv(&x[0], zero)?, "boom")?])
    })
}

fn pair(g: &Graph) -> Result<Dataset> {
    Dataset::zip(&[range(g, 0, 3)?, range(g, 0, 3)?])
}

fn s(dims: &[Option<usize>]) -> Shape {
    Shape::new(dims.to_vec())
}

/// The pipeline of case `name`, as make_tfdata_combine.py builds it.
fn build(g: &Graph, name: &str) -> Result<Dataset> {
    let i64c = |v: i64| c(g, v);
    let n = None;
    match name {
        "zip_two" => Dataset::zip(&[
            range(g, 0, 5)?,
            slices(g, Tensor::from_strings(&["a", "b", "c"]))?,
        ]),
        "zip_nested" => Dataset::zip(&[
            Dataset::zip(&[range(g, 0, 3)?, range(g, 10, 20)?])?,
            slices(g, Tensor::from_vec(&[2, 2], vec![1.5f32, 2.5, 3.5, 4.5])?)?,
        ]),
        "zip_shapes" => Dataset::zip(&[
            slices(g, m(&[2, 2], vec![1, 2, 3, 4]))?,
            range(g, 0, 10)?.batch(3)?,
        ]),
        "zip_empty_first" => Dataset::zip(&[range(g, 0, 0)?, failing(g)?]),
        "zip_error_first" => Dataset::zip(&[failing(g)?, range(g, 0, 0)?]),
        "zip_none" => Dataset::zip(&[]),
        "concat_ranges" => range(g, 0, 3)?
            .concatenate(&range(g, 0, 0)?)?
            .concatenate(&range(g, 10, 12)?),
        "concat_rows" => slices(g, m(&[2, 2], vec![1, 2, 3, 4]))?
            .concatenate(&slices(g, m(&[1, 3], vec![5, 6, 7]))?),
        "concat_rank" => tensors(g, vec![Tensor::from(vec![1i32, 2])])?
            .concatenate(&tensors(g, vec![Tensor::from(5i32)])?),
        "concat_pairs" => {
            let z = |rows: usize, v: f32| -> Result<Dataset> {
                let t = tensors(g, vec![Tensor::filled(&[rows, 3], v)])?;
                Dataset::zip(&[range(g, 0, 2)?, t])
            };
            z(2, 0.0)?.concatenate(&z(4, 1.0)?)
        }
        "concat_dtype_error" => range(g, 0, 3)?.concatenate(&tensors(g, vec![Tensor::from(1i32)])?),
        "concat_structure_error" => {
            range(g, 0, 3)?.concatenate(&Dataset::zip(&[range(g, 0, 1)?, range(g, 0, 1)?])?)
        }
        "concat_pair_error" => tensors(g, vec![Tensor::from(1i64), Tensor::from(vec![1.0f32])])?
            .concatenate(&tensors(g, vec![Tensor::from(1i64), Tensor::from(1i64)])?),
        "pb_default" => ragged(g)?.padded_batch(2, None, None, false),
        "pb_fixed_drop" => {
            ragged(g)?.padded_batch(3, Some(&[Shape::known(&[5])]), Some(&[i64c(-1)?]), true)
        }
        "pb_too_small" => ragged(g)?.padded_batch(3, Some(&[Shape::known(&[3])]), None, false),
        "pb_strings" => words(g)?.padded_batch(2, None, None, false),
        "pb_strings_x" => words(g)?.padded_batch(2, None, Some(&[c(g, "x")?]), false),
        "pb_two" => {
            Dataset::zip(&[ragged(g)?, range(g, 10, 14)?])?.padded_batch(3, None, None, false)
        }
        "pb_two_values" => Dataset::zip(&[ragged(g)?, range(g, 10, 14)?])?.padded_batch(
            3,
            Some(&[Shape::known(&[4]), Shape::scalar()]),
            Some(&[i64c(7)?, i64c(0)?]),
            false,
        ),
        "pb_broadcast" => pair(g)?.padded_batch(2, None, Some(&[i64c(1)?]), false),
        "pb_matrix_cols" => matrices(g)?.padded_batch(2, Some(&[s(&[n, Some(3)])]), None, false),
        "pb_matrix_rows" => matrices(g)?.padded_batch(2, Some(&[s(&[Some(4), n])]), None, false),
        "pb_scalars" => range(g, 0, 3)?.padded_batch(2, None, None, false),
        "pb_unknown_rank" => parsed(g, m(&[2, 2], vec![1, 2, 3, 4]))?.padded_batch(
            2,
            Some(&[s(&[n, Some(3)])]),
            None,
            false,
        ),
        "pb_rank_mismatch" => {
            parsed(g, m(&[2, 2], vec![1, 2, 3, 4]))?.padded_batch(2, Some(&[s(&[n])]), None, false)
        }
        "pb_batch_zero" => ragged(g)?.padded_batch(0, None, None, false),
        "pb_static_too_small" => tensors(g, vec![Tensor::filled(&[4], 0.0f32)])?.padded_batch(
            2,
            Some(&[Shape::known(&[3])]),
            None,
            false,
        ),
        "pb_static_rank" => ragged(g)?.padded_batch(2, Some(&[s(&[n, n])]), None, false),
        "pb_static_scalar" => ragged(g)?.padded_batch(2, Some(&[Shape::scalar()]), None, false),
        "pb_scalar_to_vector" => {
            range(g, 0, 3)?.padded_batch(2, Some(&[Shape::known(&[1])]), None, false)
        }
        "pb_value_not_scalar" => ragged(g)?.padded_batch(
            2,
            Some(&[Shape::known(&[2])]),
            Some(&[c(g, vec![1i64, 2])?]),
            false,
        ),
        "pb_value_dtype" => {
            ragged(g)?.padded_batch(2, Some(&[Shape::known(&[2])]), Some(&[c(g, 1i32)?]), false)
        }
        "pb_value_string" => range(g, 0, 3)?.padded_batch(2, None, Some(&[c(g, "x")?]), false),
        "pb_default_unknown_rank" => {
            parsed(g, m(&[2, 2], vec![1, 2, 3, 4]))?.padded_batch(2, None, None, false)
        }
        "pb_padded_unknown_rank" => {
            ragged(g)?.padded_batch(2, Some(&[Shape::unknown()]), None, false)
        }
        "pb_shapes_short" => pair(g)?.padded_batch(2, Some(&[Shape::scalar()]), None, false),
        "pb_shapes_long" => pair(g)?.padded_batch(2, Some(&vec![Shape::scalar(); 3]), None, false),
        "pb_values_short" => {
            // TensorFlow's `(value, value)` for three components (a lone value is broadcast).
            let z = Dataset::zip(&[range(g, 0, 3)?, range(g, 0, 3)?, range(g, 0, 3)?])?;
            z.padded_batch(2, None, Some(&[i64c(1)?, i64c(1)?]), false)
        }
        "pb_empty_rows" => slices(g, m(&[3, 0], vec![]))?.padded_batch(2, None, None, false),
        "pb_float_value" => range(g, 1, 4)?
            .map(|x| Ok(vec![fill_n(&x[0], &cast(&x[0], DType::F32)?)?]))?
            .padded_batch(3, None, Some(&[c(g, 0.5f32)?]), false),
        "pb_bool" => range(g, 1, 3)?
            .map(|x| Ok(vec![fill_n(&x[0], &constant(x[0].graph(), true)?)?]))?
            .padded_batch(2, None, None, false),
        "pb_then_unbatch" => ragged(g)?.padded_batch(2, None, None, false)?.unbatch(),
        "ub_then_batch" => range(g, 0, 5)?.batch(2)?.unbatch()?.batch(3),
        "en_after_skip" => range(g, 10, 20)?.skip(7)?.enumerate(-1),
        "concat_repeat" => range(g, 0, 2)?
            .concatenate(&range(g, 5, 6)?)?
            .repeat(Some(2)),
        "zip_forever_and_four" => Dataset::zip(&[range(g, 0, 3)?.repeat(None)?, range(g, 10, 14)?]),
        "ub_range" => range(g, 0, 7)?.batch(3)?.unbatch(),
        "ub_pair" => tensors(
            g,
            vec![
                m(&[2, 2], vec![1, 2, 3, 4]),
                Tensor::from_strings(&["a", "b"]),
            ],
        )?
        .unbatch(),
        "ub_empty" => {
            let empty = tensors(
                g,
                vec![
                    Tensor::filled(&[0, 2], 0.0f32),
                    Tensor::filled(&[0], 0.0f32),
                ],
            )?;
            let ones = tensors(
                g,
                vec![
                    Tensor::filled(&[1, 2], 1.0f32),
                    Tensor::filled(&[1], 1.0f32),
                ],
            )?;
            empty.concatenate(&ones)?.unbatch()
        }
        "ub_mismatch" => {
            Dataset::zip(&[range(g, 0, 7)?.batch(3)?, range(g, 0, 7)?.batch(2)?])?.unbatch()
        }
        "ub_unknown_matrix" => parsed(g, m(&[2, 2], vec![1, 2, 3, 4]))?.unbatch(),
        "ub_unknown_scalar" => parsed(g, Tensor::from(5i32))?.unbatch(),
        "ub_scalar" => range(g, 0, 3)?.unbatch(),
        "ub_static_mismatch" => tensors(
            g,
            vec![Tensor::from(vec![1i32, 2]), Tensor::from(vec![1i32, 2, 3])],
        )?
        .unbatch(),
        "en_start" => slices(g, Tensor::from_strings(&["a", "b"]))?.enumerate(5),
        "en_default" => range(g, 10, 13)?.enumerate(0),
        other => panic!("no pipeline for case {other}"),
    }
}

/// A component as make_tfdata_combine.py records it: `{dtype, shape, data}`.
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

/// Checks one case against TensorFlow's record.
fn check(name: &str, want: &Value) {
    let g = Graph::new();
    let built = build(&g, name);
    if let Some(e) = want.get("build_error") {
        let err = built.expect_err(name);
        assert_eq!(
            err.code(),
            code_of(e["class"].as_str().unwrap()),
            "{name}: {err}"
        );
        assert_eq!(err.message(), e["message"].as_str().unwrap(), "{name}");
        return;
    }
    let ds = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let shapes: Vec<Value> = ds.output_shapes().iter().map(shape_json).collect();
    assert_eq!(Value::from(shapes), want["shapes"], "{name}: static shapes");
    let next = ds.make_one_shot_iterator().unwrap().get_next().unwrap();
    let sess = Session::new(&g).unwrap();
    let mut args = RunArgs::new();
    for o in &next {
        args = args.fetch(o);
    }
    let mut got = Vec::new();
    let end = loop {
        match sess.run(&args) {
            Ok(v) => got.push(Value::from(v.iter().map(encode).collect::<Vec<_>>())),
            Err(e) => break e,
        }
        assert!(got.len() <= 100, "{name}: the iterator did not end");
    };
    assert_eq!(Value::from(got), want["elements"], "{name}: elements");
    let (class, message) = (
        want["end"]["class"].as_str().unwrap(),
        want["end"]["message"].as_str().unwrap(),
    );
    assert_eq!(end.code(), code_of(class), "{name}: {end}");
    if name == "zip_error_first" {
        // TensorFlow prefixes the function's error with its iterator's path.
        assert!(message.ends_with(end.message()), "{name}: {end}");
    } else {
        assert_eq!(end.message(), message, "{name}");
    }
}

#[test]
fn combinations_match_tensorflow() {
    let doc = doc();
    assert_eq!(doc["tensorflow"], "2.21.0");
    let cases = doc["cases"].as_object().unwrap();
    assert_eq!(cases.len(), 58);
    let failed: Vec<&String> = cases
        .iter()
        .filter(|(name, _)| name.as_str() != "pb_negative_dim")
        .filter(|(name, want)| std::panic::catch_unwind(|| check(name, want)).is_err())
        .map(|(name, _)| name)
        .collect();
    assert!(failed.is_empty(), "cases unlike TensorFlow: {failed:?}");
}

/// `padded_shapes=[-2]`, which Python passes on as a tensor: the `PaddedBatchDatasetV2` kernel
/// rejects it when the dataset is made. [`Shape`] cannot hold -2, so the op is built by hand.
#[test]
fn a_negative_padded_dimension_fails_when_the_dataset_is_made() -> Result<()> {
    let doc = doc();
    let want = &doc["cases"]["pb_negative_dim"]["end"];
    let g = Graph::new();
    let input = ragged(&g)?;
    let op = g
        .new_operation("PaddedBatchDatasetV2")
        .input(input.handle().clone())
        .input(c(&g, 2i64)?)
        .input(c(&g, vec![-2i64])?)
        .input(c(&g, 0i64)?)
        .input(c(&g, false)?)
        .attr("N", 1i64)
        .attr("Toutput_types", vec![DType::I64])
        .attr("output_types", vec![DType::I64])
        .attr("output_shapes", vec![Shape::unknown_of_rank(2)])
        .build()?;
    let it =
        weir_ops::data::Iterator::from_structure(&g, &[DType::I64], &[Shape::unknown_of_rank(2)])?;
    let init = g
        .new_operation("MakeIterator")
        .input(op.output(0)?)
        .input(it.handle().clone())
        .build()?;
    let err = Session::new(&g)?.run_target(&init).unwrap_err();
    assert_eq!(err.code(), code_of(want["class"].as_str().unwrap()));
    assert_eq!(err.message(), want["message"].as_str().unwrap());
    Ok(())
}
