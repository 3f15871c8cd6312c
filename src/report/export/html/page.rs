//! The frame and the pieces every faultline HTML page shares (the run's
//! report, runs side by side, the reproduce page and the maps): the page's
//! head with its CSS (`style.css`) and Content-Security-Policy, its foot,
//! and the sections drawn the same on each (plots, flame graphs, text
//! tables, lists, settings and environment), every user text escaped.
use std::path::Path;

pub use crate::report::escape::escape;
use crate::report::export::markdown::flatten;
use crate::report::plot::Plot;
use crate::report::row_limit::{left_out, MAX_ROWS};
use crate::results::RunResults;

/// The page's Content-Security-Policy: nothing may be loaded, inline CSS may apply.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// The page's CSS: system fonts only, readable from 360 px to wide screens.
const STYLE: &str = include_str!("style.css");

/// The start of a self-contained page, up to and including the opening of
/// its `<main>`: the Content-Security-Policy, the style, a header with
/// `title`, `lede`, a navigation bar of `(anchor, label)` links and the
/// HTML `header` adds below it.
pub fn page_start(title: &str, lede: &str, nav: &[(String, String)], header: &str) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
        escape(CONTENT_SECURITY_POLICY)
    ));
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!(
        "<meta name=\"generator\" content=\"faultline {}\">\n",
        env!("CARGO_PKG_VERSION")
    ));
    out.push_str(&format!("<title>{}</title>\n<style>", escape(title)));
    // The style element opens on a line of its own.
    out.push('\n');
    out.push_str(STYLE);
    out.push_str(&format!(
        "</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n<p class=\"lede\">{}</p>\n<nav>",
        escape(title),
        escape(lede)
    ));
    for (anchor, label) in nav {
        out.push_str(&format!(
            "<a href=\"#{}\">{}</a>",
            escape(anchor),
            escape(label)
        ));
    }
    out.push_str("</nav>\n");
    out.push_str(header);
    out.push_str("</header>\n<main>\n");
    out
}

/// The end of a page [`page_start`] began: the footer, which says the page
/// was written from results and loads nothing.
pub fn page_end(out: &mut String) {
    out.push_str("</main>\n");
    out.push_str(&format!(
        "<footer>Written by faultline {} from the run's results; nothing was measured to \
         write it. This file is self-contained: it loads nothing, from the network or \
         elsewhere.</footer>\n",
        env!("CARGO_PKG_VERSION")
    ));
    out.push_str("</body>\n</html>\n");
}

/// One text table, caption included.
pub fn push_text_table(out: &mut String, t: &crate::report::text_table::Table) {
    out.push_str(&format!(
        "<div class=\"scroll\"><table>\n<caption>{}</caption>\n<thead><tr>",
        escape(&t.caption)
    ));
    for c in &t.columns {
        out.push_str(&format!("<th scope=\"col\">{}</th>", escape(c)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for cell in row {
            out.push_str(&format!("<td>{}</td>", escape(cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// One plot, its SVG inlined, in a figure with its caption.
pub fn push_plot(out: &mut String, plot: &Plot) {
    let id = format!("plot-{}", plot.name);
    out.push_str(&format!("<figure class=\"plot\" id=\"{}\">\n", escape(&id)));
    // The SVG as plotters wrote it, labelled for screen readers.
    let svg = plot.svg.trim_start();
    let svg = match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(svg, |(_, s)| s.trim_start()),
        None => svg,
    };
    match svg.strip_prefix("<svg") {
        Some(rest) => {
            out.push_str(&format!(
                "<svg role=\"img\" aria-label=\"{}\"",
                escape(&plot.title)
            ));
            out.push_str(rest);
        }
        None => out.push_str(svg),
    }
    out.push_str(&format!(
        "\n<figcaption><strong>{}.</strong> {}</figcaption>\n</figure>\n",
        escape(&plot.title),
        escape(&plot.caption)
    ));
}

/// One flame graph, inline, in a figure with its caption (and its link).
pub fn push_flame(
    out: &mut String,
    graph: &crate::report::plot::flame::FlameGraph,
    flame_dir: Option<&str>,
) {
    out.push_str(&format!(
        "<figure class=\"flame\" id=\"{}\">\n",
        escape(&graph.name)
    ));
    match graph.inline_svg.strip_prefix("<svg") {
        Some(rest) => {
            out.push_str(&format!(
                "<svg role=\"img\" aria-label=\"{}\"",
                escape(&format!("flame graph: {}", graph.title))
            ));
            out.push_str(rest);
        }
        None => out.push_str(&graph.inline_svg),
    }
    out.push_str(&format!(
        "\n<figcaption><strong>Flame graph: {}.</strong> Each box is a function, as wide as \
         its share of the main loop's samples, above the function that called it; kernel \
         frames (<code>_[k]</code>) orange, inlined ones (<code>_[i]</code>) aqua. Hover a box \
         for its name and samples.",
        escape(&graph.title)
    ));
    if let Some(dir) = flame_dir {
        let href = format!("{dir}/{}.svg", graph.name);
        out.push_str(&format!(
            " <a class=\"flame-link\" href=\"{}\">The interactive flame graph</a> (click to zoom, search).",
            escape(&href)
        ));
    }
    out.push_str("</figcaption>\n</figure>\n");
}

/// The "Where the cycles go" section: the lines, then each profiled case's
/// flame graph (the static copy), linked to its interactive file when
/// `flame_dir` says where `--plots` wrote it.
pub fn push_cycles(
    out: &mut String,
    results: &RunResults,
    lines: &[String],
    flame_dir: Option<&str>,
) {
    out.push_str(&format!(
        "<section id=\"cycles\">\n<h2>{}</h2>\n",
        crate::report::sections::profile::TITLE
    ));
    if let Some(legend) = crate::report::sections::profile::legend(results) {
        out.push_str(&format!("<p class=\"lede\">{}.</p>\n", escape(&legend)));
    }
    out.push_str("<ul class=\"lines\">\n");
    for line in lines {
        out.push_str(&format!("<li>{}</li>\n", escape(line)));
    }
    out.push_str("</ul>\n");
    for graph in crate::report::plot::flame::flame_graphs(results) {
        push_flame(out, &graph, flame_dir);
    }
    out.push_str("</section>\n");
}

/// `dir` as a URL path relative to the directory of the page at `page`
/// (each component percent-encoded), or an absolute `file://` URL when the
/// two share no directory.
pub fn relative_link(page: &Path, dir: &Path) -> String {
    let absolute = |p: &Path| {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        // Lexically: `..` and `.` resolved, no symbolic link followed.
        let mut out = std::path::PathBuf::new();
        for c in p.components() {
            match c {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                c => out.push(c),
            }
        }
        out
    };
    let from = absolute(page.parent().unwrap_or(Path::new(".")));
    let to = absolute(dir);
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let encode = |c: std::path::Component| -> String {
        c.as_os_str()
            .to_string_lossy()
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                b => format!("%{b:02X}"),
            })
            .collect()
    };
    if common <= 1 {
        let parts: Vec<String> = to.components().skip(1).map(encode).collect();
        return format!("file:///{}", parts.join("/"));
    }
    let mut parts: Vec<String> = vec!["..".to_string(); from.components().count() - common];
    parts.extend(to.components().skip(common).map(encode));
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// The paragraph saying how many rows a table or list left out.
pub(crate) fn push_left_out(out: &mut String, shown: usize, total: usize, what: &str) {
    out.push_str(&format!(
        "<p class=\"lede\">{}.</p>\n",
        escape(&left_out(shown, total, what))
    ));
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub(crate) fn push_lines(out: &mut String, id: &str, title: &str, lines: &[String]) {
    out.push_str(&format!(
        "<section id=\"{id}\">\n<h2>{title}</h2>\n<ul class=\"lines\">\n"
    ));
    for line in lines.iter().take(MAX_ROWS) {
        out.push_str(&format!("<li>{}</li>\n", escape(line)));
    }
    out.push_str("</ul>\n");
    if lines.len() > MAX_ROWS {
        push_left_out(out, MAX_ROWS, lines.len(), "lines");
    }
    out.push_str("</section>\n");
}

/// The environment as a two-column table of its described fields, sizes
/// humanised (`ram_bytes` 23.5 GiB, `fault_around_bytes` 64 KiB) with the
/// raw number beside them.
pub(crate) fn push_environment(out: &mut String, env: &crate::measure::environment::Environment) {
    out.push_str(
        "<div class=\"scroll\"><table class=\"fields\">\n<thead><tr><th scope=\"col\">field</th><th scope=\"col\">value</th></tr></thead>\n<tbody>\n",
    );
    for (name, value) in env.describe() {
        out.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td></tr>\n",
            escape(name),
            escape(&humanise(name, &value))
        ));
    }
    out.push_str("</tbody>\n</table></div>\n");
}

/// `value` of the field `name` with a byte count shown as a size: fields
/// ending in `_bytes` and `page_size` in bytes, `_kb` in KiB.
fn humanise(name: &str, value: &str) -> String {
    if value.trim().is_empty() {
        return "-".to_string();
    }
    let Ok(n) = value.trim().parse::<u64>() else {
        return value.to_string();
    };
    let bytes = if name.ends_with("_bytes") || name == "page_size" {
        n
    } else if name.ends_with("_kb") {
        n.saturating_mul(1024)
    } else {
        return value.to_string();
    };
    format!("{} ({value})", crate::report::units::human_bytes(bytes))
}

/// A two-column table of every field of `value` as serialized; nested
/// fields are named `outer.inner` (as in the Markdown report).
pub(crate) fn push_fields(out: &mut String, headings: [&str; 2], value: &impl serde::Serialize) {
    let mut fields = Vec::new();
    match serde_json::to_value(value) {
        Ok(v) => flatten("", &v, &mut fields),
        Err(e) => fields.push(("error".to_string(), e.to_string())),
    }
    if fields.is_empty() {
        out.push_str("<p>Nothing recorded.</p>\n");
        return;
    }
    out.push_str(&format!(
        "<div class=\"scroll\"><table class=\"fields\">\n<thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead>\n<tbody>\n",
        escape(headings[0]),
        escape(headings[1])
    ));
    for (name, value) in fields {
        out.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td></tr>\n",
            escape(&name),
            escape(&value)
        ));
    }
    out.push_str("</tbody>\n</table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_the_environment_are_humanised() {
        assert_eq!(
            humanise("ram_bytes", "25276510208"),
            "23.5 GiB (25276510208)"
        );
        assert_eq!(humanise("read_ahead_kb", "128"), "128.0 KiB (128)");
        assert_eq!(humanise("cores", "8"), "8");
    }
}
