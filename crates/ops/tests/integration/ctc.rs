//! `tf.compat.v1.nn.ctc_loss` (op `CTCLoss`, both outputs), `tf.nn.ctc_greedy_decoder`,
//! `tf.compat.v1.nn.ctc_beam_search_decoder` and `tf.edit_distance` against TensorFlow 2.21:
//! every case of tests/data/ctc/expected.json (made by make_ctc.py there), with the outputs'
//! static shapes, and TensorFlow's error kinds and messages (build-time ValueErrors of its shape
//! functions are InvalidArgument here, at build time too).
//!
//! Every output must match bit for bit: the decoders are scalar arithmetic on glibc's
//! `exp`/`log` (which weir calls too), and the loss reproduces the Eigen softmax TensorFlow's x86
//! build computes (its vectorised `exp`, its packet sums, subnormals flushed to zero).

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder_with_default};
use weir_ops::nn::{CtcBeamSearchDecoder, CtcGreedyDecoder, CtcLoss};
use weir_ops::sparse::{edit_distance, SparseOutput};
use weir_session::{RunArgs, Session};

use crate::io_util::{expected_cases, shape_of};

fn cases() -> Vec<Value> {
    expected_cases("ctc")
}

/// A recorded tensor: `{dtype, dims, values}`, floats as their bit patterns.
fn tensor(v: &Value) -> Tensor {
    let dims: Vec<usize> = v["dims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let bits = |x: &Value| x.as_u64().unwrap();
    let int = |x: &Value| x.as_i64().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float32" => Tensor::from_vec(
            &dims,
            vals.iter()
                .map(|x| f32::from_bits(bits(x) as u32))
                .collect(),
        ),
        "float64" => Tensor::from_vec(
            &dims,
            vals.iter().map(|x| f64::from_bits(bits(x))).collect(),
        ),
        "int32" => Tensor::from_vec(&dims, vals.iter().map(|x| int(x) as i32).collect()),
        "int64" => Tensor::from_vec(&dims, vals.iter().map(int).collect()),
        "string" => Tensor::from_vec(
            &dims,
            vals.iter()
                .map(|x| bytes::Bytes::from(x.as_str().unwrap().to_string()))
                .collect(),
        ),
        other => panic!("dtype {other}"),
    }
    .unwrap()
}

fn input(g: &Graph, c: &Value, k: &str) -> Output {
    constant(g, tensor(&c["inputs"][k])).unwrap()
}

/// The case's graph: its outputs in TensorFlow's fetch order.
fn build(g: &Graph, c: &Value) -> Result<Vec<Output>> {
    let a = &c["attrs"];
    let flag = |k: &str| a[k].as_bool().unwrap();
    let int = |k: &str| a[k].as_i64().unwrap();
    match c["fn"].as_str().unwrap() {
        "ctc_loss" => {
            let labels = SparseOutput::new(
                input(g, c, "labels_indices"),
                input(g, c, "labels_values"),
                input(g, c, "labels_shape"),
            )?;
            let loss = CtcLoss::new()
                .preprocess_collapse_repeated(flag("preprocess_collapse_repeated"))
                .ctc_merge_repeated(flag("ctc_merge_repeated"))
                .ignore_longer_outputs_than_inputs(flag("ignore_longer_outputs_than_inputs"))
                .time_major(flag("time_major"))
                .build(
                    &labels,
                    input(g, c, "logits"),
                    input(g, c, "sequence_length"),
                )?;
            let grad = loss.op().output(1)?;
            Ok(vec![loss, grad])
        }
        "ctc_greedy" => {
            let mut d = CtcGreedyDecoder::new().merge_repeated(flag("merge_repeated"));
            if let Some(b) = a["blank_index"].as_i64() {
                d = d.blank_index(b);
            }
            let (sp, lp) = d.build(input(g, c, "logits"), input(g, c, "sequence_length"))?;
            Ok(sp[0].outputs().into_iter().chain([lp]).collect())
        }
        "ctc_beam" => {
            let (sps, lp) = CtcBeamSearchDecoder::new()
                .beam_width(int("beam_width"))
                .top_paths(int("top_paths"))
                .merge_repeated(flag("merge_repeated"))
                .build(input(g, c, "logits"), input(g, c, "sequence_length"))?;
            let mut outs: Vec<Output> = sps.iter().map(|s| s.indices.clone()).collect();
            outs.extend(sps.iter().map(|s| s.values.clone()));
            outs.extend(sps.iter().map(|s| s.dense_shape.clone()));
            // TensorFlow's script fetches each path's three parts together.
            let n = sps.len();
            let mut ordered = Vec::new();
            for p in 0..n {
                ordered.extend([
                    outs[p].clone(),
                    outs[n + p].clone(),
                    outs[2 * n + p].clone(),
                ]);
            }
            ordered.push(lp);
            Ok(ordered)
        }
        "edit_distance" => {
            let shape = |k: &str| -> Result<Output> {
                let s = input(g, c, k);
                if flag("feed_shapes") {
                    placeholder_with_default(s, Shape::new(vec![None]))
                } else {
                    Ok(s)
                }
            };
            let sp = |p: &str| -> Result<SparseOutput> {
                SparseOutput::new(
                    input(g, c, &format!("{p}_indices")),
                    input(g, c, &format!("{p}_values")),
                    shape(&format!("{p}_shape"))?,
                )
            };
            Ok(vec![edit_distance(
                &sp("hypothesis")?,
                &sp("truth")?,
                flag("normalize"),
            )?])
        }
        other => panic!("fn {other}"),
    }
}

/// Compares an error with TensorFlow's: its code (a ValueError of a shape function is
/// InvalidArgument), and its message up to weir's " for '<node>'" suffix, trailing blanks aside.
fn check_error(name: &str, got: &weir_graph::Error, want: &Value) {
    let code = match want["type"].as_str().unwrap() {
        "ValueError" => Code::InvalidArgument,
        _ => Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap(),
    };
    assert_eq!(got.code(), code, "{name}: {got}");
    let got = got.message().split(" for '").next().unwrap().trim_end();
    assert_eq!(got, want["message"].as_str().unwrap().trim_end(), "{name}");
}

/// Equal values (NaN equal to NaN; 0 and -0 apart).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn floats(t: &Tensor) -> Vec<f64> {
    match t.dtype() {
        DType::F32 => t
            .as_slice::<f32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect(),
        _ => t.to_vec::<f64>().unwrap(),
    }
}

fn check_values(name: &str, got: &Tensor, want: &Value) {
    let want = tensor(want);
    assert_eq!(got.dtype(), want.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), want.shape(), "{name}: shape");
    match got.dtype() {
        DType::F32 | DType::F64 => {
            let (g, w) = (floats(got), floats(&want));
            for (i, (x, y)) in g.iter().zip(&w).enumerate() {
                assert!(same(*x, *y), "{name}[{i}]: {x} vs TensorFlow's {y}");
            }
        }
        DType::I64 => assert_eq!(
            got.to_vec::<i64>().unwrap(),
            want.to_vec::<i64>().unwrap(),
            "{name}"
        ),
        other => panic!("{name}: dtype {other}"),
    }
}

/// Runs one case; returns whether it ended in the error TensorFlow recorded.
fn run_case(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, c);
    if let Some(want) = c.get("build_error") {
        let e = built.expect_err(&format!("{name}: TensorFlow fails to build"));
        check_error(name, &e, want);
        return true;
    }
    let outs = built.unwrap_or_else(|e| panic!("{name}: {e}"));
    let shapes = c["static_shapes"].as_array().unwrap();
    assert_eq!(outs.len(), shapes.len(), "{name}: outputs");
    for (k, (o, s)) in outs.iter().zip(shapes).enumerate() {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape of output {k}");
    }
    let mut args = RunArgs::new();
    for o in &outs {
        args = args.fetch(o);
    }
    let ran = Session::new(&g).unwrap().run(&args);
    if let Some(want) = c.get("error") {
        let e = ran.expect_err(&format!("{name}: TensorFlow fails to run"));
        check_error(name, &e, want);
        return true;
    }
    let got = ran.unwrap_or_else(|e| panic!("{name}: {e}"));
    for (k, (t, w)) in got.iter().zip(c["outputs"].as_array().unwrap()).enumerate() {
        check_values(&format!("{name} output {k}"), t, w);
    }
    false
}

fn check_family(prefix: &str, min_cases: usize) {
    let cases: Vec<Value> = cases()
        .into_iter()
        .filter(|c| c["fn"].as_str().unwrap().starts_with(prefix))
        .collect();
    assert!(
        cases.len() >= min_cases,
        "only {} {prefix} cases",
        cases.len()
    );
    crate::io_util::check_all_cases(&cases, run_case);
}

#[test]
fn ctc_loss_matches_tensorflow() {
    check_family("ctc_loss", 20);
}

#[test]
fn ctc_greedy_decoder_matches_tensorflow() {
    check_family("ctc_greedy", 8);
}

#[test]
fn ctc_beam_search_decoder_matches_tensorflow() {
    check_family("ctc_beam", 15);
}

#[test]
fn edit_distance_matches_tensorflow() {
    check_family("edit_distance", 12);
}

#[test]
fn ctc_loss_needs_int32_labels() {
    let g = Graph::new();
    let labels = SparseOutput::new(
        constant(&g, Tensor::from_vec(&[1, 2], vec![0i64, 0]).unwrap()).unwrap(),
        constant(&g, vec![0i64]).unwrap(),
        constant(&g, vec![1i64, 1]).unwrap(),
    )
    .unwrap();
    let x = constant(&g, Tensor::from_vec(&[1, 1, 2], vec![0.0f32, 0.0]).unwrap()).unwrap();
    let e = CtcLoss::new()
        .build(&labels, x, constant(&g, vec![1i32]).unwrap())
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
}

/// TensorFlow 2.21's static shapes with partly known inputs (logits `[?, ?, 5]`, lengths `[3]`):
/// the batch comes from the lengths, and the loss's gradient keeps the logits' other dims.
#[test]
fn shapes_take_the_batch_from_the_lengths() {
    use weir_ops::array::placeholder;
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::new(vec![None, None, Some(5)])).unwrap();
    let seq = placeholder(&g, DType::I32, Shape::known(&[3])).unwrap();
    let labels = SparseOutput::new(
        placeholder(&g, DType::I64, Shape::new(vec![None, Some(2)])).unwrap(),
        placeholder(&g, DType::I32, Shape::new(vec![None])).unwrap(),
        placeholder(&g, DType::I64, Shape::known(&[2])).unwrap(),
    )
    .unwrap();
    let loss = CtcLoss::new().build(&labels, &x, &seq).unwrap();
    assert_eq!(loss.shape(), Shape::known(&[3]));
    let grad = loss.op().output(1).unwrap();
    assert_eq!(grad.shape(), Shape::new(vec![None, Some(3), Some(5)]));
    let (d, lp) = CtcGreedyDecoder::new().build(&x, &seq).unwrap();
    assert_eq!(d[0].indices.shape(), Shape::new(vec![None, Some(2)]));
    assert_eq!(lp.shape(), Shape::known(&[3, 1]));
    let (ds, lp) = CtcBeamSearchDecoder::new()
        .top_paths(2)
        .build(&x, &seq)
        .unwrap();
    assert_eq!(ds[1].values.shape(), Shape::new(vec![None]));
    assert_eq!(lp.shape(), Shape::known(&[3, 2]));
}
