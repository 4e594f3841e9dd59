//! End to end in float16: a softmax regression (MatMul + BiasAdd + sparse softmax
//! cross-entropy, summed) trained by GradientDescent on fixed data, its loss and weights
//! compared bit for bit with TensorFlow 2.21's after each of five steps (the "train" case of
//! crates/ops/tests/data/half_nn/expected.json, made by make_half_nn.py there).

use crate::half_nn_grad::cases::{assert_tensor, cases, tensor};
use weir_graph::Result;
use weir_ops::array::constant;
use weir_ops::math::{matmul, Reduce};
use weir_ops::nn;
use weir_ops::state::{global_variables_initializer, Variable};
use weir_session::{RunArgs, Session};
use weir_train::{GradientDescentOptimizer, Optimizer};

#[test]
fn float16_softmax_regression_trains_as_tensorflow() -> Result<()> {
    let c = cases()
        .iter()
        .find(|c| c["kind"] == "train")
        .expect("the training case");
    let g = weir_graph::Graph::new();
    let input = |k: &str| tensor(&c["inputs"][k]);
    let x = constant(&g, input("x"))?;
    let labels = constant(&g, input("labels"))?;
    let w = Variable::builder(constant(&g, input("w"))?)
        .name("w")
        .build()?;
    let b = Variable::builder(constant(&g, input("b"))?)
        .name("b")
        .build()?;
    let logits = nn::bias_add(matmul(x, w.value())?, b.value())?;
    let loss = Reduce::sum().build(nn::sparse_softmax_cross_entropy_with_logits(
        labels, logits,
    )?)?;
    let lr = c["learning_rate"].as_f64().unwrap() as f32;
    let train = GradientDescentOptimizer::new(lr).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    for (i, step) in c["steps"].as_array().unwrap().iter().enumerate() {
        let got = sess.run(&RunArgs::new().fetch(&loss).target(&train))?;
        assert_tensor(&format!("step {i}: loss"), &got[0], &step["loss"], 0);
        assert_tensor(
            &format!("step {i}: w"),
            &sess.eval(w.value())?,
            &step["w"],
            0,
        );
        assert_tensor(
            &format!("step {i}: b"),
            &sess.eval(b.value())?,
            &step["b"],
            0,
        );
    }
    Ok(())
}
