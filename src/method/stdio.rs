//! `stdio`: a buffered reader, as the C stdio version of the 2004
//! message-digest thread read its file with fread().
//!
//! std's `BufReader` plays stdio's part: `--stdio-buffer` bytes of buffer
//! (8 KiB by default, glibc's BUFSIZ) in front of read(), with each block
//! taken out of it with `read_exact`. Like glibc, a request at least as
//! large as the buffer, made while the buffer is empty, bypasses it and
//! reads straight into the caller's block, so stdio with `--block` at or
//! above `--stdio-buffer` is read() with extra bookkeeping.
//!
//! For orders that jump, the reader is moved with `seek_relative`, which,
//! like glibc's fseek on a read stream, keeps the buffer when the target is
//! inside it and otherwise drops it and calls lseek().
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use super::{prefaulted_buffer, LoopCounts, Method, MethodOption, Spec, DEFAULT_STDIO_BUFFER};
use crate::error::{Error, Result};
use crate::pattern::chase::chase_word;
use crate::pattern::{BlockOrder, Layout};
use crate::workload::Workload;

/// The file under the buffered reader, counting the system calls made on it.
struct Counting {
    file: File,
    calls: u64,
    /// While set, reads fill the buffer with a pattern instead of calling
    /// read(): setup uses it to fault the reader's buffer in.
    prefault: bool,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.prefault {
            buf.fill(0xa5);
            return Ok(buf.len());
        }
        self.calls += 1;
        self.file.read(buf)
    }
}

impl Seek for Counting {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.calls += 1;
        self.file.seek(pos)
    }
}

/// `stdio`: a buffered reader of `--stdio-buffer` bytes.
pub(super) const STDIO: Spec = Spec {
    writes: false,
    maps_file: false,
    direct: false,
    uses_uring: false,
    options: &[MethodOption::StdioBuffer, MethodOption::Fadvise],
    build: |file, layout, config, _| {
        let capacity = config.io.stdio_buffer.unwrap_or(DEFAULT_STDIO_BUFFER);
        let mut method = StdioMethod::new(file, layout, capacity);
        method.fadvise = config.io.fadvise;
        Box::new(method)
    },
};

/// A buffered reader of `capacity` bytes, read in block-sized pieces.
pub struct StdioMethod {
    file: Option<File>,
    reader: Option<BufReader<Counting>>,
    layout: Layout,
    capacity: usize,
    block: super::aligned::AlignedBuf,
    /// The posix_fadvise() hint given in setup (`--fadvise`).
    fadvise: Option<super::Fadvise>,
    /// Where the reader stands: where the last block ended.
    position: u64,
}

impl StdioMethod {
    /// A method reading `file` through a buffer of `capacity` bytes.
    pub fn new(file: File, layout: Layout, capacity: u64) -> Self {
        StdioMethod {
            file: Some(file),
            reader: None,
            layout,
            capacity: capacity.max(1) as usize,
            block: Default::default(),
            fadvise: None,
            position: 0,
        }
    }
}

fn io_error(e: std::io::Error, offset: u64) -> Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        Error::Trial(format!(
            "the file ended early in the block at byte {offset} (was it truncated?)"
        ))
    } else {
        Error::Trial(format!("buffered read failed at byte {offset}: {e}"))
    }
}

impl Method for StdioMethod {
    fn setup(&mut self) -> Result<()> {
        let file = self
            .file
            .take()
            .ok_or_else(|| Error::Trial("setup twice".into()))?;
        super::fadvise::apply(&file, self.fadvise)?;
        let mut reader = BufReader::with_capacity(
            self.capacity,
            Counting {
                file,
                calls: 0,
                prefault: true,
            },
        );
        // Fault the reader's buffer in without reading the file: fill it
        // from the pattern, then empty it. The file's cursor has not moved.
        let filled = reader
            .fill_buf()
            .map_err(|e| Error::Trial(format!("buffer setup failed: {e}")))?
            .len();
        reader.consume(filled);
        reader.get_mut().prefault = false;
        self.reader = Some(reader);
        self.block = prefaulted_buffer(self.layout.block_size as usize);
        Ok(())
    }

    fn run(&mut self, order: &BlockOrder, workload: &mut dyn Workload) -> Result<LoopCounts> {
        let layout = self.layout;
        let reader = self
            .reader
            .as_mut()
            .ok_or_else(|| Error::Trial("run before setup".into()))?;
        let block = &mut self.block;
        let position = &mut self.position;
        let calls_before = reader.get_ref().calls;
        let dependent = order.is_dependent();
        let mut bytes = 0u64;
        order.for_each_read(layout, |offset, len| {
            if offset != *position {
                let delta = offset as i64 - *position as i64;
                reader
                    .seek_relative(delta)
                    .map_err(|e| io_error(e, offset))?;
            }
            let buf = &mut block[..len];
            reader.read_exact(buf).map_err(|e| io_error(e, offset))?;
            *position = offset + len as u64;
            workload.consume(offset, buf);
            bytes += len as u64;
            Ok::<u64, Error>(if dependent { chase_word(buf) } else { 0 })
        })?;
        Ok(LoopCounts {
            syscalls: reader.get_ref().calls - calls_before,
            bytes,
            written: 0,
        })
    }

    fn teardown(&mut self) -> Result<()> {
        if let Some(reader) = self.reader.take() {
            // Free the buffer; keep the file open until the method is
            // dropped, as the other methods do.
            self.file = Some(reader.into_inner().file);
        }
        self.block = Default::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;
    use crate::workload::Sum;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        f
    }

    /// Records what it was given, in order.
    #[derive(Default)]
    struct Blocks(Vec<(u64, Vec<u8>)>);
    impl Workload for Blocks {
        fn consume(&mut self, offset: u64, data: &[u8]) {
            self.0.push((offset, data.to_vec()));
        }
        fn checksum(&self) -> u64 {
            0
        }
    }

    #[test]
    fn delivers_each_block_of_any_order_and_counts_calls() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let layout = Layout {
            file_size: bytes.len() as u64,
            block_size: 1000,
        };
        for pattern in [Pattern::Seq, Pattern::Random, Pattern::RandomReplace] {
            let order = BlockOrder::new(pattern, layout, 3).unwrap();
            let mut m = StdioMethod::new(file_of(&bytes), layout, 4096);
            m.setup().unwrap();
            let mut seen = Blocks::default();
            let counts = m.run(&order, &mut seen).unwrap();
            m.teardown().unwrap();
            assert_eq!(counts.bytes, order.bytes(layout));
            let mut expected = Vec::new();
            order
                .for_each_read(layout, |o, l| {
                    expected.push((o, bytes[o as usize..o as usize + l].to_vec()));
                    Ok::<u64, ()>(0)
                })
                .unwrap();
            assert_eq!(seen.0, expected, "{pattern}");
            if pattern == Pattern::Seq {
                // 10 000 bytes through a 4 KiB buffer: 3 fills; the last
                // block ends inside the third, so end of file is never read.
                assert_eq!(counts.syscalls, 3);
            }
        }
    }

    #[test]
    fn a_truncated_file_is_an_error_not_a_short_block() {
        let bytes = vec![1u8; 5000];
        let layout = Layout {
            file_size: 8192,
            block_size: 4096,
        };
        let mut m = StdioMethod::new(file_of(&bytes), layout, 8192);
        m.setup().unwrap();
        let order = BlockOrder::new(Pattern::Seq, layout, 0).unwrap();
        let err = m.run(&order, &mut Sum::default()).unwrap_err().to_string();
        assert!(err.contains("ended early"), "{err}");
    }
}
