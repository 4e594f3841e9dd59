//! `tf.print` (logging_ops' `print_v2`): the arguments formatted by one `StringFormat` and
//! written by a `PrintV2` op each time it runs, to standard error, standard output, the log or
//! a file.

use std::io::Write;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Graph, Kernel, Node, OpContext, OpDef,
    Operation, Output, Result,
};

use crate::string::StringFormat;

/// Where `tf.print` writes: its `output_stream` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputStream {
    /// `sys.stderr` (the default).
    Stderr,
    /// `sys.stdout`.
    Stdout,
    /// `tf.compat.v1.logging.info`: standard error, with a log-line prefix.
    LogInfo,
    /// `tf.compat.v1.logging.warning`.
    LogWarning,
    /// `tf.compat.v1.logging.error`.
    LogError,
    /// `"file://<path>"`: appended to the file at `path`.
    File(String),
}

impl OutputStream {
    /// The op's `output_stream` attr value.
    fn attr(&self) -> String {
        match self {
            OutputStream::Stderr => "stderr".into(),
            OutputStream::Stdout => "stdout".into(),
            OutputStream::LogInfo => "log(info)".into(),
            OutputStream::LogWarning => "log(warning)".into(),
            OutputStream::LogError => "log(error)".into(),
            OutputStream::File(path) => format!("file://{path}"),
        }
    }

    /// The stream an attr value names; InvalidArgument with TensorFlow's message otherwise.
    fn parse(s: &str) -> Result<OutputStream> {
        Ok(match s {
            "stderr" => OutputStream::Stderr,
            "stdout" => OutputStream::Stdout,
            "log(info)" => OutputStream::LogInfo,
            "log(warning)" => OutputStream::LogWarning,
            "log(error)" => OutputStream::LogError,
            _ => match s.strip_prefix("file://") {
                Some(path) => OutputStream::File(path.to_string()),
                None => {
                    return Err(Error::invalid_argument(format!(
                        "Unknown output stream: {s}, Valid streams are: stdout stderr \
                         log(info) log(warning) log(error)"
                    )))
                }
            },
        })
    }
}

/// One argument of `tf.print`: a tensor, summarized, or text, written as it is.
#[derive(Clone, Debug)]
pub enum PrintArg {
    /// A tensor, written as [`Tensor::summarize_value_v2`](weir_graph::Tensor) shows it.
    Tensor(Output),
    /// A Python string argument.
    Text(String),
}

impl From<Output> for PrintArg {
    fn from(o: Output) -> PrintArg {
        PrintArg::Tensor(o)
    }
}

impl From<&Output> for PrintArg {
    fn from(o: &Output) -> PrintArg {
        PrintArg::Tensor(o.clone())
    }
}

impl From<&str> for PrintArg {
    fn from(s: &str) -> PrintArg {
        PrintArg::Text(s.to_string())
    }
}

impl From<String> for PrintArg {
    fn from(s: String) -> PrintArg {
        PrintArg::Text(s)
    }
}

/// `tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\n", name=None)`:
/// see [`print_v2`].
#[derive(Clone, Debug)]
pub struct PrintV2 {
    output_stream: OutputStream,
    summarize: i64,
    sep: String,
    end: String,
    name: Option<String>,
}

impl Default for PrintV2 {
    fn default() -> PrintV2 {
        PrintV2::new()
    }
}

/// The digits Python's `random.Random(5).randint(0, 9)` draws, which `tf.print` appends to
/// `{}` until the placeholder appears in none of its text arguments.
const PLACEHOLDER_DIGITS: [u8; 12] = [9, 4, 5, 8, 0, 7, 3, 0, 2, 1, 5, 7];

impl PrintV2 {
    /// TensorFlow's defaults: standard error, three entries from each end of every dimension,
    /// arguments separated by a space, a newline at the end.
    pub fn new() -> PrintV2 {
        PrintV2 {
            output_stream: OutputStream::Stderr,
            summarize: 3,
            sep: " ".into(),
            end: "\n".into(),
            name: None,
        }
    }

    /// Where to write.
    pub fn output_stream(mut self, stream: OutputStream) -> PrintV2 {
        self.output_stream = stream;
        self
    }

    /// How many entries to show from each end of every dimension (all when negative).
    pub fn summarize(mut self, summarize: i64) -> PrintV2 {
        self.summarize = summarize;
        self
    }

    /// The text between arguments.
    pub fn sep(mut self, sep: &str) -> PrintV2 {
        self.sep = sep.to_string();
        self
    }

    /// The text after the last argument.
    pub fn end(mut self, end: &str) -> PrintV2 {
        self.end = end.to_string();
        self
    }

    /// The `PrintV2` op's name (its `StringFormat` is `<name>_format`).
    pub fn name(mut self, name: &str) -> PrintV2 {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the ops to `graph` and returns the `PrintV2` op, which has no output: run it, or
    /// make it a control input of what should print.
    pub fn build(self, graph: &Graph, inputs: &[PrintArg]) -> Result<Operation> {
        let formatted = match inputs {
            // A lone scalar string tensor needs no formatting.
            [PrintArg::Tensor(t)] if t.dtype() == DType::String && t.shape().rank() == Some(0) => {
                t.clone()
            }
            _ => self.format(graph, inputs)?,
        };
        crate::new_op(graph, "PrintV2")
            .maybe_name(self.name.as_deref())
            .input(formatted)
            .attr("output_stream", self.output_stream.attr().as_str())
            .attr("end", self.end.as_str())
            .build()
    }

    /// The `StringFormat` of the arguments, with the template Python's `tf.print` builds.
    fn format(&self, graph: &Graph, inputs: &[PrintArg]) -> Result<Output> {
        // Python looks for the placeholder in the arguments' reprs, with '' for each tensor.
        let texts: Vec<String> = inputs
            .iter()
            .map(|a| match a {
                PrintArg::Tensor(_) => "''".to_string(),
                PrintArg::Text(s) => format!("'{s}'"),
            })
            .collect();
        let free = texts.join(" ");
        let mut placeholder = "{}".to_string();
        let mut digits = PLACEHOLDER_DIGITS.iter().cycle();
        while free.contains(&placeholder) {
            let d = digits.next().copied().unwrap_or(0);
            placeholder.push(char::from(b'0' + d));
        }
        let mut tensors = Vec::new();
        let template = inputs
            .iter()
            .map(|a| match a {
                PrintArg::Tensor(t) => {
                    tensors.push(t.clone());
                    placeholder.clone()
                }
                PrintArg::Text(s) => s.clone(),
            })
            .collect::<Vec<_>>()
            .join(&self.sep);
        let mut f = StringFormat::new()
            .placeholder(&placeholder)
            .summarize(self.summarize);
        if let Some(name) = &self.name {
            f = f.name(&format!("{name}_format"));
        }
        f.build(graph, &template, &tensors)
    }
}

/// `tf.print(*inputs)` with TensorFlow's defaults: each run writes the arguments to standard
/// error, separated by spaces, tensors summarized numpy-style.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, logging::{print_v2, OutputStream, PrintV2}};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let loss = constant(&g, 0.25f32)?;
/// let to_stderr = print_v2(&g, &["loss:".into(), (&loss).into()])?;
/// let path = std::env::temp_dir().join(format!("weir_print_v2_doc_{}", std::process::id()));
/// let to_file = PrintV2::new()
///     .output_stream(OutputStream::File(path.display().to_string()))
///     .build(&g, &["loss:".into(), loss.into()])?;
/// Session::new(&g)?.run_target(&to_file)?;
/// assert_eq!(std::fs::read_to_string(&path)?, "loss: 0.25\n");
/// # std::fs::remove_file(&path)?;
/// # let _ = to_stderr;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn print_v2(graph: &Graph, inputs: &[PrintArg]) -> Result<Operation> {
    PrintV2::new().build(graph, inputs)
}

struct PrintV2Kernel {
    stream: OutputStream,
    end: String,
}

impl Kernel for PrintV2Kernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let t = ctx.input(0);
        if t.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Input is expected to be scalar, but got {}",
                weir_graph::format_dims(t.shape())
            )));
        }
        let mut msg = t.as_slice::<Bytes>()?[0].to_vec();
        msg.extend_from_slice(self.end.as_bytes());
        let io = |e: std::io::Error| Error::internal(format!("tf.print could not write: {e}"));
        match &self.stream {
            OutputStream::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(&msg).and_then(|_| out.flush()).map_err(io)
            }
            OutputStream::Stderr => std::io::stderr().lock().write_all(&msg).map_err(io),
            OutputStream::LogInfo | OutputStream::LogWarning | OutputStream::LogError => {
                let level = match self.stream {
                    OutputStream::LogInfo => 'I',
                    OutputStream::LogWarning => 'W',
                    _ => 'E',
                };
                let mut line = log_prefix(level).into_bytes();
                line.extend_from_slice(&msg);
                std::io::stderr().lock().write_all(&line).map_err(io)
            }
            OutputStream::File(path) => append(path, &msg),
        }
    }
}

/// A log line's prefix as TensorFlow's logging writes it: severity, time, thread, origin.
fn log_prefix(level: char) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!(
        "{level}0000 00:00:{}.{:06} {:>7} print_v2] ",
        now.as_secs(),
        now.subsec_micros(),
        std::process::id()
    )
}

/// Appends `msg` to the file at `path`, creating it; errors name the path as TensorFlow's
/// file system does (`/dir/x.txt; No such file or directory` is NotFound).
fn append(path: &str, msg: &[u8]) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io_error(path, &e))?;
    f.write_all(msg).map_err(|e| io_error(path, &e))
}

fn io_error(path: &str, e: &std::io::Error) -> Error {
    let what = match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => e.to_string(),
    };
    let msg = format!("{path}; {what}");
    match e.kind() {
        std::io::ErrorKind::NotFound => Error::not_found(msg),
        std::io::ErrorKind::PermissionDenied => Error::permission_denied(msg),
        _ => Error::internal(msg),
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let stream: String = node.attr("output_stream")?;
    Ok(Box::new(PrintV2Kernel {
        stream: OutputStream::parse(&stream)?,
        end: node.attr("end")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("PrintV2")
            .input("input", ArgType::Fixed(DType::String))
            .attr(
                "output_stream",
                AttrKind::Str,
                Some(AttrValue::Str("stderr".into())),
            )
            .attr("end", AttrKind::Str, Some(AttrValue::Str("\n".into())))
            .stateful()
            .shape_fn(|ctx| match ctx.input_shape(0).rank() {
                Some(r) if r != 0 => Err(Error::invalid_argument(format!(
                    "input must be a scalar, but has rank: {r}"
                ))),
                _ => Ok(()),
            }),
    );
    register_kernel("PrintV2", make);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_round_trip_and_unknown_ones_are_refused() {
        for s in [
            OutputStream::Stderr,
            OutputStream::Stdout,
            OutputStream::LogInfo,
            OutputStream::LogWarning,
            OutputStream::LogError,
            OutputStream::File("/tmp/x".into()),
        ] {
            assert_eq!(OutputStream::parse(&s.attr()).unwrap(), s);
        }
        assert_eq!(
            OutputStream::parse("bogus").unwrap_err().message(),
            "Unknown output stream: bogus, Valid streams are: stdout stderr log(info) \
             log(warning) log(error)"
        );
    }
}
