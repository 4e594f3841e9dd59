//! `Barrier` against TensorFlow 2.21 (tf.compat.v1 graph mode), as
//! `data/data_flow_barrier/make_data_flow_barrier.py` records it in `expected.json`:
//!
//! - every script (a barrier and steps run in order in one session: inserts in any component
//!   order, take_many, sizes, closes, raw ops with bad attrs, and take_many calls blocked in
//!   threads of their own) gives TensorFlow's outputs bit for bit, or its error code and
//!   message, step by step; after each step as many take_many calls are blocked as there were
//!   in TensorFlow;
//! - every build (Python-side checks, node names, static shapes) gives TensorFlow's names and
//!   shapes, or its message (a Python ValueError or TypeError is InvalidArgument here).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use weir_graph::{Bytes, Code, DType, Error, Graph, Output, ResourceHandle, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data_flow::{Barrier, SessionBarrier};
use weir_session::{RunArgs, Session};

use crate::io_util::{element_bytes, shape_of, LIMIT};

/// The least run timeout of a take_many started in a thread of its own.
const ASYNC_TIMEOUT: Duration = Duration::from_secs(5);

fn expected() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/data_flow_barrier/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn dtype_of(name: &str) -> DType {
    DType::from_name(name).unwrap()
}

/// A recorded tensor: `{dtype, shape, values}`, floats as bit patterns, strings as text.
fn tensor_of(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let vals = v["values"].as_array().unwrap();
    let u = |x: &Value| x.as_u64().unwrap();
    let i = |x: &Value| x.as_i64().unwrap();
    match dtype_of(v["dtype"].as_str().unwrap()) {
        DType::String => Tensor::from_vec(
            &shape,
            vals.iter()
                .map(|x| Bytes::from(x.as_str().unwrap().to_string()))
                .collect(),
        ),
        DType::F32 => Tensor::from_vec(
            &shape,
            vals.iter().map(|x| f32::from_bits(u(x) as u32)).collect(),
        ),
        DType::F64 => Tensor::from_vec(&shape, vals.iter().map(|x| f64::from_bits(u(x))).collect()),
        DType::I32 => Tensor::from_vec(&shape, vals.iter().map(|x| i(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&shape, vals.iter().map(i).collect()),
        DType::Bool => {
            Tensor::from_vec(&shape, vals.iter().map(|x| x.as_bool().unwrap()).collect())
        }
        other => panic!("no {other} values recorded"),
    }
    .unwrap()
}

fn dtypes(v: &Value) -> Vec<DType> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| dtype_of(d.as_str().unwrap()))
        .collect()
}

/// The message with the process-wide resource counter replaced: `_12_barrier` -> `_N_barrier`.
fn norm(msg: &str) -> String {
    let mut out = String::new();
    let b = msg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i] == b'_' && (i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\'');
        if starts {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == b'_' {
                out.push_str("_N_");
                i = j + 1;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn check_error(what: &str, got: &Error, want: &Value) {
    let code = Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{what}: {got}");
    assert_eq!(
        norm(got.message()),
        norm(want["message"].as_str().unwrap()),
        "{what}"
    );
}

/// Compares a step's outcome with the recorded `{"ok": [tensors] | null}` or `{"error"}`.
fn check_result(what: &str, got: Result<Vec<Tensor>>, want: &Value) {
    match (got, want.get("error")) {
        (Err(e), Some(w)) => check_error(what, &e, w),
        (Err(e), None) => panic!("{what}: {e}, TensorFlow gave {want}"),
        (Ok(v), Some(w)) => panic!("{what}: got {v:?}, TensorFlow failed with {w}"),
        (Ok(got), None) => {
            let want: &[Value] = want["ok"].as_array().map_or(&[], Vec::as_slice);
            assert_eq!(got.len(), want.len(), "{what}: outputs");
            for (k, (g, w)) in got.iter().zip(want).enumerate() {
                let w = tensor_of(w);
                assert_eq!(g.dtype(), w.dtype(), "{what}: dtype of output {k}");
                assert_eq!(g.shape(), w.shape(), "{what}: shape of output {k}");
                assert_eq!(element_bytes(g), element_bytes(&w), "{what}: output {k}");
            }
        }
    }
}

/// A barrier as the script describes it: through the builder, or a raw `Barrier` op with the
/// attrs the builder never sets.
fn make_barrier(g: &Graph, spec: &Value) -> Result<(Output, Option<Barrier>)> {
    let types = dtypes(&spec["types"]);
    let shapes: Option<Vec<Shape>> = spec
        .get("shapes")
        .map(|s| s.as_array().unwrap().iter().map(shape_of).collect());
    let name = spec["name"].as_str().unwrap_or("barrier");
    let shared = spec["shared_name"].as_str();
    if spec["raw"].as_bool() == Some(true) {
        let op = g
            .new_operation("Barrier")
            .name(name)
            .attr("component_types", types)
            .attr(
                "shapes",
                weir_graph::AttrValue::Shapes(shapes.unwrap_or_default()),
            )
            .attr("capacity", spec["capacity"].as_i64().unwrap_or(-1))
            .attr("shared_name", shared.unwrap_or(""))
            .build()?;
        return Ok((op.output(0)?, None));
    }
    let mut b = Barrier::builder(&types).name(name);
    if let Some(s) = &shapes {
        b = b.shapes(s);
    }
    if let Some(s) = shared {
        b = b.shared_name(s);
    }
    let b = b.build(g)?;
    Ok((b.barrier_ref().clone(), Some(b)))
}

/// One step's graph part: what to fetch or run, and the feeds.
struct Built {
    fetches: Vec<Output>,
    target: Option<weir_graph::Operation>,
    feeds: Vec<(Output, Tensor)>,
}

fn build_step(g: &Graph, handle: &Output, b: Option<&Barrier>, step: &Value) -> Result<Built> {
    let bar = || b.expect("a builder barrier");
    let mut built = Built {
        fetches: Vec::new(),
        target: None,
        feeds: Vec::new(),
    };
    match step["op"].as_str().unwrap() {
        "insert" => {
            let values = tensor_of(&step["values"]);
            let kp = placeholder(g, DType::String, Shape::unknown())?;
            let vp = placeholder(g, values.dtype(), Shape::unknown())?;
            let component = step["component"].as_i64().unwrap();
            built.target = Some(bar().insert_many(component, &kp, &vp)?);
            built.feeds = vec![(kp, tensor_of(&step["keys"])), (vp, values)];
        }
        "take" => {
            let small = step["allow_small"].as_bool().unwrap_or(false);
            let t = if step["fed"].as_bool() == Some(true) {
                let n = &step["n"];
                let value = match n.as_array() {
                    Some(a) => Tensor::from_vec(
                        &[a.len()],
                        a.iter().map(|x| x.as_i64().unwrap() as i32).collect(),
                    )?,
                    None => Tensor::scalar(n.as_i64().unwrap() as i32),
                };
                let p = placeholder(g, DType::I32, Shape::unknown())?;
                built.feeds.push((p.clone(), value));
                bar().take_many_with(&p, small, None, None)?
            } else {
                bar().take_many_with(step["n"].as_i64().unwrap() as i32, small, None, None)?
            };
            built.fetches = [t.indices, t.keys].into_iter().chain(t.values).collect();
        }
        "raw_take" => {
            let n = constant(g, step["n"].as_i64().unwrap() as i32)?;
            let op = g
                .new_operation("BarrierTakeMany")
                .input(handle.clone())
                .input(n)
                .attr("component_types", dtypes(&step["component_types"]))
                .attr("timeout_ms", step["timeout_ms"].as_i64().unwrap_or(-1))
                .build()?;
            built.fetches = op.outputs();
        }
        "raw_insert" => {
            let keys = constant(
                g,
                Tensor::from_strings(&[step["keys"][0].as_str().unwrap()]),
            )?;
            let values = match step["dtype"].as_str().unwrap() {
                "float32" => constant(g, vec![step["values"][0].as_f64().unwrap() as f32])?,
                _ => constant(g, vec![step["values"][0].as_i64().unwrap() as i32])?,
            };
            let op = g
                .new_operation("BarrierInsertMany")
                .input(handle.clone())
                .input(keys)
                .input(values)
                .attr("component_index", step["component"].as_i64().unwrap())
                .build()?;
            built.target = Some(op);
        }
        "close" => built.target = Some(bar().close(step["cancel"].as_bool().unwrap_or(false))?),
        "sizes" => built.fetches = vec![bar().ready_size()?, bar().incomplete_size()?],
        "open" => built.target = Some(make_barrier(g, &step["barrier"])?.0.op()),
        other => panic!("step {other}"),
    }
    Ok(built)
}

fn run_built(sess: &Session, built: &Built, timeout: Duration) -> Result<Vec<Tensor>> {
    let mut args = RunArgs::new().timeout(timeout);
    for f in &built.fetches {
        args = args.fetch(f);
    }
    if let Some(t) = &built.target {
        args = args.target(t);
    }
    for (p, v) in &built.feeds {
        args = args.feed(p, v.clone());
    }
    sess.run(&args)
}

/// Waits (boundedly) until `want` take_many calls are blocked on the barrier.
fn await_pending(what: &str, barrier: &SessionBarrier, want: usize) {
    let start = Instant::now();
    while barrier.pending_takes() != want {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: {} take_many calls blocked, TensorFlow had {want}",
            barrier.pending_takes()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn run_script(script: &Value) {
    let name = script["name"].as_str().unwrap();
    let g = Graph::new();
    let (handle, barrier) = make_barrier(&g, &script["barrier"]).unwrap();
    let sess = Session::new(&g).unwrap();
    let steps = script["steps"].as_array().unwrap();
    // The barrier itself, to count blocked calls, in the scripts that block.
    let resource: Option<Arc<SessionBarrier>> =
        steps.iter().any(|s| s.get("async").is_some()).then(|| {
            let h = sess
                .run(&RunArgs::new().fetch(&handle).timeout(LIMIT))
                .unwrap();
            h[0].to_scalar::<ResourceHandle>()
                .unwrap()
                .get::<SessionBarrier>()
                .unwrap()
        });
    std::thread::scope(|scope| {
        let mut threads = HashMap::new();
        for (i, step) in steps.iter().enumerate() {
            let what = format!("{name} step {i} ({})", step["op"]);
            if step["op"] == "join" {
                let id = step["id"].as_str().unwrap();
                let got = threads
                    .remove(id)
                    .map(|h: std::thread::ScopedJoinHandle<_>| h.join().unwrap());
                check_result(&what, got.expect("a started step"), &step["result"]);
                continue;
            }
            let built = build_step(&g, &handle, barrier.as_ref(), step).unwrap();
            let mut timeout = step["timeout_ms"]
                .as_u64()
                .map_or(LIMIT, Duration::from_millis);
            if step.get("async").is_some() {
                // The steps after it must all run before its deadline, however loaded the
                // machine: the outcome (DeadlineExceeded) does not depend on the length.
                timeout = timeout.max(ASYNC_TIMEOUT);
            }
            match step["async"].as_str() {
                Some(id) => {
                    let sess = &sess;
                    threads.insert(
                        id.to_string(),
                        scope.spawn(move || run_built(sess, &built, timeout)),
                    );
                }
                None => check_result(&what, run_built(&sess, &built, timeout), &step["result"]),
            }
            if let (Some(r), Some(p)) = (&resource, step["pending"].as_u64()) {
                await_pending(&what, r, p as usize);
            }
        }
        assert!(threads.is_empty(), "{name}: steps never joined");
    });
}

#[test]
fn scripts_match_tensorflow() {
    let doc = expected();
    let scripts = doc["scripts"].as_array().unwrap();
    assert!(scripts.len() >= 29);
    let failed: Vec<&str> = scripts
        .iter()
        .filter(|s| std::panic::catch_unwind(|| run_script(s)).is_err())
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        failed.is_empty(),
        "scripts differing from TensorFlow: {failed:?}"
    );
}

fn strings(g: &Graph, s: &[&str]) -> Output {
    constant(g, Tensor::from_strings(s)).unwrap()
}

/// `Barrier((tf.string, tf.int32), shapes=((), ()), name="B")`.
fn si(g: &Graph) -> Barrier {
    Barrier::builder(&[DType::String, DType::I32])
        .shapes(&[Shape::scalar(), Shape::scalar()])
        .name("B")
        .build(g)
        .unwrap()
}

fn shape_json(s: &Shape) -> Value {
    match s.dims() {
        None => Value::Null,
        Some(d) => d
            .iter()
            .map(|x| x.map_or(Value::Null, Value::from))
            .collect(),
    }
}

fn names_and_shapes(g: &Graph) -> Result<Value> {
    let b = Barrier::builder(&[DType::F32, DType::I32])
        .shapes(&[Shape::known(&[2]), Shape::known(&[3])])
        .build(g)?;
    let t3 = b.take_many(3)?;
    let ts = b.take_many_with(3, true, None, None)?;
    let n = placeholder(g, DType::I32, Shape::unknown())?;
    let tn = b.take_many_with(&n, false, None, Some("by_n"))?;
    let bu = Barrier::builder(&[DType::String]).name("u").build(g)?;
    let tu = bu.take_many(4)?;
    let (bs, in_scope) = {
        let _scope = g.name_scope("scope");
        let bs = Barrier::builder(&[DType::String]).name("bar").build(g)?;
        let ins = bs.insert_many(0, &strings(g, &["k"]), &strings(g, &["v"]))?;
        (
            bs.clone(),
            vec![ins.name(), bs.take_many(1)?.indices.name()],
        )
    };
    let row = |v: Tensor| constant(g, v);
    let k = strings(g, &["k"]);
    let f = row(Tensor::from_vec(&[1, 2], vec![1.0f32, 2.0])?)?;
    let i = row(Tensor::from_vec(&[1, 3], vec![1i32, 2, 3])?)?;
    let mut names = vec![
        b.op().name(),
        b.name(),
        b.insert_many(0, &k, &f)?.name(),
        b.insert_many(1, &k, &i)?.name(),
        t3.indices.name(),
        ts.indices.name(),
        tn.indices.name(),
        t3.indices.op().inputs()[1].name(),
        b.close(false)?.name(),
        b.close(true)?.name(),
        b.ready_size()?.name(),
        b.incomplete_size()?.name(),
        b.insert_many_with(0, &k, &f, Some("ins"))?.name(),
        b.close_with(false, Some("shut"))?.name(),
        b.ready_size_with(Some("rs"))?.name(),
        b.incomplete_size_with(Some("is"))?.name(),
        bu.op().name(),
        bs.name(),
        bs.insert_many(0, &k, &strings(g, &["v"]))?.name(),
    ];
    names.extend(in_scope);
    let shapes: Vec<Value> = [&t3, &ts, &tn, &tu]
        .iter()
        .map(|t| {
            [&t.indices, &t.keys]
                .into_iter()
                .chain(&t.values)
                .map(|o| shape_json(&o.shape()))
                .collect()
        })
        .collect();
    Ok(serde_json::json!({"names": names, "shapes": shapes}))
}

fn build(name: &str, g: &Graph) -> Result<Value> {
    let f32s = |v: Vec<f32>| constant(g, v).unwrap();
    let shaped = |types: &[DType], shapes: &[Shape]| {
        Barrier::builder(types)
            .shapes(shapes)
            .build(g)
            .map(|b| Value::from(b.name()))
    };
    let op_name = |r: Result<weir_graph::Operation>| r.map(|op| Value::from(op.name()));
    match name {
        "names_and_shapes" => names_and_shapes(g),
        "empty_shape" => shaped(&[DType::F32], &[Shape::known(&[0])]),
        "empty_shape_2" => shaped(
            &[DType::F32, DType::I32],
            &[Shape::known(&[2]), Shape::known(&[3, 0])],
        ),
        "partial_shape" => shaped(
            &[DType::F32, DType::I32],
            &[Shape::known(&[2]), Shape::unknown()],
        ),
        "partial_dim" => shaped(
            &[DType::F32, DType::I32],
            &[Shape::known(&[2]), Shape::new(vec![None])],
        ),
        "no_types" => shaped(&[], &[]),
        "timeout" => si(g)
            .take_many_with(1, false, Some(10), None)
            .map(|t| t.indices.name().into()),
        "negative_take" => si(g).take_many(-1).map(|t| t.indices.name().into()),
        "keys_rank_2" => {
            let keys = constant(g, Tensor::from_vec(&[1, 1], vec![Bytes::from("a")])?)?;
            op_name(si(g).insert_many(0, &keys, &strings(g, &["x"])))
        }
        "values_rank_0" => {
            let x = constant(g, Tensor::scalar(Bytes::from("x")))?;
            op_name(si(g).insert_many(0, &strings(g, &["a"]), &x))
        }
        "keys_values_differ" => {
            op_name(si(g).insert_many(0, &strings(g, &["a", "b"]), &strings(g, &["x"])))
        }
        "values_dtype" => op_name(si(g).insert_many(1, &strings(g, &["a"]), &f32s(vec![1.5]))),
        other => panic!("build {other}"),
    }
}

#[test]
fn builds_match_tensorflow() {
    let doc = expected();
    let cases = doc["builds"].as_array().unwrap();
    assert_eq!(cases.len(), 12);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let got = build(name, &Graph::new());
        match (got, c.get("error")) {
            (Ok(v), None) => assert_eq!(v, c["ok"], "{name}"),
            (Err(e), Some(w)) => {
                assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
                assert_eq!(e.message(), w["message"].as_str().unwrap(), "{name}");
            }
            (Ok(v), Some(w)) => panic!("{name}: built {v}, TensorFlow failed with {w}"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn session_close_cancels_a_blocked_take() {
    let g = Graph::new();
    let b = si(&g);
    let take = b.take_many(1).unwrap();
    let sess = Session::new(&g).unwrap();
    let h = sess
        .run(&RunArgs::new().fetch(b.barrier_ref()).timeout(LIMIT))
        .unwrap();
    let barrier = h[0]
        .to_scalar::<ResourceHandle>()
        .unwrap()
        .get::<SessionBarrier>()
        .unwrap();
    std::thread::scope(|s| {
        let t = s.spawn(|| sess.run(&RunArgs::new().fetch(&take.keys).timeout(LIMIT)));
        await_pending("take", &barrier, 1);
        sess.close();
        let e = t.join().unwrap().unwrap_err();
        assert_eq!(e.code(), Code::Cancelled, "{e}");
    });
    assert_eq!(barrier.pending_takes(), 0);
}

#[test]
fn norm_replaces_the_counter_only() {
    assert_eq!(
        norm("Barrier '_12_barrier' is closed"),
        "Barrier '_N_barrier' is closed"
    );
    assert_eq!(norm("supported _0_b: x"), "supported _N_b: x");
    assert_eq!(norm("Barrier B_1_x"), "Barrier B_1_x");
}
