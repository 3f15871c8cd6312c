//! The trial child: runs one case in a fresh process and reports what it
//! measured. The parent ([`crate::runner`]) prepares the cache first.
//!
//! Only the method's `run` is inside the main-loop clock; setup and teardown
//! have clocks of their own. Counters span setup + loop + teardown.
use std::fs::File;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::measure::{device, rusage, vmstat};
use crate::pattern::{BlockOrder, Layout};
use crate::plan::Case;
use crate::sample::ChildReport;

/// The name of the hidden subcommand that runs a trial.
pub const SUBCOMMAND: &str = "__trial";

/// What the parent sends the child on its standard input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrialSpec {
    /// The file to read.
    pub path: PathBuf,
    /// The case to run.
    pub case: Case,
}

/// The system's page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

/// Runs one trial in this process.
pub fn run_trial(spec: &TrialSpec) -> Result<ChildReport> {
    let case = &spec.case;
    let file = File::open(&spec.path).map_err(|e| Error::io("open", &spec.path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", &spec.path, e))?
        .len();
    if len != case.file_size {
        return Err(Error::Trial(format!(
            "{} is {len} bytes now, not the {} the case was planned for",
            spec.path.display(),
            case.file_size
        )));
    }
    let layout = Layout {
        file_size: case.file_size,
        block_size: case.block_size,
    };
    let order = BlockOrder::new(case.pattern, layout, case.seed)?;
    let mut workload = case.workload.build(page_size());
    let device_stat = device::stat_path(&file);
    let mut method = case
        .method
        .build_with(file, layout, case.mmap_options(), &case.io);

    // Made (and its pages touched) before anything is measured.
    let mut latency = case.latency.then(crate::latency::Recorder::new);

    let dev_before = device_stat.as_deref().and_then(device::snapshot);
    let vm_before = vmstat::snapshot().ok();
    let ru_before = rusage::snapshot();
    let t0 = Instant::now();
    method.setup().map_err(|e| on_filesystem(e, &spec.path))?;
    let t1 = Instant::now();
    let counts = crate::latency::run_main_loop(
        method.as_mut(),
        &order,
        workload.as_mut(),
        latency.as_mut(),
    )?;
    let t2 = Instant::now();
    method.teardown()?;
    let t3 = Instant::now();
    let ru_after = rusage::snapshot();
    let vm_after = vmstat::snapshot().ok();
    let dev_after = device_stat.as_deref().and_then(device::snapshot);

    let checksum = std::hint::black_box(workload.checksum());
    let expected = order.bytes(layout);
    if counts.bytes != expected {
        return Err(Error::Trial(format!(
            "{} delivered {} bytes, expected {expected}",
            case.method, counts.bytes
        )));
    }
    Ok(ChildReport {
        wall_ns: (t2 - t1).as_nanos() as u64,
        setup_ns: (t1 - t0).as_nanos() as u64,
        teardown_ns: (t3 - t2).as_nanos() as u64,
        rusage: ru_after.delta_since(&ru_before),
        max_rss_kib: ru_after.max_rss_kib(),
        vmstat: match (vm_before, vm_after) {
            (Some(before), Some(after)) => after.delta_since(&before),
            _ => Default::default(),
        },
        device: match (dev_before, dev_after) {
            (Some(before), Some(after)) => Some(after.delta_since(&before)),
            _ => None,
        },
        bytes: counts.bytes,
        syscalls: counts.syscalls,
        checksum,
        latency: latency.and_then(|r| r.percentiles()),
    })
}

/// Adds the file system's name to a method's refusal (mmap on sysfs, say).
fn on_filesystem(error: Error, path: &std::path::Path) -> Error {
    match crate::measure::environment::filesystem_of(path) {
        Some(fs) => Error::Trial(format!("{error} (file system: {fs})")),
        // (Error::Trial displays its message alone, so nothing is doubled.)
        None => error,
    }
}

/// The child's entry point: a [`TrialSpec`] as JSON on stdin, a
/// [`ChildReport`] as JSON on stdout. Errors go to stderr as one line and the
/// exit code is 1.
pub fn child_main() -> i32 {
    let mut input = String::new();
    let result = std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Error::Trial(format!("reading the trial spec: {e}")))
        .and_then(|_| {
            serde_json::from_str::<TrialSpec>(&input)
                .map_err(|e| Error::Trial(format!("bad trial spec: {e}")))
        })
        .and_then(|spec| run_trial(&spec));
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
            1
        }
    }
}
