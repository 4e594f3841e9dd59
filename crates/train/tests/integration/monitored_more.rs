//! Session creators, `SingularMonitoredSession`, the Scaffold's collection defaults and
//! `CheckpointSaverListener` against TensorFlow 2.21 (tests/data/monitored_more/expected.json,
//! written by make_monitored_more.py there).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use weir_graph::{Code, Graph, Result, Tensor};
use weir_ops::array::constant;
use weir_ops::control_flow::group;
use weir_ops::lookup::{KeyValueTensorInitializer, StaticHashTable};
use weir_ops::state::Variable;
use weir_session::{RunArgs, SessionHandle};
use weir_train::{
    get_or_create_global_step, summary_iterator, CheckpointSaverHook, CheckpointSaverListener,
    ChiefSessionCreator, MonitoredSession, Scaffold, SingularMonitoredSession,
    WorkerSessionCreator,
};

fn expected() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/monitored_more/expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-mon-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

#[test]
fn the_default_scaffold_initializes_tables_and_fills_tensorflows_collections() -> Result<()> {
    let want = &expected()["scaffold"];
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 1.0f32)?).name("v").build()?;
    let table = StaticHashTable::new(
        &g,
        KeyValueTensorInitializer::new(["a", "b"], [1i64, 2]),
        -1i64,
    )?;
    let found = table.lookup(constant(&g, Tensor::from_strings(&["b", "z"]))?)?;
    let sess = MonitoredSession::new(
        ChiefSessionCreator::new(&g).scaffold(Scaffold::new()),
        Vec::new(),
    )?;
    let raw = sess.raw_session();
    assert_eq!(json!(raw.eval(&found)?.to_vec::<i64>()?), want["lookup"]);
    assert_eq!(raw.eval(v.value())?.to_scalar::<f32>()?, 1.0);
    let mut keys = g.collection_keys();
    keys.sort();
    assert_eq!(json!(keys), want["collections"]);
    assert_eq!(g.finalized(), want["finalized_inside"].as_bool().unwrap());
    sess.close()?;
    assert_eq!(g.finalized(), want["finalized_after"].as_bool().unwrap());
    Ok(())
}

/// Records every call, and asks to stop after the save at step 4 or later.
struct Recorder(Arc<Mutex<Vec<Value>>>);

impl CheckpointSaverListener for Recorder {
    fn begin(&mut self) -> Result<()> {
        self.0.lock().unwrap().push(json!(["begin"]));
        Ok(())
    }

    fn before_save(&mut self, _: &SessionHandle, step: i64) -> Result<()> {
        self.0.lock().unwrap().push(json!(["before_save", step]));
        Ok(())
    }

    fn after_save(&mut self, _: &SessionHandle, step: i64) -> Result<bool> {
        self.0.lock().unwrap().push(json!(["after_save", step]));
        Ok(step >= 4)
    }

    fn end(&mut self, _: &SessionHandle, step: i64) -> Result<()> {
        self.0.lock().unwrap().push(json!(["end", step]));
        Ok(())
    }
}

#[test]
fn a_listener_hears_every_save_and_can_stop_training() -> Result<()> {
    let want = &expected()["listener"];
    let dir = temp_dir("listener");
    let g = Graph::new();
    let gs = get_or_create_global_step(&g)?;
    let train = gs.assign_add(constant(&g, Tensor::scalar(1i64))?)?;
    let calls = Arc::new(Mutex::new(Vec::new()));
    let hook = CheckpointSaverHook::new(&dir, None, Some(2))?.listener(Recorder(calls.clone()));
    let mut sess = SingularMonitoredSession::new(&g).hook(hook).build()?;
    let mut steps = 0;
    while !sess.should_stop() && steps < 10 {
        sess.run(&RunArgs::new().fetch(&train))?;
        steps += 1;
    }
    sess.close()?;
    assert_eq!(json!(*calls.lock().unwrap()), want["calls"]);
    assert_eq!(steps, want["steps_run"].as_i64().unwrap());
    let mut index: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".index"))
        .collect();
    index.sort();
    assert_eq!(json!(index), want["files"]);
    // The saves are recorded in the event file the hook writes.
    let events = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("events.out")
        })
        .expect("an event file");
    let checkpoints: Vec<i64> = summary_iterator(&events)?
        .map(|e| e.unwrap())
        .filter(|e| {
            matches!(&e.what, Some(weir_ops::summary::proto::event::What::SessionLog(l)) if l.status == 3)
        })
        .map(|e| e.step)
        .collect();
    assert_eq!(checkpoints, [0, 2, 4]);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn a_worker_gives_up_waiting_for_a_model_nobody_initializes() -> Result<()> {
    let want = &expected()["worker"];
    let g = Graph::new();
    Variable::builder(constant(&g, 1.0f32)?).name("w").build()?;
    let e = MonitoredSession::new(WorkerSessionCreator::new(&g).max_wait_secs(0.2), Vec::new())
        .err()
        .unwrap();
    assert_eq!(want["type"], "DeadlineExceededError");
    assert_eq!(e.code(), Code::DeadlineExceeded);
    assert_eq!(e.message(), want["message"].as_str().unwrap());
    Ok(())
}

#[test]
fn an_explicit_checkpoint_path_wins_over_the_latest_one() -> Result<()> {
    let want = expected();
    let ck = temp_dir("restore");
    let model = |g: &Graph| -> Result<(Variable, Variable)> {
        let gs = get_or_create_global_step(g)?;
        let w = Variable::builder(constant(g, 5.0f32)?).name("w").build()?;
        Ok((gs, w))
    };
    let g = Graph::new();
    let (gs, w) = model(&g)?;
    let a = w.assign(constant(&g, 7.0f32)?)?;
    let b = gs.assign_add(constant(&g, Tensor::scalar(1i64))?)?;
    let step = group(&g, &[a.op(), b.op()], None)?;
    let mut sess = SingularMonitoredSession::new(&g)
        .hook(CheckpointSaverHook::new(&ck, None, Some(100))?)
        .checkpoint_dir(&ck)
        .build()?;
    sess.run(&RunArgs::new().target(&step))?;
    sess.close()?;
    let mut files: Vec<String> = std::fs::read_dir(&ck)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| !f.starts_with("events.out"))
        .collect();
    files.sort();
    let want_files: Vec<Value> = want["restore_path_files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f.as_str().unwrap().starts_with("events.out"))
        .cloned()
        .collect();
    assert_eq!(json!(files), json!(want_files));

    let g = Graph::new();
    let (gs, w) = model(&g)?;
    let path = ck.join("model.ckpt-0").to_string_lossy().into_owned();
    let sess = SingularMonitoredSession::new(&g)
        .checkpoint_filename_with_path(&path)
        .build()?;
    let got = sess.raw_session().eval(w.value())?.to_scalar::<f32>()?;
    assert_eq!(got as f64, want["restore_path"]["w"].as_f64().unwrap());
    sess.close()?;
    let sess = SingularMonitoredSession::new(&g)
        .checkpoint_dir(&ck)
        .build()?;
    let raw = sess.raw_session();
    assert_eq!(
        raw.eval(w.value())?.to_scalar::<f32>()? as f64,
        want["restore_dir"]["w"].as_f64().unwrap()
    );
    assert_eq!(
        raw.eval(gs.value())?.to_scalar::<i64>()?,
        want["restore_dir"]["step"].as_i64().unwrap()
    );
    sess.close()?;
    std::fs::remove_dir_all(&ck).ok();
    Ok(())
}
