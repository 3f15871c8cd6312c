//! Mixed read/write in one trial (`--read-share`, fio's `rwmixread`): the
//! read methods that have a write counterpart, on one file opened for
//! reading and writing.
//!
//! - `read`: read() and write() at the file cursor (lseek() first when the
//!   operation does not start where the last one ended);
//! - `pread`: pread() and pwrite() at the block's offset;
//! - `mmap`: loads and stores through one MAP_SHARED mapping of the file.
//!
//! Which operation is a write is [`Mix::is_read`]'s choice, the same for
//! every method. A read hands the block to the workload (its checksum is of
//! the bytes read); a write stores the fill pattern of its offset
//! ([`crate::workload::fill_pattern`]) into the block (through a buffer and
//! a system call, or straight into the mapping) and tells the workload it
//! ended ([`Workload::wrote`]). The file is the scratch directory's overwrite
//! target, restored before each trial; the runner reads it back afterwards
//! ([`crate::files::readback`]).
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;

use super::{prefaulted_buffer, write_error, LoopCounts, Method, MmapOptions};
use crate::error::{Error, Result};
use crate::pattern::{BlockOrder, Layout, Mix};
use crate::workload::{fill_pattern, Workload};

/// How the bytes move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// read() and write() at the file cursor.
    Cursor,
    /// pread() and pwrite().
    Positional,
    /// Loads and stores through one shared mapping.
    Mapped,
}

/// A mixed read/write method.
pub struct MixedMethod {
    file: File,
    layout: Layout,
    path: Path,
    mix: Mix,
    mmap: MmapOptions,
    buffer: super::aligned::AlignedBuf,
    cursor: u64,
    map: Option<memmap2::MmapMut>,
}

impl MixedMethod {
    /// A method over `file` (opened for reading and writing) moving bytes by `path`.
    pub fn new(file: File, layout: Layout, path: Path, mix: Mix, mmap: MmapOptions) -> Self {
        MixedMethod {
            file,
            layout,
            path,
            mix,
            mmap,
            buffer: Default::default(),
            cursor: 0,
            map: None,
        }
    }
}

fn failed(what: &str, e: std::io::Error) -> Error {
    Error::Trial(format!("{what} failed: {e}"))
}

fn short(offset: u64) -> Error {
    Error::Trial(format!(
        "the file ended early at byte {offset} (was it truncated?)"
    ))
}

impl Method for MixedMethod {
    fn setup(&mut self) -> Result<()> {
        if self.path != Path::Mapped {
            self.buffer = prefaulted_buffer(self.layout.block_size as usize);
            return Ok(());
        }
        let mut builder = memmap2::MmapOptions::new();
        builder.len(self.layout.file_size as usize);
        if self.mmap.populate == super::Populate::Map {
            builder.populate();
        }
        // SAFETY: a shared writable mapping of a file faultline created in
        // its scratch directory; a truncation underneath raises SIGBUS,
        // which ends this trial's process only.
        let map = unsafe { builder.map_mut(&self.file) }.map_err(|e| failed("mmap", e))?;
        let advice = match self.mmap.advice {
            super::Advice::Normal => None,
            super::Advice::Sequential => Some(memmap2::Advice::Sequential),
            super::Advice::Random => Some(memmap2::Advice::Random),
            super::Advice::Willneed => Some(memmap2::Advice::WillNeed),
            super::Advice::Hugepage => Some(memmap2::Advice::HugePage),
        };
        if let Some(advice) = advice {
            map.advise(advice).map_err(|e| failed("madvise", e))?;
        }
        if self.mmap.populate == super::Populate::Madvise {
            map.advise(memmap2::Advice::PopulateRead)
                .map_err(|e| failed("madvise(MADV_POPULATE_READ)", e))?;
        }
        self.map = Some(map);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let mix = self.mix;
        let mut counts = LoopCounts::default();
        let mut k = 0u64;
        let MixedMethod {
            file,
            path,
            buffer,
            cursor,
            map,
            ..
        } = self;
        order.for_each_read(layout, |offset, len| {
            let read = mix.is_read(k);
            k += 1;
            match path {
                Path::Mapped => {
                    let map = map
                        .as_deref_mut()
                        .ok_or_else(|| Error::Trial("run before setup".into()))?;
                    let start = offset as usize;
                    let block = map.get_mut(start..start + len).ok_or_else(|| {
                        Error::Trial(format!("block at {offset} is outside the mapping"))
                    })?;
                    if read {
                        workload.consume(offset, block);
                    } else {
                        fill_pattern(offset, block);
                        workload.wrote(offset, len);
                    }
                }
                Path::Cursor => {
                    let buf = &mut buffer[..len];
                    if offset != *cursor {
                        file.seek(SeekFrom::Start(offset))
                            .map_err(|e| failed("lseek", e))?;
                        counts.syscalls += 1;
                    }
                    if read {
                        let mut filled = 0;
                        while filled < len {
                            let n = file
                                .read(&mut buf[filled..])
                                .map_err(|e| failed("read", e))?;
                            counts.syscalls += 1;
                            if n == 0 {
                                *cursor = offset + filled as u64;
                                return Err(short(offset + filled as u64));
                            }
                            filled += n;
                        }
                        workload.consume(offset, buf);
                    } else {
                        fill_pattern(offset, buf);
                        let mut done = 0;
                        while done < len {
                            let n = file
                                .write(&buf[done..])
                                .map_err(|e| write_error("write", e))?;
                            counts.syscalls += 1;
                            done += n;
                        }
                        workload.wrote(offset, len);
                    }
                    *cursor = offset + len as u64;
                }
                Path::Positional => {
                    let buf = &mut buffer[..len];
                    if read {
                        let mut filled = 0;
                        while filled < len {
                            let n = file
                                .read_at(&mut buf[filled..], offset + filled as u64)
                                .map_err(|e| failed("pread", e))?;
                            counts.syscalls += 1;
                            if n == 0 {
                                return Err(short(offset + filled as u64));
                            }
                            filled += n;
                        }
                        workload.consume(offset, buf);
                    } else {
                        fill_pattern(offset, buf);
                        let mut done = 0;
                        while done < len {
                            let n = file
                                .write_at(&buf[done..], offset + done as u64)
                                .map_err(|e| write_error("pwrite", e))?;
                            counts.syscalls += 1;
                            done += n;
                        }
                        workload.wrote(offset, len);
                    }
                }
            }
            counts.bytes += len as u64;
            if !read {
                counts.written += len as u64;
            }
            Ok::<u64, Error>(0)
        })?;
        Ok(counts)
    }

    fn teardown(&mut self) -> Result<()> {
        self.map = None;
        self.buffer = Default::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `len` bytes, each its offset modulo 251.
    fn file(len: usize) -> (tempfile::NamedTempFile, Vec<u8>) {
        let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&bytes).unwrap();
        (f, bytes)
    }

    #[test]
    fn every_path_reads_and_writes_the_same_bytes() {
        let layout = Layout {
            file_size: 64 << 10,
            block_size: 4096,
        };
        let order = BlockOrder::new(crate::pattern::Pattern::Random, layout, 3).unwrap();
        let mix = Mix {
            read_share: 60,
            seed: 3,
        };
        let mut results = Vec::new();
        for path in [Path::Cursor, Path::Positional, Path::Mapped] {
            let (f, _) = file(64 << 10);
            let rw = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(f.path())
                .unwrap();
            let mut m = MixedMethod::new(rw, layout, path, mix, MmapOptions::default());
            let mut sum = crate::workload::Sum::default();
            m.setup().unwrap();
            let counts = m.run(&order, &mut sum).unwrap();
            m.teardown().unwrap();
            let after = std::fs::read(f.path()).unwrap();
            results.push((sum.checksum(), counts.bytes, counts.written, after));
        }
        assert!(results[0].2 > 0 && results[0].2 < results[0].1, "a mix");
        assert_eq!(results[0], results[1]);
        assert_eq!(results[0], results[2]);
    }
}
