//! Tests of [`super::fuse_scales`]: a constant Mul or RealDiv after a fused Cast.

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder, reshape};
use weir_ops::io::example::Example;
use weir_ops::math::{cast, mul, realdiv};
use weir_ops::parsing::{decode_raw, parse_example, Features, FixedLenFeature};

use super::tests::dtypes_of_plan;
use crate::{RunArgs, Session};

/// How the test scales the cast values.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `x * c`.
    MulBy,
    /// `c * x`.
    MulOf,
    /// `x / c`.
    Div,
}

fn scale(x: &Output, op: Op, c: f32) -> Output {
    let k = constant(x.graph(), c).unwrap();
    match op {
        Op::MulBy => mul(x, &k),
        Op::MulOf => mul(&k, x),
        Op::Div => realdiv(x, &k),
    }
    .unwrap()
}

/// Whether the plan fetching `fetches` has the scaling op pass a fused producer's output on
/// (its step reads one input, not two).
fn scale_fused(g: &Graph, feeds: &[(&Output, &[usize])], fetches: &[&Output]) -> bool {
    let plan = dtypes_of_plan(g, feeds, fetches);
    let step = plan
        .iter()
        .find(|(op, _, _)| op == "Mul" || op == "RealDiv")
        .expect("the plan scales");
    step.2 == 1
}

/// The bits of each value, so that the fused values must equal the unfused ones exactly.
fn bits(t: &Tensor) -> Vec<u32> {
    t.to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn decoded_bytes_cast_and_scaled_come_out_scaled_with_the_same_bits() {
    weir_ops::register_all_ops();
    let good = Tensor::from_byte_strings(&[vec![0u8, 1, 255], vec![7, 128, 9]]);
    for op in [Op::MulBy, Op::MulOf, Op::Div] {
        for c in [1.0f32 / 255.0, 3.0, -0.1] {
            let g = Graph::new();
            let raw = placeholder(&g, DType::String, Shape::unknown()).unwrap();
            let bytes = decode_raw(&raw, DType::U8).unwrap();
            let rows = reshape(&bytes, [-1i64, 3]).unwrap();
            let floats = cast(&rows, DType::F32).unwrap();
            let scaled = scale(&floats, op, c);
            let feeds: &[(&Output, &[usize])] = &[(&raw, good.shape())];
            assert!(scale_fused(&g, feeds, &[&scaled]), "{op:?}");
            // Fetching the cast too keeps the graph's own ops.
            assert!(!scale_fused(&g, feeds, &[&scaled, &floats]), "{op:?}");
            let sess = Session::new(&g).unwrap();
            let fused = sess
                .run(&RunArgs::new().feed(&raw, good.clone()).fetch(&scaled))
                .unwrap();
            let unfused = sess
                .run(
                    &RunArgs::new()
                        .feed(&raw, good.clone())
                        .fetch(&scaled)
                        .fetch(&floats),
                )
                .unwrap();
            assert_eq!(fused[0].shape(), &[2, 3]);
            assert_eq!(bits(&fused[0]), bits(&unfused[0]), "{op:?} {c}");
            let want: Vec<f32> = [0u8, 1, 255, 7, 128, 9]
                .iter()
                .map(|&b| match op {
                    Op::MulBy | Op::MulOf => f32::from(b) * c,
                    Op::Div => f32::from(b) / c,
                })
                .collect();
            assert_eq!(fused[0].to_vec::<f32>().unwrap(), want);
        }
    }
}

#[test]
fn a_scale_that_is_not_a_fixed_scalar_constant_is_not_fused() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let raw = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let floats = cast(decode_raw(&raw, DType::U8).unwrap(), DType::F32).unwrap();
    let feeds: &[(&Output, &[usize])] = &[(&raw, &[2])];
    // A constant divided by the values, a vector constant, a placeholder, a fed constant.
    let k = constant(&g, 2.0f32).unwrap();
    let over = realdiv(&k, &floats).unwrap();
    assert!(!scale_fused(&g, feeds, &[&over]));
    let v = constant(&g, Tensor::from(vec![2.0f32])).unwrap();
    assert!(!scale_fused(&g, feeds, &[&mul(&floats, &v).unwrap()]));
    let p = placeholder(&g, DType::F32, Shape::scalar()).unwrap();
    assert!(!scale_fused(
        &g,
        &[(&raw, &[2]), (&p, &[])],
        &[&mul(&floats, &p).unwrap()]
    ));
    let by_k = mul(&floats, &k).unwrap();
    assert!(!scale_fused(&g, &[(&raw, &[2]), (&k, &[])], &[&by_k]));
    assert!(scale_fused(&g, feeds, &[&by_k]));
    // Fed a new value, the constant's value is the one used.
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(
            &RunArgs::new()
                .feed(&raw, Tensor::from_byte_strings(&[vec![3u8], vec![5]]))
                .feed(&k, Tensor::scalar(10.0f32))
                .fetch(&by_k),
        )
        .unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![30.0, 50.0]);
}

fn example(pixels: &[i64]) -> weir_graph::Bytes {
    Example::builder()
        .int64("image", pixels.to_vec())
        .build()
        .to_bytes()
}

/// parse_example (of a batch, or of one example when `single`) of four int64 pixels with a
/// default, cast to float32 and scaled: fused and unfused values, bit for bit.
fn parse_cast_scale(records: Vec<weir_graph::Bytes>, single: bool, op: Op) {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let mut ser = Tensor::from(records);
    if single {
        ser = ser.reshape(&[]).unwrap();
    }
    let ser = constant(&g, ser).unwrap();
    let features = Features::new().add(
        "image",
        FixedLenFeature::new(&[4], DType::I64).default(Tensor::from(vec![5i64, 6, 7, 1 << 40])),
    );
    let pixels = parse_example(&ser, &features)
        .unwrap()
        .dense("image")
        .unwrap();
    let floats = cast(&pixels, DType::F32).unwrap();
    let scaled = scale(&floats, op, 1.0 / 255.0);
    assert!(scale_fused(&g, &[], &[&scaled]));
    let sess = Session::new(&g).unwrap();
    let fused = sess.run(&RunArgs::new().fetch(&scaled)).unwrap();
    let unfused = sess
        .run(&RunArgs::new().fetch(&scaled).fetch(&floats))
        .unwrap();
    assert_eq!(fused[0].shape(), unfused[0].shape());
    assert_eq!(bits(&fused[0]), bits(&unfused[0]), "{op:?} single {single}");
    let want: Vec<f32> = unfused[1]
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|&v| match op {
            Op::MulBy | Op::MulOf => v * (1.0 / 255.0),
            Op::Div => v / (1.0 / 255.0),
        })
        .collect();
    assert_eq!(fused[0].to_vec::<f32>().unwrap(), want);
}

#[test]
fn parsed_int64_features_cast_and_scaled_come_out_scaled_with_the_same_bits() {
    let batch = || {
        vec![
            example(&[0, 1, 200, 255]),
            Example::builder().build().to_bytes(),
            example(&[16385, 300, 1 << 40, -3]),
        ]
    };
    for op in [Op::MulBy, Op::MulOf, Op::Div] {
        parse_cast_scale(batch(), false, op);
        parse_cast_scale(vec![example(&[9, 8, 7, 6])], true, op);
        // The default, shared with the graph, is scaled in a copy.
        parse_cast_scale(vec![Example::builder().build().to_bytes()], true, op);
    }
}
