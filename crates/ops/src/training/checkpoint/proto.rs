//! The messages of TensorFlow's `tensor_bundle.proto` that a checkpoint's `.index` file holds,
//! written by hand as prost messages with TensorFlow's field numbers.

use weir_graph::graph_def::proto::{TensorShapeProto, VersionDef};

/// `tensorflow.BundleHeaderProto`: the value of the index's first entry (key "").
#[derive(Clone, PartialEq, prost::Message)]
pub struct BundleHeaderProto {
    /// How many data files (`<prefix>.data-NNNNN-of-<num_shards>`) the bundle has.
    #[prost(int32, tag = "1")]
    pub num_shards: i32,
    /// Byte order of the numbers in the data files: 0 little-endian, 1 big-endian.
    #[prost(int32, tag = "2")]
    pub endianness: i32,
    /// The format version (TensorFlow writes producer 1, min_consumer 0).
    #[prost(message, optional, tag = "3")]
    pub version: Option<VersionDef>,
}

/// `tensorflow.BundleEntryProto`: where one tensor's bytes lie and what they hold.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BundleEntryProto {
    /// TensorFlow's `DataType` number.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The tensor's shape (always present, empty for a scalar).
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    /// Which data file holds the bytes.
    #[prost(int32, tag = "3")]
    pub shard_id: i32,
    /// Where the bytes start in that file.
    #[prost(int64, tag = "4")]
    pub offset: i64,
    /// How many bytes there are.
    #[prost(int64, tag = "5")]
    pub size: i64,
    /// The masked CRC32C of the bytes.
    #[prost(fixed32, tag = "6")]
    pub crc32c: u32,
    /// For a partitioned variable, the slices saved under their own keys.
    #[prost(message, repeated, tag = "7")]
    pub slices: Vec<TensorSliceProto>,
}

/// `tensorflow.TensorSliceProto`: one slice of a partitioned tensor, an extent per dimension.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorSliceProto {
    /// Start and length in each dimension.
    #[prost(message, repeated, tag = "1")]
    pub extent: Vec<tensor_slice_proto::Extent>,
}

/// The nested messages of [`TensorSliceProto`].
pub mod tensor_slice_proto {
    /// `TensorSliceProto.Extent`: a dimension's range; no length means the whole dimension.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Extent {
        /// The first index.
        #[prost(int64, tag = "1")]
        pub start: i64,
        /// How many indices, when not the whole dimension.
        #[prost(int64, optional, tag = "2")]
        pub length: Option<i64>,
    }
}
