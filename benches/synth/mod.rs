//! A synthetic JSON export of many cases, for timing `report` and `compare`
//! at the sizes the command line allows (up to 100,000 cases), without
//! committing huge files or running as many trials.
//!
//! The cases are pairs (read as each group's baseline, mmap) over distinct
//! block and file sizes; each has `runs` samples whose times vary with a
//! seeded generator, so the comparisons' verdicts vary (faster, slower,
//! within noise). The results are assembled by the same code as a real run's
//! ([`RunResults::assemble`]): real summaries, comparisons and adjustments.
use std::collections::BTreeMap;

use faultline::measure::environment::Environment;
use faultline::measure::rusage::Counters;
use faultline::method::MethodKind;
use faultline::pattern::Pattern;
use faultline::plan::{CacheState, Case, Metric, OrderPolicy, Plan};
use faultline::results::{ChildReport, RawResults, RunResults, Sample, Settings};
use faultline::workload::WorkloadKind;

/// A small seeded generator (SplitMix64): the same export for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The plan: `cases` cases (rounded up to even), in pairs of one group each.
pub fn plan(cases: usize, runs: u32) -> Plan {
    let groups = cases.div_ceil(2);
    let cases = (0..groups)
        .flat_map(|g| {
            let block = 4096 * (1 + (g % 64) as u64);
            let file = (64 + (g / 64) as u64) << 20;
            [MethodKind::Read, MethodKind::Mmap].map(|m| {
                let mut case = Case::new(
                    m,
                    Pattern::Seq,
                    block,
                    file,
                    WorkloadKind::Sum,
                    CacheState::Warm,
                );
                case.seed = 7;
                case
            })
        })
        .collect();
    Plan {
        cases,
        runs,
        warmup: 1,
        order: OrderPolicy::Alternating,
        metric: Metric::Total,
        seed: 7,
    }
}

/// One sample of case `case`, run `run`, whose main loop took `wall_ns`.
fn sample(case: usize, run: u32, sequence: u64, wall_ns: u64, bytes: u64) -> Sample {
    let mut vmstat = BTreeMap::new();
    vmstat.insert("pgfault".to_string(), 16_400);
    vmstat.insert("pgpgin".to_string(), 0);
    let child = ChildReport {
        wall_ns,
        setup_ns: 250_000,
        teardown_ns: 100_000,
        rusage: Counters {
            user_ns: wall_ns / 2,
            sys_ns: wall_ns / 3,
            minflt: 16_384,
            nvcsw: 1,
            nivcsw: 2,
            ..Default::default()
        },
        max_rss_kib: 2048,
        vmstat,
        bytes,
        syscalls: bytes / 16_384,
        ops: bytes / 16_384,
        checksum: 0xdead_beef,
        ..Default::default()
    };
    Sample {
        sequence,
        residency_source: "mincore".to_string(),
        cache_prepared_by: "evict+seq-read".to_string(),
        ..Sample::new(case, run, child)
    }
}

/// The export of a run of [`plan`]`(cases, runs)`, its times drawn with `seed`
/// (two seeds give two machines' exports of the same plan, for `compare`).
pub fn export(cases: usize, runs: u32, seed: u64) -> RunResults {
    let plan = plan(cases, runs);
    let mut rng = Rng(seed);
    let mut samples = Vec::with_capacity(plan.cases.len() * runs as usize);
    let mut sequence = 0;
    for run in 0..runs {
        for (id, case) in plan.cases.iter().enumerate() {
            // About 2 GB/s, each pair's second case between 0.8 and 1.25
            // times as fast, each trial within ±5%.
            let pair_speed = 0.8 + 0.45 * Rng(seed ^ (id as u64 / 2)).unit();
            let speed = if id % 2 == 1 { pair_speed } else { 1.0 };
            let noise = 0.95 + 0.1 * rng.unit();
            let wall_ns = (case.file_size as f64 / 2.0 / speed * noise) as u64;
            samples.push(sample(id, run, sequence, wall_ns, case.file_size));
            sequence += 1;
        }
    }
    let raw = RawResults {
        samples,
        failures: Vec::new(),
        warnings: Vec::new(),
        complete: true,
    };
    let settings = Settings {
        profile: None,
        file: "/tmp/synthetic".into(),
        generated: true,
        scratch_dir: None,
        runs,
        warmup: plan.warmup,
        order: plan.order,
        metric: plan.metric,
        drop_caches: false,
        seed: plan.seed,
        reproduction: None,
        interference: None,
        statistics: Default::default(),
    };
    let environment = Environment {
        hostname: Some(format!("synthetic-{seed}")),
        ..Environment::default()
    };
    let command = vec!["faultline".to_string(), "run".to_string()];
    RunResults::assemble(&plan, &raw, environment, settings, command)
}
