//! Helpers shared by the `tf_semantics_*` test binaries: runs bounded by timeouts, and error
//! messages compared with the process-wide resource counter normalised away.
// Each test binary uses a subset of these.
#![allow(dead_code)]

use std::time::Duration;

use weir::ops::data_flow::{FifoQueue, Queue};
use weir::prelude::*;
use weir::session::SessionHandle;
use weir::Code;

pub const T: Duration = Duration::from_secs(10);
pub const BLOCK: Duration = Duration::from_millis(200);

/// `'_12_q'` -> `'_N_q'`: the process-wide resource counter.
pub fn norm(msg: &str) -> String {
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

pub fn fetch(s: &SessionHandle, t: &Output) -> Result<Tensor> {
    Ok(s.run(&RunArgs::new().fetch(t).timeout(T))?.remove(0))
}

pub fn fetch_blocking(s: &SessionHandle, t: &Output) -> Result<Tensor> {
    Ok(s.run(&RunArgs::new().fetch(t).timeout(BLOCK))?.remove(0))
}

pub fn run(s: &SessionHandle, op: &Operation) -> Result<()> {
    s.run(&RunArgs::new().target(op).timeout(T)).map(|_| ())
}

pub fn queue_size(s: &SessionHandle, q: &Queue) -> i32 {
    fetch(s, &q.size().unwrap())
        .unwrap()
        .to_scalar::<i32>()
        .unwrap()
}

pub fn int_queue(g: &Graph, cap: i64) -> Queue {
    FifoQueue::new(cap, &[DType::I32])
        .shapes(&[Shape::scalar()])
        .build(g)
        .unwrap()
}

pub fn expect(r: Result<impl std::fmt::Debug>, code: Code, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!(
        (e.code(), norm(e.message()).as_str()),
        (code, msg),
        "full error: {e}"
    );
}

/// How long runner threads get to stop after `request_stop`.
pub const GRACE: Duration = Duration::from_secs(5);
