//! The arguments of the TensorArray builders (a scalar int32 given as a number or a tensor)
//! and the small graph helpers they share: names as TensorFlow gives them, index constants,
//! `range`.

use weir_graph::{Error, Graph, NameScope, Output, Result, Tensor};

use crate::array::{constant_named, IndexArg};

/// A scalar int32 argument (an index or a size): a Rust `i32`, which becomes a `Const` as in
/// TensorFlow's Python layer, or an int32 tensor computed by the graph.
#[derive(Clone, Debug)]
pub enum Int32Arg {
    /// A known value.
    Value(i32),
    /// A scalar int32 tensor.
    Tensor(Output),
}

impl From<i32> for Int32Arg {
    fn from(v: i32) -> Int32Arg {
        Int32Arg::Value(v)
    }
}

impl From<Output> for Int32Arg {
    fn from(o: Output) -> Int32Arg {
        Int32Arg::Tensor(o)
    }
}

impl From<&Output> for Int32Arg {
    fn from(o: &Output) -> Int32Arg {
        Int32Arg::Tensor(o.clone())
    }
}

impl Int32Arg {
    pub(super) fn to_output(&self, g: &Graph, name: &str) -> Result<Output> {
        match self {
            Int32Arg::Value(v) => constant_named(g, *v, name),
            Int32Arg::Tensor(o) => {
                same_graph(g, o)?;
                Ok(o.clone())
            }
        }
    }
}

pub(super) fn same_graph(g: &Graph, o: &Output) -> Result<()> {
    if !o.graph().ptr_eq(g) {
        return Err(Error::invalid_argument(format!(
            "Tensor {} must be from the same graph as the TensorArray.",
            o.name()
        )));
    }
    Ok(())
}

/// The values of a `Const` int tensor.
pub(super) fn const_ints(o: &Output) -> Option<Vec<i64>> {
    crate::array::shape_util::to_i64s(o.op().node().const_value()?).ok()
}

/// Reserves the name TensorFlow would give a new node of `base` here and opens a name scope
/// under it (where the constants its inputs need go, as `TensorArrayReadV3/index`). Returns
/// the name to build the node with (exact, ending in `/`).
pub(super) fn node_scope(g: &Graph, base: &str) -> (String, NameScope) {
    let full = g.unique_name(&format!("{}{base}", g.current_scope()));
    let scope = g.name_scope(&format!("{full}/"));
    (format!("{full}/"), scope)
}

/// `tf.range(0, limit)`, named `range` as TensorFlow names it.
pub(super) fn range_to(g: &Graph, limit: &Output) -> Result<Output> {
    let _scope = g.name_scope("range");
    let name = g.current_scope();
    let start = constant_named(g, 0i32, "start")?;
    let delta = constant_named(g, 1i32, "delta")?;
    crate::new_op(g, "Range")
        .name(name)
        .input(start)
        .input(limit)
        .input(delta)
        .build()?
        .output(0)
}

/// An index vector: a Rust list becomes an int32 constant named `indices`.
pub(super) fn indices_output(g: &Graph, indices: IndexArg) -> Result<Output> {
    match indices {
        IndexArg::List(v) => {
            let v = v
                .iter()
                .map(|&x| {
                    i32::try_from(x).map_err(|_| {
                        Error::invalid_argument(format!("Index {x} does not fit in an int32"))
                    })
                })
                .collect::<Result<Vec<i32>>>()?;
            constant_named(g, Tensor::from(v), "indices")
        }
        IndexArg::Tensor(o) => {
            same_graph(g, &o)?;
            Ok(o)
        }
    }
}
