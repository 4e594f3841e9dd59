//! Queue claims of ../shared/TF_SEMANTICS.md §2 that the other queue tests do not check, one test
//! per claim (from an audit of §1, §2 and §6): runtime type and count errors, enqueue_many's
//! dimension-0 rules, op names and V2 op types, shared-queue compatibility, seeds, and shape
//! errors in TensorFlow's words. Every blocking run has a timeout.

use weir::ops::data_flow::{FifoQueue, PaddingFifoQueue, PriorityQueue, Queue, RandomShuffleQueue};
use weir::prelude::*;
use weir::Code;

use crate::tf_semantics;

use tf_semantics::*;

/// TF_SEMANTICS l.187: a wrong dtype at run time is InvalidArgument "Type mismatch in tuple
/// component 0. Expected int32, got float" (or a signature mismatch).
#[test]
fn s2_runtime_dtype_mismatch_is_invalid_argument() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let x = constant(&g, 1.0f32).unwrap();
    let built = g
        .new_operation("QueueEnqueueV2")
        .input(q.queue_ref())
        .inputs(&[x])
        .build();
    match built {
        Err(e) => {
            eprintln!("dtype mismatch refused at build time: {e}");
            assert!(e.is_invalid_argument(), "build-time refusal: {e}")
        }
        Ok(op) => {
            let sess = Session::new(&g).unwrap();
            let e = run(&sess, &op).unwrap_err();
            assert!(e.is_invalid_argument(), "{e}");
            assert!(
                e.message()
                    .contains("Type mismatch in tuple component 0. Expected int32, got float")
                    || e.message().contains("Signature mismatch"),
                "{e}"
            );
        }
    }
}

/// TF_SEMANTICS l.185: a wrong component count is InvalidArgument.
#[test]
fn s2_wrong_component_count_is_invalid_argument() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let x = constant(&g, 1i32).unwrap();
    let built = g
        .new_operation("QueueEnqueueV2")
        .input(q.queue_ref())
        .inputs(&[x.clone(), x])
        .build();
    let e = match built {
        Err(e) => e,
        Ok(op) => {
            let sess = Session::new(&g).unwrap();
            run(&sess, &op).unwrap_err()
        }
    };
    eprintln!("wrong count: {e}");
    assert!(e.is_invalid_argument(), "{e}");
}

/// TF_SEMANTICS l.195-197: enqueue_many on a queue without shapes, components of different
/// dim-0 sizes: InvalidArgument "All input tensors must have the same size in the 0th
/// dimension. Component 1 has 3, and should have 2".
#[test]
fn s2_enqueue_many_dim0_mismatch_without_shapes() {
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I32, DType::I32])
        .build(&g)
        .unwrap();
    let a = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let b = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let enq = q.enqueue_many(&[a.clone(), b.clone()]).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&a, Tensor::from(vec![1i32, 2]))
                .feed(&b, Tensor::from(vec![1i32, 2, 3]))
                .target(&enq)
                .timeout(T),
        )
        .unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert!(
        e.message()
            .starts_with("All input tensors must have the same size in the 0th"),
        "{e}"
    );
    assert!(
        e.message()
            .ends_with("Component 1 has 3, and should have 2"),
        "{e}"
    );
}

/// TF_SEMANTICS l.206: a non-empty enqueue_many on a closed queue: Cancelled "... is closed."
#[test]
fn s2_enqueue_many_on_a_closed_queue_is_cancelled() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    let enq = q
        .enqueue_many(&[constant(&g, vec![1i32, 2]).unwrap()])
        .unwrap();
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &close).unwrap();
    expect(
        run(&sess, &enq),
        Code::Cancelled,
        "FIFOQueue '_N_fifo_queue' is closed.",
    );
}

/// TF_SEMANTICS l.214, 217: static dequeue shape is the declared shape; dequeue_many(n) is
/// `[n] + shape`.
#[test]
fn s2_dequeue_static_shapes() {
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::F32, DType::I32])
        .shapes(&[Shape::known(&[2, 3]), Shape::scalar()])
        .build(&g)
        .unwrap();
    let d = q.dequeue().unwrap();
    assert_eq!(d[0].shape(), Shape::known(&[2, 3]));
    assert_eq!(d[1].shape(), Shape::scalar());
    let m = q.dequeue_many(4).unwrap();
    assert_eq!(m[0].shape(), Shape::known(&[4, 2, 3]));
    assert_eq!(m[1].shape(), Shape::known(&[4]));
    let u = q.dequeue_up_to(4).unwrap();
    assert_eq!(u[0].shape(), Shape::new(vec![None, Some(2), Some(3)]));
}

/// TF_SEMANTICS l.218-220: dequeue_many(0) on a queue without shapes is also refused.
#[test]
fn s2_dequeue_many_zero_without_shapes_is_refused() {
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I32]).build(&g).unwrap();
    let z = q.dequeue_many(0).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &z),
        Code::InvalidArgument,
        "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified shapes.",
    );
}

/// TF_SEMANTICS l.263-278: default op names (enqueue_many, dequeue_up_to) and V2 op types.
#[test]
fn s2_op_names_and_v2_op_types() {
    let g = Graph::new();
    let q = int_queue(&g, 10);
    assert_eq!(q.op().op_type(), "FIFOQueueV2");
    let e = q.enqueue(&[constant(&g, 1i32).unwrap()]).unwrap();
    assert_eq!(e.op_type(), "QueueEnqueueV2");
    let em = q
        .enqueue_many(&[constant(&g, vec![1i32]).unwrap()])
        .unwrap();
    assert_eq!(em.name(), "fifo_queue_EnqueueMany");
    assert_eq!(em.op_type(), "QueueEnqueueManyV2");
    assert_eq!(q.dequeue().unwrap()[0].op().op_type(), "QueueDequeueV2");
    let dm = q.dequeue_many(2).unwrap().remove(0);
    assert_eq!(dm.op().op_type(), "QueueDequeueManyV2");
    let du = q.dequeue_up_to(2).unwrap().remove(0);
    assert_eq!(du.name(), "fifo_queue_DequeueUpTo:0");
    assert_eq!(du.op().op_type(), "QueueDequeueUpToV2");
    assert_eq!(q.close(false).unwrap().op_type(), "QueueCloseV2");
    assert_eq!(q.size().unwrap().op().op_type(), "QueueSizeV2");
    assert_eq!(q.is_closed().unwrap().op().op_type(), "QueueIsClosedV2");
    assert_eq!(q.size().unwrap().dtype(), DType::I32);
    assert_eq!(q.is_closed().unwrap().dtype(), DType::Bool);
}

/// TF_SEMANTICS l.293: a shapes mismatch on a shared queue follows the capacity pattern.
#[test]
fn s2_shared_queue_shape_mismatch() {
    let g = Graph::new();
    let a = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .shared_name("shs")
        .build(&g)
        .unwrap();
    let b = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::known(&[2])])
        .shared_name("shs")
        .build(&g)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &a.op()).unwrap();
    let e = run(&sess, &b.op()).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert_eq!(
        e.message(),
        "Shared queue 'shs' has component shapes [[]] but requested component shapes were [[2]]"
    );
}

/// TF_SEMANTICS l.294-295: a shared RandomShuffleQueue also checks min_after_dequeue, and seeds
/// unless the new op's seeds are (0, 0).
#[test]
fn s2_shared_shuffle_queue_checks_min_after_dequeue_and_seeds() {
    let g = Graph::new();
    let a = RandomShuffleQueue::new(10, 1, &[DType::I32])
        .seed(5)
        .shared_name("shr")
        .build(&g)
        .unwrap();
    let mad = RandomShuffleQueue::new(10, 2, &[DType::I32])
        .seed(5)
        .shared_name("shr")
        .build(&g)
        .unwrap();
    let seeds = RandomShuffleQueue::new(10, 1, &[DType::I32])
        .seed(6)
        .shared_name("shr")
        .build(&g)
        .unwrap();
    let unseeded = RandomShuffleQueue::new(10, 1, &[DType::I32])
        .shared_name("shr")
        .build(&g)
        .unwrap();
    assert_eq!(
        (
            unseeded.op().attr::<i64>("seed").unwrap(),
            unseeded.op().attr::<i64>("seed2").unwrap()
        ),
        (0, 0)
    );
    let sess = Session::new(&g).unwrap();
    run(&sess, &a.op()).unwrap();
    let e = run(&sess, &mad.op()).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert!(e.message().contains("min_after_dequeue"), "{e}");
    let e = run(&sess, &seeds.op()).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert!(e.message().contains("seed"), "{e}");
    run(&sess, &unseeded.op()).expect("seeds (0, 0) are not checked");
}

/// TF_SEMANTICS l.296: a shared PaddingFIFOQueue checks that shapes are compatible, not equal.
#[test]
fn s2_shared_padding_queue_accepts_compatible_shapes() {
    let g = Graph::new();
    let a = PaddingFifoQueue::new(10, &[DType::I32], &[Shape::new(vec![None])])
        .shared_name("shp")
        .build(&g)
        .unwrap();
    let b = PaddingFifoQueue::new(10, &[DType::I32], &[Shape::known(&[3])])
        .shared_name("shp")
        .build(&g)
        .unwrap();
    let c = PaddingFifoQueue::new(10, &[DType::I32], &[Shape::known(&[3, 1])])
        .shared_name("shp")
        .build(&g)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &a.op()).unwrap();
    run(&sess, &b.op()).expect("[?] and [3] are compatible");
    assert!(run(&sess, &c.op()).unwrap_err().is_invalid_argument());
}

/// TF_SEMANTICS l.304-305: a partial shape is ValueError "All shapes must be fully defined".
#[test]
fn s2_fifo_partial_shape_error_text() {
    let g = Graph::new();
    let e = FifoQueue::new(1, &[DType::I32])
        .shapes(&[Shape::new(vec![None])])
        .build(&g)
        .unwrap_err();
    assert!(
        e.message().starts_with("All shapes must be fully defined"),
        "{e}"
    );
}

/// TF_SEMANTICS l.306: without shapes, elements may differ in shape.
#[test]
fn s2_fifo_without_shapes_takes_elements_of_any_shape() {
    let g = Graph::new();
    let q = FifoQueue::new(10, &[DType::I32]).build(&g).unwrap();
    let x = placeholder(&g, DType::I32, Shape::unknown()).unwrap();
    let enq = q.enqueue(std::slice::from_ref(&x)).unwrap();
    let d = q.dequeue().unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    for v in [
        Tensor::from(7i32),
        Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap(),
    ] {
        sess.run(&RunArgs::new().feed(&x, v).target(&enq).timeout(T))
            .unwrap();
    }
    assert_eq!(fetch(&sess, &d).unwrap().shape(), &[] as &[usize]);
    assert_eq!(fetch(&sess, &d).unwrap().shape(), &[2, 2]);
}

/// TF_SEMANTICS l.327-337: seed attrs: none -> (0, 0); op seed s -> (87654321, s); graph seed g
/// and no op seed -> (g, op count); with a shared_name seed2 = md5(str(g)+name)[:8] & 0x7fffffff.
#[test]
fn s2_shuffle_queue_seed_attrs() {
    let seeds = |q: &Queue| {
        (
            q.op().attr::<i64>("seed").unwrap(),
            q.op().attr::<i64>("seed2").unwrap(),
        )
    };
    let g = Graph::new();
    let none = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .build(&g)
        .unwrap();
    assert_eq!(seeds(&none), (0, 0));
    let op = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .seed(42)
        .build(&g)
        .unwrap();
    assert_eq!(seeds(&op), (87654321, 42));
    let g2 = Graph::new();
    g2.set_random_seed(1);
    let shared = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .shared_name("shq")
        .build(&g2)
        .unwrap();
    // python: int(hashlib.md5(b"1shq").hexdigest()[:8], 16) & 0x7FFFFFFF
    assert_eq!(seeds(&shared), (1, 1209623302));
    let g3 = Graph::new();
    g3.set_random_seed(7);
    let graph_only = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .build(&g3)
        .unwrap();
    let (s1, s2) = seeds(&graph_only);
    assert_eq!(s1, 7);
    assert!(s2 >= 0);
}

/// TF_SEMANTICS l.338-339: RandomShuffleQueue's dequeue_many without shapes.
#[test]
fn s2_shuffle_queue_dequeue_many_needs_shapes() {
    let g = Graph::new();
    let q = RandomShuffleQueue::new(10, 0, &[DType::I32])
        .build(&g)
        .unwrap();
    let d = q.dequeue_many(2).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    expect(
        fetch(&sess, &d),
        Code::InvalidArgument,
        "RandomShuffleQueue's DequeueMany and DequeueUpTo require the components to have specified shapes.",
    );
}

/// TF_SEMANTICS l.346: PaddingFIFOQueue shapes need known ranks.
#[test]
fn s2_padding_queue_needs_known_ranks() {
    let g = Graph::new();
    assert!(
        PaddingFifoQueue::new(10, &[DType::I32], &[Shape::unknown()])
            .build(&g)
            .is_err()
    );
}

/// TF_SEMANTICS l.191-192 (enqueue on a closed queue): PriorityQueue uses its own class name.
#[test]
fn s2_priority_queue_closed_enqueue_text() {
    let g = Graph::new();
    let q = PriorityQueue::new(10, &[DType::I32], &[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q
        .enqueue(&[constant(&g, 3i64).unwrap(), constant(&g, 30i32).unwrap()])
        .unwrap();
    let close = q.close(false).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &close).unwrap();
    expect(
        run(&sess, &enq),
        Code::Cancelled,
        "PriorityQueue '_N_priority_queue' is closed.",
    );
}

/// TF_SEMANTICS l.325-326: partially dequeued RSQ elements are lost on a timeout (3 -> 1).
#[test]
fn s2_shuffle_queue_timeout_loses_held_elements() {
    let g = Graph::new();
    let q = RandomShuffleQueue::new(10, 1, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q
        .enqueue_many(&[constant(&g, vec![1i32, 2, 3]).unwrap()])
        .unwrap();
    let m = q.dequeue_many(4).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq).unwrap();
    assert!(fetch_blocking(&sess, &m)
        .unwrap_err()
        .is_deadline_exceeded());
    assert_eq!(queue_size(&sess, &q), 1);
}
