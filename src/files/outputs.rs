//! The one check every output goes through before anything runs: no output
//! may be the same file as an input or as another output, an existing
//! output must be a regular file (faultline never replaces a device, a FIFO,
//! a socket or a directory, nor what a symbolic link points to when that is
//! one of those), and no output may be one of faultline's own files.
//!
//! Files are compared by identity, not by spelling: an existing file by its
//! (device, inode) after following symbolic links, so that `x`, `./x`, a
//! hard link and a path through a symlinked directory all match; a file that
//! does not exist yet by its canonical parent directory and its name.
//!
//! The entry points (`run`, `run --resume`, `reproduce`, `report`) list
//! their inputs and outputs as (flag, path) pairs in one [`Files`]; the
//! first clash found is refused in one line that names both flags.
use std::ffi::OsString;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where a file sits, as the kernel sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file: (st_dev, st_ino) of what the path leads to.
    Existing(u64, u64),
    /// A file still to be created: its canonical directory and its name.
    New(PathBuf, OsString),
}

/// One file a command reads or writes, with the flag that named it.
#[derive(Clone, Debug)]
struct Named {
    flag: String,
    path: PathBuf,
    identity: Identity,
}

/// The inputs and outputs of one command, checked as they are added.
#[derive(Clone, Debug, Default)]
pub struct Files {
    inputs: Vec<Named>,
    outputs: Vec<Named>,
    own_dirs: Vec<PathBuf>,
}

/// The directory holding `path` (`.` for a bare file name).
pub fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// What kind of file a metadata describes, for messages.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Refuses, at the last moment before a file is replaced, a destination
/// that exists and is not a regular file (or a link to one): a device node,
/// FIFO, socket or directory that appeared after the check before the run.
pub fn check_replaceable(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) => Err(std::io::Error::other(format!(
            "is {}, not a regular file; faultline only replaces regular files",
            kind(&meta)
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        // A dangling symbolic link, a loop, a denied directory: not ours to judge here.
        Err(_) => Ok(()),
    }
}

impl Files {
    /// An empty set, whose outputs may not be faultline's own files in any
    /// of `own_dirs` (the data directory, its `runs/` and `scratch/`).
    pub fn new(own_dirs: &[PathBuf]) -> Files {
        Files {
            own_dirs: own_dirs
                .iter()
                .filter_map(|d| std::fs::canonicalize(d).ok())
                .collect(),
            ..Files::default()
        }
    }

    /// Adds a file the command reads (`--file`, the journal resumed, the
    /// results a report is made from). An input that does not exist is not
    /// this check's business (its reader says so).
    pub fn input(&mut self, flag: &str, path: &Path) -> Result<()> {
        if let Some(identity) = identity(path).ok().flatten() {
            let named = Named {
                flag: flag.to_string(),
                path: path.to_path_buf(),
                identity,
            };
            if let Some(out) = self.outputs.iter().find(|o| o.identity == named.identity) {
                return Err(clash(out, &named));
            }
            self.inputs.push(named);
        }
        Ok(())
    }

    /// Adds a file the command writes, and refuses it when it is an input,
    /// another output, one of faultline's own files, or an existing file
    /// that is not a regular file.
    pub fn output(&mut self, flag: &str, path: &Path) -> Result<()> {
        self.add_output(flag, path, false)
    }

    /// Adds one of faultline's own outputs (the journal it creates), which
    /// may carry faultline's names in its own directories but is otherwise
    /// checked as [`Files::output`].
    pub fn own_output(&mut self, flag: &str, path: &Path) -> Result<()> {
        self.add_output(flag, path, true)
    }

    fn add_output(&mut self, flag: &str, path: &Path, own: bool) -> Result<()> {
        let bad = |why: String| Error::Plan(format!("{flag} {}: {why}", path.display()));
        let name = path
            .file_name()
            .ok_or_else(|| bad("names no file; give a file name".into()))?;
        let dir = directory_of(path);
        if own && !dir.is_dir() {
            // Faultline makes its own directory (runs/) later: nothing that
            // exists now can be this file.
            return Ok(());
        }
        if !dir.is_dir() {
            return Err(bad(format!(
                "the directory {} does not exist",
                dir.display()
            )));
        }
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_file() {
                return Err(bad(format!(
                    "is {}, not a regular file; faultline only replaces regular files (choose another output)",
                    kind(&meta)
                )));
            }
        }
        let identity = identity(path)
            .map_err(|e| bad(format!("cannot be inspected ({e})")))?
            .ok_or_else(|| bad("cannot be inspected".into()))?;
        let canonical_dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let name_text = name.to_string_lossy();
        let ours = !own
            && (name_text.starts_with(super::atomic::TEMP_PREFIX)
                || (name_text.starts_with(super::dataset::PREFIX)
                    && self.own_dirs.contains(&canonical_dir)));
        if ours {
            return Err(bad(
                "is one of faultline's own files (its data directory's test files, journals or scratch files); choose another output".into(),
            ));
        }
        let named = Named {
            flag: flag.to_string(),
            path: path.to_path_buf(),
            identity,
        };
        let earlier = self.inputs.iter().chain(&self.outputs);
        if let Some(other) = earlier.into_iter().find(|o| o.identity == named.identity) {
            return Err(clash(&named, other));
        }
        self.outputs.push(named);
        Ok(())
    }
}

/// `output` is the same file as `other`.
fn clash(output: &Named, other: &Named) -> Error {
    Error::Plan(format!(
        "{} {} is the same file as {} {}; choose another output",
        output.flag,
        output.path.display(),
        other.flag,
        other.path.display()
    ))
}

/// The identity of `path`: `Existing` when something is there (following
/// symbolic links), `New` when nothing is (a dangling link counts as the
/// link's own name: renaming over it replaces the link). `None` when its
/// directory cannot be resolved.
fn identity(path: &Path) -> std::io::Result<Option<Identity>> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Some(Identity::Existing(meta.dev(), meta.ino()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Some(name) = path.file_name() else {
                return Ok(None);
            };
            let Ok(dir) = std::fs::canonicalize(directory_of(path)) else {
                return Ok(None);
            };
            Ok(Some(Identity::New(dir, name.to_os_string())))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<()>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn the_same_file_by_any_spelling_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.bin");
        std::fs::write(&input, b"data").unwrap();
        let link_dir = dir.path().join("through");
        std::os::unix::fs::symlink(dir.path(), &link_dir).unwrap();
        let hard = dir.path().join("hard");
        std::fs::hard_link(&input, &hard).unwrap();
        let sym = dir.path().join("sym");
        std::os::unix::fs::symlink(&input, &sym).unwrap();
        let dotted = dir.path().join(".").join("in.bin");
        for spelling in [input.clone(), link_dir.join("in.bin"), hard, sym, dotted] {
            let mut files = Files::new(&[]);
            files.input("--file", &input).unwrap();
            let e = msg(files.output("--export-json", &spelling));
            assert!(
                e.contains("is the same file as --file"),
                "{spelling:?}: {e}"
            );
            assert!(e.starts_with("--export-json "), "{e}");
        }
    }

    #[test]
    fn two_new_outputs_with_one_name_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Files::new(&[]);
        files
            .output("--export-json", &dir.path().join("s"))
            .unwrap();
        let through = dir.path().join(".").join("s");
        let e = msg(files.output("--export-csv", &through));
        assert!(
            e.contains("--export-csv") && e.contains("same file as --export-json"),
            "{e}"
        );
        files
            .output("--export-markdown", &dir.path().join("t"))
            .unwrap();
    }

    #[test]
    fn an_existing_output_must_be_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let to_dev = dir.path().join("null-link");
        std::os::unix::fs::symlink("/dev/null", &to_dev).unwrap();
        for (path, kind) in [
            (Path::new("/dev/null"), "a character device"),
            (fifo.as_path(), "a FIFO"),
            (dir.path(), "a directory"),
            (Path::new(".."), "names no file"),
            (to_dev.as_path(), "a character device"),
        ] {
            let e = msg(Files::new(&[]).output("--export-json", path));
            assert!(e.contains(kind), "{path:?}: {e}");
        }
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let e = msg(Files::new(&[]).output("--export-json", &sub));
        assert!(e.contains("a directory"), "{e}");
        assert!(check_replaceable(&fifo).is_err());
        assert!(check_replaceable(&dir.path().join("absent")).is_ok());
    }

    #[test]
    fn faultline_s_own_files_are_no_output() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Files::new(&[dir.path().to_path_buf()]);
        let e = msg(files.output(
            "--export-json",
            &dir.path().join("faultline-65536-0000000000000001.data"),
        ));
        assert!(e.contains("faultline's own files"), "{e}");
        files
            .output("--export-json", &dir.path().join("results.json"))
            .unwrap();
        let e = msg(Files::new(&[]).output("--export-csv", Path::new(".faultline-tmp-1-2-x")));
        assert!(e.contains("faultline's own files"), "{e}");
    }
}
