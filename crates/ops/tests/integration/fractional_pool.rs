//! FractionalMaxPool, FractionalAvgPool, FractionalMaxPoolGrad and FractionalAvgPoolGrad against
//! TensorFlow 2.21: every case of tests/data/fractional_pool/expected.json (made by
//! make_fractional_pool.py there). Seeded pools (through `tf.nn.fractional_*_pool`'s
//! `get_seed`, graph seeds, and the v1 functions' explicit `deterministic`/`seed`/`seed2`)
//! must give TensorFlow's node attrs, static shapes, pooling sequences and pooled values bit for
//! bit, on float, double, int32 and int64, random and pseudo-random, overlapping or not; the
//! unseeded ones (a new pooling every run) are checked for their shapes and the sequences'
//! validity. The backward ops are checked bit for bit on direct inputs, ties included. Errors
//! match TensorFlow's kind, stage (node added or run) and message.

use serde_json::Value;
use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{fractional_avg_pool_grad, fractional_max_pool_grad, FractionalPool};
use weir_session::Session;

use crate::binary_dtypes::data::{check, tensor};
use crate::io_util::{check_all_cases, check_tf_error, expect_same_outcome, expected_cases};
use crate::io_util::{fetch_and_feed, shape_of};

fn cases() -> Vec<Value> {
    expected_cases("fractional_pool")
}

/// The case's pooling ratio as a slice of floats (a bare number is Python's scalar form).
fn ratio(c: &Value) -> Vec<f32> {
    match &c["ratio"] {
        Value::Array(a) => a.iter().map(|v| v.as_f64().unwrap() as f32).collect(),
        v => vec![v.as_f64().unwrap() as f32],
    }
}

/// The case's pool on a constant or a placeholder of unknown shape (with its feed).
fn build_pool(g: &Graph, c: &Value, feeds: &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>> {
    if let Some(s) = c["graph_seed"].as_i64() {
        g.set_random_seed(s);
    }
    let x = tensor(&c["input"]);
    let v = if c["feed"].as_bool().unwrap() {
        let p = placeholder(g, x.dtype(), Shape::unknown())?;
        feeds.push((p.clone(), x));
        p
    } else {
        constant(g, x)?
    };
    let r = ratio(c);
    let mut b = if c["op"] == "max" {
        FractionalPool::max(&r)
    } else {
        FractionalPool::avg(&r)
    };
    b = b
        .pseudo_random(c["pseudo_random"].as_bool().unwrap())
        .overlapping(c["overlapping"].as_bool().unwrap())
        .seed(c["seed"].as_i64().unwrap());
    if c["api"] == "v1" {
        b = b
            .deterministic(c["deterministic"].as_bool().unwrap())
            .seed2(c["seed2"].as_i64().unwrap());
    }
    let p = b.build(v)?;
    Ok(vec![
        p.output,
        p.row_pooling_sequence,
        p.col_pooling_sequence,
    ])
}

/// The node's name and the attrs TensorFlow's Python gave it.
fn check_node(name: &str, c: &Value, out: &Output) {
    let want = &c["node"];
    let node = out.op().node();
    assert_eq!(
        node.name(),
        want["name"].as_str().unwrap(),
        "{name}: node name"
    );
    assert_eq!(
        node.attr::<i64>("seed").unwrap(),
        want["seed"].as_i64().unwrap(),
        "{name}"
    );
    assert_eq!(
        node.attr::<i64>("seed2").unwrap(),
        want["seed2"].as_i64().unwrap(),
        "{name}"
    );
    assert_eq!(
        node.attr::<bool>("deterministic").unwrap(),
        want["deterministic"].as_bool().unwrap(),
        "{name}"
    );
    let r: Vec<f32> = want["pooling_ratio"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(node.attr::<Vec<f32>>("pooling_ratio").unwrap(), r, "{name}");
}

/// A sequence TensorFlow could have drawn: `out + 1` boundaries from 0 to `len` in gaps of
/// `len / out` or one more.
fn check_sequence(name: &str, seq: &[i64], len: usize, out: usize) {
    let k = (len / out) as i64;
    assert_eq!(seq.len(), out + 1, "{name}: {seq:?}");
    assert_eq!((seq[0], seq[out]), (0, len as i64), "{name}: {seq:?}");
    assert!(
        seq.windows(2)
            .all(|w| w[1] - w[0] == k || w[1] - w[0] == k + 1),
        "{name}: {seq:?}"
    );
}

/// Runs a pool case; whether it ended in an error.
fn run_pool(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build_pool(&g, c, &mut feeds);
    let Some(outs) = expect_same_outcome(name, built, c.get("build_error"), check_tf_error) else {
        return true;
    };
    check_node(name, c, &outs[0]);
    for (k, (o, s)) in outs
        .iter()
        .zip(c["static_shapes"].as_array().unwrap())
        .enumerate()
    {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape of output {k}");
    }
    let ran = Session::new(&g).unwrap().run(&fetch_and_feed(&outs, feeds));
    let Some(got) = expect_same_outcome(name, ran, c.get("error"), check_tf_error) else {
        return true;
    };
    if c["random"].as_bool().unwrap() {
        let shapes = c["outputs_shapes"].as_array().unwrap();
        for (k, (t, s)) in got.iter().zip(shapes).enumerate() {
            let s: Vec<usize> = s
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(t.shape(), &s[..], "{name}: shape of output {k}");
        }
        let x = tensor(&c["input"]);
        let out = got[0].shape();
        check_sequence(name, &got[1].to_vec::<i64>().unwrap(), x.shape()[1], out[1]);
        check_sequence(name, &got[2].to_vec::<i64>().unwrap(), x.shape()[2], out[2]);
    } else {
        for (k, (t, w)) in got.iter().zip(c["outputs"].as_array().unwrap()).enumerate() {
            check(&format!("{name}: output {k}"), t, w, 0.0).unwrap();
        }
    }
    false
}

/// Runs a case of a backward op called directly; whether it ended in an error.
fn run_grad_op(c: &Value) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let built = (|| -> Result<Vec<Output>> {
        let ins: Vec<Output> = c["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| constant(&g, tensor(t)))
            .collect::<Result<_>>()?;
        let ov = c["overlapping"].as_bool().unwrap();
        let o = if c["kind"] == "max_grad" {
            fractional_max_pool_grad(&ins[0], &ins[1], &ins[2], &ins[3], &ins[4], ov)?
        } else {
            fractional_avg_pool_grad(&ins[0], &ins[1], &ins[2], &ins[3], ov)?
        };
        Ok(vec![o])
    })();
    let Some(outs) = expect_same_outcome(name, built, c.get("build_error"), check_tf_error) else {
        return true;
    };
    let want_shape = &c["static_shapes"][0];
    assert_eq!(
        outs[0].shape(),
        shape_of(want_shape),
        "{name}: static shape"
    );
    let ran = Session::new(&g)
        .unwrap()
        .run(&fetch_and_feed(&outs, vec![]));
    let Some(got) = expect_same_outcome(name, ran, c.get("error"), check_tf_error) else {
        return true;
    };
    check(name, &got[0], &c["outputs"][0], 0.0).unwrap();
    false
}

#[test]
fn fractional_pools_match_tensorflow() {
    let cases = cases();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    check_all_cases(&cases, |c| {
        if c["kind"] == "pool" {
            run_pool(c)
        } else {
            run_grad_op(c)
        }
    });
}

/// Seed 0 means a new pooling every run (TensorFlow draws fresh seeds); `deterministic` with
/// both seeds 0 keeps the one pooling its kernel drew for every run of the session.
#[test]
fn unseeded_pools_vary_and_deterministic_ones_repeat() {
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[1, 40, 40, 1], vec![0f32; 1600]).unwrap(),
    )
    .unwrap();
    let free = FractionalPool::max(&[1.0, 1.4, 1.4, 1.0])
        .build(&x)
        .unwrap();
    let fixed = FractionalPool::avg(&[1.0, 1.4, 1.4, 1.0])
        .deterministic(true)
        .build(&x)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let fetch = [&free.row_pooling_sequence, &fixed.row_pooling_sequence];
    let runs: Vec<Vec<Tensor>> = (0..6)
        .map(|_| crate::io_util::run(&sess, &fetch).unwrap())
        .collect();
    let seqs = |k: usize| -> Vec<Vec<i64>> {
        runs.iter().map(|r| r[k].to_vec::<i64>().unwrap()).collect()
    };
    let (free, fixed) = (seqs(0), seqs(1));
    for s in free.iter().chain(&fixed) {
        check_sequence("unseeded", s, 40, 28);
    }
    assert!(free.iter().any(|s| s != &free[0]), "{free:?}");
    assert!(fixed.iter().all(|s| s == &fixed[0]), "{fixed:?}");
}

/// Out-of-range sequences, where TensorFlow reads or writes outside its buffers, are errors.
#[test]
fn backward_ops_refuse_sequences_that_do_not_fit() {
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[1, 4, 4, 1], (0..16).map(|v| v as f32).collect()).unwrap(),
    )
    .unwrap();
    let y = constant(
        &g,
        Tensor::from_vec(&[1, 2, 2, 1], vec![5f32, 7.0, 13.0, 15.0]).unwrap(),
    )
    .unwrap();
    let dy = constant(&g, Tensor::from_vec(&[1, 2, 2, 1], vec![1f32; 4]).unwrap()).unwrap();
    let seq = |v: Vec<i64>| constant(&g, Tensor::from(v)).unwrap();
    let ok = fractional_max_pool_grad(&x, &y, &dy, seq(vec![0, 2, 4]), seq(vec![0, 2, 4]), false)
        .unwrap();
    let long = fractional_max_pool_grad(
        &x,
        &y,
        &dy,
        seq(vec![0, 1, 2, 4]),
        seq(vec![0, 2, 4]),
        false,
    )
    .unwrap();
    let negative =
        fractional_max_pool_grad(&x, &y, &dy, seq(vec![-2, 2, 4]), seq(vec![0, 2, 4]), false)
            .unwrap();
    let shape = constant(&g, Tensor::from(vec![1i64, 4, 4, 1])).unwrap();
    let big = constant(&g, Tensor::from_vec(&[2, 2, 2, 1], vec![1f32; 8]).unwrap()).unwrap();
    let avg_more_images =
        fractional_avg_pool_grad(&shape, &big, seq(vec![0, 2, 4]), seq(vec![0, 2, 4]), false)
            .unwrap();
    let sess = Session::new(&g).unwrap();
    let dx = crate::io_util::run(&sess, &[&ok]).unwrap();
    let want: Vec<f32> = (0..16)
        .map(|i| {
            if [5, 7, 13, 15].contains(&i) {
                1.0
            } else {
                0.0
            }
        })
        .collect();
    assert_eq!(dx[0].to_vec::<f32>().unwrap(), want);
    for o in [&long, &negative, &avg_more_images] {
        let e = crate::io_util::run(&sess, &[o]).unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument, "{e}");
    }
    assert_eq!(ok.dtype(), DType::F32);
}
