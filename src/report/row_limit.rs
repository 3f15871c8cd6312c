//! How many rows the HTML report shows of a run of many cases: its tables
//! and lists at most [`MAX_ROWS`] rows each, its plots at most
//! [`MAX_PLOT_ROWS`], and a sentence saying how many were left out and
//! where they are (the JSON export holds every case). A page of 100,000
//! rows is hundreds of megabytes no one reads; runs of ordinary size are
//! shown whole.

/// The most rows (cases, verdicts, lines) a table or list of the HTML
/// report shows.
pub const MAX_ROWS: usize = 1_000;

/// The most rows (cases or comparisons) a plot draws: 500 rows are already
/// 13,000 px tall.
pub const MAX_PLOT_ROWS: usize = 500;

/// `n` with a comma between each three digits: `20,000`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The sentence under a table or list that shows `shown` of `total` `what`
/// (a plural noun): how many were left out, and where they are.
pub fn left_out(shown: usize, total: usize, what: &str) -> String {
    format!(
        "The first {} of {} {what} are shown here; the other {} are left out of this page \
         (the run's JSON export, `--export-json`, holds every case, comparison and sample)",
        thousands(shown),
        thousands(total),
        thousands(total - shown)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(20_000), "20,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn left_out_counts_what_is_missing() {
        let s = left_out(1_000, 20_000, "cases");
        assert!(s.starts_with("The first 1,000 of 20,000 cases are shown here"));
        assert!(s.contains("the other 19,000 are left out"), "{s}");
        assert!(s.contains("JSON export"), "{s}");
    }
}
