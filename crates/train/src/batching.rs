//! Batching (TensorFlow's `input.py`): `batch`, `batch_join`, `shuffle_batch`,
//! `shuffle_batch_join` and their `maybe_` forms. Each builds the queue TensorFlow builds, the
//! QueueRunner that fills it, the fill summary, and the dequeue that makes batches.

use std::collections::BTreeMap;

use weir_graph::{DType, Error, Output, Result, Shape};
use weir_ops::data_flow::{input_ops, FifoQueue, PaddingFifoQueue, Queue, RandomShuffleQueue};
use weir_ops::sparse::SparseOutput;

use crate::queue_runner::{add_queue_runner, QueueRunner};

mod stored;

pub use stored::Batched;
use stored::{build_all, build_dict, dict_spec};

/// Everything one batcher call needs.
struct Spec {
    what: &'static str,
    lists: Vec<Vec<Output>>,
    join: bool,
    batch_size: usize,
    num_threads: usize,
    capacity: i64,
    enqueue_many: bool,
    shapes: Option<Vec<Shape>>,
    dynamic_pad: bool,
    allow_smaller_final_batch: bool,
    shared_name: Option<String>,
    name: Option<String>,
    keep_input: Option<Output>,
    /// For shuffle_batch: (min_after_dequeue, seed).
    shuffle: Option<(i64, Option<i64>)>,
    /// The keys of tensors given as a dictionary, sorted as the tensors of `lists[0]` are.
    keys: Option<Vec<String>>,
    /// SparseTensors batched beside the dense tensors ([`build_all`]).
    sparse: Vec<SparseOutput>,
}

fn dtype_list(ts: &[Output]) -> String {
    ts.iter()
        .map(|t| t.dtype().python_name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The queue's component shapes, inferred as TensorFlow's `_shapes` does: from the first entry
/// (later entries must be compatible), without the batch dimension under `enqueue_many`.
fn infer_shapes(lists: &[Vec<Output>], enqueue_many: bool) -> Result<Vec<Shape>> {
    let n = lists[0].len();
    let mut shapes = Vec::with_capacity(n);
    for i in 0..n {
        let mut merged: Option<Shape> = None;
        for list in lists {
            let t = &list[i];
            let Some(dims) = t.shape().dims().map(<[_]>::to_vec) else {
                return Err(Error::invalid_argument(format!(
                    "Cannot infer Tensor's rank: {}",
                    t.name()
                )));
            };
            let s = if enqueue_many {
                if dims.is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "Shape [] must have rank at least 1 ({} with enqueue_many=True)",
                        t.name()
                    )));
                }
                Shape::new(dims[1..].to_vec())
            } else {
                Shape::new(dims)
            };
            match &merged {
                None => merged = Some(s),
                // TensorFlow checks compatibility but keeps the first entry's shape.
                Some(m) => {
                    m.merge_with(&s)?;
                }
            }
        }
        shapes.push(merged.unwrap_or_else(Shape::unknown));
    }
    Ok(shapes)
}

fn build(spec: Spec) -> Result<Vec<Output>> {
    if !spec.sparse.is_empty() {
        return Err(Error::invalid_argument(format!(
            "{}() has SparseTensor inputs: build it with build_all, which returns them",
            spec.what
        )));
    }
    let first = spec
        .lists
        .first()
        .and_then(|l| l.first())
        .ok_or_else(|| {
            Error::invalid_argument(if spec.join {
                format!("Expected at least one input in {}().", spec.what)
            } else {
                format!("Expected at least one tensor in {}().", spec.what)
            })
        })?
        .clone();
    let g = first.graph().clone();
    let scope = g.name_scope(spec.name.as_deref().unwrap_or(spec.what));
    if let Some((mad, _)) = spec.shuffle {
        if spec.capacity <= mad {
            return Err(Error::invalid_argument(format!(
                "capacity {} must be bigger than min_after_dequeue {mad}.",
                spec.capacity
            )));
        }
    }
    let len0 = spec.lists[0].len();
    for l in &spec.lists {
        if l.len() != len0 {
            return Err(Error::invalid_argument(format!(
                "Expected to receive the same number of tensors in every input of {}(): {} vs. {}",
                spec.what,
                len0,
                l.len()
            )));
        }
        if l.iter()
            .zip(&spec.lists[0])
            .any(|(a, b)| a.dtype() != b.dtype())
        {
            return Err(Error::invalid_argument(format!(
                "Expected types to be consistent: {} vs. {}.",
                dtype_list(&spec.lists[0]),
                dtype_list(l)
            )));
        }
    }
    if let Some(k) = &spec.keep_input {
        if k.dtype() != DType::Bool {
            return Err(Error::invalid_argument(format!(
                "`keep_input` must be a bool tensor, got {}",
                k.dtype()
            )));
        }
        match k.shape().rank() {
            None => {
                return Err(Error::invalid_argument(
                    "`keep_input` dimensions must be known at graph construction.",
                ))
            }
            Some(1) if !spec.enqueue_many => {
                return Err(Error::invalid_argument(
                    "`keep_input` cannot be a vector when `enqueue_many=False`.",
                ))
            }
            Some(r) if r > 1 => {
                return Err(Error::invalid_argument(
                    "`keep_input` must be 0 or 1 dimensions.",
                ))
            }
            _ => {}
        }
    }
    let dtypes: Vec<DType> = spec.lists[0].iter().map(Output::dtype).collect();
    let shapes = match spec.shapes.clone() {
        Some(s) => s,
        None => infer_shapes(&spec.lists, spec.enqueue_many)?,
    };
    let q: Queue = match spec.shuffle {
        Some((mad, seed)) => {
            let mut b = RandomShuffleQueue::new(spec.capacity, mad, &dtypes)
                .shapes(&shapes)
                .maybe_seed(seed);
            if let Some(s) = &spec.shared_name {
                b = b.shared_name(s);
            }
            b.build(&g)?
        }
        None if spec.dynamic_pad => {
            let mut b = PaddingFifoQueue::new(spec.capacity, &dtypes, &shapes);
            if let Some(s) = &spec.shared_name {
                b = b.shared_name(s);
            }
            b.build(&g)?
        }
        None => {
            let mut b = FifoQueue::new(spec.capacity, &dtypes).shapes(&shapes);
            if let Some(s) = &spec.shared_name {
                b = b.shared_name(s);
            }
            b.build(&g)?
        }
    };
    let enqueue = |list: &[Output]| -> Result<weir_graph::Operation> {
        match &spec.keep_input {
            None if spec.enqueue_many => q.enqueue_many(list),
            None => q.enqueue(list),
            Some(keep) => {
                let kept = input_ops::keep_input_rows(keep, list, !spec.enqueue_many, None)?;
                q.enqueue_many(&kept)
            }
        }
    };
    let enqueue_ops = if spec.join {
        spec.lists
            .iter()
            .map(|l| enqueue(l))
            .collect::<Result<Vec<_>>>()?
    } else {
        let op = enqueue(&spec.lists[0])?;
        vec![op; spec.num_threads.max(1)]
    };
    add_queue_runner(&QueueRunner::new(&q, &enqueue_ops)?, None);
    let (mad, tag) = match spec.shuffle {
        Some((mad, _)) => (
            mad,
            format!("fraction_over_{mad}_of_{}_full", spec.capacity - mad),
        ),
        None => (0, format!("fraction_of_{}_full", spec.capacity)),
    };
    input_ops::fill_fraction(&q.size()?, spec.capacity, mad, &tag)?;
    let name = scope.prefix().to_string();
    if spec.allow_smaller_final_batch {
        q.dequeue_up_to_with(spec.batch_size, Some(&name))
    } else {
        q.dequeue_many_with(spec.batch_size, Some(&name))
    }
}

macro_rules! common_setters {
    ($t:ty) => {
        impl $t {
            /// The queue's capacity.
            pub fn capacity(mut self, capacity: i64) -> Self {
                self.s.capacity = capacity;
                self
            }

            /// Each input tensor is a batch of examples (dimension 0) rather than one example.
            pub fn enqueue_many(mut self, yes: bool) -> Self {
                self.s.enqueue_many = yes;
                self
            }

            /// The shape of each component of one example, overriding inference.
            pub fn shapes(mut self, shapes: &[Shape]) -> Self {
                self.s.shapes = Some(shapes.to_vec());
                self
            }

            /// Return a final batch smaller than `batch_size` instead of dropping it.
            pub fn allow_smaller_final_batch(mut self, yes: bool) -> Self {
                self.s.allow_smaller_final_batch = yes;
                self
            }

            /// Shares the queue between sessions under this name.
            pub fn shared_name(mut self, name: &str) -> Self {
                self.s.shared_name = Some(name.to_string());
                self
            }

            /// The name scope (and the dequeue op's name).
            pub fn name(mut self, name: &str) -> Self {
                self.s.name = Some(name.to_string());
                self
            }

            /// Enqueue an example only where this bool is true (the `maybe_` batchers): a scalar,
            /// or with `enqueue_many` a vector selecting rows.
            pub fn keep_input(mut self, keep: &Output) -> Self {
                self.s.keep_input = Some(keep.clone());
                self
            }

            /// Builds the queue, its runner and the dequeue; returns one batch tensor per input
            /// tensor (for tensors given as a dictionary, in the order of their keys).
            pub fn build(self) -> Result<Vec<Output>> {
                build(self.s)
            }

            /// [`build`](Self::build) for tensors given as a dictionary (`from_dict`): the
            /// batches under the same keys, as TensorFlow returns a dict for a dict.
            pub fn build_dict(self) -> Result<BTreeMap<String, Output>> {
                build_dict(self.s)
            }
        }
    };
}

fn spec(what: &'static str, lists: Vec<Vec<Output>>, join: bool, batch_size: usize) -> Spec {
    Spec {
        what,
        lists,
        join,
        batch_size,
        num_threads: 1,
        capacity: 32,
        enqueue_many: false,
        shapes: None,
        dynamic_pad: false,
        allow_smaller_final_batch: false,
        shared_name: None,
        name: None,
        keep_input: None,
        shuffle: None,
        keys: None,
        sparse: Vec::new(),
    }
}

macro_rules! sparse_setters {
    ($t:ty) => {
        impl $t {
            /// SparseTensors to batch beside the dense tensors (TensorFlow's batchers take
            /// both); [`build_all`](Self::build_all) returns their batches. With
            /// `enqueue_many`, dimension 0 of each is the minibatch, as for the dense ones.
            pub fn sparse(mut self, tensors: &[SparseOutput]) -> Self {
                self.s.sparse.extend_from_slice(tensors);
                self
            }

            /// Builds the batcher and returns the dense batches and the sparse batches.
            pub fn build_all(self) -> Result<Batched> {
                build_all(self.s)
            }
        }
    };
}

/// `tf.train.batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False,
/// shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
/// name=None)`: a FIFOQueue (PaddingFIFOQueue with `dynamic_pad`) filled by `num_threads`
/// threads running the same enqueue, and a `dequeue_many(batch_size)` named `batch`.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::array::placeholder;
/// let g = Graph::new();
/// let x = placeholder(&g, DType::F32, Shape::known(&[784]))?;
/// let b = weir_train::Batch::new(&[x], 128).num_threads(2).capacity(512).build()?;
/// assert_eq!(b[0].name(), "batch:0");
/// assert_eq!(b[0].shape(), Shape::known(&[128, 784]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct Batch {
    s: Spec,
}
common_setters!(Batch);
sparse_setters!(Batch);

impl Batch {
    /// Batches of `batch_size` examples of `tensors`.
    pub fn new(tensors: &[Output], batch_size: usize) -> Batch {
        Batch {
            s: spec("batch", vec![tensors.to_vec()], false, batch_size),
        }
    }

    /// Batches of a dictionary of tensors (`tf.train.batch(dict, ...)`), e.g. the features
    /// `parse_single_example` gives; [`Batch::build_dict`] returns them under the same keys.
    ///
    /// ```
    /// # use weir_graph::{DType, Graph, Shape};
    /// # use weir_ops::array::placeholder;
    /// let g = Graph::new();
    /// let image = placeholder(&g, DType::F32, Shape::known(&[784]))?;
    /// let label = placeholder(&g, DType::I64, Shape::scalar())?;
    /// let b = weir_train::Batch::from_dict(&[("image", image), ("label", label)], 32)
    ///     .build_dict()?;
    /// assert_eq!(b["image"].shape(), Shape::known(&[32, 784]));
    /// assert_eq!(b["label"].shape(), Shape::known(&[32]));
    /// # Ok::<(), weir_graph::Error>(())
    /// ```
    pub fn from_dict(tensors: &[(&str, Output)], batch_size: usize) -> Batch {
        Batch {
            s: dict_spec("batch", tensors, batch_size),
        }
    }

    /// Threads running the enqueue (default 1).
    pub fn num_threads(mut self, n: usize) -> Self {
        self.s.num_threads = n;
        self
    }

    /// Pad components with unknown dimensions to the largest in each batch.
    pub fn dynamic_pad(mut self, yes: bool) -> Self {
        self.s.dynamic_pad = yes;
        self
    }
}

/// `tf.train.batch(tensors, batch_size)` with every default.
pub fn batch(tensors: &[Output], batch_size: usize) -> Result<Vec<Output>> {
    Batch::new(tensors, batch_size).build()
}

/// `tf.train.maybe_batch(tensors, keep_input, batch_size)` with every other default.
pub fn maybe_batch(
    tensors: &[Output],
    keep_input: &Output,
    batch_size: usize,
) -> Result<Vec<Output>> {
    Batch::new(tensors, batch_size)
        .keep_input(keep_input)
        .build()
}

/// `tf.train.batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False,
/// shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
/// name=None)`: like `batch`, with one enqueue thread per entry of `tensors_list`.
pub struct BatchJoin {
    s: Spec,
}
common_setters!(BatchJoin);

impl BatchJoin {
    /// Batches from several lists of tensors of the same dtypes, one thread each.
    pub fn new(tensors_list: &[Vec<Output>], batch_size: usize) -> BatchJoin {
        BatchJoin {
            s: spec("batch_join", tensors_list.to_vec(), true, batch_size),
        }
    }

    /// Pad components with unknown dimensions to the largest in each batch.
    pub fn dynamic_pad(mut self, yes: bool) -> Self {
        self.s.dynamic_pad = yes;
        self
    }
}

/// `tf.train.batch_join(tensors_list, batch_size)` with every default.
pub fn batch_join(tensors_list: &[Vec<Output>], batch_size: usize) -> Result<Vec<Output>> {
    BatchJoin::new(tensors_list, batch_size).build()
}

/// `tf.train.maybe_batch_join(tensors_list, keep_input, batch_size)`.
pub fn maybe_batch_join(
    tensors_list: &[Vec<Output>],
    keep_input: &Output,
    batch_size: usize,
) -> Result<Vec<Output>> {
    BatchJoin::new(tensors_list, batch_size)
        .keep_input(keep_input)
        .build()
}

/// `tf.train.shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1,
/// seed=None, enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
/// shared_name=None, name=None)`: a RandomShuffleQueue, so batches mix examples from at least
/// `min_after_dequeue` buffered ones; the summary is
/// `fraction_over_<min_after_dequeue>_of_<capacity - min_after_dequeue>_full`.
pub struct ShuffleBatch {
    s: Spec,
}
common_setters!(ShuffleBatch);
sparse_setters!(ShuffleBatch);

impl ShuffleBatch {
    /// Shuffled batches of `batch_size` examples of `tensors`.
    pub fn new(
        tensors: &[Output],
        batch_size: usize,
        capacity: i64,
        min_after_dequeue: i64,
    ) -> ShuffleBatch {
        let mut s = spec("shuffle_batch", vec![tensors.to_vec()], false, batch_size);
        s.capacity = capacity;
        s.shuffle = Some((min_after_dequeue, None));
        ShuffleBatch { s }
    }

    /// Shuffled batches of a dictionary of tensors (`tf.train.shuffle_batch(dict, ...)`);
    /// [`ShuffleBatch::build_dict`] returns them under the same keys.
    pub fn from_dict(
        tensors: &[(&str, Output)],
        batch_size: usize,
        capacity: i64,
        min_after_dequeue: i64,
    ) -> ShuffleBatch {
        let mut s = dict_spec("shuffle_batch", tensors, batch_size);
        s.capacity = capacity;
        s.shuffle = Some((min_after_dequeue, None));
        ShuffleBatch { s }
    }

    /// Threads running the enqueue (default 1).
    pub fn num_threads(mut self, n: usize) -> Self {
        self.s.num_threads = n;
        self
    }

    /// The op-level seed of the queue.
    pub fn seed(mut self, seed: i64) -> Self {
        if let Some((_, s)) = &mut self.s.shuffle {
            *s = Some(seed);
        }
        self
    }
}

/// `tf.train.shuffle_batch(tensors, batch_size, capacity, min_after_dequeue)`.
pub fn shuffle_batch(
    tensors: &[Output],
    batch_size: usize,
    capacity: i64,
    min_after_dequeue: i64,
) -> Result<Vec<Output>> {
    ShuffleBatch::new(tensors, batch_size, capacity, min_after_dequeue).build()
}

/// `tf.train.maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue,
/// keep_input)`.
pub fn maybe_shuffle_batch(
    tensors: &[Output],
    batch_size: usize,
    capacity: i64,
    min_after_dequeue: i64,
    keep_input: &Output,
) -> Result<Vec<Output>> {
    ShuffleBatch::new(tensors, batch_size, capacity, min_after_dequeue)
        .keep_input(keep_input)
        .build()
}

/// `tf.train.shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
/// seed=None, enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
/// shared_name=None, name=None)`: like `shuffle_batch`, one thread per entry.
pub struct ShuffleBatchJoin {
    s: Spec,
}
common_setters!(ShuffleBatchJoin);

impl ShuffleBatchJoin {
    /// Shuffled batches from several lists of tensors, one thread each.
    pub fn new(
        tensors_list: &[Vec<Output>],
        batch_size: usize,
        capacity: i64,
        min_after_dequeue: i64,
    ) -> ShuffleBatchJoin {
        let mut s = spec(
            "shuffle_batch_join",
            tensors_list.to_vec(),
            true,
            batch_size,
        );
        s.capacity = capacity;
        s.shuffle = Some((min_after_dequeue, None));
        ShuffleBatchJoin { s }
    }

    /// The op-level seed of the queue.
    pub fn seed(mut self, seed: i64) -> Self {
        if let Some((_, s)) = &mut self.s.shuffle {
            *s = Some(seed);
        }
        self
    }
}

/// `tf.train.shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue)`.
pub fn shuffle_batch_join(
    tensors_list: &[Vec<Output>],
    batch_size: usize,
    capacity: i64,
    min_after_dequeue: i64,
) -> Result<Vec<Output>> {
    ShuffleBatchJoin::new(tensors_list, batch_size, capacity, min_after_dequeue).build()
}

/// `tf.train.maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
/// keep_input)`.
pub fn maybe_shuffle_batch_join(
    tensors_list: &[Vec<Output>],
    batch_size: usize,
    capacity: i64,
    min_after_dequeue: i64,
    keep_input: &Output,
) -> Result<Vec<Output>> {
    ShuffleBatchJoin::new(tensors_list, batch_size, capacity, min_after_dequeue)
        .keep_input(keep_input)
        .build()
}
