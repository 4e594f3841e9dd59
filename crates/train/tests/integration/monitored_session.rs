//! MonitoredTrainingSession: hooks around runs, stopping at a step, checkpoints saved and
//! restored by a second session, summaries and step rates in the event file, a queue pipeline
//! and a tf.data pipeline run to their end, and TensorFlow's errors.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use prost::Message;
use weir_graph::graph_def::proto::GraphDef;
use weir_graph::{Code, DType, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::io::{tf_record_iterator, TfRecordOptions};
use weir_ops::math::add;
use weir_ops::state::Variable;
use weir_ops::summary::{self, proto::event::What, proto::summary_value::Value, proto::Event};
use weir_session::{RunArgs, SessionHandle};
use weir_train::*;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weir-monitored-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A variable `w` that each training run adds 1.0 to, with the global step counting runs.
struct Model {
    w: Variable,
    step: Variable,
    train: Output,
}

fn model(g: &Graph) -> Result<Model> {
    let w = Variable::builder(constant(g, 0.0f32)?).name("w").build()?;
    let step = get_or_create_global_step(g)?;
    let bump = w.assign_add(constant(g, 1.0f32)?)?;
    let one = constant(g, Tensor::scalar(1i64))?;
    let train = {
        let _after_bump = g.control_dependencies(&[bump.op()])?;
        step.assign_add(one)?
    };
    Ok(Model { w, step, train })
}

fn scalar_f32(s: &SessionHandle, t: &Output) -> f32 {
    s.eval(t).unwrap().to_scalar::<f32>().unwrap()
}

fn scalar_i64(s: &SessionHandle, t: &Output) -> i64 {
    s.eval(t).unwrap().to_scalar::<i64>().unwrap()
}

fn events(dir: &Path) -> Vec<Event> {
    let mut all = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("tfevents"))
        .collect();
    files.sort();
    for f in files {
        for r in tf_record_iterator(&f, TfRecordOptions::default()).unwrap() {
            all.push(Event::decode(r.unwrap()).unwrap());
        }
    }
    all
}

#[test]
fn stop_at_step_ends_the_loop_and_a_later_run_is_refused() -> Result<()> {
    let g = Graph::new();
    let m = model(&g)?;
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(StopAtStepHook::new(None, Some(7))?)
        .build()?;
    let mut runs = 0;
    while !sess.should_stop() {
        sess.run(&RunArgs::new().fetch(&m.train))?;
        runs += 1;
    }
    assert_eq!(runs, 7);
    assert_eq!(scalar_i64(sess.raw_session(), &m.step.value()), 7);
    let e = sess.run(&RunArgs::new().fetch(&m.train)).unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::Unknown,
            "Run called even after should_stop requested."
        )
    );
    sess.close()
}

#[test]
fn stop_at_step_hook_needs_one_bound_and_a_global_step() {
    let e = StopAtStepHook::new(None, None).err().unwrap();
    assert_eq!(
        e.message(),
        "One of num_steps or last_step must be specified."
    );
    let e = StopAtStepHook::new(Some(1), Some(2)).err().unwrap();
    assert_eq!(
        e.message(),
        "Only one of num_steps or last_step can be specified."
    );
    let g = Graph::new();
    Variable::new(constant(&g, 1.0f32).unwrap()).unwrap();
    let e = MonitoredTrainingSession::new(&g)
        .hook(StopAtStepHook::new(Some(3), None).unwrap())
        .build()
        .err()
        .unwrap();
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::Unknown,
            "Global step should be created to use StopAtStepHook."
        )
    );
}

#[test]
fn checkpoints_are_saved_on_steps_and_at_the_end_then_restored_by_a_new_session() -> Result<()> {
    let dir = temp_dir("ckpt");
    {
        let g = Graph::new();
        let m = model(&g)?;
        let mut sess = MonitoredTrainingSession::new(&g)
            .checkpoint_dir(&dir)
            .save_checkpoint_steps(Some(4))
            .hook(StopAtStepHook::new(Some(10), None)?)
            .build()?;
        while !sess.should_stop() {
            sess.run(&RunArgs::new().fetch(&m.train))?;
        }
        sess.close()?;
    }
    // The graph, as TensorFlow's CheckpointSaverHook writes it: graph.pbtxt beside the
    // checkpoints and a graph event for TensorBoard.
    let text = std::fs::read_to_string(dir.join("graph.pbtxt")).unwrap();
    assert!(
        text.contains("  name: \"w\"\n  op: \"VariableV2\"\n"),
        "{text}"
    );
    let graphs: Vec<GraphDef> = events(&dir)
        .into_iter()
        .filter_map(|e| match e.what {
            Some(What::GraphDef(b)) => Some(GraphDef::decode(b).unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(graphs.len(), 1);
    assert!(graphs[0].node.iter().any(|n| n.name == "w"));
    // Saved when created (step 0), at steps 4 and 8, and at the end (10); five are kept.
    let kept = get_checkpoint_state(&dir)?.expect("a checkpoint state");
    let names: Vec<String> = kept
        .all_model_checkpoint_paths
        .iter()
        .map(|p| {
            Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        [
            "model.ckpt-0",
            "model.ckpt-4",
            "model.ckpt-8",
            "model.ckpt-10"
        ]
    );
    // A second program: same graph code, new session, restored from the directory; its
    // StopAtStepHook counts from the restored step.
    let g = Graph::new();
    let m = model(&g)?;
    let mut sess = MonitoredTrainingSession::new(&g)
        .checkpoint_dir(&dir)
        .save_checkpoint_secs(None)
        .hook(StopAtStepHook::new(Some(3), None)?)
        .build()?;
    assert_eq!(scalar_f32(sess.raw_session(), &m.w.value()), 10.0);
    assert_eq!(scalar_i64(sess.raw_session(), &m.step.value()), 10);
    while !sess.should_stop() {
        sess.run(&RunArgs::new().fetch(&m.train))?;
    }
    assert_eq!(scalar_i64(sess.raw_session(), &m.step.value()), 13);
    sess.close()?;
    // No checkpoint hook this time (save_checkpoint_secs=None): still model.ckpt-10.
    assert!(latest_checkpoint(&dir)?.unwrap().ends_with("model.ckpt-10"));
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn summaries_and_the_step_rate_go_to_the_event_file() -> Result<()> {
    let dir = temp_dir("summaries");
    let g = Graph::new();
    let m = model(&g)?;
    summary::scalar("w_value", m.w.value())?;
    let mut sess = MonitoredTrainingSession::new(&g)
        .checkpoint_dir(&dir)
        .save_summaries_steps(Some(3))
        .log_step_count_steps(Some(2))
        .save_checkpoint_secs(None)
        .hook(StopAtStepHook::new(None, Some(7))?)
        .build()?;
    while !sess.should_stop() {
        sess.run(&RunArgs::new().fetch(&m.train))?;
    }
    sess.close()?;
    let ev = events(&dir);
    assert!(matches!(ev[0].what, Some(What::FileVersion(_))));
    let start: Vec<i64> = ev
        .iter()
        .filter(|e| matches!(&e.what, Some(What::SessionLog(l)) if l.status == 1))
        .map(|e| e.step)
        .collect();
    assert_eq!(start, [1]);
    // The summary op runs with the first run and then every 3 global steps; each is written at
    // the global step after its run.
    let w_steps: Vec<i64> = ev
        .iter()
        .filter(|e| matches!(&e.what, Some(What::Summary(s)) if s.value[0].tag == "w_value"))
        .map(|e| e.step)
        .collect();
    assert_eq!(w_steps, [1, 4, 7]);
    let rates: Vec<(i64, f32)> = ev
        .iter()
        .filter_map(|e| match &e.what {
            Some(What::Summary(s)) if s.value[0].tag == "global_step/sec" => {
                match s.value[0].value {
                    Some(Value::SimpleValue(v)) => Some((e.step, v)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    // Measured from step 1 (the first trigger only starts the clock) every 2 steps.
    assert_eq!(
        rates.iter().map(|r| r.0).collect::<Vec<_>>(),
        [3, 5, 7],
        "{rates:?}"
    );
    assert!(rates.iter().all(|r| r.1 > 0.0 && r.1.is_finite()));
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn a_queue_pipeline_runs_to_its_end_and_close_joins_the_runners() -> Result<()> {
    let g = Graph::new();
    let files = constant(&g, Tensor::from_strings(&["a", "b", "c"]))?;
    // num_epochs makes a local variable: the session must run the local initializer.
    let q = StringInputProducer::new(files)
        .num_epochs(2)
        .shuffle(false)
        .build()?;
    let name = q.dequeue()?.remove(0);
    let mut sess = MonitoredTrainingSession::new(&g).build()?;
    let mut got = Vec::new();
    let end = loop {
        match sess.run(&RunArgs::new().fetch(&name)) {
            Ok(v) => got.push(v[0].to_strings()?[0].clone()),
            Err(e) => break e,
        }
    };
    assert!(end.is_out_of_range(), "{end}");
    assert_eq!(got, ["a", "b", "c", "a", "b", "c"]);
    sess.close()
}

/// Records what it sees, feeds `x` and fetches `y`.
struct Probe {
    x: Output,
    y: Output,
    seen: Arc<Mutex<Vec<String>>>,
    stop_after: usize,
}

impl SessionRunHook for Probe {
    fn begin(&mut self, _: &Graph) -> Result<()> {
        self.seen.lock().unwrap().push("begin".into());
        Ok(())
    }
    fn after_create_session(&mut self, _: &SessionHandle, _: &Coordinator) -> Result<()> {
        self.seen
            .lock()
            .unwrap()
            .push("after_create_session".into());
        Ok(())
    }
    fn before_run(&mut self, ctx: &mut SessionRunContext<'_>) -> Result<SessionRunArgs> {
        let n = ctx.original_args().fetch_count();
        self.seen.lock().unwrap().push(format!("before_run {n}"));
        Ok(SessionRunArgs::new()
            .feed(&self.x, Tensor::scalar(5.0f32))
            .fetch(&self.y))
    }
    fn after_run(&mut self, ctx: &mut SessionRunContext<'_>, v: &SessionRunValues) -> Result<()> {
        let y = v.results[0].to_scalar::<f32>()?;
        let mut seen = self.seen.lock().unwrap();
        seen.push(format!("after_run {y}"));
        if seen.iter().filter(|s| s.starts_with("after_run")).count() == self.stop_after {
            ctx.request_stop();
        }
        Ok(())
    }
    fn end(&mut self, _: &SessionHandle) -> Result<()> {
        self.seen.lock().unwrap().push("end".into());
        Ok(())
    }
}

#[test]
fn a_hook_adds_feeds_and_fetches_sees_their_values_and_can_stop() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::scalar())?;
    let y = add(&x, constant(&g, 1.0f32)?)?;
    let z = add(&x, constant(&g, 10.0f32)?)?;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(Probe {
            x: x.clone(),
            y: y.clone(),
            seen: seen.clone(),
            stop_after: 2,
        })
        .build()?;
    // The caller gets only its own fetch, computed with the hook's feed.
    let out = sess.run(&RunArgs::new().fetch(&z))?;
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to_scalar::<f32>()?, 15.0);
    assert!(!sess.should_stop());
    sess.run(&RunArgs::new().fetch(&z))?;
    assert!(sess.should_stop());
    sess.close()?;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "begin",
            "after_create_session",
            "before_run 1",
            "after_run 6",
            "before_run 1",
            "after_run 6",
            "end"
        ]
    );
    // Feeding what a hook feeds is refused, in TensorFlow's words; so is feeding it twice.
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(Probe {
            x: x.clone(),
            y: y.clone(),
            seen: seen.clone(),
            stop_after: 9,
        })
        .build()?;
    let e = sess
        .run(&RunArgs::new().feed(&x, Tensor::scalar(1.0f32)).fetch(&z))
        .unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Same tensor is fed by a SessionRunHook and user."
        )
    );
    drop(sess);
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(Probe {
            x: x.clone(),
            y: y.clone(),
            seen: seen.clone(),
            stop_after: 9,
        })
        .hook(Probe {
            x,
            y,
            seen,
            stop_after: 9,
        })
        .build()?;
    let e = sess.run(&RunArgs::new().fetch(&z)).unwrap_err();
    assert_eq!(e.message(), "Same tensor is fed by two hooks.");
    Ok(())
}

#[test]
fn logging_tensor_hook_logs_every_n_iterations_and_at_the_end() -> Result<()> {
    let g = Graph::new();
    let m = model(&g)?;
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let hook = LoggingTensorHook::new(&[m.step.value()], Some(2), None, true)?
        .sink(move |l| sink.lock().unwrap().push(l.to_string()));
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(hook)
        .hook(StopAtStepHook::new(None, Some(5))?)
        .build()?;
    while !sess.should_stop() {
        sess.run(&RunArgs::new().fetch(&m.train))?;
    }
    sess.close()?;
    let lines = lines.lock().unwrap();
    // Iterations 0, 2 and 4 (the value read as the run starts), then the final value.
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0], "global_step/read:0 = 0");
    assert!(
        lines[1].starts_with("global_step/read:0 = 2 ("),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with(" sec)"), "{}", lines[1]);
    assert!(lines[2].starts_with("global_step/read:0 = 4 ("));
    assert_eq!(lines[3], "global_step/read:0 = 5");
    let e = LoggingTensorHook::new(&[m.step.value()], None, None, false)
        .err()
        .unwrap();
    assert_eq!(
        e.message(),
        "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided."
    );
    let e = LoggingTensorHook::new(&[m.step.value()], Some(0), None, false)
        .err()
        .unwrap();
    assert_eq!(e.message(), "invalid every_n_iter=0.");
    Ok(())
}

#[test]
fn a_nan_loss_fails_the_run_or_stops_training() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::scalar())?;
    let loss = add(&x, constant(&g, 0.0f32)?)?;
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(NanTensorHook::new(&loss, true))
        .build()?;
    sess.run(&RunArgs::new().feed(&x, Tensor::scalar(1.0f32)))?;
    let e = sess
        .run(&RunArgs::new().feed(&x, Tensor::scalar(f32::NAN)))
        .unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::Unknown, "NaN loss during training.")
    );
    drop(sess);
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(NanTensorHook::new(&loss, false))
        .build()?;
    sess.run(&RunArgs::new().feed(&x, Tensor::scalar(f32::NAN)))?;
    assert!(sess.should_stop());
    sess.close()
}

#[test]
fn an_init_op_that_leaves_a_variable_uninitialized_is_refused() {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 1.0f32).unwrap())
        .name("forgotten")
        .build()
        .unwrap();
    let noop: Operation = weir_ops::control_flow::no_op(&g).unwrap();
    let e = MonitoredTrainingSession::new(&g)
        .scaffold(Scaffold::new().init_op(&noop))
        .build()
        .err()
        .unwrap();
    // TensorFlow's Scaffold checks the global variables before the local init op.
    assert_eq!(e.code(), Code::Unknown);
    assert_eq!(
        e.message(),
        "Init operations did not make model ready for local_init.  Init op: NoOp, init fn: \
         None, error: Variables not initialized: forgotten"
    );
    // The graph stays finalized, as TensorFlow leaves it after a failed creation.
    assert!(g.finalized());
    let _ = v;
}

#[test]
fn dropping_an_unclosed_session_stops_its_runners_without_the_hooks_end() -> Result<()> {
    let g = Graph::new();
    let files = constant(&g, Tensor::from_strings(&["a"]))?;
    let q = StringInputProducer::new(files).build()?;
    let name = q.dequeue()?.remove(0);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let x = placeholder(&g, DType::F32, Shape::scalar())?;
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(Probe {
            x: x.clone(),
            y: x,
            seen: seen.clone(),
            stop_after: 99,
        })
        .build()?;
    sess.run(&RunArgs::new().fetch(&name))?;
    let coord = sess.coordinator().clone();
    drop(sess);
    assert!(coord.should_stop());
    assert!(coord.joined());
    assert!(!seen.lock().unwrap().contains(&"end".to_string()));
    Ok(())
}

#[test]
fn feed_fn_and_final_ops_hooks_feed_each_run_and_evaluate_at_the_end() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::scalar())?;
    let total = Variable::builder(constant(&g, 0.0f32)?)
        .name("total")
        .build()?;
    let accumulate = total.assign_add(&x)?;
    let mut next = 0.0f32;
    let xf = x.clone();
    let feed = FeedFnHook::new(move || {
        next += 1.0;
        vec![(xf.clone(), Tensor::scalar(next))]
    });
    let final_ops = FinalOpsHook::new(&[total.value()]);
    let values = final_ops.final_ops_values();
    let mut sess = MonitoredTrainingSession::new(&g)
        .hook(feed)
        .hook(final_ops)
        .build()?;
    for _ in 0..4 {
        sess.run(&RunArgs::new().fetch(&accumulate))?;
    }
    assert!(values.lock().is_none());
    sess.close()?;
    let got = values.lock().take().expect("evaluated at the end");
    assert_eq!(got[0].to_scalar::<f32>()?, 1.0 + 2.0 + 3.0 + 4.0);
    Ok(())
}

#[test]
fn stock_hooks_refuse_ambiguous_periods_in_tensorflows_words() {
    let e = StepCounterHook::new(None, None, None).err().unwrap();
    assert_eq!(
        e.message(),
        "exactly one of every_n_steps and every_n_secs should be provided."
    );
    let e = CheckpointSaverHook::new("/tmp", Some(1.0), Some(1))
        .err()
        .unwrap();
    assert_eq!(
        e.message(),
        "Can not provide both every_secs and every_steps."
    );
    // A summary hook needs exactly one of a scaffold and a summary op (checked in begin).
    let g = Graph::new();
    get_or_create_global_step(&g).unwrap();
    let dir = temp_dir("nosummary");
    let e = MonitoredTrainingSession::new(&g)
        .hook(SummarySaverHook::new(Some(1), None, &dir).unwrap())
        .build()
        .err()
        .unwrap();
    assert_eq!(
        e.message(),
        "Exactly one of scaffold or summary_op must be provided."
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn profiler_hook_writes_a_timeline_every_n_steps_and_traces_only_those_runs() -> Result<()> {
    let dir = temp_dir("profiler");
    let g = Graph::new();
    let m = model(&g)?;
    // Records whether each run it sees was traced.
    struct Traced(Arc<Mutex<Vec<bool>>>);
    impl SessionRunHook for Traced {
        fn after_run(&mut self, _: &mut SessionRunContext<'_>, v: &SessionRunValues) -> Result<()> {
            let traced = v.run_metadata.step_stats.node_stats().next().is_some();
            self.0.lock().unwrap().push(traced);
            Ok(())
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut sess = MonitoredTrainingSession::new(&g)
        .save_checkpoint_secs(None)
        .hook(StopAtStepHook::new(Some(10), None)?)
        .hook(ProfilerHook::new(Some(3), None, &dir)?.show_memory(true))
        .hook(Traced(seen.clone()))
        .build()?;
    while !sess.should_stop() {
        sess.run(&RunArgs::new().fetch(&m.train))?;
    }
    sess.close()?;
    // The first run starts the timer at step 0; then every third step, read after its run.
    let traced: Vec<usize> = seen
        .lock()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, &t)| t)
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(traced, [3, 6, 9]);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with("timeline-"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["timeline-3.json", "timeline-6.json", "timeline-9.json"]
    );
    // And the run metadata in the event file, tagged as TensorFlow tags it.
    let tagged: Vec<(String, i64, usize)> = events(&dir)
        .into_iter()
        .filter_map(|e| match e.what {
            Some(What::TaggedRunMetadata(t)) => Some((t.tag, e.step, t.run_metadata.len())),
            _ => None,
        })
        .collect();
    let tags: Vec<(&str, i64)> = tagged.iter().map(|(t, s, _)| (t.as_str(), *s)).collect();
    assert_eq!(tags, [("step_3", 3), ("step_6", 6), ("step_9", 9)]);
    assert!(tagged.iter().all(|(_, _, n)| *n > 100), "{tagged:?}");
    let text = std::fs::read_to_string(dir.join("timeline-6.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let train_name = m.train.op().name();
    assert!(
        events.iter().any(|e| e["ph"] == "X"
            && e["name"] == "AssignAdd"
            && e["args"]["name"] == train_name.as_str()),
        "{text}"
    );
    // show_memory: memory counters are there.
    assert!(events.iter().any(|e| e["ph"] == "C"));
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn a_monitored_run_with_a_trace_level_fills_the_callers_metadata() -> Result<()> {
    let g = Graph::new();
    let m = model(&g)?;
    let mut sess = MonitoredTrainingSession::new(&g)
        .save_checkpoint_secs(None)
        .build()?;
    let mut meta = weir_session::RunMetadata::default();
    let args = RunArgs::new()
        .fetch(&m.train)
        .trace_level(weir_session::TraceLevel::FullTrace);
    sess.run_with_metadata(&args, &mut meta)?;
    let train_name = m.train.op().name();
    assert!(meta
        .step_stats
        .node_stats()
        .any(|n| n.node_name == train_name));
    sess.run_with_metadata(&RunArgs::new().fetch(&m.train), &mut meta)?;
    assert_eq!(meta, weir_session::RunMetadata::default());
    sess.close()
}

#[test]
fn a_tf_data_pipeline_trains_to_its_end_and_the_checkpoint_saves() -> Result<()> {
    use weir_ops::data::Dataset;
    let dir = temp_dir("tfdata");
    let g = Graph::new();
    let xs = constant(&g, Tensor::from(vec![1.0f32, 2.0, 3.0, 4.0, 5.0]))?;
    let next = Dataset::from_tensor_slices(&[xs])?
        .batch(2)?
        .repeat(Some(2))?
        .make_one_shot_iterator()?
        .get_next()?;
    let total = Variable::builder(constant(&g, 0.0f32)?)
        .name("total")
        .build()?;
    let step = get_or_create_global_step(&g)?;
    let sum = weir_ops::math::Reduce::sum().build(&next[0])?;
    let train = {
        let added = total.assign_add(sum)?;
        let _after = g.control_dependencies(&[added.op()])?;
        step.assign_add(constant(&g, Tensor::scalar(1i64))?)?
    };
    let mut sess = MonitoredTrainingSession::new(&g)
        .checkpoint_dir(&dir)
        .build()?;
    let mut runs = 0;
    let end = loop {
        match sess.run(&RunArgs::new().fetch(&train)) {
            Ok(_) => runs += 1,
            Err(e) => break e,
        }
    };
    // Batches [1,2] [3,4] [5], twice; the end of the dataset ends the loop.
    assert!(end.is_out_of_range(), "{end}");
    assert_eq!(end.message(), "End of sequence");
    assert_eq!(runs, 6);
    assert_eq!(scalar_f32(sess.raw_session(), &total.value()), 30.0);
    sess.close()?;
    // Closing saved the last step's checkpoint.
    let latest = latest_checkpoint(&dir)?.expect("a checkpoint");
    assert!(latest.ends_with("model.ckpt-6"), "{latest}");
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
