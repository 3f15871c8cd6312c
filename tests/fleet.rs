//! The fleet run of deploy/ansible/: the real ansible-playbook runs
//! fleet.yml against an inventory of hosts on this machine (a local
//! connection, each host its own directory), and the fleet report holds the
//! hosts that ran while the ones that could not are named with their reason.
//!
//! Ansible is found as `$FAULTLINE_ANSIBLE_PLAYBOOK`, else `ansible-playbook`
//! on `PATH`. Without it the test skips with a notice, unless
//! `FAULTLINE_REQUIRE_TOOLS=1` (which `.ci/run` sets, after installing
//! ansible-core from PyPI into a virtual environment) makes that a failure.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

/// `ansible-playbook`, or `None` (after the notice) when it is missing.
fn ansible_playbook(test: &str) -> Option<PathBuf> {
    let found = match std::env::var_os("FAULTLINE_ANSIBLE_PLAYBOOK") {
        Some(p) => {
            let p = PathBuf::from(p);
            assert!(
                p.is_file(),
                "FAULTLINE_ANSIBLE_PLAYBOOK={} is not a file",
                p.display()
            );
            Some(p)
        }
        None => std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join("ansible-playbook"))
            .find(|p| p.is_file()),
    };
    if found.is_none() {
        let why = "ansible-playbook not found. Install ansible-core (python3 -m venv VENV && \
             VENV/bin/pip install ansible-core; .ci/run does this) and put it on PATH or in \
             FAULTLINE_ANSIBLE_PLAYBOOK. FAULTLINE_REQUIRE_TOOLS=1 makes this a failure.";
        assert!(
            std::env::var_os("FAULTLINE_REQUIRE_TOOLS").is_none_or(|v| v != "1"),
            "{test}: {why}"
        );
        common::skip(test, why);
    }
    found
}

/// The playbook's directory in this source tree.
fn playbook_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/ansible")
}

/// An inventory of hosts on this machine: two that run the plan, one
/// without faultline, one whose run faultline refuses, one unreachable (ssh
/// to a closed port of the loopback address).
fn inventory(dir: &Path, playbook: &Path) -> String {
    // Ansible's own Python runs the modules: the one beside a virtual
    // environment's ansible-playbook, else the system's.
    let python = playbook
        .parent()
        .map(|d| d.join("python3"))
        .filter(|p| p.is_file())
        .map_or_else(|| "auto_silent".to_string(), |p| p.display().to_string());
    let d = dir.display();
    format!(
        "faultline:
  hosts:
    host-a:
      faultline_remote_dir: {d}/host-a
      faultline_data_dir: {d}/host-a/data
    host-b:
      faultline_remote_dir: {d}/host-b
      faultline_data_dir: {d}/host-b/data
    host-nobinary:
      faultline_remote_dir: {d}/host-nobinary
      faultline_copy_binary: false
    host-refused:
      faultline_remote_dir: {d}/host-refused
      faultline_extra_args: [\"--size\", \"0\"]
    host-down:
      ansible_connection: ssh
      ansible_host: 127.0.0.1
      ansible_port: 9
      ansible_ssh_args: -o ConnectTimeout=5 -o BatchMode=yes
  vars:
    ansible_connection: local
all:
  vars:
    ansible_python_interpreter: {python}
    faultline_plan: {d}/plan.toml
    faultline_binary: {bin}
    faultline_results_dir: {d}/results
",
        bin = env!("CARGO_BIN_EXE_faultline"),
    )
}

/// Runs the playbook with `args`, Ansible's state kept in `dir`.
fn play(playbook: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(playbook)
        .args(["-i"])
        .arg(dir.join("inventory.yml"))
        .arg(playbook_dir().join("fleet.yml"))
        .args(args)
        .env("ANSIBLE_HOME", dir.join("ansible-home"))
        .env("ANSIBLE_LOCAL_TEMP", dir.join("ansible-tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_HOST_KEY_CHECKING", "False")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "False")
        .env_remove("ANSIBLE_CONFIG")
        .current_dir(dir)
        .output()
        .expect("ansible-playbook runs")
}

/// The `changed=N` of `host`'s line in the play recap.
fn changed(stdout: &str, host: &str) -> u32 {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with(&format!("{host} ")))
        .unwrap_or_else(|| panic!("{host} in the recap:\n{stdout}"));
    let field = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("changed="))
        .unwrap_or_else(|| panic!("changed= in {line}"));
    field.parse().expect("a count")
}

#[test]
fn a_fleet_run_compares_the_hosts_that_ran_and_names_those_that_failed() {
    let Some(playbook) = ansible_playbook("fleet::a_fleet_run_compares_the_hosts_that_ran") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(
        d.join("plan.toml"),
        "method = [\"read\", \"mmap\"]\npattern = [\"seq\"]\ncache = [\"warm\"]\n\
         size = [\"1M\"]\nruns = 2\n",
    )
    .unwrap();
    std::fs::write(d.join("inventory.yml"), inventory(d, &playbook)).unwrap();

    let first = play(&playbook, d, &[]);
    let stdout = String::from_utf8_lossy(&first.stdout);
    // A failed host fails the playbook, after the others were compared.
    assert_eq!(first.status.code(), Some(2), "{stdout}");
    let results = d.join("results");
    for host in ["host-a", "host-b"] {
        let export: serde_json::Value =
            serde_json::from_slice(&std::fs::read(results.join(format!("{host}.json"))).unwrap())
                .unwrap_or_else(|e| panic!("{host}.json is an export ({e})"));
        assert!(export["cases"].as_array().is_some_and(|c| c.len() == 2));
        // Each host generated its test file in its own data directory.
        assert!(
            common::file_ending(&d.join(host).join("data"), ".data").is_some(),
            "{host}'s data directory holds its test file"
        );
    }
    for host in ["host-nobinary", "host-refused", "host-down"] {
        assert!(!results.join(format!("{host}.json")).exists(), "{host}");
    }
    let report = std::fs::read_to_string(results.join("fleet.txt")).expect("the fleet report");
    assert!(
        report.contains("host-a") && report.contains("host-b"),
        "{report}"
    );
    assert!(report.contains("mmap vs read"), "{report}");
    let says = |host: &str, why: &str| {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(&format!("\"{host}: ")) && l.contains(why)),
            "{host}: {why} in\n{stdout}"
        );
    };
    says("host-nobinary", "faultline does not exist");
    says(
        "host-refused",
        "error: --block 16 KiB is larger than the file",
    );
    says("host-down", "unreachable");
    assert!(stdout.contains("2 of 5 host(s) compared"), "{stdout}");

    // Again: nothing changes on the hosts that ran (their runs are not
    // repeated, the exports fetched are the same).
    let limit = ["--limit", "host-a,host-b,localhost"];
    let again = play(&playbook, d, &limit);
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{stdout}");
    assert_eq!(changed(&stdout, "host-a"), 0, "{stdout}");
    assert_eq!(changed(&stdout, "host-b"), 0, "{stdout}");
    assert_eq!(changed(&stdout, "localhost"), 0, "{stdout}");

    // Check mode runs through and runs nothing: a new run name would run
    // the plan again, and in check mode leaves no export behind.
    let check = play(
        &playbook,
        d,
        &[&limit[..], &["--check", "-e", "faultline_run_name=second"]].concat(),
    );
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{stdout}");
    assert!(!d.join("host-a/second-host-a.json").exists(), "{stdout}");
    assert!(d.join("host-a/fleet-host-a.json").exists());
}

/// This test binary's fleet test, run again with no Ansible to be found.
fn fleet_test_without_ansible(require: Option<&str>) -> Output {
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "a_fleet_run_compares_the_hosts_that_ran_and_names_those_that_failed",
    ])
    .env("PATH", empty.path())
    .env_remove("FAULTLINE_ANSIBLE_PLAYBOOK")
    .env_remove("FAULTLINE_REQUIRE_TOOLS");
    if let Some(value) = require {
        cmd.env("FAULTLINE_REQUIRE_TOOLS", value);
    }
    cmd.output().unwrap()
}

#[test]
fn without_ansible_the_fleet_test_skips_loudly_unless_tools_are_required() {
    let out = fleet_test_without_ansible(None);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("NOTICE: fleet::a_fleet_run_compares_the_hosts_that_ran SKIPPED: ansible-playbook not found")
            && stderr.contains("FAULTLINE_REQUIRE_TOOLS=1"),
        "the notice, uncaptured: {stderr}"
    );
    let out = fleet_test_without_ansible(Some("1"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(stdout.contains("ansible-playbook not found"), "{stdout}");
}
