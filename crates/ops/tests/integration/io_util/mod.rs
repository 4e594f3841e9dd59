//! Helpers shared by the io tests: fixture paths, JSON, base64, and a small string queue
//! resource (the real queues live in another module) that readers can take work from.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, CancellationToken, DType, Error, Graph, Kernel, Monitor,
    Node, OpContext, OpDef, Output, QueueResource, Resource, ResourceHandle, Result, Shape, Tensor,
};

mod json_tensors;
pub use json_tensors::{bytes_of, source, tensor_of};

/// `../shared/fixtures` beside the repository root (or beside the folder holding a worktree).
pub fn fixtures() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let beside = root.join("../shared/fixtures");
    if beside.is_dir() {
        beside
    } else {
        root.join("../../shared/fixtures")
    }
}

/// Parses a fixture JSON file.
pub fn json(rel: &str) -> Value {
    let p = fixtures().join(rel);
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&s).unwrap()
}

/// Decodes standard base64 (with padding).
pub fn b64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 char {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        let take = chunk.len() - 1;
        for i in 0..take {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "weir-io-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
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

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Session helpers.

/// The timeout of every test run, so a hang fails loudly.
pub const LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `fetches` with [`LIMIT`] as timeout.
pub fn run(sess: &weir_session::Session, fetches: &[&Output]) -> Result<Vec<Tensor>> {
    let mut args = weir_session::RunArgs::new().timeout(LIMIT);
    for f in fetches {
        args = args.fetch(*f);
    }
    sess.run(&args)
}

/// A scalar string tensor's bytes.
pub fn scalar_bytes(t: &Tensor) -> Vec<u8> {
    t.to_scalar::<Bytes>().unwrap().to_vec()
}

/// Reads until the first error: the (key, value) pairs and the error.
pub fn drain(
    sess: &weir_session::Session,
    k: &Output,
    v: &Output,
) -> (Vec<(String, Vec<u8>)>, Error) {
    let mut out = vec![];
    for _ in 0..10_000 {
        match run(sess, &[k, v]) {
            Ok(t) => out.push((
                String::from_utf8(scalar_bytes(&t[0])).unwrap(),
                scalar_bytes(&t[1]),
            )),
            Err(e) => return (out, e),
        }
    }
    panic!("reader never stopped");
}

// ---------------------------------------------------------------------------------------------
// A test queue: a FIFO of single-component elements, closable, with blocking dequeue.

struct QState {
    items: VecDeque<Vec<Tensor>>,
    closed: bool,
}

/// A FIFO queue resource implementing [`QueueResource`], as the real FIFOQueue will.
pub struct TestQueue {
    name: String,
    dtypes: Vec<DType>,
    state: Arc<Monitor<QState>>,
}

impl Resource for TestQueue {
    fn type_name(&self) -> &str {
        "FIFOQueue"
    }
    fn as_queue(&self) -> Option<&dyn QueueResource> {
        Some(self)
    }
}

impl QueueResource for TestQueue {
    fn queue_name(&self) -> &str {
        &self.name
    }
    fn component_dtypes(&self) -> &[DType] {
        &self.dtypes
    }
    fn dequeue(
        &self,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
    ) -> Result<Vec<Tensor>> {
        let mut g = self.state.lock();
        self.state
            .wait_while(&mut g, cancel, deadline, |s| {
                s.items.is_empty() && !s.closed
            })
            .map_err(|e| {
                if e.is_cancelled() {
                    Error::cancelled("Dequeue operation was cancelled")
                } else {
                    e
                }
            })?;
        match g.items.pop_front() {
            Some(v) => Ok(v),
            None => Err(Error::out_of_range(format!(
                "FIFOQueue '{}' is closed and has insufficient elements (requested 1, current size 0)",
                self.name
            ))),
        }
    }
}

impl TestQueue {
    pub fn push(&self, item: Vec<Tensor>) {
        self.state.lock().items.push_back(item);
        self.state.notify_all();
    }
    pub fn close(&self) {
        self.state.lock().closed = true;
        self.state.notify_all();
    }
}

struct TestQueueKernel {
    name: String,
    dtypes: Vec<DType>,
    initial: Vec<String>,
    closed: bool,
}

impl Kernel for TestQueueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let q = ctx.resources().lookup_or_create_typed("", &self.name, || {
            let items = self
                .initial
                .iter()
                .map(|s| vec![Tensor::scalar(Bytes::from(s.clone()))])
                .collect();
            Ok(TestQueue {
                name: self.name.clone(),
                dtypes: self.dtypes.clone(),
                state: Monitor::new(QState {
                    items,
                    closed: self.closed,
                }),
            })
        })?;
        ctx.set_output(0, Tensor::scalar(ResourceHandle::new("", &self.name, q)));
        Ok(())
    }
}

fn make_test_queue(node: &Node) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(TestQueueKernel {
        name: node.name().to_string(),
        dtypes: node.attr("component_types")?,
        initial: node.attr("initial")?,
        closed: node.attr("closed")?,
    }))
}

fn register_test_queue() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        register_op(
            OpDef::new("TestFifoQueue")
                .output("handle", ArgType::Fixed(DType::Resource))
                .attr("component_types", AttrKind::Types, None)
                .attr("initial", AttrKind::Strs, Some(AttrValue::Strs(vec![])))
                .attr("closed", AttrKind::Bool, Some(AttrValue::Bool(false)))
                .stateful()
                .shape_fn(|ctx| {
                    ctx.set_output(0, Shape::scalar());
                    Ok(())
                }),
        );
        register_kernel("TestFifoQueue", make_test_queue);
    });
}

/// A test queue op in `g` holding `items` (filenames), closed if `closed`; its node name is the
/// queue's name in messages.
pub fn string_queue(g: &Graph, name: &str, items: &[&str], closed: bool) -> Output {
    queue_of(g, name, vec![DType::String], items, closed)
}

/// A test queue with arbitrary component dtypes (initial items are strings, for the
/// single-string case).
pub fn queue_of(g: &Graph, name: &str, dtypes: Vec<DType>, items: &[&str], closed: bool) -> Output {
    register_test_queue();
    g.new_operation("TestFifoQueue")
        .name(name)
        .attr("component_types", dtypes)
        .attr(
            "initial",
            items.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
        .attr("closed", closed)
        .build()
        .unwrap()
        .output(0)
        .unwrap()
}

/// The test queue behind a handle fetched from a session.
pub fn queue_resource(handle: &Tensor) -> Arc<TestQueue> {
    handle
        .to_scalar::<ResourceHandle>()
        .unwrap()
        .get::<TestQueue>()
        .unwrap()
}

/// The cases of `tests/data/<dir>/expected.json`, a JSON array written by the TensorFlow script
/// beside it.
pub fn expected_cases(dir: &str) -> Vec<serde_json::Value> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
        .join("expected.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Array(cases)) => cases,
        other => panic!("{}: not a JSON array: {other:?}", path.display()),
    }
}

/// A JSON list of sizes (`[2, 3]`), as the TensorFlow scripts record shapes of values.
pub fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list of sizes: {v}"))
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

/// A static shape as the TensorFlow scripts record it: a list of sizes with `null` for an
/// unknown one, or `null` (or `"unknown"`) for an unknown rank.
pub fn shape_of(v: &Value) -> Shape {
    match v {
        Value::Null => Shape::unknown(),
        Value::String(s) if s == "unknown" => Shape::unknown(),
        Value::Array(d) => Shape::new(
            d.iter()
                .map(|x| x.as_u64().map(|n| n as usize))
                .collect::<Vec<_>>(),
        ),
        other => panic!("not a shape: {other}"),
    }
}

/// Run arguments fetching `outputs` with `feeds`.
pub fn fetch_and_feed<'a>(
    outputs: impl IntoIterator<Item = &'a Output>,
    feeds: Vec<(Output, Tensor)>,
) -> weir_session::RunArgs {
    let mut args = weir_session::RunArgs::new();
    for o in outputs {
        args = args.fetch(o);
    }
    for (p, v) in feeds {
        args = args.feed(&p, v);
    }
    args
}

/// Matches one step of weir (building a case's graph, or running it) with what TensorFlow did
/// there: `Some(value)` when both succeeded; `None` when both failed (`check_error` compares the
/// errors, `want_error` being TensorFlow's); a panic naming case `name` otherwise.
pub fn expect_same_outcome<T: std::fmt::Debug>(
    name: &str,
    got: Result<T>,
    want_error: Option<&Value>,
    check_error: impl Fn(&str, &Error, &Value),
) -> Option<T> {
    match (got, want_error) {
        (Ok(v), None) => Some(v),
        (Err(e), Some(want)) => {
            check_error(name, &e, want);
            None
        }
        (Ok(v), Some(want)) => panic!("{name}: got {v:?}, TensorFlow failed with {want}"),
        (Err(e), None) => panic!("{name}: {e}"),
    }
}

/// One TensorFlow case of a graph that `build` makes (its outputs, and the feeds they need):
/// the build's outcome against `want_build` (TensorFlow's build-time error, if any), the
/// outputs' static shapes against `c["static_shapes"]`, then the run's outcome against
/// `c["error"]`, its values checked by `check_outputs`. Returns whether the case ended in an
/// error (for [`check_all_cases`]).
pub fn run_built_case(
    c: &Value,
    want_build: Option<&Value>,
    build: impl FnOnce(&Graph, &mut Vec<(Output, Tensor)>) -> Result<Vec<Output>>,
    check_error: impl Fn(&str, &Error, &Value),
    check_outputs: impl FnOnce(&str, &[Tensor]),
) -> bool {
    let name = c["name"].as_str().unwrap();
    let g = Graph::new();
    let mut feeds = Vec::new();
    let built = build(&g, &mut feeds);
    let Some(outs) = expect_same_outcome(name, built, want_build, &check_error) else {
        return true;
    };
    let shapes = c["static_shapes"].as_array().unwrap();
    assert_eq!(outs.len(), shapes.len(), "{name}: outputs");
    for (k, (o, s)) in outs.iter().zip(shapes).enumerate() {
        assert_eq!(o.shape(), shape_of(s), "{name}: static shape of output {k}");
    }
    let ran = weir_session::Session::new(&g)
        .unwrap()
        .run(&fetch_and_feed(&outs, feeds));
    match expect_same_outcome(name, ran, c.get("error"), &check_error) {
        Some(v) => {
            check_outputs(name, &v);
            false
        }
        None => true,
    }
}

/// Runs every TensorFlow case with `run_case` (which returns whether the case ended in an
/// error), reporting all the cases that differ together, and checks that exactly the cases
/// TensorFlow recorded an error for (`error` or `build_error`) ended in one, so a case that
/// stops failing is noticed.
pub fn check_all_cases(cases: &[Value], run_case: impl Fn(&Value) -> bool) {
    let mut failed = Vec::new();
    let mut errors = 0;
    for c in cases {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(c))) {
            Ok(e) => errors += usize::from(e),
            Err(_) => failed.push(c["name"].as_str().unwrap_or("?").to_string()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} cases differ: {failed:?}",
        failed.len()
    );
    let want = cases
        .iter()
        .filter(|c| c.get("error").is_some() || c.get("build_error").is_some())
        .count();
    assert_eq!(errors, want);
}

/// The dtype a TensorFlow script names (`"float32"`, `"string"`, ...).
pub fn spec_dtype(name: &str) -> DType {
    match name {
        "float32" => DType::F32,
        "float64" => DType::F64,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        "complex64" => DType::C64,
        "bool" => DType::Bool,
        "string" => DType::String,
        other => panic!("dtype {other}"),
    }
}

/// The tensor a spec (`{dtype, dims, values}`, floats as bit patterns, strings base64)
/// describes.
pub fn spec_tensor(spec: &Value) -> Tensor {
    let dims = usizes(&spec["dims"]);
    let v = spec["values"].as_array().unwrap();
    let int = |x: &Value| x.as_i64().unwrap();
    let uint = |x: &Value| x.as_u64().unwrap();
    match spec_dtype(spec["dtype"].as_str().unwrap()) {
        DType::F32 => Tensor::from_vec(
            &dims,
            v.iter().map(|x| f32::from_bits(uint(x) as u32)).collect(),
        ),
        DType::F64 => Tensor::from_vec(&dims, v.iter().map(|x| f64::from_bits(uint(x))).collect()),
        DType::I8 => Tensor::from_vec(&dims, v.iter().map(|x| int(x) as i8).collect()),
        DType::I16 => Tensor::from_vec(&dims, v.iter().map(|x| int(x) as i16).collect()),
        DType::I32 => Tensor::from_vec(&dims, v.iter().map(|x| int(x) as i32).collect()),
        DType::I64 => Tensor::from_vec(&dims, v.iter().map(int).collect()),
        DType::U8 => Tensor::from_vec(&dims, v.iter().map(|x| uint(x) as u8).collect()),
        DType::U16 => Tensor::from_vec(&dims, v.iter().map(|x| uint(x) as u16).collect()),
        DType::U32 => Tensor::from_vec(&dims, v.iter().map(|x| uint(x) as u32).collect()),
        DType::U64 => Tensor::from_vec(&dims, v.iter().map(uint).collect()),
        DType::F16 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| weir_graph::f16::from_bits(uint(x) as u16))
                .collect(),
        ),
        DType::BF16 => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| weir_graph::bf16::from_bits(uint(x) as u16))
                .collect(),
        ),
        // Complex numbers as the bit patterns of their parts, real part first.
        DType::C64 => Tensor::from_vec(
            &dims,
            v.chunks(2)
                .map(|p| {
                    weir_graph::Complex::new(
                        f32::from_bits(uint(&p[0]) as u32),
                        f32::from_bits(uint(&p[1]) as u32),
                    )
                })
                .collect(),
        ),
        DType::C128 => panic!("no complex128 specs"),
        DType::Bool => Tensor::from_vec(&dims, v.iter().map(|x| x.as_bool().unwrap()).collect()),
        DType::String => Tensor::from_vec(
            &dims,
            v.iter()
                .map(|x| Bytes::from(b64(x.as_str().unwrap())))
                .collect(),
        ),
        DType::Resource => unreachable!(),
    }
    .unwrap()
}

/// Every element's bytes (little-endian for numbers), so floats compare bit for bit.
pub fn element_bytes(t: &Tensor) -> Vec<Vec<u8>> {
    fn le<T: weir_graph::LeBytes>(t: &Tensor) -> Vec<Vec<u8>> {
        let xs = t.as_slice::<T>().unwrap();
        xs.iter()
            .map(|&x| {
                let mut b = Vec::with_capacity(T::SIZE);
                x.put(&mut b);
                b
            })
            .collect()
    }
    match t.dtype() {
        DType::String => t
            .as_slice::<Bytes>()
            .unwrap()
            .iter()
            .map(|b| b.to_vec())
            .collect(),
        dt => weir_graph::match_le_dtype!(dt, T => le::<T>(t), _ => unreachable!("{dt}")),
    }
}

/// Compares an error with a recorded `{"code", "message"}`: the code, and the message up to
/// weir's " for '<node>'" suffix (where TensorFlow's kernel message ends).
pub fn check_tf_error(name: &str, got: &weir_graph::Error, want: &Value) {
    let code = weir_graph::Code::from_proto_number(want["code"].as_i64().unwrap() as i32).unwrap();
    assert_eq!(got.code(), code, "{name}: {got}");
    let want = want["message"].as_str().unwrap();
    let got = got.message().split(" for '").next().unwrap();
    assert_eq!(got, want, "{name}");
}

/// Compares outputs with the case's recorded `"outputs"` tensor specs: dtype, shape and the
/// bytes of every element.
pub fn check_spec_outputs(name: &str, c: &Value, got: &[Tensor]) {
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{name}: outputs");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let w = spec_tensor(w);
        assert_eq!(g.dtype(), w.dtype(), "{name}: dtype of output {k}");
        assert_eq!(g.shape(), w.shape(), "{name}: shape of output {k}");
        assert_eq!(element_bytes(g), element_bytes(&w), "{name}: output {k}");
    }
}
