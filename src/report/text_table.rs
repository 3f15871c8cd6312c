//! A table of text cells with a caption, rendered as aligned plain text or
//! (by [`super::export::html`]) as HTML: a study's published table, or the measured
//! one in the same layout.

/// A table of text cells: a caption, column headings and rows.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// What the table shows and where it comes from.
    pub caption: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows of cells, as many as columns.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table from string slices.
    pub fn new(caption: &str, columns: &[&str], rows: Vec<Vec<String>>) -> Table {
        Table {
            caption: caption.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows,
        }
    }

    /// Rendered as aligned plain text.
    pub fn render_text(&self) -> String {
        let mut widths: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                if i < widths.len() {
                    widths[i] = widths[i].max(cell.chars().count());
                }
            }
        }
        let line = |cells: &[String]| {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
        };
        let mut out = format!("{}\n{}\n", self.caption, line(&self.columns));
        for row in &self.rows {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }
}
