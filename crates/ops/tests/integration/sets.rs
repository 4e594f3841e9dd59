//! `tf.sets` (`SetSize` and the three `*SetOperation` ops) against TensorFlow 2.21: every case of
//! tests/data/sets/expected.json (made by make_sets.py there), outputs compared exactly (they
//! are integers and strings). Kernel errors must match TensorFlow's InvalidArgument message;
//! Python's TypeError/ValueError (dtype checks, static shape checks) must be InvalidArgument,
//! raised when the graph is built or run, TypeErrors with Python's message up to the dtype.

use serde_json::Value;
use weir_graph::{Bytes, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::sets::{self, SetInput};
use weir_ops::sparse::SparseOutput;
use weir_session::{RunArgs, Session};

fn dtype_of(name: &str) -> DType {
    match name {
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "string" => DType::String,
        "float32" => DType::F32,
        other => panic!("dtype {other}"),
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn usizes(v: &Value) -> Vec<usize> {
    ints(v).into_iter().map(|x| x as usize).collect()
}

fn tensor(dtype: DType, shape: &[usize], v: &Value) -> Tensor {
    let items = v.as_array().unwrap();
    let i = ints;
    match dtype {
        DType::String => Tensor::from_vec(
            shape,
            items
                .iter()
                .map(|x| Bytes::from(x.as_str().unwrap().to_string()))
                .collect(),
        ),
        DType::I8 => Tensor::from_vec(shape, i(v).iter().map(|&x| x as i8).collect()),
        DType::I16 => Tensor::from_vec(shape, i(v).iter().map(|&x| x as i16).collect()),
        DType::I32 => Tensor::from_vec(shape, i(v).iter().map(|&x| x as i32).collect()),
        DType::I64 => Tensor::from_vec(shape, i(v)),
        DType::U8 => Tensor::from_vec(shape, i(v).iter().map(|&x| x as u8).collect()),
        DType::U16 => Tensor::from_vec(shape, i(v).iter().map(|&x| x as u16).collect()),
        DType::F32 => Tensor::from_vec(shape, i(v).iter().map(|&x| x as f32).collect()),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

/// The values of a tensor as JSON-comparable numbers or strings.
fn json_values(t: &Tensor) -> Vec<Value> {
    match t.dtype() {
        DType::String => t
            .to_strings()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::I8 => t
            .to_vec::<i8>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::I16 => t
            .to_vec::<i16>()
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
        DType::I64 => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::U8 => t
            .to_vec::<u8>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        DType::U16 => t
            .to_vec::<u16>()
            .unwrap()
            .into_iter()
            .map(Value::from)
            .collect(),
        other => panic!("dtype {other}"),
    }
}

/// A constant, or with `feed` a placeholder of unknown shape fed `t` (so that only the kernel
/// sees the shape, as in the TensorFlow script).
fn source(g: &Graph, t: Tensor, feed: bool, feeds: &mut Vec<(Output, Tensor)>) -> Output {
    if !feed {
        return constant(g, t).unwrap();
    }
    let p = placeholder(g, t.dtype(), Shape::unknown()).unwrap();
    feeds.push((p.clone(), t));
    p
}

fn input(
    g: &Graph,
    spec: &Value,
    dtype: DType,
    feed: bool,
    feeds: &mut Vec<(Output, Tensor)>,
) -> Result<SetInput> {
    if let Some(d) = spec.get("dense") {
        let t = tensor(dtype, &usizes(&d["shape"]), &d["values"]);
        return Ok(SetInput::Dense(source(g, t, feed, feeds)));
    }
    let s = &spec["sparse"];
    let shape = ints(&s["shape"]);
    let ix = ints(&s["indices"]);
    let width = s["width"].as_u64().unwrap() as usize;
    let ix = Tensor::from_vec(&[ix.len() / width, width], ix).unwrap();
    let values = tensor(
        dtype,
        &[s["values"].as_array().unwrap().len()],
        &s["values"],
    );
    let shape = Tensor::from_vec(&[shape.len()], shape).unwrap();
    Ok(SetInput::Sparse(SparseOutput::new(
        source(g, ix, feed, feeds),
        source(g, values, feed, feeds),
        source(g, shape, feed, feeds),
    )?))
}

/// Builds and runs one case; the fetched tensors.
fn run(case: &Value) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let mut feeds = Vec::new();
    let feed = case["feed"].as_bool().unwrap_or(false);
    let dtype = dtype_of(case["dtype"].as_str().unwrap());
    let a_dtype = case["a_dtype"].as_str().map_or(dtype, dtype_of);
    let a = input(&g, &case["a"], a_dtype, feed, &mut feeds)?;
    let b = match case.get("b") {
        Some(b) => Some(input(&g, b, dtype, feed, &mut feeds)?),
        None => None,
    };
    let validate = case["validate_indices"].as_bool().unwrap_or(true);
    let fetches: Vec<Output> = match case["fn"].as_str().unwrap() {
        "size" => match a {
            SetInput::Sparse(sp) => vec![sets::size(&sp, validate)?],
            SetInput::Dense(_) => panic!("size takes a sparse tensor"),
        },
        "raw_dd" => {
            let (SetInput::Dense(a), Some(SetInput::Dense(b))) = (a, b) else {
                panic!("raw_dd takes dense inputs")
            };
            let op = g
                .new_operation("DenseToDenseSetOperation")
                .input(a)
                .input(b)
                .attr("set_operation", case["set_operation"].as_str().unwrap())
                .attr("validate_indices", validate)
                .build()?;
            SparseOutput::from_op(&op)?.outputs().to_vec()
        }
        f => {
            let b = b.unwrap();
            let sp = match f {
                "intersection" => sets::intersection(a, b, validate)?,
                "union" => sets::union(a, b, validate)?,
                "difference" => {
                    sets::difference(a, b, case["aminusb"].as_bool().unwrap_or(true), validate)?
                }
                other => panic!("fn {other}"),
            };
            sp.outputs().to_vec()
        }
    };
    let mut args = RunArgs::new();
    for (p, t) in feeds {
        args = args.feed(&p, t);
    }
    for f in &fetches {
        args = args.fetch(f);
    }
    Session::new(&g)?.run(&args)
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap();
    let result = run(case);
    if let Some(err) = case.get("error") {
        let e = result
            .err()
            .unwrap_or_else(|| panic!("{name}: expected {err}"));
        assert!(e.is_invalid_argument(), "{name}: {e:?}");
        let msg = err["message"].as_str().unwrap();
        if err["kind"] == "InvalidArgumentError" {
            assert_eq!(e.message(), msg, "{name}");
        } else if err["kind"] == "TypeError" {
            // Python prints dtypes as reprs (`<dtype: 'int32'>`); compare the text before them.
            let head = |m: &str| m.split(['`', '<']).next().unwrap().to_string();
            assert_eq!(head(e.message()), head(msg), "{name}");
        }
        return;
    }
    let out = result.unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let exp = &case["expected"];
    if case["fn"] == "size" {
        assert_eq!(out[0].dtype(), DType::I32, "{name}");
        assert_eq!(out[0].shape(), usizes(&exp["shape"]).as_slice(), "{name}");
        assert_eq!(
            json_values(&out[0]),
            *exp["size"].as_array().unwrap(),
            "{name}"
        );
        return;
    }
    let rank = exp["dense_shape"].as_array().unwrap().len();
    let n = exp["values"].as_array().unwrap().len();
    assert_eq!(out[0].shape(), &[n, rank], "{name}: indices shape");
    assert_eq!(
        out[0].to_vec::<i64>().unwrap(),
        ints(&exp["indices"]),
        "{name}"
    );
    assert_eq!(
        json_values(&out[1]),
        *exp["values"].as_array().unwrap(),
        "{name}"
    );
    assert_eq!(
        out[2].to_vec::<i64>().unwrap(),
        ints(&exp["dense_shape"]),
        "{name}"
    );
}

#[test]
fn sets_match_tensorflow() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sets/expected.json");
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 36);
    for case in cases {
        check(case);
    }
}

#[test]
fn static_shapes_follow_tensorflow() {
    let g = Graph::new();
    let a = placeholder(&g, DType::I32, Shape::new(vec![Some(2), None, Some(3)])).unwrap();
    let b = placeholder(&g, DType::I32, Shape::new(vec![Some(2), None, Some(4)])).unwrap();
    let r = sets::intersection(&a, &b, true).unwrap();
    assert_eq!(r.indices.shape(), Shape::new(vec![None, Some(3)]));
    assert_eq!(r.values.shape(), Shape::new(vec![None]));
    assert_eq!(r.dense_shape.shape(), Shape::known(&[3]));
    assert_eq!(r.indices.op().name(), "DenseToDenseSetOperation");
    let sp = SparseOutput::new(
        placeholder(&g, DType::I64, Shape::new(vec![None, None])).unwrap(),
        placeholder(&g, DType::I32, Shape::new(vec![None])).unwrap(),
        placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap(),
    )
    .unwrap();
    let d = sets::difference(&sp, &a, true, true).unwrap();
    assert_eq!(d.indices.op().op_type(), "DenseToSparseSetOperation");
    assert_eq!(
        d.indices.op().attr::<String>("set_operation").unwrap(),
        "b-a"
    );
    assert_eq!(d.indices.shape(), Shape::new(vec![None, Some(3)]));
    let u = sets::union(&sp, &sp, true).unwrap();
    assert_eq!(u.dense_shape.shape(), Shape::new(vec![None]));
    assert_eq!(sets::size(&sp, true).unwrap().shape(), Shape::unknown());
}
