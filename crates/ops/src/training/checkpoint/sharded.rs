//! The ops of TensorFlow's sharded saves: `ShardedFilename`, `ShardedFilespec` and
//! `MergeV2Checkpoints`, which a `tf.train.Saver(sharded=True)` (the saver of
//! `MonitoredTrainingSession` and of `SavedModelBuilder`) wires into its save subgraph: each
//! shard is saved to a temporary prefix, then the shards are merged into the checkpoint.
//!
//! The merge works as TensorFlow's `MergeBundles`: each shard's data files are renamed into
//! the destination (`<dest>.data-0000i-of-0000N`), never copied, and one index lists every
//! key with its shard number adjusted; the shards' index files and (with `delete_old_dirs`)
//! their emptied directories are then removed.

use std::path::Path;

use prost::Message;
use weir_graph::registry::{register_kernel, register_op};
use weir_graph::{
    ArgType, AttrKind, AttrValue, Bytes, DType, Error, Kernel, Node, OpContext, OpDef, Result,
    Shape, Tensor,
};

use super::bundle::{write_index, BundleReader};
use super::proto::BundleEntryProto;
use super::table::TableOptions;
use super::{data_filename, index_filename};

/// TensorFlow's `ShardedFilename`: `basename-00003-of-00008`.
fn sharded_filename(basename: &str, shard: i32, num_shards: i32) -> String {
    format!("{basename}-{shard:05}-of-{num_shards:05}")
}

fn scalar_string(t: &Tensor, what: &str) -> Result<String> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be a scalar, got shape {}",
            weir_graph::format_dims(t.shape())
        )));
    }
    Ok(String::from_utf8_lossy(&t.to_scalar::<Bytes>()?).into_owned())
}

fn scalar_i32(t: &Tensor, what: &str) -> Result<i32> {
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be a scalar, got shape {}",
            weir_graph::format_dims(t.shape())
        )));
    }
    t.to_scalar::<i32>()
}

struct ShardedFilenameKernel;

impl Kernel for ShardedFilenameKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let base = scalar_string(ctx.input(0), "basename")?;
        let shard = scalar_i32(ctx.input(1), "shard")?;
        let num = scalar_i32(ctx.input(2), "num_shards")?;
        ctx.set_output(
            0,
            Tensor::from(sharded_filename(&base, shard, num).as_str()),
        );
        Ok(())
    }
}

struct ShardedFilespecKernel;

impl Kernel for ShardedFilespecKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let base = scalar_string(ctx.input(0), "basename")?;
        let num = scalar_i32(ctx.input(1), "num_shards")?;
        ctx.set_output(
            0,
            Tensor::from(format!("{base}-?????-of-{num:05}").as_str()),
        );
        Ok(())
    }
}

/// Merges the bundles `prefixes` into the bundle `dest`; see the module doc.
pub fn merge_v2_checkpoints(
    prefixes: &[String],
    dest: &str,
    delete_old_dirs: bool,
    allow_missing_files: bool,
) -> Result<()> {
    let mut readers = Vec::with_capacity(prefixes.len());
    for p in prefixes {
        if allow_missing_files && !Path::new(&index_filename(p)).exists() {
            continue;
        }
        readers.push((p.as_str(), BundleReader::open(p)?));
    }
    if readers.is_empty() {
        return Err(Error::invalid_argument(
            "Merge checkpoints: no checkpoint prefixes to merge (all missing)",
        ));
    }
    let total: i32 = readers.iter().map(|(_, r)| r.num_shards()).sum();
    let mut merged: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut renames = Vec::new();
    let mut offset = 0i32;
    for (prefix, r) in &readers {
        // As TensorFlow's MergeBundles, only the data files that entries point into move: an
        // empty bundle (a cache of an empty dataset) has none.
        let mut used = std::collections::BTreeSet::new();
        for (key, bytes) in r.raw_entries() {
            let mut entry = BundleEntryProto::decode(bytes.as_slice()).map_err(|_| {
                Error::data_loss(format!(
                    "Entry for key {} not parseable in checkpoint index {}.",
                    String::from_utf8_lossy(key),
                    index_filename(prefix)
                ))
            })?;
            used.insert(entry.shard_id);
            entry.shard_id += offset;
            merged.push((key.clone(), entry.encode_to_vec()));
        }
        for i in (0..r.num_shards()).filter(|i| used.contains(i)) {
            renames.push((
                data_filename(prefix, i, r.num_shards()),
                data_filename(dest, offset + i, total),
            ));
        }
        offset += r.num_shards();
    }
    merged.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(w) = merged.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::invalid_argument(format!(
            "Duplicate tensor keyed by {} encountered, when merging prefixes {}",
            String::from_utf8_lossy(&w[0].0),
            prefixes.join(", ")
        )));
    }
    if let Some(dir) = Path::new(dest)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::from(e).with_prefix(&format!("Failed to create the directory of {dest}: "))
        })?;
    }
    for (from, to) in &renames {
        std::fs::rename(from, to).map_err(|e| {
            Error::from(e).with_prefix(&format!("Failed to rename {from} to {to}: "))
        })?;
    }
    write_index(dest, total, merged.into_iter(), TableOptions::default())?;
    for (prefix, _) in &readers {
        let index = index_filename(prefix);
        std::fs::remove_file(&index)
            .map_err(|e| Error::from(e).with_prefix(&format!("Failed to delete {index}: ")))?;
        if delete_old_dirs {
            // Best effort, as TensorFlow's: the directory goes only once it is empty.
            if let Some(dir) = Path::new(prefix).parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
    Ok(())
}

struct MergeKernel {
    delete_old_dirs: bool,
    allow_missing_files: bool,
}

impl Kernel for MergeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let prefixes = ctx.input(0);
        if prefixes.rank() != 1 || prefixes.dtype() != DType::String {
            return Err(Error::invalid_argument(format!(
                "Input checkpoint_prefixes should be a 1-D string tensor, got {} {}",
                prefixes.dtype(),
                weir_graph::format_dims(prefixes.shape())
            )));
        }
        let prefixes = prefixes.to_strings()?;
        let dest = scalar_string(ctx.input(1), "Input destination_prefix")?;
        merge_v2_checkpoints(
            &prefixes,
            &dest,
            self.delete_old_dirs,
            self.allow_missing_files,
        )
    }

    fn may_block(&self) -> bool {
        true
    }
}

pub(super) fn register() {
    register_op(
        OpDef::new("ShardedFilename")
            .input("basename", ArgType::Fixed(DType::String))
            .input("shard", ArgType::Fixed(DType::I32))
            .input("num_shards", ArgType::Fixed(DType::I32))
            .output("filename", ArgType::Fixed(DType::String))
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("ShardedFilename", |_| Ok(Box::new(ShardedFilenameKernel)));
    register_op(
        OpDef::new("ShardedFilespec")
            .input("basename", ArgType::Fixed(DType::String))
            .input("num_shards", ArgType::Fixed(DType::I32))
            .output("filename", ArgType::Fixed(DType::String))
            .shape_fn(|ctx| {
                ctx.set_output(0, Shape::scalar());
                Ok(())
            }),
    );
    register_kernel("ShardedFilespec", |_| Ok(Box::new(ShardedFilespecKernel)));
    register_op(
        OpDef::new("MergeV2Checkpoints")
            .input("checkpoint_prefixes", ArgType::Fixed(DType::String))
            .input("destination_prefix", ArgType::Fixed(DType::String))
            .attr(
                "delete_old_dirs",
                AttrKind::Bool,
                Some(AttrValue::Bool(true)),
            )
            .attr(
                "allow_missing_files",
                AttrKind::Bool,
                Some(AttrValue::Bool(false)),
            )
            .stateful(),
    );
    register_kernel("MergeV2Checkpoints", |node: &Node| {
        Ok(Box::new(MergeKernel {
            delete_old_dirs: node.attr("delete_old_dirs")?,
            allow_missing_files: node.attr("allow_missing_files")?,
        }))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::checkpoint::{read_checkpoint, write_checkpoint};

    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("weir-merge-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn filenames_are_tensorflows() {
        assert_eq!(
            sharded_filename("/a/b_temp/part", 3, 8),
            "/a/b_temp/part-00003-of-00008"
        );
    }

    #[test]
    fn shards_merge_into_one_checkpoint_and_their_files_go() {
        let dir = temp_dir("two");
        let tmp = dir.join("model_temp");
        std::fs::create_dir_all(&tmp).unwrap();
        let p0 = tmp
            .join("part-00000-of-00002")
            .to_string_lossy()
            .into_owned();
        let p1 = tmp
            .join("part-00001-of-00002")
            .to_string_lossy()
            .into_owned();
        write_checkpoint(&p0, &[("b".into(), Tensor::from(vec![1.0f32, 2.0]))]).unwrap();
        write_checkpoint(&p1, &[("a".into(), Tensor::from(7i64))]).unwrap();
        let dest = dir.join("model.ckpt").to_string_lossy().into_owned();
        merge_v2_checkpoints(&[p0.clone(), p1.clone()], &dest, true, false).unwrap();
        let got = read_checkpoint(
            &dest,
            &["a".to_string(), "b".to_string()],
            &[DType::I64, DType::F32],
        )
        .unwrap();
        assert_eq!(got[0].to_scalar::<i64>().unwrap(), 7);
        assert_eq!(got[1].to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
        assert!(Path::new(&data_filename(&dest, 1, 2)).is_file());
        assert!(!tmp.exists(), "the emptied shard directory is deleted");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn duplicate_keys_and_missing_shards_are_errors() {
        let dir = temp_dir("dup");
        let p0 = dir.join("p0").to_string_lossy().into_owned();
        let p1 = dir.join("p1").to_string_lossy().into_owned();
        write_checkpoint(&p0, &[("a".into(), Tensor::from(1i64))]).unwrap();
        write_checkpoint(&p1, &[("a".into(), Tensor::from(2i64))]).unwrap();
        let dest = dir.join("m").to_string_lossy().into_owned();
        let e = merge_v2_checkpoints(&[p0.clone(), p1], &dest, false, false).unwrap_err();
        assert!(e.is_invalid_argument(), "{e}");
        assert!(e.to_string().contains("Duplicate tensor keyed by a"), "{e}");
        let missing = dir.join("nope").to_string_lossy().into_owned();
        let e =
            merge_v2_checkpoints(std::slice::from_ref(&missing), &dest, false, false).unwrap_err();
        assert!(e.is_not_found(), "{e}");
        merge_v2_checkpoints(&[p0, missing], &dest, false, true).unwrap();
        assert!(Path::new(&index_filename(&dest)).is_file());
        std::fs::remove_dir_all(&dir).ok();
    }
}
