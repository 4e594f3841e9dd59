//! nn ops in a session: forward values against their formulas, and every backward kernel
//! against central differences of its forward kernel, computed here.

use weir_graph::{DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::nn;
use weir_session::{RunArgs, Session};

use crate::grad_check::{check_grad, run1};

/// A deterministic spread of values in [-2, 2), away from 0.
fn values(n: usize, salt: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let v = ((i * 37 + salt * 11) % 97) as f64 / 97.0 * 4.0 - 2.0;
            if v.abs() < 0.05 {
                v + 0.1
            } else {
                v
            }
        })
        .collect()
}

fn ph(g: &Graph, dims: &[usize]) -> Result<Output> {
    placeholder(g, DType::F64, Shape::known(dims))
}

#[test]
fn activation_values() -> Result<()> {
    let g = Graph::new();
    let x = constant(&g, [-3.0f32, -0.5, 0.0, 2.0, 7.0])?;
    let sess = Session::new(&g)?;
    let ev = |o: Output| sess.eval(&o).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(ev(nn::relu(&x)?), vec![0.0, 0.0, 0.0, 2.0, 7.0]);
    assert_eq!(ev(nn::relu6(&x)?), vec![0.0, 0.0, 0.0, 2.0, 6.0]);
    assert_eq!(
        ev(nn::leaky_relu(&x)?),
        vec![-3.0 * 0.2, -0.5 * 0.2, 0.0, 2.0, 7.0]
    );
    assert_eq!(ev(nn::leaky_relu_with_alpha(&x, 0.5)?)[0], -1.5);
    let e = ev(nn::elu(&x)?);
    assert!((e[0] - ((-3.0f32).exp() - 1.0)).abs() < 1e-7 && e[3] == 2.0);
    let s = ev(nn::sigmoid(&x)?);
    assert!((s[3] - 1.0 / (1.0 + (-2.0f32).exp())).abs() < 1e-7 && s[2] == 0.5);
    assert!((ev(nn::tanh(&x)?)[3] - 2.0f32.tanh()).abs() < 1e-7);
    // Relu takes integers, as TensorFlow's does; elu refuses them when the node is built.
    let r = nn::relu(constant(&g, [-3i32, 4])?)?;
    assert_eq!(Session::new(&g)?.eval(&r)?.to_vec::<i32>()?, vec![0, 4]);
    let e = nn::elu(constant(&g, [1i32])?).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    Ok(())
}

#[test]
fn activation_gradients_match_central_differences() -> Result<()> {
    let g = Graph::new();
    let dims = [2, 5];
    let x = ph(&g, &dims)?;
    let dy_v = values(10, 3);
    let dy = constant(&g, Tensor::from_vec(&dims, dy_v.clone())?)?;
    let relu = nn::relu(&x)?;
    let relu6 = nn::relu6(&x)?;
    let elu = nn::elu(&x)?;
    let leaky = nn::leaky_relu(&x)?;
    let grads = [
        (relu.clone(), nn::relu_grad(&dy, &x)?),
        (relu6.clone(), nn::relu6_grad(&dy, &x)?),
        (elu.clone(), nn::elu_grad(&dy, &elu)?),
        (leaky.clone(), nn::leaky_relu_grad(&dy, &x, 0.2)?),
    ];
    let sess = Session::new(&g)?;
    // Spread to [-4, 8) so relu6's upper kink is exercised, away from the kinks themselves.
    let x0 = Tensor::from_vec(&dims, values(10, 1).iter().map(|v| v * 3.0 + 2.0).collect())?;
    for (y, dx) in &grads {
        check_grad(&sess, &x, &x0, y, &dy_v, dx, &[])?;
    }
    Ok(())
}

#[test]
fn softmax_and_log_softmax_are_stable() -> Result<()> {
    let g = Graph::new();
    let x = constant(
        &g,
        Tensor::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 1000.0, 1000.0, 1000.0])?,
    )?;
    let sess = Session::new(&g)?;
    let p = sess.eval(&nn::softmax(&x)?)?.to_vec::<f32>()?;
    let z: f32 = [1.0f32, 2.0, 3.0].iter().map(|v| v.exp()).sum();
    assert!((p[0] - 1.0f32.exp() / z).abs() < 1e-7);
    assert!((p[3] - 1.0 / 3.0).abs() < 1e-7);
    let l = sess.eval(&nn::log_softmax(&x)?)?.to_vec::<f32>()?;
    assert!((l[2] - (3.0 - z.ln())).abs() < 1e-6);
    assert!((l[4] + 3.0f32.ln()).abs() < 1e-6);
    assert!(nn::softmax(constant(&g, 1.0f32)?).is_err());
    Ok(())
}

#[test]
fn bias_add_and_its_gradient() -> Result<()> {
    let g = Graph::new();
    let x = ph(&g, &[2, 2, 3])?;
    let b = ph(&g, &[3])?;
    let y = nn::bias_add(&x, &b)?;
    assert_eq!(y.shape(), Shape::known(&[2, 2, 3]));
    let dy_v = values(12, 5);
    let dy = constant(&g, Tensor::from_vec(&[2, 2, 3], dy_v.clone())?)?;
    let db = nn::bias_add_grad(&dy)?;
    assert_eq!(db.shape(), Shape::known(&[3]));
    let sess = Session::new(&g)?;
    let x0 = Tensor::from_vec(&[2, 2, 3], values(12, 2))?;
    let b0 = Tensor::from(vec![1.0f64, -2.0, 0.5]);
    let out = run1(&sess, &y, &[(&x, &x0), (&b, &b0)])?.to_vec::<f64>()?;
    assert_eq!(out[4], x0.to_vec::<f64>()?[4] - 2.0);
    check_grad(&sess, &b, &b0, &y, &dy_v, &db, &[(&x, &x0)])?;
    // Build-time and run-time size checks.
    let bad = constant(&g, [1.0f64, 2.0])?;
    assert!(nn::bias_add(&x, &bad).is_err());
    let free = placeholder(&g, DType::F64, Shape::unknown())?;
    let y2 = nn::bias_add(&x, &free)?;
    let e = run1(
        &sess,
        &y2,
        &[(&x, &x0), (&free, &Tensor::from(vec![1.0f64; 4]))],
    )
    .unwrap_err();
    assert_eq!(
        e.message(),
        "Must provide as many biases as the last dimension of the input tensor: [4] vs. [2,2,3]"
    );
    Ok(())
}

#[test]
fn sparse_softmax_cross_entropy_loss_backprop_and_errors() -> Result<()> {
    let g = Graph::new();
    let logits = ph(&g, &[3, 4])?;
    let labels = placeholder(&g, DType::I64, Shape::known(&[3]))?;
    let loss = nn::sparse_softmax_cross_entropy_with_logits(&labels, &logits)?;
    assert_eq!(loss.op().op_type(), "SparseSoftmaxCrossEntropyWithLogits");
    let backprop = loss.op().output(1)?;
    let sess = Session::new(&g)?;
    let l0 = Tensor::from_vec(&[3, 4], values(12, 7))?;
    let y0 = Tensor::from(vec![3i64, 0, 2]);
    let got = run1(&sess, &loss, &[(&logits, &l0), (&labels, &y0)])?.to_vec::<f64>()?;
    let lv = l0.to_vec::<f64>()?;
    for r in 0..3 {
        let row = &lv[r * 4..r * 4 + 4];
        let lse = row.iter().map(|v| v.exp()).sum::<f64>().ln();
        let want = lse - row[[3, 0, 2][r]];
        assert!((got[r] - want).abs() < 1e-12, "{got:?}");
    }
    // The backprop output is the gradient of the summed loss.
    check_grad(
        &sess,
        &logits,
        &l0,
        &loss,
        &[1.0, 1.0, 1.0],
        &backprop,
        &[(&labels, &y0)],
    )?;
    let e = run1(
        &sess,
        &loss,
        &[(&logits, &l0), (&labels, &Tensor::from(vec![0i64, 4, 1]))],
    )
    .unwrap_err();
    assert!(e.is_invalid_argument());
    assert_eq!(
        e.message(),
        "Received a label value of 4 which is outside the valid range of [0, 4).  Label values: 0 4 1"
    );
    assert_eq!(
        e.node().unwrap().op_type,
        "SparseSoftmaxCrossEntropyWithLogits"
    );
    // Rank rules are checked when the node is built.
    let bad = constant(&g, Tensor::from_vec(&[3, 1], vec![0i64; 3])?)?;
    let e = nn::sparse_softmax_cross_entropy_with_logits(&bad, &logits).unwrap_err();
    assert!(e.message().starts_with("Rank mismatch"), "{e}");
    // Huge logits stay finite.
    let big = constant(&g, Tensor::from_vec(&[1, 2], vec![1e4f32, -1e4])?)?;
    let l = nn::sparse_softmax_cross_entropy_with_logits(constant(&g, [1i32])?, &big)?;
    assert_eq!(sess.eval(&l)?.to_vec::<f32>()?, vec![2e4]);
    Ok(())
}

#[test]
fn softmax_cross_entropy_takes_labels_as_given() -> Result<()> {
    let g = Graph::new();
    let logits = ph(&g, &[2, 3])?;
    let labels = ph(&g, &[2, 3])?;
    let loss = nn::softmax_cross_entropy_with_logits(&labels, &logits)?;
    let backprop = loss.op().output(1)?;
    let sess = Session::new(&g)?;
    let l0 = Tensor::from_vec(&[2, 3], values(6, 4))?;
    // Unnormalized labels are used as they are (TensorFlow 1.x semantics).
    let z0 = Tensor::from_vec(&[2, 3], vec![0.2f64, 0.3, 0.5, 1.0, 1.0, 0.0])?;
    let got = run1(&sess, &loss, &[(&logits, &l0), (&labels, &z0)])?.to_vec::<f64>()?;
    let (lv, zv) = (l0.to_vec::<f64>()?, z0.to_vec::<f64>()?);
    for r in 0..2 {
        let row = &lv[r * 3..r * 3 + 3];
        let lse = row.iter().map(|v| v.exp()).sum::<f64>().ln();
        let want: f64 = (0..3).map(|j| zv[r * 3 + j] * (lse - row[j])).sum();
        assert!((got[r] - want).abs() < 1e-12);
    }
    // As in TensorFlow, the backprop is softmax - labels: the gradient when each row of
    // labels sums to 1.
    let bp = run1(&sess, &backprop, &[(&logits, &l0), (&labels, &z0)])?.to_vec::<f64>()?;
    for r in 0..2 {
        let row = &lv[r * 3..r * 3 + 3];
        let z: f64 = row.iter().map(|v| v.exp()).sum();
        for j in 0..3 {
            assert!((bp[r * 3 + j] - (row[j].exp() / z - zv[r * 3 + j])).abs() < 1e-12);
        }
    }
    let p0 = Tensor::from_vec(&[2, 3], vec![0.2f64, 0.3, 0.5, 0.5, 0.5, 0.0])?;
    check_grad(
        &sess,
        &logits,
        &l0,
        &loss,
        &[1.0, 1.0],
        &backprop,
        &[(&labels, &p0)],
    )?;
    Ok(())
}

#[test]
fn sigmoid_cross_entropy_values_and_gradients() -> Result<()> {
    let g = Graph::new();
    let x = ph(&g, &[6])?;
    let z = ph(&g, &[6])?;
    let loss = nn::sigmoid_cross_entropy_with_logits(&z, &x)?;
    let dy_v = values(6, 9);
    let dy = constant(&g, Tensor::from(dy_v.clone()))?;
    let (dx, dz) = nn::sigmoid_cross_entropy_with_logits_grad(&x, &z, &dy)?;
    let sess = Session::new(&g)?;
    let x0 = Tensor::from(values(6, 8));
    let z0 = Tensor::from(vec![0.0f64, 1.0, 0.3, 0.7, 1.0, 0.0]);
    let got = run1(&sess, &loss, &[(&x, &x0), (&z, &z0)])?.to_vec::<f64>()?;
    for ((l, a), b) in got.iter().zip(x0.to_vec::<f64>()?).zip(z0.to_vec::<f64>()?) {
        let s = 1.0 / (1.0 + (-a).exp());
        let want = -(b * s.ln() + (1.0 - b) * (1.0 - s).ln());
        assert!((l - want).abs() < 1e-12);
    }
    check_grad(&sess, &x, &x0, &loss, &dy_v, &dx, &[(&z, &z0)])?;
    check_grad(&sess, &z, &z0, &loss, &dy_v, &dz, &[(&x, &x0)])?;
    // Stable where the naive formula overflows.
    let big = constant(&g, [100.0f32, -100.0])?;
    let l = nn::sigmoid_cross_entropy_with_logits(constant(&g, [0.0f32, 0.0])?, &big)?;
    let v = sess.eval(&l)?.to_vec::<f32>()?;
    assert_eq!(v[0], 100.0);
    assert!(v[1] >= 0.0 && v[1] < 1e-40, "{v:?}"); // log1p(exp(-100)), not log(1 + 0) or NaN
    assert!(nn::sigmoid_cross_entropy_with_logits(constant(&g, [0.0f32])?, &big).is_err());
    Ok(())
}

#[test]
fn l2_loss_is_half_the_sum_of_squares() -> Result<()> {
    let g = Graph::new();
    let t = constant(&g, Tensor::from_vec(&[2, 2], vec![1.0f32, -2.0, 3.0, 0.5])?)?;
    let l = nn::l2_loss(&t)?;
    assert_eq!(l.shape(), Shape::scalar());
    let sess = Session::new(&g)?;
    assert_eq!(
        sess.eval(&l)?.to_scalar::<f32>()?,
        (1.0 + 4.0 + 9.0 + 0.25) / 2.0
    );
    Ok(())
}

#[test]
fn in_top_k_semantics() -> Result<()> {
    let g = Graph::new();
    let p = constant(
        &g,
        Tensor::from_vec(
            &[4, 3],
            vec![
                0.1f32,
                0.8,
                0.1,
                0.3,
                0.3,
                0.4,
                0.5,
                0.2,
                0.3,
                0.1,
                f32::NAN,
                0.2,
            ],
        )?,
    )?;
    let t = constant(&g, [1i64, 0, 2, 0])?;
    let sess = Session::new(&g)?;
    let top1 = sess.eval(&nn::in_top_k(&p, &t, 1)?)?.to_vec::<bool>()?;
    assert_eq!(top1, vec![true, false, false, false]);
    let top2 = sess.eval(&nn::in_top_k(&p, &t, 2)?)?.to_vec::<bool>()?;
    assert_eq!(top2, vec![true, true, true, false]);
    let out_of_range = constant(&g, [5i32, -1, 0, 0])?;
    let r = sess
        .eval(&nn::in_top_k(&p, &out_of_range, 3)?)?
        .to_vec::<bool>()?;
    assert_eq!(r, vec![false, false, true, false]);
    Ok(())
}

#[test]
fn dropout_draws_tensorflows_uniforms_and_its_mask_drives_the_gradient() -> Result<()> {
    let g = Graph::new();
    let x = constant(&g, vec![1.0f32; 6])?;
    let keep = constant(&g, 0.5f32)?;
    // With seeds (1, 2) TensorFlow's uniforms are 0.406, 0.858, 0.055, 0.086, 0.412, 0.037:
    // only the second is >= rate 0.5.
    let d = g
        .new_operation("Dropout")
        .input(&x)
        .input(&keep)
        .attr("seed", 1i64)
        .attr("seed2", 2i64)
        .build()?;
    let sess = Session::new(&g)?;
    let out = sess.run(&RunArgs::new().fetch(d.output(0)?).fetch(d.output(1)?))?;
    assert_eq!(out[0].to_vec::<f32>()?, vec![0.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(out[1].to_vec::<f32>()?, vec![0.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
    let dy = constant(&g, [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let dx = nn::dropout_grad(&dy, d.output(1)?)?;
    // A second run draws new numbers, so fetch output and gradient together.
    let both = sess.run(&RunArgs::new().fetch(d.output(1)?).fetch(&dx))?;
    let (m, gx) = (both[0].to_vec::<f32>()?, both[1].to_vec::<f32>()?);
    for i in 0..6 {
        assert_eq!(gx[i], (i as f32 + 1.0) * m[i]);
    }

    // The builder seeds per TensorFlow's rules; a seeded dropout replays in a new session.
    let big = constant(&g, vec![3.0f64; 20_000])?;
    let y = nn::Dropout::new()
        .seed(5)
        .build(&big, constant(&g, 0.25f64)?)?;
    let a = sess.eval(&y)?;
    let s2 = Session::new(&g)?;
    assert_eq!(s2.eval(&y)?, a);
    let v = a.to_vec::<f64>()?;
    assert!(v.iter().all(|&e| e == 0.0 || e == 12.0));
    let kept = v.iter().filter(|&&e| e != 0.0).count() as f64 / v.len() as f64;
    assert!((kept - 0.25).abs() < 0.02, "{kept}");
    // keep_prob outside (0, 1] fails the run.
    let bad = nn::dropout(&big, constant(&g, 0.0f64)?)?;
    assert!(sess.eval(&bad).unwrap_err().is_invalid_argument());
    let all = nn::dropout(&big, constant(&g, 1.0f64)?)?;
    assert_eq!(sess.eval(&all)?.to_vec::<f64>()?, vec![3.0; 20_000]);
    Ok(())
}
