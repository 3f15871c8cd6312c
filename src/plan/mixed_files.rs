//! The rules of two factors that change what a trial's file is: a read
//! share (`--read-share`: some operations write to the file read) and many
//! files (`--files`): which methods take them, what they do not go with,
//! each refused in one line that says what to do.
use super::factors::Factors;
use super::FileSet;
use crate::method::{MethodKind, MethodOption};
use crate::pattern::Pattern;

/// The methods that take `option`, as a list for a message.
fn taking(option: MethodOption) -> String {
    use clap::ValueEnum as _;
    MethodKind::value_variants()
        .iter()
        .filter(|m| m.takes(option))
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first of `flags` that was given.
fn first_given<'a>(flags: &[(&'a str, bool)]) -> Option<&'a str> {
    flags
        .iter()
        .find(|(_, given)| *given)
        .map(|(flag, _)| *flag)
}

impl Factors {
    /// Why the factors' read shares cannot run, if they cannot.
    pub(super) fn read_share_refusal(&self) -> Option<String> {
        if self.read_shares.is_empty() {
            return None;
        }
        if let Some(m) = self
            .methods
            .iter()
            .find(|m| !m.takes(MethodOption::ReadShare))
        {
            return Some(format!(
                "--read-share is for {} (each then writes to the file it reads: read+write, \
                 pread+pwrite, loads and stores through one MAP_SHARED mapping); {m} does not take it",
                taking(MethodOption::ReadShare)
            ));
        }
        if self.user_file {
            return Some(
                "--read-share writes to the file it reads, and faultline never writes a file it did \
                 not create: leave --file out (the generated file is copied into the scratch directory)"
                    .into(),
            );
        }
        if self.patterns.contains(&Pattern::Chase) || self.trace.is_some() {
            return Some(
                "--read-share mixes writes into a generated order: not with --pattern chase or --trace"
                    .into(),
            );
        }
        if self.shares.contains(&crate::method::Share::Private) {
            return Some(
                "--read-share stores through a MAP_SHARED mapping: leave --share private out"
                    .into(),
            );
        }
        let other = [
            ("--files", self.file_set.is_some()),
            ("--threads", self.threads.iter().any(|&t| t > 1)),
            ("--procs", self.procs.is_some_and(|n| n > 1)),
            ("--duration", self.duration_s.is_some()),
            ("--fadvise", !self.fadvises.is_empty()),
            ("--workload scale", self.scales()),
        ];
        first_given(&other).map(|flag| {
            format!("--read-share mixes reads and writes in one thread's pass over one file; not with {flag}")
        })
    }

    /// Why the factors' file set cannot run, if it cannot.
    pub(super) fn files_refusal(&self) -> Option<String> {
        let Some(set) = self.file_set else {
            if self.file_size_given {
                return Some(
                    "--file-size is the size of each of --files N files; give --files".into(),
                );
            }
            return None;
        };
        if let Some(m) = self.methods.iter().find(|m| !m.takes(MethodOption::Files)) {
            return Some(format!(
                "--files is for {} (each file opened, read and closed, or mapped, read and unmapped, \
                 in the main loop); {m} does not take it",
                taking(MethodOption::Files)
            ));
        }
        if self.user_file || self.sizes_given {
            return Some(
                "--files generates its own files: give each one's size with --file-size (4k, or a range 4k..64k), not --file or --size"
                    .into(),
            );
        }
        if let Some(p) = self
            .patterns
            .iter()
            .find(|&&p| p != Pattern::Seq && p != Pattern::Random)
        {
            return Some(format!(
                "--files visits its files in order (seq) or shuffled (random), each read from start to end; --pattern {p} is not one of them"
            ));
        }
        let other = [
            ("--trace", self.trace.is_some()),
            ("--threads", self.threads.iter().any(|&t| t > 1)),
            ("--procs", self.procs.is_some_and(|n| n > 1)),
            ("--duration", self.duration_s.is_some()),
            ("--rate", !self.rates.is_empty()),
            ("--think-time", !self.think_ns.is_empty()),
            ("--latency", self.latency.contains(&true)),
            ("--workload scale", self.scales()),
            ("--memory-budget", self.memory_budget.is_some()),
        ];
        if let Some(flag) = first_given(&other) {
            return Some(format!(
                "--files reads its files one after another in one thread; not with {flag}"
            ));
        }
        let total = set.total(self.seed);
        if total > super::file_set::MAX_SET_BYTES {
            return Some(format!(
                "--files {} of {} hold {} in all, more than the {} a set may hold; ask for fewer or smaller files",
                set.count,
                set.size_label(),
                crate::size::format_size(total),
                crate::size::format_size(super::file_set::MAX_SET_BYTES)
            ));
        }
        None
    }

    /// The file sizes a plan of `f` runs over: the set's total for `--files`,
    /// else `given`.
    pub(super) fn file_sizes(&self, given: &[u64]) -> Vec<u64> {
        match self.file_set {
            Some(set) => vec![set.total(self.seed)],
            None => given.to_vec(),
        }
    }

    /// The set each case reads, for the plan's cases.
    pub(super) fn set_of(&self) -> Option<FileSet> {
        self.file_set
    }
}
