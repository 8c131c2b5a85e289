//! `tensor_sketch` on the GPU: host dispatch for `kernels/sequences/tensor_sketch.cu`.
//!
//! The offsets come back to the host (`n + 1` values) to cut the sequences into chunk
//! items with `ragged_core::ops::sketch_layout` — the same plan as the CPU backend —
//! with as many items as the chip holds at once (long sequences are split so that no
//! single sequence sets the run time). The items, the phase table and the per-sequence item
//! runs are uploaded; `sketch_items_<t>_<reg|shared>` fills the raw chunk results and
//! `sketch_finish` turns each sequence's results into its sketch.

use ragged_core::ops::{
    check_sketch_args, sketch_layout, SequenceColumn, SketchColumn, SketchItem, SketchPlan,
};
use ragged_core::Result;

use crate::compile::SEQUENCES_TENSOR_SKETCH;
use crate::launch::{launch, params};
use crate::memory::Device;
use crate::CudaBackend;

/// Threads per block of the item kernel (`ITEM_BLOCK` in the kernel).
const ITEM_BLOCK: usize = 128;
/// Largest phase table copied to shared memory (with the carries, under the default
/// dynamic limit of 48 KiB).
const SHARED_TABLE_BYTES: usize = 40 * 1024;

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

pub(super) fn tensor_sketch(
    backend: &CudaBackend,
    sequences: &SequenceColumn<Device>,
    plan: &SketchPlan,
) -> Result<SketchColumn<Device>> {
    check_sketch_args(sequences, plan)?;
    let (t, dim, kc, a) = (
        plan.t(),
        plan.dim(),
        plan.frequencies(),
        plan.alphabet_size(),
    );
    let n = sequences.len();
    let out = backend.alloc::<f32>(n * dim)?;
    if n == 0 {
        return SketchColumn::try_new(out, dim);
    }
    let offsets = backend.download_vec(sequences.offsets())?;
    let total = (offsets[n] - offsets[0]) as usize;
    // Register phases exist for A <= 4 and t <= 8 (`RAGGED_SKETCH_ITEMS_VARIANT`).
    let register_table = a <= 4 && t <= 8;
    // Work units: (item, slice of at most 128 frequencies), `lanes` threads each.
    let slices = kc.div_ceil(ITEM_BLOCK);
    let lanes = kc.div_ceil(slices).div_ceil(32) * 32;
    let groups = ITEM_BLOCK / lanes;
    // Chunks sized so that the items fill the resident capacity of the chip.
    let sms = backend.info().multiprocessors.max(1) as usize;
    let resident_items = sms * min_blocks(t, register_table) * groups / slices;
    let chunk = plan.chunk_length_for(total, resident_items.max(1));
    let layout = sketch_layout(&offsets, t, chunk);
    // SketchItem is #[repr(C)] {i64, i64, i32, i32, i64}: four 8-byte words on the
    // little-endian device, level in the low half of the third.
    let words = |items: &mut dyn Iterator<Item = &SketchItem>| -> Vec<i64> {
        items
            .flat_map(|i| [i.start, i.len, i64::from(i.level as u32), i.slot])
            .collect()
    };
    // The finish reads the items in layout order; the item kernel gets them longest
    // first (blocks start in index order, so short items fill the tail of the last wave
    // instead of a long one extending it).
    let items = backend.upload_slice(&words(&mut layout.items.iter()))?;
    let mut by_cost: Vec<&SketchItem> = layout.items.iter().collect();
    by_cost.sort_by_key(|i| {
        let levels = if i.level < 0 { t } else { t - i.level as usize };
        std::cmp::Reverse(i.len as usize * levels)
    });
    let sorted = backend.upload_slice(&words(&mut by_cost.into_iter()))?;
    let first = backend.upload_slice(&layout.first)?;
    let phases: Vec<f32> = plan.phases().iter().flatten().copied().collect();
    let table = backend.upload_slice(&phases)?;
    let raw = backend.alloc::<f32>(layout.items.len() * (t + 1) * kc * 2)?;

    let n_items = layout.items.len() as i64;
    let table_bytes = phases.len() * 4;
    let use_shared = !register_table && table_bytes <= SHARED_TABLE_BYTES;
    let carry_bytes = ITEM_BLOCK * (t + 1) * 8;
    let shared = (carry_bytes + if use_shared { table_bytes } else { 0 }) as u32;
    let name = format!(
        "sketch_items_{t}_{}",
        if register_table { "reg" } else { "shared" }
    );
    let function = backend.function(&SEQUENCES_TENSOR_SKETCH, &name)?;
    let (codes_ptr, sorted_ptr, table_ptr, raw_ptr) = (
        sequences.codes().device_ptr(),
        sorted.device_ptr(),
        table.device_ptr(),
        raw.device_ptr(),
    );
    let (alphabet, k_count, lane_count, slice_count, shared_flag) = (
        a as i32,
        kc as i32,
        lanes as i32,
        slices as i32,
        i32::from(use_shared),
    );
    let mut args = params![
        codes_ptr,
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
    // One-dimensional grids: more than 2^32 - 1 blocks (items or sequences) is an error,
    // never a silent truncation.
    let too_many = |what: &str, count: usize| {
        ragged_core::Error::invalid_argument(
            "tensor_sketch",
            format!("{count} {what} exceed the GPU's grid of 2^32 - 1 blocks"),
        )
    };
    let blocks = (layout.items.len() * slices).div_ceil(groups);
    let grid = u32::try_from(blocks).map_err(|_| too_many("chunk items", blocks))?;
    let sequence_blocks = u32::try_from(n).map_err(|_| too_many("sequences", n))?;
    let block = ITEM_BLOCK as u32;
    // SAFETY: `sketch_items_<t>_<v>(const uint8_t*, const SketchItem*, long long, const
    // float2*, int, int, int, int, int, float2*)`: each item's codes lie inside the
    // column (the layout comes from its offsets), the table holds A × t × K entries (the
    // plan's), `raw` holds items × (t + 1) × K float2 (allocated above), the grid covers
    // items × slices units of `lanes` threads, and the dynamic shared memory holds the
    // block's carries plus the table when it is copied there.
    unsafe { launch(function, grid, block, shared, backend.stream(), &mut args)? };

    let finish = backend.function(&SEQUENCES_TENSOR_SKETCH, "sketch_finish")?;
    let (items_ptr, first_ptr, out_ptr) =
        (items.device_ptr(), first.device_ptr(), out.device_ptr());
    let (levels, dimension) = (t as i32, dim as i32);
    let mut args = params![raw_ptr, items_ptr, first_ptr, levels, k_count, dimension, out_ptr];
    let threads = (kc.max(dim).div_ceil(32) * 32).min(1024) as u32;
    // SAFETY: `sketch_finish(const float2*, const SketchItem*, const long long*, int, int,
    // int, float*)`: one block per sequence reads its items (first holds n + 1 item
    // positions) and their raw rows, keeps K double2 in dynamic shared memory, and
    // writes the sequence's D values of `out` (n × D, allocated above).
    unsafe {
        launch(
            finish,
            sequence_blocks,
            threads,
            (kc * 16) as u32,
            backend.stream(),
            &mut args,
        )?
    };
    // The uploads and the raw table are freed in stream order after the kernels.
    drop((items, sorted, first, table, raw));
    SketchColumn::try_new(out, dim)
}
