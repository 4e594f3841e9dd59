//! [`TensorArg`]: a value or a graph tensor where TensorFlow's Python takes either (keys,
//! values, default values, file names), converted as `tf.convert_to_tensor(x, dtype)` converts.

use weir_graph::{Bytes, DType, Error, Graph, Output, Result, Tensor};

/// A value given when building (it becomes a `Const`) or a tensor of the graph: what the
/// table constructors accept wherever TensorFlow's Python accepts a Python value or a `Tensor`.
///
/// ```
/// # use weir_ops::lookup::TensorArg;
/// let words: TensorArg = ["emerson", "lake"].into();
/// let default: TensorArg = (-1i64).into();
/// assert!(matches!(words, TensorArg::Value(_)) && matches!(default, TensorArg::Value(_)));
/// ```
#[derive(Clone, Debug)]
pub enum TensorArg {
    /// A fixed value.
    Value(Tensor),
    /// A tensor computed by the graph.
    Tensor(Output),
}

impl From<Output> for TensorArg {
    fn from(o: Output) -> TensorArg {
        TensorArg::Tensor(o)
    }
}

impl From<&Output> for TensorArg {
    fn from(o: &Output) -> TensorArg {
        TensorArg::Tensor(o.clone())
    }
}

impl From<Tensor> for TensorArg {
    fn from(t: Tensor) -> TensorArg {
        TensorArg::Value(t)
    }
}

macro_rules! value_args {
    ($($t:ty),*) => {$(
        impl From<$t> for TensorArg {
            fn from(v: $t) -> TensorArg {
                TensorArg::Value(Tensor::from(v))
            }
        }
    )*};
}

value_args!(
    i32,
    i64,
    f32,
    f64,
    bool,
    &str,
    String,
    Vec<i32>,
    Vec<i64>,
    Vec<f32>,
    Vec<f64>,
    Vec<bool>,
    Vec<&str>,
    Vec<String>,
    &[&str]
);

macro_rules! array_args {
    ($($t:ty),*) => {$(
        impl<const N: usize> From<[$t; N]> for TensorArg {
            fn from(v: [$t; N]) -> TensorArg {
                TensorArg::Value(Tensor::from(v))
            }
        }
    )*};
}

array_args!(i32, i64, f32, f64, bool, &str);

/// Python's name of a value's type in `convert_to_tensor`'s TypeError.
fn python_type(d: DType) -> &'static str {
    match d {
        DType::String => "str",
        DType::Bool => "bool",
        DType::F32 | DType::F64 => "float",
        _ => "int",
    }
}

/// `t` as `dtype`, as Python converts a literal: integers to any integer type they fit or to a
/// float type, floats to float types; anything else is refused with TensorFlow's TypeError.
fn convert_value(t: &Tensor, dtype: DType) -> Result<Tensor> {
    let from = t.dtype();
    if from == dtype {
        return Ok(t.clone());
    }
    let refuse = || {
        let shown = if t.rank() == 0 {
            t.summarize_value(-1)
        } else {
            format!("[{}]", t.summarize_value(-1))
        };
        Error::invalid_argument(format!(
            "Expected {}, but got {shown} of type '{}'.",
            dtype.python_name(),
            python_type(from)
        ))
    };
    let ints: Vec<i64> = match from {
        DType::I32 => t.as_slice::<i32>()?.iter().map(|&x| i64::from(x)).collect(),
        DType::I64 => t.as_slice::<i64>()?.to_vec(),
        DType::F32 if dtype == DType::F64 => {
            let v: Vec<f64> = t.as_slice::<f32>()?.iter().map(|&x| f64::from(x)).collect();
            return Tensor::from_vec(t.shape(), v);
        }
        DType::F64 if dtype == DType::F32 => {
            let v: Vec<f32> = t.as_slice::<f64>()?.iter().map(|&x| x as f32).collect();
            return Tensor::from_vec(t.shape(), v);
        }
        _ => return Err(refuse()),
    };
    match dtype {
        DType::I64 => Tensor::from_vec(t.shape(), ints),
        DType::I32 => {
            let v: Option<Vec<i32>> = ints.iter().map(|&x| i32::try_from(x).ok()).collect();
            Tensor::from_vec(t.shape(), v.ok_or_else(refuse)?)
        }
        DType::F32 => Tensor::from_vec(t.shape(), ints.iter().map(|&x| x as f32).collect()),
        DType::F64 => Tensor::from_vec(t.shape(), ints.iter().map(|&x| x as f64).collect()),
        _ => Err(refuse()),
    }
}

/// Python's `str(tensor)` in graph mode: `Tensor("name:0", shape=(2,), dtype=string)`.
pub(super) fn tensor_str(o: &Output) -> String {
    format!(
        "Tensor(\"{}\", shape={}, dtype={})",
        o.name(),
        o.shape().python_str(),
        o.dtype().python_name()
    )
}

impl TensorArg {
    /// The dtype the argument has as given.
    pub(super) fn dtype(&self) -> DType {
        match self {
            TensorArg::Value(t) => t.dtype(),
            TensorArg::Tensor(o) => o.dtype(),
        }
    }

    /// The string the argument holds when it is a string scalar fixed when building (a value,
    /// or a `Const` of the graph).
    pub(super) fn const_string(&self) -> Option<String> {
        let t = match self {
            TensorArg::Value(t) => t.clone(),
            TensorArg::Tensor(o) => o.op().node().const_value()?.clone(),
        };
        if t.dtype() != DType::String || t.rank() != 0 {
            return None;
        }
        let b = t.to_scalar::<Bytes>().ok()?;
        Some(String::from_utf8_lossy(&b).into_owned())
    }

    /// The argument as a tensor of `dtype` in `graph` (`tf.convert_to_tensor(x, dtype, name)`):
    /// a value becomes a `Const` named `name` (`Const` by default); a tensor must already have
    /// `dtype`.
    pub(super) fn to_output(
        &self,
        graph: &Graph,
        dtype: Option<DType>,
        name: Option<&str>,
        arg: &str,
    ) -> Result<Output> {
        match self {
            TensorArg::Value(t) => {
                let t = match dtype {
                    Some(d) => convert_value(t, d)?,
                    None => t.clone(),
                };
                match name {
                    Some(n) => crate::array::constant_named(graph, t, n),
                    None => crate::array::constant(graph, t),
                }
            }
            TensorArg::Tensor(o) => {
                if !o.graph().ptr_eq(graph) {
                    return Err(Error::invalid_argument(format!(
                        "Tensor {} must be from the same graph as the table.",
                        o.name()
                    )));
                }
                match dtype {
                    Some(d) if d != o.dtype() => Err(Error::invalid_argument(format!(
                        "{arg}Tensor conversion requested dtype {} for Tensor with dtype {}: <tf.Tensor '{}' shape={} dtype={}>",
                        d.python_name(),
                        o.dtype().python_name(),
                        o.name(),
                        o.shape().python_str(),
                        o.dtype().python_name()
                    ))),
                    _ => Ok(o.clone()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_convert_as_python_converts_them() {
        let t = convert_value(&Tensor::from(-1i32), DType::I64).unwrap();
        assert_eq!(t.to_scalar::<i64>().unwrap(), -1);
        let f = convert_value(&Tensor::from(vec![1i32, 2]), DType::F32).unwrap();
        assert_eq!(f.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
        let e = convert_value(&Tensor::from("x"), DType::I64).unwrap_err();
        assert_eq!(e.message(), "Expected int64, but got x of type 'str'.");
        assert!(convert_value(&Tensor::from(1.5f32), DType::I64).is_err());
    }
}
