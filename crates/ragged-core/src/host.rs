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
