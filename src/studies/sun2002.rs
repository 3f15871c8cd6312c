//! sun2002: 10 threads in one process each reduce a 1280 × 1024 24-bit PPM
//! image (3.75 MB) by 2, 3, 4 and 8, reading it into a buffer with read()
//! against mapping it (Sun Microsystems, "A Performance Comparison of read
//! and mmap", 2002, Table 1).
use super::{
    comparison, ratio_cell, ratio_header, ratio_point, read_case, secs, secs_pm, summary_of,
    Preset, Scope, Table, COMPARISON_NOTE,
};
use crate::files::image::image_len;
use crate::method::{MethodKind, Share};
use crate::pattern::Pattern;
use crate::plan::CacheState;
use crate::plan::{Case, Metric, OrderPolicy, Plan};
use crate::plan::{ThreadMode, Threads};
use crate::report::plot::{series_plot, Axis, Plot, Series, SeriesStyle};
use crate::results::RunResults;
use crate::stats::effect::{LogRatios, Published, Size};
use crate::studies::claims::{Claim, Expect};
use crate::workload::{ScaleFactor, ScaleUnit, WorkloadKind};

/// The preset.
pub struct Sun2002;

/// The study's image, pixels.
const IMAGE: (u32, u32) = (1280, 1024);
/// Threads in the one process, each scaling the whole image.
const THREADS: u32 = 10;
/// Table 1: reduction factor, read mean s, mmap mean s, read/mmap.
const TABLE1: [(u32, f64, f64, f64); 4] = [
    (2, 5.48, 4.79, 1.14),
    (3, 3.11, 2.44, 1.28),
    (4, 2.25, 1.52, 1.48),
    (8, 1.26, 0.62, 2.03),
];

/// The tolerance of a Table 1 ratio (a mean of 10 runs, printed to two
/// decimals, no spread given): ×/÷ 1.10.
const TOLERANCE: f64 = 0.10;

/// Table 1's ratio at one factor, as a published effect.
fn table1_effect(ratio: f64) -> Published {
    Published::faster(Size::Ratio {
        value: ratio,
        tolerance: TOLERANCE,
    })
}

/// How much Table 1's read/mmap ratio multiplies per doubling of the
/// factor: the least-squares slope of its log ratios on the log factors,
/// fitted as [`crate::stats::trend`] fits the measured ones (about 1.34).
fn table1_per_doubling() -> f64 {
    let points: Vec<(f64, LogRatios)> = TABLE1
        .iter()
        .map(|&(k, _, _, q)| {
            (
                f64::from(k),
                LogRatios {
                    n: 2,
                    mean: q.ln(),
                    se: 0.0,
                },
            )
        })
        .collect();
    crate::stats::trend::trend(&points, 0.9)
        .expect("Table 1 has four factors")
        .per_doubling()
}

/// The image at `scope`: the study's, or a 5:4 one a side `sqrt(scale_down)`
/// times smaller (80 × 64 at 256) for tests.
fn image_at(scope: Scope) -> (u32, u32) {
    let d = (scope.scale_down.max(1) as f64).sqrt().floor().max(1.0) as u32;
    if d <= 1 {
        return IMAGE;
    }
    let w = ((IMAGE.0 / d).max(40) / 8) * 8;
    (w, w * 4 / 5)
}

/// The image's length and whether the run replays the listing's quirks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    size: u64,
    faithful: bool,
}

impl Shape {
    /// The shape of a plan's or a run's cases: `--faithful` ones scale bytes.
    fn of<'a>(cases: impl IntoIterator<Item = &'a Case>) -> Shape {
        let mut cases = cases.into_iter().peekable();
        let size = cases.peek().map_or(0, |c| c.file_size);
        Shape {
            size,
            faithful: cases.any(|c| c.scale_unit == Some(ScaleUnit::Byte)),
        }
    }
}

/// The read and mmap cases reducing the image by `k`: whole pixels and a
/// MAP_SHARED mapping (the text), or with `--faithful` the listing's
/// bytes-as-pixels scaling and MAP_PRIVATE.
fn cases(shape: Shape, k: u32) -> (Case, Case) {
    let Shape { size, faithful } = shape;
    let case = |method| Case {
        scale: Some(ScaleFactor::Reduce(k)),
        scale_unit: faithful.then_some(ScaleUnit::Byte),
        threads: Some(Threads {
            count: THREADS,
            mode: ThreadMode::Replicate,
        }),
        ..read_case(
            method,
            Pattern::Seq,
            size,
            size,
            WorkloadKind::Scale,
            CacheState::Warm,
        )
    };
    let mut mmap = case(MethodKind::Mmap);
    if faithful {
        mmap.share = Some(Share::Private);
    }
    (case(MethodKind::Read), mmap)
}

fn size_of(results: &RunResults) -> Shape {
    Shape::of(results.cases.iter().map(|c| &c.case))
}

impl Preset for Sun2002 {
    fn name(&self) -> &'static str {
        "sun2002"
    }

    fn source(&self) -> &'static str {
        "Sun Microsystems, \"A Performance Comparison of read and mmap\", 2002 (Table 1)"
    }

    fn published(&self) -> Vec<Table> {
        vec![Table::new(
            "Published (Table 1: 1280×1024 24-bit PPM, 10 threads, mean of 10 runs)",
            &["factor", "read", "mmap", "read/mmap"],
            TABLE1
                .iter()
                .map(|&(k, r, m, q)| {
                    vec![
                        k.to_string(),
                        format!("{r:.2} s"),
                        format!("{m:.2} s"),
                        format!("{q:.2}"),
                    ]
                })
                .collect(),
        )]
    }

    fn plan(&self, scope: Scope) -> Plan {
        let (w, h) = image_at(scope);
        let shape = Shape {
            size: image_len(w, h),
            faithful: scope.faithful,
        };
        let cases = TABLE1
            .iter()
            .flat_map(|&(k, ..)| {
                let (r, m) = cases(shape, k);
                [r, m]
            })
            .collect();
        Plan {
            cases,
            runs: scope.runs(20, 10),
            warmup: 0,
            order: OrderPolicy::Alternating,
            metric: Metric::Total,
            seed: 1,
        }
    }

    fn claims(&self, plan: &Plan) -> Vec<Claim> {
        let shape = Shape::of(&plan.cases);
        let pairs: Vec<(Case, Case)> = TABLE1.iter().map(|&(k, ..)| cases(shape, k)).collect();
        let per_doubling = table1_per_doubling();
        vec![
            Claim {
                id: "table1".into(),
                text: format!(
                    "mmap is faster than read at every reduction factor, by Table 1's ratio at that factor (1.14, 1.28, 1.48, 2.03; each judged at ×/÷ {:.2})",
                    1.0 + TOLERANCE
                ),
                pairs: pairs.clone(),
                expect: Expect::EachEffect(TABLE1.iter().map(|&(.., q)| table1_effect(q)).collect()),
                quorum: 1.0,
                published: "read/mmap 1.14, 1.28, 1.48, 2.03 at factors 2, 3, 4, 8 (Table 1); \"always greater than one\"".into(),
            },
            Claim {
                id: "grows".into(),
                text: format!(
                    "mmap's advantage grows with the reduction factor: the trend over all four factors, about x{per_doubling:.2} per doubling of the factor as in Table 1 (judged at ×/÷ {:.2})",
                    1.0 + TOLERANCE
                ),
                pairs,
                expect: Expect::Trend {
                    factors: TABLE1.iter().map(|&(k, ..)| f64::from(k)).collect(),
                    per_doubling: table1_effect(per_doubling),
                },
                quorum: 1.0,
                published: format!(
                    "the ratio increases with the factor, 1.14 at 2 to 2.03 at 8 (Table 1, Figure 1): x{per_doubling:.2} per doubling, least squares over the four"
                ),
            },
        ]
    }

    fn fidelity(&self) -> Vec<String> {
        vec![
            "Scales whole 3-byte pixels (output pixel (x, y) is input pixel (k·x, k·y)). The article's listing indexes the raster as if every byte were a pixel: rows of `width` bytes, so it reads only the first third of the raster (every k-th byte of every k-th 1280-byte row), while read() still copies the whole image. Replayed by --faithful (--scale-unit byte), which lets mmap skip two thirds of the pages at every factor.".into(),
            "The image is generated from a fixed seed (deterministic content, the same file every run), not a photograph; reduction time does not depend on the pixel values. Not replayed by --faithful: the photograph is not published.".into(),
            "The mapping is MAP_SHARED, as the article's text says; the listing used MAP_PRIVATE, which --faithful replays. Both only read here, so no page is copied either way.".into(),
            "The listing starts both versions a byte or two before the raster (an offset minus 1 minus 1); faultline scales from the raster's first byte in both modes: the offset's origin is not shown and it moves no page boundary that matters.".into(),
            "Times are per trial: the barrier release to the last of the 10 threads finishing its get-the-bytes, scope and free (read: read() into a buffer, free; mmap: mmap, scope, madvise(MADV_DONTNEED), munmap). The article timed a whole program; the image is warm in the page cache for both. Not replayed by --faithful: the program's start, header parsing and exit would add the same cost to both versions.".into(),
            "On a kernel with large folios and fault-around (the machine notes give this one's), a page fault maps a whole folio or a fault-around window at once, so mmap takes fewer faults per MiB than one per 4 KiB page and rows it skips cost nothing, while read copies the whole image per thread whatever the factor: the ratios can come out larger than 2002's. When the 10 threads outnumber the cores they time-share, which lengthens both versions' trials. Properties of the machine, which no mode can replay.".into(),
            "Quick and full use the same 1280×1024 image and 10 threads; full runs 10 times per case as the article, alternating read and mmap; quick runs 20, because a trial over a warm image is short and noisy (the threads may time-share the cores), so a few runs can leave the CIs too wide to decide. --faithful keeps these counts: full already runs the article's 10.".into(),
        ]
    }

    fn measured(&self, results: &RunResults) -> Vec<Table> {
        let shape = size_of(results);
        let size = shape.size;
        let cell = |c: &Case| {
            let s = summary_of(results, c);
            let t = match results.settings.metric {
                Metric::Total => s.map(|s| &s.time_ns),
                Metric::Loop => s.map(|s| &s.loop_ns),
            };
            match t {
                Some(t) => match t.ci95 {
                    Some((l, h)) => secs_pm(t.mean / 1e9, (h - l) / 2.0 / 1e9),
                    None => secs(Some(t.mean / 1e9)),
                },
                None => "-".into(),
            }
        };
        let rows = TABLE1
            .iter()
            .map(|&(k, pr, pm, pq)| {
                let (r, m) = cases(shape, k);
                vec![
                    k.to_string(),
                    cell(&r),
                    cell(&m),
                    ratio_cell(results, &r, &m),
                    format!("{pr:.2} s / {pm:.2} s = {pq:.2}"),
                ]
            })
            .collect();
        vec![Table::new(
            &format!(
                "Measured ({} image, {THREADS} threads replicate, warm{}): mean time ± 95% CI half-width of each case's mean; read/mmap: {COMPARISON_NOTE}",
                crate::size::format_size(size),
                if shape.faithful {
                    ", bytes scaled as pixels, MAP_PRIVATE"
                } else {
                    ""
                }
            ),
            &[
                "factor",
                "read",
                "mmap",
                &ratio_header("read/mmap"),
                "published read / mmap = ratio",
            ],
            rows,
        )]
    }

    fn plots(&self, results: &RunResults) -> Vec<Plot> {
        let size = size_of(results);
        let measured = Series {
            label: "measured read/mmap".into(),
            points: TABLE1
                .iter()
                .filter_map(|&(k, ..)| {
                    let (r, m) = cases(size, k);
                    comparison(results, &r, &m).map(|q| ratio_point(f64::from(k), &q))
                })
                .collect(),
            style: SeriesStyle::Measured,
        };
        let published = Series {
            label: "published read/mmap (Table 1)".into(),
            points: TABLE1
                .iter()
                .map(|&(k, _, _, q)| (f64::from(k), q, None))
                .collect(),
            style: SeriesStyle::Published,
        };
        let mut series = vec![published, measured];
        series.retain(|s| !s.points.is_empty());
        vec![series_plot(
            "sun2002-ratio",
            "sun2002: read/mmap time ratio against the reduction factor",
            Axis::linear("reduction factor"),
            Axis::linear("read time / mmap time"),
            &series,
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_is_the_studys_or_a_small_5_4_one() {
        assert_eq!(image_at(Scope::QUICK), (1280, 1024));
        let tiny = Scope::new(false, 256);
        assert_eq!(image_at(tiny), (80, 64));
        let plan = Sun2002.plan(Scope::QUICK);
        assert_eq!(plan.cases.len(), 8);
        assert!(plan
            .cases
            .iter()
            .all(|c| c.file_size == image_len(1280, 1024)
                && c.block_size == c.file_size
                && c.threads.is_some_and(|t| t.count == 10)));
    }

    #[test]
    fn faithful_scales_bytes_and_maps_private_and_nothing_else() {
        for scope in [Scope::QUICK, Scope::FULL, Scope::new(false, 256)] {
            let default = Sun2002.plan(scope);
            let faithful = Sun2002.plan(scope.faithful(true));
            assert_eq!(default.runs, faithful.runs);
            assert_eq!(default.cases.len(), faithful.cases.len());
            for (d, f) in default.cases.iter().zip(&faithful.cases) {
                assert_eq!(d.scale_unit, None);
                assert_eq!(f.scale_unit, Some(ScaleUnit::Byte));
                let want_share = match f.method {
                    MethodKind::Mmap => Some(Share::Private),
                    _ => None,
                };
                assert_eq!(f.share, want_share);
                let undone = Case {
                    scale_unit: None,
                    share: d.share,
                    ..f.clone()
                };
                assert_eq!(&undone, d);
            }
            // Its claims compare its own cases.
            for claim in Sun2002.claims(&faithful) {
                for (b, o) in &claim.pairs {
                    assert!(faithful.cases.contains(b) && faithful.cases.contains(o));
                    assert_eq!(b.scale_unit, Some(ScaleUnit::Byte));
                    assert_eq!(o.share, Some(Share::Private));
                }
            }
        }
    }

    #[test]
    fn the_trend_is_judged_over_all_four_factors_at_table_1s_slope() {
        let plan = Sun2002.plan(Scope::QUICK);
        let claims = Sun2002.claims(&plan);
        let grows = claims
            .iter()
            .find(|c| c.text.contains("grows"))
            .expect("a trend claim");
        assert_eq!(grows.pairs.len(), 4, "every factor, not 2 against 8");
        match &grows.expect {
            Expect::Trend {
                factors,
                per_doubling,
            } => {
                assert_eq!(factors, &[2.0, 3.0, 4.0, 8.0]);
                // Table 1's least-squares slope: about x1.34 per doubling.
                let (l, h) = per_doubling.band();
                let value = (l * h).sqrt();
                assert!((value - 1.343).abs() < 0.002, "{value}");
            }
            other => panic!("{other:?}"),
        }
        // Each factor is judged at its own Table 1 ratio.
        match &claims[0].expect {
            Expect::EachEffect(each) => {
                let values: Vec<f64> = each
                    .iter()
                    .map(|p| {
                        let (l, h) = p.band();
                        (l * h).sqrt()
                    })
                    .collect();
                for (v, want) in values.iter().zip([1.14, 1.28, 1.48, 2.03]) {
                    assert!((v - want).abs() < 1e-9, "{values:?}");
                }
            }
            other => panic!("{other:?}"),
        }
    }
}
