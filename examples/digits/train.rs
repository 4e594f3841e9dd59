//! Training through the queue pipeline with the Coordinator loop, checkpointing, and evaluation
//! in a second graph and session that restores the checkpoint; plus the same model fed through
//! placeholders, to compare throughputs.

use std::path::Path;
use std::time::{Duration, Instant};

use weir::ops::summary::merge_all;
use weir::prelude::*;
use weir::train::FileWriter;

use super::model::{correct_count, trainer, Kind};
use super::pipeline::{input_pipeline, Digit, Mode, PIXELS};

/// Hyper-parameters of one training run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The classifier.
    pub kind: Kind,
    /// Epochs over the training shards.
    pub epochs: i64,
    /// Examples per step.
    pub batch_size: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Print a progress line per epoch.
    pub verbose: bool,
}

/// What a training run did.
pub struct Trained {
    /// Steps taken (the final global step).
    pub steps: i64,
    /// Training examples consumed per second.
    pub examples_per_sec: f64,
    /// The loss of the last step.
    pub last_loss: f32,
    /// The checkpoint written.
    pub checkpoint: String,
}

const JOIN_GRACE: Duration = Duration::from_secs(10);

/// Trains `cfg.kind` on `train_files` (`n_train` examples) through the queue pipeline until the
/// filename producer runs out of epochs, writes summaries under `logdir` and a checkpoint under
/// `ckpt_dir`.
pub fn train_pipeline(
    cfg: &Config,
    train_files: &[String],
    n_train: usize,
    ckpt_dir: &Path,
    logdir: &Path,
) -> Result<Trained> {
    let g = Graph::new();
    g.set_random_seed(7);
    let (images, labels, fill) = input_pipeline(
        &g,
        train_files,
        cfg.batch_size,
        Mode::Train { epochs: cfg.epochs },
    )?;
    let t = trainer(&g, cfg.kind, &images, &labels, cfg.learning_rate)?;
    let summaries =
        merge_all(&g)?.ok_or_else(|| Error::internal("the graph has no summaries to merge"))?;
    let saver = Saver::new(&g)?;
    let writer = FileWriter::new(logdir)?;
    // tf.summary.FileWriter(logdir, sess.graph): the graph for TensorBoard's Graphs tab.
    writer.add_graph(&g)?;

    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    sess.run_target(&local_variables_initializer(&g)?)?;
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord)?;

    let steps_per_epoch = (n_train / cfg.batch_size).max(1) as i64;
    let step_args = RunArgs::new()
        .fetch(&t.loss)
        .fetch(&fill)
        .target(&t.train_op);
    let summary_args = step_args.clone().fetch(&summaries);
    let (mut step, mut last_loss) = (0i64, f32::NAN);
    let start = Instant::now();
    let mut epoch_start = (Instant::now(), 0i64);
    // TensorFlow's recommended loop: run until a stop is requested; the producers' num_epochs
    // ends it with OutOfRange once every batch has been taken.
    let outcome: Result<()> = (|| {
        while !coord.should_stop() {
            let at_epoch_end = (step + 1) % steps_per_epoch == 0;
            let args = if at_epoch_end {
                &summary_args
            } else {
                &step_args
            };
            let out = match sess.run(args) {
                Ok(out) => out,
                Err(e) if e.code() == weir::Code::OutOfRange => break,
                Err(e) => return Err(e),
            };
            step += 1;
            last_loss = out[0].to_scalar::<f32>()?;
            if at_epoch_end {
                writer.add_summary(&out[2], step)?;
                let (t0, s0) = epoch_start;
                let rate =
                    ((step - s0) as usize * cfg.batch_size) as f64 / t0.elapsed().as_secs_f64();
                if cfg.verbose {
                    println!(
                        "  {} epoch {:>3}  step {:>5}  loss {:.4}  {:>8.0} examples/s  queue fill {:.2}",
                        cfg.kind.name(),
                        step / steps_per_epoch,
                        step,
                        last_loss,
                        rate,
                        out[1].to_scalar::<f32>()?
                    );
                }
                epoch_start = (Instant::now(), step);
            }
        }
        Ok(())
    })();
    let elapsed = start.elapsed().as_secs_f64();
    coord.request_stop(outcome.err())?;
    coord.join(&threads, JOIN_GRACE)?;
    writer.add_scalar("final_loss", last_loss, step)?;
    writer.close()?;
    let global = sess.eval(t.global_step.value())?.to_scalar::<i64>()?;
    std::fs::create_dir_all(ckpt_dir)
        .map_err(|e| Error::internal(format!("{}: {e}", ckpt_dir.display())))?;
    let prefix = ckpt_dir.join(format!("{}.ckpt", cfg.kind.name()));
    let checkpoint = saver.save(&sess, &prefix.to_string_lossy(), Some(global))?;
    Ok(Trained {
        steps: global,
        examples_per_sec: (step as usize * cfg.batch_size) as f64 / elapsed,
        last_loss,
        checkpoint,
    })
}

/// Builds a fresh graph with the same model code, restores `checkpoint`, and evaluates
/// `eval_files` once through a second pipeline; returns `(correct, total)`.
pub fn evaluate(kind: Kind, checkpoint: &str, eval_files: &[String]) -> Result<(i64, i64)> {
    let g = Graph::new();
    let (images, labels, _) = input_pipeline(&g, eval_files, 100, Mode::Eval)?;
    let correct = correct_count(&g, kind, &images, &labels)?;
    let saver = Saver::new(&g)?;
    let sess = Session::new(&g)?;
    saver.restore(&sess, checkpoint)?;
    sess.run_target(&local_variables_initializer(&g)?)?;
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord)?;
    let args = RunArgs::new().fetch(&correct).fetch(&labels);
    let (mut hits, mut total) = (0i64, 0i64);
    let outcome: Result<()> = (|| {
        while !coord.should_stop() {
            match sess.run(&args) {
                Ok(out) => {
                    hits += i64::from(out[0].to_scalar::<i32>()?);
                    total += out[1].shape()[0] as i64;
                }
                Err(e) if e.code() == weir::Code::OutOfRange => break,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    })();
    coord.request_stop(outcome.err())?;
    coord.join(&threads, JOIN_GRACE)?;
    coord.raise_requested_exception()?;
    Ok((hits, total))
}

/// Trains the same model by feeding placeholders from memory (reshuffled each epoch) for
/// `cfg.epochs` epochs; returns the training examples per second.
pub fn train_feeding(cfg: &Config, train: &[Digit]) -> Result<f64> {
    let g = Graph::new();
    g.set_random_seed(7);
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(PIXELS)]))
        .name("images")
        .build(&g)?;
    let y = Placeholder::new(DType::I64)
        .shape(Shape::new(vec![None]))
        .name("labels")
        .build(&g)?;
    let t = trainer(&g, cfg.kind, &x, &y, cfg.learning_rate)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let pixels: Vec<f32> = train
        .iter()
        .flat_map(|d| d.pixels.iter().map(|&p| f32::from(p) / 16.0))
        .collect();
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let bs = cfg.batch_size;
    let mut steps = 0usize;
    let start = Instant::now();
    for _ in 0..cfg.epochs {
        for i in (1..order.len()).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            order.swap(i, (rng % (i as u64 + 1)) as usize);
        }
        for chunk in order.chunks_exact(bs) {
            let mut xs = Vec::with_capacity(bs * PIXELS);
            let mut ys = Vec::with_capacity(bs);
            for &r in chunk {
                xs.extend_from_slice(&pixels[r * PIXELS..(r + 1) * PIXELS]);
                ys.push(train[r].label);
            }
            sess.run(
                &RunArgs::new()
                    .feed(&x, Tensor::from_vec(&[bs, PIXELS], xs)?)
                    .feed(&y, Tensor::from(ys))
                    .target(&t.train_op),
            )?;
            steps += 1;
        }
    }
    Ok((steps * bs) as f64 / start.elapsed().as_secs_f64())
}
