//! A headless Chromium driven from its command line, for tests that must see
//! a page the way a browser renders it.
//!
//! Each run gets a fresh profile directory, its own process group (killed
//! when the run ends or times out) and the flags that keep Chromium off the
//! network: no background networking, component updates, sync or QUIC.
//! Output goes to files, not pipes, so a large DOM cannot block Chromium.
//!
//! Without Chromium a browser test is skipped, with a notice written past
//! the test harness's capture so `cargo test` shows it, and a fresh machine
//! passes. With `FAULTLINE_REQUIRE_BROWSER=1` (`.ci/run` sets it, and
//! installs Chromium) a missing Chromium fails the test instead.
#![allow(dead_code)]
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long one Chromium run may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A Chromium binary.
pub struct Chromium {
    binary: PathBuf,
}

/// What one run printed.
pub struct Run {
    /// Standard output (the DOM, for `--dump-dom`).
    pub stdout: String,
    /// Standard error, with the browser's log.
    pub stderr: String,
}

impl Run {
    /// Console messages the page produced (Chromium logs each as
    /// `...:CONSOLE...] "message", source: ...` with `--enable-logging=stderr`).
    pub fn console_messages(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
            .collect()
    }
}

impl Chromium {
    /// [`Chromium::locate`]; when there is none, panics with install advice
    /// if `FAULTLINE_REQUIRE_BROWSER=1`, else prints that `test` is skipped
    /// (straight to stderr, which the harness does not capture) and returns
    /// `None`.
    pub fn find(test: &str) -> Option<Chromium> {
        if let Some(chromium) = Chromium::locate() {
            return Some(chromium);
        }
        let advice = "Install it with `apt-get update && apt-get install -y chromium` \
             (.ci/run does this), or point FAULTLINE_CHROMIUM at a Chromium or Chrome binary.";
        if std::env::var_os("FAULTLINE_REQUIRE_BROWSER").is_some_and(|v| v == "1") {
            panic!(
                "chromium not found, and FAULTLINE_REQUIRE_BROWSER=1 requires it: this test \
                 renders the HTML report in a real headless browser. {advice}"
            );
        }
        crate::common::skip(
            test,
            &format!(
                "chromium not found. {advice} FAULTLINE_REQUIRE_BROWSER=1 makes this a failure."
            ),
        );
        None
    }

    /// `$FAULTLINE_CHROMIUM`, else the first of `chromium`, `chromium-browser`
    /// and `google-chrome` on `PATH`, else `None`.
    pub fn locate() -> Option<Chromium> {
        if let Some(path) = std::env::var_os("FAULTLINE_CHROMIUM") {
            let binary = PathBuf::from(path);
            assert!(
                binary.is_file(),
                "FAULTLINE_CHROMIUM={} is not a file",
                binary.display()
            );
            return Some(Chromium { binary });
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for dir in std::env::split_paths(&path) {
                let candidate = dir.join(name);
                if candidate.is_file() {
                    return Some(Chromium { binary: candidate });
                }
            }
        }
        None
    }

    /// Runs Chromium headless on `page` with `extra` flags.
    pub fn run(&self, page: &Path, extra: &[OsString]) -> Run {
        let scratch = tempfile::tempdir().expect("tempdir");
        let profile = scratch.path().join("profile");
        let (out, err) = (scratch.path().join("stdout"), scratch.path().join("stderr"));
        let mut cmd = Command::new(&self.binary);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url_of(page))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"));
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        let group = nix::unistd::Pid::from_raw(child.id() as i32);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for chromium") {
                break Some(status);
            }
            if started.elapsed() > TIMEOUT {
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        // Chromium's helpers (zygote, renderer, GPU) share its process group.
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        if status.is_none() {
            let _ = child.wait();
        }
        let run = Run {
            stdout: std::fs::read_to_string(&out).unwrap_or_default(),
            stderr: std::fs::read_to_string(&err).unwrap_or_default(),
        };
        match status {
            None => panic!(
                "chromium did not finish within {TIMEOUT:?}; its log:\n{}",
                run.stderr
            ),
            Some(s) if !s.success() => panic!("chromium failed ({s}); its log:\n{}", run.stderr),
            Some(_) => run,
        }
    }

    /// The DOM after the page loaded (and its load handlers ran).
    pub fn dump_dom(&self, page: &Path, window: (u32, u32)) -> Run {
        self.run(
            page,
            &[
                format!("--window-size={},{}", window.0, window.1).into(),
                "--dump-dom".into(),
            ],
        )
    }

    /// A PNG screenshot of the viewport at `window` size, written to `png`.
    pub fn screenshot(&self, page: &Path, png: &Path, window: (u32, u32)) -> Run {
        let run = self.run(
            page,
            &[
                format!("--window-size={},{}", window.0, window.1).into(),
                format!("--screenshot={}", png.display()).into(),
            ],
        );
        assert!(png.is_file(), "no screenshot written; log:\n{}", run.stderr);
        run
    }
}

fn url_of(page: &Path) -> String {
    let absolute = std::fs::canonicalize(page).expect("page exists");
    let mut url = String::from("file://");
    for byte in absolute.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(byte as char)
            }
            b => url.push_str(&format!("%{b:02X}")),
        }
    }
    url
}

/// Runs at load and records, into a hidden `<pre id="faultline-probe">`,
/// what the page looks like to the browser.
const PROBE_HEAD: &str = r#"<script>
window.__probe = { errors: [], violations: [] };
window.addEventListener('error', function (e) {
  __probe.errors.push(String(e.message || (e.target && (e.target.src || e.target.href)) || e.type));
}, true);
document.addEventListener('securitypolicyviolation', function (e) {
  __probe.violations.push(e.violatedDirective + ' ' + e.blockedURI);
});
</script>
"#;

const PROBE_BODY: &str = r#"<script>
window.addEventListener('load', function () {
  var all = function (selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); };
  var plots = all('figure.plot').map(function (figure) {
    var svg = figure.querySelector('svg');
    var box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
    return {
      id: figure.id,
      width: box.width,
      height: box.height,
      texts: svg ? all('text', svg).length : 0,
      shapes: svg ? all('rect, circle, polyline, path, line', svg).length : 0
    };
  });
  var out = {
    plots: plots,
    resources: performance.getEntriesByType('resource').map(function (r) { return r.name; }),
    errors: __probe.errors,
    violations: __probe.violations,
    title: document.title,
    images: document.images.length,
    scripts: document.scripts.length,
    sections: all('section[id]').map(function (s) { return s.id; }),
    statistics: all('#statistics li').map(function (li) { return li.textContent; }),
    verdicts: all('li.verdict').length,
    case_rows: all('table.cases tbody tr').length,
    flame_links: all('a.flame-link').map(function (a) { return a.getAttribute('href'); }),
    scroll_width: document.documentElement.scrollWidth,
    viewport_width: window.innerWidth
  };
  var pre = document.createElement('pre');
  pre.id = 'faultline-probe';
  pre.hidden = true;
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"#;

/// A copy of `html` with the probe scripts added and the page's
/// Content-Security-Policy widened by exactly `script-src 'unsafe-inline'`
/// (everything else stays forbidden).
pub fn with_probe(html: &str) -> String {
    let csp = "default-src &#39;none&#39;";
    assert_eq!(html.matches(csp).count(), 1, "the report has one CSP meta");
    let html = html.replacen(
        csp,
        "default-src &#39;none&#39;; script-src &#39;unsafe-inline&#39;",
        1,
    );
    let charset = "<meta charset=\"utf-8\">\n";
    assert!(html.contains(charset));
    let html = html.replacen(charset, &format!("{charset}{PROBE_HEAD}"), 1);
    assert!(html.contains("</body>"));
    html.replacen("</body>", &format!("{PROBE_BODY}</body>"), 1)
}

/// The probe's record in a dumped DOM.
pub fn probe_of(dom: &str) -> Value {
    let start = dom
        .find("id=\"faultline-probe\"")
        .unwrap_or_else(|| panic!("the probe did not run; DOM:\n{dom}"));
    let body = &dom[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</pre>").unwrap()];
    let text = body
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("probe JSON: {e}: {text}"))
}

/// Pixel statistics of a PNG.
pub struct PixelStats {
    /// Width in px.
    pub width: u32,
    /// Height in px.
    pub height: u32,
    /// Variance of the luminance (0 to 255 squared).
    pub variance: f64,
    /// Fraction of pixels that are not near-white.
    pub inked: f64,
}

impl PixelStats {
    /// Decodes `png` and measures it; also counts the pixels within 24 of
    /// each colour in `colours` (per channel).
    pub fn of(png: &Path, colours: &[[u8; 3]]) -> (PixelStats, Vec<usize>) {
        let file = std::fs::File::open(png).expect("screenshot");
        let decoder = png::Decoder::new(std::io::BufReader::new(file));
        let mut reader = decoder.read_info().expect("PNG header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("PNG data");
        let samples = info.color_type.samples();
        assert!(
            info.bit_depth == png::BitDepth::Eight && samples >= 3,
            "8-bit RGB(A) expected, got {:?} {:?}",
            info.bit_depth,
            info.color_type
        );
        let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()]
            .chunks(samples)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        let luma: Vec<f64> = pixels
            .iter()
            .map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
            .collect();
        let n = luma.len() as f64;
        let mean = luma.iter().sum::<f64>() / n;
        let variance = luma.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n;
        let inked = luma.iter().filter(|l| **l < 240.0).count() as f64 / n;
        let near = |p: &[u8; 3], c: &[u8; 3]| (0..3).all(|i| p[i].abs_diff(c[i]) <= 24);
        let counts = colours
            .iter()
            .map(|c| pixels.iter().filter(|p| near(p, c)).count())
            .collect();
        (
            PixelStats {
                width: info.width,
                height: info.height,
                variance,
                inked,
            },
            counts,
        )
    }
}
