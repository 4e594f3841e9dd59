//! TensorFlow's Python reprs, for error messages that print columns, specs and tensors.

use weir_graph::{DType, Output, Shape};

/// TensorFlow's `tf.float32`-style dtype repr.
pub(crate) fn tf_dtype(d: DType) -> String {
    format!("tf.{}", d.python_name())
}

/// TensorFlow's `<dtype: 'float32'>` repr.
pub(crate) fn dtype_repr(d: DType) -> String {
    format!("<dtype: '{}'>", d.python_name())
}

/// A Python tuple of ints: `(1,)`, `(2, 3)`.
pub(crate) fn py_tuple(v: &[usize]) -> String {
    let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// A float as Python prints it: `1.0`, `0.5`, `1e-05`.
pub(crate) fn py_float(x: f64) -> String {
    if x.is_finite() && x == x.trunc() && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// A Python tuple of floats.
pub(crate) fn py_float_tuple(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|&x| py_float(x)).collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// Nested Python tuples of `values` (row-major) in `shape`, floats or ints by `dtype`.
pub(crate) fn py_nested(shape: &[usize], values: &[f64], dtype: DType) -> String {
    let one = |x: f64| {
        if dtype.is_floating() {
            py_float(x)
        } else {
            format!("{}", x as i64)
        }
    };
    match shape {
        [] => values.first().map_or(String::new(), |&x| one(x)),
        [n] => {
            let parts: Vec<String> = values.iter().take(*n).map(|&x| one(x)).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        [n, rest @ ..] => {
            let stride: usize = rest.iter().product();
            let parts: Vec<String> = (0..*n)
                .map(|i| {
                    let part = values.get(i * stride..(i + 1) * stride).unwrap_or(&[]);
                    py_nested(rest, part, dtype)
                })
                .collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}

/// TensorFlow's repr of a graph tensor: `Tensor("x:0", shape=(2,), dtype=float32)`.
pub(crate) fn tensor_repr(o: &Output) -> String {
    format!(
        "Tensor(\"{}\", shape={}, dtype={})",
        o.name(),
        py_shape(&o.shape()),
        o.dtype().python_name()
    )
}

/// A static shape as Python prints a `TensorShape`: `(2,)`, `(None, 3)`, `<unknown>`.
pub(crate) fn py_shape(s: &Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d
                .iter()
                .map(|x| x.map_or("None".to_string(), |v| v.to_string()))
                .collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}
