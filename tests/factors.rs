//! The factor table against the real binary: every flag an entry of
//! `faultline::plan::factor_table::FACTORS` names is a flag of `faultline
//! run`, so a factor cannot be declared with a flag that was renamed or
//! never added.
mod common;

use common::faultline;
use faultline::plan::factor_table::FACTORS;

#[test]
fn every_factor_flag_is_a_run_flag() {
    let out = faultline().args(["run", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    // A flag as clap lists it: at the start of a line, then a value or the end.
    let listed = |flag: &str| {
        help.lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix(flag)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '=']))
        })
    };
    let mut flags = 0;
    for factor in FACTORS {
        for flag in factor.flags {
            assert!(listed(flag), "{}: {flag} is not a flag of run", factor.name);
            flags += 1;
        }
    }
    assert!(flags > 30, "the table names {flags} flags");
}
