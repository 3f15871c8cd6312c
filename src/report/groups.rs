//! The groups the reports show: cases that share every factor but the
//! method, headed by what they share, in the order each first appears.
use std::collections::HashMap;

use crate::plan::GroupKey;
use crate::results::{CaseResult, RunResults};

/// Cases that share every factor but the method.
pub(crate) struct Group<'a> {
    /// e.g. `seq 16 KiB sum, warm; 1 GiB file`.
    pub heading: String,
    /// Its cases, in the order of the results.
    pub cases: Vec<&'a CaseResult>,
}

/// The groups of the results' cases, in the order each first appears.
pub(crate) fn groups(results: &RunResults) -> Vec<Group<'_>> {
    // Each group's index by its key: linear in the cases (100,000 of them).
    let mut index: HashMap<GroupKey, usize> = HashMap::new();
    let mut groups: Vec<Group<'_>> = Vec::new();
    for case in &results.cases {
        let key = case.case.group_key();
        match index.get(&key) {
            Some(&i) => groups[i].cases.push(case),
            None => {
                index.insert(key, groups.len());
                groups.push(Group {
                    heading: format!("{}; {}", case.case.group_label(), case.case.size_heading()),
                    cases: vec![case],
                });
            }
        }
    }
    // Groups that differ only in the seed of their random order.
    let mut headings: HashMap<&str, usize> = HashMap::new();
    for g in &groups {
        *headings.entry(g.heading.as_str()).or_default() += 1;
    }
    let ambiguous: Vec<bool> = groups
        .iter()
        .map(|g| headings[g.heading.as_str()] > 1)
        .collect();
    for (group, ambiguous) in groups.iter_mut().zip(ambiguous) {
        if ambiguous {
            let seed = group.cases[0].case.seed;
            group.heading.push_str(&format!(", seed {seed}"));
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn groups_split_on_every_shared_factor() {
        let mut results = fixtures::results();
        results.cases[2].case.file_size = 1 << 20;
        results.cases[1].case.seed = 8;
        let groups = groups(&results);
        assert_eq!(groups.len(), 3);
        assert!(
            groups[0].heading.ends_with("seed 7"),
            "{}",
            groups[0].heading
        );
        assert!(
            groups[1].heading.ends_with("seed 8"),
            "{}",
            groups[1].heading
        );
        assert_eq!(groups[2].heading, "seq 16 KiB sum, warm; 1 MiB file");
        assert!(crate::report::render_table(&results).contains("1 MiB file"));
        // A file set's heading gives its total, not one file's size.
        results.cases[2].case.files = Some(crate::plan::FileSet {
            count: 256,
            min_size: 4096,
            max_size: 4096,
        });
        let groups = super::groups(&results);
        assert_eq!(
            groups[2].heading,
            "seq 16 KiB sum, 256 files of 4 KiB, warm; 1 MiB in all"
        );
    }
}
