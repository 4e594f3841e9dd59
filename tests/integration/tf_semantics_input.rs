//! Claims of ../shared/TF_SEMANTICS.md §6 (tf.train input helpers, batchers, QueueRunner,
//! Coordinator, LooperThread) that the other input-pipeline tests do not check, one test per
//! claim (from an audit of §1, §2 and §6). No sleeps; every blocking run has a timeout.

use std::time::Duration;

use weir::graph::CollectionItem;
use weir::ops::data_flow::{FifoQueue, Queue};
use weir::prelude::*;
use weir::train::queue_runners;
use weir::Code;

use crate::tf_semantics;

use tf_semantics::*;

fn summary_names(g: &Graph) -> Vec<String> {
    g.get_collection(graph_keys::SUMMARIES)
        .into_iter()
        .filter_map(|c| match c {
            CollectionItem::Output(o) => Some(o.name()),
            _ => None,
        })
        .collect()
}

fn summary_value_input(g: &Graph, name: &str) -> Output {
    let s = g
        .get_collection(graph_keys::SUMMARIES)
        .into_iter()
        .find_map(|c| match c {
            CollectionItem::Output(o) if o.name() == name => Some(o),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no summary {name}"));
    s.op().inputs()[1].clone()
}

/// TF_SEMANTICS l.751: limit_epochs(num_epochs=None) returns the tensor itself.
#[test]
fn s6_limit_epochs_none_returns_the_tensor() {
    let g = Graph::new();
    let x = constant(&g, 5i32).unwrap();
    let n = g.num_nodes();
    assert_eq!(limit_epochs(&x, None, None).unwrap(), x);
    assert_eq!(g.num_nodes(), n, "no new ops");
}

/// TF_SEMANTICS l.752: num_epochs <= 0 is ValueError "num_epochs must be > 0 not -1."
#[test]
fn s6_limit_epochs_negative() {
    let g = Graph::new();
    let x = constant(&g, 5i32).unwrap();
    assert_eq!(
        limit_epochs(&x, Some(-1), None).unwrap_err().message(),
        "num_epochs must be > 0 not -1."
    );
}

/// TF_SEMANTICS l.753-755: a local int64 `<scope>/epochs` (initial 0, not trainable) and an
/// Identity with a control dependency on CountUpTo.
#[test]
fn s6_limit_epochs_graph() {
    let g = Graph::new();
    let x = constant(&g, 5i32).unwrap();
    let y = limit_epochs(&x, Some(2), None).unwrap();
    let locals = local_variables(&g).unwrap();
    assert_eq!(locals.len(), 1);
    assert_eq!(locals[0].name(), "limit_epochs/epochs");
    assert_eq!(locals[0].dtype(), DType::I64);
    assert!(global_variables(&g).unwrap().is_empty());
    assert!(trainable_variables(&g).unwrap().is_empty());
    assert_eq!(y.op().op_type(), "Identity");
    let deps: Vec<String> = y
        .op()
        .control_inputs()
        .iter()
        .map(|o| o.op_type())
        .collect();
    assert_eq!(deps, vec!["CountUpTo"]);
    let sess = Session::new(&g).unwrap();
    run(&sess, &local_variables_initializer(&g).unwrap()).unwrap();
    assert_eq!(
        fetch(&sess, &locals[0].value())
            .unwrap()
            .to_scalar::<i64>()
            .unwrap(),
        0
    );
}

/// TF_SEMANTICS l.765-766: element_shape must be fully defined (ValueError).
#[test]
fn s6_input_producer_needs_a_defined_element_shape() {
    let g = Graph::new();
    let p = placeholder(&g, DType::F32, Shape::new(vec![None, None])).unwrap();
    assert!(InputProducer::new(p.clone()).build().is_err());
    InputProducer::new(p)
        .element_shape(Shape::known(&[3]))
        .build()
        .expect("element_shape completes the shape");
}

/// TF_SEMANTICS l.767-768: the shuffle re-runs on every enqueue: each epoch is a fresh
/// permutation of all elements.
#[test]
fn s6_input_producer_reshuffles_every_epoch() {
    let g = Graph::new();
    let q = InputProducer::new(constant(&g, (0..30).collect::<Vec<i32>>()).unwrap())
        .num_epochs(2)
        .capacity(64)
        .build()
        .unwrap();
    let all = q.dequeue_many(60).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    run(&sess, &local_variables_initializer(&g).unwrap()).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let v = fetch(&sess, &all).unwrap().to_vec::<i32>().unwrap();
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    let (e1, e2) = (v[..30].to_vec(), v[30..].to_vec());
    let mut s1 = e1.clone();
    s1.sort();
    let mut s2 = e2.clone();
    s2.sort();
    assert_eq!(s1, (0..30).collect::<Vec<_>>());
    assert_eq!(s2, (0..30).collect::<Vec<_>>());
    assert_ne!(e1, (0..30).collect::<Vec<_>>(), "shuffled");
    assert_ne!(e1, e2, "each epoch a fresh permutation");
}

/// TF_SEMANTICS l.769-773: FIFOQueue(capacity 32), one enqueue_many op, one QueueRunner in
/// QUEUE_RUNNERS, a summary only with summary_name, valued size * (1/capacity).
#[test]
fn s6_input_producer_graph_and_summary_value() {
    let g = Graph::new();
    let q = InputProducer::new(constant(&g, vec![1i32, 2, 3]).unwrap())
        .shuffle(false)
        .build()
        .unwrap();
    assert_eq!(q.op().op_type(), "FIFOQueueV2");
    assert_eq!(q.op().attr::<i64>("capacity").unwrap(), 32);
    assert!(
        summary_names(&g).is_empty(),
        "no summary without summary_name"
    );
    let runners = queue_runners(&g, None);
    assert_eq!(runners.len(), 1);
    assert_eq!(runners[0].enqueue_ops().len(), 1);
    assert_eq!(runners[0].enqueue_ops()[0].op_type(), "QueueEnqueueManyV2");

    let g = Graph::new();
    let q = InputProducer::new(constant(&g, vec![1i32, 2, 3]).unwrap())
        .shuffle(false)
        .capacity(8)
        .summary_name("queue_fill")
        .build()
        .unwrap();
    let names = summary_names(&g);
    assert_eq!(names, vec!["input_producer/queue_fill:0"]);
    let full = summary_value_input(&g, &names[0]);
    let enq = queue_runners(&g, None)[0].enqueue_ops()[0].clone();
    let sess = Session::new(&g).unwrap();
    run(&sess, &enq).unwrap();
    assert_eq!(queue_size(&sess, &q), 3);
    assert_eq!(
        fetch(&sess, &full).unwrap().to_scalar::<f32>().unwrap(),
        3.0 / 8.0
    );
}

/// TF_SEMANTICS l.779: string_input_producer shuffles by default.
#[test]
fn s6_string_input_producer_shuffles_by_default() {
    let g = Graph::new();
    let names: Vec<String> = (0..20).map(|i| format!("f{i:02}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let q = string_input_producer(constant(&g, Tensor::from_strings(&refs)).unwrap()).unwrap();
    let some = q.dequeue_many(20).unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let got = fetch(&sess, &some).unwrap().to_strings().unwrap();
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted, names);
    assert_ne!(got, names, "default shuffle=True");
}

/// TF_SEMANTICS l.781-783: match_filenames_once finding nothing fails string_input_producer's
/// Assert at run time.
#[test]
fn s6_match_filenames_once_with_no_match_fails_the_assert() {
    let g = Graph::new();
    let dir = std::env::temp_dir().join(format!("weir_audit2_nomatch_{}", std::process::id()));
    let v = match_filenames_once(&g, &format!("{}/*.none", dir.display()), None).unwrap();
    let q = string_input_producer(v.value()).unwrap();
    let _d = q.dequeue().unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &local_variables_initializer(&g).unwrap()).unwrap();
    let enq = queue_runners(&g, None)[0].enqueue_ops()[0].clone();
    expect(
        run(&sess, &enq),
        Code::InvalidArgument,
        "assertion failed: [string_input_producer requires a non-null input tensor]",
    );
}

/// TF_SEMANTICS l.793: range_input_producer: an int32 queue of range(limit).
#[test]
fn s6_range_input_producer_values() {
    let g = Graph::new();
    let q = RangeInputProducer::new(constant(&g, 3i32).unwrap())
        .num_epochs(1)
        .shuffle(false)
        .build()
        .unwrap();
    assert_eq!(q.dtypes(), &[DType::I32]);
    let d = q.dequeue().unwrap().remove(0);
    let sess = Session::new(&g).unwrap();
    run(&sess, &local_variables_initializer(&g).unwrap()).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let mut got = Vec::new();
    let err = loop {
        match fetch(&sess, &d) {
            Ok(v) => got.push(v.to_scalar::<i32>().unwrap()),
            Err(e) => break e,
        }
    };
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    assert_eq!(got, vec![0, 1, 2]);
    assert!(err.is_out_of_range(), "{err}");
}

/// TF_SEMANTICS l.801: slice_input_producer: an empty list is ValueError; mismatched first dims
/// are not checked.
#[test]
fn s6_slice_input_producer_empty_and_mismatched() {
    let g = Graph::new();
    assert!(slice_input_producer(&[]).is_err());
    let a = constant(&g, vec![1i32, 2, 3]).unwrap();
    let b = constant(&g, vec![1.0f32, 2.0]).unwrap();
    slice_input_producer(&[a, b]).expect("first dims are not checked");
}

/// TF_SEMANTICS l.818-829: num_threads copies of the same enqueue op; summary tags of the
/// join and maybe_ variants.
#[test]
fn s6_batcher_threads_and_summary_tags() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::known(&[3])).unwrap();
    let y = placeholder(&g, DType::F32, Shape::known(&[3])).unwrap();
    let k = placeholder(&g, DType::Bool, Shape::scalar()).unwrap();
    Batch::new(std::slice::from_ref(&x), 2)
        .num_threads(3)
        .build()
        .unwrap();
    BatchJoin::new(&[vec![x.clone()], vec![y.clone()]], 2)
        .build()
        .unwrap();
    ShuffleBatchJoin::new(&[vec![x.clone()], vec![y.clone()]], 2, 100, 10)
        .build()
        .unwrap();
    maybe_batch(std::slice::from_ref(&x), &k, 2).unwrap();
    maybe_shuffle_batch(std::slice::from_ref(&x), 2, 50, 5, &k).unwrap();
    ShuffleBatch::new(std::slice::from_ref(&x), 2, 100, 10)
        .num_threads(2)
        .build()
        .unwrap();
    let runners = queue_runners(&g, None);
    let ops = runners[0].enqueue_ops();
    assert_eq!(ops.len(), 3);
    assert!(ops.iter().all(|o| *o == ops[0]), "the same op three times");
    assert_eq!(runners[0].queue().unwrap().op().op_type(), "FIFOQueueV2");
    assert_eq!(runners[1].enqueue_ops().len(), 2);
    assert_ne!(runners[1].enqueue_ops()[0], runners[1].enqueue_ops()[1]);
    assert_eq!(
        runners[2].queue().unwrap().op().op_type(),
        "RandomShuffleQueueV2"
    );
    let ops5 = runners[5].enqueue_ops();
    assert_eq!(ops5.len(), 2);
    assert_eq!(ops5[0], ops5[1]);
    assert_eq!(
        summary_names(&g),
        vec![
            "batch/fraction_of_32_full:0",
            "batch_join/fraction_of_32_full:0",
            "shuffle_batch_join/fraction_over_10_of_90_full:0",
            "batch_1/fraction_of_32_full:0",
            "shuffle_batch/fraction_over_5_of_45_full:0",
            "shuffle_batch_1/fraction_over_10_of_90_full:0",
        ]
    );
}

/// TF_SEMANTICS l.824: the shuffle_batch summary is max(0, size - mad) / (cap - mad).
#[test]
fn s6_shuffle_batch_summary_value() {
    let g = Graph::new();
    let x = constant(&g, vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    ShuffleBatch::new(&[x], 2, 12, 4)
        .enqueue_many(true)
        .build()
        .unwrap();
    let full = summary_value_input(&g, "shuffle_batch/fraction_over_4_of_8_full:0");
    let enq = queue_runners(&g, None)[0].enqueue_ops()[0].clone();
    let sess = Session::new(&g).unwrap();
    assert_eq!(
        fetch(&sess, &full).unwrap().to_scalar::<f32>().unwrap(),
        0.0
    );
    run(&sess, &enq).unwrap();
    assert_eq!(
        fetch(&sess, &full).unwrap().to_scalar::<f32>().unwrap(),
        2.0 / 8.0
    );
}

/// TF_SEMANTICS l.833-834: with allow_smaller_final_batch the static batch dim is `?`.
#[test]
fn s6_allow_smaller_final_batch_static_dim() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::known(&[3])).unwrap();
    let b = ShuffleBatch::new(&[x], 4, 20, 2)
        .allow_smaller_final_batch(true)
        .build()
        .unwrap()
        .remove(0);
    assert_eq!(b.shape(), Shape::new(vec![None, Some(3)]));
}

/// TF_SEMANTICS l.845: explicit `shapes` override inference.
#[test]
fn s6_explicit_shapes_override_inference() {
    let g = Graph::new();
    let p = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    let b = Batch::new(&[p], 5)
        .shapes(&[Shape::known(&[2])])
        .build()
        .unwrap()
        .remove(0);
    assert_eq!(b.shape(), Shape::known(&[5, 2]));
}

/// TF_SEMANTICS l.846-847: in join variants the first entry's shape wins (the merge is
/// discarded): [None] then [2] is "All shapes must be fully defined" without dynamic_pad.
#[test]
fn s6_join_first_entry_shape_wins() {
    let g = Graph::new();
    let a = placeholder(&g, DType::F32, Shape::new(vec![None])).unwrap();
    let b = placeholder(&g, DType::F32, Shape::known(&[2])).unwrap();
    let e = batch_join(&[vec![a.clone()], vec![b.clone()]], 2).unwrap_err();
    assert!(
        e.message().starts_with("All shapes must be fully defined"),
        "{e}"
    );
    let ok = batch_join(&[vec![b], vec![a]], 2).unwrap().remove(0);
    assert_eq!(ok.shape(), Shape::known(&[2, 2]));
}

/// TF_SEMANTICS l.848-849: TypeError "Expected types to be consistent: float32 vs. int32."
#[test]
fn s6_join_dtype_message_uses_python_dtype_names() {
    let g = Graph::new();
    let x = placeholder(&g, DType::F32, Shape::scalar()).unwrap();
    let y = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let e = batch_join(&[vec![x], vec![y]], 2).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected types to be consistent: float32 vs. int32."
    );
}

/// TF_SEMANTICS l.850-854: keep_input of rank > 1 or unknown rank is ValueError.
#[test]
fn s6_keep_input_rank_checks() {
    let g = Graph::new();
    let x = constant(&g, vec![1i32, 2]).unwrap();
    let k2 = constant(&g, Tensor::from_vec(&[1, 2], vec![true, false]).unwrap()).unwrap();
    let ku = placeholder(&g, DType::Bool, Shape::unknown()).unwrap();
    assert!(Batch::new(std::slice::from_ref(&x), 1)
        .enqueue_many(true)
        .keep_input(&k2)
        .build()
        .is_err());
    assert!(Batch::new(std::slice::from_ref(&x), 1)
        .enqueue_many(true)
        .keep_input(&ku)
        .build()
        .is_err());
}

/// TF_SEMANTICS l.855-856: an allowed final batch holding one length-0 element has shape (1, 0).
#[test]
fn s6_dynamic_pad_final_batch_of_one_empty_element() {
    let g = Graph::new();
    let p = placeholder(&g, DType::I32, Shape::new(vec![None])).unwrap();
    let b = Batch::new(std::slice::from_ref(&p), 3)
        .dynamic_pad(true)
        .allow_smaller_final_batch(true)
        .build()
        .unwrap()
        .remove(0);
    let qr = &queue_runners(&g, None)[0];
    let enq = qr.enqueue_ops()[0].clone();
    let sess = Session::new(&g).unwrap();
    sess.run(
        &RunArgs::new()
            .feed(&p, Tensor::from(Vec::<i32>::new()))
            .target(&enq)
            .timeout(T),
    )
    .unwrap();
    run(&sess, &qr.close_op()).unwrap();
    assert_eq!(fetch(&sess, &b).unwrap().shape(), &[1, 0]);
}

/// TF_SEMANTICS l.870-872: queue_closed_exception_types defaults to (OutOfRange,).
#[test]
fn s6_queue_runner_default_closed_types() {
    let g = Graph::new();
    let q = int_queue(&g, 2);
    let enq = q.enqueue(&[constant(&g, 1i32).unwrap()]).unwrap();
    let qr = QueueRunner::new(&q, &[enq]).unwrap();
    assert_eq!(qr.queue_closed_exception_types(), &[Code::OutOfRange]);
    assert_eq!(qr.name(), "fifo_queue");
}

/// TF_SEMANTICS l.891-896: a custom queue_closed_exception_types ends the thread quietly and
/// the last thread closes the queue.
#[test]
fn s6_queue_runner_custom_closed_types() {
    let g = Graph::new();
    let v = Variable::builder(constant(&g, 0i64).unwrap())
        .name("v")
        .build()
        .unwrap();
    let q = FifoQueue::new(10, &[DType::I64])
        .shapes(&[Shape::scalar()])
        .build(&g)
        .unwrap();
    // The variable is never initialized: FailedPrecondition, declared a "closed" kind here.
    let enq = q.enqueue(&[v.value()]).unwrap();
    let qr = QueueRunner::builder(&q, &[enq])
        .queue_closed_exception_types(&[Code::FailedPrecondition])
        .build()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let threads = qr.create_threads(&sess, None, true).unwrap();
    assert!(threads[0].join(Some(T)).unwrap());
    assert!(qr.exceptions_raised().is_empty());
    assert!(fetch(&sess, &q.is_closed().unwrap())
        .unwrap()
        .to_scalar::<bool>()
        .unwrap());
}

/// TF_SEMANTICS l.903-905: Cancelled from enqueueing into a closed queue is not in the default
/// tuple: without a coordinator it is recorded in exceptions_raised; create_threads clears them.
#[test]
fn s6_queue_runner_cancelled_counts_as_another_exception() {
    let g = Graph::new();
    let q = int_queue(&g, 2);
    let enq = q.enqueue(&[constant(&g, 1i32).unwrap()]).unwrap();
    let qr = QueueRunner::new(&q, &[enq]).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &qr.close_op()).unwrap();
    let threads = qr.create_threads(&sess, None, true).unwrap();
    assert!(threads[0].join(Some(T)).unwrap());
    let ex = qr.exceptions_raised();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0].code(), Code::Cancelled);
    assert_eq!(
        norm(ex[0].message()),
        "FIFOQueue '_N_fifo_queue' is closed."
    );
    // A new create_threads clears exceptions_raised.
    let sess2 = Session::new(&g).unwrap();
    let coord = Coordinator::new();
    let t2 = qr.create_threads(&sess2, Some(&coord), false).unwrap();
    assert!(qr.exceptions_raised().is_empty());
    assert_eq!(t2.len(), 2);
    assert!(t2.iter().all(|t| !t.is_alive()), "start=false");
}

/// TF_SEMANTICS l.928-929: only the first exception reported before the stop flag is recorded;
/// a clean stop first means a later error is ignored.
#[test]
fn s6_coordinator_clean_stop_first_then_error_is_ignored() {
    let c = Coordinator::new();
    c.request_stop(Some(Error::out_of_range("done"))).unwrap();
    c.request_stop(Some(Error::invalid_argument("late")))
        .unwrap();
    c.join(&[], Duration::from_secs(1)).unwrap();
}

/// TF_SEMANTICS l.936: clear_stop resets the stop flag, the joined flag and the recorded error.
#[test]
fn s6_coordinator_clear_stop_after_join() {
    let c = Coordinator::new();
    c.request_stop(Some(Error::invalid_argument("first")))
        .unwrap();
    assert!(c.join(&[], Duration::from_secs(1)).is_err());
    assert!(c.joined());
    c.clear_stop();
    assert!(!c.joined());
    assert!(!c.should_stop());
    assert!(c.raise_requested_exception().is_ok());
    c.request_stop(Some(Error::not_found("again"))).unwrap();
    assert_eq!(
        c.raise_requested_exception().unwrap_err().message(),
        "again"
    );
}

/// TF_SEMANTICS l.956-959: LooperThread runs target until should_stop; an error goes to the
/// coordinator through stop_on_exception.
#[test]
fn s6_looper_thread_error_reaches_join() {
    let c = Coordinator::new();
    let mut n = 0;
    let t = LooperThread::spawn(&c, None, move || {
        n += 1;
        if n == 5 {
            Err(Error::data_loss("looper failed"))
        } else {
            Ok(())
        }
    })
    .unwrap();
    let e = c.join(&[t], GRACE).unwrap_err();
    assert_eq!((e.code(), e.message()), (Code::DataLoss, "looper failed"));
}

/// TF_SEMANTICS l.1013-1019: failure variant: a decode error in a reader thread stops the
/// coordinator, the queues are cancel-closed, and join re-raises the InvalidArgument.
#[test]
fn s6_decode_error_in_a_reader_thread_is_reraised_by_join() {
    let dir = std::env::temp_dir().join(format!("weir_audit2_csv_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    std::fs::write(&path, "1\n2\nx\n3\n").unwrap();
    let g = Graph::new();
    let files = constant(&g, Tensor::from_strings(&[path.to_str().unwrap()])).unwrap();
    let fq = StringInputProducer::new(files)
        .num_epochs(1)
        .build()
        .unwrap();
    let reader = TextLineReader::new().build(&g).unwrap();
    let (_, line) = reader.read(fq.queue_ref()).unwrap();
    let cols = decode_csv(&line, [constant(&g, vec![0i32]).unwrap()]).unwrap();
    let b = Batch::new(&cols, 10).build().unwrap().remove(0);
    let bq = Queue::from_operation(&g.operation_by_name("batch/fifo_queue").unwrap()).unwrap();
    let sess = Session::new(&g).unwrap();
    run(&sess, &local_variables_initializer(&g).unwrap()).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let outcome = loop {
        if coord.should_stop() {
            break None;
        }
        match fetch(&sess, &b) {
            Ok(_) => {}
            Err(e) => break Some(e),
        }
    };
    if let Some(e) = &outcome {
        assert!(e.is_out_of_range() || e.is_cancelled(), "{e}");
    }
    let e = coord.join(&threads, GRACE).unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (
            Code::InvalidArgument,
            "Field 0 in record 0 is not a valid int32: x"
        )
    );
    let closed = fetch(&sess, &bq.is_closed().unwrap()).unwrap();
    assert!(
        closed.to_scalar::<bool>().unwrap(),
        "closer thread cancel-closed the batch queue"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
