//! Sectors read and written by the *whole disk* under a file, from
//! `/sys/dev/block/MAJ:MIN/stat`.
//!
//! faultline's `measure::device` reads the counters of the file's own
//! device, which for a partition leaves out traffic to the disk's other
//! partitions; for interference the whole disk is what matters, so a
//! partition is walked up to its parent (`/sys/dev/block/M:m` is a link to
//! `.../block/sda/sda1`, whose parent directory is the disk). Device-mapper
//! and md devices are taken as they are (their stat counts what was sent to
//! them; traffic to other volumes on the same disks is not seen).
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Read and written sectors (512 bytes each, whatever the device's block size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sectors {
    /// Field 3 of `stat`: sectors read.
    pub read: u64,
    /// Field 7 of `stat`: sectors written.
    pub written: u64,
}

/// Parses the text of a block device's `stat` file.
pub fn parse(text: &str) -> Option<Sectors> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    (f.len() >= 7).then(|| Sectors {
        read: f[2],
        written: f[6],
    })
}

/// The `stat` file of the whole disk holding `path`, if it is on a block device.
pub fn disk_stat_path(path: &Path) -> Option<PathBuf> {
    let dev = std::fs::metadata(path).ok()?.dev();
    let node = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ));
    let real = node.canonicalize().ok()?;
    let disk = if real.join("partition").exists() {
        real.parent()?.to_path_buf()
    } else {
        real
    };
    let stat = disk.join("stat");
    stat.exists().then_some(stat)
}

/// Reads the counters at `stat`.
pub fn read(stat: &Path) -> Option<Sectors> {
    parse(&std::fs::read_to_string(stat).ok()?)
}

impl Sectors {
    /// Bytes (read, written) since `earlier`.
    pub fn bytes_since(&self, earlier: &Sectors) -> (u64, u64) {
        (
            self.read.saturating_sub(earlier.read) * 512,
            self.written.saturating_sub(earlier.written) * 512,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_lines() {
        let s = parse("  803092    13801 28420962   257958    52417    23687  6161720    18892        0    48052   278374     6090       53  1189264     1243     5309      279\n").unwrap();
        assert_eq!(
            s,
            Sectors {
                read: 28_420_962,
                written: 6_161_720
            }
        );
        // Pre-4.18 kernels had 11 fields; still fine.
        assert_eq!(
            parse("1 2 3 4 5 6 7 8 9 10 11").unwrap(),
            Sectors {
                read: 3,
                written: 7
            }
        );
        assert_eq!(parse("1 2 3"), None);
        assert_eq!(parse("1 2 x 4 5 6 7"), None);
        let (r, w) = Sectors {
            read: 10,
            written: 4,
        }
        .bytes_since(&Sectors {
            read: 8,
            written: 4,
        });
        assert_eq!((r, w), (1024, 0));
    }

    #[test]
    fn finds_a_disk_or_says_none() {
        // On this machine's root filesystem a disk is expected; on tmpfs
        // or overlay there is none, which is fine too.
        if let Some(stat) = disk_stat_path(Path::new("/var/tmp")) {
            assert!(read(&stat).is_some(), "{}", stat.display());
            assert!(!stat.parent().unwrap().join("partition").exists());
        }
        assert_eq!(disk_stat_path(Path::new("/proc/self/stat")), None);
    }
}
