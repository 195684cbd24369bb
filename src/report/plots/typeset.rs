//! Print-quality text for PNG charts.
//!
//! plotters (0.3.7) draws `ab_glyph` text glyph by glyph from each glyph's own pixel box: the
//! left side bearing is dropped and each glyph's box is truncated to whole pixels on its own,
//! so letters are unevenly spaced (`Aver age`) and a decimal point lands up to two pixels above
//! the digits' baseline, where it reads as a middle dot at tick size. [`Typeset`] wraps a
//! raster backend and draws text as a text renderer does: glyphs placed on one baseline at
//! their fractional pen positions (advance and kerning), each rasterised at its sub-pixel
//! offset with its bearings. The text box, the anchors and the rotations are plotters' own,
//! so every layout measured with the bundled font is unchanged; only the glyphs move, by at
//! most a pixel. Everything but text is passed through untouched; SVG charts carry text as
//! text and do not need this.

use super::FONT;
use ab_glyph::{Font, FontRef, ScaleFont, point};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use std::sync::OnceLock;

/// The bundled font, parsed once.
fn font() -> &'static FontRef<'static> {
    static PARSED: OnceLock<FontRef<'static>> = OnceLock::new();
    PARSED.get_or_init(|| {
        FontRef::try_from_slice(FONT).expect("assets/DejaVuSans.ttf is a valid font")
    })
}

/// A raster backend whose text is laid out on a common baseline at sub-pixel positions.
pub(crate) struct Typeset<B> {
    inner: B,
}

impl<B: DrawingBackend> Typeset<B> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: B) -> Self {
        Typeset { inner }
    }
}

impl<B: DrawingBackend> DrawingBackend for Typeset<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        // plotters' box (the advances and kerning, size/1.24 high) and its anchoring, so text
        // sits where the layout measured it.
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let size = style.size() as f32;
        let font = font();
        let scaled = font.as_scaled(size);
        // plotters puts the baseline half the size below the box's top; so do we, for every
        // glyph alike.
        let baseline = size / 2.0;
        let trans = style.transform();
        let (w, h) = self.inner.get_size();
        let mut caret = 0.0f32;
        let mut previous = None;
        let mut coverage: Vec<(i32, i32, f32)> = Vec::new();
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                caret += scaled.kern(p, id);
            }
            previous = Some(id);
            let glyph = id.with_scale_and_position(size, point(caret, baseline));
            caret += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue; // a space
            };
            let bounds = outline.px_bounds();
            coverage.clear();
            outline.draw(|x, y, a| {
                if a > 0.0 {
                    coverage.push((
                        bounds.min.x as i32 + x as i32,
                        bounds.min.y as i32 + y as i32,
                        a.min(1.0),
                    ));
                }
            });
            for &(x, y, a) in &coverage {
                let (x, y) = trans.transform(x + dx - min_x, y + dy - min_y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                    self.inner.draw_pixel(
                        (x, y),
                        BackendColor {
                            alpha: color.alpha * f64::from(a),
                            rgb: color.rgb,
                        },
                    )?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// The rows holding ink of `text` drawn at tick size, per character: a digit's lowest row
    /// and the decimal point's lowest row are the same baseline row.
    #[test]
    fn a_decimal_point_sits_on_the_digits_baseline() {
        super::super::register_font();
        for size in 9..=30u32 {
            // Lowest inked row of each of "0", ".", "5" drawn apart.
            let lowest = |text: &str| -> i32 {
                let (w, h) = (120u32, 60u32);
                let mut rgb = vec![255u8; (w * h * 3) as usize];
                {
                    let root = Typeset::new(BitMapBackend::with_buffer(&mut rgb, (w, h)))
                        .into_drawing_area();
                    root.draw(&Text::new(
                        text.to_string(),
                        (10, 10),
                        (super::super::FAMILY, size).into_font().color(&BLACK),
                    ))
                    .unwrap();
                    root.present().unwrap();
                }
                (0..h as i32)
                    .rev()
                    .find(|&y| {
                        (0..w as usize).any(|x| rgb[(y as usize * w as usize + x) * 3] < 200)
                    })
                    .unwrap()
            };
            let (zero, dot, five) = (lowest("0"), lowest("."), lowest("5"));
            assert!(
                (dot - zero).abs() <= 1 && (five - zero).abs() <= 1,
                "size {size}: 0 at {zero}, . at {dot}, 5 at {five}"
            );
        }
    }

    /// Each glyph starts where the font puts it: after the previous glyph's advance (and
    /// kerning) and its own left side bearing, within a pixel. plotters' drawing drops the
    /// bearing (3 px for `l` at 40 px) and truncates each glyph's box on its own.
    #[test]
    fn glyphs_start_at_their_pen_position_plus_bearing() {
        super::super::register_font();
        let (w, h) = (200u32, 80u32);
        let size = 40u32;
        let scaled = font().as_scaled(size as f32);
        let l = font().glyph_id('l');
        for first in ['0', '.', 'v', 'r', '1'] {
            let mut rgb = vec![255u8; (w * h * 3) as usize];
            {
                let root =
                    Typeset::new(BitMapBackend::with_buffer(&mut rgb, (w, h))).into_drawing_area();
                root.draw(&Text::new(
                    format!("{first}l"),
                    (10, 10),
                    (super::super::FAMILY, size).into_font().color(&BLACK),
                ))
                .unwrap();
                root.present().unwrap();
            }
            // The `l` is the last run of inked columns.
            let ink = |x: usize| (0..h as usize).any(|y| rgb[(y * w as usize + x) * 3] < 250);
            let start = (1..w as usize)
                .rev()
                .find(|&x| ink(x) && !ink(x - 1))
                .unwrap();
            let id = scaled.glyph_id(first);
            let want = 10.0 + scaled.h_advance(id) + scaled.kern(id, l) + scaled.h_side_bearing(l);
            assert!(
                (start as f32 - want).abs() <= 1.0,
                "`{first}l`: the l starts at {start}, the font puts it at {want}"
            );
        }
    }
}
