//! The `checkpoint` state file of a checkpoint directory: TensorFlow's `CheckpointState` proto
//! in protobuf text format, as `tf.compat.v1.train.Saver` and `tf.train.CheckpointManager`
//! write it:
//!
//! ```text
//! model_checkpoint_path: "model.ckpt-300"
//! all_model_checkpoint_paths: "model.ckpt-200"
//! all_model_checkpoint_paths: "model.ckpt-300"
//! all_model_checkpoint_timestamps: 1795704999.4511669
//! all_model_checkpoint_timestamps: 1795705011.1256373
//! last_preserved_timestamp: 1795704998.4203842
//! ```
//!
//! Strings are escaped as Python's `text_format` escapes them (`\"`, `\\`, `\n`, octal for
//! other bytes outside printable ASCII). The reader takes what TensorFlow's text parser takes
//! for this message: either quote, adjacent strings, C escapes, `#` comments, `[a, b]` lists.

use std::path::{Path, PathBuf};

use weir_graph::{Error, Result};

/// The name of the state file in a checkpoint directory.
pub const STATE_FILE: &str = "checkpoint";

/// TensorFlow's `CheckpointState`: the newest checkpoint of a directory and those kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckpointState {
    /// The newest checkpoint's path (as written: relative to the directory when inside it).
    pub model_checkpoint_path: String,
    /// Every kept checkpoint, oldest first, the newest last.
    pub all_model_checkpoint_paths: Vec<String>,
    /// When each kept checkpoint was written, in seconds since the Unix epoch (written by
    /// TensorFlow 2's `CheckpointManager`; empty from `Saver`s).
    pub all_model_checkpoint_timestamps: Vec<f64>,
    /// When the last checkpoint kept for good (`keep_checkpoint_every_n_hours`) was written;
    /// 0 when unset.
    pub last_preserved_timestamp: f64,
}

/// Python `text_format`'s string escaping (`CEscape` with `as_utf8=False`).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            32..=126 => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// A double as Python's `str(float)` prints it (the shortest repr that reads back).
fn python_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Python: mantissa, 'e', sign, at least two exponent digits.
        let s = format!("{v:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        return format!("{mant}e{sign}{digits:0>2}");
    }
    let s = format!("{v}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The tokens of protobuf text format this message needs.
#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(Vec<u8>),
    Punct(char),
}

/// Undoes C escapes in a quoted string's body; `None` for a malformed escape.
fn unescape(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let e = *body.get(i)?;
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'\\' | b'\'' | b'"' | b'?' => out.push(e),
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match body.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(u8::try_from(v).ok()?);
            }
            b'x' | b'X' => {
                let mut v = 0u32;
                let start = i;
                while i < body.len() && i < start + 2 && body[i].is_ascii_hexdigit() {
                    v = v * 16 + (body[i] as char).to_digit(16)?;
                    i += 1;
                }
                if i == start {
                    return None;
                }
                out.push(v as u8);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Splits `text` into tokens; `None` on anything TensorFlow's text parser would reject here.
fn tokenize(text: &str) -> Option<Vec<Token>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'"' || c == b'\'' {
            let start = i + 1;
            i = start;
            while i < b.len() && b[i] != c {
                if b[i] == b'\n' {
                    return None;
                }
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() {
                return None;
            }
            let s = unescape(&b[start..i])?;
            i += 1;
            // Adjacent string literals are one string.
            match out.last_mut() {
                Some(Token::Str(prev)) => prev.extend_from_slice(&s),
                _ => out.push(Token::Str(s)),
            }
        } else if c.is_ascii_alphanumeric() || b"_-+.".contains(&c) {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_-+.".contains(&b[i])) {
                i += 1;
            }
            out.push(Token::Ident(text[start..i].to_string()));
        } else if b":,;[]".contains(&c) {
            out.push(Token::Punct(c as char));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

fn parse_double(s: &str) -> Option<f64> {
    let t = s.strip_suffix(['f', 'F']).unwrap_or(s);
    match t.to_ascii_lowercase().as_str() {
        "inf" | "infinity" | "+inf" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" | "-nan" | "+nan" => Some(f64::NAN),
        _ => t.parse().ok(),
    }
}

impl CheckpointState {
    /// The text Python's `text_format.MessageToString` writes for this state.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if !self.model_checkpoint_path.is_empty() {
            s.push_str(&format!(
                "model_checkpoint_path: {}\n",
                quote(&self.model_checkpoint_path)
            ));
        }
        for p in &self.all_model_checkpoint_paths {
            s.push_str(&format!("all_model_checkpoint_paths: {}\n", quote(p)));
        }
        for t in &self.all_model_checkpoint_timestamps {
            s.push_str(&format!(
                "all_model_checkpoint_timestamps: {}\n",
                python_float(*t)
            ));
        }
        if self.last_preserved_timestamp != 0.0 {
            s.push_str(&format!(
                "last_preserved_timestamp: {}\n",
                python_float(self.last_preserved_timestamp)
            ));
        }
        s
    }

    /// Parses the state file's text (fields in any order, a repeated singular field keeping
    /// its last value, as `text_format.Merge` does); `None` when it is not a `CheckpointState`
    /// in text format. An empty `model_checkpoint_path` parses; callers decide what it means.
    pub fn parse(text: &str) -> Option<CheckpointState> {
        let tokens = tokenize(text)?;
        let mut st = CheckpointState::default();
        let mut it = tokens.into_iter().peekable();
        while let Some(tok) = it.next() {
            let Token::Ident(field) = tok else {
                return None;
            };
            // Scalar fields take `:`; a list value `[a, b]` is allowed for repeated ones.
            it.next_if_eq(&Token::Punct(':'))?;
            let list = it.next_if_eq(&Token::Punct('[')).is_some();
            let mut values = Vec::new();
            loop {
                if list && values.is_empty() && it.next_if_eq(&Token::Punct(']')).is_some() {
                    break;
                }
                values.push(it.next()?);
                if !list {
                    break;
                }
                match it.next()? {
                    Token::Punct(',') => {}
                    Token::Punct(']') => break,
                    _ => return None,
                }
            }
            let string = |t: Token| match t {
                Token::Str(b) => String::from_utf8(b).ok(),
                _ => None,
            };
            let double = |t: Token| match t {
                Token::Ident(s) => parse_double(&s),
                _ => None,
            };
            match field.as_str() {
                "model_checkpoint_path" if !list => {
                    st.model_checkpoint_path = string(values.pop()?)?;
                }
                "last_preserved_timestamp" if !list => {
                    st.last_preserved_timestamp = double(values.pop()?)?;
                }
                "all_model_checkpoint_paths" => {
                    for v in values {
                        st.all_model_checkpoint_paths.push(string(v)?);
                    }
                }
                "all_model_checkpoint_timestamps" => {
                    for v in values {
                        st.all_model_checkpoint_timestamps.push(double(v)?);
                    }
                }
                _ => return None,
            }
            // Fields may be separated by `,` or `;`.
            let _ = it.next_if(|t| matches!(t, Token::Punct(',' | ';')));
        }
        Some(st)
    }
}

/// A checkpoint path as the state file of `dir` records it: relative when inside `dir`.
pub(crate) fn relative_to(dir: &Path, path: &str) -> String {
    Path::new(path)
        .strip_prefix(dir)
        .ok()
        .and_then(|p| p.to_str())
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| path.to_string())
}

/// A path from the state file of `dir` made usable: relative ones are joined to `dir`.
fn resolve(dir: &Path, p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() {
        p.to_string()
    } else {
        dir.join(path).to_string_lossy().into_owned()
    }
}

/// Writes the state file of `dir` atomically (a temporary file renamed over it).
pub(crate) fn write_state(dir: &Path, state: &CheckpointState) -> Result<()> {
    let path = dir.join(STATE_FILE);
    let tmp: PathBuf = dir.join(format!("{STATE_FILE}.tmp{}", std::process::id()));
    let fail = |e: std::io::Error| -> Error {
        let e: Error = e.into();
        e.with_prefix(&format!("Failed to write {}: ", path.display()))
    };
    std::fs::write(&tmp, state.to_text()).map_err(fail)?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

/// `tf.train.get_checkpoint_state(checkpoint_dir)`: the state of `dir` with its paths made
/// usable (relative ones joined to `dir`); `None` when there is no state file or it does not
/// parse, and InvalidArgument (TensorFlow's ValueError) when it names no checkpoint.
pub fn get_checkpoint_state(dir: impl AsRef<Path>) -> Result<Option<CheckpointState>> {
    let dir = dir.as_ref();
    let text = match std::fs::read_to_string(dir.join(STATE_FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            let e: Error = e.into();
            return Err(e.with_prefix(&format!(
                "Failed to read {}: ",
                dir.join(STATE_FILE).display()
            )));
        }
    };
    let Some(s) = CheckpointState::parse(&text) else {
        return Ok(None);
    };
    if s.model_checkpoint_path.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Invalid checkpoint state loaded from {}",
            dir.display()
        )));
    }
    Ok(Some(CheckpointState {
        model_checkpoint_path: resolve(dir, &s.model_checkpoint_path),
        all_model_checkpoint_paths: s
            .all_model_checkpoint_paths
            .iter()
            .map(|p| resolve(dir, p))
            .collect(),
        ..s
    }))
}

/// `tf.train.latest_checkpoint(checkpoint_dir)`: the newest checkpoint of `dir` if it exists
/// (its `<prefix>.index`, or an old weir checkpoint file at the prefix), else `None`.
pub fn latest_checkpoint(dir: impl AsRef<Path>) -> Result<Option<String>> {
    Ok(get_checkpoint_state(dir)?
        .map(|s| s.model_checkpoint_path)
        .filter(|p| weir_ops::training::checkpoint_exists(p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_with_escapes() {
        let s = CheckpointState {
            model_checkpoint_path: "model.ckpt-3".into(),
            all_model_checkpoint_paths: vec![
                "model.ckpt-2".into(),
                "we\"ird\\name'\twörld".into(),
                "model.ckpt-3".into(),
            ],
            ..Default::default()
        };
        let text = s.to_text();
        assert_eq!(
            text,
            "model_checkpoint_path: \"model.ckpt-3\"\n\
             all_model_checkpoint_paths: \"model.ckpt-2\"\n\
             all_model_checkpoint_paths: \"we\\\"ird\\\\name\\'\\tw\\303\\266rld\"\n\
             all_model_checkpoint_paths: \"model.ckpt-3\"\n"
        );
        assert_eq!(CheckpointState::parse(&text), Some(s));
        assert_eq!(CheckpointState::parse("garbage"), None);
        assert_eq!(CheckpointState::parse("model_checkpoint_path: \"x"), None);
        assert_eq!(CheckpointState::parse("other_field: \"x\""), None);
        assert_eq!(relative_to(Path::new("/a/b"), "/a/b/m-1"), "m-1");
        assert_eq!(relative_to(Path::new("/a/b"), "/c/m-1"), "/c/m-1");
    }

    #[test]
    fn reads_what_tensorflow_2_writes() {
        let text = "model_checkpoint_path: \"ckpt-2\"\n\
                    all_model_checkpoint_paths: \"ckpt-1\"\n\
                    all_model_checkpoint_paths: \"ckpt-2\"\n\
                    all_model_checkpoint_timestamps: 1795704999.4511669\n\
                    all_model_checkpoint_timestamps: 1795704999.4656405\n\
                    last_preserved_timestamp: 1795704998.4203842\n";
        let s = CheckpointState::parse(text).unwrap();
        assert_eq!(s.model_checkpoint_path, "ckpt-2");
        assert_eq!(s.all_model_checkpoint_paths, ["ckpt-1", "ckpt-2"]);
        assert_eq!(
            s.all_model_checkpoint_timestamps,
            [1795704999.4511669, 1795704999.4656405]
        );
        assert_eq!(s.last_preserved_timestamp, 1795704998.4203842);
        assert_eq!(s.to_text(), text, "written back as Python writes it");
        // Other spellings the text format allows.
        let s2 = CheckpointState::parse(
            "# a comment\nall_model_checkpoint_paths: ['a', \"b\" \"c\"]\n\
             model_checkpoint_path:'m\\x41\\101'; last_preserved_timestamp: 2",
        )
        .unwrap();
        assert_eq!(s2.model_checkpoint_path, "mAA");
        assert_eq!(s2.all_model_checkpoint_paths, ["a", "bc"]);
        assert_eq!(s2.last_preserved_timestamp, 2.0);
    }

    #[test]
    fn doubles_print_as_python_prints_them() {
        assert_eq!(python_float(1795704999.4511669), "1795704999.4511669");
        assert_eq!(python_float(2.0), "2.0");
        assert_eq!(python_float(1e20), "1e+20");
        assert_eq!(python_float(1.5e-7), "1.5e-07");
        assert_eq!(python_float(0.0), "0.0");
    }
}
