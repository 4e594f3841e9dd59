//! `tf.signal.hann_window` and `tf.signal.hamming_window`: raised-cosine windows computed in
//! the graph in the requested float dtype, as TensorFlow's `_raised_cosine_window` builds them.

use weir_graph::{scalar_of, DType, Error, Graph, Output, Result};

use crate::array::{constant, ones};
use crate::math::{cast, cos, mul, range, realdiv, sub};

/// A window function as `stft` and `inverse_stft` take it: `(graph, frame_length, dtype)`.
pub type WindowFn<'a> = &'a dyn Fn(&Graph, usize, DType) -> Result<Output>;

/// `a - b * cos(2 pi n / N)` for `n` in `0..window_length`, `N` being `window_length` (periodic,
/// for even lengths) or `window_length - 1`.
fn raised_cosine(
    g: &Graph,
    scope: &str,
    window_length: usize,
    periodic: bool,
    dtype: DType,
    a: f64,
    b: f64,
) -> Result<Output> {
    // TensorFlow also takes the half types; weir's Cos kernel does not yet.
    if !matches!(dtype, DType::F32 | DType::F64) {
        return Err(Error::invalid_argument(format!(
            "dtype must be a floating point type. Found <dtype: '{}'>",
            dtype.python_name()
        )));
    }
    let _scope = g.name_scope(scope);
    if window_length == 1 {
        return ones(g, dtype, &[1]);
    }
    let even = 1 - window_length % 2;
    let n = (window_length + usize::from(periodic) * even) as f64 - 1.0;
    let count = cast(range(g, 0i32, window_length as i32, 1)?, dtype)?;
    let two_pi = constant(g, scalar_of(dtype, 2.0 * std::f64::consts::PI)?)?;
    let n = constant(g, scalar_of(dtype, n)?)?;
    let arg = realdiv(mul(&two_pi, &count)?, &n)?;
    let a = constant(g, scalar_of(dtype, a)?)?;
    let b = constant(g, scalar_of(dtype, b)?)?;
    sub(&a, mul(&b, cos(&arg)?)?)
}

/// `tf.signal.hann_window(window_length, periodic, dtype)`: `0.5 - 0.5 cos(2 pi n / N)`.
pub fn hann_window(
    g: &Graph,
    window_length: usize,
    periodic: bool,
    dtype: DType,
) -> Result<Output> {
    raised_cosine(g, "hann_window", window_length, periodic, dtype, 0.5, 0.5)
}

/// `tf.signal.hamming_window(window_length, periodic, dtype)`: `0.54 - 0.46 cos(2 pi n / N)`.
pub fn hamming_window(
    g: &Graph,
    window_length: usize,
    periodic: bool,
    dtype: DType,
) -> Result<Output> {
    raised_cosine(
        g,
        "hamming_window",
        window_length,
        periodic,
        dtype,
        0.54,
        0.46,
    )
}

/// The default window of `tf.signal.stft`: a periodic Hann window.
pub fn periodic_hann(g: &Graph, frame_length: usize, dtype: DType) -> Result<Output> {
    hann_window(g, frame_length, true, dtype)
}
