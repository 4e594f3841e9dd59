//! Every gradient checked against central differences of the forward graph (float64), plus
//! the traversal rules: fan-out sums, stop_gradient, unconnected xs, missing gradients.

use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{self, constant, placeholder};
use weir_ops::math::{self, Reduce};
use weir_ops::nn;
use weir_session::{RunArgs, Session};
use weir_train::gradients::{check::gradient_error, gradients};

fn vals(shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    // Values in (-1.5, 1.5) away from 0, distinct, reproducible.
    let v = (0..n)
        .map(|i| {
            let x = ((i as u64 * 2654435761 + seed * 97) % 1000) as f64 / 1000.0;
            let s = if (i + seed as usize) % 2 == 0 {
                1.0
            } else {
                -1.0
            };
            s * (0.2 + 1.3 * x)
        })
        .collect();
    Tensor::from_vec(shape, v).unwrap()
}

fn positive(shape: &[usize], seed: u64) -> Tensor {
    let t = vals(shape, seed);
    Tensor::from_vec(
        shape,
        t.to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|v| v.abs() + 0.3)
            .collect(),
    )
    .unwrap()
}

/// Checks d(y)/d(x) where y = f(x) for a float64 placeholder x of `shape`.
fn check(shape: &[usize], value: Tensor, f: impl FnOnce(&Output) -> Result<Output>) {
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(shape)).unwrap();
    let y = f(&x).unwrap();
    let err = gradient_error(&x, &value, &y, &[]).unwrap();
    assert!(err < 1e-6, "gradient error {err} for {}", y.op().op_type());
}

#[test]
fn elementwise_binary_with_broadcasting() {
    for (op, sa, sb) in [
        ("add", vec![2, 3], vec![3]),
        ("sub", vec![2, 3], vec![2, 1]),
        ("mul", vec![3], vec![2, 3]),
        ("div", vec![2, 3], vec![]),
        ("max", vec![2, 3], vec![3]),
        ("min", vec![2, 3], vec![2, 3]),
        ("sqd", vec![2, 3], vec![1, 3]),
    ] {
        for which in 0..2 {
            let (sx, so) = if which == 0 { (&sa, &sb) } else { (&sb, &sa) };
            let other_val = vals(so, 11);
            check(sx, vals(sx, 3), |x| {
                let o = constant(x.graph(), other_val.clone())?;
                let (a, b) = if which == 0 {
                    (x.clone(), o)
                } else {
                    (o, x.clone())
                };
                match op {
                    "add" => math::add(&a, &b),
                    "sub" => math::sub(&a, &b),
                    "mul" => math::mul(&a, &b),
                    "div" => math::realdiv(&a, &b),
                    "max" => math::maximum(&a, &b),
                    "min" => math::minimum(&a, &b),
                    _ => math::squared_difference(&a, &b),
                }
            });
        }
    }
}

#[test]
fn dynamic_shapes_use_broadcast_gradient_args() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::new(vec![None, Some(3)]))?;
    let b = placeholder(&g, DType::F64, Shape::new(vec![Some(3)]))?;
    let y = math::mul(&math::add(&x, &b)?, &x)?;
    let b_val = vals(&[3], 5);
    let err = gradient_error(&x, &vals(&[4, 3], 1), &y, &[(b.clone(), b_val)])?;
    assert!(err < 1e-6, "{err}");
    let err = gradient_error(&b, &vals(&[3], 2), &y, &[(x, vals(&[4, 3], 9))])?;
    assert!(err < 1e-6, "{err}");
    Ok(())
}

#[test]
fn unary_math() {
    for name in [
        "neg", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin", "cos", "tanh", "sigmoid",
        "abs",
    ] {
        let value = if matches!(name, "sqrt" | "rsqrt" | "log" | "log1p") {
            positive(&[2, 3], 4)
        } else {
            vals(&[2, 3], 4)
        };
        check(&[2, 3], value, |x| match name {
            "neg" => math::neg(x),
            "square" => math::square(x),
            "sqrt" => math::sqrt(x),
            "rsqrt" => math::rsqrt(x),
            "exp" => math::exp(x),
            "log" => math::log(x),
            "log1p" => math::log1p(x),
            "sin" => math::sin(x),
            "cos" => math::cos(x),
            "tanh" => math::tanh(x),
            "sigmoid" => math::sigmoid(x),
            _ => math::abs(x),
        });
    }
    check(&[3], positive(&[3], 2), |x| {
        let e = constant(x.graph(), Tensor::from(vec![2.0f64, 0.5, 3.0]))?;
        math::pow(x, &e)
    });
}

#[test]
fn matmul_with_transposes() {
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let a_shape = if ta { [3, 2] } else { [2, 3] };
        let b_shape = if tb { [4, 3] } else { [3, 4] };
        let b_val = vals(&b_shape, 7);
        check(&a_shape, vals(&a_shape, 1), |a| {
            let b = constant(a.graph(), b_val.clone())?;
            math::MatMul::new()
                .transpose_a(ta)
                .transpose_b(tb)
                .build(a, &b)
        });
        let a_val = vals(&a_shape, 8);
        check(&b_shape, vals(&b_shape, 2), |b| {
            let a = constant(b.graph(), a_val.clone())?;
            math::MatMul::new()
                .transpose_a(ta)
                .transpose_b(tb)
                .build(&a, b)
        });
    }
}

#[test]
fn reductions() {
    check(&[2, 3, 2], vals(&[2, 3, 2], 1), |x| {
        Reduce::sum().axis(1).build(x)
    });
    check(&[2, 3, 2], vals(&[2, 3, 2], 1), |x| {
        Reduce::sum().axis(-1).keep_dims(true).build(x)
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        math::reduce_sum(x, math::Axes::All)
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        Reduce::mean().axis(0).build(x)
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        Reduce::max().axis(1).build(x)
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        Reduce::min().axis(0).build(x)
    });
}

#[test]
fn array_ops() {
    check(&[2, 3], vals(&[2, 3], 1), |x| array::reshape(x, [3, 2]));
    check(&[2, 3], vals(&[2, 3], 1), |x| array::transpose(x, [1, 0]));
    check(&[2, 3], vals(&[2, 3], 1), |x| array::expand_dims(x, 1));
    check(&[2, 1, 3], vals(&[2, 1, 3], 1), |x| array::squeeze(x, &[1]));
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        let o = constant(x.graph(), vals(&[2, 2], 5))?;
        array::concat(&[x.clone(), o], 1)
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        let o = constant(x.graph(), vals(&[2, 3], 5))?;
        array::stack(&[x.clone(), o, x.clone()], 0)
    });
    check(&[3, 2], vals(&[3, 2], 1), |x| {
        let parts = array::unstack(x, None, 0)?;
        math::mul(&parts[0], &parts[2])
    });
    check(&[4, 3], vals(&[4, 3], 1), |x| {
        array::slice(x, [1, 0], [2, 2])
    });
    check(&[4, 3], vals(&[4, 3], 1), |x| {
        let idx = constant(x.graph(), Tensor::from(vec![2i32, 0, 2]))?;
        array::gather(x, &idx, 0)
    });
    // TensorFlow 1's Gather (no axis input), with a matrix of indices.
    check(&[4, 3], vals(&[4, 3], 1), |x| {
        let idx = constant(x.graph(), Tensor::from_vec(&[2, 2], vec![3i32, 0, 3, 1])?)?;
        x.graph()
            .new_operation("Gather")
            .input(x)
            .input(&idx)
            .build()?
            .output(0)
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| array::tile(x, [2, 1]));
    // dynamic_stitch: x's rows go to rows 3 and 0 of the merged tensor, squared so each entry's
    // gradient depends on its value.
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        let g = x.graph();
        let merged = weir_ops::data_flow::dynamic_stitch(
            &[
                constant(g, Tensor::from(vec![3i32, 0]))?,
                constant(g, Tensor::from(vec![1i32, 2]))?,
            ],
            &[x.clone(), constant(g, vals(&[2, 3], 5))?],
        )?;
        math::mul(&merged, &merged)
    });
    // dynamic_partition: rows 0 and 2 to partition 1 (squared), row 1 to partition 0, which
    // nothing uses (its gradient is zero).
    check(&[3, 2], vals(&[3, 2], 1), |x| {
        let g = x.graph();
        let parts = weir_ops::data_flow::dynamic_partition(
            x,
            constant(g, Tensor::from(vec![1i32, 0, 1]))?,
            2,
        )?;
        math::mul(&parts[1], &parts[1])
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        array::pad(x, &[[1, 0], [0, 2]])
    });
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        let parts = array::split(x, 3, 1)?;
        math::add(&parts[0], &math::mul(&parts[2], &parts[2])?)
    });
}

#[test]
fn nn_ops() {
    check(&[2, 3], vals(&[2, 3], 1), |x| nn::relu(x));
    check(&[2, 3], vals(&[2, 3], 1), |x| nn::softmax(x));
    check(&[2, 3], vals(&[2, 3], 1), |x| nn::log_softmax(x));
    check(&[2, 3], vals(&[2, 3], 1), |x| nn::l2_loss(x));
    check(&[2, 3], vals(&[2, 3], 1), |x| {
        let b = constant(x.graph(), vals(&[3], 4))?;
        nn::bias_add(x, &b)
    });
    check(&[3], vals(&[3], 1), |b| {
        let x = constant(b.graph(), vals(&[2, 3], 4))?;
        nn::bias_add(&x, b)
    });
    // Explicit padding: conv2d and depthwise (zeros in the padding), max_pool (the padding
    // ignored).
    let pads = [[0, 0], [1, 2], [2, 0], [0, 0]];
    check(&[1, 4, 5, 2], vals(&[1, 4, 5, 2], 1), |x| {
        let w = constant(x.graph(), vals(&[3, 3, 2, 2], 3))?;
        nn::Conv2D::new([1, 2, 2, 1], nn::Padding::Valid)
            .explicit_paddings(pads)
            .build(x, &w)
    });
    check(&[3, 3, 2, 2], vals(&[3, 3, 2, 2], 1), |w| {
        let x = constant(w.graph(), vals(&[1, 4, 5, 2], 3))?;
        nn::Conv2D::new([1, 2, 2, 1], nn::Padding::Valid)
            .explicit_paddings(pads)
            .build(&x, w)
    });
    check(&[1, 4, 5, 2], vals(&[1, 4, 5, 2], 1), |x| {
        let w = constant(x.graph(), vals(&[3, 3, 2, 2], 3))?;
        nn::DepthwiseConv2dNative::new([1, 2, 2, 1], nn::Padding::Valid)
            .explicit_paddings(pads)
            .build(x, &w)
    });
    check(&[3, 3, 2, 2], vals(&[3, 3, 2, 2], 1), |w| {
        let x = constant(w.graph(), vals(&[1, 4, 5, 2], 3))?;
        nn::DepthwiseConv2dNative::new([1, 2, 2, 1], nn::Padding::Valid)
            .explicit_paddings(pads)
            .build(&x, w)
    });
    check(&[1, 4, 5, 2], vals(&[1, 4, 5, 2], 1), |x| {
        nn::MaxPool::new([1, 3, 3, 1], [1, 2, 2, 1], nn::Padding::Valid)
            .explicit_paddings(pads)
            .build(x)
    });
    // NCHW: the bias along dimension 1, its gradient summed over the batch and the rest.
    check(&[2, 3, 2], vals(&[2, 3, 2], 1), |x| {
        let b = constant(x.graph(), vals(&[3], 4))?;
        nn::BiasAdd::new().data_format("NCHW").build(x, &b)
    });
    check(&[3], vals(&[3], 1), |b| {
        let x = constant(b.graph(), vals(&[2, 3, 2, 2], 4))?;
        nn::BiasAdd::new().data_format("NCHW").build(&x, b)
    });
    check(&[2, 3], vals(&[2, 3], 1), |logits| {
        let labels = constant(logits.graph(), Tensor::from(vec![2i64, 0]))?;
        nn::sparse_softmax_cross_entropy_with_logits(&labels, logits)
    });
    check(&[2, 3], vals(&[2, 3], 1), |logits| {
        let labels = constant(
            logits.graph(),
            Tensor::from_vec(&[2, 3], vec![0.2f64, 0.3, 0.5, 1.0, 0.0, 0.0]).unwrap(),
        )?;
        nn::softmax_cross_entropy_with_logits(&labels, logits)
    });
    check(&[2, 3], vals(&[2, 3], 1), |logits| {
        let labels = constant(
            logits.graph(),
            Tensor::from_vec(&[2, 3], vec![0.0f64, 1.0, 0.5, 1.0, 0.0, 0.2]).unwrap(),
        )?;
        nn::sigmoid_cross_entropy_with_logits(&labels, logits)
    });
}

#[test]
fn cast_passes_gradients_between_floats_only() -> Result<()> {
    // Central differences through float32 are too coarse for the 1e-6 check: compare exactly.
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(&[3]))?;
    let y = math::mul(&math::cast(&math::cast(&x, DType::F32)?, DType::F64)?, &x)?;
    let through_int = math::cast(&math::cast(&x, DType::I32)?, DType::F64)?;
    let grads = gradients(&[y, through_int], std::slice::from_ref(&x), None)?;
    let sess = Session::new(&g)?;
    let out = sess.run(
        &RunArgs::new()
            .feed(&x, Tensor::from(vec![1.0f64, 2.0, -3.0]))
            .fetch(grads[0].as_ref().unwrap()),
    )?;
    // d(x*x)/dx = 2x; the integer path contributes nothing.
    assert_eq!(out[0].to_vec::<f64>()?, vec![2.0, 4.0, -6.0]);
    Ok(())
}

#[test]
fn fan_out_sums_and_stop_gradient_blocks() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::scalar())?;
    let y = math::add(&math::mul(&x, &x)?, &x)?; // y = x^2 + x, dy/dx = 2x + 1
    let stopped = math::add(&array::stop_gradient(&math::mul(&x, &x)?)?, &x)?;
    let unrelated = placeholder(&g, DType::F64, Shape::scalar())?;
    let grads = gradients(
        &[y.clone(), stopped.clone()],
        &[x.clone(), unrelated.clone()],
        None,
    )?;
    assert!(grads[1].is_none(), "no path from unrelated");
    let sess = Session::new(&g)?;
    let out = sess.run(
        &RunArgs::new()
            .feed(&x, 3.0f64)
            .fetch(grads[0].as_ref().unwrap()),
    )?;
    // (2*3 + 1) from y plus 1 from stopped.
    assert_eq!(out[0].to_scalar::<f64>()?, 8.0);
    Ok(())
}

#[test]
fn a_missing_gradient_names_the_op() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::known(&[3]))?;
    // TensorFlow registers no gradient for Unique either.
    let (y, _) = array::unique(&x)?;
    let e = gradients(&[y], &[x], None).unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(
        e.message().contains("No gradient defined for operation"),
        "{e}"
    );
    assert!(e.message().contains("Unique"), "{e}");
    Ok(())
}

#[test]
fn lrn_values_and_gradient() -> Result<()> {
    // TensorFlow's formula by hand: radius 1, bias 2, alpha 0.5, beta 0.75 on one row.
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[1, 1, 1, 3], vec![1.0f64, 2.0, 3.0])?)?;
    let y = nn::Lrn::new()
        .depth_radius(1)
        .bias(2.0)
        .alpha(0.5)
        .beta(0.75)
        .build(&x)?;
    let got = Session::new(&g)?.eval(&y)?.to_vec::<f64>()?;
    let sums = [1.0 + 4.0, 1.0 + 4.0 + 9.0, 4.0 + 9.0];
    for (i, (v, s)) in [1.0f64, 2.0, 3.0].iter().zip(sums).enumerate() {
        let want = v / (2.0f64 + 0.5 * s).powf(0.75);
        assert!((got[i] - want).abs() < 1e-12, "{i}: {} vs {want}", got[i]);
    }
    // Defaults (radius 5 spans the whole depth here) and the gradient, numerically.
    check(&[2, 2, 3, 4], vals(&[2, 2, 3, 4], 5), |x| nn::lrn(x));
    check(&[1, 3, 2, 7], vals(&[1, 3, 2, 7], 6), |x| {
        nn::Lrn::new()
            .depth_radius(2)
            .bias(1.5)
            .alpha(0.3)
            .beta(0.6)
            .build(x)
    });
    Ok(())
}

/// TensorFlow 2.21's tf.gradients of sum(dynamic_partition(x * x, [1, 0, 1], 2)[1] * w) for
/// x = [[1, 2], [3, 4], [5, 6]] and w = [[1, 2], [3, 4]]: [[2, 8], [0, 0], [30, 48]].
#[test]
fn dynamic_partition_gradient_is_tensorflows() -> Result<()> {
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[3, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?,
    )?;
    let sq = math::mul(&x, &x)?;
    let parts = weir_ops::data_flow::dynamic_partition(
        &sq,
        constant(&g, Tensor::from(vec![1i32, 0, 1]))?,
        2,
    )?;
    let w = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?)?;
    let loss = math::reduce_sum(&math::mul(&parts[1], &w)?, [0, 1])?;
    let grad = gradients(&[loss], &[x], None)?.remove(0).unwrap();
    let got = Session::new(&g)?.eval(&grad)?;
    assert_eq!(got.to_vec::<f32>()?, [2.0, 8.0, 0.0, 0.0, 30.0, 48.0]);
    Ok(())
}

/// TopKV2's gradient against central differences (distinct values, so a probe reorders
/// nothing), for static and unknown input shapes, k = 0 and k = the row length; and with ties,
/// TensorFlow 2.21's tf.gradients of sum(top_k(x, 3).values * [[1, 2, 3], [4, 5, 6]]) at
/// x = [[1, 3, 2, 3, 0], [5, 4, 5, 4, 5]]: [[0, 1, 3, 2, 0], [4, 0, 5, 0, 6]] sorted and
/// [[0, 3, 1, 2, 0], [5, 0, 6, 0, 4]] with sorted=False.
#[test]
fn top_k_gradient() -> Result<()> {
    let cases: [(&[usize], i32, bool); 6] = [
        (&[3, 5], 2, true),
        (&[2, 2, 4], 4, true),
        (&[6], 3, false),
        (&[2, 3], 1, true),
        (&[2, 3], 0, true),
        (&[4, 9], 5, false),
    ];
    for (shape, k, sorted) in cases {
        check(shape, vals(shape, 3), |x| Ok(nn::top_k(x, k, sorted)?.0));
    }
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::unknown())?;
    let y = nn::top_k(&x, 2, true)?.0;
    let err = gradient_error(&x, &vals(&[2, 2, 3], 5), &y, &[])?;
    assert!(err < 1e-6, "gradient error {err} with an unknown shape");

    for (sorted, want) in [
        (true, [0.0, 1.0, 3.0, 2.0, 0.0, 4.0, 0.0, 5.0, 0.0, 6.0]),
        (false, [0.0, 3.0, 1.0, 2.0, 0.0, 5.0, 0.0, 6.0, 0.0, 4.0]),
    ] {
        let g = Graph::new();
        let x = constant(
            &g,
            Tensor::from_vec(&[2, 5], vec![1.0f64, 3., 2., 3., 0., 5., 4., 5., 4., 5.])?,
        )?;
        let (values, indices) = nn::top_k(&x, 3, sorted)?;
        let w = constant(
            &g,
            Tensor::from_vec(&[2, 3], vec![1.0f64, 2., 3., 4., 5., 6.])?,
        )?;
        let loss = math::reduce_sum(&math::mul(&values, &w)?, [0, 1])?;
        let grads = gradients(&[loss], std::slice::from_ref(&x), None)?;
        let dx = grads[0].clone().expect("x feeds the loss");
        assert_eq!(dx.shape(), Shape::known(&[2, 5]));
        let got = Session::new(&g)?.eval(&dx)?;
        assert_eq!(got.to_vec::<f64>()?, want);
        // The indices output carries no gradient.
        let none = gradients(&[math::cast(&indices, DType::F64)?], &[x], None)?;
        assert!(none[0].is_none());
    }
    Ok(())
}

/// AvgPool's gradient (and AvgPoolGrad's, TensorFlow's `_AvgPoolGradGrad`) against central
/// differences: SAME and VALID, strides larger than the window, batch and depth > 1. A SAME
/// window longer than the input is left out: there TensorFlow's AvgPoolGrad kernel, which weir
/// reproduces, is not the derivative of AvgPool (the values below show it). Then TensorFlow
/// 2.21's tf.gradients values, float32: of sum(avg_pool(x) * w) for x = w = 1..9 as
/// [1, 3, 3, 1], 2x2 SAME stride 1: [0.25, 0.75, 2, 1.25, 3, 6.25, 4.5, 9.75, 17.25]; and of
/// sum(AvgPoolGrad([1, 4, 1, 1], dy) * [1, 2, 3, 4]) with respect to dy, window 5 SAME:
/// [2, 2.5, 2.5, 3].
#[test]
fn avg_pool_gradient() -> Result<()> {
    let (same, valid) = (nn::Padding::Same, nn::Padding::Valid);
    let cases = [
        ([2usize, 5, 4, 3], [2i64, 2], [2i64, 2], valid),
        ([2, 5, 4, 3], [3, 2], [2, 1], same),
        ([1, 6, 5, 2], [2, 1], [3, 2], same),
        ([1, 7, 6, 2], [2, 2], [3, 4], valid),
        ([2, 3, 3, 1], [3, 3], [1, 1], same),
    ];
    for (shape, k, s, p) in cases {
        let (shape, k, s) = (&shape[..], [1, k[0], k[1], 1], [1, s[0], s[1], 1]);
        check(shape, vals(shape, 2), |x| nn::avg_pool(x, k, s, p));
        // The gradient of AvgPoolGrad with respect to its incoming gradient.
        let g = Graph::new();
        let probe = placeholder(&g, DType::F64, Shape::known(shape))?;
        let ys = nn::avg_pool(&probe, k, s, p)?.shape().to_known().unwrap();
        let dims: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
        check(&ys, vals(&ys, 4), |dy| {
            let orig = constant(dy.graph(), Tensor::from(dims.clone()))?;
            nn::avg_pool_grad(&orig, dy, k, s, p)
        });
    }
    // An unknown static shape takes the Shape op path.
    let g = Graph::new();
    let x = placeholder(&g, DType::F64, Shape::unknown())?;
    let y = nn::avg_pool(&x, [1, 2, 2, 1], [1, 1, 1, 1], same)?;
    let err = gradient_error(&x, &vals(&[2, 3, 4, 2], 5), &y, &[])?;
    assert!(err < 1e-6, "gradient error {err} with an unknown shape");

    let g = Graph::new();
    let nine = Tensor::from_vec(&[1, 3, 3, 1], (1..=9).map(|v| v as f32).collect())?;
    let x = constant(&g, nine.clone())?;
    let y = nn::avg_pool(&x, [1, 2, 2, 1], [1, 1, 1, 1], same)?;
    let loss = math::reduce_sum(&math::mul(&y, &constant(&g, nine)?)?, [0, 1, 2, 3])?;
    let dx = gradients(&[loss], &[x], None)?.remove(0).unwrap();
    assert_eq!(dx.op().op_type(), "AvgPoolGrad");
    assert_eq!(dx.shape(), Shape::known(&[1, 3, 3, 1]));
    let got = Session::new(&g)?.eval(&dx)?.to_vec::<f32>()?;
    assert_eq!(got, [0.25, 0.75, 2.0, 1.25, 3.0, 6.25, 4.5, 9.75, 17.25]);

    let g = Graph::new();
    let four = |v: Vec<f32>| Tensor::from_vec(&[1, 4, 1, 1], v);
    let dy = constant(&g, four(vec![1.0, 2.0, 3.0, 4.0])?)?;
    let orig = constant(&g, Tensor::from(vec![1i32, 4, 1, 1]))?;
    let dx = nn::avg_pool_grad(&orig, &dy, [1, 5, 1, 1], [1, 1, 1, 1], same)?;
    let w = constant(&g, four(vec![1.0, 2.0, 3.0, 4.0])?)?;
    let loss = math::reduce_sum(&math::mul(&dx, &w)?, [0, 1, 2, 3])?;
    let grads = gradients(&[loss], &[orig, dy], None)?;
    assert!(grads[0].is_none(), "the int32 shape gets no gradient");
    let ddy = grads[1].clone().unwrap();
    assert_eq!(ddy.op().op_type(), "AvgPool");
    let got = Session::new(&g)?.eval(&ddy)?.to_vec::<f32>()?;
    assert_eq!(got, [2.0, 2.5, 2.5, 3.0]);
    Ok(())
}

#[test]
fn scatter_nd_gradient() {
    // Duplicate coordinates and 2-D slices: each update row gets the gradient at its row.
    check(&[3, 2], vals(&[3, 2], 1), |u| {
        let g = u.graph();
        let i = constant(g, Tensor::from_vec(&[3, 1], vec![2, 0, 2])?)?;
        array::scatter_nd(&i, u, constant(g, Tensor::from(vec![4, 2]))?)
    });
}

#[test]
fn segment_sum_gradient() {
    check(&[5, 2], vals(&[5, 2], 2), |x| {
        math::segment_sum(x, constant(x.graph(), Tensor::from(vec![0, 0, 2, 3, 3]))?)
    });
}

#[test]
fn segment_mean_gradient() {
    check(&[5, 2], vals(&[5, 2], 3), |x| {
        math::segment_mean(
            x,
            constant(x.graph(), Tensor::from(vec![0i64, 0, 2, 3, 3]))?,
        )
    });
}

#[test]
fn segment_max_min_gradient() {
    // Distinct values, so no ties sit on the central-difference step.
    for max in [true, false] {
        check(&[5, 2], vals(&[5, 2], 4), |x| {
            let ids = constant(x.graph(), Tensor::from(vec![0, 0, 0, 2, 2]))?;
            if max {
                math::segment_max(x, ids)
            } else {
                math::segment_min(x, ids)
            }
        });
    }
}

/// FusedBatchNormV3's gradient (TensorFlow's `_FusedBatchNormV3Grad`, one FusedBatchNormGradV3
/// node) against central differences, in training (through the batch statistics) and in
/// inference, with respect to x, scale and offset. The op is float32 only, as on TensorFlow's
/// CPU, so the differences use float32's step (1e-3) and a looser tolerance. mean and variance
/// get no gradient in either mode.
#[test]
fn fused_batch_norm_gradient() -> Result<()> {
    let f32s = |t: Tensor| -> Result<Tensor> {
        let v = t.to_vec::<f64>()?.iter().map(|&v| v as f32).collect();
        Tensor::from_vec(t.shape(), v)
    };
    let x_shape = [2usize, 3, 2, 3];
    for training in [true, false] {
        for wrt in 0..3 {
            let g = Graph::new();
            let consts = [
                f32s(vals(&x_shape, 1))?,
                f32s(positive(&[3], 2))?,
                f32s(vals(&[3], 3))?,
            ];
            let shapes: [&[usize]; 3] = [&x_shape, &[3], &[3]];
            let probe = placeholder(&g, DType::F32, Shape::known(shapes[wrt]))?;
            let arg = |i: usize| -> Result<Output> {
                if i == wrt {
                    Ok(probe.clone())
                } else {
                    constant(&g, consts[i].clone())
                }
            };
            let mean = constant(&g, Tensor::from(vec![0.1f32, -0.2, 0.3]))?;
            let var = constant(&g, Tensor::from(vec![0.5f32, 2.0, 1.0]))?;
            let (y, _, _) = nn::fused_batch_norm(
                arg(0)?,
                arg(1)?,
                arg(2)?,
                Some(mean.clone()),
                Some(var.clone()),
                0.001,
                training,
            )?;
            let err = gradient_error(&probe, &consts[wrt], &y, &[])?;
            assert!(
                err < 1e-2,
                "gradient error {err} (training {training}, input {wrt})"
            );
            let grads = gradients(std::slice::from_ref(&y), &[mean, var], None)?;
            assert!(grads.iter().all(Option::is_none));
            let d = gradients(&[y], std::slice::from_ref(&probe), None)?.remove(0);
            assert_eq!(d.unwrap().op().op_type(), "FusedBatchNormGradV3");
        }
    }
    Ok(())
}

/// The gradients of `Sqrt`, `Rsqrt`, `Tanh` and `Sigmoid` of real tensors are TensorFlow's fused
/// ops (`_SqrtGrad` ... in math_grad.py); complex ones, which weir's fused kernels do not take,
/// are built from `Mul` and `Sub` and still match a numeric gradient.
#[test]
fn activation_gradients_use_the_fused_ops() -> Result<()> {
    type Unary = fn(Output) -> Result<Output>;
    let ops: [(Unary, &str); 4] = [
        (|x| math::sqrt(x), "SqrtGrad"),
        (|x| math::rsqrt(x), "RsqrtGrad"),
        (|x| math::tanh(x), "TanhGrad"),
        (|x| math::sigmoid(x), "SigmoidGrad"),
    ];
    for (f, fused) in ops {
        for dtype in [DType::F32, DType::F64, DType::F16, DType::BF16] {
            let g = Graph::new();
            let x = placeholder(&g, dtype, Shape::known(&[3]))?;
            let y = f(x.clone())?;
            let d = gradients(&[y], &[x], None)?.remove(0).unwrap();
            assert_eq!(d.op().op_type(), fused, "{dtype}");
        }
        let g = Graph::new();
        let x = placeholder(&g, DType::C64, Shape::known(&[3]))?;
        let d = gradients(&[f(x.clone())?], &[x], None)?.remove(0).unwrap();
        assert_ne!(d.op().op_type(), fused, "complex64");
        // The fused op's value is the derivative, as a numeric gradient shows.
        let g = Graph::new();
        let x = placeholder(&g, DType::F64, Shape::known(&[3]))?;
        let y = f(x.clone())?;
        let err = gradient_error(&x, &Tensor::from(vec![0.25f64, 0.5, 2.0]), &y, &[])?;
        assert!(err < 1e-6, "{fused}: gradient error {err}");
    }
    Ok(())
}
