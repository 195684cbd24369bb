//! Curves: means with a shaded ±1 standard deviation band or error bars, dashed reference curves,
//! linear or logarithmic axes, and the legend beside the plot. Used for every curve against the
//! slot and for samples against the number of arms.

use super::layout::{Fonts, frame, log_ticks};
use super::{
    Chart, DrawResult, FAMILY, LegendEntry, LegendKey, Marker, SeriesStyle, draw_marker,
    draw_polyline, draw_whisker, label_styles, si, tick, tick_decimals,
};
use crate::util::math;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::RGBColor;

/// One series: `(x, mean, spread)` per point, the spread being the band's (or error bar's)
/// half-width: a standard deviation, a standard error or half a confidence interval.
#[derive(Clone, Debug)]
pub(crate) struct Curve {
    /// Legend label.
    pub label: String,
    /// Points, increasing in `t`.
    pub points: Vec<(f64, f64, f64)>,
    /// What picks its style when not the label: the policy's own name in a comparison
    /// (`a: cc-ucb` and `b: cc-ucb` share cc-ucb's colour, told apart by dash and marker).
    pub key: Option<String>,
}

/// Whether `curves`' means call for a log value axis: all positive and spanning more than two
/// decades (a linear axis over a 400× range flattens all but the largest; issue 50).
pub(crate) fn spans_decades(curves: &[Curve]) -> bool {
    let means = || curves.iter().flat_map(|c| c.points.iter().map(|p| p.1));
    let (lo, hi) = means().fold((f64::INFINITY, 0.0f64), |(lo, hi), m| {
        (lo.min(m), hi.max(m))
    });
    means().all(|m| m.is_finite() && m > 0.0) && lo.is_finite() && hi > 100.0 * lo
}

/// A reference curve (a bound, an optimum), drawn dashed without a band.
#[derive(Clone, Debug)]
pub(crate) struct Reference {
    /// Legend label.
    pub label: String,
    /// Points, increasing in `t`.
    pub points: Vec<(f64, f64)>,
    /// Colour.
    pub color: RGBColor,
    /// Dash pattern.
    pub dash: (u32, u32),
}

/// A chart of curves.
#[derive(Clone, Debug)]
pub(crate) struct LineChart {
    /// Title (wrapped to the width; should name the scenario).
    pub title: String,
    /// Horizontal axis label.
    pub x_label: String,
    /// Value axis label (with units).
    pub y_label: String,
    /// Logarithmic horizontal axis.
    pub log_x: bool,
    /// Logarithmic vertical axis (non-positive means are not drawn; spreads are clipped at the
    /// bottom of the axis).
    pub log_y: bool,
    /// Draw the spread as error bars at each point instead of a band.
    pub error_bars: bool,
    /// The curves, one per policy.
    pub curves: Vec<Curve>,
    /// What the spread is, for the legend (`None`: no band nor bars).
    pub band: Option<String>,
    /// Reference curves.
    pub references: Vec<Reference>,
    /// Extra legend lines.
    pub notes: Vec<String>,
    /// Points before this horizontal value do not stretch the value axis (early per-slot
    /// averages of one or two slots would dwarf the rest); they are clipped to it.
    pub y_range_from: f64,
    /// Start the value axis at zero (cumulative quantities); otherwise fit it to the data.
    pub y_from_zero: bool,
    /// Slots marked by a vertical dotted line (segment boundaries), with their legend label.
    pub verticals: Option<(String, Vec<f64>)>,
}

/// Colour of vertical markers.
const VERTICAL: RGBColor = RGBColor(120, 120, 120);

impl LineChart {
    /// Whether any curve has a spread to draw.
    fn has_spread(&self) -> bool {
        self.band.is_some()
            && self
                .curves
                .iter()
                .any(|c| c.points.iter().any(|p| p.2 > 0.0))
    }

    /// Each curve's style, by its label.
    fn styles(&self) -> Vec<SeriesStyle> {
        label_styles(
            self.curves
                .iter()
                .map(|c| c.key.as_deref().unwrap_or(&c.label)),
        )
    }

    fn legend(&self) -> Vec<LegendEntry> {
        let styles = self.styles();
        let mut entries: Vec<LegendEntry> = self
            .curves
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let s = styles[i];
                LegendEntry {
                    label: c.label.clone(),
                    color: s.color,
                    key: LegendKey::Line {
                        dash: s.dash,
                        marker: Some(s.marker),
                    },
                }
            })
            .collect();
        // A band or bars are listed only when they are drawn.
        if let (true, Some(what)) = (self.has_spread(), &self.band) {
            entries.push(if self.error_bars {
                LegendEntry {
                    label: format!("bars: {what}"),
                    color: BLACK,
                    key: LegendKey::Note,
                }
            } else {
                LegendEntry {
                    label: format!("band: {what}"),
                    color: RGBColor(200, 200, 200),
                    key: LegendKey::Box,
                }
            });
        }
        for r in &self.references {
            entries.push(LegendEntry {
                label: r.label.clone(),
                color: r.color,
                key: LegendKey::Line {
                    dash: Some(r.dash),
                    marker: None,
                },
            });
        }
        if let Some((label, _)) = &self.verticals {
            entries.push(LegendEntry {
                label: label.clone(),
                color: VERTICAL,
                key: LegendKey::Line {
                    dash: Some((2, 3)),
                    marker: None,
                },
            });
        }
        for n in &self.notes {
            entries.push(LegendEntry {
                label: n.clone(),
                color: BLACK,
                key: LegendKey::Note,
            });
        }
        entries
    }

    /// Value range covering every mean (± spread when drawn) and reference from `y_range_from`
    /// on.
    fn y_range(&self) -> (f64, f64) {
        let spread = self.has_spread();
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        let mut lowest_mean = f64::INFINITY;
        for c in &self.curves {
            for &(t, m, s) in &c.points {
                if t < self.y_range_from || (self.log_y && m <= 0.0) {
                    continue;
                }
                let s = if spread { s } else { 0.0 };
                lo = lo.min(if self.log_y { m } else { m - s });
                hi = hi.max(m + s);
                lowest_mean = lowest_mean.min(m);
            }
        }
        for r in &self.references {
            for &(t, v) in &r.points {
                if t >= self.y_range_from && !(self.log_y && v <= 0.0) {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
        if !lo.is_finite() || !hi.is_finite() {
            return (if self.log_y { 1.0 } else { 0.0 }, 10.0);
        }
        if self.log_y {
            // Padded around the data in log space, not snapped to whole decades (data in
            // [400, 31k] drawn on [100, 100k] wastes half the height); the ticks fall between
            // decades where the span is short (`log_ticks`).
            let (l, h) = (math::log10(lo), math::log10(hi));
            let span = (h - l).max(0.5);
            let mid = 0.5 * (l + h);
            let (l, h) = (l.min(mid - span / 2.0), h.max(mid + span / 2.0));
            let pad = 0.06 * (h - l);
            return (math::powf(10f64, l - pad), math::powf(10f64, h + pad));
        }
        if self.y_from_zero {
            // A band dipping below zero around a non-negative cumulative quantity is clipped.
            lo = if lowest_mean >= 0.0 { 0.0 } else { lo.min(0.0) };
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        let pad = 0.05 * (hi - lo);
        (
            if lo < 0.0 || !self.y_from_zero {
                lo - pad
            } else {
                lo
            },
            hi + pad,
        )
    }

    /// Left end of a logarithmic horizontal axis: 1 for slot axes (their points start at t ≥ 1),
    /// else the smallest positive point over 1.5 (a sweep's values may lie below 1, as required
    /// error probabilities do, and may be listed in any order).
    fn x_min(&self) -> f64 {
        let least = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.0))
            .filter(|&x| x > 0.0)
            .fold(f64::INFINITY, f64::min);
        if least.is_finite() && least != 1.0 {
            least / 1.5
        } else {
            1.0
        }
    }

    /// Right end of the horizontal axis: the largest point (a sweep of values below 1, such as
    /// sensing times in seconds, used to be stretched to 1; a sweep's values may come in any
    /// order), 1 when there is none.
    fn x_max(&self) -> f64 {
        let last = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.0))
            .chain(
                self.references
                    .iter()
                    .flat_map(|r| r.points.iter().map(|p| p.0)),
            )
            .fold(f64::NEG_INFINITY, f64::max);
        if last.is_finite() && last > self.x_lin_min() {
            last
        } else {
            1.0
        }
    }

    /// Left end of a linear horizontal axis: 0 for slot axes, below the data for sweeps.
    fn x_lin_min(&self) -> f64 {
        let first = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.0))
            .fold(f64::INFINITY, f64::min);
        if first.is_finite() && first < 0.0 {
            first * 1.05
        } else if first.is_finite() && first > 0.0 && first < 1.0 {
            0.0
        } else {
            0.0f64.min(first)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_in<DB, XR, YR>(
        &self,
        root: &DrawingArea<DB, Shift>,
        plot: &DrawingArea<DB, Shift>,
        x_range: XR,
        y_range: YR,
        (x_lo, _x_hi): (f64, f64),
        (y_lo, y_hi): (f64, f64),
        f: Fonts,
    ) -> DrawResult<DB>
    where
        DB: DrawingBackend,
        XR: AsRangedCoord<Value = f64>,
        XR::CoordDescType: ValueFormatter<f64>,
        YR: AsRangedCoord<Value = f64>,
        YR::CoordDescType: ValueFormatter<f64>,
    {
        let decimals = tick_decimals(y_lo, y_hi);
        let log_y = self.log_y;
        let (pw, ph) = plot.dim_in_pixel();
        let s = f.scale;
        let mut chart = ChartBuilder::on(plot)
            .margin((10.0 * s) as u32)
            .x_label_area_size((f.tick + f.axis) * 2)
            .y_label_area_size((f.tick * 9 / 2 + f.axis * 2).max((70.0 * s) as u32))
            .build_cartesian_2d(x_range, y_range)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .label_style((FAMILY, f.tick))
            .axis_desc_style((FAMILY, f.axis))
            .x_labels(((pw as f64 / (95.0 * s)) as usize).clamp(3, 12))
            .y_labels(((ph as f64 / (48.0 * s)) as usize).clamp(3, 12))
            .x_label_formatter(&|x| si(*x))
            .y_label_formatter(&|y| if log_y { si(*y) } else { tick(*y, decimals) })
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(210, 210, 210))
            .draw()?;
        let clamp = |v: f64| v.clamp(y_lo, y_hi);
        let x_min = if self.log_x { self.x_min() } else { x_lo };
        let visible = |m: f64| !(log_y && m <= 0.0);
        let styles = self.styles();
        if self.has_spread() && !self.error_bars {
            for (i, c) in self.curves.iter().enumerate() {
                let color = styles[i].color;
                let pts = || c.points.iter().filter(|p| p.0 >= x_min && visible(p.1));
                let mut poly: Vec<(f64, f64)> = pts().map(|&(t, m, s)| (t, clamp(m + s))).collect();
                let lower: Vec<(f64, f64)> = pts().map(|&(t, m, s)| (t, clamp(m - s))).collect();
                poly.extend(lower.into_iter().rev());
                chart.draw_series(std::iter::once(Polygon::new(
                    poly,
                    color.mix(0.16).filled(),
                )))?;
            }
        }
        if let Some((_, xs)) = &self.verticals {
            // One line per pixel column: 49 000 piecewise boundaries drew 392 000 dashed
            // lines over 8 charts (2 GB, 15 s; issue 50) where at most a few hundred show.
            let mut last = None;
            for &x in xs.iter().filter(|&&x| x >= x_min) {
                let px = [
                    chart.backend_coord(&(x, y_lo)),
                    chart.backend_coord(&(x, y_hi)),
                ];
                if last.replace(px) != Some(px) {
                    draw_polyline(root, &px, VERTICAL, 1, Some((2, 3)))?;
                }
            }
        }
        for r in &self.references {
            let px: Vec<(i32, i32)> = r
                .points
                .iter()
                .filter(|p| p.0 >= x_min && visible(p.1))
                .map(|&(t, v)| chart.backend_coord(&(t, clamp(v))))
                .collect();
            draw_polyline(root, &px, r.color, 2, Some(r.dash))?;
        }
        let n = self.curves.len().max(1);
        for (i, c) in self.curves.iter().enumerate() {
            let style = styles[i];
            let px: Vec<(i32, i32)> = c
                .points
                .iter()
                .filter(|p| p.0 >= x_min && visible(p.1))
                .map(|&(t, m, _)| chart.backend_coord(&(t, clamp(m))))
                .collect();
            draw_polyline(root, &px, style.color, 2, style.dash)?;
            if self.error_bars {
                for &(t, m, sp) in c.points.iter().filter(|p| p.0 >= x_min && visible(p.1)) {
                    if sp > 0.0 && self.band.is_some() {
                        let top = chart.backend_coord(&(t, clamp(m + sp)));
                        let bottom = chart.backend_coord(&(t, clamp(m - sp)));
                        draw_whisker(root, top, bottom, style.color, 4)?;
                    }
                    draw_marker(
                        root,
                        chart.backend_coord(&(t, clamp(m))),
                        style.marker,
                        style.color,
                    )?;
                }
                continue;
            }
            // Seven markers per curve, staggered between curves so that they do not overlap.
            spaced_markers(root, &px, i as f64 / n as f64, style.marker, style.color)?;
        }
        Ok(())
    }
}

/// Seven markers along a curve's pixels, at the columns nearest to evenly spaced fractions of
/// its width shifted by `stagger` (in [0, 1)) so that the markers of different curves do not
/// overlap.
fn spaced_markers<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    px: &[(i32, i32)],
    stagger: f64,
    marker: Marker,
    color: RGBColor,
) -> DrawResult<DB> {
    let (Some(first), Some(last)) = (px.first(), px.last()) else {
        return Ok(());
    };
    for k in 0..7 {
        let frac = (k as f64 + 0.25 + 0.5 * stagger) / 7.0;
        let target = first.0 as f64 + frac * (last.0 - first.0) as f64;
        let nearest = px
            .iter()
            .min_by(|a, b| {
                (a.0 as f64 - target)
                    .abs()
                    .total_cmp(&(b.0 as f64 - target).abs())
            })
            .copied();
        if let Some(p) = nearest {
            draw_marker(root, p, marker, color)?;
        }
    }
    Ok(())
}

impl Chart for LineChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let (plot, f) = frame(root, &self.title, &self.legend())?;
        let x_max = self.x_max();
        let y = self.y_range();
        if self.log_x {
            let x_min = self.x_min();
            let x = (x_min, x_max.max(x_min * 10.0));
            let xr = (x.0..x.1).log_scale().with_key_points(log_ticks(x.0, x.1));
            if self.log_y {
                let yr = (y.0..y.1).log_scale().with_key_points(log_ticks(y.0, y.1));
                self.draw_in(root, &plot, xr, yr, x, y, f)
            } else {
                self.draw_in(root, &plot, xr, y.0..y.1, x, y, f)
            }
        } else {
            let x = (self.x_lin_min(), x_max);
            if self.log_y {
                let yr = (y.0..y.1).log_scale().with_key_points(log_ticks(y.0, y.1));
                self.draw_in(root, &plot, x.0..x.1, yr, x, y, f)
            } else {
                self.draw_in(root, &plot, x.0..x.1, y.0..y.1, x, y, f)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_value_axis_where_the_means_span_two_decades() {
        let curve = |means: &[f64]| Curve {
            label: "a".into(),
            points: means
                .iter()
                .enumerate()
                .map(|(i, &m)| (i as f64, m, 0.0))
                .collect(),
            key: None,
        };
        assert!(spans_decades(&[curve(&[1.0, 20.0]), curve(&[400.0])]));
        assert!(!spans_decades(&[curve(&[1.0, 20.0]), curve(&[99.0])]));
        assert!(!spans_decades(&[curve(&[0.0, 400.0])]));
        assert!(!spans_decades(&[curve(&[-1.0, 400.0])]));
        assert!(!spans_decades(&[]));
    }

    fn chart(values: &[f64]) -> LineChart {
        LineChart {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: true,
            error_bars: false,
            curves: vec![Curve {
                key: None,
                label: "a".into(),
                points: values
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i as f64 + 1.0, v, 0.0))
                    .collect(),
            }],
            band: None,
            references: Vec::new(),
            notes: Vec::new(),
            y_range_from: 0.0,
            y_from_zero: true,
            verticals: None,
        }
    }

    /// Data in [400, 31k] was drawn on [100, 100k]: the axis is now padded around the data,
    /// and a short span gets ticks between decades.
    #[test]
    fn a_log_value_axis_hugs_the_data() {
        let (lo, hi) = chart(&[400.0, 2000.0, 31000.0]).y_range();
        assert!(lo > 250.0 && lo < 400.0, "{lo}");
        assert!(hi > 31000.0 && hi < 50000.0, "{hi}");
        let ticks = crate::report::plots::layout::log_ticks(lo, hi);
        assert!(
            ticks.contains(&500.0) && ticks.contains(&2000.0),
            "{ticks:?}"
        );
        // A narrow span still gets half a decade and several ticks.
        let (lo, hi) = chart(&[90.0, 110.0]).y_range();
        assert!(math::log10(hi / lo) >= 0.5, "{lo} {hi}");
        assert!(crate::report::plots::layout::log_ticks(lo, hi).len() >= 3);
    }
}
