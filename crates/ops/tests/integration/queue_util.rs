//! Helpers of the queue tests: errors compared with the process-wide resource counter
//! normalised away, bounded runs and fetches, and a small int64 FIFO queue.

use std::time::Duration;

use weir_graph::{Code, DType, Graph, Operation, Output, Shape, Tensor};
use weir_ops::data_flow::{FifoQueue, Queue};
use weir_session::{RunArgs, SessionHandle};

/// The message with the process-wide resource counter replaced: `_12_q` -> `_N_q`.
pub fn norm(msg: &str) -> String {
    let mut out = String::new();
    let b = msg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\'' && i + 1 < b.len() && b[i + 1] == b'_' {
            let mut j = i + 2;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 2 && j < b.len() && b[j] == b'_' {
                out.push_str("'_N_");
                i = j + 1;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

pub fn expect_err(r: weir_graph::Result<impl std::fmt::Debug>, code: Code, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!(e.code(), code, "{e}");
    assert_eq!(norm(e.message()), msg, "{e}");
}

pub fn run(s: &SessionHandle, op: &Operation) -> weir_graph::Result<()> {
    s.run(&RunArgs::new().target(op).timeout(Duration::from_secs(10)))
        .map(|_| ())
}

/// How long a test waits to see that an op blocks.
pub const BLOCK: Duration = Duration::from_millis(150);

pub fn fetch(s: &SessionHandle, t: &Output) -> weir_graph::Result<Tensor> {
    Ok(
        s.run(&RunArgs::new().fetch(t).timeout(Duration::from_secs(10)))?
            .remove(0),
    )
}

pub fn fetch_blocking(s: &SessionHandle, t: &Output) -> weir_graph::Result<Tensor> {
    Ok(s.run(&RunArgs::new().fetch(t).timeout(BLOCK))?.remove(0))
}

pub fn size(s: &SessionHandle, q: &Queue) -> i32 {
    fetch(s, &q.size().unwrap())
        .unwrap()
        .to_scalar::<i32>()
        .unwrap()
}

pub fn i64s(t: &Tensor) -> Vec<i64> {
    t.to_vec::<i64>().unwrap()
}

pub fn int_queue(g: &Graph, cap: i64) -> Queue {
    FifoQueue::new(cap, &[DType::I64])
        .shapes(&[Shape::scalar()])
        .build(g)
        .unwrap()
}
