//! Preset outcomes: a study's published tables beside faultline's measured
//! ones, each claim's verdict and explanation, fidelity and machine notes,
//! and plots. Built from results; nothing here measures.
use serde::Serialize;

use crate::measure::environment::Environment;
use crate::report::plot::flame::FlameGraph;
use crate::report::plot::Plot;
use crate::results::RunResults;
use crate::studies::claims::ClaimOutcome;
use crate::studies::{Preset, Table};

/// Everything one preset's reproduction reports.
#[derive(Clone, Debug, Serialize)]
pub struct PresetOutcome {
    /// The preset's name, e.g. `liege2018`.
    pub name: String,
    /// The study.
    pub source: String,
    /// Whether the run replayed the original's quirks (`--faithful`), as its
    /// results record.
    pub faithful: bool,
    /// The study's published tables.
    pub published: Vec<Table>,
    /// faultline's measured tables, in the same layout.
    pub measured: Vec<Table>,
    /// Each claim's verdict.
    pub claims: Vec<ClaimOutcome>,
    /// Deliberate departures from the original.
    pub fidelity: Vec<String>,
    /// How this machine differs from the study's, read from the environment.
    pub machine: Vec<String>,
    /// Plots: published beside measured (and, with `--profile`, where the
    /// cycles go).
    #[serde(skip)]
    pub plots: Vec<Plot>,
    /// `--profile`: one line per case on where its main loop's CPU time went
    /// (the terminal has them in the results table's section already).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cycles: Vec<String>,
    /// `--profile`: each profiled case's flame graph, named `<preset>-flame-<case>`.
    #[serde(skip)]
    pub flames: Vec<FlameGraph>,
}

impl PresetOutcome {
    /// Builds the outcome of `preset` from its run's results.
    pub fn build(preset: &dyn Preset, results: &RunResults) -> PresetOutcome {
        let results = &*crate::studies::as_planned(results);
        let claims = crate::studies::judge_claims(preset, results);
        let mut plots = preset.plots(results);
        if let Some(mut cycles) = crate::report::plot::cycles_plot(results) {
            cycles.name = format!("{}-cycles", preset.name());
            plots.push(cycles);
        }
        let flames = crate::report::plot::flame::flame_graphs(results)
            .into_iter()
            .map(|mut g| {
                g.name = format!("{}-{}", preset.name(), g.name);
                g
            })
            .collect();
        PresetOutcome {
            name: preset.name().to_string(),
            source: preset.source().to_string(),
            faithful: results
                .settings
                .reproduction
                .as_ref()
                .is_some_and(|r| r.faithful),
            published: preset.published(),
            measured: preset.measured(results),
            claims,
            fidelity: preset.fidelity(),
            machine: machine_notes(&results.environment)
                .into_iter()
                .chain(preset.machine_notes(results))
                .collect(),
            plots,
            cycles: crate::report::sections::profile::profile_lines(results),
            flames,
        }
    }

    /// The mode the run used, in words.
    pub fn mode_line(&self) -> String {
        crate::results::mode_line(self.faithful)
    }

    /// The outcome as plain text for the terminal.
    pub fn render_text(&self) -> String {
        self.render_text_wrapped(usize::MAX)
    }

    /// [`PresetOutcome::render_text`] with the claims, notes and every
    /// other line of prose wrapped at `width` columns (the tables are not).
    pub fn render_text_wrapped(&self, width: usize) -> String {
        let wrap = |text: &str| -> String {
            crate::report::terminal::wrap(text, width)
                .into_iter()
                .map(|l| format!("{l}\n"))
                .collect()
        };
        let mut out = format!(
            "== {} — {}\nmode: {}\n\n",
            self.name,
            self.source,
            self.mode_line()
        );
        for t in self.published.iter().chain(&self.measured) {
            out.push_str(&t.render_text());
            out.push('\n');
        }
        out.push_str("Claims:\n");
        for c in &self.claims {
            // The claim and its explanation wrap; the published-vs-measured
            // lines keep their columns unless they are too long.
            for line in crate::report::claims::render_claim(c).lines() {
                if line.chars().count() <= width {
                    out.push_str(line);
                    out.push('\n');
                } else {
                    out.push_str(&wrap(line));
                }
            }
        }
        out.push_str("Fidelity notes:\n");
        for n in &self.fidelity {
            out.push_str(&wrap(&format!("  - {n}")));
        }
        out.push_str("This machine:\n");
        for n in &self.machine {
            out.push_str(&wrap(&format!("  - {n}")));
        }
        out
    }
}

/// The machine differences that move these studies' numbers: fault-around,
/// readahead, transparent huge pages (large folios), CPU (copy routines), kernel.
pub fn machine_notes(env: &Environment) -> Vec<String> {
    let mut notes = vec![format!(
        "kernel {} on {} ({} cores online), page size {} B",
        env.kernel,
        env.cpu_model.as_deref().unwrap_or("an unknown CPU"),
        env.cores_online.map_or("?".to_string(), |n| n.to_string()),
        env.page_size
    )];
    if let Some(b) = env.fault_around_bytes {
        notes.push(format!(
            "fault-around maps up to {} KiB of cached pages per fault (the 2004 FreeBSD VM faulted ~64 KiB ahead)",
            b / 1024
        ));
    }
    if let Some(kb) = env.read_ahead_kb {
        notes.push(format!("readahead {kb} KiB on the test file's device"));
    }
    if let Some(thp) = &env.thp_enabled {
        notes.push(format!(
            "transparent huge pages: {thp}; ext4 page cache may use large folios on this kernel"
        ));
    }
    if let Some(fs) = &env.filesystem {
        notes.push(format!("file system {fs}"));
    }
    notes.push(
        "copies use the CPU's fast string/AVX routines in both the kernel and libc, unlike the 2002–2004 machines".into(),
    );
    notes
}
