//! The JSON lexer of protobuf's JSON parser (`json_internal::JsonLexer`) as TensorFlow 2.21
//! runs it, in its legacy mode: single-quoted strings, bare-word keys, trailing commas, `\'`
//! and `\U` escapes. Errors carry protobuf's text and its location bookkeeping, quirks
//! included: numbers, bare words, the four digits of a `\u` escape and the trailing bytes of
//! a multi-byte UTF-8 character are consumed without moving the reported location.

/// An error's text, after TensorFlow's `Error while parsing JSON: `.
pub(super) type PResult<T> = std::result::Result<T, String>;

/// What protobuf says when the input ends early (it gives no location).
const EOF: &str = "unexpected EOF";

/// How deep objects and arrays may nest (`ParseOptions::kDefaultDepth`).
const MAX_DEPTH: u32 = 100;

/// The kind of value that comes next (`JsonLexer::Kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Obj,
    Arr,
    Str,
    Num,
    True,
    False,
    Null,
}

/// Where the lexer says it is: offset, line and column, all from 0.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Loc {
    offset: usize,
    line: usize,
    col: usize,
}

/// One step of the message path errors name (`MessagePath::Component`).
struct Component {
    field: String,
    kind: &'static str,
    type_name: &'static str,
    index: i64,
}

pub(super) struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    loc: Loc,
    depth: u32,
    path: Vec<Component>,
}

/// A byte as C's `%c` prints it; bytes beyond ASCII cannot be shown in a Rust string.
fn ch(b: u8) -> char {
    if b.is_ascii() {
        b as char
    } else {
        char::REPLACEMENT_CHARACTER
    }
}

impl<'a> Lexer<'a> {
    pub(super) fn new(s: &'a [u8]) -> Lexer<'a> {
        Lexer {
            s,
            pos: 0,
            loc: Loc::default(),
            depth: MAX_DEPTH,
            path: Vec::new(),
        }
    }

    /// `JsonLocation::Invalid`: the message path as it is now, and `loc`.
    pub(super) fn invalid_at(&self, loc: Loc, msg: &str) -> String {
        let mut s = String::from("invalid JSON in type.googleapis.com/tensorflow.Example");
        if let Some(last) = self.path.last() {
            s.push_str(" @ ");
            for (i, c) in self.path.iter().enumerate() {
                if i > 0 {
                    s.push('.');
                }
                s.push_str(&c.field);
                if c.index >= 0 {
                    s.push_str(&format!("[{}]", c.index));
                }
            }
            s.push_str(": ");
            s.push_str(last.kind);
            if !last.type_name.is_empty() {
                s.push(' ');
                s.push_str(last.type_name);
            }
        }
        s.push_str(&format!(
            ", near {}:{} (offset {}): {msg}",
            loc.line + 1,
            loc.col + 1,
            loc.offset
        ));
        s
    }

    /// An error at the current location.
    pub(super) fn invalid(&self, msg: &str) -> String {
        self.invalid_at(self.loc, msg)
    }

    pub(super) fn push_path(&mut self, field: &str, kind: &'static str, type_name: &'static str) {
        self.path.push(Component {
            field: field.to_string(),
            kind,
            type_name,
            index: -1,
        });
    }

    pub(super) fn pop_path(&mut self) {
        self.path.pop();
    }

    /// `MessagePath::NextRepeated`: the innermost component's index, one on.
    pub(super) fn next_repeated(&mut self) {
        if let Some(c) = self.path.last_mut() {
            c.index += 1;
        }
    }

    fn advance(&mut self, n: usize) {
        self.pos += n;
        self.loc.offset += n;
        self.loc.col += n;
    }

    pub(super) fn skip_to_token(&mut self) -> PResult<()> {
        loop {
            match self.s.get(self.pos) {
                None => return Err(EOF.to_string()),
                Some(b'\n') => {
                    self.advance(1);
                    self.loc.line += 1;
                    self.loc.col = 0;
                }
                Some(b'\r' | b'\t' | b' ') => self.advance(1),
                Some(_) => return Ok(()),
            }
        }
    }

    pub(super) fn at_eof(&mut self) -> bool {
        let _ = self.skip_to_token();
        self.pos >= self.s.len()
    }

    pub(super) fn peek_kind(&mut self) -> PResult<Kind> {
        self.skip_to_token()?;
        Ok(match self.s[self.pos] {
            b'{' => Kind::Obj,
            b'[' => Kind::Arr,
            b'"' | b'\'' => Kind::Str,
            b'-' | b'0'..=b'9' => Kind::Num,
            b't' => Kind::True,
            b'f' => Kind::False,
            b'n' => Kind::Null,
            c => return Err(self.invalid(&format!("unexpected character: '{}'", ch(c)))),
        })
    }

    pub(super) fn peek_is(&mut self, kind: Kind) -> bool {
        self.peek_kind() == Ok(kind)
    }

    pub(super) fn expect(&mut self, lit: &str) -> PResult<()> {
        self.skip_to_token()?;
        let rest = &self.s[self.pos..];
        if rest.len() < lit.len() {
            return Err(EOF.to_string());
        }
        if !rest.starts_with(lit.as_bytes()) {
            return Err(self.invalid(&format!(
                "unexpected character: '{}'; expected '{lit}'",
                ch(rest[0])
            )));
        }
        self.advance(lit.len());
        Ok(())
    }

    /// Consumes `lit` if it comes next (after whitespace).
    fn peek_lit(&mut self, lit: &str) -> bool {
        let _ = self.skip_to_token();
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.advance(lit.len());
            true
        } else {
            false
        }
    }

    fn push_depth(&mut self) -> PResult<()> {
        if self.depth == 0 {
            return Err(self.invalid("JSON content was too deeply nested"));
        }
        self.depth -= 1;
        Ok(())
    }

    /// `JsonLexer::VisitArray`: `f` once per element.
    pub(super) fn visit_array(
        &mut self,
        mut f: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        self.expect("[")?;
        self.push_depth()?;
        if !self.peek_lit("]") {
            let mut has_comma = true;
            loop {
                if !has_comma {
                    return Err(self.invalid("expected ','"));
                }
                f(self)?;
                has_comma = self.peek_lit(",");
                if self.peek_lit("]") {
                    break;
                }
            }
        }
        self.depth += 1;
        Ok(())
    }

    /// `JsonLexer::VisitObject`: `f` with each key (and where it starts), after its `:`.
    pub(super) fn visit_object(
        &mut self,
        mut f: impl FnMut(&mut Self, String, Loc) -> PResult<()>,
    ) -> PResult<()> {
        self.expect("{")?;
        self.push_depth()?;
        if !self.peek_lit("}") {
            let mut has_comma = true;
            loop {
                if !has_comma {
                    return Err(self.invalid("expected ','"));
                }
                self.skip_to_token()?;
                let (key, loc) = match self.s[self.pos] {
                    b'"' | b'\'' => self.parse_utf8()?,
                    _ => self.parse_bare_word()?,
                };
                self.expect(":")?;
                f(self, key, loc)?;
                has_comma = self.peek_lit(",");
                if self.peek_lit("}") {
                    break;
                }
            }
        }
        self.depth += 1;
        Ok(())
    }

    /// Bytes consumed without moving the location (protobuf's `TakeWhile`).
    fn take_while(&mut self, mut p: impl FnMut(u8) -> bool) -> &'a [u8] {
        let start = self.pos;
        while self.pos < self.s.len() && p(self.s[self.pos]) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    fn parse_bare_word(&mut self) -> PResult<(String, Loc)> {
        self.skip_to_token()?;
        let loc = self.loc;
        let w = self.take_while(|c| c == b'_' || c.is_ascii_alphanumeric());
        let w = std::str::from_utf8(w).expect("ASCII");
        if w.is_empty()
            || w.as_bytes()[0].is_ascii_digit()
            || matches!(w, "null" | "true" | "false")
        {
            return Err(self.invalid_at(loc, "expected bare word"));
        }
        Ok((w.to_string(), loc))
    }

    /// `JsonLexer::ParseRawNumber`: the text of a number and where it starts.
    pub(super) fn parse_raw_number(&mut self) -> PResult<(String, Loc)> {
        self.skip_to_token()?;
        let loc = self.loc;
        #[derive(PartialEq)]
        enum State {
            Int,
            Fraction,
            Exponent,
        }
        let mut state = State::Int;
        let mut prev_var = 0u8;
        let text = self.take_while(|c| {
            let prev = prev_var;
            prev_var = c;
            if c.is_ascii_digit() {
                return true;
            }
            let last_was_int = prev.is_ascii_digit();
            if state == State::Int && c == b'-' {
                return !last_was_int;
            }
            if state == State::Int && last_was_int && c == b'.' {
                state = State::Fraction;
                return true;
            }
            if state != State::Exponent && last_was_int && (c == b'e' || c == b'E') {
                state = State::Exponent;
                return true;
            }
            (prev == b'e' || prev == b'E') && (c == b'-' || c == b'+')
        });
        let text = std::str::from_utf8(text).expect("ASCII").to_string();
        if text.is_empty() || text == "-" {
            return Err(self.invalid_at(loc, "expected a number"));
        }
        let digits = text.strip_prefix('-').unwrap_or(&text).as_bytes();
        if digits.len() > 1 && digits[0] == b'0' && digits[1].is_ascii_digit() {
            return Err(self.invalid_at(loc, "number cannot have extraneous leading zero"));
        }
        if text.ends_with('.') {
            return Err(self.invalid_at(loc, "number cannot have trailing period"));
        }
        if !super::convert::simple_atod(&text).is_some_and(f64::is_finite) {
            return Err(self.invalid_at(loc, &format!("invalid number: '{text}'")));
        }
        if self.pos < self.s.len() {
            self.skip_to_token()?;
            let c = self.s[self.pos];
            if !matches!(c, b',' | b']' | b'}') {
                return Err(self.invalid(&format!("unexpected character: '{}'", ch(c))));
            }
        }
        Ok((text, loc))
    }

    fn next_byte(&mut self) -> PResult<u8> {
        let c = *self.s.get(self.pos).ok_or(EOF)?;
        self.advance(1);
        Ok(c)
    }

    /// Four hex digits of a `\u` escape (consumed without moving the location).
    fn hex4(&mut self) -> PResult<u32> {
        let digits = self.s.get(self.pos..self.pos + 4).ok_or(EOF)?;
        self.pos += 4;
        let mut v = 0u32;
        for &c in digits {
            let d = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.invalid("invalid Unicode escape"))?;
            v = v << 4 | d;
        }
        Ok(v)
    }

    fn unicode_escape(&mut self, out: &mut Vec<u8>) -> PResult<()> {
        let mut rune = self.hex4()?;
        if (0xd800..=0xdbff).contains(&rune) {
            self.expect("\\u")?;
            let low = self.hex4()?;
            if !(0xdc00..=0xdfff).contains(&low) {
                return Err(self.invalid("invalid low surrogate"));
            }
            rune = ((rune & 0x3ff) << 10 | (low & 0x3ff)) + 0x10000;
        } else if (0xdc00..=0xdfff).contains(&rune) {
            return Err(self.invalid("unpaired low surrogate"));
        }
        // At most U+10FFFF, and not a surrogate.
        let c = char::from_u32(rune).expect("a Unicode scalar value");
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Ok(())
    }

    /// `JsonLexer::ParseUtf8`: a quoted string, unescaped, and where it starts.
    pub(super) fn parse_utf8(&mut self) -> PResult<(String, Loc)> {
        self.skip_to_token()?;
        let quote = self.s[self.pos];
        let quote = if quote == b'\'' { "'" } else { "\"" };
        let loc = self.loc;
        self.expect(quote)?;
        let mut buf = Vec::new();
        loop {
            let c = self.next_byte()?;
            match c {
                _ if c == quote.as_bytes()[0] => break,
                b'\\' => {
                    let e = self.next_byte()?;
                    let plain = match e {
                        b'u' | b'U' => {
                            self.unicode_escape(&mut buf)?;
                            continue;
                        }
                        b'"' | b'\\' | b'/' | b'\'' => e,
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        _ => return Err(self.invalid(&format!("invalid escape char: '{}'", ch(e)))),
                    };
                    buf.push(plain);
                }
                _ => {
                    let extra = match c.leading_ones() {
                        0 => 0,
                        n @ 2..=4 => n as usize - 1,
                        _ => return Err(self.invalid("invalid UTF-8 in string")),
                    };
                    buf.push(c);
                    let more = self.s.get(self.pos..self.pos + extra).ok_or(EOF)?;
                    buf.extend_from_slice(more);
                    self.pos += extra;
                }
            }
        }
        match String::from_utf8(buf) {
            Ok(s) => Ok((s, loc)),
            Err(_) => Err(self.invalid("Invalid UTF-8 string")),
        }
    }
}
