//! Training steps per second: softmax regression (784 -> 10) and a 784 -> 128 relu -> 10
//! network, batch 128, `AdamOptimizer(0.001)` minimizing the mean
//! `sparse_softmax_cross_entropy_with_logits`, each with three input sources:
//! - `preloaded`: 10,240 examples (the first of the bench's `mnist_int64-00000` file, decoded up
//!   front as the pipeline decodes them; synthetic ones when the bench data is missing) in two
//!   non-trainable variables (initialised once from placeholders, in no collection); each step
//!   gathers 128 rows at `random_uniform([128], 0, 10240, int32)` indices, in the graph;
//! - `feeding`: placeholders fed each step with a fresh [128, 784] f32 / [128] i32 batch copied
//!   from Rust vectors (the same 10,240 examples, in order);
//! - `pipeline_bytes`: the shared bench's `mnist_bytes_batched` pipeline, TensorFlow's own MNIST
//!   record format (the image as 784 raw bytes: `parse_example` of a string, `decode_raw`,
//!   reshape to [-1, 784], cast * (1/255)), otherwise as `pipeline`;
//! - `pipeline`: the shared bench's `mnist_int64_batched` pipeline over
//!   `~/.cache/weir-bench/data/mnist_int64-0000{0..3}-of-00004.tfrecord` (string_input_producer
//!   with num_epochs=None, shuffle=False -> TFRecordReader.read_up_to(128) -> parse_example
//!   (image_raw FixedLen [784] int64, label int64) -> cast * (1/255), label cast int32 ->
//!   shuffle_batch(128, capacity 10384, min_after_dequeue 10000, seed 1, enqueue_many, 1 thread)).
//!
//! Every step runs the train op and fetches the loss. Protocol: build graph and session,
//! initialise, 200 untimed warm-up steps (for the pipeline this includes filling the shuffle queue
//! to 10,000), then 3 timed repetitions of 2,000 steps each; the median is printed.
//! `benches/training_tf.py` is the TensorFlow counterpart with the same graphs and protocol.
//!
//! `cargo bench --bench training [-- --steps N] [--data DIR] [--only SUBSTRING] [--profile N]`
//!
//! `--profile N` then traces N more steps of the preloaded and pipeline variants
//! (`TraceLevel::FullTrace`) and prints, per op type, the time its nodes took per step: where a
//! step's time goes, untimed and after the figures.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use weir::prelude::*;

const BATCH: usize = 128;
const PIXELS: usize = 784;
const CLASSES: usize = 10;
const HIDDEN: usize = 128;
const PRELOADED: usize = 10_240;
const WARMUP: usize = 200;
const REPS: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Model {
    Softmax,
    Mlp,
}

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Softmax => "softmax_784_10",
            Model::Mlp => "mlp_784_128_10",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Preloaded,
    Feeding,
    Pipeline,
    PipelineBytes,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Preloaded => "preloaded",
            Source::Feeding => "feeding",
            Source::Pipeline => "pipeline",
            Source::PipelineBytes => "pipeline_bytes",
        }
    }
}

/// The examples of `preloaded` and `feeding` when the bench data is missing (the same formula as
/// training_tf.py): about 81% zero pixels, like MNIST, but labels unrelated to the pixels.
fn synthetic() -> (Vec<f32>, Vec<i32>) {
    let mut x = Vec::with_capacity(PRELOADED * PIXELS);
    for i in 0..PRELOADED {
        for p in 0..PIXELS {
            let v = if (p * 7 + i) % 16 >= 13 {
                ((i * 31 + p * 17) % 255) as f32 / 255.0
            } else {
                0.0
            };
            x.push(v);
        }
    }
    let y = (0..PRELOADED).map(|i| (i % CLASSES) as i32).collect();
    (x, y)
}

/// The first 10,240 examples of the bench's `mnist_int64-00000-of-00004` file, decoded in Rust
/// the way the pipeline decodes them (pixels * (1/255) as f32, labels as i32), so every source
/// trains on the same kind of data.
fn load_mnist(file: &str) -> Result<(Vec<f32>, Vec<i32>)> {
    let mut x = Vec::with_capacity(PRELOADED * PIXELS);
    let mut y = Vec::with_capacity(PRELOADED);
    for record in tf_record_iterator(file, Compression::None)?.take(PRELOADED) {
        let ex = Example::from_bytes(record?)?;
        let bad = || Error::invalid_argument(format!("{file}: not an mnist_int64 Example"));
        let pixels = ex
            .int64_list("image_raw")
            .filter(|p| p.len() == PIXELS)
            .ok_or_else(bad)?;
        x.extend(pixels.iter().map(|&p| p as f32 * (1.0f32 / 255.0)));
        y.push(
            ex.int64_list("label")
                .and_then(|l| l.first())
                .ok_or_else(bad)?
                .to_owned() as i32,
        );
    }
    if y.len() < PRELOADED {
        return Err(Error::invalid_argument(format!(
            "{file}: fewer than {PRELOADED} records"
        )));
    }
    Ok((x, y))
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
    nn::bias_add(matmul(x, &w)?, &b)
}

/// The loss and Adam's train op (with a global step) of `model` on a batch.
fn train_graph(g: &Graph, model: Model, x: &Output, y: &Output) -> Result<(Output, Operation)> {
    let logits = match model {
        Model::Softmax => dense(g, "softmax", x, PIXELS, CLASSES)?,
        Model::Mlp => {
            let h = nn::relu(dense(g, "hidden", x, PIXELS, HIDDEN)?)?;
            dense(g, "output", &h, HIDDEN, CLASSES)?
        }
    };
    let xent = nn::sparse_softmax_cross_entropy_with_logits(y, &logits)?;
    let loss = Reduce::mean().build(&xent)?;
    let step = get_or_create_global_step(g)?;
    let train = AdamOptimizer::new(0.001).minimize(&loss, None, Some(&step))?;
    Ok((loss, train))
}

fn mnist_files(data: &std::path::Path) -> Option<Vec<String>> {
    let files: Vec<String> = (0..4)
        .map(|i| {
            data.join(format!("mnist_int64-{i:05}-of-00004.tfrecord"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files
        .iter()
        .all(|f| std::path::Path::new(f).is_file())
        .then_some(files)
}

/// Builds the graph of (`model`, `source`), warms up, and returns the steps/s of each rep.
fn bench(
    model: Model,
    source: Source,
    steps: usize,
    data: &(Vec<f32>, Vec<i32>),
    files: &[String],
    profile: usize,
) -> Result<Vec<f64>> {
    let g = Graph::new();
    g.set_random_seed(7);
    let mut init_feeds = RunArgs::new();
    let mut fed: Option<(Output, Output)> = None;
    let (x, y) = match source {
        Source::Preloaded => {
            let xi = Placeholder::new(DType::F32)
                .shape([PRELOADED, PIXELS])
                .name("data_initializer")
                .build(&g)?;
            let yi = Placeholder::new(DType::I32)
                .shape([PRELOADED])
                .name("label_initializer")
                .build(&g)?;
            let xv = Variable::builder(&xi)
                .trainable(false)
                .collections(&[])
                .name("input_data")
                .build()?;
            let yv = Variable::builder(&yi)
                .trainable(false)
                .collections(&[])
                .name("input_labels")
                .build()?;
            init_feeds = init_feeds
                .feed(&xi, Tensor::from_vec(&[PRELOADED, PIXELS], data.0.clone())?)
                .feed(&yi, Tensor::from(data.1.clone()))
                .target(&xv.initializer())
                .target(&yv.initializer());
            let idx = RandomUniform::new([BATCH])
                .maxval(PRELOADED as i32)
                .dtype(DType::I32)
                .seed(1)
                .build(&g)?;
            (gather(xv.value(), &idx, 0)?, gather(yv.value(), &idx, 0)?)
        }
        Source::Feeding => {
            let x = Placeholder::new(DType::F32)
                .shape(Shape::new(vec![None, Some(PIXELS)]))
                .name("images")
                .build(&g)?;
            let y = Placeholder::new(DType::I32)
                .shape(Shape::new(vec![None]))
                .name("labels")
                .build(&g)?;
            fed = Some((x.clone(), y.clone()));
            (x, y)
        }
        Source::PipelineBytes => {
            // TensorFlow's own MNIST record format (convert_to_records: the image as 784 raw
            // bytes), read as the shared bench's mnist_bytes_batched pipeline reads it.
            let names: Vec<String> = files
                .iter()
                .map(|f| f.replace("mnist_int64-", "mnist_bytes-"))
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let fq = StringInputProducer::new(constant(&g, Tensor::from_strings(&names))?)
                .shuffle(false)
                .capacity(32)
                .build()?;
            let reader = TfRecordReader::new().build(&g)?;
            let (_, ser) = reader.read_up_to(fq.queue_ref(), BATCH as i64)?;
            let features = Features::new()
                .add("image_raw", FixedLenFeature::new(&[], DType::String))
                .add("label", FixedLenFeature::new(&[], DType::I64));
            let parsed = parse_example(&ser, &features)?;
            let raw = reshape(
                decode_raw(parsed.dense("image_raw")?, DType::U8)?,
                [-1i64, PIXELS as i64],
            )?;
            let img = mul(cast(raw, DType::F32)?, constant(&g, 1.0f32 / 255.0)?)?;
            let label = cast(parsed.dense("label")?, DType::I32)?;
            let out = ShuffleBatch::new(&[img, label], BATCH, 10_384, 10_000)
                .num_threads(1)
                .seed(1)
                .enqueue_many(true)
                .build()?;
            (out[0].clone(), out[1].clone())
        }
        Source::Pipeline => {
            let names: Vec<&str> = files.iter().map(String::as_str).collect();
            let fq = StringInputProducer::new(constant(&g, Tensor::from_strings(&names))?)
                .shuffle(false)
                .capacity(32)
                .build()?;
            let reader = TfRecordReader::new().build(&g)?;
            let (_, ser) = reader.read_up_to(fq.queue_ref(), BATCH as i64)?;
            let features = Features::new()
                .add("image_raw", FixedLenFeature::new(&[PIXELS], DType::I64))
                .add("label", FixedLenFeature::new(&[], DType::I64));
            let parsed = parse_example(&ser, &features)?;
            let img = mul(
                cast(parsed.dense("image_raw")?, DType::F32)?,
                constant(&g, 1.0f32 / 255.0)?,
            )?;
            let label = cast(parsed.dense("label")?, DType::I32)?;
            let out = ShuffleBatch::new(&[img, label], BATCH, 10_384, 10_000)
                .num_threads(1)
                .seed(1)
                .enqueue_many(true)
                .build()?;
            (out[0].clone(), out[1].clone())
        }
    };
    let (loss, train) = train_graph(&g, model, &x, &y)?;

    let sess = Session::new(&g)?;
    sess.run(&init_feeds)?;
    sess.run(
        &RunArgs::new()
            .target(&global_variables_initializer(&g)?)
            .target(&local_variables_initializer(&g)?),
    )?;
    let coord = Coordinator::new();
    let threads = if matches!(source, Source::Pipeline | Source::PipelineBytes) {
        start_queue_runners(&sess, &coord)?
    } else {
        Vec::new()
    };
    let fixed = RunArgs::new().target(&train).fetch(&loss);
    let mut cursor = 0usize;
    let mut step = || -> Result<f32> {
        let out = match &fed {
            Some((xp, yp)) => {
                let start = cursor * BATCH;
                cursor = (cursor + 1) % (PRELOADED / BATCH);
                let xs = data.0[start * PIXELS..(start + BATCH) * PIXELS].to_vec();
                let ys = data.1[start..start + BATCH].to_vec();
                sess.run(
                    &RunArgs::new()
                        .feed(xp, Tensor::from_vec(&[BATCH, PIXELS], xs)?)
                        .feed(yp, Tensor::from(ys))
                        .target(&train)
                        .fetch(&loss),
                )?
            }
            None => sess.run(&fixed)?,
        };
        out[0].to_scalar::<f32>()
    };
    let result = (|| -> Result<Vec<f64>> {
        for _ in 0..WARMUP {
            step()?;
        }
        let mut rates = Vec::with_capacity(REPS);
        let mut last = 0.0;
        for _ in 0..REPS {
            let t0 = Instant::now();
            for _ in 0..steps {
                last = step()?;
            }
            rates.push(steps as f64 / t0.elapsed().as_secs_f64());
        }
        if !last.is_finite() {
            return Err(Error::internal(format!("the loss diverged: {last}")));
        }
        if profile > 0 && fed.is_none() {
            print_profile(&sess, &fixed, profile)?;
        }
        // Subnormal floats cost ~100 cycles per operation on x86 unless flushed (TensorFlow
        // flushes them to zero on its threads); report how many the model state holds.
        let vars = global_variables(&g)?;
        let mut fetch = RunArgs::new();
        for v in vars.iter().filter(|v| v.dtype() == DType::F32) {
            fetch = fetch.fetch(v.value());
        }
        let (mut subnormal, mut total) = (0usize, 0usize);
        for t in sess.run(&fetch)? {
            let s = t.as_slice::<f32>()?;
            total += s.len();
            subnormal += s.iter().filter(|x| x.is_subnormal()).count();
        }
        eprintln!(
            "  {}/{}: {subnormal} of {total} float values in the variables and slots are subnormal",
            model.name(),
            source.name()
        );
        Ok(rates)
    })();
    coord.request_stop(None)?;
    coord.join(&threads, Duration::from_secs(10))?;
    result
}

/// Traces `steps` runs of `args` and prints each op type's time per step (the sum over its
/// nodes, so parallel branches can add up to more than the wall time).
fn print_profile(sess: &Session, args: &RunArgs, steps: usize) -> Result<()> {
    let traced = args.clone().trace_level(TraceLevel::FullTrace);
    let mut meta = RunMetadata::default();
    let mut by_op: std::collections::HashMap<String, (f64, usize)> = Default::default();
    let mut by_node: std::collections::HashMap<String, f64> = Default::default();
    let mut wall = 0.0;
    for _ in 0..steps {
        let t0 = Instant::now();
        sess.run_with_metadata(&traced, &mut meta)?;
        wall += t0.elapsed().as_secs_f64() * 1e6;
        for n in meta.step_stats.node_stats() {
            let op = n
                .timeline_label
                .split_once(" = ")
                .and_then(|(_, r)| r.split_once('('))
                .map_or("unknown", |(op, _)| op);
            let us = n.all_end_rel_nanos as f64 / 1e3;
            let e = by_op.entry(op.to_string()).or_default();
            e.0 += us;
            e.1 += 1;
            *by_node.entry(n.node_name.clone()).or_default() += us;
        }
    }
    let mut rows: Vec<(String, (f64, usize))> = by_op.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    let n = steps as f64;
    eprintln!(
        "  traced: {:.1} us per step (wall, tracing included)",
        wall / n
    );
    for (op, (us, count)) in rows.iter().take(25) {
        eprintln!(
            "  {op:<32} {:>8.1} us/step  {:>5.1} nodes/step",
            us / n,
            *count as f64 / n
        );
    }
    let mut nodes: Vec<(String, f64)> = by_node.into_iter().collect();
    nodes.sort_by(|a, b| b.1.total_cmp(&a.1));
    eprintln!("  slowest nodes:");
    for (node, us) in nodes.iter().take(8) {
        eprintln!("  {node:<56} {:>8.1} us/step", us / n);
    }
    Ok(())
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let steps: usize = match value("--steps") {
        Some(s) => s
            .parse()
            .map_err(|_| Error::invalid_argument(format!("--steps {s}: not a number")))?,
        None => 2000,
    };
    let data_dir = value("--data").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/weir-bench/data")
    });
    let files = mnist_files(&data_dir);
    if files.is_none() {
        eprintln!(
            "training bench: no mnist_int64-*.tfrecord under {}; run `bash ../shared/bench/setup.sh` \
             (/work/shared/bench/setup.sh) to create them. Skipping the pipeline variant.",
            data_dir.display()
        );
    }
    let only = value("--only");
    let profile: usize = match value("--profile") {
        Some(s) => s
            .parse()
            .map_err(|_| Error::invalid_argument(format!("--profile {s}: not a number")))?,
        None => 0,
    };
    let data = match &files {
        Some(f) => {
            eprintln!(
                "preloaded and feeding use the first {PRELOADED} examples of {}",
                f[0]
            );
            load_mnist(&f[0])?
        }
        None => {
            eprintln!("preloaded and feeding use {PRELOADED} synthetic examples");
            synthetic()
        }
    };
    for model in [Model::Softmax, Model::Mlp] {
        for source in [
            Source::Preloaded,
            Source::Feeding,
            Source::Pipeline,
            Source::PipelineBytes,
        ] {
            let files = match (source, &files) {
                (Source::Pipeline | Source::PipelineBytes, None) => continue,
                (_, f) => f.clone().unwrap_or_default(),
            };
            let id = format!("{}/{}", model.name(), source.name());
            if only.as_ref().is_some_and(|o| !id.contains(o.as_str())) {
                continue;
            }
            let rates = bench(model, source, steps, &data, &files, profile)?;
            let m = median(&rates);
            let reps: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
            println!(
                "training/{}/{:<9} {:>8.0} steps/s {:>10.0} examples/s  (median of {REPS} x {steps} steps; reps {})",
                model.name(),
                source.name(),
                m,
                m * BATCH as f64,
                reps.join(", ")
            );
        }
    }
    Ok(())
}
