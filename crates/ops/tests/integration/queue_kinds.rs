//! Kind-specific queue behaviour through a Session (RandomShuffleQueue, PaddingFIFOQueue,
//! PriorityQueue), shared names and default op names, as TF_SEMANTICS §2 and
//! ../shared/fixtures/queue_semantics.json record TensorFlow's.

use std::time::Duration;

use weir_graph::{Code, DType, Graph, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data_flow::{FifoQueue, PaddingFifoQueue, PriorityQueue, Queue, RandomShuffleQueue};
use weir_session::{RunArgs, Session};

use crate::queue_util::{expect_err, fetch, fetch_blocking, i64s, int_queue, norm, run, size};

#[test]
fn random_shuffle_queue_holds_back_min_after_dequeue() {
    let g = Graph::new();
    let q = RandomShuffleQueue::new(10, 3, &[DType::I64])
        .shapes(&[Shape::scalar()])
        .seed(1)
        .build(&g)
        .unwrap();
    let enq5 = q
        .enqueue_many(&[constant(&g, vec![0i64, 1, 2, 3, 4]).unwrap()])
        .unwrap();
    let enq2 = q
        .enqueue_many(&[constant(&g, vec![5i64, 6]).unwrap()])
        .unwrap();
    let one = q.dequeue().unwrap().remove(0);
    let two = q.dequeue_many(2).unwrap().remove(0);
    let up5 = q.dequeue_up_to(5).unwrap().remove(0);
    let enq1 = q.enqueue(&[constant(&g, 9i64).unwrap()]).unwrap();
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq5).unwrap();
    fetch(&sess, &one).unwrap();
    fetch(&sess, &one).unwrap();
    assert_eq!(size(&sess, &q), 3);
    let blocked = "Timed out waiting for notification";
    expect_err(fetch_blocking(&sess, &one), Code::DeadlineExceeded, blocked);
    expect_err(fetch_blocking(&sess, &two), Code::DeadlineExceeded, blocked);
    expect_err(fetch_blocking(&sess, &up5), Code::DeadlineExceeded, blocked);
    assert_eq!(size(&sess, &q), 3);
    run(&sess, &enq2).unwrap();
    assert_eq!(fetch(&sess, &two).unwrap().shape(), &[2]);
    assert_eq!(size(&sess, &q), 3);
    run(&sess, &close).unwrap();
    fetch(&sess, &one).unwrap();
    assert_eq!(fetch(&sess, &two).unwrap().shape(), &[2]);
    assert_eq!(size(&sess, &q), 0);
    expect_err(
        fetch(&sess, &one),
        Code::OutOfRange,
        "RandomShuffleQueue '_N_random_shuffle_queue' is closed and has insufficient elements (requested 1, current size 0)",
    );
    expect_err(
        run(&sess, &enq1),
        Code::Cancelled,
        "RandomShuffleQueue '_N_random_shuffle_queue' is closed.",
    );
}

#[test]
fn random_shuffle_queue_closed_below_min_after_dequeue_drains() {
    let g = Graph::new();
    let q = RandomShuffleQueue::new(10, 5, &[DType::I64])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q
        .enqueue_many(&[constant(&g, vec![0i64, 1, 2]).unwrap()])
        .unwrap();
    let one = q.dequeue().unwrap().remove(0);
    let two = q.dequeue_many(2).unwrap().remove(0);
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq).unwrap();
    expect_err(
        fetch_blocking(&sess, &one),
        Code::DeadlineExceeded,
        "Timed out waiting for notification",
    );
    run(&sess, &close).unwrap();
    let mut got = i64s(&fetch(&sess, &two).unwrap());
    expect_err(
        fetch(&sess, &two),
        Code::OutOfRange,
        "RandomShuffleQueue '_N_random_shuffle_queue' is closed and has insufficient elements (requested 2, current size 1)",
    );
    assert_eq!(size(&sess, &q), 1);
    got.extend(i64s(&fetch(&sess, &one).unwrap()));
    got.sort();
    assert_eq!(got, vec![0, 1, 2]);
}

#[test]
fn same_seed_same_order_and_unseeded_orders_differ() {
    let order = |seed: Option<i64>| -> Vec<i64> {
        let g = Graph::new();
        let q = RandomShuffleQueue::new(100, 0, &[DType::I64])
            .shapes(&[Shape::scalar()])
            .maybe_seed(seed)
            .build(&g)
            .unwrap();
        let enq = q
            .enqueue_many(&[constant(&g, (0..50i64).collect::<Vec<_>>()).unwrap()])
            .unwrap();
        let all = q.dequeue_many(50).unwrap().remove(0);
        let sess = Session::new(&g).unwrap();
        run(&sess, &enq).unwrap();
        i64s(&fetch(&sess, &all).unwrap())
    };
    assert_eq!(order(Some(7)), order(Some(7)));
    assert_ne!(order(Some(7)), order(Some(8)));
    let a = order(None);
    let b = order(None);
    assert_ne!(a, b, "unseeded queues draw fresh seeds");
    let mut s = a.clone();
    s.sort();
    assert_eq!(s, (0..50).collect::<Vec<_>>());
}

#[test]
fn padding_fifo_queue_pads_each_batch() {
    let g = Graph::new();
    let q = PaddingFifoQueue::new(
        10,
        &[DType::I64, DType::String],
        &[Shape::new(vec![None]), Shape::new(vec![None, Some(2)])],
    )
    .build(&g)
    .unwrap();
    let e1 = q
        .enqueue(&[
            constant(&g, vec![1i64, 2, 3]).unwrap(),
            constant(
                &g,
                Tensor::from_strings(&["a", "b"]).reshape(&[1, 2]).unwrap(),
            )
            .unwrap(),
        ])
        .unwrap();
    let e2 = q
        .enqueue(&[
            constant(&g, vec![4i64]).unwrap(),
            constant(
                &g,
                Tensor::from_strings(&["c", "d", "e", "f"])
                    .reshape(&[2, 2])
                    .unwrap(),
            )
            .unwrap(),
        ])
        .unwrap();
    let many = q.dequeue_many(2).unwrap();
    assert_eq!(many[0].shape(), Shape::new(vec![Some(2), None]));
    let zero = q.dequeue_many(0).unwrap();
    let one = q.dequeue().unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &e1).unwrap();
    run(&sess, &e2).unwrap();
    let out = sess
        .run(&RunArgs::new().fetch(&many[0]).fetch(&many[1]))
        .unwrap();
    assert_eq!(out[0].shape(), &[2, 3]);
    assert_eq!(i64s(&out[0]), vec![1, 2, 3, 4, 0, 0]);
    assert_eq!(out[1].shape(), &[2, 2, 2]);
    assert_eq!(
        out[1].to_strings().unwrap(),
        vec!["a", "b", "", "", "c", "d", "e", "f"]
    );
    let z = sess.run(&RunArgs::new().fetch(&zero[1])).unwrap();
    assert_eq!(z[0].shape(), &[0, 0, 2]);
    run(&sess, &e2).unwrap();
    let single = sess
        .run(&RunArgs::new().fetch(&one[0]).fetch(&one[1]))
        .unwrap();
    assert_eq!(single[0].shape(), &[1]);
    assert_eq!(single[1].shape(), &[2, 2]);
    // A shape that does not fit the partial shape.
    let bad = q
        .enqueue(&[
            constant(&g, vec![1i64]).unwrap(),
            placeholder(&g, DType::String, Shape::unknown()).unwrap(),
        ])
        .unwrap();
    let p = bad.inputs()[2].clone();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from_strings(&["x", "y"]))
                .target(&bad),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Shape mismatch in tuple component 1. Expected [?,2], got [2]"
    );
}

#[test]
fn padding_fixture_case() {
    // queue_semantics.json: shapes [[None]], enqueue [1], [2,3], [] then dequeue_many(3).
    let g = Graph::new();
    let q = PaddingFifoQueue::new(10, &[DType::I64], &[Shape::new(vec![None])])
        .build(&g)
        .unwrap();
    let x = placeholder(&g, DType::I64, Shape::new(vec![None])).unwrap();
    let enq = q.enqueue(std::slice::from_ref(&x)).unwrap();
    let many = q.dequeue_many(3).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    for v in [vec![1i64], vec![2, 3], vec![]] {
        sess.run(&RunArgs::new().feed(&x, Tensor::from(v)).target(&enq))
            .unwrap();
    }
    let out = fetch(&sess, &many).unwrap();
    assert_eq!(out.shape(), &[3, 2]);
    assert_eq!(i64s(&out), vec![1, 0, 2, 3, 0, 0]);
}

#[test]
fn priority_queue_smallest_first() {
    let g = Graph::new();
    let q = PriorityQueue::new(10, &[DType::String], &[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q
        .enqueue_many(&[
            constant(&g, vec![5i64, 1, 3, 1]).unwrap(),
            constant(&g, Tensor::from_strings(&["five", "one", "three", "uno"])).unwrap(),
        ])
        .unwrap();
    let many = q.dequeue_many(4).unwrap();
    let up_to = q.dequeue_up_to(4).unwrap();
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq).unwrap();
    let out = sess
        .run(&RunArgs::new().fetch(&many[0]).fetch(&many[1]))
        .unwrap();
    assert_eq!(i64s(&out[0]), vec![1, 1, 3, 5]);
    assert_eq!(
        out[1].to_strings().unwrap(),
        vec!["one", "uno", "three", "five"]
    );
    run(&sess, &enq).unwrap();
    run(&sess, &close).unwrap();
    let out = sess.run(&RunArgs::new().fetch(&up_to[0])).unwrap();
    assert_eq!(i64s(&out[0]), vec![1, 1, 3, 5]);
    let e = sess.run(&RunArgs::new().fetch(&many[0])).unwrap_err();
    assert_eq!(
        norm(e.message()),
        "PriorityQueue '_N_priority_queue' is closed and has insufficient elements (requested 4, current size 0)"
    );
}

#[test]
fn rsq_construction_errors() {
    for (mad, msg) in [
        (-1, "min_after_dequeue -1 must be >= 0"),
        (3, "min_after_dequeue 3 must be < capacity 3"),
    ] {
        let g = Graph::new();
        let q = RandomShuffleQueue::new(3, mad, &[DType::I32])
            .build(&g)
            .unwrap();
        let sess = Session::new(&g).unwrap();
        let e = sess.run(&RunArgs::new().target(&q.op())).unwrap_err();
        assert!(e.is_invalid_argument());
        assert_eq!(e.message(), msg);
    }
}

#[test]
fn shared_names_share_across_sessions_and_check_configuration() {
    let g = Graph::new();
    let a = FifoQueue::new(10, &[DType::I32])
        .shared_name("shq")
        .build(&g)
        .unwrap();
    let b = FifoQueue::new(10, &[DType::I32])
        .shared_name("shq")
        .build(&g)
        .unwrap();
    let enq = a.enqueue(&[constant(&g, 4i32).unwrap()]).unwrap();
    let deq = b.dequeue().unwrap().remove(0);
    let s1 = Session::new(&g).unwrap();
    run(&s1, &enq).unwrap();
    assert_eq!(fetch(&s1, &deq).unwrap().to_scalar::<i32>().unwrap(), 4);
    let cap = FifoQueue::new(11, &[DType::I32])
        .shared_name("shq")
        .build(&g)
        .unwrap();
    let e = s1.run(&RunArgs::new().target(&cap.op())).unwrap_err();
    assert_eq!(
        e.message(),
        "Shared queue 'shq' has capacity 10 but requested capacity was 11"
    );
    let ty = FifoQueue::new(10, &[DType::F32])
        .shared_name("shq")
        .build(&g)
        .unwrap();
    let e = s1.run(&RunArgs::new().target(&ty.op())).unwrap_err();
    assert_eq!(
        e.message(),
        "Shared queue 'shq' has component types int32 but requested component types were float"
    );
    let rsq = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .shared_name("shq")
        .build(&g)
        .unwrap();
    let e = s1.run(&RunArgs::new().target(&rsq.op())).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected FIFOQueue, found RandomShuffleQueueV2"
    );
    // Without a shared name, two sessions hold separate queues.
    let p = int_queue(&g, 10);
    let penq = p.enqueue(&[constant(&g, 1i64).unwrap()]).unwrap();
    let s2 = Session::new(&g).unwrap();
    run(&s1, &penq).unwrap();
    assert_eq!(size(&s1, &p), 1);
    assert_eq!(size(&s2, &p), 0);
}

#[test]
fn default_op_names_follow_tensorflow() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    assert_eq!(q.name(), "fifo_queue");
    assert_eq!(
        q.enqueue(&[constant(&g, 1i64).unwrap()]).unwrap().name(),
        "fifo_queue_enqueue"
    );
    assert_eq!(q.dequeue().unwrap()[0].name(), "fifo_queue_Dequeue:0");
    assert_eq!(
        q.dequeue_up_to(2).unwrap()[0].shape(),
        Shape::new(vec![None])
    );
    assert_eq!(q.close(false).unwrap().name(), "fifo_queue_Close");
    assert_eq!(q.close(true).unwrap().name(), "fifo_queue_Close_1");
    assert_eq!(q.size().unwrap().name(), "fifo_queue_Size:0");
    assert_eq!(q.is_closed().unwrap().name(), "fifo_queue_Is_Closed:0");
    let _scope = g.name_scope("batch");
    let inner = int_queue(&g, 1);
    assert_eq!(inner.name(), "batch/fifo_queue");
    assert_eq!(
        inner.dequeue_many(2).unwrap()[0].name(),
        "batch/fifo_queue_DequeueMany:0"
    );
}

#[test]
fn shared_shuffle_queue_seed2_depends_on_graph_seed_and_name_only() {
    let seeds = |extra_ops: usize| {
        let g = Graph::new();
        g.set_random_seed(1);
        for _ in 0..extra_ops {
            constant(&g, 0i32).unwrap();
        }
        let q = RandomShuffleQueue::new(10, 0, &[DType::I32])
            .shared_name("shq")
            .build(&g)
            .unwrap();
        let unshared = RandomShuffleQueue::new(10, 0, &[DType::I32])
            .build(&g)
            .unwrap();
        (
            q.op().attr::<i64>("seed").unwrap(),
            q.op().attr::<i64>("seed2").unwrap(),
            unshared.op().attr::<i64>("seed2").unwrap(),
        )
    };
    let (a, b) = (seeds(0), seeds(5));
    assert_eq!((a.0, a.1), (1, b.1));
    assert_eq!(b.0, 1);
    assert!(a.1 <= i32::MAX as i64);
    // Without a shared name, seed2 numbers the seedless ops (the queue is the second), not
    // the graph's other ops: TensorFlow 2.21's get_seed.
    assert_eq!((a.2, b.2), (1, 1));
}

/// `QueueBase.from_list`: a fed index picks the queue that the ops built on the selection
/// use, run after run; the selection has the queues' common shape and refuses mixed queues.
#[test]
fn from_list_picks_the_queue_at_run_time() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let train = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::known(&[2])])
        .name("train")
        .build(&g)
        .unwrap();
    let eval = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::new(vec![Some(2)])])
        .name("eval")
        .build(&g)
        .unwrap();
    let other = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::known(&[3])])
        .build(&g)
        .unwrap();
    let which = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let q = Queue::from_list(&which, &[train.clone(), eval.clone()]).unwrap();
    assert_eq!(q.dtypes(), &[DType::I32]);
    assert_eq!(q.shapes().unwrap(), &[Shape::known(&[2])]);
    let mixed = Queue::from_list(&which, &[train.clone(), other]).unwrap();
    assert_eq!(mixed.shapes().unwrap(), &[Shape::new(vec![None])]);
    let fill_train = train
        .enqueue_many(&[
            constant(&g, Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap()).unwrap(),
        ])
        .unwrap();
    let fill_eval = eval
        .enqueue(&[constant(&g, vec![7i32, 8]).unwrap()])
        .unwrap();
    let x = q.dequeue().unwrap().remove(0);
    assert_eq!(x.shape(), Shape::known(&[2]));
    let size = q.size().unwrap();
    let s = Session::new(&g).unwrap();
    run(&s, &fill_train).unwrap();
    run(&s, &fill_eval).unwrap();
    let pick = |i: i32| {
        s.run(
            &RunArgs::new()
                .feed(&which, Tensor::scalar(i))
                .fetch(&x)
                .timeout(Duration::from_secs(10)),
        )
        .unwrap()
        .remove(0)
        .to_vec::<i32>()
        .unwrap()
    };
    assert_eq!(pick(0), vec![1, 2]);
    assert_eq!(pick(1), vec![7, 8]);
    assert_eq!(pick(0), vec![3, 4]);
    let left = s
        .run(
            &RunArgs::new()
                .feed(&which, Tensor::scalar(1i32))
                .fetch(&size),
        )
        .unwrap();
    assert_eq!(left[0].to_scalar::<i32>().unwrap(), 0);

    let f64s = FifoQueue::new(10, &[DType::F64]).build(&g).unwrap();
    expect_err(
        Queue::from_list(&which, &[train.clone(), f64s]),
        Code::InvalidArgument,
        "Queues do not have matching component dtypes.",
    );
    let named = FifoQueue::new(10, &[DType::I32])
        .names(&["x"])
        .build(&g)
        .unwrap();
    expect_err(
        Queue::from_list(&which, &[train, named]),
        Code::InvalidArgument,
        "Queues do not have matching component names.",
    );
    expect_err(
        Queue::from_list(&which, &[]),
        Code::InvalidArgument,
        "A list of queues expected",
    );
}

/// Python-side and kernel errors in TensorFlow's words (TF_SEMANTICS §2.1, §2.4, §2.5): a static
/// shape mismatch prints Python shapes, a PaddingFIFOQueue needs its shapes, and a
/// PriorityQueue checks its priority before the component shapes.
#[test]
fn queue_errors_in_tensorflows_words() {
    weir_ops::register_all_ops();
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    expect_err(
        q.enqueue(&[constant(&g, vec![1i32, 2]).unwrap()]),
        Code::InvalidArgument,
        "Shapes (2,) and () are incompatible",
    );
    expect_err(
        PaddingFifoQueue::new(5, &[DType::I32], &[]).build(&g),
        Code::InvalidArgument,
        "When providing partial shapes, a list of shapes must be provided.",
    );
    let pq = PriorityQueue::new(5, &[DType::I32], &[Shape::scalar()])
        .build(&g)
        .unwrap();
    let p = placeholder(&g, DType::I64, Shape::unknown()).unwrap();
    let enq = pq
        .enqueue(&[p.clone(), constant(&g, 1i32).unwrap()])
        .unwrap();
    let s = Session::new(&g).unwrap();
    expect_err(
        s.run(
            &RunArgs::new()
                .feed(&p, Tensor::from(vec![1i64, 2]))
                .target(&enq)
                .timeout(Duration::from_secs(10)),
        ),
        Code::InvalidArgument,
        "Expected the priority element to be a scalar, but received shape: [2]",
    );
}
