//! Block-device request counters of the device under a file, from
//! `/sys/dev/block/MAJ:MIN/stat`. They count requests and sectors, so they
//! show whether a method reads in few large requests or many small ones.
//! The counters are device-wide: other activity on the device counts too.
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where the counters of the device holding `file` are, if it has one.
pub fn stat_path(file: &File) -> Option<PathBuf> {
    let dev = file.metadata().ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let path = PathBuf::from(format!("/sys/dev/block/{major}:{minor}/stat"));
    path.exists().then_some(path)
}

/// A reading of a device's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceSnapshot {
    reads: u64,
    read_sectors: u64,
    writes: u64,
    write_sectors: u64,
}

/// Parses the text of a block device's `stat` file.
pub fn parse(text: &str) -> Option<DeviceSnapshot> {
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if fields.len() < 7 {
        return None;
    }
    Some(DeviceSnapshot {
        reads: fields[0],
        read_sectors: fields[2],
        writes: fields[4],
        write_sectors: fields[6],
    })
}

/// Reads the counters at `path`.
pub fn snapshot(path: &std::path::Path) -> Option<DeviceSnapshot> {
    parse(&std::fs::read_to_string(path).ok()?)
}

/// Requests and bytes a device served between two readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceDelta {
    /// Read requests completed.
    pub reads: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Write requests completed.
    pub writes: u64,
    /// Bytes written.
    pub write_bytes: u64,
}

impl DeviceSnapshot {
    /// What the device served since `earlier`.
    pub fn delta_since(&self, earlier: &DeviceSnapshot) -> DeviceDelta {
        DeviceDelta {
            reads: self.reads.saturating_sub(earlier.reads),
            read_bytes: self.read_sectors.saturating_sub(earlier.read_sectors) * 512,
            writes: self.writes.saturating_sub(earlier.writes),
            write_bytes: self.write_sectors.saturating_sub(earlier.write_sectors) * 512,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn parses_the_stat_format() {
        let text = "   10230     2016  1089870    4562   380117   398052 12779096   281016        0   451040   285578\n";
        let a = parse(text).unwrap();
        let b = parse("   10240     2016  1090000    4562   380118   398052 12779104   281016        0   451040   285578").unwrap();
        assert_eq!(
            b.delta_since(&a),
            DeviceDelta {
                reads: 10,
                read_bytes: 130 * 512,
                writes: 1,
                write_bytes: 8 * 512
            }
        );
        assert!(parse("1 2 x").is_none());
    }

    #[test]
    fn a_cold_read_shows_on_the_device() {
        let dir = tempfile::tempdir_in(std::env::current_dir().unwrap()).unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![1u8; 4 << 20]).unwrap();
        let mut file = File::open(&path).unwrap();
        let stat = stat_path(&file).expect("the crate's directory is on a block device");
        file.sync_all().unwrap();
        crate::runner::cache::evict(&file).unwrap();
        let before = snapshot(&stat).unwrap();
        let mut buf = Vec::new();
        file.read_to_end(&mut buf).unwrap();
        let delta = snapshot(&stat).unwrap().delta_since(&before);
        assert!(delta.reads >= 1);
        assert!(delta.read_bytes >= 4 << 20, "{delta:?}");
    }
}
