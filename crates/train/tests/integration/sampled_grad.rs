//! Gradients of `nce_loss` and `sampled_softmax_loss` with fixed `sampled_values` against
//! TensorFlow 2.21's (`weir-ops`' `tests/data/sampled/expected.json`, IndexedSlices made dense):
//! w.r.t. every weight shard, the biases and the inputs, within 1e-5 relative; and a float64
//! central-difference check of one case.

#[path = "../../../ops/tests/integration/sampled_build.rs"]
mod build;

use weir_graph::{DType, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn::{CandidateSamples, SampledLoss};
use weir_session::Session;
use weir_train::gradients::{check::gradient_error, gradients};

use build::{assert_close, tensor};

#[test]
fn gradients_match_tensorflow() -> Result<()> {
    let doc = build::doc();
    let mut compared = 0;
    for case in doc["losses"].as_array().unwrap() {
        let b = build::build(case)?;
        let grads = gradients(std::slice::from_ref(&b.objective), &b.floats, None)?;
        let sess = Session::new(&b.graph)?;
        for (i, (got, want)) in grads
            .iter()
            .zip(case["grads"].as_array().unwrap())
            .enumerate()
        {
            let got = got.as_ref().expect("a gradient");
            let v = sess.eval(got)?;
            assert_close(
                &v,
                &tensor(want),
                1e-5,
                &format!("{}: grad {i}", build::label(case)),
            );
            compared += 1;
        }
    }
    // Eight cases of 1, 1, 2, 3, 1, 1, 2 and 2 weight shards, plus biases and inputs each.
    assert_eq!(compared, 29);
    Ok(())
}

#[test]
fn gradients_match_central_differences() -> Result<()> {
    for softmax in [false, true] {
        let g = weir_graph::Graph::new();
        let values = [
            Tensor::from_vec(&[5, 2], (0..10).map(|i| (i as f64 * 0.37).sin()).collect())?,
            Tensor::from_vec(&[5], vec![0.1f64, -0.2, 0.3, 0.0, 0.05])?,
            Tensor::from_vec(&[2, 2], vec![0.5f64, -0.3, 0.8, 0.1])?,
        ];
        let ph = values
            .iter()
            .map(|v| {
                let dims: Vec<usize> = v.shape().to_vec();
                placeholder(&g, DType::F64, Shape::known(&dims))
            })
            .collect::<Result<Vec<_>>>()?;
        let (w, bias, x) = (&ph[0], &ph[1], &ph[2]);
        let labels = constant(&g, Tensor::from_vec(&[2, 1], vec![1i64, 3])?)?;
        let sv = CandidateSamples::new(
            constant(&g, vec![0i64, 3, 4])?,
            constant(&g, Tensor::from_vec(&[2, 1], vec![0.3f64, 0.2])?)?,
            constant(&g, vec![0.4f64, 0.2, 0.1])?,
        );
        let opts = if softmax {
            SampledLoss::sampled_softmax(3, 5)
        } else {
            SampledLoss::nce(3, 5)
        };
        let loss = opts
            .sampled_values(sv)
            .build(std::slice::from_ref(w), bias, &labels, x)?;
        assert_eq!(loss.dtype(), DType::F64);
        for i in 0..3 {
            let feeds: Vec<(weir_graph::Output, Tensor)> = (0..3)
                .filter(|&j| j != i)
                .map(|j| (ph[j].clone(), values[j].clone()))
                .collect();
            let err = gradient_error(&ph[i], &values[i], &loss, &feeds)?;
            assert!(err < 1e-6, "softmax={softmax}, input {i}: error {err}");
        }
    }
    Ok(())
}

#[test]
fn gradients_flow_past_a_seeded_sampler() -> Result<()> {
    // The default log-uniform sampler (and ComputeAccidentalHits) sit behind StopGradient and
    // are not differentiable: the weights, biases and inputs still get gradients.
    for softmax in [false, true] {
        let g = weir_graph::Graph::new();
        g.set_random_seed(5);
        let w = constant(
            &g,
            Tensor::from_vec(&[8, 2], (0..16).map(|i| i as f32 * 0.1).collect())?,
        )?;
        let b = constant(&g, vec![0.1f32; 8])?;
        let x = constant(
            &g,
            Tensor::from_vec(&[3, 2], vec![0.5f32, -0.3, 0.8, 0.1, 0.2, 0.2])?,
        )?;
        let labels = constant(&g, Tensor::from_vec(&[3, 1], vec![1i64, 3, 6])?)?;
        let opts = if softmax {
            SampledLoss::sampled_softmax(4, 8)
        } else {
            SampledLoss::nce(4, 8).remove_accidental_hits(true)
        };
        let loss = opts
            .seed(2)
            .build(std::slice::from_ref(&w), &b, &labels, &x)?;
        let grads = gradients(&[loss], &[w, b, x], None)?;
        let sess = Session::new(&g)?;
        for (i, gr) in grads.iter().enumerate() {
            let v = sess.eval(gr.as_ref().expect("a gradient"))?;
            let v = v.to_vec::<f32>()?;
            assert!(
                v.iter().all(|x| x.is_finite()) && v.iter().any(|&x| x != 0.0),
                "{i}: {v:?}"
            );
        }
    }
    Ok(())
}
