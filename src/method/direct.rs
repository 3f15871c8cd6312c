//! `direct`: pread() with O_DIRECT into a buffer aligned to the device's
//! logical block size, so the page cache is bypassed in both directions:
//! nothing is copied out of it and nothing is left in it.
//!
//! O_DIRECT is switched on during setup with `fcntl(F_SETFL)`, which the
//! kernel refuses exactly as it refuses `open(O_DIRECT)`: with EINVAL on a
//! file system that cannot do direct I/O (ramfs, procfs, sysfs; tmpfs before
//! Linux 6.6). Each block is read with its length rounded up to the
//! alignment, so a short last block is a short read that ends at the end of
//! the file, which is what O_DIRECT allows.
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt};

use super::aligned::{AlignedBuf, Alignment};
use super::{LoopCounts, Method, Spec};
use crate::error::{Error, Result};
use crate::pattern::chase::chase_word;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// Turns O_DIRECT on for `file` and returns the alignment its reads need.
/// Fails with a message that says what to do when the file system refuses
/// O_DIRECT or `block_size` breaks the alignment.
pub(crate) fn enable_direct(file: &File, block_size: u64) -> Result<Alignment> {
    enable_direct_checked(file, "use --method pread or uring", |alignment| {
        misaligned(block_size, alignment)
    })
}

/// [`enable_direct`] for the O_DIRECT write methods: the file size must be
/// aligned too, since every byte written is the workload's (no padding of
/// the last block), so its end must fall on the alignment.
pub(crate) fn enable_direct_write(file: &File, layout: Layout) -> Result<Alignment> {
    enable_direct_checked(file, "use --method pwrite or uring-write", |alignment| {
        misaligned_write(layout.block_size, layout.file_size, alignment)
    })
}

/// Turns O_DIRECT on (a refusal says to `instead`), then fails with what
/// `misaligned` finds wrong under the device's alignment, if anything.
fn enable_direct_checked(
    file: &File,
    instead: &str,
    misaligned: impl FnOnce(&Alignment) -> Option<String>,
) -> Result<Alignment> {
    set_o_direct(file).map_err(|e| refused_error(e, instead))?;
    let alignment = alignment_of(file)?;
    match misaligned(&alignment) {
        Some(why) => Err(Error::Trial(why)),
        None => Ok(alignment),
    }
}

/// Turns O_DIRECT on with fcntl(F_SETFL), which fails (EINVAL) exactly
/// where open(O_DIRECT) would.
pub(crate) fn set_o_direct(file: &File) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL/F_SETFL on a descriptor this process owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_DIRECT) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The alignment of the device under `file`.
fn alignment_of(file: &File) -> Result<Alignment> {
    let dev = file
        .metadata()
        .map_err(|e| Error::Trial(format!("stat failed: {e}")))?
        .dev();
    Ok(Alignment::of_device(dev))
}

/// The error for a file system that will not do O_DIRECT (the trial adds
/// the file system's name); `instead` says which methods to use instead.
pub(crate) fn refused_error(e: std::io::Error, instead: &str) -> Error {
    if e.raw_os_error() == Some(libc::EINVAL) {
        Error::Trial(format!(
            "O_DIRECT refused ({e}): this file system cannot do direct I/O; \
             {instead}, or put the file on a disk file system"
        ))
    } else {
        Error::Trial(format!("turning on O_DIRECT failed: {e}"))
    }
}

/// Why `block_size` cannot be read with O_DIRECT under `alignment`, if it cannot.
///
/// Every block starts at a multiple of the block size, so a block size that
/// is a multiple of the alignment aligns every offset and every length too.
pub fn misaligned(block_size: u64, alignment: &Alignment) -> Option<String> {
    if block_size.is_multiple_of(alignment.bytes) {
        return None;
    }
    let suggestion = aligned_neighbours(block_size, alignment);
    Some(format!(
        "O_DIRECT needs every block's offset and length aligned to {alignment}, \
         and --block {block_size} is not a multiple of {}; {suggestion}",
        alignment.bytes
    ))
}

/// "try D or U": the aligned values either side of `value` (only U when D is 0).
fn aligned_neighbours(value: u64, alignment: &Alignment) -> String {
    let down = value / alignment.bytes * alignment.bytes;
    let up = alignment.round_up(value);
    if down == 0 {
        format!("try {up}")
    } else {
        format!("try {down} or {up}")
    }
}

/// Why files of `file_size` bytes written in `block_size` blocks cannot be
/// written with O_DIRECT under `alignment`, if they cannot: the block size
/// must be aligned (as for reads), and so must the file size, because the
/// last block ends at the end of the file and is written as it is, never
/// padded with bytes the workload did not produce.
pub fn misaligned_write(block_size: u64, file_size: u64, alignment: &Alignment) -> Option<String> {
    if let Some(why) = misaligned(block_size, alignment) {
        return Some(why);
    }
    if file_size.is_multiple_of(alignment.bytes) {
        return None;
    }
    let suggestion = aligned_neighbours(file_size, alignment);
    Some(format!(
        "O_DIRECT writes need every block's offset and length aligned to {alignment}, \
         and --size {file_size} is not a multiple of {} (its last block would end \
         unaligned); {suggestion}",
        alignment.bytes
    ))
}

/// `direct`: O_DIRECT pread().
pub(super) const DIRECT: Spec = Spec {
    writes: false,
    maps_file: false,
    direct: true,
    uses_uring: false,
    options: &[],
    build: |file, layout, _, _| Box::new(DirectMethod::new(file, layout)),
};

/// O_DIRECT pread() into one aligned block-sized buffer.
pub struct DirectMethod {
    file: File,
    layout: Layout,
    alignment: Option<Alignment>,
    buffer: Option<AlignedBuf>,
}

impl DirectMethod {
    /// A method reading `file` with O_DIRECT.
    pub fn new(file: File, layout: Layout) -> Self {
        DirectMethod {
            file,
            layout,
            alignment: None,
            buffer: None,
        }
    }
}

/// Buffer alignment: the device's, but at least a page.
pub(crate) fn buffer_alignment(alignment: &Alignment) -> usize {
    (alignment.bytes as usize).max(crate::system::page_size())
}

impl Method for DirectMethod {
    fn setup(&mut self) -> Result<()> {
        let alignment = enable_direct(&self.file, self.layout.block_size)?;
        let len = alignment.round_up(self.layout.block_size) as usize;
        self.buffer = Some(AlignedBuf::new(len, buffer_alignment(&alignment)));
        self.alignment = Some(alignment);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let (Some(buffer), Some(alignment)) = (self.buffer.as_mut(), self.alignment.as_ref())
        else {
            return Err(Error::Trial("run before setup".into()));
        };
        let buffer = buffer.as_mut_slice();
        let file = &self.file;
        let dependent = order.is_dependent();
        let mut counts = LoopCounts::default();
        order.for_each_read(layout, |offset, len| {
            check_aligned(offset, alignment)?;
            let request = alignment.round_up(len as u64) as usize;
            let filled = read_block(file, &mut buffer[..request], offset, len, &mut counts)?;
            debug_assert!(filled >= len);
            let block = &buffer[..len];
            workload.consume(offset, block);
            counts.bytes += len as u64;
            Ok::<u64, Error>(if dependent { chase_word(block) } else { 0 })
        })?;
        Ok(counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.buffer = None;
        Ok(())
    }
}

/// Refuses an offset O_DIRECT cannot read at (block orders are aligned by
/// their block size; a trace's reads are checked before the run, so this is
/// a last line of defence, as an error rather than EINVAL).
#[inline(always)]
pub(crate) fn check_aligned(offset: u64, alignment: &Alignment) -> Result<()> {
    // The alignment is a power of two (see `Alignment`).
    if offset & (alignment.bytes - 1) == 0 {
        Ok(())
    } else {
        Err(Error::Trial(format!(
            "O_DIRECT cannot read at offset {offset}: it is not a multiple of {alignment}"
        )))
    }
}

/// Why a trace's operations cannot be done with O_DIRECT under
/// `alignment`, if they cannot: the first one whose offset or length is
/// not a multiple of it, by its line.
pub fn misaligned_trace(
    trace: &crate::pattern::trace::Trace,
    ops: crate::pattern::trace::Ops,
    alignment: &Alignment,
) -> Option<String> {
    let op = trace.misaligned(ops, alignment.bytes)?;
    Some(format!(
        "O_DIRECT needs every offset and length aligned to {alignment}, and line {} of the \
         trace is {} bytes at offset {}; replay it with a method without O_DIRECT (pread, uring)",
        op.line, op.len, op.offset
    ))
}

/// Reads at least `want` bytes at `offset` into `buf` (its length is the
/// aligned request), resuming after short reads; returns the bytes read.
fn read_block(
    file: &File,
    buf: &mut [u8],
    offset: u64,
    want: usize,
    counts: &mut LoopCounts,
) -> Result<usize> {
    let mut filled = 0;
    while filled < want {
        let at = offset + filled as u64;
        let n = file.read_at(&mut buf[filled..], at).map_err(|e| {
            Error::Trial(format!(
                "O_DIRECT read of {} bytes at byte {at} failed: {e}",
                buf.len() - filled
            ))
        })?;
        counts.syscalls += 1;
        if n == 0 {
            return Err(Error::Trial(format!(
                "the file ended early at byte {at} (was it truncated?)"
            )));
        }
        filled += n;
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misalignment_names_the_alignment_and_suggests_sizes() {
        let a = Alignment {
            bytes: 512,
            device: Some("254:0".into()),
        };
        assert_eq!(misaligned(4096, &a), None);
        assert_eq!(misaligned(512, &a), None);
        let why = misaligned(1000, &a).unwrap();
        assert!(
            why.contains("512 bytes (the logical block size of device 254:0)"),
            "{why}"
        );
        assert!(
            why.contains("--block 1000 is not a multiple of 512"),
            "{why}"
        );
        assert!(why.ends_with("try 512 or 1024"), "{why}");
        assert!(misaligned(100, &a).unwrap().ends_with("try 512"));
    }

    #[test]
    fn writes_need_the_file_size_aligned_too() {
        let a = Alignment {
            bytes: 4096,
            device: None,
        };
        assert_eq!(misaligned_write(8192, 1 << 20, &a), None);
        // The block is checked first, with the read side's message.
        let why = misaligned_write(1000, 1 << 20, &a).unwrap();
        assert!(
            why.contains("--block 1000 is not a multiple of 4096"),
            "{why}"
        );
        let why = misaligned_write(4096, (1 << 20) + 3, &a).unwrap();
        assert!(
            why.contains("aligned to 4096 bytes (assumed: no block device under the file)"),
            "{why}"
        );
        assert!(
            why.contains("--size 1048579 is not a multiple of 4096"),
            "{why}"
        );
        assert!(why.ends_with("try 1048576 or 1052672"), "{why}");
        assert!(misaligned_write(4096, 100, &a)
            .unwrap()
            .ends_with("try 4096"));
    }
}
