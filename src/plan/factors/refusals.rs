//! The refusals of factor combinations that cannot run, each one line that
//! says what to do: of the lists before anything is expanded (methods
//! against workloads, patterns, blocks, traces, option values, `scale`),
//! and of the cases the expansion gives (their buffers, `--fill calloc`,
//! and each case's pacing, duration, processes and threads).
use super::{Factors, MAX_BLOCK, MAX_BUFFERS, MAX_STDIO_BUFFER};
use crate::error::{Error, Result};
use crate::method::{IoOptions, MethodKind, MethodOption, Msync, OpenSync, SyncPolicy};
use crate::pattern::trace::Ops;
use crate::pattern::Pattern;
use crate::plan::{Case, Target};
use crate::size::format_size;
use crate::workload::{FillContent, ScaleUnit, WorkloadKind};

impl Factors {
    /// Refuses lists that cannot be expanded into cases on files of these
    /// sizes, in order: methods against workloads and patterns, `scale`,
    /// blocks, option values and the trace.
    pub(super) fn check_lists(&self, file_sizes: &[u64]) -> Result<()> {
        self.check_combinations()?;
        self.check_scale(file_sizes)?;
        self.check_blocks(file_sizes)?;
        self.check_option_values()?;
        self.check_trace(file_sizes)
    }

    /// Refuses method, workload, pattern and file combinations that cannot run.
    fn check_combinations(&self) -> Result<()> {
        let names = |ms: Vec<String>| ms.join(", ");
        let of = |writes: bool| -> Vec<String> {
            self.methods
                .iter()
                .filter(|m| m.writes() == writes)
                .map(|m| m.to_string())
                .collect()
        };
        let (writers, readers) = (of(true), of(false));
        if self.user_file && !writers.is_empty() {
            return Err(Error::Plan(format!(
                "write methods only write files faultline creates; --file is for read methods \
                 (drop --file to run {}, and use --dir to choose where it writes)",
                names(writers)
            )));
        }
        let workloads = self.workloads();
        let (write_loads, read_loads): (Vec<WorkloadKind>, Vec<WorkloadKind>) =
            workloads.iter().partition(|w| w.writes());
        let loads = |ws: &[WorkloadKind]| names(ws.iter().map(|w| w.to_string()).collect());
        if !writers.is_empty() && write_loads.is_empty() {
            return Err(Error::Plan(format!(
                "write methods ({}) need --workload fill ({} only reads; --fill zero,pattern chooses what is written)",
                names(writers),
                loads(&read_loads)
            )));
        }
        if !readers.is_empty() && read_loads.is_empty() {
            return Err(Error::Plan(format!(
                "--workload fill is for write methods; read methods ({}) need a read workload such as sum",
                names(readers)
            )));
        }
        if writers.is_empty() && !write_loads.is_empty() {
            return Err(Error::Plan(
                "--workload fill needs a write method (--method write, pwrite, mmap-write, direct-write or uring-write)"
                    .into(),
            ));
        }
        if readers.is_empty() && !read_loads.is_empty() {
            return Err(Error::Plan(format!(
                "--workload {} needs a read method; write methods take --workload fill",
                loads(&read_loads)
            )));
        }
        if self.patterns.contains(&Pattern::Trace) {
            return Err(Error::Plan(
                "--pattern trace is what --trace FILE replays; give --trace FILE instead".into(),
            ));
        }
        if let Some(&p) = self
            .patterns
            .iter()
            .find(|p| !writers.is_empty() && !p.visits_each_block_once())
        {
            let why = if p == Pattern::Chase {
                "reads each block to find the next"
            } else {
                "writes some blocks twice and others never, so the written file could not be checked"
            };
            return Err(Error::Plan(format!(
                "--pattern {p} {why}; write methods take seq, random, reverse or stride:N \
                 (every block once), or a --trace's writes"
            )));
        }
        Ok(())
    }

    /// Refuses block sizes that cannot be used on these files.
    fn check_blocks(&self, file_sizes: &[u64]) -> Result<()> {
        if self.scales() {
            return Ok(()); // checked by check_scale: the image is one block
        }
        if self.trace.is_some() {
            if let Some(&b) = self.blocks.first() {
                return Err(Error::Plan(format!(
                    "--block {} cannot be used with --trace: each operation of a trace has its own \
                     length (leave --block out)",
                    format_size(b)
                )));
            }
            return Ok(()); // checked by check_trace
        }
        for &file_size in file_sizes {
            for (_, block_size) in self.pattern_blocks() {
                if block_size == 0 {
                    return Err(Error::Plan("--block must be at least 1 byte".into()));
                }
                if block_size > MAX_BLOCK {
                    return Err(Error::Plan(format!(
                        "--block {} is larger than the {} maximum",
                        format_size(block_size),
                        format_size(MAX_BLOCK)
                    )));
                }
                if block_size > file_size {
                    return Err(Error::Plan(format!(
                        "--block {} is larger than the file ({file_size} bytes)",
                        format_size(block_size)
                    )));
                }
            }
        }
        Ok(())
    }

    /// Refuses a trace that cannot be replayed on these files by these
    /// methods: an operation past the end of a file (naming its line), no
    /// operation of the kind a method replays, or writes onto a fresh file.
    fn check_trace(&self, file_sizes: &[u64]) -> Result<()> {
        let Some(t) = &self.trace else {
            return Ok(());
        };
        let has = |writes: bool| self.methods.iter().any(|m| m.writes() == writes);
        let (r, name) = (&t.reference, t.reference.name());
        if has(false) && r.reads == 0 {
            return Err(Error::Plan(format!(
                "the trace {name} has no reads to replay ({} writes: a write method replays them)",
                r.writes
            )));
        }
        if has(true) {
            if r.writes == 0 {
                return Err(Error::Plan(format!(
                    "the trace {name} has no writes for a write method to replay ({} reads)",
                    r.reads
                )));
            }
            if self.targets.iter().any(|&t| t != Target::Overwrite) {
                return Err(Error::Plan(
                    "a trace's writes are replayed over an existing file, not a fresh one \
                     (whose size they would not set): add --target overwrite"
                        .into(),
                ));
            }
        }
        for &size in file_sizes {
            for (ops, used) in [(Ops::Reads, has(false)), (Ops::Writes, has(true))] {
                if used {
                    t.trace
                        .check_ops(ops, size)
                        .map_err(|e| Error::Plan(format!("--trace {name}: {e}")))?;
                }
            }
        }
        if r.longest_read.max(r.longest_write) > MAX_BLOCK {
            return Err(Error::Plan(format!(
                "--trace {name} has an operation of {}, larger than the {} maximum",
                format_size(r.longest_read.max(r.longest_write)),
                format_size(MAX_BLOCK)
            )));
        }
        Ok(())
    }

    /// Refuses option values out of range, and a durability option no
    /// method of the run takes.
    fn check_option_values(&self) -> Result<()> {
        use clap::ValueEnum as _;
        let taking = |o: MethodOption| -> Vec<String> {
            MethodKind::value_variants()
                .iter()
                .filter(|m| m.takes(o))
                .map(|m| m.to_string())
                .collect()
        };
        let given = |o: MethodOption| self.methods.iter().any(|m| m.takes(o));
        if self.open_syncs.iter().any(|&o| o != OpenSync::None) && !given(MethodOption::OpenSync) {
            return Err(Error::Plan(format!(
                "--open-sync is for the methods that write through a file descriptor ({}); \
                 mmap-write syncs with --sync and --msync",
                taking(MethodOption::OpenSync).join(", ")
            )));
        }
        if self.msyncs.iter().any(|&m| m != Msync::Sync) {
            if !given(MethodOption::Msync) {
                return Err(Error::Plan(
                    "--msync is for --method mmap-write (the others sync with --sync-call)".into(),
                ));
            }
            if self.syncs.iter().all(|&s| s == SyncPolicy::None) {
                return Err(Error::Plan(
                    "--msync says how mmap-write syncs, and --sync none never does: \
                     add --sync end or --sync each"
                        .into(),
                ));
            }
        }
        for &b in &self.stdio_buffers {
            if b == 0 || b > MAX_STDIO_BUFFER {
                return Err(Error::Plan(format!(
                    "--stdio-buffer {} must be between 1 byte and {}",
                    format_size(b),
                    format_size(MAX_STDIO_BUFFER)
                )));
            }
        }
        Ok(())
    }

    /// Refuses the flags that do not go with `scale`, and the scale flags without it.
    fn check_scale(&self, file_sizes: &[u64]) -> Result<()> {
        if !self.scales() {
            let stray = [
                ("--factor", !self.scale_factors.is_empty()),
                ("--enlarge", self.enlarge),
                ("--image", self.image_given),
                ("--keep-output", self.keep_output),
                ("--scale-unit", self.scale_unit != ScaleUnit::Pixel),
            ];
            if let Some((flag, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(Error::Plan(format!("{flag} is for --workload scale")));
            }
            return Ok(());
        }
        if self.workloads.len() > 1 {
            return Err(Error::Plan(
                "--workload scale runs alone: its file is an image read as one block".into(),
            ));
        }
        if self.trace.is_some() {
            return Err(Error::Plan(
                "--workload scale reads the whole image as one block, so it replays no trace; \
                 leave --trace out"
                    .into(),
            ));
        }
        if self.sizes_given {
            return Err(Error::Plan(
                "--workload scale reads a PPM image: give --image WxH (generated) or --file, not --size"
                    .into(),
            ));
        }
        for &file_size in file_sizes {
            if let Some(&b) = self.blocks.iter().find(|&&b| b != file_size) {
                return Err(Error::Plan(format!(
                    "--workload scale reads the whole image as one block ({file_size} bytes); \
                     --block {} cannot be used with it (leave --block out)",
                    format_size(b)
                )));
            }
        }
        if self.patterns.iter().any(|&p| p != Pattern::Seq) {
            return Err(Error::Plan(
                "--workload scale reads the whole image as one block, so it has no block order; leave --pattern out".into(),
            ));
        }
        Ok(())
    }
}

/// Refuses a case whose buffers would take more than [`MAX_BUFFERS`].
pub(super) fn buffers(cases: &[Case]) -> Result<()> {
    cases.iter().try_for_each(check_buffers)
}

/// Refuses a case whose buffers would take more than [`MAX_BUFFERS`].
fn check_buffers(case: &Case) -> Result<()> {
    let IoOptions { iov, depth, .. } = case.io;
    let given = iov.map(|n| ("--iov", n));
    let Some((flag, count)) = given.or(depth.map(|d| ("--depth", d))) else {
        return Ok(());
    };
    let bytes = u64::from(count).saturating_mul(case.block_size);
    if bytes > MAX_BUFFERS {
        return Err(Error::Plan(format!(
            "{flag} {count} with --block {} needs {} of buffers; keep {flag} × --block at or below {}",
            format_size(case.block_size),
            format_size(bytes),
            format_size(MAX_BUFFERS)
        )));
    }
    Ok(())
}

/// Refuses `--fill calloc` for a method whose buffer is not calloc'd.
pub(super) fn calloc(cases: &[Case]) -> Result<()> {
    let calloc = cases.iter().find(|c| {
        c.fill == Some(FillContent::Calloc) && !c.method.takes(MethodOption::CallocBuffer)
    });
    if let Some(c) = calloc {
        return Err(Error::Plan(format!(
            "--fill calloc is for --method write and pwrite (their buffer is calloc'd and never stored into); {} stores every byte it writes",
            c.method
        )));
    }
    Ok(())
}

/// Refuses the first case that cannot run as it is paced, timed, run in
/// processes or on threads.
pub(super) fn each_case(cases: &[Case]) -> Result<()> {
    for case in cases {
        // First: a paced case records latency, which the others refuse.
        if let Some(why) = crate::plan::refusal::paced(case) {
            return Err(Error::Plan(why));
        }
        if let Some(why) = crate::plan::duration::refusal(case) {
            return Err(Error::Plan(why));
        }
        if case.procs.is_some() && case.method.writes() {
            return Err(Error::Plan(format!(
                "--procs is for read methods; {} writes (one writer per file)",
                case.method
            )));
        }
        if let Some(why) = crate::plan::refusal::threaded(case) {
            return Err(Error::Plan(why));
        }
    }
    Ok(())
}
