//! `line_ends` and `count_lines`: the record boundaries of a byte buffer, and their
//! number. `split_lines` is built on the same scan.
//!
//! Mapping: the input is cut into tiles of [`DEFAULT_TILE`] bytes (or the plan's
//! hint), one rayon task per tile; a tile owns the delimiter matches that *start* in
//! it, and searches a window reaching `m - 1` bytes into the next tile, so a delimiter
//! straddling a tile boundary is found exactly once, by the tile it starts in.
//!
//! ```text
//! pass 1 (parallel)   per tile: count the matches starting in it (memchr / memmem),
//!                     remember where the last one ends (its "spill")
//! fix-up (sequential) self-overlapping delimiters only: a tile whose first bytes are
//!                     covered by the previous tile's last match rescans from its end
//! scan (sequential)   exclusive prefix of the per-tile counts: each tile's output slot
//! pass 2 (parallel)   per tile: write `match + m` (a record start) into its slots
//! final               one search for the delimiter ending the range's last record
//! ```
//!
//! Left-to-right non-overlapping matching ("aaa" with "aa" matches once, at 0) is a
//! property of a sequential scan. For delimiters that cannot overlap themselves every
//! occurrence is a match, so tiles are independent. For the others (`aa`, `abab`),
//! a tile's matches depend on where the previous match ends; the sequential fix-up
//! passes that position from tile to tile and rescans a tile only when a match spills
//! into it (at most `m - 1` bytes in), so the answer is the sequential scan's for any
//! tile size. Complexity: O(n) work, O(n / p + tiles) time on p cores.

use memchr::memmem::Finder;
use rayon::prelude::*;

use ragged_core::ops::LinePlan;

/// Bytes per tile when the plan gives no hint: large enough that the per-tile search
/// set-up and the scan over tile counts are negligible, small enough to balance.
pub(crate) const DEFAULT_TILE: usize = 1 << 20;

/// Finds delimiter matches, left to right, without overlap.
pub(crate) struct Matcher<'a> {
    delimiter: &'a [u8],
    finder: Option<Finder<'a>>,
    /// Whether two matches can overlap (`aa`, `abab`); when they cannot, every
    /// occurrence is a match and occurrences are found from their last byte.
    overlapping: bool,
}

impl<'a> Matcher<'a> {
    pub(crate) fn new(plan: &'a LinePlan) -> Self {
        let delimiter = plan.delimiter();
        let finder = (delimiter.len() > 1).then(|| Finder::new(delimiter));
        Self {
            delimiter,
            finder,
            overlapping: plan.self_overlapping(),
        }
    }

    /// The delimiter's length.
    pub(crate) fn len(&self) -> usize {
        self.delimiter.len()
    }

    /// Call `found(q)` for each match `q` in `from..to` of a scan starting at `from`
    /// (a match may end after `to`, never after `hay.len()`); returns the end of the
    /// last match, or `from` when there is none.
    #[inline]
    pub(crate) fn each(
        &self,
        hay: &[u8],
        from: usize,
        to: usize,
        mut found: impl FnMut(usize),
    ) -> usize {
        let m = self.delimiter.len();
        if from >= to {
            return from;
        }
        let mut spill = from;
        match &self.finder {
            None => {
                for q in memchr::memchr_iter(self.delimiter[0], &hay[from..to]) {
                    found(from + q);
                    spill = from + q + 1;
                }
            }
            Some(_) if !self.overlapping => {
                // Occurrences cannot overlap, so each is a match: find the delimiter's
                // last byte with memchr (several times faster than a substring search
                // for short delimiters such as `\r\n`) and check the bytes before it.
                let window = &hay[from..(to + m - 1).min(hay.len())];
                let (head, last) = self.delimiter.split_at(m - 1);
                if let Some(tails) = window.get(m - 1..) {
                    for q in memchr::memchr_iter(last[0], tails) {
                        if &window[q..q + m - 1] == head {
                            found(from + q);
                            spill = from + q + m;
                        }
                    }
                }
            }
            Some(finder) => {
                let window = &hay[from..(to + m - 1).min(hay.len())];
                for q in finder.find_iter(window) {
                    found(from + q);
                    spill = from + q + m;
                }
            }
        }
        spill
    }

    /// The number of matches `q >= counted_from` in `from..to` of a scan starting at
    /// `from`, and the end of the last match (as [`Matcher::each`]).
    #[inline]
    pub(crate) fn count(
        &self,
        hay: &[u8],
        from: usize,
        to: usize,
        counted_from: usize,
    ) -> (usize, usize) {
        if from >= to {
            return (0, from);
        }
        if self.finder.is_none() && from >= counted_from {
            // The vectorized count of memchr; the spill needs only the last match.
            let slice = &hay[from..to];
            let count = memchr::memchr_iter(self.delimiter[0], slice).count();
            let spill = memchr::memrchr(self.delimiter[0], slice).map_or(from, |q| from + q + 1);
            return (count, spill);
        }
        let mut count = 0;
        let spill = self.each(hay, from, to, |q| count += usize::from(q >= counted_from));
        (count, spill)
    }

    /// The first match at or after `from` (searching to the end of `hay`).
    pub(crate) fn first_from(&self, hay: &[u8], from: usize) -> Option<usize> {
        let rest = hay.get(from..)?;
        match &self.finder {
            None => memchr::memchr(self.delimiter[0], rest),
            Some(finder) => finder.find(rest),
        }
        .map(|q| from + q)
    }
}

/// The result of the scan: record boundaries (`n + 1` entries) and whether the last
/// record ends with a delimiter.
pub(crate) struct Boundaries {
    pub(crate) ends: Vec<i64>,
    pub(crate) terminated: bool,
}

/// Where the records of the plan's byte range are, before any search.
struct Layout {
    /// The range start, clamped to the input.
    start: usize,
    /// Whether position 0 is a record start inside the range.
    first_is_zero: bool,
    /// Matches `q` in `counted_from..interior_end` start records inside the range.
    counted_from: usize,
    interior_end: usize,
    /// Where the tiled scan starts (0 for self-overlapping delimiters, whose matches
    /// depend on everything before).
    scan_from: usize,
    /// Bytes per tile.
    tile: usize,
}

impl Layout {
    fn new(len: usize, plan: &LinePlan, m: usize) -> Self {
        let (start, end) = plan.clamped_range(len);
        // A record starts at 0 (when the input is not empty) and at `q + m` for each
        // match `q` with `q + m < len`; the range keeps starts in `start..end`, so the
        // matches with `start <= q + m < end` (`end <= len`).
        let counted_from = start.saturating_sub(m);
        let interior_end = end.saturating_sub(m);
        Self {
            start,
            first_is_zero: start == 0 && end > 0,
            counted_from,
            interior_end,
            scan_from: if plan.self_overlapping() {
                0
            } else {
                counted_from
            },
            tile: plan.tile_bytes().unwrap_or(DEFAULT_TILE),
        }
    }

    /// The tiles `(first byte, end)` covering the match starts to scan.
    fn tiles(&self) -> Vec<(usize, usize)> {
        (self.scan_from..self.interior_end)
            .step_by(self.tile)
            .map(|c0| (c0, (c0 + self.tile).min(self.interior_end)))
            .collect()
    }
}

/// Per tile: where its scan starts, how many interior matches it owns, where its last
/// match ends. Pass 1 and the sequential fix-up.
struct TileCounts {
    tiles: Vec<(usize, usize)>,
    from: Vec<usize>,
    counts: Vec<usize>,
    /// The end of the last match of the whole scan (or `scan_from`).
    spill: usize,
}

fn count_tiles(
    hay: &[u8],
    matcher: &Matcher<'_>,
    layout: &Layout,
    overlapping: bool,
) -> TileCounts {
    let tiles = layout.tiles();
    let first: Vec<(usize, usize)> = tiles
        .par_iter()
        .map(|&(c0, c1)| matcher.count(hay, c0, c1, layout.counted_from))
        .collect();
    let mut from = Vec::with_capacity(tiles.len());
    let mut counts = Vec::with_capacity(tiles.len());
    let mut spill = layout.scan_from;
    for (&(c0, c1), &(count, tile_spill)) in tiles.iter().zip(&first) {
        // A match of an earlier tile may cover this tile's first bytes. Only a
        // self-overlapping delimiter can then match differently from a scan starting
        // at c0; any other delimiter has no occurrence there.
        let resume = spill.max(c0);
        if overlapping && resume > c0 {
            let (count, tile_spill) = matcher.count(hay, resume, c1, layout.counted_from);
            from.push(resume);
            counts.push(count);
            spill = spill.max(tile_spill);
        } else {
            from.push(c0);
            counts.push(count);
            spill = spill.max(tile_spill);
        }
    }
    TileCounts {
        tiles,
        from,
        counts,
        spill,
    }
}

/// The number of records in the plan's range; see [`ragged_core::TextOps::count_lines`].
pub(crate) fn count_lines(hay: &[u8], plan: &LinePlan) -> u64 {
    let matcher = Matcher::new(plan);
    let layout = Layout::new(hay.len(), plan, matcher.len());
    let counts = count_tiles(hay, &matcher, &layout, plan.self_overlapping());
    let interior: usize = counts.counts.iter().sum();
    (interior + usize::from(layout.first_is_zero)) as u64
}

/// The record boundaries of the plan's range; see [`ragged_core::TextOps::line_ends`].
pub(crate) fn record_boundaries(hay: &[u8], plan: &LinePlan) -> Boundaries {
    let matcher = Matcher::new(plan);
    let m = matcher.len();
    let layout = Layout::new(hay.len(), plan, m);
    let TileCounts {
        tiles,
        from,
        counts,
        spill,
    } = count_tiles(hay, &matcher, &layout, plan.self_overlapping());
    let lead = usize::from(layout.first_is_zero);
    let records = lead + counts.iter().sum::<usize>();
    if records == 0 {
        return Boundaries {
            ends: vec![layout.start as i64],
            terminated: false,
        };
    }
    let mut ends = crate::output_vec::<i64>(records + 1);
    // Each tile's slots, carved off in order: the scan of the counts.
    let mut slots: Vec<&mut [i64]> = Vec::with_capacity(tiles.len());
    let (head, mut rest) = ends.split_at_mut(lead);
    head.fill(0);
    for &count in &counts {
        let (mine, others) = rest.split_at_mut(count);
        slots.push(mine);
        rest = others;
    }
    // The delimiter ending the last record: the first match after the scanned ones.
    let final_match = matcher.first_from(hay, spill.max(layout.interior_end));
    rest[0] = final_match.map_or(hay.len(), |q| q + m) as i64;
    let terminated = final_match.is_some();
    slots
        .into_par_iter()
        .zip(tiles.par_iter().zip(from.par_iter()))
        .for_each(|(slot, (&(_, c1), &from))| {
            let mut k = 0;
            matcher.each(hay, from, c1, |q| {
                if q >= layout.counted_from {
                    slot[k] = (q + m) as i64;
                    k += 1;
                }
            });
            debug_assert_eq!(k, slot.len());
        });
    Boundaries { ends, terminated }
}
