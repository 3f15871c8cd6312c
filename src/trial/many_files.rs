//! A trial over many files (`--files`, [`crate::plan::file_set`]): the
//! files are visited in the set's order (file order, or shuffled for
//! `random`), and each is opened, handed to the method (which maps it, for
//! the mmap methods), read from start to end in blocks, and closed
//! (unmapped) before the next, all inside the main loop's clock: what a
//! program that reads many small files pays is mostly the opening, mapping
//! and closing. Setup and teardown are therefore 0: the first file's
//! setup (a buffer, a mapping) and the last's teardown are in the loop.
//!
//! The method is built once, on the first file, and moves from file to
//! file ([`crate::method::Method::next_file`]): a buffer is kept, as a
//! program keeps it. The workload sees each block at its offset in the
//! set (the files end to end, in file order), so its checksum is the same
//! whatever the method and the visiting order of a given seed.
use std::fs::File;
use std::path::PathBuf;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::measure::{device, CounterReading};
use crate::method::{Method, Untimed};
use crate::pattern::{BlockOrder, Layout, Pattern};
use crate::plan::FileSet;
use crate::results::ChildReport;
use crate::workload::Workload;

use super::TrialSpec;

/// The workload as the method sees it: each block's offset moved by the
/// file's place in the set.
struct Shifted<'a> {
    inner: &'a mut dyn Workload,
    base: u64,
}

impl Workload for Shifted<'_> {
    #[inline]
    fn consume(&mut self, offset: u64, data: &[u8]) {
        self.inner.consume(self.base + offset, data);
    }

    fn checksum(&self) -> u64 {
        self.inner.checksum()
    }
}

/// Runs a trial of a case with a file set: `spec.path` is the set's directory.
pub fn run(spec: &TrialSpec) -> Result<ChildReport> {
    let case = &spec.case;
    let set: FileSet = case
        .files
        .ok_or_else(|| Error::Trial("a file-set trial without a file set".into()))?;
    let sizes = set.sizes(case.seed);
    let total: u64 = sizes.iter().sum();
    if total != case.file_size {
        return Err(Error::Trial(format!(
            "the set's files hold {total} bytes, not the {} the case was planned for",
            case.file_size
        )));
    }
    // Everything a file needs, made before any clock: its path, where it
    // starts in the set, how it divides into blocks.
    let mut bases = Vec::with_capacity(sizes.len());
    let mut at = 0u64;
    for &size in &sizes {
        bases.push(at);
        at += size;
    }
    let order = set.visit_order(case.pattern == Pattern::Random, case.seed);
    let files: Vec<(PathBuf, u64, Layout)> = order
        .iter()
        .map(|&i| {
            let size = sizes[i as usize];
            let layout = Layout {
                file_size: size,
                block_size: case.block_size.min(size),
            };
            (
                spec.path.join(FileSet::file_name(i)),
                bases[i as usize],
                layout,
            )
        })
        .collect();
    let first = files
        .first()
        .ok_or_else(|| Error::Trial("an empty file set".into()))?;
    let device_stat = File::open(&first.0)
        .ok()
        .and_then(|f| device::stat_path(&f));
    let mut workload = case.build_workload(crate::system::page_size());
    let profiler = super::open_profiler(spec)?;

    let before = CounterReading::before(device_stat.as_deref());
    let start = Instant::now();
    super::switch_profiler(profiler.as_ref(), true)?;
    let (bytes, syscalls, ops) = read_all(case, &files, workload.as_mut())?;
    super::switch_profiler(profiler.as_ref(), false)?;
    let wall_ns = start.elapsed().as_nanos() as u64;
    let after = CounterReading::after(device_stat.as_deref());
    let raw_profile = super::finish_profiler(profiler)?;

    let checksum = std::hint::black_box(workload.checksum());
    if bytes != total {
        return Err(Error::Trial(format!(
            "{} delivered {bytes} bytes of the set's {total}",
            case.method
        )));
    }
    Ok(ChildReport {
        wall_ns,
        setup_ns: 0,
        teardown_ns: 0,
        bytes,
        syscalls,
        ops,
        checksum,
        files_opened: Some(files.len() as u64),
        raw_profile,
        ..ChildReport::counted(after.since(&before))
    })
}

/// The main loop: every file opened, read whole and closed, in order.
/// Returns the bytes delivered, the method's system calls and the blocks.
fn read_all(
    case: &crate::plan::Case,
    files: &[(PathBuf, u64, Layout)],
    workload: &mut dyn Workload,
) -> Result<(u64, u64, u64)> {
    let mut method: Option<Box<dyn Method>> = None;
    let (mut bytes, mut syscalls, mut ops) = (0u64, 0u64, 0u64);
    for (path, base, layout) in files {
        let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
        match method.as_mut() {
            Some(m) => m.next_file(file, *layout)?,
            None => {
                let mut m = case.build_method(file, *layout, Box::new(Untimed));
                m.setup()?;
                method = Some(m);
            }
        }
        let m = method.as_mut().expect("built on the first file");
        let blocks = BlockOrder::Sequential {
            count: layout.blocks(),
        };
        let mut shifted = Shifted {
            inner: workload,
            base: *base,
        };
        let counts = m.run(&blocks, &mut shifted)?;
        bytes += counts.bytes;
        syscalls += counts.syscalls;
        ops += blocks.len();
    }
    if let Some(mut m) = method {
        m.teardown()?;
    }
    Ok((bytes, syscalls, ops))
}
