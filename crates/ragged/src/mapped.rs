//! Read-only file mappings that survive the file being truncated while it is mapped.
//!
//! A load from a page of a file mapping that lies past the end of the file — because
//! another process truncated it after it was mapped — raises `SIGBUS`, whose default
//! action kills the process, and no error can be returned from there. A
//! [`MappedFile`] registers its address range in a fixed table; the first one installs
//! a `SIGBUS` handler that, for a fault inside a registered range, maps zero pages
//! (private, anonymous, read-only) over the range from the faulting page to its end,
//! marks the mapping truncated and returns, so that the faulting load is retried and
//! reads zeros. The readers check [`MappedFile::truncated`] after reading — the flag,
//! and the file's size against the mapping's, since bytes past the new end in the last
//! page read as zeros without a fault — and return an error instead of what they read.
//! A fault anywhere else goes to the handler installed before (Rust's stack-overflow
//! handler, another library's, or the default action). Wayland's `wl_shm` guards its
//! clients' memory pools the same way.
//!
//! Only on Linux; elsewhere, and when the table is full (more than [`SLOTS`] mappings
//! at once), a mapping is unguarded, as before.

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::Path;

use ragged_core::Error;

/// How many mappings can be guarded at once.
pub(crate) const SLOTS: usize = 64;

/// A read-only mapping of a whole file, guarded against truncation (see the [module
/// documentation](self)).
pub(crate) struct MappedFile {
    map: memmap2::Mmap,
    /// The mapped file, for its size.
    file: File,
    /// The table slot, while registered.
    slot: Option<usize>,
}

impl MappedFile {
    /// Map `file` read-only.
    ///
    /// # Errors
    /// The operating system's, from duplicating the descriptor or mapping.
    pub(crate) fn map(file: &File) -> io::Result<Self> {
        let file = file.try_clone()?;
        // SAFETY: the mapping is read-only and owned by the returned value. Another
        // process may still change the file: rewritten bytes are read as they are now
        // (as with every mmap reader), and a truncation is caught by the guard below
        // (zero pages, then `truncated()`), where it used to be fatal.
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        let slot = guard::register(map.as_ptr() as usize, map.len());
        Ok(Self { map, file, slot })
    }

    /// Tell the kernel the mapping will be read in order (read-ahead).
    pub(crate) fn advise_sequential(&self) -> io::Result<()> {
        self.map.advise(memmap2::Advice::Sequential)
    }

    /// Whether the file shrank since it was mapped: a fault past its end was caught,
    /// or it is now shorter than the mapping. Check after reading.
    pub(crate) fn truncated(&self) -> bool {
        self.slot.is_some_and(guard::faulted)
            || self
                .file
                .metadata()
                .is_ok_and(|m| m.len() < self.map.len() as u64)
    }
}

impl Deref for MappedFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // Before the mapping goes (the fields drop after this), so that the handler never
        // maps over an address range that is reused.
        if let Some(slot) = self.slot.take() {
            guard::unregister(slot);
        }
    }
}

/// The error of a reader whose input was truncated while it was mapped.
pub(crate) fn truncated_error(path: &Path) -> Error {
    Error::io(
        "read",
        path,
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the file was truncated while it was read (memory-mapped)",
        ),
    )
}

#[cfg(target_os = "linux")]
mod guard {
    //! The table of guarded ranges and the `SIGBUS` handler.

    use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use super::SLOTS;

    /// One guarded range. `generation` is odd while the slot changes, so that the
    /// handler reads `start` and `end` of one registration (a seqlock).
    struct Slot {
        claimed: AtomicBool,
        generation: AtomicUsize,
        start: AtomicUsize,
        end: AtomicUsize,
        faulted: AtomicBool,
    }

    impl Slot {
        const fn new() -> Self {
            Self {
                claimed: AtomicBool::new(false),
                generation: AtomicUsize::new(0),
                start: AtomicUsize::new(0),
                end: AtomicUsize::new(0),
                faulted: AtomicBool::new(false),
            }
        }

        /// Set the range (0..0 clears it) between two generation steps.
        fn set(&self, start: usize, end: usize) {
            self.generation.fetch_add(1, Ordering::AcqRel);
            self.start.store(start, Ordering::Release);
            self.end.store(end, Ordering::Release);
            self.faulted.store(false, Ordering::Release);
            self.generation.fetch_add(1, Ordering::AcqRel);
        }

        /// The range, unless the slot is changing.
        fn range(&self) -> Option<(usize, usize)> {
            let before = self.generation.load(Ordering::Acquire);
            if before % 2 == 1 {
                return None;
            }
            let (start, end) = (
                self.start.load(Ordering::Acquire),
                self.end.load(Ordering::Acquire),
            );
            fence(Ordering::Acquire);
            (self.generation.load(Ordering::Acquire) == before).then_some((start, end))
        }
    }

    static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
    static INSTALL: Once = Once::new();
    /// The handler that was installed before ours.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
    static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);

    /// Guard `[start, start + len)`: the slot, or `None` when the table is full or the
    /// handler could not be installed.
    pub(super) fn register(start: usize, len: usize) -> Option<usize> {
        if len == 0 || !install() {
            return None;
        }
        let index = TABLE.iter().position(|slot| {
            slot.claimed
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        })?;
        TABLE[index].set(start, start.saturating_add(len));
        Some(index)
    }

    /// Stop guarding the slot's range.
    pub(super) fn unregister(index: usize) {
        let slot = &TABLE[index];
        slot.set(0, 0);
        slot.claimed.store(false, Ordering::Release);
    }

    /// Whether the handler caught a fault in the slot's range.
    pub(super) fn faulted(index: usize) -> bool {
        TABLE[index].faulted.load(Ordering::Acquire)
    }

    /// Install the handler (once); whether it is installed.
    fn install() -> bool {
        INSTALL.call_once(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if let Ok(page) = usize::try_from(page) {
                if page.is_power_of_two() {
                    PAGE_SIZE.store(page, Ordering::Release);
                }
            }
            // SAFETY: a zeroed sigaction is a valid value to be filled in.
            let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: querying the current action (a null new action changes nothing).
            if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) } != 0 {
                return;
            }
            let _ = PREVIOUS.set(previous);
            // SAFETY: as above; `on_sigbus` has the signature SA_SIGINFO asks for and is
            // async-signal-safe (atomics, mmap, and the previous handler).
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
            }
        });
        PREVIOUS.get().is_some()
    }

    /// The `SIGBUS` handler: zero pages over a guarded range that faulted, else the
    /// previous handler.
    extern "C" fn on_sigbus(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO; `si_addr` is the
        // faulting address for a fault (BUS_ADRERR: past the end of a file mapping).
        let addr = unsafe {
            (!info.is_null() && (*info).si_code == libc::BUS_ADRERR)
                .then(|| (*info).si_addr() as usize)
        };
        if let Some(addr) = addr {
            for slot in &TABLE {
                let Some((start, end)) = slot.range() else {
                    continue;
                };
                if !(start..end).contains(&addr) {
                    continue;
                }
                let page = addr & !(PAGE_SIZE.load(Ordering::Acquire) - 1);
                // SAFETY: `[page, end)` lies inside a live read-only mapping that this
                // process made (registered until it is unmapped; a fault in it means it
                // is still in use); replacing it by zero pages keeps every address
                // readable, and nothing writes to it.
                let zeros = unsafe {
                    libc::mmap(
                        page as *mut libc::c_void,
                        end - page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    )
                };
                if zeros != libc::MAP_FAILED {
                    slot.faulted.store(true, Ordering::Release);
                    return;
                }
            }
        }
        // SAFETY: the previous action, called as its flags say it expects.
        unsafe { chain(signal, info, context) }
    }

    /// Hand the signal to the previous action: its handler, or the default action (set
    /// it again and return: the faulting load repeats and the process ends as before).
    unsafe fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        let previous = PREVIOUS.get();
        let handler = previous.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // SAFETY: restoring the default action of SIGBUS.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
            return;
        }
        let flags = previous.map_or(0, |p| p.sa_flags);
        if flags & libc::SA_SIGINFO != 0 {
            // SAFETY: with SA_SIGINFO the handler is a three-argument function.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            f(signal, info, context);
        } else {
            // SAFETY: without SA_SIGINFO the handler is a one-argument function.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            f(signal);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod guard {
    //! No guard: mappings behave as plain mappings.

    pub(super) fn register(_start: usize, _len: usize) -> Option<usize> {
        None
    }

    pub(super) fn unregister(_index: usize) {}

    pub(super) fn faulted(_index: usize) -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_truncated_mapping_reads_zeros_and_says_so() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("data");
        let mut file = File::create(&path).expect("create");
        file.write_all(&vec![7u8; 3 << 20]).expect("write");
        drop(file);
        let file = File::open(&path).expect("open");
        let map = MappedFile::map(&file).expect("map");
        assert_eq!(map[(3 << 20) - 1], 7);
        assert!(!map.truncated());
        // Shrink it to one page and a half: the half page past the end reads zeros
        // without a fault, the pages after it fault.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(6144))
            .expect("truncate");
        let sum: u64 = map.iter().map(|&b| u64::from(b)).sum();
        assert_eq!(sum, 7 * 6144);
        assert!(map.truncated());
        assert!(guard::faulted(map.slot.expect("registered")));
        drop(map);
        // The slot is free again, and a new mapping starts clean.
        let map = MappedFile::map(&file).expect("map");
        assert!(!map.truncated());
        assert_eq!(map.len(), 6144);
    }
}
