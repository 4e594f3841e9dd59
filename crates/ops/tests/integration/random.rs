//! Random ops in a session: TensorFlow's exact numbers for seeded ops, per-run redraws,
//! reproducibility across sessions, shapes and errors.
//!
//! The reference values were printed by TensorFlow 2.21 (CPU) in graph mode, e.g.
//! `tf.raw_ops.RandomUniform(shape=[6], dtype=tf.float32, seed=1, seed2=2)` run twice in one
//! session.

// Expected values are TensorFlow's printed outputs, digit for digit.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use weir_graph::{DType, Graph, Output, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::random::{RandomCrop, RandomNormal, RandomUniform, TruncatedNormal};
use weir_session::{RunArgs, Session};

fn raw(g: &Graph, op: &str, shape: &[i32], dtype: DType, seeds: (i64, i64)) -> Output {
    let s = constant(g, Tensor::from(shape.to_vec())).unwrap();
    g.new_operation(op)
        .input(s)
        .attr("dtype", dtype)
        .attr("seed", seeds.0)
        .attr("seed2", seeds.1)
        .build()
        .unwrap()
        .output(0)
        .unwrap()
}

fn two_runs(g: &Graph, o: &Output) -> (Tensor, Tensor) {
    let sess = Session::new(g).unwrap();
    (sess.eval(o).unwrap(), sess.eval(o).unwrap())
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

#[test]
fn uniform_float_matches_tensorflow() {
    let g = Graph::new();
    let u = raw(&g, "RandomUniform", &[6], DType::F32, (1, 2));
    let (a, b) = two_runs(&g, &u);
    assert_eq!(
        f32s(&a),
        [
            0.406396746635437,
            0.8575996160507202,
            0.05539584159851074,
            0.08587229251861572,
            0.41215360164642334,
            0.036630868911743164
        ]
    );
    assert_eq!(
        f32s(&b),
        [
            0.49945497512817383,
            0.06284701824188232,
            0.4600658416748047,
            0.20280075073242188,
            0.0886303186416626,
            0.9726002216339111
        ]
    );
    let d = raw(&g, "RandomUniform", &[5], DType::F64, (1, 2));
    let (a, b) = two_runs(&g, &d);
    assert_eq!(
        f64s(&a),
        [
            0.2511744980841868,
            0.44316677020093853,
            0.2972296290781924,
            0.2577066944684787,
            0.9527181182843207
        ]
    );
    assert_eq!(
        f64s(&b),
        [
            0.278639287485301,
            0.6190779909200372,
            0.8153742432743751,
            0.03020991117343086,
            0.12967122512561158
        ]
    );
}

fn assert_close32(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 2e-7 * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

fn assert_close64(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-14 * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn normal_and_truncated_match_tensorflow() {
    let g = Graph::new();
    let n = raw(&g, "RandomStandardNormal", &[6], DType::F32, (1, 2));
    let (a, b) = two_runs(&g, &n);
    assert_close32(
        &f32s(&a),
        &[
            -1.0467792749404907,
            0.8397045731544495,
            1.235836386680603,
            2.0637853145599365,
            0.3037427067756653,
            1.2963250875473022,
        ],
    );
    assert_close32(
        &f32s(&b),
        &[
            0.453302264213562,
            1.087654709815979,
            1.1917062997817993,
            0.3641531467437744,
            -0.3771349787712097,
            2.168947219848633,
        ],
    );
    let n = raw(&g, "RandomStandardNormal", &[5], DType::F64, (1, 2));
    let (a, b) = two_runs(&g, &n);
    assert_close64(
        &f64s(&a),
        &[
            0.58105877128258,
            -1.557429113677359,
            1.555896998265924,
            -0.07539950171215416,
            -0.27352397455564637,
        ],
    );
    assert_close64(
        &f64s(&b),
        &[
            -1.0875801872475817,
            -1.1716841538542269,
            0.12054893173418961,
            0.6274425144439184,
            1.0565444642336512,
        ],
    );
    let t = raw(&g, "TruncatedNormal", &[6], DType::F32, (1, 2));
    let (a, b) = two_runs(&g, &t);
    assert_close32(
        &f32s(&a),
        &[
            -1.0467792749404907,
            0.8397045731544495,
            1.235836386680603,
            0.3037427067756653,
            0.38869091868400574,
            1.236704707145691,
        ],
    );
    assert_close32(
        &f32s(&b),
        &[
            0.453302264213562,
            1.087654709815979,
            1.1917062997817993,
            0.3641531467437744,
            -0.9494025111198425,
            0.8800334930419922,
        ],
    );
    let t = raw(&g, "TruncatedNormal", &[5], DType::F64, (1, 2));
    let (a, b) = two_runs(&g, &t);
    assert_close64(
        &f64s(&a),
        &[
            0.58105877128258,
            -1.557429113677359,
            -1.1295845092323191,
            -0.5156530039692888,
            -1.1279218571369347,
        ],
    );
    assert_close64(
        &f64s(&b),
        &[
            -1.0875801872475817,
            -1.1716841538542269,
            -0.3394448292736481,
            -0.5852322527807744,
            -0.08471485746960353,
        ],
    );
}

#[test]
fn uniform_int_matches_tensorflow() {
    let g = Graph::new();
    g.set_random_seed(1);
    let i = RandomUniform::new([7])
        .minval(-5)
        .maxval(10)
        .dtype(DType::I32)
        .seed(2)
        .build(&g)
        .unwrap();
    assert_eq!(i.op().op_type(), "RandomUniformInt");
    let (a, b) = two_runs(&g, &i);
    assert_eq!(a.to_vec::<i32>().unwrap(), [9, 0, 7, 9, 6, -4, 8]);
    assert_eq!(b.to_vec::<i32>().unwrap(), [-3, 5, -5, -3, -1, 9, 1]);
    let l = RandomUniform::new([7])
        .minval(-5)
        .maxval(10)
        .dtype(DType::I64)
        .seed(2)
        .build(&g)
        .unwrap();
    let (a, b) = two_runs(&g, &l);
    assert_eq!(a.to_vec::<i64>().unwrap(), [-1, 6, 7, 6, -2, 8, 6]);
    assert_eq!(b.to_vec::<i64>().unwrap(), [7, -3, -2, 7, 1, -3, -2]);
}

#[test]
fn python_level_builders_match_tensorflow() {
    // tf.compat.v1.set_random_seed(7); tf.random.uniform([3], -2.0, 3.0, seed=3)
    let g = Graph::new();
    g.set_random_seed(7);
    let u = RandomUniform::new([3])
        .minval(-2.0)
        .maxval(3.0)
        .seed(3)
        .build(&g)
        .unwrap();
    assert_eq!(u.name(), "random_uniform:0");
    let (a, b) = two_runs(&g, &u);
    assert_close32(
        &f32s(&a),
        &[
            0.005439281463623047,
            -0.11580538749694824,
            -0.4535360336303711,
        ],
    );
    assert_close32(
        &f32s(&b),
        &[0.8537182807922363, 0.8995656967163086, -1.2784541845321655],
    );

    // With only a graph seed, seed2 numbers the graph's seedless ops from 0 (TensorFlow 2.21's
    // rule; TensorFlow 1.x took the op count), whatever else the graph holds.
    let g = Graph::new();
    g.set_random_seed(7);
    constant(&g, 1i32).unwrap();
    let u = RandomUniform::new([3])
        .minval(-2.0)
        .maxval(3.0)
        .build(&g)
        .unwrap();
    let raw_op = g.operation_by_name("random_uniform/RandomUniform").unwrap();
    assert_eq!(raw_op.attr::<i64>("seed").unwrap(), 7);
    assert_eq!(raw_op.attr::<i64>("seed2").unwrap(), 0);
    let (a, _) = two_runs(&g, &u);
    assert!(f32s(&a).iter().all(|&x| (-2.0..3.0).contains(&x)));

    // tf.random.normal([3], 1.0, 2.0, seed=3) and truncated_normal likewise (no graph seed).
    let g = Graph::new();
    let n = RandomNormal::new([3])
        .mean(1.0)
        .stddev(2.0)
        .seed(3)
        .build(&g)
        .unwrap();
    let t = TruncatedNormal::new([3])
        .mean(1.0)
        .stddev(2.0)
        .seed(3)
        .build(&g)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let want = [
        [3.123324155807495f32, -0.7571566104888916, 1.22374427318573],
        [0.6669894456863403, 0.39530080556869507, -1.5472941398620605],
    ];
    for w in want {
        let out = sess.run(&RunArgs::new().fetch(&n).fetch(&t)).unwrap();
        assert_close32(&f32s(&out[0]), &w);
        assert_close32(&f32s(&out[1]), &w);
    }
}

#[test]
fn shuffle_and_multinomial_match_tensorflow() {
    let g = Graph::new();
    let v = constant(&g, Tensor::from((0..10).collect::<Vec<i32>>())).unwrap();
    let s = g
        .new_operation("RandomShuffle")
        .input(&v)
        .attr("seed", 1i64)
        .attr("seed2", 2i64)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let (a, b) = two_runs(&g, &s);
    assert_eq!(a.to_vec::<i32>().unwrap(), [9, 0, 8, 6, 1, 3, 7, 2, 4, 5]);
    assert_eq!(b.to_vec::<i32>().unwrap(), [8, 7, 4, 3, 2, 1, 9, 5, 6, 0]);

    let m = constant(
        &g,
        Tensor::from_vec(&[5, 2], (0..10).collect::<Vec<i32>>()).unwrap(),
    )
    .unwrap();
    let s = g
        .new_operation("RandomShuffle")
        .input(&m)
        .attr("seed", 1i64)
        .attr("seed2", 2i64)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let (a, b) = two_runs(&g, &s);
    assert_eq!(a.shape(), &[5, 2]);
    assert_eq!(a.to_vec::<i32>().unwrap(), [8, 9, 0, 1, 4, 5, 2, 3, 6, 7]);
    assert_eq!(b.to_vec::<i32>().unwrap(), [2, 3, 6, 7, 0, 1, 8, 9, 4, 5]);

    let probs = [0.1f32, 0.2, 0.7, 0.5, 0.5, 0.0];
    let logits = constant(
        &g,
        Tensor::from_vec(&[2, 3], probs.iter().map(|p| p.ln()).collect()).unwrap(),
    )
    .unwrap();
    let num = constant(&g, 5i32).unwrap();
    let d = g
        .new_operation("Multinomial")
        .input(&logits)
        .input(&num)
        .attr("seed", 1i64)
        .attr("seed2", 2i64)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    assert_eq!(d.dtype(), DType::I64);
    assert_eq!(d.shape(), Shape::known(&[2, 5]));
    let (a, b) = two_runs(&g, &d);
    assert_eq!(a.to_vec::<i64>().unwrap(), [1, 2, 1, 1, 2, 1, 1, 1, 1, 0]);
    assert_eq!(b.to_vec::<i64>().unwrap(), [2, 1, 1, 1, 2, 1, 0, 0, 1, 0]);
}

#[test]
fn random_crop_matches_tensorflow() {
    // tf.image.random_crop(tf.reshape(tf.range(24), [4, 3, 2]), [2, 2, 2], seed=3)
    let g = Graph::new();
    let v = constant(
        &g,
        Tensor::from_vec(&[4, 3, 2], (0..24).collect::<Vec<i32>>()).unwrap(),
    )
    .unwrap();
    let c = RandomCrop::new(&[2, 2, 2]).seed(3).build(&v).unwrap();
    assert_eq!(c.shape(), Shape::known(&[2, 2, 2]));
    let (a, b) = two_runs(&g, &c);
    assert_eq!(a.to_vec::<i32>().unwrap(), [8, 9, 10, 11, 14, 15, 16, 17]);
    assert_eq!(b.to_vec::<i32>().unwrap(), [12, 13, 14, 15, 18, 19, 20, 21]);
}
