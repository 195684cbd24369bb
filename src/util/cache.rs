//! Addresses to prefetch, for loops over many independent states (the N copies of a vector
//! environment): each copy's buffers are separate heap blocks, so stepping copy `i` while
//! copy `i + 1`'s blocks load hides the cache misses that otherwise dominate a step once the
//! copies outgrow the cache. Only addresses are produced; nothing is read here.

/// The size of a cache line on the machines specprobe targets.
const LINE: usize = 64;

/// Gives `f` the address of every cache line `data` spans (none for an empty slice).
#[inline]
pub(crate) fn lines<T>(data: &[T], f: &mut impl FnMut(*const u8)) {
    let at: *const u8 = data.as_ptr().cast();
    for line in 0..std::mem::size_of_val(data).div_ceil(LINE) {
        f(at.wrapping_add(LINE * line));
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

    #[test]
    fn every_line_of_a_block_once() {
        let v = vec![0u64; 20]; // 160 bytes: 3 lines
        let mut seen = Vec::new();
        lines(&v, &mut |p| seen.push(p as usize - v.as_ptr() as usize));
        assert_eq!(seen, [0, 64, 128]);
        seen.clear();
        lines(&v[..0], &mut |p| seen.push(p as usize));
        assert!(seen.is_empty());
        lines_of(&7u8, &mut |p| seen.push(p as usize));
        assert_eq!(seen.len(), 1);
    }
}
