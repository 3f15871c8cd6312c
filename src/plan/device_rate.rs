//! Device-rate limits (`--device-rate`): each trial child runs in an I/O
//! cgroup that throttles its reads (and its direct writes) of the block
//! device holding the trial's file, so that a fast disk behaves like a slow
//! one (dillon2004's I/O-bound machine).
//!
//! Two ways, tried in this order by [`for_run`]:
//!
//! 1. **cgroup v2**: a child of faultline's own cgroup with `io.max`
//!    (`MAJ:MIN rbps=N wbps=N`), when a cgroup2 hierarchy has the io
//!    controller enabled for children (`io` in `cgroup.subtree_control`).
//! 2. **cgroup v1**: a child of faultline's own blkio cgroup with
//!    `blkio.throttle.read_bps_device` and `blkio.throttle.write_bps_device`
//!    (`MAJ:MIN N`). v1 throttles the reads the trial issues (page-cache
//!    misses and readahead included) and its direct and synchronous writes,
//!    not the kernel's later writeback of its dirty pages.
//!
//! Otherwise (not root, or neither controller) the run is refused in one
//! line. The device is found when the trial runs, from the file's `st_dev`
//! ([`device_of`]): a partition is throttled through its whole disk, which
//! is what the throttle accounts. The cgroup itself is the runner's
//! ([`crate::runner::cgroup::TrialCgroup`]).
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How a case's device rate is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThrottleKind {
    /// A cgroup v2 child with `io.max`.
    CgroupV2IoMax,
    /// A cgroup v1 blkio child with `blkio.throttle.*_bps_device`.
    CgroupV1Blkio,
}

impl ThrottleKind {
    /// How it reads in a heading or a note.
    pub fn describe(self) -> &'static str {
        match self {
            ThrottleKind::CgroupV2IoMax => "cgroup v2 io.max",
            ThrottleKind::CgroupV1Blkio => "cgroup v1 blkio.throttle",
        }
    }
}

/// The rate a case's trials may read their file's device at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DeviceRate {
    /// How it is enforced.
    pub kind: ThrottleKind,
    /// Bytes per second, reads and (direct) writes each.
    pub bytes_per_s: u64,
}

impl DeviceRate {
    /// The rate in words: `16 MB/s` (decimal megabytes, as disks are rated).
    pub fn rate_words(&self) -> String {
        format_rate(self.bytes_per_s)
    }
}

impl std::fmt::Display for DeviceRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "device throttled to {} ({})",
            self.rate_words(),
            self.kind.describe()
        )
    }
}

/// A rate in decimal megabytes per second: `16 MB/s`, `2.5 MB/s`,
/// `0.064 MB/s`.
pub fn format_rate(bytes_per_s: u64) -> String {
    let mb = bytes_per_s as f64 / 1e6;
    let text = format!("{mb:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} MB/s")
}

/// The least `--device-rate`: below it even a small file takes minutes.
pub const MIN_DEVICE_RATE: u64 = 64 << 10;

/// Parses `--device-rate`: a size per second, `40MB/s`, `16M/s`, `512KiB/s`
/// (the `/s` may be left out), sizes as every size flag reads them
/// ([`crate::size::parse_size`]), at least [`MIN_DEVICE_RATE`].
pub fn parse_device_rate(input: &str) -> std::result::Result<u64, String> {
    let s = input.trim();
    let number = s.strip_suffix("/s").unwrap_or(s).trim();
    let bytes = crate::size::parse_size(number).map_err(|e| format!("'{s}' is not a rate: {e}"))?;
    if bytes < MIN_DEVICE_RATE {
        return Err(format!(
            "{} is below the {}/s minimum of --device-rate",
            format_rate(bytes),
            crate::size::format_size(MIN_DEVICE_RATE)
        ));
    }
    Ok(bytes)
}

/// The cgroup directories this machine offers for a throttle, as [`probe`]
/// finds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The cgroup v2 directory faultline may create an io-limited child in.
    pub v2_parent: Option<PathBuf>,
    /// The cgroup v1 blkio directory faultline may create a child in.
    pub v1_parent: Option<PathBuf>,
}

/// Reads what this machine offers (nothing is created or changed).
pub fn probe() -> Probe {
    let dirs = super::memory_budget::own_dirs();
    Probe {
        v2_parent: dirs.v2.filter(|dir| {
            std::fs::read_to_string(dir.join("cgroup.subtree_control"))
                .is_ok_and(|s| s.split_whitespace().any(|c| c == "io"))
                && super::memory_budget::writable(dir)
        }),
        v1_parent: dirs.v1_blkio.filter(|dir| {
            dir.join("blkio.throttle.read_bps_device").exists()
                && super::memory_budget::writable(dir)
        }),
    }
}

impl Probe {
    /// The directory a throttle of `kind` is created in.
    pub fn parent(&self, kind: ThrottleKind) -> Option<&Path> {
        match kind {
            ThrottleKind::CgroupV2IoMax => self.v2_parent.as_deref(),
            ThrottleKind::CgroupV1Blkio => self.v1_parent.as_deref(),
        }
    }
}

/// The limit of `--device-rate RATE`: cgroup v2 `io.max` when this machine
/// offers one faultline may create, else cgroup v1 blkio; a refusal in one
/// line when neither (not root, or no io controller). Pure: [`probe`] reads
/// the machine.
pub fn for_run(probe: &Probe, bytes_per_s: u64) -> Result<DeviceRate> {
    let kind = if probe.v2_parent.is_some() {
        ThrottleKind::CgroupV2IoMax
    } else if probe.v1_parent.is_some() {
        ThrottleKind::CgroupV1Blkio
    } else {
        return Err(Error::Plan(
            "--device-rate runs each trial in an I/O cgroup, and this process may not create one: \
             run as root (it needs a cgroup v2 hierarchy with the io controller, or the v1 blkio \
             hierarchy)"
                .into(),
        ));
    };
    Ok(DeviceRate { kind, bytes_per_s })
}

/// The whole disk (major, minor) holding `path` (or, when `path` does not
/// exist yet, its nearest ancestor that does): the file system's device from `st_dev`, and
/// for a partition its parent disk, as the throttle needs. Fails with one
/// line for a file system on no block device (tmpfs, overlay, NFS).
pub fn device_of(path: &Path) -> Result<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    // A path not made yet (a data directory, a scratch file) is on the
    // device of its nearest ancestor that exists.
    let whole = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let meta = whole
        .ancestors()
        .find_map(|p| std::fs::metadata(p).ok())
        .map_or_else(
            || std::fs::metadata(path).map_err(|e| Error::io("find the device of", path, e)),
            Ok,
        )?;
    let dev = meta.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    whole_disk(Path::new("/sys/dev/block"), major, minor).ok_or_else(|| {
        Error::Plan(format!(
            "--device-rate cannot throttle {}: its file system is on no block device \
             ({major}:{minor}; tmpfs, overlay or a network file system?); read a file (--file) \
             or use a data directory (--data-dir) on a disk",
            path.display()
        ))
    })
}

/// The whole disk of block device `major:minor` under `sys_block`
/// (`/sys/dev/block`): itself, or for a partition (a `partition` file in
/// its directory) the disk its directory sits in; `None` when it is no
/// block device.
pub fn whole_disk(sys_block: &Path, major: u32, minor: u32) -> Option<(u32, u32)> {
    let dir = sys_block.join(format!("{major}:{minor}"));
    if !dir.exists() {
        return None;
    }
    if !dir.join("partition").exists() {
        return Some((major, minor));
    }
    let parent = std::fs::canonicalize(&dir).ok()?.parent()?.join("dev");
    parse_dev(&std::fs::read_to_string(parent).ok()?)
}

/// `MAJ:MIN` of a sysfs `dev` file.
fn parse_dev(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// What is written to set the throttle of `rate` on device `dev`: (file,
/// line) pairs in the cgroup's directory.
pub fn limit_lines(rate: &DeviceRate, dev: (u32, u32)) -> Vec<(&'static str, String)> {
    let (major, minor) = dev;
    let n = rate.bytes_per_s;
    match rate.kind {
        ThrottleKind::CgroupV2IoMax => {
            vec![("io.max", format!("{major}:{minor} rbps={n} wbps={n}"))]
        }
        ThrottleKind::CgroupV1Blkio => vec![
            (
                "blkio.throttle.read_bps_device",
                format!("{major}:{minor} {n}"),
            ),
            (
                "blkio.throttle.write_bps_device",
                format!("{major}:{minor} {n}"),
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_like_sizes_per_second() {
        assert_eq!(parse_device_rate("40MB/s"), Ok(40_000_000));
        assert_eq!(parse_device_rate("16M/s"), Ok(16 << 20));
        assert_eq!(parse_device_rate("512KiB/s"), Ok(512 << 10));
        assert_eq!(parse_device_rate("8MB"), Ok(8_000_000));
        assert_eq!(parse_device_rate(" 1.5MB/s "), Ok(1_500_000));
        for bad in ["", "/s", "fast", "-1M/s", "10 parsecs/s", "0/s", "1k/s"] {
            let err = parse_device_rate(bad).unwrap_err();
            assert!(!err.is_empty() && !err.contains('\n'), "{bad}: {err}");
        }
        assert!(parse_device_rate("1k/s").unwrap_err().contains("minimum"));
        assert_eq!(format_rate(16_000_000), "16 MB/s");
        assert_eq!(format_rate(2_500_000), "2.5 MB/s");
        assert_eq!(format_rate(65_536), "0.066 MB/s");
    }

    #[test]
    fn v2_is_preferred_and_none_refuses_in_one_line() {
        let both = Probe {
            v2_parent: Some("/sys/fs/cgroup/x".into()),
            v1_parent: Some("/sys/fs/cgroup/blkio".into()),
        };
        assert_eq!(
            for_run(&both, 8_000_000).unwrap().kind,
            ThrottleKind::CgroupV2IoMax
        );
        let v1 = Probe {
            v2_parent: None,
            ..both.clone()
        };
        let r = for_run(&v1, 8_000_000).unwrap();
        assert_eq!(r.kind, ThrottleKind::CgroupV1Blkio);
        assert_eq!(
            r.to_string(),
            "device throttled to 8 MB/s (cgroup v1 blkio.throttle)"
        );
        let err = for_run(&Probe::default(), 8_000_000).unwrap_err();
        assert!(matches!(err, Error::Plan(_)));
        assert!(err.to_string().contains("run as root"), "{err}");
        assert!(!err.to_string().contains('\n'));
    }

    #[test]
    fn limit_lines_name_the_device_and_rate_in_each_format() {
        let v2 = DeviceRate {
            kind: ThrottleKind::CgroupV2IoMax,
            bytes_per_s: 8_000_000,
        };
        assert_eq!(
            limit_lines(&v2, (259, 0)),
            [("io.max", "259:0 rbps=8000000 wbps=8000000".to_string())]
        );
        let v1 = DeviceRate {
            kind: ThrottleKind::CgroupV1Blkio,
            ..v2
        };
        assert_eq!(
            limit_lines(&v1, (8, 0)),
            [
                ("blkio.throttle.read_bps_device", "8:0 8000000".to_string()),
                ("blkio.throttle.write_bps_device", "8:0 8000000".to_string())
            ]
        );
    }

    #[test]
    fn a_partition_is_throttled_through_its_whole_disk() {
        // A fake sysfs: devices/sda (8:0) holding sda1 (8:1), and the
        // dev/block links to them.
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join("devices/sda");
        let part = disk.join("sda1");
        std::fs::create_dir_all(&part).unwrap();
        std::fs::write(disk.join("dev"), "8:0\n").unwrap();
        std::fs::write(part.join("dev"), "8:1\n").unwrap();
        std::fs::write(part.join("partition"), "1\n").unwrap();
        let block = root.path().join("dev/block");
        std::fs::create_dir_all(&block).unwrap();
        std::os::unix::fs::symlink(&disk, block.join("8:0")).unwrap();
        std::os::unix::fs::symlink(&part, block.join("8:1")).unwrap();
        assert_eq!(whole_disk(&block, 8, 1), Some((8, 0)));
        assert_eq!(whole_disk(&block, 8, 0), Some((8, 0)));
        // tmpfs and overlay have anonymous devices: no block device.
        assert_eq!(whole_disk(&block, 0, 45), None);
    }

    #[test]
    fn the_file_device_is_found_or_refused_in_one_line() {
        // /proc is on no block device.
        let err = device_of(Path::new("/proc/self/status")).unwrap_err();
        assert!(err.to_string().contains("no block device"), "{err}");
        assert!(!err.to_string().contains('\n'));
        // A file on a disk (when the test's temporary directory is on
        // one), or a file not made yet, by its directory.
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("not-yet");
        assert_eq!(
            device_of(&missing).ok(),
            device_of(dir.path()).ok(),
            "a file not made yet is found by its directory"
        );
    }
}
