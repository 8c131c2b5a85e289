//! Host-memory helpers shared by the backends.

/// Ask the kernel for transparent huge pages on a large, still untouched buffer
/// (advice only; ignored where unsupported). Filling fresh memory 4 KiB page by page
/// can cost more than computing or copying into it: large outputs and downloads call
/// this before their first write.
///
/// # Example
/// ```
/// let mut out = vec![0u64; 1 << 20];
/// ragged_core::host::advise_huge_pages(&mut out);
/// assert_eq!(out.len(), 1 << 20);
/// ```
pub fn advise_huge_pages<T>(buffer: &mut [T]) {
    const HUGE: usize = 2 << 20;
    let bytes = std::mem::size_of_val(buffer);
    if bytes < 4 * HUGE {
        return;
    }
    let start = buffer.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + bytes) / HUGE * HUGE;
    if end > aligned {
        // SAFETY: the range lies inside `buffer`, which this function borrows mutably;
        // MADV_HUGEPAGE is advice and changes no contents. Failure is ignored.
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            )
        };
    }
}

/// Bytes of one piece of [`prefetched_pieces`]: four cache lines.
pub const PIECE_BYTES: usize = 256;

/// How far ahead of the piece in hand [`prefetched_pieces`] requests lines, in bytes.
pub const PREFETCH_DISTANCE: usize = 4096;

/// Ask the CPU to bring the cache lines holding `count` elements from `start` on into
/// its caches. A hint: it never faults and reads nothing a program can observe, so any
/// address will do (form it with `wrapping_add`); it does nothing on targets other than
/// x86-64.
///
/// Streaming loops use it where the hardware prefetchers alone leave a core short of
/// memory-level parallelism: on the 2-core Xeon machine one core read 7.5 GB/s by
/// itself and about 12 GB/s with lines requested 4 KiB ahead (PERFORMANCE v0.16).
#[inline(always)]
pub fn prefetch<T>(start: *const T, count: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = start.cast::<i8>();
        for line in (0..count * std::mem::size_of::<T>()).step_by(64) {
            // SAFETY: PREFETCHT0 is a hint that cannot fault and has no architectural
            // effect, whatever the address; the address is formed with wrapping_add.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, count);
}

/// The elements of `T` that `bytes` bytes hold, at least one: a piece
/// (`elements_in::<T>(PIECE_BYTES)`) or the prefetch distance in elements.
#[inline(always)]
pub const fn elements_in<T>(bytes: usize) -> usize {
    let size = std::mem::size_of::<T>();
    if size == 0 || size >= bytes {
        1
    } else {
        bytes / size
    }
}

/// `values` in consecutive pieces of [`PIECE_BYTES`] (at least one element), each
/// handed out after the piece [`PREFETCH_DISTANCE`] bytes further on was requested
/// ([`prefetch`]). For loops that read a large slice once, front to back.
///
/// # Example
/// ```
/// let values: Vec<u32> = (0..1000).collect();
/// let total: u64 = ragged_core::host::prefetched_pieces(&values)
///     .map(|piece| piece.iter().map(|&v| u64::from(v)).sum::<u64>())
///     .sum();
/// assert_eq!(total, 999 * 1000 / 2);
/// ```
#[inline]
pub fn prefetched_pieces<T>(values: &[T]) -> impl Iterator<Item = &[T]> {
    let piece = elements_in::<T>(PIECE_BYTES);
    let ahead = elements_in::<T>(PREFETCH_DISTANCE);
    let base = values.as_ptr();
    values.chunks(piece).enumerate().map(move |(k, p)| {
        prefetch(base.wrapping_add(k * piece + ahead), piece);
        p
    })
}

/// Split `out` into consecutive pieces of the given lengths, for parallel fills of
/// disjoint parts of one output.
///
/// # Panics
/// When the lengths sum to more than `out.len()` (a caller's bug: they are computed
/// from the same sizes as `out`).
///
/// # Example
/// ```
/// let mut out = [0u8; 5];
/// let pieces = ragged_core::host::split_by_lengths(&mut out, &[2, 3]);
/// assert_eq!(pieces.iter().map(|p| p.len()).collect::<Vec<_>>(), [2, 3]);
/// ```
pub fn split_by_lengths<'a, X>(mut out: &'a mut [X], lengths: &[usize]) -> Vec<&'a mut [X]> {
    let mut parts = Vec::with_capacity(lengths.len());
    for &len in lengths {
        let (head, tail) = std::mem::take(&mut out).split_at_mut(len);
        parts.push(head);
        out = tail;
    }
    parts
}
