//! TensorFlow 1's `tf.train.Supervisor` loop on the iris data (`examples/data/iris.csv`): a
//! queue pipeline (`string_input_producer` with `num_epochs`, `TextLineReader`, `decode_csv`,
//! `shuffle_batch`) trains a softmax classifier with `tf.layers.dense` and Adam under
//! `sv.managed_session()`, looping `while not sv.should_stop()` until the epochs run out (the
//! OutOfRange that ends the input stops the Supervisor cleanly). The Supervisor restores from
//! and checkpoints to its log directory and writes summaries there; a second Supervisor on a
//! new graph restores the model and measures its accuracy on all 150 flowers.
//!
//! `cargo run --release --example supervisor_iris [-- --epochs N]`

use std::path::{Path, PathBuf};

use weir::prelude::*;
use weir::train::layers::Dense;

const FEATURES: usize = 4;
const CLASSES: usize = 3;
const BATCH: usize = 16;

/// The iris CSV (a header line, then four measurements and the class index per line).
fn iris_csv() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/data/iris.csv")
        .to_string_lossy()
        .into_owned()
}

/// `read_iris`: one (features, label) example per evaluation, for `epochs` passes.
fn read_iris(g: &Graph, epochs: i64, shuffle_files: bool) -> Result<(Output, Output)> {
    let files = StringInputProducer::new(constant(g, vec![iris_csv().as_str()])?)
        .num_epochs(epochs)
        .shuffle(shuffle_files)
        .build()?;
    let reader = TextLineReader::new().skip_header_lines(1).build(g)?;
    let (_, line) = reader.read(files.queue_ref())?;
    let mut defaults: Vec<Output> = (0..FEATURES)
        .map(|_| constant(g, vec![0.0f32]))
        .collect::<Result<_>>()?;
    defaults.push(constant(g, vec![0i32])?);
    let cols = decode_csv(&line, defaults)?;
    Ok((stack(&cols[..FEATURES], 0)?, cols[FEATURES].clone()))
}

/// The model: logits of a 4 -> 3 dense layer (the same variables in both graphs).
fn logits(features: &Output) -> Result<Output> {
    Dense::new(CLASSES).name("softmax").apply(features)
}

fn train(logdir: &Path, epochs: i64) -> Result<()> {
    let g = Graph::new();
    g.set_random_seed(1);
    let (x, y) = read_iris(&g, epochs, true)?;
    let batch = ShuffleBatch::new(&[x, y], BATCH, 200, 50).seed(7).build()?;
    let logits = logits(&batch[0])?;
    let xent = nn::sparse_softmax_cross_entropy_with_logits(&batch[1], &logits)?;
    let loss = Reduce::mean().build(&xent)?;
    weir::ops::summary::scalar("loss", &loss)?;
    let step = get_or_create_global_step(&g)?;
    let train_op = AdamOptimizer::new(0.05).minimize(&loss, None, Some(&step))?;

    // TensorFlow's defaults: a checkpoint every 600 s and summaries every 120 s (and once at
    // the start), the model restored from `logdir` when a checkpoint is there.
    let sv = Supervisor::builder(&g).logdir(logdir).build()?;
    sv.managed_session(|sess| {
        let args = RunArgs::new()
            .target(&train_op)
            .fetch(&loss)
            .fetch(step.value());
        while !sv.should_stop() {
            match sess.run(&args) {
                Ok(out) => {
                    let s = out[1].to_scalar::<i64>()?;
                    if s % 1000 == 0 {
                        println!("step {s:>5}: loss {:.4}", out[0].to_scalar::<f32>()?);
                    }
                }
                // The epochs ran out. The Supervisor saves on a timer only, so save the final
                // model here, as TensorFlow programs do in their `except OutOfRangeError:`.
                Err(e) if e.is_out_of_range() => {
                    let s = sess.eval(step.value())?.to_scalar::<i64>()?;
                    let saver = sv.saver().expect("the model has variables");
                    let path = saver.save(sess, sv.save_path().expect("a logdir"), Some(s))?;
                    println!("done after {s} steps; saved {path}");
                    return Err(e);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    })
}

/// A second graph restores the model from `logdir` and counts the correct predictions over
/// one pass of the data.
fn evaluate(logdir: &Path) -> Result<f64> {
    let g = Graph::new();
    let (x, y) = read_iris(&g, 1, false)?;
    let batch = Batch::new(&[x, y], 50)
        .allow_smaller_final_batch(true)
        .build()?;
    let logits = logits(&batch[0])?;
    get_or_create_global_step(&g)?;
    let hits = Reduce::sum().build(&cast(&nn::in_top_k(&logits, &batch[1], 1)?, DType::I32)?)?;
    let sv = Supervisor::builder(&g)
        .logdir(logdir)
        .save_model_secs(0.0)
        .save_summaries_secs(0.0)
        .build()?;
    let (mut correct, mut total) = (0usize, 0usize);
    sv.managed_session(|sess| {
        while !sv.should_stop() {
            let out = sess.run(&RunArgs::new().fetch(&hits).fetch(&batch[1]))?;
            correct += out[0].to_scalar::<i32>()? as usize;
            total += out[1].num_elements();
        }
        Ok(())
    })?;
    println!("held in: {correct}/{total} correct");
    Ok(correct as f64 / total as f64)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let epochs: i64 = args
        .iter()
        .position(|a| a == "--epochs")
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            v.parse()
                .map_err(|_| Error::invalid_argument(format!("--epochs {v}")))
        })
        .transpose()?
        .unwrap_or(300);
    let logdir: PathBuf =
        std::env::temp_dir().join(format!("weir-supervisor-iris-{}", std::process::id()));
    std::fs::remove_dir_all(&logdir).ok();
    train(&logdir, epochs)?;
    let accuracy = evaluate(&logdir)?;
    println!(
        "accuracy {accuracy:.3}; checkpoints and events in {}",
        logdir.display()
    );
    if accuracy < 0.9 {
        return Err(Error::internal(format!(
            "accuracy {accuracy:.3} is below 0.9"
        )));
    }
    Ok(())
}
