//! TensorFlow's CIFAR-10 tutorial (`cifar10_input.py`, `cifar10.py`, `cifar10_train.py`,
//! `cifar10_eval.py`) ported whole, on a small generated data set of CIFAR-10's binary layout
//! and on CPU-sized layers:
//! - input: `FixedLengthRecordReader` records of 1 label byte + 3,072 image bytes, distorted as
//!   the tutorial distorts them (random crop to 24x24, random flip, random brightness and
//!   contrast, `per_image_standardization`), batched by `shuffle_batch` with 2 threads;
//! - model: conv -> relu -> max_pool -> `lrn` -> conv -> relu -> `lrn` -> max_pool -> two
//!   fully connected layers -> linear, weight decay added to the `losses` collection, activation
//!   summaries with `zero_fraction`;
//! - training: `exponential_decay`, `GradientDescentOptimizer`, an `ExponentialMovingAverage`
//!   of the losses and of every trainable variable, run by a `MonitoredTrainingSession` with
//!   `StopAtStepHook`, `NanTensorHook` and a logging hook, saving checkpoints and summaries;
//! - evaluation: a second graph with the centre crop (`resize_image_with_crop_or_pad`),
//!   restoring the moving averages into the weights (`variables_to_restore`), `in_top_k`.
//!
//! The generated images carry their class as a bright square at a class-dependent place, so
//! the loss falls and the precision rises within a few hundred steps.
//!
//! `cargo run --release --example cifar10_train [-- --max-steps N]`

use std::path::{Path, PathBuf};

use weir::graph::CollectionItem;
use weir::ops::image::{
    per_image_standardization, random_brightness, random_contrast, random_flip_left_right,
    resize_image_with_crop_or_pad,
};
use weir::ops::nn::{self, Lrn, Padding};
use weir::ops::random::random_crop;
use weir::prelude::*;
use weir::train::{LoggingTensorHook, NanTensorHook, StopAtStepHook};

const HEIGHT: usize = 32;
const DEPTH: usize = 3;
const IMAGE_BYTES: usize = HEIGHT * HEIGHT * DEPTH;
const RECORD_BYTES: usize = 1 + IMAGE_BYTES;
const CROP: usize = 24;
const CLASSES: usize = 10;
const TRAIN_RECORDS: usize = 2_000;
const EVAL_RECORDS: usize = 500;
const BATCH: usize = 32;
/// The tutorial's constants.
const MOVING_AVERAGE_DECAY: f64 = 0.9999;
const NUM_EPOCHS_PER_DECAY: f64 = 350.0;
const LEARNING_RATE_DECAY_FACTOR: f64 = 0.1;
const INITIAL_LEARNING_RATE: f64 = 0.1;

/// Writes `n` records: noise, plus a bright 8x8 square at the label's place.
fn write_records(path: &Path, n: usize, seed: u64) -> Result<()> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let mut data = Vec::with_capacity(n * RECORD_BYTES);
    for _ in 0..n {
        let label = (next() % CLASSES as u32) as usize;
        data.push(label as u8);
        let (top, left) = (4 + (label / 5) * 12, 2 + (label % 5) * 6);
        for c in 0..DEPTH {
            for y in 0..HEIGHT {
                for x in 0..HEIGHT {
                    let inside = (top..top + 8).contains(&y) && (left..left + 8).contains(&x);
                    let noise = (next() % 96) as u8;
                    data.push(if inside {
                        160 + noise / 2 + c as u8 * 10
                    } else {
                        noise
                    });
                }
            }
        }
    }
    std::fs::write(path, &data).map_err(|e| Error::internal(format!("{}: {e}", path.display())))
}

/// `read_cifar10`: one record as (uint8 [32, 32, 3] image, int32 label).
fn read_cifar10(g: &Graph, file: &Path, num_epochs: Option<i64>) -> Result<(Output, Output)> {
    let name = file.to_string_lossy().into_owned();
    let mut producer = StringInputProducer::new(constant(g, vec![name.as_str()])?);
    if let Some(n) = num_epochs {
        producer = producer.num_epochs(n);
    }
    let queue = producer.build()?;
    let reader = FixedLengthRecordReader::new(RECORD_BYTES as i64).build(g)?;
    let (_key, value) = reader.read(queue.queue_ref())?;
    let record = decode_raw(&value, DType::U8)?;
    let label = reshape(
        cast(strided_slice(&record, &[0], &[1], &[1])?, DType::I32)?,
        [0i64; 0],
    )?;
    let depth_major = reshape(
        strided_slice(&record, &[1], &[RECORD_BYTES as i64], &[1])?,
        [DEPTH as i64, HEIGHT as i64, HEIGHT as i64],
    )?;
    Ok((transpose(depth_major, [1i64, 2, 0])?, label))
}

/// `distorted_inputs`: random crops, flips, brightness and contrast, then standardization.
fn distorted_inputs(g: &Graph, file: &Path) -> Result<(Output, Output)> {
    let (image, label) = read_cifar10(g, file, None)?;
    let image = cast(&image, DType::F32)?;
    let image = random_crop(&image, &[CROP, CROP, DEPTH])?;
    let image = random_flip_left_right(&image, None)?;
    let image = random_brightness(&image, 63.0, None)?;
    let image = random_contrast(&image, 0.2, 1.8, None)?;
    let image = per_image_standardization(&image)?;
    let min_queue_examples = (TRAIN_RECORDS as f64 * 0.4) as i64;
    let batch = ShuffleBatch::new(
        &[image, label],
        BATCH,
        min_queue_examples + 3 * BATCH as i64,
        min_queue_examples,
    )
    .num_threads(2)
    .build()?;
    Ok((batch[0].clone(), batch[1].clone()))
}

/// `inputs(eval_data=True)`: the centre crop, one epoch, in order.
fn eval_inputs(g: &Graph, file: &Path) -> Result<(Output, Output)> {
    let (image, label) = read_cifar10(g, file, Some(1))?;
    let image = cast(&image, DType::F32)?;
    let image = resize_image_with_crop_or_pad(&image, CROP as i64, CROP as i64)?;
    let image = per_image_standardization(&image)?;
    let batch = Batch::new(&[image, label], BATCH)
        .capacity(3 * BATCH as i64)
        .build()?;
    Ok((batch[0].clone(), batch[1].clone()))
}

/// `_variable_with_weight_decay`: a truncated-normal variable whose L2 loss times `wd` joins
/// the `losses` collection.
fn weight(g: &Graph, name: &str, shape: &[usize], stddev: f64, wd: f64) -> Result<Variable> {
    let v = GetVariable::new(name)
        .shape(shape)
        .initializer(Initializer::truncated_normal(0.0, stddev))
        .build(g)?;
    if wd > 0.0 {
        let decay = mul(nn::l2_loss(v.value())?, constant(g, wd as f32)?)?;
        g.add_to_collection("losses", decay)?;
    }
    Ok(v)
}

fn bias(g: &Graph, n: usize, value: f32) -> Result<Variable> {
    GetVariable::new("biases")
        .shape(&[n])
        .initializer(Initializer::Constant(Tensor::scalar(value)))
        .build(g)
}

/// `_activation_summary`: a histogram of `x` and the share of its zeros.
fn activation_summary(x: &Output) -> Result<()> {
    let tag = x.op().name();
    weir::ops::summary::histogram(&format!("{tag}/activations"), x)?;
    weir::ops::summary::scalar(&format!("{tag}/sparsity"), nn::zero_fraction(x)?)?;
    Ok(())
}

/// `inference`: the tutorial's network with narrower layers (32/32 filters, 192/96 units).
fn inference(g: &Graph, images: &Output) -> Result<Output> {
    let conv1 = {
        let _s = variable_scope(g, "conv1")?;
        let k = weight(g, "weights", &[5, 5, 3, 32], 5e-2, 0.0)?;
        let c = nn::conv2d(images, k.value(), [1, 1, 1, 1], Padding::Same)?;
        let out = nn::relu(nn::bias_add(&c, bias(g, 32, 0.0)?.value())?)?;
        activation_summary(&out)?;
        out
    };
    let pool1 = nn::max_pool(&conv1, [1, 3, 3, 1], [1, 2, 2, 1], Padding::Same)?;
    let lrn = Lrn::new()
        .depth_radius(4)
        .bias(1.0)
        .alpha(0.001 / 9.0)
        .beta(0.75);
    let norm1 = lrn.build(&pool1)?;
    let conv2 = {
        let _s = variable_scope(g, "conv2")?;
        let k = weight(g, "weights", &[5, 5, 32, 32], 5e-2, 0.0)?;
        let c = nn::conv2d(&norm1, k.value(), [1, 1, 1, 1], Padding::Same)?;
        let out = nn::relu(nn::bias_add(&c, bias(g, 32, 0.1)?.value())?)?;
        activation_summary(&out)?;
        out
    };
    let norm2 = lrn.build(&conv2)?;
    let pool2 = nn::max_pool(&norm2, [1, 3, 3, 1], [1, 2, 2, 1], Padding::Same)?;
    let flat_dim = 6 * 6 * 32;
    let local3 = {
        let _s = variable_scope(g, "local3")?;
        let flat = reshape(&pool2, [-1i64, flat_dim as i64])?;
        let w = weight(g, "weights", &[flat_dim, 192], 0.04, 0.004)?;
        let out = nn::relu(add(matmul(&flat, w.value())?, bias(g, 192, 0.1)?.value())?)?;
        activation_summary(&out)?;
        out
    };
    let local4 = {
        let _s = variable_scope(g, "local4")?;
        let w = weight(g, "weights", &[192, 96], 0.04, 0.004)?;
        let out = nn::relu(add(matmul(&local3, w.value())?, bias(g, 96, 0.1)?.value())?)?;
        activation_summary(&out)?;
        out
    };
    let _s = variable_scope(g, "softmax_linear")?;
    let w = weight(g, "weights", &[96, CLASSES], 1.0 / 96.0, 0.0)?;
    add(matmul(&local4, w.value())?, bias(g, CLASSES, 0.0)?.value())
}

/// `loss`: mean cross entropy plus every weight decay term.
fn total_loss(g: &Graph, logits: &Output, labels: &Output) -> Result<Output> {
    let xent = nn::sparse_softmax_cross_entropy_with_logits(labels, logits)?;
    let mean = Reduce::mean().name("cross_entropy").build(&xent)?;
    g.add_to_collection("losses", mean)?;
    let losses: Vec<Output> = g
        .get_collection("losses")
        .into_iter()
        .filter_map(|i| match i {
            CollectionItem::Output(o) => Some(o),
            _ => None,
        })
        .collect();
    add_n(&losses)
}

/// `train`: the decayed learning rate, the averaged losses, the update and the averages of the
/// variables after it.
fn train_op(g: &Graph, loss: &Output, step: &Variable) -> Result<Operation> {
    let batches_per_epoch = TRAIN_RECORDS as f64 / BATCH as f64;
    let lr = exponential_decay(
        INITIAL_LEARNING_RATE,
        step.value(),
        batches_per_epoch * NUM_EPOCHS_PER_DECAY,
        LEARNING_RATE_DECAY_FACTOR,
        true,
    )?;
    weir::ops::summary::scalar("learning_rate", &lr)?;
    let mut loss_averages = ExponentialMovingAverage::new(0.9).name("avg");
    let averages_op = loss_averages.apply_tensors(std::slice::from_ref(loss))?;
    weir::ops::summary::scalar("total_loss (raw)", loss)?;
    weir::ops::summary::scalar(
        "total_loss",
        loss_averages.average_of(loss).expect("averaged").value(),
    )?;
    let apply = {
        let _after = g.control_dependencies(&[averages_op])?;
        let mut opt = GradientDescentOptimizer::new(lr.clone());
        let grads = opt.compute_gradients(loss, None)?;
        opt.apply_gradients(&grads, Some(step), None)?
    };
    let mut ema = ExponentialMovingAverage::new(MOVING_AVERAGE_DECAY).num_updates(step.value());
    let vars_op = {
        let _after = g.control_dependencies(&[apply])?;
        ema.apply(&trainable_variables(g)?)?
    };
    weir::ops::control_flow::group(g, &[vars_op], Some("train"))
}

fn train(dir: &Path, file: &Path, max_steps: i64) -> Result<()> {
    let g = Graph::new();
    g.set_random_seed(1);
    let step = get_or_create_global_step(&g)?;
    let (images, labels) = distorted_inputs(&g, file)?;
    let logits = inference(&g, &images)?;
    let loss = total_loss(&g, &logits, &labels)?;
    let train = train_op(&g, &loss, &step)?;
    let logger = LoggingTensorHook::new(&[step.value(), loss.clone()], Some(50), None, false)?
        .sink(|line| println!("  {line}"));
    let mut sess = MonitoredTrainingSession::new(&g)
        .checkpoint_dir(dir)
        .save_checkpoint_steps(Some(100))
        .save_summaries_steps(Some(20))
        .hook(StopAtStepHook::new(None, Some(max_steps))?)
        .hook(NanTensorHook::new(&loss, true))
        .hook(logger)
        .build()?;
    let start = std::time::Instant::now();
    while !sess.should_stop() {
        sess.run(&RunArgs::new().target(&train))?;
    }
    let secs = start.elapsed().as_secs_f64();
    sess.close()?;
    println!(
        "trained {max_steps} steps in {secs:.1} s ({:.0} examples/s); checkpoints and events in {}",
        max_steps as f64 * BATCH as f64 / secs,
        dir.display()
    );
    Ok(())
}

/// `cifar10_eval.eval_once`: precision @ 1 of the averaged model on the held-out records.
fn evaluate(dir: &Path, file: &Path) -> Result<f64> {
    let g = Graph::new();
    let step = get_or_create_global_step(&g)?;
    let (images, labels) = eval_inputs(&g, file)?;
    let logits = inference(&g, &images)?;
    let hits = Reduce::sum().build(cast(nn::in_top_k(&logits, &labels, 1)?, DType::I32)?)?;
    let ema = ExponentialMovingAverage::new(MOVING_AVERAGE_DECAY);
    let saver = Saver::for_named_variables(&ema.variables_to_restore(&g, None)?)?;
    let ckpt = latest_checkpoint(dir)?.ok_or_else(|| {
        Error::not_found(format!("No checkpoint file found in {}", dir.display()))
    })?;
    let sess = Session::new(&g)?;
    saver.restore(&sess, &ckpt)?;
    sess.run_target(&local_variables_initializer(&g)?)?;
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord)?;
    let (mut correct, mut total) = (0i64, 0i64);
    let args = RunArgs::new().fetch(&hits);
    loop {
        match sess.run(&args) {
            Ok(v) => {
                correct += v[0].to_scalar::<i32>()? as i64;
                total += BATCH as i64;
            }
            Err(e) if e.is_out_of_range() => break,
            Err(e) => {
                coord.request_stop(Some(e.clone()))?;
                return Err(e);
            }
        }
    }
    coord.request_stop(None)?;
    coord.join(&threads, std::time::Duration::from_secs(10))?;
    let at = sess.eval(step.value())?.to_scalar::<i64>()?;
    let precision = correct as f64 / total.max(1) as f64;
    println!("step {at}: precision @ 1 = {precision:.3} ({correct} of {total})");
    Ok(precision)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let max_steps = args
        .iter()
        .position(|a| a == "--max-steps")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse::<i64>())
        .transpose()
        .map_err(|e| Error::invalid_argument(format!("--max-steps: {e}")))?
        .unwrap_or(300);
    let dir: PathBuf = std::env::temp_dir().join(format!("weir_cifar10_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::internal(format!("{}: {e}", dir.display())))?;
    let (train_file, eval_file) = (dir.join("data_batch_1.bin"), dir.join("test_batch.bin"));
    write_records(&train_file, TRAIN_RECORDS, 1)?;
    write_records(&eval_file, EVAL_RECORDS, 2)?;
    let train_dir = dir.join("cifar10_train");
    train(&train_dir, &train_file, max_steps)?;
    evaluate(&train_dir, &eval_file)?;
    Ok(())
}
