//! The expansion of [`Factors`] into cases, as one ordered list of steps,
//! [`STEPS`]: each factor's rule is one entry, named after the factor
//! table's entry ([`crate::plan::factor_table::FACTORS`]) for the fields it
//! sets.
//!
//! A [`Stage`] replaces each case by one case per value of its factor, in
//! order, exactly as nested loops would (the first stage is the outermost
//! loop, so the list's order is the order of the cases). A stage may give a
//! case no choice (`[None]`): the mapping options multiply only the methods
//! that declare them ([`crate::method::Spec::options`]), the write options
//! only write methods, and so on. A [`Step::Set`] gives every case a
//! run-wide value; a [`Step::Refuse`] refuses the cases so far when one
//! cannot run.
use super::values::or_default;
use super::{refusals, Factors};
use crate::error::{Error, Result};
use crate::method::{MethodOption, SyncPolicy};
use crate::pattern::trace::Ops;
use crate::pattern::Pattern;
use crate::plan::{CacheState, Case, Target, WarmBy};
use crate::workload::{ScaleUnit, WorkloadKind};

/// What the steps expand: the factors, over files of these sizes.
pub(super) struct Expansion<'a> {
    /// The lists.
    pub factors: &'a Factors,
    /// The sizes of the files the cases run on.
    pub file_sizes: &'a [u64],
}

/// One factor's expansion rule.
pub(super) struct Stage {
    /// The fields it sets, as the factor table names them (a test checks
    /// them against the table).
    #[allow(dead_code)] // read by the tests only
    pub factors: &'static [&'static str],
    /// How many values the lists give it at most: the product over the
    /// stages bounds the number of cases before any is made.
    pub given: fn(&Expansion) -> u64,
    /// The case, once per value of the factor it takes.
    pub expand: fn(&Expansion, &Case) -> Vec<Case>,
}

/// One step of the expansion.
pub(super) enum Step {
    /// Each case, once per value of a factor.
    Multiply(Stage),
    /// A run-wide factor, the same for every case: the fields it sets (as
    /// the factor table names them, checked by a test) and how.
    Set(
        #[allow(dead_code)] // read by the tests only
        &'static [&'static str],
        fn(&Expansion, &mut Case),
    ),
    /// Refuses the cases so far when one cannot run.
    Refuse(fn(&[Case]) -> Result<()>),
}

/// `case`, once for each of `values`, set on it by `set`.
fn each<T>(case: &Case, values: Vec<T>, set: impl Fn(&mut Case, T)) -> Vec<Case> {
    let mut out = Vec::with_capacity(values.len());
    for value in values {
        let mut next = case.clone();
        set(&mut next, value);
        out.push(next);
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

/// A list's length for the bound: an empty list is one value (its default).
fn n<T>(values: &[T]) -> u64 {
    values.len().max(1) as u64
}

/// Whether the case's method takes `option`.
fn takes(c: &Case, option: MethodOption) -> bool {
    c.method.takes(option)
}

/// Whether the case syncs (a write case with a sync other than none).
fn syncs(c: &Case) -> bool {
    c.sync.is_some_and(|s| s != SyncPolicy::None)
}

/// A fresh file has nothing to cache: its state is as-is.
fn fresh(c: &Case) -> bool {
    c.target == Some(Target::Fresh)
}

/// A chase has one read in flight by construction (each read needs the
/// bytes of the one before): it runs preadv one block per call and
/// io_uring at depth 1, and its cases say so.
fn one_at_a_time(c: &Case) -> bool {
    c.pattern == Pattern::Chase
}

/// The expansion, outermost loop first.
pub(super) const STEPS: &[Step] = &[
    Step::Multiply(Stage {
        factors: &["file_size"],
        given: |x| n(x.file_sizes),
        expand: |x, c| each(c, x.file_sizes.to_vec(), |c, s| c.file_size = s),
    }),
    Step::Multiply(Stage {
        factors: &["pattern", "block_size"],
        given: |x| n(&x.factors.patterns).saturating_mul(n(&x.factors.blocks)),
        expand: |x, c| {
            let pairs = if x.factors.scales() {
                // The image is one block, read in one go.
                vec![(Pattern::Seq, c.file_size)]
            } else {
                x.factors.pattern_blocks()
            };
            each(c, pairs, |c, (p, b)| (c.pattern, c.block_size) = (p, b))
        },
    }),
    Step::Multiply(Stage {
        factors: &["workload"],
        given: |x| n(&x.factors.workloads),
        expand: |x, c| each(c, x.factors.workloads(), |c, w| c.workload = w),
    }),
    Step::Multiply(Stage {
        factors: &["fill"],
        given: |x| n(&x.factors.fills),
        expand: |x, c| {
            let fills = when(c.workload.writes(), &x.factors.fills);
            each(c, fills, |c, f| c.fill = f)
        },
    }),
    Step::Multiply(Stage {
        factors: &["target"],
        given: |x| n(&x.factors.targets),
        expand: |x, c| {
            let targets = when(c.workload.writes(), &x.factors.targets);
            each(c, targets, |c, t| c.target = t)
        },
    }),
    Step::Multiply(Stage {
        factors: &["cache"],
        given: |x| n(&x.factors.caches),
        expand: |x, c| {
            let states = if fresh(c) {
                vec![CacheState::AsIs]
            } else {
                x.factors.caches.clone()
            };
            each(c, states, |c, s| c.cache = s)
        },
    }),
    Step::Multiply(Stage {
        factors: &["warm_by"],
        given: |x| n(&x.factors.warm_bys),
        expand: |x, c| {
            let ways = if fresh(c) {
                vec![WarmBy::default()]
            } else {
                x.factors.warm_bys.clone()
            };
            each(c, ways, |c, w| c.warm_by = w)
        },
    }),
    Step::Multiply(Stage {
        factors: &["method"],
        given: |x| n(&x.factors.methods),
        expand: |x, c| {
            let writes = c.workload.writes();
            let methods = x.factors.methods.iter().copied();
            let methods = methods.filter(|m| m.writes() == writes).collect();
            each(c, methods, |c, m| c.method = m)
        },
    }),
    Step::Multiply(Stage {
        factors: &["pace"],
        given: |x| n(&x.factors.rates).saturating_mul(n(&x.factors.think_ns)),
        expand: |x, c| {
            let paces = crate::plan::pace::choices(&x.factors.rates, &x.factors.think_ns);
            each(c, paces, |c, p| c.pace = p)
        },
    }),
    // A mixed case writes: it works on the scratch directory's overwrite
    // target, restored before each trial.
    Step::Multiply(Stage {
        factors: &["read_share", "target"],
        given: |x| n(&x.factors.read_shares),
        expand: |x, c| {
            let shares = &x.factors.read_shares;
            let shares = when(
                takes(c, MethodOption::ReadShare) && !shares.is_empty(),
                shares,
            );
            each(c, shares, |c, share| {
                c.read_share = share;
                if share.is_some() {
                    c.target = Some(Target::Overwrite);
                }
            })
        },
    }),
    Step::Multiply(Stage {
        factors: &["populate"],
        given: |x| n(&x.factors.populates),
        expand: |x, c| {
            let values = when(takes(c, MethodOption::Populate), &x.factors.populates);
            each(c, values, |c, v| c.populate = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["advice"],
        given: |x| n(&x.factors.advices),
        expand: |x, c| {
            let values = when(takes(c, MethodOption::Advice), &x.factors.advices);
            each(c, values, |c, v| c.advice = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["share"],
        given: |x| n(&x.factors.shares),
        expand: |x, c| {
            let values = when(takes(c, MethodOption::Share), &x.factors.shares);
            each(c, values, |c, v| c.share = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["sync"],
        given: |x| n(&x.factors.syncs),
        expand: |x, c| {
            let values = when(c.method.writes(), &x.factors.syncs);
            each(c, values, |c, v| c.sync = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["sync_call"],
        given: |x| n(&x.factors.sync_calls),
        expand: |x, c| {
            let applies = takes(c, MethodOption::SyncCall) && syncs(c);
            each(c, when(applies, &x.factors.sync_calls), |c, v| {
                c.sync_call = v
            })
        },
    }),
    Step::Multiply(Stage {
        factors: &["msync"],
        given: |x| n(&x.factors.msyncs),
        expand: |x, c| {
            let applies = takes(c, MethodOption::Msync) && syncs(c);
            each(c, when(applies, &x.factors.msyncs), |c, v| c.msync = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["open_sync"],
        given: |x| n(&x.factors.open_syncs),
        expand: |x, c| {
            let values = when(takes(c, MethodOption::OpenSync), &x.factors.open_syncs);
            each(c, values, |c, v| c.open_sync = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["size_with"],
        given: |x| n(&x.factors.size_withs),
        expand: |x, c| {
            let applies = takes(c, MethodOption::SizeWith) && fresh(c);
            each(c, when(applies, &x.factors.size_withs), |c, v| {
                c.size_with = v
            })
        },
    }),
    Step::Multiply(Stage {
        factors: &["stdio_buffer"],
        given: |x| n(&x.factors.stdio_buffers),
        expand: |x, c| {
            let default = crate::method::DEFAULT_STDIO_BUFFER;
            let sizes = or_default(&x.factors.stdio_buffers, default);
            let values = when(takes(c, MethodOption::StdioBuffer), &sizes);
            each(c, values, |c, v| c.io.stdio_buffer = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["iov"],
        given: |x| n(&x.factors.iovs),
        expand: |x, c| {
            let iovs = or_default(&x.factors.iovs, crate::method::DEFAULT_IOV);
            let iovs = if one_at_a_time(c) { &[1][..] } else { &iovs };
            let values = when(takes(c, MethodOption::Iov), iovs);
            each(c, values, |c, v| c.io.iov = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["depth"],
        given: |x| n(&x.factors.depths),
        expand: |x, c| {
            let depths = or_default(&x.factors.depths, crate::method::DEFAULT_DEPTH);
            let depths = if one_at_a_time(c) { &[1][..] } else { &depths };
            let values = when(takes(c, MethodOption::Depth), depths);
            each(c, values, |c, v| c.io.depth = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["registered"],
        given: |x| n(&x.factors.registered),
        expand: |x, c| {
            let registered = or_default(&x.factors.registered, false);
            let values = when(takes(c, MethodOption::Registered), &registered);
            each(c, values, |c, v| c.io.registered = v)
        },
    }),
    Step::Multiply(Stage {
        factors: &["fadvise"],
        // Not counted in the bound (it never was).
        given: |_| 1,
        expand: |x, c| {
            let hints = &x.factors.fadvises;
            let values = when(takes(c, MethodOption::Fadvise) && !hints.is_empty(), hints);
            each(c, values, |c, v| c.io.fadvise = v)
        },
    }),
    // A paced case is there for its latencies: it always records them.
    Step::Multiply(Stage {
        factors: &["latency"],
        given: |x| n(&x.factors.latency),
        expand: |x, c| {
            let values = if c.pace.is_some() {
                vec![true]
            } else {
                or_default(&x.factors.latency, false)
            };
            each(c, values, |c, v| c.latency = v)
        },
    }),
    Step::Refuse(refusals::calloc),
    Step::Refuse(refusals::buffers),
    Step::Multiply(Stage {
        factors: &["scale", "scale_unit"],
        given: |x| n(&x.factors.scale_factors),
        expand: |x, c| {
            let factors = x.factors.scale_factors();
            let unit = x.factors.scale_unit;
            let values = when(c.workload == WorkloadKind::Scale, &factors);
            each(c, values, |c, f| {
                c.scale = f;
                c.scale_unit = (f.is_some() && unit != ScaleUnit::Pixel).then_some(unit);
            })
        },
    }),
    Step::Multiply(Stage {
        factors: &["threads"],
        given: |x| n(&x.factors.threads).saturating_mul(n(&x.factors.thread_modes)),
        expand: |x, c| each(c, x.factors.thread_choices(), |c, t| c.threads = t),
    }),
    Step::Set(&["procs"], |x, c| {
        c.procs = x.factors.procs.filter(|&n| n > 1)
    }),
    Step::Set(&["duration_s"], |x, c| c.duration_s = x.factors.duration_s),
    Step::Set(&["memory_budget"], |x, c| {
        c.memory_budget = x.factors.memory_budget
    }),
    Step::Set(&["pair_across_sync"], |x, c| {
        c.pair_across_sync = x.factors.pair_across_sync && c.method.writes()
    }),
    Step::Set(&["files"], |x, c| c.files = x.factors.set_of()),
    // A trace's block is its longest operation of the kind the method
    // replays.
    Step::Set(&["trace", "block_size"], |x, c| {
        if let Some(t) = &x.factors.trace {
            c.trace = Some(t.reference.clone());
            c.block_size = match c.trace_ops() {
                Ops::Reads => t.reference.longest_read,
                Ops::Writes => t.reference.longest_write,
            }
            .max(1);
        }
    }),
    Step::Refuse(refusals::each_case),
];

impl Expansion<'_> {
    /// Refuses, before expanding anything, lists whose product could pass
    /// [`crate::plan::MAX_CASES`]: the product of every stage's count of
    /// values is an upper bound of the cases (a list that does not apply to
    /// a method only lowers it).
    pub(super) fn check_size_of_product(&self) -> Result<()> {
        let product = STEPS.iter().fold(1u64, |p, step| match step {
            Step::Multiply(stage) => p.saturating_mul((stage.given)(self)),
            Step::Set(..) | Step::Refuse(_) => p,
        });
        if product > crate::plan::MAX_CASES {
            return Err(Error::Plan(format!(
                "these lists multiply to as many as {product} cases, more than the {} one run may have; sweep fewer values at once",
                crate::plan::MAX_CASES
            )));
        }
        Ok(())
    }

    /// The cases, every step taken in order from one case with the seed.
    pub(super) fn cases(&self) -> Result<Vec<Case>> {
        let base = Case {
            seed: self.factors.seed,
            ..Case::default()
        };
        let mut cases = vec![base];
        for step in STEPS {
            match step {
                Step::Multiply(stage) => {
                    let mut out = Vec::with_capacity(cases.len());
                    for case in &cases {
                        out.extend((stage.expand)(self, case));
                    }
                    cases = out;
                }
                Step::Set(_, set) => cases.iter_mut().for_each(|c| set(self, c)),
                Step::Refuse(refuse) => refuse(&cases)?,
            }
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::factor_table::FACTORS;

    /// The factors of the table set elsewhere than in the expansion, each
    /// with where.
    const SET_ELSEWHERE: &[(&str, &str)] = &[
        ("seed", "the case every step starts from"),
        ("device_rate", "the session, once the throttle is found"),
        ("min_trial_ns", "the session's precision rounds"),
        ("replica", "faultline calibrate"),
    ];

    fn names(step: &Step) -> &'static [&'static str] {
        match step {
            Step::Multiply(stage) => stage.factors,
            Step::Set(names, _) => names,
            Step::Refuse(_) => &[],
        }
    }

    #[test]
    fn every_step_names_factors_of_the_table_and_every_factor_has_a_step() {
        let table: Vec<&str> = FACTORS.iter().map(|f| f.name).collect();
        for name in STEPS.iter().flat_map(names) {
            assert!(table.contains(name), "{name} is not in the factor table");
        }
        for factor in FACTORS {
            let staged = STEPS.iter().flat_map(names).any(|n| *n == factor.name);
            let elsewhere = SET_ELSEWHERE.iter().any(|(n, _)| *n == factor.name);
            assert!(
                staged != elsewhere,
                "{}: set by a step of the expansion or listed as set elsewhere, not both",
                factor.name
            );
        }
    }

    #[test]
    fn the_bound_counts_every_list_a_stage_multiplies_by() {
        let factors = Factors {
            blocks: vec![4096, 8192],
            caches: vec![crate::plan::CacheState::Warm],
            populates: vec![crate::method::Populate::None, crate::method::Populate::Map],
            latency: vec![false, true],
            ..Factors::default()
        };
        let sizes = [1 << 20, 2 << 20, 4 << 20];
        let x = Expansion {
            factors: &factors,
            file_sizes: &sizes,
        };
        let product = STEPS.iter().fold(1, |p, step| match step {
            Step::Multiply(stage) => p * (stage.given)(&x),
            _ => p,
        });
        // sizes × blocks × methods × populates × latency
        assert_eq!(product, 3 * 2 * 2 * 2 * 2);
        assert!(x.cases().unwrap().len() as u64 <= product);
    }
}
