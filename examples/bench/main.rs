//! weir's side of the side-by-side benchmark in `../shared/bench` (its README is the
//! contract): `cargo run --release --example bench -- --data DIR --json - --reps N --only ID...`
//!
//! Each benchmark ID lives in the module of its area; `all()` lists them. Results go to stdout
//! as one JSON object per line; progress goes to stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

mod ops_more;
mod pipelines;
mod queues;
mod records;
mod session;
mod tfdata;

/// One benchmark ID.
pub struct Bench {
    /// The ID, as tf_bench.py names it.
    pub id: &'static str,
    /// The unit of its rates.
    pub unit: &'static str,
    /// Runs every repetition; returns one rate per repetition and the item count of one.
    pub run: fn(&Ctx) -> weir::Result<Outcome>,
}

/// What a benchmark gets: the data folder and the number of timed repetitions.
pub struct Ctx {
    /// The folder `setup.sh` filled (read only).
    pub data: PathBuf,
    /// Timed repetitions to make.
    pub reps: usize,
}

/// The rates of each repetition, and how many items one repetition handles.
pub struct Outcome {
    /// One rate per repetition.
    pub reps: Vec<f64>,
    /// Items per repetition.
    pub count: u64,
}

/// Times `f` and returns `items / seconds`.
pub fn rate(items: u64, f: impl FnOnce() -> weir::Result<()>) -> weir::Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(items as f64 / t.elapsed().as_secs_f64())
}

fn all() -> Vec<Bench> {
    let mut v = Vec::new();
    v.extend(ops_more::benches());
    v.extend(session::benches());
    v.extend(records::benches());
    v.extend(queues::benches());
    v.extend(pipelines::benches());
    v.extend(tfdata::benches());
    v
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn json_line(b: &Bench, o: &Outcome) -> String {
    let reps: Vec<String> = o.reps.iter().map(|r| format!("{r:.3}")).collect();
    let min = o.reps.iter().copied().fold(f64::INFINITY, f64::min);
    let max = o.reps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "{{\"id\": \"{}\", \"unit\": \"{}\", \"median\": {:.3}, \"min\": {min:.3}, \"max\": {max:.3}, \"reps\": [{}], \"impl\": \"weir\", \"count\": {}}}",
        b.id,
        b.unit,
        median(&o.reps),
        reps.join(", "),
        o.count
    )
}

fn main() -> ExitCode {
    let mut data = PathBuf::from(
        std::env::var("HOME")
            .map(|h| format!("{h}/.cache/weir-bench/data"))
            .unwrap_or_default(),
    );
    let mut reps = 3usize;
    let mut only: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    let mut in_only = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--data" => {
                in_only = false;
                data = args.next().map(PathBuf::from).unwrap_or(data);
            }
            "--reps" => {
                in_only = false;
                reps = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
            }
            "--json" => {
                in_only = false;
                // Results always go to stdout; "-" is the only destination the harness uses.
                let _ = args.next();
            }
            "--only" => in_only = true,
            id if in_only => only.push(id.to_string()),
            other => {
                eprintln!("bench: unknown argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let benches = all();
    for id in &only {
        if !benches.iter().any(|b| b.id == id) {
            eprintln!("bench: unknown benchmark id {id}, skipped");
        }
    }
    let ctx = Ctx {
        data,
        reps: reps.max(1),
    };
    let mut failed = false;
    for b in benches
        .iter()
        .filter(|b| only.is_empty() || only.iter().any(|o| o == b.id))
    {
        eprintln!("bench: {} ...", b.id);
        match (b.run)(&ctx) {
            Ok(o) => println!("{}", json_line(b, &o)),
            Err(e) => {
                eprintln!("bench: {} failed: {e}", b.id);
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
