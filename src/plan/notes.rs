//! Warnings a plan carries about itself, derived from its cases (so a
//! resumed run gives them too): a memory budget that cannot bite, and a
//! trace whose writes the read methods skip. The session prints them and
//! records them with the run's other warnings.
use std::collections::BTreeSet;

use super::Plan;

/// The plan's warnings, each one line, each once.
pub fn warnings(plan: &Plan) -> Vec<String> {
    let mut out = BTreeSet::new();
    for case in &plan.cases {
        if let Some(b) = case.memory_budget.filter(|b| b.kind.uses_cgroup()) {
            if b.limit_bytes >= case.file_size {
                out.insert(format!(
                    "memory budget {} is not smaller than the {} file: every page fits, so the \
                     budget has no effect on it",
                    crate::size::format_size(b.limit_bytes),
                    crate::size::format_size(case.file_size)
                ));
            }
        }
        if let Some(t) = &case.trace {
            if !case.method.writes() && t.writes > 0 {
                out.insert(format!(
                    "the trace {} has {} writes ({}): read methods skip them (a write method \
                     with --target overwrite replays them)",
                    t.name(),
                    t.writes,
                    crate::size::format_size(t.write_bytes)
                ));
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::plan::memory_budget::{BudgetKind, MemoryBudget};

    #[test]
    fn a_budget_as_large_as_the_file_is_a_warning_once() {
        let mut case = crate::fixtures::case(MethodKind::Pread);
        (case.block_size, case.file_size) = (4096, 1 << 20);
        case.memory_budget = Some(MemoryBudget {
            kind: BudgetKind::CgroupV1MemoryLimit,
            limit_bytes: 1 << 20,
        });
        let mut other = case.clone();
        other.method = MethodKind::Mmap;
        let plan = Plan {
            cases: vec![case.clone(), other],
            runs: 1,
            warmup: 0,
            order: Default::default(),
            metric: Default::default(),
            seed: 1,
        };
        let w = warnings(&plan);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("no effect"), "{}", w[0]);
        let mut smaller = plan.clone();
        for c in &mut smaller.cases {
            c.file_size = 2 << 20;
        }
        assert!(warnings(&smaller).is_empty());
    }
}
