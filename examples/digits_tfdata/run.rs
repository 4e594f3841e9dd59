//! The `tf.data` training program of the `digits_tfdata` example, shared with its integration
//! test: `TFRecordDataset -> map(parse) -> shuffle -> batch -> repeat -> prefetch` feeding a
//! 64-128-10 network trained with Adam, one reinitializable iterator for the training and the
//! held-out dataset.

use std::time::Instant;

use weir::ops::data::{Iterator, TfRecordDataset};
use weir::prelude::*;
use weir::train::{AdamOptimizer, Optimizer};

/// Pixels per 8x8 image.
const PIXELS: usize = 64;
/// Examples per training batch.
const BATCH: usize = 64;

/// `TFRecordDataset(files).map(parse)`: each Example as (64 pixels scaled to [0, 1], label).
fn examples(g: &Graph, files: &[String]) -> Result<Dataset> {
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let features = Features::new()
        .add("image_raw", FixedLenFeature::new(&[], DType::String))
        .add("label", FixedLenFeature::new(&[], DType::I64));
    TfRecordDataset::new(&constant(g, names)?)
        .build()?
        .map(|record| {
            let ex = parse_single_example(&record[0], &features)?;
            let pixels = reshape(
                decode_raw(ex.dense("image_raw")?, DType::U8)?,
                [PIXELS as i64],
            )?;
            let scale = constant(record[0].graph(), 1.0f32 / 16.0)?;
            Ok(vec![
                mul(cast(pixels, DType::F32)?, scale)?,
                ex.dense("label")?,
            ])
        })
}

fn dense(g: &Graph, scope: &str, x: &Output, fan_in: usize, units: usize) -> Result<Output> {
    let _s = variable_scope(g, scope)?;
    let w = GetVariable::new("weights")
        .shape(&[fan_in, units])
        .initializer(Initializer::glorot_uniform().seed(1))
        .build(g)?;
    let b = GetVariable::new("biases")
        .shape(&[units])
        .initializer(Initializer::Zeros)
        .build(g)?;
    nn::bias_add(&matmul(x, &w)?, &b)
}

/// Trains on `train_files` (`train_count` Examples) for `epochs` epochs, then returns the
/// accuracy on `eval_files` (`eval_count` Examples); prints progress when `verbose`.
pub fn train_and_evaluate(
    train_files: &[String],
    train_count: usize,
    eval_files: &[String],
    eval_count: usize,
    epochs: i64,
    verbose: bool,
) -> Result<f64> {
    let g = Graph::new();
    g.set_random_seed(1);
    let training = examples(&g, train_files)?
        .shuffle_with(1000)
        .seed(1)
        .build()?
        .batch(BATCH as i64)?
        .repeat(Some(epochs))?
        .prefetch(2)?;
    let evaluation = examples(&g, eval_files)?.batch(256)?;
    let it = Iterator::from_structure(&g, training.output_types(), training.output_shapes())?;
    let to_training = it.make_initializer(&training)?;
    let to_evaluation = it.make_initializer(&evaluation)?;
    let next = it.get_next()?;
    let (images, labels) = (&next[0], &next[1]);

    let hidden = nn::relu(&dense(&g, "hidden", images, PIXELS, 128)?)?;
    let logits = dense(&g, "softmax", &hidden, 128, 10)?;
    let xent = nn::sparse_softmax_cross_entropy_with_logits(labels, &logits)?;
    let loss = Reduce::mean().build(&xent)?;
    let train_op = AdamOptimizer::new(0.003).minimize(&loss, None, None)?;
    let hits = cast(&nn::in_top_k(&logits, labels, 1)?, DType::I64)?;
    let correct = Reduce::sum().build(&hits)?;

    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    sess.run_target(&to_training)?;
    let steps_per_epoch = train_count.div_ceil(BATCH);
    let (mut step, mut total) = (0usize, 0.0f32);
    let start = Instant::now();
    loop {
        match sess.run(&RunArgs::new().target(&train_op).fetch(&loss)) {
            Ok(out) => total += out[0].to_scalar::<f32>()?,
            Err(e) if e.is_out_of_range() => break,
            Err(e) => return Err(e),
        }
        step += 1;
        if verbose && step % (10 * steps_per_epoch) == 0 {
            println!(
                "epoch {:>3}  step {step:>5}  mean loss {:.4}  {:.0} examples/s",
                step / steps_per_epoch,
                total / (10 * steps_per_epoch) as f32,
                (step * BATCH) as f64 / start.elapsed().as_secs_f64()
            );
            total = 0.0;
        }
    }
    if verbose {
        println!("training ended with the dataset after {step} steps (End of sequence)");
    }
    // batch before repeat: each epoch ends with its own short batch.
    if step != steps_per_epoch * epochs as usize {
        return Err(Error::internal(format!(
            "{step} training steps for {epochs} epochs of {steps_per_epoch} batches"
        )));
    }

    sess.run_target(&to_evaluation)?;
    let mut right = 0i64;
    loop {
        match sess.run(&RunArgs::new().fetch(&correct)) {
            Ok(out) => right += out[0].to_scalar::<i64>()?,
            Err(e) if e.is_out_of_range() => break,
            Err(e) => return Err(e),
        }
    }
    Ok(right as f64 / eval_count as f64)
}
