//! A TensorFlow 1 training program written with `tf.layers`, `tf.losses` and `tf.metrics`,
//! ported as is, then handed to serving as a SavedModel: the shipped digits train a
//! dense-batchnorm-dropout network (Adam, the batch-norm updates of `UPDATE_OPS` run with each
//! step, an L2 penalty on the kernels); `tf.metrics.accuracy` measures the held-out half;
//! `SavedModelBuilder` exports a `serving_default` signature (images -> classes,
//! probabilities); and a second session, with nothing but the directory, loads it and serves
//! the held-out images with the same accuracy. TensorFlow's own loader serves the directory
//! too (`saved_model_cli show --dir <dir> --all`).
//!
//! `cargo run --release --example digits_serving [-- --epochs N] [--export DIR]`

#[path = "common/mod.rs"]
mod common;

use weir::graph::CollectionItem;
use weir::prelude::*;
use weir::train::saved_model::{
    get_tensor_from_tensor_info, load, predict_signature_def, tag_constants, MetaGraphArgs,
    SavedModelBuilder,
};
use weir::train::{
    layers::{BatchNormalization, Dense, Dropout},
    losses, metrics, AdamOptimizer, Optimizer,
};

const BATCH: usize = 64;

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

/// Images scaled to [0, 1] (the digits' pixels are 0..16).
fn images(d: &common::DataSet, rows: std::ops::Range<usize>) -> Result<Tensor> {
    let f = d.num_features;
    let pixels: Vec<f32> = d.features[rows.start * f..rows.end * f]
        .iter()
        .map(|p| p / 16.0)
        .collect();
    Tensor::from_vec(&[rows.len(), f], pixels)
}

fn main() -> Result<()> {
    let epochs: usize = arg("--epochs").and_then(|v| v.parse().ok()).unwrap_or(30);
    let export = arg("--export")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("weir-digits-serving-{}", std::process::id()))
        });
    let (train, test) = common::split(&common::digits()?);

    // The training program, as its TensorFlow 1 original builds it.
    let g = Graph::new();
    g.set_random_seed(1);
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(64)]))
        .name("images")
        .build(&g)?;
    let y = Placeholder::new(DType::I64)
        .shape(Shape::new(vec![None]))
        .name("labels")
        .build(&g)?;
    let training = {
        let _s = g.name_scope("training");
        weir::ops::array::placeholder_with_default(constant(&g, false)?, Shape::scalar())?
    };
    let h = Dense::new(64)
        .activation(|t| nn::relu(t))
        .kernel_regularizer(l2_regularizer(1e-4)?)
        .apply(&x)?;
    let h = BatchNormalization::new().apply(&h, &training)?;
    let h = Dropout::new(0.2).seed(2).apply(&h, &training)?;
    let logits = Dense::new(10).apply(&h)?;
    losses::sparse_softmax_cross_entropy(&y, &logits)?;
    let loss = losses::get_total_loss(&g, true)?;
    let train_op = {
        let updates: Vec<Operation> = g
            .get_collection(graph_keys::UPDATE_OPS)
            .into_iter()
            .filter_map(|item| match item {
                CollectionItem::Operation(op) => Some(op),
                CollectionItem::Output(o) => Some(o.op()),
                CollectionItem::Object(_) => None,
            })
            .collect();
        let _deps = g.control_dependencies(&updates)?;
        AdamOptimizer::new(0.003).minimize(&loss, None, None)?
    };
    let classes = arg_max(&logits, 1)?;
    let probabilities = nn::softmax(&logits)?;
    let (accuracy, update_accuracy) = metrics::accuracy(&y, &classes)?;

    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let labels =
        |d: &common::DataSet, r: std::ops::Range<usize>| Tensor::from(d.labels[r].to_vec());
    for epoch in 0..epochs {
        let mut total = 0.0;
        let mut steps = 0;
        for start in (0..train.rows()).step_by(BATCH) {
            let end = (start + BATCH).min(train.rows());
            let out = sess.run(
                &RunArgs::new()
                    .feed(&x, images(&train, start..end)?)
                    .feed(&y, labels(&train, start..end))
                    .feed(&training, true)
                    .target(&train_op)
                    .fetch(&loss),
            )?;
            total += out[0].to_scalar::<f32>()?;
            steps += 1;
        }
        if epoch % 10 == 9 || epoch + 1 == epochs {
            println!(
                "epoch {:>3}  mean loss {:.4}",
                epoch + 1,
                total / steps as f32
            );
        }
    }
    sess.run_target(&local_variables_initializer(&g)?)?;
    sess.run(
        &RunArgs::new()
            .feed(&x, images(&test, 0..test.rows())?)
            .feed(&y, labels(&test, 0..test.rows()))
            .fetch(&update_accuracy),
    )?;
    let trained = sess.eval(&accuracy)?.to_scalar::<f32>()?;
    println!("held-out accuracy (tf.metrics.accuracy): {trained:.3}");

    // Export: the serving signature reads images and answers classes and probabilities.
    let _ = std::fs::remove_dir_all(&export);
    let mut builder = SavedModelBuilder::new(&export)?;
    builder.add_meta_graph_and_variables(
        &sess,
        &[tag_constants::SERVING],
        MetaGraphArgs::new().signature(
            "serving_default",
            predict_signature_def(
                &[("images", x.clone())],
                &[("classes", classes), ("probabilities", probabilities)],
            )?,
        ),
    )?;
    builder.save()?;
    println!("exported a SavedModel to {}", export.display());

    // Serving: a new graph and session, with only the directory.
    let served = Graph::new();
    let server = Session::new(&served)?;
    let meta = load(&server, &[tag_constants::SERVING], &export)?;
    let sig = &meta.signature_def["serving_default"];
    let input = get_tensor_from_tensor_info(&sig.inputs["images"], &served, None)?;
    let output = get_tensor_from_tensor_info(&sig.outputs["classes"], &served, None)?;
    let predicted = server.run(
        &RunArgs::new()
            .feed(&input, images(&test, 0..test.rows())?)
            .fetch(&output),
    )?;
    let predicted = predicted[0].to_vec::<i64>()?;
    let served_accuracy = common::accuracy(&predicted, &test.labels);
    println!("held-out accuracy served from the SavedModel: {served_accuracy:.3}");
    if (served_accuracy - f64::from(trained)).abs() > 1e-6 {
        return Err(Error::internal(format!(
            "the served model ({served_accuracy}) disagrees with the trained one ({trained})"
        )));
    }
    if arg("--export").is_none() {
        std::fs::remove_dir_all(&export).ok();
    }
    Ok(())
}
