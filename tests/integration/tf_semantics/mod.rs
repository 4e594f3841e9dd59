//! Helpers shared by the `tf_semantics_*` test modules: runs bounded by timeouts, and error
//! messages compared with the process-wide resource counter normalised away.

use std::path::PathBuf;
use std::time::Duration;

use weir::ops::data_flow::{FifoQueue, Queue};
use weir::ops::io::RecordWriter;
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

/// A scratch directory removed on drop.
pub struct Tmp(PathBuf);

impl Tmp {
    pub fn new(tag: &str) -> Tmp {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "weir-tf-semantics-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
    pub fn file(&self, name: &str, data: &[u8]) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p.to_string_lossy().into_owned()
    }
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A real FIFOQueue of scalar strings named `name`, plus an op enqueueing `items` (None when
/// empty) and a close op.
pub fn string_fifo(g: &Graph, name: &str, items: &[&str]) -> (Queue, Option<Operation>, Operation) {
    let q = FifoQueue::new(100, &[DType::String])
        .shapes(&[Shape::scalar()])
        .name(name)
        .build(g)
        .unwrap();
    let enq = if items.is_empty() {
        None
    } else {
        Some(
            q.enqueue_many(&[constant(g, Tensor::from_strings(items)).unwrap()])
                .unwrap(),
        )
    };
    let close = q.close(false).unwrap();
    (q, enq, close)
}

/// Fills and closes the queue in `sess`.
pub fn fill_and_close(sess: &Session, enq: &Option<Operation>, close: &Operation) {
    if let Some(e) = enq {
        run(sess, e).unwrap();
    }
    run(sess, close).unwrap();
}

pub fn scalar_str(t: &Tensor) -> String {
    String::from_utf8(t.to_scalar::<Bytes>().unwrap().to_vec()).unwrap()
}

pub fn fetch2(sess: &Session, a: &Output, b: &Output) -> Result<(Tensor, Tensor)> {
    let mut v = sess.run(&RunArgs::new().fetch(a).fetch(b).timeout(T))?;
    let y = v.pop().unwrap();
    let x = v.pop().unwrap();
    Ok((x, y))
}

pub fn i64_of(sess: &Session, o: &Output) -> i64 {
    fetch(sess, o).unwrap().to_scalar::<i64>().unwrap()
}

pub fn framed(records: &[&[u8]], c: Compression) -> Vec<u8> {
    let mut w = RecordWriter::new(Vec::new(), c).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.into_inner().unwrap()
}

pub fn err_of<T: std::fmt::Debug>(r: Result<T>) -> Error {
    r.expect_err("expected an error")
}

/// `e` is DataLoss in TensorFlow's words `tf`, then weir's detail and the file it names (the
/// project's rule: a corrupt file's error names the file and offset).
pub fn tf_words_then_file(e: &Error, tf: &str, path: &str) {
    assert_eq!(e.code(), Code::DataLoss, "full error: {e}");
    let m = e.message();
    assert!(m.starts_with(tf), "{m:?} does not start with TF's {tf:?}");
    assert!(
        m.ends_with(&format!("in \"{path}\"")),
        "{m:?} does not name {path}"
    );
}
