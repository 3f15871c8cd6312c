//! The factor table against the real binary: every flag an entry of
//! `faultline::plan::factor_table::FACTORS` names is a flag of `faultline
//! run`, so a factor cannot be declared with a flag that was renamed or
//! never added; and the expansion of factors into cases, pinned (the
//! cases, their order and the refusals of combinations that cannot run).
mod common;

use common::faultline;
use faultline::plan::factor_table::FACTORS;
use faultline::plan::factors::Factors;

#[test]
fn every_factor_flag_is_a_run_flag() {
    let out = faultline().args(["run", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    // A flag as clap lists it: at the start of a line, then a value or the end.
    let listed = |flag: &str| {
        help.lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix(flag)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '=']))
        })
    };
    let mut flags = 0;
    for factor in FACTORS {
        for flag in factor.flags {
            assert!(listed(flag), "{}: {flag} is not a flag of run", factor.name);
            flags += 1;
        }
    }
    assert!(flags > 30, "the table names {flags} flags");
}

// ---- The expansion's cases, pinned ----

/// What `Factors::plan` gives for a set of factors: the plan's run-wide
/// values, then each case as JSON, one a line, with the fields at their
/// default left out (so a new field at its default leaves the lines as they
/// are); or the refusal.
fn expansion(name: &str, factors: &Factors, sizes: &[u64]) -> String {
    let default = serde_json::to_value(faultline::plan::Case::default()).unwrap();
    let mut out = format!("## {name}\n");
    match factors.plan(sizes) {
        Err(e) => out.push_str(&format!("refused: {e}\n")),
        Ok(plan) => {
            out.push_str(&format!(
                "runs {} warmup {} order {:?} metric {:?} seed {} cases {}\n",
                plan.runs,
                plan.warmup,
                plan.order,
                plan.metric,
                plan.seed,
                plan.cases.len()
            ));
            for case in &plan.cases {
                let mut value = serde_json::to_value(case).unwrap();
                let fields = value.as_object_mut().unwrap();
                fields.retain(|k, v| !v.is_null() && default.get(k) != Some(v));
                if let Some(trace) = fields.get_mut("trace") {
                    // The canonical path depends on where the tree is.
                    trace["path"] = "fio-randrw-bsrange.v3.iolog".into();
                }
                out.push_str(&serde_json::to_string(&value).unwrap());
                out.push('\n');
            }
        }
    }
    out
}

/// Factor combinations that reach every stage of the expansion and every
/// kind of refusal of a combination, with their names.
fn scenarios() -> Vec<(&'static str, Factors, Vec<u64>)> {
    use faultline::method::{
        Advice, Fadvise, MethodKind as M, Msync, OpenSync, Populate, Share, SizeWith, SyncCall,
        SyncPolicy,
    };
    use faultline::pattern::Pattern;
    use faultline::plan::{CacheState, Target, ThreadMode, WarmBy};
    use faultline::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind as W};
    let p = |s: &str| s.parse::<Pattern>().unwrap();
    let mib = 1u64 << 20;
    let image = 3 * 64 * 64 + 15; // a 64x64 P6 image with its header
    let trace = {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio-randrw-bsrange.v3.iolog");
        let options = faultline::pattern::trace::TraceOptions {
            format: None,
            follow: faultline::pattern::trace::Follow::Busiest,
            file_size: None,
        };
        let (reference, trace) =
            faultline::pattern::trace::TraceRef::open(&path, &options).unwrap();
        faultline::pattern::trace::LoadedTrace { reference, trace }
    };
    let reads = Factors {
        methods: vec![
            M::Read,
            M::Pread,
            M::Preadv,
            M::Stdio,
            M::Mmap,
            M::Uring,
            M::UringDirect,
        ],
        patterns: vec![p("seq"), p("chase")],
        blocks: vec![4096],
        caches: vec![CacheState::Warm, CacheState::Cold],
        warm_bys: vec![WarmBy::Seq, WarmBy::Random],
        populates: vec![Populate::None, Populate::Map],
        advices: vec![Advice::Normal, Advice::Random],
        stdio_buffers: vec![4096, 65536],
        iovs: vec![1, 8],
        depths: vec![1, 32],
        registered: vec![false, true],
        fadvises: vec![Fadvise::Sequential],
        latency: vec![false, true],
        ..Factors::default()
    };
    let writes = Factors {
        methods: vec![M::Read, M::Write, M::Pwrite, M::MmapWrite, M::UringWrite],
        patterns: vec![p("seq")],
        blocks: vec![4096],
        fills: vec![FillContent::Pattern, FillContent::Zero],
        targets: vec![Target::Fresh, Target::Overwrite],
        syncs: vec![SyncPolicy::None, SyncPolicy::End],
        sync_calls: vec![SyncCall::Fsync, SyncCall::Fdatasync],
        msyncs: vec![Msync::Sync, Msync::Async],
        open_syncs: vec![OpenSync::None, OpenSync::Dsync],
        size_withs: vec![SizeWith::Truncate, SizeWith::Fallocate],
        ..Factors::default()
    };
    let rate = faultline::plan::pace::Rate::OpsPerS;
    let four_files = |max_size| {
        Some(faultline::plan::FileSet {
            count: 4,
            min_size: 4096,
            max_size,
        })
    };
    vec![
        (
            "the default comparison",
            Factors::default(),
            vec![mib, 2 * mib],
        ),
        (
            "patterns and blocks, seeded, shuffled",
            Factors {
                patterns: vec![p("random"), p("stride:4"), p("zipf:0.9")],
                blocks: vec![4096, 65536],
                seed: 7,
                runs: Some(3),
                warmup: 1,
                order: faultline::plan::OrderPolicy::Shuffled,
                metric: faultline::plan::Metric::Loop,
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "patterns alone, workloads",
            Factors {
                patterns: vec![p("reverse"), p("seq")],
                workloads: vec![W::Md5, W::Touch],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "blocks alone",
            Factors {
                blocks: vec![8192, 4096],
                ..Factors::default()
            },
            vec![mib],
        ),
        ("read methods and their options", reads.clone(), vec![mib]),
        (
            "write methods, their options and targets",
            writes.clone(),
            vec![mib],
        ),
        (
            "writes paired across sync levels, mmap private",
            Factors {
                pair_across_sync: true,
                shares: vec![Share::Shared, Share::Private],
                methods: vec![M::Mmap, M::Write, M::MmapWrite],
                syncs: vec![SyncPolicy::Each],
                ..writes.clone()
            },
            vec![mib],
        ),
        (
            "scale, enlarged, bytes as pixels",
            Factors {
                methods: vec![M::Read, M::Mmap],
                workloads: vec![W::Scale],
                scale_factors: vec![ScaleFactor::Reduce(2), ScaleFactor::Reduce(3)],
                enlarge: true,
                scale_unit: ScaleUnit::Byte,
                ..Factors::default()
            },
            vec![image],
        ),
        (
            "threads and their modes",
            Factors {
                methods: vec![M::Read, M::Mmap],
                workloads: vec![W::Sum],
                threads: vec![1, 2, 4],
                thread_modes: vec![ThreadMode::Split, ThreadMode::Replicate],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "for a duration",
            Factors {
                methods: vec![M::Read, M::Mmap],
                duration_s: Some(3),
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "processes under a budget",
            Factors {
                methods: vec![M::Read, M::Mmap],
                procs: Some(2),
                memory_budget: Some(faultline::plan::memory_budget::MemoryBudget {
                    kind: faultline::plan::memory_budget::BudgetKind::CgroupV2MemoryMax,
                    limit_bytes: 16 << 20,
                }),
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "paced",
            Factors {
                methods: vec![M::Read, M::Uring],
                rates: vec![rate(1000), faultline::plan::pace::Rate::BytesPerS(64 << 20)],
                think_ns: vec![5000],
                latency: vec![false, true],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "mixed reads and writes",
            Factors {
                methods: vec![M::Read, M::Pread, M::Mmap],
                read_shares: vec![50, 100],
                caches: vec![CacheState::Warm],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "many files",
            Factors {
                methods: vec![M::Read, M::Mmap],
                patterns: vec![p("seq"), p("random")],
                file_set: four_files(8192),
                file_size_given: true,
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "a trace, read and written",
            Factors {
                methods: vec![M::Read, M::Mmap, M::Pwrite],
                targets: vec![Target::Overwrite],
                trace: Some(trace),
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: write methods with a read workload",
            Factors {
                methods: vec![M::Write],
                workloads: vec![W::Sum],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: calloc for mmap-write",
            Factors {
                methods: vec![M::Write, M::MmapWrite],
                fills: vec![FillContent::Calloc],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: buffers past the limit",
            Factors {
                methods: vec![M::Read, M::Preadv],
                blocks: vec![64 << 20],
                iovs: vec![32],
                ..Factors::default()
            },
            vec![64 << 20],
        ),
        (
            "refused: paced threads",
            Factors {
                threads: vec![2],
                rates: vec![rate(10)],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: a duration for write methods",
            Factors {
                duration_s: Some(2),
                ..writes.clone()
            },
            vec![mib],
        ),
        (
            "refused: processes for write methods",
            Factors {
                procs: Some(2),
                methods: vec![M::Write],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: threads recording latency",
            Factors {
                threads: vec![2],
                latency: vec![true],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: too many cases",
            Factors {
                blocks: (1..=400).map(|k| k * 512).collect(),
                ..reads.clone()
            },
            vec![mib],
        ),
        (
            "refused: a block larger than the file",
            Factors {
                blocks: vec![2 * mib],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: files for a duration",
            Factors {
                file_set: four_files(4096),
                patterns: vec![p("seq")],
                duration_s: Some(1),
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: read share with private mappings",
            Factors {
                methods: vec![M::Mmap],
                read_shares: vec![50],
                shares: vec![Share::Private],
                ..Factors::default()
            },
            vec![mib],
        ),
        (
            "refused: scale with a pattern",
            Factors {
                workloads: vec![W::Scale],
                patterns: vec![p("random")],
                ..Factors::default()
            },
            vec![image],
        ),
        (
            "refused: open-sync without a method that takes it",
            Factors {
                methods: vec![M::MmapWrite],
                open_syncs: vec![OpenSync::Dsync],
                ..Factors::default()
            },
            vec![mib],
        ),
    ]
}

/// The expansions of [`scenarios`], as the expansion gave them before it
/// became a list of steps (issue 22): the cases, their order and the
/// refusals are to stay exactly these. `FAULTLINE_WRITE_SNAPSHOT=1`
/// writes it again (for a change that means to change the cases).
const SNAPSHOT: &str = "tests/fixtures/plan-expansion.txt";

#[test]
fn the_expansion_gives_the_pinned_cases_in_the_pinned_order() {
    let got: String = scenarios()
        .iter()
        .map(|(name, factors, sizes)| expansion(name, factors, sizes))
        .collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
    if std::env::var_os("FAULTLINE_WRITE_SNAPSHOT").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    for (n, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{SNAPSHOT}:{}: the expansion changed", n + 1);
    }
    assert_eq!(got.len(), want.len(), "{SNAPSHOT}: its length changed");
    // Each scenario expands, or is refused as its name says.
    for (name, factors, sizes) in scenarios() {
        let refused = factors.plan(&sizes).is_err();
        assert_eq!(refused, name.starts_with("refused"), "{name}");
    }
}
