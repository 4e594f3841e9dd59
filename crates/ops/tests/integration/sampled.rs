//! Candidate sampling against TensorFlow 2.21 (`data/sampled/expected.json`, written by
//! `make_sampled.py`): the seeded samplers' candidates and expected counts, run after run,
//! `compute_accidental_hits`, `nce_loss` / `sampled_softmax_loss` values with fixed
//! `sampled_values`, and `sampled_softmax_loss` with its own seeded sampler; plus the samplers' properties (range, uniqueness, determinism, a
//! chi-square check of the distribution with a fixed seed) and TensorFlow's errors.

#[path = "sampled_build.rs"]
mod build;

use weir_graph::{Code, DType, Graph, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{
    compute_accidental_hits, fixed_unigram_candidate_sampler, log_uniform_candidate_sampler,
    sampled_softmax_loss, uniform_candidate_sampler, CandidateSamples,
    FixedUnigramCandidateSampler,
};
use weir_session::{RunArgs, Session};

use build::{assert_close, tensor};

fn run3(sess: &Session, s: &CandidateSamples) -> Result<Vec<Tensor>> {
    sess.run(
        &RunArgs::new()
            .fetch(&s.sampled_candidates)
            .fetch(&s.true_expected_count)
            .fetch(&s.sampled_expected_count),
    )
}

#[test]
fn samplers_match_tensorflow() -> Result<()> {
    let doc = build::doc();
    let cases = doc["samplers"].as_array().unwrap();
    assert_eq!(cases.len(), 15);
    for case in cases {
        let g = Graph::new();
        g.set_random_seed(case["graph_seed"].as_i64().unwrap());
        let t = constant(&g, tensor(&case["true_classes"]))?;
        let u = |k: &str| case[k].as_u64().unwrap() as usize;
        let (nt, ns, unique, rm) = (
            u("num_true"),
            u("num_sampled"),
            case["unique"].as_bool().unwrap(),
            u("range_max"),
        );
        let seed = case["op_seed"].as_i64();
        let s = match case["kind"].as_str().unwrap() {
            "uniform" => uniform_candidate_sampler(&t, nt, ns, unique, rm, seed)?,
            "log_uniform" => log_uniform_candidate_sampler(&t, nt, ns, unique, rm, seed)?,
            _ => {
                let unigrams: Vec<f32> = case["unigrams"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap() as f32)
                    .collect();
                FixedUnigramCandidateSampler::new(nt, ns, unique, rm, &unigrams)
                    .distortion(case["distortion"].as_f64().unwrap() as f32)
                    .num_reserved_ids(u("num_reserved_ids"))
                    .shards(u("num_shards"), u("shard"))
                    .seed(seed.unwrap())
                    .build(&t)?
            }
        };
        let sess = Session::new(&g)?;
        for (r, run) in case["runs"].as_array().unwrap().iter().enumerate() {
            let got = run3(&sess, &s)?;
            let what = format!("{} {} run {r}", case["kind"], case["range_max"]);
            assert_eq!(
                got[0].to_vec::<i64>()?,
                tensor(&run[0]).to_vec::<i64>()?,
                "{what}: candidates"
            );
            assert_close(
                &got[1],
                &tensor(&run[1]),
                1e-6,
                &format!("{what}: true count"),
            );
            assert_close(
                &got[2],
                &tensor(&run[2]),
                1e-6,
                &format!("{what}: sampled count"),
            );
        }
    }
    Ok(())
}

#[test]
fn accidental_hits_match_tensorflow() -> Result<()> {
    let doc = build::doc();
    for case in doc["hits"].as_array().unwrap() {
        let g = Graph::new();
        let (idx, ids, w) = compute_accidental_hits(
            constant(&g, tensor(&case["true_classes"]))?,
            constant(&g, tensor(&case["sampled"]))?,
            case["num_true"].as_u64().unwrap() as usize,
            None,
        )?;
        assert_eq!(idx.shape(), Shape::new(vec![None]));
        let got = Session::new(&g)?.run(&RunArgs::new().fetch(&idx).fetch(&ids).fetch(&w))?;
        let want: Vec<Tensor> = case["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(tensor)
            .collect();
        assert_eq!(got[0].to_vec::<i32>()?, want[0].to_vec::<i32>()?);
        assert_eq!(got[1].to_vec::<i64>()?, want[1].to_vec::<i64>()?);
        assert_eq!(got[2].to_vec::<f32>()?, want[2].to_vec::<f32>()?);
    }
    Ok(())
}

#[test]
fn losses_match_tensorflow() -> Result<()> {
    let doc = build::doc();
    let cases = doc["losses"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for case in cases {
        let b = build::build(case)?;
        let got = Session::new(&b.graph)?.eval(&b.loss)?;
        assert_close(&got, &tensor(&case["loss"]), 1e-5, &build::label(case));
    }
    Ok(())
}

fn labels(g: &Graph, rows: usize) -> Result<weir_graph::Output> {
    constant(g, Tensor::from_vec(&[rows, 1], (0..rows as i64).collect())?)
}

#[test]
fn samples_stay_in_range_unique_and_deterministic() -> Result<()> {
    for unique in [true, false] {
        for log in [false, true] {
            let f = if log {
                log_uniform_candidate_sampler
            } else {
                uniform_candidate_sampler
            };
            let draw = |seed: i64| -> Result<Vec<Vec<i64>>> {
                let g = Graph::new();
                let s = f(labels(&g, 3)?, 1, 15, unique, 20, Some(seed))?;
                let sess = Session::new(&g)?;
                (0..3)
                    .map(|_| sess.eval(&s.sampled_candidates)?.to_vec::<i64>())
                    .collect()
            };
            let a = draw(5)?;
            for run in &a {
                assert_eq!(run.len(), 15);
                assert!(run.iter().all(|&v| (0..20).contains(&v)));
                if unique {
                    let mut d = run.clone();
                    d.sort_unstable();
                    d.dedup();
                    assert_eq!(d.len(), 15, "unique={unique} log={log}: {run:?}");
                }
            }
            assert_ne!(a[0], a[1], "runs continue the stream");
            assert_eq!(a, draw(5)?, "same seed, same samples");
            assert_ne!(a, draw(6)?, "another seed, other samples");
        }
    }
    Ok(())
}

/// Chi-square statistic of `counts` against probabilities `p` for `n` draws.
fn chi_square(counts: &[u64], p: &[f64], n: f64) -> f64 {
    counts
        .iter()
        .zip(p)
        .map(|(&c, &p)| (c as f64 - n * p).powi(2) / (n * p))
        .sum()
}

#[test]
fn samples_follow_their_distributions() -> Result<()> {
    let (range, n) = (20usize, 20_000usize);
    for log in [false, true] {
        let g = Graph::new();
        g.set_random_seed(1234);
        let s = if log {
            log_uniform_candidate_sampler(labels(&g, 1)?, 1, n, false, range, Some(99))?
        } else {
            uniform_candidate_sampler(labels(&g, 1)?, 1, n, false, range, Some(99))?
        };
        let got = run3(&Session::new(&g)?, &s)?;
        let mut counts = vec![0u64; range];
        for v in got[0].to_vec::<i64>()? {
            counts[v as usize] += 1;
        }
        let p: Vec<f64> = (0..range)
            .map(|c| {
                if log {
                    ((c as f64 + 2.0) / (c as f64 + 1.0)).ln() / (range as f64 + 1.0).ln()
                } else {
                    1.0 / range as f64
                }
            })
            .collect();
        // 19 degrees of freedom: 43.82 is the 0.999 quantile (deterministic for this seed).
        let chi = chi_square(&counts, &p, n as f64);
        assert!(
            chi < 43.82,
            "log={log}: chi-square {chi}, counts {counts:?}"
        );
        // Without unique, the expected count is p * num_sampled.
        let sampled_counts = got[2].to_vec::<f32>()?;
        for (v, e) in got[0].to_vec::<i64>()?.iter().zip(&sampled_counts).take(50) {
            let want = (p[*v as usize] as f32) * n as f32;
            assert!((e - want).abs() <= 1e-5 * want, "{e} vs {want}");
        }
    }
    Ok(())
}

#[test]
fn unique_expected_counts_use_the_number_of_tries() -> Result<()> {
    // All 10 classes sampled: how many tries it took is in the counts, which must then equal
    // -expm1(tries * log1p(-0.1)) for one `tries` >= 10.
    let g = Graph::new();
    let s = uniform_candidate_sampler(labels(&g, 2)?, 1, 10, true, 10, Some(3))?;
    let got = run3(&Session::new(&g)?, &s)?;
    let mut c = got[0].to_vec::<i64>()?;
    c.sort_unstable();
    assert_eq!(c, (0..10).collect::<Vec<_>>());
    let e = got[2].to_vec::<f32>()?;
    assert!(e.iter().all(|&x| x == e[0]));
    let tries = (10..10_000)
        .find(|&t| -(t as f32 * (-0.1f32).ln_1p()).exp_m1() == e[0])
        .expect("a number of tries");
    assert!(tries > 10);
    assert_eq!(got[1].to_vec::<f32>()?, vec![e[0]; 2]);
    Ok(())
}

#[test]
fn errors_are_tensorflows() -> Result<()> {
    let g = Graph::new();
    // unique with num_sampled > range_max fails when the op runs.
    let s = uniform_candidate_sampler(labels(&g, 2)?, 1, 5, true, 4, Some(1))?;
    let e = Session::new(&g)?.eval(&s.sampled_candidates).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("Sampler's range is too small."), "{e}");
    // Without unique it is fine.
    let s = uniform_candidate_sampler(labels(&g, 2)?, 1, 5, false, 4, Some(1))?;
    assert_eq!(
        Session::new(&g)?
            .eval(&s.sampled_candidates)?
            .to_vec::<i64>()?
            .len(),
        5
    );
    // true_classes must be an int64 matrix.
    let v = constant(&g, vec![1i64, 2])?;
    let e = uniform_candidate_sampler(&v, 1, 2, false, 4, None).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let i32s = constant(&g, Tensor::from_vec(&[2, 1], vec![1i32, 2])?)?;
    assert!(log_uniform_candidate_sampler(&i32s, 1, 2, false, 4, None).is_err());
    // num_true must match the columns when the op runs.
    let p = placeholder(&g, DType::I64, Shape::unknown())?;
    let s = uniform_candidate_sampler(&p, 2, 2, false, 4, None)?;
    let e = Session::new(&g)?
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[2, 1], vec![1i64, 2])?)
                .fetch(&s.sampled_candidates),
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .contains("true_classes must have num_true columns, expected: 1 was: 2"),
        "{e}"
    );
    // Attr minimums.
    assert!(uniform_candidate_sampler(labels(&g, 2)?, 1, 0, false, 4, None).is_err());
    assert!(uniform_candidate_sampler(labels(&g, 2)?, 1, 2, false, 0, None).is_err());
    // ComputeAccidentalHits checks num_true against a known shape when building.
    let e =
        compute_accidental_hits(labels(&g, 2)?, constant(&g, vec![1i64])?, 2, None).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = compute_accidental_hits(&p, constant(&g, vec![1i64])?, 2, None)?;
    let err = Session::new(&g)?
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[2, 1], vec![1i64, 2])?)
                .fetch(&e.0),
        )
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err
        .message()
        .contains("true_candidates must be a batch_size * num_true matrix"));
    Ok(())
}

#[test]
fn seeded_sampled_softmax_matches_tensorflow() -> Result<()> {
    let doc = build::doc();
    let c = &doc["seeded_softmax"];
    let g = Graph::new();
    g.set_random_seed(c["graph_seed"].as_i64().unwrap());
    let k = |name: &str| constant(&g, tensor(&c[name]));
    let loss = weir_ops::nn::SampledLoss::sampled_softmax(
        c["num_sampled"].as_u64().unwrap() as usize,
        c["num_classes"].as_u64().unwrap() as usize,
    )
    .seed(c["op_seed"].as_i64().unwrap())
    .build(&[k("weights")?], k("biases")?, k("labels")?, k("inputs")?)?;
    let sess = Session::new(&g)?;
    for (r, want) in c["runs"].as_array().unwrap().iter().enumerate() {
        let got = sess.eval(&loss)?;
        assert_close(&got, &tensor(want), 1e-5, &format!("run {r}"));
    }
    // The function form builds the same graph with an unseeded sampler.
    let g = Graph::new();
    let k = |name: &str| constant(&g, tensor(&c[name]));
    let loss = sampled_softmax_loss(
        &[k("weights")?],
        k("biases")?,
        k("labels")?,
        k("inputs")?,
        6,
        30,
    )?;
    assert_eq!(Session::new(&g)?.eval(&loss)?.shape(), [5]);
    Ok(())
}

#[test]
fn fixed_unigram_follows_its_weights() -> Result<()> {
    let unigrams = [4.0f32, 0.0, 1.0, 9.0, 2.0, 16.0];
    let n = 30_000usize;
    let g = Graph::new();
    let s = FixedUnigramCandidateSampler::new(1, n, false, 7, &unigrams)
        .distortion(0.5)
        .num_reserved_ids(1)
        .seed(8)
        .build(labels(&g, 1)?)?;
    let got = run3(&Session::new(&g)?, &s)?;
    let mut counts = vec![0u64; 7];
    for v in got[0].to_vec::<i64>()? {
        counts[v as usize] += 1;
    }
    // Reserved id 0 and the zero unigram (id 2) never come up.
    assert_eq!((counts[0], counts[2]), (0, 0));
    // sqrt of the counts: 2, 1, 3, 1.41.., 4 over ids 1, 3, 4, 5, 6.
    let w = [0.0, 2.0, 0.0, 1.0, 3.0, 2f64.sqrt(), 4.0];
    let total: f64 = w.iter().sum();
    let (c, p): (Vec<u64>, Vec<f64>) = (0..7)
        .filter(|&i| w[i] > 0.0)
        .map(|i| (counts[i], w[i] / total))
        .unzip();
    // 4 degrees of freedom: 18.47 is the 0.999 quantile (deterministic for this seed).
    let chi = chi_square(&c, &p, n as f64);
    assert!(chi < 18.47, "chi-square {chi}, counts {counts:?}");
    // unique needs as many drawable classes as samples.
    let s = fixed_unigram_candidate_sampler(
        labels(&g, 1)?,
        1,
        6,
        true,
        7,
        &[0.0, 4.0, 0.0, 1.0, 9.0, 2.0, 16.0],
        Some(1),
    )?;
    let e = Session::new(&g)?.eval(&s.sampled_candidates).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let s = fixed_unigram_candidate_sampler(
        labels(&g, 1)?,
        1,
        5,
        true,
        7,
        &[0.0, 4.0, 0.0, 1.0, 9.0, 2.0, 16.0],
        Some(1),
    )?;
    let mut c = Session::new(&g)?
        .eval(&s.sampled_candidates)?
        .to_vec::<i64>()?;
    c.sort_unstable();
    assert_eq!(c, [1, 3, 4, 5, 6]);
    // TensorFlow's kernel checks.
    for (unigrams, range, msg) in [
        (
            &[1.0f32, 2.0][..],
            3,
            "range is 3 must be equal to weights size  2",
        ),
        (&[][..], 3, "Must provide either vocab_file or unigrams."),
    ] {
        let s =
            fixed_unigram_candidate_sampler(labels(&g, 1)?, 1, 1, false, range, unigrams, None)?;
        let e = Session::new(&g)?.eval(&s.sampled_candidates).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().contains(msg), "{e}");
    }
    Ok(())
}
