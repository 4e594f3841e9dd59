//! Chrome-trace rendering of a traced run's step stats: TensorFlow's
//! `tensorflow.python.client.timeline.Timeline`, whose JSON `chrome://tracing` and Perfetto load.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::step_stats::{NodeExecStats, StepStats, TensorDescription};

/// A timeline of one traced run (`timeline.Timeline(run_metadata.step_stats)`).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape, Tensor};
/// # use weir_ops::{array::placeholder, math::mul};
/// use weir_session::{RunArgs, RunMetadata, Session, Timeline, TraceLevel};
/// # let g = Graph::new();
/// # let x = placeholder(&g, DType::F32, Shape::unknown())?;
/// # let y = mul(&x, &x)?;
/// # let sess = Session::new(&g)?;
/// let mut meta = RunMetadata::default();
/// let args = RunArgs::new()
///     .feed(&x, Tensor::from(vec![3.0f32]))
///     .fetch(&y)
///     .trace_level(TraceLevel::FullTrace);
/// sess.run_with_metadata(&args, &mut meta)?;
/// let trace = Timeline::new(&meta.step_stats).generate_chrome_trace_format(true, false);
/// assert!(trace.contains("\"traceEvents\""));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Timeline<'a> {
    step_stats: &'a StepStats,
}

/// A device's two trace processes and its ops, each with its lane.
struct Device<'s> {
    compute: usize,
    tensors: usize,
    nodes: Vec<(&'s NodeExecStats, usize)>,
}

/// A produced tensor's lifetime, for the dataflow arrows and the memory counters.
struct TensorTrack {
    pid: usize,
    object_id: usize,
    create_time: i64,
    allocator: String,
    num_bytes: i64,
    last_unref: i64,
}

/// The events of one trace: metadata first, as TensorFlow writes them.
#[derive(Default)]
struct Trace {
    metadata: Vec<Value>,
    events: Vec<Value>,
}

impl Trace {
    fn event(
        ph: &str,
        cat: &str,
        name: &str,
        pid: usize,
        tid: usize,
        ts: i64,
    ) -> Map<String, Value> {
        let mut e = Map::new();
        e.insert("ph".into(), ph.into());
        e.insert("cat".into(), cat.into());
        e.insert("name".into(), name.into());
        e.insert("pid".into(), pid.into());
        e.insert("tid".into(), tid.into());
        e.insert("ts".into(), ts.into());
        e
    }

    fn process(&mut self, name: &str, pid: usize) {
        self.metadata.push(json!({
            "name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}
        }));
    }

    fn push(&mut self, mut e: Map<String, Value>, extra: &[(&str, Value)]) {
        for (k, v) in extra {
            e.insert((*k).into(), v.clone());
        }
        self.events.push(Value::Object(e));
    }
}

/// `name = Op(a, b:1)` -> (`Op`, [`a`, `b:1`]); anything else is TensorFlow's `unknown`.
fn parse_op_label(label: &str) -> (String, Vec<String>) {
    let parsed = label.split_once(" = ").and_then(|(_, rest)| {
        let open = rest.find('(')?;
        let inner = rest.strip_suffix(')')?.get(open + 1..)?;
        let inputs = if inner.is_empty() {
            Vec::new()
        } else {
            inner.split(", ").map(str::to_string).collect()
        };
        Some((rest[..open].to_string(), inputs))
    });
    parsed.unwrap_or_else(|| ("unknown".to_string(), Vec::new()))
}

/// The description in protobuf's text format with the quotes dropped, as the timeline's
/// tensor snapshots show it.
fn describe(t: &TensorDescription) -> String {
    let mut s = format!("dtype: {}\nshape {{\n", t.dtype.proto_name());
    for d in &t.shape {
        s.push_str(&format!("  dim {{\n    size: {d}\n  }}\n"));
    }
    let a = &t.allocation_description;
    s.push_str(&format!(
        "}}\nallocation_description {{\n  requested_bytes: {}\n  allocator_name: {}\n}}\n",
        a.requested_bytes, a.allocator_name
    ));
    s
}

impl<'a> Timeline<'a> {
    /// A timeline of `step_stats` (a traced run's [`RunMetadata::step_stats`](crate::RunMetadata)).
    pub fn new(step_stats: &'a StepStats) -> Timeline<'a> {
        Timeline { step_stats }
    }

    /// The trace as pretty-printed Chrome Trace Format JSON
    /// (`generate_chrome_trace_format(show_dataflow, show_memory)`; TensorFlow's defaults are
    /// `true`, `false`). Each device is a process with one lane per overlapping op; dataflow
    /// adds arrows from producer to consumer across lanes; memory adds each tensor's lifetime
    /// and a running total of bytes per allocator.
    pub fn generate_chrome_trace_format(&self, show_dataflow: bool, show_memory: bool) -> String {
        let mut trace = Trace::default();
        let allocators_pid = 0;
        trace.process("Allocators", allocators_pid);
        // Lanes replace the recorded threads, as in TensorFlow: the first lane free at an op's
        // start takes it.
        let devices: Vec<Device<'_>> = self
            .step_stats
            .dev_stats
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let (compute, tensors) = (1 + 2 * i, 2 + 2 * i);
                trace.process(&format!("{} Compute", d.device), compute);
                trace.process(&format!("{} Tensors", d.device), tensors);
                let mut lanes: Vec<i64> = vec![0];
                let nodes = d
                    .node_stats
                    .iter()
                    .map(|ns| {
                        let end = ns.all_start_micros + ns.all_end_rel_micros;
                        let lane = match lanes.iter().position(|&l| ns.all_start_micros > l) {
                            Some(l) => l,
                            None => {
                                lanes.push(0);
                                lanes.len() - 1
                            }
                        };
                        lanes[lane] = end;
                        (ns, lane)
                    })
                    .collect();
                Device {
                    compute,
                    tensors,
                    nodes,
                }
            })
            .collect();

        let mut tensors: Vec<TensorTrack> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let mut flow_starts: HashMap<String, (i64, usize, usize)> = HashMap::new();
        for dev in &devices {
            let (compute, tensors_pid) = (&dev.compute, &dev.tensors);
            for &(ns, tid) in &dev.nodes {
                let (start, end) = (
                    ns.all_start_micros,
                    ns.all_start_micros + ns.all_end_rel_micros,
                );
                for (index, out) in ns.output.iter().enumerate() {
                    let name = if index == 0 {
                        ns.node_name.clone()
                    } else {
                        format!("{}:{index}", ns.node_name)
                    };
                    let a = &out.tensor_description.allocation_description;
                    let object_id = tensors.len();
                    tensors.push(TensorTrack {
                        pid: *tensors_pid,
                        object_id,
                        create_time: start,
                        allocator: a.allocator_name.clone(),
                        num_bytes: a.requested_bytes,
                        last_unref: end,
                    });
                    by_name.insert(name.clone(), object_id);
                    flow_starts.insert(name.clone(), (end, *compute, tid));
                    if show_memory {
                        let create = Trace::event("N", "Tensor", &name, *tensors_pid, tid, start);
                        trace.push(create, &[("id", object_id.into())]);
                        let snap = Trace::event("O", "Tensor", &name, *tensors_pid, tid, end - 1);
                        let desc = json!({"snapshot": {"tensor_description": describe(&out.tensor_description)}});
                        trace.push(snap, &[("id", object_id.into()), ("args", desc)]);
                    }
                }
            }
        }

        let mut next_flow = 0usize;
        for dev in &devices {
            let compute = &dev.compute;
            for &(ns, tid) in &dev.nodes {
                let (start, end) = (
                    ns.all_start_micros,
                    ns.all_start_micros + ns.all_end_rel_micros,
                );
                let (op, inputs) = parse_op_label(&ns.timeline_label);
                let mut args = Map::new();
                args.insert("name".into(), ns.node_name.clone().into());
                args.insert("op".into(), op.clone().into());
                for (i, input) in inputs.iter().enumerate() {
                    args.insert(format!("input{i}"), input.clone().into());
                }
                let region = Trace::event("X", "Op", &op, *compute, tid, start);
                trace.push(
                    region,
                    &[
                        ("dur", ns.all_end_rel_micros.into()),
                        ("args", Value::Object(args)),
                    ],
                );
                for input in &inputs {
                    let Some(&id) = by_name.get(input) else {
                        continue;
                    };
                    let t = &mut tensors[id];
                    t.last_unref = t.last_unref.max(end - 1);
                    let (created, pid, producer_tid) = flow_starts[input];
                    // No arrow between ops of one lane: horizontal arrows only clutter.
                    if show_dataflow && (pid != *compute || producer_tid != tid) {
                        let s = Trace::event("s", "DataFlow", input, pid, producer_tid, created);
                        trace.push(s, &[("id", next_flow.into())]);
                        let f = Trace::event("t", "DataFlow", input, *compute, tid, start);
                        trace.push(f, &[("id", next_flow.into())]);
                        next_flow += 1;
                    }
                }
            }
        }

        if show_memory {
            let mut names: Vec<(&String, &usize)> = by_name.iter().collect();
            names.sort_by_key(|(_, &id)| id);
            // Per allocator, in order of first use: (time, bytes, tensor) changes.
            type Changes = Vec<(i64, i64, String)>;
            let mut allocations: Vec<(String, Changes)> = Vec::new();
            for (name, &id) in names {
                let t = &tensors[id];
                let delete = Trace::event("D", "Tensor", name, t.pid, 0, t.last_unref);
                trace.push(delete, &[("id", t.object_id.into())]);
                let list = match allocations.iter().position(|(a, _)| *a == t.allocator) {
                    Some(i) => &mut allocations[i].1,
                    None => {
                        allocations.push((t.allocator.clone(), Vec::new()));
                        &mut allocations.last_mut().expect("just pushed").1
                    }
                };
                list.push((t.create_time, t.num_bytes, name.clone()));
                list.push((t.last_unref, -t.num_bytes, name.clone()));
            }
            for (allocator, mut list) in allocations {
                list.sort();
                let mut total = 0i64;
                for (time, bytes, _) in list {
                    total += bytes;
                    let c = Trace::event("C", "Memory", &allocator, allocators_pid, 0, time);
                    trace.push(c, &[("args", json!({ allocator.as_str(): total }))]);
                }
            }
        }

        let mut all = trace.metadata;
        all.extend(trace.events);
        let doc = json!({ "traceEvents": all });
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        doc.serialize(&mut ser)
            .expect("a JSON value always serializes to memory");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::parse_op_label;

    #[test]
    fn op_labels_parse_as_tensorflow_parses_them() {
        assert_eq!(
            parse_op_label("a/b = MatMul(x, w:1)"),
            (
                "MatMul".to_string(),
                vec!["x".to_string(), "w:1".to_string()]
            )
        );
        assert_eq!(parse_op_label("c = Const()"), ("Const".to_string(), vec![]));
        assert_eq!(parse_op_label("garbage"), ("unknown".to_string(), vec![]));
    }
}
