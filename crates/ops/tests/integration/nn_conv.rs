//! conv2d and max_pool in a session: values, TensorFlow's SAME/VALID geometry, errors, and the
//! backward kernels against central differences of the forward kernels.

use weir_graph::{DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{self, Padding};
use weir_session::Session;

use crate::grad_check::{check_grad, run1};

fn seq(n: usize, salt: usize) -> Vec<f64> {
    // Distinct values, so max_pool has no ties.
    (0..n)
        .map(|i| (((i * 53 + salt * 17) % 101) as f64 - 50.0) / 25.0 + i as f64 * 1e-3)
        .collect()
}

#[test]
fn conv2d_values_and_shapes() -> Result<()> {
    let g = Graph::new();
    // A 3x3 image of 1..9 and a 2x2 box filter summing each window.
    let x = constant(
        &g,
        Tensor::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?,
    )?;
    let f = constant(&g, Tensor::from_vec(&[2, 2, 1, 1], vec![1.0f32; 4])?)?;
    let valid = nn::conv2d(&x, &f, [1, 1, 1, 1], Padding::Valid)?;
    let same = nn::conv2d(&x, &f, [1, 1, 1, 1], Padding::Same)?;
    let strided = nn::conv2d(&x, &f, [1, 2, 2, 1], Padding::Same)?;
    assert_eq!(valid.shape(), Shape::known(&[1, 2, 2, 1]));
    assert_eq!(same.shape(), Shape::known(&[1, 3, 3, 1]));
    assert_eq!(strided.shape(), Shape::known(&[1, 2, 2, 1]));
    let sess = Session::new(&g)?;
    assert_eq!(
        sess.eval(&valid)?.to_vec::<f32>()?,
        vec![12.0, 16.0, 24.0, 28.0]
    );
    // SAME with an even filter pads after: the last row and column see zeros.
    assert_eq!(
        sess.eval(&same)?.to_vec::<f32>()?,
        vec![12.0, 16.0, 9.0, 24.0, 28.0, 15.0, 15.0, 17.0, 9.0]
    );
    assert_eq!(
        sess.eval(&strided)?.to_vec::<f32>()?,
        vec![12.0, 9.0, 15.0, 9.0]
    );
    // Two input channels into three output channels.
    let x2 = constant(&g, Tensor::from_vec(&[1, 1, 1, 2], vec![1.0f32, 10.0])?)?;
    let f2 = constant(
        &g,
        Tensor::from_vec(&[1, 1, 2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?,
    )?;
    let y2 = nn::conv2d(&x2, &f2, [1, 1, 1, 1], Padding::Valid)?;
    assert_eq!(sess.eval(&y2)?.to_vec::<f32>()?, vec![41.0, 52.0, 63.0]);
    Ok(())
}

#[test]
fn conv2d_build_errors() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(
        &g,
        DType::F32,
        Shape::new(vec![None, Some(8), Some(8), Some(3)]),
    )?;
    let f = placeholder(&g, DType::F32, Shape::known(&[3, 3, 2, 4]))?;
    let e = nn::conv2d(&x, &f, [1, 1, 1, 1], Padding::Same).unwrap_err();
    assert!(e.message().contains("Depth of input (3)"), "{e}");
    let f3 = placeholder(&g, DType::F32, Shape::known(&[3, 3, 3, 4]))?;
    let e = nn::conv2d(&x, &f3, [2, 1, 1, 1], Padding::Same).unwrap_err();
    assert!(
        e.message().contains("strides in the batch and depth"),
        "{e}"
    );
    let big = placeholder(&g, DType::F32, Shape::known(&[10, 10, 3, 4]))?;
    let e = nn::conv2d(&x, &big, [1, 1, 1, 1], Padding::Valid).unwrap_err();
    // TensorFlow's shape function: "Negative dimension size caused by subtracting 10 from 8
    // for '{{node Conv2D}} = ...".
    assert_eq!(
        e.message(),
        "Negative dimension size caused by subtracting 10 from 8"
    );
    let y = nn::conv2d(&x, &f3, [1, 3, 3, 1], Padding::Valid)?;
    assert_eq!(y.shape(), Shape::new(vec![None, Some(2), Some(2), Some(4)]));
    Ok(())
}

#[test]
fn conv2d_backprops_match_central_differences() -> Result<()> {
    for (stride, padding) in [(1, Padding::Same), (2, Padding::Same), (2, Padding::Valid)] {
        let g = Graph::new();
        let (xd, fd) = ([2usize, 5, 4, 2], [3usize, 2, 2, 3]);
        let x = placeholder(&g, DType::F64, Shape::known(&xd))?;
        let f = placeholder(&g, DType::F64, Shape::known(&fd))?;
        let strides = [1, stride, stride, 1];
        let y = nn::conv2d(&x, &f, strides, padding)?;
        let yd = y.shape().to_known().unwrap();
        let n: usize = yd.iter().product();
        let dy_v = seq(n, 3);
        let dy = constant(&g, Tensor::from_vec(&yd, dy_v.clone())?)?;
        let xs = constant(
            &g,
            Tensor::from(xd.iter().map(|&d| d as i32).collect::<Vec<_>>()),
        )?;
        let fs = constant(
            &g,
            Tensor::from(fd.iter().map(|&d| d as i32).collect::<Vec<_>>()),
        )?;
        let dx = nn::conv2d_backprop_input(&xs, &f, &dy, strides, padding)?;
        let df = nn::conv2d_backprop_filter(&x, &fs, &dy, strides, padding)?;
        assert_eq!(dx.shape(), Shape::known(&xd));
        assert_eq!(df.shape(), Shape::known(&fd));
        let sess = Session::new(&g)?;
        let x0 = Tensor::from_vec(&xd, seq(80, 1))?;
        let f0 = Tensor::from_vec(&fd, seq(36, 2))?;
        check_grad(&sess, &x, &x0, &y, &dy_v, &dx, &[(&f, &f0)])?;
        check_grad(&sess, &f, &f0, &y, &dy_v, &df, &[(&x, &x0)])?;
    }
    Ok(())
}

#[test]
fn max_pool_values_and_gradient() -> Result<()> {
    for (k, stride, padding) in [
        (2, 2, Padding::Valid),
        (3, 2, Padding::Same),
        (2, 1, Padding::Same),
    ] {
        let g = Graph::new();
        let xd = [2usize, 5, 4, 3];
        let x = placeholder(&g, DType::F64, Shape::known(&xd))?;
        let ksize = [1, k, k, 1];
        let strides = [1, stride, stride, 1];
        let y = nn::max_pool(&x, ksize, strides, padding)?;
        let yd = y.shape().to_known().unwrap();
        let n: usize = yd.iter().product();
        let dy_v = seq(n, 4);
        let dy = constant(&g, Tensor::from_vec(&yd, dy_v.clone())?)?;
        let dx = nn::max_pool_grad(&x, &y, &dy, ksize, strides, padding)?;
        let sess = Session::new(&g)?;
        let x0 = Tensor::from_vec(&xd, seq(120, 5))?;
        // Each output is the maximum of its window.
        let out = run1(&sess, &y, &[(&x, &x0)])?;
        assert_eq!(out.shape(), yd.as_slice());
        let xv = x0.to_vec::<f64>()?;
        let top = out.to_vec::<f64>()?.into_iter().fold(f64::MIN, f64::max);
        assert_eq!(top, xv.iter().copied().fold(f64::MIN, f64::max));
        check_grad(&sess, &x, &x0, &y, &dy_v, &dx, &[])?;
    }
    let g = Graph::new();
    let x = placeholder(
        &g,
        DType::F32,
        Shape::new(vec![None, Some(28), Some(28), Some(32)]),
    )?;
    let y = nn::max_pool(&x, [1, 2, 2, 1], [1, 2, 2, 1], Padding::Same)?;
    assert_eq!(
        y.shape(),
        Shape::new(vec![None, Some(14), Some(14), Some(32)])
    );
    assert!(nn::max_pool(&x, [2, 2, 2, 1], [1, 2, 2, 1], Padding::Same).is_err());
    Ok(())
}
