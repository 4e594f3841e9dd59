//! `SessionOptions::intra_op_threads` (`intra_op_parallelism_threads`). The intra-op pool is
//! process-wide, so this file is its own test binary (not a module of `integration`): its first
//! session asks for one thread.

use weir::prelude::*;

/// Names of this process's threads (Linux; empty elsewhere).
fn thread_names() -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|n| n.trim().to_string())
        .collect()
}

#[test]
fn one_intra_op_thread_keeps_large_products_on_the_caller() -> Result<()> {
    let g = Graph::new();
    let x = Placeholder::new(DType::F32)
        .shape(Shape::new(vec![None, None]))
        .name("x")
        .build(&g)?;
    let y = x.matmul(&x)?;
    let sess = Session::with_options(&g, SessionOptions::default().intra_op_threads(1))?;
    let n = 256;
    let v: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let args = RunArgs::new()
        .feed(&x, Tensor::from_vec(&[n, n], v.clone())?)
        .fetch(&y);
    let first = sess.run(&args)?;
    for _ in 0..5 {
        assert_eq!(sess.run(&args)?, first);
    }
    // The product is right, and no helper thread was started for it.
    let want: f32 = (0..n).map(|k| v[k] * v[k * n]).sum();
    assert_eq!(first[0].as_slice::<f32>()?[0], want);
    let names = thread_names();
    assert!(
        !names.iter().any(|t| t.starts_with("weir-intra-op")),
        "{names:?}"
    );
    // A later session cannot change the process-wide choice.
    assert!(!weir::ops::intra_op::request_threads(4));
    Ok(())
}
