//! `--drop-caches`: as root it writes /proc/sys/vm/drop_caches; without root
//! it falls back to evicting the file, with a warning. In a test binary of its
//! own, so dropping the whole page cache cannot disturb other tests' warm trials.
//!
//! Both tests need root (the second to run faultline as another user), so
//! both are ignored unless asked for: `cargo test --release -- --ignored`.
mod common;

use common::{read_json, require_root, samples, succeeded, Flags, Scratch};

#[test]
#[ignore = "needs root"]
fn as_root_cold_means_drop_caches() {
    require_root("writing /proc/sys/vm/drop_caches");
    let scratch = Scratch::new();
    let results = scratch.run_json(
        Flags::new()
            .size("4M")
            .method("read,mmap")
            .cache("cold")
            .switch("--drop-caches")
            .runs(2),
    );
    let all = samples(&results);
    assert_eq!(all.len(), 8);
    for (_, s) in all {
        assert_eq!(s["cache_prepared_by"], "drop-caches");
        assert!(s["residency_before"].as_f64().unwrap() <= 0.01);
    }
    assert_eq!(results["settings"]["drop_caches"], true);
}

#[test]
#[ignore = "needs root"]
fn without_root_drop_caches_falls_back_with_a_warning() {
    require_root("running faultline as another user");
    assert!(
        std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok(),
        "this test needs setpriv (util-linux) to run faultline as another user"
    );
    let scratch = Scratch::new();
    let (mut nobody, home) = common::faultline_as_nobody(&scratch);
    let out = succeeded(
        nobody.arg("run").args(
            Flags::new()
                .size("1M")
                .method("read")
                .pattern("seq")
                .cache("cold")
                .switch("--drop-caches")
                .runs(1)
                .flag("--data-dir", home.join("data"))
                .export_json(&home.join("out.json")),
        ),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--drop-caches needs root; falling back"),
        "{stderr}"
    );
    let results = read_json(&home.join("out.json"));
    for (_, s) in samples(&results) {
        assert_eq!(s["cache_prepared_by"], "fadvise-dontneed");
        assert!(s["residency_before"].as_f64().unwrap() <= 0.01);
    }
}
