//! The seed-style MNIST loop of `examples/mnist_style_pipeline.rs` with fewer examples: the
//! Coordinator loop must end on OutOfRange after exactly the steps the epochs allow, and the
//! network must have learnt the synthetic classes.

#[allow(dead_code)]
#[path = "../../examples/mnist_style_pipeline.rs"]
mod mnist;

use std::time::Instant;

#[test]
fn seed_mnist_loop_ends_on_out_of_range_and_learns() -> weir::Result<()> {
    let start = Instant::now();
    let dir = std::env::temp_dir().join(format!("weir-mnist-style-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = mnist::Config {
        train_examples: 4_000,
        eval_examples: 1_000,
        shards: 2,
        num_epochs: 3,
        verbose: false,
        ..mnist::Config::default()
    };
    let report = mnist::run(&cfg, &dir)?;
    std::fs::remove_dir_all(&dir)?;
    // 3 epochs of 4,000 examples in batches of 100; shuffle_batch drops no partial batch here.
    assert_eq!(report.steps, 120);
    assert_eq!(report.global_step, 120);
    assert!(
        report.last_loss.is_finite() && report.last_loss < 1.0,
        "{report:?}"
    );
    assert!(
        report.accuracy >= 0.9,
        "held-out accuracy {}",
        report.accuracy
    );
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
    Ok(())
}

#[test]
fn synthetic_data_is_seeded_and_in_range() {
    let (mut a, mut b) = (mnist::Synthetic::new(5, 1), mnist::Synthetic::new(5, 1));
    for _ in 0..20 {
        let (pa, la) = a.example();
        let (pb, lb) = b.example();
        assert_eq!((pa, la), (pb, lb));
        assert!((0..10).contains(&la));
        assert!(pa.iter().all(|p| (0..=255).contains(p)));
    }
    let mut other = mnist::Synthetic::new(5, 2);
    assert_ne!(a.example(), other.example(), "the held-out stream differs");
}
