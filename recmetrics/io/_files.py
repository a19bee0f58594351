"""What the readers and writers share: paths, compression, read errors, the atomic writer.

A reader checks its path (:func:`_path`), decompresses by the name's last
suffix and turns the errors of a file that cannot be read into one-line
errors naming it; a writer checks its target first (:func:`_target`) and
writes through :func:`_write_atomic` (a temporary file beside the target,
renamed over it once complete).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import secrets
import shutil
import zlib
from pathlib import Path

_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}


def _path(path, name="path"):
    if not isinstance(path, str | os.PathLike):
        raise TypeError(
            f"{name} must be a file path (str or os.PathLike), got {type(path).__name__}"
        )
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{name}: {str(p)!r} is a folder, not a file")
    if not p.is_file():
        raise FileNotFoundError(f"{name}: no such file: {str(p)!r}")
    return p


def _compression(p):
    return _COMPRESSED.get(p.suffix.lower())


def _read_errors():
    """The exceptions of a file that cannot be read or decompressed."""
    errors = [OSError, EOFError, lzma.LZMAError, zlib.error, UnicodeDecodeError]
    try:
        import zstandard
    except ImportError:
        pass
    else:
        errors.append(zstandard.ZstdError)
    return tuple(errors)


def _cannot_read(p, err):
    """A one-line ``ValueError`` for a file that cannot be read, naming it."""
    compression = _compression(p)
    if isinstance(err, UnicodeDecodeError):
        return ValueError(f"{p}: not UTF-8 text ({err})")
    how = f" as {compression}" if compression else ""
    return ValueError(f"{p}: cannot be read{how} ({type(err).__name__}: {err})")


def _missing_compressor(p, err):
    """A one-line ``ImportError`` naming the file and the package to install."""
    return ImportError(
        f"{p}: reading or writing .zst files needs the zstandard package "
        f"(pip install zstandard): {err}"
    )


# ---------------------------------------------------------------------------
# writing: the target checked first, then a temporary file renamed over it
def _target(path):
    """The file a writer replaces (symbolic links followed), checked before any work."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file path (str or os.PathLike), got {type(path).__name__}")
    p = Path(os.path.realpath(path))
    if p.is_dir():
        raise IsADirectoryError(f"path: {str(path)!r} is a folder, not a file")
    if not p.parent.is_dir():
        raise FileNotFoundError(f"path: no such folder: {str(p.parent)!r}")
    if _compression(p) == "zstd":
        try:
            import zstandard  # noqa: F401
        except ImportError as err:
            raise _missing_compressor(p, err) from None
    return p


def _compressor(compression, raw):
    if compression == "gzip":
        # mtime 0: the same rows give the same bytes
        return gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)
    if compression == "bz2":
        return bz2.BZ2File(raw, mode="wb")
    if compression == "xz":
        return lzma.LZMAFile(raw, mode="wb")
    import zstandard

    return zstandard.ZstdCompressor().stream_writer(raw, closefd=False)


def _write_atomic(target, blocks):
    """Write the text ``blocks`` to a new file beside ``target``, then rename it over.

    The temporary file is created exclusively (``O_EXCL``, with the usual
    permissions: mode 0o666 less the umask, or the target's mode if it
    exists), flushed to disk, and renamed with :func:`os.replace` (atomic
    on POSIX and Windows within one folder); on any error it is removed and
    the target is left as it was. A target that exists and is not a regular
    file (``/dev/stdout``, a named pipe) is written to directly: it cannot
    be replaced.
    """
    compression = _compression(target)
    if target.exists() and not target.is_file():
        with open(target, "wb") as raw:
            _write_blocks(raw, compression, blocks)
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
    try:
        with os.fdopen(fd, "wb") as raw:
            _write_blocks(raw, compression, blocks)
            os.fsync(raw.fileno())
        if target.exists():
            shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_blocks(raw, compression, blocks):
    """The text ``blocks`` into the binary file ``raw``, UTF-8, compressed if asked."""
    stream = raw if compression is None else _compressor(compression, raw)
    try:
        for block in blocks:
            stream.write(block.encode("utf-8"))
    finally:
        if stream is not raw:
            stream.close()
    raw.flush()
