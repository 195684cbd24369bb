//! Where a chart's parts go, for any accepted size: the title (wrapped, never clipped), the
//! legend (beside the plot in at most a fifth of the width, labels wrapped; below the plot in
//! columns when it is too tall; never cut), and the plot. Fonts scale with the image and text
//! is measured with the bundled font, not guessed.

use super::{DrawResult, FAMILY, LegendEntry, LegendKey, draw_marker, draw_polyline};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Font sizes of one chart, scaled to its size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fonts {
    pub(crate) title: u32,
    pub(crate) axis: u32,
    pub(crate) tick: u32,
    pub(crate) legend: u32,
    /// Pixels per unit of the 1000×600 reference layout.
    pub(crate) scale: f64,
}

/// Font sizes for an image of `w × h` pixels: the 1000×600 layout scaled by the smaller ratio.
pub(crate) fn fonts(w: u32, h: u32) -> Fonts {
    let scale = (w as f64 / 1000.0).min(h as f64 / 600.0).clamp(0.64, 4.0);
    let px = |base: f64| (base * scale).round().max(9.0) as u32;
    Fonts {
        title: px(21.0),
        axis: px(15.0),
        tick: px(14.0),
        legend: px(14.0),
        scale,
    }
}

/// The text's width in pixels at `size`, measured with the bundled font.
pub(crate) fn text_width<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
) -> u32 {
    let style = TextStyle::from((FAMILY, size).into_font());
    area.estimate_text_size(text, &style)
        .map_or(text.chars().count() as u32 * size * 6 / 10, |(w, _)| w)
}

/// Splits `text` at spaces into lines no wider than `width` pixels (a longer word is split).
pub(crate) fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
    width: u32,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let candidate = if current.is_empty() {
            word.to_string()
        } else {
            format!("{current} {word}")
        };
        if text_width(area, &candidate, size) <= width || current.is_empty() {
            current = candidate;
        } else {
            lines.push(std::mem::take(&mut current));
            current = word.to_string();
        }
        // A single word wider than the line is cut into pieces that fit.
        while text_width(area, &current, size) > width && current.chars().count() > 1 {
            let mut cut = current.chars().count() - 1;
            while cut > 1
                && text_width(area, &current.chars().take(cut).collect::<String>(), size) > width
            {
                cut -= 1;
            }
            let head: String = current.chars().take(cut).collect();
            let tail: String = current.chars().skip(cut).collect();
            lines.push(head);
            current = tail;
        }
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

/// The plot's area and the fonts, or a drawing error.
pub(crate) type Framed<DB> = Result<
    (DrawingArea<DB, Shift>, Fonts),
    DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>,
>;

/// Draws the title and the legend around the plot and returns the plot's area.
pub(crate) fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[LegendEntry],
) -> Framed<DB> {
    let (w, h) = root.dim_in_pixel();
    let f = fonts(w, h);
    // Title, wrapped to the width.
    let title_lines = wrap(root, title, f.title, w.saturating_sub(24));
    let title_line_h = f.title * 13 / 10;
    let title_h = title_line_h * title_lines.len() as u32 + (8.0 * f.scale) as u32;
    let (title_area, rest) = root.split_vertically(title_h.min(h / 3));
    let style = (FAMILY, f.title)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in title_lines.iter().enumerate() {
        title_area.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 6 + (i as u32 * title_line_h) as i32),
            style.clone(),
        ))?;
    }
    if legend.is_empty() {
        return Ok((rest, f));
    }
    let (_, rest_h) = rest.dim_in_pixel();
    let key_w = (44.0 * f.scale) as u32;
    // Beside the plot: at most a fifth of the width, labels wrapped to it.
    let side_w = (w / 5).max(key_w + 60);
    let text_w = side_w - key_w - 6;
    let wrapped: Vec<Vec<String>> = legend
        .iter()
        .map(|e| wrap(root, &e.label, f.legend, text_w))
        .collect();
    let line_h = f.legend * 15 / 10;
    let side_h: u32 = wrapped
        .iter()
        .map(|l| l.len() as u32 * line_h + line_h / 3)
        .sum();
    if side_h + line_h <= rest_h {
        let widest = wrapped
            .iter()
            .flatten()
            .map(|l| text_width(root, l, f.legend))
            .max()
            .unwrap_or(0);
        let used = (widest + key_w + 12).min(side_w);
        let (plot, side) = rest.split_horizontally(w - used);
        draw_legend(&side, legend, &wrapped, f, key_w, 1)?;
        return Ok((plot, f));
    }
    // Below the plot, in columns; the font shrinks until every entry fits in half the height.
    let mut size = f.legend;
    loop {
        let lf = Fonts { legend: size, ..f };
        let line_h = size * 15 / 10;
        let widest = legend
            .iter()
            .map(|e| text_width(root, &e.label, size))
            .max()
            .unwrap_or(0);
        let col_w = (widest + key_w + 16).min(w);
        let columns = (w / col_w).max(1) as usize;
        let text_w = col_w - key_w - 8;
        let wrapped: Vec<Vec<String>> = legend
            .iter()
            .map(|e| wrap(root, &e.label, size, text_w))
            .collect();
        let rows_h: u32 = wrapped
            .chunks(columns)
            .map(|row| row.iter().map(|l| l.len() as u32).max().unwrap_or(1) * line_h)
            .sum();
        let below_h = rows_h + line_h;
        if below_h <= rest_h / 2 || size <= 9 {
            let (plot, below) = rest.split_vertically(rest_h.saturating_sub(below_h));
            draw_legend(&below, legend, &wrapped, lf, key_w, columns)?;
            return Ok((plot, f));
        }
        size -= 1;
    }
}

/// Draws legend entries (labels already wrapped) in `columns` columns.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
    wrapped: &[Vec<String>],
    f: Fonts,
    key_w: u32,
    columns: usize,
) -> DrawResult<DB> {
    let (w, _) = area.dim_in_pixel();
    let size = f.legend;
    let text = (FAMILY, size).into_font().color(&BLACK);
    let line_h = (size * 15 / 10) as i32;
    let col_w = (w / columns as u32) as i32;
    let s = f.scale;
    let px = |v: f64| (v * s).round() as i32;
    let mut y_row = if columns == 1 { px(40.0) } else { line_h / 2 };
    for (row_entries, row_lines) in entries.chunks(columns).zip(wrapped.chunks(columns)) {
        for (c, (e, lines)) in row_entries.iter().zip(row_lines).enumerate() {
            let x0 = c as i32 * col_w;
            let y = y_row + line_h / 2;
            let x_text = match e.key {
                LegendKey::Box => {
                    area.draw(&Rectangle::new(
                        [(x0 + px(8.0), y - px(6.0)), (x0 + px(30.0), y + px(6.0))],
                        e.color.filled(),
                    ))?;
                    x0 + key_w as i32
                }
                LegendKey::Line { dash, marker } => {
                    draw_polyline(
                        area,
                        &[(x0 + px(4.0), y), (x0 + px(36.0), y)],
                        e.color,
                        2,
                        dash,
                    )?;
                    if let Some(m) = marker {
                        draw_marker(area, (x0 + px(20.0), y), m, e.color)?;
                    }
                    x0 + key_w as i32
                }
                LegendKey::Point(m) => {
                    draw_marker(area, (x0 + px(20.0), y), m, e.color)?;
                    x0 + key_w as i32
                }
                LegendKey::Note => x0 + px(6.0),
            };
            for (k, line) in lines.iter().enumerate() {
                area.draw(&Text::new(
                    line.clone(),
                    (x_text, y - size as i32 / 2 + k as i32 * line_h),
                    text.clone(),
                ))?;
            }
        }
        let tallest = row_lines.iter().map(Vec::len).max().unwrap_or(1) as i32;
        y_row += tallest * line_h + if columns == 1 { line_h / 3 } else { 0 };
    }
    Ok(())
}

/// Tick positions of a logarithmic axis from `lo` to `hi`: 1-2-5 (or 1-2-3-5-7) steps when the
/// axis spans few decades, so that it never shows just two labels; powers of ten otherwise.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let decades = (hi / lo).log10();
    let steps: &[f64] = if decades <= 1.2 {
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
    } else if decades <= 3.5 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let every = if decades > 9.0 { 2 } else { 1 };
    let mut out = Vec::new();
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    for e in first..=last {
        if (e - first) % every != 0 {
            continue;
        }
        for &m in steps {
            let v = m * 10f64.powi(e);
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                out.push(v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_label_enough_ticks() {
        assert_eq!(
            log_ticks(10.0, 500.0),
            vec![10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
        );
        assert!(log_ticks(1.0, 1e6).len() >= 7);
        assert!(log_ticks(3.0, 9.0).len() >= 3);
        assert!(log_ticks(0.0, 9.0).is_empty());
    }

    #[test]
    fn fonts_scale_with_the_image() {
        let small = fonts(640, 400);
        let big = fonts(2000, 1200);
        assert!(small.title < fonts(1000, 600).title && big.title > fonts(1000, 600).title);
        assert!(small.tick >= 9);
    }
}
