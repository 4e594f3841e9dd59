//! Image ops in a session, checked against values printed by TensorFlow 2.21 (CPU) for the
//! same inputs (`img` below is `np.arange(24) * 10` as uint8 of shape [2, 4, 3]).

// Expected values are TensorFlow's printed outputs, digit for digit.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{
    adjust_brightness, adjust_contrast, convert_image_dtype, per_image_standardization,
    random_brightness, random_contrast, random_flip_left_right, random_flip_up_down, resize,
    ConvertImageDtype, Resize, ResizeMethod,
};
use weir_session::{RunArgs, Session};

fn img_u8(g: &Graph) -> Output {
    constant(
        g,
        Tensor::from_vec(&[2, 4, 3], (0..24).map(|i| (i * 10) as u8).collect()).unwrap(),
    )
    .unwrap()
}

fn img_f32(g: &Graph) -> Output {
    constant(
        g,
        Tensor::from_vec(&[2, 4, 3], (0..24).map(|i| i as f32 / 7.0).collect()).unwrap(),
    )
    .unwrap()
}

fn eval(g: &Graph, o: &Output) -> Tensor {
    Session::new(g).unwrap().eval(o).unwrap()
}

fn close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{got:?}\nvs {want:?}"
        );
    }
}

#[test]
fn brightness_matches_tensorflow() {
    let g = Graph::new();
    let up = adjust_brightness(img_u8(&g), 0.1).unwrap();
    let down = adjust_brightness(img_u8(&g), -0.5).unwrap();
    let f = adjust_brightness(img_f32(&g), 0.25f32).unwrap();
    assert_eq!(up.dtype(), DType::U8);
    assert_eq!(f.op().op_type(), "AddV2");
    let want_up: Vec<u8> = (0..24).map(|i| (25 + 10 * i).min(255) as u8).collect();
    assert_eq!(eval(&g, &up).to_vec::<u8>().unwrap(), want_up);
    assert_eq!(
        eval(&g, &down).to_vec::<u8>().unwrap(),
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 12, 22, 32, 42, 52, 62, 72, 82, 92, 102]
    );
    let want: Vec<f32> = (0..24).map(|i| i as f32 / 7.0 + 0.25).collect();
    assert_eq!(eval(&g, &f).to_vec::<f32>().unwrap(), want);
}

#[test]
fn contrast_matches_tensorflow() {
    let g = Graph::new();
    let hi = adjust_contrast(img_u8(&g), 2.0).unwrap();
    let lo = adjust_contrast(img_u8(&g), 0.5).unwrap();
    let f = adjust_contrast(img_f32(&g), 1.5).unwrap();
    let f64_img = ConvertImageDtype::new(DType::F64)
        .build(img_f32(&g))
        .unwrap();
    let d = adjust_contrast(&f64_img, 1.5).unwrap();
    assert_eq!(d.dtype(), DType::F64);
    assert_eq!(
        eval(&g, &hi).to_vec::<u8>().unwrap(),
        [
            0, 0, 0, 0, 0, 0, 15, 25, 35, 75, 85, 95, 135, 145, 155, 195, 205, 215, 255, 255, 255,
            255, 255, 255
        ]
    );
    assert_eq!(
        eval(&g, &lo).to_vec::<u8>().unwrap(),
        [
            52, 62, 72, 67, 77, 87, 82, 92, 102, 97, 107, 117, 112, 122, 132, 127, 137, 147, 142,
            152, 162, 157, 167, 177
        ]
    );
    let want = [
        -0.75,
        -0.6071426868438721,
        -0.4642857313156128,
        -0.10714280605316162,
        0.03571426868438721,
        0.17857146263122559,
        0.5357142686843872,
        0.6785714626312256,
        0.821428656578064,
        1.1785714626312256,
        1.321428656578064,
        1.4642856121063232,
        1.8214285373687744,
        1.9642856121063232,
        2.107142925262451,
        2.4642856121063232,
        2.607142925262451,
        2.75,
        3.107142925262451,
        3.25,
        3.392857074737549,
        3.75,
        3.892857074737549,
        4.035714626312256,
    ];
    close(&eval(&g, &f).to_vec::<f32>().unwrap(), &want, 1e-6);
    let got64: Vec<f32> = eval(&g, &d)
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|&x| x as f32)
        .collect();
    close(&got64, &want, 1e-6);
}

#[test]
fn contrast_errors() {
    let g = Graph::new();
    let flat = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap()).unwrap();
    assert!(adjust_contrast(&flat, 1.0)
        .unwrap_err()
        .message()
        .contains("at least three-dimensional"));
    let p = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let c = adjust_contrast(&p, 2.0).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap())
                .fetch(&c),
        )
        .unwrap_err();
    assert_eq!(e.message(), "input must be at least 3-D, got shape[2,2]");
    let empty = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[0, 2, 3], Vec::<f32>::new()).unwrap())
                .fetch(&c),
        )
        .unwrap();
    assert_eq!(empty[0].shape(), &[0, 2, 3]);
    let v = constant(&g, Tensor::from(vec![1.0f32])).unwrap();
    let bad = g
        .new_operation("AdjustContrastv2")
        .input(&c)
        .input(&v)
        .build()
        .unwrap_err();
    assert!(bad.message().contains("rank 0"), "{bad}");
}

#[test]
fn random_brightness_and_contrast_match_tensorflow() {
    let g = Graph::new();
    let b = random_brightness(img_u8(&g), 0.2, Some(3)).unwrap();
    let scaled = (&convert_image_dtype(img_u8(&g), DType::F32).unwrap() * 1.0f32).unwrap();
    let c = random_contrast(&scaled, 0.5, 1.5, Some(4)).unwrap();
    let sess = Session::new(&g).unwrap();
    let r1 = sess.run(&RunArgs::new().fetch(&b).fetch(&c)).unwrap();
    let r2 = sess.run(&RunArgs::new().fetch(&b).fetch(&c)).unwrap();
    assert_eq!(
        r1[0].to_vec::<u8>().unwrap(),
        [
            0, 0, 8, 18, 28, 38, 48, 58, 68, 78, 88, 98, 108, 118, 128, 138, 148, 158, 168, 178,
            188, 198, 208, 218
        ]
    );
    assert_eq!(
        r2[0].to_vec::<u8>().unwrap(),
        [
            16, 26, 36, 46, 56, 66, 76, 86, 96, 106, 116, 126, 136, 146, 156, 166, 177, 187, 197,
            207, 217, 227, 237, 247
        ]
    );
    close(
        &r1[1].to_vec::<f32>().unwrap()[..6],
        &[
            -0.1880042552947998,
            -0.14878857135772705,
            -0.1095728874206543,
            -0.016641706228256226,
            0.02257397770881653,
            0.06178966164588928,
        ],
        2e-6,
    );
    close(
        &r2[1].to_vec::<f32>().unwrap()[18..],
        &[
            0.7134962677955627,
            0.7527119517326355,
            0.7919276356697083,
            0.8341888785362244,
            0.8734045624732971,
            0.9126202464103699,
        ],
        2e-6,
    );
    assert!(random_brightness(img_u8(&g), -1.0, None).is_err());
    assert!(random_contrast(img_u8(&g), 1.0, 0.5, None).is_err());
}

#[test]
fn standardization_matches_tensorflow() {
    let g = Graph::new();
    let ints = constant(
        &g,
        Tensor::from_vec(&[2, 2, 3], (1..13).collect::<Vec<i32>>()).unwrap(),
    )
    .unwrap();
    let batch = constant(
        &g,
        Tensor::from_vec(&[2, 2, 2, 3], (0..24).map(|i| (i * 10) as u8).collect()).unwrap(),
    )
    .unwrap();
    let flat = constant(&g, Tensor::from_vec(&[2, 2, 1], vec![1.0f32; 4]).unwrap()).unwrap();
    let s = per_image_standardization(&ints).unwrap();
    let b = per_image_standardization(&batch).unwrap();
    let f = per_image_standardization(&flat).unwrap();
    assert_eq!(
        (s.dtype(), s.name().as_str()),
        (DType::F32, "per_image_standardization:0")
    );
    let want = [
        -1.5932550430297852f32,
        -1.3035722970962524,
        -1.0138895511627197,
        -0.724206805229187,
        -0.4345240890979767,
        -0.14484135806560516,
        0.14484135806560516,
        0.4345240890979767,
        0.724206805229187,
        1.0138895511627197,
        1.3035722970962524,
        1.5932550430297852,
    ];
    close(&eval(&g, &s).to_vec::<f32>().unwrap(), &want, 1e-6);
    let got = eval(&g, &b).to_vec::<f32>().unwrap();
    close(&got[..12], &want, 1e-6);
    close(&got[12..], &want, 1e-6);
    assert_eq!(eval(&g, &f).to_vec::<f32>().unwrap(), vec![0.0; 4]);
    let two_d = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap()).unwrap();
    let e = per_image_standardization(&two_d).unwrap_err();
    assert_eq!(
        e.message(),
        "'image' (shape (2, 2)) must be at least three-dimensional."
    );
}

#[test]
fn flips_match_tensorflow() {
    // tf.image.random_flip_left_right(tf.reshape(tf.range(12), [2, 3, 2]), seed=3), 4 runs.
    let g = Graph::new();
    let img = constant(
        &g,
        Tensor::from_vec(&[2, 3, 2], (0..12).collect::<Vec<i32>>()).unwrap(),
    )
    .unwrap();
    let f = random_flip_left_right(&img, Some(3)).unwrap();
    let sess = Session::new(&g).unwrap();
    let flipped = vec![4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7];
    let same: Vec<i32> = (0..12).collect();
    for want in [&flipped, &same, &flipped, &same] {
        assert_eq!(&sess.eval(&f).unwrap().to_vec::<i32>().unwrap(), want);
    }
    // A batch of 4 images [4, 1, 3, 2] flips each image on its own draw.
    let g = Graph::new();
    let batch = constant(
        &g,
        Tensor::from_vec(&[4, 1, 3, 2], (0..24).collect::<Vec<i32>>()).unwrap(),
    )
    .unwrap();
    let f = random_flip_left_right(&batch, Some(3)).unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(
        sess.eval(&f).unwrap().to_vec::<i32>().unwrap(),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 14, 15, 12, 13, 18, 19, 20, 21, 22, 23]
    );
    assert_eq!(
        sess.eval(&f).unwrap().to_vec::<i32>().unwrap(),
        [4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7, 12, 13, 14, 15, 16, 17, 22, 23, 20, 21, 18, 19]
    );
}

#[test]
fn flip_up_down_and_rank_checks() {
    let g = Graph::new();
    let img = constant(&g, Tensor::from(vec!["a", "b"])).unwrap();
    assert_eq!(
        random_flip_left_right(&img, None).unwrap_err().message(),
        "'image' (shape (2,)) must have either 3 or 4 dimensions."
    );
    let p = placeholder(&g, DType::String, Shape::unknown()).unwrap();
    let f = random_flip_up_down(&p, Some(1)).unwrap();
    let sess = Session::new(&g).unwrap();
    let rows = Tensor::from(vec!["top", "bottom"])
        .reshape(&[2, 1, 1])
        .unwrap();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let out = sess
            .run(&RunArgs::new().feed(&p, rows.clone()).fetch(&f))
            .unwrap();
        seen.insert(out[0].to_strings().unwrap());
    }
    assert_eq!(seen.len(), 2, "both orders appear over 20 runs");
    let e = sess
        .run(&RunArgs::new().feed(&p, Tensor::from(vec!["x"])).fetch(&f))
        .unwrap_err();
    assert!(e.is_invalid_argument());
}

fn x4x4(g: &Graph) -> Output {
    constant(
        g,
        Tensor::from_vec(&[1, 4, 4, 1], (0..16).map(|i| i as f32).collect()).unwrap(),
    )
    .unwrap()
}

#[test]
fn resize_matches_tensorflow() {
    let g = Graph::new();
    let x = x4x4(&g);
    let cases: Vec<(Output, Vec<f32>)> = vec![
        (
            resize(&x, [6, 5]).unwrap(),
            vec![
                0.0,
                0.7000000476837158,
                1.5,
                2.299999952316284,
                3.0,
                2.0,
                2.6999998092651367,
                3.5,
                4.300000190734863,
                5.0,
                4.6666669845581055,
                5.366666793823242,
                6.1666669845581055,
                6.966667175292969,
                7.6666669845581055,
                7.333333969116211,
                8.033333778381348,
                8.833333969116211,
                9.633334159851074,
                10.333333969116211,
                10.0,
                10.699999809265137,
                11.5,
                12.300000190734863,
                13.0,
                12.0,
                12.699999809265137,
                13.5,
                14.300000190734863,
                15.0,
            ],
        ),
        (
            resize(&x, [3, 2]).unwrap(),
            vec![
                1.1666667461395264,
                3.1666667461395264,
                6.5,
                8.5,
                11.833333969116211,
                13.833333969116211,
            ],
        ),
        (
            Resize::new([6, 5])
                .method(ResizeMethod::NearestNeighbor)
                .build(&x)
                .unwrap(),
            vec![
                0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 6.0, 6.0, 7.0, 4.0, 5.0, 6.0, 6.0, 7.0, 8.0,
                9.0, 10.0, 10.0, 11.0, 12.0, 13.0, 14.0, 14.0, 15.0, 12.0, 13.0, 14.0, 14.0, 15.0,
            ],
        ),
        (
            Resize::new([3, 2])
                .method(ResizeMethod::NearestNeighbor)
                .build(&x)
                .unwrap(),
            vec![1.0, 3.0, 9.0, 11.0, 13.0, 15.0],
        ),
        (
            Resize::new([6, 5]).align_corners(true).build(&x).unwrap(),
            vec![
                0.0,
                0.75,
                1.5,
                2.25,
                3.0,
                2.4000000953674316,
                3.1500000953674316,
                3.9000000953674316,
                4.650000095367432,
                5.400000095367432,
                4.800000190734863,
                5.550000190734863,
                6.300000190734863,
                7.050000190734863,
                7.800000190734863,
                7.200000286102295,
                7.950000286102295,
                8.700000762939453,
                9.450000762939453,
                10.200000762939453,
                9.600000381469727,
                10.350000381469727,
                11.100000381469727,
                11.850000381469727,
                12.600000381469727,
                12.0,
                12.75,
                13.5,
                14.25,
                15.0,
            ],
        ),
        (
            Resize::new([6, 5])
                .method(ResizeMethod::NearestNeighbor)
                .align_corners(true)
                .build(&x)
                .unwrap(),
            vec![
                0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 6.0, 6.0, 7.0, 4.0, 5.0, 6.0, 6.0, 7.0, 8.0,
                9.0, 10.0, 10.0, 11.0, 8.0, 9.0, 10.0, 10.0, 11.0, 12.0, 13.0, 14.0, 14.0, 15.0,
            ],
        ),
        (
            Resize::new([6, 5])
                .half_pixel_centers(false)
                .build(&x)
                .unwrap(),
            vec![
                0.0,
                0.800000011920929,
                1.600000023841858,
                2.4000000953674316,
                3.0,
                2.6666667461395264,
                3.4666666984558105,
                4.266666889190674,
                5.066666603088379,
                5.6666669845581055,
                5.333333492279053,
                6.133333683013916,
                6.933333396911621,
                7.733333587646484,
                8.333333969116211,
                8.0,
                8.800000190734863,
                9.600000381469727,
                10.399999618530273,
                11.0,
                10.666666984558105,
                11.466667175292969,
                12.266667366027832,
                13.066666603088379,
                13.666666984558105,
                12.0,
                12.800000190734863,
                13.600000381469727,
                14.399999618530273,
                15.0,
            ],
        ),
        (
            Resize::new([6, 5])
                .method(ResizeMethod::NearestNeighbor)
                .half_pixel_centers(false)
                .build(&x)
                .unwrap(),
            vec![
                0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0, 7.0, 8.0,
                8.0, 9.0, 10.0, 11.0, 8.0, 8.0, 9.0, 10.0, 11.0, 12.0, 12.0, 13.0, 14.0, 15.0,
            ],
        ),
    ];
    let sess = Session::new(&g).unwrap();
    for (o, want) in cases {
        let got = sess.eval(&o).unwrap();
        assert_eq!(got.shape()[1] * got.shape()[2], want.len());
        assert_eq!(got.to_vec::<f32>().unwrap(), want, "{}", o.name());
    }
}

#[test]
fn resize_three_d_and_dtypes() {
    let g = Graph::new();
    let img = constant(
        &g,
        Tensor::from_vec(&[2, 3, 2], (0..12).map(|i| (i * 20) as u8).collect()).unwrap(),
    )
    .unwrap();
    let bl = resize(&img, [3, 4]).unwrap();
    let nn = Resize::new([3, 4])
        .method(ResizeMethod::NearestNeighbor)
        .build(&img)
        .unwrap();
    assert_eq!(
        (bl.dtype(), bl.shape()),
        (DType::F32, Shape::known(&[3, 4, 2]))
    );
    assert_eq!(
        (nn.dtype(), nn.shape()),
        (DType::U8, Shape::known(&[3, 4, 2]))
    );
    assert_eq!(
        eval(&g, &bl).to_vec::<f32>().unwrap(),
        [
            0.0, 20.0, 25.0, 45.0, 55.0, 75.0, 80.0, 100.0, 60.0, 80.0, 85.0, 105.0, 115.0, 135.0,
            140.0, 160.0, 120.0, 140.0, 145.0, 165.0, 175.0, 195.0, 200.0, 220.0
        ]
    );
    assert_eq!(
        eval(&g, &nn).to_vec::<u8>().unwrap(),
        [
            0, 20, 40, 60, 40, 60, 80, 100, 120, 140, 160, 180, 160, 180, 200, 220, 120, 140, 160,
            180, 160, 180, 200, 220
        ]
    );
}

#[test]
fn resize_shapes_and_errors() {
    let g = Graph::new();
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, None, None, Some(3)])).unwrap();
    let size = placeholder(&g, DType::I32, Shape::known(&[2])).unwrap();
    let r = Resize::new(&size).build(&p).unwrap();
    assert_eq!(r.shape(), Shape::new(vec![None, None, None, Some(3)]));
    let fixed = resize(&p, [8, 9]).unwrap();
    assert_eq!(
        fixed.shape(),
        Shape::new(vec![None, Some(8), Some(9), Some(3)])
    );
    assert!(Resize::new(vec![1usize, 2, 3]).build(&p).is_err());
    let flat = constant(&g, Tensor::from(vec![1.0f32])).unwrap();
    assert!(resize(&flat, [2, 2])
        .unwrap_err()
        .message()
        .contains("3 or 4 dimensions"));
    let both = Resize::new([2, 2])
        .align_corners(true)
        .half_pixel_centers(true)
        .build(&p)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let img = Tensor::from_vec(&[1, 2, 2, 3], vec![1.0f32; 12]).unwrap();
    let run = |o: &Output, s: Vec<i32>| {
        sess.run(
            &RunArgs::new()
                .feed(&p, img.clone())
                .feed(&size, Tensor::from(s))
                .fetch(o),
        )
    };
    assert_eq!(
        run(&r, vec![0, 2]).unwrap_err().message(),
        "output dimensions must be positive"
    );
    assert_eq!(run(&r, vec![3, 5]).unwrap()[0].shape(), &[1, 3, 5, 3]);
    assert_eq!(
        run(&both, vec![1, 1]).unwrap_err().message(),
        "If half_pixel_centers is True, align_corners must be False."
    );
    let empty = Tensor::from_vec(&[1, 0, 2, 3], Vec::<f32>::new()).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, empty)
                .feed(&size, Tensor::from(vec![2, 2]))
                .fetch(&r),
        )
        .unwrap_err();
    assert_eq!(e.message(), "input image must be of non-zero size");
}

#[test]
fn convert_image_dtype_in_a_graph() {
    let g = Graph::new();
    let u = constant(&g, Tensor::from(vec![0u8, 1, 128, 255])).unwrap();
    let f = convert_image_dtype(&u, DType::F32).unwrap();
    let back = ConvertImageDtype::new(DType::U8)
        .saturate(true)
        .build(&f)
        .unwrap();
    assert!(convert_image_dtype(&u, DType::U8).unwrap() == u);
    assert!(
        convert_image_dtype(constant(&g, Tensor::from(vec!["x"])).unwrap(), DType::F32).is_err()
    );
    let sess = Session::new(&g).unwrap();
    assert_eq!(
        sess.eval(&f).unwrap().to_vec::<f32>().unwrap(),
        [0.0, 0.003921568859368563, 0.501960813999176, 1.0]
    );
    assert_eq!(
        sess.eval(&back).unwrap().to_vec::<u8>().unwrap(),
        [0, 1, 128, 255]
    );
}
