//! Input producers (TensorFlow's `input.py`): `limit_epochs`, `input_producer`,
//! `string_input_producer`, `range_input_producer`, `slice_input_producer`.

use weir_graph::{graph_keys, DType, Error, Graph, Operation, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, constant_named, identity_named};
use weir_ops::data_flow::{input_ops, FifoQueue, Queue};
use weir_ops::random::random_shuffle;
use weir_ops::state::Variable;

use crate::queue_runner::{add_queue_runner, QueueRunner};

/// `tf.train.limit_epochs(tensor, num_epochs, name)`: `tensor`, but its evaluation number
/// `num_epochs + 1` fails with OutOfRange "Reached limit of N".
///
/// It counts in a local int64 variable `<scope>/epochs` (run `local_variables_initializer`
/// first). `None` returns `tensor` itself.
pub fn limit_epochs(
    tensor: &Output,
    num_epochs: Option<i64>,
    name: Option<&str>,
) -> Result<Output> {
    let Some(n) = num_epochs else {
        return Ok(tensor.clone());
    };
    if n <= 0 {
        return Err(Error::invalid_argument(format!(
            "num_epochs must be > 0 not {n}."
        )));
    }
    let g = tensor.graph().clone();
    let scope = g.name_scope(name.unwrap_or("limit_epochs"));
    let zero64 = constant(&g, Tensor::scalar(0i64))?;
    let epochs = Variable::builder(zero64)
        .name("epochs")
        .trainable(false)
        .collections(&[graph_keys::LOCAL_VARIABLES])
        .build()?;
    let counter = epochs.count_up_to(n)?;
    let _deps = g.control_dependencies(&[counter.op()])?;
    identity_named(tensor, scope.prefix())
}

/// The arguments every producer shares, with TensorFlow's defaults.
#[derive(Clone)]
struct Common {
    num_epochs: Option<i64>,
    shuffle: bool,
    seed: Option<i64>,
    capacity: i64,
    shared_name: Option<String>,
    name: Option<String>,
    cancel_op: Option<Operation>,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            num_epochs: None,
            shuffle: true,
            seed: None,
            capacity: 32,
            shared_name: None,
            name: None,
            cancel_op: None,
        }
    }
}

macro_rules! producer_setters {
    ($t:ty) => {
        impl $t {
            /// Produce every element this many times, then close the queue (default: forever).
            pub fn num_epochs(mut self, n: i64) -> Self {
                self.c.num_epochs = Some(n);
                self
            }

            /// Shuffle each epoch (default true).
            pub fn shuffle(mut self, shuffle: bool) -> Self {
                self.c.shuffle = shuffle;
                self
            }

            /// The op-level seed of the shuffle.
            pub fn seed(mut self, seed: i64) -> Self {
                self.c.seed = Some(seed);
                self
            }

            /// The queue's capacity (default 32).
            pub fn capacity(mut self, capacity: i64) -> Self {
                self.c.capacity = capacity;
                self
            }

            /// Shares the queue between sessions under this name.
            pub fn shared_name(mut self, name: &str) -> Self {
                self.c.shared_name = Some(name.to_string());
                self
            }

            /// The name scope (default `input_producer`).
            pub fn name(mut self, name: &str) -> Self {
                self.c.name = Some(name.to_string());
                self
            }

            /// The op the runner's closer thread runs on stop (default: cancel-close the queue).
            pub fn cancel_op(mut self, op: &Operation) -> Self {
                self.c.cancel_op = Some(op.clone());
                self
            }
        }
    };
}

/// `tf.train.input_producer(input_tensor, element_shape, num_epochs, shuffle=True, seed,
/// capacity=32, shared_name, summary_name, name, cancel_op)`: a FIFO queue filled, epoch
/// after epoch, with the rows of `input_tensor` (reshuffled each epoch when `shuffle`), by a
/// QueueRunner added to `QUEUE_RUNNERS`.
pub struct InputProducer {
    input: Output,
    element_shape: Option<Shape>,
    summary_name: Option<String>,
    c: Common,
}
producer_setters!(InputProducer);

impl InputProducer {
    /// A producer of the rows of `input`.
    pub fn new(input: impl Into<Output>) -> InputProducer {
        InputProducer {
            input: input.into(),
            element_shape: None,
            summary_name: None,
            c: Common::default(),
        }
    }

    /// The shape of one row, when `input`'s static shape does not tell it.
    pub fn element_shape(mut self, shape: impl Into<Shape>) -> Self {
        self.element_shape = Some(shape.into());
        self
    }

    /// Adds the fill fraction `size / capacity` to `SUMMARIES` under this tag.
    pub fn summary_name(mut self, name: &str) -> Self {
        self.summary_name = Some(name.to_string());
        self
    }

    /// Builds the graph and returns the queue.
    pub fn build(self) -> Result<Queue> {
        let g = self.input.graph().clone();
        let _scope = g.name_scope(self.c.name.as_deref().unwrap_or("input_producer"));
        let rows = match self.input.shape().dims() {
            Some(d) if !d.is_empty() => Shape::new(d[1..].to_vec()),
            Some(_) => {
                return Err(Error::invalid_argument(
                    "input_producer needs a tensor of rank at least 1",
                ))
            }
            None => Shape::unknown(),
        };
        let element_shape = match &self.element_shape {
            Some(s) => rows.merge_with(s)?,
            None => rows,
        };
        if !element_shape.is_fully_defined() {
            return Err(Error::invalid_argument(
                "Either `input_tensor` must have a fully defined shape or `element_shape` must be specified",
            ));
        }
        let mut input = self.input.clone();
        if self.c.shuffle {
            input = random_shuffle(&input, self.c.seed)?;
        }
        let input = limit_epochs(&input, self.c.num_epochs, None)?;
        let mut qb = FifoQueue::new(self.c.capacity, &[input.dtype()]).shapes(&[element_shape]);
        if let Some(s) = &self.c.shared_name {
            qb = qb.shared_name(s);
        }
        if let Some(n) = &self.c.name {
            qb = qb.name(n);
        }
        let q = qb.build(&g)?;
        let enq = q.enqueue_many(&[input])?;
        let mut rb = QueueRunner::builder(&q, &[enq]);
        if let Some(op) = &self.c.cancel_op {
            rb = rb.cancel_op(op);
        }
        add_queue_runner(&rb.build()?, None);
        if let Some(tag) = &self.summary_name {
            input_ops::fill_fraction(&q.size()?, self.c.capacity, 0, tag)?;
        }
        Ok(q)
    }
}

/// `tf.train.input_producer(input)` with every default (shuffled, forever, capacity 32).
pub fn input_producer(input: impl Into<Output>) -> Result<Queue> {
    InputProducer::new(input).build()
}

/// `tf.train.string_input_producer(string_tensor, num_epochs, shuffle=True, seed,
/// capacity=32, shared_name, name, cancel_op)`: a queue of strings (usually filenames) for
/// readers, under name scope `input_producer` with the summary `fraction_of_<capacity>_full`.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::array::constant;
/// use weir_train::StringInputProducer;
/// let g = Graph::new();
/// let files = constant(&g, Tensor::from_strings(&["a.csv", "b.csv"]))?;
/// let q = StringInputProducer::new(files).num_epochs(2).shuffle(false).build()?;
/// assert_eq!(q.name(), "input_producer");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub struct StringInputProducer {
    strings: Output,
    c: Common,
}
producer_setters!(StringInputProducer);

const NOT_NULL: &str = "string_input_producer requires a non-null input tensor";

impl StringInputProducer {
    /// A producer of the strings of the 1-D string tensor `strings`.
    pub fn new(strings: impl Into<Output>) -> StringInputProducer {
        StringInputProducer {
            strings: strings.into(),
            c: Common::default(),
        }
    }

    /// Builds the graph and returns the queue.
    pub fn build(self) -> Result<Queue> {
        if self.strings.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "string_input_producer needs a string tensor, got {}",
                self.strings.dtype()
            )));
        }
        if self.strings.shape().num_elements() == Some(0) {
            return Err(Error::invalid_argument(NOT_NULL));
        }
        let g = self.strings.graph().clone();
        let scope = g.name_scope(self.c.name.as_deref().unwrap_or("input_producer"));
        let checked = input_ops::assert_non_empty(&self.strings, NOT_NULL, Some("Assert"))?;
        let checked = weir_ops::array::identity(&checked)?;
        let mut c = self.c.clone();
        c.name = Some(scope.prefix().to_string());
        let capacity = c.capacity;
        InputProducer {
            input: checked,
            element_shape: Some(Shape::scalar()),
            summary_name: Some(format!("fraction_of_{capacity}_full")),
            c,
        }
        .build()
    }
}

/// `tf.train.string_input_producer(strings)` with every default.
pub fn string_input_producer(strings: impl Into<Output>) -> Result<Queue> {
    StringInputProducer::new(strings).build()
}

/// `tf.train.range_input_producer(limit, num_epochs, shuffle=True, seed, capacity=32,
/// shared_name, name)`: a queue of the int32 values `0..limit`.
pub struct RangeInputProducer {
    limit: Output,
    c: Common,
}
producer_setters!(RangeInputProducer);

impl RangeInputProducer {
    /// A producer of `0..limit` for an int32 scalar `limit`.
    pub fn new(limit: impl Into<Output>) -> RangeInputProducer {
        RangeInputProducer {
            limit: limit.into(),
            c: Common::default(),
        }
    }

    /// Builds the graph and returns the queue.
    pub fn build(self) -> Result<Queue> {
        let g = self.limit.graph().clone();
        let scope = g.name_scope(self.c.name.as_deref().unwrap_or("input_producer"));
        let range = input_ops::range_to(&self.limit, Some("range"))?;
        let mut c = self.c.clone();
        c.name = Some(scope.prefix().to_string());
        let capacity = c.capacity;
        InputProducer {
            input: range,
            element_shape: Some(Shape::scalar()),
            summary_name: Some(format!("fraction_of_{capacity}_full")),
            c,
        }
        .build()
    }
}

/// `tf.train.range_input_producer(limit)` with every default.
pub fn range_input_producer(graph: &Graph, limit: i32) -> Result<Queue> {
    let limit = constant_named(graph, Tensor::scalar(limit), "limit")?;
    RangeInputProducer::new(limit).build()
}

/// `tf.train.slice_input_producer(tensor_list, num_epochs, shuffle=True, seed, capacity=32,
/// shared_name, name)`: one row of each tensor per evaluation, all at the same index, the
/// indices coming (shuffled per epoch) from a `range_input_producer`. Returns tensors, not a
/// queue.
pub struct SliceInputProducer {
    tensors: Vec<Output>,
    c: Common,
}
producer_setters!(SliceInputProducer);

impl SliceInputProducer {
    /// A producer of the rows of `tensors` (first dimensions should agree; as in TensorFlow
    /// this is not checked).
    pub fn new(tensors: &[Output]) -> SliceInputProducer {
        SliceInputProducer {
            tensors: tensors.to_vec(),
            c: Common::default(),
        }
    }

    /// Builds the graph and returns one row tensor per input tensor.
    pub fn build(self) -> Result<Vec<Output>> {
        let first = self.tensors.first().ok_or_else(|| {
            Error::invalid_argument("Expected at least one tensor in slice_input_producer().")
        })?;
        let g = first.graph().clone();
        let _scope = g.name_scope(self.c.name.as_deref().unwrap_or("input_producer"));
        let limit = match first.shape().dim(0) {
            Some(n) => {
                let n = i32::try_from(n).map_err(|_| {
                    Error::invalid_argument(format!("{n} rows do not fit in int32"))
                })?;
                constant_named(&g, Tensor::scalar(n), "strided_slice")?
            }
            None => input_ops::dim0(first, Some("strided_slice"))?,
        };
        let mut c = self.c.clone();
        c.name = None;
        let q = RangeInputProducer { limit, c }.build()?;
        let index = q.dequeue()?.remove(0);
        self.tensors
            .iter()
            .map(|t| input_ops::gather_row(t, &index, Some("Gather")))
            .collect()
    }
}

/// `tf.train.slice_input_producer(tensor_list)` with every default.
pub fn slice_input_producer(tensors: &[Output]) -> Result<Vec<Output>> {
    SliceInputProducer::new(tensors).build()
}

/// `tf.train.match_filenames_once(pattern, name)`: a local variable `matching_filenames`
/// holding the sorted file names matching the glob `pattern` (empty if none), computed when
/// `local_variables_initializer` runs.
pub fn match_filenames_once(graph: &Graph, pattern: &str, name: Option<&str>) -> Result<Variable> {
    let scope = graph.name_scope(name.unwrap_or("matching_filenames"));
    let p = constant(graph, Tensor::from(pattern))?;
    let files = weir_ops::io::matching_files(p, Some("MatchingFiles"))?;
    let v = Variable::builder(files)
        .name(scope.prefix())
        .trainable(false)
        .validate_shape(false)
        .collections(&[graph_keys::LOCAL_VARIABLES])
        .build()?;
    drop(scope);
    Ok(v)
}
