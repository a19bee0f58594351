"""A file's bytes in one array, for the compiled TREC reader (:mod:`._trec_fast`).

An uncompressed file is mapped (copy on write: a writable array that is
never written, the pages being the system's cache of the file); a
compressed one is decompressed into an array that grows as it fills. A
progress bar (tqdm, on standard error) counts the bytes on disk.
"""

from __future__ import annotations

import numpy as np

_READ_BLOCK = 1 << 24  # bytes per read (the progress bar moves per block)


def _read_all(p, compression, progress):
    """The file's (decompressed) bytes in a writable uint8 array."""
    import contextlib

    size = p.stat().st_size
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=size, desc=p.name, unit="B", unit_scale=True)
    if compression is None and size > 0:
        with open(p, "rb") as raw, bar if bar is not None else contextlib.nullcontext():
            arr = _mapped(raw)
            if bar is not None:
                bar.update(size)
            return arr
    with open(p, "rb") as raw, bar if bar is not None else contextlib.nullcontext():
        counted = raw if bar is None else _Counted(raw, bar)
        stream = counted if compression is None else _decompressing(counted, compression)
        cap = size + 1 if compression is None else 4 * size + (1 << 16)
        arr = np.empty(cap, dtype=np.uint8)
        pos = 0
        while True:
            if pos == arr.shape[0]:
                grown = np.empty(2 * arr.shape[0], dtype=np.uint8)
                grown[:pos] = arr
                arr = grown
            got = stream.readinto(memoryview(arr)[pos : pos + _READ_BLOCK])
            if not got:
                break
            pos += got
    return arr[:pos]


def _mapped(raw):
    """The bytes of an uncompressed file, mapped (copy on write: writable, never written).

    No copy and no zeroed memory: the pages are the operating system's cache
    of the file, all mapped at once where it allows (``MAP_POPULATE``).
    """
    import mmap

    if hasattr(mmap, "MAP_PRIVATE"):
        flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_POPULATE", 0)
        mapped = mmap.mmap(raw.fileno(), 0, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    else:  # pragma: no cover - Windows
        mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_COPY)
    return np.frombuffer(mapped, dtype=np.uint8)


def _decompressing(raw, compression):
    """A binary reader of the decompressed bytes of ``raw``."""
    if compression == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "bz2":
        import bz2

        return bz2.BZ2File(raw, mode="rb")
    if compression == "xz":
        import lzma

        return lzma.LZMAFile(raw, mode="rb")
    import io

    import zstandard

    return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))


class _Counted:
    """A binary file whose reads move a progress bar (over the bytes on disk)."""

    def __init__(self, raw, bar):
        self.raw, self.bar = raw, bar

    def read(self, n=-1):
        data = self.raw.read(n)
        self.bar.update(len(data))
        return data

    def readinto(self, b):
        got = self.raw.readinto(b)
        self.bar.update(got or 0)
        return got

    def __getattr__(self, name):
        return getattr(self.raw, name)
