//! Helpers of the TensorArray and functional-op tests: messages compared with TensorFlow's
//! with the process-wide TensorArray counter normalised away, and small fetch helpers.

use weir_graph::{Code, Output, Result, Tensor};
use weir_session::{RunArgs, Session};

/// The message with the unique TensorArray name's numbers (the node's uniquifying suffix and
/// TensorFlow's process-wide counter) replaced: `TensorArray map/TensorArray_1_19: ...` ->
/// `TensorArray map/TensorArray_N: ...`.
pub fn norm(msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("TensorArray ") else {
        return msg.to_string();
    };
    let end = rest.find([':', ' ']).unwrap_or(rest.len());
    let (name, tail) = rest.split_at(end);
    let mut base = name;
    while let Some((b, n)) = base.rsplit_once('_') {
        if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
            break;
        }
        base = b;
    }
    if base == name {
        return msg.to_string();
    }
    format!("TensorArray {base}_N{tail}")
}

/// Checks that `r` failed with `code` and (normalised) `msg`.
pub fn expect_err<T: std::fmt::Debug>(r: Result<T>, code: Code, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!(e.code(), code, "{e}");
    assert_eq!(norm(e.message()), msg, "{e}");
}

/// Runs `fetches` in a new session of their graph.
pub fn fetch_all(fetches: &[Output]) -> Result<Vec<Tensor>> {
    let s = Session::new(fetches[0].graph())?;
    let mut args = RunArgs::new();
    for f in fetches {
        args = args.fetch(f);
    }
    s.run(&args)
}

/// Runs `t` in a new session of its graph.
pub fn fetch(t: &Output) -> Result<Tensor> {
    Ok(fetch_all(std::slice::from_ref(t))?.remove(0))
}

pub fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

#[test]
fn norm_strips_the_counter() {
    assert_eq!(
        norm("TensorArray map/TensorArray_1_19: Could not"),
        "TensorArray map/TensorArray_N: Could not"
    );
    assert_eq!(
        norm("TensorArray TensorArray_7 has already been closed."),
        "TensorArray TensorArray_N has already been closed."
    );
    assert_eq!(norm("Size should be >= 0."), "Size should be >= 0.");
}
