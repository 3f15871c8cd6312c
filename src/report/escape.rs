//! Escaping text for HTML and SVG, a leaf of report/: the HTML page, the
//! flame graphs and the maps all put user text (file names, titles) into
//! markup through it.

/// `text` safe inside an element or a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
