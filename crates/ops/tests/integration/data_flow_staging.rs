//! `StagingArea` (TensorFlow's Stage, Unstage, StagePeek, StageSize and StageClear) against
//! TensorFlow 2.21: the little programs of tests/data/data_flow_staging/expected.json (made by
//! make_data_flow_staging.py there) are built and run here step by step, on several threads
//! where TensorFlow's steps blocked, and every op name, static shape, value (bit for bit),
//! blocked wait and error is compared with TensorFlow's. Then what weir adds: waits that a
//! run's timeout or the session's close ends.

use std::collections::{BTreeMap, HashMap};
use std::thread::ScopedJoinHandle;
use std::time::Duration;

use serde_json::Value;
use weir_graph::graph_def::{proto::GraphDef, ImportGraphDef, Message};
use weir_graph::{Code, DType, Error, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data_flow::{StageIndex, StagingArea};
use weir_ops::import_graph_def;
use weir_session::{RunArgs, Session};

use super::io_util::{
    b64, check_tf_error, element_bytes, expected_cases, shape_of, spec_dtype, spec_tensor, LIMIT,
};

/// How long a step TensorFlow found blocked must still be running here: TensorFlow's script
/// waited 0.5 s.
const STILL_BLOCKED_AFTER: Duration = Duration::from_millis(300);

fn cases() -> Vec<Value> {
    expected_cases("data_flow_staging")
}

fn case(name: &str) -> Value {
    cases()
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

/// What a step added to the graph.
enum Built {
    Target(Operation),
    Fetch(Vec<Output>),
    Dict(BTreeMap<String, Output>),
}

impl Built {
    /// The run arguments of the step (feeding every placeholder of the case, as the script's
    /// `feed_dict` does).
    fn args(&self, feeds: &[(Output, Tensor)], timeout: Duration) -> RunArgs {
        let mut args = RunArgs::new().timeout(timeout);
        match self {
            Built::Target(op) => args = args.target(op),
            Built::Fetch(outs) => {
                for o in outs {
                    args = args.fetch(o);
                }
            }
            Built::Dict(outs) => {
                for o in outs.values() {
                    args = args.fetch(o);
                }
            }
        }
        for (p, v) in feeds {
            args = args.feed(p, v.clone());
        }
        args
    }
}

fn area_of(g: &Graph, a: &Value) -> Result<StagingArea> {
    let dtypes: Vec<DType> = a["dtypes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| spec_dtype(d.as_str().unwrap()))
        .collect();
    let mut b = StagingArea::builder(&dtypes)
        .capacity(a.get("capacity").map_or(0, |v| v.as_i64().unwrap()))
        .memory_limit(a.get("memory_limit").map_or(0, |v| v.as_i64().unwrap()));
    if let Some(Value::Array(shapes)) = a.get("shapes") {
        b = b.shapes(&shapes.iter().map(shape_of).collect::<Vec<Shape>>());
    }
    if let Some(Value::Array(names)) = a.get("names") {
        b = b.names(
            &names
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect::<Vec<_>>(),
        );
    }
    if let Some(Value::String(s)) = a.get("shared_name") {
        b = b.shared_name(s);
    }
    b.build(g)
}

/// A put's value: a constant, or a placeholder of the recorded static shape, fed the value.
fn value(
    g: &Graph,
    spec: &Value,
    fed: Option<&Value>,
    feeds: &mut Vec<(Output, Tensor)>,
) -> Output {
    let t = spec_tensor(spec);
    match fed {
        None => constant(g, t).unwrap(),
        Some(shape) => {
            let p = placeholder(g, t.dtype(), shape_of(shape)).unwrap();
            feeds.push((p.clone(), t));
            p
        }
    }
}

fn add_step(
    g: &Graph,
    areas: &[StagingArea],
    st: &Value,
    feeds: &mut Vec<(Output, Tensor)>,
) -> Result<Built> {
    let area = &areas[st.get("area").map_or(0, |a| a.as_u64().unwrap() as usize)];
    let name = st.get("name").and_then(Value::as_str);
    let fed = st.get("fed_shapes");
    let wants_dict = area.names().is_some();
    let got = |outs: Vec<Output>| -> Result<Built> {
        Ok(match wants_dict {
            true => Built::Dict(area.names().unwrap().iter().cloned().zip(outs).collect()),
            false => Built::Fetch(outs),
        })
    };
    match st["op"].as_str().unwrap() {
        "put" => match &st["values"] {
            Value::Object(vals) => {
                let keys = st["keys"].as_array().unwrap();
                let pairs: Vec<(&str, Output)> = keys
                    .iter()
                    .map(|k| {
                        let k = k.as_str().unwrap();
                        (k, value(g, &vals[k], fed.map(|f| &f[k]), feeds))
                    })
                    .collect();
                area.put_dict_with(&pairs, name).map(Built::Target)
            }
            Value::Array(vals) => {
                let vals: Vec<Output> = vals
                    .iter()
                    .enumerate()
                    .map(|(i, v)| value(g, v, fed.map(|f| &f[i]), feeds))
                    .collect();
                area.put_with(&vals, name).map(Built::Target)
            }
            other => panic!("values {other}"),
        },
        "get" => got(area.get_with(name)?),
        "peek" => {
            let i = st["index"].as_i64().unwrap() as i32;
            let index = match st.get("index_tensor") {
                Some(Value::Bool(true)) => StageIndex::from(constant(g, i)?),
                _ => StageIndex::from(i),
            };
            got(area.peek_with(index, name)?)
        }
        "raw_peek_index" => {
            let index = constant(g, spec_tensor(&st["index"]))?;
            got(area.peek_with(&index, name)?)
        }
        "size" => Ok(Built::Fetch(vec![area.size_with(name)?])),
        "clear" => area.clear_with(name).map(Built::Target),
        other => panic!("step {other}"),
    }
}

/// A case's graph, what each step added to it, and the values of its placeholders.
struct Program {
    graph: Graph,
    built: Vec<Built>,
    feeds: Vec<(Output, Tensor)>,
}

/// Builds a case's graph; checks the build error TensorFlow had (if any), the op names and
/// static shapes of each step, and the graph's ops. `None` when the build failed.
fn build(c: &Value) -> Option<Program> {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let mut built = Vec::new();
    let outcome = (|| -> Result<()> {
        let _scope = c.get("scope").map(|s| g.name_scope(s.as_str().unwrap()));
        let mut areas = Vec::new();
        for (i, a) in c["areas"].as_array().unwrap().iter().enumerate() {
            let area = area_of(&g, a).map_err(|e| e.with_prefix(&format!("area {i}: ")))?;
            assert_eq!(
                area.name(),
                a["area_name"].as_str().unwrap(),
                "{name}: area {i}"
            );
            areas.push(area);
        }
        for (i, st) in c["steps"].as_array().unwrap().iter().enumerate() {
            let b = add_step(&g, &areas, st, &mut feeds)
                .map_err(|e| e.with_prefix(&format!("step {i}: ")))?;
            check_names(&format!("{name} step {i}"), st, &b);
            built.push(b);
        }
        Ok(())
    })();
    let ops: Vec<(String, String)> = g
        .operations()
        .iter()
        .map(|o| (o.name(), o.op_type()))
        .collect();
    let want: Vec<(String, String)> = c["graph_ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
        .collect();
    assert_eq!(ops, want, "{name}: graph ops");
    match (outcome, c.get("build_error")) {
        (Ok(()), None) => Some(Program {
            graph: g,
            built,
            feeds,
        }),
        (Err(e), Some(want)) => {
            // TensorFlow's Python raises ValueError where weir's builders return
            // InvalidArgument; `at` says which area or step failed.
            assert_eq!(want["type"], "ValueError", "{name}");
            assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e}");
            let at = format!("{}: ", want["at"].as_str().unwrap());
            assert_eq!(
                e.message(),
                format!("{at}{}", want["message"].as_str().unwrap()),
                "{name}"
            );
            None
        }
        (Ok(()), Some(want)) => panic!("{name}: built, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

fn check_names(name: &str, st: &Value, b: &Built) {
    let names = &st["names"];
    match b {
        Built::Target(op) => assert_eq!(op.name(), names[0].as_str().unwrap(), "{name}"),
        Built::Fetch(outs) => {
            let got: Vec<String> = outs.iter().map(Output::name).collect();
            let want: Vec<&str> = names
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            assert_eq!(got, want, "{name}: names");
            if let Some(Value::Array(shapes)) = st.get("static_shapes") {
                for (k, (o, s)) in outs.iter().zip(shapes).enumerate() {
                    assert_eq!(o.shape(), shape_of(s), "{name}: static shape {k}");
                }
            }
        }
        Built::Dict(outs) => {
            for (k, o) in outs {
                assert_eq!(o.name(), names[k].as_str().unwrap(), "{name}: {k}");
                assert_eq!(o.shape(), shape_of(&st["static_shapes"][k]), "{name}: {k}");
            }
        }
    }
}

fn assert_tensor(name: &str, got: &Tensor, want: &Value) {
    let w = spec_tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    assert_eq!(element_bytes(got), element_bytes(&w), "{name}: values");
}

/// Compares a step's run with TensorFlow's: its error, or its outputs (none for a target).
fn check_run(name: &str, st: &Value, b: &Built, got: Result<Vec<Tensor>>) {
    let got = match (got, st.get("error")) {
        (Err(e), Some(want)) => return check_tf_error(name, &e, want),
        (Ok(v), Some(want)) => panic!("{name}: got {v:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
        (Ok(v), None) => v,
    };
    match (b, st.get("outputs")) {
        (Built::Target(_), None) => assert!(got.is_empty(), "{name}"),
        (Built::Fetch(_), Some(Value::Array(want))) => {
            assert_eq!(got.len(), want.len(), "{name}: outputs");
            for (k, (g, w)) in got.iter().zip(want).enumerate() {
                assert_tensor(&format!("{name} output {k}"), g, w);
            }
        }
        (Built::Dict(outs), Some(Value::Object(want))) => {
            assert_eq!(outs.len(), want.len(), "{name}: outputs");
            for (k, g) in outs.keys().zip(&got) {
                assert_tensor(&format!("{name} output {k}"), g, &want[k]);
            }
        }
        (_, w) => panic!("{name}: outputs {w:?}"),
    }
}

/// Runs a case's steps as TensorFlow's script did: in order, the `async` ones on threads of
/// their own, checked still blocked where TensorFlow's were, joined at `join`. A step
/// TensorFlow never returned from (`forever`) must be blocked too; closing the sessions at the
/// end must then end it with Cancelled, where TensorFlow would have waited forever.
fn run_steps(c: &Value, built: &[Built], feeds: &[(Output, Tensor)], sessions: &[Session]) {
    let name = c["name"].as_str().unwrap();
    let steps = c["steps"].as_array().unwrap();
    std::thread::scope(|s| {
        let mut pending: HashMap<usize, ScopedJoinHandle<'_, Result<Vec<Tensor>>>> = HashMap::new();
        for (i, st) in steps.iter().enumerate() {
            let what = format!("{name} step {i} ({})", st["op"]);
            if let Some(j) = st.get("join").and_then(Value::as_u64) {
                let j = j as usize;
                let got = pending.remove(&j).expect("joined step").join().unwrap();
                check_run(&format!("{name} step {j}"), &steps[j], &built[j], got);
            }
            let sess = &sessions[st
                .get("session")
                .map_or(0, |v| v.as_u64().unwrap() as usize)];
            let args = built[i].args(feeds, LIMIT);
            if st.get("async") != Some(&Value::Bool(true)) {
                check_run(&what, st, &built[i], sess.run(&args));
                continue;
            }
            let h = s.spawn(move || sess.run(&args));
            if st["blocked"] == Value::Bool(true) {
                std::thread::sleep(STILL_BLOCKED_AFTER);
                assert!(!h.is_finished(), "{what}: TensorFlow's was blocked");
            }
            pending.insert(i, h);
        }
        for sess in sessions {
            sess.close();
        }
        for (i, h) in pending {
            assert_eq!(
                steps[i]["forever"],
                Value::Bool(true),
                "{name}: step {i} never joined"
            );
            let e = h.join().unwrap().expect_err("a step blocked forever");
            assert!(e.is_cancelled(), "{name} step {i}: {e}");
        }
    });
}

#[test]
fn staging_areas_behave_as_tensorflows_do() {
    weir_ops::register_all_ops();
    let all = cases();
    let failed: Vec<String> = all
        .iter()
        // A run's timeout is where weir means to differ; see the test below.
        .filter(|c| {
            !c["steps"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s.get("timeout_ms").is_some())
        })
        .filter(|c| {
            let ok = std::panic::catch_unwind(|| {
                let Some(p) = build(c) else {
                    return;
                };
                let n = c.get("sessions").map_or(1, |v| v.as_u64().unwrap());
                let sessions: Vec<Session> =
                    (0..n).map(|_| Session::new(&p.graph).unwrap()).collect();
                run_steps(c, &p.built, &p.feeds, &sessions);
            });
            ok.is_err()
        })
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases differ: {failed:?}",
        failed.len(),
        all.len()
    );
    assert!(all.len() >= 40, "{} cases", all.len());
}

/// TensorFlow's blocked get ignores the run's timeout: it waits until a put, takes that
/// element, and only then fails with DeadlineExceeded. weir's fails at the deadline with the
/// same error and leaves the later element for the next get.
#[test]
fn a_blocked_get_ends_at_the_runs_deadline() {
    weir_ops::register_all_ops();
    let c = case("get_timeout_waits_for_put");
    let steps = c["steps"].as_array().unwrap();
    assert_eq!(
        steps[0]["blocked"],
        Value::Bool(true),
        "TensorFlow's get ignored its timeout"
    );
    let Program {
        graph,
        built,
        feeds,
    } = build(&c).unwrap();
    let sess = Session::new(&graph).unwrap();
    let timeout = Duration::from_millis(steps[0]["timeout_ms"].as_u64().unwrap());
    let got = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let args = built[0].args(&feeds, timeout);
        let sess = &sess;
        s.spawn(move || tx.send(sess.run(&args)));
        // A watchdog: should the deadline not end the get, closing the session must.
        let got = rx.recv_timeout(LIMIT);
        if got.is_err() {
            sess.close();
        }
        got.expect("the get waited past its deadline")
    });
    check_tf_error("timed-out get", &got.unwrap_err(), &steps[0]["error"]);
    check_run(
        "put",
        &steps[1],
        &built[1],
        sess.run(&built[1].args(&feeds, LIMIT)),
    );
    let size = sess.run(&built[2].args(&feeds, LIMIT)).unwrap();
    assert_eq!(
        steps[2]["outputs"][0]["values"][0], 0,
        "TensorFlow's get took the element"
    );
    assert_eq!(size[0].to_scalar::<i32>().unwrap(), 1, "weir's get left it");
}

/// The GraphDefs TensorFlow wrote for some cases import, and running their ops by name gives
/// TensorFlow's values.
#[test]
fn tensorflows_graph_defs_import_and_run() {
    weir_ops::register_all_ops();
    let with_defs: Vec<Value> = cases()
        .into_iter()
        .filter(|c| c.get("graph_def").is_some())
        .collect();
    assert!(with_defs.len() >= 3);
    for c in with_defs {
        let name = c["name"].as_str().unwrap();
        let def = GraphDef::decode(&b64(c["graph_def"].as_str().unwrap())[..]).unwrap();
        let g = Graph::new();
        import_graph_def(&g, &ImportGraphDef::new(&def).name("")).unwrap();
        let steps = c["steps"].as_array().unwrap();
        let built: Vec<Built> = steps
            .iter()
            .map(|st| {
                let names = &st["names"];
                let out = |n: &Value| g.tensor_by_name(n.as_str().unwrap()).unwrap();
                match names {
                    Value::Object(m) => {
                        Built::Dict(m.iter().map(|(k, n)| (k.clone(), out(n))).collect())
                    }
                    Value::Array(n) if n[0].as_str().unwrap().contains(':') => {
                        Built::Fetch(n.iter().map(out).collect())
                    }
                    Value::Array(n) => {
                        Built::Target(g.operation_by_name(n[0].as_str().unwrap()).unwrap())
                    }
                    other => panic!("{name}: names {other}"),
                }
            })
            .collect();
        let sess = Session::new(&g).unwrap();
        run_steps(&c, &built, &[], std::slice::from_ref(&sess));
    }
}

fn int_area(g: &Graph, capacity: i64) -> (StagingArea, Operation, Vec<Output>) {
    let area = StagingArea::builder(&[DType::I32])
        .capacity(capacity)
        .build(g)
        .unwrap();
    let put = area.put(&[constant(g, 1i32).unwrap()]).unwrap();
    let get = area.get().unwrap();
    (area, put, get)
}

/// A put blocked on a full area is ended by the run's timeout (the area keeps its elements),
/// and by the session's close, as are a blocked get and peek.
#[test]
fn blocked_puts_gets_and_peeks_are_cancellable() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let (area, put, get) = int_area(&g, 1);
    let size = area.size().unwrap();
    let peek = area.peek(3).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().target(&put).timeout(LIMIT))
        .unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .target(&put)
                .timeout(Duration::from_millis(50)),
        )
        .unwrap_err();
    assert!(e.is_deadline_exceeded(), "{e}");
    assert_eq!(e.message(), "Timed out waiting for notification");
    let n = sess
        .run(&RunArgs::new().fetch(&size).timeout(LIMIT))
        .unwrap();
    assert_eq!(n[0].to_scalar::<i32>().unwrap(), 1);

    std::thread::scope(|s| {
        let blocked_put = s.spawn(|| sess.run(&RunArgs::new().target(&put).timeout(LIMIT)));
        let blocked_peek = s.spawn(|| sess.run(&RunArgs::new().fetch(&peek[0]).timeout(LIMIT)));
        std::thread::sleep(STILL_BLOCKED_AFTER);
        assert!(!blocked_put.is_finished() && !blocked_peek.is_finished());
        sess.close();
        for h in [blocked_put, blocked_peek] {
            let e: Error = h.join().unwrap().unwrap_err();
            assert!(e.is_cancelled(), "{e}");
        }
    });

    let sess = Session::new(&g).unwrap();
    std::thread::scope(|s| {
        let blocked_get = s.spawn(|| sess.run(&RunArgs::new().fetch(&get[0]).timeout(LIMIT)));
        std::thread::sleep(STILL_BLOCKED_AFTER);
        assert!(!blocked_get.is_finished());
        sess.close();
        assert!(blocked_get.join().unwrap().unwrap_err().is_cancelled());
    });
}

/// Many producers and consumers on a bounded area: every element comes out exactly once.
#[test]
fn producers_and_consumers_exchange_every_element_once() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let area = StagingArea::builder(&[DType::I32])
        .capacity(2)
        .build(&g)
        .unwrap();
    let x = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let put = area.put(std::slice::from_ref(&x)).unwrap();
    let get = area.get().unwrap();
    let sess = Session::new(&g).unwrap();
    let mut seen: Vec<i32> = std::thread::scope(|s| {
        for p in 0..3 {
            let (sess, put, x) = (&sess, &put, &x);
            s.spawn(move || {
                for i in 0..50 {
                    let args = RunArgs::new()
                        .target(put)
                        .feed(x, p * 100 + i)
                        .timeout(LIMIT);
                    sess.run(&args).unwrap();
                }
            });
        }
        let takers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    (0..75)
                        .map(|_| {
                            let args = RunArgs::new().fetch(&get[0]).timeout(LIMIT);
                            sess.run(&args).unwrap()[0].to_scalar::<i32>().unwrap()
                        })
                        .collect::<Vec<i32>>()
                })
            })
            .collect();
        takers.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    seen.sort_unstable();
    let want: Vec<i32> = (0..3)
        .flat_map(|p| (0..50).map(move |i| p * 100 + i))
        .collect();
    assert_eq!(seen, want);
}
