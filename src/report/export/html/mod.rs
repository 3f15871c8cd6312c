//! The HTML report: one self-contained file with the verdicts, how they
//! were adjusted and whether each group reached its precision target, the
//! plots, the per-case tables, failures, warnings, settings and environment.
//!
//! Self-contained means: the plots are inline SVG, the CSS is inline and
//! names only fonts the system already has, and there is no script, no
//! image, no link and no external resource of any kind. A
//! Content-Security-Policy of `default-src 'none'` makes a browser refuse
//! to load anything should a later change slip a reference in. The file can
//! be mailed, archived or opened offline and looks the same.
//!
//! The text is the same as in the other reports: the tables have the
//! terminal table's columns and cells ([`crate::report::rows`]), the verdicts are
//! [`verdict_lines`], the statistics lines are
//! [`crate::report::sections::precision::statistics_lines`] (the adjustment used, each
//! group's precision target and whether it was reached, in how many runs)
//! and its short-trial warnings, the environment and settings are rendered from their
//! serialized form as in the Markdown report. Every piece of text is escaped
//! ([`escape`]): method labels, file paths and warnings may hold `<`, `&` or
//! quotes. The plots come from [`crate::report::plot::plots`], whose SVG plotters
//! has already escaped.
use std::path::Path;

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::report::export::markdown::shell_word;
use crate::report::groups::groups;
use crate::report::plot::plots;
use crate::report::row_limit::MAX_ROWS;
use crate::report::rows::{case_row, outlier_count, Row, HEADERS, OUTLIER_NOTE};
use crate::report::verdict::{failure_lines, verdict_lines, warning_lines};
use crate::results::RunResults;
use crate::stats::Verdict;

pub mod page;
pub mod run_comparison;

pub(crate) use page::push_environment;
pub use page::{
    escape, page_end, page_start, push_flame, push_plot, push_text_table, relative_link,
    CONTENT_SECURITY_POLICY,
};
use page::{plural, push_cycles, push_fields, push_left_out, push_lines};

/// Renders the whole report as one HTML document.
pub fn render_html(results: &RunResults) -> String {
    render_html_linking(results, None)
}

/// [`render_html`], with each case's flame graph also linked to its
/// interactive SVG in the directory `--plots` wrote it to (a path relative
/// to the page), when there is one.
pub fn render_html_linking(results: &RunResults, flame_dir: Option<&str>) -> String {
    let plots = plots(results);
    let verdicts = verdict_lines(results);
    let failures = failure_lines(results);
    let warnings = warning_lines(results);
    let spreads = crate::report::sections::spread::spread_lines(results);
    let statistics = crate::report::sections::precision::statistics_lines(results);
    let short_trials = crate::report::sections::precision::short_trial_warnings(results);

    let mut nav = vec![("verdicts", "Verdicts")];
    if !results.claims.is_empty() {
        nav.push(("claims", "Claims"));
    }
    if !statistics.is_empty() {
        nav.push(("statistics", "Statistics"));
    }
    if !short_trials.is_empty() {
        nav.push(("short-trials", "Short trials"));
    }
    if !plots.is_empty() {
        nav.push(("plots", "Plots"));
    }
    nav.push(("results", "Results"));
    if !spreads.is_empty() {
        nav.push(("spread", crate::report::sections::spread::TITLE));
    }
    let cycles = crate::report::sections::profile::section_lines(results);
    if !cycles.is_empty() {
        nav.push(("cycles", crate::report::sections::profile::TITLE));
    }
    if !failures.is_empty() {
        nav.push(("failures", "Failures"));
    }
    if !warnings.is_empty() {
        nav.push(("warnings", "Warnings"));
    }
    nav.extend([("settings", "Settings"), ("environment", "Environment")]);
    let nav: Vec<(String, String)> = nav
        .into_iter()
        .map(|(id, name)| (id.to_string(), name.to_string()))
        .collect();
    let mut header = String::new();
    if !results.complete {
        header.push_str(
            "<p class=\"banner\"><strong>Incomplete run</strong> (interrupted or still \
             running): some cases may lack runs.</p>\n",
        );
    }
    if !results.command_line.is_empty() {
        let words: Vec<String> = results.command_line.iter().map(|w| shell_word(w)).collect();
        header.push_str(&format!(
            "<pre class=\"command\"><code>{}</code></pre>\n",
            escape(&words.join(" "))
        ));
    }
    let mut out = page_start("faultline results", &lede(results), &nav, &header);

    push_verdicts(&mut out, results, &verdicts);
    if !results.claims.is_empty() {
        out.push_str("<section id=\"claims\">\n<h2>Claims</h2>\n");
        push_text_table(
            &mut out,
            &crate::report::claims::claims_table(&results.claims),
        );
        out.push_str("</section>\n");
    }
    if !statistics.is_empty() {
        push_lines(&mut out, "statistics", "Statistics", &statistics);
    }
    if !short_trials.is_empty() {
        push_lines(&mut out, "short-trials", "Short trials", &short_trials);
    }
    if !plots.is_empty() {
        out.push_str("<section id=\"plots\">\n<h2>Plots</h2>\n");
        for plot in &plots {
            push_plot(&mut out, plot);
        }
        out.push_str("</section>\n");
    }
    push_results(&mut out, results);
    if !spreads.is_empty() {
        push_lines(
            &mut out,
            "spread",
            crate::report::sections::spread::TITLE,
            &spreads,
        );
    }
    if !cycles.is_empty() {
        push_cycles(&mut out, results, &cycles, flame_dir);
    }
    if !failures.is_empty() {
        push_lines(&mut out, "failures", "Failures", &failures);
    }
    if !warnings.is_empty() {
        push_lines(&mut out, "warnings", "Warnings", &warnings);
    }
    out.push_str("<section id=\"settings\">\n<h2>Settings</h2>\n");
    push_fields(&mut out, ["setting", "value"], &results.settings);
    out.push_str("</section>\n<section id=\"environment\">\n<h2>Environment</h2>\n");
    push_environment(&mut out, &results.environment);
    out.push_str("</section>\n");
    page_end(&mut out);
    out
}

/// The HTML page as an [`crate::report::export::Exporter`] (`faultline
/// report`'s `--output`), linking each profiled case's interactive flame
/// graph in `flame_dir` when `--plots` wrote them there
/// ([`write_html_linking`]).
pub struct Html<'a> {
    /// The directory the flame graphs were written to, if any.
    pub flame_dir: Option<&'a Path>,
}

impl crate::report::export::Exporter for Html<'_> {
    fn name(&self) -> &'static str {
        "html"
    }

    fn write(&self, results: &RunResults, path: &Path) -> Result<()> {
        write_html_linking(results, path, self.flame_dir)
    }
}

/// Writes [`render_html`] to `path`, atomically.
pub fn write_html(results: &RunResults, path: &Path) -> Result<()> {
    write_html_linking(results, path, None)
}

/// Writes [`render_html_linking`] to `path`, atomically, linking the flame
/// graphs written into `flame_dir` (made relative to the page's directory).
pub fn write_html_linking(
    results: &RunResults,
    path: &Path,
    flame_dir: Option<&Path>,
) -> Result<()> {
    let link = flame_dir.map(|dir| relative_link(path, dir));
    let html = render_html_linking(results, link.as_deref());
    write_atomically(path, SHARED_MODE, |w| w.write_all(html.as_bytes()))
}

/// One line under the title: what was run.
fn lede(results: &RunResults) -> String {
    let s = &results.settings;
    let cases = results.cases.len();
    let comparisons = results.comparisons.len();
    // A file set's directory is named for what it is: its files and total.
    let set = results
        .cases
        .iter()
        .find_map(|c| c.case.files.map(|set| set.describe_total(c.case.seed)));
    let (what, generated) = match set {
        Some(set) if s.generated => ("file set", format!(" (generated: {set})")),
        Some(set) => ("file set", format!(" ({set})")),
        None if s.generated => ("file", " (generated)".to_string()),
        None => ("file", String::new()),
    };
    format!(
        "{cases} case{}, {comparisons} comparison{}, {} run{} each ({} warm-up); {what} {}{generated}",
        plural(cases),
        plural(comparisons),
        s.runs,
        plural(s.runs as usize),
        s.warmup,
        s.file.display(),
    )
}

pub(crate) fn push_verdicts(out: &mut String, results: &RunResults, lines: &[String]) {
    out.push_str("<section id=\"verdicts\">\n<h2>Verdicts</h2>\n");
    if lines.is_empty() {
        out.push_str("<p>No comparisons.</p>\n");
    } else {
        out.push_str("<ul class=\"lines verdicts\">\n");
        for (cmp, line) in results.comparisons.iter().zip(lines).take(MAX_ROWS) {
            let (class, word) = match cmp.verdict {
                Verdict::Faster => ("faster", "faster"),
                Verdict::Slower => ("slower", "slower"),
                Verdict::WithinNoise => ("within-noise", "within noise"),
                Verdict::Unsettled => ("unsettled", "unsettled"),
            };
            out.push_str(&format!(
                "<li class=\"verdict {class}\"><span class=\"badge\">{word}</span>{}</li>\n",
                escape(line)
            ));
        }
        out.push_str("</ul>\n");
        let total = results.comparisons.len().min(lines.len());
        if total > MAX_ROWS {
            push_left_out(out, MAX_ROWS, total, "verdicts");
        }
    }
    out.push_str("</section>\n");
}

pub(crate) fn push_results(out: &mut String, results: &RunResults) {
    out.push_str("<section id=\"results\">\n<h2>Results</h2>\n");
    if results.cases.is_empty() {
        out.push_str("<p>No cases.</p>\n");
    }
    let latency = crate::report::rows::shows_latency(results);
    let mut shown = 0;
    for group in groups(results) {
        if shown == MAX_ROWS {
            break;
        }
        out.push_str(&format!("<h3>{}</h3>\n", escape(&group.heading)));
        out.push_str("<div class=\"scroll\"><table class=\"cases\">\n<thead><tr>");
        for (i, h) in HEADERS.iter().enumerate() {
            let class = if i == 0 { "" } else { " class=\"num\"" };
            out.push_str(&format!("<th scope=\"col\"{class}>{}</th>", escape(h)));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for case in group.cases.iter().take(MAX_ROWS - shown) {
            shown += 1;
            out.push_str("<tr>");
            match case_row(case, results, latency) {
                Row::Measured(cells) => {
                    for (i, cell) in cells.iter().enumerate() {
                        if i == 0 {
                            out.push_str(&format!("<th scope=\"row\">{}</th>", escape(cell)));
                        } else {
                            out.push_str(&format!("<td class=\"num\">{}</td>", escape(cell)));
                        }
                    }
                }
                Row::Empty { label, note } => out.push_str(&format!(
                    "<th scope=\"row\">{}</th><td class=\"note\" colspan=\"{}\">{}</td>",
                    escape(&label),
                    HEADERS.len() - 1,
                    escape(&note)
                )),
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table></div>\n");
    }
    if results.cases.len() > shown {
        push_left_out(out, shown, results.cases.len(), "cases");
    }
    let any_outliers = results
        .cases
        .iter()
        .filter_map(|c| c.summary.as_ref())
        .any(|s| outlier_count(s) > 0);
    if any_outliers {
        out.push_str(&format!(
            "<p class=\"lede\">{}.</p>\n",
            escape(OUTLIER_NOTE)
        ));
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::stats::RatioEstimate;

    /// The values of every `attr="..."` in the document.
    fn attribute_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
        let needle = format!(" {attr}=\"");
        html.match_indices(&needle)
            .map(|(i, _)| {
                let rest = &html[i + needle.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

    fn hostile() -> RunResults {
        let mut results = fixtures::results();
        results.cases[0].label = "read<b>&\"x\"</b>'".to_string();
        results.settings.file = "/tmp/<script>alert(1)</script>&.dat".into();
        results
            .warnings
            .push("</li><img src=x onerror=alert(1)>".to_string());
        results.command_line.push("--file=/tmp/a&b<c>".to_string());
        results
    }

    #[test]
    fn has_every_section_in_order() {
        let html = render_html(&fixtures::results());
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert!(html.ends_with("</html>\n"));
        let mut at = 0;
        for id in [
            "verdicts",
            "statistics",
            "plots",
            "results",
            "failures",
            "warnings",
            "settings",
            "environment",
        ] {
            let section = format!("<section id=\"{id}\">");
            let i = html.find(&section).unwrap_or_else(|| panic!("{id}"));
            assert!(i > at, "{id} out of order");
            at = i;
            assert!(html.contains(&format!("<a href=\"#{id}\">")), "{id} in nav");
        }
        assert_eq!(
            html.matches("<section").count(),
            html.matches("</section>").count()
        );
        assert_eq!(
            html.matches("<table").count(),
            html.matches("</table>").count()
        );
        assert!(html.contains("<pre class=\"command\"><code>faultline run</code></pre>"));
        assert!(html.contains("3 cases, 1 comparison, 3 runs each (1 warm-up)"));
        assert!(!html.contains("Incomplete run"));
    }

    #[test]
    fn is_self_contained() {
        let html = render_html(&hostile());
        for forbidden in [
            "<script", "<link", "<img", "<iframe", "@import", "url(", "<object",
        ] {
            assert!(!html.contains(forbidden), "{forbidden}");
        }
        for attr in ["src", "href", "action", "srcset", "data"] {
            for value in attribute_values(&html, attr) {
                assert!(value.starts_with('#'), "{attr}={value}");
            }
        }
        // The only URLs are SVG namespace names, which nothing fetches.
        let urls = html.matches("http://").count() + html.matches("https://").count();
        assert_eq!(
            urls,
            html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        assert!(html.contains(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
            escape(CONTENT_SECURITY_POLICY)
        )));
        assert!(html.contains("default-src &#39;none&#39;"));
    }

    #[test]
    fn escapes_all_text() {
        let html = render_html(&hostile());
        assert!(
            !html.contains("<b>")
                && !html.contains("<script>")
                && !html.contains("onerror=alert(1)>")
        );
        assert!(
            html.contains("<th scope=\"row\">read&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;&#39;</th>"),
            "the label in the table"
        );
        assert!(html.contains("/tmp/&lt;script&gt;alert(1)&lt;/script&gt;&amp;.dat"));
        assert!(html.contains("<li>&lt;/li&gt;&lt;img src=x onerror=alert(1)&gt;</li>"));
        assert!(
            html.contains("&#39;--file=/tmp/a&amp;b&lt;c&gt;&#39;"),
            "shell-quoted, then escaped"
        );
        // In the plots plotters escapes it.
        assert!(html.contains("read&lt;b&gt;&amp;"));
        assert_eq!(escape("a<b>&\"c\"'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;");
    }

    #[test]
    fn contains_every_case_verdict_failure_and_warning() {
        let results = fixtures::results();
        let html = render_html(&results);
        for case in &results.cases {
            assert!(html.contains(&format!("<th scope=\"row\">{}</th>", escape(&case.label))));
        }
        let verdicts = verdict_lines(&results);
        assert_eq!(verdicts.len(), 1);
        for line in &verdicts {
            assert!(
                html.contains(&format!(
                    "<li class=\"verdict faster\"><span class=\"badge\">faster</span>{}</li>",
                    escape(line)
                )),
                "{line}"
            );
        }
        for line in failure_lines(&results).iter().chain(&results.warnings) {
            assert!(
                html.contains(&format!("<li>{}</li>", escape(line))),
                "{line}"
            );
        }
        // The table cells are the terminal table's.
        assert!(html.contains("<td class=\"num\">2.00 ± 0.10</td>"));
        assert!(html.contains(&format!(
            "<td class=\"note\" colspan=\"{}\">no samples (2 failed)</td>",
            HEADERS.len() - 1
        )));
        assert!(html.contains(&escape(OUTLIER_NOTE)));
        // Settings come from serde, the environment from its description
        // (sizes humanised: `page::tests`).
        assert!(html.contains("<tr><td><code>runs</code></td><td>3</td></tr>"));
        assert!(html.contains("<tr><td><code>faultline_version</code></td><td>-</td></tr>"));
    }

    #[test]
    fn embeds_each_plot_with_its_caption() {
        let results = fixtures::results();
        let html = render_html(&results);
        for plot in plots(&results) {
            assert!(html.contains(&format!(
                "<figure class=\"plot\" id=\"plot-{}\">",
                plot.name
            )));
            assert!(html.contains(&format!(
                "<svg role=\"img\" aria-label=\"{}\" width=\"800\"",
                escape(&plot.title)
            )));
            assert!(html.contains(&escape(&plot.caption)));
        }
        assert_eq!(html.matches("<figure").count(), 4);
    }

    #[test]
    fn says_what_is_missing() {
        let mut results = fixtures::results();
        results.complete = false;
        results.comparisons.clear();
        results.failures.clear();
        results.warnings.clear();
        let html = render_html(&results);
        assert!(html.contains("Incomplete run"));
        assert!(html.contains("<p>No comparisons.</p>"));
        assert!(!html.contains("id=\"failures\"") && !html.contains("id=\"warnings\""));
        assert!(!html.contains("href=\"#failures\""));
        assert!(!html.contains("plot-ratios"));

        results.comparisons = fixtures::results().comparisons;
        results.comparisons[0].verdict = Verdict::WithinNoise;
        results.comparisons[0].throughput_ratio = RatioEstimate {
            ratio: 1.01,
            ci95_low: 0.95,
            ci95_high: 1.07,
            pairs: 3,
        };
        let html = render_html(&results);
        assert!(html.contains(
            "<li class=\"verdict within-noise\"><span class=\"badge\">within noise</span>"
        ));
    }

    #[test]
    fn a_profiled_run_has_the_cycles_section_with_inline_flame_graphs() {
        let results = fixtures::profiled_results();
        let html = render_html(&results);
        assert!(html.contains("<section id=\"cycles\">\n<h2>Where the cycles go</h2>"));
        assert!(html.contains("<a href=\"#cycles\">Where the cycles go</a>"));
        for line in crate::report::sections::profile::profile_lines(&results) {
            assert!(
                html.contains(&format!("<li>{}</li>", escape(&line))),
                "{line}"
            );
        }
        assert_eq!(html.matches("<figure class=\"flame\"").count(), 2);
        assert!(html.contains("<figure class=\"flame\" id=\"flame-0\">"));
        assert!(html.contains("<svg role=\"img\" aria-label=\"flame graph: read — seq 16 KiB sum"));
        // The cycles plot sits right after the time plot.
        let time = html.find("id=\"plot-time\"").unwrap();
        let cycles = html.find("id=\"plot-cycles\"").unwrap();
        assert!(cycles > time);
        // Still self-contained: no script, no reference, no link out.
        for forbidden in ["<script", "<link", "<img", "url(", "onload", "<style type"] {
            assert!(!html.contains(forbidden), "{forbidden}");
        }
        for value in attribute_values(&html, "href") {
            assert!(value.starts_with('#'), "href={value}");
        }
        let urls = html.matches("http://").count() + html.matches("https://").count();
        assert_eq!(
            urls,
            html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        // Ids stay unique with two graphs on the page.
        let ids = attribute_values(&html, "id");
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "duplicate ids");
    }

    #[test]
    fn flame_graphs_written_with_plots_are_linked() {
        let results = fixtures::profiled_results();
        let html = render_html_linking(&results, Some("plots"));
        let links: Vec<&str> = attribute_values(&html, "href")
            .into_iter()
            .filter(|h| !h.starts_with('#'))
            .collect();
        assert_eq!(links, ["plots/flame-0.svg", "plots/flame-1.svg"]);
        let page = Path::new("/tmp/out/report.html");
        assert_eq!(relative_link(page, Path::new("/tmp/out/plots")), "plots");
        assert_eq!(relative_link(page, Path::new("/tmp/out")), ".");
        assert_eq!(relative_link(page, Path::new("/tmp/p l/x")), "../p%20l/x");
        assert_eq!(
            relative_link(page, Path::new("/var/../srv/plots")),
            "file:///srv/plots"
        );
    }

    #[test]
    fn writes_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.html");
        let results = fixtures::results();
        write_html(&results, &path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            render_html(&results)
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
