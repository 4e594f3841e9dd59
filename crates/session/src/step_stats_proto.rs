//! `RunMetadata` in TensorFlow's wire format (`config.proto`, `step_stats.proto`), for event
//! files (`FileWriter::add_run_metadata`) and anything else that reads TensorFlow's protos.

use prost::Message;

use crate::step_stats::{NodeExecStats, RunMetadata};

#[derive(Clone, PartialEq, prost::Message)]
struct RunMetadataProto {
    #[prost(message, optional, tag = "1")]
    step_stats: Option<StepStatsProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct StepStatsProto {
    #[prost(message, repeated, tag = "1")]
    dev_stats: Vec<DeviceStepStatsProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct DeviceStepStatsProto {
    #[prost(string, tag = "1")]
    device: String,
    #[prost(message, repeated, tag = "2")]
    node_stats: Vec<NodeExecStatsProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct NodeExecStatsProto {
    #[prost(string, tag = "1")]
    node_name: String,
    #[prost(int64, tag = "2")]
    all_start_micros: i64,
    #[prost(int64, tag = "3")]
    op_start_rel_micros: i64,
    #[prost(int64, tag = "4")]
    op_end_rel_micros: i64,
    #[prost(int64, tag = "5")]
    all_end_rel_micros: i64,
    #[prost(message, repeated, tag = "7")]
    output: Vec<NodeOutputProto>,
    #[prost(string, tag = "8")]
    timeline_label: String,
    #[prost(uint32, tag = "10")]
    thread_id: u32,
    #[prost(int64, tag = "13")]
    all_start_nanos: i64,
    #[prost(int64, tag = "14")]
    op_start_rel_nanos: i64,
    #[prost(int64, tag = "15")]
    op_end_rel_nanos: i64,
    #[prost(int64, tag = "16")]
    all_end_rel_nanos: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct NodeOutputProto {
    #[prost(int32, tag = "1")]
    slot: i32,
    #[prost(message, optional, tag = "3")]
    tensor_description: Option<TensorDescriptionProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct TensorDescriptionProto {
    #[prost(int32, tag = "1")]
    dtype: i32,
    #[prost(message, optional, tag = "2")]
    shape: Option<weir_graph::graph_def::proto::TensorShapeProto>,
    #[prost(message, optional, tag = "4")]
    allocation_description: Option<AllocationDescriptionProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct AllocationDescriptionProto {
    #[prost(int64, tag = "1")]
    requested_bytes: i64,
    #[prost(string, tag = "3")]
    allocator_name: String,
}

fn node(n: &NodeExecStats) -> NodeExecStatsProto {
    NodeExecStatsProto {
        node_name: n.node_name.clone(),
        all_start_micros: n.all_start_micros,
        op_start_rel_micros: n.op_start_rel_micros,
        op_end_rel_micros: n.op_end_rel_micros,
        all_end_rel_micros: n.all_end_rel_micros,
        output: n
            .output
            .iter()
            .map(|o| {
                let d = &o.tensor_description;
                NodeOutputProto {
                    slot: o.slot,
                    tensor_description: Some(TensorDescriptionProto {
                        dtype: d.dtype.proto_number(),
                        shape: Some(weir_graph::graph_def::shape_proto(
                            &weir_graph::Shape::known(&d.shape),
                        )),
                        allocation_description: Some(AllocationDescriptionProto {
                            requested_bytes: d.allocation_description.requested_bytes,
                            allocator_name: d.allocation_description.allocator_name.clone(),
                        }),
                    }),
                }
            })
            .collect(),
        timeline_label: n.timeline_label.clone(),
        thread_id: n.thread_id,
        all_start_nanos: n.all_start_nanos,
        op_start_rel_nanos: n.op_start_rel_nanos,
        op_end_rel_nanos: n.op_end_rel_nanos,
        all_end_rel_nanos: n.all_end_rel_nanos,
    }
}

impl RunMetadata {
    /// The metadata as a serialized `tensorflow.RunMetadata` (`run_metadata.SerializeToString()`):
    /// its step stats, with TensorFlow's field numbers.
    pub fn encode_to_vec(&self) -> Vec<u8> {
        RunMetadataProto {
            step_stats: Some(StepStatsProto {
                dev_stats: self
                    .step_stats
                    .dev_stats
                    .iter()
                    .map(|d| DeviceStepStatsProto {
                        device: d.device.clone(),
                        node_stats: d.node_stats.iter().map(node).collect(),
                    })
                    .collect(),
            }),
        }
        .encode_to_vec()
    }
}
