//! The cursor over a serialized message: varints, fixed-width values, strings and limits,
//! each read checked against the bytes actually present.

/// A cursor over `buf[pos..limit]`, where `limit` can be narrowed and restored like
/// `CodedInputStream::PushLimit` / `PopLimit`.
#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pub(super) pos: usize,
    pub(super) limit: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `buf[start..end]`.
    #[inline]
    pub(crate) fn new(buf: &'a [u8], start: usize, end: usize) -> Reader<'a> {
        Reader {
            buf,
            pos: start,
            limit: end,
        }
    }

    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.limit
    }

    /// Bytes left before the limit.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.limit - self.pos
    }

    /// Narrows the limit to `len` more bytes (never past the current limit); returns the old
    /// limit for [`pop_limit`](Self::pop_limit).
    #[inline]
    pub(crate) fn push_limit(&mut self, len: u32) -> usize {
        let old = self.limit;
        self.limit = self.pos.saturating_add(len as usize).min(old);
        old
    }

    /// Restores a limit; the position stays where reading stopped.
    #[inline]
    pub(crate) fn pop_limit(&mut self, old: usize) {
        self.limit = old;
    }

    /// Consumes the one-byte tag `t` if it is next.
    #[inline]
    pub(crate) fn expect_tag(&mut self, t: u8) -> bool {
        if self.pos < self.limit && self.buf[self.pos] == t {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The next byte, or 0 at the limit (`PeekTag`).
    #[inline]
    pub(crate) fn peek(&self) -> u8 {
        if self.pos < self.limit {
            self.buf[self.pos]
        } else {
            0
        }
    }

    /// A varint of at most 10 bytes, all before the limit.
    #[inline]
    pub(crate) fn read_varint64(&mut self) -> Option<u64> {
        // Most values (pixels, labels, small ids) fit one byte.
        if self.pos < self.limit {
            let b = self.buf[self.pos];
            if b < 0x80 {
                self.pos += 1;
                return Some(b as u64);
            }
        }
        self.read_varint64_slow()
    }

    #[inline(never)]
    fn read_varint64_slow(&mut self) -> Option<u64> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        let mut p = self.pos;
        loop {
            if p >= self.limit || shift >= 70 {
                return None;
            }
            let b = self.buf[p];
            p += 1;
            if shift < 64 {
                v |= ((b & 0x7f) as u64) << shift;
            }
            if b < 0x80 {
                self.pos = p;
                return Some(v);
            }
            shift += 7;
        }
    }

    /// A varint truncated to 32 bits, as `ReadVarint32` reads it.
    #[inline]
    pub(crate) fn read_varint32(&mut self) -> Option<u32> {
        // Fast path: one byte.
        if self.pos < self.limit && self.buf[self.pos] < 0x80 {
            let v = self.buf[self.pos] as u32;
            self.pos += 1;
            return Some(v);
        }
        self.read_varint64().map(|v| v as u32)
    }

    /// A field tag; `None` at the limit or on a malformed varint.
    #[inline]
    pub(crate) fn read_tag(&mut self) -> Option<u32> {
        if self.at_end() {
            return None;
        }
        self.read_varint32()
    }

    /// The range of the next `n` bytes, consumed; `None` if fewer remain.
    #[inline]
    pub(crate) fn read_raw(&mut self, n: usize) -> Option<(usize, usize)> {
        if n > self.remaining() {
            return None;
        }
        let s = self.pos;
        self.pos += n;
        Some((s, s + n))
    }

    #[inline]
    pub(crate) fn read_le32(&mut self) -> Option<u32> {
        let (s, _) = self.read_raw(4)?;
        let b = &self.buf[s..s + 4];
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Skips `n` bytes, stopping at the limit; false if it had to stop early.
    #[inline]
    pub(crate) fn skip(&mut self, n: usize) -> bool {
        if n > self.remaining() {
            self.pos = self.limit;
            false
        } else {
            self.pos += n;
            true
        }
    }

    /// A length-prefixed string's range, as TensorFlow's `ParseString` reads it.
    #[inline]
    pub(crate) fn read_string(&mut self) -> Option<(usize, usize)> {
        let len = self.read_varint32()? as usize;
        if len == 0 {
            return Some((self.pos, self.pos));
        }
        if self.at_end() {
            return None;
        }
        self.read_raw(len)
    }

    /// Skips a field TensorFlow does not know (`SkipExtraneousTag`); groups are errors.
    pub(crate) fn skip_unknown_field(&mut self) -> bool {
        let Some(tag) = self.read_tag() else {
            return false;
        };
        match tag & 7 {
            0 => self.read_varint32().is_some(),
            1 => self.read_raw(8).is_some(),
            2 => match self.read_varint32() {
                Some(n) => {
                    self.skip(n as usize);
                    true
                }
                None => false,
            },
            5 => self.read_raw(4).is_some(),
            _ => false,
        }
    }
}
