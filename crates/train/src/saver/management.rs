//! TensorFlow 1's checkpoint management functions (`tf.compat.v1.train.checkpoint_exists`,
//! `get_checkpoint_mtimes`, `remove_checkpoint`, `update_checkpoint_state`,
//! `generate_checkpoint_state_proto`): for programs that keep their own checkpoints.

use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use weir_graph::{Code, Error, Result};

use super::state::{write_state, CheckpointState, STATE_FILE};

/// `tf.compat.v1.train.checkpoint_exists(checkpoint_prefix)`: whether a checkpoint (its
/// `.index` file, or an old single-file checkpoint) exists at `prefix`.
pub fn checkpoint_exists(prefix: &str) -> bool {
    weir_ops::training::checkpoint_exists(prefix)
}

/// `tf.compat.v1.train.get_checkpoint_mtimes(checkpoint_prefixes)`: the modification time,
/// in seconds since the Unix epoch, of each checkpoint that exists (its `.index` file, else
/// the prefix itself); missing ones are left out, as in TensorFlow.
pub fn get_checkpoint_mtimes(prefixes: &[String]) -> Vec<f64> {
    let mtime = |p: &str| -> Option<f64> {
        let t = std::fs::metadata(p).ok()?.modified().ok()?;
        Some(t.duration_since(UNIX_EPOCH).ok()?.as_secs_f64())
    };
    prefixes
        .iter()
        .filter_map(|p| mtime(&format!("{p}.index")).or_else(|| mtime(p)))
        .collect()
}

/// `tf.compat.v1.train.remove_checkpoint(checkpoint_prefix)`: deletes the checkpoint's
/// `.index` file first (so it no longer exists), then its data files and `.meta` graph.
/// Files already gone are not an error.
pub fn remove_checkpoint(prefix: &str) -> Result<()> {
    let remove = |path: &Path| match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => {
            let e: Error = e.into();
            Err(e.with_prefix(&format!(
                "Failed to delete old checkpoint file {}: ",
                path.display()
            )))
        }
    };
    remove(Path::new(&weir_ops::training::checkpoint::index_filename(
        prefix,
    )))?;
    let path = Path::new(prefix);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let data_start = match path.file_name().and_then(|n| n.to_str()) {
        Some(base) => format!("{base}.data-"),
        None => return Ok(()),
    };
    let is_data_file = |name: &str| {
        name.strip_prefix(&data_start)
            .and_then(|rest| rest.split_once("-of-"))
            .is_some_and(|(shard, of)| {
                [shard, of]
                    .iter()
                    .all(|n| n.len() == 5 && n.bytes().all(|b| b.is_ascii_digit()))
            })
    };
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(is_data_file) {
                remove(&entry.path())?;
            }
        }
    }
    remove(Path::new(&format!("{prefix}.meta")))
}

/// `tf.compat.v1.train.generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
/// all_model_checkpoint_paths)`: the `CheckpointState` that names `model_checkpoint_path` as
/// the newest (appended to `all_model_checkpoint_paths` unless it is already last). When
/// `save_dir` is relative, the relative paths are made relative to it, as TensorFlow does.
pub fn generate_checkpoint_state_proto(
    save_dir: impl AsRef<Path>,
    model_checkpoint_path: &str,
    all_model_checkpoint_paths: &[String],
) -> CheckpointState {
    let dir = save_dir.as_ref();
    let mut all = all_model_checkpoint_paths.to_vec();
    if all.last().map(String::as_str) != Some(model_checkpoint_path) {
        all.push(model_checkpoint_path.to_string());
    }
    let mut model = model_checkpoint_path.to_string();
    if dir.is_relative() {
        let rel = |p: &str| {
            if Path::new(p).is_absolute() {
                p.to_string()
            } else {
                relpath(Path::new(p), dir)
            }
        };
        model = rel(&model);
        for p in &mut all {
            *p = rel(p);
        }
    }
    CheckpointState {
        model_checkpoint_path: model,
        all_model_checkpoint_paths: all,
        ..Default::default()
    }
}

/// `tf.compat.v1.train.update_checkpoint_state(save_dir, model_checkpoint_path,
/// all_model_checkpoint_paths)`: writes the `checkpoint` state file of `save_dir`
/// atomically, with [`generate_checkpoint_state_proto`]'s contents. A model checkpoint path
/// that is the state file itself is Unknown (TensorFlow's RuntimeError).
pub fn update_checkpoint_state(
    save_dir: impl AsRef<Path>,
    model_checkpoint_path: &str,
    all_model_checkpoint_paths: &[String],
) -> Result<()> {
    let dir = save_dir.as_ref();
    let state =
        generate_checkpoint_state_proto(dir, model_checkpoint_path, all_model_checkpoint_paths);
    let state_file = dir.join(STATE_FILE);
    if Path::new(&state.model_checkpoint_path) == state_file {
        return Err(Error::new(
            Code::Unknown,
            format!(
                "Save path '{model_checkpoint_path}' conflicts with path used for checkpoint \
                 state.  Please use a different save path."
            ),
        ));
    }
    write_state(dir, &state)
}

/// Python's `os.path.relpath(path, start)` for two relative paths, lexically.
fn relpath(path: &Path, start: &Path) -> String {
    let norm = |p: &Path| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    if out.last().is_some_and(|l| l != "..") {
                        out.pop();
                    } else {
                        out.push("..".to_string());
                    }
                }
                other => out.push(other.as_os_str().to_string_lossy().into_owned()),
            }
        }
        out
    };
    let (p, s) = (norm(path), norm(start));
    let common = p.iter().zip(&s).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..s.len() {
        rel.push("..");
    }
    for c in &p[common..] {
        rel.push(c);
    }
    let rel = rel.to_string_lossy().into_owned();
    if rel.is_empty() {
        ".".to_string()
    } else {
        rel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_made_relative_to_a_relative_save_dir() {
        let s = generate_checkpoint_state_proto(
            "ck",
            "ck/model-2",
            &["ck/model-1".to_string(), "/abs/model-0".to_string()],
        );
        assert_eq!(s.model_checkpoint_path, "model-2");
        assert_eq!(
            s.all_model_checkpoint_paths,
            ["model-1", "/abs/model-0", "model-2"]
        );
        let s = generate_checkpoint_state_proto("/abs/ck", "rel/m", &[]);
        assert_eq!(s.model_checkpoint_path, "rel/m");
        assert_eq!(relpath(Path::new("a/b"), Path::new("a/c/d")), "../../b");
        assert_eq!(relpath(Path::new("a"), Path::new("a")), ".");
    }

    #[test]
    fn update_writes_the_state_file_and_refuses_its_own_path() {
        let dir = std::env::temp_dir().join(format!("weir-ckpt-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m = dir.join("m-3").to_string_lossy().into_owned();
        update_checkpoint_state(&dir, &m, &[]).unwrap();
        let st = super::super::get_checkpoint_state(&dir).unwrap().unwrap();
        assert_eq!(st.model_checkpoint_path, m);
        assert_eq!(st.all_model_checkpoint_paths.len(), 1);
        assert_eq!(st.all_model_checkpoint_paths[0], m);
        let own = dir.join("checkpoint").to_string_lossy().into_owned();
        let e = update_checkpoint_state(&dir, &own, &[]).unwrap_err();
        assert_eq!(e.code(), Code::Unknown);
        assert!(e.message().starts_with("Save path '"));
        assert!(get_checkpoint_mtimes(&[m, "nope".to_string()]).is_empty());
        std::fs::remove_dir_all(&dir).ok();
    }
}
