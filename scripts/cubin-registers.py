#!/usr/bin/env python3
"""Registers per thread of each kernel in CUBIN files (the EIATTR_REGCOUNT records of
the ELF's .nv.info section), with no CUDA tool needed.

    scripts/cubin-registers.py FILE.cubin... [--filter TEXT]

The cubins come from `cargo run -p ragged-cuda --example cubin` (CONTRIBUTING:
inspecting kernels without a GPU). A block of 256 threads at R registers fits
65536 // (256 * R) times on an SM by registers (R rounded up to a multiple of 8).
"""
import argparse
import struct
import sys

EIATTR_REGCOUNT = 0x2F
EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4


def sections(data):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    found = []
    for i in range(shnum):
        name, _type, _flags, _addr, off, size, link, _info, _align, _entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        found.append([name, off, size, link])
    names = found[shstrndx]
    for s in found:
        s[0] = data[names[1] + s[0]:].split(b"\0")[0].decode()
    return found


def registers(path):
    """{kernel: registers} of one cubin."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    secs = sections(data)
    symtab = next(s for s in secs if s[0] == ".symtab")
    strtab = secs[symtab[3]]
    symbols = []
    for i in range(symtab[2] // 24):
        name = struct.unpack_from("<I", data, symtab[1] + i * 24)[0]
        symbols.append(data[strtab[1] + name:].split(b"\0")[0].decode())
    out = {}
    for s in secs:
        if s[0] != ".nv.info":
            continue
        p, end = s[1], s[1] + s[2]
        while p < end:
            fmt, attr = data[p], data[p + 1]
            if fmt == EIFMT_SVAL:
                size = struct.unpack_from("<H", data, p + 2)[0]
                if attr == EIATTR_REGCOUNT:
                    symbol, regs = struct.unpack_from("<II", data, p + 4)
                    out[symbols[symbol]] = regs
                p += 4 + size
            elif fmt == EIFMT_HVAL:
                p += 4
            elif fmt == EIFMT_BVAL:
                p += 4
            elif fmt == EIFMT_NVAL:
                p += 2
            else:
                raise ValueError(f"unknown .nv.info record format {fmt}")
    return out


def arguments(doc):
    """The command line of a cubin script: its cubins and --filter (`doc`: its help)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("cubins", nargs="+")
    parser.add_argument("--filter", default="", help="only kernels whose name contains this")
    return parser.parse_args()


def main():
    args = arguments(__doc__)
    status = 0
    for path in args.cubins:
        try:
            regs = registers(path)
        except (OSError, ValueError, StopIteration, struct.error) as e:
            print(f"{path}: {e or 'no symbol table'}", file=sys.stderr)
            status = 1
            continue
        for kernel, r in sorted(regs.items()):
            if args.filter in kernel:
                print(f"{r:4d}  {kernel}  ({path})")
    return status


if __name__ == "__main__":
    sys.exit(main())
