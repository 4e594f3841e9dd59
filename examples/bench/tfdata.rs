//! The `tfdata_*` pipelines of ../shared/bench/README.md, built with weir's `tf.data` exactly as
//! tf_bench.py builds TensorFlow's (`bench_tfdata`): `map(num_parallel_calls=2)` and
//! `prefetch(2)`, read with a one-shot iterator until OutOfRange, the final partial batch kept.
//! The README lists these IDs as TensorFlow-only references; weir runs them too, so its
//! `tf.data` can be compared with TensorFlow's on the same files.

use std::time::Instant;

use weir::ops::data::{FixedLengthRecordDataset, TextLineDataset, TfRecordDataset};
use weir::prelude::*;

use crate::{Bench, Ctx, Outcome};

const BATCH: i64 = 128;
const MIN_AFTER: i64 = 10_000;
/// tf_bench.py's `par`: fixed for reproducibility.
const PAR: i64 = 2;

pub fn benches() -> Vec<Bench> {
    vec![
        Bench {
            id: "tfdata_mnist_bytes_single",
            unit: "ex/s",
            run: |c| run(c, mnist_single),
        },
        Bench {
            id: "tfdata_mnist_bytes_batched",
            unit: "ex/s",
            run: |c| run(c, mnist_batched),
        },
        Bench {
            id: "tfdata_csv_int5_batched",
            unit: "lines/s",
            run: |c| run(c, csv_int_batched),
        },
        Bench {
            id: "tfdata_cifar",
            unit: "ex/s",
            run: |c| run(c, cifar),
        },
    ]
}

fn path(ctx: &Ctx, name: &str) -> String {
    ctx.data.join(name).to_string_lossy().into_owned()
}

fn mnist_files(g: &Graph, ctx: &Ctx) -> Result<Output> {
    let files: Vec<String> = (0..4)
        .map(|i| path(ctx, &format!("mnist_bytes-{i:05}-of-00004.tfrecord")))
        .collect();
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    constant(g, names)
}

fn mnist_features() -> Features {
    Features::new()
        .add("image_raw", FixedLenFeature::new(&[], DType::String))
        .add("label", FixedLenFeature::new(&[], DType::I64))
}

/// `cast(img, float32) * (1/255)` and `cast(label, int32)`.
fn scale(img: Output, label: Output) -> Result<Vec<Output>> {
    let g = img.graph().clone();
    let img = mul(cast(img, DType::F32)?, constant(&g, 1.0f32 / 255.0)?)?;
    Ok(vec![img, cast(label, DType::I32)?])
}

/// `TFRecordDataset -> map(parse_single, 2) -> shuffle(10000, seed=1) -> batch(128) -> prefetch(2)`.
fn mnist_single(g: &Graph, ctx: &Ctx) -> Result<Dataset> {
    TfRecordDataset::new(&mnist_files(g, ctx)?)
        .build()?
        .map_parallel(
            |r| {
                let f = parse_single_example(&r[0], &mnist_features())?;
                let img = decode_raw(f.dense("image_raw")?, DType::U8)?;
                // tf_bench.py's img.set_shape([784]).
                let img = reshape(img, [784i64])?;
                scale(img, f.dense("label")?)
            },
            PAR,
        )?
        .shuffle_with(MIN_AFTER)
        .seed(1)
        .build()?
        .batch(BATCH)?
        .prefetch(2)
}

/// `TFRecordDataset -> shuffle(10000, seed=1) -> batch(128) -> map(parse_example, 2) -> prefetch(2)`.
fn mnist_batched(g: &Graph, ctx: &Ctx) -> Result<Dataset> {
    TfRecordDataset::new(&mnist_files(g, ctx)?)
        .build()?
        .shuffle_with(MIN_AFTER)
        .seed(1)
        .build()?
        .batch(BATCH)?
        .map_parallel(
            |r| {
                let f = parse_example(&r[0], &mnist_features())?;
                let img = reshape(decode_raw(f.dense("image_raw")?, DType::U8)?, [-1i64, 784])?;
                scale(img, f.dense("label")?)
            },
            PAR,
        )?
        .prefetch(2)
}

/// `TextLineDataset -> batch(128) -> map(stack(decode_csv, axis=1), 2) -> prefetch(2)`.
fn csv_int_batched(g: &Graph, ctx: &Ctx) -> Result<Dataset> {
    let file = path(ctx, "csv_int5.csv");
    TextLineDataset::new(&constant(g, vec![file.as_str()])?)
        .build()?
        .batch(BATCH)?
        .map_parallel(
            |l| {
                let g = l[0].graph().clone();
                let defaults = (0..5)
                    .map(|_| constant(&g, vec![0i32]))
                    .collect::<Result<Vec<_>>>()?;
                Ok(vec![stack(&decode_csv(&l[0], defaults)?, 1)?])
            },
            PAR,
        )?
        .prefetch(2)
}

/// `FixedLengthRecordDataset(3073) -> repeat(3) -> map(decode, 2) -> batch(128) -> prefetch(2)`.
fn cifar(g: &Graph, ctx: &Ctx) -> Result<Dataset> {
    let files: Vec<String> = (1..=2)
        .map(|i| path(ctx, &format!("cifar_data_batch_{i}.bin")))
        .collect();
    let names: Vec<&str> = files.iter().map(String::as_str).collect();
    FixedLengthRecordDataset::new(&constant(g, names)?, 3073)
        .build()?
        .repeat(Some(3))?
        .map_parallel(
            |r| {
                let raw = decode_raw(&r[0], DType::U8)?;
                let label = cast(strided_slice(&raw, &[0], &[1], &[1])?, DType::I32)?;
                let img = reshape(strided_slice(&raw, &[1], &[3073], &[1])?, [3i64, 32, 32])?;
                let img = transpose(img, [1i64, 2, 0])?;
                Ok(vec![img, reshape(label, Vec::<i64>::new())?])
            },
            PAR,
        )?
        .batch(BATCH)?
        .prefetch(2)
}

/// tf_bench.py's `run_v1_iterator`: a new graph and session per repetition; the clock runs
/// from the first `get_next` run until OutOfRange; every component is fetched.
fn run(ctx: &Ctx, build: fn(&Graph, &Ctx) -> Result<Dataset>) -> Result<Outcome> {
    let mut reps = Vec::with_capacity(ctx.reps);
    let mut count = 0u64;
    for _ in 0..ctx.reps {
        let g = Graph::new();
        let next = build(&g, ctx)?.make_one_shot_iterator()?.get_next()?;
        let sess = Session::new(&g)?;
        let mut args = RunArgs::new();
        for f in &next {
            args = args.fetch(f);
        }
        let t0 = Instant::now();
        let mut n = 0u64;
        loop {
            match sess.run(&args) {
                Ok(out) => {
                    n += out[0].shape().first().copied().unwrap_or(0) as u64;
                    std::hint::black_box(&out);
                }
                Err(e) if e.is_out_of_range() => break,
                Err(e) => return Err(e),
            }
        }
        reps.push(n as f64 / t0.elapsed().as_secs_f64());
        count = n;
    }
    Ok(Outcome { reps, count })
}
