//! The trial child: runs one case in a fresh process and reports what it
//! measured. The parent ([`crate::runner`]) prepares the cache first.
//!
//! Only the method's `run` is inside the main-loop clock; setup, the sync of
//! `--sync end` and teardown have clocks of their own, and the syncs of
//! `--sync each` are timed one by one and taken out of the loop's time.
//! Counters span setup + loop + sync + teardown. With `--profile` the
//! sampler ([`crate::measure::profile`]) is opened before the counters are
//! read, switched on and off just inside the main loop's clock (for threads
//! and timed trials, from the workers' release to their end), and finished
//! after the counters: it samples the main loop and nothing else.
pub mod main_loop;
pub mod many_files;
pub mod procs;
pub mod threads;
pub mod timed;

use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::measure::profile::{ProfileRequest, Profiler};
use crate::measure::{device, CounterReading};
use crate::method::SyncTimer;
use crate::pattern::BlockOrder;
use crate::plan::Case;
use crate::plan::Target;
use crate::results::{ChildReport, SetupFaults};

/// The name of the hidden subcommand that runs a trial.
pub const SUBCOMMAND: &str = "__trial";

/// The child's exit code when a write found no room ([`Error::DiskFull`]):
/// the runner then stops the run, since every later write would fail too.
pub const DISK_FULL_EXIT: i32 = 3;

/// What the parent sends the child on its standard input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrialSpec {
    /// The file to read, or for a write method the scratch file to write.
    #[serde(with = "crate::os_path")]
    pub path: PathBuf,
    /// The case to run.
    pub case: Case,
    /// Where to write the scaled image (`scale` only, `--keep-output`),
    /// after the timed section.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::os_path::option"
    )]
    pub keep_output: Option<PathBuf>,
    /// The file holding the memory charged to the trial's cgroup (a case
    /// with a memory budget), read each second of a timed trial.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::os_path::option"
    )]
    pub cgroup_usage: Option<PathBuf>,
    /// The seed a generated file was made from (checks a timed trial's checksum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_seed: Option<u64>,
    /// Sample the main loop's CPU time (`--profile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileRequest>,
}

/// Opens the trial's profiler when it asked for one: before its counters are
/// read, so that opening it is in no number.
pub(crate) fn open_profiler(spec: &TrialSpec) -> Result<Option<Profiler>> {
    spec.profile
        .as_ref()
        .map(Profiler::open)
        .transpose()
        .map_err(|e| Error::Trial(e.to_string()))
}

/// Switches the profiler, if any, on or off.
pub fn switch_profiler(profiler: Option<&Profiler>, on: bool) -> Result<()> {
    let Some(p) = profiler else { return Ok(()) };
    let switched = if on { p.enable() } else { p.disable() };
    switched.map_err(|e| Error::Trial(format!("--profile: switching the sampler: {e}")))
}

/// Finishes the profiler, if any, after every clock and counter: what the
/// child sends the parent.
pub(crate) fn finish_profiler(
    profiler: Option<Profiler>,
) -> Result<Option<crate::measure::profile::RawProfile>> {
    profiler
        .map(Profiler::finish)
        .transpose()
        .map_err(|e| Error::Trial(format!("--profile: {e}")))
}

/// Times the syncs inside a write method's main loop (`--sync each`).
#[derive(Clone, Default)]
struct LoopSyncs(Rc<Cell<u64>>);

impl SyncTimer for LoopSyncs {
    fn time(&mut self, sync: &mut dyn FnMut() -> std::io::Result<()>) -> std::io::Result<()> {
        let start = Instant::now();
        let result = sync();
        self.0.set(self.0.get() + start.elapsed().as_nanos() as u64);
        result
    }
}

/// Opens the file a write trial writes into: read-write (a shared writable
/// mapping needs both), never created, never through a symbolic link, with
/// the case's `--open-sync` flag (O_DSYNC or O_SYNC) if it has one. The
/// runner created it in the scratch directory; as a second line of defence the
/// child refuses anything that is not a regular file of this user, with one
/// link, named as faultline names its files.
fn open_for_writing(path: &Path, open_sync: Option<crate::method::OpenSync>) -> Result<File> {
    let refuse = |why: &str| {
        Error::Trial(format!(
            "refusing to write {}: {why}; write trials only write files faultline created",
            path.display()
        ))
    };
    let named_ours = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(crate::files::dataset::PREFIX) && n.ends_with(".data"));
    if !named_ours {
        return Err(refuse("not a faultline scratch file name"));
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | open_sync.map_or(0, |o| o.flags()))
        .open(path)
        .map_err(|e| Error::io("open for writing", path, e))?;
    let meta = file.metadata().map_err(|e| Error::io("stat", path, e))?;
    if !meta.is_file() || meta.uid() != crate::system::current_uid() || meta.nlink() != 1 {
        return Err(refuse("not a regular file of this user with a single link"));
    }
    Ok(file)
}

/// Runs one trial in this process.
pub fn run_trial(spec: &TrialSpec) -> Result<ChildReport> {
    let case = &spec.case;
    if case.files.is_some() {
        return crate::trial::many_files::run(spec);
    }
    let writes = case.writes_file();
    let file = if writes {
        open_for_writing(&spec.path, case.open_sync)?
    } else {
        File::open(&spec.path).map_err(|e| Error::io("open", &spec.path, e))?
    };
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", &spec.path, e))?
        .len();
    // A fresh write target starts empty; anything else has the planned size.
    let planned = if writes && case.target.unwrap_or_default() == Target::Fresh {
        0
    } else {
        case.file_size
    };
    if len != planned {
        return Err(Error::Trial(format!(
            "{} is {len} bytes now, not the {planned} the case was planned for",
            spec.path.display(),
        )));
    }
    if case.duration_s.is_some() {
        drop(file);
        let profiler = open_profiler(spec)?;
        let inputs = crate::trial::timed::TimedInputs {
            path: &spec.path,
            cgroup_usage: spec.cgroup_usage.as_deref(),
            content_seed: spec.content_seed,
            profiler: profiler.as_ref(),
        };
        let report =
            crate::trial::timed::run_for_duration(case, &inputs, crate::system::page_size())?;
        return Ok(ChildReport {
            raw_profile: finish_profiler(profiler)?,
            ..report
        });
    }
    if case.threads.is_some() {
        drop(file);
        return run_threaded_trial(spec);
    }
    if case.method == crate::method::MethodKind::MmapWrite
        || (case.read_share.is_some() && case.method.maps_file())
    {
        disk_full_on_sigbus(&spec.path);
    }
    let (layout, order) = (case.layout(), case.block_order()?);
    let mut workload = case.build_workload(crate::system::page_size());
    let device_stat = device::stat_path(&file);
    let loop_syncs = LoopSyncs::default();
    let mut method = case.build_method(file, layout, Box::new(loop_syncs.clone()));

    // Made (and its pages touched) before anything is measured.
    let mut latency = case.latency.then(crate::measure::latency::Recorder::new);
    if case.procs.is_some() {
        crate::trial::procs::ready_and_wait()?;
    }
    let profiler = open_profiler(spec)?;

    let before = CounterReading::before(device_stat.as_deref());
    let t0 = Instant::now();
    method.setup().map_err(|e| on_filesystem(e, &spec.path))?;
    let t1 = Instant::now();
    // Between the setup's clock and the loop's, in neither: the faults
    // setup took (MAP_POPULATE's prefault) are told apart from the loop's.
    let setup_faults = SetupFaults::between(before.rusage(), &crate::measure::rusage::snapshot());
    let loop_start = Instant::now();
    switch_profiler(profiler.as_ref(), true)?;
    // The pace's schedule starts with the loop.
    let pacer = case
        .pace
        .map(|p| crate::trial::main_loop::Pacer::new(p, case.block_size));
    let counts = crate::trial::main_loop::run_main_loop(
        method.as_mut(),
        &order,
        workload.as_mut(),
        latency.as_mut(),
        pacer,
    )?;
    switch_profiler(profiler.as_ref(), false)?;
    let t2 = Instant::now();
    // Only a case that syncs reads the sync clock, so sync_ns is 0 otherwise.
    let t3 = if case.write_options().sync == crate::method::SyncPolicy::End {
        method.sync()?;
        Instant::now()
    } else {
        t2
    };
    // Before teardown, so that a mapping's pages are still counted, and once
    // every process has finished its loop, so that they are all mapped at
    // once; outside every clock.
    let pss_kib = if case.procs.is_some() {
        crate::trial::procs::ready_and_wait()?;
        let pss = crate::trial::procs::own_pss_kib();
        // No process unmaps before every process has read its PSS.
        crate::trial::procs::ready_and_wait()?;
        pss
    } else {
        None
    };
    let teardown_start = if pss_kib.is_some() {
        Instant::now()
    } else {
        t3
    };
    method.teardown()?;
    let t4 = Instant::now();
    // --min-trial-time: more passes, each a whole one, until the trial is long enough.
    let more = match case.min_trial_ns {
        Some(min) => more_passes(
            spec,
            (
                ((t2 - loop_start).as_nanos() as u64).saturating_sub(loop_syncs.0.get()),
                (t4 - t0).as_nanos() as u64 - (loop_start - t1).as_nanos() as u64,
            ),
            min,
            workload.checksum(),
            profiler.as_ref(),
        )?,
        None => Passes::default(),
    };
    let after = CounterReading::after(device_stat.as_deref());
    let raw_profile = finish_profiler(profiler)?;

    if let Some(e) = workload.error() {
        return Err(Error::Trial(e));
    }
    if let (Some(path), Some((w, h, pixels))) = (&spec.keep_output, workload.scaled_image()) {
        crate::files::image::write_ppm_atomically(path, w, h, pixels)?;
    }
    let checksum = std::hint::black_box(workload.checksum());
    let expected = order.bytes(layout);
    if counts.bytes != expected {
        return Err(Error::Trial(format!(
            "{} delivered {} bytes, expected {expected}",
            case.method, counts.bytes
        )));
    }
    let in_loop_sync_ns = loop_syncs.0.get();
    let footprint = footprint_of(case, &order, spec, crate::system::page_size());
    Ok(ChildReport {
        wall_ns: ((t2 - loop_start).as_nanos() as u64).saturating_sub(in_loop_sync_ns)
            + more.wall_ns,
        setup_faults: Some(setup_faults.plus(more.setup_faults)),
        setup_ns: (t1 - t0).as_nanos() as u64 + more.setup_ns,
        sync_ns: (t3 - t2).as_nanos() as u64 + in_loop_sync_ns,
        teardown_ns: (t4 - teardown_start).as_nanos() as u64 + more.teardown_ns,
        bytes: counts.bytes + more.bytes,
        bytes_written: case.read_share.map(|_| counts.written),
        syscalls: counts.syscalls + more.syscalls,
        checksum,
        latency: latency.and_then(|r| r.percentiles()),
        pss_kib,
        passes: case.min_trial_ns.map(|_| 1 + more.count),
        ops: order.len() * (1 + u64::from(more.count)),
        footprint,
        raw_profile,
        ..ChildReport::counted(after.since(&before))
    })
}

/// What the passes after the first of a `--min-trial-time` trial took.
#[derive(Debug, Default)]
struct Passes {
    count: u32,
    setup_ns: u64,
    wall_ns: u64,
    teardown_ns: u64,
    bytes: u64,
    syscalls: u64,
    setup_faults: SetupFaults,
}

/// Repeats a read trial's whole pass (a new method and workload: open,
/// setup, main loop, teardown) while the main loops so far, `loop_ns`,
/// add up to less than `min_ns`, and the whole passes, `elapsed_ns`, to
/// less than [`MAX_PASSES_FACTOR`] times it (a pass of a tiny file is
/// mostly setup: its loop alone would take thousands of passes to reach
/// `min_ns`). Every pass must deliver the whole order
/// and the first pass's `checksum`, so the bytes counted are bytes moved.
/// Only the opening of the file and the check between passes are outside
/// the clocks.
fn more_passes(
    spec: &TrialSpec,
    (mut loop_ns, mut elapsed_ns): (u64, u64),
    min_ns: u64,
    checksum: u64,
    profiler: Option<&Profiler>,
) -> Result<Passes> {
    let case = &spec.case;
    let mut passes = Passes::default();
    while loop_ns < min_ns && elapsed_ns < min_ns.saturating_mul(MAX_PASSES_FACTOR) {
        let file = File::open(&spec.path).map_err(|e| Error::io("open", &spec.path, e))?;
        let (layout, order) = (case.layout(), case.block_order()?);
        let mut workload = case.build_workload(crate::system::page_size());
        let mut method = case.build_method(file, layout, Box::new(LoopSyncs::default()));
        let before_setup = crate::measure::rusage::snapshot();
        let t0 = Instant::now();
        method.setup().map_err(|e| on_filesystem(e, &spec.path))?;
        let t1 = Instant::now();
        let after_setup = crate::measure::rusage::snapshot();
        // The profile covers every pass's main loop, as the first pass's.
        switch_profiler(profiler, true)?;
        let loop_start = Instant::now();
        let counts = crate::trial::main_loop::run_main_loop(
            method.as_mut(),
            &order,
            workload.as_mut(),
            None,
            None,
        )?;
        let t2 = Instant::now();
        switch_profiler(profiler, false)?;
        method.teardown()?;
        let t3 = Instant::now();
        let pass_checksum = std::hint::black_box(workload.checksum());
        if counts.bytes != order.bytes(layout) || pass_checksum != checksum {
            return Err(Error::Trial(format!(
                "{} pass {} delivered {} bytes with checksum {pass_checksum:#x}, not the first pass's {} bytes with {checksum:#x}",
                case.method,
                passes.count + 2,
                counts.bytes,
                order.bytes(layout)
            )));
        }
        passes.count += 1;
        passes.setup_ns += (t1 - t0).as_nanos() as u64;
        passes.wall_ns += (t2 - loop_start).as_nanos() as u64;
        passes.setup_faults = passes
            .setup_faults
            .plus(SetupFaults::between(&before_setup, &after_setup));
        passes.teardown_ns += (t3 - t2).as_nanos() as u64;
        passes.bytes += counts.bytes;
        passes.syscalls += counts.syscalls;
        elapsed_ns += (t3 - t0 - (loop_start - t1)).as_nanos() as u64;
        loop_ns += (t2 - loop_start).as_nanos() as u64;
    }
    Ok(passes)
}

/// A `--min-trial-time` trial stops repeating its pass once the whole
/// passes take this many times the least time, even if its main loops
/// add up to less.
pub const MAX_PASSES_FACTOR: u64 = 4;

/// Runs a case on its threads ([`crate::trial::threads`]): the whole of each
/// thread's setup, loop and teardown is its main-loop time, so `wall_ns` is
/// the time from the barrier's release to the last thread's finish and setup
/// and teardown are 0. Counters span all the threads.
fn run_threaded_trial(spec: &TrialSpec) -> Result<ChildReport> {
    let case = &spec.case;
    if case.procs.is_some() {
        crate::trial::procs::ready_and_wait()?;
    }
    let device_stat = File::open(&spec.path)
        .ok()
        .and_then(|f| device::stat_path(&f));
    let profiler = open_profiler(spec)?;
    let before = CounterReading::before(device_stat.as_deref());
    let run = crate::trial::threads::run_on_threads(
        case,
        &spec.path,
        crate::system::page_size(),
        profiler.as_ref(),
    )?;
    if case.procs.is_some() {
        // The second and third meeting points of crate::procs (no PSS: the
        // threads tore down already).
        crate::trial::procs::ready_and_wait()?;
        crate::trial::procs::ready_and_wait()?;
    }
    let after = CounterReading::after(device_stat.as_deref());
    let raw_profile = finish_profiler(profiler)?;
    if let (Some(path), Some((w, h, pixels))) = (&spec.keep_output, &run.image) {
        crate::files::image::write_ppm_atomically(path, *w, *h, pixels)?;
    }
    let footprint = footprint_of(case, &run.order, spec, crate::system::page_size());
    Ok(ChildReport {
        wall_ns: run.elapsed_ns,
        setup_ns: 0,
        sync_ns: 0,
        teardown_ns: 0,
        bytes: run.bytes,
        syscalls: run.syscalls,
        ops: run.ops,
        checksum: run.checksum,
        thread_ns: run.thread_ns,
        footprint,
        raw_profile,
        ..ChildReport::counted(after.since(&before))
    })
}

/// The footprint of a plain or threaded trial's order, counted after every
/// measurement of the trial: from the order itself, or for a chase by
/// walking its path again, from the generator of a generated file (no I/O)
/// or by reading the first 8 bytes of each block it visits from the user's
/// file (pages the trial has just read). `None` when that read fails.
fn footprint_of(
    case: &Case,
    order: &BlockOrder,
    spec: &TrialSpec,
    page_size: usize,
) -> Option<crate::pattern::Footprint> {
    let layout = case.layout();
    let BlockOrder::Chase(chase) = order else {
        return crate::pattern::footprint(
            order,
            layout,
            crate::trial::timed::footprint_unit(case, page_size),
        );
    };
    let walked = match spec.content_seed {
        Some(seed) => {
            let mut content = crate::files::dataset::GeneratedContent::new(seed);
            crate::trial::timed::chase_footprint(chase, layout, |offset, out| {
                content.read(offset, out);
                Ok(())
            })
        }
        None => {
            use std::os::unix::fs::FileExt;
            let file = File::open(&spec.path).ok()?;
            crate::trial::timed::chase_footprint(chase, layout, |offset, out| {
                file.read_exact_at(out, offset)
            })
        }
    };
    walked.ok()
}

/// The line the SIGBUS handler writes: made before the trial, since the
/// handler may only call async-signal-safe functions.
static SIGBUS_LINE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

extern "C" fn on_sigbus(_: libc::c_int) {
    if let Some(line) = SIGBUS_LINE.get() {
        // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer
        // was made before the handler was installed and is never changed.
        unsafe {
            libc::write(2, line.as_ptr().cast(), line.len());
        }
    }
    // SAFETY: as above.
    unsafe { libc::_exit(DISK_FULL_EXIT) }
}

/// Makes a SIGBUS in this trial (a store into the shared mapping of a file
/// whose pages the file system cannot back: it is full, or over quota)
/// end the trial as a write that finds the disk full does: one line
/// starting `disk full (` on stderr and [`DISK_FULL_EXIT`], so the runner
/// stops the run with the same message and removes the file, instead of
/// reporting a failed trial and going on into the same wall.
///
/// Chosen over reserving the space first (fallocate), which would change
/// what `--size-with truncate` measures: a sparse file filled by faults.
fn disk_full_on_sigbus(path: &Path) {
    let fs = crate::measure::environment::filesystem_of(path.parent().unwrap_or(path))
        .map(|fs| format!(" (file system: {fs})"))
        .unwrap_or_default();
    let line = format!(
        "disk full (a store into the shared mapping of {} raised SIGBUS: the file system could not back the page, it is full or over quota){fs}\n",
        path.display()
    );
    let _ = SIGBUS_LINE.set(line.into_bytes());
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Adds the file system's name to a method's refusal (mmap on sysfs, say).
/// A full disk stays a [`Error::DiskFull`] (its exit code tells the runner to stop).
fn on_filesystem(error: Error, path: &std::path::Path) -> Error {
    let Some(fs) = crate::measure::environment::filesystem_of(path) else {
        return error;
    };
    match error {
        Error::DiskFull(m) => Error::DiskFull(format!("{m} (file system: {fs})")),
        // Error::Trial displays its message alone, so nothing is doubled.
        other => Error::Trial(format!("{other} (file system: {fs})")),
    }
}

/// The longest trial spec a trial child reads from its standard input.
const MAX_SPEC: usize = 1 << 20;

/// The child's entry point: a [`TrialSpec`] as JSON on stdin, a
/// [`ChildReport`] as JSON on stdout. Errors go to stderr as one line and the
/// exit code is 1, or [`DISK_FULL_EXIT`] for [`Error::DiskFull`]. SIGXFSZ is
/// ignored, so that a write past RLIMIT_FSIZE is an EFBIG error, reported.
pub fn child_main() -> i32 {
    crate::files::scratch::ignore_file_size_signal();
    // A Ctrl-\\ (SIGQUIT) at the terminal reaches the trial too: it dies
    // of it (the runner reports the stop), and leaves no core file behind.
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    // One line: with --procs the runner keeps stdin open to release the
    // processes together (see crate::procs).
    // Bounded: the spec is one short line (a trace is named, not sent).
    let mut input = Vec::new();
    let continued = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGCONT, continued.clone());
    // Its own statement: the lock on stdin goes before the trial runs (a
    // --procs trial reads the runner's go from stdin).
    let read = crate::input::read_line(&mut std::io::stdin().lock(), &mut input, MAX_SPEC);
    let result = read
        .map_err(|e| Error::Trial(format!("reading the trial spec: {e}")))
        .and_then(|_| {
            serde_json::from_slice::<TrialSpec>(&input)
                .map_err(|e| Error::Trial(format!("bad trial spec: {e}")))
        })
        .and_then(|spec| {
            // One thread's wait speaks for the trial only when the loop runs
            // on this one thread.
            let clock = (spec.case.threads.is_none())
                .then(crate::measure::run_delay::WaitClock::start)
                .flatten();
            let mut report = run_trial(&spec)?;
            report.cpu_wait = clock.and_then(|c| c.stop());
            Ok(report)
        })
        .map(|mut report| {
            // Stopped (Ctrl-Z, SIGSTOP) and continued while it ran: its
            // times hold the pause.
            report.continued = continued.load(std::sync::atomic::Ordering::SeqCst);
            report
        });
    match result {
        Ok(report) => {
            let json = serde_json::to_string(&report).expect("a report always serialises");
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{json}").and_then(|_| out.flush()).is_err() {
                return 1;
            }
            0
        }
        Err(e) => {
            eprintln!("{e}");
            if matches!(e, Error::DiskFull(_)) {
                DISK_FULL_EXIT
            } else {
                1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::OpenSync;
    use std::os::unix::io::AsRawFd;

    /// The file status flags the kernel holds for `file`.
    fn status_flags(file: &File) -> libc::c_int {
        // SAFETY: F_GETFL on a descriptor this test owns.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) }
    }

    #[test]
    fn a_write_target_is_opened_with_its_cases_open_sync_flag() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("faultline-test.data");
        std::fs::write(&path, b"").unwrap();
        // O_SYNC includes O_DSYNC's bit, so test the exact pair.
        let sync_bits = libc::O_SYNC | libc::O_DSYNC;
        for (open_sync, want) in [
            (None, 0),
            (Some(OpenSync::None), 0),
            (Some(OpenSync::Dsync), libc::O_DSYNC),
            (Some(OpenSync::Sync), libc::O_SYNC),
        ] {
            let file = open_for_writing(&path, open_sync).unwrap();
            assert_eq!(status_flags(&file) & sync_bits, want, "{open_sync:?}");
        }
    }
}
