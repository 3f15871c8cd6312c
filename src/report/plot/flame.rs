//! Flame graphs (`--profile`): one SVG per profiled case, drawn by inferno
//! from the folded stacks of all its trials.
//!
//! Two renderings of the same stacks:
//! - [`FlameGraph::svg`], inferno's interactive SVG (click to zoom, search),
//!   which `--plots DIR` writes as `DIR/<name>.svg` and the HTML report links;
//! - [`FlameGraph::inline_svg`], a static copy for the HTML report itself,
//!   which must stay self-contained and script-free: inferno's script, its
//!   `onload`, its global `<style>` and its gradient are taken out, its ids
//!   are made unique on the page, and the frames' names are written into the
//!   SVG at a fixed width (inferno's fluid layout leaves them to its script).
//!   Hovering a frame still shows its name and samples (its `<title>`).
//!
//! Colours (inferno's `java` palette, which reads the frame suffixes):
//! kernel frames (`_[k]`) orange, inlined functions (`_[i]`) aqua, Rust
//! frames green-yellow, other user frames (libc) red.
use std::path::{Path, PathBuf};

use inferno::flamegraph::{self, color::MultiPalette, Options, Palette};

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::report::groups::groups;
use crate::report::sections::profile::percent;
use crate::results::RunResults;

/// The width the static copy is laid out at, px (it scales down to fit).
pub const INLINE_WIDTH: usize = 1200;

/// One case's flame graph.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameGraph {
    /// The case's id in the results.
    pub case: usize,
    /// File stem and HTML id: `flame-<case id>`.
    pub name: String,
    /// e.g. `read — seq 16 KiB touch, warm; 256 MiB file`.
    pub title: String,
    /// Samples, rate, mode and the largest shares, drawn under the title.
    pub subtitle: String,
    /// inferno's interactive SVG.
    pub svg: String,
    /// The static, script-free copy for the HTML report (see the module docs).
    pub inline_svg: String,
}

/// inferno's options for a case's graph.
fn options(title: &str, subtitle: &str, fixed_width: bool) -> Options<'static> {
    let mut opts = Options::default();
    opts.title = title.to_string();
    opts.subtitle = Some(subtitle.to_string());
    opts.count_name = "samples".to_string();
    opts.colors = Palette::Multi(MultiPalette::Java);
    opts.deterministic = true;
    if fixed_width {
        opts.image_width = Some(INLINE_WIDTH);
        // Frames under a pixel wide are left out of the page's copy (the
        // file has them all): a page may hold many graphs.
        opts.min_width = 1.0;
    }
    opts
}

/// Draws the folded `lines` (`stack count`) with inferno.
fn draw(opts: &mut Options<'_>, lines: &[String]) -> std::io::Result<String> {
    let mut out = Vec::new();
    flamegraph::from_lines(opts, lines.iter().map(String::as_str), &mut out)?;
    String::from_utf8(out).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Every profiled case's flame graph, in the table's group order.
pub fn flame_graphs(results: &RunResults) -> Vec<FlameGraph> {
    let mut graphs = Vec::new();
    for group in groups(results) {
        for case in group.cases {
            let Some(p) = case.summary.as_ref().and_then(|s| s.profile.as_ref()) else {
                continue;
            };
            if p.stacks.is_empty() {
                continue;
            }
            let title = format!("{} — {}", case.label, group.heading);
            // Short enough to fit the graph's width: the three largest shares.
            let largest: Vec<String> = p
                .shares
                .iter()
                .take(3)
                .map(|s| format!("{} {}", s.category, percent(s.share.mean)))
                .collect();
            let subtitle = format!(
                "{} samples in {} trial{} at {} Hz ({}): {}",
                p.samples,
                p.trials,
                if p.trials == 1 { "" } else { "s" },
                p.frequency_hz,
                p.mode,
                largest.join(", ")
            );
            let lines: Vec<String> = p.stacks.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let name = format!("flame-{}", case.id);
            let svg = draw(&mut options(&title, &subtitle, false), &lines)
                .unwrap_or_else(|e| failed(&title, &e.to_string()));
            let inline_svg = draw(&mut options(&title, &subtitle, true), &lines)
                .map(|s| inline(&s, &name))
                .unwrap_or_else(|e| failed(&title, &e.to_string()));
            graphs.push(FlameGraph {
                case: case.id,
                name,
                title,
                subtitle,
                svg,
                inline_svg,
            });
        }
    }
    graphs
}

/// A small SVG that says the graph could not be drawn, and why.
fn failed(title: &str, why: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"40\" viewBox=\"0 0 800 40\">\
         <text x=\"16\" y=\"24\" font-family=\"sans-serif\" font-size=\"13\">{}: the flame graph could not be drawn: {}</text></svg>",
        crate::report::escape::escape(title),
        crate::report::escape::escape(why)
    )
}

/// `text` without the first `<tag ...>...</tag>` element (and what it holds).
fn without_element(text: &str, tag: &str) -> String {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    match (text.find(&open), text.find(&close)) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &text[..a], &text[b + close.len()..]),
        _ => text.to_string(),
    }
}

/// The static copy of inferno's fixed-width SVG for the HTML page, its ids
/// prefixed with `prefix` (see the module docs).
pub fn inline(svg: &str, prefix: &str) -> String {
    let start = svg.find("<svg").unwrap_or(0);
    let mut s = svg[start..].to_string();
    for tag in ["script", "style", "defs"] {
        s = without_element(&s, tag);
    }
    s = s
        .replacen(" onload=\"init(evt)\"", "", 1)
        .replacen(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "", 1)
        .replacen(" xmlns:fg=\"http://github.com/jonhoo/inferno\"", "", 1)
        .replace("fill=\"url(#background)\"", "fill=\"#f6f6f0\"")
        .replace(" id=\"", &format!(" id=\"{prefix}-"));
    // Comments carry inferno's URLs; the page keeps none.
    while let (Some(a), Some(b)) = (s.find("<!--"), s.find("-->")) {
        if b < a {
            break;
        }
        s.replace_range(a..b + 3, "");
    }
    s
}

/// Writes every flame graph (the interactive SVG) into `dir` (created if
/// missing) as `<name>.svg`, atomically; returns the paths written.
pub fn write_flame_graphs(graphs: &[FlameGraph], dir: &Path) -> Result<Vec<PathBuf>> {
    if graphs.is_empty() {
        return Ok(Vec::new());
    }
    crate::files::outputs::ensure_output_dir("--plots", dir)?;
    let mut written = Vec::new();
    for g in graphs {
        let path = dir.join(format!("{}.svg", g.name));
        let marked = crate::files::made::mark_svg(&g.svg);
        write_atomically(&path, SHARED_MODE, |w| w.write_all(marked.as_bytes()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn one_graph_per_profiled_case_with_every_frame() {
        let results = fixtures::profiled_results();
        let graphs = flame_graphs(&results);
        assert_eq!(graphs.len(), 2);
        let read = &graphs[0];
        assert_eq!(read.name, "flame-0");
        assert_eq!(read.title, "read — seq 16 KiB sum, warm; 1 GiB file");
        assert!(read.svg.starts_with("<?xml"), "{}", &read.svg[..80]);
        assert!(read.svg.contains("<script"), "interactive");
        for svg in [&read.svg, &read.inline_svg] {
            assert!(svg.contains("copy-to-user"), "every frame is drawn");
            assert!(svg.contains("faultline::trial::run_trial"));
            assert!(
                svg.contains("3000 samples in 3 trials at 997 Hz (kernel+user): copy to user 60%, syscall entry/exit 15%, other kernel 15%<")
            );
        }
        assert!(flame_graphs(&fixtures::results()).is_empty());
    }

    #[test]
    fn the_inline_copy_has_no_script_style_or_reference_and_unique_ids() {
        let results = fixtures::profiled_results();
        let graphs = flame_graphs(&results);
        for g in &graphs {
            let s = &g.inline_svg;
            assert!(s.starts_with("<svg"), "{}", &s[..40]);
            for forbidden in [
                "<script",
                "<style",
                "onload",
                "url(",
                "<!--",
                "http://github",
                "https://",
            ] {
                assert!(!s.contains(forbidden), "{forbidden}");
            }
            assert!(s.contains(&format!("id=\"{}-frames\"", g.name)));
            assert!(!s.contains(" id=\"frames\""));
            // The frames' names are written in (fixed width), not left to a script.
            assert!(s.contains(&format!("width=\"{INLINE_WIDTH}\"")));
            assert!(
                s.contains(">copy-to-user</text>") || s.contains(">user-memcpy</text>"),
                "{s}"
            );
        }
    }

    #[test]
    fn writes_each_graph_as_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let graphs = flame_graphs(&fixtures::profiled_results());
        let written = write_flame_graphs(&graphs, &dir.path().join("plots")).unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(
            std::fs::read_to_string(&written[1]).unwrap(),
            crate::files::made::mark_svg(&graphs[1].svg)
        );
        assert!(write_flame_graphs(&[], &dir.path().join("none"))
            .unwrap()
            .is_empty());
        assert!(!dir.path().join("none").exists());
    }
}
