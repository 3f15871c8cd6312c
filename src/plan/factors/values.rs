//! The values each factor takes when its list is empty or shaped by
//! others: the (pattern, block) pairs, the default workloads, the scale
//! factors and the thread choices. The expansion's stages read them, and
//! so do the refusals of lists that cannot run.
use super::Factors;
use crate::pattern::Pattern;
use crate::plan::Threads;
use crate::workload::{ScaleFactor, WorkloadKind};

/// `values`, or `default` alone when none was given.
pub(super) fn or_default<T: Copy>(values: &[T], default: T) -> Vec<T> {
    if values.is_empty() {
        vec![default]
    } else {
        values.to_vec()
    }
}

impl Factors {
    /// (pattern, block) pairs: the product of the lists, or the defaults. A
    /// trace's block is its longest read (set again per method, once known:
    /// a write method's is its longest write).
    pub(super) fn pattern_blocks(&self) -> Vec<(Pattern, u64)> {
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
    pub(super) fn workloads(&self) -> Vec<WorkloadKind> {
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
    pub(super) fn scale_factors(&self) -> Vec<ScaleFactor> {
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
    pub(super) fn thread_choices(&self) -> Vec<Option<Threads>> {
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
}
