//! Memory budgets: how a trial's data is made larger than the memory the
//! page cache may use (the `crotty2022` preset).
//!
//! Three ways, tried in this order by [`select`]:
//!
//! 1. **cgroup v2**: a child of faultline's own cgroup with `memory.max`,
//!    when a cgroup2 hierarchy has the memory controller enabled for children
//!    (`memory` in `cgroup.subtree_control`) and faultline may create one.
//! 2. **cgroup v1**: a child of faultline's own memory cgroup with
//!    `memory.limit_in_bytes` (it limits the page cache charged to the tasks
//!    in it), when the v1 memory controller is mounted and writable.
//! 3. **A file larger than memory**: no cgroup; the user's `--size` must
//!    exceed MemAvailable.
//!
//! Otherwise faultline refuses with one line saying what to do.
//!
//! Only the trial child joins the cgroup ([`crate::runner::cgroup::TrialCgroup::add`], before it is
//! sent its spec, so before it reads anything). Each trial gets its own
//! cgroup with a unique name (`faultline-<pid>-<n>`), removed when the trial
//! ends, by [`Drop`], so also on an error or a stop. `faultline clean`
//! removes any left behind by a faultline that was killed ([`crate::runner::cgroup::clean_stale`]).
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How a case's memory budget is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetKind {
    /// A cgroup v2 child with `memory.max`.
    CgroupV2MemoryMax,
    /// A cgroup v1 memory-controller child with `memory.limit_in_bytes`.
    CgroupV1MemoryLimit,
    /// No cgroup: the file is larger than MemAvailable was when planned.
    FileLargerThanMemory,
}

impl BudgetKind {
    /// How it reads in a table or a note.
    pub fn describe(self) -> &'static str {
        match self {
            BudgetKind::CgroupV2MemoryMax => "cgroup v2 memory.max",
            BudgetKind::CgroupV1MemoryLimit => "cgroup v1 memory.limit_in_bytes",
            BudgetKind::FileLargerThanMemory => "file larger than MemAvailable (no cgroup)",
        }
    }

    /// Whether the trial child runs in a cgroup of its own.
    pub fn uses_cgroup(self) -> bool {
        !matches!(self, BudgetKind::FileLargerThanMemory)
    }
}

/// The memory a case's trials may fill with page cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MemoryBudget {
    /// How it is enforced.
    pub kind: BudgetKind,
    /// The limit, bytes (for a file larger than memory: MemAvailable when planned).
    pub limit_bytes: u64,
}

impl std::fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {}",
            self.kind.describe(),
            crate::size::format_size(self.limit_bytes)
        )
    }
}

/// What this machine offers, as [`probe`] finds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The cgroup v2 directory faultline may create a memory-limited child in.
    pub v2_parent: Option<PathBuf>,
    /// The cgroup v1 memory directory faultline may create a child in.
    pub v1_parent: Option<PathBuf>,
    /// MemAvailable, bytes.
    pub mem_available: Option<u64>,
}

/// The budget chosen and the file size it goes with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The budget.
    pub budget: MemoryBudget,
    /// The file size the trials read.
    pub file_size: u64,
}

/// Chooses the budget: a cgroup (v2, then v1) limiting the page cache to
/// `limit` with a file of `size` (the user's `--size`, else `default_size`),
/// else a file larger than MemAvailable (only the user's `--size`), else a
/// refusal saying what to do. Pure: [`probe`] reads the machine.
pub fn select(
    probe: &Probe,
    limit: u64,
    default_size: u64,
    size: Option<u64>,
) -> Result<Selection> {
    let cgroup = if probe.v2_parent.is_some() {
        Some(BudgetKind::CgroupV2MemoryMax)
    } else if probe.v1_parent.is_some() {
        Some(BudgetKind::CgroupV1MemoryLimit)
    } else {
        None
    };
    if let Some(kind) = cgroup {
        let file_size = size.unwrap_or(default_size);
        if file_size <= limit {
            return Err(Error::Plan(format!(
                "--size {} is not larger than the {} page-cache budget; give a larger --size",
                crate::size::format_size(file_size),
                crate::size::format_size(limit)
            )));
        }
        return Ok(Selection {
            budget: MemoryBudget {
                kind,
                limit_bytes: limit,
            },
            file_size,
        });
    }
    let available = probe.mem_available.unwrap_or(u64::MAX);
    match size {
        Some(s) if s > available => Ok(Selection {
            budget: MemoryBudget {
                kind: BudgetKind::FileLargerThanMemory,
                limit_bytes: available,
            },
            file_size: s,
        }),
        _ => Err(Error::Plan(format!(
            "no memory cgroup faultline may create here (needs root and a cgroup memory controller), \
             so the file must be larger than memory: pass --size larger than MemAvailable ({}), or run as root",
            probe
                .mem_available
                .map_or("unknown".to_string(), crate::size::format_size)
        ))),
    }
}

/// Smallest `--memory-budget`: below it the trial's own memory (its binary,
/// buffers and page tables, all charged to the same cgroup: 8-10 MiB of
/// resident memory for a pread trial) crowds out the page cache, and the
/// kernel may kill the trial. At 16 MiB, cgroup v1 killed one cold trial of
/// two threads reading 1 MiB blocks in two of four runs; at 32 MiB, none.
pub const MIN_RUN_BUDGET: u64 = 32 << 20;

/// The budget of `run --memory-budget SIZE`: a memory cgroup, v2 when this
/// machine offers one faultline may create, else v1; a refusal in one line
/// when neither (not root, or no memory controller). A budget not smaller
/// than a file is allowed, with a warning ([`crate::plan::notes`]). Pure:
/// [`probe`] reads the machine.
pub fn for_run(probe: &Probe, limit: u64) -> Result<MemoryBudget> {
    if limit < MIN_RUN_BUDGET {
        return Err(Error::Plan(format!(
            "--memory-budget {} is below the {} minimum: the trial's own memory is charged to \
             the same cgroup",
            crate::size::format_size(limit),
            crate::size::format_size(MIN_RUN_BUDGET)
        )));
    }
    let kind = if probe.v2_parent.is_some() {
        BudgetKind::CgroupV2MemoryMax
    } else if probe.v1_parent.is_some() {
        BudgetKind::CgroupV1MemoryLimit
    } else {
        return Err(Error::Plan(
            "--memory-budget runs each trial in a memory cgroup, and this process may not create \
             one: run as root (it needs a cgroup v2 hierarchy with the memory controller, or the \
             v1 memory hierarchy)"
                .into(),
        ));
    };
    Ok(MemoryBudget {
        kind,
        limit_bytes: limit,
    })
}

/// Reads what this machine offers (nothing is created or changed).
pub fn probe() -> Probe {
    let dirs = own_dirs();
    let v2_parent = dirs.v2.filter(|dir| {
        std::fs::read_to_string(dir.join("cgroup.subtree_control"))
            .is_ok_and(|s| s.split_whitespace().any(|c| c == "memory"))
            && writable(dir)
    });
    let v1_parent = dirs
        .v1_memory
        .filter(|dir| dir.join("memory.limit_in_bytes").exists() && writable(dir));
    Probe {
        v2_parent,
        v1_parent,
        mem_available: std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| parse_mem_available(&t)),
    }
}

/// This process's own cgroup directories, where mounted (whether a
/// controller is enabled there is the caller's to check).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnDirs {
    /// Its cgroup v2 directory.
    pub v2: Option<PathBuf>,
    /// Its cgroup v1 memory directory.
    pub v1_memory: Option<PathBuf>,
    /// Its cgroup v1 blkio directory.
    pub v1_blkio: Option<PathBuf>,
}

/// Reads this process's cgroup directories from /proc (nothing is changed).
pub fn own_dirs() -> OwnDirs {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mounts = parse_cgroup_mounts(&mounts);
    OwnDirs {
        v2: own_dir(&mounts, &own, Hierarchy::V2),
        v1_memory: own_dir(&mounts, &own, Hierarchy::V1Memory),
        v1_blkio: own_dir(&mounts, &own, Hierarchy::V1Blkio),
    }
}

/// MemAvailable from /proc/meminfo text, bytes.
pub fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A cgroup hierarchy faultline can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hierarchy {
    V2,
    V1Memory,
    V1Blkio,
}

/// (hierarchy, mount point) of the cgroup2 mounts and the v1 mounts with the
/// memory or the blkio controller, from /proc/self/mountinfo text.
fn parse_cgroup_mounts(text: &str) -> Vec<(Hierarchy, PathBuf)> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let sep = fields.iter().position(|f| *f == "-")?;
            let mount = PathBuf::from(fields.get(4)?);
            match *fields.get(sep + 1)? {
                "cgroup2" => Some((Hierarchy::V2, mount)),
                "cgroup" => {
                    let options = fields.get(sep + 3)?;
                    if options.split(',').any(|o| o == "memory") {
                        Some((Hierarchy::V1Memory, mount))
                    } else if options.split(',').any(|o| o == "blkio") {
                        Some((Hierarchy::V1Blkio, mount))
                    } else {
                        None
                    }
                }
                _ => None,
            }
        })
        .collect()
}

/// This process's cgroup directory in `hierarchy`, from the mounts and
/// /proc/self/cgroup text (`0::/path` for v2, `N:...memory...:/path` for v1).
fn own_dir(mounts: &[(Hierarchy, PathBuf)], own: &str, hierarchy: Hierarchy) -> Option<PathBuf> {
    let (_, mount) = mounts.iter().find(|(h, _)| *h == hierarchy)?;
    let path = own.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = match hierarchy {
            Hierarchy::V2 => id == "0" && controllers.is_empty(),
            Hierarchy::V1Memory => controllers.split(',').any(|c| c == "memory"),
            Hierarchy::V1Blkio => controllers.split(',').any(|c| c == "blkio"),
        };
        matches.then(|| path.to_string())
    })?;
    Some(mount.join(path.trim_start_matches('/')))
}

/// Whether this process may create entries in `dir`.
pub(crate) fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path; faccessat only checks.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn probe(v2: bool, v1: bool, available: u64) -> Probe {
        Probe {
            v2_parent: v2.then(|| PathBuf::from("/sys/fs/cgroup/user")),
            v1_parent: v1.then(|| PathBuf::from("/sys/fs/cgroup/memory/user")),
            mem_available: Some(available),
        }
    }

    #[test]
    fn budget_selection_prefers_v2_then_v1_then_a_larger_file() {
        let s = select(&probe(true, true, 1 << 30), 64 * MIB, 256 * MIB, None).unwrap();
        assert_eq!(s.budget.kind, BudgetKind::CgroupV2MemoryMax);
        assert_eq!((s.budget.limit_bytes, s.file_size), (64 * MIB, 256 * MIB));
        let s = select(
            &probe(false, true, 1 << 30),
            64 * MIB,
            256 * MIB,
            Some(512 * MIB),
        )
        .unwrap();
        assert_eq!(s.budget.kind, BudgetKind::CgroupV1MemoryLimit);
        assert_eq!(s.file_size, 512 * MIB);
        // No cgroup: only a --size above MemAvailable will do.
        let s = select(
            &probe(false, false, 1 << 30),
            64 * MIB,
            256 * MIB,
            Some(2 << 30),
        )
        .unwrap();
        assert_eq!(s.budget.kind, BudgetKind::FileLargerThanMemory);
        assert_eq!((s.budget.limit_bytes, s.file_size), (1 << 30, 2 << 30));
    }

    #[test]
    fn budget_selection_refuses_clearly() {
        for size in [None, Some(512 * MIB)] {
            let err = select(&probe(false, false, 1 << 30), 64 * MIB, 256 * MIB, size)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("pass --size larger than MemAvailable (1 GiB)"),
                "{err}"
            );
            assert!(err.contains("run as root"), "{err}");
        }
        let err = select(&probe(false, true, 1 << 30), 64 * MIB, 256 * MIB, Some(MIB))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not larger than the 64 MiB"), "{err}");
    }

    #[test]
    fn a_run_budget_needs_a_cgroup() {
        let b = for_run(&probe(false, true, 1 << 30), 128 * MIB).unwrap();
        assert_eq!(b.kind, BudgetKind::CgroupV1MemoryLimit);
        assert_eq!(b.limit_bytes, 128 * MIB);
        let b = for_run(&probe(true, true, 1 << 30), 512 * MIB).unwrap();
        assert_eq!(b.kind, BudgetKind::CgroupV2MemoryMax);
        let err = for_run(&probe(false, false, 1 << 30), 128 * MIB)
            .unwrap_err()
            .to_string();
        assert!(err.contains("run as root"), "{err}");
        assert!(!err.contains('\n'));
        let err = for_run(&probe(true, false, 1 << 30), MIB)
            .unwrap_err()
            .to_string();
        assert!(err.contains("below the 32 MiB minimum"), "{err}");
    }

    #[test]
    fn finds_own_cgroup_directories() {
        let mountinfo = "\
30 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate
33 25 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
34 25 0:30 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct
35 25 0:31 / /sys/fs/cgroup/blkio rw - cgroup cgroup rw,blkio
";
        let own =
            "9:name=systemd:/\n7:blkio:/\n4:memory:/jobs/a1\n1:cpu,cpuacct:/\n0::/user.slice\n";
        let mounts = parse_cgroup_mounts(mountinfo);
        assert_eq!(mounts.len(), 3);
        assert_eq!(
            own_dir(&mounts, own, Hierarchy::V1Blkio),
            Some(PathBuf::from("/sys/fs/cgroup/blkio"))
        );
        assert_eq!(
            own_dir(&mounts, own, Hierarchy::V1Memory),
            Some(PathBuf::from("/sys/fs/cgroup/memory/jobs/a1"))
        );
        assert_eq!(
            own_dir(&mounts, own, Hierarchy::V2),
            Some(PathBuf::from("/sys/fs/cgroup/unified/user.slice"))
        );
        assert_eq!(own_dir(&mounts[..1], own, Hierarchy::V1Memory), None);
        assert_eq!(
            parse_mem_available("MemTotal: 10 kB\nMemAvailable:   2048 kB\n"),
            Some(2 << 20)
        );
    }
}
