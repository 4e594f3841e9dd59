//! `tf.io.read_file` and `tf.io.write_file`: a whole file as one string scalar, and back, as
//! image pipelines read their files (`slice_input_producer` of paths, then `read_file`).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, Bytes, DType, Error, InferenceContext, Kernel, OpContext, OpDef,
    Operation, Output, Result, Shape, Tensor,
};

use super::input::open_error;

/// `tf.io.read_file(filename)` (op `ReadFile`): the contents of the file named by the string
/// scalar `filename`, as a string scalar. A missing file is NotFound naming it.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, io::{read_file, write_file}};
/// # weir_ops::register_all_ops();
/// let g = Graph::new();
/// let path = std::env::temp_dir().join(format!("weir-read-file-doc-{}", std::process::id()));
/// let name = constant(&g, Tensor::from_strings(&[path.to_str().unwrap()]).reshape(&[])?)?;
/// let write = write_file(&name, constant(&g, Tensor::from_strings(&["hi"]).reshape(&[])?)?)?;
/// let read = read_file(&name)?;
/// let sess = weir_session::Session::new(&g)?;
/// sess.run(&weir_session::RunArgs::new().target(&write))?;
/// let got = sess.run(&weir_session::RunArgs::new().fetch(&read))?;
/// assert_eq!(got[0].to_strings()?, vec!["hi"]);
/// # std::fs::remove_file(path).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn read_file(filename: impl Into<Output>) -> Result<Output> {
    let filename = filename.into();
    crate::new_op(&filename.graph().clone(), "ReadFile")
        .input(&filename)
        .build()?
        .output(0)
}

/// `tf.io.write_file(filename, contents)` (op `WriteFile`): writes the string scalar
/// `contents` to the file named by `filename`, replacing it, after creating the directories
/// it is in, as TensorFlow does.
pub fn write_file(filename: impl Into<Output>, contents: impl Into<Output>) -> Result<Operation> {
    let (filename, contents) = (filename.into(), contents.into());
    crate::new_op(&filename.graph().clone(), "WriteFile")
        .input(&filename)
        .input(&contents)
        .build()
}

/// The path in the string scalar `t`, which `what` names in the error for another shape.
fn scalar_path(t: &Tensor, what: &str) -> Result<String> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} tensor must be scalar, but had shape: {}",
            format_dims(t.shape())
        )));
    }
    Ok(String::from_utf8_lossy(&t.as_slice::<Bytes>()?[0]).into_owned())
}

struct ReadFileKernel;

impl Kernel for ReadFileKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let path = scalar_path(ctx.input(0), "Input filename")?;
        let data = std::fs::read(&path).map_err(|e| open_error(&path, &e))?;
        ctx.set_output(0, Tensor::scalar(Bytes::from(data)));
        Ok(())
    }
}

struct WriteFileKernel;

impl Kernel for WriteFileKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let path = scalar_path(ctx.input(0), "Input filename")?;
        let contents = ctx.input(1);
        if contents.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Contents tensor must be scalar, but had shape: {}",
                format_dims(contents.shape())
            )));
        }
        let data = &contents.as_slice::<Bytes>()?[0];
        if let Some(dir) = std::path::Path::new(&path).parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(|e| open_error(&dir.to_string_lossy(), &e))?;
            }
        }
        std::fs::write(&path, data).map_err(|e| open_error(&path, &e))
    }
}

fn read_file_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    ctx.set_output(0, Shape::scalar());
    Ok(())
}

fn write_file_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(0, 0)?;
    ctx.with_rank(1, 0)?;
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("ReadFile")
            .input("filename", ArgType::Fixed(DType::String))
            .output("contents", ArgType::Fixed(DType::String))
            .shape_fn(read_file_shape),
    );
    register_kernel("ReadFile", |_| Ok(Box::new(ReadFileKernel)));
    register_op(
        OpDef::new("WriteFile")
            .input("filename", ArgType::Fixed(DType::String))
            .input("contents", ArgType::Fixed(DType::String))
            .shape_fn(write_file_shape),
    );
    register_kernel("WriteFile", |_| Ok(Box::new(WriteFileKernel)));
}
