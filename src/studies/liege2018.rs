//! liege2018: sequential 16 kB and random 1-byte reads and writes, read()/write()
//! against mmap, on file sizes from 1 kB to 160 MB (Univ. of Liège, INFO0940, 2018).
use super::{
    comparison, cpu_split_of, mean_seconds, ratio_cell, ratio_header, ratio_point, read_case, secs,
    summary_of, time_split_keys, time_unit, write_case, Preset, Scope, Table, BELOW_RESOLUTION,
    COMPARISON_NOTE,
};
use crate::method::{MethodKind, SyncPolicy};
use crate::pattern::Pattern;
use crate::plan::CacheState;
use crate::plan::Target;
use crate::plan::{Case, Metric, OrderPolicy, Plan};
use crate::report::plot::{
    bar_plot, series_plot, Axis, AxisScale, Bar, BarChart, BarGroup, BarPanel, Hue, Plot, Segment,
    Series, SeriesStyle,
};
use crate::results::RunResults;
use crate::stats::effect::{Published, Size};
use crate::studies::claims::{Claim, Expect};
use crate::workload::{FillContent, WorkloadKind};

/// The preset.
pub struct Liege2018;

/// (kind, size, baseline, other).
type Pair = (usize, u64, Case, Case);

/// The four cases of the study.
const KINDS: [&str; 4] = ["seq read", "seq write", "random read", "random write"];
/// The published random-access speedup of mmap and the size it was read at.
const RANDOM_SPEEDUP: (f64, u64) = (100.0, 625_000);
/// "about 100 times", read off log-scale figures: ×/÷ 2 (50–200x).
const RANDOM_TOLERANCE: f64 = 1.0;
/// faultline's reading of "similar" (the report gives no figure): within
/// 1.5x either way; a "small edge" is an advantage inside the same width.
const SIMILAR_WITHIN: f64 = 1.5;
/// faultline's reading of "a small advantage" (section 3) and, as the
/// smallest effect, of section 1.c's "usually faster": 5% to 50%.
const SMALL_EDGE: (f64, f64) = (1.05, 1.5);
/// faultline's reading of "much faster" (conclusion; Figures 3–4): at least 2x.
const MUCH_FASTER: f64 = 2.0;
/// The file size of the report's Figure 5 (user/sys split), bytes.
const FIGURE5_SIZE: u64 = 8_000_000;
/// The sequential user buffer.
const SEQ_BLOCK: u64 = 16 << 10;
/// The largest file the small-file claims count as small (the report
/// names no size): 100 kB.
const SMALL_FILES: u64 = 100_000;

fn sizes(scope: Scope) -> (Vec<u64>, Vec<u64>) {
    let quick = [1_000, 10_000, 100_000, 625_000, 1_000_000, 8_000_000];
    let full = [
        1_000,
        10_000,
        100_000,
        625_000,
        1_000_000,
        8_000_000,
        16_000_000,
        160_000_000,
    ];
    let list: &[u64] = if scope.full { &full } else { &quick };
    let seq: Vec<u64> = list
        .iter()
        .map(|&s| (s / scope.scale_down.max(1)).max(1_000))
        .collect();
    // Random 1-byte access makes one syscall per byte: quick stops at 1 MB.
    let random = seq
        .iter()
        .copied()
        .filter(|&s| scope.full || s <= 1_000_000)
        .collect();
    (dedup(seq), dedup(random))
}

fn dedup(mut v: Vec<u64>) -> Vec<u64> {
    v.dedup();
    v
}

/// The random reads' pattern: a permutation (each byte once), or with
/// `--faithful` positions drawn independently (with replacement).
fn random_pattern(faithful: bool) -> Pattern {
    if faithful {
        Pattern::RandomReplace
    } else {
        Pattern::Random
    }
}

/// (baseline, other) of one kind at one size.
fn pair(kind: usize, size: u64, faithful: bool) -> (Case, Case) {
    let random = random_pattern(faithful);
    let seq_block = SEQ_BLOCK.min(size);
    let r = |m| {
        read_case(
            m,
            Pattern::Seq,
            seq_block,
            size,
            WorkloadKind::Sum,
            CacheState::Warm,
        )
    };
    let rr = |m| read_case(m, random, 1, size, WorkloadKind::Touch, CacheState::Warm);
    let w = |m, p, b| {
        write_case(
            m,
            p,
            b,
            size,
            Target::Overwrite,
            SyncPolicy::None,
            FillContent::Pattern,
        )
    };
    match kind {
        0 => (r(MethodKind::Read), r(MethodKind::Mmap)),
        1 => (
            w(MethodKind::Write, Pattern::Seq, seq_block),
            w(MethodKind::MmapWrite, Pattern::Seq, seq_block),
        ),
        2 => (rr(MethodKind::Read), rr(MethodKind::Mmap)),
        _ => (
            // Writes keep the permutation in both modes: see the fidelity notes.
            w(MethodKind::Write, Pattern::Random, 1),
            w(MethodKind::MmapWrite, Pattern::Random, 1),
        ),
    }
}

/// Every (kind, size, baseline, other) of the plan at `scope`.
fn pairs(scope: Scope) -> Vec<(usize, u64, Case, Case)> {
    let (seq, random) = sizes(scope);
    let mut out = Vec::new();
    for kind in 0..4 {
        let list = if kind < 2 { &seq } else { &random };
        for &size in list {
            let (b, o) = pair(kind, size, scope.faithful);
            out.push((kind, size, b, o));
        }
    }
    out
}

/// The scope a plan was built at, recovered from its largest file.
fn pairs_of_plan(plan_cases: &[Case]) -> Vec<(usize, u64, Case, Case)> {
    let faithful = plan_cases.iter().any(|c| c.pattern == random_pattern(true));
    let mut out = Vec::new();
    for kind in 0..4 {
        let mut sizes: Vec<u64> = plan_cases.iter().map(|c| c.file_size).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for size in sizes {
            let (b, o) = pair(kind, size, faithful);
            if plan_cases.contains(&b) && plan_cases.contains(&o) {
                out.push((kind, size, b, o));
            }
        }
    }
    out
}

impl Preset for Liege2018 {
    fn name(&self) -> &'static str {
        "liege2018"
    }

    fn source(&self) -> &'static str {
        "R. Compagnie and O. Moitroux, INFO0940 project report, Univ. of Liège, April 2018"
    }

    fn published(&self) -> Vec<Table> {
        let row = |k: &str, v: &str, w: &str| vec![k.to_string(), v.to_string(), w.to_string()];
        vec![Table::new(
            "Published (Figures 1–5, text): mmap against read()/write(); the report contradicts itself on small sequential files (section 1.c against section 3), and both sides are claims",
            &["case", "published", "where"],
            vec![
                row(
                    "seq read and write, 1 kB–160 MB",
                    "similar",
                    "section 3, Figures 1–2; conclusion: no clear advantage",
                ),
                row(
                    "seq read and write, small files",
                    "mmap has a small advantage",
                    "section 3 (measured)",
                ),
                row(
                    "seq read, small files",
                    "read() usually faster (contradicts the row above)",
                    "section 1.c (no measurement)",
                ),
                row(
                    "random 1-byte read and write, all sizes",
                    "mmap much faster",
                    "section 3, Figures 3–4; conclusion",
                ),
                row(
                    "random 1-byte read and write, 625 kB",
                    "about 100x faster with mmap",
                    "section 3",
                ),
                row(
                    "8000 kB, user/sys split",
                    "read() spends its time in sys",
                    "section 3, Figure 5",
                ),
            ],
        )]
    }

    fn plan(&self, scope: Scope) -> Plan {
        let mut cases = Vec::new();
        for (_, _, b, o) in pairs(scope) {
            cases.push(b);
            cases.push(o);
        }
        Plan {
            cases,
            runs: scope.runs(5, 10),
            warmup: 0,
            order: OrderPolicy::Alternating,
            metric: Metric::Total,
            seed: 1,
        }
    }

    fn claims(&self, plan: &Plan) -> Vec<Claim> {
        let all = pairs_of_plan(&plan.cases);
        let select = |kinds: &[usize], keep: &dyn Fn(u64) -> bool| -> Vec<(Case, Case)> {
            all.iter()
                .filter(|(k, s, _, _)| kinds.contains(k) && keep(*s))
                .map(|(_, _, b, o)| (b.clone(), o.clone()))
                .collect()
        };
        let near = |s: u64| {
            let sizes: Vec<u64> = all.iter().filter(|p| p.0 == 2).map(|p| p.1).collect();
            sizes
                .iter()
                .min_by_key(|&&x| x.abs_diff(RANDOM_SPEEDUP.1))
                .is_some_and(|&x| x == s)
        };
        let sequential = select(&[0, 1], &|_| true);
        let small = select(&[0, 1], &|s| s <= SMALL_FILES);
        let small_reads = select(&[0], &|s| s <= SMALL_FILES);
        let (edge_low, edge_high) = SMALL_EDGE;
        let random_all = select(&[2, 3], &|_| true);
        let need = |n: usize| (0.75 * n as f64).ceil() as usize;
        let span = |kinds: &[usize], keep: &dyn Fn(u64) -> bool| {
            let sizes: Vec<u64> = all
                .iter()
                .filter(|(k, s, _, _)| kinds.contains(k) && keep(*s))
                .map(|p| p.1)
                .collect();
            let (lo, hi) = (
                sizes.iter().min().copied().unwrap_or(0),
                sizes.iter().max().copied().unwrap_or(0),
            );
            format!("{} kB–{} kB", lo as f64 / 1e3, hi as f64 / 1e3)
        };
        let about_100 = Expect::Effect(Published::faster(Size::Ratio {
            value: RANDOM_SPEEDUP.0,
            tolerance: RANDOM_TOLERANCE,
        }));
        vec![
            Claim {
                id: "seq-similar".into(),
                text: format!(
                    "sequential 16 KiB read and write take similar times with either method: the 90% CI of the time ratio inside {:.2}–{SIMILAR_WITHIN}x (faultline's reading of \"similar\") in at least {} of the {} comparisons (read and write, {})",
                    1.0 / SIMILAR_WITHIN,
                    need(sequential.len()),
                    sequential.len(),
                    span(&[0, 1], &|_| true)
                ),
                pairs: sequential,
                expect: Expect::Effect(Published::similar(SIMILAR_WITHIN)),
                quorum: 0.75,
                published: "similar times from 1 kB to 160 MB (Figures 1–2, text); no figure".into(),
            },
            Claim {
                id: "small-files-measured".into(),
                text: format!(
                    "section 3 (measured): mmap has a small advantage on small files: faster by {edge_low}–{edge_high}x (faultline's reading of \"a small advantage\"), in at least {} of the {} sequential comparisons up to 100 kB ({}); section 1.c of the same report says the opposite (the next claim)",
                    need(small.len()),
                    small.len(),
                    span(&[0, 1], &|s| s <= SMALL_FILES)
                ),
                pairs: small,
                expect: Expect::Effect(Published::faster(Size::Range {
                    low: SMALL_EDGE.0,
                    high: SMALL_EDGE.1,
                })),
                quorum: 0.75,
                published: "\"mmap seems to have a small advantage when operating on small files\" (section 3, measured); no figure".into(),
            },
            Claim {
                id: "small-files-read".into(),
                text: format!(
                    "section 1.c: read() is usually faster when reading small files sequentially: mmap slower by at least {edge_low}x in at least {} of the {} sequential reads up to 100 kB ({}); this contradicts section 3's measured small advantage for mmap (the claim before)",
                    need(small_reads.len()),
                    small_reads.len(),
                    span(&[0], &|s| s <= SMALL_FILES)
                ),
                pairs: small_reads,
                expect: Expect::Effect(Published::slower(Size::AtLeast(SMALL_EDGE.0))),
                quorum: 0.75,
                published: "\"read/write ... usually faster when reading small files in a sequential fashion\" (section 1.c, no measurement); no figure".into(),
            },
            Claim {
                id: "random-all-sizes".into(),
                text: format!(
                    "random 1-byte access is much faster with mmap at every size measured: faster by at least {MUCH_FASTER}x (faultline's reading of \"much faster\"), reads and writes, in at least {} of the {} random comparisons ({})",
                    need(random_all.len()),
                    random_all.len(),
                    span(&[2, 3], &|_| true)
                ),
                pairs: random_all,
                expect: Expect::Effect(Published::faster(Size::AtLeast(MUCH_FASTER))),
                quorum: 0.75,
                published: "mmap \"much faster\" for random reads and writes (section 3, Figures 3–4; conclusion); no figure beyond 625 kB".into(),
            },
            Claim {
                id: "random-read-100x".into(),
                text: "random 1-byte reads are about 100x faster with mmap at 625 kB (judged as 50–200x)".into(),
                pairs: select(&[2], &near),
                expect: about_100.clone(),
                quorum: 1.0,
                published: "about 100 times faster at 625 kB, reads and writes (text, section 3)".into(),
            },
            Claim {
                id: "random-write-100x".into(),
                text: "random 1-byte writes are about 100x faster with mmap at 625 kB (judged as 50–200x)".into(),
                pairs: select(&[3], &near),
                expect: about_100,
                quorum: 1.0,
                published: "about 100 times faster at 625 kB, reads and writes (text, section 3)".into(),
            },
        ]
    }

    fn fidelity(&self) -> Vec<String> {
        vec![
            "The report contradicts itself on small sequential files: section 1.c (\"Efficient usage\", no measurement) says read/write are usually faster when reading small files sequentially, while section 3 (its measurements, Figures 1–2) says mmap seems to have a small advantage on small files, and the conclusion sees no clear advantage either way. Both sides are encoded as claims (small-files-measured and small-files-read), so at most one of them can hold on any machine; neither is dropped.".into(),
            "Random positions are a seeded permutation of every byte (each once), so both methods touch the same bytes. The report says only \"randomly located bytes\", as many operations as the file has bytes; --faithful draws each position independently (with replacement, from a fixed seed), the plain reading of that and what a rand() % size loop does, for the random reads. Random writes keep the permutation in both modes: with replacement about a third of the bytes would never be written, and faultline checks every byte a write trial wrote by reading it back. Either way every page of the file is touched many times at these sizes.".into(),
            "Sizes are decimal (1 kB = 1000 B); the sequential buffer is 16 KiB (or the whole file when smaller), in both modes.".into(),
            "Writes overwrite an existing, allocated file of the full size that faultline created; no sync in either version. Not replayed by --faithful: the report does not say how its files were created or whether it synced.".into(),
            "Timed as the study did, in both modes: open and close are outside the clock; mmap's mapping (and faultline's munmap) and read's buffer allocation are inside; each trial is a fresh process.".into(),
            "Quick runs 5 repetitions and stops random access at 1 MB; full uses the study's 10 repetitions and sizes up to 160 MB. --faithful keeps these counts.".into(),
            "Figure 5 (user/sys split at 8000 kB) is shown in the measured table's user and sys columns, not checked as a claim, in both modes. getrusage splits user from sys by the timer tick, too coarse for a file read in a few milliseconds: with --profile the split is drawn from the samples instead (the kernel's share of the main loop's samples applied to getrusage's total, which is exact), as the plot's caption says.".into(),
        ]
    }

    fn measured(&self, results: &RunResults) -> Vec<Table> {
        let plan_cases: Vec<Case> = results.cases.iter().map(|c| c.case.clone()).collect();
        let mut rows = Vec::new();
        for (kind, size, b, o) in pairs_of_plan(&plan_cases) {
            let cpu = |c: &Case| {
                super::summary_of(results, c).map_or("-".to_string(), |s| match cpu_split(s) {
                    Some((user, sys, samples)) => format!(
                        "{}/{}{}",
                        secs(Some(user)),
                        secs(Some(sys)),
                        if samples.is_some() { " *" } else { "" }
                    ),
                    None => BELOW_RESOLUTION.to_string(),
                })
            };
            let published = match kind {
                0 | 1 if size <= SMALL_FILES => {
                    "similar; small edge for mmap (sec. 3) / read faster (sec. 1.c)".to_string()
                }
                0 | 1 => "similar".to_string(),
                _ if size == RANDOM_SPEEDUP.1 => format!(
                    "~{}x ({}–{}x)",
                    RANDOM_SPEEDUP.0,
                    RANDOM_SPEEDUP.0 / (1.0 + RANDOM_TOLERANCE),
                    RANDOM_SPEEDUP.0 * (1.0 + RANDOM_TOLERANCE)
                ),
                _ => format!("much faster (above {MUCH_FASTER}x)"),
            };
            rows.push(vec![
                KINDS[kind].to_string(),
                format!("{} kB", size as f64 / 1e3),
                secs(mean_seconds(results, &b).map(|m| m.0)),
                secs(mean_seconds(results, &o).map(|m| m.0)),
                ratio_cell(results, &b, &o),
                published,
                cpu(&b),
                cpu(&o),
            ]);
        }
        let split = if results.settings.profile.is_some() {
            "; user/sys marked * split by the profile's samples (the kernel's share of them), the rest by getrusage"
        } else {
            ""
        };
        vec![Table::new(
            &format!("Measured: mean time per file (read()/write() and mmap), speedup of mmap, published beside it; {COMPARISON_NOTE}; user/sys {BELOW_RESOLUTION} where getrusage cannot split a trial that short (under {:.0} ms) or counted more CPU than its clock{split}", super::CPU_SPLIT_RESOLUTION_S * 1e3),
            &[
                "case",
                "size",
                "read/write",
                "mmap",
                &ratio_header("speedup"),
                "published",
                "read user/sys",
                "mmap user/sys",
            ],
            rows,
        )]
    }

    fn plots(&self, results: &RunResults) -> Vec<Plot> {
        let plan_cases: Vec<Case> = results.cases.iter().map(|c| c.case.clone()).collect();
        let all = pairs_of_plan(&plan_cases);
        let mut plots = Vec::new();
        for (kind, name) in KINDS.iter().enumerate() {
            let mine: Vec<_> = all.iter().filter(|p| p.0 == kind).collect();
            if mine.is_empty() {
                continue;
            }
            let times = |pick: &dyn Fn(&Pair) -> &Case| -> Vec<_> {
                mine.iter()
                    .filter_map(|p| {
                        mean_seconds(results, pick(p)).map(|(m, ci)| {
                            (
                                p.1 as f64 / 1e3,
                                m * 1e3,
                                ci.map(|(l, h)| (l * 1e3, h * 1e3)),
                            )
                        })
                    })
                    .filter(|p| p.1 > 0.0)
                    .collect()
            };
            let base_label = if kind % 2 == 0 { "read()" } else { "write()" };
            let mut series = vec![
                Series {
                    label: format!("measured {base_label}"),
                    points: times(&|p| &p.2),
                    style: SeriesStyle::Measured,
                },
                Series {
                    label: "measured mmap".into(),
                    points: times(&|p| &p.3),
                    style: SeriesStyle::Measured,
                },
            ];
            let speedups: Vec<_> = mine
                .iter()
                .filter_map(|p| {
                    comparison(results, &p.2, &p.3).map(|r| ratio_point(p.1 as f64 / 1e3, &r))
                })
                .collect();
            let mut ratio_series = vec![Series {
                label: "measured speedup of mmap".into(),
                points: speedups,
                style: SeriesStyle::Measured,
            }];
            ratio_series.push(Series {
                label: "Liège 2018 (text)".into(),
                points: if kind < 2 {
                    vec![(1.0, 1.0, None), (160_000.0, 1.0, None)]
                } else {
                    vec![(RANDOM_SPEEDUP.1 as f64 / 1e3, RANDOM_SPEEDUP.0, None)]
                },
                style: SeriesStyle::Published,
            });
            series.retain(|s| !s.points.is_empty());
            let slug = name.replace(' ', "-");
            if !series.is_empty() {
                plots.push(series_plot(
                    &format!("liege2018-{slug}-time"),
                    &format!("liege2018 {name}: time per file"),
                    Axis::log("file size, kB"),
                    Axis::log("time, ms"),
                    &series,
                ));
            }
            if !ratio_series[0].points.is_empty() {
                plots.push(series_plot(
                    &format!("liege2018-{slug}-speedup"),
                    &format!("liege2018 {name}: speedup of mmap, measured and published"),
                    Axis::log("file size, kB"),
                    Axis::log("time ratio (read/write over mmap)"),
                    &ratio_series,
                ));
            }
        }
        plots.extend(figure5_plot(results, &all));
        plots
    }
}

/// Figure 5: user and sys CPU time of read() and mmap for sequential and
/// random reads of an 8000 kB file (or the plan's size nearest it), one
/// panel each; `None` when neither kind was measured.
fn figure5_plot(results: &RunResults, all: &[Pair]) -> Option<Plot> {
    let mut panels = Vec::new();
    let mut sampled: Vec<u64> = Vec::new();
    for (kind, title) in [(0, "sequential 16 KiB read"), (2, "random 1-byte read")] {
        let Some((_, size, b, o)) = all.iter().filter(|p| p.0 == kind).min_by(|x, y| {
            let off = |s: u64| (s as f64 / FIGURE5_SIZE as f64).ln().abs();
            off(x.1).total_cmp(&off(y.1))
        }) else {
            continue;
        };
        let summaries = [summary_of(results, b), summary_of(results, o)];
        let longest = summaries
            .iter()
            .flatten()
            .filter_map(|s| cpu_split(s).map(|(user, sys, _)| user + sys))
            .fold(0.0, f64::max);
        let (unit, unit_name) = time_unit(longest);
        let groups: Vec<BarGroup> = ["read()", "mmap"]
            .iter()
            .zip(summaries)
            .filter_map(|(name, s)| {
                let s = s?;
                let Some((user, sys, samples)) = cpu_split(s) else {
                    // No split to draw: an empty bar that says why.
                    let mut bar = Bar::stacked("", Vec::new());
                    bar.note = Some(super::UNRESOLVED.to_string());
                    return Some(BarGroup {
                        label: name.to_string(),
                        bars: vec![bar],
                    });
                };
                if let Some(n) = samples {
                    sampled.push(n);
                }
                let mut bar = Bar::stacked(
                    "",
                    vec![
                        Segment {
                            value: user / unit,
                            hue: Hue::User,
                        },
                        Segment {
                            value: sys / unit,
                            hue: Hue::Sys,
                        },
                    ],
                );
                if user + sys > 0.0 {
                    bar.note = Some(format!("sys {:.0}%", 100.0 * sys / (user + sys)));
                }
                Some(BarGroup {
                    label: name.to_string(),
                    bars: vec![bar],
                })
            })
            .collect();
        if groups.is_empty() {
            continue;
        }
        panels.push(BarPanel {
            title: format!("{title}, {} kB file", *size as f64 / 1e3),
            y_label: format!("CPU time, {unit_name}"),
            y_scale: AxisScale::Linear,
            groups,
        });
    }
    if panels.is_empty() {
        return None;
    }
    let chart = BarChart {
        panels,
        columns: 2,
        keys: time_split_keys().into_iter().take(2).collect(),
    };
    let split = if sampled.is_empty() {
        "user and sys as getrusage splits them".to_string()
    } else {
        format!(
            "split by --profile's samples: the trial's CPU time (getrusage's total) times the \
             share of the main loop's samples taken in the kernel, from {} samples per bar \
             (getrusage splits user from sys by the timer tick, too coarse for a few \
             milliseconds of CPU)",
            sampled
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Some(bar_plot(
        "liege2018-fig5-user-sys",
        "liege2018 Figure 5: user and sys CPU time of read() and mmap",
        &format!("As the report's Figure 5: mean user and sys CPU time per file (each trial's open, \
         mapping and loop), stacked, for sequential and random reads, read() beside mmap ({split}); the \
         note is sys's share of the CPU time (\"unresolved\" over an empty bar: trials too \
         short, or CPU time counted beyond their clock, for a split to be shown). The report gives no numbers for Figure 5, only \
         its reading, so no published bar is drawn: at 8000 kB read() spends its time in sys, \
         sequential totals are similar, and random read() needs far more (sys) time. Figure 5 \
         used one log axis; here each panel has its own linear axis, so the stacks add up. \
         Quick runs stop random 1-byte reads at 1 MB (at 8000 kB a read() trial makes 8 \
         million system calls), so the random panel shows the plan's largest random size; full \
         measures 8000 kB."),
        &chart,
    ))
}

/// A case's mean user and sys CPU time, s, when they can be set beside its
/// elapsed time: with `--profile`, getrusage's total split by the kernel's
/// share of all its samples (and the samples behind the split); otherwise
/// getrusage's own split, which the timer tick decides and which is too
/// coarse for trials of a few milliseconds. `None` (shown as
/// [`BELOW_RESOLUTION`]) where [`cpu_split_of`] cannot show getrusage's
/// split, or, with a profile, where the CPU time exceeds the elapsed time.
fn cpu_split(s: &crate::results::CaseSummary) -> Option<(f64, f64, Option<u64>)> {
    let elapsed = s.time_ns.mean / 1e9;
    let (user, sys) = (s.user_ns.mean / 1e9, s.sys_ns.mean / 1e9);
    match &s.profile {
        Some(p)
            if p.mode == crate::measure::profile::ProfileMode::KernelUser
                && p.samples > 0
                && user + sys <= elapsed * 1.05 =>
        {
            let kernel = p.pooled_kernel_share();
            let cpu = user + sys;
            Some((cpu * (1.0 - kernel), cpu * kernel, Some(p.samples)))
        }
        _ => cpu_split_of(s, elapsed).map(|(u, s)| (u, s, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faithful_draws_random_positions_with_replacement_and_nothing_else() {
        for scope in [Scope::QUICK, Scope::FULL, Scope::new(false, 256)] {
            let default = Liege2018.plan(scope);
            let faithful = Liege2018.plan(scope.faithful(true));
            assert_eq!(default.runs, faithful.runs);
            assert_eq!(default.cases.len(), faithful.cases.len());
            let mut changed = 0;
            for (d, f) in default.cases.iter().zip(&faithful.cases) {
                if d.pattern == Pattern::Random && !d.method.writes() {
                    assert_eq!(f.pattern, Pattern::RandomReplace);
                    changed += 1;
                } else {
                    assert_eq!(f.pattern, d.pattern, "{}", f.method);
                }
                let undone = Case {
                    pattern: d.pattern,
                    ..f.clone()
                };
                assert_eq!(&undone, d);
            }
            assert!(changed > 0);
            // Claims and tables find the faithful cases.
            assert_eq!(
                pairs_of_plan(&faithful.cases).len() * 2,
                faithful.cases.len()
            );
        }
    }

    #[test]
    fn about_100_times_is_judged_at_its_size_and_labels_say_what_is_checked() {
        let plan = Liege2018.plan(Scope::QUICK);
        let claims = Liege2018.claims(&plan);
        for c in claims.iter().filter(|c| c.text.contains("about 100x")) {
            assert_eq!(c.pairs.len(), 1);
            assert_eq!(c.pairs[0].0.file_size, 625_000);
            match &c.expect {
                Expect::Effect(p) => assert_eq!(p.band(), (50.0, 200.0)),
                other => panic!("{other:?}"),
            }
        }
        let seq = &claims[0];
        let n = seq.pairs.len();
        assert_eq!(n, 12, "read and write at six sizes");
        assert!(
            seq.text
                .contains("in at least 9 of the 12 comparisons (read and write, 1 kB–8000 kB)"),
            "{}",
            seq.text
        );
        assert!(seq.text.contains("0.67–1.5x"), "{}", seq.text);
        match &seq.expect {
            Expect::Effect(p) => assert_eq!(p.band(), (1.0 / 1.5, 1.5)),
            other => panic!("{other:?}"),
        }
        assert_eq!(seq.quorum, 0.75);
    }

    #[test]
    fn random_much_faster_is_judged_at_every_random_size() {
        for scope in [Scope::QUICK, Scope::FULL, Scope::new(false, 256)] {
            let plan = Liege2018.plan(scope);
            let claim = Liege2018
                .claims(&plan)
                .into_iter()
                .find(|c| c.id == "random-all-sizes")
                .unwrap();
            let (_, random) = sizes(scope);
            // Reads and writes at every random size of the plan.
            assert_eq!(claim.pairs.len(), 2 * random.len());
            for size in &random {
                for method in [MethodKind::Read, MethodKind::Write] {
                    assert!(
                        claim
                            .pairs
                            .iter()
                            .any(|(b, _)| b.file_size == *size && b.method == method),
                        "{size} {method}"
                    );
                }
            }
            match &claim.expect {
                Expect::Effect(p) => assert_eq!(p.band().0, MUCH_FASTER),
                other => panic!("{other:?}"),
            }
        }
        // Full measures random access up to 160 MB.
        assert_eq!(sizes(Scope::FULL).1.last(), Some(&160_000_000));
    }

    #[test]
    fn the_reports_self_contradiction_is_shown_where_it_is() {
        let notes = Liege2018.fidelity();
        let note = notes
            .iter()
            .find(|n| n.contains("contradicts itself"))
            .expect("a fidelity note on the contradiction");
        for text in [
            "section 1.c",
            "section 3",
            "small-files-measured",
            "small-files-read",
        ] {
            assert!(note.contains(text), "{text}: {note}");
        }
        let published = Liege2018.published()[0].render_text();
        assert!(
            published.contains("section 1.c (no measurement)"),
            "{published}"
        );
        assert!(
            published.contains("contradicts the row above"),
            "{published}"
        );
        // Both sides are claims, over the same small sequential reads.
        let plan = Liege2018.plan(Scope::QUICK);
        let claims = Liege2018.claims(&plan);
        let (measured, read) = (
            claims
                .iter()
                .find(|c| c.id == "small-files-measured")
                .unwrap(),
            claims.iter().find(|c| c.id == "small-files-read").unwrap(),
        );
        for (b, o) in &read.pairs {
            assert!(measured.pairs.contains(&(b.clone(), o.clone())));
        }
        // The measured table names both readings on the small sequential rows.
        let t = &Liege2018.measured(&crate::fixtures::results_of(&plan.cases))[0];
        let small = t
            .rows
            .iter()
            .find(|r| r[0] == "seq read" && r[1] == "1 kB")
            .unwrap();
        assert!(
            small[5].contains("sec. 3") && small[5].contains("sec. 1.c"),
            "{small:?}"
        );
        let big = t
            .rows
            .iter()
            .find(|r| r[0] == "random read" && r[1] == "1000 kB")
            .unwrap();
        assert_eq!(big[5], "much faster (above 2x)");
    }

    #[test]
    fn a_trials_user_and_sys_are_below_resolution_when_shorter_than_a_tick() {
        use crate::studies::testing::{around, measure};
        let plan = Liege2018.plan(Scope::QUICK);
        let mut results = crate::fixtures::results_of(&plan.cases);
        let (_, _, b, o) = pairs(Scope::QUICK)
            .into_iter()
            .find(|p| p.0 == 1 && p.1 == 1_000)
            .unwrap();
        // Microsecond writes whose getrusage split exceeds the clock.
        measure(&mut results, &b, &around(0.03, 4, 1.3));
        measure(&mut results, &o, &around(40.0, 4, 0.9));
        let t = &Liege2018.measured(&results)[0];
        let row = t
            .rows
            .iter()
            .find(|r| r[0] == "seq write" && r[1] == "1 kB")
            .unwrap();
        assert_eq!(row[6], BELOW_RESOLUTION);
        assert!(row[7].contains(" ms/"), "{row:?}");
        assert!(t.columns.contains(&"speedup [90% CI]".to_string()));
        // Figure 5's bars say so rather than draw it.
        assert!(cpu_split(summary_of(&results, &b).unwrap()).is_none());
    }
}
