//! What O_DIRECT needs: the alignment the device asks for, and buffers that
//! honour it.
//!
//! A read with O_DIRECT must use a buffer address, a length and a file
//! offset that are multiples of the device's logical block size. faultline
//! reads that size from `/sys/dev/block/MAJ:MIN/queue/logical_block_size`
//! (for a partition, from its disk's `queue/`), and assumes 4096 bytes,
//! which every common device accepts, when the file has no block device
//! under it (tmpfs, overlay, network file systems).
use std::alloc::Layout as AllocLayout;
use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

/// What is assumed when the device's logical block size cannot be read.
pub const FALLBACK_ALIGNMENT: u64 = 4096;

/// The alignment O_DIRECT needs for one file, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// Bytes: buffer addresses, lengths and offsets must be multiples of it.
    pub bytes: u64,
    /// The device `MAJ:MIN` whose `logical_block_size` gave it; `None` when
    /// [`FALLBACK_ALIGNMENT`] was assumed.
    pub device: Option<String>,
}

impl Alignment {
    /// The alignment for a file on the device `dev` (an `st_dev`).
    pub fn of_device(dev: u64) -> Alignment {
        Self::of_device_in(Path::new("/sys/dev/block"), dev)
    }

    /// The alignment for the file or directory at `path`: its device's, or
    /// for a path that does not exist yet, that of its nearest existing
    /// ancestor (the data directory before it is created, say).
    pub fn of_path(path: &Path) -> Alignment {
        let existing = path.ancestors().find_map(|p| std::fs::metadata(p).ok());
        match existing {
            Some(meta) => Self::of_device(meta.dev()),
            None => Self::fallback(),
        }
    }

    /// [`Self::of_device`] reading sysfs under `root` (tests use a fake tree).
    pub(crate) fn of_device_in(root: &Path, dev: u64) -> Alignment {
        let name = format!("{}:{}", libc::major(dev), libc::minor(dev));
        let base: PathBuf = root.join(&name);
        // A disk has queue/; a partition's directory sits inside its disk's.
        let candidates = [
            base.join("queue/logical_block_size"),
            base.join("../queue/logical_block_size"),
        ];
        for file in candidates {
            let size = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .filter(|&n| n >= 512 && n.is_power_of_two());
            if let Some(bytes) = size {
                return Alignment {
                    bytes,
                    device: Some(name),
                };
            }
        }
        Self::fallback()
    }

    fn fallback() -> Alignment {
        Alignment {
            bytes: FALLBACK_ALIGNMENT,
            device: None,
        }
    }

    /// `n` rounded up to a multiple of the alignment.
    pub fn round_up(&self, n: u64) -> u64 {
        n.div_ceil(self.bytes) * self.bytes
    }
}

impl fmt::Display for Alignment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.device {
            Some(dev) => write!(
                f,
                "{} bytes (the logical block size of device {dev})",
                self.bytes
            ),
            None => write!(
                f,
                "{} bytes (assumed: no block device under the file)",
                self.bytes
            ),
        }
    }
}

/// A heap buffer whose address is a multiple of `align`, pre-faulted like
/// [`super::prefaulted_buffer`] so the main loop takes no fault on it.
/// The default is empty and allocates nothing.
pub(crate) struct AlignedBuf {
    ptr: NonNull<u8>,
    /// The allocation; `None` for an empty buffer, which has none.
    layout: Option<AllocLayout>,
    len: usize,
}

// SAFETY: the buffer owns its allocation alone, as a `Box<[u8]>` does:
// moving it to another thread or sharing `&` to it is as safe as that.
unsafe impl Send for AlignedBuf {}
// SAFETY: see `Send`; `&AlignedBuf` gives only `&[u8]`.
unsafe impl Sync for AlignedBuf {}

impl Default for AlignedBuf {
    fn default() -> AlignedBuf {
        AlignedBuf {
            ptr: NonNull::dangling(),
            layout: None,
            len: 0,
        }
    }
}

impl AlignedBuf {
    /// `len` bytes (at least 1) aligned to `align` (a power of two), each
    /// 0xa5.
    pub(crate) fn new(len: usize, align: usize) -> AlignedBuf {
        Self::filled(len.max(1), align, 0xa5)
    }

    /// `len` bytes aligned to `align` (a power of two), each `byte`: every
    /// page written, so faulted in. Empty when `len` is 0.
    pub(crate) fn filled(len: usize, align: usize, byte: u8) -> AlignedBuf {
        if len == 0 {
            return AlignedBuf::default();
        }
        let layout = AllocLayout::from_size_align(len, align)
            .expect("a power-of-two alignment and a sane size");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        // SAFETY: `ptr` points to `layout.size()` writable bytes; writing
        // them initialises the buffer and faults its pages in.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), byte, layout.size()) };
        AlignedBuf {
            ptr,
            layout: Some(layout),
            len,
        }
    }

    /// The start of the buffer, for I/O the kernel completes later.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The bytes, writable.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        self
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr` is valid for `len` initialised bytes while `self`
        // lives (or dangling, aligned and `len` 0 when empty).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated in `filled` with this very layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_sysfs(disk_lbs: Option<&str>) -> tempfile::TempDir {
        // /sys/dev/block/8:0 -> devices/sda, 8:1 -> devices/sda/sda1
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join("devices/sda");
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::create_dir_all(disk.join("sda1")).unwrap();
        if let Some(lbs) = disk_lbs {
            std::fs::write(disk.join("queue/logical_block_size"), lbs).unwrap();
        }
        let block = root.path().join("block");
        std::fs::create_dir(&block).unwrap();
        std::os::unix::fs::symlink(&disk, block.join("8:0")).unwrap();
        std::os::unix::fs::symlink(disk.join("sda1"), block.join("8:1")).unwrap();
        root
    }

    #[test]
    fn disk_and_partition_read_the_disks_queue() {
        let root = fake_sysfs(Some("512\n"));
        let block = root.path().join("block");
        let disk = Alignment::of_device_in(&block, libc::makedev(8, 0));
        assert_eq!(disk.bytes, 512);
        assert_eq!(disk.device.as_deref(), Some("8:0"));
        let part = Alignment::of_device_in(&block, libc::makedev(8, 1));
        assert_eq!(part.bytes, 512);
        assert_eq!(part.device.as_deref(), Some("8:1"));
        assert!(part
            .to_string()
            .contains("logical block size of device 8:1"));
    }

    #[test]
    fn missing_or_odd_sizes_fall_back_to_4096() {
        for lbs in [None, Some("garbage"), Some("1000"), Some("0")] {
            let root = fake_sysfs(lbs);
            let a = Alignment::of_device_in(&root.path().join("block"), libc::makedev(8, 1));
            assert_eq!(a.bytes, FALLBACK_ALIGNMENT, "{lbs:?}");
            assert_eq!(a.device, None);
            assert!(a.to_string().contains("assumed"));
        }
        let none = Alignment::of_device_in(Path::new("/nonexistent"), libc::makedev(0, 42));
        assert_eq!(none.bytes, FALLBACK_ALIGNMENT);
    }

    #[test]
    fn rounding_and_buffers() {
        let a = Alignment {
            bytes: 512,
            device: None,
        };
        assert_eq!(a.round_up(1), 512);
        assert_eq!(a.round_up(512), 512);
        assert_eq!(a.round_up(513), 1024);
        let mut buf = AlignedBuf::new(3 * 4096, 4096);
        assert_eq!(buf.len(), 3 * 4096);
        let bytes = buf.as_mut_slice();
        assert_eq!(bytes.as_ptr() as usize % 4096, 0);
        assert!(bytes.iter().all(|&b| b == 0xa5));
    }

    #[test]
    fn trial_buffers_start_on_a_page_and_are_faulted_in() {
        let page = crate::system::page_size();
        for len in [1, 4096, 16 << 10, 100_000] {
            let buf = super::super::prefaulted_buffer(len);
            assert_eq!(buf.len(), len);
            assert_eq!(buf.as_ptr() as usize % page, 0, "{len}");
            assert!(buf.iter().all(|&b| b == 0xa5));
            let zeros = super::super::zeroed_buffer(len);
            assert_eq!(zeros.as_ptr() as usize % page, 0, "{len}");
            assert!(zeros.iter().all(|&b| b == 0));
        }
        assert!(super::super::prefaulted_buffer(0).is_empty());
        assert!(AlignedBuf::default().is_empty());
    }

    #[test]
    fn a_path_that_does_not_exist_uses_its_nearest_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let here = Alignment::of_path(dir.path());
        let below = Alignment::of_path(&dir.path().join("not/yet/made"));
        assert_eq!(here, below);
    }
}
