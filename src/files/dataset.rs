//! Test files: generated deterministically, created atomically, named by
//! size and seed, and reused; or a user's file, which is only ever read.
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};

use crate::error::{Error, Result};
use crate::system::current_uid;

pub use super::names::PREFIX;
pub(crate) const DATA_SUFFIX: &str = ".data";

/// A file to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dataset {
    /// Where it is.
    pub path: PathBuf,
    /// Its length in bytes.
    pub size: u64,
    /// The seed of its content, for files faultline generated.
    pub seed: Option<u64>,
}

impl Dataset {
    /// Whether faultline generated (and so owns) this file.
    pub fn generated(&self) -> bool {
        self.seed.is_some()
    }
}

/// `$XDG_CACHE_HOME/faultline`, else `$HOME/.cache/faultline`, else (with
/// neither set to an absolute path) `/tmp/faultline-<uid>`: a directory of
/// this user's alone, never one shared `/tmp/faultline` another user could
/// have made first. (It is created 0700 and checked like any data
/// directory when used: [`ensure_private_dir`].)
pub fn default_data_dir() -> PathBuf {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(base) = std::env::var_os("XDG_CACHE_HOME").and_then(absolute) {
        return base.join("faultline");
    }
    if let Some(home) = std::env::var_os("HOME").and_then(absolute) {
        return home.join(".cache").join("faultline");
    }
    std::env::temp_dir().join(format!("faultline-{}", current_uid()))
}

/// Creates `dir` with mode 0700 if missing. An existing directory must be a
/// real directory (not a symlink), owned by this user and not writable by
/// others.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    if check_private_dir(dir)? {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io("create directory", dir, e))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io("set permissions of", dir, e))
}

/// What [`ensure_private_dir`] would refuse, checked without making
/// anything (the dry run's check): `Ok(true)` when `dir` is a directory fit
/// to use, `Ok(false)` when it does not exist and can be made (its nearest
/// existing ancestor is a directory), else the refusal the run would give.
pub fn check_private_dir(dir: &Path) -> Result<bool> {
    let bad = |why: String| Error::BadFile {
        path: dir.to_path_buf(),
        why,
    };
    match fs::symlink_metadata(dir) {
        Ok(meta) => {
            if meta.file_type().is_symlink() {
                return Err(bad(
                    "is a symbolic link; faultline only uses a real directory it owns".into(),
                ));
            }
            if !meta.is_dir() {
                return Err(bad("is not a directory".into()));
            }
            if meta.uid() != current_uid() {
                return Err(bad("is owned by another user; refusing to use it".into()));
            }
            if meta.permissions().mode() & 0o002 != 0 {
                return Err(bad("is writable by everyone; refusing to use it (chmod o-w, or pick another --data-dir)".into()));
            }
            Ok(true)
        }
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            // The nearest ancestor that exists must be a directory for
            // the rest to be made in it.
            let existing = dir.ancestors().skip(1).find(|a| fs::metadata(a).is_ok());
            match existing {
                Some(a) if !a.is_dir() => Err(bad(format!(
                    "cannot be made: {} is not a directory",
                    a.display()
                ))),
                _ => Ok(false),
            }
        }
        Err(e) => Err(Error::io("inspect", dir, e)),
    }
}

/// The name of the generated file of `size` bytes from `seed`.
pub fn generated_name(size: u64, seed: u64) -> String {
    format!("{PREFIX}{size}-{seed:016x}{DATA_SUFFIX}")
}

/// Writes the deterministic content of (`size`, `seed`) to `out`.
pub fn write_content(out: &mut impl Write, size: u64, seed: u64) -> std::io::Result<()> {
    write_content_unless(out, size, seed, &|| false)
}

/// [`write_content`], stopping with an [`std::io::ErrorKind::Interrupted`]
/// error between two MiB when `stop` says so.
pub fn write_content_unless(
    out: &mut impl Write,
    size: u64,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> std::io::Result<()> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        if stop() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted by a signal",
            ));
        }
        let n = left.min(chunk.len() as u64) as usize;
        rng.fill_bytes(&mut chunk[..n]);
        out.write_all(&chunk[..n])?;
        left -= n as u64;
    }
    Ok(())
}

/// The bytes of a generated file, at any offset, without the file: the
/// ChaCha8 stream of [`write_content`], addressed in 4-byte words. Checks
/// (a timed trial's checksum, a chase's path) use it instead of reading the
/// file again, so they cost no I/O and leave the page cache alone.
#[derive(Clone, Debug)]
pub struct GeneratedContent {
    rng: rand_chacha::ChaCha8Rng,
    scratch: Vec<u8>,
}

impl GeneratedContent {
    /// The content generated from `seed`.
    pub fn new(seed: u64) -> GeneratedContent {
        GeneratedContent {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            scratch: Vec::new(),
        }
    }

    /// The byte at `offset`.
    pub fn byte(&mut self, offset: u64) -> u8 {
        let mut b = [0u8];
        self.read(offset, &mut b);
        b[0]
    }

    /// Fills `out` with the bytes from `offset` on.
    pub fn read(&mut self, offset: u64, out: &mut [u8]) {
        let skip = (offset % 4) as usize;
        self.rng.set_word_pos(u128::from(offset / 4));
        self.scratch.resize(skip + out.len(), 0);
        self.rng.fill_bytes(&mut self.scratch);
        out.copy_from_slice(&self.scratch[skip..]);
    }
}

/// Returns the generated file of `size` bytes from `seed` in `dir`, creating
/// it if missing (written under a temporary name, synced, then renamed, so
/// a crash or a full disk never leaves a partial file under the real name).
/// `on_generate` is called before a file is generated.
pub fn ensure_generated(
    dir: &Path,
    size: u64,
    seed: u64,
    on_generate: impl FnOnce(&Path),
) -> Result<Dataset> {
    if size == 0 {
        return Err(Error::Plan("--size must be at least 1 byte".into()));
    }
    ensure_private_dir(dir)?;
    let path = dir.join(generated_name(size, seed));
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() && meta.len() == size && content_matches(&path, size, seed) => {
            return Ok(Dataset {
                path,
                size,
                seed: Some(seed),
            });
        }
        Ok(meta) if meta.is_file() && meta.len() == size => {
            eprintln!(
                "warning: {} does not hold the bytes its name promises (modified?); regenerating it",
                path.display()
            );
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
        }
        Ok(meta) if meta.is_file() => {
            eprintln!(
                "warning: {} is {} bytes, not {size}; regenerating it",
                path.display(),
                meta.len()
            );
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
        }
        Ok(_) => {
            return Err(Error::BadFile {
                path,
                why: "exists but is not a regular file; remove it".into(),
            })
        }
        Err(_) => {}
    }
    on_generate(&path);
    // A SIGINT or SIGTERM stops the writing; the atomic writer then removes
    // its temporary file, so nothing partial is left.
    write_own_file(dir, &generated_name(size, seed), |mut file| {
        write_content_unless(&mut file, size, seed, &crate::system::stop_requested)
    })
    .map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::Interrupted => {
            Error::Interrupted(format!(
                "interrupted while generating {}; its temporary file was removed and nothing else was written",
                path.display()
            ))
        }
        other => other,
    })
    .map(|path| Dataset {
        path,
        size,
        seed: Some(seed),
    })
}

/// Writes `dir/name`, one of faultline's own files (mode 0600), through the
/// atomic writer ([`super::atomic`]): a crash or a full disk never leaves a
/// partial file under the real name. Returns the final path.
pub fn write_own_file(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<PathBuf> {
    let path = dir.join(name);
    super::atomic::write_atomically(&path, super::atomic::PRIVATE_MODE, write)?;
    Ok(path)
}

/// Checks a generated file against its seed at 16 places spread over the
/// file (4 KiB each, first and last included): cheap, and it catches a file
/// that was modified, truncated and re-extended, or swapped.
pub fn content_matches(path: &Path, size: u64, seed: u64) -> bool {
    use std::os::unix::fs::FileExt;
    const PROBES: u64 = 16;
    const PROBE: u64 = 4096;
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut expected = vec![0u8; PROBE as usize];
    let mut actual = vec![0u8; PROBE as usize];
    let last_start = size.saturating_sub(PROBE);
    let mut offsets: Vec<u64> = (0..PROBES).map(|i| last_start * i / (PROBES - 1)).collect();
    // A small file's probes fall on the same place: each is checked once.
    offsets.dedup();
    offsets.into_iter().all(|offset| {
        let len = PROBE.min(size - offset) as usize;
        // ChaCha8's stream is addressable in 4-byte words.
        let word = offset / 4;
        rng.set_word_pos(word as u128);
        let skip = (offset % 4) as usize;
        let mut window = vec![0u8; len + skip];
        rng.fill_bytes(&mut window);
        expected[..len].copy_from_slice(&window[skip..]);
        file.read_exact_at(&mut actual[..len], offset).is_ok() && actual[..len] == expected[..len]
    })
}

/// Creates a new file faultline owns: O_EXCL, O_NOFOLLOW, mode 0600.
pub fn create_new(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| Error::io("create", path, e))
}

/// Checks a user's file: it must exist and be a non-empty regular file. It is
/// opened read-only, now and always.
pub fn user_file(path: &Path) -> Result<Dataset> {
    let bad = |why: &str| Error::BadFile {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    let meta = fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => bad("no such file"),
        std::io::ErrorKind::PermissionDenied => bad("permission denied"),
        _ => bad(&e.to_string()),
    })?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(bad("is a directory; give a regular file"));
    }
    if kind.is_fifo() {
        return Err(bad(
            "is a FIFO (named pipe); faultline needs a regular file it can map and re-read",
        ));
    }
    if kind.is_char_device() || kind.is_block_device() {
        return Err(bad("is a device; faultline measures regular files"));
    }
    if kind.is_socket() || !kind.is_file() {
        return Err(bad("is not a regular file"));
    }
    // Opened read-only; a file faultline may not read is bad input, as a
    // missing one is.
    // Without blocking, and checked again once open: a FIFO swapped in
    // after the check above is refused, not waited on.
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => bad(
            "permission denied (faultline opens it read-only: check its mode and the directories above it)",
        ),
        _ => bad(&format!("cannot be opened: {e}")),
    })?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(bad("is not a regular file"));
    }
    if let Some(fs) = pseudo_filesystem(&file) {
        check_pseudo_file(&file, meta.len(), fs).map_err(|why| bad(&why))?;
    }
    if meta.len() == 0 {
        return Err(bad("is empty; there is nothing to read"));
    }
    Ok(Dataset {
        path: path.to_path_buf(),
        size: meta.len(),
        seed: None,
    })
}

/// The name of the file system holding `file` when it is one whose files
/// the kernel makes up as they are read (procfs, sysfs, debugfs and the
/// like): their size is often not their length, and their pages are not
/// cached, so they cannot be evicted.
pub fn pseudo_filesystem(file: &File) -> Option<&'static str> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: fstatfs fills the struct it is given, on a descriptor we own.
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut stat) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some(match stat.f_type as i64 {
        0x9fa0 => "procfs",
        0x6265_6572 => "sysfs",
        0x6462_6720 => "debugfs",
        0x7472_6163 => "tracefs",
        0x2762_8d0e | 0x27e0eb => "cgroup",
        0x6367_7270 => "cgroup2",
        0x7363_6673 => "securityfs",
        0xcafe_4a11 => "bpf",
        0x6265_6570 => "configfs",
        0xde5e_81e4 => "efivarfs",
        _ => return None,
    })
}

/// Refuses a pseudo file system's file whose size is not its length (a
/// procfs file reports 0 bytes, a sysfs one 4096): faultline measures
/// bytes that stay put. Reads the file once (up to 64 MiB) to compare.
fn check_pseudo_file(file: &File, size: u64, fs: &str) -> std::result::Result<(), String> {
    const LIMIT: u64 = 64 << 20;
    if size > LIMIT {
        return Ok(());
    }
    let mut length = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    let mut reader = file;
    loop {
        match std::io::Read::read(&mut reader, &mut buf) {
            Ok(0) => break,
            Ok(n) => {
                length += n as u64;
                if length > size {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("is a {fs} file that cannot be read ({e})")),
        }
    }
    if length == size {
        return Ok(());
    }
    let held = if length > size {
        "more".to_string()
    } else {
        length.to_string()
    };
    Err(format!(
        "is a {fs} file that reports {size} bytes but holds {held}: the kernel makes its content up as it is read, so there are no fixed bytes to measure; copy it to a regular file first"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_content_matches_the_generated_file_at_any_offset() {
        let mut file = Vec::new();
        write_content(&mut file, 100_003, 42).unwrap();
        let mut content = GeneratedContent::new(42);
        for offset in [0u64, 1, 2, 3, 4, 4095, 4096, 65_537, 100_002] {
            assert_eq!(content.byte(offset), file[offset as usize], "{offset}");
        }
        for (offset, len) in [(0usize, 8usize), (3, 8), (4093, 11), (99_990, 13)] {
            let mut got = vec![0u8; len];
            content.read(offset as u64, &mut got);
            assert_eq!(got, file[offset..offset + len], "{offset}+{len}");
        }
    }

    #[test]
    fn generates_once_and_reuses() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("d");
        let mut generated = 0;
        let a = ensure_generated(&data, 100_000, 5, |_| generated += 1).unwrap();
        let b = ensure_generated(&data, 100_000, 5, |_| generated += 1).unwrap();
        assert_eq!(generated, 1);
        assert_eq!(a, b);
        assert_eq!(fs::metadata(&a.path).unwrap().len(), 100_000);
        let mode = fs::metadata(&data).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let mut again = Vec::new();
        write_content(&mut again, 100_000, 5).unwrap();
        assert_eq!(
            fs::read(&a.path).unwrap(),
            again,
            "content is deterministic"
        );
    }

    #[test]
    fn modified_content_is_detected_and_regenerated() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        for size in [1u64, 4095, 4097, 1 << 20, (1 << 20) + 3] {
            let a = ensure_generated(dir.path(), size, 9, |_| {}).unwrap();
            assert!(content_matches(&a.path, size, 9), "size {size}");
            assert!(
                !content_matches(&a.path, size, 10),
                "another seed's bytes, size {size}"
            );
        }
        let a = ensure_generated(dir.path(), 1 << 20, 9, |_| {}).unwrap();
        let f = fs::OpenOptions::new().write(true).open(&a.path).unwrap();
        let last = (1u64 << 20) - 1;
        let original = fs::read(&a.path).unwrap()[last as usize];
        f.write_all_at(&[original ^ 0xff], last).unwrap();
        assert!(!content_matches(&a.path, 1 << 20, 9));
        let mut generated = false;
        ensure_generated(dir.path(), 1 << 20, 9, |_| generated = true).unwrap();
        assert!(generated);
        assert!(content_matches(&a.path, 1 << 20, 9));
    }

    #[test]
    fn wrong_size_is_regenerated() {
        let dir = tempfile::tempdir().unwrap();
        let a = ensure_generated(dir.path(), 4096, 1, |_| {}).unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(&a.path)
            .unwrap()
            .set_len(10)
            .unwrap();
        let mut generated = false;
        let b = ensure_generated(dir.path(), 4096, 1, |_| generated = true).unwrap();
        assert!(generated);
        assert_eq!(fs::metadata(&b.path).unwrap().len(), 4096);
    }

    #[test]
    fn refuses_world_writable_dir() {
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        let err = ensure_private_dir(dir.path()).unwrap_err().to_string();
        assert!(err.contains("writable by everyone"), "{err}");
    }
}
