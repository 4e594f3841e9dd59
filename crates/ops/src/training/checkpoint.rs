//! Checkpoint files and the `SaveV2` / `RestoreV2` ops that write and read them.
//!
//! # Format (weir checkpoint, version 1)
//!
//! weir writes its own single-file format at exactly the checkpoint prefix (TensorFlow 2's
//! index + data bundle is not reproduced). All integers are little-endian.
//!
//! ```text
//! header  "WEIRCKPT"                 8 bytes, magic
//!         version: u32               = 1
//!         entries: u64               number of entries that follow
//!         crc: u32                   CRC32C of the 20 bytes above
//! entry   name_len: u32, name        UTF-8 tensor name (the variable's name), sorted by name
//!         dtype: u32                 TensorFlow's DataType number (DT_FLOAT = 1, DT_INT64 = 9, ...)
//!         rank: u32, dims: u64 * rank
//!         payload_len: u64, payload  row-major elements: numbers little-endian, bool one byte,
//!                                    strings as u64 length + bytes each
//!         crc: u32                   CRC32C of every byte of the entry before it
//! ```
//!
//! Nothing may follow the last entry. A file is written to a temporary name beside the
//! target and renamed over it, so a reader sees the old file or the new one, never part of
//! one. A short, altered or padded file fails with DataLoss naming the file.

use std::io::Write;
use std::path::Path;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, Bytes, DType, Error, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor, TensorType,
};

const MAGIC: &[u8; 8] = b"WEIRCKPT";
const VERSION: u32 = 1;

/// TensorFlow's `DataType` enum number of a dtype.
fn dtype_code(dt: DType) -> Result<u32> {
    if dt == DType::Resource {
        return Err(Error::invalid_argument(
            "A resource handle cannot be saved in a checkpoint",
        ));
    }
    Ok(dt.proto_number() as u32)
}

fn dtype_of_code(c: u32) -> Option<DType> {
    i32::try_from(c)
        .ok()
        .and_then(DType::from_proto_number)
        .filter(|&d| d != DType::Resource)
}

/// Little-endian encoding of one element type.
trait LeBytes: TensorType + Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

macro_rules! le_numbers {
    ($($t:ty),*) => {$(
        impl LeBytes for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
le_numbers!(f32, f64, i8, i16, i32, i64, u8, u16);

impl LeBytes for bool {
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(b: &[u8]) -> Self {
        b[0] != 0
    }
}

fn put_payload(t: &Tensor, out: &mut Vec<u8>) -> Result<()> {
    fn numbers<T: LeBytes>(t: &Tensor, out: &mut Vec<u8>) -> Result<()> {
        let s = t.as_slice::<T>()?;
        out.reserve(s.len() * T::SIZE);
        for &v in s {
            v.put(out);
        }
        Ok(())
    }
    match t.dtype() {
        DType::String => {
            for b in t.as_slice::<Bytes>()? {
                out.extend_from_slice(&(b.len() as u64).to_le_bytes());
                out.extend_from_slice(b);
            }
            Ok(())
        }
        DType::Bool => numbers::<bool>(t, out),
        dt => weir_graph::match_real_dtype!(dt, T => numbers::<T>(t, out),
            _ => Err(Error::invalid_argument(format!("Cannot save a {dt} tensor")))),
    }
}

/// Serializes `entries` (name, tensor) in the documented format, sorted by name.
pub(crate) fn encode(entries: &mut [(String, Tensor)]) -> Result<Vec<u8>> {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    let mut payload = Vec::new();
    for (name, t) in entries.iter() {
        let start = out.len();
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&dtype_code(t.dtype())?.to_le_bytes());
        out.extend_from_slice(&(t.rank() as u32).to_le_bytes());
        for &d in t.shape() {
            out.extend_from_slice(&(d as u64).to_le_bytes());
        }
        payload.clear();
        put_payload(t, &mut payload)?;
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        let crc = crc32c::crc32c(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    Ok(out)
}

/// Writes `bytes` to `path` through a temporary file renamed over it.
pub(crate) fn write_atomically(path: &str, bytes: &[u8]) -> Result<()> {
    let tmp = format!("{path}.tmp{}", std::process::id());
    let io = |e: std::io::Error, what: &str| -> Error {
        let e: Error = e.into();
        e.with_prefix(&format!("Failed to {what} checkpoint {path}: "))
    };
    let mut f = std::fs::File::create(&tmp).map_err(|e| io(e, "create"))?;
    let written = f.write_all(bytes).and_then(|_| f.sync_all());
    drop(f);
    if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e, "write"));
    }
    Ok(())
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
struct Entry<'a> {
    name: &'a str,
    dtype: DType,
    shape: Vec<usize>,
    payload: &'a [u8],
}

/// Parses and checks every entry of a checkpoint file's bytes.
fn decode<'a>(path: &'a str, b: &'a [u8]) -> Result<Vec<Entry<'a>>> {
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
        let dtype =
            dtype_of_code(code).ok_or_else(|| c.corrupt(&format!("unknown dtype code {code}")))?;
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

fn entry_tensor(path: &str, e: &Entry<'_>) -> Result<Tensor> {
    let n: usize = e.shape.iter().product();
    let bad = || {
        Error::data_loss(format!(
            "Checkpoint {path} is truncated or corrupt: entry '{}' holds {} payload bytes for {} elements of {}",
            e.name,
            e.payload.len(),
            n,
            e.dtype
        ))
    };
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
        DType::Bool => numbers::<bool>(&e.shape, n, e.payload, bad),
        dt => weir_graph::match_real_dtype!(dt, T => numbers::<T>(&e.shape, n, e.payload, bad),
            _ => Err(bad())),
    }
}

/// Reads the tensors `names` from the checkpoint at `path`, checking each against `dtypes`:
/// NotFound for a missing file or name, InvalidArgument for a dtype mismatch, DataLoss for a
/// damaged file.
pub fn read_checkpoint(path: &str, names: &[String], dtypes: &[DType]) -> Result<Vec<Tensor>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::not_found(format!(
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path}"
            )))
        }
        Err(e) => {
            let e: Error = e.into();
            return Err(e.with_prefix(&format!("Failed to read checkpoint {path}: ")));
        }
    };
    let entries = decode(path, &bytes)?;
    names
        .iter()
        .zip(dtypes)
        .map(|(name, &want)| {
            let e = entries
                .iter()
                .find(|e| e.name == name)
                .ok_or_else(|| Error::not_found(format!("Key {name} not found in checkpoint")))?;
            if e.dtype != want {
                return Err(Error::invalid_argument(format!(
                    "tensor_name = {name}; expected dtype {want} does not equal original dtype {}",
                    e.dtype
                )));
            }
            entry_tensor(path, e)
        })
        .collect()
}

/// The (name, dtype, shape) of every tensor in the checkpoint at `path`, sorted by name
/// (TensorFlow's `tf.train.list_variables`).
pub fn list_checkpoint(path: &str) -> Result<Vec<(String, DType, Vec<usize>)>> {
    let bytes = std::fs::read(path).map_err(|e| {
        let e: Error = e.into();
        e.with_prefix(&format!("Failed to read checkpoint {path}: "))
    })?;
    Ok(decode(path, &bytes)?
        .into_iter()
        .map(|e| (e.name.to_string(), e.dtype, e.shape))
        .collect())
}

fn string_list(t: &Tensor, what: &str) -> Result<Vec<String>> {
    if t.dtype() != DType::String || t.rank() != 1 {
        return Err(Error::invalid_argument(format!(
            "{what} must be a 1-D string tensor, got {} {}",
            t.dtype(),
            format_dims(t.shape())
        )));
    }
    t.to_strings()
}

fn check_slices(names: &[String], slices: &[String]) -> Result<()> {
    if slices.len() != names.len() {
        return Err(Error::invalid_argument(format!(
            "shape_and_slices has {} entries but tensor_names has {}",
            slices.len(),
            names.len()
        )));
    }
    if let Some(s) = slices.iter().find(|s| !s.is_empty()) {
        return Err(Error::unimplemented(format!(
            "Saving or restoring slices ('{s}') is not supported; use whole tensors"
        )));
    }
    Ok(())
}

struct SaveKernel;

impl Kernel for SaveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let prefix = ctx.input(0).to_scalar::<Bytes>()?;
        let prefix = String::from_utf8_lossy(&prefix).into_owned();
        let names = string_list(ctx.input(1), "tensor_names")?;
        check_slices(&names, &string_list(ctx.input(2), "shape_and_slices")?)?;
        if ctx.num_inputs() - 3 != names.len() {
            return Err(Error::invalid_argument(format!(
                "Got {} tensor names but {} tensors",
                names.len(),
                ctx.num_inputs() - 3
            )));
        }
        let mut entries: Vec<(String, Tensor)> = names
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n, ctx.input(i + 3).clone()))
            .collect();
        let bytes = encode(&mut entries)?;
        write_atomically(&prefix, &bytes)
    }

    fn may_block(&self) -> bool {
        true
    }
}

struct RestoreKernel(Vec<DType>);

impl Kernel for RestoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let prefix = ctx.input(0).to_scalar::<Bytes>()?;
        let prefix = String::from_utf8_lossy(&prefix).into_owned();
        let names = string_list(ctx.input(1), "tensor_names")?;
        check_slices(&names, &string_list(ctx.input(2), "shape_and_slices")?)?;
        if names.len() != self.0.len() {
            return Err(Error::invalid_argument(format!(
                "Got {} tensor names but {} dtypes",
                names.len(),
                self.0.len()
            )));
        }
        for (i, t) in read_checkpoint(&prefix, &names, &self.0)?
            .into_iter()
            .enumerate()
        {
            ctx.set_output(i, t);
        }
        Ok(())
    }

    fn may_block(&self) -> bool {
        true
    }
}

/// TensorFlow's `SaveV2(prefix, tensor_names, shape_and_slices, tensors)`: writes `tensors`
/// under `tensor_names` to the checkpoint file `prefix` (slices must be empty strings).
pub fn save_v2(
    prefix: impl Into<Output>,
    tensor_names: impl Into<Output>,
    shape_and_slices: impl Into<Output>,
    tensors: &[Output],
    name: &str,
) -> Result<weir_graph::Operation> {
    let p = prefix.into();
    crate::new_op(&p.graph().clone(), "SaveV2")
        .name(name)
        .input(p)
        .input(tensor_names)
        .input(shape_and_slices)
        .inputs(tensors)
        .build()
}

/// TensorFlow's `RestoreV2(prefix, tensor_names, shape_and_slices)`: reads the named tensors,
/// of `dtypes`, from the checkpoint file `prefix`.
pub fn restore_v2(
    prefix: impl Into<Output>,
    tensor_names: impl Into<Output>,
    shape_and_slices: impl Into<Output>,
    dtypes: &[DType],
    name: &str,
) -> Result<Vec<Output>> {
    let p = prefix.into();
    Ok(crate::new_op(&p.graph().clone(), "RestoreV2")
        .name(name)
        .input(p)
        .input(tensor_names)
        .input(shape_and_slices)
        .attr("dtypes", dtypes.to_vec())
        .build()?
        .outputs())
}

pub(super) fn register() {
    register_op(
        OpDef::new("SaveV2")
            .input("prefix", ArgType::Fixed(DType::String))
            .input("tensor_names", ArgType::Fixed(DType::String))
            .input("shape_and_slices", ArgType::Fixed(DType::String))
            .input("tensors", ArgType::List("dtypes"))
            .attr("dtypes", AttrKind::Types, None)
            .stateful(),
    );
    register_kernel("SaveV2", |_| Ok(Box::new(SaveKernel)));
    register_op(
        OpDef::new("RestoreV2")
            .input("prefix", ArgType::Fixed(DType::String))
            .input("tensor_names", ArgType::Fixed(DType::String))
            .input("shape_and_slices", ArgType::Fixed(DType::String))
            .output("tensors", ArgType::List("dtypes"))
            .attr("dtypes", AttrKind::Types, None)
            .stateful()
            .shape_fn(|ctx| {
                for i in 0..ctx.num_outputs() {
                    ctx.set_output(i, Shape::unknown());
                }
                Ok(())
            }),
    );
    register_kernel("RestoreV2", |node: &Node| {
        Ok(Box::new(RestoreKernel(node.attr("dtypes")?)))
    });
}

/// Whether a checkpoint file exists at `path` (TensorFlow's `checkpoint_exists`).
pub fn checkpoint_exists(path: &str) -> bool {
    Path::new(path).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(String, Tensor)> {
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
    fn round_trips_every_dtype() {
        let mut e = sample();
        let bytes = encode(&mut e).unwrap();
        let entries = decode("ckpt", &bytes).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        assert_eq!(names, vec!["d", "flags", "global_step", "names", "w"]);
        for (orig, ent) in e.iter().zip(&entries) {
            assert_eq!(&entry_tensor("ckpt", ent).unwrap(), &orig.1);
        }
    }

    #[test]
    fn every_truncation_and_bit_flip_is_data_loss() {
        let bytes = encode(&mut sample()).unwrap();
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
