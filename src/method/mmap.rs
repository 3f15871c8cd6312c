//! `mmap` and `mmap-copy`: the whole file mapped once.
//!
//! # Safety
//! Reading a mapping whose file was truncated underneath raises SIGBUS. That
//! is why each trial runs in its own process: the signal kills one trial
//! child, which the runner reports as a failed trial, never the run itself.

use std::fs::File;
use std::sync::Arc;

use super::{prefaulted_buffer, LoopCounts, Method, MethodOption, Spec};
use crate::error::{Error, Result};
use crate::pattern::chase::chase_word;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

pub use super::mmap_options::{Advice, MmapOptions, Populate, Share};

/// `mmap`: the workload reads the mapping in place.
pub(super) const MMAP: Spec = Spec {
    writes: false,
    maps_file: true,
    direct: false,
    uses_uring: false,
    options: &[
        MethodOption::Populate,
        MethodOption::Advice,
        MethodOption::Share,
        MethodOption::ReadShare,
        MethodOption::Files,
    ],
    build: |file, layout, config, _| match config.mix {
        Some(mix) => Box::new(super::mixed::MixedMethod::new(
            file,
            layout,
            super::mixed::Path::Mapped,
            mix,
            config.mmap,
        )),
        None => Box::new(MmapMethod::new(file, layout, config.mmap, false)),
    },
};

/// `mmap-copy`: each block is copied out of the mapping first.
pub(super) const MMAP_COPY: Spec = Spec {
    options: &[
        MethodOption::Populate,
        MethodOption::Advice,
        MethodOption::Share,
        MethodOption::Files,
    ],
    build: |file, layout, config, _| Box::new(MmapMethod::new(file, layout, config.mmap, true)),
    ..MMAP
};

/// A read-only mapping of the whole file.
pub struct MmapMethod {
    file: File,
    layout: Layout,
    options: MmapOptions,
    copy: bool,
    map: Option<Arc<memmap2::Mmap>>,
    /// Set on a method that reads another's mapping ([`MmapMethod::sharing`]):
    /// its setup maps nothing and its teardown only lets go.
    borrowed: bool,
    buffer: super::aligned::AlignedBuf,
}

impl MmapMethod {
    /// `copy` selects `mmap-copy` (memcpy each block into a buffer first).
    pub fn new(file: File, layout: Layout, options: MmapOptions, copy: bool) -> Self {
        MmapMethod {
            file,
            layout,
            options,
            copy,
            map: None,
            borrowed: false,
            buffer: Default::default(),
        }
    }

    /// A method that reads this one's mapping (after its setup), for
    /// threads that share one mapping as a program's threads would. Its
    /// setup only prepares its own copy buffer, and its teardown leaves the
    /// mapping to this method's. `None` before setup, or when `file` cannot
    /// be duplicated.
    pub fn sharing(&self) -> Option<MmapMethod> {
        Some(MmapMethod {
            file: self.file.try_clone().ok()?,
            layout: self.layout,
            options: self.options,
            copy: self.copy,
            map: Some(Arc::clone(self.map.as_ref()?)),
            borrowed: true,
            buffer: Default::default(),
        })
    }
}

/// The `len` bytes of the mapping at `offset`; an error, never a panic, when
/// they are not all inside it (orders are checked against the file's size
/// before the trial, so this does not happen).
#[inline(always)]
fn in_map(map: &[u8], offset: u64, len: usize) -> Result<&[u8]> {
    let start = offset as usize;
    match map.get(start..start.wrapping_add(len)) {
        Some(block) => Ok(block),
        None => Err(outside_map(offset, len, map.len())),
    }
}

/// The error of [`in_map`], kept out of the main loop.
#[cold]
#[inline(never)]
fn outside_map(offset: u64, len: usize, map_len: usize) -> Error {
    Error::Trial(format!(
        "a read of {len} bytes at offset {offset} is outside the {map_len}-byte mapping"
    ))
}

/// The main loop over the mapping: each block of `order` read in place
/// (`COPY`: copied into `buffer` first) and given to `workload`; returns
/// the bytes delivered. `DEPENDENT` (a chase) hands each block's first word
/// back to steer the walk. Both are constants so that the common case
/// carries no branch for them.
#[inline(always)]
fn run_mapped<const COPY: bool, const DEPENDENT: bool>(
    map: &[u8],
    buffer: &mut [u8],
    order: &BlockOrder,
    layout: Layout,
    workload: &mut dyn Workload,
) -> Result<u64> {
    let mut bytes = 0u64;
    order.for_each_read(layout, |offset, len| {
        let mapped = in_map(map, offset, len)?;
        let block: &[u8] = if COPY {
            let copy = &mut buffer[..len];
            copy.copy_from_slice(mapped);
            copy
        } else {
            mapped
        };
        workload.consume(offset, block);
        bytes += len as u64;
        Ok::<u64, Error>(if DEPENDENT { chase_word(block) } else { 0 })
    })?;
    Ok(bytes)
}

fn refused(what: &str, e: std::io::Error) -> Error {
    Error::Trial(format!("{what} failed: {e}"))
}

impl Method for MmapMethod {
    fn setup(&mut self) -> Result<()> {
        if self.copy && self.buffer.len() < self.layout.block_size as usize {
            self.buffer = prefaulted_buffer(self.layout.block_size as usize);
        }
        if self.borrowed {
            return Ok(());
        }
        let mut builder = memmap2::MmapOptions::new();
        builder.len(self.layout.file_size as usize);
        if self.options.populate == Populate::Map {
            builder.populate();
        }
        // SAFETY: the mapping is read-only; a truncation underneath raises
        // SIGBUS, which ends this trial's process only (see module docs).
        let map = unsafe {
            match self.options.share {
                Share::Shared => builder.map(&self.file),
                Share::Private => builder.map_copy_read_only(&self.file),
            }
        }
        .map_err(|e| refused("mmap", e))?;
        let advice = match self.options.advice {
            Advice::Normal => None,
            Advice::Sequential => Some(memmap2::Advice::Sequential),
            Advice::Random => Some(memmap2::Advice::Random),
            Advice::Willneed => Some(memmap2::Advice::WillNeed),
            Advice::Hugepage => Some(memmap2::Advice::HugePage),
        };
        if let Some(advice) = advice {
            map.advise(advice).map_err(|e| refused("madvise", e))?;
        }
        if self.options.populate == Populate::Madvise {
            map.advise(memmap2::Advice::PopulateRead)
                .map_err(|e| refused("madvise(MADV_POPULATE_READ)", e))?;
        }
        self.map = Some(Arc::new(map));
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let map: &[u8] = self
            .map
            .as_deref()
            .ok_or_else(|| Error::Trial("run before setup".into()))?;
        let buffer = &mut self.buffer;
        let bytes = match (self.copy, order.is_dependent()) {
            (false, false) => run_mapped::<false, false>(map, buffer, order, layout, workload),
            (false, true) => run_mapped::<false, true>(map, buffer, order, layout, workload),
            (true, false) => run_mapped::<true, false>(map, buffer, order, layout, workload),
            (true, true) => run_mapped::<true, true>(map, buffer, order, layout, workload),
        }?;
        Ok(LoopCounts {
            syscalls: 0,
            bytes,
            written: 0,
        })
    }

    /// madvise(MADV_DONTNEED) on the whole mapping, then munmap: always, for
    /// every case, as the 2002 study freed its mapping. DONTNEED on a
    /// read-only file mapping only drops this process's page-table entries
    /// (the page cache keeps the pages), which munmap would do anyway; doing
    /// it first keeps the free step the same for every case.
    fn teardown(&mut self) -> Result<()> {
        if let Some(map) = self.map.as_ref().filter(|_| !self.borrowed) {
            if !map.is_empty() {
                // SAFETY: the range is exactly this live, read-only mapping;
                // dropping its page-table entries cannot change what it reads.
                let rc = unsafe {
                    libc::madvise(
                        map.as_ptr() as *mut libc::c_void,
                        map.len(),
                        libc::MADV_DONTNEED,
                    )
                };
                if rc != 0 {
                    return Err(refused(
                        "madvise(MADV_DONTNEED)",
                        std::io::Error::last_os_error(),
                    ));
                }
            }
        }
        self.map = None; // munmap, once the last sharer lets go
        self.buffer = Default::default();
        Ok(())
    }

    fn next_file(&mut self, file: File, layout: Layout) -> Result<()> {
        if self.borrowed {
            return Err(Error::Trial(
                "a shared mapping cannot move to another file".into(),
            ));
        }
        self.map = None; // munmap, as a program done with the file does
        self.file = file; // the old descriptor closed
        self.layout = layout;
        self.setup() // map the next one (mmap-copy keeps its buffer)
    }
}

display_as_value_name!(Populate, Advice, Share);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::WorkloadKind;

    fn mapped(bytes: &[u8]) -> (tempfile::NamedTempFile, MmapMethod) {
        let mut tmp = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut tmp, bytes).unwrap();
        let layout = Layout {
            file_size: bytes.len() as u64,
            block_size: 4096,
        };
        let file = File::open(tmp.path()).unwrap();
        let mut owner = MmapMethod::new(file, layout, MmapOptions::default(), false);
        owner.setup().unwrap();
        (tmp, owner)
    }

    fn sum_of(method: &mut MmapMethod, blocks: u64) -> u64 {
        let mut workload = WorkloadKind::Sum.build(&Default::default());
        method
            .run(&BlockOrder::Sequential { count: blocks }, workload.as_mut())
            .unwrap();
        workload.checksum()
    }

    #[test]
    fn sharers_read_the_owners_mapping_and_leave_it_mapped() {
        let bytes: Vec<u8> = (0..8192u32).map(|i| (i * 7 % 251) as u8).collect();
        let (_tmp, mut owner) = mapped(&bytes);
        assert!(MmapMethod::new(
            owner.file.try_clone().unwrap(),
            owner.layout,
            owner.options,
            false
        )
        .sharing()
        .is_none());
        let mut sharer = owner.sharing().unwrap();
        sharer.setup().unwrap();
        let at = |m: &MmapMethod| m.map.as_ref().unwrap().as_ptr();
        assert_eq!(at(&sharer), at(&owner), "one mapping, not two");
        let expected = sum_of(&mut owner, 2);
        assert_eq!(sum_of(&mut sharer, 2), expected);
        sharer.teardown().unwrap();
        assert!(sharer.map.is_none());
        assert_eq!(sum_of(&mut owner, 2), expected, "still mapped");
        owner.teardown().unwrap();
        assert!(owner.map.is_none());
    }
}
