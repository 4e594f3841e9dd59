//! `Supervisor` and `SessionManager` against what TensorFlow 2.21's do
//! (tests/data/supervisor/expected.json, written by make_supervisor.py there): the defaults a
//! Supervisor resolves and adds to the collections, the files and events of a managed session,
//! restoring from the log directory, a queue pipeline ending cleanly, and the errors.
//!
//! The service threads race with the training loop, in TensorFlow as here, so the events they
//! write are compared by kind and tag (their steps are bounded), and the test waits (at most
//! 10 s) until each service has written once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use prost::Message;
use serde_json::Value;
use weir_graph::{graph_keys, Code, Graph, Operation, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::control_flow::{group, no_op};
use weir_ops::io::{tf_record_iterator, TfRecordOptions};
use weir_ops::state::{
    global_variables, global_variables_initializer, local_variables_initializer,
    report_uninitialized_variables, Variable,
};
use weir_ops::summary::proto::{event::What, Event};
use weir_session::RunArgs;
use weir_train::{
    get_or_create_global_step, PrepareArgs, Saver, SessionManager, StringInputProducer, Supervisor,
};

fn expected() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/supervisor/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-sv-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

/// The graph make_supervisor.py's `model()` builds: a global step, `w`, a summary of `w` and
/// a train op adding 1 to both.
fn model(g: &Graph) -> Result<(Variable, Variable, Operation)> {
    let gs = get_or_create_global_step(g)?;
    let w = Variable::builder(constant(g, 1.0f32)?).name("w").build()?;
    weir_ops::summary::scalar("w", w.value())?;
    let a = w.assign_add(constant(g, 1.0f32)?)?;
    let b = gs.assign_add(constant(g, Tensor::scalar(1i64))?)?;
    let train = group(g, &[a.op(), b.op()], Some("train"))?;
    Ok((gs, w, train))
}

/// One event as the JSON describes it: kind, step, and tags or checkpoint path.
fn describe(e: &Event) -> Value {
    let status = ["", "START", "STOP", "CHECKPOINT"];
    match &e.what {
        Some(What::Summary(s)) => serde_json::json!({
            "kind": "summary",
            "step": e.step,
            "tags": s.value.iter().map(|v| v.tag.clone()).collect::<Vec<_>>(),
        }),
        Some(What::SessionLog(l)) => serde_json::json!({
            "kind": status[l.status as usize],
            "step": e.step,
            "path": Path::new(&l.checkpoint_path)
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        }),
        Some(What::FileVersion(_)) => serde_json::json!({"kind": "file_version", "step": e.step}),
        Some(What::GraphDef(_)) => serde_json::json!({"kind": "graph_def", "step": e.step}),
        Some(What::MetaGraphDef(_)) => {
            serde_json::json!({"kind": "meta_graph_def", "step": e.step})
        }
        other => panic!("unexpected event {other:?}"),
    }
}

fn events(path: &Path) -> Vec<Value> {
    tf_record_iterator(path, TfRecordOptions::default())
        .unwrap()
        .map(|r| describe(&Event::decode(r.unwrap()).unwrap()))
        .collect()
}

/// The event files of `dir`, oldest first.
fn event_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("events.out")
        })
        .collect();
    files.sort();
    files
}

/// The events without the per-service ones whose step races with training, which are
/// checked apart.
fn fixed_events(all: &[Value]) -> Vec<Value> {
    all.iter()
        .filter(|e| e["kind"] != "summary" && e["kind"] != "CHECKPOINT")
        .cloned()
        .collect()
}

/// The events the services wrote: (tags or path, step), in a stable order.
fn service_events(all: &[Value]) -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = all
        .iter()
        .filter(|e| e["kind"] == "summary" || e["kind"] == "CHECKPOINT")
        .map(|e| {
            let what = match e["kind"].as_str().unwrap() {
                "summary" => e["tags"][0].as_str().unwrap().to_string(),
                _ => format!("CHECKPOINT {}", e["path"].as_str().unwrap()),
            };
            (what, e["step"].as_i64().unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_managed_session_writes_what_tensorflows_does_and_a_new_one_restores() -> Result<()> {
    let want = expected();
    let d = &want["defaults"];
    let dir = temp_dir("defaults");
    let g = Graph::new();
    let (gs, w, train) = model(&g)?;
    let sv = Supervisor::builder(&g).logdir(&dir).build()?;
    assert_eq!(g.finalized(), d["finalized"].as_bool().unwrap());
    assert_eq!(sv.init_op().unwrap().name(), d["init_op"].as_str().unwrap());
    // weir's report_uninitialized_variables is one op where TensorFlow composes several.
    let scope = |n: &str| n.split(['/', ':']).next().unwrap().to_string();
    assert_eq!(
        scope(&sv.ready_op().unwrap().name()),
        scope(d["ready_op"].as_str().unwrap())
    );
    assert!(d["ready_for_local_init_op"].is_null() && sv.ready_for_local_init_op().is_none());
    let local = sv.local_init_op().unwrap();
    assert_eq!(local.name(), d["local_init_op"].as_str().unwrap());
    let inputs: Vec<String> = local.control_inputs().iter().map(|o| o.name()).collect();
    assert_eq!(serde_json::json!(inputs), d["local_init_inputs"]);
    assert_eq!(
        sv.summary_op().unwrap().name(),
        d["summary_op"].as_str().unwrap()
    );
    assert_eq!(sv.global_step().unwrap().name(), "global_step/read:0");
    assert!(sv
        .save_path()
        .unwrap()
        .ends_with(d["save_path"].as_str().unwrap()));
    assert_eq!(
        sv.save_summaries_secs(),
        d["save_summaries_secs"].as_f64().unwrap()
    );
    assert_eq!(sv.save_model_secs(), d["save_model_secs"].as_f64().unwrap());
    let mut keys = g.collection_keys();
    keys.sort();
    assert_eq!(serde_json::json!(keys), d["collections"]);
    let e = constant(&g, 1.0f32).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(e.message(), d["add_op_after"]["message"].as_str().unwrap());

    let mut saved = String::new();
    sv.managed_session(|sess| {
        // Wait until each service has written once (at start-up), so that the start-up
        // checkpoint cannot race with the one saved below.
        let writer = sv.summary_writer().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            writer.flush()?;
            let seen = service_events(&events(&writer.path()));
            if seen.len() >= 3 {
                break;
            }
            assert!(
                Instant::now() < until && !sv.should_stop(),
                "the services wrote only {seen:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        for _ in 0..5 {
            sess.run(&RunArgs::new().target(&train))?;
        }
        let step = sess.eval(gs.value())?.to_scalar::<i64>()?;
        saved = sv
            .saver()
            .unwrap()
            .save(sess, sv.save_path().unwrap(), Some(step))?;
        assert_eq!(
            sess.eval(w.value())?.to_scalar::<f32>()?,
            d["w"].as_f64().unwrap() as f32
        );
        Ok(())
    })?;
    assert!(saved.ends_with(d["saved"].as_str().unwrap()));

    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| !f.starts_with("events.out"))
        .collect();
    files.sort();
    let want_files: Vec<String> = d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(files, want_files);

    let written = event_files(&dir);
    assert_eq!(written.len(), d["event_files"].as_u64().unwrap() as usize);
    let got = events(&written[0]);
    let want_events = d["events"].as_array().unwrap();
    assert_eq!(fixed_events(&got), fixed_events(want_events));
    let (got_services, want_services) = (service_events(&got), service_events(want_events));
    assert_eq!(got_services.len(), want_services.len(), "{got_services:?}");
    for ((what, step), (want_what, _)) in got_services.iter().zip(&want_services) {
        assert_eq!(what, want_what);
        assert!((0..=5).contains(step), "{what} at step {step}");
    }

    // A new graph from the same code restores the latest checkpoint of the log directory.
    let r = &want["restore"];
    let g = Graph::new();
    let (gs, w, _) = model(&g)?;
    let sv = Supervisor::builder(&g)
        .logdir(&dir)
        .save_model_secs(0.0)
        .save_summaries_secs(0.0)
        .build()?;
    sv.managed_session(|sess| {
        assert_eq!(
            sess.eval(w.value())?.to_scalar::<f32>()?,
            r["w"].as_f64().unwrap() as f32
        );
        assert_eq!(
            sess.eval(gs.value())?.to_scalar::<i64>()?,
            r["global_step"].as_i64().unwrap()
        );
        Ok(())
    })?;
    // TensorFlow's second writer, opened in the same second, overwrote the first file; weir's
    // writes a new one.
    let newest = event_files(&dir).pop().unwrap();
    assert_eq!(serde_json::json!(events(&newest)), r["events"]);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn the_end_of_a_queue_pipeline_stops_the_managed_session_cleanly() -> Result<()> {
    let want = &expected()["pipeline"];
    let g = Graph::new();
    let q = StringInputProducer::new(constant(&g, Tensor::from_strings(&["a", "b", "c"]))?)
        .num_epochs(2)
        .shuffle(false)
        .build()?;
    let item = q.dequeue()?[0].clone();
    let sv = Supervisor::builder(&g).build()?;
    let mut got = Vec::new();
    sv.managed_session(|sess| {
        while !sv.should_stop() {
            let t = sess.eval(&item)?;
            got.push(String::from_utf8(t.to_scalar::<weir_graph::Bytes>()?.to_vec()).unwrap());
        }
        Ok(())
    })?;
    assert_eq!(serde_json::json!(got), want["items"]);
    assert_eq!(sv.should_stop(), want["should_stop"].as_bool().unwrap());
    Ok(())
}

/// `(code, message)` of a TensorFlow error kind and message in the JSON.
fn tf_error(v: &Value) -> (Code, String) {
    let code = match v["type"].as_str().unwrap() {
        "RuntimeError" => Code::Unknown,
        "ValueError" => Code::InvalidArgument,
        "InvalidArgumentError" => Code::InvalidArgument,
        "DeadlineExceededError" => Code::DeadlineExceeded,
        other => panic!("unmapped {other}"),
    };
    (code, v["message"].as_str().unwrap().to_string())
}

fn assert_tf_error(got: weir_graph::Error, want: &Value) {
    let (code, message) = tf_error(want);
    assert_eq!(got.code(), code, "{got}");
    assert_eq!(got.message(), message);
}

#[test]
fn supervisor_errors_are_tensorflows() -> Result<()> {
    let want = &expected()["errors"];
    let g = Graph::new();
    Variable::builder(constant(&g, 1.0f32)?).name("v").build()?;
    let sv = Supervisor::builder(&g)
        .init_op(None)
        .local_init_op(None)
        .build()?;
    assert_tf_error(
        sv.managed_session(|_| Ok(())).unwrap_err(),
        &want["nothing_to_initialize"],
    );

    let g = Graph::new();
    Variable::builder(constant(&g, 1.0f32)?).name("v").build()?;
    let noop = no_op(&g)?;
    let sv = Supervisor::builder(&g).init_op(Some(&noop)).build()?;
    assert_tf_error(
        sv.managed_session(|_| Ok(())).unwrap_err(),
        &want["not_ready"],
    );
    let sess = weir_session::Session::new(&g)?;
    assert_tf_error(
        sv.summary_computed(&sess, &Tensor::from(""), None)
            .unwrap_err(),
        &want["summary_computed_without_writer"],
    );

    let g = Graph::new();
    constant(&g, 1.0f32)?;
    let sv = Supervisor::builder(&g).is_chief(false).build()?;
    let e = sv
        .managed_session(|sess| sv.start_standard_services(sess).map(drop))
        .unwrap_err();
    assert_tf_error(e, &want["standard_services_on_a_non_chief"]);

    let g = Graph::new();
    Variable::builder(constant(&g, 1.0f32)?).name("v").build()?;
    let e = Supervisor::builder(&g)
        .is_chief(false)
        .build()
        .err()
        .unwrap();
    let (code, message) = tf_error(&want["non_chief_with_variables"]);
    assert_eq!(e.code(), code);
    // weir's VariableV2 NodeDef lists its attrs in another order than TensorFlow's.
    let head = "When using replicas, all Variables must have their device set: name: \"v\"\nop: \"VariableV2\"\n";
    assert!(
        message.starts_with(head) && e.message().starts_with(head),
        "{e}"
    );

    // An error in the body is returned once everything is stopped.
    let g = Graph::new();
    let x = weir_ops::array::Placeholder::new(weir_graph::DType::F32)
        .name("x")
        .build(&g)?;
    let sv = Supervisor::builder(&g).build()?;
    let e = sv
        .managed_session(|sess| sess.eval(&x).map(drop))
        .unwrap_err();
    let (code, message) = tf_error(&want["body_error"]);
    assert_eq!(e.code(), code);
    assert!(message.contains("You must feed a value for placeholder tensor 'x'"));
    assert!(
        e.message()
            .contains("You must feed a value for placeholder tensor 'x'"),
        "{e}"
    );
    assert!(sv.should_stop());
    Ok(())
}

#[test]
fn session_manager_prepares_recovers_and_waits_as_tensorflows() -> Result<()> {
    let want = &expected()["session_manager"];
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 2.0f32)?).name("v").build()?;
    Variable::builder(constant(&g, 0.0f32)?)
        .name("lv")
        .collections(&[graph_keys::LOCAL_VARIABLES])
        .build()?;
    let init = global_variables_initializer(&g)?;
    let sm = SessionManager::new(&g)
        .local_init_op(&local_variables_initializer(&g)?)
        .ready_op(&report_uninitialized_variables(&g, None)?)
        .ready_for_local_init_op(&report_uninitialized_variables(
            &g,
            Some(&global_variables(&g)?),
        )?)
        .recovery_wait_secs(0.1);
    let e = sm
        .prepare_session(
            PrepareArgs::new()
                .checkpoint_dir("/tmp/x")
                .checkpoint_filename_with_path("/tmp/y"),
        )
        .err()
        .unwrap();
    assert_tf_error(e, &want["both_checkpoint_args"]);
    assert_tf_error(
        sm.prepare_session(PrepareArgs::new()).err().unwrap(),
        &want["no_init_op"],
    );
    let e = sm
        .wait_for_session(Default::default(), Some(Duration::from_millis(300)))
        .err()
        .unwrap();
    assert_tf_error(e, &want["wait_deadline"]);

    let ck = temp_dir("sm");
    std::fs::create_dir_all(&ck).unwrap();
    let prefix = ck.join("m").to_string_lossy().into_owned();
    let sess = sm.prepare_session(PrepareArgs::new().init_op(&init))?;
    let saver = Saver::new(&g)?.max_to_keep(2);
    for i in 0..3 {
        saver.save(&sess, &prefix, Some(i))?;
    }
    let saver2 = std::sync::Arc::new(Saver::new(&g)?.max_to_keep(2));
    let (s2, ok) =
        sm.recover_session(PrepareArgs::new().saver(saver2.clone()).checkpoint_dir(&ck))?;
    saver2.save(&s2, &prefix, Some(5))?;
    let r = &want["recover"];
    assert_eq!(ok, r["recovered"].as_bool().unwrap());
    assert_eq!(
        s2.eval(v.value())?.to_scalar::<f32>()?,
        r["v"].as_f64().unwrap() as f32
    );
    let mut files: Vec<String> = std::fs::read_dir(&ck)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(serde_json::json!(files), r["files_after_save"]);
    let (_, ok) = sm.recover_session(
        PrepareArgs::new()
            .saver(saver2.clone())
            .checkpoint_dir(ck.join("none")),
    )?;
    assert_eq!(ok, want["recover_without_checkpoint"].as_bool().unwrap());
    let missing = ck.join("m-9").to_string_lossy().into_owned();
    let e = sm
        .prepare_session(
            PrepareArgs::new()
                .saver(saver2)
                .checkpoint_filename_with_path(&missing),
        )
        .err()
        .unwrap();
    let (code, message) = tf_error(&want["missing_checkpoint_file"]);
    assert_eq!(e.code(), code);
    let tail = "The passed save_path is not a valid checkpoint: ";
    assert!(message.starts_with(tail));
    assert_eq!(e.message(), format!("{tail}{missing}"));
    std::fs::remove_dir_all(&ck).ok();
    Ok(())
}
