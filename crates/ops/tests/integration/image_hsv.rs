//! `tf.image.adjust_hue`/`adjust_saturation` (`AdjustHue`, `AdjustSaturation`) and their random
//! variants in a session, checked against TensorFlow 2.21 (CPU, `tf.compat.v1` graph mode):
//! every expected value is TensorFlow's float32 output, compared exactly (bit for bit).

// Expected values are TensorFlow's printed outputs, digit for digit.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::image::{adjust_hue, adjust_saturation, random_hue, random_saturation};
use weir_session::{RunArgs, Session};

/// Grey, black, white, the six pure hues' corners, mixed colours and a value above 1, as
/// [3, 4, 3] (TensorFlow's `pix`).
const PIX: [f32; 36] = [
    0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0,
    1.0, 0.0, 0.2, 0.4, 0.9, 0.9, 0.3, 0.1, 0.25, 0.75, 0.6, 2.0, 0.5, 1.0, 0.3, 0.3, 0.7,
];

fn pix(g: &Graph, dims: &[usize]) -> Output {
    constant(g, Tensor::from_vec(dims, PIX.to_vec()).unwrap()).unwrap()
}

/// `np.arange(24) * 10` as uint8 of shape [2, 4, 3].
fn img_u8(g: &Graph) -> Output {
    constant(
        g,
        Tensor::from_vec(&[2, 4, 3], (0..24).map(|i| (i * 10) as u8).collect()).unwrap(),
    )
    .unwrap()
}

fn eval_f32(g: &Graph, o: &Output) -> Vec<f32> {
    Session::new(g)
        .unwrap()
        .eval(o)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()
}

/// Bit-for-bit equality (so -0.0 and NaN are compared too), reporting the whole vectors.
fn same(got: &[f32], want: &[f32]) {
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(got), bits(want), "\n got {got:?}\nwant {want:?}");
}

#[test]
fn adjust_hue_matches_tensorflow() {
    let g = Graph::new();
    let cases: [(f32, [f32; 36]); 5] = [
        (
            0.25,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                0.5,
                1.0,
                0.0,
                0.0,
                0.5,
                1.0,
                1.0,
                0.0,
                0.5,
                0.0,
                1.0,
                0.5,
                0.8999999761581421,
                0.20000000298023224,
                0.7499998807907104,
                0.29999998211860657,
                0.8999999761581421,
                0.10000000149011612,
                0.34999990463256836,
                0.25,
                0.75,
                1.750000238418579,
                2.0,
                0.5,
                0.699999988079071,
                0.30000001192092896,
                0.5,
            ],
        ),
        (
            -0.4,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.40000009536743164,
                1.0,
                1.0,
                0.0,
                0.40000009536743164,
                0.40000009536743164,
                1.0,
                0.0,
                0.5999999046325684,
                0.0,
                1.0,
                0.6799999475479126,
                0.8999999761581421,
                0.20000000298023224,
                0.10000000149011612,
                0.22000007331371307,
                0.8999999761581421,
                0.75,
                0.3999999761581421,
                0.25,
                0.5,
                1.6000003814697266,
                2.0,
                0.46000003814697266,
                0.699999988079071,
                0.30000001192092896,
            ],
        ),
        (
            1.0,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.20000000298023224,
                0.3999999165534973,
                0.8999999761581421,
                0.8999999761581421,
                0.29999998211860657,
                0.10000000149011612,
                0.25,
                0.75,
                0.5999999046325684,
                2.0,
                0.5,
                1.0000009536743164,
                0.30000001192092896,
                0.30000001192092896,
                0.699999988079071,
            ],
        ),
        (
            -1.0,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.20000000298023224,
                0.3999999165534973,
                0.8999999761581421,
                0.8999999761581421,
                0.29999998211860657,
                0.10000000149011612,
                0.25,
                0.75,
                0.6000000238418579,
                2.0,
                0.5,
                1.000000238418579,
                0.30000001192092896,
                0.30000001192092896,
                0.699999988079071,
            ],
        ),
        (
            0.9,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.6000003814697266,
                0.6000003814697266,
                1.0,
                0.0,
                0.0,
                0.6000003814697266,
                1.0,
                1.0,
                0.39999961853027344,
                0.0,
                0.20000000298023224,
                0.820000171661377,
                0.8999999761581421,
                0.8999999761581421,
                0.10000000149011612,
                0.3800002932548523,
                0.25,
                0.75,
                0.2999997138977051,
                2.0,
                0.5,
                1.9000015258789062,
                0.30000001192092896,
                0.5400001406669617,
                0.699999988079071,
            ],
        ),
    ];
    for (delta, want) in cases {
        let h = adjust_hue(pix(&g, &[3, 4, 3]), delta).unwrap();
        assert_eq!(
            (h.op().op_type().as_str(), h.dtype()),
            ("AdjustHue", DType::F32)
        );
        same(&eval_f32(&g, &h), &want);
    }
}

#[test]
fn adjust_saturation_matches_tensorflow() {
    let g = Graph::new();
    let cases: [(f32, [f32; 36]); 3] = [
        (
            0.5,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                0.5,
                0.5,
                0.5,
                1.0,
                0.5,
                0.5,
                0.5,
                1.0,
                1.0,
                1.0,
                0.5,
                0.5499999523162842,
                0.6499999165534973,
                0.8999999761581421,
                0.8999999761581421,
                0.6000000238418579,
                0.5,
                0.5,
                0.75,
                0.675000011920929,
                2.0,
                1.25,
                1.5000001192092896,
                0.5,
                0.5,
                0.699999988079071,
            ],
        ),
        (
            2.0,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                0.0,
                0.0,
                0.25714272260665894,
                0.8999999761581421,
                0.8999999761581421,
                0.22499999403953552,
                0.0,
                0.0,
                0.75,
                0.5250000357627869,
                2.0,
                0.0,
                0.6666669845581055,
                0.0,
                0.0,
                0.699999988079071,
            ],
        ),
        (
            0.0,
            [
                0.5,
                0.5,
                0.5,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                1.0,
                0.8999999761581421,
                0.8999999761581421,
                0.8999999761581421,
                0.8999999761581421,
                0.8999999761581421,
                0.8999999761581421,
                0.75,
                0.75,
                0.75,
                2.0,
                2.0,
                2.0,
                0.699999988079071,
                0.699999988079071,
                0.699999988079071,
            ],
        ),
    ];
    for (scale, want) in cases {
        let s = adjust_saturation(pix(&g, &[3, 4, 3]), scale).unwrap();
        assert_eq!(s.op().op_type(), "AdjustSaturation");
        same(&eval_f32(&g, &s), &want);
    }
}

#[test]
fn uint8_images_convert_to_float_and_back() {
    let g = Graph::new();
    let h = adjust_hue(img_u8(&g), 0.3).unwrap();
    let s = adjust_saturation(img_u8(&g), 1.7).unwrap();
    assert_eq!((h.dtype(), s.dtype()), (DType::U8, DType::U8));
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&RunArgs::new().fetch(&h).fetch(&s)).unwrap();
    assert_eq!(
        r[0].to_vec::<u8>().unwrap(),
        [
            20, 0, 14, 50, 30, 44, 80, 60, 74, 110, 90, 104, 140, 120, 134, 170, 150, 164, 200,
            180, 194, 230, 210, 224
        ]
    );
    assert_eq!(
        r[1].to_vec::<u8>().unwrap(),
        [
            0, 10, 20, 16, 33, 50, 46, 63, 80, 76, 93, 110, 106, 123, 140, 136, 153, 170, 166, 183,
            200, 196, 213, 230
        ]
    );
}

#[test]
fn batches_of_images() {
    let g = Graph::new();
    let h = adjust_hue(pix(&g, &[2, 3, 2, 3]), -0.15).unwrap();
    let s = adjust_saturation(pix(&g, &[2, 3, 2, 3]), 0.3).unwrap();
    assert_eq!(h.shape(), Shape::known(&[2, 3, 2, 3]));
    same(
        &eval_f32(&g, &h),
        &[
            0.5,
            0.5,
            0.5,
            0.0,
            0.0,
            0.0,
            1.0,
            1.0,
            1.0,
            1.0,
            0.0,
            0.9000000953674316,
            0.9000000953674316,
            1.0,
            0.0,
            0.0,
            0.9000000953674316,
            1.0,
            1.0,
            0.09999996423721313,
            0.0,
            0.20000000298023224,
            0.8999999761581421,
            0.7699999809265137,
            0.8999999761581421,
            0.10000000149011612,
            0.6200000643730164,
            0.3500000238418579,
            0.75,
            0.25,
            1.6499996185302734,
            0.5,
            2.0,
            0.30000001192092896,
            0.6600000262260437,
            0.699999988079071,
        ],
    );
    same(
        &eval_f32(&g, &s),
        &[
            0.5,
            0.5,
            0.5,
            0.0,
            0.0,
            0.0,
            1.0,
            1.0,
            1.0,
            1.0,
            0.699999988079071,
            0.699999988079071,
            0.699999988079071,
            1.0,
            0.699999988079071,
            0.699999988079071,
            0.699999988079071,
            1.0,
            1.0,
            1.0,
            0.699999988079071,
            0.6899999380111694,
            0.7499998807907104,
            0.8999999761581421,
            0.8999999761581421,
            0.7199999690055847,
            0.6599999666213989,
            0.6000000238418579,
            0.75,
            0.7050000429153442,
            2.0,
            1.5499999523162842,
            1.7000000476837158,
            0.5799999833106995,
            0.5799999833106995,
            0.699999988079071,
        ],
    );
}

/// FNV-1a over the float32 bits, as the TensorFlow script hashed its outputs.
fn fnv(v: &[f32]) -> u64 {
    v.iter().fold(0xcbf29ce484222325, |h, x| {
        (h ^ x.to_bits() as u64).wrapping_mul(0x100000001b3)
    })
}

#[test]
fn four_thousand_pixels_match_tensorflow_bit_for_bit() {
    // `((i * 7919) % 1000) / 999` as float32, [64, 64, 3], with rows 0 and 1 given equal
    // channels (r == g, g == b) to take the kernels' tie branches.
    let mut v: Vec<f32> = (0..64 * 64 * 3)
        .map(|i| ((i * 7919) % 1000) as f32 / 999.0)
        .collect();
    for px in v[..64 * 3].chunks_exact_mut(3) {
        px[1] = px[0];
    }
    for px in v[64 * 3..128 * 3].chunks_exact_mut(3) {
        px[2] = px[1];
    }
    assert_eq!(fnv(&v), 0x2f53fd1b14b3725a);
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[64, 64, 3], v).unwrap()).unwrap();
    for (delta, want) in [
        (0.13, 0x5d698d14c63485e4),
        (-0.77, 0x3be1a8a82d7ca600),
        (0.5, 0xda924b59824ee339),
        (1.0, 0x62f2a5a1e76bf957),
    ] {
        let h = adjust_hue(&x, delta).unwrap();
        assert_eq!(fnv(&eval_f32(&g, &h)), want, "adjust_hue by {delta}");
    }
    for (scale, want) in [
        (0.37, 0x3d076e8d18cb0887),
        (1.9, 0xe32696551de878db),
        (0.001, 0xbe93047b0ac3e051),
        (0.0, 0x3db203c17fdc5782),
    ] {
        let s = adjust_saturation(&x, scale).unwrap();
        assert_eq!(fnv(&eval_f32(&g, &s)), want, "adjust_saturation by {scale}");
    }
}

/// TensorFlow's `tf.compat.v1.image.random_hue(u8, 0.3, seed=7)` and
/// `random_saturation(np.arange(24) / 23 as float32 [2, 4, 3], 0.5, 1.5, seed=8)`, three
/// runs of one session, with graph seed 5 and without one.
#[test]
fn seeded_random_hue_and_saturation_match_tensorflow() {
    type Runs = [([u8; 24], [f32; 24]); 3];
    let with_graph_seed: Runs = [
        (
            [
                0, 13, 20, 30, 43, 50, 60, 73, 80, 90, 103, 110, 120, 134, 140, 150, 164, 170, 180,
                194, 200, 210, 224, 230,
            ],
            [
                0.0,
                0.043478261679410934,
                0.08695652335882187,
                0.11940028518438339,
                0.1683957874774933,
                0.21739129722118378,
                0.2498350590467453,
                0.2988305687904358,
                0.3478260934352875,
                0.3802698254585266,
                0.4292653203010559,
                0.47826087474823,
                0.5107046365737915,
                0.5597001314163208,
                0.6086956262588501,
                0.6411394476890564,
                0.6901349425315857,
                0.739130437374115,
                0.7715741991996765,
                0.8205696940422058,
                0.8695651888847351,
                0.9020090103149414,
                0.9510045051574707,
                1.0,
            ],
        ),
        (
            [
                2, 20, 0, 32, 50, 30, 62, 80, 60, 92, 110, 90, 122, 140, 120, 152, 170, 150, 182,
                200, 180, 212, 230, 210,
            ],
            [
                0.02689298242330551,
                0.05692475289106369,
                0.08695652335882187,
                0.1573277711868286,
                0.1873595416545868,
                0.21739131212234497,
                0.2877625524997711,
                0.3177943229675293,
                0.3478260934352875,
                0.4181973338127136,
                0.4482291042804718,
                0.47826087474823,
                0.5486320853233337,
                0.5786638259887695,
                0.6086956262588501,
                0.6790668964385986,
                0.7090986371040344,
                0.739130437374115,
                0.8095016479492188,
                0.8395333886146545,
                0.8695651888847351,
                0.9399364590644836,
                0.9699681997299194,
                1.0,
            ],
        ),
        (
            [
                0, 15, 20, 30, 46, 50, 60, 76, 80, 90, 106, 110, 120, 136, 140, 150, 166, 170, 180,
                196, 200, 210, 226, 230,
            ],
            [
                0.0,
                0.043478261679410934,
                0.08695652335882187,
                0.09235003590583801,
                0.1548706591129303,
                0.21739129722118378,
                0.22278480231761932,
                0.2853054106235504,
                0.3478260934352875,
                0.35321956872940063,
                0.4157401919364929,
                0.47826087474823,
                0.4836543798446655,
                0.5461750030517578,
                0.6086956262588501,
                0.6140891909599304,
                0.6766098141670227,
                0.739130437374115,
                0.7445239424705505,
                0.8070445656776428,
                0.8695651888847351,
                0.8749587535858154,
                0.9374793767929077,
                1.0,
            ],
        ),
    ];
    let no_graph_seed: Runs = [
        (
            [
                0, 11, 20, 30, 41, 50, 60, 71, 80, 90, 101, 110, 120, 131, 140, 150, 161, 170, 180,
                191, 200, 210, 221, 230,
            ],
            [
                0.0,
                0.043478261679410934,
                0.08695652335882187,
                0.10595574975013733,
                0.16167351603507996,
                0.21739129722118378,
                0.23639053106307983,
                0.29210829734802246,
                0.3478260934352875,
                0.36682531237602234,
                0.42254307866096497,
                0.47826087474823,
                0.49726009368896484,
                0.5529778599739075,
                0.6086956262588501,
                0.6276949048042297,
                0.6834126710891724,
                0.739130437374115,
                0.7581296563148499,
                0.8138474225997925,
                0.8695651888847351,
                0.8885644674301147,
                0.9442822337150574,
                1.0,
            ],
        ),
        (
            [
                1, 0, 20, 31, 30, 50, 61, 60, 80, 91, 90, 110, 121, 120, 140, 151, 150, 170, 181,
                180, 200, 211, 210, 230,
            ],
            [
                0.004166699945926666,
                0.04556161165237427,
                0.08695652335882187,
                0.13460147380828857,
                0.17599637806415558,
                0.21739128232002258,
                0.2650362551212311,
                0.3064311444759369,
                0.3478260934352875,
                0.3954710364341736,
                0.4368659257888794,
                0.47826087474823,
                0.5259058475494385,
                0.5673007369041443,
                0.6086956262588501,
                0.6563406586647034,
                0.6977355480194092,
                0.739130437374115,
                0.7867753505706787,
                0.8281702399253845,
                0.8695651292800903,
                0.9172102212905884,
                0.9586051106452942,
                1.0,
            ],
        ),
        (
            [
                0, 20, 13, 30, 50, 43, 60, 80, 73, 90, 110, 103, 120, 140, 133, 150, 170, 163, 180,
                200, 193, 210, 230, 223,
            ],
            [
                0.0,
                0.043478261679410934,
                0.08695652335882187,
                0.09756288677453995,
                0.15747709572315216,
                0.21739129722118378,
                0.22799766063690186,
                0.2879118323326111,
                0.3478260934352875,
                0.35843244194984436,
                0.418346643447876,
                0.47826087474823,
                0.48886722326278687,
                0.5487813949584961,
                0.6086956262588501,
                0.6193020343780518,
                0.679216206073761,
                0.739130437374115,
                0.7497367858886719,
                0.8096509575843811,
                0.8695651888847351,
                0.8801715970039368,
                0.940085768699646,
                1.0,
            ],
        ),
    ];
    for (graph_seed, runs) in [(Some(5), with_graph_seed), (None, no_graph_seed)] {
        let g = Graph::new();
        if let Some(s) = graph_seed {
            g.set_random_seed(s);
        }
        let h = random_hue(img_u8(&g), 0.3, Some(7)).unwrap();
        let flt: Vec<f32> = (0..24).map(|i| i as f32 / 23.0).collect();
        let x = constant(&g, Tensor::from_vec(&[2, 4, 3], flt).unwrap()).unwrap();
        let s = random_saturation(&x, 0.5, 1.5, Some(8)).unwrap();
        let sess = Session::new(&g).unwrap();
        for (run, (hue, sat)) in runs.iter().enumerate() {
            let r = sess.run(&RunArgs::new().fetch(&h).fetch(&s)).unwrap();
            assert_eq!(&r[0].to_vec::<u8>().unwrap()[..], hue, "run {run}");
            same(&r[1].to_vec::<f32>().unwrap(), sat);
        }
    }
}

#[test]
fn build_time_errors_are_tensorflows() {
    let g = Graph::new();
    let img = pix(&g, &[3, 4, 3]);
    for (e, msg) in [
        (random_hue(&img, 0.6, None), "max_delta must be <= 0.5."),
        (
            random_hue(&img, -0.1, None),
            "max_delta must be non-negative.",
        ),
        (
            random_saturation(&img, 0.5, 0.5, None),
            "upper must be > lower.",
        ),
        (
            random_saturation(&img, 0.6, 0.5, None),
            "upper must be > lower.",
        ),
        (
            random_saturation(&img, -0.1, 1.0, None),
            "lower must be non-negative.",
        ),
    ] {
        let e = e.unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (weir_graph::Code::InvalidArgument, msg)
        );
    }
    assert!(adjust_hue(&img, 1.0).is_ok() && adjust_hue(&img, -1.0).is_ok());
    assert!(random_hue(&img, 0.5, None).is_ok() && random_hue(&img, 0.0, None).is_ok());
    let flat = constant(&g, Tensor::from_vec(&[2, 3], vec![0.5f32; 6]).unwrap()).unwrap();
    assert_eq!(
        adjust_hue(&flat, 0.1).unwrap_err().message(),
        "Shape must be at least rank 3 but is rank 2 for 'AdjustHue' with input shapes: [2,3], []."
    );
    assert_eq!(
        adjust_saturation(&flat, 0.1).unwrap_err().message(),
        "Shape must be at least rank 3 but is rank 2 for 'AdjustSaturation' with input shapes: [2,3], []."
    );
    // As in TensorFlow, the channel count is only checked when the graph runs.
    let four = placeholder(&g, DType::F32, Shape::known(&[2, 2, 4])).unwrap();
    assert!(adjust_hue(&four, 0.1).is_ok());
}

#[test]
fn run_time_errors_are_tensorflows() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let d = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let h = adjust_hue(&x, &d).unwrap();
    let s = adjust_saturation(&x, &d).unwrap();
    assert_eq!((h.shape(), s.shape()), (Shape::unknown(), Shape::unknown()));
    let sess = Session::new(&g).unwrap();
    let scalar = Tensor::from(0.1f32);
    let run = |o: &Output, img: Tensor, delta: Tensor| {
        sess.run(&RunArgs::new().feed(&x, img).feed(&d, delta).fetch(o))
    };
    for (o, name) in [(&h, "delta"), (&s, "scale")] {
        let e = run(
            o,
            Tensor::from_vec(&[2, 2], vec![0.0f32; 4]).unwrap(),
            scalar.clone(),
        )
        .unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (
                weir_graph::Code::InvalidArgument,
                "input must be at least 3-D, got shape[2,2]"
            )
        );
        let e = run(
            o,
            Tensor::from_vec(&[1, 2, 4], vec![0.0f32; 8]).unwrap(),
            scalar.clone(),
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "input must have 3 channels but instead has 4 channels."
        );
        let e = run(
            o,
            Tensor::from_vec(&[1, 1, 3], vec![0.0f32; 3]).unwrap(),
            Tensor::from(vec![0.1f32, 0.2]),
        )
        .unwrap_err();
        assert_eq!(e.message(), format!("{name} must be scalar: [2]"));
        let empty = run(
            o,
            Tensor::from_vec(&[0, 2, 3], Vec::<f32>::new()).unwrap(),
            scalar.clone(),
        )
        .unwrap();
        assert_eq!(empty[0].shape(), &[0, 2, 3]);
    }
}

/// Equal values, NaN matching NaN whatever its sign bit.
fn same_or_nan(got: &[f32], want: &[f32]) {
    let ok = got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits());
    assert!(ok, "\n got {got:?}\nwant {want:?}");
}

#[test]
fn nan_and_infinity_follow_tensorflows_branches() {
    let g = Graph::new();
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let x = constant(
        &g,
        Tensor::from_vec(
            &[1, 5, 3],
            vec![
                nan, 0.2, 0.3, 0.1, nan, 0.3, 0.5, 0.2, nan, inf, 0.2, 0.3, 0.3, 0.2, -0.5,
            ],
        )
        .unwrap(),
    )
    .unwrap();
    let cases: [(&str, f32, [f32; 15]); 4] = [
        (
            "hue",
            0.2,
            [
                nan,
                0.20000000298023224,
                nan,
                0.30000001192092896,
                nan,
                nan,
                0.5,
                0.20000000298023224,
                nan,
                inf,
                inf,
                0.20000000298023224,
                -0.5,
                0.30000001192092896,
                -0.4399999678134918,
            ],
        ),
        (
            "hue",
            nan,
            [
                nan,
                0.20000000298023224,
                nan,
                0.30000001192092896,
                nan,
                nan,
                0.5,
                0.20000000298023224,
                nan,
                inf,
                0.20000000298023224,
                nan,
                0.30000001192092896,
                -0.5,
                nan,
            ],
        ),
        (
            "sat",
            1.5,
            [
                nan,
                nan,
                nan,
                0.10000000149011612,
                0.10000000149011612,
                0.10000000149011612,
                0.04999998211860657,
                0.04999998211860657,
                0.04999998211860657,
                nan,
                nan,
                nan,
                0.30000001192092896,
                0.26250001788139343,
                0.0,
            ],
        ),
        (
            "sat",
            nan,
            [
                nan,
                nan,
                nan,
                0.10000000149011612,
                0.10000000149011612,
                0.10000000149011612,
                0.5,
                0.5,
                0.5,
                nan,
                nan,
                nan,
                0.30000001192092896,
                0.30000001192092896,
                0.30000001192092896,
            ],
        ),
    ];
    for (op, param, want) in cases {
        let p = constant(&g, param).unwrap();
        let o = if op == "hue" {
            adjust_hue(&x, &p).unwrap()
        } else {
            adjust_saturation(&x, &p).unwrap()
        };
        same_or_nan(&eval_f32(&g, &o), &want);
    }
}

#[test]
fn hue_deltas_outside_one_turn_wrap_as_tensorflows_loops_do() {
    // The builder refuses such numbers, but a delta tensor can hold them; TensorFlow's graph
    // mode runs them through its wrap-around loops.
    let mut v: Vec<f32> = (0..64 * 64 * 3)
        .map(|i| ((i * 7919) % 1000) as f32 / 999.0)
        .collect();
    for px in v[..64 * 3].chunks_exact_mut(3) {
        px[1] = px[0];
    }
    for px in v[64 * 3..128 * 3].chunks_exact_mut(3) {
        px[2] = px[1];
    }
    let g = Graph::new();
    let x = constant(&g, Tensor::from_vec(&[64, 64, 3], v).unwrap()).unwrap();
    for (delta, want) in [
        (3.7f32, 0x604d50fddf17346c_u64),
        (-2.9, 0x2ebf97630ea52a5e),
        (1000.3, 0x91e509131f0660b),
    ] {
        let d = constant(&g, delta).unwrap();
        let h = adjust_hue(&x, &d).unwrap();
        assert_eq!(fnv(&eval_f32(&g, &h)), want, "adjust_hue by {delta}");
    }
}

#[test]
fn a_hue_delta_beyond_one_turn_wraps_as_in_tensorflows_graph_mode() {
    // TensorFlow 2.21's graph mode takes adjust_hue(x, 1.5) and gives what delta 0.5 gives.
    let g = Graph::new();
    let x = weir_ops::array::constant(
        &g,
        Tensor::from_vec(&[1, 2, 3], vec![1.0f32, 0.0, 0.0, 0.2, 0.5, 0.9]).unwrap(),
    )
    .unwrap();
    let (wide, half) = (adjust_hue(&x, 1.5).unwrap(), adjust_hue(&x, 0.5).unwrap());
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&RunArgs::new().fetch(&wide).fetch(&half)).unwrap();
    let want = [0.0f32, 1.0, 1.0, 0.9, 0.599_999_8, 0.2];
    for t in &r {
        assert_eq!(t.to_vec::<f32>().unwrap(), want);
    }
}
