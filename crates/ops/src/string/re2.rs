//! RE2's pattern syntax on Rust's `regex` crate. The two agree on most of the syntax, but
//! RE2's Perl classes (`\d`, `\w`, `\s`) and word boundaries are ASCII-only where the crate's
//! are Unicode, and RE2 also has `\Q...\E` quoting, octal escapes, `\C` and a literal `[`
//! inside classes. [`translate`] rewrites those into the crate's syntax before compiling.

use regex::bytes::{Regex, RegexBuilder};
use weir_graph::{Error, Result};

/// RE2's `\s`: no `\v`, unlike Perl's.
const SPACE: &str = r"\t\n\f\r ";
const WORD: &str = "0-9A-Za-z_";
const DIGIT: &str = "0-9";

/// Compiles an RE2 pattern (`full`: anchored at both ends), failing with TensorFlow's
/// "Invalid pattern: P, error: ..." (the detail in the `regex` crate's words).
pub(super) fn compile(pattern: &str, full: bool) -> Result<Regex> {
    let t = translate(pattern);
    let t = if full { format!(r"\A(?:{t})\z") } else { t };
    // RE2's default memory budget allows larger programs than the crate's 10 MB default.
    RegexBuilder::new(&t)
        .size_limit(64 << 20)
        .build()
        .map_err(|e| pattern_error(pattern, &e))
}

fn pattern_error(pattern: &str, e: &regex::Error) -> Error {
    let detail = e.to_string();
    let last = detail
        .lines()
        .last()
        .unwrap_or("")
        .trim()
        .trim_start_matches("error: ");
    Error::invalid_argument(format!("Invalid pattern: {pattern}, error: {last}"))
}

/// The ASCII class of Perl escape `c` (`d`, `w`, `s` or upper case for the complement), as a
/// class item inside `[...]` or a whole class outside.
fn perl_class(c: char, in_class: bool) -> String {
    let set = match c.to_ascii_lowercase() {
        'd' => DIGIT,
        'w' => WORD,
        _ => SPACE,
    };
    match (c.is_ascii_uppercase(), in_class) {
        (false, true) => set.to_string(),
        (false, false) => format!("[{set}]"),
        (true, _) => format!("[^{set}]"),
    }
}

/// `pattern` in the `regex` crate's syntax with RE2's meaning. Malformed patterns stay
/// malformed, so the crate reports them.
pub(super) fn translate(pattern: &str) -> String {
    let p: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut in_class = false;
    // Just after `[` or `[^`, where `]` is a literal.
    let mut class_start = false;
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        if c == '\\' && i + 1 < p.len() {
            let d = p[i + 1];
            i += 2;
            class_start = false;
            match d {
                'Q' if !in_class => {
                    let end = (i..p.len())
                        .find(|&k| p[k] == '\\' && p.get(k + 1) == Some(&'E'))
                        .unwrap_or(p.len());
                    out.push_str(&regex::escape(&p[i..end].iter().collect::<String>()));
                    i = (end + 2).min(p.len());
                }
                'd' | 'D' | 'w' | 'W' | 's' | 'S' => out.push_str(&perl_class(d, in_class)),
                'b' | 'B' if !in_class => {
                    out.push_str(&format!("(?-u:\\{d})"));
                }
                'C' if !in_class => out.push_str(r"(?-u:[\x00-\xff])"),
                '0'..='7' if d == '0' || p.get(i).is_some_and(|c| ('0'..='7').contains(c)) => {
                    // Octal: up to three digits in all.
                    let mut v = d as u32 - '0' as u32;
                    for _ in 0..2 {
                        match p.get(i) {
                            Some(&o) if ('0'..='7').contains(&o) => {
                                v = v * 8 + (o as u32 - '0' as u32);
                                i += 1;
                            }
                            _ => break,
                        }
                    }
                    out.push_str(&format!(r"\x{{{v:x}}}"));
                }
                _ => {
                    out.push('\\');
                    out.push(d);
                }
            }
            continue;
        }
        i += 1;
        if !in_class {
            out.push(c);
            if c == '[' {
                in_class = true;
                class_start = true;
                if p.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
            }
            continue;
        }
        match c {
            ']' if class_start => out.push_str(r"\]"),
            ']' => {
                in_class = false;
                out.push(']');
            }
            '[' if p.get(i) == Some(&':') => {
                // A POSIX class such as [:alpha:], the same in both syntaxes.
                let end = (i..p.len())
                    .find(|&k| p[k] == ':' && p.get(k + 1) == Some(&']'))
                    .map_or(p.len(), |k| k + 2);
                out.push('[');
                out.extend(&p[i..end]);
                i = end;
            }
            // Literal in RE2; a nested class or a set operator (`&&`, `~~`) in the crate.
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        class_start = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(text: &str, pattern: &str) -> String {
        let re = compile(pattern, false).unwrap();
        String::from_utf8(re.replace_all(text.as_bytes(), &b"X"[..]).into_owned()).unwrap()
    }

    #[test]
    fn translations() {
        assert_eq!(translate(r"\w+\d"), "[0-9A-Za-z_]+[0-9]");
        assert_eq!(translate(r"[^\w\D]"), "[^0-9A-Za-z_[^0-9]]");
        assert_eq!(translate(r"\bx\B"), r"(?-u:\b)x(?-u:\B)");
        assert_eq!(translate(r"\QA.B\E+"), r"A\.B+");
        assert_eq!(translate(r"\Qa.b"), r"a\.b");
        assert_eq!(translate(r"\141\0\18"), r"\x{61}\x{0}\18");
        assert_eq!(translate(r"\1"), r"\1");
        assert_eq!(translate(r"[]a]"), r"[\]a]");
        assert_eq!(translate(r"[[:alpha:][]"), r"[[:alpha:]\[]");
        assert_eq!(translate(r"[a&&b~~c]"), r"[a\&\&b\~\~c]");
        assert_eq!(translate(r"[a-z]\p{Greek}"), r"[a-z]\p{Greek}");
        assert_eq!(translate("("), "(");
        assert_eq!(translate("a\\"), "a\\");
    }

    // Outputs of tf.strings.regex_replace(s, pattern, "X") printed by TensorFlow 2.21.
    #[test]
    fn perl_classes_are_ascii() {
        let s = "caf\u{e9} \u{663}4 a\u{a0}b\x0bc\u{2003}d";
        assert_eq!(
            replace(s, r"\w+"),
            "X\u{e9} \u{663}X X\u{a0}X\x0bX\u{2003}X"
        );
        assert_eq!(replace(s, r"\W+"), "cafX4XaXbXcXd");
        assert_eq!(replace(s, r"\D+"), "X4X");
        assert_eq!(replace(s, r"\S+"), "X X X");
        assert_eq!(replace(s, r"[^\w ]+"), "cafX X4 aXbXcXd");
        assert_eq!(replace(s, r"[\D]+"), "X4X");
        assert_eq!(replace(s, r"\pL+"), "X \u{663}4 X\u{a0}X\x0bX\u{2003}X");
        assert_eq!(
            replace(s, r"\141"),
            "cXf\u{e9} \u{663}4 X\u{a0}b\x0bc\u{2003}d"
        );
        assert_eq!(replace(s, r"\QA.B\E"), s);
    }
}
