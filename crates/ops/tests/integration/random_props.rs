//! Random ops in a session: per-run redraws, reproducibility across sessions and threads,
//! distribution moments, shape inference and errors with TensorFlow's wording.

use weir_graph::{DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::random::{
    multinomial, random_crop, random_normal, random_shuffle, random_uniform, truncated_normal,
    Multinomial, RandomNormal, RandomUniform, TruncatedNormal,
};
use weir_session::{RunArgs, Session};

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

fn mean_var(v: &[f32]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let var = v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / n;
    (m, var)
}

#[test]
fn seeded_ops_replay_across_sessions_and_unseeded_ops_differ() {
    let g = Graph::new();
    let seeded = RandomNormal::new([50]).seed(11).build(&g).unwrap();
    let fresh = random_uniform(&g, [50]).unwrap();
    let (s1, s2) = (Session::new(&g).unwrap(), Session::new(&g).unwrap());
    let a: Vec<Tensor> = (0..3).map(|_| s1.eval(&seeded).unwrap()).collect();
    let b: Vec<Tensor> = (0..3).map(|_| s2.eval(&seeded).unwrap()).collect();
    assert_eq!(a, b);
    assert_ne!(a[0], a[1]);
    assert_ne!(s1.eval(&fresh).unwrap(), s2.eval(&fresh).unwrap());
    let op = fresh.op().inputs()[0].op();
    assert_eq!(op.op_type(), "Const");
    let raw_op = g.operation_by_name("random_uniform/RandomUniform").unwrap();
    assert_eq!(
        (
            raw_op.attr::<i64>("seed").unwrap(),
            raw_op.attr::<i64>("seed2").unwrap()
        ),
        (0, 0)
    );
}

#[test]
fn distributions_have_the_right_moments() {
    let g = Graph::new();
    let u = RandomUniform::new([20000])
        .minval(2.0)
        .maxval(4.0)
        .seed(1)
        .build(&g)
        .unwrap();
    let n = RandomNormal::new([20000])
        .mean(-1.0)
        .stddev(3.0)
        .seed(2)
        .build(&g)
        .unwrap();
    let t = TruncatedNormal::new([20000])
        .stddev(2.0)
        .seed(3)
        .build(&g)
        .unwrap();
    let i = RandomUniform::new([20000])
        .maxval(10)
        .dtype(DType::I32)
        .seed(4)
        .build(&g)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(&RunArgs::new().fetch(&u).fetch(&n).fetch(&t).fetch(&i))
        .unwrap();
    let uv = f32s(&out[0]);
    assert!(uv.iter().all(|&x| (2.0..4.0).contains(&x)));
    let (m, v) = mean_var(&uv);
    assert!(
        (m - 3.0).abs() < 0.02 && (v - 1.0 / 3.0).abs() < 0.02,
        "{m} {v}"
    );
    let (m, v) = mean_var(&f32s(&out[1]));
    assert!((m + 1.0).abs() < 0.1 && (v - 9.0).abs() < 0.4, "{m} {v}");
    let tv = f32s(&out[2]);
    assert!(tv.iter().all(|&x| x.abs() < 4.0));
    let (m, v) = mean_var(&tv);
    // A unit normal truncated at 2 sigma has variance 0.774; scaled by 2 that is 3.10.
    assert!(m.abs() < 0.05 && (v - 3.10).abs() < 0.15, "{m} {v}");
    let mut counts = [0usize; 10];
    for x in out[3].to_vec::<i32>().unwrap() {
        counts[x as usize] += 1;
    }
    assert!(
        counts.iter().all(|&c| (1700..2300).contains(&c)),
        "{counts:?}"
    );
}

#[test]
fn multinomial_frequencies_follow_softmax() {
    let g = Graph::new();
    let logits = constant(
        &g,
        Tensor::from_vec(&[1, 3], vec![0.0f64, 1.0, 2.0]).unwrap(),
    )
    .unwrap();
    let d = Multinomial::new(30000)
        .seed(5)
        .output_dtype(DType::I32)
        .build(&logits)
        .unwrap();
    let out = Session::new(&g).unwrap().eval(&d).unwrap();
    let mut counts = [0f64; 3];
    for x in out.to_vec::<i32>().unwrap() {
        counts[x as usize] += 1.0;
    }
    let z = 1.0 + 1f64.exp() + 2f64.exp();
    for (c, l) in counts.iter().zip([0.0f64, 1.0, 2.0]) {
        assert!((c / 30000.0 - l.exp() / z).abs() < 0.015, "{counts:?}");
    }
    // -inf logits are never drawn; an empty draw count gives [batch, 0].
    let g = Graph::new();
    let logits = constant(
        &g,
        Tensor::from_vec(
            &[2, 2],
            vec![f32::NEG_INFINITY, 0.0, 0.0, f32::NEG_INFINITY],
        )
        .unwrap(),
    )
    .unwrap();
    let d = multinomial(&logits, 20).unwrap();
    let none = multinomial(&logits, 0).unwrap();
    let sess = Session::new(&g).unwrap();
    let v = sess.eval(&d).unwrap().to_vec::<i64>().unwrap();
    assert!(v[..20].iter().all(|&x| x == 1) && v[20..].iter().all(|&x| x == 0));
    assert_eq!(sess.eval(&none).unwrap().shape(), &[2, 0]);
}

#[test]
fn multinomial_errors() {
    let g = Graph::new();
    let l = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let n = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let d = g
        .new_operation("Multinomial")
        .input(&l)
        .input(&n)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    assert_eq!(d.shape(), Shape::unknown_of_rank(2));
    let sess = Session::new(&g).unwrap();
    let run = |lv: Tensor, nv: i32| {
        sess.run(
            &RunArgs::new()
                .feed(&l, lv)
                .feed(&n, Tensor::from(nv))
                .fetch(&d),
        )
    };
    let e = run(Tensor::from(vec![1.0f32]), 1).unwrap_err();
    assert!(
        e.is_invalid_argument() && e.message() == "logits should be a matrix, got shape [1]",
        "{e}"
    );
    let e = run(Tensor::from_vec(&[1, 1], vec![1.0f32]).unwrap(), -1).unwrap_err();
    assert_eq!(e.message(), "num_samples should be non-negative, got -1");
    let e = run(Tensor::from_vec(&[3, 0], Vec::<f32>::new()).unwrap(), 1).unwrap_err();
    assert_eq!(e.message(), "num_classes should be positive, got 0");
    assert_eq!(e.node().unwrap().op_type, "Multinomial");
    let ints = constant(&g, Tensor::from_vec(&[1, 2], vec![1i32, 2]).unwrap()).unwrap();
    assert!(multinomial(&ints, 2).unwrap_err().is_invalid_argument());
    let vec_logits = constant(&g, Tensor::from(vec![1.0f32, 2.0])).unwrap();
    assert!(multinomial(&vec_logits, 2).is_err());
}

#[test]
fn shapes_are_inferred_and_checked() {
    let g = Graph::new();
    let dyn_shape = placeholder(&g, DType::I64, Shape::known(&[3])).unwrap();
    let u = random_uniform(&g, &dyn_shape).unwrap();
    assert_eq!(u.shape(), Shape::unknown_of_rank(3));
    let any = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    assert_eq!(random_normal(&g, &any).unwrap().shape(), Shape::unknown());
    assert_eq!(
        truncated_normal(&g, [4, 0]).unwrap().shape(),
        Shape::known(&[4, 0])
    );
    let bad = placeholder(&g, DType::I32, Shape::known(&[2, 2])).unwrap();
    let e = random_uniform(&g, &bad).unwrap_err();
    assert!(e.message().contains("must be rank 1"), "{e}");
    let f = placeholder(&g, DType::F32, Shape::known(&[2])).unwrap();
    assert!(random_uniform(&g, &f).unwrap_err().is_invalid_argument());
    assert!(RandomUniform::new([2])
        .dtype(DType::String)
        .build(&g)
        .is_err());
    assert!(RandomNormal::new([2]).dtype(DType::I32).build(&g).is_err());
    let e = RandomUniform::new([2])
        .dtype(DType::I32)
        .build(&g)
        .unwrap_err();
    assert_eq!(e.message(), "Must specify maxval for integer dtype int32");
    assert!(RandomUniform::new([2])
        .dtype(DType::I32)
        .maxval(1.5)
        .build(&g)
        .is_err());
    assert!(RandomUniform::new([2])
        .dtype(DType::I32)
        .maxval(3_000_000_000i64)
        .build(&g)
        .is_err());
    let sh = placeholder(&g, DType::I32, Shape::known(&[1])).unwrap();
    let i = RandomUniform::new(&sh)
        .dtype(DType::I64)
        .minval(i64::MIN)
        .maxval(i64::MAX)
        .seed(1)
        .build(&g)
        .unwrap();
    assert_eq!(i.shape(), Shape::unknown_of_rank(1));
    let sess = Session::new(&g).unwrap();
    let out = sess
        .run(&RunArgs::new().feed(&sh, Tensor::from(vec![3i32])).fetch(&i))
        .unwrap();
    assert_eq!(out[0].shape(), &[3]);
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&sh, Tensor::from(vec![-3i32]))
                .fetch(&i),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument() && e.message().contains("-3"), "{e}");
    let empty = sess
        .run(
            &RunArgs::new()
                .feed(&dyn_shape, Tensor::from(vec![2i64, 0, 5]))
                .fetch(&u),
        )
        .unwrap();
    assert_eq!(empty[0].shape(), &[2, 0, 5]);
}

#[test]
fn uniform_int_needs_a_nonempty_range() {
    let g = Graph::new();
    let lo = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let shape = constant(&g, Tensor::from(vec![2i32])).unwrap();
    let hi = constant(&g, 5i32).unwrap();
    let i = g
        .new_operation("RandomUniformInt")
        .input(&shape)
        .input(&lo)
        .input(&hi)
        .build()
        .unwrap()
        .output(0)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(&RunArgs::new().feed(&lo, Tensor::from(5i32)).fetch(&i))
        .unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(e.message(), "Need minval < maxval, got 5 >= 5");
    let v = sess
        .run(&RunArgs::new().feed(&lo, Tensor::from(4i32)).fetch(&i))
        .unwrap();
    assert_eq!(v[0].to_vec::<i32>().unwrap(), vec![4, 4]);
    let vec_hi = constant(&g, Tensor::from(vec![5i32])).unwrap();
    let e = g
        .new_operation("RandomUniformInt")
        .input(&shape)
        .input(&lo)
        .input(&vec_hi)
        .build()
        .unwrap_err();
    assert!(e.message().contains("must be rank 0"), "{e}");
}

#[test]
fn shuffle_permutes_any_dtype_and_passes_trivial_inputs() {
    let g = Graph::new();
    let words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    let s = constant(&g, Tensor::from(words.clone())).unwrap();
    let shuffled = random_shuffle(&s, Some(3)).unwrap();
    let scalar = random_shuffle(constant(&g, 5.0f64).unwrap(), None).unwrap();
    let one_row = random_shuffle(
        constant(&g, Tensor::from_vec(&[1, 3], vec![1u8, 2, 3]).unwrap()).unwrap(),
        None,
    )
    .unwrap();
    let empty = random_shuffle(
        constant(&g, Tensor::from_vec(&[0, 2], Vec::<bool>::new()).unwrap()).unwrap(),
        None,
    )
    .unwrap();
    let sess = Session::new(&g).unwrap();
    let a = sess.eval(&shuffled).unwrap().to_strings().unwrap();
    let b = sess.eval(&shuffled).unwrap().to_strings().unwrap();
    assert_ne!(a, words);
    assert_ne!(a, b);
    let mut sorted = a.clone();
    sorted.sort();
    let mut want = words.clone();
    want.sort();
    assert_eq!(sorted, want);
    assert_eq!(sess.eval(&scalar).unwrap(), Tensor::from(5.0f64));
    assert_eq!(
        sess.eval(&one_row).unwrap().to_vec::<u8>().unwrap(),
        vec![1, 2, 3]
    );
    assert_eq!(sess.eval(&empty).unwrap().shape(), &[0, 2]);
}

#[test]
fn random_crop_shapes_and_errors() {
    let g = Graph::new();
    let img = placeholder(&g, DType::F32, Shape::new(vec![None, Some(5), Some(3)])).unwrap();
    let c = random_crop(&img, &[4, 4, 3]).unwrap();
    assert_eq!(c.shape(), Shape::known(&[4, 4, 3]));
    assert!(random_crop(&img, &[4, 4])
        .unwrap_err()
        .message()
        .contains("rank"));
    assert!(random_crop(&img, &[4, 6, 3])
        .unwrap_err()
        .message()
        .contains("Need value.shape >= size"));
    let sess = Session::new(&g).unwrap();
    let v = Tensor::from_vec(&[6, 5, 3], (0..90).map(|x| x as f32).collect()).unwrap();
    for _ in 0..10 {
        let out = sess
            .run(&RunArgs::new().feed(&img, v.clone()).fetch(&c))
            .unwrap();
        let o = out[0].to_vec::<f32>().unwrap();
        // Rows of a window are runs of 12 consecutive values, 15 apart.
        assert_eq!(o[0] as usize % 3, 0);
        assert_eq!(o[11] - o[0], 11.0);
        assert_eq!(o[12] - o[0], 15.0);
    }
    let small = Tensor::from_vec(&[3, 5, 3], vec![0.0f32; 45]).unwrap();
    let e = sess
        .run(&RunArgs::new().feed(&img, small).fetch(&c))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "assertion failed: [Need value.shape >= size, got ] [3 5 3] [4 4 3]"
    );
    let whole = random_crop(constant(&g, Tensor::from(vec![1i64, 2, 3])).unwrap(), &[3]).unwrap();
    assert_eq!(
        sess.eval(&whole).unwrap().to_vec::<i64>().unwrap(),
        vec![1, 2, 3]
    );
}

#[test]
fn concurrent_runs_draw_disjoint_slices_of_one_stream() {
    // Four threads share one session: each run reserves its own range of the op's stream, so
    // together they see exactly the draws that 40 sequential runs of another session see.
    let g = Graph::new();
    let u = RandomUniform::new([8]).seed(9).build(&g).unwrap();
    let seq = Session::new(&g).unwrap();
    let mut want: Vec<Vec<u32>> = (0..40)
        .map(|_| {
            f32s(&seq.eval(&u).unwrap())
                .iter()
                .map(|x| x.to_bits())
                .collect()
        })
        .collect();
    let sess = Session::new(&g).unwrap();
    let mut got: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let h = sess.handle();
                let u = u.clone();
                s.spawn(move || {
                    (0..10)
                        .map(|_| {
                            f32s(&h.eval(&u).unwrap())
                                .iter()
                                .map(|x| x.to_bits())
                                .collect::<Vec<u32>>()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("runner thread panicked"))
            .collect()
    });
    want.sort();
    got.sort();
    assert_eq!(got, want);
}
