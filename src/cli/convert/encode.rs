//! Serializes one `tf.train.Example` per CSV row straight into a reused buffer, with the bytes
//! `Example::to_bytes` (and TensorFlow's deterministic serializer) would give, without building
//! an `Example` (a map, a String and a Vec per feature) for every row.

/// One field's value, borrowed from decode_csv's output columns.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// An int32 or int64 column: an int64_list of one value.
    Int(i64),
    /// A float32 or float64 column: a float_list of one value.
    Float(f32),
    /// A string column: a bytes_list of one value.
    Bytes(&'a [u8]),
}

fn varint_len(v: u64) -> usize {
    // 7 payload bits per byte; 0 still takes one byte.
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Writes into a buffer sized beforehand: plain stores instead of `Vec::push`'s capacity checks.
struct Cursor<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl Cursor<'_> {
    #[inline]
    fn byte(&mut self, b: u8) {
        self.buf[self.pos] = b;
        self.pos += 1;
    }

    #[inline]
    fn slice(&mut self, s: &[u8]) {
        self.buf[self.pos..self.pos + s.len()].copy_from_slice(s);
        self.pos += s.len();
    }

    #[inline]
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.byte((v as u8) | 0x80);
            v >>= 7;
        }
        self.byte(v as u8);
    }
}

/// The sizes of one field's messages: the list's payload, the list, the Feature, the map entry.
#[derive(Clone, Copy, Default)]
struct Lens {
    payload: usize,
    list: usize,
    feature: usize,
    entry: usize,
}

/// The Example layout of a fixed list of feature names.
pub struct ExampleEncoder {
    /// Column indices in the order entries are written: upb's map order, bytewise ascending
    /// except that a key sorts after the keys it is a prefix of.
    order: Vec<usize>,
    /// Per column, the map entry's key field and the value's tag: `0a <len> <name> 12`.
    keys: Vec<Vec<u8>>,
    /// Per column, the sizes for the row being encoded.
    lens: Vec<Lens>,
}

impl ExampleEncoder {
    /// An encoder for Examples with one feature per name, in column order.
    pub fn new<S: AsRef<str>>(names: &[S]) -> ExampleEncoder {
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (names[a].as_ref().as_bytes(), names[b].as_ref().as_bytes());
            let n = a.len().min(b.len());
            a[..n].cmp(&b[..n]).then(b.len().cmp(&a.len()))
        });
        let keys = names
            .iter()
            .map(|n| {
                let n = n.as_ref().as_bytes();
                let mut k = vec![0x0a];
                put_varint(n.len() as u64, &mut k);
                k.extend_from_slice(n);
                k.push(0x12);
                k
            })
            .collect();
        ExampleEncoder {
            order,
            keys,
            lens: vec![Lens::default(); names.len()],
        }
    }

    /// Replaces `out` with the serialized Example of one row (`row[c]` is column `c`'s value).
    pub fn encode(&mut self, row: &[Value<'_>], out: &mut Vec<u8>) {
        debug_assert_eq!(row.len(), self.keys.len());
        let mut features_len = 0usize;
        for ((v, key), lens) in row.iter().zip(&self.keys).zip(&mut self.lens) {
            let payload = match v {
                Value::Int(x) => varint_len(*x as u64),
                Value::Float(_) => 4,
                Value::Bytes(b) => b.len(),
            };
            let list = 1 + varint_len(payload as u64) + payload;
            let feature = 1 + varint_len(list as u64) + list;
            let entry = key.len() + varint_len(feature as u64) + feature;
            *lens = Lens {
                payload,
                list,
                feature,
                entry,
            };
            features_len += 1 + varint_len(entry as u64) + entry;
        }
        let total = 1 + varint_len(features_len as u64) + features_len;
        out.clear();
        out.resize(total, 0);
        let mut w = Cursor { buf: out, pos: 0 };
        // Example.features = 1.
        w.byte(0x0a);
        w.varint(features_len as u64);
        for &c in &self.order {
            let l = self.lens[c];
            // Features.feature = 1: a map entry {key = 1, value = 2}.
            w.byte(0x0a);
            w.varint(l.entry as u64);
            w.slice(&self.keys[c]);
            w.varint(l.feature as u64);
            match row[c] {
                // Feature.int64_list = 3; Int64List.value = 1, packed.
                Value::Int(x) => {
                    w.byte(0x1a);
                    w.varint(l.list as u64);
                    w.byte(0x0a);
                    w.varint(l.payload as u64);
                    w.varint(x as u64);
                }
                // Feature.float_list = 2; FloatList.value = 1, packed.
                Value::Float(f) => {
                    w.slice(&[0x12, l.list as u8, 0x0a, 4]);
                    w.slice(&f.to_le_bytes());
                }
                // Feature.bytes_list = 1; BytesList.value = 1.
                Value::Bytes(b) => {
                    w.byte(0x0a);
                    w.varint(l.list as u64);
                    w.byte(0x0a);
                    w.varint(l.payload as u64);
                    w.slice(b);
                }
            }
        }
        debug_assert_eq!(w.pos, total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weir::ops::io::example::Example;

    #[test]
    fn varint_lengths() {
        for v in [0u64, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(v, &mut b);
            assert_eq!(b.len(), varint_len(v), "{v}");
        }
    }

    #[test]
    fn matches_the_example_serializer() {
        let names = ["label", "ab", "a", "x", "zz", "abc"];
        let long = vec![b'q'; 300];
        let rows: Vec<Vec<Value<'_>>> = vec![
            vec![
                Value::Int(7),
                Value::Float(1.5),
                Value::Bytes(b"hi"),
                Value::Int(-1),
                Value::Float(f32::NAN),
                Value::Bytes(b""),
            ],
            vec![
                Value::Int(i64::MIN),
                Value::Float(-0.0),
                Value::Bytes(&long),
                Value::Int(300),
                Value::Float(f32::INFINITY),
                Value::Bytes(b"\"quoted\""),
            ],
        ];
        let mut enc = ExampleEncoder::new(&names);
        let mut buf = Vec::new();
        for row in &rows {
            let mut b = Example::builder();
            for (n, v) in names.iter().zip(row) {
                b = match *v {
                    Value::Int(x) => b.int64(n, [x]),
                    Value::Float(f) => b.float(n, [f]),
                    Value::Bytes(s) => b.bytes(n, s.to_vec()),
                };
            }
            enc.encode(row, &mut buf);
            assert_eq!(buf, b.build().to_bytes().as_ref());
        }
    }
}
