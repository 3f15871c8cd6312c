//! The one check every output goes through before anything runs: no output
//! may be the same file as an input or as another output, an existing
//! output must be a regular file (faultline never replaces a device, a FIFO,
//! a socket or a directory), and never a symbolic link (renaming over it
//! would replace the link, not write the file it names), no output may be
//! one of faultline's own files, and an output that exists must be a file
//! faultline wrote ([`super::made`]): faultline never replaces a file it
//! did not create. The atomic writer checks the destination again when it
//! writes ([`super::atomic::check_destination`]).
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
use std::os::unix::fs::MetadataExt;
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
    crate::input::kind(&meta.file_type())
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
        if names_a_directory(path) {
            return Err(bad(
                "ends in '/' or '/.', so it names a directory; give a file name".into(),
            ));
        }
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
        let exists = std::fs::symlink_metadata(path).is_ok();
        let identity = identity(path)
            .map_err(|e| bad(format!("cannot be inspected ({e})")))?
            .ok_or_else(|| bad("cannot be inspected".into()))?;
        let named = Named {
            flag: flag.to_string(),
            path: path.to_path_buf(),
            identity,
        };
        let earlier = self.inputs.iter().chain(&self.outputs);
        if let Some(other) = earlier.into_iter().find(|o| o.identity == named.identity) {
            return Err(clash(&named, other));
        }
        if flag == "--journal" && exists {
            return Err(bad(
                "already exists; a run starts a new journal and never writes into a file it did not create (to continue that run: faultline run --resume it; otherwise choose another path)".into(),
            ));
        }
        if let Ok(target) = std::fs::read_link(path) {
            return Err(bad(format!(
                "is a symbolic link (to {}); faultline never replaces a link or writes through one: give the path of a regular file",
                target.display()
            )));
        }
        let canonical_dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if !own {
            let journal_name_allowed = flag == "--journal" && !exists;
            if let Some(what) = own_file(
                path,
                name,
                &canonical_dir,
                &self.own_dirs,
                journal_name_allowed,
            ) {
                return Err(bad(format!(
                    "is one of faultline's own files ({what}); no output may replace it (choose another output)"
                )));
            }
        }
        if exists && !own && !super::made::by_faultline(path) {
            return Err(bad(
                "exists and is not a file faultline wrote; faultline never replaces a file it did not create (remove it, or choose another output)".into(),
            ));
        }
        probe_directory(dir).map_err(|e| {
            bad(format!(
                "faultline cannot create a file in {} ({e}); choose another output",
                dir.display()
            ))
        })?;
        self.outputs.push(named);
        Ok(())
    }
}

/// Refuses an output directory `dir` (given with `flag`) that is a
/// symbolic link: faultline writes into a real directory only.
pub fn refuse_linked_dir(flag: &str, dir: &Path) -> Result<()> {
    match std::fs::read_link(dir) {
        Ok(target) => Err(Error::Plan(format!(
            "{flag} {}: is a symbolic link (to {}); faultline writes into a real directory only, never through a link: give the directory itself",
            dir.display(),
            target.display()
        ))),
        Err(_) => Ok(()),
    }
}

/// Makes `dir`, a directory of outputs (`--plots`), if it is missing, and
/// refuses one that is a symbolic link or not a directory: the plots are
/// written in the directory named, never through a link to another.
pub fn ensure_output_dir(flag: &str, dir: &Path) -> Result<()> {
    let bad = |why: String| Error::Plan(format!("{flag} {}: {why}", dir.display()));
    refuse_linked_dir(flag, dir)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => Err(bad(format!("is {}, not a directory", kind(&meta)))),
        Err(e) => Err(Error::io("inspect", dir, e)),
    }
}

/// The first bytes of every faultline journal (its header's first field, as
/// the runner's journal writer serialises it; a runner test keeps them in step).
pub const JOURNAL_MARK: &[u8] = b"{\"faultline_journal\":";

/// Whether `path` ends in `/`, `/.` or is `.`: it names a directory, though
/// `Path::file_name` would find a name in it.
fn names_a_directory(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    bytes.ends_with(b"/") || bytes.ends_with(b"/.") || bytes == b"."
}

/// What `path` (named `name`, in canonical directory `dir`) is when it is
/// one of faultline's own files, recognised wherever it is: a name faultline
/// reserves (`.faultline-*`: temporaries, locks, markers; `faultline-*.data`,
/// `.ppm` and `.journal`: test files, images, scratch files, journals), any
/// `faultline-*` file in faultline's own directories, or an existing file
/// that holds a faultline journal, whatever its name.
/// A new journal the user names (`--journal`) may carry a journal's name.
fn own_file(
    path: &Path,
    name: &std::ffi::OsStr,
    dir: &Path,
    own_dirs: &[PathBuf],
    journal_name_allowed: bool,
) -> Option<&'static str> {
    let name = name.to_string_lossy();
    let prefix = super::dataset::PREFIX;
    if name.starts_with(".faultline-") {
        return Some("a temporary, lock or marker file");
    }
    if name.starts_with(prefix) {
        if name.ends_with(super::dataset::DATA_SUFFIX) || name.ends_with(".ppm") {
            return Some("a name faultline gives its test files, images and scratch files");
        }
        if name.ends_with(".journal") && !journal_name_allowed {
            return Some("a name faultline gives its journals");
        }
        if own_dirs.iter().any(|d| d == dir) {
            return Some("a file in faultline's data directory");
        }
    }
    if holds_a_journal(path) {
        return Some("a faultline journal");
    }
    None
}

/// Whether `path` is an existing file that starts with [`JOURNAL_MARK`].
fn holds_a_journal(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = crate::input::open(path, "file") else {
        return false;
    };
    let mut head = Vec::with_capacity(JOURNAL_MARK.len());
    file.take(JOURNAL_MARK.len() as u64)
        .read_to_end(&mut head)
        .is_ok_and(|_| head == JOURNAL_MARK)
}

/// Creates and removes a file of faultline's in `dir`, so that an output
/// whose directory is read-only, full of inodes, or on a file system that
/// makes no files (procfs, sysfs) is refused before anything runs, not after.
/// The probe carries the atomic writer's temporary name (with this pid), so
/// a probe left by a killed run is removed by the next one.
fn probe_directory(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let probe = dir.join(format!(
        "{}{}-probe{}",
        super::atomic::TEMP_PREFIX,
        std::process::id(),
        PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&probe)?;
    std::fs::remove_file(&probe)
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
        assert!(crate::files::atomic::check_destination(&fifo, true).is_err());
        assert!(
            crate::files::atomic::check_destination(&dir.path().join("absent"), true)
                .unwrap()
                .is_none()
        );
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
