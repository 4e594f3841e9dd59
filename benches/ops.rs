//! Math kernels against numpy: `cargo bench --bench ops`.
//!
//! Each case is timed twice: through `Session::run` with fed inputs, the way a program runs it
//! (plan lookup, feed checks, the kernel, delivering the fetch), and as the bare kernel, called
//! through the registry with an `OpContext`, the way the session's executor calls it. After each
//! case `benches/ops_numpy.py` runs it in numpy (with `$WEIR_BENCH_PYTHON`, default
//! `~/.cache/weir-bench/venv/bin/python`) and the table shows weir / numpy time ratios (below 1
//! means weir is faster). Each side times 41 batches of about a millisecond of calls and reports
//! the best and the median batch. `--quick` times 9 batches, `--no-numpy` skips numpy, other
//! arguments filter cases by substring.

#![allow(missing_docs)]

use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use weir::graph::{registry, AttrValue, CancellationToken, Node, OpContext, ResourceManager};
use weir::prelude::*;

/// One benchmark: a graph whose `out` is computed from placeholders fed `feeds`.
struct Case {
    id: &'static str,
    out: Output,
    feeds: Vec<(Output, Tensor)>,
}

/// Deterministic pseudo-random floats in [-1, 1) (a tiny LCG; values only need to be varied).
fn floats(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn feed_f32(g: &Graph, shape: &[usize], seed: u64) -> Result<(Output, Tensor)> {
    let p = placeholder(g, DType::F32, Shape::known(shape))?;
    let n = shape.iter().product();
    Ok((p, Tensor::from_vec(shape, floats(n, seed))?))
}

fn cases() -> Result<Vec<Case>> {
    let mut v = Vec::new();
    {
        let g = Graph::new();
        let (a, ta) = feed_f32(&g, &[1024, 1024], 1)?;
        let (b, tb) = feed_f32(&g, &[1024, 1024], 2)?;
        let out = add(&a, &b)?;
        v.push(Case {
            id: "add_f32_1024x1024",
            out,
            feeds: vec![(a, ta), (b, tb)],
        });
    }
    for axis in [0i64, 1] {
        let g = Graph::new();
        let (a, ta) = feed_f32(&g, &[1024, 1024], 3)?;
        let out = reduce_sum(&a, axis)?;
        let id = if axis == 0 {
            "reduce_sum_axis0_1024x1024"
        } else {
            "reduce_sum_axis1_1024x1024"
        };
        v.push(Case {
            id,
            out,
            feeds: vec![(a, ta)],
        });
    }
    for (id, (m, k, n)) in [
        ("matmul_128x784x10", (128, 784, 10)),
        ("matmul_512x512x512", (512, 512, 512)),
    ] {
        let g = Graph::new();
        let (a, ta) = feed_f32(&g, &[m, k], 4)?;
        let (b, tb) = feed_f32(&g, &[k, n], 5)?;
        let out = matmul(&a, &b)?;
        v.push(Case {
            id,
            out,
            feeds: vec![(a, ta), (b, tb)],
        });
    }
    // A first layer on MNIST-like input: x has about 20% nonzeros (as ops_numpy.py makes it),
    // against a 128x784x128 product of dense x.
    for (id, density, transpose_a) in [
        ("matmul_128x784x128", None, false),
        ("matmul_sparse20_128x784x128", Some(20), false),
        ("matmul_sparse20_t_784x128x128", Some(20), true),
        ("matmul_sparse30_128x784x128", Some(30), false),
        ("matmul_sparse40_128x784x128", Some(40), false),
    ] {
        let g = Graph::new();
        let (x, mut tx) = feed_f32(&g, &[128, 784], 4)?;
        if let Some(pct) = density {
            let v = tx.to_vec::<f32>()?;
            let kept = v
                .iter()
                .enumerate()
                .map(|(i, &x)| if (i * 7919) % 100 < pct { x } else { 0.0 })
                .collect();
            tx = Tensor::from_vec(&[128, 784], kept)?;
        }
        let (b, tb) = feed_f32(
            &g,
            if transpose_a {
                &[128, 128]
            } else {
                &[784, 128]
            },
            5,
        )?;
        let out = MatMul::new().transpose_a(transpose_a).build(&x, &b)?;
        v.push(Case {
            id,
            out,
            feeds: vec![(x, tx), (b, tb)],
        });
    }
    // The MNIST bytes pipeline's cast of decoded pixels, and the int64 one's of parsed ones.
    v.push(one_input_case(
        "cast_u8_f32_128x784",
        pixels::<u8>(&[128, 784])?,
        |p| cast(p, DType::F32),
    )?);
    v.push(one_input_case(
        "cast_i64_f32_128x784",
        pixels::<i64>(&[128, 784])?,
        |p| cast(p, DType::F32),
    )?);
    // cifar's per-example image transpose: [3,32,32] (CHW) uint8 to [32,32,3] (HWC).
    v.push(one_input_case(
        "transpose_u8_3x32x32_hwc",
        pixels::<u8>(&[3, 32, 32])?,
        |p| transpose(p, [1, 2, 0]),
    )?);
    Ok(v)
}

/// Pixel-like values 0..250 of `shape`, as `T`.
fn pixels<T: weir::graph::TensorType + From<u8>>(shape: &[usize]) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let v: Vec<T> = (0..n).map(|i| T::from((i * 31 % 251) as u8)).collect();
    Tensor::from_vec(shape, v)
}

/// A case of `op` applied to a placeholder fed `t`.
fn one_input_case(
    id: &'static str,
    t: Tensor,
    op: impl FnOnce(&Output) -> Result<Output>,
) -> Result<Case> {
    let g = Graph::new();
    let p = placeholder(&g, t.dtype(), Shape::known(t.shape()))?;
    let out = op(&p)?;
    Ok(Case {
        id,
        out,
        feeds: vec![(p, t)],
    })
}

/// Calls per timed batch, so each batch takes about a millisecond: short batches often run
/// undisturbed on a shared machine, and the best one is then a clean measurement.
fn batch_size(one: f64) -> usize {
    ((1e-3 / one.max(1e-7)) as usize).clamp(1, 10_000)
}

/// Seconds per call of `f` over `reps` batches, after warming up: the best batch and the median.
fn time_per_call(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<Secs> {
    let t = Instant::now();
    for _ in 0..3 {
        f()?;
    }
    let k = batch_size(t.elapsed().as_secs_f64() / 3.0);
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..k {
            f()?;
        }
        samples.push(t.elapsed().as_secs_f64() / k as f64);
    }
    samples.sort_by(f64::total_cmp);
    Ok(Secs {
        best: samples[0],
        median: samples[samples.len() / 2],
    })
}

/// A timing: seconds per call in the best batch and in the median batch. The machine is shared,
/// so the best batch is the steadier figure; both are reported.
#[derive(Clone, Copy)]
struct Secs {
    best: f64,
    median: f64,
}

/// The value each input of `node` has in the case: a feed or a constant.
fn kernel_inputs(case: &Case, node: &Node) -> Result<Vec<Tensor>> {
    let g = case.out.graph();
    node.inputs()
        .iter()
        .map(|&(id, idx)| {
            let o = g.output(id, idx)?;
            if let Some((_, t)) = case.feeds.iter().find(|(p, _)| *p == o) {
                return Ok(t.clone());
            }
            match g.node(id).attr_value("value") {
                Some(AttrValue::Tensor(t)) => Ok(t.clone()),
                _ => Err(Error::internal(format!(
                    "input {} is neither fed nor constant",
                    o.name()
                ))),
            }
        })
        .collect()
}

struct Timing {
    session: Secs,
    kernel: Secs,
}

fn run_case(case: &Case, reps: usize) -> Result<Timing> {
    let sess = Session::new(case.out.graph())?;
    let mut args = RunArgs::new().fetch(&case.out);
    for (p, t) in &case.feeds {
        args = args.feed(p, t.clone());
    }
    let session = time_per_call(reps, || {
        let out = sess.run(&args)?;
        std::hint::black_box(&out);
        Ok(())
    })?;

    let node: Arc<Node> = case.out.op().node();
    let kernel = registry::kernel_factory(node.op_type())?(&node)?;
    let resources = ResourceManager::new();
    let token = CancellationToken::new();
    let inputs = kernel_inputs(case, &node)?;
    let kernel_time = time_per_call(reps, || {
        // The executor hands kernels clones of shared tensors, as here.
        let mut ins = inputs.clone();
        let mut outs = vec![None; node.output_dtypes().len()];
        let mut ctx = OpContext::new(&node, &mut ins, &mut outs, &resources, &token, None);
        kernel.compute(&mut ctx)?;
        std::hint::black_box(&outs);
        Ok(())
    })?;
    Ok(Timing {
        session,
        kernel: kernel_time,
    })
}

/// Runs the numpy script for one case; it prints `{"id": ..., "best": s, "median": s}`.
/// OpenBLAS and OpenMP get one thread (weir's kernels are single-threaded, and the machine is
/// shared) unless `WEIR_BENCH_NUMPY_THREADS` says otherwise.
fn numpy_time(id: &str, quick: bool) -> Option<Secs> {
    let python = std::env::var("WEIR_BENCH_PYTHON").unwrap_or_else(|_| {
        format!(
            "{}/.cache/weir-bench/venv/bin/python",
            std::env::var("HOME").unwrap_or_default()
        )
    });
    let threads = std::env::var("WEIR_BENCH_NUMPY_THREADS").unwrap_or_else(|_| "1".to_string());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/ops_numpy.py");
    let mut cmd = Command::new(&python);
    cmd.arg(script).arg("--only").arg(id);
    cmd.env("OPENBLAS_NUM_THREADS", &threads)
        .env("OMP_NUM_THREADS", &threads);
    if quick {
        cmd.arg("--quick");
    }
    let out = match cmd.output() {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            eprintln!(
                "ops bench: {python} {script} failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            return None;
        }
        Err(e) => {
            eprintln!("ops bench: cannot run {python}: {e}");
            return None;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains(&format!("\"id\": \"{id}\"")))?;
    let field = |name: &str| -> Option<f64> {
        let start = line.find(&format!("\"{name}\": "))? + name.len() + 4;
        let rest = &line[start..];
        let end = rest.find([',', '}'])?;
        rest[..end].trim().parse().ok()
    };
    Some(Secs {
        best: field("best")?,
        median: field("median")?,
    })
}

fn us(s: f64) -> String {
    format!("{:.1}", s * 1e6)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let with_numpy = !args.iter().any(|a| a == "--no-numpy");
    let reps = if quick { 9 } else { 41 };
    let filter: Vec<&String> = args
        .iter()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let mut rows = Vec::new();
    for case in cases()? {
        if !filter.is_empty() && !filter.iter().any(|f| case.id.contains(f.as_str())) {
            continue;
        }
        eprintln!("ops bench: {} ...", case.id);
        // weir then numpy, case by case, so drift on the machine affects both alike.
        let t = run_case(&case, reps)?;
        let np = if with_numpy {
            numpy_time(case.id, quick)
        } else {
            None
        };
        rows.push((case.id, t, np));
    }
    println!();
    println!(
        "Best batch, microseconds per call (median batch in parentheses); ratio = weir / numpy."
    );
    println!();
    println!("| case | weir Session::run | weir kernel | numpy | kernel / numpy | run / numpy |");
    println!("|---|---:|---:|---:|---:|---:|");
    let cell = |s: Secs| format!("{} ({})", us(s.best), us(s.median));
    for (id, t, np) in &rows {
        let ratio = |x: Secs| match np {
            Some(n) => format!("{:.2} ({:.2})", x.best / n.best, x.median / n.median),
            None => "n/a".to_string(),
        };
        println!(
            "| {id} | {} | {} | {} | {} | {} |",
            cell(t.session),
            cell(t.kernel),
            np.map_or("n/a".to_string(), cell),
            ratio(t.kernel),
            ratio(t.session)
        );
    }
    Ok(())
}
