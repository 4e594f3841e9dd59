//! Producers, batchers, QueueRunner and Coordinator run end to end, against TensorFlow's
//! recorded behaviour (../shared/fixtures/queue_semantics.json, TF_SEMANTICS §6).

use std::time::Duration;

use weir_graph::{graph_keys, Code, CollectionItem, DType, Graph, Output, Result, Shape, Tensor};
use weir_ops::array::{constant, placeholder};
use weir_ops::data_flow::Queue;
use weir_ops::state::local_variables_initializer;
use weir_session::{RunArgs, Session, SessionHandle};
use weir_train::*;

const T: Duration = Duration::from_secs(10);
const GRACE: Duration = Duration::from_secs(5);

fn norm(msg: &str) -> String {
    // `_123_name` -> `_N_name`, the process-wide resource counter.
    let mut out = String::new();
    let mut rest = msg;
    while let Some(i) = rest.find("'_") {
        out.push_str(&rest[..i + 2]);
        let tail = &rest[i + 2..];
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with('_') {
            out.push_str("N_");
            rest = &tail[digits + 1..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn fetch(s: &SessionHandle, t: &[Output]) -> Result<Vec<Tensor>> {
    let mut a = RunArgs::new().timeout(T);
    for x in t {
        a = a.fetch(x);
    }
    s.run(&a)
}

fn init_local(g: &Graph, s: &Session) {
    s.run(&RunArgs::new().target(&local_variables_initializer(g).unwrap()))
        .unwrap();
}

fn strings(g: &Graph, v: &[&str]) -> Output {
    constant(g, Tensor::from_strings(v)).unwrap()
}

#[test]
fn string_input_producer_two_epochs_unshuffled() {
    let g = Graph::new();
    let q = StringInputProducer::new(strings(&g, &["a", "b", "c"]))
        .num_epochs(2)
        .shuffle(false)
        .build()
        .unwrap();
    assert_eq!(q.name(), "input_producer");
    let one = q.dequeue().unwrap().remove(0);
    let size = q.size().unwrap();
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    assert_eq!(threads.len(), 2);
    assert_eq!(
        threads[0].name(),
        "QueueRunnerThread-input_producer-input_producer/input_producer_EnqueueMany"
    );
    assert_eq!(
        threads[1].name(),
        "QueueRunnerThread-input_producer-close_on_stop"
    );
    let mut got = Vec::new();
    let err = loop {
        match fetch(&sess, std::slice::from_ref(&one)) {
            Ok(v) => got.push(v[0].to_strings().unwrap()[0].clone()),
            Err(e) => break e,
        }
    };
    assert_eq!(got, vec!["a", "b", "c", "a", "b", "c"]);
    let want = "FIFOQueue '_N_input_producer' is closed and has insufficient elements (requested 1, current size 0)";
    assert_eq!(err.code(), Code::OutOfRange);
    assert_eq!(norm(err.message()), want);
    let again = fetch(&sess, &[one]).unwrap_err();
    assert_eq!(norm(again.message()), want);
    assert_eq!(
        fetch(&sess, &[size]).unwrap()[0]
            .to_scalar::<i32>()
            .unwrap(),
        0
    );
    assert!(
        !coord.should_stop(),
        "epoch exhaustion is not a coordinator stop"
    );
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
}

#[test]
fn producer_graph_names_follow_tensorflow() {
    let g = Graph::new();
    StringInputProducer::new(strings(&g, &["a"]))
        .num_epochs(1)
        .build()
        .unwrap();
    let locals = weir_ops::state::local_variables(&g).unwrap();
    assert_eq!(locals[0].name(), "input_producer/limit_epochs/epochs");
    assert!(g
        .operation_by_name("input_producer/input_producer_EnqueueMany")
        .is_some());
    let rows = SliceInputProducer::new(&[constant(&g, vec![1.0f32, 2.0]).unwrap()])
        .num_epochs(1)
        .build()
        .unwrap();
    assert_eq!(rows[0].shape(), Shape::scalar());
    let locals = weir_ops::state::local_variables(&g).unwrap();
    assert_eq!(
        locals[1].name(),
        "input_producer_1/input_producer/limit_epochs/epochs"
    );
    let x = placeholder(&g, DType::F32, Shape::known(&[3])).unwrap();
    Batch::new(std::slice::from_ref(&x), 2).build().unwrap();
    ShuffleBatch::new(&[x], 2, 100, 10).seed(7).build().unwrap();
    let summaries: Vec<String> = g
        .get_collection(graph_keys::SUMMARIES)
        .into_iter()
        .filter_map(|c| match c {
            CollectionItem::Output(o) => Some(o.name()),
            _ => None,
        })
        .collect();
    assert_eq!(
        summaries,
        vec![
            "input_producer/fraction_of_32_full:0",
            "input_producer_1/input_producer/fraction_of_32_full:0",
            "batch/fraction_of_32_full:0",
            "shuffle_batch/fraction_over_10_of_90_full:0",
        ]
    );
    let rsq = g
        .operation_by_name("shuffle_batch/random_shuffle_queue")
        .unwrap();
    assert_eq!(rsq.attr::<i64>("seed").unwrap(), 87654321);
    assert_eq!(rsq.attr::<i64>("seed2").unwrap(), 7);
    let runners = queue_runners(&g, None);
    assert_eq!(runners.len(), 4);
    assert_eq!(runners[0].enqueue_ops().len(), 1);
    assert_eq!(runners[2].name(), "batch/fifo_queue");
}

fn range_batches(allow_smaller: bool) -> (Vec<Vec<i32>>, weir_graph::Error) {
    let g = Graph::new();
    let q = InputProducer::new(constant(&g, (0..10).collect::<Vec<i32>>()).unwrap())
        .num_epochs(1)
        .shuffle(false)
        .build()
        .unwrap();
    let x = q.dequeue().unwrap().remove(0);
    let b = Batch::new(&[x], 4)
        .allow_smaller_final_batch(allow_smaller)
        .build()
        .unwrap()
        .remove(0);
    assert_eq!(b.name(), "batch:0");
    assert_eq!(b.shape().dim(0), if allow_smaller { None } else { Some(4) });
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let mut got = Vec::new();
    let err = loop {
        match fetch(&sess, std::slice::from_ref(&b)) {
            Ok(v) => got.push(v[0].to_vec::<i32>().unwrap()),
            Err(e) => break e,
        }
    };
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    (got, err)
}

#[test]
fn batch_allow_smaller_final_batch() {
    let (got, err) = range_batches(true);
    assert_eq!(got, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]]);
    assert_eq!(
        norm(err.message()),
        "FIFOQueue '_N_batch/fifo_queue' is closed and has insufficient elements (requested 4, current size 0)"
    );
}

#[test]
fn batch_drops_the_final_partial_batch() {
    let (got, err) = range_batches(false);
    assert_eq!(got, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
    assert!(err.is_out_of_range());
    // TensorFlow's log shows the dequeue that was already holding 8 and 9 when the queue
    // closed; if the close comes first, nothing is held and the whole request is reported.
    let msg = norm(err.message());
    assert!(
        msg == "FIFOQueue '_N_batch/fifo_queue' is closed and has insufficient elements (requested 2, current size 0)"
            || msg == "FIFOQueue '_N_batch/fifo_queue' is closed and has insufficient elements (requested 4, current size 2)",
        "{msg}"
    );
}

#[test]
fn shuffle_batch_drains_below_min_after_dequeue_after_close() {
    let g = Graph::new();
    let q = InputProducer::new(constant(&g, (0..10).collect::<Vec<i32>>()).unwrap())
        .num_epochs(1)
        .shuffle(false)
        .build()
        .unwrap();
    let x = q.dequeue().unwrap().remove(0);
    let b = ShuffleBatch::new(&[x], 4, 8, 3)
        .allow_smaller_final_batch(true)
        .build()
        .unwrap()
        .remove(0);
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let mut sizes = Vec::new();
    let mut all = Vec::new();
    let err = loop {
        match fetch(&sess, std::slice::from_ref(&b)) {
            Ok(v) => {
                let v = v[0].to_vec::<i32>().unwrap();
                sizes.push(v.len());
                all.extend(v);
            }
            Err(e) => break e,
        }
    };
    assert_eq!(sizes, vec![4, 4, 2]);
    all.sort();
    assert_eq!(all, (0..10).collect::<Vec<_>>());
    assert_eq!(
        norm(err.message()),
        "RandomShuffleQueue '_N_shuffle_batch/random_shuffle_queue' is closed and has insufficient elements (requested 4, current size 0)"
    );
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
}

/// TF_SEMANTICS §6.5: filenames with an epoch limit -> a 3-thread stage that exits on
/// OutOfRange (the last one closes the example queue) -> shuffle_batch drained after close ->
/// OutOfRange in the training loop -> `join` is Ok.
#[test]
fn clean_shutdown_chain_on_an_epoch_limit() {
    let g = Graph::new();
    let files: Vec<String> = (0..7).map(|i| format!("file{i}")).collect();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let fq = StringInputProducer::new(strings(&g, &refs))
        .num_epochs(3)
        .seed(5)
        .build()
        .unwrap();
    // The per-example stage: every thread takes a "file" and turns it into an example.
    let name = fq.dequeue().unwrap().remove(0);
    let b = ShuffleBatch::new(&[name], 4, 12, 6)
        .num_threads(3)
        .allow_smaller_final_batch(true)
        .build()
        .unwrap()
        .remove(0);
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    assert_eq!(threads.len(), 2 + 3 + 1);
    let mut seen: Vec<String> = Vec::new();
    let outcome = loop {
        if coord.should_stop() {
            break None;
        }
        match fetch(&sess, std::slice::from_ref(&b)) {
            Ok(v) => seen.extend(v[0].to_strings().unwrap()),
            Err(e) => break Some(e),
        }
    };
    let e = outcome.expect("the loop ends on OutOfRange, not on a coordinator stop");
    assert!(e.is_out_of_range(), "{e}");
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    seen.sort();
    let mut want: Vec<String> = files
        .iter()
        .flat_map(|f| std::iter::repeat_n(f.clone(), 3))
        .collect();
    want.sort();
    assert_eq!(seen, want);
}

#[test]
fn empty_string_tensor_fails_the_assertion() {
    let g = Graph::new();
    assert_eq!(
        StringInputProducer::new(strings(&g, &[]))
            .build()
            .unwrap_err()
            .message(),
        "string_input_producer requires a non-null input tensor"
    );
    let p = placeholder(&g, DType::String, Shape::new(vec![None])).unwrap();
    let fq = string_input_producer(p.clone()).unwrap();
    let _ = fq.dequeue().unwrap();
    let sess = Session::new(&g).unwrap();
    // Feed an empty list into the placeholder by running the runner's enqueue with a feed.
    let enq = g
        .operation_by_name("input_producer/input_producer_EnqueueMany")
        .unwrap();
    let e = sess
        .run(
            &RunArgs::new()
                .feed(&p, Tensor::from(Vec::<weir_graph::Bytes>::new()))
                .target(&enq)
                .timeout(T),
        )
        .unwrap_err();
    assert_eq!(
        e.message(),
        "assertion failed: [string_input_producer requires a non-null input tensor]"
    );
}

#[test]
fn slice_input_producer_and_batch_see_every_row_each_epoch() {
    let g = Graph::new();
    let xs = constant(
        &g,
        Tensor::from_vec(&[6, 2], (0..12).map(|v| v as f32).collect()).unwrap(),
    )
    .unwrap();
    let ys = constant(&g, (0..6).collect::<Vec<i32>>()).unwrap();
    let rows = SliceInputProducer::new(&[xs, ys])
        .num_epochs(2)
        .seed(3)
        .build()
        .unwrap();
    assert_eq!(rows[0].shape(), Shape::known(&[2]));
    let b = Batch::new(&rows, 4)
        .num_threads(2)
        .allow_smaller_final_batch(true)
        .build()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let mut labels = Vec::new();
    while let Ok(v) = fetch(&sess, &b) {
        let x = v[0].to_vec::<f32>().unwrap();
        let y = v[1].to_vec::<i32>().unwrap();
        for (i, &l) in y.iter().enumerate() {
            assert_eq!(x[2 * i], (2 * l) as f32, "features and label stay together");
        }
        labels.extend(y);
    }
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
    labels.sort();
    assert_eq!(labels, vec![0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
}

fn run_maybe(keep: Tensor, enqueue_many: bool, input: Tensor) -> Vec<i32> {
    let g = Graph::new();
    let x = constant(&g, input).unwrap();
    let k = constant(&g, keep).unwrap();
    let b = Batch::new(&[x], 1)
        .enqueue_many(enqueue_many)
        .keep_input(&k)
        .capacity(100)
        .build()
        .unwrap();
    let q = Queue::from_operation(&g.operation_by_name("batch/fifo_queue").unwrap()).unwrap();
    let enq = queue_runners(&g, None)[0].enqueue_ops()[0].clone();
    let sess = Session::new(&g).unwrap();
    sess.run(&RunArgs::new().target(&enq).timeout(T)).unwrap();
    sess.run(&RunArgs::new().target(&q.close(false).unwrap()).timeout(T))
        .unwrap();
    let mut out = Vec::new();
    while let Ok(v) = fetch(&sess, &b) {
        out.extend(v[0].to_vec::<i32>().unwrap());
    }
    out
}

#[test]
fn maybe_batch_keep_input() {
    let keep = Tensor::from(vec![true, false, true, false, true, true]);
    assert_eq!(
        run_maybe(keep, true, Tensor::from((0..6).collect::<Vec<i32>>())),
        vec![0, 2, 4, 5]
    );
    assert_eq!(
        run_maybe(Tensor::from(false), false, Tensor::from(7i32)),
        Vec::<i32>::new()
    );
    assert_eq!(
        run_maybe(Tensor::from(true), false, Tensor::from(7i32)),
        vec![7]
    );
    assert_eq!(
        run_maybe(Tensor::from(true), true, Tensor::from(vec![1i32, 2])),
        vec![1, 2]
    );
    let g = Graph::new();
    let x = constant(&g, 1i32).unwrap();
    let kv = constant(&g, vec![true]).unwrap();
    assert_eq!(
        maybe_batch(&[x], &kv, 1).unwrap_err().message(),
        "`keep_input` cannot be a vector when `enqueue_many=False`."
    );
}

#[test]
fn dynamic_pad_and_shape_errors() {
    let g = Graph::new();
    let p = placeholder(&g, DType::I32, Shape::new(vec![None])).unwrap();
    let e = batch(std::slice::from_ref(&p), 2).unwrap_err();
    // Python's repr of the shapes, as TensorFlow words it.
    assert_eq!(
        e.message(),
        "All shapes must be fully defined: [TensorShape([Dimension(None)])]"
    );
    let b = Batch::new(std::slice::from_ref(&p), 3)
        .dynamic_pad(true)
        .build()
        .unwrap()
        .remove(0);
    assert_eq!(b.shape(), Shape::new(vec![Some(3), None]));
    let enq = queue_runners(&g, None)[0].enqueue_ops()[0].clone();
    let sess = Session::new(&g).unwrap();
    for v in [vec![1i32], vec![1, 2, 3], vec![1, 2]] {
        sess.run(
            &RunArgs::new()
                .feed(&p, Tensor::from(v))
                .target(&enq)
                .timeout(T),
        )
        .unwrap();
    }
    let out = fetch(&sess, &[b]).unwrap().remove(0);
    assert_eq!(out.shape(), &[3, 3]);
    assert_eq!(
        out.to_vec::<i32>().unwrap(),
        vec![1, 0, 0, 1, 2, 3, 1, 2, 0]
    );
    let x = placeholder(&g, DType::F32, Shape::scalar()).unwrap();
    assert_eq!(
        shuffle_batch(std::slice::from_ref(&x), 2, 10, 10)
            .unwrap_err()
            .message(),
        "capacity 10 must be bigger than min_after_dequeue 10."
    );
    let y = placeholder(&g, DType::I32, Shape::scalar()).unwrap();
    let e = batch_join(&[vec![x.clone()], vec![y]], 2).unwrap_err();
    assert_eq!(
        e.message(),
        "Expected types to be consistent: float32 vs. int32."
    );
    assert_eq!(
        limit_epochs(&x, Some(0), None).unwrap_err().message(),
        "num_epochs must be > 0 not 0."
    );
    let u = placeholder(&g, DType::F32, Shape::unknown()).unwrap();
    assert!(batch(&[u], 2)
        .unwrap_err()
        .message()
        .starts_with("Cannot infer Tensor's rank"));
}

#[test]
fn limit_epochs_raises_after_n_evaluations() {
    let g = Graph::new();
    let x = constant(&g, 5i32).unwrap();
    let limited = limit_epochs(&x, Some(2), None).unwrap();
    assert_eq!(limited.name(), "limit_epochs:0");
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    fetch(&sess, std::slice::from_ref(&limited)).unwrap();
    fetch(&sess, std::slice::from_ref(&limited)).unwrap();
    let e = fetch(&sess, &[limited]).unwrap_err();
    assert!(e.is_out_of_range());
    assert_eq!(e.message(), "Reached limit of 2");
}

#[test]
fn join_variants_run_one_thread_per_entry() {
    let g = Graph::new();
    let a = constant(&g, vec![1i32, 2, 3]).unwrap();
    let b2 = constant(&g, vec![10i32, 20]).unwrap();
    let lists = vec![vec![a], vec![b2]];
    let out = BatchJoin::new(&lists, 5)
        .enqueue_many(true)
        .build()
        .unwrap()
        .remove(0);
    let sb = ShuffleBatchJoin::new(&lists, 5, 20, 2)
        .enqueue_many(true)
        .seed(1)
        .build()
        .unwrap()
        .remove(0);
    let runners = queue_runners(&g, None);
    assert_eq!(runners.len(), 2);
    assert_eq!(runners[0].enqueue_ops().len(), 2);
    assert_eq!(runners[1].enqueue_ops().len(), 2);
    let sess = Session::new(&g).unwrap();
    for qr in &runners {
        for op in qr.enqueue_ops() {
            sess.run(&RunArgs::new().target(&op).timeout(T)).unwrap();
        }
    }
    let mut v = fetch(&sess, &[out]).unwrap()[0].to_vec::<i32>().unwrap();
    v.sort();
    assert_eq!(v, vec![1, 2, 3, 10, 20]);
    sess.run(&RunArgs::new().target(&runners[1].close_op()).timeout(T))
        .unwrap();
    let mut v = fetch(&sess, &[sb]).unwrap()[0].to_vec::<i32>().unwrap();
    v.sort();
    assert_eq!(v, vec![1, 2, 3, 10, 20]);
}

#[test]
fn match_filenames_once_is_a_sorted_local_variable() {
    let dir = std::env::temp_dir().join(format!("weir_match_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["b.csv", "a.csv", "c.txt"] {
        std::fs::write(dir.join(f), b"1").unwrap();
    }
    let g = Graph::new();
    let v = match_filenames_once(&g, &format!("{}/*.csv", dir.display()), None).unwrap();
    assert_eq!(v.name(), "matching_filenames");
    let none = match_filenames_once(&g, &format!("{}/*.none", dir.display()), None).unwrap();
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let got = fetch(&sess, &[v.value(), none.value()]).unwrap();
    let d = dir.display();
    assert_eq!(
        got[0].to_strings().unwrap(),
        vec![format!("{d}/a.csv"), format!("{d}/b.csv")]
    );
    assert_eq!(got[1].shape(), &[0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `batch` and `shuffle_batch` of a dictionary give a dictionary with the same keys, each
/// batch row holding the components of one example (keys in any order).
#[test]
fn batching_a_dictionary_gives_a_dictionary() {
    let g = Graph::new();
    // Each batcher reads its own endless producer of 0..40: i, i * 10 and i as a string.
    let example = || {
        let q = RangeInputProducer::new(constant(&g, 40i32).unwrap())
            .shuffle(false)
            .build()
            .unwrap();
        let i = q.dequeue().unwrap().remove(0);
        let ten = weir_ops::math::mul(&i, constant(&g, 10i32).unwrap()).unwrap();
        let s = weir_ops::string::as_string(&i).unwrap();
        (i, ten, s)
    };
    let (i, ten, _) = example();
    let plain = Batch::from_dict(&[("x10", ten), ("i", i)], 4)
        .build_dict()
        .unwrap();
    assert_eq!(plain.keys().collect::<Vec<_>>(), ["i", "x10"]);
    assert_eq!(plain["i"].shape(), Shape::known(&[4]));
    let (i, ten, name) = example();
    let shuffled = ShuffleBatch::from_dict(&[("s", name), ("x10", ten), ("i", i)], 4, 20, 8)
        .seed(3)
        .build_dict()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let mut seen = Vec::new();
    for _ in 0..4 {
        let v = fetch(&sess, &[plain["i"].clone(), plain["x10"].clone()]).unwrap();
        let (i, x) = (v[0].to_vec::<i32>().unwrap(), v[1].to_vec::<i32>().unwrap());
        assert_eq!(x, i.iter().map(|k| k * 10).collect::<Vec<_>>());
        let v = fetch(
            &sess,
            &[
                shuffled["i"].clone(),
                shuffled["x10"].clone(),
                shuffled["s"].clone(),
            ],
        )
        .unwrap();
        let (i, x, s) = (
            v[0].to_vec::<i32>().unwrap(),
            v[1].to_vec::<i32>().unwrap(),
            v[2].to_strings().unwrap(),
        );
        assert_eq!(x, i.iter().map(|k| k * 10).collect::<Vec<_>>());
        assert_eq!(s, i.iter().map(|k| k.to_string()).collect::<Vec<_>>());
        seen.extend(i);
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 16, "{seen:?}");
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();

    let x = constant(&g, 1i32).unwrap();
    let e = Batch::new(std::slice::from_ref(&x), 2)
        .build_dict()
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = Batch::from_dict(&[("a", x.clone()), ("a", x)], 2)
        .build_dict()
        .unwrap_err();
    assert!(e.message().contains("'a' appears twice"), "{e}");
}

/// A VarLenFeature batched with a dense one (TF_SEMANTICS §6.2): the SparseTensor rides the
/// queue as a SparseTensorsMap handle and comes out with the batch row prefixed to its
/// indices and a dense shape of [batch, longest].
#[test]
fn sparse_tensors_batch_through_a_sparse_tensors_map() {
    use weir_ops::io::example::Example;
    use weir_ops::parsing::{parse_single_example, Features, FixedLenFeature, VarLenFeature};
    use weir_ops::sparse::SparseOutput;

    let g = Graph::new();
    // Example k has label k and k values 10k, 10k+1, ...
    let records: Vec<weir_graph::Bytes> = (0..6i64)
        .map(|k| {
            Example::builder()
                .int64("label", [k])
                .int64("v", (0..k).map(|j| 10 * k + j).collect::<Vec<_>>())
                .build()
                .to_bytes()
        })
        .collect();
    let q = InputProducer::new(constant(&g, Tensor::from(records)).unwrap())
        .shuffle(false)
        .num_epochs(1)
        .build()
        .unwrap();
    let ser = q.dequeue().unwrap().remove(0);
    let features = Features::new()
        .add("label", FixedLenFeature::new(&[], DType::I64))
        .add("v", VarLenFeature::new(DType::I64));
    let parsed = parse_single_example(&ser, &features).unwrap();
    let v: SparseOutput = parsed.sparse("v").unwrap().into();
    let b = Batch::new(&[parsed.dense("label").unwrap()], 3)
        .sparse(std::slice::from_ref(&v))
        .build_all()
        .unwrap();
    assert_eq!(b.dense.len(), 1);
    assert_eq!(b.sparse.len(), 1);
    assert!(Batch::new(&[parsed.dense("label").unwrap()], 3)
        .sparse(&[v])
        .build()
        .is_err());
    let sess = Session::new(&g).unwrap();
    init_local(&g, &sess);
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let sp = &b.sparse[0];
    let mut outs = Vec::new();
    for _ in 0..2 {
        let t = fetch(
            &sess,
            &[
                b.dense[0].clone(),
                sp.indices.clone(),
                sp.values.clone(),
                sp.dense_shape.clone(),
            ],
        )
        .unwrap();
        outs.push(t);
    }
    // Labels 0, 1, 2: 0 + 1 + 2 values, the longest 2.
    let t = &outs[0];
    assert_eq!(t[0].to_vec::<i64>().unwrap(), vec![0, 1, 2]);
    assert_eq!(t[1].shape(), &[3, 2]);
    assert_eq!(t[1].to_vec::<i64>().unwrap(), vec![1, 0, 2, 0, 2, 1]);
    assert_eq!(t[2].to_vec::<i64>().unwrap(), vec![10, 20, 21]);
    assert_eq!(t[3].to_vec::<i64>().unwrap(), vec![3, 2]);
    // Labels 3, 4, 5: 12 values, the longest 5.
    let t = &outs[1];
    assert_eq!(t[0].to_vec::<i64>().unwrap(), vec![3, 4, 5]);
    assert_eq!(t[3].to_vec::<i64>().unwrap(), vec![3, 5]);
    let values = t[2].to_vec::<i64>().unwrap();
    assert_eq!(values.len(), 12);
    assert_eq!(&values[..3], &[30, 31, 32]);
    assert_eq!(&values[7..], &[50, 51, 52, 53, 54]);
    let rows: Vec<i64> = t[1]
        .to_vec::<i64>()
        .unwrap()
        .chunks(2)
        .map(|c| c[0])
        .collect();
    assert_eq!(rows, [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    let e = fetch(&sess, &[b.dense[0].clone()]).unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange);
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
}

/// With enqueue_many, a sparse minibatch is stored a row at a time and batched back.
#[test]
fn a_sparse_minibatch_batches_row_by_row_with_enqueue_many() {
    use weir_ops::sparse::SparseOutput;

    let g = Graph::new();
    let i64s =
        |shape: &[usize], v: Vec<i64>| constant(&g, Tensor::from_vec(shape, v).unwrap()).unwrap();
    // Rows: 0 -> {1: 7}, 1 -> {0: 8, 2: 9}; labels 100, 101.
    let sp = SparseOutput::new(
        i64s(&[3, 2], vec![0, 1, 1, 0, 1, 2]),
        constant(&g, vec![7.0f32, 8.0, 9.0]).unwrap(),
        i64s(&[2], vec![2, 3]),
    )
    .unwrap();
    let labels = constant(&g, vec![100i32, 101]).unwrap();
    let b = ShuffleBatch::new(&[labels], 4, 20, 4)
        .enqueue_many(true)
        .seed(5)
        .sparse(&[sp])
        .build_all()
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let coord = Coordinator::new();
    let threads = start_queue_runners(&sess, &coord).unwrap();
    let s = &b.sparse[0];
    let t = fetch(
        &sess,
        &[
            b.dense[0].clone(),
            s.indices.clone(),
            s.values.clone(),
            s.dense_shape.clone(),
        ],
    )
    .unwrap();
    assert_eq!(t[3].to_vec::<i64>().unwrap(), vec![4, 3]);
    let labels = t[0].to_vec::<i32>().unwrap();
    let (idx, vals) = (t[1].to_vec::<i64>().unwrap(), t[2].to_vec::<f32>().unwrap());
    // Each batch row holds the values of the example its label names.
    for (row, label) in labels.iter().enumerate() {
        let mine: Vec<(i64, f32)> = idx
            .chunks(2)
            .zip(&vals)
            .filter(|(at, _)| at[0] == row as i64)
            .map(|(at, &v)| (at[1], v))
            .collect();
        let want = if *label == 100 {
            vec![(1, 7.0)]
        } else {
            vec![(0, 8.0), (2, 9.0)]
        };
        assert_eq!(mine, want, "row {row}, label {label}");
    }
    coord.request_stop(None).unwrap();
    coord.join(&threads, GRACE).unwrap();
}
