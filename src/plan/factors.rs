//! Factors: the lists of values an experiment sweeps (methods and their
//! options, patterns, block and file sizes, workloads, cache states, threads,
//! ...), and their expansion into a [`Plan`]'s cases, the Cartesian product,
//! in one place.
//!
//! The product is built one factor at a time (`multiply`): each case is
//! replaced by one case per value of the next factor, in order, exactly as
//! nested loops would. A factor may give a case no choice (`[None]`): the
//! mapping options multiply only the methods that declare them
//! ([`crate::method::Spec::options`]), the write options only write methods,
//! and so on. Combinations that cannot run are refused with one line that
//! says what to do.
use std::collections::HashSet;

use super::{CacheState, Case, Metric, OrderPolicy, Plan, Target, ThreadMode, Threads, WarmBy};
use crate::error::{Error, Result};
use crate::method::{
    Advice, Fadvise, IoOptions, MethodKind, MethodOption, Msync, OpenSync, Populate, Share,
    SizeWith, SyncCall, SyncPolicy,
};
use crate::pattern::trace::{LoadedTrace, Ops};
use crate::pattern::Pattern;
use crate::size::format_size;
use crate::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

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
    /// (`--pair-across-sync`; [`Case::sync_level`]).
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

/// Replaces each case by one case per value `values` gives for it, set on
/// the case by `set`, in order: one more level of the nested loops of a
/// Cartesian product.
fn multiply<T>(
    cases: Vec<Case>,
    values: impl Fn(&Case) -> Vec<T>,
    set: impl Fn(&mut Case, T),
) -> Vec<Case> {
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        for value in values(&case) {
            let mut next = case.clone();
            set(&mut next, value);
            out.push(next);
        }
    }
    out
}

/// `values` as `Some`s when `applies`, else the single choice `None`.
fn when<T: Copy>(applies: bool, values: &[T]) -> Vec<Option<T>> {
    if applies {
        values.iter().copied().map(Some).collect()
    } else {
        vec![None]
    }
}

/// `values`, or `default` alone when none was given.
fn or_default<T: Copy>(values: &[T], default: T) -> Vec<T> {
    if values.is_empty() {
        vec![default]
    } else {
        values.to_vec()
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

    /// (pattern, block) pairs: the product of the lists, or the defaults. A
    /// trace's block is its longest read (set again per method, once known:
    /// a write method's is its longest write).
    fn pattern_blocks(&self) -> Vec<(Pattern, u64)> {
        if let Some(t) = &self.trace {
            let longest = t.reference.longest_read.max(t.reference.longest_write);
            return vec![(Pattern::Trace, longest.max(1))];
        }
        let default_block = |p: Pattern| if p == Pattern::Seq { 16 << 10 } else { 4 << 10 };
        match (self.patterns.is_empty(), self.blocks.is_empty()) {
            (true, true) => vec![(Pattern::Seq, 16 << 10), (Pattern::Random, 4 << 10)],
            (false, true) => self
                .patterns
                .iter()
                .map(|&p| (p, default_block(p)))
                .collect(),
            (true, false) => self.blocks.iter().map(|&b| (Pattern::Seq, b)).collect(),
            (false, false) => self
                .patterns
                .iter()
                .flat_map(|&p| self.blocks.iter().map(move |&b| (p, b)))
                .collect(),
        }
    }

    /// The workloads: as given, or sum for read methods (touch when they run
    /// for a duration) and fill for write methods.
    fn workloads(&self) -> Vec<WorkloadKind> {
        if !self.workloads.is_empty() {
            return self.workloads.clone();
        }
        let mut out = Vec::new();
        if self.methods.iter().any(|m| !m.writes()) {
            out.push(if self.duration_s.is_some() {
                WorkloadKind::Touch
            } else {
                WorkloadKind::Sum
            });
        }
        if self.methods.iter().any(|m| m.writes()) {
            out.push(WorkloadKind::Fill);
        }
        out
    }

    /// The scale factors: as given (all enlarging with `enlarge`), or 2.
    fn scale_factors(&self) -> Vec<ScaleFactor> {
        let enlarged = |f: ScaleFactor| match f {
            ScaleFactor::Reduce(k) if self.enlarge => ScaleFactor::Enlarge(k),
            f => f,
        };
        or_default(&self.scale_factors, ScaleFactor::Reduce(2))
            .into_iter()
            .map(enlarged)
            .collect()
    }

    /// The threads of a case: one thread, or each count with each mode.
    fn thread_choices(&self) -> Vec<Option<Threads>> {
        if self.threads.is_empty() {
            return vec![None];
        }
        let mut out = Vec::new();
        for &count in &self.threads {
            if count <= 1 {
                out.push(None);
                continue;
            }
            for &mode in &self.thread_modes {
                out.push(Some(Threads { count, mode }));
            }
        }
        out
    }

    /// Expands the factors into a plan over files of the given sizes.
    pub fn plan(&self, file_sizes: &[u64]) -> Result<Plan> {
        if let Some(why) = self.files_refusal().or_else(|| self.read_share_refusal()) {
            return Err(Error::Plan(why));
        }
        let file_sizes = &self.file_sizes(file_sizes)[..];
        self.check_size_of_product(file_sizes.len())?;
        self.check_combinations()?;
        self.check_scale(file_sizes)?;
        self.check_blocks(file_sizes)?;
        self.check_option_values()?;
        self.check_trace(file_sizes)?;
        let scales = self.scales();
        let base = Case {
            seed: self.seed,
            ..Case::default()
        };
        let mut cases = multiply(vec![base], |_| file_sizes.to_vec(), |c, s| c.file_size = s);
        cases = multiply(
            cases,
            |c| {
                if scales {
                    // The image is one block, read in one go.
                    vec![(Pattern::Seq, c.file_size)]
                } else {
                    self.pattern_blocks()
                }
            },
            |c, (p, b)| (c.pattern, c.block_size) = (p, b),
        );
        cases = multiply(cases, |_| self.workloads(), |c, w| c.workload = w);
        cases = multiply(
            cases,
            |c| when(c.workload.writes(), &self.fills),
            |c, f| c.fill = f,
        );
        cases = multiply(
            cases,
            |c| when(c.workload.writes(), &self.targets),
            |c, t| c.target = t,
        );
        // A fresh file has nothing to cache: its state is as-is.
        let fresh = |c: &Case| c.target == Some(Target::Fresh);
        cases = multiply(
            cases,
            |c| {
                if fresh(c) {
                    vec![CacheState::AsIs]
                } else {
                    self.caches.clone()
                }
            },
            |c, s| c.cache = s,
        );
        cases = multiply(
            cases,
            |c| {
                if fresh(c) {
                    vec![WarmBy::default()]
                } else {
                    self.warm_bys.clone()
                }
            },
            |c, w| c.warm_by = w,
        );
        cases = multiply(
            cases,
            |c| {
                let writes = c.workload.writes();
                self.methods
                    .iter()
                    .copied()
                    .filter(|m| m.writes() == writes)
                    .collect()
            },
            |c, m| c.method = m,
        );
        let paces = super::pace::choices(&self.rates, &self.think_ns);
        cases = multiply(cases, |_| paces.clone(), |c, p| c.pace = p);
        // A mixed case writes: it works on the scratch directory's
        // overwrite target, restored before each trial.
        cases = multiply(
            cases,
            |c| {
                let takes = c.method.takes(MethodOption::ReadShare);
                when(takes && !self.read_shares.is_empty(), &self.read_shares)
            },
            |c, share| {
                c.read_share = share;
                if share.is_some() {
                    c.target = Some(Target::Overwrite);
                }
            },
        );
        cases = self.multiply_method_options(cases);
        let calloc = cases.iter().find(|c| {
            c.fill == Some(FillContent::Calloc) && !c.method.takes(MethodOption::CallocBuffer)
        });
        if let Some(c) = calloc {
            return Err(Error::Plan(format!(
                "--fill calloc is for --method write and pwrite (their buffer is calloc'd and never stored into); {} stores every byte it writes",
                c.method
            )));
        }
        cases.iter().try_for_each(check_buffers)?;
        cases = multiply(
            cases,
            |c| when(c.workload == WorkloadKind::Scale, &self.scale_factors()),
            |c, f| {
                c.scale = f;
                c.scale_unit =
                    (f.is_some() && self.scale_unit != ScaleUnit::Pixel).then_some(self.scale_unit);
            },
        );
        cases = multiply(cases, |_| self.thread_choices(), |c, t| c.threads = t);
        for case in &mut cases {
            case.procs = self.procs.filter(|&n| n > 1);
            case.duration_s = self.duration_s;
            case.memory_budget = self.memory_budget;
            case.pair_across_sync = self.pair_across_sync && case.method.writes();
            case.files = self.set_of();
            if let Some(t) = &self.trace {
                case.trace = Some(t.reference.clone());
                case.block_size = match case.trace_ops() {
                    Ops::Reads => t.reference.longest_read,
                    Ops::Writes => t.reference.longest_write,
                }
                .max(1);
            }
            // First: a paced case records latency, which the others refuse.
            if let Some(why) = super::refusal::paced(case) {
                return Err(Error::Plan(why));
            }
            if let Some(why) = super::duration::refusal(case) {
                return Err(Error::Plan(why));
            }
            if case.procs.is_some() && case.method.writes() {
                return Err(Error::Plan(format!(
                    "--procs is for read methods; {} writes (one writer per file)",
                    case.method
                )));
            }
            if let Some(why) = super::refusal::threaded(case) {
                return Err(Error::Plan(why));
            }
        }
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

    /// Refuses, before expanding anything, lists whose product could pass
    /// [`super::MAX_CASES`]: the product of every list's length is an upper
    /// bound of the cases (a list that does not apply to a method only
    /// lowers it).
    fn check_size_of_product(&self, sizes: usize) -> Result<()> {
        let lengths = [
            sizes,
            self.methods.len(),
            self.patterns.len(),
            self.blocks.len(),
            self.workloads.len(),
            self.fills.len(),
            self.syncs.len(),
            self.sync_calls.len(),
            self.open_syncs.len(),
            self.msyncs.len(),
            self.targets.len(),
            self.size_withs.len(),
            self.caches.len(),
            self.warm_bys.len(),
            self.populates.len(),
            self.advices.len(),
            self.shares.len(),
            self.stdio_buffers.len(),
            self.iovs.len(),
            self.depths.len(),
            self.registered.len(),
            self.latency.len(),
            self.scale_factors.len(),
            self.threads.len(),
            self.thread_modes.len(),
            self.rates.len(),
            self.think_ns.len(),
            self.read_shares.len(),
        ];
        let product = lengths
            .iter()
            .fold(1u64, |p, &n| p.saturating_mul(n.max(1) as u64));
        if product > super::MAX_CASES {
            return Err(Error::Plan(format!(
                "these lists multiply to as many as {product} cases, more than the {} one run may have; sweep fewer values at once",
                super::MAX_CASES
            )));
        }
        Ok(())
    }

    /// Multiplies each case by the options its method declares, each list in
    /// turn; a method that does not take an option gets `None` for it.
    fn multiply_method_options(&self, cases: Vec<Case>) -> Vec<Case> {
        use MethodOption as O;
        let takes = |c: &Case, o: MethodOption| c.method.takes(o);
        let mut cases = multiply(
            cases,
            |c| when(takes(c, O::Populate), &self.populates),
            |c, v| c.populate = v,
        );
        cases = multiply(
            cases,
            |c| when(takes(c, O::Advice), &self.advices),
            |c, v| c.advice = v,
        );
        cases = multiply(
            cases,
            |c| when(takes(c, O::Share), &self.shares),
            |c, v| c.share = v,
        );
        cases = multiply(
            cases,
            |c| when(c.method.writes(), &self.syncs),
            |c, v| c.sync = v,
        );
        cases = multiply(
            cases,
            |c| {
                let syncs = c.sync.is_some_and(|s| s != SyncPolicy::None);
                when(takes(c, O::SyncCall) && syncs, &self.sync_calls)
            },
            |c, v| c.sync_call = v,
        );
        cases = multiply(
            cases,
            |c| {
                let syncs = c.sync.is_some_and(|s| s != SyncPolicy::None);
                when(takes(c, O::Msync) && syncs, &self.msyncs)
            },
            |c, v| c.msync = v,
        );
        cases = multiply(
            cases,
            |c| when(takes(c, O::OpenSync), &self.open_syncs),
            |c, v| c.open_sync = v,
        );
        cases = multiply(
            cases,
            |c| {
                when(
                    takes(c, O::SizeWith) && c.target == Some(Target::Fresh),
                    &self.size_withs,
                )
            },
            |c, v| c.size_with = v,
        );
        let stdio = or_default(&self.stdio_buffers, crate::method::DEFAULT_STDIO_BUFFER);
        cases = multiply(
            cases,
            |c| when(takes(c, O::StdioBuffer), &stdio),
            |c, v| c.io.stdio_buffer = v,
        );
        // A chase has one read in flight by construction (each read needs
        // the bytes of the one before): it runs preadv one block per call
        // and io_uring at depth 1, and its cases say so.
        let one_at_a_time = |c: &Case| c.pattern == Pattern::Chase;
        let iovs = or_default(&self.iovs, crate::method::DEFAULT_IOV);
        cases = multiply(
            cases,
            |c| {
                when(
                    takes(c, O::Iov),
                    if one_at_a_time(c) { &[1] } else { &iovs },
                )
            },
            |c, v| c.io.iov = v,
        );
        let depths = or_default(&self.depths, crate::method::DEFAULT_DEPTH);
        cases = multiply(
            cases,
            |c| {
                when(
                    takes(c, O::Depth),
                    if one_at_a_time(c) { &[1] } else { &depths },
                )
            },
            |c, v| c.io.depth = v,
        );
        let registered = or_default(&self.registered, false);
        cases = multiply(
            cases,
            |c| when(takes(c, O::Registered), &registered),
            |c, v| c.io.registered = v,
        );
        cases = multiply(
            cases,
            |c| {
                when(
                    takes(c, O::Fadvise) && !self.fadvises.is_empty(),
                    &self.fadvises,
                )
            },
            |c, v| c.io.fadvise = v,
        );
        // A paced case is there for its latencies: it always records them.
        multiply(
            cases,
            |c| {
                if c.pace.is_some() {
                    vec![true]
                } else {
                    or_default(&self.latency, false)
                }
            },
            |c, v| c.latency = v,
        )
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
                        "--block {} is larger than the 64 MiB maximum",
                        format_size(block_size)
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
                "--trace {name} has an operation of {}, larger than the 64 MiB maximum",
                format_size(r.longest_read.max(r.longest_write))
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

#[cfg(test)]
mod tests {
    use super::*;

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
