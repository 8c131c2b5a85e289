#!/usr/bin/env python3
"""Per kernel of CUBIN files: registers, and the SASS instructions that touch local
memory (LDL, STL) or go through generic addresses (LD.E, ST.E).

    scripts/sass-memory.py FILE.cubin... [--filter TEXT]

Needs nvdisasm: on PATH, at $NVDISASM, or from `pip install "nvidia-cuda-nvdisasm==13.*"`
(under nvidia/cu13/bin/ of the Python's site-packages). Local memory holds spills and
every array a thread indexes with a variable (a loop not unrolled); in a kernel whose
blocks take most of the shared memory the L1 beside it is small, and those loads go to
L2 (split's column kernel, PERFORMANCE v0.39). Generic loads of bytes staged in shared
memory mean the compiler could not see the pointer was shared (`TileRows::staged_bytes`
gives one it can). The cubins come from `cargo run -p ragged-cuda --example cubin`.
"""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig

KINDS = {"LDL": r"\bLDL\b", "STL": r"\bSTL\b", "LD.E": r"\bLD\.E", "ST.E": r"\bST\.E"}


def nvdisasm():
    """The nvdisasm to run, or None."""
    if os.environ.get("NVDISASM"):
        return os.environ["NVDISASM"]
    found = shutil.which("nvdisasm")
    if found:
        return found
    pattern = os.path.join(sysconfig.get_paths()["purelib"], "nvidia", "cu*", "bin", "nvdisasm")
    matches = sorted(glob.glob(pattern))
    return matches[-1] if matches else None


def cubin_registers():
    """cubin-registers.py beside this script, as a module."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("cubin_registers", os.path.join(here, "cubin-registers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counts(tool, path):
    """{kernel: {kind: count, "SASS": instructions}} of one cubin."""
    text = subprocess.run([tool, "-c", path], check=True, capture_output=True, text=True).stdout
    out, kernel = {}, None
    for line in text.splitlines():
        label = re.match(r"^(\w+):$", line)
        if label:
            kernel = label.group(1)
            out[kernel] = dict.fromkeys(list(KINDS) + ["SASS"], 0)
            continue
        if kernel is None or not re.search(r"/\*[0-9a-f]{4,}\*/", line):
            continue
        out[kernel]["SASS"] += 1
        for kind, pattern in KINDS.items():
            if re.search(pattern, line):
                out[kernel][kind] += 1
    return out


def main():
    registers = cubin_registers()
    args = registers.arguments(__doc__)
    tool = nvdisasm()
    if tool is None:
        sys.exit("sass-memory: no nvdisasm (PATH, $NVDISASM, or pip install nvidia-cuda-nvdisasm)")
    status = 0
    print(f"{'regs':>4} {'LDL':>4} {'STL':>4} {'LD.E':>5} {'ST.E':>5} {'SASS':>6}  kernel")
    for path in args.cubins:
        try:
            regs = registers.registers(path)
            found = counts(tool, path)
        except (OSError, ValueError, StopIteration, subprocess.CalledProcessError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 1
            continue
        for kernel, c in sorted(found.items()):
            if args.filter in kernel and kernel in regs:
                print(f"{regs[kernel]:>4} {c['LDL']:>4} {c['STL']:>4} {c['LD.E']:>5} {c['ST.E']:>5} "
                      f"{c['SASS']:>6}  {kernel}")
    return status


if __name__ == "__main__":
    sys.exit(main())
