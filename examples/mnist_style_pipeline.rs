//! TensorFlow 1.x's seed MNIST loop (`fully_connected_reader.py`) on synthetic data of MNIST's
//! shape: Examples with `image_raw` (784 packed int64 pixels) and `label` (int64) in TFRecord
//! shards, read back by `string_input_producer(num_epochs) -> TFRecordReader ->
//! parse_single_example -> cast * (1/255) -> shuffle_batch(2 threads)`, trained with
//! `mnist.inference` (784 -> 128 relu -> 32 relu -> 10), sparse softmax cross-entropy and
//! gradient descent with a global step, in the recommended Coordinator loop that ends on
//! OutOfRange. The classes are learnable (each has its own pixel pattern, plus noise), and the
//! final accuracy is measured on a held-out synthetic set fed through placeholders.
//!
//! `cargo run --release --example mnist_style_pipeline [-- --epochs N] [-- --train N]`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use weir::prelude::*;

/// Pixels per image, as in MNIST.
pub const IMAGE_PIXELS: usize = 784;
/// Classes, as in MNIST.
pub const NUM_CLASSES: usize = 10;

/// Hyper-parameters and sizes of one run (the tutorial's flags).
#[derive(Clone, Debug)]
pub struct Config {
    /// Synthetic training examples written to the shards.
    pub train_examples: usize,
    /// Synthetic held-out examples (never written to the shards).
    pub eval_examples: usize,
    /// TFRecord shards the training examples are spread over.
    pub shards: usize,
    /// `num_epochs` of the filename producer.
    pub num_epochs: i64,
    /// Examples per step (`--batch_size`, 100 in the tutorial).
    pub batch_size: usize,
    /// Gradient descent's learning rate.
    pub learning_rate: f64,
    /// Seed of the synthetic data.
    pub seed: u64,
    /// Print the tutorial's progress lines.
    pub verbose: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            train_examples: 20_000,
            eval_examples: 2_000,
            shards: 4,
            num_epochs: 2,
            batch_size: 100,
            learning_rate: 0.1,
            seed: 20_240_601,
            verbose: true,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Training steps taken before OutOfRange.
    pub steps: i64,
    /// The global step read back after training.
    pub global_step: i64,
    /// The loss of the last step.
    pub last_loss: f32,
    /// Accuracy on the held-out synthetic set.
    pub accuracy: f64,
    /// Training examples per second through the pipeline.
    pub examples_per_sec: f64,
}

/// SplitMix64: a small seeded generator, so the data is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Synthetic MNIST-shaped data: each class lights its own random ~20% of the pixels; an
/// example keeps each of its class's pixels with probability 0.4 at a noisy intensity and
/// lights 15% stray pixels, so classes overlap but stay learnable.
pub struct Synthetic {
    prototypes: Vec<Vec<bool>>,
    rng: Rng,
}

impl Synthetic {
    /// The class patterns drawn from `seed`; examples then follow from `stream`.
    pub fn new(seed: u64, stream: u64) -> Synthetic {
        let mut rng = Rng(seed);
        let prototypes = (0..NUM_CLASSES)
            .map(|_| (0..IMAGE_PIXELS).map(|_| rng.below(5) == 0).collect())
            .collect();
        Synthetic {
            prototypes,
            rng: Rng(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)),
        }
    }

    /// One example: 784 pixels in 0..=255 and a label in 0..10.
    pub fn example(&mut self) -> ([i64; IMAGE_PIXELS], i64) {
        let label = self.rng.below(NUM_CLASSES as u64) as usize;
        let mut pixels = [0i64; IMAGE_PIXELS];
        for (p, px) in pixels.iter_mut().enumerate() {
            let r = self.rng.next_u64();
            let on = if self.prototypes[label][p] {
                r % 10 < 4
            } else {
                r % 20 < 3
            };
            if on {
                *px = 128 + ((r >> 8) % 128) as i64;
            }
        }
        (pixels, label as i64)
    }
}

/// Writes `n` synthetic Examples round-robin into `shards` TFRecord files under `dir`
/// (`image_raw`: int64_list of 784, `label`: int64) and returns their paths.
pub fn write_shards(
    dir: &Path,
    data: &mut Synthetic,
    n: usize,
    shards: usize,
) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::internal(format!("{}: {e}", dir.display())))?;
    let paths: Vec<String> = (0..shards)
        .map(|i| {
            dir.join(format!("train-{i:05}-of-{shards:05}.tfrecord"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut writers = paths
        .iter()
        .map(|p| TfRecordWriter::create(p, Compression::None))
        .collect::<Result<Vec<_>>>()?;
    for i in 0..n {
        let (pixels, label) = data.example();
        let ex = Example::builder()
            .int64("image_raw", pixels)
            .int64("label", [label])
            .build();
        writers[i % shards].write(ex.to_bytes())?;
    }
    for w in &mut writers {
        w.close()?;
    }
    Ok(paths)
}

/// `inputs(train=True, batch_size, num_epochs)` of the tutorial: the images (`[batch, 784]`
/// f32 in 0..=1) and labels (`[batch]` int32) of a shuffle_batch over `files`.
pub fn inputs(
    g: &Graph,
    files: &[String],
    batch_size: usize,
    num_epochs: i64,
) -> Result<(Output, Output)> {
    let _scope = g.name_scope("input");
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    let filename_queue = StringInputProducer::new(constant(g, Tensor::from_strings(&names))?)
        .num_epochs(num_epochs)
        .build()?;
    // read_and_decode: one shared reader; each of shuffle_batch's threads runs the whole chain.
    let reader = TfRecordReader::new().build(g)?;
    let (_, serialized) = reader.read(filename_queue.queue_ref())?;
    let features = Features::new()
        .add(
            "image_raw",
            FixedLenFeature::new(&[IMAGE_PIXELS], DType::I64),
        )
        .add("label", FixedLenFeature::new(&[], DType::I64));
    let parsed = parse_single_example(&serialized, &features)?;
    let image = mul(
        cast(parsed.dense("image_raw")?, DType::F32)?,
        constant(g, 1.0f32 / 255.0)?,
    )?;
    let label = cast(parsed.dense("label")?, DType::I32)?;
    // The tutorial's sizes: capacity = 1000 + 3 * batch_size, min_after_dequeue = 1000.
    let out = ShuffleBatch::new(
        &[image, label],
        batch_size,
        1000 + 3 * batch_size as i64,
        1000,
    )
    .num_threads(2)
    .seed(1)
    .build()?;
    Ok((out[0].clone(), out[1].clone()))
}

/// `mnist.inference`'s weights: 784 -> 128 relu -> 32 relu -> 10, truncated-normal
/// initialised with stddev 1/sqrt(fan_in), zero biases.
pub struct Model {
    layers: Vec<(Variable, Variable)>,
}

impl Model {
    /// Creates the variables under scopes `hidden1`, `hidden2` and `softmax_linear`.
    pub fn new(g: &Graph, hidden1: usize, hidden2: usize) -> Result<Model> {
        let sizes = [
            ("hidden1", IMAGE_PIXELS, hidden1),
            ("hidden2", hidden1, hidden2),
            ("softmax_linear", hidden2, NUM_CLASSES),
        ];
        let mut layers = Vec::new();
        for (i, (scope, fan_in, units)) in sizes.into_iter().enumerate() {
            let _s = variable_scope(g, scope)?;
            let w = GetVariable::new("weights")
                .shape(&[fan_in, units])
                .initializer(
                    Initializer::truncated_normal(0.0, 1.0 / (fan_in as f64).sqrt())
                        .seed(i as i64 + 1),
                )
                .build(g)?;
            let b = GetVariable::new("biases")
                .shape(&[units])
                .initializer(Initializer::Zeros)
                .build(g)?;
            layers.push((w, b));
        }
        Ok(Model { layers })
    }

    /// The logits `[batch, 10]` of `images`.
    pub fn logits(&self, images: &Output) -> Result<Output> {
        let mut x = images.clone();
        let last = self.layers.len() - 1;
        for (i, (w, b)) in self.layers.iter().enumerate() {
            x = nn::bias_add(matmul(&x, w.value())?, b.value())?;
            if i < last {
                x = nn::relu(&x)?;
            }
        }
        Ok(x)
    }
}

const JOIN_GRACE: Duration = Duration::from_secs(10);

/// Generates the data under `dir`, trains through the queue pipeline until the producer's
/// epochs run out, then measures held-out accuracy.
pub fn run(cfg: &Config, dir: &Path) -> Result<Report> {
    let mut data = Synthetic::new(cfg.seed, 1);
    let files = write_shards(dir, &mut data, cfg.train_examples, cfg.shards)?;
    if cfg.verbose {
        println!(
            "wrote {} synthetic MNIST-shaped Examples in {} shards under {}",
            cfg.train_examples,
            files.len(),
            dir.display()
        );
    }

    let g = Graph::new();
    g.set_random_seed(7);
    let (images, labels) = inputs(&g, &files, cfg.batch_size, cfg.num_epochs)?;
    let model = Model::new(&g, 128, 32)?;
    let logits = model.logits(&images)?;
    // mnist.loss and mnist.training.
    let xent = nn::sparse_softmax_cross_entropy_with_logits(&labels, &logits)?;
    let loss = Reduce::mean().build(&xent)?;
    let global_step = get_or_create_global_step(&g)?;
    let train_op = GradientDescentOptimizer::new(cfg.learning_rate).minimize(
        &loss,
        None,
        Some(&global_step),
    )?;
    // Held-out evaluation shares the variables, fed from memory.
    let eval_x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, Some(IMAGE_PIXELS)]))
        .name("eval_images")
        .build(&g)?;
    let eval_y = Placeholder::new(DType::I32)
        .shape(Shape::new(vec![None]))
        .name("eval_labels")
        .build(&g)?;
    let hits = nn::in_top_k(model.logits(&eval_x)?, &eval_y, 1)?;
    let correct = Reduce::sum().build(cast(&hits, DType::I32)?)?;

    let sess = Session::new(&g)?;
    // init_op = tf.group(global_variables_initializer(), local_variables_initializer())
    sess.run(
        &RunArgs::new()
            .target(&global_variables_initializer(&g)?)
            .target(&local_variables_initializer(&g)?),
    )?;
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord)?;

    let args = RunArgs::new().target(&train_op).fetch(&loss);
    let (mut step, mut last_loss) = (0i64, f32::NAN);
    let start = Instant::now();
    let outcome: Result<()> = (|| {
        while !coord.should_stop() {
            let t0 = Instant::now();
            let out = match sess.run(&args) {
                Ok(out) => out,
                Err(e) if e.code() == weir::Code::OutOfRange => {
                    if cfg.verbose {
                        println!("Done training for {} epochs, {step} steps.", cfg.num_epochs);
                    }
                    break;
                }
                Err(e) => return Err(e),
            };
            let duration = t0.elapsed().as_secs_f64();
            last_loss = out[0].to_scalar::<f32>()?;
            if cfg.verbose && step % 100 == 0 {
                println!("Step {step}: loss = {last_loss:.2} ({duration:.3} sec)");
            }
            step += 1;
        }
        Ok(())
    })();
    let elapsed = start.elapsed().as_secs_f64();
    coord.request_stop(outcome.err())?;
    coord.join(&threads, JOIN_GRACE)?;
    coord.raise_requested_exception()?;

    let mut held_out = Synthetic::new(cfg.seed, 2);
    let mut total_correct = 0i64;
    let mut left = cfg.eval_examples;
    while left > 0 {
        let n = left.min(1000);
        let mut xs = Vec::with_capacity(n * IMAGE_PIXELS);
        let mut ys = Vec::with_capacity(n);
        for _ in 0..n {
            let (pixels, label) = held_out.example();
            xs.extend(pixels.iter().map(|&p| p as f32 / 255.0));
            ys.push(label as i32);
        }
        let out = sess.run(
            &RunArgs::new()
                .feed(&eval_x, Tensor::from_vec(&[n, IMAGE_PIXELS], xs)?)
                .feed(&eval_y, Tensor::from(ys))
                .fetch(&correct),
        )?;
        total_correct += i64::from(out[0].to_scalar::<i32>()?);
        left -= n;
    }
    let accuracy = total_correct as f64 / cfg.eval_examples.max(1) as f64;
    let global = sess.eval(global_step.value())?.to_scalar::<i64>()?;
    Ok(Report {
        steps: step,
        global_step: global,
        last_loss,
        accuracy,
        examples_per_sec: (step as usize * cfg.batch_size) as f64 / elapsed,
    })
}

fn parse_flag(args: &[String], name: &str) -> Result<Option<u64>> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .map(Some)
            .ok_or_else(|| Error::invalid_argument(format!("{name} needs a positive integer"))),
    }
}

#[allow(dead_code)]
fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cfg = Config::default();
    if let Some(e) = parse_flag(&args, "--epochs")? {
        cfg.num_epochs = e as i64;
    }
    if let Some(n) = parse_flag(&args, "--train")? {
        cfg.train_examples = n as usize;
    }
    let dir: PathBuf =
        std::env::temp_dir().join(format!("weir-mnist-style-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = Instant::now();
    let report = run(&cfg, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let report = report?;
    println!(
        "global step {}, last loss {:.4}, {:.0} examples/s through the pipeline",
        report.global_step, report.last_loss, report.examples_per_sec
    );
    println!(
        "held-out accuracy on {} synthetic examples: {:.4}",
        cfg.eval_examples, report.accuracy
    );
    println!("done in {:.1} s", start.elapsed().as_secs_f64());
    if report.accuracy < 0.9 {
        return Err(Error::internal(format!(
            "held-out accuracy {:.4} is below 0.9",
            report.accuracy
        )));
    }
    Ok(())
}
