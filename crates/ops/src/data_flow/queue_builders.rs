//! Builders of the four queue kinds, with TensorFlow's constructor arguments and defaults.

use weir_graph::{DType, Error, Graph, Result, Shape};

use super::queue::QueueKind;
use super::queue_handle::Queue;

fn check_shapes(dtypes: &[DType], shapes: &Option<Vec<Shape>>, partial_ok: bool) -> Result<()> {
    let Some(shapes) = shapes else { return Ok(()) };
    if shapes.len() != dtypes.len() {
        return Err(Error::invalid_argument(format!(
            "Queue shapes must have the same length as dtypes: {} shapes for {} dtypes",
            shapes.len(),
            dtypes.len()
        )));
    }
    // Python's repr of the list of TensorShapes, as TensorFlow's message shows it.
    let list = || {
        shapes
            .iter()
            .map(Shape::python_repr)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !partial_ok && shapes.iter().any(|s| !s.is_fully_defined()) {
        return Err(Error::invalid_argument(format!(
            "All shapes must be fully defined: [{}]",
            list()
        )));
    }
    if shapes.iter().any(|s| s.rank().is_none()) {
        return Err(Error::invalid_argument(format!(
            "All shapes must have a defined rank: [{}]",
            list()
        )));
    }
    Ok(())
}

struct Common {
    capacity: i64,
    dtypes: Vec<DType>,
    shapes: Option<Vec<Shape>>,
    shared_name: Option<String>,
    name: Option<String>,
    names: Option<Vec<String>>,
}

impl Common {
    fn new(capacity: i64, dtypes: &[DType]) -> Common {
        Common {
            capacity,
            dtypes: dtypes.to_vec(),
            shapes: None,
            shared_name: None,
            name: None,
            names: None,
        }
    }

    fn build(
        &self,
        graph: &Graph,
        kind: QueueKind,
        default_name: &str,
        extra: &[(&str, i64)],
    ) -> Result<Queue> {
        if self.dtypes.is_empty() {
            return Err(Error::invalid_argument(
                "A queue needs at least one component dtype",
            ));
        }
        if let Some(d) = self.dtypes.iter().find(|d| **d == DType::Resource) {
            return Err(Error::invalid_argument(format!(
                "Queues cannot hold {d} tensors"
            )));
        }
        // A priority queue's attrs leave out the leading int64 priority, as TensorFlow's do.
        let skip = usize::from(kind == QueueKind::Priority);
        let shapes = self.shapes.as_deref().unwrap_or_default();
        let mut b = crate::new_op(graph, kind.op_type())
            .name(
                self.name
                    .clone()
                    .unwrap_or_else(|| default_name.to_string()),
            )
            .attr("component_types", self.dtypes[skip..].to_vec())
            .attr("shapes", shapes[skip.min(shapes.len())..].to_vec())
            .attr("capacity", self.capacity)
            .attr("container", "")
            .attr("shared_name", self.shared_name.clone().unwrap_or_default());
        for (k, v) in extra {
            b = b.attr(k, *v);
        }
        let q = Queue::from_operation(&b.build()?)?;
        match &self.names {
            Some(names) => q.with_names(&names.iter().map(String::as_str).collect::<Vec<_>>()),
            None => Ok(q),
        }
    }
}

macro_rules! common_setters {
    ($t:ty) => {
        impl $t {
            /// Shares the queue between sessions (and ops) under this name; by default each
            /// session has its own, named `_<N>_<op name>`.
            pub fn shared_name(mut self, name: &str) -> Self {
                self.c.shared_name = Some(name.to_string());
                self
            }

            /// The queue op's name (made unique in the current scope).
            pub fn name(mut self, name: &str) -> Self {
                self.c.name = Some(name.to_string());
                self
            }
        }
    };
}

macro_rules! names_setter {
    ($t:ty) => {
        impl $t {
            /// Names the components (`names=`): elements are then enqueued and dequeued as
            /// dictionaries keyed by these names ([`Queue::enqueue_dict`],
            /// [`Queue::dequeue_dict`]); one name per dtype.
            pub fn names(mut self, names: &[&str]) -> Self {
                self.c.names = Some(names.iter().map(|n| n.to_string()).collect());
                self
            }
        }
    };
}

/// `tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None,
/// name='fifo_queue')`: elements come out in the order they went in.
///
/// A negative capacity is unbounded. Without `shapes`, elements may differ in shape but
/// dequeue_many/dequeue_up_to are refused.
pub struct FifoQueue {
    c: Common,
}

impl FifoQueue {
    /// A FIFO queue of `capacity` elements whose components have `dtypes`.
    pub fn new(capacity: i64, dtypes: &[DType]) -> FifoQueue {
        FifoQueue {
            c: Common::new(capacity, dtypes),
        }
    }

    /// The (fully defined) shape of each component.
    pub fn shapes(mut self, shapes: &[Shape]) -> Self {
        self.c.shapes = Some(shapes.to_vec());
        self
    }

    /// Adds the `FIFOQueueV2` op.
    pub fn build(self, graph: &Graph) -> Result<Queue> {
        check_shapes(&self.c.dtypes, &self.c.shapes, false)?;
        self.c.build(graph, QueueKind::Fifo, "fifo_queue", &[])
    }
}
common_setters!(FifoQueue);
names_setter!(FifoQueue);

/// `tf.PaddingFIFOQueue(capacity, dtypes, shapes, names=None, shared_name=None,
/// name='padding_fifo_queue')`: a FIFO queue whose shapes may have unknown dimensions;
/// dequeue_many pads each such dimension to the largest in the batch.
pub struct PaddingFifoQueue {
    c: Common,
}

impl PaddingFifoQueue {
    /// A padding FIFO queue; `shapes` must have known ranks (dimensions may be `None`).
    pub fn new(capacity: i64, dtypes: &[DType], shapes: &[Shape]) -> PaddingFifoQueue {
        let mut c = Common::new(capacity, dtypes);
        c.shapes = Some(shapes.to_vec());
        PaddingFifoQueue { c }
    }

    /// Adds the `PaddingFIFOQueueV2` op.
    pub fn build(self, graph: &Graph) -> Result<Queue> {
        if self.c.shapes.as_ref().is_none_or(Vec::is_empty) {
            return Err(Error::invalid_argument(
                "When providing partial shapes, a list of shapes must be provided.",
            ));
        }
        check_shapes(&self.c.dtypes, &self.c.shapes, true)?;
        self.c
            .build(graph, QueueKind::PaddingFifo, "padding_fifo_queue", &[])
    }
}
common_setters!(PaddingFifoQueue);
names_setter!(PaddingFifoQueue);

/// `tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes, shapes=None, names=None,
/// seed=None, shared_name=None, name='random_shuffle_queue')`: dequeues pick uniformly at
/// random, and while the queue is open at least `min_after_dequeue` elements stay behind.
pub struct RandomShuffleQueue {
    c: Common,
    min_after_dequeue: i64,
    seed: Option<i64>,
}

impl RandomShuffleQueue {
    /// A shuffling queue.
    pub fn new(capacity: i64, min_after_dequeue: i64, dtypes: &[DType]) -> RandomShuffleQueue {
        RandomShuffleQueue {
            c: Common::new(capacity, dtypes),
            min_after_dequeue,
            seed: None,
        }
    }

    /// The (fully defined) shape of each component.
    pub fn shapes(mut self, shapes: &[Shape]) -> Self {
        self.c.shapes = Some(shapes.to_vec());
        self
    }

    /// The op-level seed, combined with the graph seed by `get_seed`.
    pub fn seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets the seed only when `seed` is given.
    pub fn maybe_seed(mut self, seed: Option<i64>) -> Self {
        self.seed = seed;
        self
    }

    /// Adds the `RandomShuffleQueueV2` op.
    pub fn build(self, graph: &Graph) -> Result<Queue> {
        check_shapes(&self.c.dtypes, &self.c.shapes, false)?;
        let (seed, mut seed2) = graph.get_seed(self.seed);
        if let (None, Some(shared), true) =
            (self.seed, &self.c.shared_name, (seed, seed2) != (0, 0))
        {
            // Only the graph seed is set: TensorFlow makes seed2 depend on the shared name, so
            // every session sharing the queue asks for the same seeds.
            seed2 = super::md5::shared_seed2(seed, shared);
        }
        self.c.build(
            graph,
            QueueKind::RandomShuffle,
            "random_shuffle_queue",
            &[
                ("min_after_dequeue", self.min_after_dequeue),
                ("seed", seed),
                ("seed2", seed2),
            ],
        )
    }
}
common_setters!(RandomShuffleQueue);
names_setter!(RandomShuffleQueue);

/// `tf.PriorityQueue(capacity, types, shapes, names=None, shared_name=None,
/// name='priority_queue')`: each element is an int64 scalar priority followed by components
/// of `types`; the smallest priority comes out first.
pub struct PriorityQueue {
    c: Common,
}

impl PriorityQueue {
    /// A priority queue; the queue's dtypes are `[int64] + types`, its shapes `[[]] + shapes`.
    pub fn new(capacity: i64, types: &[DType], shapes: &[Shape]) -> PriorityQueue {
        let mut dtypes = vec![DType::I64];
        dtypes.extend_from_slice(types);
        let mut all = vec![Shape::scalar()];
        all.extend_from_slice(shapes);
        let mut c = Common::new(capacity, &dtypes);
        c.shapes = Some(all);
        PriorityQueue { c }
    }

    /// Adds the `PriorityQueueV2` op.
    pub fn build(self, graph: &Graph) -> Result<Queue> {
        check_shapes(&self.c.dtypes, &self.c.shapes, false)?;
        self.c
            .build(graph, QueueKind::Priority, "priority_queue", &[])
    }
}
common_setters!(PriorityQueue);
