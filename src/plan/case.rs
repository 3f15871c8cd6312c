//! A case: one point in the space of factors (method and its options,
//! pattern, block and file size, workload, cache state, threads, ...), with
//! the pieces of its labels (its method label, group label and group key are
//! the factor table's, [`super::factor_table`]).
use serde::{Deserialize, Serialize};

use super::{CacheState, Target, Threads, WarmBy};
use crate::method::{
    Advice, IoOptions, MethodKind, MmapOptions, Msync, OpenSync, Populate, Share, SizeWith,
    SyncCall, SyncPolicy, WriteOptions,
};
use crate::pattern::Pattern;
use crate::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

/// One point in the space of factors.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Case {
    /// The I/O method.
    pub method: MethodKind,
    /// The order of the blocks.
    pub pattern: Pattern,
    /// Block size in bytes.
    pub block_size: u64,
    /// File size in bytes.
    pub file_size: u64,
    /// What is done with each block.
    pub workload: WorkloadKind,
    /// The page-cache state each trial starts in.
    pub cache: CacheState,
    /// How a warm cache is reached (recorded for every case; used when `cache` is warm).
    pub warm_by: WarmBy,
    /// Pre-faulting of the mapping (mapping methods only).
    pub populate: Option<Populate>,
    /// madvise() hint (mapping methods only).
    pub advice: Option<Advice>,
    /// MAP_SHARED or MAP_PRIVATE (mapping methods only).
    pub share: Option<Share>,
    /// When the data is made durable (write methods only).
    #[serde(default)]
    pub sync: Option<SyncPolicy>,
    /// fsync, fdatasync or sync_file_range (the write methods but
    /// `mmap-write`, with a sync policy other than none).
    #[serde(default)]
    pub sync_call: Option<SyncCall>,
    /// The file opened with O_DSYNC or O_SYNC (the write methods that write
    /// through a descriptor; absent for the others).
    #[serde(default)]
    pub open_sync: Option<OpenSync>,
    /// msync with MS_SYNC or MS_ASYNC (`mmap-write` with a sync policy other than none).
    #[serde(default)]
    pub msync: Option<Msync>,
    /// A fresh file or an existing one overwritten (write methods only).
    #[serde(default)]
    pub target: Option<Target>,
    /// How a fresh file is sized (`mmap-write` on a fresh target only).
    #[serde(default)]
    pub size_with: Option<SizeWith>,
    /// What the `fill` workload writes (write methods only).
    #[serde(default)]
    pub fill: Option<FillContent>,
    /// Seed of the random orders.
    pub seed: u64,
    /// Options of the stdio, preadv and uring methods (absent for the others).
    #[serde(flatten)]
    pub io: IoOptions,
    /// Whether each trial records every operation's latency (`--latency`).
    #[serde(default)]
    pub latency: bool,
    /// The factor of the `scale` workload (absent for the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<ScaleFactor>,
    /// What the `scale` workload takes as a pixel (absent: whole pixels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_unit: Option<ScaleUnit>,
    /// Threads in the trial and how they share the work (absent: one thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<Threads>,
    /// Trial processes run at once on the same file (`--procs`; absent: one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procs: Option<u32>,
    /// Seconds each trial reads for, drawing random blocks, with a
    /// per-second timeline ([`crate::trial::timed`]); absent: the trial visits its
    /// order once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<u32>,
    /// The target rate or think time of the trial's operations (`--rate`,
    /// `--think-time`; [`crate::plan::pace`]); absent: flat out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<crate::plan::pace::Pace>,
    /// The memory the trial's page cache may fill, and how that is enforced
    /// ([`crate::plan::memory_budget`]); absent: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_budget: Option<crate::plan::memory_budget::MemoryBudget>,
    /// The rate the trial may read (and directly write) its file's device
    /// at, and how that is enforced ([`crate::plan::device_rate`],
    /// `--device-rate`); absent: the device's own rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_rate: Option<crate::plan::device_rate::DeviceRate>,
    /// The trace replayed (`--trace FILE`; `pattern` is then `trace`):
    /// read methods replay its reads, write methods its writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::pattern::trace::TraceRef>,
    /// Shortest trial, ns (`--min-trial-time`): the trial repeats its pass
    /// (setup, loop, teardown) until they add up to this; absent: one pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_trial_ns: Option<u64>,
    /// Percent of the operations that are reads, the others writes to the
    /// same file (`--read-share`, read, pread and mmap); absent: reads only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_share: Option<u8>,
    /// Many files read in one trial (`--files`, [`crate::plan::file_set`]);
    /// `file_size` is then their total. Absent: one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<super::FileSet>,
    /// Which copy of an otherwise identical case this is (`faultline
    /// calibrate` runs A and A′); absent for every other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica: Option<u32>,
    /// Whether write cases that sync differently are compared with each
    /// other (`--pair-across-sync`); by default a comparison pairs cases
    /// whose data is made durable alike ([`Case::sync_level`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pair_across_sync: bool,
}

/// The size part of a group's heading, after its label: `1 GiB file`
/// for one file; for a file set (`set`), whose label already names its
/// files (`100 files of 4 KiB`), their total, `400 KiB in all`.
pub fn size_heading(file_size: u64, set: bool) -> String {
    let size = crate::size::format_size(file_size);
    if set {
        format!("{size} in all")
    } else {
        format!("{size} file")
    }
}

impl Case {
    /// A case of `method` over a file of `file_size` bytes in `block_size`
    /// blocks visited in `pattern` order, doing `workload`, starting from
    /// `cache`; seed 1, the mapping options of a mapping method at their
    /// defaults, and every other factor absent (set the fields to change them).
    pub fn new(
        method: MethodKind,
        pattern: Pattern,
        block_size: u64,
        file_size: u64,
        workload: WorkloadKind,
        cache: CacheState,
    ) -> Case {
        use crate::method::MethodOption as O;
        Case {
            method,
            pattern,
            block_size,
            file_size,
            workload,
            cache,
            seed: 1,
            populate: method.takes(O::Populate).then(Populate::default),
            advice: method.takes(O::Advice).then(Advice::default),
            share: method.takes(O::Share).then(Share::default),
            ..Case::default()
        }
    }

    /// The case's I/O method over `file`, with the case's mmap, write and
    /// I/O options; `timer` times the syncs inside the loop.
    pub fn build_method(
        &self,
        file: std::fs::File,
        layout: crate::pattern::Layout,
        timer: Box<dyn crate::method::SyncTimer>,
    ) -> Box<dyn crate::method::Method> {
        let config = crate::method::MethodConfig {
            mmap: self.mmap_options(),
            write: self.write_options(),
            io: &self.io,
            mix: self.mix(),
        };
        self.method.build(file, layout, &config, timer)
    }

    /// How the file divides into blocks: the one place the plain, threaded
    /// and timed trials get it from.
    pub fn layout(&self) -> crate::pattern::Layout {
        crate::pattern::Layout {
            file_size: self.file_size,
            block_size: self.block_size,
        }
    }

    /// The order the case visits its blocks in (computed before any clock
    /// starts): the one place every trial path gets it from. A trace is
    /// read again from its file, and refused if it changed
    /// ([`crate::pattern::trace::TraceRef::load`]).
    pub fn block_order(&self) -> crate::error::Result<crate::pattern::BlockOrder> {
        match &self.trace {
            Some(trace) => Ok(trace
                .load(Some(self.file_size))?
                .order_of(self.trace_ops(), self.layout())?),
            None => crate::pattern::BlockOrder::new(self.pattern, self.layout(), self.seed),
        }
    }

    /// Which operations of its trace the case replays: the writes for a
    /// write method, else the reads.
    pub fn trace_ops(&self) -> crate::pattern::trace::Ops {
        if self.method.writes() {
            crate::pattern::trace::Ops::Writes
        } else {
            crate::pattern::trace::Ops::Reads
        }
    }

    /// The pattern as labels show it: `zipf:1.2`, or `trace NAME`.
    pub fn pattern_label(&self) -> String {
        match &self.trace {
            Some(trace) => format!("trace {}", trace.name()),
            None => self.pattern.to_string(),
        }
    }

    /// A fresh workload for one trial of this case (with its scale factor).
    pub fn build_workload(&self, page_size: usize) -> Box<dyn crate::workload::Workload> {
        self.workload.build(&crate::workload::WorkloadConfig {
            page_size,
            fill: self.fill,
            scale: self.scale,
            unit: self.scale_unit,
        })
    }

    /// The read/write mix of a mixed case (`--read-share`), drawn from its seed.
    pub fn mix(&self) -> Option<crate::pattern::Mix> {
        self.read_share.map(|read_share| crate::pattern::Mix {
            read_share,
            seed: self.seed,
        })
    }

    /// Whether the trial writes to its file: a write method, or a mixed
    /// read/write case (which works on a scratch file, as writes do).
    pub fn writes_file(&self) -> bool {
        self.method.writes() || self.read_share.is_some()
    }

    /// The mmap options, defaulted for methods that do not map.
    pub fn mmap_options(&self) -> MmapOptions {
        MmapOptions {
            populate: self.populate.unwrap_or_default(),
            advice: self.advice.unwrap_or_default(),
            share: self.share.unwrap_or_default(),
        }
    }

    /// The write options, defaulted for methods that do not write.
    pub fn write_options(&self) -> WriteOptions {
        WriteOptions {
            sync: self.sync.unwrap_or_default(),
            sync_call: self.sync_call.unwrap_or_default(),
            msync: self.msync.unwrap_or_default(),
            size_with: self.size_with,
            zeroed_buffer: self.fill == Some(FillContent::Calloc),
        }
    }

    /// Whether a trial of this case can repeat its pass to last longer
    /// (`--min-trial-time`): a warm or as-is read on one thread, not timed,
    /// not paced, not a scale (whose output is written once).
    pub fn repeats_passes(&self) -> bool {
        !self.method.writes()
            && self.cache != CacheState::Cold
            && self.threads.is_none()
            && self.procs.is_none()
            && self.duration_s.is_none()
            && self.pace.is_none()
            && self.scale.is_none()
            && self.read_share.is_none()
            && self.files.is_none()
    }

    /// The case with `--min-trial-time` left out: the same measurement,
    /// whatever the trial's least length.
    pub fn without_min_trial(&self) -> Case {
        Case {
            min_trial_ns: None,
            ..self.clone()
        }
    }

    /// When a write case's data is made durable: after every block (a sync
    /// per block, or a file opened with O_DSYNC or O_SYNC, whose every write
    /// is durable when it returns), once at the end, or never; `None` for a
    /// read case. Cases compared with each other make their data durable
    /// alike, so `write(sync=end)` is compared with `mmap-write(sync=end)`,
    /// never with an unsynced `write`.
    pub fn sync_level(&self) -> Option<SyncPolicy> {
        if !self.method.writes() {
            return None;
        }
        if self.open_sync.is_some_and(|o| o != OpenSync::None) {
            return Some(SyncPolicy::Each);
        }
        Some(self.sync.unwrap_or_default())
    }

    /// The sync level the case is grouped by: [`Case::sync_level`], unless
    /// the run compares across sync levels (`--pair-across-sync`).
    pub(super) fn grouped_sync_level(&self) -> Option<SyncPolicy> {
        self.sync_level().filter(|_| !self.pair_across_sync)
    }

    /// The size part of the group's heading ([`size_heading`]): `1 GiB
    /// file`, or `400 KiB in all` for a file set.
    pub fn size_heading(&self) -> String {
        size_heading(self.file_size, self.files.is_some())
    }

    /// The block size, or `whole-file` for one block as large as the file
    /// (rather than repeat the file's size).
    pub(super) fn block_label(&self) -> String {
        if self.trace.is_some() {
            return format!("up to {}", crate::size::format_size(self.block_size));
        }
        if self.block_size == self.file_size {
            "whole-file".to_string()
        } else {
            crate::size::format_size(self.block_size)
        }
    }
}
