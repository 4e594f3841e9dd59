//! `tf.image.flip_left_right`, `flip_up_down`, `transpose` and `rot90`: TensorFlow's Python
//! compositions of `ReverseV2` and `Transpose` (and a `tf.cond`/`tf.case` when the rank or `k`
//! is only known at run time), so graphs and gradients are TensorFlow's.

use weir_graph::{Error, Output, Result};

use super::IntScalar;
use crate::array::ArrayExt;
use crate::array::{constant, rank, reverse, transpose as transpose_op};
use crate::control_flow::{cond, Case};
use crate::math::{equal, floormod, less};

/// TensorFlow's `_CheckAtLeast3DImage(image, require_static=False)`, the static half: rank at
/// least 3 when known, and no zero among the last three dimensions. (The run-time asserts
/// TensorFlow adds for partly unknown shapes are left out; the kernels' own checks remain.)
pub(crate) fn check_at_least_3d(image: &Output) -> Result<()> {
    let shape = image.shape();
    let Some(dims) = shape.dims() else {
        return Ok(());
    };
    if dims.len() < 3 {
        return Err(Error::invalid_argument(format!(
            "'image' (shape {}) must be at least three-dimensional.",
            shape.python_str()
        )));
    }
    if dims[dims.len() - 3..].contains(&Some(0)) {
        return Err(Error::invalid_argument(format!(
            "inner 3 dims of 'image.shape' must be > 0: {}",
            shape.python_str()
        )));
    }
    Ok(())
}

/// TensorFlow's `_AssertAtLeast3DImage`: the static checks of [`check_at_least_3d`], and when the
/// last three dimensions are not all known, the run-time asserts TensorFlow adds (all positive,
/// rank at least 3) as control dependencies of the image returned.
pub(crate) fn assert_at_least_3d(image: &Output) -> Result<Output> {
    check_at_least_3d(image)?;
    let shape = image.shape();
    let inner_known = shape
        .dims()
        .is_some_and(|d| d[d.len() - 3..].iter().all(Option::is_some));
    if inner_known {
        return Ok(image.clone());
    }
    let g = image.graph().clone();
    let inner = crate::array::shape(image)?.at(crate::s![-3..])?;
    let positive =
        crate::math::reduce_all(less(&constant(&g, 0i32)?, &inner)?, crate::math::Axes::All)?;
    let msg = constant(&g, "inner 3 dims of 'image.shape' must be > 0.")?;
    let positive = crate::control_flow::Assert::new().build(&positive, &[msg])?;
    let rank3 = crate::control_flow::assert_greater_equal(
        &rank(image)?,
        &constant(&g, 3i32)?,
        Some("'image' must be at least three-dimensional."),
    )?;
    crate::control_flow::with_dependencies(&[positive, rank3], image)
}

/// `tf.image.flip_left_right(image)`: `ReverseV2` along the width of a `[h, w, c]` image or a
/// `[batch, h, w, c]` batch.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::flip_left_right};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[4, 6, 3]))?;
/// assert_eq!(flip_left_right(&img)?.shape(), img.shape());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn flip_left_right(image: impl Into<Output>) -> Result<Output> {
    flip(image.into(), 1, "flip_left_right")
}

/// `tf.image.flip_up_down(image)`: `ReverseV2` along the height of an image or a batch.
pub fn flip_up_down(image: impl Into<Output>) -> Result<Output> {
    flip(image.into(), 0, "flip_up_down")
}

fn flip(image: Output, index: i64, scope: &str) -> Result<Output> {
    let g = image.graph().clone();
    let _scope = g.name_scope(scope);
    let image = assert_at_least_3d(&image)?;
    let shape = image.shape();
    match shape.rank() {
        Some(3) => reverse(&image, [index]),
        Some(4) => reverse(&image, [index + 1]),
        // TensorFlow's message lacks the space before "must" here.
        Some(_) => Err(Error::invalid_argument(format!(
            "'image' (shape {})must have either 3 or 4 dimensions.",
            shape.python_str()
        ))),
        None => {
            let is3 = equal(&rank(&image)?, &constant(&g, 3i32)?)?;
            cond(
                &is3,
                || reverse(&image, [index]),
                || reverse(&image, [index + 1]),
            )
        }
    }
}

/// `tf.image.transpose(image)`: swaps height and width (`Transpose` with `[1, 0, 2]`, or
/// `[0, 2, 1, 3]` for a batch).
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::F32, Shape::known(&[4, 6, 3]))?;
/// assert_eq!(image::transpose(&img)?.shape(), Shape::known(&[6, 4, 3]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn transpose(image: impl Into<Output>) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let _scope = g.name_scope("transpose");
    let image = assert_at_least_3d(&image)?;
    let shape = image.shape();
    match shape.rank() {
        Some(3) => transpose_op(&image, [1, 0, 2]),
        Some(4) => transpose_op(&image, [0, 2, 1, 3]),
        Some(_) => Err(Error::invalid_argument(format!(
            "'image' (shape {}) must have either 3 or 4 dimensions.",
            shape.python_str()
        ))),
        None => {
            let is3 = equal(&rank(&image)?, &constant(&g, 3i32)?)?;
            cond(
                &is3,
                || transpose_op(&image, [1, 0, 2]),
                || transpose_op(&image, [0, 2, 1, 3]),
            )
        }
    }
}

/// `tf.image.rot90(image, k=1)`: rotates counter-clockwise by `k` quarter turns. As in
/// TensorFlow, `k` becomes an int32 tensor taken modulo 4 (`FloorMod`, so negative `k` turns
/// clockwise) and a `tf.case` picks the rotation in each run, so height and width are unknown in
/// the static shape unless the image is square.
///
/// ```
/// # use weir_graph::{DType, Graph, Shape};
/// # use weir_ops::{array::placeholder, image::rot90};
/// let g = Graph::new();
/// let img = placeholder(&g, DType::U8, Shape::known(&[4, 6, 3]))?;
/// assert_eq!(rot90(&img, 1)?.shape(), Shape::new(vec![None, None, Some(3)]));
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn rot90(image: impl Into<Output>, k: impl Into<IntScalar>) -> Result<Output> {
    let image = image.into();
    let g = image.graph().clone();
    let scope = g.name_scope("rot90");
    let image = assert_at_least_3d(&image)?;
    let k = k.into().to_i32(&g, "k")?;
    let k = floormod(&k, &constant(&g, 4i32)?)?;
    // TensorFlow names the case after rot90's own scope ("rot90/"), so its ops nest in it.
    let case_name = scope.prefix().to_string();
    let shape = image.shape();
    match shape.rank() {
        Some(3) => rot_case(&image, &k, 0, &case_name),
        Some(4) => rot_case(&image, &k, 1, &case_name),
        Some(_) => Err(Error::invalid_argument(format!(
            "'image' (shape {}) must have either 3 or 4 dimensions.",
            shape.python_str()
        ))),
        None => {
            let is3 = equal(&rank(&image)?, &constant(&g, 3i32)?)?;
            cond(
                &is3,
                || rot_case(&image, &k, 0, &case_name),
                || rot_case(&image, &k, 1, &case_name),
            )
        }
    }
}

/// `_rot90_3D`/`_rot90_4D`: `b` is the number of batch dimensions in front (0 or 1).
fn rot_case(image: &Output, k: &Output, b: i64, name: &str) -> Result<Output> {
    let g = image.graph().clone();
    let perm: Vec<i64> = if b == 0 {
        vec![1, 0, 2]
    } else {
        vec![0, 2, 1, 3]
    };
    let when = |n: i32| -> Result<Output> { equal(k, &constant(&g, n)?) };
    let (is1, is2, is3) = (when(1)?, when(2)?, when(3)?);
    Case::new()
        .when(&is1, || {
            transpose_op(&reverse(image, [b + 1])?, perm.clone())
        })
        .when(&is2, || reverse(image, [b, b + 1]))
        .when(&is3, || {
            reverse(&transpose_op(image, perm.clone())?, [b + 1])
        })
        .default(|| Ok(image.clone()))
        .exclusive(true)
        .name(name.trim_end_matches('/'))
        .build()
}

#[cfg(test)]
mod tests {
    use weir_graph::{DType, Graph, Shape};

    use super::*;
    use crate::array::placeholder;

    #[test]
    fn static_shapes_and_checks_follow_tensorflow() {
        let g = Graph::new();
        let img = placeholder(&g, DType::U8, Shape::known(&[4, 6, 3])).unwrap();
        assert_eq!(transpose(&img).unwrap().shape(), Shape::known(&[6, 4, 3]));
        assert_eq!(flip_up_down(&img).unwrap().shape(), img.shape());
        // The case merges a [6, 4, 3] and a [4, 6, 3] branch.
        let r = rot90(&img, -1).unwrap();
        assert_eq!(r.shape(), Shape::new(vec![None, None, Some(3)]));
        let square = placeholder(&g, DType::F32, Shape::known(&[2, 5, 5, 1])).unwrap();
        assert_eq!(rot90(&square, 3).unwrap().shape(), square.shape());
        let flat = placeholder(&g, DType::F32, Shape::known(&[4, 6])).unwrap();
        let e = flip_left_right(&flat).unwrap_err();
        assert_eq!(
            e.message(),
            "'image' (shape (4, 6)) must be at least three-dimensional."
        );
        let empty = placeholder(&g, DType::F32, Shape::known(&[0, 6, 3])).unwrap();
        assert!(transpose(&empty).is_err());
        assert!(rot90(&img, 1i64 << 40).is_err());
    }
}
