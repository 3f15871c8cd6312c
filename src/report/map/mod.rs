//! `faultline map`'s output: the answer in words ([`words`]), the crossovers
//! with their brackets, the points as a table, what the search cost against
//! a full grid, the JSON export and the HTML page (the ratio along the
//! factor with its CIs, and each bracket). Rendering only: every number
//! comes from [`MapResults`].
use std::io;
use std::path::Path;

use super::export::html::{escape, page_end, page_start, push_plot, push_text_table};
use super::plot::{series_plot, Axis as PlotAxis, Series, SeriesStyle};
use super::text_table::Table;
use crate::analysis::map_results::{observations, Crossover, MapPoint, MapResults, Stopped};
use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::stats::crossover::{self, Region, Scale, Side};

pub mod plane;
/// A side in words, with the methods' names.
pub fn side_words(side: Side, methods: &[String; 2]) -> String {
    match side {
        Side::AFaster => format!("{} faster", methods[0]),
        Side::BFaster => format!("{} faster", methods[1]),
        Side::NoDifference => "no difference".to_string(),
        Side::Unsettled => "unsettled".to_string(),
    }
}

/// `32 KiB` and `48 KiB` as `32–48 KiB`; labels with different units as
/// `768 KiB–1 MiB`.
pub fn span(low: &str, high: &str) -> String {
    match (low.rsplit_once(' '), high.rsplit_once(' ')) {
        (Some((a, u)), Some((b, v))) if u == v => format!("{a}–{b} {u}"),
        _ => format!("{low}–{high}"),
    }
}

/// The answer in one sentence, e.g. `mmap faster for blocks up to
/// 32–48 KiB; no difference to 128–192 KiB; read faster from there up to
/// 1 MiB`, or `no crossover between 4 KiB and 1 MiB: mmap faster throughout`.
pub fn words(r: &MapResults) -> String {
    let label = |x: f64| {
        r.points
            .iter()
            .find(|p| p.value == x)
            .map_or_else(String::new, |p| p.label.clone())
    };
    let obs = observations(&r.points);
    let regions: Vec<Region> = crossover::regions(&obs);
    let (low, high) = (label(r.axis.low), label(r.axis.high));
    let unsettled = crossover::side_at(&obs)
        .iter()
        .filter(|p| !p.1.settled())
        .count();
    let unsettled_note = if unsettled > 0 {
        format!(" ({unsettled} point(s) unsettled)")
    } else {
        String::new()
    };
    match regions.len() {
        0 if r.points.is_empty() => "nothing measured".to_string(),
        0 => format!(
            "no verdict between {low} and {high}: every point unsettled (more runs, --precision, \
             or a quieter machine would settle them)"
        ),
        1 => format!(
            "no crossover between {low} and {high}: {} throughout{unsettled_note}",
            side_words(regions[0].side, &r.methods)
        ),
        n => {
            let mut parts = Vec::new();
            for (i, region) in regions.iter().enumerate() {
                let side = side_words(region.side, &r.methods);
                let bracket =
                    |j: usize| span(&label(regions[j].last), &label(regions[j + 1].first));
                let text = if i == 0 {
                    let from = if region.first > r.axis.low {
                        format!(" from {}", label(region.first))
                    } else {
                        String::new()
                    };
                    format!("{side} for {}{from} up to {}", r.noun, bracket(0))
                } else if i + 1 < n {
                    format!("{side} from there to {}", bracket(i))
                } else {
                    format!("{side} from there up to {}", label(region.last))
                };
                parts.push(text);
            }
            format!("{}{unsettled_note}", parts.join("; "))
        }
    }
}

/// One line per crossover: its bracket, the verdicts on each side, how
/// wide it is and whether it is as tight as asked (and why not).
pub fn crossover_lines(r: &MapResults) -> Vec<String> {
    r.crossovers
        .iter()
        .enumerate()
        .map(|(i, c)| crossover_line(i, c, r))
        .collect()
}

fn crossover_line(i: usize, c: &Crossover, r: &MapResults) -> String {
    let width = match r.axis.scale {
        Scale::Log => format!("{:.2}x wide", c.high / c.low),
        Scale::Linear => format!("{} wide", (c.high - c.low) * 1000.0 / 1000.0),
    };
    let asked = match r.axis.scale {
        Scale::Log => format!("{}x", r.axis.resolution),
        Scale::Linear => format!("{}", r.axis.resolution),
    };
    let tight = if c.tight {
        format!("within {asked}")
    } else if c.unsettled_between > 0 && r.stopped == Stopped::Converged {
        format!(
            "wider than {asked}: {} point(s) between are unsettled",
            c.unsettled_between
        )
    } else {
        format!("wider than {asked}: {}", stopped_words(r.stopped))
    };
    format!(
        "crossover {}: {} {} ({}) → {} ({}): {width}, {tight}",
        i + 1,
        c.factor,
        c.low_label,
        side_words(c.below, &r.methods),
        c.high_label,
        side_words(c.above, &r.methods),
    )
}

/// Why the search stopped, in words.
pub fn stopped_words(s: Stopped) -> &'static str {
    match s {
        Stopped::Converged => "every bracket as tight as asked or as the points allow",
        Stopped::Budget => "the time budget (--max-time) was spent",
        Stopped::Interrupted => "interrupted",
    }
}

/// What the search cost against a full grid of the same resolution: the
/// points and trials measured, counted; the grid's points, and its trials
/// under the same rules (every case from `--runs` to `--max-runs` runs at
/// every point), from which the share is computed. A map without the
/// grid's rules (a line of a plane) gives the points only.
pub fn cost_line(r: &MapResults) -> String {
    let measurements = r.points.len();
    let resolution = match r.axis.scale {
        Scale::Log => format!("{}x", r.axis.resolution),
        Scale::Linear => format!("steps of {}", r.axis.resolution),
    };
    let share = if r.grid_points > 0 {
        100.0 * r.distinct_points as f64 / r.grid_points as f64
    } else {
        0.0
    };
    let g = &r.grid_trials;
    let trials = match g.share(r.trials) {
        Some((of_most, _)) if g.least == g.most => format!(
            " and {} trials ({} runs of each of its {} cases per point): {:.0}% of its points and {:.0}% of its trials",
            g.most,
            g.runs,
            g.cases,
            share,
            100.0 * of_most
        ),
        Some((of_most, of_least)) => format!(
            " and {} to {} trials under the same rules ({} to {} runs of each of its {} cases per point): {:.0}% of its points and {:.0}% of its most trials ({:.0}% of its fewest)",
            g.least,
            g.most,
            g.runs,
            g.max_runs,
            g.cases,
            share,
            100.0 * of_most,
            100.0 * of_least
        ),
        None => format!(": {share:.0}% of its points"),
    };
    format!(
        "search: {} point(s) ({measurements} measurement(s), {} trials) in {:.0} s, {}; a full grid \
         at {resolution} would be {} points{trials}",
        r.distinct_points,
        r.trials,
        r.elapsed_s,
        stopped_words(r.stopped),
        r.grid_points,
    )
}

/// A point's comparison, e.g. `1.42x [1.38–1.46]`, or `-` with one pair.
fn ratio_text(p: &MapPoint) -> String {
    match &p.ratio {
        Some(e) => format!(
            "{}x [{}–{}]",
            super::units::sig3(e.ratio),
            super::units::sig3(e.ci95_low),
            super::units::sig3(e.ci95_high)
        ),
        None => "-".to_string(),
    }
}

/// The line printed as each point is measured.
pub fn point_line(p: &MapPoint, factor: &str) -> String {
    format!(
        "map: {factor} {}: {} / {} {} → {} ({} trials, {:.1} s)",
        p.label,
        p.other.label,
        p.baseline.label,
        ratio_text(p),
        match p.side {
            Side::AFaster => format!("{} faster", p.baseline.label),
            Side::BFaster => format!("{} faster", p.other.label),
            Side::NoDifference => "no difference".to_string(),
            Side::Unsettled => "unsettled".to_string(),
        },
        p.trials,
        p.seconds
    )
}

/// The points as a table, in order along the factor.
pub fn points_table(r: &MapResults) -> Table {
    let mut points: Vec<&MapPoint> = r.points.iter().collect();
    points.sort_by(|a, b| a.value.total_cmp(&b.value).then(a.round.cmp(&b.round)));
    let rows = points
        .iter()
        .map(|p| {
            vec![
                p.label.clone(),
                p.round.to_string(),
                ratio_text(p),
                side_words(p.side, &r.methods),
                p.ratio.as_ref().map_or(0, |e| e.pairs).to_string(),
                p.trials.to_string(),
            ]
        })
        .collect();
    let ratio = format!("{} / {} throughput [95% CI]", r.methods[1], r.methods[0]);
    Table::new(
        &format!(
            "{}: {} against {}, {}",
            r.factor, r.methods[1], r.methods[0], r.fixed
        ),
        &[
            r.factor.as_str(),
            "round",
            ratio.as_str(),
            "verdict",
            "pairs",
            "trials",
        ],
        rows,
    )
}

/// Everything the terminal shows after a map: the words, the crossovers,
/// the table, the cost.
pub fn render_text(r: &MapResults) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} against {} along {} ({}):\n",
        r.methods[1], r.methods[0], r.factor, r.fixed
    ));
    out.push_str(&words(r));
    out.push('\n');
    for line in crossover_lines(r) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&points_table(r).render_text());
    out.push('\n');
    out.push_str(&cost_line(r));
    out.push('\n');
    out
}

/// How many trials the machine interfered with (other work during them),
/// over all points; `None` when none was.
pub fn interference_line(r: &MapResults) -> Option<String> {
    let samples = r
        .points
        .iter()
        .flat_map(|p| p.baseline.samples.iter().chain(&p.other.samples));
    let (mut all, mut hit) = (0, 0);
    for s in samples {
        all += 1;
        hit += usize::from(s.interfered());
    }
    (hit > 0).then(|| {
        format!(
            "{hit} of {all} trials were interfered with (the machine did other work during them);              each sample's record is in the JSON export"
        )
    })
}

/// Writes the JSON export atomically.
pub fn write_json(r: &MapResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        serde_json::to_writer_pretty(&mut *w, r).map_err(io::Error::from)?;
        w.write_all(b"\n")
    })
}

/// The plot: B / A along the factor with each point's 95% CI, the line of
/// no difference, and each bracket as a dashed segment on it.
pub fn ratio_plot(r: &MapResults) -> super::plot::Plot {
    let mut measured: Vec<super::plot::Point> = r
        .points
        .iter()
        .filter_map(|p| {
            p.ratio
                .as_ref()
                .map(|e| (p.value, e.ratio, Some((e.ci95_low, e.ci95_high))))
        })
        .collect();
    measured.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut series = vec![Series {
        label: format!("{} / {} (measured, 95% CI)", r.methods[1], r.methods[0]),
        points: measured,
        style: SeriesStyle::Measured,
    }];
    for (i, c) in r.crossovers.iter().enumerate() {
        series.push(Series {
            label: format!("crossover {}: {}", i + 1, span(&c.low_label, &c.high_label)),
            points: vec![(c.low, 1.0, None), (c.high, 1.0, None)],
            style: SeriesStyle::Published,
        });
    }
    let unit = if r.unit == "bytes" { ", bytes" } else { "" };
    let x = match r.axis.scale {
        Scale::Log => PlotAxis::log(format!("{}{unit}", r.factor)),
        Scale::Linear => PlotAxis::linear(format!("{}{unit}", r.factor)),
    };
    let mut plot = series_plot(
        "map",
        &format!("{} / {} along {}", r.methods[1], r.methods[0], r.factor),
        x,
        PlotAxis::log(format!(
            "throughput ratio {} / {}",
            r.methods[1], r.methods[0]
        )),
        &series,
    );
    plot.caption = format!(
        "Dots: the throughput ratio at each point measured, whiskers its 95% CI; above 1 {} is \
         faster. Dashed segments at 1: the brackets, from the last point with one verdict to \
         the first with the next. {}",
        r.methods[1], plot.caption
    );
    plot
}

/// The HTML page of a map.
pub fn render_html(r: &MapResults) -> String {
    let title = format!(
        "{} against {} along {}",
        r.methods[1], r.methods[0], r.factor
    );
    let mut out = page_start(&title, &words(r), &[], "");
    out.push_str(&format!(
        "<section><h2>Answer</h2><p>{}</p>\n",
        escape(&words(r))
    ));
    for line in crossover_lines(r) {
        out.push_str(&format!("<p>{}</p>\n", escape(&line)));
    }
    out.push_str(&format!("<p>{}</p></section>\n", escape(&cost_line(r))));
    out.push_str("<section><h2>Ratio along the factor</h2>\n");
    push_plot(&mut out, &ratio_plot(r));
    out.push_str("</section>\n<section><h2>Points</h2>\n");
    push_text_table(&mut out, &points_table(r));
    out.push_str("</section>\n");
    push_warnings(&mut out, &r.warnings);
    page_end(&mut out);
    out
}

/// The page's warnings section, when there are warnings (the 1-D and 2-D
/// map pages share it).
pub(super) fn push_warnings(out: &mut String, warnings: &[String]) {
    if warnings.is_empty() {
        return;
    }
    out.push_str("<section><h2>Warnings</h2><ul>\n");
    for w in warnings {
        out.push_str(&format!("<li>{}</li>\n", escape(w)));
    }
    out.push_str("</ul></section>\n");
}

/// Writes the HTML page atomically.
pub fn write_html(r: &MapResults, path: &Path) -> Result<()> {
    let page = render_html(r);
    write_atomically(path, SHARED_MODE, |w| w.write_all(page.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::map_results::MapPoint;
    use crate::stats::crossover::Axis;

    fn results(sides: &[(f64, Side)]) -> MapResults {
        let run = crate::fixtures::results();
        let points: Vec<MapPoint> = sides
            .iter()
            .map(|&(x, side)| {
                let mut p =
                    MapPoint::from_run(x, crate::size::format_size(x as u64), 0, &run, 0.05, 1.0)
                        .unwrap();
                p.side = side;
                p
            })
            .collect();
        let axis = Axis {
            low: 4096.0,
            high: 1048576.0,
            scale: Scale::Log,
            resolution: 1.25,
        };
        let label = |x: f64| crate::size::format_size(x as u64);
        MapResults {
            faultline_map: 1,
            factor: "block".into(),
            unit: "bytes".into(),
            noun: "blocks".into(),
            methods: ["read".into(), "mmap".into()],
            fixed: "random sum, warm, 16 MiB".into(),
            axis,
            margin: 0.05,
            crossovers: crate::analysis::map_results::crossovers("block", &axis, &points, &label),
            trials: points.iter().map(|p| p.trials).sum(),
            distinct_points: points.len(),
            points,
            grid_points: 26,
            grid_trials: Default::default(),
            stopped: Stopped::Converged,
            elapsed_s: 10.0,
            budget_s: 60.0,
            environment: None,
            command_line: Vec::new(),
            warnings: Vec::new(),
        }
    }

    const K: f64 = 1024.0;

    #[test]
    fn the_words_name_each_region_with_its_brackets() {
        let r = results(&[
            (4.0 * K, Side::BFaster),
            (32.0 * K, Side::BFaster),
            (48.0 * K, Side::NoDifference),
            (128.0 * K, Side::NoDifference),
            (192.0 * K, Side::AFaster),
            (1024.0 * K, Side::AFaster),
        ]);
        assert_eq!(
            words(&r),
            "mmap faster for blocks up to 32–48 KiB; no difference from there to 128–192 KiB; \
             read faster from there up to 1 MiB"
        );
        let lines = crossover_lines(&r);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("crossover 1: block 32 KiB (mmap faster) → 48 KiB (no difference): 1.50x wide, wider than 1.25x"), "{}", lines[0]);
    }

    #[test]
    fn no_crossover_is_said_so_with_the_winner() {
        let r = results(&[
            (4.0 * K, Side::BFaster),
            (64.0 * K, Side::Unsettled),
            (1024.0 * K, Side::BFaster),
        ]);
        assert_eq!(
            words(&r),
            "no crossover between 4 KiB and 1 MiB: mmap faster throughout (1 point(s) unsettled)"
        );
        assert!(r.crossovers.is_empty());
    }

    #[test]
    fn the_cost_compares_points_with_the_full_grid() {
        let r = results(&[(4.0 * K, Side::BFaster), (1024.0 * K, Side::BFaster)]);
        let line = cost_line(&r);
        // Two points of 6 trials each against a grid of 26 without its
        // rules: points only.
        assert!(
            line.contains("2 point(s) (2 measurement(s), 12 trials)"),
            "{line}"
        );
        assert!(line.ends_with("26 points: 8% of its points"), "{line}");
        // With them: 26 points of 2 cases, 3 to 6 runs each.
        let mut r = r;
        r.grid_trials = crate::analysis::map_results::GridTrials::of(26, 2, 3, 6);
        let line = cost_line(&r);
        assert!(
            line.contains(
                "26 points and 156 to 312 trials under the same rules (3 to 6 runs of \
                           each of its 2 cases per point): 8% of its points and 4% of its most \
                           trials (8% of its fewest)"
            ),
            "{line}"
        );
        r.grid_trials = crate::analysis::map_results::GridTrials::of(26, 2, 5, 5);
        let line = cost_line(&r);
        assert!(
            line.ends_with(
                "26 points and 260 trials (5 runs of each of its 2 cases per point): \
                            8% of its points and 5% of its trials"
            ),
            "{line}"
        );
    }

    #[test]
    fn the_page_draws_the_ratio_and_each_bracket() {
        let r = results(&[(4.0 * K, Side::BFaster), (1024.0 * K, Side::AFaster)]);
        let page = render_html(&r);
        assert!(
            page.contains("crossover 1: 4–1024 KiB") || page.contains("crossover 1: 4 KiB–1 MiB"),
            "no bracket in the legend"
        );
        assert!(page.contains("<svg"), "no plot");
        assert!(page.contains("mmap faster for blocks up to 4 KiB–1 MiB"));
    }
}
