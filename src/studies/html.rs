//! The report of `faultline reproduce`: one self-contained HTML page with a
//! section per study (the published and measured tables, each claim's
//! verdict, the fidelity and machine notes, and the plots), drawn with the
//! report's page pieces ([`crate::report::export::html`]).
use super::outcome::PresetOutcome;
use crate::report::export::html::{
    escape, page_end, page_start, push_flame, push_plot, push_text_table,
};

/// Renders the page for `outcomes`, one section each.
pub fn render_preset_html(outcomes: &[PresetOutcome]) -> String {
    render_preset_html_linking(outcomes, None)
}

/// [`render_preset_html`], linking each flame graph to its interactive SVG
/// in `flame_dir` (where `--plots` wrote it, relative to the page).
pub fn render_preset_html_linking(outcomes: &[PresetOutcome], flame_dir: Option<&str>) -> String {
    let nav: Vec<(String, String)> = outcomes
        .iter()
        .map(|o| (format!("preset-{}", o.name), o.name.clone()))
        .collect();
    let mut out = page_start(
        "faultline reproductions",
        "Published studies replayed on this machine: their numbers beside faultline's, and \
         whether each claim holds.",
        &nav,
        "",
    );
    for o in outcomes {
        out.push_str(&format!(
            "<section class=\"preset\" id=\"preset-{0}\">\n<h2>{0}</h2>\n<p>{1}</p>\n<p class=\"mode\"><strong>Mode:</strong> {2}</p>\n",
            escape(&o.name),
            escape(&o.source),
            escape(&o.mode_line())
        ));
        out.push_str("<h3>Published and measured</h3>\n");
        for t in o.published.iter().chain(&o.measured) {
            push_text_table(&mut out, t);
        }
        out.push_str("<h3>Claims</h3>\n<ul class=\"lines\">\n");
        for c in &o.claims {
            out.push_str(&format!(
                "<li class=\"claim {0}\"><span class=\"badge\">{1}</span> <strong>{2}</strong><br>{3}\n",
                c.verdict.slug(),
                escape(&c.verdict_words()),
                escape(&c.claim),
                escape(&c.explanation)
            ));
            if let Some(u) = &c.unsettled {
                out.push_str(&format!(
                    "<br><em>To settle it:</em> {}\n",
                    escape(&u.settle)
                ));
            }
            push_text_table(&mut out, &crate::report::claims::side_by_side(c));
            out.push_str("</li>\n");
        }
        let notes = [
            ("Fidelity notes", &o.fidelity),
            ("This machine", &o.machine),
        ];
        for (title, lines) in notes {
            out.push_str(&format!("</ul>\n<h3>{title}</h3>\n<ul class=\"lines\">\n"));
            for n in lines {
                out.push_str(&format!("<li>{}</li>\n", escape(n)));
            }
        }
        out.push_str("</ul>\n");
        for plot in &o.plots {
            push_plot(&mut out, plot);
        }
        if !o.cycles.is_empty() {
            out.push_str(&format!(
                "<h3>{}</h3>\n<ul class=\"lines\">\n",
                crate::report::sections::profile::TITLE
            ));
            for line in &o.cycles {
                out.push_str(&format!("<li>{}</li>\n", escape(line)));
            }
            out.push_str("</ul>\n");
            for graph in &o.flames {
                push_flame(&mut out, graph, flame_dir);
            }
        }
        out.push_str("</section>\n");
    }
    page_end(&mut out);
    out
}
