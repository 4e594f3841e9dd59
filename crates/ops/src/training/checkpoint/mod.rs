//! Checkpoint files and the `SaveV2` / `RestoreV2` ops that write and read them.
//!
//! # Format: TensorFlow's V2 checkpoint (tensor bundle)
//!
//! A checkpoint `prefix` is two files, written and read byte for byte as TensorFlow's
//! `BundleWriter` / `BundleReader` do, so TensorFlow restores what weir saves and weir restores
//! what TensorFlow saves:
//!
//! * `<prefix>.data-00000-of-00001`: the tensors' bytes back to back, in the order `SaveV2`
//!   got them (the `Saver` sorts its variables by name, as TensorFlow's does). Numbers are
//!   little-endian and row-major, a bool is one byte; a string tensor is its elements' lengths
//!   as varint64s, a masked CRC32C of those lengths (each taken as a u32le), then the bytes.
//! * `<prefix>.index`: a LevelDB-format table (TensorFlow's `table::TableBuilder` with its
//!   defaults: 256 KiB data blocks, a restart point every 16 keys, no compression, each block
//!   followed by its type byte and masked CRC32C; an empty metaindex block; an index block; a
//!   48-byte footer ending in the magic `0xdb4775248b80fb57`). Its first key, "", holds a
//!   `BundleHeaderProto` (num_shards 1, little-endian, version producer 1); every other key is a
//!   tensor name, in byte order, holding a `BundleEntryProto` (dtype, shape, shard, offset and
//!   size in the data file, masked CRC32C of the bytes). See [`proto`].
//!
//! Each file is written under a temporary name (`<file>.tempstate<n>`) and renamed into place,
//! the data file first and the index last, so a reader that finds `<prefix>.index` finds a whole
//! checkpoint. Reading checks every index block's CRC, every entry, and each restored tensor's
//! size and CRC: a damaged file is DataLoss naming it (and the offset), never a panic, and no
//! buffer is sized by a length from a file before that length is checked against the file's size.
//!
//! Checkpoints written by weir before it wrote TensorFlow's format (one "WEIRCKPT" file at the
//! prefix itself) still restore: when `<prefix>.index` does not exist and the file at the prefix
//! starts with that magic, it is read instead. weir writes only TensorFlow's format.
//!
//! Not supported: restoring partitioned variables saved as slices (`shape_and_slices` must be
//! empty), sharded saves (`MergeV2Checkpoints`), TensorFlow's V1 checkpoints, and big-endian
//! bundles. Bundles of several shards, as merged sharded saves are, do restore.

pub(crate) mod bundle;
mod data;
mod legacy;
pub mod proto;
mod sharded;
mod table;

use std::path::Path;

use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    format_dims, ArgType, AttrKind, Bytes, DType, Error, Kernel, Node, OpContext, OpDef, Output,
    Result, Shape, Tensor,
};

use bundle::{dtype_mismatch, write_bundle, BundleReader};
pub use sharded::merge_v2_checkpoints;
use table::TableOptions;

/// TensorFlow's `MetaFilename`: the index file of the checkpoint `prefix`.
pub fn index_filename(prefix: &str) -> String {
    format!("{prefix}.index")
}

/// TensorFlow's `DataFilename`: data file `shard` of `num_shards` of the checkpoint `prefix`.
pub fn data_filename(prefix: &str, shard: i32, num_shards: i32) -> String {
    format!("{prefix}.data-{shard:05}-of-{num_shards:05}")
}

/// TensorFlow's `DataTypeString` of a `DataType` number, for messages about dtypes weir may not
/// have.
pub(crate) fn dtype_name(code: i32) -> String {
    if let Some(d) = DType::from_proto_number(code) {
        return d.to_string();
    }
    const NAMES: [&str; 28] = [
        "INVALID",
        "float",
        "double",
        "int32",
        "uint8",
        "int16",
        "int8",
        "string",
        "complex64",
        "int64",
        "bool",
        "qint8",
        "quint8",
        "qint32",
        "bfloat16",
        "qint16",
        "quint16",
        "uint16",
        "complex128",
        "half",
        "resource",
        "variant",
        "uint32",
        "uint64",
        "float8_e5m2",
        "float8_e4m3fn",
        "int4",
        "uint4",
    ];
    match usize::try_from(code) {
        Ok(c) if c < NAMES.len() => NAMES[c].to_string(),
        Ok(c) if (101..100 + NAMES.len()).contains(&c) => format!("{}_ref", NAMES[c - 100]),
        _ => format!("unknown dtype enum ({code})"),
    }
}

/// Writes `tensors` as the TensorFlow checkpoint `prefix` (`<prefix>.index` and
/// `<prefix>.data-00000-of-00001`), the data in the order given, as `SaveV2` does.
pub fn write_checkpoint(prefix: &str, tensors: &[(String, Tensor)]) -> Result<()> {
    let refs: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    write_bundle(prefix, &refs, TableOptions::default())
}

/// What a checkpoint prefix names: a TensorFlow bundle, or an old weir file.
enum Source {
    Bundle(BundleReader),
    Legacy(Vec<u8>),
}

fn open(prefix: &str) -> Result<Source> {
    if Path::new(&index_filename(prefix)).exists() {
        return Ok(Source::Bundle(BundleReader::open(prefix)?));
    }
    if Path::new(prefix).is_file() {
        if legacy::is_legacy(prefix) {
            return Ok(Source::Legacy(legacy::read_file(prefix)?));
        }
        return Err(Error::data_loss(format!(
            "Unable to open checkpoint {prefix}: it has no {} and the file at the prefix is not a weir checkpoint (bad magic number); TensorFlow V1 checkpoints are not supported",
            index_filename(prefix)
        )));
    }
    Err(Error::not_found(format!(
        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix}"
    )))
}

/// Reads the tensors `names` from the checkpoint `prefix`, checking each against `dtypes`:
/// NotFound for a missing checkpoint, file or name, InvalidArgument for a dtype mismatch,
/// DataLoss for a damaged file.
pub fn read_checkpoint(prefix: &str, names: &[String], dtypes: &[DType]) -> Result<Vec<Tensor>> {
    if names.len() != dtypes.len() {
        return Err(Error::invalid_argument(format!(
            "Got {} tensor names but {} dtypes",
            names.len(),
            dtypes.len()
        )));
    }
    match open(prefix)? {
        Source::Bundle(mut reader) => {
            // As TensorFlow: look every name up in name order first, then read the data.
            let mut order: Vec<usize> = (0..names.len()).collect();
            order.sort_by(|&a, &b| names[a].cmp(&names[b]));
            let mut infos = Vec::with_capacity(names.len());
            for &i in &order {
                let info = reader.entry(names[i].as_bytes())?;
                if info.dtype != dtypes[i].proto_number() {
                    return Err(dtype_mismatch(&names[i], dtypes[i], info.dtype));
                }
                infos.push((i, info));
            }
            let mut out: Vec<Option<Tensor>> = vec![None; names.len()];
            for (i, info) in &infos {
                out[*i] = Some(reader.read(&names[*i], info, dtypes[*i])?);
            }
            Ok(out.into_iter().flatten().collect())
        }
        Source::Legacy(bytes) => {
            let entries = legacy::decode(prefix, &bytes)?;
            names
                .iter()
                .zip(dtypes)
                .map(|(name, &want)| {
                    let e = entries.iter().find(|e| e.name == name).ok_or_else(|| {
                        Error::not_found(format!("Key {name} not found in checkpoint"))
                    })?;
                    if e.dtype != want {
                        return Err(dtype_mismatch(name, want, e.dtype.proto_number()));
                    }
                    legacy::entry_tensor(prefix, e)
                })
                .collect()
        }
    }
}

/// The (name, dtype, shape) of every tensor in the checkpoint `prefix`, sorted by name
/// (TensorFlow's `tf.train.list_variables`); Unimplemented for a dtype weir does not have.
pub fn list_checkpoint(prefix: &str) -> Result<Vec<(String, DType, Vec<usize>)>> {
    match open(prefix)? {
        Source::Bundle(reader) => {
            let mut out = Vec::new();
            // Keys starting with a zero byte name the slices of partitioned variables.
            for key in reader.keys().filter(|k| k.first() != Some(&0)) {
                let info = reader.entry(key)?;
                let name = String::from_utf8_lossy(key).into_owned();
                let dtype = DType::from_proto_number(info.dtype)
                    .filter(|&d| d != DType::Resource)
                    .ok_or_else(|| {
                        Error::unimplemented(format!(
                            "{name} in checkpoint {prefix} has dtype {}, which weir does not support",
                            dtype_name(info.dtype)
                        ))
                    })?;
                out.push((name, dtype, info.shape));
            }
            Ok(out)
        }
        Source::Legacy(bytes) => Ok(legacy::decode(prefix, &bytes)?
            .into_iter()
            .map(|e| (e.name.to_string(), e.dtype, e.shape))
            .collect()),
    }
}

/// Whether the checkpoint `prefix` exists, as TensorFlow's `checkpoint_exists` decides: its
/// `<prefix>.index` exists, or (an old weir checkpoint) a file at the prefix itself.
pub fn checkpoint_exists(prefix: &str) -> bool {
    Path::new(&index_filename(prefix)).exists() || Path::new(prefix).is_file()
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

fn prefix_of(ctx: &OpContext<'_>) -> Result<String> {
    let prefix = ctx.input(0).to_scalar::<Bytes>()?;
    Ok(String::from_utf8_lossy(&prefix).into_owned())
}

struct SaveKernel;

impl Kernel for SaveKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let prefix = prefix_of(ctx)?;
        let names = string_list(ctx.input(1), "tensor_names")?;
        check_slices(&names, &string_list(ctx.input(2), "shape_and_slices")?)?;
        if ctx.num_inputs() - 3 != names.len() {
            return Err(Error::invalid_argument(format!(
                "Got {} tensor names but {} tensors",
                names.len(),
                ctx.num_inputs() - 3
            )));
        }
        let tensors: Vec<(&str, &Tensor)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), ctx.input(i + 3)))
            .collect();
        write_bundle(&prefix, &tensors, TableOptions::default())
    }

    fn may_block(&self) -> bool {
        true
    }
}

struct RestoreKernel(Vec<DType>);

impl Kernel for RestoreKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let prefix = prefix_of(ctx)?;
        let names = string_list(ctx.input(1), "tensor_names")?;
        check_slices(&names, &string_list(ctx.input(2), "shape_and_slices")?)?;
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
/// under `tensor_names` as the checkpoint `prefix` (slices must be empty strings).
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
/// of `dtypes`, from the checkpoint `prefix`.
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
    sharded::register();
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

#[cfg(test)]
mod tests;
