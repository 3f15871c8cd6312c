//! The one atomic writer: every file faultline writes whole (generated test
//! files, images, exports, reports, plots) is written through it.
//!
//! The content goes to a fresh temporary file of faultline's in the
//! destination's own directory (O_EXCL, O_NOFOLLOW), named
//! `.faultline-tmp-<pid>-<n>-<name>` so that `faultline clean` (and a later
//! run, once that pid is gone) can tell a leftover from anything else. It is
//! flushed, fsynced and then renamed over the destination, and the directory
//! is fsynced as well. A reader therefore sees either the previous file or the
//! new one, never a torn file, even when the run is interrupted or the
//! machine crashes mid-write. On any error the temporary file is removed.
//!
//! The destination is checked when the write starts and again just before
//! the rename ([`check_destination`]): a symbolic link is never renamed over
//! (that would replace the link, `/dev/stdout` say, not write the file it
//! names), nor anything that is not a regular file; an output the user asked
//! for ([`SHARED_MODE`]) replaces only a file faultline made
//! ([`super::made`]). A file that is replaced keeps its mode and its owner:
//! a 0600 export stays 0600. Before it makes its own temporary file, the
//! writer removes those of faultline processes that are gone from the same
//! directory, so a killed run or report leaves nothing behind for long; and
//! outside a run, a stop signal abandons the file being written
//! ([`crate::system::finishes_writes_on_stop`]).
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Distinguishes temporary files of concurrent writes within one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

pub use super::names::TEMP_PREFIX;

/// Mode of exports and reports (before the umask): the outputs the user
/// asks for, which replace only a file faultline made.
pub const SHARED_MODE: u32 = 0o666;
/// Mode of faultline's own files (test files, images).
pub const PRIVATE_MODE: u32 = 0o600;

/// Writes `path` atomically, with permissions `mode` (before the umask),
/// with the bytes `fill` writes to the writer it is given.
///
/// `fill` gets a buffered writer over the temporary file; it need not flush.
/// Errors carry the operation and the path that failed.
pub fn write_atomically<F>(path: &Path, mode: u32, fill: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let output = mode == SHARED_MODE;
    let existing = check_destination(path, output).map_err(|e| Error::io("replace", path, e))?;
    // What a killed faultline left here (its temporaries) goes first.
    super::sweep::remove_temporaries_of_gone(directory_of(path), None);
    let tmp = temp_path(path)?;
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .map_err(|e| Error::io("create", &tmp, e))?;
    let written = keep_mode_and_owner(&file, existing.as_ref())
        .map_err(|e| Error::io("replace", path, e))
        .and_then(|()| write_and_sync(file, fill).map_err(|e| Error::io("write", &tmp, e)))
        .and_then(|()| {
            // A stop (Ctrl-C) while `report` writes abandons the file: no
            // partial or late file appears after the user asked to stop.
            if crate::system::stop_requested() && !crate::system::finishes_writes_on_stop() {
                return Err(Error::Interrupted(format!(
                    "interrupted while writing {}; nothing was written there",
                    path.display()
                )));
            }
            // A link, device, FIFO, socket, directory or stranger's file that
            // appeared at the destination since the checks is not replaced.
            check_destination(path, output).map_err(|e| Error::io("replace", path, e))?;
            std::fs::rename(&tmp, path).map_err(|e| Error::io("rename", path, e))
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is durable once the directory is synced. Some file systems
    // refuse to open or fsync a directory; the data itself is already safe.
    if let Ok(dir) = File::open(directory_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// What may be at `path` before it is replaced: nothing, or a regular file
/// (not a symbolic link to one), which for an `output` must be a file
/// faultline made. Returns the metadata of the file there.
pub fn check_destination(path: &Path, output: bool) -> io::Result<Option<std::fs::Metadata>> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let t = meta.file_type();
    if t.is_symlink() {
        return Err(io::Error::other(
            "is a symbolic link; faultline never replaces a link or writes through one (give the path of a regular file)",
        ));
    }
    if !t.is_file() {
        return Err(io::Error::other(format!(
            "is {}, not a regular file; faultline only replaces regular files",
            crate::input::kind(&t)
        )));
    }
    if output && !super::made::by_faultline(path) {
        return Err(io::Error::other(
            "exists and is not a file faultline wrote; faultline never replaces a file it did not create (remove it, or choose another output)",
        ));
    }
    Ok(Some(meta))
}

/// Gives the temporary `file` the mode (permission bits) and owner of the
/// file it replaces. An owner faultline cannot give (another user's file,
/// without root) refuses the replacement.
fn keep_mode_and_owner(file: &File, existing: Option<&std::fs::Metadata>) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let Some(old) = existing else {
        return Ok(());
    };
    let ours = file.metadata()?;
    if (ours.uid(), ours.gid()) != (old.uid(), old.gid()) {
        std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).map_err(|e| {
            io::Error::other(format!(
                "is owned by uid {} and faultline cannot give its replacement that owner ({e}); not replacing it",
                old.uid()
            ))
        })?;
    }
    // Permission bits only: set-user-ID and set-group-ID are not carried over.
    file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o1777))
}

fn write_and_sync<F>(file: File, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let mut out = BufWriter::new(file);
    fill(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// The directory holding `path` (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A hidden, unique name next to `path`: `.faultline-tmp-<pid>-<n>-<name>`.
fn temp_path(path: &Path) -> Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        Error::io(
            "write",
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "the export path names no file"),
        )
    })?;
    let mut tmp_name = std::ffi::OsString::from(format!(
        "{TEMP_PREFIX}{}-{}-",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    tmp_name.push(name);
    Ok(directory_of(path).join(tmp_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old contents that are longer").unwrap();
        write_atomically(&path, PRIVATE_MODE, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(entries(dir.path()), vec!["out.txt".to_string()]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_removes_the_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old").unwrap();
        let err = write_atomically(&path, PRIVATE_MODE, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("interrupted"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("interrupted"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(entries(dir.path()), vec!["out.txt".to_string()]);
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent").join("out.txt");
        let err = write_atomically(&path, SHARED_MODE, |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("absent"), "{err}");
    }

    #[test]
    fn private_files_are_created_for_this_user_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        write_atomically(&path, PRIVATE_MODE, |w| w.write_all(b"x")).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_device_at_the_destination_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let err = write_atomically(&fifo, SHARED_MODE, |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        assert_eq!(
            entries(dir.path()),
            vec!["fifo".to_string()],
            "no temporary left"
        );
    }

    #[test]
    fn a_link_or_a_stranger_s_file_is_not_replaced_and_a_mode_is_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "mine").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = write_atomically(&link, PRIVATE_MODE, |w| w.write_all(b"x")).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let err = write_atomically(&target, SHARED_MODE, |w| w.write_all(b"x")).unwrap_err();
        assert!(
            err.to_string().contains("not a file faultline wrote"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
        let export = dir.path().join("r.md");
        write_atomically(&export, SHARED_MODE, |w| {
            w.write_all(b"# faultline results\n")
        })
        .unwrap();
        std::fs::set_permissions(&export, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomically(&export, SHARED_MODE, |w| {
            w.write_all(b"# faultline results 2\n")
        })
        .unwrap();
        let mode = std::fs::metadata(&export).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(entries(dir.path()), ["link", "r.md", "target"]);
    }

    #[test]
    fn a_write_first_removes_what_gone_processes_left_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        // A pid no process has (above Linux's largest pid_max).
        let gone = dir
            .path()
            .join(format!("{TEMP_PREFIX}{}-0-r.json", (1 << 22) + 5));
        let live = dir
            .path()
            .join(format!("{TEMP_PREFIX}{}-9-r.json", std::process::id()));
        std::fs::write(&gone, "half").unwrap();
        std::fs::write(&live, "being written").unwrap();
        write_atomically(&dir.path().join("r.md"), SHARED_MODE, |w| {
            w.write_all(b"# faultline results\n")
        })
        .unwrap();
        assert!(!gone.exists(), "a killed process's temporary goes");
        assert!(live.exists(), "a live one's stays");
    }

    #[test]
    fn bare_file_names_live_in_the_current_directory() {
        assert_eq!(directory_of(Path::new("out.json")), Path::new("."));
        assert_eq!(directory_of(Path::new("a/out.json")), Path::new("a"));
        let tmp = temp_path(Path::new("a/out.json")).unwrap();
        assert_eq!(tmp.parent(), Some(Path::new("a")));
        assert!(tmp
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(TEMP_PREFIX));
    }
}
