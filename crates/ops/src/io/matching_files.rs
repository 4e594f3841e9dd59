//! `tf.io.matching_files` (op `MatchingFiles`): the file names matching glob patterns, found the
//! way TensorFlow's file system helper finds them, so the names come out spelled as
//! TensorFlow spells them (`*/a.txt` gives `./d/a.txt`; a pattern without wildcards comes back
//! as written, trailing `/` included).

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, Bytes, DType, Error, InferenceContext, Kernel, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

/// `tf.io.matching_files(pattern, name)` (op `MatchingFiles`, also `tf.matching_files`): the
/// sorted names of the files and directories matching the glob `pattern`, a string scalar or
/// vector (one list for all its patterns, duplicates kept). `*`, `?` and `[...]` match within
/// one path component; a pattern matching nothing gives an empty vector.
///
/// ```
/// # use weir_graph::{Graph, Tensor};
/// # use weir_ops::{array::constant, io::matching_files};
/// # weir_ops::register_all_ops();
/// let dir = std::env::temp_dir().join(format!("weir-matching-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// for f in ["b.csv", "a.csv", "c.txt"] {
///     std::fs::write(dir.join(f), "x").unwrap();
/// }
/// let g = Graph::new();
/// let pattern = format!("{}/*.csv", dir.display());
/// let files = matching_files(constant(&g, Tensor::from(pattern.as_str()))?, None)?;
/// let got = weir_session::Session::new(&g)?.run(&weir_session::RunArgs::new().fetch(&files))?;
/// let want: Vec<String> = ["a.csv", "b.csv"]
///     .iter()
///     .map(|f| format!("{}/{f}", dir.display()))
///     .collect();
/// assert_eq!(got[0].to_strings()?, want);
/// # std::fs::remove_dir_all(dir).ok();
/// # Ok::<(), weir_graph::Error>(())
/// ```
pub fn matching_files(pattern: impl Into<Output>, name: Option<&str>) -> Result<Output> {
    let pattern = pattern.into();
    crate::new_op(&pattern.graph().clone(), "MatchingFiles")
        .maybe_name(name)
        .input(&pattern)
        .build()?
        .output(0)
}

/// The paths matching one glob `pattern`, in no particular order: TensorFlow's
/// `GetMatchingPaths`. The components up to the first one with a wildcard are taken as they
/// are; from there the matching directories are expanded one level at a time. Each directory's
/// entries are taken in name order, so the result does not depend on the file system.
pub fn matching_paths(pattern: &str) -> Result<Vec<String>> {
    matching_paths_in(pattern, true)
}

/// [`matching_paths`] with each directory's entries in the order the file system lists them,
/// as TensorFlow's `GetMatchingPaths` leaves them: `RecordInput` shuffles its files starting
/// from that order.
pub(crate) fn matching_paths_listed(pattern: &str) -> Result<Vec<String>> {
    matching_paths_in(pattern, false)
}

fn matching_paths_in(pattern: &str, sorted: bool) -> Result<Vec<String>> {
    if pattern.is_empty() {
        return Ok(Vec::new());
    }
    let levels = directory_prefixes(pattern);
    let Some(first_glob) = levels.iter().position(|d| has_wildcard(d)) else {
        // No wildcard: the path itself, as written, if it exists.
        return Ok(if std::path::Path::new(pattern).exists() {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        });
    };
    // A relative pattern whose first component has a wildcard was patched to start with "./",
    // so the level before the first wildcard always exists.
    let mut frontier = vec![levels[first_glob - 1].clone()];
    let mut found = Vec::new();
    for (k, level) in levels.iter().enumerate().skip(first_glob) {
        let last = k + 1 == levels.len();
        let mut next = Vec::new();
        for parent in &frontier {
            // A parent that cannot be listed (gone, not a directory, no permission) has no
            // children, as in TensorFlow.
            let Ok(entries) = std::fs::read_dir(parent) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            if sorted {
                names.sort();
            }
            for name in names {
                let path = join_path(parent, &name);
                if !fnmatch_path(level.as_bytes(), path.as_bytes()) {
                    continue;
                }
                if last {
                    found.push(path);
                } else if std::path::Path::new(&path).is_dir() {
                    next.push(path);
                }
            }
        }
        frontier = next;
        if frontier.is_empty() && !last {
            break;
        }
    }
    Ok(found)
}

/// The patterns of every directory level of `pattern`, outermost first: `d/s*/*.txt` gives
/// `d`, `d/s*`, `d/s*/*.txt`. A relative pattern with a wildcard in its first component is
/// read as `./pattern`; a trailing `/` drops the last level (it names a directory).
fn directory_prefixes(pattern: &str) -> Vec<String> {
    let fixed = &pattern[..pattern.find(['*', '?', '[', '\\']).unwrap_or(pattern.len())];
    let patched = if dirname(fixed).is_empty() {
        join_path(".", pattern)
    } else {
        pattern.to_string()
    };
    let mut dir = patched.as_str();
    if pattern.ends_with('/') {
        dir = dirname(dir);
    }
    let mut levels = Vec::new();
    while !dir.is_empty() {
        levels.push(dir.to_string());
        let up = dirname(dir);
        if up == dir {
            break;
        }
        dir = up;
    }
    levels.reverse();
    levels
}

/// TensorFlow's `io::Dirname`: everything before the last `/` (`/` itself for a top-level
/// path, empty when there is no `/`).
fn dirname(path: &str) -> &str {
    match path.rfind('/') {
        None => "",
        Some(0) => "/",
        Some(i) => &path[..i],
    }
}

/// TensorFlow's `io::JoinPath` of two parts: one `/` between them, whatever they end or start
/// with.
fn join_path(a: &str, b: &str) -> String {
    if a.is_empty() {
        return b.to_string();
    }
    if b.is_empty() {
        return a.to_string();
    }
    let (a, b) = (a.trim_end_matches('/'), b.trim_start_matches('/'));
    format!("{a}/{b}")
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?', '[', '\\'])
}

/// POSIX `fnmatch(pattern, path, FNM_PATHNAME)`, as TensorFlow's local file system matches:
/// `*`, `?` and bracket expressions (`[a-z]`, `[!a]`) never match a `/`; `\x` is a literal `x`.
/// A `*` resumes from its last position only (no recursion), so matching takes time linear in
/// the pattern times the path at worst.
pub(crate) fn fnmatch_path(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    // Where to resume after the last `*`: the pattern index after it, and the next path index
    // for it to absorb.
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let step = match p.get(pi) {
            Some(b'*') => {
                star = Some((pi + 1, si));
                pi += 1;
                continue;
            }
            Some(b'?') if s[si] != b'/' => Some(1),
            Some(b'[') if s[si] != b'/' => bracket(&p[pi..], s[si]),
            Some(b'\\') if p.len() > pi + 1 => (p[pi + 1] == s[si]).then_some(2),
            Some(&c) if c != b'?' && c != b'[' => (c == s[si]).then_some(1),
            _ => None,
        };
        match step {
            Some(n) => {
                pi += n;
                si += 1;
            }
            None => match star {
                // The `*` absorbs one more byte, unless that would cross a `/`.
                Some((after, from)) if s[from] != b'/' => {
                    star = Some((after, from + 1));
                    pi = after;
                    si = from + 1;
                }
                _ => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Matches `c` against the bracket expression at the start of `p`: the pattern length it
/// took, or None if `c` is not in the set. A `[` with no closing `]` is a literal `[`.
fn bracket(p: &[u8], c: u8) -> Option<usize> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() && (p[i] != b']' || first) {
        first = false;
        let (lo, width) = match p[i] {
            b'\\' if i + 1 < p.len() => (p[i + 1], 2),
            b => (b, 1),
        };
        let j = i + width;
        if j + 1 < p.len() && p[j] == b'-' && p[j + 1] != b']' {
            let hi = p[j + 1];
            matched |= lo <= c && c <= hi;
            i = j + 2;
        } else {
            matched |= lo == c;
            i = j;
        }
    }
    if i >= p.len() {
        return (c == b'[').then_some(1);
    }
    (matched != negate).then_some(i + 1)
}

struct MatchingFilesKernel;

impl Kernel for MatchingFilesKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let patterns = ctx.input(0);
        if patterns.rank() > 1 {
            return Err(Error::invalid_argument(format!(
                "Input patterns tensor must be scalar or vector, but had shape: {}",
                format_dims(patterns.shape())
            )));
        }
        let mut all = Vec::new();
        for p in patterns.to_strings()? {
            all.extend(matching_paths(&p)?);
        }
        // One sorted list for all the patterns, as TensorFlow's kernel gives.
        all.sort();
        let names: Vec<Bytes> = all.into_iter().map(Bytes::from).collect();
        ctx.set_output(0, Tensor::from(names));
        Ok(())
    }
}

fn matching_files_shape(ctx: &mut InferenceContext<'_>) -> Result<()> {
    if let Some(r) = ctx.input_shape(0).rank().filter(|&r| r > 1) {
        return Err(Error::invalid_argument(format!(
            "Shape must be at most rank 1 but is rank {r}"
        )));
    }
    ctx.set_output(0, Shape::unknown_of_rank(1));
    Ok(())
}

pub(super) fn register() {
    register_op(
        OpDef::new("MatchingFiles")
            .input("pattern", ArgType::Fixed(DType::String))
            .output("filenames", ArgType::Fixed(DType::String))
            // Stateful although TensorFlow's is not: the files may change between runs, so no
            // pass may fold it into a constant.
            .stateful()
            .shape_fn(matching_files_shape),
    );
    register_kernel("MatchingFiles", |_| Ok(Box::new(MatchingFilesKernel)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_like_posix_with_pathname() {
        assert!(fnmatch_path(b"*.csv", b"a.csv"));
        assert!(!fnmatch_path(b"*.csv", b"a.csvx"));
        assert!(fnmatch_path(b"f?le[0-9]", b"file7"));
        assert!(!fnmatch_path(b"f?le[!0-9]", b"file7"));
        assert!(fnmatch_path(b"a\\*", b"a*"));
        assert!(!fnmatch_path(b"a\\*", b"ab"));
        assert!(fnmatch_path(b"*", b""));
        assert!(fnmatch_path(b"*", b".hidden"));
        assert!(!fnmatch_path(b"*", b"d/a"));
        assert!(!fnmatch_path(b"d?a", b"d/a"));
        assert!(!fnmatch_path(b"d[/]a", b"d/a"));
        assert!(fnmatch_path(b"d/*/x", b"d/sub/x"));
        assert!(!fnmatch_path(b"d/*x", b"d/sub/x"));
        assert!(fnmatch_path(b"[ab", b"[ab"));
        assert!(fnmatch_path(b"[]a]", b"]"));
        assert!(fnmatch_path(b"*a*b*c", b"xxaxxbxxc"));
        assert!(!fnmatch_path(b"*a*b*c", b"xxaxxbxx"));
    }

    /// A pattern of many stars against a long name that almost matches ends quickly.
    #[test]
    fn stars_do_not_backtrack_exponentially() {
        let name = "a".repeat(200);
        let pattern = format!("{}b", "*a".repeat(30));
        assert!(!fnmatch_path(pattern.as_bytes(), name.as_bytes()));
    }

    #[test]
    fn directory_levels_as_tensorflow_splits_them() {
        assert_eq!(
            directory_prefixes("d/s*/*.txt"),
            ["d", "d/s*", "d/s*/*.txt"]
        );
        assert_eq!(directory_prefixes("*/a.txt"), [".", "./*", "./*/a.txt"]);
        assert_eq!(directory_prefixes("/x/*"), ["/", "/x", "/x/*"]);
        assert_eq!(directory_prefixes("d/*/"), ["d", "d/*"]);
    }
}
