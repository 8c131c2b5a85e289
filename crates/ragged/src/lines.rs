//! Files of any size split into records: a streaming reader over the text family
//! ([`TextOps`]), with bounded memory.
//!
//! [`LineReader`] walks a file (or standard input, `-`) in windows of
//! [`ReaderOptions::chunk_size`] bytes (64 MiB by default). Each window starts at a
//! record start; the reader finds the end of the window's last delimiter, hands the
//! complete records before it to the backend ([`TextOps::split_lines`] or
//! [`TextOps::count_lines`]) and carries the partial record after it into the next
//! window — with a partial multi-byte delimiter, or a `\r` waiting for its `\n`. A
//! window with no delimiter at all (a record longer than a chunk) grows until one
//! appears or the input ends. So memory stays within about one chunk plus the longest
//! record, whatever the file size.
//!
//! - Regular files are memory-mapped: a window is a zero-copy slice of the mapping
//!   (no read copy, no carry copy), and records kept with their delimiters share it. A
//!   file truncated while it is mapped is an [`Error::Io`] after the window that saw it
//!   (the mapping is guarded against SIGBUS), not a crash.
//! - Standard input, pipes and other special files are read in blocks of the chunk
//!   size; the carried partial record is copied to the front of the next block.
//!
//! While the backend processes one window, the next is uploaded on another thread: on
//! the GPU the host's copy of window k + 1 into pinned memory, and its copy to the
//! device on a second stream, overlap the kernels of window k, so reading the file is
//! the only limit (two windows are in device memory at a time).
//!
//! Byte ranges ([`LineOptions::byte_range`]) are positions in the file: the reader
//! starts just before the range (at 0 for self-overlapping delimiters, whose matches
//! depend on everything before) and stops after the last record starting in it, so
//! ranges split a file across workers with every record read exactly once.
//!
//! UTF-8 errors name the record counted from the first record of the range (over the
//! whole file, not the window) and the byte within it.
//!
//! # Example
//! ```
//! use ragged::lines::{LineReader, ReaderOptions};
//! use ragged::ops::{Delimiter, LineOptions};
//! use ragged::CpuBackend;
//!
//! let path = std::env::temp_dir().join(format!("ragged-lines-doc-{}.txt", std::process::id()));
//! std::fs::write(&path, "alpha\r\nbeta\ngamma")?;
//! let plan = LineOptions::new(Delimiter::Newline).plan()?;
//! let cpu = CpuBackend::new();
//! let options = ReaderOptions { chunk_size: 4, ..ReaderOptions::default() };
//!
//! let mut records = Vec::new();
//! for batch in LineReader::open(&cpu, &path, plan, options)? {
//!     let batch = batch?;
//!     records.extend((0..batch.len()).map(|i| batch.row_bytes(i).to_vec()));
//! }
//! assert_eq!(records, [b"alpha".to_vec(), b"beta".to_vec(), b"gamma".to_vec()]);
//!
//! let count = LineReader::open(&cpu, &path, plan, options)?.count_records()?;
//! assert_eq!(count, 3);
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_buffer::{Buffer, ScalarBuffer};
use ragged_core::ops::{Delimiter, LineOptions, LinePlan, LinesColumn, TextOps};
use ragged_core::trace::traced;
use ragged_core::{BinaryColumn, Error, Host, Location, Memory, Result, StringColumn};

use crate::mapped::MappedFile;

/// The default window size of [`LineReader`]: 64 MiB.
pub const DEFAULT_CHUNK_SIZE: usize = 64 << 20;

/// How [`LineReader`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderOptions {
    /// Bytes per window (at least 1; [`DEFAULT_CHUNK_SIZE`] by default). A record
    /// longer than this grows the window.
    pub chunk_size: usize,
    /// Memory-map regular files (the default) instead of reading them in blocks.
    pub memory_map: bool,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        Self {
            chunk_size: DEFAULT_CHUNK_SIZE,
            memory_map: true,
        }
    }
}

/// Where the bytes come from.
enum Source {
    /// The whole file, mapped (or bytes in memory); windows are slices from `pos`.
    Mapped { data: ScalarBuffer<u8>, pos: usize },
    /// A reader; `carry` holds the partial record of the last window.
    Stream {
        reader: Box<dyn Read + Send>,
        carry: Vec<u8>,
        eof: bool,
    },
}

/// A window's complete records in host memory (a slice of the mapping, or a block).
struct Window {
    bytes: ScalarBuffer<u8>,
    at_end: bool,
    window_pos: u64,
}

impl Window {
    /// The window's bytes in `backend`'s memory.
    fn upload<B: TextOps>(self, backend: &B) -> Result<Uploaded<B>> {
        Ok(Uploaded {
            region: backend.upload(&self.bytes)?,
            used: self.bytes.len(),
            at_end: self.at_end,
            window_pos: self.window_pos,
        })
    }
}

/// A window's complete records in the backend's memory.
struct Uploaded<B: TextOps> {
    /// The bytes.
    region: <B::Loc as Location>::Buffer<u8>,
    /// How many bytes.
    used: usize,
    /// Whether the input ends with them.
    at_end: bool,
    /// The file position of the first.
    window_pos: u64,
}

/// A streaming split of a file into record batches; see the [module
/// documentation](self). Iterating yields one [`LinesColumn`] per window that holds
/// records (in the backend's memory).
pub struct LineReader<'b, B: TextOps> {
    backend: &'b B,
    plan: LinePlan,
    source: Source,
    path: PathBuf,
    chunk_size: usize,
    /// The file position of the next window's first byte.
    window_pos: u64,
    /// The next window, uploaded while the one before it was processed.
    ahead: Option<Uploaded<B>>,
    /// Records returned (or counted) so far.
    records: u64,
    total: Option<u64>,
    done: bool,
    /// The file's mapping, checked for truncation after each window.
    mapping: Option<Arc<MappedFile>>,
}

impl<'b, B: TextOps> LineReader<'b, B> {
    /// A reader of the file at `path`, or of standard input when `path` is `-`.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` when it cannot be opened, mapped or read (a
    /// directory is "Is a directory"); [`Error::InvalidArgument`] for a chunk size of 0.
    pub fn open(
        backend: &'b B,
        path: impl AsRef<Path>,
        plan: LinePlan,
        options: ReaderOptions,
    ) -> Result<Self> {
        let path = path.as_ref();
        if path.as_os_str() == crate::io::STDIO_PATH {
            return Self::from_reader(backend, std::io::stdin(), plan, options);
        }
        let file = File::open(path).map_err(|e| Error::io("read", path, e))?;
        let metadata = file.metadata().map_err(|e| Error::io("read", path, e))?;
        if metadata.is_dir() {
            return Err(crate::io::is_a_directory("read", path));
        }
        let mut reader = if options.memory_map && metadata.is_file() && metadata.len() > 0 {
            // Another process rewriting the file while it is mapped changes the bytes we
            // read, as with every mmap-based reader; one truncating it is caught
            // (`MappedFile`) and reported after the window that saw it.
            let map = MappedFile::map(&file).map_err(|e| Error::io("map", path, e))?;
            let (data, mapping) = mapped_buffer(map);
            let mut reader = Self::new(backend, Source::Mapped { data, pos: 0 }, plan, options)?;
            reader.mapping = mapping;
            reader
        } else {
            Self::new(
                backend,
                Source::Stream {
                    reader: Box::new(file),
                    carry: Vec::new(),
                    eof: false,
                },
                plan,
                options,
            )?
        };
        reader.path = path.to_path_buf();
        reader.total = metadata.is_file().then_some(metadata.len());
        reader.skip_to_range()?;
        Ok(reader)
    }

    /// A reader of any byte stream, read in blocks (errors name the path `-`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a chunk size of 0; [`Error::Io`] when skipping to
    /// the byte range fails.
    pub fn from_reader(
        backend: &'b B,
        reader: impl Read + Send + 'static,
        plan: LinePlan,
        options: ReaderOptions,
    ) -> Result<Self> {
        let source = Source::Stream {
            reader: Box::new(reader),
            carry: Vec::new(),
            eof: false,
        };
        let mut reader = Self::new(backend, source, plan, options)?;
        reader.skip_to_range()?;
        Ok(reader)
    }

    /// A reader of bytes already in host memory (windows are zero-copy slices).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a chunk size of 0.
    pub fn from_bytes(
        backend: &'b B,
        bytes: ScalarBuffer<u8>,
        plan: LinePlan,
        options: ReaderOptions,
    ) -> Result<Self> {
        let total = bytes.len() as u64;
        let mut reader = Self::new(
            backend,
            Source::Mapped {
                data: bytes,
                pos: 0,
            },
            plan,
            options,
        )?;
        reader.total = Some(total);
        reader.skip_to_range()?;
        Ok(reader)
    }

    fn new(backend: &'b B, source: Source, plan: LinePlan, options: ReaderOptions) -> Result<Self> {
        if options.chunk_size == 0 {
            return Err(Error::invalid_argument(
                "lines",
                "the chunk size is 0 bytes",
            ));
        }
        Ok(Self {
            backend,
            plan,
            source,
            path: PathBuf::from(crate::io::STDIO_PATH),
            chunk_size: options.chunk_size,
            window_pos: 0,
            ahead: None,
            records: 0,
            total: None,
            done: false,
            mapping: None,
        })
    }

    /// The input's size when known (a regular file or bytes in memory).
    pub fn total_bytes(&self) -> Option<u64> {
        self.total
    }

    /// Input bytes consumed so far (for progress: whole records only).
    pub fn bytes_done(&self) -> u64 {
        self.window_pos - self.ahead.as_ref().map_or(0, |w| w.used as u64)
    }

    /// Records returned or counted so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Skip the input before the byte range: to `m` bytes before its start, where the
    /// delimiter that makes the start a record start would begin (not for
    /// self-overlapping delimiters, whose matches depend on everything before).
    fn skip_to_range(&mut self) -> Result<()> {
        let (start, _) = self.plan.byte_range();
        if self.plan.self_overlapping() {
            return Ok(());
        }
        let skip = start.saturating_sub(self.plan.delimiter().len() as u64);
        match &mut self.source {
            Source::Mapped { data, pos } => {
                *pos = usize::try_from(skip).unwrap_or(usize::MAX).min(data.len());
                self.window_pos = *pos as u64;
            }
            Source::Stream { reader, .. } => {
                let skipped = std::io::copy(&mut reader.by_ref().take(skip), &mut std::io::sink())
                    .map_err(|e| Error::io("read", &self.path, e))?;
                self.window_pos = skipped;
            }
        }
        Ok(())
    }

    /// The next window with complete records: the bytes, how many of them to process
    /// (up to the end of the last delimiter, or all at the end of the input), and
    /// whether the input ends there. `None` at the end.
    fn next_window(&mut self) -> Result<Option<(ScalarBuffer<u8>, usize, bool)>> {
        let mut want = self.chunk_size;
        loop {
            let (window, at_end) = match &mut self.source {
                Source::Mapped { data, pos } => {
                    let len = want.min(data.len() - *pos);
                    (data.slice(*pos, len), *pos + len == data.len())
                }
                Source::Stream { reader, carry, eof } => {
                    if !*eof {
                        // `read_to_end` fills spare capacity without zeroing it first and
                        // retries interrupted reads; fewer bytes than asked is the end.
                        let wanted = want as u64;
                        let got = reader
                            .by_ref()
                            .take(wanted)
                            .read_to_end(carry)
                            .map_err(|e| Error::io("read", &self.path, e))?;
                        *eof = (got as u64) < wanted;
                    }
                    let end = if *eof {
                        Some(carry.len())
                    } else {
                        last_delimiter_end(carry, &self.plan)
                    };
                    let Some(end) = end else {
                        // No delimiter: a record longer than the window. Grow it.
                        want = want.saturating_mul(2);
                        continue;
                    };
                    if carry.is_empty() {
                        return Ok(None);
                    }
                    // The window takes the block (no copy); the partial record after
                    // its last delimiter is copied to the front of the next block.
                    let window = ScalarBuffer::from(std::mem::take(carry));
                    carry.extend_from_slice(&window[end..]);
                    return Ok(Some((window, end, *eof)));
                }
            };
            if window.is_empty() && at_end {
                return Ok(None);
            }
            if at_end {
                let len = window.len();
                return Ok(Some((window, len, true)));
            }
            if let Some(end) = last_delimiter_end(&window, &self.plan) {
                return Ok(Some((window, end, false)));
            }
            // No delimiter: a record longer than the window. Grow it.
            want = want.saturating_mul(2);
        }
    }

    /// Consume `used` bytes of the current window (a stream's carry was already set
    /// aside by [`LineReader::next_window`]).
    fn advance(&mut self, used: usize) {
        if let Source::Mapped { pos, .. } = &mut self.source {
            *pos += used;
        }
        self.window_pos += used as u64;
    }

    /// The next window's bytes to process, and where they start: see
    /// [`LineReader::next_window`]; the reader moves past them.
    fn take_window(&mut self) -> Result<Option<Window>> {
        let Some((bytes, used, at_end)) = self.next_window()? else {
            return Ok(None);
        };
        let window = Window {
            bytes: bytes.slice(0, used),
            at_end,
            window_pos: self.window_pos,
        };
        self.advance(used);
        Ok(Some(window))
    }

    /// Run `op` on the next window's complete records, with the byte range made
    /// relative to the window. Meanwhile the window after it is uploaded on another
    /// thread, so that on a device the host's copy of the next window overlaps this
    /// window's kernels. `None` at the end.
    fn step<T: Send>(
        &mut self,
        op: impl FnOnce(&B, &<B::Loc as Location>::Buffer<u8>, &LinePlan) -> Result<(T, u64)> + Send,
    ) -> Option<Result<T>> {
        if self.done {
            return None;
        }
        let outcome = (|| {
            let current = match self.ahead.take() {
                Some(window) => window,
                None => match self.take_window()? {
                    Some(window) => window.upload(self.backend)?,
                    None => {
                        self.check_mapping()?;
                        return Ok(None);
                    }
                },
            };
            let (start, end) = self.plan.byte_range();
            let relative_end = end.saturating_sub(current.window_pos);
            // Every record starting before the range's end is complete once the
            // window's complete part reaches it.
            let last = current.at_end || relative_end <= current.used as u64;
            let (next, taken) = traced(|| if last { Ok(None) } else { self.take_window() });
            let next = next?;
            let plan = self
                .plan
                .with_byte_range(start.saturating_sub(current.window_pos), relative_end)?;
            let backend = self.backend;
            let (window_pos, used) = (current.window_pos, current.used);
            let ((ahead, uploaded), (outcome, ran)) = rayon::join(
                || traced(|| next.map(|window| window.upload(backend)).transpose()),
                || traced(|| op(backend, &current.region, &plan)),
            );
            if let (Some(taken), Some(uploaded), Some(ran)) = (taken, uploaded, ran) {
                eprintln!(
                    "ragged: window at {window_pos} ({used} bytes): next taken {taken:.2} ms, \
                     next uploaded {uploaded:.2} ms, op {ran:.2} ms"
                );
            }
            // Zeros read from a truncated mapping are not the file's records.
            self.check_mapping()?;
            let (value, records) = outcome.map_err(|e| match e {
                Error::InvalidUtf8 { row, byte } => Error::InvalidUtf8 {
                    row: row + self.records as usize,
                    byte,
                },
                other => other,
            })?;
            self.ahead = ahead?;
            self.records += records;
            if last {
                self.done = true;
            }
            Ok(Some(value))
        })();
        match outcome {
            Ok(Some(value)) => Some(Ok(value)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                self.ahead = None;
                Some(Err(e))
            }
        }
    }

    /// [`Error::Io`] when the mapped file was truncated: the bytes read from it since
    /// are zeros, not the file's.
    fn check_mapping(&self) -> Result<()> {
        match &self.mapping {
            Some(map) if map.truncated() => Err(crate::mapped::truncated_error(&self.path)),
            _ => Ok(()),
        }
    }

    /// The number of records (of the byte range), without building any column or
    /// checking UTF-8.
    ///
    /// # Errors
    /// [`Error::Io`] when reading fails; device errors.
    pub fn count_records(mut self) -> Result<u64> {
        while let Some(step) = self.count_next() {
            step?;
        }
        Ok(self.records)
    }

    /// Count the records of the next window (for progress reports between windows);
    /// `None` at the end. [`LineReader::records`] keeps the running total.
    ///
    /// # Errors
    /// As [`LineReader::count_records`].
    pub fn count_next(&mut self) -> Option<Result<u64>> {
        self.step(|b, bytes, plan| {
            let n = b.count_lines(bytes, plan)?;
            Ok((n, n))
        })
    }
}

impl<B: TextOps> Iterator for LineReader<'_, B> {
    type Item = Result<LinesColumn<B::Loc>>;

    /// The next batch of records (a window with no record is skipped).
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let batch = self.step(|b, bytes, plan| {
                let col = b.split_lines(bytes, plan)?;
                let n = col.len() as u64;
                Ok((col, n))
            })?;
            match batch {
                Ok(col) if col.is_empty() && !self.done => continue,
                other => return Some(other),
            }
        }
    }
}

/// The end of the last delimiter match in `window`, which starts at a record start
/// (or, for delimiters that cannot overlap themselves, anywhere: every occurrence is
/// then a match). `None` when there is none.
fn last_delimiter_end(window: &[u8], plan: &LinePlan) -> Option<usize> {
    let d = plan.delimiter();
    if plan.self_overlapping() {
        // Left to right from the window's start (a record start).
        return memchr::memmem::find_iter(window, d)
            .last()
            .map(|q| q + d.len());
    }
    match d {
        [byte] => memchr::memrchr(*byte, window).map(|q| q + 1),
        _ => memchr::memmem::rfind(window, d).map(|q| q + d.len()),
    }
}

/// A mapping as an arrow buffer that owns it (zero-copy), and the mapping to check.
fn mapped_buffer(map: MappedFile) -> (ScalarBuffer<u8>, Option<Arc<MappedFile>>) {
    let _ = map.advise_sequential();
    let len = map.len();
    let map = Arc::new(map);
    match std::ptr::NonNull::new(map.as_ptr().cast_mut()) {
        Some(ptr) => {
            let owner = Arc::clone(&map);
            // SAFETY: the pointer and length describe the mapping, which stays valid
            // (also when truncated: zero pages replace the lost ones) and unmodified by
            // us while `owner` (the buffer's owner) lives; u8 needs no alignment.
            let buffer = unsafe { Buffer::from_custom_allocation(ptr, len, owner) };
            (ScalarBuffer::from(buffer), Some(map))
        }
        None => (ScalarBuffer::from(Vec::new()), None),
    }
}

/// Batches of records joined into one column (a copy, unless there is one batch):
/// i64 offsets when the bytes exceed `i32::MAX` or any batch has them.
///
/// # Errors
/// [`Error::InvalidArgument`] when UTF-8 and binary batches are mixed.
///
/// # Example
/// ```
/// use ragged::lines::concat_lines;
/// use ragged::ops::LinesColumn;
/// use ragged::StringColumn;
/// let a = LinesColumn::Utf8(StringColumn::from_options([Some("x")]));
/// let b = LinesColumn::Utf8(StringColumn::from_options([Some("yz"), Some("")]));
/// let joined = concat_lines(&[a, b])?;
/// assert_eq!(joined.len(), 3);
/// assert_eq!(joined.row_bytes(1), b"yz");
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn concat_lines(batches: &[LinesColumn<Host>]) -> Result<LinesColumn<Host>> {
    let binary = batches.first().is_some_and(LinesColumn::is_binary);
    if batches.iter().any(|b| b.is_binary() != binary) {
        return Err(Error::invalid_argument(
            "concat_lines",
            "cannot join UTF-8 and binary records",
        ));
    }
    if let [one] = batches {
        return Ok(one.clone());
    }
    let total: usize = batches.iter().map(LinesColumn::total_bytes).sum();
    let rows: usize = batches.iter().map(LinesColumn::len).sum();
    let wide = total > i32::MAX as usize || batches.iter().any(LinesColumn::is_wide);
    let mut values = Vec::with_capacity(total);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0i64);
    for batch in batches {
        for i in 0..batch.len() {
            values.extend_from_slice(batch.row_bytes(i));
            offsets.push(values.len() as i64);
        }
    }
    let values = ScalarBuffer::from(values);
    Ok(match (wide, binary) {
        (true, false) => LinesColumn::LargeUtf8(StringColumn::try_new(
            ScalarBuffer::from(offsets),
            values,
            None,
        )?),
        (true, true) => LinesColumn::LargeBinary(BinaryColumn::try_new(
            ScalarBuffer::from(offsets),
            values,
            None,
        )?),
        (false, _) => {
            let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            let narrow = ScalarBuffer::from(narrow);
            if binary {
                LinesColumn::Binary(BinaryColumn::try_new(narrow, values, None)?)
            } else {
                LinesColumn::Utf8(StringColumn::try_new(narrow, values, None)?)
            }
        }
    })
}

/// A delimiter from command-line text with escapes: `\n` (newline mode, also
/// stripping `\r`), `\r\n`, or any other bytes, where `\n`, `\r`, `\t`, `\0`, `\\` and
/// `\xHH` are escapes.
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty delimiter, an unknown escape or a bad
/// `\x` escape. (Length limits are checked by [`LineOptions::plan`].)
///
/// # Example
/// ```
/// use ragged::lines::parse_delimiter;
/// use ragged::ops::Delimiter;
/// assert_eq!(parse_delimiter(r"\n")?, Delimiter::Newline);
/// assert_eq!(parse_delimiter(r"\r\n")?, Delimiter::CrLf);
/// assert_eq!(parse_delimiter(r"\x00|")?, Delimiter::Bytes(vec![0, b'|']));
/// assert!(parse_delimiter(r"\q").is_err());
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn parse_delimiter(text: &str) -> Result<Delimiter> {
    let bad = |message: String| Error::invalid_argument("delimiter", message);
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('0') => out.push(0),
            Some('\\') => out.push(b'\\'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                let byte = (hex.len() == 2)
                    .then(|| u8::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or_else(|| bad(format!("'\\x{hex}' in '{text}' needs two hex digits")))?;
                out.push(byte);
            }
            Some(other) => {
                return Err(bad(format!(
                    "unknown escape '\\{other}' in '{text}' (use \\n, \\r, \\t, \\0, \\\\ or \\xHH)"
                )))
            }
            None => return Err(bad(format!("'{text}' ends with a lone backslash"))),
        }
    }
    Ok(match out.as_slice() {
        [] => return Err(bad("the delimiter is empty".into())),
        b"\n" => Delimiter::Newline,
        b"\r\n" => Delimiter::CrLf,
        _ => Delimiter::Bytes(out),
    })
}

/// A byte range `START:END` (either side may be empty: `:END` from 0, `START:` to the
/// end), in bytes, with size suffixes allowed (`64MiB:128MiB`).
///
/// # Errors
/// [`Error::InvalidArgument`] without a colon, for a number that does not parse, or
/// when `START > END`.
///
/// # Example
/// ```
/// assert_eq!(ragged::lines::parse_byte_range("10:20")?, (10, 20));
/// assert_eq!(ragged::lines::parse_byte_range("1KiB:")?, (1024, u64::MAX));
/// assert!(ragged::lines::parse_byte_range("20:10").is_err());
/// # Ok::<(), ragged::Error>(())
/// ```
pub fn parse_byte_range(text: &str) -> Result<(u64, u64)> {
    let bad = |message: String| Error::invalid_argument("byte range", message);
    let (start, end) = text
        .split_once(':')
        .ok_or_else(|| bad(format!("'{text}' is not START:END")))?;
    let number = |part: &str, default: u64| -> Result<u64> {
        if part.trim().is_empty() {
            return Ok(default);
        }
        crate::device::parse_size(part)
            .map(|v| v as u64)
            .map_err(|_| bad(format!("'{part}' in '{text}' is not a byte position")))
    };
    let (start, end) = (number(start, 0)?, number(end, u64::MAX)?);
    if start > end {
        return Err(bad(format!("'{text}' starts after it ends")));
    }
    Ok((start, end))
}

/// The records of a whole file (or `-`) as one host column, through [`LineReader`]
/// (a convenience for files that fit in memory; the reader itself streams).
///
/// # Errors
/// As [`LineReader::open`] and [`TextOps::split_lines`].
///
/// # Example
/// ```
/// use ragged::lines::{read_lines, ReaderOptions};
/// use ragged::ops::LineOptions;
/// let path = std::env::temp_dir().join(format!("ragged-read-lines-{}.txt", std::process::id()));
/// std::fs::write(&path, "a\nb\n")?;
/// let lines = read_lines(&ragged::CpuBackend::new(), &path, &LineOptions::default(), ReaderOptions::default())?;
/// assert_eq!(lines.len(), 2);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_lines<B: TextOps>(
    backend: &B,
    path: impl AsRef<Path>,
    options: &LineOptions,
    reader: ReaderOptions,
) -> Result<LinesColumn<Host>> {
    let mut batches = Vec::new();
    for batch in LineReader::open(backend, path, options.plan()?, reader)? {
        batches.push(to_host_lines(backend, batch?)?);
    }
    concat_lines(&batches)
}

/// A records column of the backend, copied to the host.
///
/// # Errors
/// As [`Memory::download`].
pub fn to_host_lines<B: Memory>(
    backend: &B,
    col: LinesColumn<B::Loc>,
) -> Result<LinesColumn<Host>> {
    Ok(match col {
        LinesColumn::Utf8(c) => LinesColumn::Utf8(backend.to_host_strings(&c)?),
        LinesColumn::LargeUtf8(c) => LinesColumn::LargeUtf8(backend.to_host_strings(&c)?),
        LinesColumn::Binary(c) => {
            let offsets = backend.download(c.offsets())?;
            let values = backend.download(c.values())?;
            LinesColumn::Binary(BinaryColumn::try_new(offsets, values, None)?)
        }
        LinesColumn::LargeBinary(c) => {
            let offsets = backend.download(c.offsets())?;
            let values = backend.download(c.values())?;
            LinesColumn::LargeBinary(BinaryColumn::try_new(offsets, values, None)?)
        }
    })
}

/// Split the byte range `[start, end)` into `parts` consecutive ranges of nearly
/// equal size (the last ends at `end`). Since a record belongs to the range it starts
/// in, the records of the parts, in order, are exactly the records of the whole range.
///
/// # Example
/// ```
/// use ragged::lines::split_byte_range;
/// assert_eq!(split_byte_range(0, 10, 3), [(0, 3), (3, 6), (6, 10)]);
/// assert_eq!(split_byte_range(5, 5, 2), [(5, 5), (5, 5)]);
/// ```
pub fn split_byte_range(start: u64, end: u64, parts: usize) -> Vec<(u64, u64)> {
    let parts = parts.max(1) as u64;
    let span = end.saturating_sub(start);
    let at = |k: u64| start + (u128::from(span) * u128::from(k) / u128::from(parts)) as u64;
    (0..parts)
        .map(|k| {
            let to = if k + 1 == parts {
                end.max(start)
            } else {
                at(k + 1)
            };
            (at(k), to)
        })
        .collect()
}

/// The byte ranges of [`read_lines_split`]: the plan's range (its end clamped to
/// the file's size when known) split into one range per worker.
fn worker_ranges(path: &Path, plan: &LinePlan, workers: usize) -> Vec<(u64, u64)> {
    let (start, end) = plan.byte_range();
    let size = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    match size {
        // The last part keeps the plan's own end, so nothing is lost if the file grows.
        Some(size) if end > size => {
            let mut ranges = split_byte_range(start.min(size), size, workers);
            if let Some(last) = ranges.last_mut() {
                last.1 = end;
            }
            ranges
        }
        _ => split_byte_range(start, end, workers),
    }
}

/// Run `work` on one thread per worker, worker `k` on the `k`-th part of the plan's
/// byte range, and return the results in order. A UTF-8 error of a worker names the
/// record counted from the first record of the whole range: the records of the
/// workers before it are added (`records` says how many a result holds).
fn run_split<B: TextOps + Sync, T: Send>(
    workers: &[B],
    path: &Path,
    plan: &LinePlan,
    work: impl Fn(&B, LinePlan) -> Result<T> + Sync,
    records: impl Fn(&T) -> u64,
) -> Result<Vec<T>> {
    if workers.is_empty() {
        return Err(Error::invalid_argument("lines", "no worker to read with"));
    }
    if path.as_os_str() == crate::io::STDIO_PATH && workers.len() > 1 {
        return Err(Error::invalid_argument(
            "lines",
            "standard input cannot be split into byte ranges; give a file",
        ));
    }
    let ranges = worker_ranges(path, plan, workers.len());
    // With several workers, each runs in a thread pool of its own (the cores shared
    // out), so a pool thread only ever works for one backend: a device's context
    // made current on it stays its own.
    let pools = if workers.len() > 1 {
        let threads = (rayon::current_num_threads() / workers.len()).max(1);
        (0..workers.len())
            .map(|_| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map(Some)
                    .map_err(|e| Error::io("start threads for", path, std::io::Error::other(e)))
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        vec![None]
    };
    let outcomes: Vec<Result<T>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .zip(&ranges)
            .zip(&pools)
            .map(|((worker, &(start, end)), pool)| {
                let work = &work;
                scope.spawn(move || {
                    let run = || work(worker, plan.with_byte_range(start, end)?);
                    let (outcome, ms) = traced(|| match pool {
                        Some(pool) => pool.install(run),
                        None => run(),
                    });
                    if let Some(ms) = ms {
                        let end = if end == u64::MAX {
                            "the end".to_string()
                        } else {
                            end.to_string()
                        };
                        eprintln!("ragged: worker for bytes {start}..{end}: {ms:.1} ms");
                    }
                    outcome
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Device {
                        op: "lines",
                        message: "a worker thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    let mut results = Vec::with_capacity(outcomes.len());
    let mut before = 0u64;
    for outcome in outcomes {
        match outcome {
            Ok(value) => {
                before += records(&value);
                results.push(value);
            }
            Err(Error::InvalidUtf8 { row, byte }) => {
                return Err(Error::InvalidUtf8 {
                    row: row + before as usize,
                    byte,
                })
            }
            Err(e) => return Err(e),
        }
    }
    Ok(results)
}

/// The records of a file split across several workers (one backend each, e.g. one per
/// GPU): the plan's byte range is cut into one part per worker, each worker streams
/// its part with a [`LineReader`] on its own thread, and the batches come back on the
/// host in file order — no record lost or repeated (a record belongs to the part it
/// starts in). One worker is the same as [`LineReader`].
///
/// # Errors
/// As [`LineReader::open`] and [`TextOps::split_lines`] (UTF-8 errors name the record
/// counted over the whole range); [`Error::InvalidArgument`] for no worker, or for
/// standard input with more than one worker.
///
/// # Example
/// ```
/// use ragged::lines::{concat_lines, read_lines_split, ReaderOptions};
/// use ragged::ops::LineOptions;
/// let path = std::env::temp_dir().join(format!("ragged-split-{}.txt", std::process::id()));
/// std::fs::write(&path, "a\nbb\nccc\n")?;
/// let workers = [ragged::CpuBackend::new(), ragged::CpuBackend::new()];
/// let plan = LineOptions::default().plan()?;
/// let batches = read_lines_split(&workers, &path, plan, ReaderOptions::default())?;
/// assert_eq!(concat_lines(&batches)?.len(), 3);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_lines_split<B: TextOps + Sync>(
    workers: &[B],
    path: impl AsRef<Path>,
    plan: LinePlan,
    reader: ReaderOptions,
) -> Result<Vec<LinesColumn<Host>>> {
    let parts = split_parts(workers, path.as_ref(), plan, reader, to_host_lines)?;
    Ok(parts.into_iter().flatten().collect())
}

/// The records of a file split across several workers as [`read_lines_split`] splits
/// it, each batch left in its worker's memory (on a GPU, strings columns on that
/// device): one vector of batches per worker, in file order.
///
/// # Errors
/// As [`read_lines_split`].
pub fn split_lines_on_workers<B: TextOps + Sync>(
    workers: &[B],
    path: impl AsRef<Path>,
    plan: LinePlan,
    reader: ReaderOptions,
) -> Result<Vec<Vec<LinesColumn<B::Loc>>>> {
    split_parts(workers, path.as_ref(), plan, reader, |_, batch| Ok(batch))
}

/// Each worker's part of the file read with a [`LineReader`] on its own thread, each
/// batch converted by `convert` there.
fn split_parts<B: TextOps + Sync, T: Send>(
    workers: &[B],
    path: &Path,
    plan: LinePlan,
    reader: ReaderOptions,
    convert: impl Fn(&B, LinesColumn<B::Loc>) -> Result<T> + Sync,
) -> Result<Vec<Vec<T>>> {
    let parts = run_split(
        workers,
        path,
        &plan,
        |backend, plan| {
            let mut batches = Vec::new();
            let mut records = 0u64;
            for batch in LineReader::open(backend, path, plan, reader)? {
                let batch = batch?;
                records += batch.len() as u64;
                batches.push(convert(backend, batch)?);
            }
            Ok((batches, records))
        },
        |&(_, records)| records,
    )?;
    Ok(parts.into_iter().map(|(batches, _)| batches).collect())
}

/// The number of records of a file counted by several workers, as
/// [`read_lines_split`] splits it.
///
/// # Errors
/// As [`read_lines_split`] (no UTF-8 check).
pub fn count_lines_split<B: TextOps + Sync>(
    workers: &[B],
    path: impl AsRef<Path>,
    plan: LinePlan,
    reader: ReaderOptions,
) -> Result<u64> {
    let path = path.as_ref();
    let counts = run_split(
        workers,
        path,
        &plan,
        |backend, plan| LineReader::open(backend, path, plan, reader)?.count_records(),
        |&n| n,
    )?;
    Ok(counts.iter().sum())
}

/// A reader window size that keeps one window's work on a device within
/// `memory_limit` bytes: the window, its record boundaries, the stripped characters
/// and the per-record sizes and offsets take about four times the window for lines of
/// 16 bytes or more (five with the next window, uploaded meanwhile), and up to about
/// 30 times for records of one byte, so the window is a 32nd of the limit (at least 1 MiB, at most `chunk_size`). A record longer than
/// the window still grows it.
///
/// # Example
/// ```
/// use ragged::lines::chunk_for_memory_limit;
/// assert_eq!(chunk_for_memory_limit(64 << 20, 256 << 20), 8 << 20);
/// assert_eq!(chunk_for_memory_limit(64 << 20, 1 << 40), 64 << 20);
/// ```
pub fn chunk_for_memory_limit(chunk_size: usize, memory_limit: usize) -> usize {
    chunk_size.min((memory_limit / 32).max(1 << 20))
}
