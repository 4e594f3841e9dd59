//! The four queue kinds and their TensorFlow names.

use weir_graph::{DType, Shape};

/// The four queue kinds, named as TensorFlow's messages name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueKind {
    /// `tf.FIFOQueue`.
    Fifo,
    /// `tf.PaddingFIFOQueue`.
    PaddingFifo,
    /// `tf.RandomShuffleQueue`.
    RandomShuffle,
    /// `tf.PriorityQueue`.
    Priority,
}

impl QueueKind {
    /// The class name TensorFlow puts in messages (`FIFOQueue`, `RandomShuffleQueue`, ...).
    pub fn class_name(self) -> &'static str {
        match self {
            QueueKind::Fifo => "FIFOQueue",
            QueueKind::PaddingFifo => "PaddingFIFOQueue",
            QueueKind::RandomShuffle => "RandomShuffleQueue",
            QueueKind::Priority => "PriorityQueue",
        }
    }

    /// The op type of the node that creates this kind (`FIFOQueueV2`, ...).
    pub fn op_type(self) -> &'static str {
        match self {
            QueueKind::Fifo => "FIFOQueueV2",
            QueueKind::PaddingFifo => "PaddingFIFOQueueV2",
            QueueKind::RandomShuffle => "RandomShuffleQueueV2",
            QueueKind::Priority => "PriorityQueueV2",
        }
    }

    /// The dtypes and shapes of the queue's elements, given its op's `component_types` and
    /// `shapes` attrs: a priority queue's attrs leave out the int64 scalar priority that leads
    /// every element, as TensorFlow's `PriorityQueueOp` adds it itself.
    pub fn element_signature(
        self,
        mut dtypes: Vec<DType>,
        mut shapes: Vec<Shape>,
    ) -> (Vec<DType>, Vec<Shape>) {
        if self == QueueKind::Priority {
            dtypes.insert(0, DType::I64);
            if !shapes.is_empty() {
                shapes.insert(0, Shape::scalar());
            }
        }
        (dtypes, shapes)
    }

    /// The kind created by op type `op`, if it is a queue op.
    pub fn from_op_type(op: &str) -> Option<QueueKind> {
        // TensorFlow 1's ref-handle ops (`FIFOQueue`) are aliases of the V2 ops.
        Some(match op.strip_suffix("V2").unwrap_or(op) {
            "FIFOQueue" => QueueKind::Fifo,
            "PaddingFIFOQueue" => QueueKind::PaddingFifo,
            "RandomShuffleQueue" => QueueKind::RandomShuffle,
            "PriorityQueue" => QueueKind::Priority,
            _ => return None,
        })
    }
}
