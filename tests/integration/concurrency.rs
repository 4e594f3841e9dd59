//! Many threads on one session; cancellation of blocked runs by close and by timeouts.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use weir::graph::registry::{register_kernel, register_op};
use weir::graph::{ArgType, Kernel, Monitor, OpContext, OpDef};
use weir::prelude::*;

/// Blocks until cancelled or past its deadline: stands in for a dequeue on an empty queue.
struct WaitKernel(Arc<Monitor<()>>);

impl Kernel for WaitKernel {
    fn may_block(&self) -> bool {
        true
    }

    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut g = self.0.lock();
        self.0
            .wait_while(&mut g, ctx.cancellation(), ctx.deadline(), |_| true)?;
        ctx.set_output(0, Tensor::from(0.0f32));
        Ok(())
    }
}

fn blocking_op(g: &Graph) -> Result<Output> {
    register_op(
        OpDef::new("WaitForTest")
            .output("y", ArgType::Fixed(DType::F32))
            .stateful(),
    );
    register_kernel("WaitForTest", |_| {
        Ok(Box::new(WaitKernel(Monitor::new(()))))
    });
    g.new_operation("WaitForTest").build()?.output(0)
}

#[test]
fn eight_threads_update_one_variable_exactly() -> Result<()> {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0i64)?).name("v").build()?;
    let inc = v.assign_add(constant(&g, 1i64)?)?;
    let sess = Session::new(&g)?;
    sess.run_target(&global_variables_initializer(&g)?)?;
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..500 {
                    sess.eval(&inc).expect("assign_add");
                }
            });
        }
    });
    assert_eq!(sess.eval(&v)?.to_scalar::<i64>()?, 4000);
    Ok(())
}

#[test]
fn eight_threads_feed_and_fetch_their_own_values() -> Result<()> {
    let g = Graph::new();
    let x = placeholder(&g, DType::I64, Shape::known(&[1]))?;
    let y = ((&x * 2)? + 1)?;
    let sess = Session::new(&g)?;
    std::thread::scope(|s| {
        for t in 0..8i64 {
            let (sess, x, y) = (&sess, &x, &y);
            s.spawn(move || {
                for i in 0..300i64 {
                    let v = t * 1000 + i;
                    let r = sess
                        .run(&RunArgs::new().feed(x, Tensor::from(vec![v])).fetch(y))
                        .unwrap();
                    assert_eq!(r[0].to_vec::<i64>().unwrap(), vec![2 * v + 1]);
                }
            });
        }
    });
    Ok(())
}

#[test]
fn close_cancels_a_blocked_run() -> Result<()> {
    let g = Graph::new();
    let w = blocking_op(&g)?;
    let sess = Session::new(&g)?;
    let h = sess.handle();
    let (tx, rx) = mpsc::channel();
    let t = std::thread::spawn(move || {
        tx.send(()).unwrap();
        let started = Instant::now();
        (h.eval(&w), started)
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("thread started");
    std::thread::sleep(Duration::from_millis(100));
    let closed_at = Instant::now();
    sess.close();
    let (r, _) = join_within(t, Duration::from_secs(10));
    let e = r.unwrap_err();
    assert!(e.is_cancelled(), "{e}");
    assert!(closed_at.elapsed() < Duration::from_secs(5));
    assert_eq!(e.node().unwrap().op_type, "WaitForTest");
    Ok(())
}

#[test]
fn dropping_the_session_cancels_blocked_runs() -> Result<()> {
    let g = Graph::new();
    let w = blocking_op(&g)?;
    let sess = Session::new(&g)?;
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let h = sess.handle();
            let w = w.clone();
            std::thread::spawn(move || h.eval(&w))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    drop(sess);
    for t in handles {
        let r = join_within(t, Duration::from_secs(10));
        let e = r.unwrap_err();
        assert!(e.is_cancelled() || e.is_failed_precondition(), "{e}");
    }
    Ok(())
}

#[test]
fn run_timeout_gives_deadline_exceeded() -> Result<()> {
    let g = Graph::new();
    let w = blocking_op(&g)?;
    let sess = Session::new(&g)?;
    let started = Instant::now();
    let e = sess
        .run(&RunArgs::new().fetch(&w).timeout(Duration::from_millis(100)))
        .unwrap_err();
    assert!(e.is_deadline_exceeded(), "{e}");
    assert_eq!(e.message(), "Timed out waiting for notification");
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert!(started.elapsed() < Duration::from_secs(5));
    // The session's default timeout applies too, and the session stays usable.
    let timed = Session::with_options(
        &g,
        SessionOptions::default().run_timeout(Duration::from_millis(50)),
    )?;
    assert!(timed.eval(&w).unwrap_err().is_deadline_exceeded());
    let c = constant(&g, 1.0f32)?;
    assert_eq!(timed.eval(&c)?.to_scalar::<f32>()?, 1.0);
    Ok(())
}

#[test]
fn a_failing_branch_cancels_a_blocked_one() -> Result<()> {
    // With the parallel executor, a step whose other branch fails must not hang.
    let g = Graph::new();
    let w = blocking_op(&g)?;
    let a = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32; 6])?)?;
    let p = placeholder(&g, DType::F32, Shape::unknown())?;
    let bad = matmul(&a, &p)?;
    // Large enough (2^24 multiply-adds) to count as expensive: beside the blocking op, it
    // makes the run take the parallel executor (`bad`'s product, fed 2x2, is tiny).
    let big = constant(&g, Tensor::from_vec(&[256, 256], vec![1.0f32; 256 * 256])?)?;
    let also = matmul(&big, &big)?;
    let sess = Session::with_options(&g, SessionOptions::default().inter_op_threads(2))?;
    let h = sess.handle();
    let t = std::thread::spawn(move || {
        h.run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap())
                .fetch(&bad)
                .fetch(&also)
                .fetch(&w),
        )
    });
    let r = join_within(t, Duration::from_secs(10));
    let e = r.unwrap_err();
    assert!(e.is_invalid_argument() || e.is_cancelled(), "{e}");
    Ok(())
}

#[test]
fn a_failing_cheap_step_beside_a_blocked_one_fails_the_run() -> Result<()> {
    // No expensive step: the run executes inline. The blocked step must come after the
    // independent one that fails, or the run would wait forever for it.
    let g = Graph::new();
    let w = blocking_op(&g)?;
    let a = constant(&g, Tensor::from_vec(&[2, 3], vec![1.0f32; 6])?)?;
    let p = placeholder(&g, DType::F32, Shape::unknown())?;
    let bad = matmul(&a, &p)?;
    let sess = Session::new(&g)?;
    let h = sess.handle();
    let t = std::thread::spawn(move || {
        h.run(
            &RunArgs::new()
                .feed(&p, Tensor::from_vec(&[2, 2], vec![1.0f32; 4]).unwrap())
                .fetch(&w)
                .fetch(&bad),
        )
    });
    let r = join_within(t, Duration::from_secs(10));
    let e = r.unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    Ok(())
}

fn join_within<T: Send + 'static>(t: std::thread::JoinHandle<T>, limit: Duration) -> T {
    let start = Instant::now();
    while !t.is_finished() {
        assert!(
            start.elapsed() < limit,
            "thread did not finish within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    t.join().expect("thread panicked")
}

#[test]
fn runs_blocked_on_a_queue_never_starve_the_run_that_would_unblock_them() -> Result<()> {
    // Two producers and a consumer, each run on the parallel executor (two independent 2^24
    // multiply-add products), with two inter-op threads and a queue of one. A producer
    // enqueues a value computed on an inter-op thread and then waits on the full queue; were it
    // waiting on that inter-op thread, the two producers would hold both and the consumer's
    // dequeue would never get one (this hung before queue ops were known to block).
    let g = Graph::new();
    let q = FifoQueue::new(1, &[DType::F32])
        .shapes(&[Shape::scalar()])
        .build(&g)?;
    let ones = constant(&g, Tensor::from_vec(&[256, 256], vec![1.0f32; 256 * 256])?)?;
    let twos = constant(&g, Tensor::from_vec(&[256, 256], vec![2.0f32; 256 * 256])?)?;
    let p1 = matmul(&ones, &ones)?;
    let p2 = matmul(&twos, &twos)?;
    // Every element of p1 is 256.
    let enqueue = q.enqueue(&[Reduce::max().build(&p1)?])?;
    let taken = q.dequeue()?.remove(0);
    let sess = Session::with_options(&g, SessionOptions::default().inter_op_threads(2))?;
    const EACH: usize = 20;
    let producers: Vec<_> = (0..2)
        .map(|_| {
            let (h, enqueue, p2) = (sess.handle(), enqueue.clone(), p2.clone());
            std::thread::spawn(move || -> Result<()> {
                for _ in 0..EACH {
                    h.run(
                        &RunArgs::new()
                            .target(&enqueue)
                            .fetch(&p2)
                            .timeout(Duration::from_secs(20)),
                    )?;
                }
                Ok(())
            })
        })
        .collect();
    let h = sess.handle();
    let consumer = std::thread::spawn(move || -> Result<f32> {
        let mut sum = 0.0;
        for _ in 0..2 * EACH {
            let v = h.run(
                &RunArgs::new()
                    .fetch(&taken)
                    .fetch(&p1)
                    .fetch(&p2)
                    .timeout(Duration::from_secs(20)),
            )?;
            sum += v[0].to_scalar::<f32>()?;
        }
        Ok(sum)
    });
    assert_eq!(
        join_within(consumer, Duration::from_secs(60))?,
        256.0 * 2.0 * EACH as f32
    );
    for p in producers {
        join_within(p, Duration::from_secs(60))?;
    }
    Ok(())
}
