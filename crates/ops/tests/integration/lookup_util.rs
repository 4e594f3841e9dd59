//! Helpers of the lookup-table tests: bounded runs and fetches with feeds, errors compared by
//! code and message, raw table ops built as `tf.raw_ops` builds them.

use weir_graph::{Code, Operation, Output, Tensor};
use weir_session::{RunArgs, Session};

pub fn fetch(s: &Session, t: &Output) -> weir_graph::Result<Tensor> {
    Ok(s.run(&RunArgs::new().fetch(t))?.remove(0))
}

pub fn fetch_fed(
    s: &Session,
    t: &Output,
    feeds: &[(&Output, Tensor)],
) -> weir_graph::Result<Tensor> {
    let mut args = RunArgs::new().fetch(t);
    for (p, v) in feeds {
        args = args.feed(*p, v.clone());
    }
    Ok(s.run(&args)?.remove(0))
}

pub fn run(s: &Session, op: &Operation) -> weir_graph::Result<()> {
    s.run(&RunArgs::new().target(op)).map(|_| ())
}

pub fn run_fed(s: &Session, op: &Operation, feeds: &[(&Output, Tensor)]) -> weir_graph::Result<()> {
    let mut args = RunArgs::new().target(op);
    for (p, v) in feeds {
        args = args.feed(*p, v.clone());
    }
    s.run(&args).map(|_| ())
}

pub fn expect_err<T: std::fmt::Debug>(r: weir_graph::Result<T>, code: Code, msg: &str) {
    let e = r.expect_err("expected an error");
    assert_eq!((e.code(), e.message()), (code, msg), "{e}");
}

pub fn strings(t: &Tensor) -> Vec<String> {
    t.to_strings().unwrap()
}

/// The exported (key, value) pairs, sorted: TensorFlow's order is its hash map's.
pub fn sorted_pairs(keys: &Tensor, values: &Tensor) -> Vec<(String, i64)> {
    let mut p: Vec<(String, i64)> = strings(keys)
        .into_iter()
        .zip(values.to_vec::<i64>().unwrap())
        .collect();
    p.sort();
    p
}

/// A raw `LookupTableFindV2` of `keys` with `default`, as `tf.raw_ops` builds it.
pub fn raw_find(handle: &Output, keys: &Output, default: &Output) -> Output {
    handle
        .graph()
        .new_operation("LookupTableFindV2")
        .input(handle)
        .input(keys)
        .input(default)
        .build()
        .unwrap()
        .output(0)
        .unwrap()
}

pub fn raw_op(handle: &Output, op: &str, inputs: &[&Output]) -> Operation {
    weir_ops::register_all_ops();
    let mut b = handle.graph().new_operation(op).input(handle);
    for i in inputs {
        b = b.input(*i);
    }
    b.build().unwrap()
}
