//! The HTML report of several runs (`faultline report A.json B.json …`):
//! the runs side by side first (each labelled by host, kernel and date; each
//! case's throughput per run with its change against run A; each
//! comparison's ratio per run with the ratio of ratios), then each run's own
//! verdicts, plots, table and environment. The side-by-side numbers come
//! from a [`Fleet`] the caller computed; nothing is computed here.
use std::path::Path;

use crate::analysis::across::fleet::Fleet;
use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::plan::size_heading;
use crate::report::export::html::{
    escape, page_end, page_start, push_environment, push_plot, push_results, push_verdicts,
};
use crate::report::terminal::run_comparison::{change_text, ratio_text, run_label, run_letter};
use crate::report::units::sig3;
use crate::results::RunResults;

/// The report of `runs` (named by `names`, their files) as one HTML page:
/// the runs side by side, then each run's own sections.
pub fn render_html_many(runs: &[&RunResults], names: &[String], fleet: &Fleet) -> String {
    let letters: Vec<String> = (0..runs.len()).map(run_letter).collect();
    let mut nav = vec![("runs".to_string(), "Runs side by side".to_string())];
    for l in &letters {
        nav.push((format!("run-{l}"), format!("Run {l}")));
    }
    let lede = format!("{} runs compared, case by case, against run A", runs.len());
    let mut out = page_start("faultline: runs compared", &lede, &nav, "");

    out.push_str("<section id=\"runs\">\n<h2>Runs side by side</h2>\n");
    push_runs(&mut out, runs, names, &letters);
    push_throughput(&mut out, fleet, &letters);
    if !fleet.comparisons.is_empty() {
        push_comparisons(&mut out, fleet, &letters);
    }
    out.push_str("</section>\n");

    for (r, l) in runs.iter().zip(&letters) {
        push_run(&mut out, r, l);
    }
    page_end(&mut out);
    out
}

/// The runs, each with its letter, label and file.
fn push_runs(out: &mut String, runs: &[&RunResults], names: &[String], letters: &[String]) {
    out.push_str("<table class=\"fields\">\n<thead><tr><th scope=\"col\">run</th><th scope=\"col\">host, kernel, date, version</th><th scope=\"col\">file</th></tr></thead>\n<tbody>\n");
    for (i, r) in runs.iter().enumerate() {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
            letters[i],
            escape(&run_label(r)),
            escape(&names[i])
        ));
    }
    out.push_str("</tbody></table>\n");
}

/// Throughput per case per run, with each run's change against run A.
fn push_throughput(out: &mut String, fleet: &Fleet, letters: &[String]) {
    out.push_str("<h3>Throughput per case, GiB/s</h3>\n<p class=\"lede\">Change against run A: the ratio of the runs' geometric mean throughputs with a Welch 95% CI.</p>\n");
    out.push_str(
        "<div class=\"scroll\"><table class=\"cases\">\n<thead><tr><th scope=\"col\">case</th>",
    );
    for l in letters {
        out.push_str(&format!("<th scope=\"col\" class=\"num\">{l}</th>"));
    }
    for l in letters.iter().skip(1) {
        out.push_str(&format!("<th scope=\"col\">{l} against A</th>"));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let gib = (1u64 << 30) as f64;
    for c in &fleet.cases {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}; {}: {}</th>",
            escape(&c.group),
            escape(&size_heading(c.file_size, c.set)),
            escape(&c.label)
        ));
        for t in &c.throughput {
            let cell = t.map_or_else(|| "-".to_string(), |t| sig3(t / gib));
            out.push_str(&format!("<td class=\"num\">{cell}</td>"));
        }
        for (i, change) in c.change.iter().enumerate().skip(1) {
            let text = match (change, c.throughput[0], c.throughput[i]) {
                (Some(est), _, _) => change_text(
                    est,
                    c.verdict[i].unwrap_or(crate::stats::Verdict::WithinNoise),
                    false,
                ),
                (None, None, Some(_)) => "not in A".to_string(),
                (None, Some(_), None) => format!("not in {}", letters[i]),
                _ => "-".to_string(),
            };
            out.push_str(&format!("<td>{}</td>", escape(&text)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// Each comparison's ratio per run, with its ratio over run A's.
fn push_comparisons(out: &mut String, fleet: &Fleet, letters: &[String]) {
    out.push_str("<h3>Comparisons</h3>\n<p class=\"lede\">Each run's paired ratio (other over baseline throughput), and its ratio over run A's with a Welch 95% CI on the per-run log ratios.</p>\n");
    out.push_str("<div class=\"scroll\"><table class=\"cases\">\n<thead><tr><th scope=\"col\">comparison</th>");
    for l in letters {
        out.push_str(&format!("<th scope=\"col\" class=\"num\">{l}</th>"));
    }
    for l in letters.iter().skip(1) {
        out.push_str(&format!("<th scope=\"col\">{l} / A</th>"));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for c in &fleet.comparisons {
        out.push_str(&format!(
            "<tr><th scope=\"row\">{}; {}: {} vs {}</th>",
            escape(&c.group),
            escape(&size_heading(c.file_size, c.set)),
            escape(&c.other),
            escape(&c.baseline)
        ));
        for r in &c.ratio {
            let cell = r
                .as_ref()
                .map_or_else(|| "-".to_string(), |r| format!("{:.2}x", r.ratio));
            out.push_str(&format!("<td class=\"num\">{cell}</td>"));
        }
        for r in c.ratio_of_ratios.iter().skip(1) {
            let cell = r.as_ref().map_or_else(|| "-".to_string(), ratio_text);
            out.push_str(&format!("<td>{}</td>", escape(&cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// Run `l`'s own sections (verdicts, plots, table, environment), their ids
/// made unique by its letter and their headings one level down.
fn push_run(out: &mut String, r: &RunResults, l: &str) {
    out.push_str(&format!(
        "<section id=\"run-{l}\">\n<h2>Run {l}: {}</h2>\n",
        escape(&run_label(r))
    ));
    // Each run's sections, their ids made unique by the run's letter.
    let mut own = String::new();
    push_verdicts(&mut own, r, &crate::report::verdict_lines(r));
    for mut plot in crate::report::plots(r) {
        plot.name = format!("{l}-{}", plot.name);
        push_plot(&mut own, &plot);
    }
    push_results(&mut own, r);
    own.push_str(&format!(
        "<section id=\"environment-{l}\">\n<h2>Environment</h2>\n"
    ));
    push_environment(&mut own, &r.environment);
    own.push_str("</section>\n");
    let own = own
        .replace("<h2>", "<h3>")
        .replace("</h2>", "</h3>")
        .replace(
            "<section id=\"verdicts\">",
            &format!("<section id=\"verdicts-{l}\">"),
        )
        .replace(
            "<section id=\"results\">",
            &format!("<section id=\"results-{l}\">"),
        );
    out.push_str(&own);
    out.push_str("</section>\n");
}

/// Writes [`render_html_many`] to `path`, atomically.
pub fn write_html_many(
    runs: &[&RunResults],
    names: &[String],
    fleet: &Fleet,
    path: &Path,
) -> Result<()> {
    let html = render_html_many(runs, names, fleet);
    write_atomically(path, SHARED_MODE, |w| w.write_all(html.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn every_run_is_labelled_and_every_id_is_unique() {
        let a = fixtures::results();
        let mut b = fixtures::results();
        b.cases[1].label = "mmap(populate=map)".into();
        let fleet = crate::analysis::across::fleet::fleet(&[&a, &b]).unwrap();
        let html = render_html_many(&[&a, &b], &["a.json".into(), "b.json".into()], &fleet);
        assert!(html.contains("id=\"run-A\"") && html.contains("id=\"run-B\""));
        assert!(
            html.contains("not in A") && html.contains("not in B"),
            "cases in one run"
        );
        assert!(html.contains("B against A") && html.contains("B / A"));
        let mut ids: Vec<&str> = html
            .match_indices(" id=\"")
            .map(|(i, _)| {
                let rest = &html[i + 5..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate ids");
    }
}
