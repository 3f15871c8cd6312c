//! Samples: what one trial measured, as it is exported.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the trial child measured about itself and sends back to the runner.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChildReport {
    /// Main loop wall time, ns.
    pub wall_ns: u64,
    /// Whether the trial was stopped (Ctrl-Z, SIGSTOP) and continued while
    /// it ran: its times then hold the pause, and the runner marks the
    /// sample interfered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
    /// Setup (buffer allocation; mmap, advice, populate), ns.
    pub setup_ns: u64,
    /// Teardown (munmap, free), ns.
    pub teardown_ns: u64,
    /// Time spent syncing written data (fsync, fdatasync or msync), ns: the
    /// sync after the loop (`--sync end`) or the sum of the syncs inside it
    /// (`--sync each`, then left out of `wall_ns`). 0 when nothing syncs.
    #[serde(default)]
    pub sync_ns: u64,
    /// getrusage() deltas over setup + loop + sync + teardown.
    #[serde(flatten)]
    pub rusage: crate::measure::rusage::Counters,
    /// The page faults `rusage` counted in setup, outside the main loop's
    /// clock (MAP_POPULATE's prefault, a pre-faulted buffer); `None` where
    /// setup is not apart from the loop (threaded and duration-bounded
    /// trials) and in results from before it was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_faults: Option<SetupFaults>,
    /// Peak resident set of the trial process, KiB.
    pub max_rss_kib: u64,
    /// Deltas of selected /proc/vmstat counters (system-wide) over setup + loop + teardown.
    pub vmstat: BTreeMap<String, i64>,
    /// Requests and bytes the file's block device served over setup + loop +
    /// teardown (device-wide); `None` when the file has no block device.
    #[serde(default)]
    pub device: Option<crate::measure::device::DeviceDelta>,
    /// Bytes delivered to the workload (read methods) or written (write
    /// methods); for a mixed case (`--read-share`) both, `bytes_written` of
    /// them written.
    pub bytes: u64,
    /// A mixed case's bytes written (its bytes read are `bytes` less these);
    /// absent for every other case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    /// Many files (`--files`): the files opened and closed (or mapped and
    /// unmapped) in the main loop; absent for one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_opened: Option<u64>,
    /// I/O system calls the method issued in the main loop.
    pub syscalls: u64,
    /// Operations delivered to the workload: blocks, or a trace's
    /// operations (over every thread); 0 in results from before it was counted.
    #[serde(default)]
    pub ops: u64,
    /// The workload's checksum.
    pub checksum: u64,
    /// Per-operation latency percentiles, when the case asked for them.
    #[serde(default)]
    pub latency: Option<crate::measure::latency::LatencyPercentiles>,
    /// Each thread's own time (setup + loop + teardown), ns, when the case
    /// runs on threads (`--threads`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_ns: Vec<u64>,
    /// Proportional set size of the trial process (KiB, from
    /// /proc/self/smaps_rollup), read after the main loop and before
    /// teardown, so a mapping's pages still count; only with `--procs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pss_kib: Option<u64>,
    /// With `--procs N`: each process's own figures (the sample's other
    /// fields are those of the slowest process); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub procs: Vec<ProcStat>,
    /// One point per second of a duration-bounded trial ([`crate::trial::timed`]);
    /// empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<crate::measure::timeline::TimelinePoint>,
    /// The distinct blocks (pages, for a trace) the trial touched, counted
    /// after its clocks stopped ([`crate::pattern::Footprint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footprint: Option<crate::pattern::Footprint>,
    /// Passes over the file inside this trial (`--min-trial-time`); the
    /// clocks, bytes and syscalls are those of all of them. Absent: one pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// How long the trial's thread waited for a CPU over the trial (one-thread
    /// trials; the interference rule judges them by it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait: Option<crate::measure::run_delay::CpuWait>,
    /// Where the main loop's CPU time went (`--profile`), named by the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::TrialProfile>,
    /// The profile as the child sends it, before the parent names it (the
    /// runner replaces it with `profile`; it is never journaled or exported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_profile: Option<crate::measure::profile::RawProfile>,
}

/// Page faults taken in a trial's setup (every pass's, with `--min-trial-time`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupFaults {
    /// Minor page faults.
    pub minflt: u64,
    /// Major page faults.
    pub majflt: u64,
}

impl SetupFaults {
    /// The faults between two getrusage() readings.
    pub fn between(
        before: &crate::measure::rusage::RusageSnapshot,
        after: &crate::measure::rusage::RusageSnapshot,
    ) -> SetupFaults {
        let d = after.delta_since(before);
        SetupFaults {
            minflt: d.minflt,
            majflt: d.majflt,
        }
    }

    /// The sum of two passes' setup faults.
    pub fn plus(self, other: SetupFaults) -> SetupFaults {
        SetupFaults {
            minflt: self.minflt + other.minflt,
            majflt: self.majflt + other.majflt,
        }
    }
}

impl ChildReport {
    /// A report holding only the counters of `delta` (what changed around the
    /// trial); the trial fills in its clocks and counts.
    pub fn counted(delta: crate::measure::CounterDelta) -> ChildReport {
        ChildReport {
            rusage: delta.rusage,
            max_rss_kib: delta.max_rss_kib,
            vmstat: delta.vmstat,
            device: delta.device,
            ..Default::default()
        }
    }
}

/// One successful trial of one case.
///
/// Read by [`SampleVisitor`] rather than a derived `Deserialize`: serde's
/// `flatten` would gather the child's report (most of the sample) into a
/// buffer and parse it a second time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// Index of the case in the plan.
    pub case: usize,
    /// Run number, from 0 (warm-up runs are not kept).
    pub run: u32,
    /// Position of this trial in the whole run's order (from 0).
    pub sequence: u64,
    /// setup + main loop + sync + teardown, ns.
    pub total_ns: u64,
    /// What the child measured.
    #[serde(flatten)]
    pub child: ChildReport,
    /// Fraction of the file's pages resident just before the trial.
    pub residency_before: f64,
    /// Fraction of the file's pages resident just after the trial.
    pub residency_after: f64,
    /// How residency was measured: `cachestat` or `mincore`.
    pub residency_source: String,
    /// How the cache state was prepared, e.g. `fadvise-dontneed` or `evict+seq-read`.
    pub cache_prepared_by: String,
    /// Whether the measured residency reached the asked-for state
    /// (cold: at most 1%; warm: at least 99%; as-is: always).
    pub cache_reached: bool,
    /// What else the machine did while the trial ran, and whether that
    /// makes it interfered (see [`crate::measure::interference`]); `None`
    /// with `--interference-threshold off` and in results written before
    /// it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<crate::measure::interference::Interference>,
    /// 0 for the first trial of its (case, run); k for the k-th re-run of
    /// an interfered one (`--retry-interfered`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
    /// Why the statistics leave this sample out, set when the results are
    /// assembled (never in the journal): `retried` (a later attempt of the
    /// same run replaces it) or `interfered` (`--exclude-interfered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// An unprofiled control trial of a `--profile` run
    /// (`--profile-control`): run beside the profiled trial of the same run
    /// number, with the same cache preparation, to measure what profiling
    /// costs. Kept in the journal and the exports, never counted in the
    /// case's statistics (`excluded` is `profile-control`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub profile_control: bool,
}

/// A sample's own fields as [`SampleVisitor`] finds them.
#[derive(Default)]
struct SampleOwn {
    case: Option<usize>,
    run: Option<u32>,
    sequence: Option<u64>,
    total_ns: Option<u64>,
    residency_before: Option<f64>,
    residency_after: Option<f64>,
    residency_source: Option<String>,
    cache_prepared_by: Option<String>,
    cache_reached: Option<bool>,
    interference: Option<Option<crate::measure::interference::Interference>>,
    attempt: Option<u32>,
    excluded: Option<Option<String>>,
    profile_control: Option<bool>,
}

impl SampleOwn {
    /// Parses the value of `key` if it is a sample's own field.
    fn take<'de, A: serde::de::MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        use super::flat::take;
        match key {
            "case" => take(&mut self.case, "case", map)?,
            "run" => take(&mut self.run, "run", map)?,
            "sequence" => take(&mut self.sequence, "sequence", map)?,
            "total_ns" => take(&mut self.total_ns, "total_ns", map)?,
            "residency_before" => take(&mut self.residency_before, "residency_before", map)?,
            "residency_after" => take(&mut self.residency_after, "residency_after", map)?,
            "residency_source" => take(&mut self.residency_source, "residency_source", map)?,
            "cache_prepared_by" => take(&mut self.cache_prepared_by, "cache_prepared_by", map)?,
            "cache_reached" => take(&mut self.cache_reached, "cache_reached", map)?,
            "interference" => take(&mut self.interference, "interference", map)?,
            "attempt" => take(&mut self.attempt, "attempt", map)?,
            "excluded" => take(&mut self.excluded, "excluded", map)?,
            "profile_control" => take(&mut self.profile_control, "profile_control", map)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The sample, with the child's report; its defaults as the derived
    /// reader's (`#[serde(default)]` and absent options).
    fn sample<E: serde::de::Error>(self, child: ChildReport) -> Result<Sample, E> {
        use super::flat::required;
        Ok(Sample {
            case: required(self.case, "case")?,
            run: required(self.run, "run")?,
            sequence: required(self.sequence, "sequence")?,
            total_ns: required(self.total_ns, "total_ns")?,
            child,
            residency_before: required(self.residency_before, "residency_before")?,
            residency_after: required(self.residency_after, "residency_after")?,
            residency_source: required(self.residency_source, "residency_source")?,
            cache_prepared_by: required(self.cache_prepared_by, "cache_prepared_by")?,
            cache_reached: required(self.cache_reached, "cache_reached")?,
            interference: self.interference.unwrap_or_default(),
            attempt: self.attempt.unwrap_or_default(),
            excluded: self.excluded.unwrap_or_default(),
            profile_control: self.profile_control.unwrap_or_default(),
        })
    }
}

/// Reads a [`Sample`] in one pass: the child's report is parsed straight
/// from the object, through [`ChildKeys`], which takes the sample's own
/// fields out of its way.
struct SampleVisitor;

impl<'de> serde::de::Visitor<'de> for SampleVisitor {
    type Value = Sample;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sample")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Sample, A::Error> {
        let mut keys = ChildKeys {
            map,
            own: SampleOwn::default(),
        };
        let child =
            ChildReport::deserialize(serde::de::value::MapAccessDeserializer::new(&mut keys))?;
        keys.own.sample(child)
    }
}

impl<'de> Deserialize<'de> for Sample {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Sample, D::Error> {
        d.deserialize_map(SampleVisitor)
    }
}

/// A sample's object as the child's report sees it: every key but the
/// sample's own, which it parses into `own` as it passes them.
struct ChildKeys<A> {
    map: A,
    own: SampleOwn,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for &mut ChildKeys<A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        use serde::de::IntoDeserializer;
        while let Some(super::flat::Key(key)) = self.map.next_key()? {
            if self.own.take(&key, &mut self.map)? {
                continue;
            }
            return match key {
                std::borrow::Cow::Borrowed(k) => seed
                    .deserialize(serde::de::value::BorrowedStrDeserializer::new(k))
                    .map(Some),
                std::borrow::Cow::Owned(k) => seed.deserialize(k.into_deserializer()).map(Some),
            };
        }
        Ok(None)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Sample {
    /// The sample of `case`'s run `run` that `child` reports, its total
    /// time the sum of the report's phases (setup, loop, sync, teardown);
    /// the rest as for a first attempt that reached its cache state with
    /// nothing else recorded (residency 1 before and after, no source named,
    /// no interference). Callers set what they know with struct update
    /// syntax (`Sample { residency_before, ..Sample::new(case, run, child) }`),
    /// so a new field is one edit here.
    pub fn new(case: usize, run: u32, child: ChildReport) -> Sample {
        Sample {
            case,
            run,
            sequence: 0,
            total_ns: child.setup_ns + child.wall_ns + child.sync_ns + child.teardown_ns,
            child,
            residency_before: 1.0,
            residency_after: 1.0,
            residency_source: String::new(),
            cache_prepared_by: String::new(),
            cache_reached: true,
            interference: None,
            attempt: 0,
            excluded: None,
            profile_control: false,
        }
    }

    /// Whether the trial was found interfered when it ran.
    pub fn interfered(&self) -> bool {
        self.interference.as_ref().is_some_and(|i| i.interfered)
    }

    /// Whether the statistics count it: not marked `excluded` (retried,
    /// interfered with `--exclude-interfered`, or a `--profile-control`
    /// control trial).
    pub fn is_counted(&self) -> bool {
        self.excluded.is_none()
    }
}

/// A trial that did not produce a sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialFailure {
    /// Index of the case in the plan.
    pub case: usize,
    /// Run number (warm-ups count from 0 too, with `warmup` set).
    pub run: u32,
    /// Whether it was a warm-up trial.
    pub warmup: bool,
    /// Why it failed: the child's error line, or the signal that killed it (e.g. `killed by SIGBUS`).
    pub reason: String,
    /// 0 for the first trial of its (case, run); k when the k-th re-run of
    /// an interfered trial failed (`--retry-interfered`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
    /// Whether it was an unprofiled control trial (`--profile-control`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub profile_control: bool,
}

/// What one of the processes of a `--procs` trial measured.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcStat {
    /// Its setup + main loop + sync + teardown, ns.
    pub total_ns: u64,
    /// Its peak resident set, KiB.
    pub max_rss_kib: u64,
    /// Its proportional set size before teardown, KiB (`None` if unreadable).
    pub pss_kib: Option<u64>,
    /// Bytes it read from storage itself (`ru_inblock × 512` over setup +
    /// loop + teardown); `None` in results written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample with every field of its own and of the child's report
    /// present, none at its default.
    fn full() -> Sample {
        let mut s = crate::fixtures::sample(3, 2);
        s.child.continued = true;
        s.child.sync_ns = 7;
        s.child.setup_faults = Some(SetupFaults {
            minflt: 3,
            majflt: 1,
        });
        s.child.bytes_written = Some(4096);
        s.child.files_opened = Some(2);
        s.child.thread_ns = vec![1, 2];
        s.child.pss_kib = Some(9);
        s.child.procs = vec![ProcStat::default()];
        s.child.passes = Some(2);
        s.residency_before = 0.25;
        s.residency_after = 0.5;
        s.cache_reached = false;
        s.interference = Some(crate::measure::interference::Interference {
            interfered: true,
            reasons: vec!["busy".to_string()],
            ..Default::default()
        });
        s.attempt = 1;
        s.excluded = Some("retried".to_string());
        s.profile_control = true;
        s
    }

    #[test]
    fn reads_back_every_field_it_writes() {
        for sample in [full(), crate::fixtures::sample(0, 0)] {
            let text = serde_json::to_string_pretty(&sample).unwrap();
            let back: Sample = serde_json::from_str(&text).unwrap();
            assert_eq!(back, sample);
            // From a reader (keys not borrowed) too.
            let back: Sample = serde_json::from_reader(text.as_bytes()).unwrap();
            assert_eq!(back, sample);
        }
    }

    #[test]
    fn reads_as_the_derived_reader_did() {
        // The fields in another order (by name: the sample's own among the child's).
        let text = serde_json::to_string(&crate::fixtures::sample(1, 4)).unwrap();
        let sorted: serde_json::Value = serde_json::from_str(&text).unwrap();
        let sorted = serde_json::to_string(&sorted).unwrap();
        assert_ne!(sorted, text);
        assert_eq!(
            serde_json::from_str::<Sample>(&sorted).unwrap(),
            crate::fixtures::sample(1, 4)
        );
        // A missing field of its own, or of the child's, is named.
        let mut value = serde_json::to_value(crate::fixtures::sample(1, 4)).unwrap();
        value.as_object_mut().unwrap().remove("run");
        let err = serde_json::from_value::<Sample>(value.clone()).unwrap_err();
        assert!(err.to_string().contains("missing field `run`"), "{err}");
        value
            .as_object_mut()
            .unwrap()
            .insert("run".into(), 4.into());
        value.as_object_mut().unwrap().remove("wall_ns");
        let err = serde_json::from_value::<Sample>(value).unwrap_err();
        assert!(err.to_string().contains("missing field `wall_ns`"), "{err}");
        // A field given twice is refused.
        let twice = text.replacen("{", "{\"run\":1,", 1);
        let err = serde_json::from_str::<Sample>(&twice).unwrap_err();
        assert!(err.to_string().contains("duplicate field `run`"), "{err}");
        // Not an object.
        assert!(serde_json::from_str::<Sample>("[1]").is_err());
    }
}
