//! `AllCandidateSampler`, `LearnedUnigramCandidateSampler` and
//! `ThreadUnsafeUnigramCandidateSampler` against TensorFlow 2.21
//! (tests/data/nn_candidate_samplers_more/expected.json, written by
//! make_nn_candidate_samplers_more.py there): per case, the node's name and seeds, the static
//! shapes, and for each session every run's candidates and expected counts (bit for bit) or
//! error code and message, so the learned distribution and the Philox stream are checked run
//! after run, across sessions, with fed classes and after failed runs; and the older samplers'
//! check of the true classes' range, which they share with these. Messages are compared
//! before TensorFlow's " for '{{node ...}}'" suffix; the attr-minimum messages come from weir's
//! OpDef checks, so only their code is compared. Then properties TensorFlow's recording cannot
//! show: the learned weights' exact expected counts, concurrent runs of one session, and
//! `range_max` limits where TensorFlow 2.21 hangs.

use serde_json::Value;
use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{
    all_candidate_sampler, fixed_unigram_candidate_sampler, learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler, thread_unsafe_unigram_candidate_sampler,
    uniform_candidate_sampler, AllCandidateSampler, CandidateSamples,
    LearnedUnigramCandidateSampler,
};
use weir_session::{RunArgs, Session};

use crate::io_util::{check_tf_error, expect_same_outcome, expected_cases, shape_of};

/// Cases whose TensorFlow message is its Python attr check's wording: code only.
const CODE_ONLY: &[&str] = &["learned_num_sampled_0", "all_num_true_0"];

/// An int64 tensor from a JSON list of ints or of lists of ints.
fn classes(v: &Value) -> Tensor {
    let rows = v.as_array().unwrap();
    let int = |x: &Value| x.as_i64().unwrap();
    if rows.first().is_some_and(Value::is_array) {
        let cols = rows[0].as_array().unwrap().len();
        let data: Vec<i64> = rows
            .iter()
            .flat_map(|r| r.as_array().unwrap().iter().map(int))
            .collect();
        Tensor::from_vec(&[rows.len(), cols], data).unwrap()
    } else {
        Tensor::from(rows.iter().map(int).collect::<Vec<i64>>())
    }
}

fn usize_of(c: &Value, key: &str) -> usize {
    c[key].as_u64().unwrap() as usize
}

/// The case's sampler on a constant, or on a placeholder (returned) for fed cases.
fn build(g: &Graph, c: &Value) -> Result<(CandidateSamples, Option<Output>)> {
    if let Some(s) = c["graph_seed"].as_i64() {
        g.set_random_seed(s);
    }
    let (t, fed) = match c.get("feeds") {
        Some(_) => {
            let shape = shape_of(&c["placeholder_shape"]);
            let p = placeholder(g, DType::I64, shape)?;
            (p.clone(), Some(p))
        }
        None => (constant(g, classes(&c["true_classes"]))?, None),
    };
    let (nt, ns, unique) = (
        usize_of(c, "num_true"),
        usize_of(c, "num_sampled"),
        c["unique"].as_bool().unwrap(),
    );
    let seed = c["op_seed"].as_i64();
    let range = || usize_of(c, "range_max");
    let s = match c["op"].as_str().unwrap() {
        "all" => all_candidate_sampler(&t, nt, ns, unique, seed)?,
        "uniform" => uniform_candidate_sampler(&t, nt, ns, unique, range(), seed)?,
        "log_uniform" => log_uniform_candidate_sampler(&t, nt, ns, unique, range(), seed)?,
        "fixed_unigram" => {
            let unigrams: Vec<f32> = c["unigrams"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap() as f32)
                .collect();
            fixed_unigram_candidate_sampler(&t, nt, ns, unique, range(), &unigrams, seed)?
        }
        "learned" => learned_unigram_candidate_sampler(&t, nt, ns, unique, range(), seed)?,
        _ => thread_unsafe_unigram_candidate_sampler(&t, nt, ns, unique, range(), seed)?,
    };
    Ok((s, fed))
}

fn check_error(name: &str, got: &weir_graph::Error, want: &Value) {
    if CODE_ONLY.contains(&name) {
        assert_eq!(got.code(), Code::InvalidArgument, "{name}: {got}");
    } else {
        check_tf_error(name, got, want);
    }
}

/// Checks one output against a recorded `{dtype, shape, values}` (floats as bit patterns).
fn check_output(what: &str, got: &Tensor, want: &Value) {
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(got.shape(), &shape[..], "{what}: shape");
    let values = want["values"].as_array().unwrap();
    match want["dtype"].as_str().unwrap() {
        "int64" => {
            let want: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(got.to_vec::<i64>().unwrap(), want, "{what}");
        }
        "float32" => {
            let want: Vec<f32> = values
                .iter()
                .map(|v| f32::from_bits(v.as_u64().unwrap() as u32))
                .collect();
            let got = got.to_vec::<f32>().unwrap();
            let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "{what}: {got:?} vs {want:?}");
        }
        other => panic!("{what}: dtype {other}"),
    }
}

/// Runs one recorded case; returns how many errors (build or run) it saw.
fn run_case(c: &Value) -> usize {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = build(&g, c);
    let Some((s, fed)) = expect_same_outcome(name, built, c.get("build_error"), check_error) else {
        return 1;
    };
    let node = s.sampled_candidates.op();
    let want = &c["node"];
    assert_eq!(
        node.name(),
        want["name"].as_str().unwrap(),
        "{name}: node name"
    );
    assert_eq!(node.op_type(), want["type"].as_str().unwrap(), "{name}");
    for attr in ["seed", "seed2"] {
        let got: i64 = node.attr(attr).unwrap();
        assert_eq!(got, want[attr].as_i64().unwrap(), "{name}: {attr}");
    }
    let outs = [
        &s.sampled_candidates,
        &s.true_expected_count,
        &s.sampled_expected_count,
    ];
    for (o, want) in outs.iter().zip(c["static_shapes"].as_array().unwrap()) {
        assert_eq!(o.shape(), shape_of(want), "{name}: static shape");
    }
    let mut errors = 0;
    for (k, runs) in c["results"].as_array().unwrap().iter().enumerate() {
        let sess = Session::new(&g).unwrap();
        for (r, want) in runs.as_array().unwrap().iter().enumerate() {
            let what = format!("{name} session {k} run {r}");
            let mut args = RunArgs::new();
            for o in outs {
                args = args.fetch(o);
            }
            if let Some(p) = &fed {
                args = args.feed(p, classes(&c["feeds"][r]));
            }
            let ran = sess.run(&args);
            match expect_same_outcome(&what, ran, want.get("error"), check_error) {
                Some(got) => {
                    for (i, (g, w)) in got
                        .iter()
                        .zip(want["outputs"].as_array().unwrap())
                        .enumerate()
                    {
                        check_output(&format!("{what} output {i}"), g, w);
                    }
                }
                None => errors += 1,
            }
        }
    }
    errors
}

#[test]
fn samplers_match_tensorflow() {
    let cases = expected_cases("nn_candidate_samplers_more");
    assert_eq!(cases.len(), 49);
    let mut failed = Vec::new();
    let mut errors = 0;
    for c in &cases {
        match std::panic::catch_unwind(|| run_case(c)) {
            Ok(e) => errors += e,
            Err(_) => failed.push(c["name"].as_str().unwrap().to_string()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} cases differ: {failed:?}",
        failed.len()
    );
    // Every recorded error was met, so a case that stops failing is noticed.
    let recorded = cases
        .iter()
        .map(|c| {
            let runs = c["results"].as_array().map_or(0, |s| {
                s.iter()
                    .flat_map(|r| r.as_array().unwrap())
                    .filter(|r| r.get("error").is_some())
                    .count()
            });
            runs + usize::from(c.get("build_error").is_some())
        })
        .sum::<usize>();
    assert_eq!(errors, recorded);
}

#[test]
fn learned_counts_set_the_expected_counts() -> Result<()> {
    // 60 sightings of class 2 make its weight 61 of 64; without `unique` the expected counts
    // are exactly weight / total * num_sampled.
    let g = Graph::new();
    let p = placeholder(&g, DType::I64, Shape::new(vec![None, Some(1)]))?;
    let s = LearnedUnigramCandidateSampler::new(1, 4000, false, 4)
        .seed(5)
        .name("learned")
        .build(&p)?;
    assert_eq!(s.sampled_candidates.op().name(), "learned");
    let sess = Session::new(&g)?;
    let run = |classes: Tensor| {
        sess.run(
            &RunArgs::new()
                .feed(&p, classes)
                .fetch(&s.sampled_candidates)
                .fetch(&s.true_expected_count)
                .fetch(&s.sampled_expected_count),
        )
    };
    run(Tensor::from_vec(&[60, 1], vec![2i64; 60])?)?;
    let got = run(Tensor::from_vec(&[2, 1], vec![2i64, 0])?)?;
    let counts = got[1].to_vec::<f32>()?;
    assert_eq!(counts, [61.0 / 64.0 * 4000.0, 1.0 / 64.0 * 4000.0]);
    let sampled = got[0].to_vec::<i64>()?;
    let twos = sampled.iter().filter(|&&v| v == 2).count();
    // 4000 draws at p = 61/64: the standard deviation is 13.3, so 3812 +- 80 always holds
    // for this seed.
    assert!((3732..=3892).contains(&twos), "{twos} draws of class 2");
    for (v, c) in sampled.iter().zip(got[2].to_vec::<f32>()?) {
        let w = if *v == 2 { 61.0 } else { 1.0 };
        assert_eq!(c, w / 64.0 * 4000.0);
    }
    // The second run's classes (2 and 0) were learned after it drew.
    let got = run(Tensor::from_vec(&[1, 1], vec![0i64])?)?;
    assert_eq!(got[1].to_vec::<f32>()?, [2.0 / 66.0 * 4000.0]);
    Ok(())
}

#[test]
fn concurrent_runs_learn_every_batch() -> Result<()> {
    // However the runs interleave, each adds its batch to the weights exactly once.
    for thread_unsafe in [false, true] {
        let g = Graph::new();
        let labels = constant(&g, Tensor::from_vec(&[3, 1], vec![1i64, 1, 1])?)?;
        let mut b = LearnedUnigramCandidateSampler::new(1, 2, false, 2).seed(9);
        if thread_unsafe {
            b = b.thread_unsafe();
        }
        let s = b.build(&labels)?;
        let sess = Session::new(&g)?;
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..25 {
                        sess.eval(&s.sampled_candidates).unwrap();
                    }
                });
            }
        });
        // 100 runs of 3 sightings: class 1 weighs 301 of 302.
        let got = sess.eval(&s.true_expected_count)?.to_vec::<f32>()?;
        assert_eq!(got, [301.0f32 / 302.0 * 2.0; 3]);
    }
    Ok(())
}

#[test]
fn all_sampler_ignores_unique_and_seed() -> Result<()> {
    let g = Graph::new();
    let labels = constant(&g, Tensor::from_vec(&[1, 2], vec![4i64, 0])?)?;
    let a = AllCandidateSampler::new(2, 5, false)
        .seed(1)
        .build(&labels)?;
    let b = all_candidate_sampler(&labels, 2, 5, true, None)?;
    assert_eq!(b.sampled_candidates.op().name(), "AllCandidateSampler_1");
    let sess = Session::new(&g)?;
    for s in [&a, &b] {
        for _ in 0..2 {
            let got = sess.run(
                &RunArgs::new()
                    .fetch(&s.sampled_candidates)
                    .fetch(&s.true_expected_count),
            )?;
            assert_eq!(got[0].to_vec::<i64>()?, [0, 1, 2, 3, 4]);
            assert_eq!(got[1].shape(), [1, 2]);
            assert_eq!(got[1].to_vec::<f32>()?, [1.0, 1.0]);
        }
    }
    Ok(())
}

#[test]
fn range_max_must_fit_an_int32_weight() -> Result<()> {
    // TensorFlow 2.21 never finishes building this kernel; weir fails each run.
    let g = Graph::new();
    let labels = constant(&g, Tensor::from_vec(&[1, 1], vec![0i64])?)?;
    let range = i32::MAX as usize;
    for s in [
        thread_unsafe_unigram_candidate_sampler(&labels, 1, 1, false, range, Some(1))?,
        learned_unigram_candidate_sampler(&labels, 1, 1, false, range, Some(1))?,
    ] {
        let e = Session::new(&g)?.eval(&s.sampled_candidates).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(
            e.message().starts_with(
                "range_max must be less than 2147483647 for unigram samplers, got 2147483647"
            ),
            "{e}"
        );
    }
    // Only the learned sampler's Python wrapper checks the size when building.
    let e = learned_unigram_candidate_sampler(&labels, 1, 1, false, range + 1, None).unwrap_err();
    assert_eq!(
        e.message(),
        "Value of range_max:2147483648 is too large to handle"
    );
    assert!(thread_unsafe_unigram_candidate_sampler(&labels, 1, 1, false, range + 1, None).is_ok());
    Ok(())
}
