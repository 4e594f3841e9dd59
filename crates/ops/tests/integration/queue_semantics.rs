//! Queue behaviour run through a Session, step by step as ../shared/fixtures/queue_semantics.json
//! and TF_SEMANTICS §2 record TensorFlow's.

use std::thread;
use std::time::{Duration, Instant};

use weir_graph::{Code, DType, Graph, Operation, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data_flow::{FifoQueue, PaddingFifoQueue, RandomShuffleQueue};
use weir_session::{RunArgs, Session, SessionHandle};

use crate::queue_util::{
    expect_err, fetch, fetch_blocking, i64s, int_queue, norm, run, size, BLOCK,
};

fn run_blocking(s: &SessionHandle, op: &Operation) -> weir_graph::Result<()> {
    s.run(&RunArgs::new().target(op).timeout(BLOCK)).map(|_| ())
}

#[test]
fn fifo_dequeue_up_to_and_many_around_close() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let enq = q
        .enqueue_many(&[constant(&g, vec![0i64, 1, 2, 3, 4]).unwrap()])
        .unwrap();
    let up_to = q.dequeue_up_to(3).unwrap().remove(0);
    let many = q.dequeue_many(3).unwrap().remove(0);
    let one = q.dequeue().unwrap().remove(0);
    let close = q.close(false).unwrap();
    let close_again = q.close(false).unwrap();
    assert_eq!(close_again.name(), "fifo_queue_Close_1");
    let is_closed = q.is_closed().unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq).unwrap();
    assert_eq!(size(&sess, &q), 5);
    assert_eq!(i64s(&fetch(&sess, &up_to).unwrap()), vec![0, 1, 2]);
    run(&sess, &close).unwrap();
    expect_err(
        fetch(&sess, &many),
        Code::OutOfRange,
        "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements (requested 3, current size 2)",
    );
    assert_eq!(size(&sess, &q), 2);
    let rest = fetch(&sess, &up_to).unwrap();
    assert_eq!(rest.shape(), &[2]);
    assert_eq!(i64s(&rest), vec![3, 4]);
    expect_err(
        fetch(&sess, &up_to),
        Code::OutOfRange,
        "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements (requested 3, current size 0)",
    );
    expect_err(
        fetch(&sess, &one),
        Code::OutOfRange,
        "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements (requested 1, current size 0)",
    );
    expect_err(
        run(&sess, &enq),
        Code::Cancelled,
        "FIFOQueue '_N_fifo_queue' is closed.",
    );
    expect_err(
        run(&sess, &close_again),
        Code::Cancelled,
        "Queue '_N_fifo_queue' is already closed.",
    );
    assert!(fetch(&sess, &is_closed)
        .unwrap()
        .to_scalar::<bool>()
        .unwrap());
    // An empty batch succeeds even on a closed queue.
    let empty = q
        .enqueue_many(&[constant(&g, Vec::<i64>::new()).unwrap()])
        .unwrap();
    run(&sess, &empty).unwrap();
    // dequeue_many(0) returns at once, even closed.
    let zero = q.dequeue_many(0).unwrap().remove(0);
    assert_eq!(fetch(&sess, &zero).unwrap().shape(), &[0]);
}

#[test]
fn open_empty_dequeue_up_to_blocks() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let up_to = q.dequeue_up_to(3).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    expect_err(
        fetch_blocking(&sess, &up_to),
        Code::DeadlineExceeded,
        "Timed out waiting for notification",
    );
}

#[test]
fn cancelled_partial_dequeue_many_loses_what_it_took() {
    for kind in ["fifo", "shuffle", "padding"] {
        for up_to in [false, true] {
            let g = Graph::new();
            let q = match kind {
                "fifo" => int_queue(&g, 10),
                "shuffle" => RandomShuffleQueue::new(10, 0, &[DType::I64])
                    .shapes(&[Shape::scalar()])
                    .build(&g)
                    .unwrap(),
                _ => PaddingFifoQueue::new(10, &[DType::I64], &[Shape::scalar()])
                    .build(&g)
                    .unwrap(),
            };
            let enq = q
                .enqueue_many(&[constant(&g, vec![0i64, 1]).unwrap()])
                .unwrap();
            let d = if up_to {
                q.dequeue_up_to(3)
            } else {
                q.dequeue_many(3)
            }
            .unwrap()
            .remove(0);
            let close = q.close(false).unwrap();
            let all = q.dequeue_up_to(10).unwrap().remove(0);
            let sess = Session::new(&g).unwrap();
            run(&sess, &enq).unwrap();
            expect_err(
                fetch_blocking(&sess, &d),
                Code::DeadlineExceeded,
                "Timed out waiting for notification",
            );
            assert_eq!(size(&sess, &q), 0, "{kind} up_to={up_to}");
            run(&sess, &close).unwrap();
            let e = fetch(&sess, &all).unwrap_err();
            assert!(e.is_out_of_range());
            assert!(
                norm(e.message()).ends_with("(requested 10, current size 0)"),
                "{e}"
            );
        }
    }
}

#[test]
fn dequeue_many_restores_held_rows_when_the_queue_closes() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let enq1 = q.enqueue(&[constant(&g, 1i64).unwrap()]).unwrap();
    let d3 = q.dequeue_many(3).unwrap().remove(0);
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    let h = sess.handle();
    let waiter = thread::spawn(move || fetch(&h, &d3));
    thread::sleep(Duration::from_millis(50));
    run(&sess, &enq1).unwrap();
    thread::sleep(Duration::from_millis(50));
    // The blocked dequeue_many holds the element: size() does not count it.
    assert_eq!(size(&sess, &q), 0);
    run(&sess, &close).unwrap();
    expect_err(
        waiter.join().unwrap(),
        Code::OutOfRange,
        "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements (requested 2, current size 0)",
    );
    assert_eq!(size(&sess, &q), 1);
}

#[test]
fn head_of_line_dequeue_cannot_overtake_a_blocked_dequeue_many() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let enq = q
        .enqueue(&[placeholder(&g, DType::I64, Shape::scalar()).unwrap()])
        .unwrap();
    let x = enq.inputs()[1].clone();
    let d3 = q.dequeue_many(3).unwrap().remove(0);
    let one = q.dequeue().unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    let h = sess.handle();
    let waiter = thread::spawn(move || fetch(&h, &d3));
    thread::sleep(Duration::from_millis(50));
    let feed = |v: i64| {
        sess.run(&RunArgs::new().feed(&x, Tensor::from(v)).target(&enq))
            .unwrap()
    };
    feed(1);
    feed(2);
    expect_err(
        fetch_blocking(&sess, &one),
        Code::DeadlineExceeded,
        "Timed out waiting for notification",
    );
    feed(3);
    assert_eq!(i64s(&waiter.join().unwrap().unwrap()), vec![1, 2, 3]);
}

#[test]
fn enqueue_many_makes_partial_progress_and_keeps_it_when_cancelled() {
    let g = Graph::new();
    let q = int_queue(&g, 2);
    let enq = q
        .enqueue_many(&[constant(&g, vec![1i64, 2, 3, 4, 5]).unwrap()])
        .unwrap();
    let one = q.dequeue().unwrap().remove(0);
    let cancel_close = q.close(true).unwrap();
    let sess = Session::new(&g).unwrap();
    let h = sess.handle();
    let enq2 = enq.clone();
    let blocked = thread::spawn(move || run(&h, &enq2));
    let t0 = Instant::now();
    while size(&sess, &q) < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "enqueue_many made no progress"
        );
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![1]);
    thread::sleep(Duration::from_millis(50));
    assert_eq!(size(&sess, &q), 2);
    run(&sess, &cancel_close).unwrap();
    expect_err(
        blocked.join().unwrap(),
        Code::Cancelled,
        "Enqueue operation was cancelled",
    );
    assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![2]);
    assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![3]);
    // Cancelling close on a closed queue succeeds silently.
    run(&sess, &cancel_close).unwrap();
}

fn closing_with_blocked_enqueue(cancel: bool) {
    let g = Graph::new();
    let q = int_queue(&g, 2);
    let enq = q
        .enqueue(&[placeholder(&g, DType::I64, Shape::scalar()).unwrap()])
        .unwrap();
    let x = enq.inputs()[1].clone();
    let one = q.dequeue().unwrap().remove(0);
    let close = q.close(cancel).unwrap();
    let is_closed = q.is_closed().unwrap();
    let sess = Session::new(&g).unwrap();
    for v in [1i64, 2] {
        sess.run(&RunArgs::new().feed(&x, Tensor::from(v)).target(&enq))
            .unwrap();
    }
    let (h, e, x2) = (sess.handle(), enq.clone(), x.clone());
    let a = thread::spawn(move || {
        h.run(
            &RunArgs::new()
                .feed(&x2, Tensor::from(3i64))
                .target(&e)
                .timeout(Duration::from_secs(10)),
        )
        .map(|_| ())
    });
    thread::sleep(Duration::from_millis(50));
    if cancel {
        run(&sess, &close).unwrap();
        expect_err(
            a.join().unwrap(),
            Code::Cancelled,
            "Enqueue operation was cancelled",
        );
        assert_eq!(size(&sess, &q), 2);
        assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![1]);
        assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![2]);
    } else {
        let (h, c) = (sess.handle(), close.clone());
        let b = thread::spawn(move || run(&h, &c));
        thread::sleep(Duration::from_millis(50));
        assert!(!fetch(&sess, &is_closed)
            .unwrap()
            .to_scalar::<bool>()
            .unwrap());
        assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![1]);
        a.join().unwrap().unwrap();
        b.join().unwrap().unwrap();
        assert!(fetch(&sess, &is_closed)
            .unwrap()
            .to_scalar::<bool>()
            .unwrap());
        assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![2]);
        assert_eq!(i64s(&fetch(&sess, &one).unwrap()), vec![3]);
    }
    expect_err(
        fetch(&sess, &one),
        Code::OutOfRange,
        "FIFOQueue '_N_fifo_queue' is closed and has insufficient elements (requested 1, current size 0)",
    );
}

#[test]
fn close_cancelling_pending_enqueues() {
    closing_with_blocked_enqueue(true);
}

#[test]
fn close_waits_behind_pending_enqueues() {
    closing_with_blocked_enqueue(false);
}

#[test]
fn dequeue_up_to_on_a_closing_queue_waits_for_pending_enqueues() {
    let g = Graph::new();
    let q = int_queue(&g, 1);
    let enq = q
        .enqueue(&[placeholder(&g, DType::I64, Shape::scalar()).unwrap()])
        .unwrap();
    let x = enq.inputs()[1].clone();
    let up_to = q.dequeue_up_to(5).unwrap().remove(0);
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().feed(&x, Tensor::from(1i64)).target(&enq))
        .unwrap();
    let (h, e, x2) = (sess.handle(), enq.clone(), x.clone());
    let a = thread::spawn(move || {
        h.run(
            &RunArgs::new()
                .feed(&x2, Tensor::from(2i64))
                .target(&e)
                .timeout(Duration::from_secs(10)),
        )
        .map(|_| ())
    });
    thread::sleep(Duration::from_millis(50));
    let (h, c) = (sess.handle(), close.clone());
    let b = thread::spawn(move || run(&h, &c));
    thread::sleep(Duration::from_millis(50));
    assert_eq!(i64s(&fetch(&sess, &up_to).unwrap()), vec![1, 2]);
    a.join().unwrap().unwrap();
    b.join().unwrap().unwrap();
}

#[test]
fn session_close_cancels_a_blocked_dequeue_quickly() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let one = q.dequeue().unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    let h = sess.handle();
    let waiter = thread::spawn(move || {
        let r = h.run(&RunArgs::new().fetch(&one).timeout(Duration::from_secs(20)));
        (r, Instant::now())
    });
    thread::sleep(Duration::from_millis(100));
    let closed_at = Instant::now();
    sess.close();
    let (r, done_at) = waiter.join().unwrap();
    expect_err(r, Code::Cancelled, "Dequeue operation was cancelled");
    assert!(done_at.duration_since(closed_at) < Duration::from_millis(100));
    let e = sess.run(&RunArgs::new().target(&q.op())).unwrap_err();
    assert!(e.is_failed_precondition(), "{e}");
}

#[test]
fn capacity_zero_blocks_and_negative_is_unbounded() {
    let g = Graph::new();
    let q0 = FifoQueue::new(0, &[DType::I32]).build(&g).unwrap();
    let enq0 = q0.enqueue(&[constant(&g, 1i32).unwrap()]).unwrap();
    let qu = FifoQueue::new(-1, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enqu = qu
        .enqueue_many(&[constant(&g, (0..100).collect::<Vec<i32>>()).unwrap()])
        .unwrap();
    let sess = Session::new(&g).unwrap();
    expect_err(
        run_blocking(&sess, &enq0),
        Code::DeadlineExceeded,
        "Timed out waiting for notification",
    );
    run(&sess, &enqu).unwrap();
    assert_eq!(size(&sess, &qu), 100);
}

#[test]
fn runtime_shape_and_type_checks() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let p = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let many = q.enqueue_many(std::slice::from_ref(&p)).unwrap();
    let one = q.enqueue(std::slice::from_ref(&p)).unwrap();
    let sess = Session::new(&g).unwrap();
    let t = Tensor::from_vec(&[1, 2], vec![1i64, 2]).unwrap();
    let e = sess
        .run(&RunArgs::new().feed(&p, t).target(&many))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Shape mismatch in tuple component 0. Expected [1], got [1,2]"
    );
    assert!(e.is_invalid_argument());
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![1i64, 2]))
                .target(&one),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Shape mismatch in tuple component 0. Expected [], got [2]"
    );
    let e = sess
        .run(&RunArgs::new().feed(&p, Tensor::from(3i64)).target(&many))
        .unwrap_err();
    assert!(
        e.is_invalid_argument() && e.message().starts_with("Shape mismatch"),
        "{e}"
    );
    // Build-time checks.
    assert!(q.enqueue(&[constant(&g, 1.5f32).unwrap()]).is_err());
    assert!(q.enqueue(&[constant(&g, vec![1i64, 2]).unwrap()]).is_err());
    let noshape = FifoQueue::new(10, &[DType::I64]).build(&g).unwrap();
    let dm = noshape.dequeue_many(1).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    let e = sess.run(&RunArgs::new().fetch(&dm)).unwrap_err();
    assert_eq!(
        e.message(),
        "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified shapes."
    );
    assert!(FifoQueue::new(1, &[DType::I64])
        .shapes(&[Shape::new(vec![None])])
        .build(&g)
        .is_err());
    // n < 0 is refused when the op is built.
    let n = constant(&g, -1i32).unwrap();
    let e = g
        .new_operation("QueueDequeueManyV2")
        .input(q.queue_ref())
        .input(n)
        .attr("component_types", vec![DType::I64])
        .build()
        .unwrap_err();
    assert!(
        e.message().contains("Input 'n' must be >= 0, but is -1"),
        "{e}"
    );
}
