//! write2020: write 1000 MB of zeros with one write() of a whole-size buffer
//! (no fsync) against memset into a MAP_SHARED mapping then msync (blog post, May 2020).
use super::{
    cpu_split_of, measured_time_split, ratio_cell, ratio_header, secs, summary_of, time_split_bars,
    time_split_keys, time_unit, write_case, Preset, Scope, Table, BELOW_RESOLUTION,
    COMPARISON_NOTE,
};
use crate::method::{MethodKind, SizeWith, SyncPolicy};
use crate::pattern::Pattern;
use crate::plan::Target;
use crate::plan::{Case, Metric, OrderPolicy, Plan};
use crate::report::plot::{bar_plot, AxisScale, Bar, BarChart, BarGroup, BarPanel, Plot};
use crate::results::RunResults;
use crate::stats::effect::{Published, Size};
use crate::studies::claims::{Claim, Expect};
use crate::workload::FillContent;

/// The preset.
pub struct Write2020;

/// The published size, bytes.
const FULL_SIZE: u64 = 1000 << 20;
/// Published real, user, sys seconds for write and mmap at 1000 MB.
const WRITE: [f64; 3] = [1.343, 0.106, 0.938];
const MMAP: [f64; 3] = [1.150, 0.197, 0.767];
/// The tolerance of the published ratio (one run; the text says "about
/// 10%"): ×/÷ 1.10, whose band (1.06–1.29) holds the text's 1.10 too.
const TOLERANCE: f64 = 0.10;

/// The published speedup of mmap: write's real time over mmap's, 1.343 / 1.150.
fn published_speedup() -> f64 {
    WRITE[0] / MMAP[0]
}

/// The cases of a run: the post's write (from a calloc'd buffer it never
/// touches), the mmap version (its file sized with ftruncate, or with
/// `--faithful` as the post did, lseek + a one-byte write), and an extra
/// write, not the post's, from a buffer pre-faulted in setup and filled in
/// the loop.
#[derive(Clone, Debug, PartialEq)]
struct Cases {
    /// The post's write: the claim is judged on it.
    write: Case,
    /// The mmap version.
    mmap: Case,
    /// Not in the post: write() from a pre-faulted, filled buffer.
    prefaulted: Case,
}

/// The cases of a plan's or a run's cases (see [`Cases`]).
fn cases_of(plan_cases: &[Case]) -> Cases {
    let size = plan_cases.first().map_or(0, |c| c.file_size);
    let faithful = plan_cases
        .iter()
        .any(|c| c.size_with == Some(SizeWith::SeekWrite));
    cases_at(size, faithful)
}

fn cases_at(size: u64, faithful: bool) -> Cases {
    let write = |fill| {
        write_case(
            MethodKind::Write,
            Pattern::Seq,
            size,
            size,
            Target::Fresh,
            SyncPolicy::None,
            fill,
        )
    };
    let mut mmap = write_case(
        MethodKind::MmapWrite,
        Pattern::Seq,
        size,
        size,
        Target::Fresh,
        SyncPolicy::End,
        FillContent::Zero,
    );
    if faithful {
        mmap.size_with = Some(SizeWith::SeekWrite);
    }
    // The post compares a write that never syncs with an mmap that msyncs,
    // on purpose: its cases are compared across sync levels.
    let across = |mut c: Case| {
        c.pair_across_sync = true;
        c
    };
    Cases {
        write: across(write(FillContent::Calloc)),
        mmap: across(mmap),
        prefaulted: across(write(FillContent::Zero)),
    }
}

fn run_cases(results: &RunResults) -> Cases {
    let plan_cases: Vec<Case> = results.cases.iter().map(|c| c.case.clone()).collect();
    cases_of(&plan_cases)
}

fn size_of(results: &RunResults) -> u64 {
    results.cases.first().map_or(0, |c| c.case.file_size)
}

impl Preset for Write2020 {
    fn name(&self) -> &'static str {
        "write2020"
    }

    fn source(&self) -> &'static str {
        "\"Rapidez de escritura en archivos: write contra mmap\", blog post, May 2020"
    }

    fn published(&self) -> Vec<Table> {
        let row = |n: &str, t: [f64; 3]| {
            vec![
                n.to_string(),
                format!("{:.3} s", t[0]),
                format!("{:.3} s", t[1]),
                format!("{:.3} s", t[2]),
            ]
        };
        vec![Table::new(
            "Published (`time`, 1000 MB of zeros)",
            &["version", "real", "user", "sys"],
            vec![row("write", WRITE), row("mmap", MMAP)],
        )]
    }

    fn plan(&self, scope: Scope) -> Plan {
        let size = scope.size(64_000_000, FULL_SIZE, 1 << 20);
        let c = cases_at(size, scope.faithful);
        Plan {
            cases: vec![c.write, c.mmap, c.prefaulted],
            runs: scope.runs(10, 10),
            warmup: 0,
            order: OrderPolicy::Alternating,
            metric: Metric::Total,
            seed: 1,
        }
    }

    fn claims(&self, plan: &Plan) -> Vec<Claim> {
        let speedup = published_speedup();
        vec![Claim {
            id: "mmap-10pct".into(),
            text: format!(
                "mmap (memset + msync) is faster than one write() without fsync from a calloc'd buffer it never touches (the post's), by about {speedup:.2}x (the post's real times; its text says about 10%), judged at ×/÷ {:.2}",
                1.0 + TOLERANCE
            ),
            pairs: vec![{
                let c = cases_of(&plan.cases);
                (c.write, c.mmap)
            }],
            expect: Expect::Effect(Published::faster(Size::Ratio {
                value: speedup,
                tolerance: TOLERANCE,
            })),
            quorum: 1.0,
            published: format!(
                "{speedup:.2}x: real {:.3} s (write) against {:.3} s (mmap) for 1000 MB; \"approximately 10%\" in the text",
                WRITE[0], MMAP[0]
            ),
        }]
    }

    fn fidelity(&self) -> Vec<String> {
        vec![
            "Kept the original's asymmetry on purpose, in both modes: the mmap version syncs (msync MS_SYNC) and the write version does not fsync, so write's data may still be dirty when its time stops. (The post's text says the write version fsyncs; its listing does not, and the listing is what was timed.)".into(),
            "The write version writes the whole buffer with one write() call, as the original, in both modes.".into(),
            "--faithful changes only how the mmap file is sized. The mmap file is sized with ftruncate by default. --faithful sizes it as the post did, with lseek and a one-byte write, but at the last byte of the mapping rather than one past it (the post's file ended a byte longer than it mapped), so the file is the planned size and its read-back check holds. Both leave a sparse file; the one-byte write allocates one block.".into(),
            "The write version's buffer, in both modes, is the post's: calloc'd and never touched (--fill calloc), so its pages are first faulted in by write() itself, inside the kernel, and no user time goes into filling it; the claim is judged on this case. An extra row, not in the post and marked so, writes from a buffer faultline pre-faults in setup (inside the total time) and fills in the loop, its like-for-like default elsewhere; that adds a memset's user time and the faults of a buffer as large as the file, and no claim is judged on it.".into(),
            "Timed inside a fresh trial process (setup + loop + sync + teardown), not `time` around a whole program: exec, process exit and the unmapping at exit are not counted; the user/sys columns are the trial's own. Not replayed by --faithful: the parts left out cost both versions about the same.".into(),
            "Quick writes 64 MB; full writes 1000 MiB as the original's 1000 MB, in both modes.".into(),
        ]
    }

    fn measured(&self, results: &RunResults) -> Vec<Table> {
        let c = run_cases(results);
        let faithful = c.mmap.size_with == Some(SizeWith::SeekWrite);
        let row = |name: &str, case: &Case| {
            let s = summary_of(results, case);
            let elapsed = s.map(|s| s.time_ns.mean / 1e9);
            let split = s.and_then(|s| cpu_split_of(s, s.time_ns.mean / 1e9));
            let cpu = |pick: fn((f64, f64)) -> f64| match (s, split) {
                (None, _) => "-".to_string(),
                (Some(_), None) => BELOW_RESOLUTION.to_string(),
                (Some(_), Some(split)) => secs(Some(pick(split))),
            };
            vec![
                name.to_string(),
                secs(elapsed),
                cpu(|(user, _)| user),
                cpu(|(_, sys)| sys),
                secs(s.and_then(|s| s.sync_ns.as_ref()).map(|s| s.mean / 1e9)),
            ]
        };
        let dashes =
            |first: String, real: String| vec![first, real, "-".into(), "-".into(), "-".into()];
        let mut rows = vec![
            row(
                "write (the post's: calloc'd buffer, never touched)",
                &c.write,
            ),
            row("mmap + msync", &c.mmap),
            row(
                "write, pre-faulted and filled buffer (not in the post: an extra row)",
                &c.prefaulted,
            ),
        ];
        rows.push(dashes(
            ratio_header("speedup of mmap over the post's write"),
            ratio_cell(results, &c.write, &c.mmap),
        ));
        rows.push(dashes(
            ratio_header("speedup of mmap over the pre-faulted write (extra row)"),
            ratio_cell(results, &c.prefaulted, &c.mmap),
        ));
        // The published speedup is a ratio of real times: it goes under real.
        rows.push(dashes(
            "published speedup (1000 MB)".into(),
            format!(
                "{:.2} ({:.3} s / {:.3} s)",
                published_speedup(),
                WRITE[0],
                MMAP[0]
            ),
        ));
        vec![Table::new(
            &format!(
                "Measured ({} of zeros{}): mean real, user, sys and sync; {COMPARISON_NOTE}; user/sys {BELOW_RESOLUTION} where getrusage cannot split a trial that short",
                crate::size::format_size(size_of(results)),
                if faithful {
                    "; mmap file extended by a one-byte write"
                } else {
                    ""
                }
            ),
            &["version", "real", "user", "sys", "sync"],
            rows,
        )]
    }

    fn plots(&self, results: &RunResults) -> Vec<Plot> {
        let size = size_of(results);
        let c = run_cases(results);
        let names = ["write", "mmap + msync"];
        let published = BarPanel {
            title: "published: 1000 MB, `time` (2020 post)".into(),
            y_label: "time, s".into(),
            y_scale: AxisScale::Linear,
            groups: names
                .iter()
                .zip([WRITE, MMAP])
                .map(|(name, t)| BarGroup {
                    label: name.to_string(),
                    bars: time_split_bars(t[1], t[2], t[0], None, 1.0)
                        .into_iter()
                        .map(Bar::published)
                        .collect(),
                })
                .collect(),
        };
        let measured_names = ["write (post)", "mmap + msync", "write (extra)"];
        let summaries = [
            summary_of(results, &c.write),
            summary_of(results, &c.mmap),
            summary_of(results, &c.prefaulted),
        ];
        let longest = summaries
            .iter()
            .flatten()
            .map(|s| {
                (s.time_ns.mean.max(s.user_ns.mean + s.sys_ns.mean)
                    + s.time_ns.ci95.map_or(0.0, |c| c.1 - s.time_ns.mean))
                    / 1e9
            })
            .fold(0.0, f64::max);
        let (unit, unit_name) = time_unit(longest);
        let measured = BarPanel {
            title: format!(
                "measured here: {}, mean of {} trials",
                crate::size::format_size(size),
                results.settings.runs
            ),
            y_label: format!("time, {unit_name}"),
            y_scale: AxisScale::Linear,
            groups: measured_names
                .iter()
                .zip(summaries)
                .filter_map(|(name, s)| {
                    s.map(|s| BarGroup {
                        label: name.to_string(),
                        bars: measured_time_split(s, unit),
                    })
                })
                .collect(),
        };
        let chart = BarChart {
            panels: vec![published, measured],
            columns: 2,
            keys: time_split_keys(),
        };
        let caption = format!(
            "Per version, user and sys CPU time stacked (CPU) beside the elapsed (real) time \
             (wall). Left, pale: the post's `time` output for 1000 MB (write {:.3} real, {:.3} \
             user, {:.3} sys; mmap {:.3}, {:.3}, {:.3} s). Right, filled: measured here in \
             fresh trial processes, each trial's setup + loop + teardown; whiskers are the 95% \
             CI of the elapsed mean; a CPU bar noted \"unresolved\" is left empty, its trials too \
             short for getrusage to split user from sys. \"write (post)\" is the post's, from a \
             calloc'd buffer it never touches, and the claim is judged on it; \"write (extra)\", \
             not in the post, writes from a buffer pre-faulted and filled first. The panels have their own axes because the sizes \
             differ. As in the post, the mmap version syncs (msync) and the write version does \
             not fsync.",
            WRITE[0], WRITE[1], WRITE[2], MMAP[0], MMAP[1], MMAP[2]
        );
        vec![bar_plot(
            "write2020-times",
            "write2020: real, user and sys time of write() and mmap + msync",
            &caption,
            &chart,
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claim_is_judged_on_the_posts_untouched_calloc_buffer_in_both_modes() {
        for scope in [Scope::QUICK, Scope::FULL, Scope::new(false, 256)] {
            let default = Write2020.plan(scope);
            let faithful = Write2020.plan(scope.faithful(true));
            assert_eq!(default.runs, faithful.runs);
            for plan in [&default, &faithful] {
                let c = cases_of(&plan.cases);
                assert_eq!(
                    plan.cases,
                    vec![c.write.clone(), c.mmap.clone(), c.prefaulted.clone()]
                );
                // The post's write: one write() of the whole file from a
                // calloc'd buffer nothing touched, no fsync.
                assert_eq!(c.write.fill, Some(FillContent::Calloc));
                assert!(c.write.write_options().zeroed_buffer);
                assert_eq!(c.write.method, MethodKind::Write);
                assert_eq!(c.write.sync, Some(SyncPolicy::None));
                assert_eq!(c.write.block_size, c.write.file_size);
                // The extra row differs from it in the buffer only.
                assert_eq!(c.prefaulted.fill, Some(FillContent::Zero));
                assert!(!c.prefaulted.write_options().zeroed_buffer);
                let undone = Case {
                    fill: c.write.fill,
                    ..c.prefaulted.clone()
                };
                assert_eq!(undone, c.write);
                // The claim compares the post's two versions, never the extra row.
                for claim in Write2020.claims(plan) {
                    assert_eq!(claim.pairs, vec![(c.write.clone(), c.mmap.clone())]);
                    assert!(claim.text.contains("calloc"), "{}", claim.text);
                }
                // The mmap version: msync at the end in both modes.
                assert_eq!(c.mmap.method, MethodKind::MmapWrite);
                assert_eq!(c.mmap.sync, Some(SyncPolicy::End));
            }
            // --faithful sizes the mmap file by a one-byte write, and changes nothing else.
            let (d, f) = (cases_of(&default.cases), cases_of(&faithful.cases));
            assert_eq!(d.mmap.size_with, Some(SizeWith::Truncate));
            assert_eq!(f.mmap.size_with, Some(SizeWith::SeekWrite));
            let undone = Case {
                size_with: d.mmap.size_with,
                ..f.mmap.clone()
            };
            assert_eq!(undone, d.mmap);
            assert_eq!((&d.write, &d.prefaulted), (&f.write, &f.prefaulted));
        }
    }

    #[test]
    fn the_extra_prefaulted_row_is_marked_and_user_sys_of_short_trials_are_not_shown() {
        let plan = Write2020.plan(Scope::new(false, 256));
        let mut results = crate::fixtures::results_of(&plan.cases);
        // 50 µs trials whose getrusage split (80 µs) exceeds the clock.
        for (i, case) in results.cases.iter_mut().enumerate() {
            let samples: Vec<_> = (0..3)
                .map(|run| {
                    let mut s = crate::fixtures::sample(i, run);
                    s.total_ns = 50_000 + u64::from(run) * 1_000;
                    s.child.wall_ns = 40_000;
                    s.child.rusage.user_ns = 40_000;
                    s.child.rusage.sys_ns = 40_000;
                    s
                })
                .collect();
            case.summary = crate::analysis::case_summary::summarize_case(&samples, Metric::Total);
            case.samples = samples;
        }
        let t = &Write2020.measured(&results)[0];
        let text = t.render_text();
        let extra = t
            .rows
            .iter()
            .find(|r| r[0].contains("pre-faulted"))
            .expect("the extra row");
        assert!(extra[0].contains("not in the post"), "{extra:?}");
        assert!(t.rows[0][0].contains("the post's"), "{:?}", t.rows[0]);
        for row in &t.rows[..3] {
            assert_eq!(row[2], BELOW_RESOLUTION, "{row:?}");
            assert_eq!(row[3], BELOW_RESOLUTION, "{row:?}");
        }
        assert!(
            text.contains("speedup of mmap over the post's write [90% CI]"),
            "{text}"
        );
        assert!(!text.contains("95%"), "{text}");
    }

    #[test]
    fn the_published_speedup_is_a_real_time_ratio_under_real() {
        let plan = Write2020.plan(Scope::QUICK);
        let t = &Write2020.measured(&crate::fixtures::results_of(&plan.cases))[0];
        let real = t.columns.iter().position(|c| c == "real").unwrap();
        let row = t
            .rows
            .iter()
            .find(|r| r[0].starts_with("published"))
            .expect("a published row");
        assert!(row[real].starts_with("1.17 (1.343 s / 1.150 s)"), "{row:?}");
        assert!(row
            .iter()
            .enumerate()
            .all(|(i, c)| i == 0 || i == real || c == "-"));
        let claim = &Write2020.claims(&plan)[0];
        match &claim.expect {
            Expect::Effect(p) => {
                let (l, h) = p.band();
                assert!(((l * h).sqrt() - 1.343 / 1.150).abs() < 1e-9);
                assert!(l < 1.10 && 1.10 < h, "the text's 10% is inside the band");
            }
            other => panic!("{other:?}"),
        }
    }
}
