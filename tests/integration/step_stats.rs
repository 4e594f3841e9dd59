//! Traced runs (`RunOptions(trace_level=FULL_TRACE)`, `RunMetadata.step_stats`) and their
//! Chrome trace (`timeline.Timeline`).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use weir::prelude::*;
use weir::session::{
    AllocationDescription, DeviceStepStats, NodeExecStats, NodeOutput, StepStats,
    TensorDescription, CPU_DEVICE,
};
use weir::Code;

fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_micros() as i64
}

fn stats_of<'a>(meta: &'a RunMetadata, name: &str) -> &'a NodeExecStats {
    meta.step_stats
        .node_stats()
        .find(|n| n.node_name == name)
        .unwrap_or_else(|| panic!("no stats for {name}: {:?}", meta.step_stats))
}

#[test]
fn a_traced_run_records_every_node_with_its_label_outputs_and_times() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32).name("x").build(&g)?;
    let two = constant_named(&g, 2.0f32, "two")?;
    let y = mul(&x, &two)?;
    let z = add(&y, &x)?;
    let sess = Session::new(&g)?;
    let mut meta = RunMetadata::default();
    let before = now_micros();
    let args = RunArgs::new()
        .feed(&x, Tensor::from(vec![1.0f32, 2.0]))
        .fetch(&z)
        .trace_level(TraceLevel::FullTrace);
    let out = sess.run_with_metadata(&args, &mut meta)?;
    let after = now_micros();
    assert_eq!(out[0].to_vec::<f32>()?, vec![3.0, 6.0]);

    assert_eq!(meta.step_stats.dev_stats.len(), 1);
    assert_eq!(meta.step_stats.dev_stats[0].device, CPU_DEVICE);
    // The fed placeholder does not run; the constant and both ops do.
    let names: Vec<&str> = meta
        .step_stats
        .node_stats()
        .map(|n| n.node_name.as_str())
        .collect();
    assert!(!names.contains(&"x"), "{names:?}");
    let (y_name, z_name) = (y.op().name(), z.op().name());
    for n in ["two", y_name.as_str(), z_name.as_str()] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let zs = stats_of(&meta, &z_name);
    assert_eq!(zs.timeline_label, format!("{z_name} = AddV2({y_name}, x)"));
    assert_eq!(
        stats_of(&meta, &y_name).timeline_label,
        format!("{y_name} = Mul(x, two)")
    );
    assert_eq!(stats_of(&meta, "two").timeline_label, "two = Const()");
    assert_eq!(zs.output.len(), 1);
    let d = &zs.output[0].tensor_description;
    assert_eq!(
        (zs.output[0].slot, d.dtype, d.shape.as_slice()),
        (0, DType::F32, &[2usize][..])
    );
    assert_eq!(d.allocation_description.requested_bytes, 8);
    assert_eq!(d.allocation_description.allocator_name, "cpu");
    // Wall-clock times within the run, in start order, each consistent in both units.
    let all: Vec<&NodeExecStats> = meta.step_stats.node_stats().collect();
    for w in all.windows(2) {
        assert!(w[0].all_start_nanos <= w[1].all_start_nanos);
    }
    for n in &all {
        assert!(n.all_start_micros >= before - 1 && n.all_start_micros <= after + 1);
        assert_eq!(n.all_start_micros, n.all_start_nanos / 1000);
        assert!(n.all_end_rel_nanos >= 0 && n.op_end_rel_nanos == n.all_end_rel_nanos);
        assert!(n.thread_id > 0);
    }
    Ok(())
}

#[test]
fn without_a_trace_level_the_metadata_stays_empty() -> Result<()> {
    let g = Graph::new();
    let c = constant(&g, 1i32)?;
    let sess = Session::new(&g)?;
    let mut meta = RunMetadata::default();
    meta.step_stats.dev_stats.push(DeviceStepStats::default());
    sess.run_with_metadata(&RunArgs::new().fetch(&c), &mut meta)?;
    assert_eq!(meta, RunMetadata::default());
    // A trace level on a plain run changes nothing about its result.
    let r = sess.run(&RunArgs::new().fetch(&c).trace_level(TraceLevel::FullTrace))?;
    assert_eq!(r[0].to_scalar::<i32>()?, 1);
    Ok(())
}

#[test]
fn a_failed_run_reports_the_nodes_that_ran_before_the_error() -> Result<()> {
    let g = Graph::new();
    let s = Placeholder::new(DType::String).name("s").build(&g)?;
    let suffix = constant_named(&g, Tensor::from_strings(&["x"]), "suffix")?;
    let joined = string_join(&[s.clone(), suffix], "")?;
    let n = string_to_number(&joined, DType::F32)?;
    let sess = Session::new(&g)?;
    let mut meta = RunMetadata::default();
    let args = RunArgs::new()
        .feed(&s, Tensor::from_strings(&["1"]))
        .fetch(&n)
        .trace_level(TraceLevel::SoftwareTrace);
    let err = sess.run_with_metadata(&args, &mut meta).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err}");
    let joined_stats = stats_of(&meta, &joined.op().name());
    // "1x": two bytes of string data.
    assert_eq!(
        joined_stats.output[0]
            .tensor_description
            .allocation_description
            .requested_bytes,
        2
    );
    assert!(meta
        .step_stats
        .node_stats()
        .all(|s| s.node_name != n.op().name()));
    Ok(())
}

#[test]
fn a_parallel_run_records_each_branch() -> Result<()> {
    let g = Graph::new();
    let a = random_normal(&g, [256, 256])?;
    let b = random_normal(&g, [256, 256])?;
    let left = a.matmul(&a)?;
    let right = b.matmul(&b)?;
    let sum = add(&left, &right)?;
    let sess = Session::new(&g)?;
    let mut meta = RunMetadata::default();
    let args = RunArgs::new()
        .fetch(&sum)
        .trace_level(TraceLevel::FullTrace);
    for _ in 0..3 {
        sess.run_with_metadata(&args, &mut meta)?;
        for t in [&a, &b, &left, &right, &sum] {
            stats_of(&meta, &t.op().name());
        }
        assert_eq!(
            meta.step_stats.node_stats().count(),
            meta.step_stats.dev_stats[0].node_stats.len()
        );
    }
    Ok(())
}

fn node(name: &str, label: &str, start: i64, dur: i64, bytes: Option<i64>) -> NodeExecStats {
    NodeExecStats {
        node_name: name.to_string(),
        all_start_micros: start,
        all_end_rel_micros: dur,
        op_end_rel_micros: dur,
        timeline_label: label.to_string(),
        output: bytes
            .map(|b| NodeOutput {
                slot: 0,
                tensor_description: TensorDescription {
                    dtype: DType::F32,
                    shape: vec![b as usize / 4],
                    allocation_description: AllocationDescription {
                        requested_bytes: b,
                        allocator_name: "cpu".to_string(),
                    },
                },
            })
            .into_iter()
            .collect(),
        ..NodeExecStats::default()
    }
}

fn events<'a>(trace: &'a Value, ph: &str) -> Vec<&'a Value> {
    trace["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == ph)
        .collect()
}

#[test]
fn the_chrome_trace_has_lanes_dataflow_and_memory_as_tensorflow_draws_them() {
    // a runs 100-110; b (reads a) 105-120 overlaps it, so it takes a second lane; c (reads a
    // and b) starts after both, back in the first lane.
    let stats = StepStats {
        dev_stats: vec![DeviceStepStats {
            device: CPU_DEVICE.to_string(),
            node_stats: vec![
                node("a", "a = Const()", 100, 10, Some(400)),
                node("b", "b = Neg(a)", 105, 15, Some(400)),
                node("c", "c = Add(a, b)", 130, 5, Some(400)),
                node("init", "init = NoOp()", 140, 1, None),
            ],
        }],
    };
    let text = Timeline::new(&stats).generate_chrome_trace_format(true, true);
    assert!(
        text.contains("\n    \"traceEvents\": ["),
        "four-space indent: {text}"
    );
    let trace: Value = serde_json::from_str(&text).expect("valid JSON");

    let names: Vec<&Value> = events(&trace, "M")
        .into_iter()
        .map(|e| &e["args"]["name"])
        .collect();
    assert_eq!(
        names,
        vec![
            "Allocators",
            &format!("{CPU_DEVICE} Compute"),
            &format!("{CPU_DEVICE} Tensors")
        ]
    );

    let ops = events(&trace, "X");
    let lane = |name: &str| {
        let e = ops
            .iter()
            .find(|e| e["args"]["name"] == name)
            .expect("op event");
        (
            e["tid"].as_u64().unwrap(),
            e["name"].clone(),
            e["ts"].as_i64().unwrap(),
            e["dur"].as_i64().unwrap(),
        )
    };
    assert_eq!(lane("a"), (0, "Const".into(), 100, 10));
    assert_eq!(lane("b"), (1, "Neg".into(), 105, 15));
    assert_eq!(lane("c"), (0, "Add".into(), 130, 5));
    let c = ops.iter().find(|e| e["args"]["name"] == "c").unwrap();
    assert_eq!(
        (&c["args"]["input0"], &c["args"]["input1"]),
        (&"a".into(), &"b".into())
    );
    assert!(ops.iter().all(|e| e["pid"] == 1 && e["cat"] == "Op"));

    // Arrows only between lanes: a -> b and b -> c, not a -> c (both in lane 0).
    let starts = events(&trace, "s");
    let ends = events(&trace, "t");
    let flows: Vec<(String, i64, i64)> = starts
        .iter()
        .zip(&ends)
        .map(|(s, t)| {
            assert_eq!(s["id"], t["id"]);
            (
                s["name"].as_str().unwrap().to_string(),
                s["ts"].as_i64().unwrap(),
                t["ts"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        flows,
        vec![("a".to_string(), 110, 105), ("b".to_string(), 120, 130)]
    );

    // Memory: each tensor created at its producer's start, deleted after its last reader, and
    // the running total back at zero.
    let deleted: Vec<(String, i64)> = events(&trace, "D")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["ts"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        deleted,
        vec![("a".into(), 134), ("b".into(), 134), ("c".into(), 135)]
    );
    assert_eq!(events(&trace, "N").len(), 3);
    let snapshot = events(&trace, "O")[0]["args"]["snapshot"]["tensor_description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        snapshot.starts_with("dtype: DT_FLOAT\nshape {\n  dim {\n    size: 100\n"),
        "{snapshot}"
    );
    assert!(
        snapshot.contains("requested_bytes: 400\n  allocator_name: cpu\n"),
        "{snapshot}"
    );
    let totals: Vec<i64> = events(&trace, "C")
        .iter()
        .map(|e| e["args"]["cpu"].as_i64().unwrap())
        .collect();
    assert_eq!(totals, vec![400, 800, 1200, 800, 400, 0]);
}

#[test]
fn a_real_runs_timeline_parses_and_names_its_ops() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32).name("x").build(&g)?;
    let y = mul(&x, &x)?;
    let sess = Session::new(&g)?;
    let mut meta = RunMetadata::default();
    let args = RunArgs::new()
        .feed(&x, Tensor::from(vec![3.0f32]))
        .fetch(&y)
        .trace_level(TraceLevel::FullTrace);
    sess.run_with_metadata(&args, &mut meta)?;
    let trace: Value = serde_json::from_str(
        &Timeline::new(&meta.step_stats).generate_chrome_trace_format(true, false),
    )
    .expect("valid JSON");
    let ops = events(&trace, "X");
    assert!(ops.iter().any(|e| e["name"] == "Mul"
        && e["args"]["name"] == y.op().name().as_str()
        && e["args"]["input0"] == "x"));
    // Without show_memory, no tensor or counter events.
    for ph in ["N", "O", "D", "C"] {
        assert!(events(&trace, ph).is_empty(), "{ph}");
    }
    Ok(())
}
