//! `RegexReplace` and `StaticRegexReplace` (`tf.strings.regex_replace`): replaces the matches
//! of an RE2-style pattern with a rewrite string in which `\0` to `\9` insert a group and `\\`
//! is a backslash, with RE2's rules for empty matches and bad rewrites.

use parking_lot::Mutex;
use regex::bytes::{CaptureLocations, Regex};
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, AttrValue, Bytes, DType, Error, InferenceContext, Kernel,
    OpContext, OpDef, Output, Result, Tensor,
};

use super::same_shape;

fn compile(pattern: &str) -> Result<Regex> {
    super::re2::compile(pattern, false)
}

/// A piece of a parsed rewrite string.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Lit(Vec<u8>),
    Group(usize),
}

/// A rewrite string, parsed once: its pieces up to the first bad escape, whether it had one,
/// and the largest group it names (RE2 names any `\` digit pair, even after a bad escape).
#[derive(Clone, Debug)]
struct Rewrite {
    pieces: Vec<Piece>,
    valid: bool,
    max_group: usize,
}

impl Rewrite {
    fn parse(r: &[u8]) -> Rewrite {
        let mut max_group = 0;
        let mut i = 0;
        while i < r.len() {
            if r[i] == b'\\' {
                if let Some(d) = r.get(i + 1).filter(|c| c.is_ascii_digit()) {
                    max_group = max_group.max((d - b'0') as usize);
                }
                i += 1;
            }
            i += 1;
        }
        let mut pieces = Vec::new();
        let mut lit = Vec::new();
        let mut valid = true;
        let mut i = 0;
        while i < r.len() {
            if r[i] != b'\\' {
                lit.push(r[i]);
                i += 1;
                continue;
            }
            match r.get(i + 1) {
                Some(&d) if d.is_ascii_digit() => {
                    if !lit.is_empty() {
                        pieces.push(Piece::Lit(std::mem::take(&mut lit)));
                    }
                    pieces.push(Piece::Group((d - b'0') as usize));
                }
                Some(b'\\') => lit.push(b'\\'),
                _ => {
                    valid = false;
                    break;
                }
            }
            i += 2;
        }
        if !lit.is_empty() {
            pieces.push(Piece::Lit(lit));
        }
        Rewrite {
            pieces,
            valid,
            max_group,
        }
    }

    fn expand(&self, text: &[u8], locs: &CaptureLocations, out: &mut Vec<u8>) {
        for p in &self.pieces {
            match p {
                Piece::Lit(b) => out.extend_from_slice(b),
                Piece::Group(n) => {
                    if let Some((s, e)) = locs.get(*n) {
                        out.extend_from_slice(&text[s..e]);
                    }
                }
            }
        }
    }
}

/// The length of the UTF-8 character at the start of `s` (1 for a byte that starts none).
fn char_len(s: &[u8]) -> usize {
    let n = match s.first() {
        Some(0xC2..=0xDF) => 2,
        Some(0xE0..=0xEF) => 3,
        Some(0xF0..=0xF4) => 4,
        _ => return 1,
    };
    match s.get(..n) {
        Some(c) if std::str::from_utf8(c).is_ok() => n,
        _ => 1,
    }
}

/// Appends `text` with the matches of `re` replaced to `out`; false (with `out` partly
/// written) when nothing changes. Global replacement skips an empty match where the previous
/// match ended, as RE2's `GlobalReplace` does.
fn replace(re: &Regex, rw: &Rewrite, global: bool, text: &[u8], out: &mut Vec<u8>) -> bool {
    if rw.max_group >= re.captures_len() {
        // RE2 refuses a rewrite naming a group the pattern lacks.
        return false;
    }
    let mut locs = re.capture_locations();
    if !global {
        let Some(m) = re.captures_read_at(&mut locs, text, 0) else {
            return false;
        };
        if !rw.valid {
            return false;
        }
        out.extend_from_slice(&text[..m.start()]);
        rw.expand(text, &locs, out);
        out.extend_from_slice(&text[m.end()..]);
        return true;
    }
    let mut p = 0;
    let mut last_end: Option<usize> = None;
    let mut count = 0;
    while p <= text.len() {
        let Some(m) = re.captures_read_at(&mut locs, text, p) else {
            break;
        };
        out.extend_from_slice(&text[p..m.start()]);
        if m.is_empty() && last_end == Some(m.start()) {
            let n = char_len(&text[m.start()..]);
            let end = (m.start() + n).min(text.len());
            out.extend_from_slice(&text[m.start()..end]);
            p = m.start() + n;
            continue;
        }
        rw.expand(text, &locs, out);
        p = m.end();
        last_end = Some(p);
        count += 1;
    }
    if count == 0 {
        return false;
    }
    if p < text.len() {
        out.extend_from_slice(&text[p..]);
    }
    true
}

/// Replaces in every string of `t`. The new strings share one buffer; strings without a
/// match are shared with the input, not copied.
fn replace_all(t: &Tensor, re: &Regex, rw: &Rewrite, global: bool) -> Result<Tensor> {
    let strings = t.as_slice::<Bytes>()?;
    let mut buf = Vec::new();
    let mut spans = Vec::with_capacity(strings.len());
    for s in strings {
        let start = buf.len();
        if replace(re, rw, global, s, &mut buf) {
            spans.push(Some(start..buf.len()));
        } else {
            buf.truncate(start);
            spans.push(None);
        }
    }
    let all = Bytes::from(buf);
    let v: Vec<Bytes> = strings
        .iter()
        .zip(spans)
        .map(|(s, span)| span.map_or_else(|| s.clone(), |r| all.slice(r)))
        .collect();
    Tensor::from_vec(t.shape(), v)
}

/// `tf.strings.regex_replace(input, pattern, rewrite, replace_global=True)` with `pattern` and
/// `rewrite` known when building (op `StaticRegexReplace`; an invalid pattern fails here). In
/// `rewrite`, `\0` is the match, `\1` to `\9` its groups, `\\` a backslash and `$` itself.
///
/// ```
/// # use weir_graph::Graph;
/// # use weir_ops::{array::constant, string::regex_replace};
/// let g = Graph::new();
/// let s = constant(&g, ["hello world", "a b"])?;
/// let swapped = regex_replace(&s, r"(\w+) (\w+)", r"\2 \1", true)?; // ["world hello", "b a"]
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn regex_replace(
    input: impl Into<Output>,
    pattern: &str,
    rewrite: &str,
    replace_global: bool,
) -> Result<Output> {
    compile(pattern)?;
    let input = input.into();
    crate::new_op(input.graph(), "StaticRegexReplace")
        .input(input)
        .attr("pattern", pattern)
        .attr("rewrite", rewrite)
        .attr("replace_global", replace_global)
        .build()?
        .output(0)
}

/// `tf.strings.regex_replace(input, pattern, rewrite, replace_global=True)` with `pattern` and
/// `rewrite` scalar string tensors (op `RegexReplace`); the last compiled pattern is cached.
pub fn regex_replace_tensor(
    input: impl Into<Output>,
    pattern: impl Into<Output>,
    rewrite: impl Into<Output>,
    replace_global: bool,
) -> Result<Output> {
    let (input, pattern, rewrite) = (input.into(), pattern.into(), rewrite.into());
    let g = crate::util::same_graph(&[&input, &pattern, &rewrite])?.clone();
    crate::new_op(&g, "RegexReplace")
        .input(input)
        .input(pattern)
        .input(rewrite)
        .attr("replace_global", replace_global)
        .build()?
        .output(0)
}

struct StaticKernel {
    re: Regex,
    rewrite: Rewrite,
    global: bool,
}

impl Kernel for StaticKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = replace_all(ctx.input(0), &self.re, &self.rewrite, self.global)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

struct DynamicKernel {
    global: bool,
    cache: Mutex<Option<(Bytes, Regex)>>,
}

fn scalar(t: &Tensor, what: &str) -> Result<Bytes> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be scalar, but received {}",
            format_dims(t.shape())
        )));
    }
    t.to_scalar::<Bytes>()
}

impl Kernel for DynamicKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let pattern = scalar(ctx.input(1), "Pattern")?;
        let rewrite = Rewrite::parse(&scalar(ctx.input(2), "Rewrite")?);
        let re = {
            let mut cache = self.cache.lock();
            match &*cache {
                Some((cached, re)) if *cached == pattern => re.clone(),
                _ => {
                    let re = compile(&String::from_utf8_lossy(&pattern))?;
                    *cache = Some((pattern, re.clone()));
                    re
                }
            }
        };
        let out = replace_all(ctx.input(0), &re, &rewrite, self.global)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn dynamic_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    ctx.with_rank(1, 0)?;
    ctx.with_rank(2, 0)?;
    same_shape(ctx)
}

pub(super) fn register() {
    let global = || Some(AttrValue::Bool(true));
    register_op(
        OpDef::new("RegexReplace")
            .input("input", ArgType::Fixed(DType::String))
            .input("pattern", ArgType::Fixed(DType::String))
            .input("rewrite", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::String))
            .attr("replace_global", AttrKind::Bool, global())
            .shape_fn(dynamic_shape),
    );
    register_kernel("RegexReplace", |node| {
        Ok(Box::new(DynamicKernel {
            global: node.attr("replace_global")?,
            cache: Mutex::new(None),
        }))
    });
    register_op(
        OpDef::new("StaticRegexReplace")
            .input("input", ArgType::Fixed(DType::String))
            .output("output", ArgType::Fixed(DType::String))
            .attr("pattern", AttrKind::Str, None)
            .attr("rewrite", AttrKind::Str, None)
            .attr("replace_global", AttrKind::Bool, global())
            .shape_fn(same_shape),
    );
    register_kernel("StaticRegexReplace", |node| {
        Ok(Box::new(StaticKernel {
            re: compile(&node.attr::<String>("pattern")?)?,
            rewrite: Rewrite::parse(node.attr::<String>("rewrite")?.as_bytes()),
            global: node.attr("replace_global")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(text: &[u8], pattern: &str, rewrite: &str, global: bool) -> Vec<u8> {
        let re = compile(pattern).unwrap();
        let rw = Rewrite::parse(rewrite.as_bytes());
        let mut out = Vec::new();
        if replace(&re, &rw, global, text, &mut out) {
            out
        } else {
            text.to_vec()
        }
    }

    fn s(text: &str, pattern: &str, rewrite: &str) -> String {
        String::from_utf8(rep(text.as_bytes(), pattern, rewrite, true)).unwrap()
    }

    // Outputs printed by TensorFlow 2.21.
    #[test]
    fn empty_matches_follow_re2() {
        assert_eq!(s("baaac", "a*", "-"), "-b-c-");
        assert_eq!(s("abc", "", "-"), "-a-b-c-");
        assert_eq!(s("aaa", "a|", "-"), "---");
        assert_eq!(s("\u{e9}a", "x*", "-"), "-\u{e9}-a-");
        assert_eq!(rep(b"a\xffb", "", "-", true), b"-a-\xff-b-");
        assert_eq!(s("hello world", r"\b", "|"), "|hello| |world|");
        assert_eq!(s("hello\nworld", "^", "> "), "> hello\nworld");
    }

    #[test]
    fn rewrites_follow_re2() {
        assert_eq!(s("hello world", r"(\w+) (\w+)", r"\2 \1"), "world hello");
        assert_eq!(s("hello", "(l)", "$1${1}$$"), "he$1${1}$$$1${1}$$o");
        assert_eq!(s("hello", "(l)", r"\\1"), r"he\1\1o");
        assert_eq!(s("hello", "l+", r"\0\0"), "hellllo");
        assert_eq!(s("hello", "(l)|(z)", r"[\2]"), "he[][]o");
        assert_eq!(s("a.b.c", r"\.", r"\\"), r"a\b\c");
        // A group the pattern lacks: nothing is replaced.
        assert_eq!(s("hello", "(l)", r"\2"), "hello");
        assert_eq!(s("aaa", "a", r"\10"), "aaa");
        // A bad escape ends the rewrite; a single replacement is then skipped.
        assert_eq!(s("hello", "(l)", r"\x"), "heo");
        assert_eq!(s("hello", "(l)", "a\\"), "heaao");
        assert_eq!(rep(b"hello", "(l)", r"\x", false), b"hello");
        assert_eq!(rep(b"hello", "(l)", r"\1\1", false), b"helllo");
        assert_eq!(rep(b"aaa", "a", "b", false), b"baa");
    }

    #[test]
    fn bad_patterns_are_invalid_argument() {
        let e = compile("[").unwrap_err();
        assert_eq!(e.code(), weir_graph::Code::InvalidArgument);
        assert!(
            e.message().starts_with("Invalid pattern: [, error: "),
            "{e}"
        );
    }
}
