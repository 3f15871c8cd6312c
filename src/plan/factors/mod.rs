//! Factors: the lists of values an experiment sweeps (methods and their
//! options, patterns, block and file sizes, workloads, cache states, threads,
//! ...), and their expansion into a [`Plan`]'s cases, the Cartesian product.
//!
//! [`Factors`] holds the lists; [`stages`] expands them, one factor at a
//! time in one ordered list of steps (each factor's rule declared once);
//! [`refusals`] refuses the combinations that cannot run, each with one
//! line that says what to do; [`values`] gives the values a list takes when
//! it is empty or shaped by others.
use std::collections::HashSet;

use super::{CacheState, Metric, OrderPolicy, Plan, Target, ThreadMode, WarmBy};
use crate::error::{Error, Result};
use crate::method::{
    Advice, Fadvise, MethodKind, Msync, OpenSync, Populate, Share, SizeWith, SyncCall, SyncPolicy,
};
use crate::pattern::trace::LoadedTrace;
use crate::pattern::Pattern;
use crate::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};
use stages::Expansion;

mod refusals;
mod stages;
mod values;

/// Largest block a trial may use.
pub const MAX_BLOCK: u64 = 64 << 20;

/// Largest stdio buffer.
pub const MAX_STDIO_BUFFER: u64 = 64 << 20;

/// Most memory the buffers of one trial may take (`--iov` or `--depth`
/// buffers of one block each).
pub const MAX_BUFFERS: u64 = 1 << 30;

/// Default file size for generated files: 128 MiB, large enough that a
/// cold sequential pass takes 70 ms here and small enough that the cold
/// random case (a device request for every 4 KiB block read()) stays near a
/// second a trial; warm trials repeat their pass to 40 ms without --runs
/// (`DEFAULT_MIN_TRIAL_S` of the command line).
pub const DEFAULT_SIZE: u64 = 128 << 20;

/// The values an experiment sweeps. An empty list means "the default" (see
/// each field); the plan is the product of the lists.
#[derive(Clone, Debug, PartialEq)]
pub struct Factors {
    /// I/O methods; the first is the baseline of every group.
    pub methods: Vec<MethodKind>,
    /// Block orders (empty: seq with 16 KiB blocks and random with 4 KiB
    /// blocks when `blocks` is empty too, else seq).
    pub patterns: Vec<Pattern>,
    /// Block sizes (empty: 16 KiB for seq, 4 KiB for the others).
    pub blocks: Vec<u64>,
    /// Whether a user's file is measured (write methods are then refused).
    pub user_file: bool,
    /// Workloads (empty: sum for read methods, fill for write methods).
    pub workloads: Vec<WorkloadKind>,
    /// What write methods write.
    pub fills: Vec<FillContent>,
    /// When write methods sync.
    pub syncs: Vec<SyncPolicy>,
    /// The call write methods sync with.
    pub sync_calls: Vec<SyncCall>,
    /// The O_DSYNC or O_SYNC flag the write methods that take it open their file with.
    pub open_syncs: Vec<OpenSync>,
    /// MS_SYNC or MS_ASYNC for `mmap-write`'s msync.
    pub msyncs: Vec<Msync>,
    /// What write methods write into.
    pub targets: Vec<Target>,
    /// How a fresh file is sized before it is mapped.
    pub size_withs: Vec<SizeWith>,
    /// Page-cache states.
    pub caches: Vec<CacheState>,
    /// How a warm cache is reached.
    pub warm_bys: Vec<WarmBy>,
    /// Mapping pre-faulting.
    pub populates: Vec<Populate>,
    /// madvise() hints.
    pub advices: Vec<Advice>,
    /// MAP_SHARED or MAP_PRIVATE.
    pub shares: Vec<Share>,
    /// stdio buffer sizes (empty: the method's default).
    pub stdio_buffers: Vec<u64>,
    /// preadv blocks per call (empty: the method's default).
    pub iovs: Vec<u32>,
    /// io_uring requests in flight (empty: the method's default).
    pub depths: Vec<u32>,
    /// io_uring registered buffers off, on, or both (empty: off).
    pub registered: Vec<bool>,
    /// Per-operation latency off, on, or both (empty: off).
    pub latency: Vec<bool>,
    /// `scale` factors (empty: reduce by 2).
    pub scale_factors: Vec<ScaleFactor>,
    /// Every scale factor enlarges.
    pub enlarge: bool,
    /// What `scale` takes as a pixel.
    pub scale_unit: ScaleUnit,
    /// A generated image size was asked for (`--image`).
    pub image_given: bool,
    /// A scaled image is to be kept (`--keep-output`).
    pub keep_output: bool,
    /// Generated file sizes were asked for (`--size`).
    pub sizes_given: bool,
    /// Threads per trial (1 or empty: one thread).
    pub threads: Vec<u32>,
    /// How threads share the work.
    pub thread_modes: Vec<ThreadMode>,
    /// Trial processes run at once.
    pub procs: Option<u32>,
    /// Seed of random orders, shuffles and generated content.
    pub seed: u64,
    /// Measured runs per case (`None`: 5 for the default comparison, else 10).
    pub runs: Option<u32>,
    /// Discarded runs per case.
    pub warmup: u32,
    /// Trial order within a group.
    pub order: OrderPolicy,
    /// Which time is compared.
    pub metric: Metric,
    /// A trace to replay instead of a generated pattern (`--trace`).
    pub trace: Option<LoadedTrace>,
    /// posix_fadvise() hints for the methods that take one (empty: none given).
    pub fadvises: Vec<Fadvise>,
    /// Seconds each trial reads for (`--duration`; `None`: one pass of the order).
    pub duration_s: Option<u32>,
    /// The page-cache budget each trial runs under (`--memory-budget`).
    pub memory_budget: Option<super::memory_budget::MemoryBudget>,
    /// Target rates of the operations (`--rate`; empty: flat out).
    pub rates: Vec<super::pace::Rate>,
    /// Think times after each operation, ns (`--think-time`; empty: none).
    pub think_ns: Vec<u64>,
    /// Compare write cases that sync differently with each other
    /// (`--pair-across-sync`; [`crate::plan::Case::sync_level`]).
    pub pair_across_sync: bool,
    /// Percent of operations that are reads in a mixed case (`--read-share`;
    /// empty: reads only).
    pub read_shares: Vec<u8>,
    /// Many files read in each trial (`--files`, `--file-size`; `None`: one file).
    pub file_set: Option<super::FileSet>,
    /// `--file-size` was given.
    pub file_size_given: bool,
}

impl Default for Factors {
    /// The default comparison: read against mmap, warm and cold.
    fn default() -> Self {
        Factors {
            methods: vec![MethodKind::Read, MethodKind::Mmap],
            patterns: Vec::new(),
            blocks: Vec::new(),
            user_file: false,
            workloads: Vec::new(),
            fills: vec![FillContent::Pattern],
            syncs: vec![SyncPolicy::None],
            sync_calls: vec![SyncCall::Fsync],
            open_syncs: vec![OpenSync::None],
            msyncs: vec![Msync::Sync],
            targets: vec![Target::Fresh],
            size_withs: vec![SizeWith::Truncate],
            caches: vec![CacheState::Warm, CacheState::Cold],
            warm_bys: vec![WarmBy::Seq],
            populates: vec![Populate::None],
            advices: vec![Advice::Normal],
            shares: vec![Share::Shared],
            stdio_buffers: Vec::new(),
            iovs: Vec::new(),
            depths: Vec::new(),
            registered: Vec::new(),
            latency: Vec::new(),
            scale_factors: Vec::new(),
            enlarge: false,
            scale_unit: ScaleUnit::Pixel,
            image_given: false,
            keep_output: false,
            sizes_given: false,
            threads: Vec::new(),
            thread_modes: vec![ThreadMode::Split],
            procs: None,
            seed: 1,
            runs: None,
            warmup: 0,
            order: OrderPolicy::Alternating,
            metric: Metric::Total,
            trace: None,
            fadvises: Vec::new(),
            duration_s: None,
            memory_budget: None,
            rates: Vec::new(),
            think_ns: Vec::new(),
            pair_across_sync: false,
            read_shares: Vec::new(),
            file_set: None,
            file_size_given: false,
        }
    }
}

/// Measured runs per case to start with when no --runs is given.
pub const DEFAULT_RUNS: u32 = 5;

impl Factors {
    /// Measured runs per case: `--runs`, else 5 to start with (more are
    /// added until the precision target is reached), for every run alike.
    pub fn runs(&self) -> u32 {
        self.runs.unwrap_or(DEFAULT_RUNS)
    }

    /// Whether the run scales images (`--workload scale`).
    pub fn scales(&self) -> bool {
        self.workloads.contains(&WorkloadKind::Scale)
    }

    /// Expands the factors into a plan over files of the given sizes: the
    /// lists are checked, then expanded step by step ([`stages::STEPS`]),
    /// and a case given twice is kept once.
    pub fn plan(&self, file_sizes: &[u64]) -> Result<Plan> {
        if let Some(why) = self.files_refusal().or_else(|| self.read_share_refusal()) {
            return Err(Error::Plan(why));
        }
        let file_sizes = &self.file_sizes(file_sizes)[..];
        let expansion = Expansion {
            factors: self,
            file_sizes,
        };
        expansion.check_size_of_product()?;
        self.check_lists(file_sizes)?;
        let mut cases = expansion.cases()?;
        let mut seen = HashSet::new();
        cases.retain(|c| seen.insert(c.clone()));
        let plan = Plan {
            cases,
            runs: self.runs(),
            warmup: self.warmup,
            order: self.order,
            metric: self.metric,
            seed: self.seed,
        };
        plan.check_bounds().map_err(Error::Plan)?;
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::IoOptions;
    use crate::plan::Case;

    fn factors(methods: &[MethodKind]) -> Factors {
        Factors {
            methods: methods.to_vec(),
            patterns: vec![Pattern::Seq],
            blocks: vec![4096],
            caches: vec![CacheState::Warm],
            ..Factors::default()
        }
    }

    fn labels(plan: &Plan) -> Vec<String> {
        plan.cases.iter().map(Case::method_label).collect()
    }

    #[test]
    fn the_default_comparison_is_seq_16k_and_random_4k_warm_and_cold_5_runs() {
        let plan = Factors::default().plan(&[DEFAULT_SIZE]).unwrap();
        assert_eq!(plan.runs, 5);
        assert_eq!(plan.cases.len(), 2 * 2 * 2);
        assert!(plan
            .cases
            .iter()
            .all(|c| (c.pattern == Pattern::Seq) == (c.block_size == 16 << 10)));
        assert_eq!(plan.groups().len(), 4);
    }

    #[test]
    fn options_multiply_only_their_own_method_in_order() {
        let f = Factors {
            stdio_buffers: vec![4096, 65536],
            iovs: vec![1, 8],
            depths: vec![1, 32],
            registered: vec![false, true],
            ..factors(&[
                MethodKind::Read,
                MethodKind::Stdio,
                MethodKind::Preadv,
                MethodKind::UringDirect,
                MethodKind::Mmap,
            ])
        };
        let plan = f.plan(&[1 << 20]).unwrap();
        assert_eq!(
            labels(&plan),
            [
                "read",
                "stdio(buffer=4 KiB)",
                "stdio(buffer=64 KiB)",
                "preadv(iov=1)",
                "preadv(iov=8)",
                "uring-direct(depth=1)",
                "uring-direct(depth=1,registered)",
                "uring-direct(depth=32)",
                "uring-direct(depth=32,registered)",
                "mmap"
            ]
        );
        let defaults = factors(&[MethodKind::Stdio, MethodKind::Preadv, MethodKind::Uring])
            .plan(&[1 << 20])
            .unwrap();
        assert_eq!(defaults.cases[0].io.stdio_buffer, Some(8192));
        assert_eq!(defaults.cases[1].io.iov, Some(4));
        let uring = &defaults.cases[2].io;
        assert_eq!((uring.depth, uring.registered), (Some(1), Some(false)));
        assert!(defaults.cases.iter().all(|c| !c.latency));
    }

    #[test]
    fn mapping_options_multiply_only_mapping_methods() {
        let f = Factors {
            patterns: vec![Pattern::Seq, Pattern::Random],
            blocks: vec![4096, 65536],
            populates: vec![Populate::None, Populate::Map],
            advices: vec![Advice::Normal, Advice::Random],
            ..factors(&[MethodKind::Read, MethodKind::Mmap])
        };
        let plan = f.plan(&[1 << 20]).unwrap();
        // 2 patterns x 2 blocks x (read + 2x2 mmap variants)
        assert_eq!(plan.cases.len(), 2 * 2 * 5);
        // The same start as the default comparison: one rule set.
        assert_eq!(plan.runs, DEFAULT_RUNS);
        assert!(plan
            .cases
            .iter()
            .filter(|c| c.method == MethodKind::Read)
            .all(|c| c.populate.is_none()));
    }

    #[test]
    fn latency_off_and_on_multiplies_every_case_within_its_group() {
        let f = Factors {
            latency: vec![false, true],
            ..factors(&[MethodKind::Read, MethodKind::Uring])
        };
        let plan = f.plan(&[1 << 20]).unwrap();
        assert_eq!(
            labels(&plan),
            [
                "read",
                "read(latency)",
                "uring(depth=1)",
                "uring(depth=1,latency)"
            ]
        );
        assert_eq!(plan.groups().len(), 1);
    }

    #[test]
    fn write_methods_get_their_own_workloads_and_options() {
        let f = Factors {
            caches: vec![CacheState::Warm, CacheState::Cold],
            syncs: vec![SyncPolicy::None, SyncPolicy::End],
            size_withs: vec![SizeWith::Truncate, SizeWith::Fallocate],
            ..factors(&[MethodKind::Read, MethodKind::Write, MethodKind::MmapWrite])
        };
        let plan = f.plan(&[1 << 20]).unwrap();
        let labels: Vec<String> = plan
            .cases
            .iter()
            .map(|c| format!("{} {}", c.method_label(), c.group_label()))
            .collect();
        assert_eq!(
            labels,
            vec![
                "read seq 4 KiB sum, warm",
                "read seq 4 KiB sum, cold",
                "write seq 4 KiB fill pattern, fresh file",
                "write(sync=end) seq 4 KiB fill pattern, synced at the end, fresh file",
                "mmap-write seq 4 KiB fill pattern, fresh file",
                "mmap-write(size-with=fallocate) seq 4 KiB fill pattern, fresh file",
                "mmap-write(sync=end) seq 4 KiB fill pattern, synced at the end, fresh file",
                "mmap-write(sync=end,size-with=fallocate) seq 4 KiB fill pattern, synced at the end, fresh file",
            ],
            "a fresh file has no cache state: warm and cold collapse into as-is"
        );
        let read = &plan.cases[0];
        assert_eq!((read.sync, read.target, read.fill), (None, None, None));
        assert_eq!(plan.cases[3].sync_call, Some(SyncCall::Fsync));
        assert_eq!(plan.cases[3].size_with, None);
        assert_eq!(plan.cases[6].sync_call, None, "mmap-write always msyncs");
        // Warm reads, cold reads, unsynced writes, writes synced at the end.
        assert_eq!(plan.groups().len(), 4);
    }

    #[test]
    fn writes_are_grouped_with_writes_that_sync_alike() {
        let f = Factors {
            syncs: vec![SyncPolicy::None, SyncPolicy::Each],
            open_syncs: vec![OpenSync::None, OpenSync::Dsync],
            ..factors(&[MethodKind::Pwrite, MethodKind::MmapWrite])
        };
        let plan = f.plan(&[1 << 20]).unwrap();
        let groups = plan.groups();
        for group in &groups {
            let level = plan.cases[group[0]].sync_level();
            assert!(group.iter().all(|&i| plan.cases[i].sync_level() == level));
        }
        // O_DSYNC makes every write durable: grouped with the per-block syncs.
        let dsync = plan
            .cases
            .iter()
            .position(|c| c.open_sync == Some(OpenSync::Dsync) && c.sync == Some(SyncPolicy::None))
            .unwrap();
        let each = plan
            .cases
            .iter()
            .position(|c| c.method == MethodKind::MmapWrite && c.sync == Some(SyncPolicy::Each))
            .unwrap();
        assert!(groups
            .iter()
            .any(|g| g.contains(&dsync) && g.contains(&each)));
        assert_eq!(groups.len(), 2);
        // Asked otherwise, they are one group.
        let across = Factors {
            pair_across_sync: true,
            ..f
        };
        assert_eq!(across.plan(&[1 << 20]).unwrap().groups().len(), 1);
    }

    #[test]
    fn overwrite_targets_keep_the_cache_states_and_need_no_sizing() {
        let f = Factors {
            targets: vec![Target::Overwrite],
            caches: vec![CacheState::Warm, CacheState::Cold],
            size_withs: vec![SizeWith::Truncate, SizeWith::Fallocate],
            fills: vec![FillContent::Zero, FillContent::Pattern],
            ..factors(&[MethodKind::Pwrite, MethodKind::MmapWrite])
        };
        let plan = f.plan(&[1 << 20]).unwrap();
        // 2 fills x 2 cache states x 2 methods, with no sizing variants.
        assert_eq!(plan.cases.len(), 8);
        assert!(plan.cases.iter().all(|c| c.size_with.is_none()));
        assert_eq!(
            plan.cases[0].group_label(),
            "seq 4 KiB fill zero, overwrite, warm"
        );
    }

    #[test]
    fn incompatible_combinations_are_refused() {
        let refused = |f: Factors, needle: &str| {
            let err = f.plan(&[1 << 20]).unwrap_err().to_string();
            assert!(err.contains(needle), "{err}");
        };
        let with_workloads = |m: &[MethodKind], w: &[WorkloadKind]| Factors {
            workloads: w.to_vec(),
            ..factors(m)
        };
        use MethodKind as M;
        use WorkloadKind as W;
        refused(
            with_workloads(&[M::Write], &[W::Sum]),
            "need --workload fill",
        );
        refused(
            with_workloads(&[M::Read, M::Write], &[W::Fill]),
            "read methods (read) need a read workload",
        );
        refused(
            with_workloads(&[M::Read], &[W::Sum, W::Fill]),
            "--workload fill needs a write method",
        );
        refused(
            with_workloads(&[M::Write], &[W::Fill, W::Md5]),
            "--workload md5 needs a read method",
        );
        refused(
            Factors {
                patterns: vec![Pattern::RandomReplace],
                ..factors(&[M::Pwrite])
            },
            "seq, random, reverse or stride:N",
        );
        refused(
            Factors {
                user_file: true,
                ..factors(&[M::MmapWrite])
            },
            "--file is for read methods",
        );
        refused(
            Factors {
                fills: vec![FillContent::Calloc],
                ..factors(&[M::MmapWrite])
            },
            "--fill calloc is for --method write and pwrite",
        );
    }

    #[test]
    fn out_of_range_options_are_plan_errors() {
        for b in [0, MAX_STDIO_BUFFER + 1] {
            let f = Factors {
                stdio_buffers: vec![b],
                ..factors(&[MethodKind::Stdio])
            };
            let err = f.plan(&[1 << 20]).unwrap_err();
            assert!(matches!(err, Error::Plan(_)), "{err}");
            assert!(err.to_string().contains("--stdio-buffer"));
        }
        let f = Factors {
            blocks: vec![64 << 20],
            iovs: vec![32],
            ..factors(&[MethodKind::Preadv])
        };
        let err = f.plan(&[64 << 20]).unwrap_err().to_string();
        assert_eq!(
            err,
            "--iov 32 with --block 64 MiB needs 2 GiB of buffers; keep --iov × --block at or below 1 GiB"
        );
        let f = Factors {
            blocks: vec![16 << 20],
            depths: vec![64, 65],
            ..factors(&[MethodKind::Uring])
        };
        let err = f.plan(&[16 << 20]).unwrap_err().to_string();
        assert!(err.starts_with("--depth 65 with --block 16 MiB"), "{err}");
    }

    #[test]
    fn cases_saved_before_these_options_existed_still_load() {
        // A case as journals and exports held it before stdio, preadv, uring and --latency.
        let old = r#"{"method":"read","pattern":"seq","block_size":4096,"file_size":1048576,
            "workload":"sum","cache":"warm","warm_by":"seq","populate":null,"advice":null,
            "share":null,"seed":1}"#;
        let case: Case = serde_json::from_str(old).unwrap();
        assert_eq!(case.io, IoOptions::default());
        assert!(!case.latency);
        let mut new = factors(&[MethodKind::Uring])
            .plan(&[1 << 20])
            .unwrap()
            .cases[0]
            .clone();
        new.io.depth = Some(32);
        new.latency = true;
        let back: Case = serde_json::from_str(&serde_json::to_string(&new).unwrap()).unwrap();
        assert_eq!(back, new);
    }
}
