//! FusedBatchNormV3 / V2 / V1 and FusedBatchNormGradV3 in a session against TensorFlow 2.21.
//!
//! Every expected value and message below came from TensorFlow 2.21 on CPU
//! (`gen_nn_ops.fused_batch_norm_v3` and friends, `tf.gradients`, in a `tf.compat.v1` Session
//! with the inputs fed through placeholders so grappler does not fold them). Float results are
//! compared within a few ulps, not bit for bit: weir accumulates the per-channel sums in
//! float64 and rounds once, TensorFlow sums with Eigen's reductions in float32, so the last
//! bits can differ.

use weir_graph::{Code, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn;
use weir_session::Session;

/// RunArgs fetching every output in `outs`.
fn fetch_all(outs: &[Output]) -> weir_session::RunArgs {
    outs.iter()
        .fold(weir_session::RunArgs::new(), |a, o| a.fetch(o))
}

/// A node's attributes as the tests pass them.
type Attrs<'a> = Vec<(&'a str, weir_graph::AttrValue)>;

const INVALID: Code = Code::InvalidArgument;

/// The inputs the TensorFlow runs used: `np.float32` of a float64 formula.
fn seq(dims: &[usize], salt: usize) -> Tensor {
    let n: usize = dims.iter().product();
    let v = (0..n)
        .map(|i| (((i * 37 + salt * 11) % 97) as f64 / 97.0 * 4.0 - 2.0 + 0.013 * i as f64) as f32)
        .collect();
    Tensor::from_vec(dims, v).unwrap()
}

fn vec1(v: &[f32]) -> Tensor {
    Tensor::from(v.to_vec())
}

const X: [usize; 4] = [2, 2, 3, 2];
const SCALE: [f32; 2] = [1.5, -0.5];
const OFFSET: [f32; 2] = [0.25, -1.0];
const MEAN: [f32; 2] = [0.1, -0.2];
const VAR: [f32; 2] = [0.5, 2.0];

/// `a` and `b` within `ulps` units in the last place (NaN equal to NaN).
fn close(got: &[f32], want: &[f32], ulps: u32) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        if a.is_nan() && b.is_nan() {
            continue;
        }
        let diff = (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
        let tiny = (a - b).abs() <= 1e-6 * b.abs().max(1e-3);
        assert!(
            diff <= ulps as u64 || tiny,
            "element {i}: {a} vs TensorFlow's {b}\n got {got:?}\nwant {want:?}"
        );
    }
}

/// A raw node of `op_type` over constants, with `attrs`.
fn raw(
    g: &Graph,
    op_type: &str,
    inputs: &[Tensor],
    attrs: &[(&str, weir_graph::AttrValue)],
) -> Result<weir_graph::Operation> {
    weir_ops::register_all_ops();
    let mut b = g.new_operation(op_type);
    for t in inputs {
        b = b.input(constant(g, t.clone())?);
    }
    for (k, v) in attrs {
        b = b.attr(k, v.clone());
    }
    b.build()
}

fn fbn(
    op_type: &str,
    inputs: [Tensor; 5],
    attrs: &[(&str, weir_graph::AttrValue)],
) -> Result<Vec<Tensor>> {
    let g = Graph::new();
    let op = raw(&g, op_type, &inputs, attrs)?;
    let outs: Vec<Output> = (0..op.num_outputs())
        .map(|i| op.output(i))
        .collect::<Result<_>>()?;
    Session::new(&g)?.run(&fetch_all(&outs))
}

fn inputs(mean: &[f32], var: &[f32]) -> [Tensor; 5] {
    [
        seq(&X, 1),
        vec1(&SCALE),
        vec1(&OFFSET),
        vec1(mean),
        vec1(var),
    ]
}

fn eps(e: f32) -> (&'static str, weir_graph::AttrValue) {
    ("epsilon", e.into())
}

const Y_TRAIN: [f32; 24] = [
    -2.2266421,
    -1.031494,
    1.7297351,
    -0.6362036,
    0.5438636,
    -0.2409131,
    -0.6420079,
    -1.5597055,
    -1.8278794,
    -1.164415,
    2.1284976,
    -0.7691245,
    0.9426264,
    -0.37383407,
    -0.24324504,
    -1.6926265,
    -1.4291164,
    -1.2973359,
    2.5272608,
    -0.9020455,
    1.3413893,
    -0.506755,
    0.1555178,
    -1.8255473,
];
const BATCH_MEAN: [f32; 2] = [0.38011342, -0.0811134];
const BIASED_VAR: [f32; 2] = [1.3604335, 1.3604335];
const UNBIASED_VAR: [f32; 2] = [1.4841093, 1.4841093];

#[test]
fn training_uses_batch_statistics() -> Result<()> {
    let out = fbn("FusedBatchNormV3", inputs(&MEAN, &VAR), &[eps(0.001)])?;
    assert_eq!(out.len(), 6);
    assert_eq!(out[0].shape(), &X);
    close(&out[0].to_vec::<f32>()?, &Y_TRAIN, 4);
    close(&out[1].to_vec::<f32>()?, &BATCH_MEAN, 2);
    close(&out[2].to_vec::<f32>()?, &UNBIASED_VAR, 2);
    // The reserve spaces: batch mean and biased variance; reserve_space_3 a scalar 0.
    close(&out[3].to_vec::<f32>()?, &BATCH_MEAN, 2);
    close(&out[4].to_vec::<f32>()?, &BIASED_VAR, 2);
    assert_eq!(out[5].shape(), &[] as &[usize]);
    assert_eq!(out[5].to_vec::<f32>()?, [0.0]);

    // exponential_avg_factor 0.25 blends the statistics outputs only.
    let f = ("exponential_avg_factor", 0.25f32.into());
    let out = fbn("FusedBatchNormV3", inputs(&MEAN, &VAR), &[eps(0.001), f])?;
    close(&out[0].to_vec::<f32>()?, &Y_TRAIN, 4);
    close(&out[1].to_vec::<f32>()?, &[0.17002836, -0.17027836], 2);
    close(&out[2].to_vec::<f32>()?, &[0.74602735, 1.8710274], 2);
    close(&out[3].to_vec::<f32>()?, &BATCH_MEAN, 2);
    close(&out[4].to_vec::<f32>()?, &BIASED_VAR, 2);

    // Empty mean/variance are fine in training with the default factor, and so are wrong
    // sizes (TensorFlow does not look at them).
    for (m, v) in [(&[][..], &[][..]), (&[1.0, 2.0, 3.0][..], &VAR[..])] {
        let out = fbn("FusedBatchNormV3", inputs(m, v), &[eps(0.001)])?;
        close(&out[0].to_vec::<f32>()?, &Y_TRAIN, 4);
        close(&out[2].to_vec::<f32>()?, &UNBIASED_VAR, 2);
    }
    // TensorFlow 1's versions: five outputs, the same values.
    for op in ["FusedBatchNorm", "FusedBatchNormV2"] {
        let out = fbn(op, inputs(&MEAN, &VAR), &[eps(0.001)])?;
        assert_eq!(out.len(), 5);
        close(&out[0].to_vec::<f32>()?, &Y_TRAIN, 4);
        close(&out[2].to_vec::<f32>()?, &UNBIASED_VAR, 2);
        close(&out[4].to_vec::<f32>()?, &BIASED_VAR, 2);
    }
    Ok(())
}

#[test]
fn inference_uses_the_given_statistics() -> Result<()> {
    let want_y = [
        -3.2390368,
        -1.0680001,
        3.2829058,
        -0.741945,
        1.3280404,
        -0.41588992,
        -0.6268254,
        -1.503695,
        -2.581691,
        -1.1776398,
        3.9402518,
        -0.8515848,
        1.9853861,
        -0.5255297,
        0.030520573,
        -1.6133348,
        -1.9243453,
        -1.2872796,
        4.597598,
        -0.9612245,
        2.6427321,
        -0.63516945,
        0.68786657,
        -1.7229745,
    ];
    // The factor does not matter in inference.
    for factor in [1.0f32, 0.5] {
        let attrs = [
            eps(0.001),
            ("is_training", false.into()),
            ("exponential_avg_factor", factor.into()),
        ];
        let out = fbn("FusedBatchNormV3", inputs(&MEAN, &VAR), &attrs)?;
        close(&out[0].to_vec::<f32>()?, &want_y, 4);
        assert_eq!(out[1].to_vec::<f32>()?, MEAN);
        assert_eq!(out[2].to_vec::<f32>()?, VAR);
        assert_eq!(out[3].to_vec::<f32>()?, [0.0, 0.0]);
        assert_eq!(out[4].to_vec::<f32>()?, [0.0, 0.0]);
        assert_eq!(out[5].to_vec::<f32>()?, [0.0]);
    }
    Ok(())
}

#[test]
fn edge_cases() -> Result<()> {
    // An empty batch: NaN statistics.
    let mut inp = inputs(&MEAN, &VAR);
    inp[0] = Tensor::from_vec(&[0, 2, 3, 2], Vec::<f32>::new())?;
    for training in [true, false] {
        let out = fbn(
            "FusedBatchNormV3",
            inp.clone(),
            &[("is_training", training.into())],
        )?;
        assert_eq!(out[0].shape(), &[0, 2, 3, 2]);
        assert!(out[1].to_vec::<f32>()?.iter().all(|v| v.is_nan()));
        assert!(out[2].to_vec::<f32>()?.iter().all(|v| v.is_nan()));
        assert_eq!(out[3].to_vec::<f32>()?, [0.0, 0.0]);
    }
    // One row: variance 0 (Bessel's correction divides by 1), y = offset.
    let mut inp = inputs(&MEAN, &VAR);
    inp[0] = seq(&[1, 1, 1, 2], 3);
    let out = fbn("FusedBatchNormV3", inp, &[eps(0.001)])?;
    assert_eq!(out[0].to_vec::<f32>()?, [0.25, -1.0]);
    close(&out[1].to_vec::<f32>()?, &[-0.63917524, 0.89959794], 0);
    assert_eq!(out[2].to_vec::<f32>()?, [0.0, 0.0]);
    // 5-D NDHWC data is channels-last too.
    let g = Graph::new();
    let x = placeholder(&g, weir_graph::DType::F32, Shape::known(&[1, 3, 4, 5, 6]))?;
    let op = g
        .new_operation("FusedBatchNormV3")
        .input(x)
        .inputs((0..4).map(|_| constant(&g, Tensor::from(vec![1.0f32; 6])).unwrap()))
        .attr("data_format", "NDHWC")
        .build()?;
    assert_eq!(op.output(0)?.shape(), Shape::known(&[1, 3, 4, 5, 6]));
    assert_eq!(op.output(5)?.shape(), Shape::unknown());
    Ok(())
}

#[test]
fn run_time_errors_are_tensorflows() {
    let ones = |d: &[usize]| Tensor::from_vec(d, vec![1.0f32; d.iter().product()]).unwrap();
    let train = ("is_training", true.into());
    let infer = ("is_training", false.into());
    let half = ("exponential_avg_factor", 0.5f32.into());
    let cases: Vec<(&[&[usize]; 5], Attrs, &str)> = vec![
        (&[&[2, 3, 4], &[4], &[4], &[4], &[4]], vec![], "input must be 4 or 5-dimensional[2,3,4]"),
        (&[&[1, 2, 2, 2], &[2, 1], &[2], &[2], &[2]], vec![], "scale must be 1-dimensional[2,1]"),
        (&[&[1, 2, 2, 2], &[2], &[], &[2], &[2]], vec![], "offset must be 1-dimensional[]"),
        (&[&[1, 2, 2, 2], &[2], &[2], &[2, 1], &[2]], vec![], "estimated_mean must be 1-dimensional[2,1]"),
        (&[&[1, 2, 2, 2], &[2], &[2], &[2], &[1, 2]], vec![], "estimated_variance must be 1-dimensional[1,2]"),
        (&[&[1, 2, 2, 2], &[3], &[2], &[2], &[2]], vec![], "scale must have the same number of elements as the channels of x, got 3 and 2"),
        (&[&[1, 2, 2, 2], &[2], &[3], &[2], &[2]], vec![train.clone()], "offset must have the same number of elements as the channels of x, got 3 and 2"),
        (&[&[1, 2, 2, 2], &[2], &[2], &[3], &[2]], vec![infer.clone()], "When is_training=false, mean must have the same number of elements as the channels of x, got 3 and 2"),
        (&[&[1, 2, 2, 2], &[2], &[2], &[2], &[3]], vec![infer], "When is_training=false, variance must have the same number of elements as the channels of x, got 3 and 2"),
        (&[&[1, 2, 2, 2], &[2], &[2], &[0], &[2]], vec![half], "When exponential_avg_factor != 1, mean must have the same number of elements as the channels of x, got 0 and 2"),
    ];
    for (shapes, attrs, want) in cases {
        // Placeholders keep the shape function out of the way, as in the TensorFlow runs.
        let g = Graph::new();
        let ps: Vec<Output> = (0..5)
            .map(|_| placeholder(&g, weir_graph::DType::F32, Shape::unknown()).unwrap())
            .collect();
        let mut b = g.new_operation("FusedBatchNormV3").inputs(ps.clone());
        for (k, v) in &attrs {
            b = b.attr(k, v.clone());
        }
        let y = b.build().unwrap().output(0).unwrap();
        let mut args = weir_session::RunArgs::new().fetch(&y);
        for (p, s) in ps.iter().zip(shapes.iter()) {
            args = args.feed(p, ones(s));
        }
        let e = Session::new(&g).unwrap().run(&args).unwrap_err();
        assert_eq!((e.code(), e.message()), (INVALID, want));
    }
    // TensorFlow's CPU kernel transposes NCHW; weir's refuses it when it runs.
    let nchw = ("data_format", "NCHW".into());
    let e = fbn("FusedBatchNormV3", inputs(&MEAN, &VAR), &[nchw]).unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented);
}

#[test]
fn static_shapes_and_build_errors() -> Result<()> {
    let build = |shapes: [Shape; 5], training: bool| -> Result<Vec<Shape>> {
        let g = Graph::new();
        let ps: Vec<Output> = shapes
            .into_iter()
            .map(|s| placeholder(&g, weir_graph::DType::F32, s).unwrap())
            .collect();
        let op = g
            .new_operation("FusedBatchNormV3")
            .inputs(ps)
            .attr("is_training", training)
            .build()?;
        (0..6).map(|i| Ok(op.output(i)?.shape())).collect()
    };
    let k = Shape::known;
    let got = build(
        [
            Shape::new(vec![None, Some(3), Some(4), None]),
            Shape::new(vec![None]),
            k(&[5]),
            Shape::unknown(),
            Shape::unknown(),
        ],
        true,
    )?;
    assert_eq!(got[0], Shape::new(vec![None, Some(3), Some(4), Some(5)]));
    assert_eq!(got[1..5], vec![k(&[5]); 4][..]);
    assert_eq!(got[5], Shape::unknown());
    // Training: mean/variance are not merged (they may be empty).
    assert!(build([k(&[2, 3, 4, 5]), k(&[5]), k(&[5]), k(&[4]), k(&[0])], true).is_ok());
    let e = build(
        [k(&[2, 3, 4, 5]), k(&[5]), k(&[5]), k(&[4]), k(&[5])],
        false,
    )
    .unwrap_err();
    assert_eq!(e.code(), INVALID);
    assert!(
        e.message()
            .starts_with("Dimensions must be equal, but are 5 and 4 for 'FusedBatchNormV3'"),
        "{}",
        e.message()
    );
    let e = build([k(&[2, 3, 4]), k(&[4]), k(&[4]), k(&[4]), k(&[4])], true).unwrap_err();
    assert!(
        e.message()
            .starts_with("Shape must be rank 4 but is rank 3"),
        "{}",
        e.message()
    );

    let g = Graph::new();
    let e = raw(
        &g,
        "FusedBatchNormV2",
        &inputs(&MEAN, &VAR),
        &[("data_format", "NDHWC".into())],
    )
    .unwrap_err();
    assert_eq!(e.message(), "Value for attr 'data_format' of \"NDHWC\" is not in the list of allowed values: \"NHWC\", \"NCHW\"");

    // The builder mirrors tf.nn.fused_batch_norm: inference needs mean and variance.
    let x = constant(&g, seq(&X, 1))?;
    let (s, o) = (constant(&g, vec1(&SCALE))?, constant(&g, vec1(&OFFSET))?);
    let e = nn::fused_batch_norm(&x, &s, &o, None, None, 0.001, false).unwrap_err();
    assert!(e
        .message()
        .starts_with("Both `mean` and `variance` must be a 1D tensor"));
    let (y, m, _) = nn::fused_batch_norm(&x, &s, &o, None, None, 0.001, true)?;
    assert_eq!(y.op().op_type(), "FusedBatchNormV3");
    assert_eq!(y.op().inputs()[3].shape(), k(&[0]));
    assert_eq!(m.shape(), k(&[2]));
    Ok(())
}

/// FusedBatchNormGradV3 fed with the forward pass's reserve spaces (training) or the
/// population statistics (inference): TensorFlow's `tf.gradients` of `sum(y * w)`.
#[test]
fn gradient_kernel_matches_tensorflow() -> Result<()> {
    let doffset = [2.0046597, 0.46993828];
    let cases = [
        (
            true,
            vec![
                -1.1049886,
                -0.15771864,
                2.029308,
                0.029024428,
                1.0898442,
                0.21576755,
                0.1503805,
                -0.40725628,
                -0.7890832,
                -0.22051316,
                -2.7970352,
                -0.03377006,
                1.4057496,
                0.1529731,
                0.46628594,
                -0.4700507,
                -0.47317782,
                -0.28330764,
                -2.48113,
                -0.09656456,
                1.7216549,
                0.09017853,
                0.78219134,
                1.1812376,
            ],
            [2.9093506, 7.3869953],
        ),
        (
            false,
            vec![
                -2.315829,
                -0.15764177,
                4.206114,
                0.16841334,
                2.2512481,
                0.49446845,
                0.29638243,
                -0.59333664,
                -1.6584833,
                -0.26728153,
                -3.613349,
                0.058773585,
                2.908594,
                0.38482872,
                0.9537283,
                -0.7029764,
                -1.0011374,
                -0.3769213,
                -2.956003,
                -0.05086617,
                3.56594,
                0.27518895,
                1.6110742,
                0.60124403,
            ],
            [5.5892916, 6.1326547],
        ),
    ];
    for (training, dx, dscale) in cases {
        let g = Graph::new();
        let x = constant(&g, seq(&X, 1))?;
        let mut b = g.new_operation("FusedBatchNormV3").input(x.clone());
        for t in [vec1(&SCALE), vec1(&OFFSET), vec1(&MEAN), vec1(&VAR)] {
            b = b.input(constant(&g, t)?);
        }
        let fwd = b
            .attr("epsilon", 0.001f32)
            .attr("is_training", training)
            .build()?;
        let (m, v) = if training {
            (fwd.output(3)?, fwd.output(4)?)
        } else {
            (fwd.inputs()[3].clone(), fwd.inputs()[4].clone())
        };
        let grad = g
            .new_operation("FusedBatchNormGradV3")
            .input(constant(&g, seq(&X, 2))?)
            .input(x)
            .input(fwd.inputs()[1].clone())
            .input(m)
            .input(v)
            .input(fwd.output(5)?)
            .attr("epsilon", 0.001f32)
            .attr("is_training", training)
            .build()?;
        assert_eq!(grad.output(0)?.shape(), Shape::known(&X));
        assert_eq!(grad.output(3)?.shape(), Shape::known(&[0]));
        let outs: Vec<Output> = (0..5).map(|i| grad.output(i)).collect::<Result<_>>()?;
        let got = Session::new(&g)?.run(&fetch_all(&outs))?;
        close(&got[0].to_vec::<f32>()?, &dx, 8);
        close(&got[1].to_vec::<f32>()?, &dscale, 4);
        close(&got[2].to_vec::<f32>()?, &doffset, 4);
        assert_eq!(got[3].shape(), &[0]);
    }
    Ok(())
}

#[test]
fn gradient_kernel_errors_are_tensorflows() {
    let ones = |d: &[usize]| Tensor::from_vec(d, vec![1.0f32; d.iter().product()]).unwrap();
    let run = |shapes: [&[usize]; 6], attrs: &[(&str, weir_graph::AttrValue)]| {
        let g = Graph::new();
        let ps: Vec<Output> = (0..6)
            .map(|_| placeholder(&g, weir_graph::DType::F32, Shape::unknown()).unwrap())
            .collect();
        let mut b = g.new_operation("FusedBatchNormGradV3").inputs(ps.clone());
        for (k, v) in attrs {
            b = b.attr(k, v.clone());
        }
        let op = b.build().unwrap();
        let outs: Vec<Output> = (0..5).map(|i| op.output(i).unwrap()).collect();
        let mut args = fetch_all(&outs);
        for (p, s) in ps.iter().zip(shapes) {
            args = args.feed(p, ones(s));
        }
        Session::new(&g).unwrap().run(&args)
    };
    let x: &[usize] = &[1, 2, 2, 2];
    for (shapes, want) in [
        ([&[2, 3, 4][..], &[2, 3, 4], &[4], &[4], &[4], &[]], "input must be 4 or 5-dimensional[2,3,4]"),
        ([&[2, 3, 4, 1], &[2, 3, 4], &[4], &[4], &[4], &[]], "input must be 4 or 5-dimensional[2,3,4]"),
        ([x, x, &[2, 1], &[2], &[2], &[]], "scale must be 1-dimensional[2,1]"),
        ([x, x, &[2], &[2, 1], &[2], &[]], "saved mean must be 1-dimensional[2,1]"),
        ([x, x, &[2], &[2], &[2, 1], &[]], "saved variance must be 1-dimensional[2,1]"),
        ([x, &[1, 2, 1, 2], &[2], &[2], &[2], &[]], "x and y_backprop must have same shape, but x has shape [1,2,1,2] and y_backprop has shape [1,2,2,2]"),
        ([x, x, &[3], &[2], &[2], &[]], "scale must have the same number of elements as the channels of x, got 3 and 2"),
        ([x, x, &[2], &[3], &[2], &[]], "reserve_space_1 must have the same number of elements as the channels of x, got 3 and 2"),
        ([x, x, &[2], &[2], &[3], &[]], "reserve_space_2 must have the same number of elements as the channels of x, got 3 and 2"),
    ] {
        let e = run(shapes, &[]).unwrap_err();
        assert_eq!((e.code(), e.message()), (INVALID, want));
    }
    let e = run(
        [x, x, &[2], &[2], &[2], &[]],
        &[
            ("is_training", false.into()),
            ("data_format", "NCHW".into()),
        ],
    )
    .unwrap_err();
    assert_eq!(e.message(), "The implementation of FusedBatchNormGrad with is_training=False only support NHWC tensor format for now.");
    // An empty batch: zero scale/offset gradients; reserve_space_3 is never read.
    let got = run(
        [&[0, 2, 2, 2], &[0, 2, 2, 2], &[2], &[2], &[2], &[7, 7]],
        &[],
    )
    .unwrap();
    assert_eq!(got[1].to_vec::<f32>().unwrap(), [0.0, 0.0]);
    assert_eq!(got[2].to_vec::<f32>().unwrap(), [0.0, 0.0]);
    // All ones: dx 0, dscale 0, doffset 4 (TensorFlow gives the same).
    let got = run([x, x, &[2], &[2], &[2], &[7, 7]], &[]).unwrap();
    assert_eq!(got[1].to_vec::<f32>().unwrap(), [0.0, 0.0]);
    assert_eq!(got[2].to_vec::<f32>().unwrap(), [4.0, 4.0]);
}
