//! Int64 scalar arguments of dataset methods (`range`'s bounds, `batch_size`, `count`,
//! `buffer_size`), which TensorFlow accepts as Python numbers or as tensors: the documented
//! initializable iterator reads `Dataset.range(max_value)` with `max_value` a placeholder fed
//! to the initializer.

use weir_graph::{DType, Error, Graph, Output, Result};

/// An int64 scalar argument: a number, or a tensor computed when the dataset is made (a
/// placeholder fed to an initializable iterator's initializer).
///
/// ```
/// use weir_graph::{DType, Graph, Shape};
/// use weir_ops::array::placeholder;
/// use weir_ops::data::Dataset;
///
/// let g = Graph::new();
/// let max_value = placeholder(&g, DType::I64, Shape::scalar())?;
/// let it = Dataset::range(&g, 0, &max_value, 1)?.batch(4)?.make_initializable_iterator()?;
/// // sess.run(initializer with max_value fed 10), then get_next: [0..4], [4..8], [8, 9].
/// # Ok::<(), weir_graph::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum I64Arg {
    /// A number, known when the graph is built.
    Value(i64),
    /// An int64 scalar tensor of the graph.
    Tensor(Output),
}

impl From<i64> for I64Arg {
    fn from(v: i64) -> I64Arg {
        I64Arg::Value(v)
    }
}

impl From<i32> for I64Arg {
    fn from(v: i32) -> I64Arg {
        I64Arg::Value(i64::from(v))
    }
}

impl From<Output> for I64Arg {
    fn from(o: Output) -> I64Arg {
        I64Arg::Tensor(o)
    }
}

impl From<&Output> for I64Arg {
    fn from(o: &Output) -> I64Arg {
        I64Arg::Tensor(o.clone())
    }
}

impl I64Arg {
    /// The number, when it is known at build time: given as one, or a constant tensor's (as
    /// TensorFlow's `constant_value` reads it for a static batch dimension).
    pub fn value(&self) -> Option<i64> {
        match self {
            I64Arg::Value(v) => Some(*v),
            I64Arg::Tensor(o) => o
                .graph()
                .node(o.node_id())
                .const_value()
                .filter(|t| t.rank() == 0)
                .and_then(|t| t.to_scalar::<i64>().ok()),
        }
    }

    /// The argument `arg` (its Python name, for messages) as an int64 scalar of `g`: a number
    /// as a constant (named `arg` when `named`), a tensor as itself. A tensor of another dtype
    /// or rank is refused with TensorFlow's messages.
    pub(crate) fn to_output(&self, g: &Graph, arg: &str, named: bool) -> Result<Output> {
        match self {
            I64Arg::Value(v) if named => crate::array::constant_named(g, *v, arg),
            I64Arg::Value(v) => crate::array::constant(g, *v),
            I64Arg::Tensor(o) => {
                if !o.graph().ptr_eq(g) {
                    return Err(Error::invalid_argument(format!(
                        "{arg}: {} is a tensor of another graph than the dataset's",
                        o.name()
                    )));
                }
                if o.dtype() != DType::I64 {
                    return Err(Error::invalid_argument(format!(
                        "{arg}: Tensor conversion requested dtype int64 for Tensor with dtype \
                         {}: <tf.Tensor '{}' shape={} dtype={}>",
                        o.dtype().python_name(),
                        o.name(),
                        o.shape().python_str(),
                        o.dtype().python_name()
                    )));
                }
                if let Some(r) = o.shape().rank().filter(|&r| r != 0) {
                    return Err(Error::invalid_argument(format!(
                        "Shape must be rank 0 but is rank {r} for {arg} ({})",
                        o.name()
                    )));
                }
                Ok(o.clone())
            }
        }
    }
}

/// `repeat`'s `count`: a number or tensor ([`I64Arg`]), or `None` for forever (-1).
#[derive(Clone, Debug)]
pub struct RepeatCount(pub I64Arg);

impl From<Option<i64>> for RepeatCount {
    fn from(v: Option<i64>) -> RepeatCount {
        RepeatCount(I64Arg::Value(v.unwrap_or(-1)))
    }
}

impl From<i64> for RepeatCount {
    fn from(v: i64) -> RepeatCount {
        RepeatCount(I64Arg::Value(v))
    }
}

impl From<i32> for RepeatCount {
    fn from(v: i32) -> RepeatCount {
        RepeatCount(I64Arg::Value(i64::from(v)))
    }
}

impl From<Output> for RepeatCount {
    fn from(o: Output) -> RepeatCount {
        RepeatCount(I64Arg::Tensor(o))
    }
}

impl From<&Output> for RepeatCount {
    fn from(o: &Output) -> RepeatCount {
        RepeatCount(I64Arg::Tensor(o.clone()))
    }
}
