//! The rate of the trial in progress, for the progress line: measured from
//! the parent, outside the child's clocks, as the growth of the child's
//! `/proc/<pid>/io` counters between two reads at least [`WINDOW`] apart
//! (`rchar` for a method that reads, `wchar` for one that writes, both for
//! a mixed case, [`crate::measure::procio`]).
//!
//! Those counters are the bytes the process passed to read-like and
//! write-like system calls, so only a method whose data goes through them
//! has a live rate: not a mapping method (its loads and stores make no
//! system call) and not an io_uring one (its reads and writes do not go
//! through those calls), and not `--procs` trials (several children). For
//! those, and for a trial shorter than one window, nothing is shown; the
//! progress line keeps the last finished trial's rate, which the child
//! measured. The rate is of the whole process over the window: the few
//! bytes the child reads or writes besides its file (its spec, its report)
//! are in it, and said so by naming the counter.
use std::time::{Duration, Instant};

use crate::plan::Case;

/// The shortest span a live rate is taken over; a trial shorter than this
/// shows none.
pub const WINDOW: Duration = Duration::from_secs(1);

/// Which of the child's counters measure its case's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// `rchar`: a method that reads.
    Read,
    /// `wchar`: a method that writes.
    Write,
    /// `rchar` + `wchar`: a read share (`--read-share`) mixes both.
    Both,
}

impl Counter {
    /// The counter that measures `case`'s bytes, when one does (see the
    /// module docs).
    pub fn of(case: &Case) -> Option<Counter> {
        let spec = case.method.spec();
        if spec.maps_file || spec.uses_uring || case.procs.is_some_and(|n| n > 1) {
            return None;
        }
        Some(match (case.read_share, spec.writes) {
            (Some(_), _) => Counter::Both,
            (None, true) => Counter::Write,
            (None, false) => Counter::Read,
        })
    }

    /// Its name in `/proc/<pid>/io`.
    pub fn name(self) -> &'static str {
        match self {
            Counter::Read => "rchar",
            Counter::Write => "wchar",
            Counter::Both => "rchar+wchar",
        }
    }

    fn bytes(self, io: &crate::measure::procio::ProcIo) -> u64 {
        match self {
            Counter::Read => io.rchar,
            Counter::Write => io.wchar,
            Counter::Both => io.rchar.saturating_add(io.wchar),
        }
    }
}

/// Samples one child's counter and gives its rate once per window.
#[derive(Debug)]
pub struct LiveRate {
    counter: Counter,
    /// The last reading: when, and the counter's value.
    last: Option<(Instant, u64)>,
}

impl LiveRate {
    /// A sampler of `counter`, with no reading yet.
    pub fn new(counter: Counter) -> LiveRate {
        LiveRate {
            counter,
            last: None,
        }
    }

    /// The counter it reads.
    pub fn counter(&self) -> Counter {
        self.counter
    }

    /// Reads the counter of `pid` when a window has passed since the last
    /// reading (or none was taken yet), and returns the bytes per second
    /// between the two readings; `None` when no window has passed or the
    /// counters cannot be read.
    pub fn sample(&mut self, pid: i32) -> Option<f64> {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|(then, _)| now.duration_since(then) < WINDOW)
        {
            return None;
        }
        let bytes = self.counter.bytes(&crate::measure::procio::read(pid).ok()?);
        self.advance(now, bytes)
    }

    /// Takes the reading `bytes` at `now`: the rate since the last one.
    fn advance(&mut self, now: Instant, bytes: u64) -> Option<f64> {
        let rate = self.last.and_then(|(then, before)| {
            let span = now.duration_since(then).as_secs_f64();
            (span > 0.0).then(|| bytes.saturating_sub(before) as f64 / span)
        });
        self.last = Some((now, bytes));
        rate
    }
}

/// A sampler and what shows its rate: the trial's watchdog samples the
/// child while it waits ([`crate::runner::spawn`]) and hands each rate, as
/// [`text`], to `show`.
pub struct LiveWatch {
    /// The sampler.
    pub rate: LiveRate,
    /// Shows one rate's text (on the progress line).
    pub show: Box<dyn FnMut(&str) + Send>,
}

impl LiveWatch {
    /// Samples child `pid` (see [`LiveRate::sample`]) and shows the rate
    /// when a window has passed.
    pub fn tick(&mut self, pid: i32) {
        if let Some(rate) = self.rate.sample(pid) {
            (self.show)(&text(rate, self.rate.counter()));
        }
    }
}

/// `812 MiB/s now (rchar)`.
pub fn text(rate: f64, counter: Counter) -> String {
    format!(
        "{}/s now ({})",
        crate::size::format_size(rate as u64),
        counter.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;

    #[test]
    fn only_methods_that_move_their_bytes_by_system_calls_have_a_counter() {
        let case = |method| Case {
            method,
            ..Case::default()
        };
        assert_eq!(Counter::of(&case(MethodKind::Read)), Some(Counter::Read));
        assert_eq!(Counter::of(&case(MethodKind::Stdio)), Some(Counter::Read));
        assert_eq!(Counter::of(&case(MethodKind::Pwrite)), Some(Counter::Write));
        for none in [
            MethodKind::Mmap,
            MethodKind::MmapCopy,
            MethodKind::MmapWrite,
            MethodKind::Uring,
            MethodKind::UringWrite,
        ] {
            assert_eq!(Counter::of(&case(none)), None, "{none:?}");
        }
        let mut mixed = case(MethodKind::Pread);
        mixed.read_share = Some(70);
        assert_eq!(Counter::of(&mixed), Some(Counter::Both));
        let mut procs = case(MethodKind::Read);
        procs.procs = Some(2);
        assert_eq!(Counter::of(&procs), None);
    }

    #[test]
    fn the_rate_is_the_growth_between_two_readings() {
        let mut live = LiveRate::new(Counter::Read);
        let t0 = Instant::now();
        assert_eq!(live.advance(t0, 1000), None, "one reading is no rate");
        let rate = live.advance(t0 + Duration::from_secs(2), 1000 + (4 << 20));
        assert_eq!(rate, Some(f64::from(4 << 20) / 2.0));
        assert_eq!(text(3.0 * 1048576.0, Counter::Read), "3 MiB/s now (rchar)");
    }

    #[test]
    fn a_child_s_counter_is_read_from_the_parent() {
        // This process reads a file; its own counter, read as a child's
        // would be, grows by at least those bytes over a window.
        let mut live = LiveRate::new(Counter::Read);
        let pid = std::process::id() as i32;
        assert_eq!(live.sample(pid), None);
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), vec![7u8; 1 << 20]).unwrap();
        std::thread::sleep(WINDOW);
        for _ in 0..4 {
            assert_eq!(std::fs::read(file.path()).unwrap().len(), 1 << 20);
        }
        let rate = live.sample(pid).expect("a window passed");
        assert!(rate >= f64::from(4 << 20) / 10.0, "{rate}");
    }
}
