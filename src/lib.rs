//! faultline: measures how bytes get from a file into a program, and explains
//! the difference between `read()`-style syscalls and `mmap()` with counters.
//!
//! The folders follow the data flow, and a layer only uses the layers below
//! it (`tests/architecture.rs` checks this):
//!
//! ```text
//! cli (binary)      flags --> Factors + RunSpec, or a study's plan
//! session           one plan run start to finish: files, journal, progress, exports
//! studies           presets, their published numbers and claims, the claim checker
//! report            table, verdict lines, JSON, CSV, Markdown, plots, HTML (renders only)
//! analysis          RunResults from samples and cases: summaries, comparisons, stopping
//! runner            parent side: order, cache preparation, spawning, journal, checksums
//! trial             child side: one trial, threads, processes, timed trials
//! files, results    test files, scratch, read-back | samples and settings (plain data)
//! plan              Case and its value types, factor expansion, preflight, memory budget
//! measure           rusage, vmstat, residency, device, timelines, latency, environment
//! method            one file per I/O method, declared in a registry
//! pattern, workload block orders | what is done with each block
//! stats             math over numbers: summaries, ratios, verdicts, power (pure)
//! error, size, system, os_path, console, input
//! ```
//!
//! Everything faultline prints goes through [`console`]: `println!`,
//! `print!`, `eprintln!` and `eprint!` are shadowed here (and in the
//! binary's main.rs) by macros that escape control characters and end
//! quietly on a closed stream. Every file faultline reads goes through
//! [`input`], which opens regular files only and reads them with bounds.
//!
//! [`plan::Plan`] (a list of [`plan::Case`]s) --> [`session::Session`]
//! (test files from [`files::dataset`], write targets in [`files::scratch`])
//! --> [`runner`] (cache state, one child process per trial, giving
//! [`results::Sample`]s) --> [`analysis`] (each case's summary and paired
//! comparisons, with the pure math of [`stats`]; no I/O) --> [`report`]
//! (table, JSON, CSV, Markdown, HTML; no measuring).
#![deny(missing_docs)]

// The standard printing macros, shadowed: every line goes through
// `console` (control characters escaped, a closed stream ends quietly).
// Unit tests keep the standard ones, which the test harness captures.
#[cfg(not(test))]
#[allow(unused_macros)]
macro_rules! println {
    () => { $crate::console::line($crate::console::Stream::Out, format_args!("")) };
    ($($arg:tt)*) => { $crate::console::line($crate::console::Stream::Out, format_args!($($arg)*)) };
}
#[cfg(not(test))]
#[allow(unused_macros)]
macro_rules! print {
    ($($arg:tt)*) => { $crate::console::text($crate::console::Stream::Out, format_args!($($arg)*)) };
}
#[cfg(not(test))]
#[allow(unused_macros)]
macro_rules! eprintln {
    () => { $crate::console::line($crate::console::Stream::Err, format_args!("")) };
    ($($arg:tt)*) => { $crate::console::line($crate::console::Stream::Err, format_args!($($arg)*)) };
}
#[cfg(not(test))]
#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::console::text($crate::console::Stream::Err, format_args!($($arg)*)) };
}

/// Implements `Display` for enums that derive `clap::ValueEnum`: each value
/// prints as its command-line name (`mmap-copy`, `random-replace`, ...).
macro_rules! display_as_value_name {
    ($($t:ty),* $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let value = clap::ValueEnum::to_possible_value(self).expect("no skipped variants");
                f.write_str(value.get_name())
            }
        }
    )*};
}

/// Declares a registry: an enum of kinds, one line per kind
/// (`Variant => module::SPEC`, under the doc comment that becomes its
/// `--help` text), and `spec()`, which returns what the kind's own file
/// declares about it. The command-line and export name of a kind is its
/// variant's name in kebab case, from one source (clap's `ValueEnum` and
/// serde), and `Display` prints it. `default` names the kind `Default` gives.
macro_rules! registry {
    (
        $(#[doc = $enum_doc:literal])*
        pub enum $kind:ident => $spec:ty, default $default:ident {
            $( $(#[doc = $doc:literal])* $variant:ident => $value:path, )*
        }
    ) => {
        $(#[doc = $enum_doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, clap::ValueEnum,
        )]
        #[serde(rename_all = "kebab-case")]
        pub enum $kind {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Default for $kind {
            fn default() -> Self {
                $kind::$default
            }
        }

        impl $kind {
            /// What this kind's own file declares about it.
            pub fn spec(self) -> &'static $spec {
                match self {
                    $( $kind::$variant => &$value, )*
                }
            }
        }

        display_as_value_name!($kind);
    };
}

pub mod analysis;
pub mod console;
pub mod error;
pub mod files;
pub mod input;
pub mod measure;
pub mod method;
pub mod os_path;
pub mod pattern;
pub mod plan;
pub mod report;
pub mod results;
pub mod runner;
pub mod session;
pub mod size;
pub mod stats;
pub mod studies;
pub mod system;
pub mod trial;
pub mod workload;

#[cfg(test)]
pub(crate) mod fixtures;
