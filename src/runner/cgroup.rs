//! A trial's cgroups: created with the case's memory budget and device
//! rate before the trial child starts, joined by the child alone, and
//! removed when the trial ends ([`Drop`], so also on an error or a stop).
//! `faultline clean` removes any left behind by a faultline that was killed
//! ([`clean_stale`]).
//!
//! With cgroup v2 one directory holds both limits (`memory.max`, `io.max`);
//! with v1 (or v2 memory beside v1 blkio) each controller's hierarchy has a
//! directory of its own, and the child joins each.
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::plan::device_rate::{self, DeviceRate};
use crate::plan::memory_budget::{probe, BudgetKind, MemoryBudget};
use crate::plan::Case;

/// The prefix of every cgroup faultline creates.
pub const CGROUP_PREFIX: &str = "faultline-";

/// One trial's cgroups: created with their limits, removed when dropped.
#[derive(Debug)]
pub struct TrialCgroup {
    /// Every directory the child joins (one per hierarchy), in the order made.
    dirs: Vec<PathBuf>,
    /// The directory holding the memory limit, and how it limits.
    memory: Option<(PathBuf, BudgetKind)>,
}

/// A new, unique cgroup name: `faultline-<pid>-<n>`.
fn unique_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{CGROUP_PREFIX}{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl TrialCgroup {
    /// The cgroups `case`'s trial runs in, reading `path`: its memory budget
    /// ([`TrialCgroup::for_case`]) and its device rate (throttling the disk
    /// holding `path`); `None` when the case asks for neither.
    pub fn for_case(case: &Case, path: &Path) -> Result<Option<TrialCgroup>> {
        let budget = case.memory_budget.filter(|b| b.kind.uses_cgroup());
        if budget.is_none() && case.device_rate.is_none() {
            return Ok(None);
        }
        let name = unique_name();
        let mut group = TrialCgroup {
            dirs: Vec::new(),
            memory: None,
        };
        if let Some(budget) = budget {
            group.add_memory(&budget, &name)?;
        }
        if let Some(rate) = case.device_rate {
            group.add_throttle(&rate, path, &name)?;
        }
        Ok(Some(group))
    }

    /// Makes (or reuses) the directory `name` under `parent`; it is removed
    /// on drop from then on.
    fn dir_in(&mut self, parent: &Path, name: &str) -> Result<PathBuf> {
        let dir = parent.join(name);
        if self.dirs.contains(&dir) {
            return Ok(dir);
        }
        std::fs::create_dir(&dir).map_err(|e| Error::io("create cgroup", &dir, e))?;
        self.dirs.push(dir.clone());
        Ok(dir)
    }

    /// Adds the memory limit of `budget`.
    fn add_memory(&mut self, budget: &MemoryBudget, name: &str) -> Result<()> {
        let probe = probe();
        let (parent, limit_file) = match budget.kind {
            BudgetKind::CgroupV2MemoryMax => (probe.v2_parent, "memory.max"),
            _ => (probe.v1_parent, "memory.limit_in_bytes"),
        };
        let parent = parent.ok_or_else(|| {
            Error::Trial(format!(
                "the case asks for a {} budget and this process may not create one (run as root?)",
                budget.kind.describe()
            ))
        })?;
        let dir = self.dir_in(&parent, name)?;
        let path = dir.join(limit_file);
        std::fs::write(&path, budget.limit_bytes.to_string())
            .map_err(|e| Error::io("set the memory limit in", &path, e))?;
        self.memory = Some((dir, budget.kind));
        Ok(())
    }

    /// Adds the throttle of `rate` on the disk holding `path`.
    fn add_throttle(&mut self, rate: &DeviceRate, path: &Path, name: &str) -> Result<()> {
        let device = device_rate::device_of(path)?;
        let probe = device_rate::probe();
        let parent = probe.parent(rate.kind).map(Path::to_path_buf).ok_or_else(|| {
            Error::Trial(format!(
                "the case asks for a device rate by {} and this process may not create one (run as root?)",
                rate.kind.describe()
            ))
        })?;
        // A v2 memory cgroup is a child of the same directory: one cgroup
        // holds both limits.
        let dir = self.dir_in(&parent, name)?;
        for (file, line) in device_rate::limit_lines(rate, device) {
            let path = dir.join(file);
            std::fs::write(&path, &line)
                .map_err(|e| Error::io("set the device rate in", &path, e))?;
        }
        Ok(())
    }

    /// Moves process `pid` into the cgroups.
    pub fn add(&self, pid: u32) -> Result<()> {
        for dir in &self.dirs {
            let path = dir.join("cgroup.procs");
            std::fs::write(&path, pid.to_string()).map_err(|e| Error::io("join", &path, e))?;
        }
        Ok(())
    }

    /// The cgroup's directories, one per hierarchy.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Whether it limits memory (a memory budget).
    pub fn limits_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// The file holding the memory charged to the cgroup now; `None`
    /// without a memory budget.
    pub fn usage_file(&self) -> Option<PathBuf> {
        let (dir, kind) = self.memory.as_ref()?;
        Some(dir.join(usage_file_name(*kind)))
    }
}

/// The name of the file holding a cgroup's current memory charge.
pub fn usage_file_name(kind: BudgetKind) -> &'static str {
    match kind {
        BudgetKind::CgroupV2MemoryMax => "memory.current",
        _ => "memory.usage_in_bytes",
    }
}

impl Drop for TrialCgroup {
    fn drop(&mut self) {
        // The child has exited, so the cgroup has no tasks; its page cache is
        // handed to the parent cgroup by the kernel. Retried briefly: the
        // kernel may still be finishing the exit.
        'dirs: for dir in &self.dirs {
            for _ in 0..50 {
                if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                    continue 'dirs;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            eprintln!(
                "warning: could not remove cgroup {}; `faultline clean` removes it",
                dir.display()
            );
        }
    }
}

/// Removes cgroups a killed faultline left behind (empty `faultline-*`
/// children of this process's cgroups whose creator is no longer running);
/// returns the directories removed.
pub fn clean_stale() -> Vec<PathBuf> {
    let (memory, io) = (probe(), device_rate::probe());
    let mut parents: Vec<PathBuf> = [
        memory.v2_parent,
        memory.v1_parent,
        io.v2_parent,
        io.v1_parent,
    ]
    .into_iter()
    .flatten()
    .collect();
    parents.sort();
    parents.dedup();
    let mut removed = Vec::new();
    for parent in parents {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name
                .strip_prefix(CGROUP_PREFIX)
                .and_then(|rest| rest.split('-').next())
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            let alive = Path::new(&format!("/proc/{pid}")).exists();
            if !alive && std::fs::remove_dir(entry.path()).is_ok() {
                removed.push(entry.path());
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_without_limits_gets_no_cgroup() {
        let case = Case::default();
        assert!(TrialCgroup::for_case(&case, Path::new("/"))
            .unwrap()
            .is_none());
    }
}
