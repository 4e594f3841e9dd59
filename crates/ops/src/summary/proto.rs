//! TensorBoard's protos, as prost messages written by hand (field numbers from TensorFlow's
//! `summary.proto` and `event.proto`): what summary ops output and event files hold.

use bytes::Bytes;

/// `tensorflow.HistogramProto`: a histogram's statistics and its non-empty buckets.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HistogramProto {
    /// Smallest value.
    #[prost(double, tag = "1")]
    pub min: f64,
    /// Largest value.
    #[prost(double, tag = "2")]
    pub max: f64,
    /// Number of values.
    #[prost(double, tag = "3")]
    pub num: f64,
    /// Sum of the values.
    #[prost(double, tag = "4")]
    pub sum: f64,
    /// Sum of the squares of the values.
    #[prost(double, tag = "5")]
    pub sum_squares: f64,
    /// Right edge of each bucket (runs of empty buckets collapsed, as TensorFlow writes them).
    #[prost(double, repeated, tag = "6")]
    pub bucket_limit: Vec<f64>,
    /// Count of each bucket.
    #[prost(double, repeated, tag = "7")]
    pub bucket: Vec<f64>,
}

/// `tensorflow.Summary.Value`: one tagged value of a summary.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryValue {
    /// The tag TensorBoard groups by (`loss`, `batch/fraction_of_32_full`).
    #[prost(string, tag = "1")]
    pub tag: String,
    /// `node_name` (field 7): the node that made the value, which TensorFlow's own summary ops
    /// leave empty.
    #[prost(string, tag = "7")]
    pub node_name: String,
    /// `metadata` (field 9): which TensorBoard plugin reads the value, for tensor summaries.
    #[prost(message, optional, tag = "9")]
    pub metadata: Option<SummaryMetadata>,
    /// The value.
    #[prost(oneof = "summary_value::Value", tags = "2, 4, 5, 6, 8")]
    pub value: Option<summary_value::Value>,
}

/// `tensorflow.SummaryMetadata`: what a tensor summary holds and which TensorBoard plugin shows
/// it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryMetadata {
    /// The plugin that reads the value (`text` for `tf.summary.text`).
    #[prost(message, optional, tag = "1")]
    pub plugin_data: Option<PluginData>,
    /// The name TensorBoard shows instead of the tag.
    #[prost(string, tag = "2")]
    pub display_name: String,
    /// A longer description (`tensor_summary`'s `summary_description`).
    #[prost(string, tag = "3")]
    pub summary_description: String,
    /// `DataClass`: 0 unknown, 1 scalar, 2 tensor, 3 blob sequence.
    #[prost(int32, tag = "4")]
    pub data_class: i32,
}

/// `tensorflow.SummaryMetadata.PluginData`: a plugin's name and its own serialized settings.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PluginData {
    /// The plugin's name.
    #[prost(string, tag = "1")]
    pub plugin_name: String,
    /// The plugin's settings, opaque to TensorFlow.
    #[prost(bytes = "bytes", tag = "2")]
    pub content: Bytes,
}

/// `tensorflow.Summary.Image`: one PNG-encoded image of an image summary.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryImage {
    /// Height in pixels.
    #[prost(int32, tag = "1")]
    pub height: i32,
    /// Width in pixels.
    #[prost(int32, tag = "2")]
    pub width: i32,
    /// Channels: 1 grayscale, 2 grayscale + alpha, 3 RGB, 4 RGBA.
    #[prost(int32, tag = "3")]
    pub colorspace: i32,
    /// The PNG file.
    #[prost(bytes = "bytes", tag = "4")]
    pub encoded_image_string: Bytes,
}

/// `tensorflow.Summary.Audio`: one encoded clip of an audio summary.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SummaryAudio {
    /// Samples per second.
    #[prost(float, tag = "1")]
    pub sample_rate: f32,
    /// Channels per frame.
    #[prost(int64, tag = "2")]
    pub num_channels: i64,
    /// Frames in the clip.
    #[prost(int64, tag = "3")]
    pub length_frames: i64,
    /// The encoded file.
    #[prost(bytes = "bytes", tag = "4")]
    pub encoded_audio_string: Bytes,
    /// Its MIME type (`audio/wav`).
    #[prost(string, tag = "5")]
    pub content_type: String,
}

/// The `oneof value` of [`SummaryValue`].
pub mod summary_value {
    use weir_graph::graph_def::proto::TensorProto;

    /// `Summary.Value.value`: the kinds of summary weir writes (all but the obsolete field 3).
    // A TensorProto's fourteen fields make this variant large; a summary value is built once
    // per write, so boxing it would buy nothing.
    #[allow(clippy::large_enum_variant)]
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// A scalar (`simple_value`).
        #[prost(float, tag = "2")]
        SimpleValue(f32),
        /// An image (`image`).
        #[prost(message, tag = "4")]
        Image(super::SummaryImage),
        /// A histogram (`histo`).
        #[prost(message, tag = "5")]
        Histo(super::HistogramProto),
        /// An audio clip (`audio`).
        #[prost(message, tag = "6")]
        Audio(super::SummaryAudio),
        /// A whole tensor (`tensor`), as tensor summaries write it.
        #[prost(message, tag = "8")]
        Tensor(TensorProto),
    }
}

/// `tensorflow.Summary`: the serialized string a summary op outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Summary {
    /// The tagged values.
    #[prost(message, repeated, tag = "1")]
    pub value: Vec<SummaryValue>,
}

/// `tensorflow.SessionLog`: marks a (re)start of training, so TensorBoard can drop the events
/// a crashed run wrote after its last checkpoint.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SessionLog {
    /// `SessionStatus`: 0 unspecified, 1 START, 2 STOP, 3 CHECKPOINT.
    #[prost(int32, tag = "1")]
    pub status: i32,
    /// The checkpoint written, for CHECKPOINT.
    #[prost(string, tag = "2")]
    pub checkpoint_path: String,
    /// A free-form message.
    #[prost(string, tag = "3")]
    pub msg: String,
}

/// `tensorflow.TaggedRunMetadata`: a serialized `RunMetadata` and the tag TensorBoard lists it
/// under (`step_100`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaggedRunMetadata {
    /// The name TensorBoard shows.
    #[prost(string, tag = "1")]
    pub tag: String,
    /// A serialized `tensorflow.RunMetadata`.
    #[prost(bytes = "bytes", tag = "2")]
    pub run_metadata: Bytes,
}

/// `tensorflow.Event`: one record of a TensorBoard event file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Event {
    /// Seconds since the Unix epoch.
    #[prost(double, tag = "1")]
    pub wall_time: f64,
    /// The training step.
    #[prost(int64, tag = "2")]
    pub step: i64,
    /// What the event holds.
    #[prost(oneof = "event::What", tags = "3, 4, 5, 7, 8, 9")]
    pub what: Option<event::What>,
    /// Which writer wrote the file: TensorFlow 2's `EventsWriter` names itself in the first
    /// event.
    #[prost(message, optional, tag = "10")]
    pub source_metadata: Option<SourceMetadata>,
}

/// `tensorflow.SourceMetadata`: the writer of an event file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SourceMetadata {
    /// The writer's name (`tensorflow.core.util.events_writer`).
    #[prost(string, tag = "1")]
    pub writer: String,
}

/// The `oneof what` of [`Event`].
pub mod event {
    /// `Event.what`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum What {
        /// The file's first event: `brain.Event:2`.
        #[prost(string, tag = "3")]
        FileVersion(String),
        /// A serialized GraphDef.
        #[prost(bytes = "bytes", tag = "4")]
        GraphDef(super::Bytes),
        /// A summary.
        #[prost(message, tag = "5")]
        Summary(super::Summary),
        /// A session's start, stop or checkpoint. Field 7: 6 is TensorFlow's deprecated
        /// `log_message`.
        #[prost(message, tag = "7")]
        SessionLog(super::SessionLog),
        /// A run's metadata under a tag (`TaggedRunMetadata`): TensorBoard's per-node compute
        /// times.
        #[prost(message, tag = "8")]
        TaggedRunMetadata(super::TaggedRunMetadata),
        /// A serialized MetaGraphDef (`add_meta_graph`), which TensorBoard shows with the graph.
        #[prost(bytes = "bytes", tag = "9")]
        MetaGraphDef(super::Bytes),
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    /// Field numbers are TensorFlow's `event.proto`: session_log is 7 (6 is the deprecated
    /// log_message), tagged_run_metadata 8.
    #[test]
    fn session_logs_and_run_metadata_use_tensorflows_field_numbers() {
        let log = Event {
            wall_time: 0.0,
            step: 0,
            what: Some(event::What::SessionLog(SessionLog {
                status: 1,
                checkpoint_path: String::new(),
                msg: String::new(),
            })),
            source_metadata: None,
        };
        assert_eq!(log.encode_to_vec(), [0x3a, 0x02, 0x08, 0x01]);
        let tagged = Event {
            wall_time: 0.0,
            step: 0,
            what: Some(event::What::TaggedRunMetadata(TaggedRunMetadata {
                tag: "s".to_string(),
                run_metadata: Bytes::new(),
            })),
            source_metadata: None,
        };
        assert_eq!(tagged.encode_to_vec(), [0x42, 0x03, 0x0a, 0x01, b's']);
    }
}
