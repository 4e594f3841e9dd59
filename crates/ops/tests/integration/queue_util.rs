//! Helpers of the queue tests: errors compared with the process-wide resource counter
//! normalised away, and bounded runs.

use std::time::Duration;

use weir_graph::{Code, Operation};
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
