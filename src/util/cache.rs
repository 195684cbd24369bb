//! Addresses to prefetch, for loops over many independent states (the N copies of a vector
//! environment): each copy's buffers are separate heap blocks, so stepping copy `i` while
//! copy `i + 1`'s blocks load hides the cache misses that otherwise dominate a step once the
//! copies outgrow the cache. Only addresses are produced; nothing is read here.

/// The size of a cache line on the machines specprobe targets.
const LINE: usize = 64;

/// Gives `f` the start of every cache line `data` spans, once each (none for an empty
/// slice). A block need not start on a line: one of 160 bytes may span 4 lines, and stepping
/// 64 bytes from its start would miss the last.
#[inline]
pub fn lines<T>(data: &[T], f: &mut impl FnMut(*const u8)) {
    let size = std::mem::size_of_val(data);
    if size == 0 {
        return;
    }
    let at: *const u8 = data.as_ptr().cast();
    let skew = at as usize % LINE;
    let first = at.wrapping_sub(skew);
    let span = skew + size;
    // Most blocks asked for span one or two lines (a path state, a row of keys, a counter):
    // those take no loop. The loop's count and iterator were a tenth of a many-users step's
    // instructions, which asks for some sixty blocks.
    if span <= 2 * LINE {
        f(first);
        if span > LINE {
            f(first.wrapping_add(LINE));
        }
        return;
    }
    for line in 0..span.div_ceil(LINE) {
        f(first.wrapping_add(LINE * line));
    }
}

/// [`lines`] of one value.
#[inline]
pub(crate) fn lines_of<T>(value: &T, f: &mut impl FnMut(*const u8)) {
    lines(std::slice::from_ref(value), f);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line a block touches, each once, wherever the block starts: a block that does
    /// not start on a line spans one more (the last was missed when lines were counted from
    /// the block's start).
    #[test]
    fn every_line_of_a_block_once() {
        let buf = vec![0u8; 2048];
        for start in 0..128 {
            for len in [0, 1, 2, 63, 64, 65, 127, 128, 129, 160, 960] {
                let block = &buf[start..start + len];
                let mut seen = Vec::new();
                lines(block, &mut |p| seen.push(p as usize));
                let mut want: Vec<usize> = (0..len)
                    .map(|b| (block.as_ptr() as usize + b) / LINE * LINE)
                    .collect();
                want.dedup();
                assert_eq!(seen, want, "start {start}, {len} bytes");
            }
        }
        let mut seen = Vec::new();
        lines_of(&7u8, &mut |p| seen.push(p as usize));
        assert_eq!(seen.len(), 1);
    }
}
