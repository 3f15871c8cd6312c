//! The one way faultline writes a CSV (the samples, the timeline, the
//! claims), a leaf of export/: a header, then rows whose every cell a
//! spreadsheet would take for a formula is neutralised.
use std::io;

/// `cell` as a spreadsheet may read it safely: a cell that starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return and is not a number (a
/// file name, a label, a trace path) would be taken for a formula, so it
/// gets a leading `'`. Numbers, negative ones included, stay numbers.
pub fn neutralise(cell: String) -> String {
    let risky = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && cell.parse::<f64>().is_err() {
        format!("'{cell}")
    } else {
        cell
    }
}

/// The one way faultline writes a CSV (the samples, the timeline, the
/// claims): a header, then rows whose every cell goes through
/// [`neutralise`].
pub struct Rows<W: io::Write>(::csv::Writer<W>);

impl<W: io::Write> Rows<W> {
    /// A CSV on `w` that starts with `header`.
    pub fn new(w: W, header: &[&str]) -> io::Result<Self> {
        let mut out = ::csv::Writer::from_writer(w);
        out.write_record(header).map_err(io::Error::from)?;
        Ok(Rows(out))
    }

    /// One row, each cell neutralised.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) -> io::Result<()> {
        self.0
            .write_record(cells.into_iter().map(|c| neutralise(c.into())))
            .map_err(io::Error::from)
    }

    /// Flushes what was written.
    pub fn finish(mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::neutralise;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        for (cell, out) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("-12.5", "-12.5"),
            ("-1e-9", "-1e-9"),
            ("read", "read"),
            ("", ""),
        ] {
            assert_eq!(neutralise(cell.to_string()), out, "{cell:?}");
        }
    }
}
