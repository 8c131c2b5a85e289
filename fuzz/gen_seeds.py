#!/usr/bin/env python3
"""Seed inputs for the fuzz targets: small valid files of every format, written to
fuzz/seeds/<target>/ (not committed: scripts/fuzz.sh merges them, minimized, into
fuzz/corpus/<target>/, which is). Needs pyarrow. Run from anywhere:
    python3 fuzz/gen_seeds.py
"""
import gzip
import io
import os
import pathlib
import shutil

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parent
SEEDS = ROOT / "seeds"


def out(target, name, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def tables():
    """Small tables covering ragged's column types: ints, floats, bools, strings
    (plain, large, dictionary, view), lists and large lists, with nulls."""
    base = pa.table(
        {
            "i": pa.array([1, None, -3, 2**40, 0], pa.int64()),
            "f": pa.array([1.5, float("nan"), None, -0.0, 1e300], pa.float64()),
            "b": pa.array([True, None, False, True, False]),
            "s": pa.array(["a", "Grüße", None, "", "x" * 40]),
            "l": pa.array([[1, 2], None, [], [3, None], [4]], pa.list_(pa.int32())),
        }
    )
    yield "base", base
    yield "large", pa.table(
        {
            "s": pa.array(["ab", None, "c"], pa.large_string()),
            "l": pa.array([[1.0], [], None], pa.large_list(pa.float32())),
            "u8": pa.array([1, 2, None], pa.uint8()),
            "i16": pa.array([-1, None, 7], pa.int16()),
        }
    )
    yield "dict", pa.table(
        {"d": pa.array(["x", "y", "x", None, "y"]).dictionary_encode(), "n": pa.array(range(5))}
    )
    yield "nested", pa.table(
        {"ll": pa.array([[["a"], []], None, [["b", None]]], pa.list_(pa.list_(pa.string())))}
    )
    yield "empty", pa.table({"s": pa.array([], pa.string()), "i": pa.array([], pa.int64())})
    yield "nocols", pa.table({})
    try:
        yield "view", pa.table({"v": pa.array(["short", "a longer string than twelve", None], pa.string_view())})
    except Exception:
        pass
    yield "strlist", pa.table({"sl": pa.array([["a", "bc"], [], None, ["", None]], pa.list_(pa.string()))})


def parquet_seeds():
    for name, t in tables():
        for comp in ["none", "snappy", "zstd", "gzip", "lz4", "brotli"]:
            if comp not in ("none", "zstd") and name not in ("base", "dict"):
                continue
            buf = io.BytesIO()
            try:
                pq.write_table(t, buf, compression=comp)
            except Exception:
                continue
            out("parquet", f"{name}-{comp}.parquet", buf.getvalue())
    base = dict(tables())["base"]
    variants = {
        "rowgroups": dict(row_group_size=2),
        "v2pages": dict(data_page_version="2.0", compression="zstd"),
        "nodict": dict(use_dictionary=False),
        "nostats": dict(write_statistics=False),
        "smallpages": dict(data_page_size=16, row_group_size=3),
        "delta": dict(use_dictionary=False, column_encoding={"i": "DELTA_BINARY_PACKED", "s": "DELTA_LENGTH_BYTE_ARRAY"}),
        "bss": dict(use_dictionary=False, column_encoding={"f": "BYTE_STREAM_SPLIT"}),
        "v1": dict(version="1.0"),
    }
    for name, kw in variants.items():
        buf = io.BytesIO()
        try:
            pq.write_table(base, buf, **kw)
        except Exception as e:
            print("parquet", name, e)
            continue
        out("parquet", f"base-{name}.parquet", buf.getvalue())
    for p in (ROOT.parent / "examples" / "data").glob("*.parquet"):
        if p.stat().st_size <= 64 << 10:
            out("parquet", p.name, p.read_bytes())


def ipc_seeds():
    for name, t in tables():
        for comp in [None, "lz4", "zstd"]:
            if comp and name not in ("base", "dict"):
                continue
            opts = ipc.IpcWriteOptions(compression=comp)
            for kind, new in (("ipc_file", ipc.new_file), ("ipc_stream", ipc.new_stream)):
                sink = io.BytesIO()
                with new(sink, t.schema, options=opts) as w:
                    for batch in t.to_batches(max_chunksize=2):
                        w.write_batch(batch)
                ext = "arrow" if kind == "ipc_file" else "arrows"
                out(kind, f"{name}-{comp or 'none'}.{ext}", sink.getvalue())
    # Dictionary deltas and replacements across batches (streams), and a file with
    # dictionaries (deltas are not allowed in files).
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])
    b1 = pa.record_batch([pa.DictionaryArray.from_arrays(pa.array([0, 1, None]), pa.array(["a", "b"]))], schema=schema)
    b2 = pa.record_batch([pa.DictionaryArray.from_arrays(pa.array([2, 0]), pa.array(["a", "b", "c"]))], schema=schema)
    b3 = pa.record_batch([pa.DictionaryArray.from_arrays(pa.array([0]), pa.array(["z"]))], schema=schema)
    sink = io.BytesIO()
    with ipc.new_stream(sink, schema, options=ipc.IpcWriteOptions(emit_dictionary_deltas=True)) as w:
        w.write_batch(b1)
        w.write_batch(b2)
    out("ipc_stream", "dict-deltas.arrows", sink.getvalue())
    sink = io.BytesIO()
    with ipc.new_stream(sink, schema) as w:
        w.write_batch(b1)
        w.write_batch(b3)
    out("ipc_stream", "dict-replace.arrows", sink.getvalue())
    sink = io.BytesIO()
    with ipc.new_file(sink, schema) as w:
        w.write_batch(b1)
    out("ipc_file", "dict-one.arrow", sink.getvalue())
    # A file whose stream part is read as a stream, and the stream's end marker alone.
    out("ipc_stream", "eos-only.arrows", b"\xff\xff\xff\xff\x00\x00\x00\x00")


def csv_seeds():
    texts = {
        "simple": "a,b,c\n1,2.5,true\n3,,false\n",
        "quotes": 'name,note\n"Smith, J","said ""hi"""\n"multi\nline",""\n,x\n',
        "crlf": "x,y\r\n1,a\r\n2,b\r\n",
        "unicode": "größe,名前\n1,ü\n2,日本\n",
        "types": "i,f,b,s\n1,1.0,true,2024-01-01\n-9223372036854775808,1e308,false,-\n9223372036854775807,-0.5,TRUE,nan\n",
        "noheaderdata": "only,header\n",
        "noeol": "a\n1\n2",
        "emptyquoted": 'a,b\n"",""\n,\n',
        "wide": ",".join(f"c{i}" for i in range(20)) + "\n" + ",".join(str(i) for i in range(20)) + "\n",
        "ragged-bad": "a,b\n1\n1,2,3\n",
        "strayquote": 'a\nx"y\n',
    }
    for name, t in texts.items():
        out("csv", f"{name}.csv", t.encode())
    for name, t in tables():
        if name in ("base", "empty", "large"):
            sink = io.BytesIO()
            flat = t.select([c for c in t.column_names if not pa.types.is_list(t.schema.field(c).type) and not pa.types.is_large_list(t.schema.field(c).type)])
            try:
                pacsv.write_csv(flat, sink)
                out("csv", f"pyarrow-{name}.csv", sink.getvalue())
            except Exception as e:
                print("csv", name, e)


FASTA = {
    "basic": ">one\nACGT\nNNac\n>two\n>three desc\nacgtn\n",
    "blank": "\n\n>a\n\nAC\n\nGT\n\n>b\nT\n",
    "crlf": ">a\r\nACGT\r\nAC\r\n>b\r\nG\r\n",
    "protein": ">p1\nMKTAYIAKQR*\n>p2\nXBZ-acdefghiklmnpqrstvwy\n",
    "unicode": ">Grüße\nACGT\n",
    "long": ">l\n" + "ACGTTGCA" * 64 + "\n" + "acgt" * 40 + "\n",
}
FASTQ = {
    "basic": "@r1\nACGN\n+\nIIII\n@r2\nTT\n+r2\nII\n",
    "multiline": "@r1\nAC\nGT\n+\nII\nII\n@r2\n\n+\n\n",
    "crlf": "@r1\r\nACGT\r\n+\r\nIIII\r\n",
    "blank": "\n@r1\nA\n+\n#\n\n\n@r2 desc\nC\n+r2 desc\n~\n",
    "quality-at": "@r\nAA\n+\n@@\n",
    "bad-len": "@r1\nACG\n+\nII\n",
}


def seq_seeds():
    for name, t in FASTA.items():
        out("fasta", f"{name}.fa", t[1:].encode())  # the target puts '>' in front
    for name, t in FASTQ.items():
        text = t.lstrip("\n")
        out("fastq", f"{name}.fq", text[1:].encode())  # the target puts '@' in front
    for name, t in list(FASTA.items()) + list(FASTQ.items()):
        ext = "fa" if t.lstrip().startswith(">") else "fq"
        out("fasta_gzip", f"{name}.{ext}.gz", gzip.compress(t.encode(), mtime=0))
    # Several members, an empty member, a stored (level 0) member.
    two = gzip.compress(FASTA["basic"].encode(), mtime=0) + gzip.compress(FASTA["crlf"].encode(), mtime=0)
    out("fasta_gzip", "two-members.fa.gz", two)
    out("fasta_gzip", "empty-member.fa.gz", gzip.compress(b"", mtime=0) + gzip.compress(b">x\nA\n", mtime=0))
    out("fasta_gzip", "stored.fq.gz", gzip.compress(FASTQ["basic"].encode(), compresslevel=0, mtime=0))


def lines_seeds():
    # Header: flags (delimiter index | 0x10 custom | 0x20 keep | 0x40 binary),
    # chunk (1-64 bytes; 255: default), tile hint (0: none), range cut.
    texts = [
        b"alpha\nbeta\r\ngamma\n\n\r\nlast",
        b"a,b;c\td\x00e|f--\r\ng",
        b"aaaaabababab<><>abaaba\n\n\n\r\n\r\n\r\n",
        "Grüße\n日本語\nend\n".encode(),
        b"bad \xff utf8\nok\n\xc3\n",
        b"x" + b"-" * 62 + b"y" + b"rec" + b"a" * 70 + b"tail",
    ]
    n = 0
    for delim in range(16):
        for flags in (0, 0x20, 0x40):
            for chunk, tile, cut in ((3, 0, 128), (255, 1, 40)):
                text = texts[(delim + flags + chunk) % len(texts)]
                out("lines", f"seed-{n:03}", bytes([delim | flags, chunk, tile, cut]) + text)
                n += 1
    # Custom delimiters from the input.
    for d in (b"\xff", b"\r", b"ab", b"\n\r", b"END\n"):
        body = b"one" + d + b"two" + d + d + b"three\r\n" + d
        out("lines", f"seed-{n:03}", bytes([0x10, 5, 0, 100, len(d) - 1]) + d + body)
        n += 1


def main():
    if SEEDS.exists():
        shutil.rmtree(SEEDS)
    parquet_seeds()
    ipc_seeds()
    csv_seeds()
    seq_seeds()
    lines_seeds()
    for d in sorted(SEEDS.iterdir()):
        files = list(d.iterdir())
        print(f"{d.name}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
