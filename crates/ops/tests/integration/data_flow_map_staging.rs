//! `MapStagingArea` (the `MapStage`, `MapPeek`, `MapUnstage`, `MapUnstageNoKey`, `MapSize`,
//! `MapIncompleteSize`, `MapClear` ops and their `OrderedMap*` twins) against TensorFlow 2.21:
//! the scenarios of tests/data/data_flow_map_staging/expected.json, made by
//! make_data_flow_map_staging.py there, replayed step by step (node names, attrs and static
//! shapes; values bit for bit; errors by code and message; which steps block), then the waits
//! TensorFlow cannot end (a run timeout, a closed session), checked on weir alone.

use std::thread::{self, ScopedJoinHandle};
use std::time::{Duration, Instant};

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::data_flow::{MapStagingArea, StagingIndices};
use weir_session::{RunArgs, Session};

use crate::io_util::{
    check_spec_outputs, check_tf_error, expected_cases, shape_of, spec_dtype, spec_tensor, LIMIT,
};

/// How long a background step must stay blocked to count as blocked, as the script waits.
const SETTLE: Duration = Duration::from_millis(500);

/// What a step built: a target to run, outputs to fetch, or no-key gets whose results are
/// compared as a set.
enum Built {
    Target(Operation),
    Fetch(Vec<Output>),
    Drain(Vec<Vec<Output>>),
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn build_area(g: &Graph, a: &Value) -> Result<MapStagingArea> {
    let dtypes: Vec<DType> = strs(&a["dtypes"]).iter().map(|d| spec_dtype(d)).collect();
    let mut b = MapStagingArea::builder(&dtypes);
    if let Some(s) = a.get("shapes").and_then(Value::as_array) {
        b = b.shapes(&s.iter().map(shape_of).collect::<Vec<Shape>>());
    }
    if let Some(n) = a.get("names").filter(|n| !n.is_null()) {
        let names = strs(n);
        b = b.names(&names.iter().map(String::as_str).collect::<Vec<_>>());
    }
    if let Some(n) = a.get("shared_name").and_then(Value::as_str) {
        b = b.shared_name(n);
    }
    if let Some(o) = a.get("ordered").and_then(Value::as_bool) {
        b = b.ordered(o);
    }
    if let Some(c) = a.get("capacity").and_then(Value::as_i64) {
        b = b.capacity(c);
    }
    if let Some(m) = a.get("memory_limit").and_then(Value::as_i64) {
        b = b.memory_limit(m);
    }
    b.build(g)
}

fn constants(g: &Graph, specs: &Value) -> Vec<Output> {
    specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| constant(g, spec_tensor(s)).unwrap())
        .collect()
}

/// The step's `indices`: its ints and its names (one of them empty).
fn indices(v: &Value) -> (Vec<i32>, Vec<String>) {
    let items = v.as_array().cloned().unwrap_or_default();
    let ints = items
        .iter()
        .filter_map(Value::as_i64)
        .map(|i| i as i32)
        .collect();
    let names = items
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    (ints, names)
}

/// Checks the attrs TensorFlow's Python gave the step's op.
fn check_attrs(name: &str, op: &Operation, want: &Value) {
    for (k, v) in want.as_object().unwrap() {
        match v {
            Value::Array(ts) => {
                let want: Vec<DType> = ts.iter().map(|t| spec_dtype(t.as_str().unwrap())).collect();
                assert_eq!(op.attr::<Vec<DType>>(k).unwrap(), want, "{name}: attr {k}");
            }
            Value::Number(n) => {
                assert_eq!(
                    op.attr::<i64>(k).unwrap(),
                    n.as_i64().unwrap(),
                    "{name}: {k}"
                )
            }
            Value::String(s) => assert_eq!(&op.attr::<String>(k).unwrap(), s, "{name}: {k}"),
            other => panic!("{name}: attr {k} = {other}"),
        }
    }
}

/// Builds a step as the script did, checking names, attrs, static shapes or the build error.
fn build_step(g: &Graph, area: &MapStagingArea, st: &Value, name: &str) -> Option<Built> {
    let op = st["op"].as_str().unwrap();
    let key = st
        .get("key")
        .filter(|k| !k.is_null())
        .map(|k| constant(g, spec_tensor(k)).unwrap());
    let op_name = st.get("name").and_then(Value::as_str);
    let (ints, names) = indices(&st["indices"]);
    let named: Vec<&str> = names.iter().map(String::as_str).collect();
    let which = if st["indices"].is_null() {
        StagingIndices::All
    } else if !named.is_empty() {
        StagingIndices::Names(&named)
    } else {
        StagingIndices::Positions(&ints)
    };
    let built: Result<(Vec<String>, Option<Operation>, Built)> = (|| match op {
        "put" => {
            let vals = constants(g, &st["values"]);
            let idx = (!st["indices"].is_null()).then_some(ints.as_slice());
            let o = area.put_with(key.as_ref().unwrap(), &vals, idx, op_name)?;
            Ok((vec![o.name()], Some(o.clone()), Built::Target(o)))
        }
        "put_dict" => {
            let pairs: Vec<(String, Output)> = st["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let t = constant(g, spec_tensor(&p[1])).unwrap();
                    (p[0].as_str().unwrap().to_string(), t)
                })
                .collect();
            let pairs: Vec<(&str, Output)> =
                pairs.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
            let o = area.put_dict_with(key.as_ref().unwrap(), &pairs, op_name)?;
            Ok((vec![o.name()], Some(o.clone()), Built::Target(o)))
        }
        "peek" => {
            let out = area.peek_with(key.as_ref().unwrap(), which, op_name)?;
            let names = out.iter().map(Output::name).collect();
            Ok((names, Some(out[0].op()), Built::Fetch(out)))
        }
        "get" => {
            let (k, out) = area.get_with(key.as_ref(), which, op_name)?;
            let mut names = vec![k.name()];
            names.extend(out.iter().map(Output::name));
            let op = out[0].op();
            if let Value::Array(shapes) = &st["static_shapes"] {
                for (o, s) in out.iter().zip(shapes) {
                    assert_eq!(
                        o.shape(),
                        shape_of(s),
                        "{name}: static shape of {}",
                        o.name()
                    );
                }
            }
            let fetch = if key.is_some() {
                out
            } else {
                std::iter::once(k).chain(out).collect()
            };
            Ok((names, Some(op), Built::Fetch(fetch)))
        }
        "drain" => {
            let n = st["count"].as_u64().unwrap();
            let gets = (0..n)
                .map(|_| {
                    let (k, v) = area.get(None, StagingIndices::All)?;
                    Ok(std::iter::once(k).chain(v).collect())
                })
                .collect::<Result<_>>()?;
            Ok((Vec::new(), None, Built::Drain(gets)))
        }
        "size" | "incomplete_size" => {
            let o = if op == "size" {
                area.size()?
            } else {
                area.incomplete_size()?
            };
            Ok((vec![o.name()], Some(o.op()), Built::Fetch(vec![o])))
        }
        "clear" => {
            let o = area.clear()?;
            Ok((vec![o.name()], Some(o.clone()), Built::Target(o)))
        }
        "raw" => {
            let ty = st["type"].as_str().unwrap();
            let mut b = g
                .new_operation(ty)
                .inputs(constants(g, &st["inputs"]))
                .attr("shared_name", area.name());
            for (k, v) in st["set_attrs"].as_object().unwrap() {
                b = match v {
                    Value::String(s) => b.attr(k, s.as_str()),
                    v => b.attr(k, strs(v).iter().map(|d| spec_dtype(d)).collect::<Vec<_>>()),
                };
            }
            let o = b.build()?;
            let built = if o.num_outputs() == 0 {
                Built::Target(o)
            } else {
                Built::Fetch(o.outputs())
            };
            Ok((Vec::new(), None, built))
        }
        other => panic!("{name}: step {other}"),
    })();
    match (built, st.get("build_error")) {
        (Ok((names, node, built)), None) => {
            if let Some(want) = st.get("names") {
                assert_eq!(names, strs(want), "{name}: node names");
            }
            if let (Some(node), Some(want)) = (node, st.get("attrs")) {
                check_attrs(name, &node, want);
            }
            if let (Built::Fetch(out), Value::Array(shapes), "peek") =
                (&built, &st["static_shapes"], op)
            {
                for (o, s) in out.iter().zip(shapes) {
                    assert_eq!(
                        o.shape(),
                        shape_of(s),
                        "{name}: static shape of {}",
                        o.name()
                    );
                }
            }
            Some(built)
        }
        (Err(e), Some(want)) => {
            check_tf_error(name, &e, want);
            None
        }
        (Ok(_), Some(want)) => panic!("{name}: built, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

fn run_fetches(sess: &Session, fetches: &[Output]) -> Result<Vec<Tensor>> {
    let mut args = RunArgs::new().timeout(LIMIT);
    for f in fetches {
        args = args.fetch(f);
    }
    sess.run(&args)
}

/// Runs a step; a drain's gets come back sorted by key and flattened.
fn run_built(sess: &Session, built: &Built) -> Result<Vec<Vec<Tensor>>> {
    match built {
        Built::Target(op) => sess
            .run(&RunArgs::new().target(op).timeout(LIMIT))
            .map(|_| vec![Vec::new()]),
        Built::Fetch(out) => Ok(vec![run_fetches(sess, out)?]),
        Built::Drain(gets) => {
            let mut got = gets
                .iter()
                .map(|g| run_fetches(sess, g))
                .collect::<Result<Vec<_>>>()?;
            got.sort_by_key(|r| r[0].to_scalar::<i64>().unwrap());
            Ok(got)
        }
    }
}

fn check_run(name: &str, st: &Value, got: Result<Vec<Vec<Tensor>>>) {
    match (got, st.get("error")) {
        (Ok(groups), None) if st["op"] == "drain" => {
            let want = st["outputs"].as_array().unwrap();
            assert_eq!(groups.len(), want.len(), "{name}: gets");
            for (g, w) in groups.iter().zip(want) {
                check_spec_outputs(name, &serde_json::json!({ "outputs": w }), g);
            }
        }
        (Ok(mut groups), None) => check_spec_outputs(name, st, &groups.remove(0)),
        (Err(e), Some(want)) => check_tf_error(name, &e, want),
        (Ok(v), Some(want)) => panic!("{name}: got {v:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

/// Replays one scenario; returns how many steps it checked.
fn replay(c: &Value) -> usize {
    let scenario = c["name"].as_str().unwrap();
    let g = Graph::new();
    let area = match (build_area(&g, &c["area"]), c["area"].get("build_error")) {
        (Ok(a), None) => a,
        (Err(e), Some(want)) => {
            check_tf_error(scenario, &e, want);
            return 1;
        }
        (Ok(_), Some(want)) => panic!("{scenario}: built, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{scenario}: {e}"),
    };
    assert_eq!(
        area.name(),
        c["area"]["name"].as_str().unwrap(),
        "{scenario}"
    );
    let steps = c["steps"].as_array().unwrap();
    let step_name = |i: usize| format!("{scenario} step {i} ({})", steps[i]["op"]);
    let built: Vec<Option<Built>> = steps
        .iter()
        .enumerate()
        .map(|(i, st)| match st["op"].as_str() {
            Some("background" | "check_blocked" | "join") => None,
            _ => build_step(&g, &area, st, &step_name(i)),
        })
        .collect();
    let sess = Session::new(&g).unwrap();
    thread::scope(|s| {
        let mut pending = false;
        let mut bg: Option<ScopedJoinHandle<'_, Result<Vec<Vec<Tensor>>>>> = None;
        for (i, (st, b)) in steps.iter().zip(&built).enumerate() {
            let name = step_name(i);
            match st["op"].as_str().unwrap() {
                "background" => pending = true,
                "check_blocked" => {
                    thread::sleep(SETTLE);
                    let running = !bg.as_ref().expect("a background step").is_finished();
                    assert_eq!(running, st["blocked"].as_bool().unwrap(), "{name}: blocked");
                }
                "join" => {
                    let got = bg.take().expect("a background step").join().unwrap();
                    check_run(&name, st, got);
                }
                _ => {
                    let Some(b) = b else { continue };
                    if std::mem::take(&mut pending) {
                        let sess = &sess;
                        bg = Some(s.spawn(move || run_built(sess, b)));
                    } else {
                        check_run(&name, st, run_built(&sess, b));
                    }
                }
            }
        }
    });
    steps.len()
}

#[test]
fn map_staging_areas_behave_as_in_tensorflow() {
    let cases = expected_cases("data_flow_map_staging");
    let mut failed = Vec::new();
    let mut steps = 0;
    for c in &cases {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| replay(c))) {
            Ok(n) => steps += n,
            Err(_) => failed.push(c["name"].as_str().unwrap_or("?").to_string()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} scenarios differ from TensorFlow: {failed:?}",
        failed.len(),
        cases.len()
    );
    assert!(steps > 200, "only {steps} steps recorded");
}

fn area_of_one(g: &Graph, ordered: bool, capacity: i64) -> MapStagingArea {
    MapStagingArea::builder(&[DType::F32])
        .ordered(ordered)
        .capacity(capacity)
        .build(g)
        .unwrap()
}

#[test]
fn a_get_of_a_missing_key_ends_at_the_run_timeout() -> Result<()> {
    let g = Graph::new();
    let area = area_of_one(&g, false, 0);
    let key = constant(&g, 3i64)?;
    let (_, got) = area.get(Some(&key), StagingIndices::All)?;
    let peek = area.peek(&key, StagingIndices::All)?;
    let (_, any) = area.get(None, StagingIndices::All)?;
    let put = area.put(&key, &[constant(&g, 2.5f32)?], Some(&[0]))?;
    let sess = Session::new(&g)?;
    for fetch in [&got[0], &peek[0], &any[0]] {
        let start = Instant::now();
        let e = sess
            .run(
                &RunArgs::new()
                    .fetch(fetch)
                    .timeout(Duration::from_millis(100)),
            )
            .unwrap_err();
        assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
        assert!(start.elapsed() < LIMIT);
    }
    // The map is still usable after the cancelled waits.
    sess.run(&RunArgs::new().target(&put).timeout(LIMIT))?;
    let v = run_fetches(&sess, &got)?;
    assert_eq!(v[0].to_scalar::<f32>()?, 2.5);
    Ok(())
}

#[test]
fn a_put_into_a_full_map_ends_at_the_run_timeout() -> Result<()> {
    let g = Graph::new();
    let area = area_of_one(&g, true, 1);
    let put = |k: i64| area.put(&constant(&g, k)?, &[constant(&g, k as f32)?], Some(&[0]));
    let (first, second) = (put(1)?, put(2)?);
    let size = area.size()?;
    let sess = Session::new(&g)?;
    sess.run(&RunArgs::new().target(&first).timeout(LIMIT))?;
    let e = sess
        .run(
            &RunArgs::new()
                .target(&second)
                .timeout(Duration::from_millis(100)),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e}");
    assert_eq!(run_fetches(&sess, &[size])?[0].to_scalar::<i32>()?, 1);
    Ok(())
}

#[test]
fn closing_the_session_cancels_a_blocked_get() -> Result<()> {
    let g = Graph::new();
    let area = area_of_one(&g, true, 0);
    let (_, any) = area.get(None, StagingIndices::All)?;
    let sess = Session::new(&g)?;
    thread::scope(|s| {
        let blocked = s.spawn(|| run_fetches(&sess, &any));
        thread::sleep(Duration::from_millis(100));
        sess.close();
        let e = blocked.join().unwrap().unwrap_err();
        assert_eq!(e.code(), Code::Cancelled, "{e}");
    });
    Ok(())
}

#[test]
fn ops_mirror_tensorflows_signatures() -> Result<()> {
    let g = Graph::new();
    let area = MapStagingArea::builder(&[DType::F32, DType::I32])
        .ordered(true)
        .capacity(4)
        .memory_limit(64)
        .build(&g)?;
    assert!(g.operation_by_name("MapStagingArea_root/NoOp").is_some());
    let key = constant(&g, 1i64)?;
    let put = area.put(&key, &[constant(&g, 1.0f32)?], Some(&[0]))?;
    assert_eq!(put.op_type(), "OrderedMapStage");
    assert_eq!(put.attr::<i64>("capacity")?, 4);
    assert_eq!(put.attr::<i64>("memory_limit")?, 64);
    let input_names: Vec<String> = put.inputs().iter().map(Output::name).collect();
    assert_eq!(
        input_names,
        ["Const:0", "MapStagingArea_put/indices:0", "Const_1:0"]
    );
    let (k, v) = area.get(None, StagingIndices::Positions(&[1]))?;
    assert_eq!(k.op().op_type(), "OrderedMapUnstageNoKey");
    assert_eq!((k.dtype(), v[0].dtype()), (DType::I64, DType::I32));
    assert_eq!(area.size()?.shape(), Shape::scalar());
    // Keys are int64 only, in TensorFlow's words.
    let e = area
        .put(&constant(&g, 1i32)?, &[constant(&g, 1.0f32)?], Some(&[0]))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Input 'key' of 'OrderedMapStage' Op has type int32 that does not match expected type of int64."
    );
    Ok(())
}
