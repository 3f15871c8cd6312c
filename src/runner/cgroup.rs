//! A trial's memory cgroup: created with the case's budget before the trial
//! child starts, joined by the child alone, and removed when the trial ends
//! ([`Drop`], so also on an error or a stop). `faultline clean` removes any
//! left behind by a faultline that was killed ([`clean_stale`]).
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::plan::memory_budget::{probe, BudgetKind, MemoryBudget};

/// The prefix of every cgroup faultline creates.
pub const CGROUP_PREFIX: &str = "faultline-";

/// One trial's cgroup: created with its limit, removed when dropped.
#[derive(Debug)]
pub struct TrialCgroup {
    dir: PathBuf,
    kind: BudgetKind,
}

impl TrialCgroup {
    /// Creates a uniquely named cgroup limited to `budget` (`None` for a
    /// budget without a cgroup).
    pub fn create(budget: &MemoryBudget) -> Result<Option<TrialCgroup>> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        if !budget.kind.uses_cgroup() {
            return Ok(None);
        }
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
        let name = format!(
            "{CGROUP_PREFIX}{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| Error::io("create cgroup", &dir, e))?;
        let group = TrialCgroup {
            dir,
            kind: budget.kind,
        };
        let path = group.dir.join(limit_file);
        std::fs::write(&path, budget.limit_bytes.to_string())
            .map_err(|e| Error::io("set the memory limit in", &path, e))?;
        Ok(Some(group))
    }

    /// Moves process `pid` into the cgroup.
    pub fn add(&self, pid: u32) -> Result<()> {
        let path = self.dir.join("cgroup.procs");
        std::fs::write(&path, pid.to_string()).map_err(|e| Error::io("join", &path, e))
    }

    /// The cgroup's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file holding the memory charged to the cgroup now.
    pub fn usage_file(&self) -> PathBuf {
        self.dir.join(usage_file_name(self.kind))
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
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        eprintln!(
            "warning: could not remove cgroup {}; `faultline clean` removes it",
            self.dir.display()
        );
    }
}

/// Removes cgroups a killed faultline left behind (empty `faultline-*`
/// children of this process's cgroups whose creator is no longer running);
/// returns the directories removed.
pub fn clean_stale() -> Vec<PathBuf> {
    let probe = probe();
    let mut removed = Vec::new();
    for parent in [probe.v2_parent, probe.v1_parent].into_iter().flatten() {
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
