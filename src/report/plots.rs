//! Chart rendering: formats, fonts, styles, legends, and the two chart kinds every report chart
//! is built from ([`lines::LineChart`], [`bars::GroupedBars`]).
//!
//! Every chart implements [`Chart`], whose one drawing function is generic over the plotters
//! backend: the same code draws the PNG and the SVG. Text uses the DejaVu Sans font bundled in
//! `assets/` (registered with plotters' `ab_glyph` feature), so rendering needs no system fonts
//! and never loads fontconfig.

pub(crate) mod bars;
pub(crate) mod layout;
pub(crate) mod lines;
pub(crate) mod typeset;

use super::Artifact;
use crate::util::math;
use image::ImageEncoder;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, RGBColor};
use std::sync::Once;

/// The bundled font (DejaVu Sans 2.37, Bitstream Vera licence: `assets/LICENSE-DejaVu`).
pub(crate) const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// The font family every text style names (registered once with the bundled font).
pub(crate) const FAMILY: &str = "sans-serif";

static REGISTER: Once = Once::new();

/// Registers the bundled font with plotters (idempotent).
pub(crate) fn register_font() {
    REGISTER.call_once(|| {
        // The bytes are a valid TrueType font embedded at compile time; failure would be a
        // packaging bug caught by every chart test.
        plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "bundled font rejected")
            .expect("assets/DejaVuSans.ttf is a valid font");
    });
}

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Raster, for the README and quick looks.
    Png,
    /// Vector, for papers.
    Svg,
}

impl Format {
    /// File extension.
    pub fn ext(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

/// Which slot axes time charts get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AxisMode {
    /// Regret charts in both scales, other time charts linear.
    #[default]
    Auto,
    /// Every time chart linear.
    Linear,
    /// Every time chart logarithmic.
    Log,
    /// Every time chart in both scales.
    Both,
}

impl std::str::FromStr for AxisMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(AxisMode::Auto),
            "linear" => Ok(AxisMode::Linear),
            "log" => Ok(AxisMode::Log),
            "both" => Ok(AxisMode::Both),
            _ => Err(format!("expected auto, linear, log or both, got {s:?}")),
        }
    }
}

/// What the shaded band around a mean curve shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Band {
    /// ±1 standard deviation across runs: how much one run varies.
    Sd,
    /// ±1 standard error of the mean.
    Se,
    /// The 95 % confidence interval of the mean (Student's t): where the mean lies; the
    /// default, because curves are compared by their means.
    #[default]
    Ci95,
}

impl Band {
    /// As legends and captions say it.
    pub fn describe(self) -> &'static str {
        match self {
            Band::Sd => "±1 sd across runs",
            Band::Se => "±1 standard error of the mean",
            Band::Ci95 => "95 % confidence interval of the mean",
        }
    }
}

impl std::str::FromStr for Band {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sd" => Ok(Band::Sd),
            "se" => Ok(Band::Se),
            "ci95" => Ok(Band::Ci95),
            _ => Err(format!("expected sd, se or ci95, got {s:?}")),
        }
    }
}

/// The value axis of regret charts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueAxis {
    /// Logarithmic when the policies' final values span more than 20×, else linear.
    #[default]
    Auto,
    /// Always linear.
    Linear,
    /// Always logarithmic (zero values are not drawn).
    Log,
}

impl std::str::FromStr for ValueAxis {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ValueAxis::Auto),
            "linear" => Ok(ValueAxis::Linear),
            "log" => Ok(ValueAxis::Log),
            _ => Err(format!("expected auto, linear or log, got {s:?}")),
        }
    }
}

/// How charts are rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartOptions {
    /// Formats to write (each chart once per format).
    pub formats: Vec<Format>,
    /// Width and height in pixels (SVG user units), at least [`MIN_SIZE`].
    pub size: (u32, u32),
    /// Slot axes of time charts.
    pub axis: AxisMode,
    /// The band around mean curves.
    pub band: Band,
    /// The value axis of regret charts.
    pub value_axis: ValueAxis,
}

impl Default for ChartOptions {
    fn default() -> Self {
        ChartOptions {
            formats: vec![Format::Png, Format::Svg],
            size: (1000, 600),
            axis: AxisMode::Auto,
            band: Band::default(),
            value_axis: ValueAxis::default(),
        }
    }
}

/// The smallest chart size accepted: below it, titles, tick labels and legends no longer fit.
pub const MIN_SIZE: (u32, u32) = (640, 400);

/// Parses `png,svg`.
pub fn parse_formats(s: &str) -> Result<Vec<Format>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let f = match part {
            "png" => Format::Png,
            "svg" => Format::Svg,
            other => {
                return Err(format!(
                    "unknown format {other:?}: expected png, svg or png,svg"
                ));
            }
        };
        if !out.contains(&f) {
            out.push(f);
        }
    }
    if out.is_empty() {
        return Err("no format given: expected png, svg or png,svg".into());
    }
    Ok(out)
}

/// Parses `WIDTHxHEIGHT`, at least [`MIN_SIZE`] and at most 8000 pixels a side.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 1000x600, got {s:?}"))?;
    let parse = |v: &str, min: u32, what: &str| -> Result<u32, String> {
        let n: u32 = v
            .trim()
            .parse()
            .map_err(|_| format!("{v:?} is not a number of pixels"))?;
        if (min..=8000).contains(&n) {
            Ok(n)
        } else {
            Err(format!(
                "a {what} of {n} pixels is outside {min}..=8000 (charts need at least {}x{} for their titles, labels and legends)",
                MIN_SIZE.0, MIN_SIZE.1
            ))
        }
    };
    Ok((
        parse(w, MIN_SIZE.0, "width")?,
        parse(h, MIN_SIZE.1, "height")?,
    ))
}

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// Plotters failed to draw.
    #[error("cannot draw chart {name}: {message}")]
    Draw {
        /// The chart's file name.
        name: String,
        /// Plotters' message.
        message: String,
    },
}

/// The result of a drawing function.
pub(crate) type DrawResult<DB> =
    Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A chart: one drawing function for every backend.
pub(crate) trait Chart {
    /// Draws the whole chart on `root` (already filled white).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB>;
}

/// Renders `chart` as `<stem>.<ext>` in every requested format, in memory.
pub(crate) fn render_chart<C: Chart>(
    chart: &C,
    stem: &str,
    opts: &ChartOptions,
) -> Result<Vec<Artifact>, ChartError> {
    register_font();
    let mut rendered = Vec::new();
    for &format in &opts.formats {
        let name = format!("{stem}.{}", format.ext());
        let fail = |message: String| ChartError::Draw {
            name: name.clone(),
            message,
        };
        let bytes = match format {
            Format::Svg => {
                let mut svg = String::new();
                {
                    let root = SVGBackend::with_string(&mut svg, opts.size).into_drawing_area();
                    draw_on(chart, &root).map_err(|e| fail(e.to_string()))?;
                }
                svg.into_bytes()
            }
            Format::Png => {
                let (w, h) = opts.size;
                let mut rgb = vec![255u8; w as usize * h as usize * 3];
                {
                    let root =
                        typeset::Typeset::new(BitMapBackend::with_buffer(&mut rgb, opts.size))
                            .into_drawing_area();
                    draw_on(chart, &root).map_err(|e| fail(e.to_string()))?;
                }
                // The encoder plotters itself uses when it saves a file: the same bytes.
                let mut png = Vec::new();
                image::codecs::png::PngEncoder::new(&mut png)
                    .write_image(&rgb, w, h, image::ColorType::Rgb8)
                    .map_err(|e| fail(e.to_string()))?;
                png
            }
        };
        rendered.push(Artifact::new(name, bytes));
    }
    Ok(rendered)
}

fn draw_on<C: Chart, DB: DrawingBackend>(
    chart: &C,
    root: &DrawingArea<DB, Shift>,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    chart.draw(root)?;
    root.present()
}

/// The Okabe–Ito palette (colour-blind safe), yellow darkened to stay visible on white. Series
/// also differ by dash pattern and marker, so they stay apart in greyscale.
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(160, 140, 0),   // dark yellow
];

/// Dash patterns (dash, gap) in pixels; `None` is solid.
pub(crate) const DASHES: [Option<(u32, u32)>; 4] =
    [None, Some((12, 6)), Some((3, 4)), Some((18, 5))];

/// Marker shapes cycled through series.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Marker {
    /// Filled circle.
    Circle,
    /// Filled triangle.
    Triangle,
    /// Filled square.
    Square,
    /// Cross.
    Cross,
    /// Open circle.
    Ring,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
    Marker::Ring,
];

/// The look of series `i`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeriesStyle {
    /// Line and fill colour.
    pub color: RGBColor,
    /// Dash pattern (`None`: solid).
    pub dash: Option<(u32, u32)>,
    /// Marker drawn at a few points.
    pub marker: Marker,
}

/// Style of the `i`-th series: the colour cycles every 8 series and the dash pattern shifts by
/// one each cycle, so that no two of the first 32 series share a (colour, dash) pair (the
/// markers cycle on top); any two of the first 8 also differ in dash or marker.
pub(crate) fn series_style(i: usize) -> SeriesStyle {
    SeriesStyle {
        color: PALETTE[i % PALETTE.len()],
        dash: DASHES[(i + i / PALETTE.len()) % DASHES.len()],
        marker: MARKERS[i % MARKERS.len()],
    }
}

/// The styles of series keyed `keys` (their labels, or in a comparison their policies' names),
/// in order, chosen by key rather than by position: a new key starts from the colour its name
/// hashes to and takes the first colour not yet taken in the chart (then the next dash cycle),
/// so the same policy keeps its colour across a scenario's charts, across scenarios, and in
/// `compare`, while the first eight series of a chart still get eight different colours and
/// the first 32 different (colour, dash) pairs. A key met again (the same policy from another
/// source) keeps its colour and takes its next dash cycle.
pub(crate) fn label_styles<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<SeriesStyle> {
    const SLOTS: usize = 32;
    let n = PALETTE.len();
    let mut used = [false; SLOTS];
    // Per key met: its colour.
    let mut colour_of: Vec<(&str, usize)> = Vec::new();
    keys.into_iter()
        .enumerate()
        .map(|(position, key)| {
            let known = colour_of.iter().find(|(k, _)| *k == key).map(|&(_, c)| c);
            let free = match known {
                Some(colour) => (0..SLOTS / n)
                    .map(|cycle| cycle * n + colour)
                    .find(|&i| !used[i]),
                None => {
                    // FNV-1a: a fixed hash, the same on every machine and in every version.
                    let h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                    });
                    (0..SLOTS / n)
                        .flat_map(|cycle| (0..n).map(move |k| cycle * n + (h as usize + k) % n))
                        .find(|&i| !used[i])
                }
            };
            match free {
                Some(i) => {
                    used[i] = true;
                    if known.is_none() {
                        colour_of.push((key, i % n));
                    }
                    series_style(i)
                }
                None => series_style(position),
            }
        })
        .collect()
}

/// Draws a marker centred on `at` (backend pixels).
pub(crate) fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    marker: Marker,
    color: RGBColor,
) -> DrawResult<DB> {
    let (x, y) = at;
    let r = 5;
    match marker {
        Marker::Circle => area.draw(&Circle::new(at, r, color.filled())),
        Marker::Ring => area.draw(&Circle::new(at, r, color.stroke_width(2))),
        Marker::Triangle => area.draw(&Polygon::new(
            vec![(x, y - r - 1), (x - r - 1, y + r), (x + r + 1, y + r)],
            color.filled(),
        )),
        Marker::Square => area.draw(&Rectangle::new(
            [(x - r + 1, y - r + 1), (x + r - 1, y + r - 1)],
            color.filled(),
        )),
        Marker::Cross => {
            area.draw(&PathElement::new(
                vec![(x - r, y - r), (x + r, y + r)],
                color.stroke_width(2),
            ))?;
            area.draw(&PathElement::new(
                vec![(x - r, y + r), (x + r, y - r)],
                color.stroke_width(2),
            ))
        }
    }
}

/// Draws an error whisker from `top` to `bottom` (backend pixels) with flat caps of half-width
/// `cap`: no marker at its ends or middle, so that it cannot be mistaken for a reference point.
pub(crate) fn draw_whisker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: (i32, i32),
    bottom: (i32, i32),
    color: RGBColor,
    cap: i32,
) -> DrawResult<DB> {
    area.draw(&PathElement::new(vec![top, bottom], color.stroke_width(1)))?;
    for y in [top.1, bottom.1] {
        area.draw(&PathElement::new(
            vec![(top.0 - cap, y), (top.0 + cap, y)],
            color.stroke_width(1),
        ))?;
    }
    Ok(())
}

/// Draws a polyline (backend pixels) solid or dashed.
pub(crate) fn draw_polyline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[(i32, i32)],
    color: RGBColor,
    width: u32,
    dash: Option<(u32, u32)>,
) -> DrawResult<DB> {
    let style = color.stroke_width(width);
    let thinned;
    let points = if points.len() > MAX_POLYLINE_POINTS {
        thinned = thin(points);
        &thinned[..]
    } else {
        points
    };
    match dash {
        None => area.draw(&PathElement::new(points.to_vec(), style)),
        Some((on, off)) => {
            for seg in dash_segments(points, on as f64, off as f64) {
                area.draw(&PathElement::new(seg, style))?;
            }
            Ok(())
        }
    }
}

/// Points of a polyline drawn as they are; a longer one is thinned first (49 000 piecewise
/// epochs drew a benchmark step curve of 98 000 points: 2 GB and 18 s, issue 50). Below it
/// every shipped chart is drawn point for point, so their bytes do not change.
const MAX_POLYLINE_POINTS: usize = 4096;

/// A polyline with the look of `points` at pixel resolution: of each run of points in one
/// pixel column, the first, the lowest, the highest and the last, in their order (the
/// "M4" reduction of Jugel et al., VLDB 2014), without repeats.
fn thin(points: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::new();
    let mut push = |p: (i32, i32)| {
        if out.last() != Some(&p) {
            out.push(p);
        }
    };
    for column in points.chunk_by(|a, b| a.0 == b.0) {
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in column.iter().enumerate() {
            if p.1 < column[lo].1 {
                lo = i;
            }
            if p.1 > column[hi].1 {
                hi = i;
            }
        }
        let (a, b) = (lo.min(hi), lo.max(hi));
        for i in [0, a, b, column.len() - 1] {
            push(column[i]);
        }
    }
    out
}

/// Splits a polyline into dashes of `on` pixels separated by `off` pixels, the pattern running
/// on along the whole line (not restarting at each vertex).
fn dash_segments(points: &[(i32, i32)], on: f64, off: f64) -> Vec<Vec<(i32, i32)>> {
    let mut out = Vec::new();
    let mut current: Vec<(i32, i32)> = Vec::new();
    let period = on + off;
    let mut phase = 0.0; // distance into the current period
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 {
            continue;
        }
        let at = |d: f64| {
            (
                (a.0 as f64 + dx * d / len).round() as i32,
                (a.1 as f64 + dy * d / len).round() as i32,
            )
        };
        let mut d = 0.0;
        while d < len {
            let drawing = phase < on;
            let left = if drawing { on - phase } else { period - phase };
            let step = left.min(len - d);
            if drawing {
                if current.is_empty() {
                    current.push(at(d));
                }
                current.push(at(d + step));
            }
            d += step;
            phase += step;
            if phase >= period - 1e-9 {
                phase = 0.0;
            }
            if phase >= on && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if current.len() > 1 {
        out.push(current);
    }
    out
}

/// What a legend entry shows before its label.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LegendKey {
    /// A line sample, solid or dashed, with an optional marker.
    Line {
        /// Dash pattern.
        dash: Option<(u32, u32)>,
        /// Marker.
        marker: Option<Marker>,
    },
    /// A filled box (bars, bands).
    Box,
    /// A marker alone (reference points).
    Point(Marker),
    /// Nothing: a note.
    Note,
}

/// A legend entry.
#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    /// Label.
    pub label: String,
    /// Colour.
    pub color: RGBColor,
    /// The sample drawn before the label.
    pub key: LegendKey,
}

/// Number of decimals that tell apart ticks spaced about a tenth of `lo..hi` apart.
pub(crate) fn tick_decimals(lo: f64, hi: f64) -> usize {
    let step = ((hi - lo) / 10.0).abs();
    if step.is_nan() || step <= 0.0 || step.is_infinite() {
        return 0;
    }
    (-math::log10(step)).ceil().clamp(0.0, 6.0) as usize
}

/// A tick label with `decimals` decimals below 1000, compact SI form above.
pub(crate) fn tick(v: f64, decimals: usize) -> String {
    if v.abs() >= 1000.0 {
        si(v)
    } else {
        format!("{v:.decimals$}")
    }
}

/// Compact tick labels: 1, 10, 100, 1k, 10k, 100k, 1M, 2.5M …
pub(crate) fn si(x: f64) -> String {
    let a = x.abs();
    let (v, suffix) = if a >= 1e9 {
        (x / 1e9, "G")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let s = if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else if v.abs() >= 10.0 {
        format!("{v:.0}")
    } else if v.abs() >= 0.1 || !suffix.is_empty() {
        format!("{v:.1}")
    } else {
        // Small values keep two significant digits (0.01, not 0.0).
        let decimals = (1 - math::log10(v.abs()).floor() as i32).clamp(1, 12) as usize;
        let t = format!("{v:.decimals$}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    format!("{s}{suffix}")
}

/// The slot axes to draw a time chart on (`true`: logarithmic): as asked, and for `auto`
/// both for a regret chart, linear for the others.
pub(crate) fn axis_modes(axis: AxisMode, regret: bool) -> Vec<bool> {
    match axis {
        AxisMode::Linear => vec![false],
        AxisMode::Log => vec![true],
        AxisMode::Both => vec![false, true],
        AxisMode::Auto if regret => vec![false, true],
        AxisMode::Auto => vec![false],
    }
}

/// Whether the value axis of `curves` is logarithmic: as asked, or (auto) when the curves'
/// final values (the zero ones aside) span more than 20×, which would squash the smaller ones
/// against the axis.
pub(crate) fn log_values(curves: &[lines::Curve], axis: ValueAxis) -> bool {
    match axis {
        ValueAxis::Linear => false,
        ValueAxis::Log => true,
        ValueAxis::Auto => {
            let finals: Vec<f64> = curves
                .iter()
                .filter_map(|c| c.points.last().map(|p| p.1))
                .filter(|&v| v > 0.0)
                .collect();
            let lo = finals.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = finals.iter().copied().fold(0.0, f64::max);
            lo.is_finite() && hi > 20.0 * lo
        }
    }
}

/// The file stem of a chart on a logarithmic slot axis (`regret-log`), else `base`.
pub(crate) fn stem_for(base: &str, log: bool) -> String {
    if log {
        format!("{base}-log")
    } else {
        base.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thinned_polyline_keeps_each_columns_extremes_in_order() {
        // A step curve of 100 000 points over 800 pixels: at most 4 points per column, the
        // first and last points kept, and every column's lowest and highest values kept.
        let points: Vec<(i32, i32)> = (0..100_000)
            .map(|i: i32| (i / 125, (i * 7919) % 300))
            .collect();
        let kept_points = thin(&points);
        assert!(kept_points.len() <= 4 * 800, "{}", kept_points.len());
        assert_eq!(kept_points.first(), points.first());
        assert_eq!(kept_points.last(), points.last());
        for x in 0..800 {
            let column = || points.iter().filter(|p| p.0 == x).map(|p| p.1);
            let kept = || kept_points.iter().filter(|p| p.0 == x).map(|p| p.1);
            assert_eq!(kept().min(), column().min());
            assert_eq!(kept().max(), column().max());
        }
        // Columns stay in order; a short line is not touched by `draw_polyline`.
        assert!(kept_points.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(thin(&[(0, 0), (1, 1)]), vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn parses_formats_and_sizes() {
        assert_eq!(
            parse_formats("png,svg").unwrap(),
            vec![Format::Png, Format::Svg]
        );
        assert_eq!(parse_formats("svg").unwrap(), vec![Format::Svg]);
        assert!(parse_formats("jpg").unwrap_err().contains("jpg"));
        assert_eq!(parse_size("800x500").unwrap(), (800, 500));
        assert!(parse_size("800").is_err());
        assert!(parse_size("10x10").unwrap_err().contains("640..=8000"));
        assert!(parse_size("500x300").is_err());
        assert_eq!(parse_size("640x400").unwrap(), (640, 400));
    }

    #[test]
    fn si_labels() {
        assert_eq!(si(200_000.0), "200k");
        assert_eq!(si(1.0), "1");
        assert_eq!(si(2_500_000.0), "2.5M");
        assert_eq!(si(0.5), "0.5");
        assert_eq!(si(0.01), "0.01");
        assert_eq!(si(0.025), "0.025");
    }

    #[test]
    fn dashes_cover_the_line_in_pattern() {
        let segs = dash_segments(&[(0, 0), (100, 0)], 10.0, 5.0);
        assert_eq!(segs.len(), 7);
        assert_eq!(segs[0], vec![(0, 0), (10, 0)]);
        assert_eq!(segs[1], vec![(15, 0), (25, 0)]);
    }

    #[test]
    fn no_two_of_the_first_32_series_share_colour_and_dash() {
        for i in 0..32 {
            for j in 0..i {
                let (a, b) = (series_style(i), series_style(j));
                assert!(a.color != b.color || a.dash != b.dash, "{i} and {j}");
            }
        }
    }

    #[test]
    fn a_label_keeps_its_style_whatever_its_position_and_a_chart_never_repeats_one() {
        let alone = label_styles(["oracle"])[0];
        let among = label_styles(["cc-ucb", "cascade-ucb1", "x", "oracle"]);
        let other = label_styles(["oracle", "y"]);
        assert_eq!(other[0].color, alone.color);
        // Eight labels, eight colours; 32 labels, 32 (colour, dash) pairs.
        let names: Vec<String> = (0..32).map(|i| format!("policy-{i}")).collect();
        let styles = label_styles(names.iter().map(String::as_str));
        let colours: std::collections::BTreeSet<_> = styles[..8]
            .iter()
            .map(|s| (s.color.0, s.color.1, s.color.2))
            .collect();
        assert_eq!(colours.len(), 8);
        for i in 0..32 {
            for j in 0..i {
                let (a, b) = (styles[i], styles[j]);
                assert!(a.color != b.color || a.dash != b.dash, "{i} and {j}");
            }
        }
        assert_eq!(among.len(), 4);
    }

    /// In a comparison the same policy from two sources keeps its colour (the one it has
    /// alone) and differs by dash; another policy keeps its own colour too.
    #[test]
    fn a_policy_keeps_its_colour_across_compared_sources() {
        let alone = label_styles(["cc-ucb", "oracle"]);
        let compared = label_styles(["cc-ucb", "oracle", "cc-ucb", "oracle"]);
        assert_eq!(compared[0].color, alone[0].color);
        assert_eq!(compared[2].color, alone[0].color);
        assert_eq!(compared[3].color, alone[1].color);
        assert_ne!(compared[0].dash, compared[2].dash);
        assert_ne!(compared[1].dash, compared[3].dash);
    }

    #[test]
    fn first_eight_styles_differ_in_colour_and_pattern() {
        for i in 0..8 {
            for j in 0..i {
                let (a, b) = (series_style(i), series_style(j));
                assert_ne!(a.color, b.color);
                assert!(
                    a.dash != b.dash
                        || std::mem::discriminant(&a.marker) != std::mem::discriminant(&b.marker)
                );
            }
        }
    }
}
