//! Random, image and string ops, and while loops (weir-only IDs `op_*`; `ops_more_tf.py` beside
//! this file runs the same graphs in TensorFlow): elements, images, strings, loop iterations or
//! training steps per second of one `sess.run`.

use weir::prelude::*;

use crate::{rate, Bench, Ctx, Outcome};

pub fn benches() -> Vec<Bench> {
    vec![
        Bench {
            id: "op_random_uniform_1m",
            unit: "elem/s",
            run: random_uniform_1m,
        },
        Bench {
            id: "op_random_normal_1m",
            unit: "elem/s",
            run: random_normal_1m,
        },
        Bench {
            id: "op_truncated_normal_1m",
            unit: "elem/s",
            run: truncated_normal_1m,
        },
        Bench {
            id: "op_random_shuffle_100k",
            unit: "rows/s",
            run: random_shuffle_100k,
        },
        Bench {
            id: "op_cifar_distort",
            unit: "img/s",
            run: cifar_distort,
        },
        Bench {
            id: "op_resize_bilinear_128",
            unit: "img/s",
            run: resize_bilinear_128,
        },
        Bench {
            id: "op_per_image_std_128",
            unit: "img/s",
            run: per_image_std_128,
        },
        Bench {
            id: "op_hash_bucket_100k",
            unit: "str/s",
            run: hash_bucket_100k,
        },
        Bench {
            id: "op_string_split_10k",
            unit: "str/s",
            run: string_split_10k,
        },
        Bench {
            id: "op_string_to_number_100k",
            unit: "str/s",
            run: string_to_number_100k,
        },
        Bench {
            id: "op_as_string_100k",
            unit: "elem/s",
            run: as_string_100k,
        },
        Bench {
            id: "op_while_10k",
            unit: "iter/s",
            run: while_10k,
        },
        Bench {
            id: "op_rnn_train_32",
            unit: "steps/s",
            run: rnn_train_32,
        },
    ]
}

/// 3 untimed runs, then `reps` repetitions of `k` timed runs of `fetch`; each counts `items`.
fn time(ctx: &Ctx, g: &Graph, fetch: &Output, items: u64, k: usize) -> Result<Outcome> {
    let sess = Session::new(g)?;
    for _ in 0..3 {
        sess.eval(fetch)?;
    }
    let mut reps = Vec::with_capacity(ctx.reps);
    for _ in 0..ctx.reps {
        reps.push(rate(items * k as u64, || {
            for _ in 0..k {
                std::hint::black_box(sess.eval(fetch)?);
            }
            Ok(())
        })?);
    }
    Ok(Outcome {
        reps,
        count: items * k as u64,
    })
}

fn random_uniform_1m(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let u = RandomUniform::new([1024, 1024]).seed(1).build(&g)?;
    time(ctx, &g, &u, 1 << 20, 20)
}

fn random_normal_1m(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let n = RandomNormal::new([1024, 1024]).seed(1).build(&g)?;
    time(ctx, &g, &n, 1 << 20, 20)
}

fn truncated_normal_1m(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let n = TruncatedNormal::new([1024, 1024]).seed(1).build(&g)?;
    time(ctx, &g, &n, 1 << 20, 20)
}

fn random_shuffle_100k(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let v = input(&g, Tensor::from((0..100_000i64).collect::<Vec<_>>()))?;
    let s = random_shuffle(&v, Some(1))?;
    time(ctx, &g, &s, 100_000, 20)
}

/// Input data behind `placeholder_with_default`, so that TensorFlow cannot constant-fold the
/// op being measured (weir does not fold; both sides get the same graph).
fn input(g: &Graph, t: Tensor) -> Result<Output> {
    let shape = Shape::known(t.shape());
    placeholder_with_default(constant(g, t)?, shape)
}

fn image_u8(g: &Graph, shape: &[usize]) -> Result<Output> {
    let n: usize = shape.iter().product();
    input(
        g,
        Tensor::from_vec(shape, (0..n).map(|i| (i * 7 % 251) as u8).collect())?,
    )
}

/// The CIFAR-10 tutorial's `distorted_inputs` chain on one 32x32x3 image.
fn cifar_distort(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let img = convert_image_dtype(&image_u8(&g, &[32, 32, 3])?, DType::F32)?;
    let crop = random_crop(&img, &[24, 24, 3])?;
    let flip = random_flip_left_right(&crop, None)?;
    let bright = random_brightness(&flip, 63.0 / 255.0, None)?;
    let contrast = random_contrast(&bright, 0.2, 1.8, None)?;
    let out = per_image_standardization(&contrast)?;
    time(ctx, &g, &out, 1, 2000)
}

fn resize_bilinear_128(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let img = image_u8(&g, &[128, 32, 32, 3])?;
    let r = resize(&img, [64, 64])?;
    time(ctx, &g, &r, 128, 20)
}

fn per_image_std_128(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let img = image_u8(&g, &[128, 32, 32, 3])?;
    let s = per_image_standardization(&img)?;
    time(ctx, &g, &s, 128, 50)
}

fn words(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("word{}", i * 7919 % 100_003))
        .collect()
}

fn hash_bucket_100k(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let w = input(&g, Tensor::from(words(100_000)))?;
    let h = string_to_hash_bucket_fast(&w, 1000)?;
    time(ctx, &g, &h, 100_000, 10)
}

fn string_split_10k(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let lines: Vec<String> = words(100_000).chunks(10).map(|c| c.join(" ")).collect();
    let l = input(&g, Tensor::from(lines))?;
    let sp = string_split(&l, " ")?;
    time(ctx, &g, &sp.values, 10_000, 20)
}

fn string_to_number_100k(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let nums: Vec<String> = (0..100_000).map(|i| format!("{}.{}", i, i % 97)).collect();
    let s = input(&g, Tensor::from(nums))?;
    let f = string_to_number(&s, DType::F32)?;
    time(ctx, &g, &f, 100_000, 10)
}

fn as_string_100k(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let x = input(
        &g,
        Tensor::from((0..100_000).map(|i| i as f32 * 0.37).collect::<Vec<f32>>()),
    )?;
    let s = as_string(&x)?;
    time(ctx, &g, &s, 100_000, 10)
}

/// A while loop of 10,000 iterations on two scalars: `(i + 1, x * 0.999 + 1)`; per-iteration
/// overhead.
fn while_10k(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let n = input(&g, Tensor::scalar(10_000i32))?;
    let out = while_loop(
        |v| less(&v[0], &n),
        |v| {
            Ok(vec![
                add(&v[0], &constant(&g, 1i32)?)?,
                add(
                    &mul(&v[1], &constant(&g, 0.999f32)?)?,
                    &constant(&g, 1.0f32)?,
                )?,
            ])
        },
        &[constant(&g, 0i32)?, constant(&g, 0.0f32)?],
    )?;
    time(ctx, &g, &out[1], 10_000, 5)
}

/// One GradientDescent step of a tanh RNN over 32 time steps (batch 16, 8 inputs, 32 units), its
/// gradient through the loop: `h <- tanh(h W + x[t] U)`, loss = sum(h^2).
fn rnn_train_32(ctx: &Ctx) -> Result<Outcome> {
    let g = Graph::new();
    let (steps, batch, inputs, units) = (32usize, 16usize, 8usize, 32usize);
    let xs: Vec<f32> = (0..steps * batch * inputs)
        .map(|i| ((i * 37 % 101) as f32 / 101.0) - 0.5)
        .collect();
    let xs = input(&g, Tensor::from_vec(&[steps, batch, inputs], xs)?)?;
    let w0: Vec<f32> = (0..units * units)
        .map(|i| ((i * 13 % 29) as f32 / 29.0 - 0.5) * 0.2)
        .collect();
    let u0: Vec<f32> = (0..inputs * units)
        .map(|i| ((i * 7 % 31) as f32 / 31.0 - 0.5) * 0.2)
        .collect();
    let w = Variable::builder(constant(&g, Tensor::from_vec(&[units, units], w0)?)?).build()?;
    let u = Variable::builder(constant(&g, Tensor::from_vec(&[inputs, units], u0)?)?).build()?;
    let (wv, uv) = (w.value(), u.value());
    let out = while_loop(
        |v| less(&v[0], &constant(&g, steps as i32)?),
        |v| {
            let x = gather(&xs, &v[0], 0)?;
            let h = tanh(&add(&matmul(&v[1], &wv)?, &matmul(&x, &uv)?)?)?;
            Ok(vec![add(&v[0], &constant(&g, 1i32)?)?, h])
        },
        &[constant(&g, 0i32)?, zeros(&g, DType::F32, &[batch, units])?],
    )?;
    let loss = reduce_sum(&mul(&out[1], &out[1])?, Axes::All)?;
    let step = GradientDescentOptimizer::new(0.01).minimize(&loss, None, None)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    let args = RunArgs::new().fetch(&loss).target(&step);
    for _ in 0..3 {
        sess.run(&args)?;
    }
    let k = 100;
    let mut reps = Vec::with_capacity(ctx.reps);
    for _ in 0..ctx.reps {
        reps.push(rate(k as u64, || {
            for _ in 0..k {
                std::hint::black_box(sess.run(&args)?);
            }
            Ok(())
        })?);
    }
    Ok(Outcome {
        reps,
        count: k as u64,
    })
}
