//! The environment every number depends on.
//!
//! [`capture`] records the faultline build, the kernel, the CPU, memory, page
//! size and transparent-huge-page mode, and for the file under test its file
//! system, block device and readahead. Everything is read, nothing is
//! changed: `drop_caches` is only checked for writability. Whatever cannot be
//! read is left `None` (or `false`); capturing never fails or panics.
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::residency;

/// Machine, kernel, file system and faultline build.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Environment {
    /// faultline's version.
    pub faultline_version: String,
    /// Git commit faultline was built from, when the build recorded one
    /// (`FAULTLINE_GIT_COMMIT` at compile time).
    pub git_commit: Option<String>,
    /// Kernel release and version, as `uname -r` and `uname -v` print them.
    pub kernel: String,
    /// Machine architecture (`uname -m`), e.g. `x86_64`.
    pub arch: String,
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: Option<String>,
    /// CPUs this process may run on (`available_parallelism`: affinity and cgroup quota).
    pub cores: Option<usize>,
    /// CPUs online in the machine.
    pub cores_online: Option<usize>,
    /// Physical memory (MemTotal), bytes.
    pub ram_bytes: Option<u64>,
    /// Page size, bytes.
    pub page_size: u64,
    /// Transparent huge pages mode (`always`, `madvise` or `never`).
    pub thp_enabled: Option<String>,
    /// Transparent huge pages defrag mode.
    pub thp_defrag: Option<String>,
    /// The file described below (canonical path), if one was given.
    pub file: Option<String>,
    /// File system type of the file's mount, e.g. `ext4`.
    pub filesystem: Option<String>,
    /// Mount point of the file's file system.
    pub mount_point: Option<String>,
    /// Mount source of the file's file system, e.g. `/dev/nvme0n1p2`.
    pub mount_source: Option<String>,
    /// The file's device number (`st_dev`) as `major:minor`.
    pub device_number: Option<String>,
    /// Kernel name of the block device holding the file, e.g. `nvme0n1p2`
    /// (`None` on file systems without one, such as tmpfs).
    pub block_device: Option<String>,
    /// Readahead of that block device (or of its disk, for a partition), KiB.
    pub read_ahead_kb: Option<u64>,
    /// Bytes mapped around an mmap fault (debugfs `fault_around_bytes`), if readable.
    pub fault_around_bytes: Option<u64>,
    /// Whether the cachestat() system call works (on the file, if given).
    pub cachestat_available: bool,
    /// Whether this process could drop the page cache via /proc/sys/vm/drop_caches.
    pub drop_caches_writable: bool,
    /// DAMON worker threads (kdamonds) running; a running one may reclaim
    /// idle page-cache pages behind faultline's back. `None` when DAMON's
    /// sysfs interface is absent.
    pub damon_kdamonds_running: Option<u32>,
    /// The machine's host name (uname's nodename), to tell runs from
    /// several machines apart (`faultline compare`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// When the environment was captured, UTC, as `YYYY-MM-DD HH:MM UTC`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<String>,
}

/// Captures the environment; `file` selects the file system and device described.
pub fn capture(file: Option<&Path>) -> Environment {
    let (kernel, arch) = uname();
    let mut env = Environment {
        faultline_version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: option_env!("FAULTLINE_GIT_COMMIT")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from),
        kernel,
        arch,
        cpu_model: read("/proc/cpuinfo").and_then(|t| parse_cpu_model(&t)),
        cores: std::thread::available_parallelism().ok().map(|n| n.get()),
        cores_online: sysconf(libc::_SC_NPROCESSORS_ONLN).map(|n| n as usize),
        ram_bytes: read("/proc/meminfo").and_then(|t| parse_mem_total(&t)),
        page_size: sysconf(libc::_SC_PAGESIZE).unwrap_or(0),
        thp_enabled: read("/sys/kernel/mm/transparent_hugepage/enabled")
            .and_then(|t| parse_bracketed(&t)),
        thp_defrag: read("/sys/kernel/mm/transparent_hugepage/defrag")
            .and_then(|t| parse_bracketed(&t)),
        fault_around_bytes: read("/sys/kernel/debug/fault_around_bytes")
            .and_then(|t| t.trim().parse().ok()),
        drop_caches_writable: drop_caches_writable(),
        damon_kdamonds_running: damon_kdamonds_running(),
        hostname: hostname(),
        captured_at: utc_now(),
        ..Environment::default()
    };
    if let Some(path) = file {
        describe_file(&mut env, path);
    }
    env.cachestat_available = probe_cachestat(file);
    env
}

impl Environment {
    /// Human-readable `(label, value)` rows, one per field, labelled with the
    /// field names, in declaration order.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let or = |v: &Option<String>, missing: &str| v.clone().unwrap_or_else(|| missing.into());
        let num =
            |v: Option<u64>, missing: &str| v.map_or_else(|| missing.into(), |n| n.to_string());
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        // File-related fields: "n/a" when no file was given, else "unknown".
        let file_missing = if self.file.is_some() {
            "unknown"
        } else {
            "n/a (no file)"
        };
        let no_device = if self.file.is_none() {
            "n/a (no file)"
        } else if self.block_device.is_none() {
            "n/a (no block device)"
        } else {
            "unknown"
        };
        vec![
            ("faultline_version", self.faultline_version.clone()),
            ("git_commit", or(&self.git_commit, "unknown")),
            ("kernel", non_empty(&self.kernel)),
            ("arch", non_empty(&self.arch)),
            ("cpu_model", or(&self.cpu_model, "unknown")),
            ("cores", num(self.cores.map(|n| n as u64), "unknown")),
            (
                "cores_online",
                num(self.cores_online.map(|n| n as u64), "unknown"),
            ),
            (
                "ram_bytes",
                self.ram_bytes
                    .map_or_else(|| "unknown".into(), |b| format!("{} ({b} bytes)", gib(b))),
            ),
            (
                "page_size",
                num(Some(self.page_size).filter(|&p| p > 0), "unknown"),
            ),
            ("thp_enabled", or(&self.thp_enabled, "unavailable")),
            ("thp_defrag", or(&self.thp_defrag, "unavailable")),
            ("file", or(&self.file, "none")),
            ("filesystem", or(&self.filesystem, file_missing)),
            ("mount_point", or(&self.mount_point, file_missing)),
            ("mount_source", or(&self.mount_source, file_missing)),
            ("device_number", or(&self.device_number, file_missing)),
            ("block_device", or(&self.block_device, no_device)),
            ("read_ahead_kb", num(self.read_ahead_kb, no_device)),
            (
                "fault_around_bytes",
                num(self.fault_around_bytes, "unreadable"),
            ),
            ("cachestat_available", yes_no(self.cachestat_available)),
            ("drop_caches_writable", yes_no(self.drop_caches_writable)),
            (
                "damon_kdamonds_running",
                self.damon_kdamonds_running
                    .map_or_else(|| "unreadable".to_string(), |n| n.to_string()),
            ),
            ("hostname", or(&self.hostname, "unknown")),
            ("captured_at", or(&self.captured_at, "not recorded")),
        ]
    }
}

fn non_empty(s: &str) -> String {
    if s.is_empty() {
        "unknown".into()
    } else {
        s.to_string()
    }
}

/// Bytes as GiB with one decimal, e.g. `23.5 GiB`.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Reads a text file, `None` if it cannot be read.
fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A positive sysconf value.
fn sysconf(name: libc::c_int) -> Option<u64> {
    // SAFETY: sysconf has no memory-safety preconditions.
    let v = unsafe { libc::sysconf(name) };
    u64::try_from(v).ok().filter(|&v| v > 0)
}

/// A NUL-terminated `c_char` array as a String.
fn c_field(field: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = field
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// (`release version`, `machine`) from uname(), or ("", ARCH) if it fails.
fn uname() -> (String, String) {
    // SAFETY: an all-zero `utsname` (arrays of c_char) is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname for the kernel to fill.
    if unsafe { libc::uname(&mut u) } != 0 {
        return (String::new(), std::env::consts::ARCH.to_string());
    }
    let release = c_field(&u.release);
    let version = c_field(&u.version);
    let kernel = format!("{release} {version}").trim().to_string();
    let machine = c_field(&u.machine);
    let arch = if machine.is_empty() {
        std::env::consts::ARCH.to_string()
    } else {
        machine
    };
    (kernel, arch)
}

/// uname's nodename, or `None` when empty or unreadable.
fn hostname() -> Option<String> {
    // SAFETY: an all-zero `utsname` (arrays of c_char) is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname for the kernel to fill.
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    Some(c_field(&u.nodename)).filter(|h| !h.is_empty())
}

/// The current time in UTC, `YYYY-MM-DD HH:MM UTC` (gmtime_r), or `None`.
fn utc_now() -> Option<String> {
    // SAFETY: time(NULL) only returns the time.
    let now = unsafe { libc::time(std::ptr::null_mut()) };
    // SAFETY: an all-zero `tm` is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call.
    if unsafe { libc::gmtime_r(&now, &mut tm) }.is_null() {
        return None;
    }
    Some(format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min
    ))
}

/// The first CPU model name in /proc/cpuinfo text (`model name`, or the
/// equivalent key on architectures without one).
fn parse_cpu_model(text: &str) -> Option<String> {
    for key in ["model name", "cpu model", "Hardware", "cpu"] {
        let found = text.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        });
        if let Some(v) = found.filter(|v| !v.is_empty()) {
            return Some(v);
        }
    }
    None
}

/// MemTotal from /proc/meminfo text, bytes.
fn parse_mem_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut it = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// The selected (bracketed) word of a sysfs choice file, e.g. `madvise` from
/// `always [madvise] never`.
fn parse_bracketed(text: &str) -> Option<String> {
    let start = text.find('[')? + 1;
    let len = text[start..].find(']')?;
    Some(text[start..start + len].to_string()).filter(|w| !w.is_empty())
}

/// One line of /proc/self/mountinfo.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MountEntry {
    /// `major:minor` of the mounted file system.
    dev: String,
    mount_point: PathBuf,
    fstype: String,
    source: String,
}

/// Undoes mountinfo's octal escapes (`\040` for a space, and so on).
fn unescape_mount(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            let oct = &b[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = oct
                    .iter()
                    .fold(0u32, |acc, c| acc * 8 + u32::from(c - b'0'));
                if let Ok(v) = u8::try_from(v) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses /proc/self/mountinfo text; malformed lines are skipped.
fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            // id parent maj:min root mount-point options [optional...] - fstype source super-options
            let sep = fields.iter().skip(6).position(|f| *f == "-")? + 6;
            Some(MountEntry {
                dev: fields.get(2)?.to_string(),
                mount_point: PathBuf::from(unescape_mount(fields.get(4)?)),
                fstype: unescape_mount(fields.get(sep + 1)?),
                source: unescape_mount(fields.get(sep + 2)?),
            })
        })
        .collect()
}

/// The mount holding `path` (canonical): the longest mount point that is a
/// prefix of it, the later one when a mount point is mounted over.
fn find_mount<'a>(mounts: &'a [MountEntry], path: &Path) -> Option<&'a MountEntry> {
    mounts
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.components().count())
}

/// Block device directory in sysfs for a device number, if it is a block device.
fn sys_block_dir(major: u32, minor: u32) -> Option<PathBuf> {
    let dir = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    dir.exists().then_some(dir)
}

/// read_ahead_kb of a block device, or of its disk when it is a partition.
fn read_ahead_kb(dir: &Path) -> Option<u64> {
    ["queue/read_ahead_kb", "../queue/read_ahead_kb"]
        .iter()
        .find_map(|rel| read(dir.join(rel)))
        .and_then(|t| t.trim().parse().ok())
}

/// The file-system type (as in /proc/self/mountinfo, e.g. `ext4`, `tmpfs`,
/// `sysfs`) of the mount holding `path`.
pub fn filesystem_of(path: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok()?;
    let mounts = parse_mountinfo(&read("/proc/self/mountinfo")?);
    find_mount(&mounts, &canonical).map(|m| m.fstype.clone())
}

/// Fills the file-related fields.
fn describe_file(env: &mut Environment, path: &Path) {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    env.file = Some(canonical.display().to_string());

    let mount = read("/proc/self/mountinfo").and_then(|text| {
        let mounts = parse_mountinfo(&text);
        find_mount(&mounts, &canonical).cloned()
    });
    if let Some(m) = &mount {
        env.filesystem = Some(m.fstype.clone());
        env.mount_point = Some(m.mount_point.display().to_string());
        env.mount_source = Some(m.source.clone());
    }

    let Ok(meta) = std::fs::metadata(&canonical) else {
        return;
    };
    let dev = meta.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    env.device_number = Some(format!("{major}:{minor}"));

    // The file's own device, else (btrfs, overlay: anonymous st_dev) the
    // block device named as the mount source.
    let dir = sys_block_dir(major, minor).or_else(|| {
        let source = mount.as_ref()?.source.clone();
        if !source.starts_with("/dev/") {
            return None;
        }
        let meta = std::fs::metadata(&source).ok()?;
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_block_device() {
            return None;
        }
        let rdev = meta.rdev();
        sys_block_dir(libc::major(rdev), libc::minor(rdev))
    });
    if let Some(dir) = dir {
        env.block_device = std::fs::canonicalize(&dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        env.read_ahead_kb = read_ahead_kb(&dir);
    }
}

/// Whether cachestat() works on `file` (if it is a regular file that can be
/// opened), else on our own executable.
fn probe_cachestat(file: Option<&Path>) -> bool {
    let probe = file
        // Only regular files: opening a FIFO would block.
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
        .and_then(|p| std::fs::File::open(p).ok())
        .or_else(|| std::fs::File::open("/proc/self/exe").ok());
    probe.is_some_and(|f| residency::cachestat_available(&f))
}

/// Effective uid 0, /proc/sys/vm/drop_caches exists and is writable (not
/// read-only mounted, as in many containers). Nothing is written.
/// Counts the kdamonds whose state is `on` under /sys/kernel/mm/damon/admin.
fn damon_kdamonds_running() -> Option<u32> {
    let root = Path::new("/sys/kernel/mm/damon/admin/kdamonds");
    let count: u32 = read(root.join("nr_kdamonds"))?.trim().parse().ok()?;
    let running = (0..count)
        .filter(|i| read(root.join(i.to_string()).join("state")).is_some_and(|s| s.trim() == "on"))
        .count();
    Some(running as u32)
}

fn drop_caches_writable() -> bool {
    const PATH: &std::ffi::CStr = c"/proc/sys/vm/drop_caches";
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !Path::new("/proc/sys/vm/drop_caches").exists() {
        return false;
    }
    // SAFETY: PATH is a valid NUL-terminated string; faccessat only checks.
    unsafe { libc::faccessat(libc::AT_FDCWD, PATH.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_on_a_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 64 << 10]).unwrap();
        let env = capture(Some(&path));
        assert!(!env.kernel.is_empty());
        assert!(!env.arch.is_empty());
        assert_eq!(env.faultline_version, env!("CARGO_PKG_VERSION"));
        assert!(env.page_size >= 4096, "page size {}", env.page_size);
        assert!(env.ram_bytes.is_some_and(|b| b > 0));
        assert!(env.cores.is_some_and(|n| n >= 1));
        assert!(env.cores_online.is_some_and(|n| n >= 1));
        assert!(env.filesystem.as_deref().is_some_and(|s| !s.is_empty()));
        assert!(env.mount_point.is_some());
        assert!(env.device_number.is_some());
        let canonical = std::fs::canonicalize(&path).unwrap();
        assert_eq!(env.file.as_deref(), Some(&*canonical.display().to_string()));
        assert!(canonical.starts_with(env.mount_point.as_ref().unwrap()));
        if env.block_device.is_some() {
            assert!(env.read_ahead_kb.is_some(), "{env:?}");
        }
        // Round trip through JSON.
        let json = serde_json::to_string(&env).unwrap();
        let back: Environment = serde_json::from_str(&json).unwrap();
        assert_eq!(back.kernel, env.kernel);
        assert_eq!(back.filesystem, env.filesystem);
    }

    #[test]
    fn capture_without_file() {
        let env = capture(None);
        assert!(env.file.is_none() && env.filesystem.is_none() && env.read_ahead_kb.is_none());
        let rows = env.describe();
        let fs = rows.iter().find(|(l, _)| *l == "filesystem").unwrap();
        assert_eq!(fs.1, "n/a (no file)");
    }

    #[test]
    fn capture_on_tmpfs_has_no_block_device() {
        let dir = tempfile::tempdir_in("/dev/shm").expect("this test needs /dev/shm, a tmpfs");
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let env = capture(Some(&path));
        assert_eq!(
            env.filesystem.as_deref(),
            Some("tmpfs"),
            "this test needs /dev/shm to be a tmpfs"
        );
        assert_eq!(env.block_device, None);
        assert_eq!(env.read_ahead_kb, None);
        let rows = env.describe();
        let ra = rows.iter().find(|(l, _)| *l == "read_ahead_kb").unwrap();
        assert_eq!(ra.1, "n/a (no block device)");
    }

    #[test]
    fn describe_has_a_row_for_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let env = capture(Some(dir.path()));
        let rows = env.describe();
        let labels: Vec<&str> = rows.iter().map(|(l, _)| *l).collect();
        let json = serde_json::to_value(&env).unwrap();
        let fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut sorted = labels.clone();
        sorted.sort_unstable();
        let mut fields_sorted = fields.clone();
        fields_sorted.sort_unstable();
        assert_eq!(sorted, fields_sorted);
        assert!(rows.iter().all(|(_, v)| !v.is_empty()), "{rows:?}");
        // Also for an empty (default) environment.
        assert_eq!(Environment::default().describe().len(), rows.len());
        let fab = Environment::default().describe();
        let fab = fab
            .iter()
            .find(|(l, _)| *l == "fault_around_bytes")
            .unwrap();
        assert_eq!(fab.1, "unreadable");
    }

    #[test]
    fn old_json_without_new_fields_still_loads() {
        let env: Environment = serde_json::from_str(r#"{"faultline_version":"0.0.1"}"#).unwrap();
        assert_eq!(env.faultline_version, "0.0.1");
        assert_eq!(env.page_size, 0);
    }

    #[test]
    fn parses_proc_and_sys_text() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n\
                       model name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_cpu_model(cpuinfo).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(parse_cpu_model("processor : 0\nBogoMIPS : 50\n"), None);
        assert_eq!(
            parse_mem_total("MemFree: 1 kB\nMemTotal:       24684084 kB\n"),
            Some(24684084 * 1024)
        );
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(
            parse_bracketed("always [madvise] never\n").as_deref(),
            Some("madvise")
        );
        assert_eq!(
            parse_bracketed("always defer defer+madvise [madvise] never").as_deref(),
            Some("madvise")
        );
        assert_eq!(parse_bracketed("always madvise never"), None);
    }

    const MOUNTINFO: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
40 27 0:30 / /data rw,relatime shared:5 - xfs /dev/sdb1 rw
41 40 0:31 / /data/my\\040disk rw - btrfs /dev/sdc rw
42 27 0:32 / /tmp rw - ext4 /dev/vdb rw
43 27 0:33 / /tmp rw - tmpfs tmpfs rw
bogus line
";

    #[test]
    fn finds_the_longest_and_latest_mount() {
        let mounts = parse_mountinfo(MOUNTINFO);
        assert_eq!(mounts.len(), 6);
        assert_eq!(mounts[2].fstype, "xfs");
        assert_eq!(mounts[2].source, "/dev/sdb1");
        assert_eq!(mounts[3].mount_point, PathBuf::from("/data/my disk"));
        let fs = |p: &str| find_mount(&mounts, Path::new(p)).map(|m| m.fstype.as_str());
        assert_eq!(fs("/data/x"), Some("xfs"));
        assert_eq!(fs("/data/my disk/x"), Some("btrfs"));
        assert_eq!(fs("/database/x"), Some("ext4")); // prefix by components, not bytes
        assert_eq!(fs("/home/a"), Some("ext4"));
        assert_eq!(fs("/tmp/f"), Some("tmpfs")); // mounted over: the later one
        assert_eq!(fs("/proc/self"), Some("proc"));
    }

    #[test]
    fn unescapes_mount_paths() {
        assert_eq!(unescape_mount("/a\\040b"), "/a b");
        assert_eq!(unescape_mount("/a\\011b\\134c"), "/a\tb\\c");
        assert_eq!(unescape_mount("/a\\09x"), "/a\\09x");
        assert_eq!(unescape_mount("/end\\04"), "/end\\04");
        assert_eq!(unescape_mount("/é\\é"), "/é\\é");
    }
}
