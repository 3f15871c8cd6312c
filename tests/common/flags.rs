//! [`Flags`]: the flags of one `faultline run` (or `reproduce`), built up
//! one named flag at a time instead of a long list of strings.
use std::ffi::{OsStr, OsString};
use std::path::Path;

/// Flags for [`super::Scratch::run`], [`super::Scratch::run_json`] and the
/// like, in the order given.
#[derive(Clone, Debug, Default)]
pub struct Flags(Vec<OsString>);

impl Flags {
    pub fn new() -> Flags {
        Flags::default()
    }

    /// `name value`, for any flag.
    pub fn flag(mut self, name: &str, value: impl AsRef<OsStr>) -> Flags {
        self.0.push(name.into());
        self.0.push(value.as_ref().to_os_string());
        self
    }

    /// `name` alone, a flag without a value (`--keep`, `--latency`).
    pub fn switch(mut self, name: &str) -> Flags {
        self.0.push(name.into());
        self
    }

    pub fn size(self, size: impl AsRef<OsStr>) -> Flags {
        self.flag("--size", size)
    }

    pub fn file(self, file: impl AsRef<OsStr>) -> Flags {
        self.flag("--file", file)
    }

    pub fn method(self, methods: &str) -> Flags {
        self.flag("--method", methods)
    }

    pub fn pattern(self, patterns: &str) -> Flags {
        self.flag("--pattern", patterns)
    }

    pub fn block(self, blocks: &str) -> Flags {
        self.flag("--block", blocks)
    }

    pub fn workload(self, workloads: &str) -> Flags {
        self.flag("--workload", workloads)
    }

    pub fn cache(self, states: &str) -> Flags {
        self.flag("--cache", states)
    }

    pub fn runs(self, runs: u32) -> Flags {
        self.flag("--runs", runs.to_string())
    }

    pub fn threads(self, counts: &str) -> Flags {
        self.flag("--threads", counts)
    }

    pub fn thread_mode(self, modes: &str) -> Flags {
        self.flag("--thread-mode", modes)
    }

    pub fn depth(self, depths: &str) -> Flags {
        self.flag("--depth", depths)
    }

    pub fn sync(self, policies: &str) -> Flags {
        self.flag("--sync", policies)
    }

    pub fn target(self, targets: &str) -> Flags {
        self.flag("--target", targets)
    }

    pub fn fill(self, fills: &str) -> Flags {
        self.flag("--fill", fills)
    }

    /// `--dir`: where write methods make their private scratch directory.
    pub fn dir(self, dir: &Path) -> Flags {
        self.flag("--dir", dir)
    }

    pub fn export_json(self, path: &Path) -> Flags {
        self.flag("--export-json", path)
    }

    pub fn journal(self, path: &Path) -> Flags {
        self.flag("--journal", path)
    }
}

impl IntoIterator for Flags {
    type Item = OsString;
    type IntoIter = std::vec::IntoIter<OsString>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Flags {
    type Item = &'a OsString;
    type IntoIter = std::slice::Iter<'a, OsString>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
