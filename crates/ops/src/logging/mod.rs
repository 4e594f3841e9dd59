//! `Print` (TensorFlow's `tf.Print`, logging_ops): passes its input through and writes a line
//! of tensor values to standard error each time it runs; and `tf.print` ([`print_v2`]), its
//! successor, which formats its arguments numpy-style and can write to other streams.

mod print_v2;
mod timestamp;

pub use print_v2::{print_v2, OutputStream, PrintArg, PrintV2};
pub use timestamp::timestamp;

use std::sync::atomic::{AtomicI64, Ordering};

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, DType, Kernel, OpContext, OpDef, Output, Result, Tensor,
};

/// `tf.Print(input_, data, message, first_n, summarize)` with its options; see [`print()`].
#[derive(Clone, Debug)]
pub struct Print {
    message: String,
    first_n: i64,
    summarize: i64,
    name: Option<String>,
}

impl Default for Print {
    fn default() -> Print {
        Print::new()
    }
}

impl Print {
    /// TensorFlow's defaults: no message, every run, 3 values of each tensor.
    pub fn new() -> Print {
        Print {
            message: String::new(),
            first_n: -1,
            summarize: 3,
            name: None,
        }
    }

    /// The text before the values.
    pub fn message(mut self, message: &str) -> Print {
        self.message = message.to_string();
        self
    }

    /// Writes only the first `first_n` times the op runs (every time when negative).
    pub fn first_n(mut self, first_n: i64) -> Print {
        self.first_n = first_n;
        self
    }

    /// How many values of each tensor to write (all when negative).
    pub fn summarize(mut self, summarize: i64) -> Print {
        self.summarize = summarize;
        self
    }

    /// The op's name.
    pub fn name(mut self, name: &str) -> Print {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `Print` op: `input` unchanged, once `data` is written.
    pub fn build(self, input: &Output, data: &[Output]) -> Result<Output> {
        crate::new_op(input.graph(), "Print")
            .maybe_name(self.name.as_deref())
            .input(input)
            .inputs(data.iter().cloned())
            .attr("message", self.message.as_str())
            .attr("first_n", self.first_n)
            .attr("summarize", self.summarize)
            .build()?
            .output(0)
    }
}

/// `tf.Print(input_, data)` with TensorFlow's defaults: `input` unchanged; each run writes the
/// values of `data` to standard error, as `[1 2 3...][...]`.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, logging::{print, Print}};
/// let g = Graph::new();
/// let x = constant(&g, [3.0f32, 2.0])?;
/// let same = print(&x, &[x.clone()])?;
/// let first_two = Print::new().message("x: ").first_n(2).build(&x, &[x.clone()])?;
/// assert_eq!(same.dtype(), first_two.dtype());
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn print(input: &Output, data: &[Output]) -> Result<Output> {
    Print::new().build(input, data)
}

/// The line `Print` writes: the message, then each tensor's first values in brackets.
fn line(message: &str, data: &[Tensor], summarize: i64) -> String {
    let mut s = message.to_string();
    for t in data {
        s.push('[');
        s.push_str(&t.summarize_value(summarize));
        s.push(']');
    }
    s
}

struct PrintKernel {
    message: String,
    first_n: i64,
    summarize: i64,
    /// Runs so far that wrote, counted only when `first_n` limits them.
    written: AtomicI64,
    sink: fn(&str),
}

fn to_stderr(line: &str) {
    eprintln!("{line}");
}

impl Kernel for PrintKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let write = self.first_n < 0
            || self
                .written
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                    (n < self.first_n).then_some(n + 1)
                })
                .is_ok();
        if write {
            (self.sink)(&line(&self.message, &ctx.inputs()[1..], self.summarize));
        }
        let input = ctx.take_input(0);
        ctx.set_output(0, input);
        Ok(())
    }
}

/// Registers this family's ops and kernels.
pub(crate) fn register_all_ops() {
    print_v2::register();
    timestamp::register();
    register_op(
        OpDef::new("Print")
            .input("input", ArgType::Attr("T"))
            .input("data", ArgType::List("U"))
            .output("output", ArgType::Attr("T"))
            .type_attr("T", DType::ALL)
            .attr("U", AttrKind::Types, None)
            .attr(
                "message",
                AttrKind::Str,
                Some(AttrValue::Str(String::new())),
            )
            .attr("first_n", AttrKind::Int, Some(AttrValue::Int(-1)))
            .attr("summarize", AttrKind::Int, Some(AttrValue::Int(3)))
            .stateful()
            .shape_fn(|ctx| {
                let s = ctx.input_shape(0).clone();
                ctx.set_output(0, s);
                Ok(())
            }),
    );
    register_kernel("Print", |node| {
        Ok(Box::new(PrintKernel {
            message: node.attr("message")?,
            first_n: node.attr("first_n")?,
            summarize: node.attr("summarize")?,
            written: AtomicI64::new(0),
            sink: to_stderr,
        }))
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use weir_graph::{CancellationToken, Graph, ResourceManager};

    use super::*;

    static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn capture(line: &str) {
        LINES.lock().unwrap().push(line.to_string());
    }

    #[test]
    fn writes_tensorflows_line_for_the_first_n_runs_and_passes_the_input_on() {
        // TensorFlow 2.21, tf.Print(w, [w, ["a", "b"], range(10)], "msg: ", first_n=2,
        // summarize=4) run three times, wrote "msg: [3 2][a b][0 1 2 3...]" twice.
        crate::register_all_ops();
        let g = Graph::new();
        let w = crate::array::constant(&g, [3.0f32, 2.0]).unwrap();
        let data = [
            w.clone(),
            crate::array::constant(&g, Tensor::from(vec!["a", "b"])).unwrap(),
            crate::array::constant(&g, (0..10).collect::<Vec<i64>>()).unwrap(),
        ];
        let out = Print::new()
            .message("msg: ")
            .first_n(2)
            .summarize(4)
            .build(&w, &data)
            .unwrap();
        let node = out.op().node();
        let kernel = PrintKernel {
            message: node.attr("message").unwrap(),
            first_n: node.attr("first_n").unwrap(),
            summarize: node.attr("summarize").unwrap(),
            written: AtomicI64::new(0),
            sink: capture,
        };
        let values = [
            Tensor::from(vec![3.0f32, 2.0]),
            Tensor::from(vec!["a", "b"]),
            Tensor::from((0..10).collect::<Vec<i64>>()),
        ];
        let (resources, token) = (ResourceManager::new(), CancellationToken::new());
        for _ in 0..3 {
            let mut inputs: Vec<Tensor> = std::iter::once(values[0].clone())
                .chain(values.iter().cloned())
                .collect();
            let mut outputs = vec![None];
            let mut ctx =
                OpContext::new(&node, &mut inputs, &mut outputs, &resources, &token, None);
            kernel.compute(&mut ctx).unwrap();
            assert_eq!(
                outputs[0].as_ref().unwrap().to_vec::<f32>().unwrap(),
                [3.0, 2.0]
            );
        }
        assert_eq!(
            *LINES.lock().unwrap(),
            ["msg: [3 2][a b][0 1 2 3...]", "msg: [3 2][a b][0 1 2 3...]"]
        );
    }
}
