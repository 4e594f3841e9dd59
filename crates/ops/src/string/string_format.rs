//! `StringFormat` (`tf.strings.format`): a template whose placeholders are replaced by
//! summaries of tensors, numpy-style, as `tf.print` writes them.

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Graph, Kernel, Node, OpContext, OpDef,
    Output, Result, Shape, Tensor,
};

/// `tf.strings.format(template, inputs, placeholder="{}", summarize=3, name=None)` with its
/// options: see [`string_format`].
#[derive(Clone, Debug)]
pub struct StringFormat {
    placeholder: String,
    summarize: i64,
    name: Option<String>,
}

impl Default for StringFormat {
    fn default() -> StringFormat {
        StringFormat::new()
    }
}

impl StringFormat {
    /// TensorFlow's defaults: `{}` placeholders, three entries from each end of every dimension.
    pub fn new() -> StringFormat {
        StringFormat {
            placeholder: "{}".to_string(),
            summarize: 3,
            name: None,
        }
    }

    /// The substring of the template that each tensor replaces.
    pub fn placeholder(mut self, placeholder: &str) -> StringFormat {
        self.placeholder = placeholder.to_string();
        self
    }

    /// How many entries to show from each end of every dimension (all when negative).
    pub fn summarize(mut self, summarize: i64) -> StringFormat {
        self.summarize = summarize;
        self
    }

    /// The op's name.
    pub fn name(mut self, name: &str) -> StringFormat {
        self.name = Some(name.to_string());
        self
    }

    /// Adds the `StringFormat` op to `graph`: a scalar string. A template whose placeholder
    /// count differs from the number of tensors is InvalidArgument, worded as TensorFlow's
    /// Python wrapper words its ValueError.
    pub fn build(self, graph: &Graph, template: &str, inputs: &[Output]) -> Result<Output> {
        let expected = template.split(self.placeholder.as_str()).count() - 1;
        if expected != inputs.len() {
            return Err(Error::invalid_argument(format!(
                "The template expects {expected} tensors, but the inputs only has {}. Please \
                 ensure the number of placeholders in template matches inputs length.",
                inputs.len()
            )));
        }
        crate::new_op(graph, "StringFormat")
            .maybe_name(self.name.as_deref())
            .inputs(inputs.iter().cloned())
            .attr("template", template)
            .attr("placeholder", self.placeholder.as_str())
            .attr("summarize", self.summarize)
            .build()?
            .output(0)
    }
}

/// `tf.strings.format(template, inputs)` with TensorFlow's defaults: `template` with each `{}`
/// replaced by a summary of the next tensor (three entries from each end of every dimension).
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, string::string_format};
/// # use weir_session::Session;
/// let g = Graph::new();
/// let x = constant(&g, Tensor::from_vec(&[2, 2], vec![1.5f32, 2.0, 3.0, 4.0])?)?;
/// let s = string_format(&g, "x = {}", &[x])?;
/// let out = Session::new(&g)?.eval(&s)?;
/// assert_eq!(&out.as_slice::<weir_graph::Bytes>()?[0][..], b"x = [[1.5 2]\n [3 4]]");
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn string_format(graph: &Graph, template: &str, inputs: &[Output]) -> Result<Output> {
    StringFormat::new().build(graph, template, inputs)
}

/// The template cut at its placeholders: one more piece than there are tensors.
fn pieces(template: &str, placeholder: &str, inputs: usize) -> Result<Vec<String>> {
    let parts: Vec<String> = template.split(placeholder).map(str::to_string).collect();
    if parts.len() - 1 != inputs {
        return Err(Error::invalid_argument(format!(
            "num placeholders in template and num inputs must match: {} vs. {inputs}",
            parts.len() - 1
        )));
    }
    Ok(parts)
}

struct StringFormatKernel {
    pieces: Vec<String>,
    summarize: i64,
}

impl Kernel for StringFormatKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let mut out = self.pieces[0].clone();
        for (t, piece) in ctx.inputs().iter().zip(&self.pieces[1..]) {
            out.push_str(&t.summarize_value_v2(self.summarize));
            out.push_str(piece);
        }
        ctx.set_output(0, Tensor::scalar(Bytes::from(out.into_bytes())));
        Ok(())
    }
}

fn make(node: &Node) -> Result<Box<dyn Kernel>> {
    let template: String = node.attr("template")?;
    let placeholder: String = node.attr("placeholder")?;
    Ok(Box::new(StringFormatKernel {
        pieces: pieces(&template, &placeholder, node.inputs().len())?,
        summarize: node.attr("summarize")?,
    }))
}

pub(super) fn register() {
    register_op(
        OpDef::new("StringFormat")
            .input("inputs", ArgType::List("T"))
            .output("output", ArgType::Fixed(DType::String))
            .attr("T", AttrKind::Types, None)
            .attr("template", AttrKind::Str, Some(AttrValue::Str("%s".into())))
            .attr(
                "placeholder",
                AttrKind::Str,
                Some(AttrValue::Str("%s".into())),
            )
            .attr("summarize", AttrKind::Int, Some(AttrValue::Int(3)))
            .shape_fn(|ctx| {
                let template: String = ctx.attr("template")?;
                let placeholder: String = ctx.attr("placeholder")?;
                pieces(&template, &placeholder, ctx.num_inputs())?;
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("StringFormat", make);
}
