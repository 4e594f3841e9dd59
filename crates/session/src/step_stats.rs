//! Per-node execution statistics of a traced run: TensorFlow's `RunOptions.trace_level`,
//! `RunMetadata` and `StepStats`, which `tf.python.client.timeline` turns into a Chrome trace.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use weir_graph::{DType, Graph, Tensor};

use crate::plan::Plan;

/// How much a run records (`tf.RunOptions.TraceLevel`). Every level but `NoTrace` fills
/// [`RunMetadata::step_stats`], as TensorFlow's `DirectSession` does; weir has no device tracer,
/// so the hardware levels record the same as `SoftwareTrace`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TraceLevel {
    /// `NO_TRACE`: nothing is recorded (the default).
    #[default]
    NoTrace,
    /// `SOFTWARE_TRACE`: each node's start, end, thread and outputs.
    SoftwareTrace,
    /// `HARDWARE_TRACE`: as `SoftwareTrace` here.
    HardwareTrace,
    /// `FULL_TRACE`: as `SoftwareTrace` here.
    FullTrace,
}

/// What a run reports besides its fetches (`tf.RunMetadata`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunMetadata {
    /// The nodes the run executed, when its args asked for a trace.
    pub step_stats: StepStats,
}

/// The nodes one run executed, per device (`StepStats`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepStats {
    /// One entry per device; weir runs everything on the CPU, so there is at most one.
    pub dev_stats: Vec<DeviceStepStats>,
}

impl StepStats {
    /// Every node's statistics, over all devices.
    pub fn node_stats(&self) -> impl Iterator<Item = &NodeExecStats> {
        self.dev_stats.iter().flat_map(|d| d.node_stats.iter())
    }
}

/// The nodes one device executed (`DeviceStepStats`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceStepStats {
    /// TensorFlow's full device name, `/job:localhost/replica:0/task:0/device:CPU:0`.
    pub device: String,
    /// In the order the nodes started.
    pub node_stats: Vec<NodeExecStats>,
}

/// One node's execution (`NodeExecStats`); times are microseconds since the Unix epoch and
/// relative to the start, with the nanosecond fields beside them as TensorFlow 2 records them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeExecStats {
    /// The node's name.
    pub node_name: String,
    /// When the node started, in microseconds since the Unix epoch.
    pub all_start_micros: i64,
    /// When its kernel started, relative to `all_start_micros` (0: weir has no scheduling gap).
    pub op_start_rel_micros: i64,
    /// When its kernel ended, relative to `all_start_micros`.
    pub op_end_rel_micros: i64,
    /// When the node ended, relative to `all_start_micros`: its duration.
    pub all_end_rel_micros: i64,
    /// `all_start_micros` in nanoseconds.
    pub all_start_nanos: i64,
    /// `op_start_rel_micros` in nanoseconds.
    pub op_start_rel_nanos: i64,
    /// `op_end_rel_micros` in nanoseconds.
    pub op_end_rel_nanos: i64,
    /// `all_end_rel_micros` in nanoseconds.
    pub all_end_rel_nanos: i64,
    /// The outputs the node produced.
    pub output: Vec<NodeOutput>,
    /// `name = OpType(input, input:1, ...)`, the label the timeline parses.
    pub timeline_label: String,
    /// A small number per thread of this process (TensorFlow records the OS thread id).
    pub thread_id: u32,
}

/// One output of a node (`NodeOutput`).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeOutput {
    /// The output's index.
    pub slot: i32,
    /// What the output was.
    pub tensor_description: TensorDescription,
}

/// The dtype, shape and size of a produced tensor (`TensorDescription`).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDescription {
    /// The element type.
    pub dtype: DType,
    /// The dimensions.
    pub shape: Vec<usize>,
    /// Its size.
    pub allocation_description: AllocationDescription,
}

/// How large a produced tensor is (`AllocationDescription`): its bytes (a string tensor's are
/// its elements' lengths) and the allocator's name, `cpu`.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationDescription {
    /// Bytes of the tensor's data.
    pub requested_bytes: i64,
    /// Always `cpu`.
    pub allocator_name: String,
}

/// The one device weir runs on, named as TensorFlow names the local CPU.
pub const CPU_DEVICE: &str = "/job:localhost/replica:0/task:0/device:CPU:0";

static NEXT_THREAD: AtomicU32 = AtomicU32::new(1);

thread_local! {
    static THREAD_ID: Cell<u32> = const { Cell::new(0) };
}

fn thread_id() -> u32 {
    THREAD_ID.with(|t| {
        if t.get() == 0 {
            t.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
        }
        t.get()
    })
}

/// One executed step, as the executors saw it; names are resolved after the run, off the
/// hot path.
struct Record {
    step: usize,
    start: Instant,
    end: Instant,
    thread: u32,
    outputs: Vec<(usize, DType, Vec<usize>, i64)>,
}

/// Gathers the records of one traced run from whichever threads execute its steps.
pub(crate) struct Collector {
    origin: Instant,
    origin_nanos: i64,
    records: Mutex<Vec<Record>>,
}

fn byte_size(t: &Tensor) -> i64 {
    let n = match t.dtype().size_of() {
        Some(s) => s * t.num_elements(),
        None => t
            .as_slice::<bytes::Bytes>()
            .map(|s| s.iter().map(|b| b.len()).sum())
            .unwrap_or(0),
    };
    n as i64
}

impl Collector {
    pub(crate) fn new() -> Collector {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Collector {
            origin: Instant::now(),
            origin_nanos: since_epoch.as_nanos() as i64,
            records: Mutex::new(Vec::new()),
        }
    }

    /// Records that step `step` ran from `start` until now and produced `outputs`.
    pub(crate) fn record(&self, step: usize, start: Instant, outputs: &[Option<Tensor>]) {
        let end = Instant::now();
        let outputs = outputs
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                o.as_ref()
                    .map(|t| (i, t.dtype(), t.shape().to_vec(), byte_size(t)))
            })
            .collect();
        self.records.lock().push(Record {
            step,
            start,
            end,
            thread: thread_id(),
            outputs,
        });
    }

    /// A copy of what was recorded so far, for a run whose pool tasks still hold the collector.
    pub(crate) fn snapshot(&self) -> Collector {
        let records = self
            .records
            .lock()
            .iter()
            .map(|r| Record {
                step: r.step,
                start: r.start,
                end: r.end,
                thread: r.thread,
                outputs: r.outputs.clone(),
            })
            .collect();
        Collector {
            origin: self.origin,
            origin_nanos: self.origin_nanos,
            records: Mutex::new(records),
        }
    }

    /// The recorded steps as TensorFlow's `StepStats`, names taken from `plan` and `graph`.
    pub(crate) fn finish(self, plan: &Plan, graph: &Graph) -> StepStats {
        let mut records = self.records.into_inner();
        records.sort_by_key(|r| r.start);
        let nanos = |t: Instant| t.saturating_duration_since(self.origin).as_nanos() as i64;
        let node_stats = records
            .into_iter()
            .map(|r| {
                let node = &plan.steps[r.step].node;
                let inputs: Vec<String> = node
                    .inputs()
                    .iter()
                    .map(|&(id, i)| {
                        let n = graph.node(id);
                        if i == 0 {
                            n.name().to_string()
                        } else {
                            format!("{}:{i}", n.name())
                        }
                    })
                    .collect();
                let start = self.origin_nanos + nanos(r.start);
                let rel = r.end.saturating_duration_since(r.start).as_nanos() as i64;
                NodeExecStats {
                    node_name: node.name().to_string(),
                    all_start_micros: start / 1000,
                    op_start_rel_micros: 0,
                    op_end_rel_micros: rel / 1000,
                    all_end_rel_micros: rel / 1000,
                    all_start_nanos: start,
                    op_start_rel_nanos: 0,
                    op_end_rel_nanos: rel,
                    all_end_rel_nanos: rel,
                    output: r
                        .outputs
                        .into_iter()
                        .map(|(slot, dtype, shape, bytes)| NodeOutput {
                            slot: slot as i32,
                            tensor_description: TensorDescription {
                                dtype,
                                shape,
                                allocation_description: AllocationDescription {
                                    requested_bytes: bytes,
                                    allocator_name: "cpu".to_string(),
                                },
                            },
                        })
                        .collect(),
                    timeline_label: format!(
                        "{} = {}({})",
                        node.name(),
                        node.op_type(),
                        inputs.join(", ")
                    ),
                    thread_id: r.thread,
                }
            })
            .collect();
        StepStats {
            dev_stats: vec![DeviceStepStats {
                device: CPU_DEVICE.to_string(),
                node_stats,
            }],
        }
    }
}
