//! Reading weir's own checkpoint files ("WEIRCKPT", version 1), which weir wrote at exactly the
//! checkpoint prefix before it wrote TensorFlow's bundles. weir no longer writes them; restoring
//! reads them when no `<prefix>.index` exists and the file at the prefix starts with the magic.
//!
//! ```text
//! header  "WEIRCKPT"                 8 bytes, magic
//!         version: u32le             = 1
//!         entries: u64le             number of entries that follow
//!         crc: u32le                 CRC32C of the 20 bytes above
//! entry   name_len: u32le, name      UTF-8 tensor name, sorted by name
//!         dtype: u32le               TensorFlow's DataType number
//!         rank: u32le, dims: u64le * rank
//!         payload_len: u64le, payload  row-major elements: numbers little-endian, bool one
//!                                    byte, strings as u64le length + bytes each
//!         crc: u32le                 CRC32C of every byte of the entry before it
//! ```
//!
//! Nothing may follow the last entry; a short, altered or padded file is DataLoss.

use weir_graph::{Bytes, DType, Error, LeBytes, Result, Tensor};

/// The first bytes of a weir checkpoint file.
pub(crate) const MAGIC: &[u8; 8] = b"WEIRCKPT";
const VERSION: u32 = 1;

/// Whether the file at `path` starts with weir's checkpoint magic.
pub(crate) fn is_legacy(path: &str) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == MAGIC
}

/// A cursor over a checkpoint's bytes whose every short read is DataLoss naming the file.
struct Cursor<'a> {
    path: &'a str,
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn corrupt(&self, what: &str) -> Error {
        Error::data_loss(format!(
            "Checkpoint {} is truncated or corrupt: {what} (at byte {})",
            self.path, self.pos
        ))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(self.corrupt("unexpected end of file"));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or([0; 4]),
        ))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or([0; 8]),
        ))
    }

    fn len(&mut self, what: &str) -> Result<usize> {
        let n = self.u64()?;
        if n > (self.b.len() - self.pos) as u64 {
            return Err(self.corrupt(&format!(
                "{what} of {n} bytes runs past the end of the file"
            )));
        }
        Ok(n as usize)
    }
}

/// One parsed entry: where its payload lies, and its dtype and shape.
pub(crate) struct Entry<'a> {
    pub name: &'a str,
    pub dtype: DType,
    pub shape: Vec<usize>,
    payload: &'a [u8],
}

/// Parses and checks every entry of a weir checkpoint file's bytes.
pub(crate) fn decode<'a>(path: &'a str, b: &'a [u8]) -> Result<Vec<Entry<'a>>> {
    let mut c = Cursor { path, b, pos: 0 };
    if b.len() < 24 || &b[..8] != MAGIC {
        return Err(Error::data_loss(format!(
            "Checkpoint {path} is not a weir checkpoint (bad magic or too short)"
        )));
    }
    c.take(8)?;
    let version = c.u32()?;
    let count = c.u64()?;
    let crc = c.u32()?;
    if crc32c::crc32c(&b[..20]) != crc {
        return Err(c.corrupt("header checksum mismatch"));
    }
    if version != VERSION {
        return Err(Error::data_loss(format!(
            "Checkpoint {path} has format version {version}; this weir reads version {VERSION}"
        )));
    }
    let mut entries = Vec::new();
    for _ in 0..count {
        let start = c.pos;
        let n = c.u32()? as usize;
        let name =
            std::str::from_utf8(c.take(n)?).map_err(|_| c.corrupt("tensor name is not UTF-8"))?;
        let code = c.u32()?;
        let rank = c.u32()? as usize;
        if rank > 64 {
            return Err(c.corrupt("implausible rank"));
        }
        let mut shape = Vec::with_capacity(rank);
        for _ in 0..rank {
            shape.push(c.u64()? as usize);
        }
        let plen = c.len("payload")?;
        let payload = c.take(plen)?;
        let end = c.pos;
        let crc = c.u32()?;
        if crc32c::crc32c(&b[start..end]) != crc {
            return Err(c.corrupt(&format!("checksum mismatch in entry '{name}'")));
        }
        let dtype = i32::try_from(code)
            .ok()
            .and_then(DType::from_proto_number)
            .filter(|&d| d != DType::Resource)
            .ok_or_else(|| c.corrupt(&format!("unknown dtype code {code}")))?;
        entries.push(Entry {
            name,
            dtype,
            shape,
            payload,
        });
    }
    if c.pos != b.len() {
        return Err(c.corrupt("extra bytes after the last entry"));
    }
    Ok(entries)
}

/// The tensor an entry holds.
pub(crate) fn entry_tensor(path: &str, e: &Entry<'_>) -> Result<Tensor> {
    let n = e
        .shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= e.payload.len().max(1) * 8);
    let bad = || {
        Error::data_loss(format!(
            "Checkpoint {path} is truncated or corrupt: entry '{}' holds {} payload bytes for {:?} elements of {}",
            e.name,
            e.payload.len(),
            e.shape,
            e.dtype
        ))
    };
    let n = n.ok_or_else(bad)?;
    fn numbers<T: LeBytes>(
        shape: &[usize],
        n: usize,
        p: &[u8],
        bad: impl Fn() -> Error,
    ) -> Result<Tensor> {
        if p.len() != n * T::SIZE {
            return Err(bad());
        }
        Tensor::from_vec(shape, p.chunks_exact(T::SIZE).map(T::get).collect())
    }
    match e.dtype {
        DType::String => {
            let mut c = Cursor {
                path,
                b: e.payload,
                pos: 0,
            };
            // Each string takes at least its 8-byte length.
            if n > e.payload.len() / 8 {
                return Err(bad());
            }
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let len = c.len("string").map_err(|_| bad())?;
                v.push(Bytes::copy_from_slice(c.take(len).map_err(|_| bad())?));
            }
            if c.pos != e.payload.len() {
                return Err(bad());
            }
            Tensor::from_vec(&e.shape, v)
        }
        dt => weir_graph::match_le_dtype!(dt, T => numbers::<T>(&e.shape, n, e.payload, bad),
            _ => Err(bad())),
    }
}

/// Reads a whole weir checkpoint file.
pub(crate) fn read_file(path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        let e: Error = e.into();
        e.with_prefix(&format!("Failed to read checkpoint {path}: "))
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes `entries` in the weir format, as weir versions before the bundle format did;
    /// tests use it to make old checkpoints.
    pub(crate) fn encode(entries: &mut [(String, Tensor)]) -> Vec<u8> {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        for (name, t) in entries.iter() {
            let start = out.len();
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&(t.dtype().proto_number() as u32).to_le_bytes());
            out.extend_from_slice(&(t.rank() as u32).to_le_bytes());
            for &d in t.shape() {
                out.extend_from_slice(&(d as u64).to_le_bytes());
            }
            let mut payload = Vec::new();
            match t.dtype() {
                DType::String => {
                    for b in t.as_slice::<Bytes>().unwrap() {
                        payload.extend_from_slice(&(b.len() as u64).to_le_bytes());
                        payload.extend_from_slice(b);
                    }
                }
                _ => {
                    super::super::data::write_tensor(t, &mut payload).unwrap();
                }
            }
            out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            out.extend_from_slice(&payload);
            let crc = crc32c::crc32c(&out[start..]);
            out.extend_from_slice(&crc.to_le_bytes());
        }
        out
    }

    pub(crate) fn sample() -> Vec<(String, Tensor)> {
        vec![
            (
                "w".into(),
                Tensor::from_vec(&[2, 2], vec![1.0f32, -2.0, 3.5, 0.0]).unwrap(),
            ),
            ("global_step".into(), Tensor::from(7i64)),
            ("names".into(), Tensor::from(vec!["a", "", "ccc"])),
            ("flags".into(), Tensor::from(vec![true, false])),
            ("d".into(), Tensor::from(vec![1e300f64])),
        ]
    }

    #[test]
    fn reads_every_dtype() {
        let mut e = sample();
        let bytes = encode(&mut e);
        let entries = decode("ckpt", &bytes).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        assert_eq!(names, vec!["d", "flags", "global_step", "names", "w"]);
        for (orig, ent) in e.iter().zip(&entries) {
            assert_eq!(&entry_tensor("ckpt", ent).unwrap(), &orig.1);
        }
    }

    #[test]
    fn every_truncation_and_bit_flip_is_data_loss() {
        let bytes = encode(&mut sample());
        for cut in 0..bytes.len() {
            let e = decode("f", &bytes[..cut]).err().unwrap();
            assert!(e.is_data_loss(), "cut {cut}: {e}");
            assert!(e.message().contains("f"), "{e}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            let r = decode("f", &b).and_then(|es| {
                es.iter()
                    .map(|e| entry_tensor("f", e))
                    .collect::<Result<Vec<_>>>()
            });
            assert!(r.err().unwrap().is_data_loss(), "flip at {i}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert!(decode("f", &padded).err().unwrap().is_data_loss());
    }
}
