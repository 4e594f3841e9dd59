//! QueueRunner threads with and without a Coordinator: the last thread closes the queue,
//! errors stop every thread and come back from `join` (TF_SEMANTICS §6.3-6.5).

use std::time::Duration;

use weir_graph::{Code, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::constant;
use weir_ops::data_flow::{input_ops, FifoQueue};
use weir_ops::state::Variable;
use weir_session::{RunArgs, Session, SessionHandle};
use weir_train::*;

const T: Duration = Duration::from_secs(10);
const GRACE: Duration = Duration::from_secs(5);

fn fetch(s: &SessionHandle, t: &[Output]) -> Result<Vec<Tensor>> {
    let mut a = RunArgs::new().timeout(T);
    for x in t {
        a = a.fetch(x);
    }
    s.run(&a)
}

fn strings(g: &Graph, v: &[&str]) -> Output {
    constant(g, Tensor::from_strings(v)).unwrap()
}

#[test]
fn error_in_an_enqueue_thread_stops_everything_and_join_returns_it() {
    let g = Graph::new();
    // A source of indices; index 5 is out of range for the data and fails the enqueue.
    let src = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .name("src")
        .build(&g)
        .unwrap();
    let fill = src
        .enqueue_many(&[constant(&g, vec![0i32, 1, 5]).unwrap()])
        .unwrap();
    let data = constant(&g, vec![1i32, 2]).unwrap();
    let row = input_ops::gather_row(&data, &src.dequeue().unwrap()[0], None).unwrap();
    let q = FifoQueue::new(10, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q.enqueue(&[row]).unwrap();
    add_queue_runner(&QueueRunner::new(&q, &[enq]).unwrap(), None);
    // A second, healthy pipeline that the failure must stop too.
    let other = StringInputProducer::new(strings(&g, &["x"]))
        .build()
        .unwrap();
    let other_size = other.size().unwrap();
    let one = q.dequeue().unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().target(&fill)).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    assert_eq!(
        fetch(&sess, std::slice::from_ref(&one)).unwrap()[0]
            .to_scalar::<i32>()
            .unwrap(),
        1
    );
    assert_eq!(
        fetch(&sess, std::slice::from_ref(&one)).unwrap()[0]
            .to_scalar::<i32>()
            .unwrap(),
        2
    );
    let e = fetch(&sess, &[one]).unwrap_err();
    assert!(e.is_out_of_range(), "{e}");
    assert!(coord.wait_for_stop(Some(T)));
    let e = coord.join(&threads, GRACE).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(e.message(), "indices = 5 is not in [0, 2)");
    assert!(threads.iter().all(|t| !t.is_alive()));
    let closed = fetch(&sess, &[q.is_closed().unwrap(), other.is_closed().unwrap()]).unwrap();
    assert!(closed[0].to_scalar::<bool>().unwrap());
    assert!(closed[1].to_scalar::<bool>().unwrap());
    let _ = fetch(&sess, &[other_size]).unwrap();
}

#[test]
fn skipped_local_initializer_surfaces_through_join() {
    let g = Graph::new();
    let fq = StringInputProducer::new(strings(&g, &["a"]))
        .num_epochs(1)
        .build()
        .unwrap();
    let _one = fq.dequeue().unwrap();
    let sess = Session::new(&g).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let e = coord.join(&threads, GRACE).unwrap_err();
    assert!(e.is_failed_precondition(), "{e}");
    assert_eq!(
        e.message(),
        "Attempting to use uninitialized value input_producer/limit_epochs/epochs"
    );
}

#[test]
fn runner_without_coordinator_two_threads_on_count_up_to() {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0i64).unwrap())
        .name("v")
        .build()
        .unwrap();
    let q = FifoQueue::new(10, &[DType::I64])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q.enqueue(&[v.count_up_to(3).unwrap()]).unwrap();
    let qr = QueueRunner::new(&q, &[enq.clone(), enq]).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().target(&v.initializer())).unwrap();
    let threads = qr.create_threads(&sess, None, true).unwrap();
    assert_eq!(threads.len(), 2);
    for t in &threads {
        assert!(t.join(Some(T)).unwrap());
    }
    let out = fetch(&sess, &[q.size().unwrap(), q.is_closed().unwrap()]).unwrap();
    assert_eq!(out[0].to_scalar::<i32>().unwrap(), 3);
    assert!(out[1].to_scalar::<bool>().unwrap());
    assert!(qr.exceptions_raised().is_empty());
}

#[test]
fn runner_without_coordinator_records_other_errors_and_leaves_the_queue_open() {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0i64).unwrap())
        .name("v")
        .build()
        .unwrap();
    let q = FifoQueue::new(10, &[DType::I64])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q.enqueue(&[v.value()]).unwrap();
    let qr = QueueRunner::new(&q, &[enq]).unwrap();
    let sess = Session::new(&g).unwrap();
    let threads = qr.create_threads(&sess, None, true).unwrap();
    assert!(threads[0].join(Some(T)).unwrap());
    assert!(qr.exceptions_raised()[0].is_failed_precondition());
    assert!(!fetch(&sess, &[q.is_closed().unwrap()]).unwrap()[0]
        .to_scalar::<bool>()
        .unwrap());
}

#[test]
fn create_threads_returns_nothing_while_running_and_builder_checks() {
    let g = Graph::new();
    let q = FifoQueue::new(2, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    let enq = q.enqueue(&[constant(&g, 1i32).unwrap()]).unwrap();
    assert_eq!(
        QueueRunner::new(&q, &[]).err().unwrap().message(),
        "Must provide queue and enqueue_ops."
    );
    assert!(QueueRunner::builder(&q, std::slice::from_ref(&enq))
        .queue_closed_exception_types(&[])
        .build()
        .is_err());
    let qr = QueueRunner::new(&q, &[enq]).unwrap();
    let sess = Session::new(&g).unwrap();
    let coord = Coordinator::new();
    let threads = qr.create_threads(&sess, Some(&coord), true).unwrap();
    assert_eq!(threads.len(), 2);
    assert!(qr
        .create_threads(&sess, Some(&coord), true)
        .unwrap()
        .is_empty());
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    assert!(threads.iter().all(|t| !t.is_alive()));
}
