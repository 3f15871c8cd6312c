//! The memory and the file descriptors a plan's flags ask for, checked
//! against this machine and this process's limits before the first trial
//! (and by `--dry-run`, with the same refusal).
//!
//! Every flag is legal alone; together they can ask for more than the
//! machine has: `--threads 1024 --block 64M --thread-mode replicate` gives
//! each of 1024 threads a 64 MiB buffer, 64 GiB in all; `--workload scale
//! --factor=-100000` enlarges an image 10^10 times. Such a plan would fail
//! every trial (or make the kernel's OOM killer pick a process), so it is
//! refused up front, naming the flags and the limit:
//!
//! - memory: the buffers of every thread of every process of one trial
//!   (blocks × `--iov` or `--depth`, plus `--stdio-buffer`), and a scale
//!   trial's input and output images, against MemAvailable, this process's
//!   cgroup `memory.max` and `RLIMIT_AS` / `RLIMIT_DATA` (per process);
//! - file descriptors: a trial's threads each open the file (and an
//!   io_uring ring, and a profiler event), against `RLIMIT_NOFILE`, whose
//!   soft limit is raised to the hard one when that is enough.
//!
//! The figures are lower bounds of what the trials allocate (the mapping of
//! the file is page cache, not counted); a trial that still runs out of
//! memory is reported as such by the runner.
use crate::error::{Error, Result};
use crate::method::MethodKind;
use crate::plan::{Case, Plan, ThreadMode};
use crate::size::format_size;

/// File descriptors a trial (or the runner) holds besides its threads':
/// standard streams, the journal, locks, pipes to its child, /proc files.
const BASE_FDS: u64 = 64;

/// What one trial of `case` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// Bytes of buffers and images in one process of the trial.
    pub per_process: u128,
    /// The same over all of the trial's processes.
    pub per_trial: u128,
    /// File descriptors one process of the trial holds.
    pub fds: u64,
}

/// What a thread's method allocates: its block buffer, times the blocks
/// in flight (`--iov`, `--depth`), plus a buffered reader's capacity.
fn thread_buffers(case: &Case) -> u128 {
    let block = u128::from(case.block_size);
    let method = case.method;
    let copies = match method {
        MethodKind::Mmap => 0,
        MethodKind::MmapWrite => 0,
        MethodKind::Preadv => u128::from(case.io.iov.unwrap_or(1)),
        m if m.uses_uring() => u128::from(case.io.depth.unwrap_or(1)),
        _ => 1,
    };
    let stdio = match method {
        MethodKind::Stdio => u128::from(case.io.stdio_buffer.unwrap_or(8192)),
        _ => 0,
    };
    block * copies + stdio
}

/// A scale trial's images: the one read and the one made (k² times larger
/// when it enlarges by k).
fn scale_images(case: &Case) -> u128 {
    let Some(factor) = case.scale else {
        return 0;
    };
    let input = u128::from(case.file_size);
    let k = u128::from(factor.factor().max(1));
    let output = match factor {
        crate::workload::ScaleFactor::Enlarge(_) => input * k * k,
        crate::workload::ScaleFactor::Reduce(_) => input / (k * k) + 1,
    };
    input + output
}

/// What one trial of `case` asks for (see the module docs).
pub fn need(case: &Case) -> Need {
    let threads = u128::from(case.threads.map_or(1, |t| t.count.max(1)));
    let procs = u128::from(case.procs.unwrap_or(1).max(1));
    let workload = match case.threads.map(|t| t.mode) {
        // Each thread runs the whole workload: each scales its own image.
        Some(ThreadMode::Replicate) => scale_images(case) * threads,
        _ => scale_images(case),
    };
    let per_process = thread_buffers(case) * threads + workload;
    let per_thread_fds = 1 + u64::from(case.method.uses_uring()) + 1;
    Need {
        per_process,
        per_trial: per_process * procs,
        fds: BASE_FDS + per_thread_fds * threads as u64,
    }
}

/// What this machine and process allow, as [`Limits::probe`] finds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// MemAvailable, bytes.
    pub mem_available: Option<u64>,
    /// This process's cgroup `memory.max`, when it has one.
    pub cgroup_max: Option<u64>,
    /// The smaller of RLIMIT_AS and RLIMIT_DATA, when either is set.
    pub address_space: Option<u64>,
    /// RLIMIT_NOFILE: (soft, hard).
    pub files: Option<(u64, u64)>,
}

impl Limits {
    /// Reads the machine's and this process's limits.
    pub fn probe() -> Limits {
        use nix::sys::resource::{getrlimit, Resource, RLIM_INFINITY};
        let limit = |r| {
            getrlimit(r)
                .ok()
                .map(|(soft, _)| soft)
                .filter(|&s| s != RLIM_INFINITY)
        };
        let address_space = [limit(Resource::RLIMIT_AS), limit(Resource::RLIMIT_DATA)]
            .into_iter()
            .flatten()
            .min();
        Limits {
            mem_available: std::fs::read_to_string("/proc/meminfo")
                .ok()
                .and_then(|t| super::memory_budget::parse_mem_available(&t)),
            cgroup_max: own_cgroup_max(),
            address_space,
            files: getrlimit(Resource::RLIMIT_NOFILE).ok(),
        }
    }
}

/// The memory limit of the cgroup this process is in: cgroup v1's
/// `memory.limit_in_bytes` of its memory cgroup, else cgroup v2's
/// `memory.max`, when it is a number that limits anything.
fn own_cgroup_max() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let root = std::path::Path::new("/sys/fs/cgroup");
    let v1 = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == "memory").then(|| {
            root.join("memory")
                .join(path.trim_start_matches('/'))
                .join("memory.limit_in_bytes")
        })
    });
    let v2 = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(|p| root.join(p.trim_start_matches('/')).join("memory.max"));
    [v1, v2]
        .into_iter()
        .flatten()
        .filter_map(|file| {
            std::fs::read_to_string(file)
                .ok()?
                .trim()
                .parse::<u64>()
                .ok()
        })
        // cgroup v1 writes "no limit" as a number near 2^63.
        .find(|&limit| limit < 1 << 62)
}

/// The flags that set a case's memory, as the user would name them.
fn flags_of(case: &Case) -> String {
    let mut parts = Vec::new();
    if let Some(t) = case.threads {
        let mode = match t.mode {
            ThreadMode::Split => "split",
            ThreadMode::Replicate => "replicate",
        };
        parts.push(format!("--threads {} (--thread-mode {mode})", t.count));
    }
    if let Some(p) = case.procs {
        parts.push(format!("--procs {p}"));
    }
    parts.push(format!("--block {}", format_size(case.block_size)));
    match case.method {
        MethodKind::Preadv => parts.push(format!("--iov {}", case.io.iov.unwrap_or(1))),
        m if m.uses_uring() => parts.push(format!("--depth {}", case.io.depth.unwrap_or(1))),
        _ => {}
    }
    if let Some(f) = case.scale {
        parts.push(format!(
            "--workload scale --factor {} on a {} image",
            f,
            format_size(case.file_size)
        ));
    }
    parts.join(" × ")
}

/// Bytes, as [`format_size`] writes them, past 16 EiB too.
pub fn format_wide(bytes: u128) -> String {
    match u64::try_from(bytes) {
        Ok(b) => format_size(b),
        Err(_) => format!("{:.3e} bytes", bytes as f64),
    }
}

/// Refuses a plan whose trials ask for more memory or file descriptors
/// than `limits` allow (see the module docs). Raises the soft limit of
/// open files to what the plan needs, when the hard limit allows it.
pub fn check(plan: &Plan, limits: &Limits) -> Result<()> {
    let Some(case) = plan.cases.iter().max_by_key(|c| need(c).per_trial) else {
        return Ok(());
    };
    let n = need(case);
    let memory = [
        (
            limits.mem_available.map(u128::from),
            "memory available (MemAvailable)",
            n.per_trial,
        ),
        (
            limits.cgroup_max.map(u128::from),
            "memory.max of faultline's cgroup",
            n.per_trial,
        ),
        (
            limits.address_space.map(u128::from),
            "per-process limit (ulimit -v / RLIMIT_AS, RLIMIT_DATA)",
            n.per_process,
        ),
    ];
    for (limit, what, asked) in memory {
        if let Some(limit) = limit.filter(|&l| asked > l) {
            return Err(Error::Plan(format!(
                "{} ({}) asks for {} of buffers and images per trial, more than the {} of {what}; \
                 ask for less (fewer threads or processes, a smaller block, --iov or --depth)",
                case.method_label(),
                flags_of(case),
                format_wide(asked),
                format_wide(limit),
            )));
        }
    }
    let fds = plan
        .cases
        .iter()
        .map(|c| need(c).fds)
        .max()
        .unwrap_or(BASE_FDS);
    if let Some((soft, hard)) = limits.files {
        if fds > hard {
            return Err(Error::Plan(format!(
                "a trial of these flags opens about {fds} files, and this process may open only {hard} (ulimit -n); \
                 raise the limit, or use fewer --threads"
            )));
        }
        if fds > soft {
            use nix::sys::resource::{setrlimit, Resource};
            setrlimit(Resource::RLIMIT_NOFILE, fds, hard).map_err(|e| {
                Error::Plan(format!(
                    "a trial of these flags opens about {fds} files, above the {soft} this process may open (ulimit -n), and raising it failed: {e}"
                ))
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Threads;

    fn case(method: MethodKind, block: u64) -> Case {
        let mut c = crate::fixtures::case(method);
        c.block_size = block;
        c.file_size = 1 << 30;
        c
    }

    #[test]
    fn threads_processes_and_blocks_multiply_and_a_machine_too_small_refuses() {
        let mut c = case(MethodKind::Read, 64 << 20);
        c.threads = Some(Threads {
            count: 1024,
            mode: ThreadMode::Replicate,
        });
        assert_eq!(need(&c).per_trial, 64 << 30);
        let plan = Plan {
            cases: vec![c.clone()],
            runs: 2,
            warmup: 0,
            order: crate::plan::OrderPolicy::Alternating,
            metric: crate::plan::Metric::Total,
            seed: 1,
        };
        let small = Limits {
            mem_available: Some(24 << 30),
            ..Limits::default()
        };
        let e = check(&plan, &small).unwrap_err().to_string();
        assert!(
            e.contains("--threads 1024 (--thread-mode replicate) × --block 64 MiB"),
            "{e}"
        );
        assert!(
            e.contains("asks for 64 GiB") && e.contains("24 GiB of memory available"),
            "{e}"
        );
        let big = Limits {
            mem_available: Some(128 << 30),
            ..Limits::default()
        };
        check(&plan, &big).unwrap();
        let mut u = case(MethodKind::Uring, 1 << 20);
        u.io.depth = Some(256);
        u.procs = Some(64);
        assert_eq!(need(&u).per_trial, 256u128 << 26);
        let files = Limits {
            files: Some((8, 8)),
            ..Limits::default()
        };
        let e = check(&plan, &files).unwrap_err().to_string();
        assert!(e.contains("may open only 8 (ulimit -n)"), "{e}");
    }

    #[test]
    fn an_enlarging_scale_counts_its_output_image() {
        let mut c = case(MethodKind::Read, 3 << 20);
        c.file_size = 3 << 20;
        c.scale = Some(crate::workload::ScaleFactor::Enlarge(100_000));
        assert!(need(&c).per_process > 3 << 20 << 33);
    }
}
