//! `RegexFullMatch` and `StaticRegexFullMatch`: whether each whole string matches an RE2-style
//! pattern (RE2's syntax, see [`super::re2`]).

use parking_lot::Mutex;
use regex::bytes::Regex;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, Bytes, DType, Error, InferenceContext, Kernel, OpContext,
    OpDef, Output, Result,
};

use super::{map_strings, same_shape};

fn compile(pattern: &str) -> Result<Regex> {
    super::re2::compile(pattern, true)
}

/// `tf.strings.regex_full_match(input, pattern)` with a pattern known when building (op
/// `StaticRegexFullMatch`, compiled once): true where the whole string matches. An invalid
/// pattern fails here with "Invalid pattern: ...".
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::regex_full_match};
/// let g = Graph::new();
/// let files = constant(&g, ["a.png", "b.jpg"])?;
/// let is_png = regex_full_match(&files, r".*\.png")?; // [true, false]
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn regex_full_match(input: impl Into<Output>, pattern: &str) -> Result<Output> {
    compile(pattern)?;
    let input = input.into();
    crate::new_op(input.graph(), "StaticRegexFullMatch")
        .input(input)
        .attr("pattern", pattern)
        .build()?
        .output(0)
}

/// `tf.strings.regex_full_match(input, pattern)` with the pattern a scalar string tensor (op
/// `RegexFullMatch`); the last compiled pattern is cached between runs.
pub fn regex_full_match_tensor(
    input: impl Into<Output>,
    pattern: impl Into<Output>,
) -> Result<Output> {
    let (input, pattern) = (input.into(), pattern.into());
    let g = crate::util::same_graph(&[&input, &pattern])?.clone();
    crate::new_op(&g, "RegexFullMatch")
        .input(input)
        .input(pattern)
        .build()?
        .output(0)
}

struct StaticKernel(Regex);

impl Kernel for StaticKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = map_strings(ctx.input(0), |s| Ok(self.0.is_match(s)))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

struct DynamicKernel {
    cache: Mutex<Option<(Bytes, Regex)>>,
}

impl Kernel for DynamicKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let p = ctx.input(1);
        if p.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "Pattern must be scalar, but received {}",
                format_dims(p.shape())
            )));
        }
        let pattern = p.to_scalar::<Bytes>()?;
        let re = {
            let mut cache = self.cache.lock();
            match &*cache {
                Some((cached, re)) if *cached == pattern => re.clone(),
                _ => {
                    let text = String::from_utf8_lossy(&pattern).into_owned();
                    let re = compile(&text)?;
                    *cache = Some((pattern, re.clone()));
                    re
                }
            }
        };
        let out = map_strings(ctx.input(0), |s| Ok(re.is_match(s)))?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn dynamic_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    same_shape(ctx)
}

pub(super) fn register() {
    register_op(
        OpDef::new("RegexFullMatch")
            .input("input", ArgType::Fixed(DType::String))
            .input("pattern", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::Bool))
            .shape_fn(dynamic_shape),
    );
    register_kernel("RegexFullMatch", |_| {
        Ok(Box::new(DynamicKernel {
            cache: Mutex::new(None),
        }))
    });
    register_op(
        OpDef::new("StaticRegexFullMatch")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::Bool))
            .attr("pattern", AttrKind::Str, None)
            .shape_fn(same_shape),
    );
    register_kernel("StaticRegexFullMatch", |node| {
        Ok(Box::new(StaticKernel(compile(
            &node.attr::<String>("pattern")?,
        )?)))
    });
}
