//! Where a chart's parts go, for any accepted size: the title (wrapped, never clipped), the
//! legend (beside the plot in at most a fifth of the width, labels wrapped; below the plot in
//! columns when it is too tall; never cut), and the plot. Fonts scale with the image and text
//! is measured with the bundled font, not guessed.

use super::{DrawResult, FAMILY, LegendEntry, LegendKey, draw_marker, draw_polyline};
use crate::util::math;
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

/// Most characters of one text a chart draws (a title, a label, a note): a longer one is cut
/// with an ellipsis in the drawing (the data keep it whole). A 2 000-character label filled
/// a chart and cost seconds of CPU (its words were split by measuring every prefix).
pub(crate) const MAX_DRAWN_CHARS: usize = 400;

/// `text` as a chart draws it: at most [`MAX_DRAWN_CHARS`] characters, the last an ellipsis
/// when it was cut.
pub(crate) fn drawn(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().count() <= MAX_DRAWN_CHARS {
        std::borrow::Cow::Borrowed(text)
    } else {
        let mut cut: String = text.chars().take(MAX_DRAWN_CHARS - 1).collect();
        cut.push('…');
        std::borrow::Cow::Owned(cut)
    }
}

/// Splits `text` (as [`drawn`] bounds it) at spaces into lines no wider than `width` pixels (a
/// longer word is split).
pub(crate) fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
    width: u32,
) -> Vec<String> {
    let text = &*drawn(text);
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
        // A single word wider than the line is cut into pieces that fit: after a hyphen,
        // underscore or slash where one fits ("centralized-" / "klucb"), else between letters.
        while text_width(area, &current, size) > width && current.chars().count() > 1 {
            // The longest prefix that fits (at least one letter), by bisection: a prefix's
            // width grows with its length.
            let chars: Vec<char> = current.chars().collect();
            let fits =
                |n: usize| text_width(area, &chars[..n].iter().collect::<String>(), size) <= width;
            let (mut lo, mut hi) = (1, chars.len() - 1);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if fits(mid) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            let mut cut = lo;
            if let Some(after) = (1..cut)
                .rev()
                .find(|&i| matches!(chars[i - 1], '-' | '_' | '/'))
            {
                cut = after;
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
    match legend_plan(root, legend, f, (w, rest_h)) {
        LegendPlan::Beside {
            width,
            placed,
            size,
        } => {
            let (plot, side) = rest.split_horizontally(w - width);
            draw_legend(&side, legend, &placed, Fonts { legend: size, ..f })?;
            Ok((plot, f))
        }
        LegendPlan::Below {
            height,
            placed,
            size,
        } => {
            let (plot, below) = rest.split_vertically(rest_h.saturating_sub(height));
            draw_legend(&below, legend, &placed, Fonts { legend: size, ..f })?;
            Ok((plot, f))
        }
    }
}

/// One legend entry laid out in the legend's area: where its key is drawn (the middle of its
/// first line; none for a note) and each text line with its top-left corner.
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    /// The key's left end and vertical middle.
    pub(crate) key: Option<(i32, i32)>,
    /// The label's lines, each with its top-left corner.
    pub(crate) lines: Vec<(String, i32, i32)>,
}

/// Where the legend goes and how it is laid out, measured once so that what is drawn is what
/// was measured.
#[derive(Clone, Debug)]
pub(crate) enum LegendPlan {
    /// Beside the plot, `width` pixels wide.
    Beside {
        /// The legend column's width.
        width: u32,
        /// The entries, in order.
        placed: Vec<Placed>,
        /// Its font size.
        size: u32,
    },
    /// Below the plot, `height` pixels high.
    Below {
        /// The legend's height.
        height: u32,
        /// The entries, in order.
        placed: Vec<Placed>,
        /// Its font size.
        size: u32,
    },
}

/// The legend of `legend` for a chart whose area under the title is `w × rest_h`: beside the
/// plot (at most a fifth of the width, labels wrapped) when it fits the height; else below,
/// the keyed entries in as many columns as their widest label allows and notes across the
/// whole width, the font shrinking until the legend takes at most half the height (at the
/// smallest font, at most two thirds; never cut: a longer legend takes what it needs).
pub(crate) fn legend_plan<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    legend: &[LegendEntry],
    f: Fonts,
    (w, rest_h): (u32, u32),
) -> LegendPlan {
    let key_w = (44.0 * f.scale) as u32;
    let px = |v: f64| (v * f.scale).round() as i32;
    // Beside the plot: at most a fifth of the width, labels wrapped to it.
    let side_w = (w / 5).max(key_w + 60);
    let line_h = f.legend * 15 / 10;
    let (placed, height) = place(
        root,
        legend,
        f.legend,
        key_w,
        side_w,
        1,
        px(40.0),
        line_h / 3,
    );
    if height <= rest_h {
        let widest = placed
            .iter()
            .flat_map(|p| &p.lines)
            .map(|(l, x, _)| *x as u32 + text_width(root, l, f.legend))
            .max()
            .unwrap_or(0);
        return LegendPlan::Beside {
            width: (widest + 12).min(side_w),
            placed,
            size: f.legend,
        };
    }
    // Below the plot, in columns.
    let mut size = f.legend;
    loop {
        let widest = legend
            .iter()
            .filter(|e| !matches!(e.key, LegendKey::Note))
            .map(|e| text_width(root, &drawn(&e.label), size))
            .max()
            .unwrap_or(0);
        let col_w = (widest + key_w + 16).min(w);
        let columns = (w / col_w).max(1) as usize;
        let top = (size * 15 / 10 / 2) as i32;
        let (placed, height) = place(root, legend, size, key_w, w, columns, top, 0);
        let room = if size <= 9 {
            rest_h * 2 / 3
        } else {
            rest_h / 2
        };
        if height <= room || size <= 9 {
            return LegendPlan::Below {
                height,
                placed,
                size,
            };
        }
        size -= 1;
    }
}

/// Lays the entries out in an area `width` wide from `top`: keyed entries in rows of
/// `columns`, each label wrapped to its column; then the notes, each across the whole width;
/// `gap` between rows. Returns the placements and the height used.
#[allow(clippy::too_many_arguments)]
fn place<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    legend: &[LegendEntry],
    size: u32,
    key_w: u32,
    width: u32,
    columns: usize,
    top: i32,
    gap: u32,
) -> (Vec<Placed>, u32) {
    let line_h = (size * 15 / 10) as i32;
    let col_w = (width / columns as u32) as i32;
    let keyed_text_w = (col_w as u32).saturating_sub(key_w + 8).max(size);
    let note_text_w = width.saturating_sub(12).max(size);
    let mut placed = vec![
        Placed {
            key: None,
            lines: Vec::new()
        };
        legend.len()
    ];
    let keyed: Vec<usize> = (0..legend.len())
        .filter(|&i| !matches!(legend[i].key, LegendKey::Note))
        .collect();
    let mut y = top;
    for row in keyed.chunks(columns) {
        let mut tallest = 1;
        for (c, &i) in row.iter().enumerate() {
            let x0 = c as i32 * col_w;
            let lines = wrap(root, &legend[i].label, size, keyed_text_w);
            tallest = tallest.max(lines.len());
            placed[i] = Placed {
                key: Some((x0, y + line_h / 2)),
                lines: lines
                    .into_iter()
                    .enumerate()
                    .map(|(k, l)| {
                        (
                            l,
                            x0 + key_w as i32,
                            y + line_h / 2 - size as i32 / 2 + k as i32 * line_h,
                        )
                    })
                    .collect(),
            };
        }
        y += tallest as i32 * line_h + gap as i32;
    }
    for i in (0..legend.len()).filter(|&i| matches!(legend[i].key, LegendKey::Note)) {
        let lines = wrap(root, &legend[i].label, size, note_text_w);
        let n = lines.len() as i32;
        placed[i] = Placed {
            key: None,
            lines: lines
                .into_iter()
                .enumerate()
                .map(|(k, l)| (l, 6, y + line_h / 2 - size as i32 / 2 + k as i32 * line_h))
                .collect(),
        };
        y += n * line_h + gap as i32;
    }
    // The last row's half line below, as above the first.
    (placed, (y + line_h / 2).max(0) as u32)
}

/// Draws the legend entries where `placed` says.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
    placed: &[Placed],
    f: Fonts,
) -> DrawResult<DB> {
    let text = (FAMILY, f.legend).into_font().color(&BLACK);
    let s = f.scale;
    let px = |v: f64| (v * s).round() as i32;
    for (e, p) in entries.iter().zip(placed) {
        if let Some((x0, y)) = p.key {
            match e.key {
                LegendKey::Box => {
                    area.draw(&Rectangle::new(
                        [(x0 + px(8.0), y - px(6.0)), (x0 + px(30.0), y + px(6.0))],
                        e.color.filled(),
                    ))?;
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
                }
                LegendKey::Point(m) => draw_marker(area, (x0 + px(20.0), y), m, e.color)?,
                LegendKey::Note => {}
            }
        }
        for (line, x, y) in &p.lines {
            area.draw(&Text::new(line.clone(), (*x, *y), text.clone()))?;
        }
    }
    Ok(())
}

/// Tick positions of a logarithmic axis from `lo` to `hi`: 1-2-5 (or 1-2-3-5-7) steps when the
/// axis spans few decades, so that it never shows just two labels; powers of ten otherwise.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let decades = math::log10(hi / lo);
    let steps: &[f64] = if decades <= 1.2 {
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
    } else if decades <= 3.5 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let every = if decades > 9.0 { 2 } else { 1 };
    let mut out = Vec::new();
    let first = math::log10(lo).floor() as i32;
    let last = math::log10(hi).ceil() as i32;
    for e in first..=last {
        if (e - first) % every != 0 {
            continue;
        }
        for &m in steps {
            let v = m * math::powi(10f64, e);
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

    /// Every legend text line lies whole inside the canvas, no two overlap, no text covers a
    /// key, and the plot keeps at least a third of the height, for 1 to 12 policies beside a
    /// band, two bounds and two long notes (the many-users regret chart), at the default size
    /// and at the smallest accepted one.
    #[test]
    fn legends_fit_whole_for_1_to_12_series() {
        crate::report::plots::register_font();
        let names = [
            "centralized-klucb",
            "mctopm-klucb",
            "randtopm-klucb",
            "rhorand-klucb",
            "selfish-ucb1-idle",
            "musical-chairs",
            "mega",
            "sic-mmab",
            "selfish-cc-ucb",
            "rank-offset-cc-ucb",
            "mctopm-cascade-cc-ucb",
            "a user's own team with a rather long label",
        ];
        for (w, h) in [(1000, 600), (640, 400)] {
            let mut buf = vec![0u8; (w * h * 3) as usize];
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            let f = fonts(w, h);
            let rest_h = h - 40;
            for n in 1..=names.len() {
                let key = |marker| LegendKey::Line { dash: None, marker };
                let mut legend: Vec<LegendEntry> = names[..n]
                    .iter()
                    .map(|l| LegendEntry {
                        label: l.to_string(),
                        color: BLACK,
                        key: key(Some(crate::report::plots::Marker::Circle)),
                    })
                    .collect();
                legend.push(LegendEntry {
                    label: "band: 95 % confidence interval of the mean".into(),
                    color: BLACK,
                    key: LegendKey::Box,
                });
                for b in [
                    "decentralised lower bound 48.84·ln t (asymptotic)",
                    "centralised lower bound 8.14·ln t (asymptotic)",
                ] {
                    legend.push(LegendEntry {
                        label: b.into(),
                        color: BLACK,
                        key: key(None),
                    });
                }
                for note in [
                    "M = 6 users, K = 9 channels; benchmark: the best assignment of disjoint UCR-T1 lists, heuristic (the better of greedy, user 0 the optimum on every channel, user 1 on the rest, …, and dealing)",
                    "lower bounds: asymptotic, for uniformly efficient policies only",
                ] {
                    legend.push(LegendEntry {
                        label: note.into(),
                        color: BLACK,
                        key: LegendKey::Note,
                    });
                }
                let plan = legend_plan(&root, &legend, f, (w, rest_h));
                let (area_w, area_h, placed, size) = match plan {
                    LegendPlan::Beside {
                        width,
                        placed,
                        size,
                    } => (width, rest_h, placed, size),
                    LegendPlan::Below {
                        height,
                        placed,
                        size,
                    } => {
                        assert!(
                            height <= rest_h * 2 / 3,
                            "{n} series at {w}×{h}: legend {height} px of {rest_h}"
                        );
                        (w, height, placed, size)
                    }
                };
                let mut boxes: Vec<(i32, i32, i32, i32)> = Vec::new();
                for (e, p) in legend.iter().zip(&placed) {
                    assert!(!p.lines.is_empty(), "{}: not drawn", e.label);
                    let joined: Vec<&str> = p.lines.iter().map(|(l, _, _)| l.as_str()).collect();
                    assert_eq!(joined.join(" ").replace("  ", " "), e.label, "text lost");
                    for (line, x, y) in &p.lines {
                        let tw = text_width(&root, line, size) as i32;
                        let b = (*x, *y, x + tw, y + size as i32);
                        assert!(
                            b.0 >= 0 && b.1 >= 0 && b.2 <= area_w as i32 && b.3 <= area_h as i32,
                            "{n} series at {w}×{h}: {line:?} at {b:?} leaves the {area_w}×{area_h} legend"
                        );
                        boxes.push(b);
                    }
                    if let Some((x0, y)) = p.key {
                        let key_w = (44.0 * f.scale) as i32;
                        boxes.push((x0, y - size as i32 / 2, x0 + key_w - 2, y + size as i32 / 2));
                    }
                }
                for (i, a) in boxes.iter().enumerate() {
                    for b in &boxes[i + 1..] {
                        let apart = a.2 <= b.0 || b.2 <= a.0 || a.3 <= b.1 || b.3 <= a.1;
                        assert!(apart, "{n} series at {w}×{h}: {a:?} overlaps {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn long_words_break_after_a_hyphen() {
        crate::report::plots::register_font();
        let mut buf = vec![0u8; 300 * 100 * 3];
        let root = BitMapBackend::with_buffer(&mut buf, (300, 100)).into_drawing_area();
        let width = text_width(&root, "centralized-kl", 14);
        let lines = wrap(&root, "centralized-klucb (Jain 0.932)", 14, width);
        assert_eq!(lines[0], "centralized-", "{lines:?}");
        assert_eq!(lines[1], "klucb (Jain", "{lines:?}");
    }

    #[test]
    fn fonts_scale_with_the_image() {
        let small = fonts(640, 400);
        let big = fonts(2000, 1200);
        assert!(small.title < fonts(1000, 600).title && big.title > fonts(1000, 600).title);
        assert!(small.tick >= 9);
    }
}
