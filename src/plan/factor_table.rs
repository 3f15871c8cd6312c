//! The factor table: one entry per field of a [`Case`], saying what the
//! field is to the rest of faultline, in one place.
//!
//! Each entry gives the field's name (as the journal and the JSON export
//! spell it), the `faultline run` flags that sweep it, its role in the
//! grouping (cases that differ in a [`Role::Groups`] factor are never
//! compared; cases of one group differ in the [`Role::Compared`] ones: the
//! method and its options), its part of the method label, its words in the
//! group heading and its CSV columns. From the table: [`Case::group_key`],
//! [`Case::method_label`] and [`Case::group_label`] (defined here), and the
//! factor columns of the CSV export ([`column`]).
//!
//! Adding a factor is a `Case` field and one entry here (docs/architecture.md,
//! "Adding a factor"); the tests below fail while a field has no entry, an
//! entry's role disagrees with the group key, or its label part, heading
//! words or CSV columns do not show it.
use super::{CacheState, Case, Target, WarmBy};
use crate::method::{
    Advice, Fadvise, MethodKind, Msync, OpenSync, Populate, Share, SizeWith, SyncCall, SyncPolicy,
};
use crate::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

/// What a factor is to the grouping of cases.
#[derive(Clone, Copy)]
pub enum Role {
    /// Part of the group key: cases that differ in it are never compared.
    Groups,
    /// What the cases of one group differ in (the method and its options):
    /// left out of the group key by `clear`. A write case's sync options
    /// still group through its sync level ([`Case::sync_level`]).
    Compared(fn(&mut Case)),
    /// The same for every case of a run (a run-wide setting the case
    /// records): left out of the group key by `clear`.
    RunWide(fn(&mut Case)),
}

/// A CSV column of a factor: its name and its cell (empty when absent).
#[derive(Clone, Copy)]
pub struct Column {
    /// The header's name (docs/csv.md has a row for each).
    pub name: &'static str,
    /// The cell of a case.
    pub get: fn(&Case) -> String,
}

/// One field of [`Case`] and what it is to the rest of faultline.
#[derive(Clone, Copy)]
pub struct Factor {
    /// The field, as the journal and the JSON export name it.
    pub name: &'static str,
    /// The `faultline run` flags that set it (empty: derived from other
    /// factors, or set by presets and `faultline calibrate` only).
    pub flags: &'static [&'static str],
    /// Its role in the grouping.
    pub role: Role,
    /// Its part of the method label (`populate=map`), for a compared factor
    /// that shows there; `None` when absent or at its default.
    pub label: Option<fn(&Case) -> Option<String>>,
    /// Its words in the group heading after the workload (`, 2 threads
    /// split`), in the table's order; `None` when absent. The pattern, block,
    /// workload and cache state frame the heading ([`Case::group_label`]).
    pub heading: Option<fn(&Case) -> Option<String>>,
    /// Its columns in the CSV export (none: the export leaves it out).
    pub columns: &'static [Column],
    /// Sets the field to a value other than [`Case::default`]'s, so the
    /// checks can see the factor reach the group key, the label and the CSV.
    pub example: fn(&mut Case),
}

/// An optional value's cell: empty when absent.
fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|x| x.to_string()).unwrap_or_default()
}

/// `option=value` when `value` is given and not `default`.
fn part<T: PartialEq + std::fmt::Display>(
    name: &str,
    value: Option<T>,
    default: T,
) -> Option<String> {
    value
        .filter(|v| *v != default)
        .map(|v| format!("{name}={v}"))
}

macro_rules! column {
    ($name:literal, $get:expr) => {
        Column {
            name: $name,
            get: $get,
        }
    };
}

/// Every field of [`Case`], in the order their parts appear in the method
/// label and in the group heading.
pub const FACTORS: &[Factor] = &[
    Factor {
        name: "method",
        flags: &["--method"],
        role: Role::Compared(|c| c.method = MethodKind::default()),
        label: None, // the label's stem
        heading: None,
        columns: &[column!("method", |c| c.method.to_string())],
        example: |c| c.method = MethodKind::Uring,
    },
    Factor {
        name: "pattern",
        flags: &["--pattern"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("pattern", |c| c.pattern.to_string())],
        example: |c| c.pattern = crate::pattern::Pattern::Reverse,
    },
    Factor {
        name: "block_size",
        flags: &["--block"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("block_size", |c| c.block_size.to_string())],
        example: |c| c.block_size = 8192,
    },
    Factor {
        name: "file_size",
        flags: &["--size", "--image", "--file-size"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("file_size", |c| c.file_size.to_string())],
        example: |c| c.file_size = 1 << 20,
    },
    Factor {
        name: "workload",
        flags: &["--workload"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("workload", |c| c.workload.to_string())],
        example: |c| c.workload = WorkloadKind::Touch,
    },
    Factor {
        name: "cache",
        flags: &["--cache"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("cache", |c| c.cache.to_string())],
        example: |c| c.cache = super::CacheState::Cold,
    },
    Factor {
        name: "warm_by",
        flags: &["--warm-by"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("warm_by", |c| c.warm_by.to_string())],
        example: |c| c.warm_by = super::WarmBy::Random,
    },
    Factor {
        name: "target",
        flags: &["--target"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[column!("target", |c| opt(c.target))],
        example: |c| c.target = Some(super::Target::Overwrite),
    },
    Factor {
        name: "fill",
        flags: &["--fill"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| c.fill.map(|f| format!(" {f}"))),
        columns: &[column!("fill", |c| opt(c.fill))],
        example: |c| c.fill = Some(FillContent::Zero),
    },
    Factor {
        name: "populate",
        flags: &["--populate"],
        role: Role::Compared(|c| c.populate = None),
        label: Some(|c| part("populate", c.populate, Populate::None)),
        heading: None,
        columns: &[column!("populate", |c| opt(c.populate))],
        example: |c| c.populate = Some(Populate::Map),
    },
    Factor {
        name: "advice",
        flags: &["--advice"],
        role: Role::Compared(|c| c.advice = None),
        label: Some(|c| part("advice", c.advice, Advice::Normal)),
        heading: None,
        columns: &[column!("advice", |c| opt(c.advice))],
        example: |c| c.advice = Some(Advice::Random),
    },
    Factor {
        name: "share",
        flags: &["--share"],
        role: Role::Compared(|c| c.share = None),
        label: Some(|c| part("share", c.share, Share::Shared)),
        heading: None,
        columns: &[column!("share", |c| opt(c.share))],
        example: |c| c.share = Some(Share::Private),
    },
    Factor {
        name: "sync",
        flags: &["--sync"],
        role: Role::Compared(|c| c.sync = None),
        label: Some(|c| part("sync", c.sync, SyncPolicy::None)),
        heading: Some(|c| match c.grouped_sync_level() {
            Some(SyncPolicy::End) => Some(", synced at the end".to_string()),
            Some(SyncPolicy::Each) => Some(", synced after each block".to_string()),
            Some(SyncPolicy::None) | None => None,
        }),
        columns: &[column!("sync", |c| opt(c.sync))],
        example: |c| c.sync = Some(SyncPolicy::End),
    },
    Factor {
        name: "sync_call",
        flags: &["--sync-call"],
        role: Role::Compared(|c| c.sync_call = None),
        label: Some(|c| part("sync-call", c.sync_call, SyncCall::Fsync)),
        heading: None,
        columns: &[column!("sync_call", |c| opt(c.sync_call))],
        example: |c| c.sync_call = Some(SyncCall::Fdatasync),
    },
    Factor {
        name: "msync",
        flags: &["--msync"],
        role: Role::Compared(|c| c.msync = None),
        label: Some(|c| part("msync", c.msync, Msync::Sync)),
        heading: None,
        columns: &[column!("msync", |c| opt(c.msync))],
        example: |c| c.msync = Some(Msync::Async),
    },
    Factor {
        name: "open_sync",
        flags: &["--open-sync"],
        role: Role::Compared(|c| c.open_sync = None),
        label: Some(|c| part("open-sync", c.open_sync, OpenSync::None)),
        heading: None,
        columns: &[column!("open_sync", |c| opt(c.open_sync))],
        example: |c| c.open_sync = Some(OpenSync::Dsync),
    },
    Factor {
        name: "size_with",
        flags: &["--size-with"],
        role: Role::Compared(|c| c.size_with = None),
        label: Some(|c| part("size-with", c.size_with, SizeWith::Truncate)),
        heading: None,
        columns: &[column!("size_with", |c| opt(c.size_with))],
        example: |c| c.size_with = Some(SizeWith::Fallocate),
    },
    Factor {
        name: "stdio_buffer",
        flags: &["--stdio-buffer"],
        role: Role::Compared(|c| c.io.stdio_buffer = None),
        label: Some(|c| {
            let b = c.io.stdio_buffer;
            b.map(|b| format!("buffer={}", crate::size::format_size(b)))
        }),
        heading: None,
        columns: &[column!("stdio_buffer", |c| opt(c.io.stdio_buffer))],
        example: |c| c.io.stdio_buffer = Some(4096),
    },
    Factor {
        name: "depth",
        flags: &["--depth"],
        role: Role::Compared(|c| c.io.depth = None),
        label: Some(|c| c.io.depth.map(|d| format!("depth={d}"))),
        heading: None,
        columns: &[column!("depth", |c| opt(c.io.depth))],
        example: |c| c.io.depth = Some(8),
    },
    Factor {
        name: "registered",
        flags: &["--uring-registered"],
        role: Role::Compared(|c| c.io.registered = None),
        label: Some(|c| (c.io.registered == Some(true)).then(|| "registered".to_string())),
        heading: None,
        columns: &[column!("uring_registered", |c| opt(c.io.registered))],
        example: |c| c.io.registered = Some(true),
    },
    Factor {
        name: "iov",
        flags: &["--iov"],
        role: Role::Compared(|c| c.io.iov = None),
        label: Some(|c| c.io.iov.map(|n| format!("iov={n}"))),
        heading: None,
        columns: &[column!("iov", |c| opt(c.io.iov))],
        example: |c| c.io.iov = Some(8),
    },
    Factor {
        name: "fadvise",
        flags: &["--fadvise"],
        role: Role::Compared(|c| c.io.fadvise = None),
        label: Some(|c| c.io.fadvise.map(|hint| format!("fadvise={hint}"))),
        heading: None,
        columns: &[], // in the method label only
        example: |c| c.io.fadvise = Some(Fadvise::Sequential),
    },
    Factor {
        name: "latency",
        flags: &["--latency"],
        role: Role::Compared(|c| c.latency = false),
        label: Some(|c| c.latency.then(|| "latency".to_string())),
        heading: None,
        columns: &[column!("latency", |c| c.latency.to_string())],
        example: |c| c.latency = true,
    },
    Factor {
        name: "replica",
        flags: &[], // `faultline calibrate`'s copies A and A′
        role: Role::Compared(|c| c.replica = None),
        label: Some(|c| {
            let copy = |r| if r == 0 { "A" } else { "B" };
            c.replica.map(|r| format!("copy={}", copy(r)))
        }),
        heading: None,
        columns: &[],
        example: |c| c.replica = Some(1),
    },
    Factor {
        name: "seed",
        flags: &["--seed"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[],
        example: |c| c.seed = 7,
    },
    Factor {
        name: "scale",
        flags: &["--factor", "--enlarge"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| match c.scale? {
            ScaleFactor::Reduce(k) => Some(format!(" /{k}")),
            ScaleFactor::Enlarge(k) => Some(format!(" x{k}")),
        }),
        columns: &[column!("scale_factor", |c| opt(c.scale))],
        example: |c| c.scale = Some(ScaleFactor::Reduce(4)),
    },
    Factor {
        name: "scale_unit",
        flags: &["--scale-unit"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| {
            (c.scale_unit == Some(ScaleUnit::Byte)).then(|| " bytes as pixels".to_string())
        }),
        columns: &[],
        example: |c| {
            c.scale = Some(ScaleFactor::Reduce(2));
            c.scale_unit = Some(ScaleUnit::Byte);
        },
    },
    Factor {
        name: "threads",
        flags: &["--threads", "--thread-mode"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| {
            c.threads
                .map(|t| format!(", {} threads {}", t.count, t.mode))
        }),
        columns: &[
            column!("threads", |c| opt(c.threads.map(|t| t.count))),
            column!("thread_mode", |c| opt(c.threads.map(|t| t.mode))),
        ],
        example: |c| {
            let mode = super::ThreadMode::Replicate;
            c.threads = Some(super::Threads { count: 2, mode });
        },
    },
    Factor {
        name: "procs",
        flags: &["--procs"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| c.procs.map(|n| format!(", {n} processes"))),
        columns: &[column!("procs", |c| opt(c.procs))],
        example: |c| c.procs = Some(2),
    },
    Factor {
        name: "duration_s",
        flags: &["--duration"],
        role: Role::RunWide(|c| c.duration_s = None),
        label: None,
        heading: Some(|c| c.duration_s.map(|s| format!(", {s} s"))),
        columns: &[],
        example: |c| c.duration_s = Some(2),
    },
    Factor {
        name: "memory_budget",
        flags: &["--memory-budget"],
        role: Role::RunWide(|c| c.memory_budget = None),
        label: None,
        heading: Some(|c| c.memory_budget.map(|b| format!(", {b}"))),
        columns: &[],
        example: |c| {
            let kind = super::memory_budget::BudgetKind::CgroupV2MemoryMax;
            let limit_bytes = 16 << 20;
            c.memory_budget = Some(super::memory_budget::MemoryBudget { kind, limit_bytes });
        },
    },
    Factor {
        name: "device_rate",
        flags: &["--device-rate"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| c.device_rate.map(|r| format!(", {r}"))),
        columns: &[],
        example: |c| {
            let kind = super::device_rate::ThrottleKind::CgroupV1Blkio;
            c.device_rate = Some(super::device_rate::DeviceRate {
                kind,
                bytes_per_s: 8_000_000,
            });
        },
    },
    Factor {
        name: "pace",
        flags: &["--rate", "--think-time"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| c.pace.map(|p| format!(", {p}"))),
        columns: &[
            column!("rate", |c| opt(c.pace.and_then(|p| p.rate))),
            column!("think_ns", |c| opt(c.pace.and_then(|p| p.think_ns))),
        ],
        example: |c| {
            let rate = Some(super::pace::Rate::OpsPerS(1000));
            c.pace = Some(super::pace::Pace {
                rate,
                think_ns: Some(10),
            });
        },
    },
    Factor {
        name: "read_share",
        flags: &["--read-share"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| c.read_share.map(|share| format!(", {share}% reads"))),
        columns: &[column!("read_share", |c| opt(c.read_share))],
        example: |c| c.read_share = Some(50),
    },
    Factor {
        name: "files",
        flags: &["--files", "--file-size"],
        role: Role::Groups,
        label: None,
        heading: Some(|c| c.files.map(|set| format!(", {set}"))),
        columns: &[
            column!("files", |c| opt(c.files.map(|f| f.count))),
            column!("file_size_min", |c| opt(c.files.map(|f| f.min_size))),
            column!("file_size_max", |c| opt(c.files.map(|f| f.max_size))),
        ],
        example: |c| {
            let (min_size, max_size) = (4096, 8192);
            c.files = Some(super::FileSet {
                count: 4,
                min_size,
                max_size,
            });
        },
    },
    Factor {
        name: "trace",
        flags: &["--trace", "--trace-format", "--trace-fd", "--trace-path"],
        role: Role::Groups,
        label: None,
        heading: None,
        columns: &[], // `pattern` is `trace`
        example: |c| c.trace = serde_json::from_str(TRACE_EXAMPLE).ok(),
    },
    Factor {
        name: "min_trial_ns",
        flags: &["--min-trial-time"],
        role: Role::RunWide(|c| c.min_trial_ns = None),
        label: None,
        heading: None,
        columns: &[],
        example: |c| c.min_trial_ns = Some(1_000_000),
    },
    Factor {
        name: "pair_across_sync",
        flags: &["--pair-across-sync"],
        role: Role::RunWide(|c| c.pair_across_sync = false),
        label: None,
        heading: None,
        columns: &[],
        example: |c| c.pair_across_sync = true,
    },
];

/// A trace reference as a case records it (the factor's example).
const TRACE_EXAMPLE: &str = r#"{"path":"/t.iolog","blake3":"00","format":"fio-v3",
    "follow":"busiest","reads":1,"read_bytes":4096,"writes":0,"write_bytes":0,
    "longest_read":4096,"longest_write":0}"#;

/// The factor CSV column named `name`, if a factor has one.
pub fn column(name: &str) -> Option<&'static Column> {
    FACTORS
        .iter()
        .flat_map(|f| f.columns)
        .find(|c| c.name == name)
}

/// What [`Case::group_key`] returns: the case with only its grouping
/// factors, and the sync level a write case is grouped by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupKey {
    factors: Case,
    sync_level: Option<SyncPolicy>,
}

impl Case {
    /// Everything but the method and its options (for write methods: the
    /// sync call, msync's flag and sizing; the sync level too with
    /// `--pair-across-sync`): cases with the same group key are compared
    /// with each other. The table's [`Role`]s say which factors group.
    pub fn group_key(&self) -> GroupKey {
        let mut factors = self.clone();
        for factor in FACTORS {
            match factor.role {
                Role::Groups => {}
                Role::Compared(clear) | Role::RunWide(clear) => clear(&mut factors),
            }
        }
        // A scale unit counts with its factor only, and an absent one is a pixel.
        factors.scale_unit = self.scale.map(|_| self.scale_unit.unwrap_or_default());
        GroupKey {
            factors,
            sync_level: self.grouped_sync_level(),
        }
    }

    /// The method with its options, e.g. `mmap`, `mmap(populate=map,advice=random)`,
    /// `write(sync=end,sync-call=fdatasync)` or `pwrite(open-sync=dsync)`:
    /// each compared factor's label part, in the table's order. Options at
    /// their defaults are left out.
    pub fn method_label(&self) -> String {
        let opts: Vec<String> = FACTORS
            .iter()
            .filter_map(|f| f.label.and_then(|label| label(self)))
            .collect();
        if opts.is_empty() {
            self.method.to_string()
        } else {
            format!("{}({})", self.method, opts.join(","))
        }
    }

    /// A short description of the group, e.g. `seq 16 KiB sum, warm`,
    /// `seq 16 KiB fill pattern, fresh file` or `random 1 B fill zero, overwrite, cold`;
    /// a block as large as the file is `whole-file` (`seq whole-file scale /2, ...`).
    /// After the workload, each factor's heading words in the table's order.
    pub fn group_label(&self) -> String {
        let cache = match (self.cache, self.warm_by) {
            (CacheState::Warm, WarmBy::Seq) => "warm".to_string(),
            (CacheState::Warm, by) => format!("warm (by {by})"),
            (c, _) => c.to_string(),
        };
        let state = match self.target {
            None => cache,
            Some(Target::Fresh) => "fresh file".to_string(),
            Some(Target::Overwrite) => format!("overwrite, {cache}"),
        };
        let mut workload = self.workload.to_string();
        for factor in FACTORS {
            if let Some(words) = factor.heading.and_then(|heading| heading(self)) {
                workload.push_str(&words);
            }
        }
        format!(
            "{} {} {}, {}",
            self.pattern_label(),
            self.block_label(),
            workload,
            state
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of `Case`, by an exhaustive pattern: a field added to
    /// `Case` stops this compiling until it is named here, and the test
    /// below fails until the table has an entry for it.
    macro_rules! case_fields {
        ($($field:ident),* ; io: $($io:ident),*) => {{
            let Case { $($field: _,)* io: crate::method::IoOptions { $($io: _,)* } } = Case::default();
            [$(stringify!($field),)* $(stringify!($io),)*]
        }};
    }

    #[test]
    fn every_case_field_has_one_entry() {
        let mut fields = case_fields!(
            method, pattern, block_size, file_size, workload, cache, warm_by, populate,
            advice, share, sync, sync_call, open_sync, msync, target, size_with, fill, seed,
            latency, scale, scale_unit, threads, procs, duration_s, pace, memory_budget, device_rate, trace,
            min_trial_ns, read_share, files, replica, pair_across_sync;
            io: stdio_buffer, iov, depth, registered, fadvise
        )
        .to_vec();
        let mut names: Vec<&str> = FACTORS.iter().map(|f| f.name).collect();
        fields.sort_unstable();
        names.sort_unstable();
        assert_eq!(names, fields);
    }

    #[test]
    fn each_example_changes_its_field_as_serialized() {
        // The entry's name is the field's: its example shows under that key.
        let base = serde_json::to_value(Case::default()).unwrap();
        for factor in FACTORS {
            let mut case = Case::default();
            (factor.example)(&mut case);
            let changed = serde_json::to_value(&case).unwrap();
            assert_ne!(
                base.get(factor.name),
                changed.get(factor.name),
                "{}: its example does not show under its name",
                factor.name
            );
        }
    }

    #[test]
    fn the_group_key_follows_each_factor_s_role() {
        for factor in FACTORS {
            // A read case: its sync level is none, whatever the write options.
            let base = Case::default();
            let mut case = base.clone();
            (factor.example)(&mut case);
            let same = case.group_key() == base.group_key();
            match factor.role {
                Role::Groups => assert!(!same, "{} is not in the group key", factor.name),
                Role::Compared(_) | Role::RunWide(_) => {
                    assert!(same, "{} splits groups", factor.name)
                }
            }
        }
    }

    #[test]
    fn every_compared_factor_shows_in_the_label_or_the_csv() {
        for factor in FACTORS {
            if !matches!(factor.role, Role::Compared(_)) {
                continue;
            }
            let base = Case::default();
            let mut case = base.clone();
            (factor.example)(&mut case);
            let cells = |c: &Case| -> Vec<String> {
                factor.columns.iter().map(|col| (col.get)(c)).collect()
            };
            assert!(
                case.method_label() != base.method_label() || cells(&case) != cells(&base),
                "{}: two cases of a group that differ in it would look the same",
                factor.name
            );
        }
    }

    /// Grouping factors the group label leaves out: the reports' group
    /// heading adds them (report/groups.rs: the file size, and the seed of
    /// groups that differ only in it).
    const HEADED_BY_THE_REPORTS: [&str; 2] = ["file_size", "seed"];

    #[test]
    fn every_grouping_factor_shows_in_the_group_label() {
        for factor in FACTORS {
            if !matches!(factor.role, Role::Groups) || HEADED_BY_THE_REPORTS.contains(&factor.name)
            {
                continue;
            }
            let base = Case::default();
            let mut case = base.clone();
            (factor.example)(&mut case);
            assert_ne!(
                case.group_label(),
                base.group_label(),
                "{}: two groups that differ in it would have one heading",
                factor.name
            );
        }
    }

    #[test]
    fn each_factor_column_shows_its_factor() {
        for factor in FACTORS {
            let base = Case::default();
            let mut case = base.clone();
            (factor.example)(&mut case);
            for col in factor.columns {
                assert_ne!((col.get)(&case), (col.get)(&base), "{}", col.name);
            }
        }
    }

    #[test]
    fn names_and_columns_are_unique() {
        let mut names: Vec<&str> = FACTORS.iter().map(|f| f.name).collect();
        let mut columns: Vec<&str> = FACTORS
            .iter()
            .flat_map(|f| f.columns)
            .map(|c| c.name)
            .collect();
        for list in [&mut names, &mut columns] {
            let n = list.len();
            list.sort_unstable();
            list.dedup();
            assert_eq!(list.len(), n);
        }
    }
}
