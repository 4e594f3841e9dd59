//! FIFOQueue, PaddingFIFOQueue and RandomShuffleQueue with uint32, uint64, float16, bfloat16,
//! complex64, complex128 and bool: enqueue, enqueue_many, dequeue, dequeue_many (and a padded
//! batch) against TensorFlow 2.21, bit for bit (tests/data/dtypes, `op: "queue"`). TensorFlow
//! 2.21 copies every one of these dtypes in its batching helpers.

use serde_json::Value;
use weir_graph::{Graph, Shape};
use weir_ops::array::{constant, slice};
use weir_ops::data_flow::{FifoQueue, PaddingFifoQueue, RandomShuffleQueue};
use weir_session::Session;

use super::dtypes_util::{cases, check_each, check_outcome, spec_tensor};
use super::io_util::{element_bytes, run};

fn check(c: &Value) {
    let name = c["name"].as_str().unwrap();
    let x = spec_tensor(&c["x"]);
    let dt = x.dtype();
    let g = Graph::new();
    let xc = constant(&g, x).unwrap();
    let sess_outputs = if c["kind"] == "fifo" {
        let q = FifoQueue::new(10, &[dt])
            .shapes(&[Shape::known(&[2])])
            .build(&g)
            .unwrap();
        let enq = q.enqueue_many(&[xc]).unwrap();
        let many = q.dequeue_many(2).unwrap().remove(0);
        let one = q.dequeue().unwrap().remove(0);
        let sess = Session::new(&g).unwrap();
        sess.run_target(&enq).and_then(|_| {
            let a = run(&sess, &[&many])?;
            let b = run(&sess, &[&one])?;
            Ok(vec![a[0].clone(), b[0].clone()])
        })
    } else {
        let q = PaddingFifoQueue::new(10, &[dt], &[Shape::new(vec![None])])
            .build(&g)
            .unwrap();
        let row0 = slice(&xc, vec![0i64, 0], vec![1i64, 1]).unwrap();
        let row0 = weir_ops::array::reshape(row0, vec![1i64]).unwrap();
        let row1 = slice(&xc, vec![1i64, 0], vec![1i64, 2]).unwrap();
        let row1 = weir_ops::array::reshape(row1, vec![2i64]).unwrap();
        let (e1, e2) = (q.enqueue(&[row0]).unwrap(), q.enqueue(&[row1]).unwrap());
        let many = q.dequeue_many(2).unwrap().remove(0);
        let sess = Session::new(&g).unwrap();
        sess.run_target(&e1)
            .and_then(|_| sess.run_target(&e2))
            .and_then(|_| run(&sess, &[&many]))
    };
    check_outcome(name, c, sess_outputs);
}

#[test]
fn fifo_and_padding_queues_move_every_dtype_as_tensorflow_does() {
    check_each(&cases("queue"), check);
}

/// A RandomShuffleQueue hands back the enqueued rows (in its own order) for every dtype.
#[test]
fn random_shuffle_queue_moves_every_dtype() {
    check_each(&cases("queue"), |c| {
        if c["kind"] != "fifo" {
            return;
        }
        let x = spec_tensor(&c["x"]);
        let g = Graph::new();
        let q = RandomShuffleQueue::new(10, 0, &[x.dtype()])
            .shapes(&[Shape::known(&[2])])
            .seed(1)
            .build(&g)
            .unwrap();
        let enq = q.enqueue_many(&[constant(&g, x.clone()).unwrap()]).unwrap();
        let many = q.dequeue_many(3).unwrap().remove(0);
        let sess = Session::new(&g).unwrap();
        sess.run_target(&enq).unwrap();
        let got = run(&sess, &[&many]).unwrap().remove(0);
        assert_eq!(got.shape(), x.shape());
        let rows = |t: &weir_graph::Tensor| {
            let mut r: Vec<Vec<Vec<u8>>> = element_bytes(t).chunks(2).map(<[_]>::to_vec).collect();
            r.sort();
            r
        };
        assert_eq!(rows(&got), rows(&x), "{}", c["name"]);
    });
}
