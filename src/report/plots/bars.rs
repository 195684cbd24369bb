//! Grouped bars: one group per category (a channel, a configuration, a probe count), one bar
//! per series (a policy), optional error bars, and reference points (the paper's values, the
//! UCR-T1 expectation) drawn as markers over the bars.

use super::layout::{Fonts, frame, log_ticks, wrap as wrap_px};
use super::{
    Chart, DrawResult, FAMILY, LegendEntry, LegendKey, Marker, draw_marker, draw_whisker,
    label_styles, si, tick, tick_decimals,
};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::RGBColor;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One series of bars: per group, a value and an error half-width (0 for none).
#[derive(Clone, Debug)]
pub(crate) struct BarSeries {
    /// Legend label.
    pub label: String,
    /// Per group (`None`: no bar).
    pub values: Vec<Option<(f64, f64)>>,
}

/// Reference values drawn as markers.
#[derive(Clone, Debug)]
pub(crate) struct PointSeries {
    /// Legend label.
    pub label: String,
    /// Per group.
    pub values: Vec<Option<f64>>,
    /// Draw over bar `i` of each group (`None`: at the group's centre).
    pub over_bar: Option<usize>,
    /// Marker.
    pub marker: Marker,
    /// Colour.
    pub color: RGBColor,
}

/// A grouped bar chart.
#[derive(Clone, Debug)]
pub(crate) struct GroupedBars {
    /// Title.
    pub title: String,
    /// Category axis label.
    pub x_label: String,
    /// Value axis label (with units).
    pub y_label: String,
    /// Category names.
    pub groups: Vec<String>,
    /// Bars.
    pub series: Vec<BarSeries>,
    /// Reference markers.
    pub points: Vec<PointSeries>,
    /// Logarithmic value axis.
    pub log_y: bool,
    /// Extra legend lines.
    pub notes: Vec<String>,
}

impl GroupedBars {
    /// The range of a logarithmic value axis, when this chart gets one: asked for, no negative
    /// value, and the positive values spanning more than a decade or so (below that a log axis
    /// would show one or two labels and hide the values).
    fn log_range(&self) -> Option<(f64, f64)> {
        let means = self
            .series
            .iter()
            .flat_map(|s| s.values.iter().flatten().map(|&(v, _)| v))
            .chain(
                self.points
                    .iter()
                    .flat_map(|p| p.values.iter().flatten().copied()),
            )
            .filter(|v| v.is_finite());
        let lowest_mean = means.fold(f64::INFINITY, f64::min);
        let hi = self.values().fold(f64::NEG_INFINITY, f64::max);
        let lo = self
            .values()
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        (self.log_y && lo.is_finite() && hi > 20.0 * lo && lowest_mean >= 0.0)
            .then_some((lo * 0.5, hi * 2.0))
    }

    /// Whether some bar is exactly zero (an oracle's regret): left out on a log axis, said so.
    fn has_zero(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.values.iter().flatten().any(|&(v, _)| v == 0.0))
    }

    fn legend(&self) -> Vec<LegendEntry> {
        let styles = label_styles(self.series.iter().map(|s| s.label.as_str()));
        let mut e: Vec<LegendEntry> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| LegendEntry {
                label: s.label.clone(),
                color: styles[i].color,
                key: LegendKey::Box,
            })
            .collect();
        for p in &self.points {
            e.push(LegendEntry {
                label: p.label.clone(),
                color: p.color,
                key: LegendKey::Point(p.marker),
            });
        }
        let mut notes = self.notes.clone();
        if self.log_range().is_some() {
            notes.push("log axis: dots at the means".into());
            if self.has_zero() {
                notes.push("(zeros are not drawn)".into());
            }
        }
        for n in notes {
            e.push(LegendEntry {
                label: n,
                color: BLACK,
                key: LegendKey::Note,
            });
        }
        e
    }

    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        let bars = self
            .series
            .iter()
            .flat_map(|s| s.values.iter().flatten().flat_map(|&(v, e)| [v + e, v - e]));
        let points = self
            .points
            .iter()
            .flat_map(|p| p.values.iter().flatten().copied());
        bars.chain(points).filter(|v| v.is_finite())
    }

    fn bar_x(&self, group: usize, bar: usize) -> (f64, f64) {
        let n = self.series.len().max(1) as f64;
        let w = 0.8 / n;
        let left = group as f64 - 0.4 + bar as f64 * w;
        (left, left + w)
    }

    /// Draws on an axis from `y_floor` to `y_top`, bars rising (or falling) from `baseline`.
    fn draw_in<DB, YR>(
        &self,
        root: &DrawingArea<DB, Shift>,
        plot: &DrawingArea<DB, Shift>,
        y_range: YR,
        (y_floor, y_top): (f64, f64),
        baseline: f64,
        f: Fonts,
    ) -> DrawResult<DB>
    where
        DB: DrawingBackend,
        YR: AsRangedCoord<Value = f64>,
        YR::CoordDescType: ValueFormatter<f64>,
    {
        let n_groups = self.groups.len().max(1);
        let decimals = tick_decimals(y_floor, y_top);
        // Drawn on a log axis exactly when the floor is positive (see `draw`).
        let log = baseline > 0.0;
        let scale = f.scale;
        // Room for the category labels, wrapped to the group width, under the axis.
        let (pw, ph) = plot.dim_in_pixel();
        let label_font = f.tick.saturating_sub(1).max(9);
        let group_w = (pw as f64 * 0.85 / n_groups as f64) as u32;
        let label_lines = self
            .groups
            .iter()
            .map(|g| wrap_px(root, g, label_font, group_w.max(label_font * 3)).len())
            .max()
            .unwrap_or(1) as u32;
        let mut chart = ChartBuilder::on(plot)
            .margin((10.0 * scale) as u32)
            .x_label_area_size(label_lines * label_font * 13 / 10 + f.axis * 2)
            .y_label_area_size((f.tick * 9 / 2 + f.axis * 2).max((70.0 * scale) as u32))
            .build_cartesian_2d(-0.5..(n_groups as f64 - 0.5), y_range)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .x_desc(self.x_label.as_str())
            .y_desc(if log {
                format!("{} (log scale)", self.y_label)
            } else {
                self.y_label.clone()
            })
            .label_style((FAMILY, f.tick))
            .axis_desc_style((FAMILY, f.axis))
            .y_labels(((ph as f64 / (48.0 * scale)) as usize).clamp(3, 12))
            .y_label_formatter(&|y| if log { si(*y) } else { tick(*y, decimals) })
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(210, 210, 210))
            .draw()?;
        let styles = label_styles(self.series.iter().map(|s| s.label.as_str()));
        for (j, s) in self.series.iter().enumerate() {
            let color = styles[j].color;
            for (g, v) in s.values.iter().enumerate() {
                let Some((value, err)) = *v else { continue };
                let (x0, x1) = self.bar_x(g, j);
                if log {
                    // On a log axis a bar would rise from an arbitrary floor: a dot at the
                    // mean instead (zero has no place on the axis and is left out).
                    if value <= 0.0 {
                        continue;
                    }
                    let at = chart.backend_coord(&(0.5 * (x0 + x1), value));
                    let r = (5.0 * scale).round() as i32;
                    root.draw(&Circle::new(at, r, color.filled()))?;
                    root.draw(&Circle::new(at, r, BLACK.stroke_width(1)))?;
                } else {
                    let top = value.max(y_floor);
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, baseline), (x1, top)],
                        color.filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, baseline), (x1, top)],
                        BLACK.stroke_width(1),
                    )))?;
                }
                if err > 0.0 {
                    let xc = 0.5 * (x0 + x1);
                    let top = chart.backend_coord(&(xc, (value + err).min(y_top)));
                    let bottom = chart.backend_coord(&(xc, (value - err).max(y_floor)));
                    draw_whisker(root, top, bottom, BLACK, (4.0 * scale).round() as i32)?;
                }
            }
        }
        for p in &self.points {
            for (g, v) in p.values.iter().enumerate() {
                let Some(value) = *v else { continue };
                let x = match p.over_bar {
                    Some(j) => {
                        let (x0, x1) = self.bar_x(g, j);
                        0.5 * (x0 + x1)
                    }
                    None => g as f64,
                };
                let at = chart.backend_coord(&(x, value.max(y_floor)));
                draw_marker(root, at, p.marker, p.color)?;
            }
        }
        // Category labels, centred under each group, wrapped at spaces when too wide.
        let anchors: Vec<(i32, i32)> = (0..self.groups.len())
            .map(|g| chart.backend_coord(&(g as f64, y_floor)))
            .collect();
        let group_px = {
            let a = chart.backend_coord(&(0.0, y_floor)).0;
            let b = chart.backend_coord(&(1.0, y_floor)).0;
            (b - a).max(1)
        };
        if y_floor < 0.0 {
            // The zero line of differences.
            let px = [
                chart.backend_coord(&(-0.5, 0.0)),
                chart.backend_coord(&(n_groups as f64 - 0.5, 0.0)),
            ];
            root.draw(&PathElement::new(px.to_vec(), BLACK.stroke_width(1)))?;
        }
        self.draw_labels(root, &anchors, group_px, label_font, scale)
    }

    /// The groups' names under the axis at `anchors` (each group's centre), each wrapped at
    /// spaces to the group's width `group_px`.
    fn draw_labels<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        anchors: &[(i32, i32)],
        group_px: i32,
        label_font: u32,
        scale: f64,
    ) -> DrawResult<DB> {
        let width = (group_px as u32 * 95 / 100).max(label_font * 3);
        let style = (FAMILY, label_font)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let line_h = (label_font * 13 / 10) as i32;
        for (name, &(x, y)) in self.groups.iter().zip(anchors) {
            for (k, line) in wrap_px(root, name, label_font, width).iter().enumerate() {
                root.draw(&Text::new(
                    line.clone(),
                    (x, y + (6.0 * scale) as i32 + line_h * k as i32),
                    style.clone(),
                ))?;
            }
        }
        Ok(())
    }
}

impl Chart for GroupedBars {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let (plot, f) = frame(root, &self.title, &self.legend())?;
        let hi = self.values().fold(f64::NEG_INFINITY, f64::max);
        let lowest = self.values().fold(f64::INFINITY, f64::min);
        // Negative values (paired differences) need a linear axis through zero; zeros (an
        // oracle) do not prevent a log axis, they are left out of it as the line charts do.
        if let Some((lo, hi)) = self.log_range() {
            let yr = (lo..hi).log_scale().with_key_points(log_ticks(lo, hi));
            self.draw_in(root, &plot, yr, (lo, hi), lo, f)
        } else {
            let hi = if hi.is_finite() && hi > 0.0 {
                hi * 1.08
            } else {
                0.0
            };
            let lo = if lowest.is_finite() && lowest < 0.0 {
                lowest * 1.08
            } else {
                0.0
            };
            let (lo, hi) = if hi > lo { (lo, hi) } else { (0.0, 1.0) };
            self.draw_in(root, &plot, lo..hi, (lo, hi), 0.0, f)
        }
    }
}
