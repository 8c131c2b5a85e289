#!/usr/bin/env python3
"""Where one kernel launch's instructions and stalls go, phase by phase: the SASS
between the kernel's block barriers (BAR.SYNC / BAR.RED), from Nsight Compute's
source page.

    ncu --import REPORT.ncu-rep --page source --csv --print-source sass > K.csv
    scripts/ncu-phases.py K.csv [--rows N] [--hot K]

The report needs the SourceCounters section (gpu-run.sh phases takes it). For each
phase: its SASS lines, the warp instructions it issued (per 32 rows when --rows gives
the launch's rows), the share of lanes active in them, its share of the stall samples
and its four largest stall reasons (points of all samples). --hot K lists the K
instructions with the most samples. PERFORMANCE v0.38 reads replace and redact this
way.
"""
import argparse
import csv
import gzip
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return 0.0


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        lines = f.read().splitlines()
    # The first line names the kernel; the header follows.
    start = next(i for i, line in enumerate(lines) if line.startswith('"Address"'))
    return lines[0], list(csv.DictReader(lines[start:]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="ncu --page source --csv --print-source sass output (or .gz)")
    parser.add_argument("--rows", type=float, help="the launch's rows: counts per 32 rows")
    parser.add_argument("--hot", type=int, default=0, help="list the K most sampled instructions")
    args = parser.parse_args()
    title, sass = read(args.csv)
    if not sass or "Instructions Executed" not in sass[0]:
        sys.exit("ncu-phases: no SASS counters in this file (profile with --section SourceCounters)")
    samples_key = "Warp Stall Sampling (All Samples)"
    stalls = [k for k in sass[0] if k.startswith("stall_") and "Not Issued" not in k]
    total_samples = sum(number(r[samples_key]) for r in sass) or 1.0
    scale = 32.0 / args.rows if args.rows else 1.0
    unit = "per 32 rows" if args.rows else "total"
    phases, current = [], []
    for r in sass:
        current.append(r)
        if "BAR.SYNC" in r["Source"] or "BAR.RED" in r["Source"]:
            phases.append(current)
            current = []
    if current:
        phases.append(current)
    warp = sum(number(r["Instructions Executed"]) for r in sass)
    thread = sum(number(r["Thread Instructions Executed"]) for r in sass)
    print(title.strip(",").replace('"', ""))
    print(f"warp instructions {unit}: {warp * scale:.1f}; lanes active {thread / warp / 32 if warp else 0:.2f}")
    print(f"{'phase':>5} {'SASS':>6} {'warp instr':>11} {'lanes':>6} {'samples':>8}  largest stalls (points)")
    for i, phase in enumerate(phases):
        w = sum(number(r["Instructions Executed"]) for r in phase)
        t = sum(number(r["Thread Instructions Executed"]) for r in phase)
        s = sum(number(r[samples_key]) for r in phase)
        reasons = sorted(((sum(number(r[k]) for r in phase), k) for k in stalls), reverse=True)[:4]
        top = " ".join(f"{k[len('stall_'):]}={100 * v / total_samples:.1f}" for v, k in reasons if v > 0)
        print(f"{i:>5} {len(phase):>6} {w * scale:>11.1f} {t / w / 32 if w else 0:>6.2f} {100 * s / total_samples:>7.1f}%  {top}")
    if args.hot:
        print("most sampled instructions:")
        for r in sorted(sass, key=lambda r: -number(r[samples_key]))[: args.hot]:
            print(f"  {r['Address'][-5:]}  {r['Source'].strip()[:64]:<64} {100 * number(r[samples_key]) / total_samples:5.1f}%")


if __name__ == "__main__":
    main()
