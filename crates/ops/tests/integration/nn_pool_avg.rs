//! avg_pool and AvgPoolGrad in a session against TensorFlow 2.21: float32 values bit for bit,
//! static shapes, and every error in TensorFlow's words at the stage TensorFlow reports it.
//!
//! Every expected value and message below came from TensorFlow 2.21 on CPU (`tf.nn.avg_pool`,
//! `tf.gradients` and `gen_nn_ops.avg_pool_grad` in a `tf.compat.v1` Session) on the same
//! inputs, except the one case marked where TensorFlow aborts.

use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{self, AvgPool, Padding};
use weir_session::Session;

use crate::grad_check::{check_grad, run1};

const SAME: Padding = Padding::Same;
const VALID: Padding = Padding::Valid;
const INVALID: Code = Code::InvalidArgument;
const UNIMPLEMENTED: Code = Code::Unimplemented;

/// The inputs the TensorFlow runs used: `np.float32` of a float64 formula, rounded alike.
fn seq(dims: &[usize], salt: usize) -> Vec<f64> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|i| ((i * 37 + salt * 11) % 97) as f64 / 97.0 * 4.0 - 2.0 + 0.013 * i as f64)
        .collect()
}

fn seq32(dims: &[usize], salt: usize) -> Tensor {
    Tensor::from_vec(dims, seq(dims, salt).iter().map(|&v| v as f32).collect()).unwrap()
}

/// 1, 2, 3, ... as float32.
fn count(dims: &[usize]) -> Tensor {
    let n: usize = dims.iter().product();
    Tensor::from_vec(dims, (1..=n).map(|v| v as f32).collect()).unwrap()
}

/// A run's result: the static shape, the value's shape and the value's bits.
type Got = (Shape, Vec<usize>, Vec<u32>);

fn spatial(k: [i64; 2]) -> [i64; 4] {
    [1, k[0], k[1], 1]
}

fn eval(g: &Graph, y: &Output) -> Result<Got> {
    let v = Session::new(g)?.eval(y)?;
    let bits = v.to_vec::<f32>()?.iter().map(|v| v.to_bits()).collect();
    Ok((y.shape(), v.shape().to_vec(), bits))
}

/// Checks a static shape, the run's shape and TensorFlow's float32 values (as numpy prints
/// them: shortest round-trip decimals) bit for bit.
fn is(got: Got, dims: &[usize], want: &str) {
    let want: Vec<u32> = want
        .split_whitespace()
        .map(|v| v.parse::<f32>().unwrap().to_bits())
        .collect();
    assert_eq!(got, (Shape::known(dims), dims.to_vec(), want));
}

/// `tf.nn.avg_pool` of a constant `x` with window `[1, k, 1]` and strides `[1, s, 1]`.
fn pool(x: Tensor, k: [i64; 2], s: [i64; 2], p: Padding) -> Result<Got> {
    let g = Graph::new();
    let y = nn::avg_pool(constant(&g, x)?, spatial(k), spatial(s), p)?;
    eval(&g, &y)
}

/// `AvgPoolGrad` of a constant input shape `xd` and incoming gradient `dy`.
fn grad(xd: &[usize], k: [i64; 2], s: [i64; 2], p: Padding, dy: Tensor) -> Result<Got> {
    let g = Graph::new();
    let shape = constant(
        &g,
        Tensor::from(xd.iter().map(|&d| d as i32).collect::<Vec<_>>()),
    )?;
    let dx = nn::avg_pool_grad(shape, constant(&g, dy)?, spatial(k), spatial(s), p)?;
    eval(&g, &dx)
}

#[test]
fn float32_values_are_tensorflows_bit_for_bit() -> Result<()> {
    let y = pool(count(&[1, 3, 3, 1]), [2, 2], [1, 1], SAME)?;
    is(y, &[1, 3, 3, 1], "3.0 4.0 4.5 6.0 7.0 7.5 7.5 8.5 9.0");
    let y = pool(count(&[1, 4, 4, 1]), [2, 2], [2, 2], VALID)?;
    is(y, &[1, 2, 2, 1], "3.5 5.5 11.5 13.5");
    // Strides larger than the window skip rows and columns.
    let y = pool(count(&[1, 5, 5, 1]), [2, 1], [3, 2], VALID)?;
    is(y, &[1, 2, 3, 1], "3.5 5.5 7.5 18.5 20.5 22.5");
    let y = pool(count(&[1, 5, 5, 1]), [2, 1], [3, 2], SAME)?;
    is(y, &[1, 2, 3, 1], "3.5 5.5 7.5 18.5 20.5 22.5");
    is(
        pool(count(&[1, 5, 5, 1]), [1, 1], [7, 7], SAME)?,
        &[1, 1, 1, 1],
        "1.0",
    );
    // Windows larger than the input: the padding is never counted.
    let y = pool(count(&[1, 2, 3, 1]), [4, 5], [1, 1], SAME)?;
    is(y, &[1, 2, 3, 1], "3.5 3.5 3.5 3.5 3.5 3.5");
    is(
        pool(count(&[1, 2, 3, 1]), [4, 5], [2, 2], SAME)?,
        &[1, 1, 2, 1],
        "3.5 3.5",
    );
    let y = pool(count(&[1, 4, 1, 1]), [5, 1], [1, 1], SAME)?;
    is(y, &[1, 4, 1, 1], "2.0 2.5 2.5 3.0");
    // Batch 2, depth 3, sums that round.
    let y = pool(seq32(&[2, 4, 5, 3], 1), [3, 2], [2, 1], SAME)?;
    is(y, &[2, 2, 5, 3], BATCH_DEPTH_SAME);
    let y = pool(seq32(&[2, 4, 5, 3], 2), [3, 3], [1, 2], VALID)?;
    is(y, &[2, 2, 2, 3], BATCH_DEPTH_VALID);
    Ok(())
}

#[test]
fn float64_values_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let dims = [2, 3, 4, 2];
    let x = constant(&g, Tensor::from_vec(&dims, seq(&dims, 5))?)?;
    let y = AvgPool::new([1, 2, 3, 1], [1, 2, 1, 1], SAME).build(&x)?;
    let got = Session::new(&g)?.eval(&y)?;
    assert_eq!(got.shape(), [2, 2, 4, 2]);
    let want = [
        -0.03809278350515466,
        0.5006804123711339,
        -0.499319587628866,
        0.3727869415807559,
        -0.08843986254295537,
        0.11699999999999998,
        0.11699999999999994,
        -0.3442268041237114,
        0.4271855670103092,
        -0.03404123711340212,
        -0.03404123711340216,
        0.17139862542955311,
        0.37683848797250863,
        0.5822783505154637,
        0.582278350515464,
        0.12105154639175245,
        0.8924639175257731,
        0.43123711340206183,
        0.43123711340206183,
        0.6366769759450172,
        -0.49121649484536084,
        1.0475567010309277,
        -0.9524432989690723,
        0.5863298969072165,
        1.357742268041237,
        0.8965154639175257,
        0.8965154639175257,
        1.1019553264604809,
        -0.025938144329896978,
        1.5128350515463918,
        -0.48716494845360836,
        1.0516082474226804,
    ];
    assert_eq!(got.to_vec::<f64>()?, want);
    Ok(())
}

#[test]
fn gradient_values_are_tensorflows_bit_for_bit() -> Result<()> {
    let dx = grad(&[1, 3, 3, 1], [2, 2], [1, 1], SAME, count(&[1, 3, 3, 1]))?;
    is(
        dx,
        &[1, 3, 3, 1],
        "0.25 0.75 2.0 1.25 3.0 6.25 4.5 9.75 17.25",
    );
    let dx = grad(&[1, 5, 5, 1], [2, 1], [3, 2], VALID, count(&[1, 2, 3, 1]))?;
    let want = "0.5 0 1 0 1.5 0.5 0 1 0 1.5 0 0 0 0 0 2 0 2.5 0 3 2 0 2.5 0 3";
    is(dx, &[1, 5, 5, 1], want);
    let dx = grad(&[1, 2, 3, 1], [4, 5], [1, 1], SAME, count(&[1, 2, 3, 1]))?;
    is(dx, &[1, 2, 3, 1], "3.5 3.5 3.5 3.5 3.5 3.5");
    // TensorFlow's GetBroadcastSize quirk: the first rows of a SAME window longer than the
    // input spread over 4 rows where the forward pass averaged 3 (the derivative of AvgPool is
    // 1.5833334 2.9166667 2.9166667 2.5833333).
    let dx = grad(&[1, 4, 1, 1], [5, 1], [1, 1], SAME, count(&[1, 4, 1, 1]))?;
    is(dx, &[1, 4, 1, 1], "1.5 2.8333335 2.8333335 2.8333335");
    let dx = grad(&[2, 4, 5, 3], [3, 2], [2, 1], SAME, seq32(&[2, 2, 5, 3], 3))?;
    is(dx, &[2, 4, 5, 3], BATCH_DEPTH_SAME_GRAD);
    Ok(())
}

#[test]
fn backward_kernel_matches_central_differences() -> Result<()> {
    // Every geometry but a SAME window longer than the input, where TensorFlow's kernel (and so
    // weir's) departs from the derivative (the quirk case above).
    for (xd, k, s, padding) in [
        ([2usize, 5, 4, 3], [2, 2], [2, 2], VALID),
        ([2, 5, 4, 3], [3, 2], [2, 1], SAME),
        ([1, 6, 5, 2], [2, 1], [3, 2], SAME),
        ([1, 3, 3, 2], [3, 3], [1, 1], SAME),
    ] {
        let (k, s) = (spatial(k), spatial(s));
        let g = Graph::new();
        let x = placeholder(&g, DType::F64, Shape::known(&xd))?;
        let y = nn::avg_pool(&x, k, s, padding)?;
        let yd = y.shape().to_known().unwrap();
        let dy_v = seq(&yd, 4);
        let dy = constant(&g, Tensor::from_vec(&yd, dy_v.clone())?)?;
        let shape: Vec<i32> = xd.iter().map(|&d| d as i32).collect();
        let dx = nn::avg_pool_grad(constant(&g, Tensor::from(shape))?, &dy, k, s, padding)?;
        let sess = Session::new(&g)?;
        let x0 = Tensor::from_vec(&xd, seq(&xd, 6))?;
        check_grad(&sess, &x, &x0, &y, &dy_v, &dx, &[])?;
    }
    Ok(())
}

/// An AvgPool or AvgPoolGrad node with raw attributes, as a GraphDef could hold them.
fn raw(g: &Graph, op: &str, inputs: &[&Output], attrs: (&[i64], &[i64], &str, &str)) -> Output {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(op);
    for i in inputs {
        b = b.input(*i);
    }
    let (ksize, strides, padding, format) = attrs;
    b.attr("ksize", ksize.to_vec())
        .attr("strides", strides.to_vec())
        .attr("padding", padding)
        .attr("data_format", format)
        .build()
        .and_then(|op| op.output(0))
        .unwrap()
}

/// The code and message of a failed build.
fn failure(r: Result<Output>) -> (Code, String) {
    let e = r.unwrap_err();
    (e.code(), e.message().to_string())
}

#[test]
fn build_time_errors_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let x = constant(&g, count(&[1, 4, 4, 1]))?;
    let ap = |k: &[i64], s: &[i64], p: &str, f: &str| {
        weir_ops::register_all_ops();
        g.new_operation("AvgPool")
            .input(x.clone())
            .attr("ksize", k.to_vec())
            .attr("strides", s.to_vec())
            .attr("padding", p)
            .attr("data_format", f)
            .build()?
            .output(0)
    };
    let (k, one) = ([1, 2, 2, 1], [1, 1, 1, 1]);
    let got: Vec<(Code, String)> = [
        ap(&[1, 2, 2], &one, "SAME", "NHWC"),
        ap(&k, &[1, 1, 1], "SAME", "NHWC"),
        ap(&k, &one, "EXPLICIT", "NHWC"),
        ap(&k, &one, "SAME", "NCDHW"),
        ap(&[1, 2, 2, 1, 1], &one, "SAME", "NHWC"),
        // Strides are read first.
        ap(&[1, 2, 2, 1, 1], &[1, 1, 1, 1, 1], "SAME", "NHWC"),
        ap(&[1, 1 << 32, 2, 1], &one, "SAME", "NHWC"),
        ap(&k, &[1, 0, 1, 1], "SAME", "NHWC"),
        ap(&k, &[1, 1, -1, 1], "VALID", "NHWC"),
        // Statically a VALID window longer than the input fails, even where a run gives 0.
        nn::avg_pool(&x, [1, 5, 2, 1], [1, 2, 2, 1], VALID),
    ]
    .into_iter()
    .map(failure)
    .collect();
    let want = [
        "Length for attr 'ksize' of 3 must be at least minimum 4",
        "Length for attr 'strides' of 3 must be at least minimum 4",
        "Value for attr 'padding' of \"EXPLICIT\" is not in the list of allowed values: \"SAME\", \"VALID\"",
        "Value for attr 'data_format' of \"NCDHW\" is not in the list of allowed values: \"NHWC\", \"NCHW\"",
        "AvgPool requires the ksize attribute to contain 4 values, but got: 5",
        "AvgPool requires the stride attribute to contain 4 values, but got: 5",
        "Attr ksize has value 4294967296 out of range for an int32",
        "Stride must be > 0, but got 0",
        "Stride must be > 0, but got -1",
        "Negative dimension size caused by subtracting 5 from 4",
    ];
    assert_eq!(got, want.map(|m| (INVALID, m.to_string())));
    let x3 = constant(&g, Tensor::from_vec(&[4, 4, 1], vec![0.0f32; 16])?)?;
    let (code, msg) = failure(nn::avg_pool(&x3, k, one, SAME));
    assert_eq!(code, INVALID);
    assert!(
        msg.starts_with("Shape must be rank 4 but is rank 3"),
        "{msg}"
    );
    let xi = constant(&g, Tensor::from_vec(&[1, 2, 2, 1], vec![0i32; 4])?)?;
    let (code, msg) = failure(nn::avg_pool(&xi, one, one, SAME));
    assert_eq!(code, INVALID);
    assert!(msg.contains("not in list of allowed values"), "{msg}");
    // The shape function checks neither the batch and depth entries nor the window's sign:
    // those fail when the kernel is made.
    let y = nn::avg_pool(&x, [2, 0, 2, 1], one, SAME)?;
    assert_eq!(y.shape(), Shape::known(&[1, 4, 4, 1]));
    let y = nn::avg_pool(&x, [1, 0, 2, 1], one, VALID)?;
    assert_eq!(y.shape(), Shape::known(&[1, 5, 3, 1]));
    // NCHW builds, with NCHW shapes.
    let y = raw(&g, "AvgPool", &[&x], (&k, &one, "VALID", "NCHW"));
    assert_eq!(y.shape(), Shape::known(&[1, 4, 3, 1]));
    let p = placeholder(
        &g,
        DType::F32,
        Shape::new(vec![None, Some(7), None, Some(3)]),
    )?;
    let y = nn::avg_pool(&p, [1, 2, 3, 1], [1, 2, 2, 1], VALID)?;
    assert_eq!(y.shape(), Shape::new(vec![None, Some(3), None, Some(3)]));

    // AvgPoolGrad: the output shape is the value of orig_input_shape.
    let dy = constant(&g, count(&[1, 2, 2, 1]))?;
    let grad = |s: Tensor| nn::avg_pool_grad(constant(&g, s)?, &dy, k, [1, 2, 2, 1], SAME);
    let (code, msg) = failure(grad(Tensor::from(vec![1i32, 4, 4])));
    assert_eq!(code, INVALID);
    assert!(
        msg.starts_with("Shape must be rank 4 but is rank 3"),
        "{msg}"
    );
    let (_, msg) = failure(grad(Tensor::from_vec(&[1, 4], vec![1i32, 4, 4, 1])?));
    assert!(
        msg.starts_with("Shape must be rank 1 but is rank 2"),
        "{msg}"
    );
    let (_, msg) = failure(grad(Tensor::from(vec![1i32, -4, 4, 1])));
    assert_eq!(msg, "Invalid value in tensor used for shape: -4");
    let (_, msg) = failure(grad(Tensor::from(vec![1i64, 4, 4, 1])));
    assert_eq!(
        msg,
        "Input 'orig_input_shape' of 'AvgPoolGrad' Op has type int64 that does not match expected type of int32."
    );
    let dyi = constant(&g, Tensor::from_vec(&[1, 2, 2, 1], vec![1i32; 4])?)?;
    let s = constant(&g, Tensor::from(vec![1i32, 4, 4, 1]))?;
    let (_, msg) = failure(nn::avg_pool_grad(&s, &dyi, k, k, SAME));
    assert!(msg.contains("not in list of allowed values"), "{msg}");
    let (_, msg) = failure(
        g.new_operation("AvgPoolGrad")
            .input(s.clone())
            .input(dy.clone())
            .attr("ksize", vec![1i64, 2, 2])
            .attr("strides", k.to_vec())
            .attr("padding", "SAME")
            .build()
            .and_then(|op| op.output(0)),
    );
    assert_eq!(
        msg,
        "Length for attr 'ksize' of 3 must be at least minimum 4"
    );
    let sp = placeholder(&g, DType::I32, Shape::known(&[4]))?;
    let y = nn::avg_pool_grad(&sp, &dy, k, k, SAME)?;
    assert_eq!(y.shape(), Shape::unknown_of_rank(4));
    Ok(())
}

#[test]
fn run_time_errors_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::unknown())?;
    let ap = |k: [i64; 4], s: [i64; 4], p: Padding| nn::avg_pool(&x, k, s, p).unwrap();
    let one = [1, 1, 1, 1];
    let (x1, x2) = (count(&[1, 4, 4, 1]), count(&[1, 4, 4, 2]));
    let batch = "Pooling is not yet supported on the batch dimension.";
    let cases = [
        (
            raw(&g, "AvgPool", &[&x], (&[2, 1, 2, 2], &one, "SAME", "NCHW")),
            x1.clone(),
        ),
        (ap([2, 0, 1, 1], one, SAME), x1.clone()),
        (ap([1, 2, 2, 1], [2, 1, 1, 1], SAME), x1.clone()),
        (ap([1, 0, 2, 1], one, SAME), x1.clone()),
        (ap([1, 2, 2, -3], one, VALID), x1.clone()),
        (ap(one, one, SAME), count(&[4, 4, 1])),
        (ap([1, 2, 2, 2], one, SAME), x2.clone()),
        (ap([1, 1, 1, 3], [1, 1, 1, 3], SAME), x2.clone()),
        (ap([1, 1, 1, 2], one, SAME), x2.clone()),
        (ap([1, 1, 1, 2], [1, 1, 1, 2], VALID), x2.clone()),
        (ap([1, 3, 2, 1], one, VALID), count(&[1, 1, 4, 1])),
    ];
    let sess = Session::new(&g)?;
    let got: Vec<(Code, String)> = cases
        .iter()
        .map(|(y, v)| {
            let e = run1(&sess, y, &[(&x, v)]).unwrap_err();
            (e.code(), e.message().to_string())
        })
        .collect();
    let want = [
        (INVALID, "Default AvgPoolingOp only supports NHWC on device type CPU"),
        (UNIMPLEMENTED, batch),
        (UNIMPLEMENTED, batch),
        (INVALID, "ksize must be a positive int32 value, got:0"),
        (INVALID, "ksize must be a positive int32 value, got:-3"),
        (INVALID, "tensor_in_shape must have 2 spatial dimensions. 3 0"),
        (UNIMPLEMENTED, "MaxPooling supports exactly one of pooling across depth or pooling across width/height."),
        (UNIMPLEMENTED, "Depthwise max pooling requires the depth window to evenly divide the input depth"),
        (UNIMPLEMENTED, "Depthwise max pooling requires the depth window to equal the depth stride"),
        (UNIMPLEMENTED, "Non-spatial pooling is not yet supported. Volunteers? :)"),
        (INVALID, "Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, stride: 1]"),
    ];
    assert_eq!(got, want.map(|(c, m)| (c, m.to_string())));
    // At run time a VALID window one longer than the input gives an empty output, and the
    // depth stride is ignored.
    let y = ap([1, 3, 2, 1], one, VALID);
    assert_eq!(
        run1(&sess, &y, &[(&x, &count(&[1, 2, 4, 1]))])?.shape(),
        [1, 0, 3, 1]
    );
    let y = ap([1, 2, 2, 1], [1, 1, 1, 2], SAME);
    let out = run1(&sess, &y, &[(&x, &x2)])?;
    assert_eq!(out.shape(), [1, 4, 4, 2]);
    assert_eq!(out.to_vec::<f32>()?[..4], [6.0, 7.0, 8.0, 9.0]);
    for (dims, want) in [([0, 3, 3, 2], [0, 3, 3, 2]), ([1, 0, 4, 1], [1, 0, 4, 1])] {
        let y = ap([1, 2, 2, 1], one, SAME);
        let out = run1(
            &sess,
            &y,
            &[(&x, &Tensor::from_vec(&dims, Vec::<f32>::new())?)],
        )?;
        assert_eq!(out.shape(), want);
    }
    let y = ap([1, 2, 2, 1], [1, 2, 2, 1], SAME);
    let out = run1(
        &sess,
        &y,
        &[(&x, &Tensor::from_vec(&[1, 4, 4, 0], Vec::<f32>::new())?)],
    )?;
    assert_eq!(out.shape(), [1, 2, 2, 0]);
    Ok(())
}

#[test]
fn gradient_run_time_errors_and_leniency_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    let s = placeholder(&g, DType::I32, Shape::unknown())?;
    let dy = placeholder(&g, DType::F32, Shape::unknown())?;
    let grad = |k: [i64; 4], st: [i64; 4], p: Padding| nn::avg_pool_grad(&s, &dy, k, st, p);
    let k2 = grad([1, 2, 2, 1], [1, 2, 2, 1], SAME)?;
    let dy22 = count(&[1, 2, 2, 1]);
    type Attrs<'a> = (&'a [i64], &'a [i64], &'a str, &'a str);
    let raw_grad = |attrs: Attrs| raw(&g, "AvgPoolGrad", &[&s, &dy], attrs);
    let cases = [
        (k2.clone(), vec![1, 4, 4], dy22.clone()),
        (k2.clone(), vec![1, 4, 4, 1], count(&[2, 2, 1])),
        (k2.clone(), vec![1, -4, 4, 1], dy22.clone()),
        (k2.clone(), vec![1, 4, 4, 1], count(&[2, 2, 2, 1])),
        (k2.clone(), vec![1, 4, 4, 1], count(&[1, 4, 2, 1])),
        // TensorFlow 2.21 aborts on a grad deeper than the input (heap corruption); weir
        // refuses it in the words of the check TensorFlow does make.
        (k2.clone(), vec![1, 2, 2, 1], count(&[1, 1, 1, 3])),
        (
            grad([1, 2, 2, 2], [1, 2, 2, 1], SAME)?,
            vec![1, 4, 4, 1],
            dy22.clone(),
        ),
        // The gradient's shape function does not read the strides.
        (
            grad([1, 2, 2, 1], [1, -1, 2, 1], SAME)?,
            vec![1, 4, 4, 1],
            dy22.clone(),
        ),
        (
            grad([2, 2, 2, 1], [1, 2, 2, 1], SAME)?,
            vec![1, 4, 4, 1],
            dy22.clone(),
        ),
        (
            raw_grad((&[1, 2, 2, 1], &[1, 2, 2, 1, 1], "SAME", "NHWC")),
            vec![1, 4, 4, 1],
            dy22.clone(),
        ),
        (
            raw_grad((&[1, 1, 2, 2], &[1, 1, 2, 2], "SAME", "NCHW")),
            vec![1, 1, 4, 4],
            dy22.clone(),
        ),
    ];
    let sess = Session::new(&g)?;
    let run = |y: &Output, sv: &[i32], dyv: &Tensor| {
        run1(&sess, y, &[(&s, &Tensor::from(sv.to_vec())), (&dy, dyv)])
    };
    let got: Vec<(Code, String)> = cases
        .iter()
        .map(|(y, sv, dyv)| {
            let e = run(y, sv, dyv).unwrap_err();
            (e.code(), e.message().to_string())
        })
        .collect();
    let over = |n, i| {
        format!("Output only has {n} elements but computation requested would use element with index={i}")
    };
    let want = [
        (
            INVALID,
            "out_backprop must be 1-dimensional and 4 elements".to_string(),
        ),
        (INVALID, "out_backprop must be 4-dimensional".to_string()),
        (INVALID, "Expected a non-negative size, got -4".to_string()),
        (INVALID, over(16, 21)),
        (
            INVALID,
            "index * stride must be less than or equal to input size".to_string(),
        ),
        (INVALID, over(4, 11)),
        (
            UNIMPLEMENTED,
            "Non-spatial pooling is not yet supported. Volunteers? :)".to_string(),
        ),
        (INVALID, "Stride must be > 0, but got -1".to_string()),
        (
            UNIMPLEMENTED,
            "Pooling is not yet supported on the batch dimension.".to_string(),
        ),
        (
            INVALID,
            "Sliding window strides field must specify 4 dimensions".to_string(),
        ),
        (
            INVALID,
            "Default AvgPoolingGradOp only supports NHWC on device type CPU".to_string(),
        ),
    ];
    assert_eq!(got, want);

    // What TensorFlow 2.21 accepts: a grad of the wrong shape, spread by its own geometry.
    let ones = |d: &[usize]| Tensor::from_vec(d, vec![1.0f32; d.iter().product()]).unwrap();
    let vals = |y: &Output, sv: &[i32], dyv: Tensor| run(y, sv, &dyv)?.to_vec::<f32>();
    let q = [0.25f32, 0.25, 0.5, 0.5, 0.25, 0.25, 0.5, 0.5];
    let got = vals(&k2, &[1, 4, 4, 1], count(&[1, 3, 2, 1]))?;
    assert_eq!(
        got,
        [&q[..], &[0.75, 0.75, 1.0, 1.0, 0.75, 0.75, 1.0, 1.0]].concat()
    );
    let got = vals(&k2, &[1, 2, 2, 3], ones(&[1, 1, 1, 1]))?;
    assert_eq!(
        got,
        [0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(run(&k2, &[0, 4, 4, 1], &dy22)?.shape(), [0, 4, 4, 1]);
    let y = grad([1, 0, 2, 1], [1, 2, 2, 1], SAME)?;
    assert_eq!(vals(&y, &[1, 4, 4, 1], dy22.clone())?, vec![0.0; 16]);
    let y = grad([1, 3, 3, 1], [1, 1, 1, 1], VALID)?;
    assert_eq!(
        vals(&y, &[1, 2, 2, 1], ones(&[1, 2, 2, 1]))?,
        [0.25, 0.75, 0.75, 2.25]
    );
    let y = grad([1, 1, 1, 1], [1, 7, 7, 1], SAME)?;
    let got = vals(&y, &[1, 5, 5, 1], ones(&[1, 1, 1, 1]))?;
    assert_eq!(got, [&[1.0f32][..], &[0.0; 24]].concat());
    Ok(())
}

const BATCH_DEPTH_SAME: &str = "
    0.51003265 0.048805874 0.2542457 0.45968556 -0.0015412172 0.20389862 0.40933847 0.61477846
    0.15355156 0.3589914 0.56443125 0.10320451 0.00048452616 0.20592444 0.41136423 0.46576285
    1.0045362 -0.45669073 1.0820825 0.6208557 0.15962887 1.698402 0.2371753 0.77594846 1.3147216
    -0.14650515 1.392268 0.6228814 0.16165465 1.7004278 0.83642435 1.0418643 1.2473041 0.7860773
    0.99151725 1.1969571 0.73573023 0.94117016 1.1466099 0.68538314 1.5574898 1.0962628
    0.32687628 1.8656496 0.737756 0.79215467 2.3309278 0.869701 1.4084742 1.9472475 0.48602062
    2.0247939 1.563567 1.1023402 1.6411134 1.1798867 1.7186596 0.9492732 0.4880464 2.0268197";

const BATCH_DEPTH_VALID: &str = "
    0.3829118 0.14390723 0.34934705 0.28221765 0.4876575 -0.19579151 0.7978431 0.11439407
    0.31983387 0.6971489 0.45814434 0.21913975 1.153748 0.9147434 1.1201832 1.0530539 1.2584939
    1.019489 1.5686793 1.3296746 1.09067 1.4679852 1.2289804 1.4344203";

const BATCH_DEPTH_SAME_GRAD: &str = "
    -0.106529206 0.149933 -0.2602715 -0.11033849 0.40258592 -0.41782305 0.09510137 -0.058640897
    -0.21238318 0.30054125 -0.5198677 -0.0069433004 0.81033164 -0.4202818 0.34910482
    -0.106529206 0.149933 -0.2602715 -0.11033849 0.40258592 -0.41782305 0.09510137 -0.058640897
    -0.21238318 0.30054125 -0.5198677 -0.0069433004 0.81033164 -0.4202818 0.34910482
    -0.49592355 0.14523196 0.11972079 -0.7350472 0.54726374 0.4962414 -0.22144759 0.39419672
    0.009841055 0.29215208 0.2411297 -0.47655925 1.3370275 -0.739506 0.1839605 -0.38939434
    -0.004701031 0.37999228 -0.6247088 0.14467783 0.9140644 -0.31654897 0.45283762 0.22222424
    -0.008389175 0.7609974 -0.46961597 0.52669585 -0.31922424 -0.16514432 0.25400347 -0.15620103
    0.100261174 0.61072683 -0.20968214 0.30324227 0.14949998 -0.004242271 0.50868213 -0.3117268
    0.2011976 0.71412206 -0.10807045 0.66131616 0.09736943 0.25400347 -0.15620103 0.100261174
    0.61072683 -0.20968214 0.30324227 0.14949998 -0.004242271 0.50868213 -0.3117268 0.2011976
    0.71412206 -0.10807045 0.66131616 0.09736943 0.40540808 0.3798969 0.021052413 1.067616
    0.016593635 0.29890466 0.914549 -0.46980673 0.8125043 0.76148194 0.04379295 1.326104
    0.04102233 0.96448886 1.5546219 0.15140463 0.53609794 -0.07920876 0.45688915 0.22627577
    -0.0043376237 0.765049 -0.46556443 0.30382216 1.0732088 -0.15740465 0.611982 0.14909276
    0.30317268 1.4572525";
