//! Which other faultline runs are active on this machine, and which of them
//! share this run's data directory: the one registry both the interference
//! record's "other faultline runs" and the warning about another run in the
//! same data directory read, so that a run counts each other run once, the
//! same way for both.
//!
//! Each run registers a file `<pid>-<nanos>.lock` in a per-user directory
//! ([`default_dir`]) and holds an **exclusive** `flock` on it for as long as
//! it lives. Another run counts the live ones by trying a **shared,
//! non-blocking** lock on each file: it fails (`WouldBlock`) exactly when a
//! live run holds the file. The kernel drops a `flock` when the last
//! descriptor of its open file goes away, including on `SIGKILL`, a crash or
//! OOM kill, so a dead run's file is lockable and is removed as stale by
//! whoever finds it. Shared probes never block one another, so two runs
//! scanning at once cannot mistake each other's probe for a live run.
//!
//! Creation is race-free: the file is made under a hidden temporary name,
//! locked, filled (pid, start time, its data directory's device and inode;
//! not its command line, which is that run's own business and would end up
//! in this run's warnings and exports), and only then renamed to
//! its `.lock` name, so every visible `.lock` file is locked from birth.
//! Hidden leftovers of a run killed between creation and rename are
//! removed once unlocked and older than a minute. Names are unique (pid and
//! nanoseconds), so a recycled pid cannot collide with a stale file.
//!
//! Limits: runs of other users are not seen (the directory is per user);
//! a run that starts and ends between two scans is not seen; a network
//! file system may not honour `flock` (the directory is under
//! `$XDG_RUNTIME_DIR` or `/tmp`, normally local).
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `$XDG_RUNTIME_DIR/faultline/active` when that variable names an
/// absolute path, else `/tmp/faultline-<uid>/active`.
pub fn default_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("faultline").join("active"),
        // SAFETY: geteuid has no preconditions.
        _ => PathBuf::from(format!("/tmp/faultline-{}", unsafe { libc::geteuid() })).join("active"),
    }
}

/// Creates `dir` (and its parent) mode 0700 if missing, and refuses one
/// that is a symbolic link, not ours, or writable by others: in `/tmp`
/// another user could otherwise prepare it.
pub fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    for d in [dir.parent(), Some(dir)].into_iter().flatten() {
        match std::fs::DirBuilder::new().mode(0o700).create(d) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) if d != dir => {
                // The parent may be a system directory we cannot create.
                if !d.is_dir() {
                    return Err(e);
                }
                continue;
            }
            Err(e) => return Err(e),
        }
        if d == dir
            || d.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("faultline"))
        {
            let m = std::fs::symlink_metadata(d)?;
            // SAFETY: geteuid has no preconditions.
            let me = unsafe { libc::geteuid() };
            if !m.is_dir() || m.uid() != me || m.permissions().mode() & 0o022 != 0 {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{} is not a private directory of this user", d.display()),
                ));
            }
        }
    }
    Ok(())
}

/// A data directory by identity (device, inode), however its path is spelled.
pub type DirId = (u64, u64);

/// The identity of the directory at `path`, if it exists.
pub fn dir_id(path: &Path) -> Option<DirId> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// This run's registration; dropping it removes the file and the lock.
#[derive(Debug)]
pub struct Registration {
    dir: PathBuf,
    path: PathBuf,
    data_dir: Option<(PathBuf, DirId)>,
    _file: File,
}

/// Another live run, as its file describes it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct OtherRun {
    /// The file name without `.lock`: `<pid>-<nanos>`.
    pub id: String,
    /// What the run wrote into it: `pid=… started=… data_dir=DEV:INO`.
    pub info: String,
    /// Its data directory's identity (`None` for a registration without one).
    pub data_dir: Option<DirId>,
    /// Whether it keeps its files in the data directory of the run that
    /// found it ([`Registration::others`]).
    pub same_data_dir: bool,
}

impl OtherRun {
    /// What this run says about another in its warnings and exports: its
    /// pid, its start time and whether it shares this run's data directory
    /// (`pid 4242, started at 1700000000 (Unix time), same data directory`);
    /// nothing else of it.
    pub fn describe(&self) -> String {
        let field = |name: &str| {
            self.info
                .split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .filter(|v| v.bytes().all(|b| b.is_ascii_digit()) && !v.is_empty())
        };
        let pid = field("pid=").map_or_else(|| "pid unknown".into(), |p| format!("pid {p}"));
        let started =
            field("started=").map_or_else(String::new, |s| format!(", started at {s} (Unix time)"));
        let same = if self.same_data_dir {
            ", same data directory"
        } else {
            ""
        };
        format!("{pid}{started}{same}")
    }
}

/// The `data_dir=DEV:INO` of a registration's text (before its `cmd=`).
fn parse_data_dir(info: &str) -> Option<DirId> {
    let field = info
        .split_whitespace()
        .take_while(|w| !w.starts_with("cmd="))
        .find_map(|w| w.strip_prefix("data_dir="))?;
    let (dev, ino) = field.split_once(':')?;
    Some((dev.parse().ok()?, ino.parse().ok()?))
}

impl Registration {
    /// Registers this process in `dir` (created if missing), as a run that
    /// keeps its files in `data_dir` (when it has one).
    pub fn register(dir: &Path, data_dir: Option<&Path>) -> io::Result<Registration> {
        ensure_private_dir(dir)?;
        let data_dir = data_dir.and_then(|d| Some((d.to_path_buf(), dir_id(d)?)));
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let id = format!("{}-{}", std::process::id(), nanos.as_nanos());
        let tmp = dir.join(format!(".{id}.tmp"));
        let path = dir.join(format!("{id}.lock"));
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        file.lock()?;
        let data_dir_field = data_dir
            .as_ref()
            .map(|(_, (dev, ino))| format!(" data_dir={dev}:{ino}"))
            .unwrap_or_default();
        writeln!(
            file,
            "pid={} started={}{data_dir_field}",
            std::process::id(),
            nanos.as_secs(),
        )?;
        if let Err(e) = std::fs::rename(&tmp, &path) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(Registration {
            dir: dir.to_path_buf(),
            path,
            data_dir,
            _file: file,
        })
    }

    /// The data directory this run registered with.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_ref().map(|(path, _)| path.as_path())
    }

    /// Whether `other` keeps its files in this run's data directory.
    pub fn shares_data_dir(&self, other: &OtherRun) -> bool {
        matches!((&self.data_dir, other.data_dir), (Some((_, mine)), Some(theirs)) if *mine == theirs)
    }

    /// This run's id (`<pid>-<nanos>`).
    pub fn id(&self) -> &str {
        self.path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
    }

    /// The other live runs (stale files found on the way are removed).
    pub fn others(&self) -> io::Result<Vec<OtherRun>> {
        let mut others = live_runs(&self.dir, Some(&self.path))?;
        for other in &mut others {
            other.same_data_dir = self.shares_data_dir(other);
        }
        Ok(others)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Unlink first, then the lock goes with the descriptor: a scan in
        // between finds the file locked and counts this run once more.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// How long an unlocked hidden temporary file is left alone.
const TEMP_GRACE: Duration = Duration::from_secs(60);

/// The live runs registered in `dir`, except the file `except`. Files
/// that nobody holds are removed. A missing directory means none.
pub fn live_runs(dir: &Path, except: Option<&Path>) -> io::Result<Vec<OtherRun>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut live = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if Some(path.as_path()) == except {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_lock = name.ends_with(".lock") && !name.starts_with('.');
        let is_temp = name.starts_with('.') && name.ends_with(".tmp");
        if !is_lock && !is_temp {
            continue;
        }
        let Ok(mut file) = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
        else {
            continue; // removed meanwhile, or not ours to read
        };
        match file.try_lock_shared() {
            Err(TryLockError::WouldBlock) => {
                if is_lock {
                    let mut info = String::new();
                    let _ = (&mut file).take(4096).read_to_string(&mut info);
                    let info = info.trim().to_string();
                    live.push(OtherRun {
                        id: name.trim_end_matches(".lock").to_string(),
                        data_dir: parse_data_dir(&info),
                        info,
                        same_data_dir: false,
                    });
                }
            }
            Ok(()) => {
                let old = || {
                    file.metadata()
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > TEMP_GRACE)
                };
                if is_lock || old() {
                    let _ = std::fs::remove_file(&path);
                }
            }
            Err(TryLockError::Error(_)) => {}
        }
    }
    live.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(live)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn dir() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("faultline-test").join("active");
        (t, d)
    }

    #[test]
    fn two_runs_see_each_other_and_not_themselves() {
        let (_t, d) = dir();
        let a = Registration::register(&d, None).unwrap();
        assert_eq!(a.others().unwrap(), vec![]);
        let b = Registration::register(&d, None).unwrap();
        let seen = a.others().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].id, b.id());
        assert!(
            seen[0]
                .info
                .starts_with(&format!("pid={} ", std::process::id())),
            "{seen:?}"
        );
        assert_eq!(b.others().unwrap().len(), 1);
        drop(b);
        assert_eq!(a.others().unwrap(), vec![]);
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn each_run_says_which_data_directory_it_uses() {
        let (t, d) = dir();
        let (one, two) = (t.path().join("one"), t.path().join("two"));
        std::fs::create_dir(&one).unwrap();
        std::fs::create_dir(&two).unwrap();
        let me = Registration::register(&d, Some(&one)).unwrap();
        assert_eq!(me.data_dir(), Some(one.as_path()));
        // The same directory by another spelling, another directory, none.
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&one, &link).unwrap();
        let same = Registration::register(&d, Some(&link)).unwrap();
        let other = Registration::register(&d, Some(&two)).unwrap();
        let without = Registration::register(&d, None).unwrap();
        let seen = me.others().unwrap();
        assert_eq!(seen.len(), 3);
        let sharing: Vec<&str> = seen
            .iter()
            .filter(|r| me.shares_data_dir(r))
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(sharing, [same.id()]);
        assert!(seen
            .iter()
            .find(|r| r.id == other.id())
            .is_some_and(|r| r.data_dir == dir_id(&two) && r.info.contains(" data_dir=")));
        assert!(seen
            .iter()
            .any(|r| r.id == without.id() && r.data_dir.is_none()));
        assert!(!without.shares_data_dir(&seen[0]));
        // A command line that spells data_dir= is not taken for the field.
        assert_eq!(parse_data_dir("pid=1 started=2 cmd=x data_dir=1:2"), None);
        assert_eq!(
            parse_data_dir("pid=1 started=2 data_dir=3:4 cmd=x"),
            Some((3, 4))
        );
    }

    #[test]
    fn a_killed_run_is_stale_and_removed() {
        let (_t, d) = dir();
        let me = Registration::register(&d, None).unwrap();
        // Another process holds a lock file: the locked open file is its
        // standard input, and our own descriptor goes with the Command.
        let path = d.join("4242-1.lock");
        let f = File::create(&path).unwrap();
        f.lock().unwrap();
        let mut child = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::from(f))
            .spawn()
            .unwrap();
        assert_eq!(me.others().unwrap().len(), 1, "the child holds it");
        child.kill().unwrap(); // SIGKILL: no cleanup ran
        child.wait().unwrap();
        assert!(path.exists());
        assert_eq!(me.others().unwrap(), vec![]);
        assert!(!path.exists(), "stale file removed");
    }

    #[test]
    fn stale_files_of_any_name_form_are_cleaned() {
        let (_t, d) = dir();
        ensure_private_dir(&d).unwrap();
        std::fs::write(d.join("999999-1.lock"), "pid=999999").unwrap();
        std::fs::write(d.join(".999999-2.tmp"), "").unwrap(); // young: kept
        std::fs::write(d.join("README"), "").unwrap(); // not ours: kept
        assert_eq!(live_runs(&d, None).unwrap(), vec![]);
        assert!(!d.join("999999-1.lock").exists());
        assert!(d.join(".999999-2.tmp").exists());
        assert!(d.join("README").exists());
        assert_eq!(live_runs(&d.join("missing"), None).unwrap(), vec![]);
    }

    #[test]
    fn refuses_a_directory_others_can_write() {
        let (t, d) = dir();
        std::fs::create_dir_all(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(
            Registration::register(&d, None).unwrap_err().kind(),
            io::ErrorKind::PermissionDenied
        );
        let link = t.path().join("link");
        std::os::unix::fs::symlink(t.path(), &link).unwrap();
        assert!(ensure_private_dir(&link).is_err());
    }
}
