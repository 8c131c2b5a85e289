//! `tensor_sketch` on the GPU: host dispatch for `kernels/sequences/tensor_sketch.cu`.
//!
//! The offsets are read on the host (downloaded, `n + 1` values, for a device column) to
//! cut the sequences into chunk items with `ragged_core::ops::sketch_layout` — the same
//! plan as the CPU backend — with as many items as the chip holds at once (long
//! sequences are split so that no single sequence sets the run time). The items, the
//! phase table and the per-sequence item runs are uploaded;
//! `sketch_items_<t>_<reg|shared>` fills the raw chunk results and `sketch_finish`
//! turns each sequence's results into its sketch.
//!
//! From host memory ([`tensor_sketch_host`]) the item kernel starts before the codes
//! are on the device: they are uploaded on a second stream in *rounds* — round `r`
//! holds the `r`-th piece (in the order its items read it) of every chunk — and the
//! kernel waits for the round each piece is in, so every item starts after the first
//! round instead of after the whole upload.

use ragged_core::ops::{
    check_sketch_args, count_layout, count_patterns, sketch_layout, SequenceColumn, SketchColumn,
    SketchItem, SketchLayout, SketchPlan,
};
use ragged_core::{Host, Memory, Result, ScalarBuffer};
use rayon::prelude::*;

use crate::backend::StreamedUpload;
use crate::compile::SEQUENCES_TENSOR_SKETCH;
use crate::launch::{launch, params};
use crate::memory::{Device, DeviceBuffer};
use crate::CudaBackend;

/// Threads per block of the item kernel (`ITEM_BLOCK` in the kernel).
const ITEM_BLOCK: usize = 128;
/// Largest phase table copied to shared memory (with the carries, under the default
/// dynamic limit of 48 KiB).
const SHARED_TABLE_BYTES: usize = 40 * 1024;
/// Bounds of a streamed upload's piece (bytes; powers of two): small enough that the
/// first round arrives soon, at most 1/32 of the average chunk so that padding the
/// chunks to whole pieces costs at most about 3 %.
const PIECE_MIN: usize = 16;
const PIECE_MAX: usize = 1024;
/// Threads per block of `sketch_counts_finish` (`COUNT_FINISH_BLOCK` in the kernel).
const COUNT_FINISH_BLOCK: u32 = 256;

/// Blocks per multiprocessor of the counts kernel's launch bounds
/// (`RAGGED_SKETCH_COUNTS_VARIANT`), four items (warps) each.
const COUNT_MIN_BLOCKS: usize = 8;

/// The blocks per multiprocessor the kernel's launch bounds guarantee
/// (`RAGGED_SKETCH_ITEMS_VARIANT`).
fn min_blocks(t: usize, register_table: bool) -> usize {
    match (register_table, t) {
        (true, 1..=4) => 6,
        (true, _) => 4,
        (false, 1..=8) => 6,
        (false, _) => 4,
    }
}

/// The item kernel's shape and chunk plan for one column.
struct ItemPlan {
    t: usize,
    /// The count method (`SketchPlan::by_counts`): one warp per chunk item, every item
    /// forward; else the Fourier items.
    counts: bool,
    /// Frequencies `K = D/2 + 1`.
    kc: usize,
    register_table: bool,
    /// Work units per item: slices of at most 128 frequencies, `lanes` threads each.
    slices: usize,
    lanes: usize,
    /// Work units per block.
    groups: usize,
    layout: SketchLayout,
    /// Items the chip runs at once.
    resident_items: usize,
    /// Item indices in the order the item kernel takes them: longest first (blocks
    /// start in index order, so short items fill the tail of the last wave instead of a
    /// long one extending it).
    by_cost: Vec<usize>,
}

fn item_plan(backend: &CudaBackend, offsets: &[i64], plan: &SketchPlan) -> ItemPlan {
    let (t, kc, a) = (plan.t(), plan.frequencies(), plan.alphabet_size());
    let n = offsets.len() - 1;
    let total = (offsets[n] - offsets[0]) as usize;
    let counts = plan.by_counts();
    // Register phases exist for A <= 4 and t <= 8 (`RAGGED_SKETCH_ITEMS_VARIANT`).
    let register_table = a <= 4 && t <= 8;
    let (slices, lanes) = if counts {
        (1, 32)
    } else {
        let slices = kc.div_ceil(ITEM_BLOCK);
        (slices, kc.div_ceil(slices).div_ceil(32) * 32)
    };
    let groups = ITEM_BLOCK / lanes;
    // Chunks sized so that the items fill the resident capacity of the chip.
    let sms = backend.info().multiprocessors.max(1) as usize;
    let blocks = if counts {
        COUNT_MIN_BLOCKS
    } else {
        min_blocks(t, register_table)
    };
    let resident_items = sms * blocks * groups / slices;
    let chunk = plan.chunk_length_for(total, resident_items.max(1));
    let layout = if counts {
        count_layout(offsets, chunk)
    } else {
        sketch_layout(offsets, t, chunk)
    };
    let mut by_cost: Vec<usize> = (0..layout.items.len()).collect();
    by_cost.sort_unstable_by_key(|&i| {
        let item = &layout.items[i];
        let levels = if item.level < 0 {
            t
        } else {
            t - item.level as usize
        };
        (std::cmp::Reverse(item.len as usize * levels), i)
    });
    ItemPlan {
        t,
        counts,
        kc,
        register_table,
        slices,
        lanes,
        groups,
        layout,
        resident_items,
        by_cost,
    }
}

impl ItemPlan {
    /// The items in the item kernel's order (`by_cost`) as the device reads them, each
    /// with the `start` and `pad` that `place(index, item)` gives.
    fn kernel_words(&self, place: impl Fn(usize, &SketchItem) -> (i64, u32)) -> Vec<i64> {
        self.by_cost
            .iter()
            .flat_map(|&i| {
                let item = &self.layout.items[i];
                let (start, pad) = place(i, item);
                item_words(item, start, pad)
            })
            .collect()
    }
}

/// `SketchItem` as the device reads it: `#[repr(C)] {i64, i64, i32, i32, i64}`, four
/// 8-byte words on the little-endian device, `level` in the low half of the third and
/// `pad` in the high half.
fn item_words(item: &SketchItem, start: i64, pad: u32) -> [i64; 4] {
    let level_pad = u64::from(item.level as u32) | (u64::from(pad) << 32);
    [start, item.len, level_pad as i64, item.slot]
}

/// Where the item kernel reads the codes (`CodeSource` in the kernel).
struct CodeSource {
    codes: u64,
    /// 0: the column's codes; else the rounds' offsets in a streamed buffer.
    round_base: u64,
    ready: u64,
    piece_shift: i32,
}

/// The method's tables and per-item results on the device.
enum Work {
    /// The Fourier method: the phase table (`A × t × K` float2) and the items' raw rows
    /// (`(t + 1) × K` float2 each).
    Fourier {
        table: DeviceBuffer<f32>,
        raw: DeviceBuffer<f32>,
    },
    /// The count method: the projection (`SketchPlan::count_entries`) and the items'
    /// pattern counts (`count_patterns(t)` float64 each).
    Counts {
        entries: DeviceBuffer<i32>,
        raw: DeviceBuffer<f64>,
    },
}

/// The device side of one sketch call: the uploaded plan and the output buffers.
struct Launch<'p> {
    ip: &'p ItemPlan,
    n: usize,
    dim: usize,
    alphabet: usize,
    items: DeviceBuffer<i64>,
    first: DeviceBuffer<i64>,
    work: Work,
    out: DeviceBuffer<f32>,
}

impl<'p> Launch<'p> {
    fn new(backend: &CudaBackend, ip: &'p ItemPlan, plan: &SketchPlan, n: usize) -> Result<Self> {
        let words: Vec<i64> = ip
            .layout
            .items
            .iter()
            .flat_map(|i| item_words(i, i.start, 0))
            .collect();
        let items = backend.upload_slice(&words)?;
        let first = backend.upload_slice(&ip.layout.first)?;
        let work = if ip.counts {
            Work::Counts {
                entries: backend.upload_slice(&plan.count_entries())?,
                raw: backend.alloc::<f64>(ip.layout.items.len() * count_patterns(ip.t))?,
            }
        } else {
            let phases: Vec<f32> = plan.phases().iter().flatten().copied().collect();
            Work::Fourier {
                table: backend.upload_slice(&phases)?,
                raw: backend.alloc::<f32>(ip.layout.items.len() * (ip.t + 1) * ip.kc * 2)?,
            }
        };
        let out = backend.alloc::<f32>(n * plan.dim())?;
        Ok(Self {
            ip,
            n,
            dim: plan.dim(),
            alphabet: plan.alphabet_size(),
            items,
            first,
            work,
            out,
        })
    }

    /// Queue the item kernel over `sorted` (the items in kernel order, as words).
    fn items(
        &self,
        backend: &CudaBackend,
        sorted: &DeviceBuffer<i64>,
        source: &CodeSource,
    ) -> Result<()> {
        let ip = self.ip;
        let n_items = ip.layout.items.len() as i64;
        let sorted_ptr = sorted.device_ptr();
        let (codes_ptr, round_base, ready, piece_shift) = (
            source.codes,
            source.round_base,
            source.ready,
            source.piece_shift,
        );
        let blocks = (ip.layout.items.len() * ip.slices).div_ceil(ip.groups);
        let grid = u32::try_from(blocks).map_err(|_| too_many("chunk items", blocks))?;
        match &self.work {
            Work::Counts { raw, .. } => {
                let function = backend
                    .function(&SEQUENCES_TENSOR_SKETCH, &format!("sketch_counts_{}", ip.t))?;
                let raw_ptr = raw.device_ptr();
                let mut args = params![
                    codes_ptr,
                    round_base,
                    ready,
                    piece_shift,
                    sorted_ptr,
                    n_items,
                    raw_ptr
                ];
                // SAFETY: `sketch_counts_<t>(const uint8_t*, const long long*, unsigned*,
                // int, const SketchItem*, long long, double*)`: each item's codes lie
                // inside the column (the layout comes from its offsets) or, streamed,
                // inside the round-major buffer that `round_base` describes and the copy
                // stream fills before raising `ready`; `raw` holds items ×
                // count_patterns(t) doubles (allocated in `new`), and the grid covers one
                // warp per item, four per block.
                unsafe {
                    launch(
                        function,
                        grid,
                        ITEM_BLOCK as u32,
                        0,
                        backend.stream(),
                        &mut args,
                    )
                }
            }
            Work::Fourier { table, raw } => {
                let table_bytes = table.len() * 4;
                let use_shared = !ip.register_table && table_bytes <= SHARED_TABLE_BYTES;
                let carry_bytes = ITEM_BLOCK * (ip.t + 1) * 8;
                let shared = (carry_bytes + if use_shared { table_bytes } else { 0 }) as u32;
                let name = format!(
                    "sketch_items_{}_{}",
                    ip.t,
                    if ip.register_table { "reg" } else { "shared" }
                );
                let function = backend.function(&SEQUENCES_TENSOR_SKETCH, &name)?;
                let (table_ptr, raw_ptr) = (table.device_ptr(), raw.device_ptr());
                let (alphabet, k_count, lane_count, slice_count, shared_flag) = (
                    self.alphabet as i32,
                    ip.kc as i32,
                    ip.lanes as i32,
                    ip.slices as i32,
                    i32::from(use_shared),
                );
                let mut args = params![
                    codes_ptr,
                    round_base,
                    ready,
                    piece_shift,
                    sorted_ptr,
                    n_items,
                    table_ptr,
                    alphabet,
                    k_count,
                    lane_count,
                    slice_count,
                    shared_flag,
                    raw_ptr
                ];
                // SAFETY: `sketch_items_<t>_<v>(const uint8_t*, const long long*, unsigned*,
                // int, const SketchItem*, long long, const float2*, int, int, int, int, int,
                // float2*)`: each item's codes lie inside the column (the layout comes from
                // its offsets) or, streamed, inside the round-major buffer that `round_base`
                // describes and the copy stream fills before raising `ready`; the table
                // holds A × t × K entries (the plan's), `raw` holds items × (t + 1) × K
                // float2 (allocated in `new`), the grid covers items × slices units of
                // `lanes` threads, and the dynamic shared memory holds the block's carries
                // plus the table when it is copied there.
                unsafe {
                    launch(
                        function,
                        grid,
                        ITEM_BLOCK as u32,
                        shared,
                        backend.stream(),
                        &mut args,
                    )
                }
            }
        }
    }

    /// Queue the finishing kernel (one block per sequence).
    fn finish(&self, backend: &CudaBackend) -> Result<()> {
        let ip = self.ip;
        let (items_ptr, first_ptr, out_ptr) = (
            self.items.device_ptr(),
            self.first.device_ptr(),
            self.out.device_ptr(),
        );
        let sequence_blocks = u32::try_from(self.n).map_err(|_| too_many("sequences", self.n))?;
        let (levels, dimension) = (ip.t as i32, self.dim as i32);
        match &self.work {
            Work::Counts { entries, raw } => {
                let finish = backend.function(&SEQUENCES_TENSOR_SKETCH, "sketch_counts_finish")?;
                let (raw_ptr, entries_ptr) = (raw.device_ptr(), entries.device_ptr());
                let mut args = params![
                    raw_ptr,
                    items_ptr,
                    first_ptr,
                    levels,
                    dimension,
                    entries_ptr,
                    out_ptr
                ];
                // SAFETY: `sketch_counts_finish(const double*, const SketchItem*, const
                // long long*, int, int, const int*, float*)`: one block of 256 threads per
                // sequence reads its items (first holds n + 1 item positions) and their
                // counts, the entries table holds D + 1 starts and the patterns they
                // index (`count_entries`), and the block writes the sequence's D values of
                // `out` (n × D, allocated in `new`); t <= 4 fits the static shared state.
                unsafe {
                    launch(
                        finish,
                        sequence_blocks,
                        COUNT_FINISH_BLOCK,
                        0,
                        backend.stream(),
                        &mut args,
                    )
                }
            }
            Work::Fourier { raw, .. } => {
                let finish = backend.function(&SEQUENCES_TENSOR_SKETCH, "sketch_finish")?;
                let raw_ptr = raw.device_ptr();
                let k_count = ip.kc as i32;
                let mut args =
                    params![raw_ptr, items_ptr, first_ptr, levels, k_count, dimension, out_ptr];
                let threads = (ip.kc.max(self.dim).div_ceil(32) * 32).min(1024) as u32;
                // SAFETY: `sketch_finish(const float2*, const SketchItem*, const long long*,
                // int, int, int, float*)`: one block per sequence reads its items (first
                // holds n + 1 item positions) and their raw rows, keeps K double2 in
                // dynamic shared memory, and writes the sequence's D values of `out`
                // (n × D, allocated in `new`).
                unsafe {
                    launch(
                        finish,
                        sequence_blocks,
                        threads,
                        (ip.kc * 16) as u32,
                        backend.stream(),
                        &mut args,
                    )
                }
            }
        }
    }
}

/// One-dimensional grids: more than 2^32 - 1 blocks (items or sequences) is an error,
/// never a silent truncation.
fn too_many(what: &str, count: usize) -> ragged_core::Error {
    ragged_core::Error::invalid_argument(
        "tensor_sketch",
        format!("{count} {what} exceed the GPU's grid of 2^32 - 1 blocks"),
    )
}

pub(super) fn tensor_sketch(
    backend: &CudaBackend,
    sequences: &SequenceColumn<Device>,
    plan: &SketchPlan,
) -> Result<SketchColumn<Device>> {
    check_sketch_args(sequences, plan)?;
    let n = sequences.len();
    if n == 0 {
        return SketchColumn::try_new(backend.alloc::<f32>(0)?, plan.dim());
    }
    let offsets = backend.download_vec(sequences.offsets())?;
    let ip = item_plan(backend, &offsets, plan);
    let run = Launch::new(backend, &ip, plan, n)?;
    let sorted = backend.upload_slice(&ip.kernel_words(|_, item| (item.start, 0)))?;
    let source = CodeSource {
        codes: sequences.codes().device_ptr(),
        round_base: 0,
        ready: 0,
        piece_shift: 0,
    };
    run.items(backend, &sorted, &source)?;
    run.finish(backend)?;
    // The uploads and the raw table are freed in stream order after the kernels.
    let Launch { out, .. } = run;
    drop(sorted);
    SketchColumn::try_new(out, plan.dim())
}

/// One chunk of a streamed upload: where its codes are and how its pieces lie.
#[derive(Clone, Copy)]
struct StreamChunk {
    /// The chunk's first code in the column's codes.
    start: usize,
    len: usize,
    /// Position of code 0 in the chunk's pieces: `pieces * P - len` for a backward chunk
    /// (its first piece, read last, is the partial one), 0 forward.
    pad: usize,
    pieces: usize,
    backward: bool,
}

/// The round-major layout of a streamed sketch's codes (`CodeSource` in the kernel).
/// Chunks form groups uploaded one after the other — group 0 the chunks of the items
/// the chip starts at once, group 1 the rest, which start as slots free up — and inside
/// a group, piece `r` of the chunk of rank `k` lies at `round_base[first + r] + k * P`,
/// `first` being the group's first round.
struct Rounds {
    shift: u32,
    chunks: Vec<StreamChunk>,
    /// Chunk index of each layout item (a middle chunk's `t` items share one chunk).
    chunk_of_item: Vec<usize>,
    /// Group of each chunk.
    group: Vec<usize>,
    /// Rank of each chunk in its group: chunks with more pieces first, so that every
    /// round holds a prefix of the ranks.
    rank: Vec<usize>,
    /// Chunk indices by group, then rank; group `g`'s are
    /// `by_rank[group_chunks[g]..group_chunks[g + 1]]`.
    by_rank: Vec<usize>,
    group_chunks: Vec<usize>,
    /// Group `g`'s rounds are `group_rounds[g]..group_rounds[g + 1]`.
    group_rounds: Vec<usize>,
    /// `rounds + 1` byte offsets, every group's rounds in turn.
    round_base: Vec<i64>,
}

impl Rounds {
    /// `first_wave[i]`: whether layout item `i` is among those the chip runs at once.
    fn new(layout: &SketchLayout, total: usize, first_wave: &[bool]) -> Self {
        let mut chunks = Vec::new();
        let mut chunk_of_item = Vec::with_capacity(layout.items.len());
        let mut group = Vec::new();
        for (i, item) in layout.items.iter().enumerate() {
            // A first or last chunk, or the first item (q = 0) of a middle chunk.
            if item.level <= 0 {
                chunks.push(StreamChunk {
                    start: item.start as usize,
                    len: item.len as usize,
                    pad: 0,
                    pieces: 0,
                    backward: item.level == SketchItem::BACKWARD,
                });
                group.push(1);
            }
            let c = chunks.len() - 1;
            chunk_of_item.push(c);
            if first_wave[i] {
                group[c] = 0;
            }
        }
        let average = total / chunks.len().max(1);
        // The largest power of two at most average / 32, within the bounds.
        let target = (average / 32).max(1);
        let piece = (1usize << target.ilog2()).clamp(PIECE_MIN, PIECE_MAX);
        for c in &mut chunks {
            c.pieces = c.len.div_ceil(piece);
            c.pad = if c.backward {
                c.pieces * piece - c.len
            } else {
                0
            };
        }
        let mut by_rank: Vec<usize> = (0..chunks.len()).collect();
        by_rank.sort_by_key(|&c| (group[c], std::cmp::Reverse(chunks[c].pieces)));
        let groups = 2;
        let group_chunks = vec![0, by_rank.partition_point(|&c| group[c] == 0), chunks.len()];
        let mut rank = vec![0; chunks.len()];
        let mut round_base = vec![0i64];
        let mut group_rounds = vec![0];
        for g in 0..groups {
            let members = &by_rank[group_chunks[g]..group_chunks[g + 1]];
            for (k, &c) in members.iter().enumerate() {
                rank[c] = k;
            }
            let rounds = members.first().map_or(0, |&c| chunks[c].pieces);
            // alive(r) = the group's chunks with more than r pieces, a prefix of ranks.
            let mut alive = members.len();
            for r in 0..rounds {
                while alive > 0 && chunks[members[alive - 1]].pieces <= r {
                    alive -= 1;
                }
                let last = round_base[round_base.len() - 1];
                round_base.push(last + (alive * piece) as i64);
            }
            group_rounds.push(round_base.len() - 1);
        }
        Self {
            shift: piece.trailing_zeros(),
            chunks,
            chunk_of_item,
            group,
            rank,
            by_rank,
            group_chunks,
            group_rounds,
            round_base,
        }
    }

    fn piece(&self) -> usize {
        1 << self.shift
    }

    fn bytes(&self) -> usize {
        self.round_base[self.round_base.len() - 1] as usize
    }

    /// The kernel's `start` of an item of chunk `c`: its group's first round in the
    /// high 32 bits, its rank in the low ones.
    fn item_start(&self, c: usize) -> i64 {
        ((self.group_rounds[self.group[c]] as i64) << 32) | self.rank[c] as i64
    }

    /// Whether every round and rank fits the kernel's 32-bit halves.
    fn addressable(&self) -> bool {
        self.round_base.len() < (1 << 31) && self.chunks.len() < (1 << 31)
    }

    /// Rounds entirely within bytes `0 .. end`.
    fn complete(&self, end: usize) -> u32 {
        self.round_base[1..].partition_point(|&b| b as usize <= end) as u32
    }

    /// Write bytes `start .. start + window.len()` of the round-major buffer (`start`
    /// and the window's length multiples of the piece).
    fn fill(&self, codes: &[u8], start: usize, window: &mut [u8]) {
        let p = self.piece();
        window
            .par_chunks_mut(p)
            .with_min_len(64)
            .enumerate()
            .for_each(|(i, piece)| {
                let at = start + i * p;
                let round = self.round_base[1..].partition_point(|&b| b as usize <= at);
                let g = self.group_rounds[1..].partition_point(|&f| f <= round);
                let r = round - self.group_rounds[g];
                let k = (at - self.round_base[round] as usize) / p;
                let c = &self.chunks[self.by_rank[self.group_chunks[g] + k]];
                let j = if c.backward { c.pieces - 1 - r } else { r };
                let lo = (j * p).max(c.pad);
                let hi = ((j + 1) * p).min(c.pad + c.len);
                if lo < hi {
                    let from = c.start + lo - c.pad;
                    piece[lo - j * p..hi - j * p].copy_from_slice(&codes[from..from + (hi - lo)]);
                }
            });
    }
}

/// The sketch of host sequences, the codes uploaded in rounds while the item kernel
/// already runs (module documentation); the default path (upload, sketch, download)
/// when there are no codes, or more rounds or chunks than the kernel's 32-bit fields
/// hold.
pub(super) fn tensor_sketch_host(
    backend: &CudaBackend,
    sequences: &SequenceColumn<Host>,
    plan: &SketchPlan,
) -> Result<SketchColumn<Host>> {
    check_sketch_args(sequences, plan)?;
    let n = sequences.len();
    let offsets: &[i64] = sequences.offsets();
    let default = || {
        let on_device = backend.to_device_sequences(sequences)?;
        let sketches = tensor_sketch(backend, &on_device, plan)?;
        SketchColumn::try_new(backend.download(sketches.values())?, plan.dim())
    };
    if n == 0 || offsets[n] == offsets[0] {
        return default();
    }
    let (ip, rounds) = ragged_core::trace::timed("sketch plan", || {
        let ip = item_plan(backend, offsets, plan);
        let total = (offsets[n] - offsets[0]) as usize;
        let mut first_wave = vec![false; ip.layout.items.len()];
        for &i in ip.by_cost.iter().take(ip.resident_items) {
            first_wave[i] = true;
        }
        let rounds = Rounds::new(&ip.layout, total, &first_wave);
        (ip, rounds)
    });
    if !rounds.addressable() {
        return default();
    }
    let run = Launch::new(backend, &ip, plan, n)?;
    let sorted = backend.upload_slice(&ip.kernel_words(|i, _| {
        let c = rounds.chunk_of_item[i];
        (rounds.item_start(c), rounds.chunks[c].pad as u32)
    }))?;
    let round_base = backend.upload_slice(&rounds.round_base)?;
    let buffer = backend.alloc::<u8>(rounds.bytes())?;
    let codes: &[u8] = sequences.codes();
    let fill = |start: usize, window: &mut [u8]| rounds.fill(codes, start, window);
    let progress = |end: usize| rounds.complete(end);
    let upload = StreamedUpload {
        dst: buffer.device_ptr(),
        len: rounds.bytes(),
        align: rounds.piece(),
        first_window: rounds.round_base[1] as usize,
        fill: &fill,
        progress: &progress,
    };
    // The progress word, then the status word the kernel sets when it gave up waiting.
    let ready = backend.alloc::<u32>(2)?;
    let streamed = || -> Result<Vec<f32>> {
        backend.upload_streamed(&upload, &ready, || {
            let source = CodeSource {
                codes: buffer.device_ptr(),
                round_base: round_base.device_ptr(),
                ready: ready.device_ptr(),
                piece_shift: rounds.shift as i32,
            };
            run.items(backend, &sorted, &source)
        })?;
        run.finish(backend)?;
        let values = backend.download_vec(&run.out)?;
        if backend.download_vec(&ready)?[1] != 0 {
            return Err(ragged_core::Error::Device {
                op: "tensor_sketch",
                message: "the sketch kernel gave up waiting for the codes' upload".into(),
            });
        }
        Ok(values)
    };
    let values = streamed()?;
    drop((sorted, round_base, buffer, ready));
    SketchColumn::try_new(ScalarBuffer::from(values), plan.dim())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code `i` of `item` where the item kernel reads it in the round-major buffer
    /// (`ItemCodes::at` in the kernel), and the round it waits for.
    fn kernel_at(rounds: &Rounds, item: usize, i: usize, layout: &SketchLayout) -> (usize, usize) {
        let c = rounds.chunk_of_item[item];
        let chunk = &rounds.chunks[c];
        let backward = layout.items[item].level == SketchItem::BACKWARD;
        let p = rounds.piece();
        let start = rounds.item_start(c);
        let (round0, rank) = ((start >> 32) as usize, (start & 0xffff_ffff) as usize);
        let y0 = if backward { chunk.pad } else { 0 };
        let pieces = (y0 + layout.items[item].len as usize).div_ceil(p);
        let y = y0 + i;
        let j = y >> rounds.shift;
        let r = round0 + if backward { pieces - 1 - j } else { j };
        (rounds.round_base[r] as usize + rank * p + (y & (p - 1)), r)
    }

    /// Every code of every item is where the kernel looks for it, in the round it waits
    /// for, which the progress counts once the window holding it is uploaded and not
    /// before.
    #[test]
    fn rounds_place_every_code_where_the_kernel_reads_it() {
        let mut state = 7u64;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for (chunk, t) in [(1usize, 4usize), (7, 4), (64, 3), (1000, 4), (50_000, 2)] {
            let mut offsets = vec![3i64];
            for _ in 0..60 {
                let len = match next(4) {
                    0 => 0,
                    1 => next(20),
                    2 => next(3000),
                    _ => next(200_000),
                } as i64;
                offsets.push(offsets[offsets.len() - 1] + len);
            }
            let total = (offsets[offsets.len() - 1] - offsets[0]) as usize;
            let codes: Vec<u8> = (0..offsets[offsets.len() - 1] + 5)
                .map(|_| next(251) as u8)
                .collect();
            let layout = sketch_layout(&offsets, t, chunk);
            let first_wave: Vec<bool> = (0..layout.items.len()).map(|_| next(3) == 0).collect();
            let rounds = Rounds::new(&layout, total, &first_wave);
            let p = rounds.piece();
            assert!(p.is_power_of_two() && (PIECE_MIN..=PIECE_MAX).contains(&p));
            let mut buffer = vec![0u8; rounds.bytes()];
            let mut start = 0;
            while start < buffer.len() {
                let len = ((1 + next(64) as usize) * p).min(buffer.len() - start);
                rounds.fill(&codes, start, &mut buffer[start..start + len]);
                start += len;
            }
            for (i, item) in layout.items.iter().enumerate() {
                // A first-wave item's chunk is uploaded in the first group.
                if first_wave[i] {
                    assert_eq!(rounds.group[rounds.chunk_of_item[i]], 0);
                }
                for k in 0..item.len as usize {
                    let (at, r) = kernel_at(&rounds, i, k, &layout);
                    assert_eq!(
                        buffer[at],
                        codes[item.start as usize + k],
                        "chunk {chunk} item {i} code {k}"
                    );
                    assert!(at >= rounds.round_base[r] as usize);
                    assert!(at < rounds.round_base[r + 1] as usize);
                    assert!(rounds.complete(rounds.round_base[r + 1] as usize) as usize > r);
                    assert!(rounds.complete(at) as usize <= r);
                }
            }
            let padded: usize = rounds.chunks.iter().map(|c| c.pieces * p - c.len).sum();
            let lengths: usize = rounds.chunks.iter().map(|c| c.len).sum();
            assert_eq!(rounds.bytes(), lengths + padded);
        }
    }
}
