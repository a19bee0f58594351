"""The fast path of the TREC readers: one compiled pass over the bytes of a well-formed file.

:func:`read_fast` maps the file into memory (a compressed one is read,
decompressed, into one byte array) and tokenizes it with numba, by the
rules of pandas' C parser that the general reader
(:func:`recmetrics.io.trec._read_fields`) uses: fields are
separated by runs of spaces and tabs (leading and trailing ones ignored),
lines end in ``\\n``, ``\\r\\n`` or ``\\r``, lines of whitespace only are
skipped, a UTF-8 byte order mark at the start is skipped, and ``#`` is an
ordinary character. Ids (query, document, tag) are coded in the same pass
(a hash table over their bytes), so that each distinct id becomes one
string, and the column is that string array taken by the codes (Arrow);
integers and decimal numbers are parsed in the pass too: an integer of at
most 15 digits exactly, a decimal number of at most 19 significant digits
and a power of ten up to 22 by one correctly rounded multiplication or
division (Clinger's fast path), and any other decimal number by Python's
:class:`float` (correctly rounded, as pandas' ``to_numeric``). A repeated
(query, document) pair is looked for in the codes, one run of a query's
lines at a time. Memory: the file's bytes (the system's cache of the file,
for a mapped one), the parsed rows, and the frame.

It returns None, and the caller takes the general reader, whenever the
file is not plainly well formed: a line with the wrong number of fields, a
number in another spelling (``1.0`` as a rank, ``inf``, ``-0``, ``1e400``),
a control character other than a tab, a repeated (query, document) pair,
text that is not UTF-8, a file that cannot be read or decompressed. The
general reader then reads the file again and raises its own error naming
the file and the line (or accepts the odd spelling), so that every error
and every value is the same as without this module; without numba or
pyarrow the general reader is the only one. (As for any mapped file, a
file truncated by another process while it is read ends the process.)
"""

from __future__ import annotations

import numpy as np

from .._kernels import _dispatch
from .._kernels._dispatch import HAVE_NUMBA, numba
from ._bytes import _read_all

# what each field of a line is: skipped, an id (coded), an integer, a decimal number
SKIP, ID, INT, FLOAT = 0, 1, 2, 3
# A smaller file (on disk) takes the fast path only once its kernels are compiled
# (numba's cache): compiling them takes longer than pandas' parser on it (about
# 0.3 s for 100,000 lines). As recmetrics._kernels' small inputs do; off in tests
# with _dispatch._SMALL_TO_NUMPY = False.
_SMALL_BYTES = 1 << 22

if HAVE_NUMBA:

    @numba.njit(cache=True, nogil=True)
    def _float_of(buf, s, e, pow10):  # pragma: no cover
        # (status, value): 0 exact here, 1 for float(), 2 not plain (the general reader)
        i = s
        neg = False
        if buf[i] == 43 or buf[i] == 45:  # + -
            neg = buf[i] == 45
            i += 1
        m = np.uint64(0)  # the digits of the mantissa as an integer (if at most 19)
        sig = 0  # significant digits (from the first nonzero one)
        frac = 0  # digits after the point
        digits = 0
        point = False
        while i < e:
            c = buf[i]
            if 48 <= c <= 57:
                digits += 1
                if sig > 0 or c != 48:
                    sig += 1
                    if sig <= 19:
                        m = m * np.uint64(10) + np.uint64(c - 48)
                if point:
                    frac += 1
                i += 1
            elif c == 46 and not point:  # .
                point = True
                i += 1
            else:
                break
        if digits == 0:
            return 2, 0.0
        exp = 0
        spelled = point  # a point or an exponent: a decimal, not an integer
        if i < e and (buf[i] == 101 or buf[i] == 69):  # e E
            spelled = True
            i += 1
            eneg = False
            if i < e and (buf[i] == 43 or buf[i] == 45):
                eneg = buf[i] == 45
                i += 1
            n_exp = 0
            while i < e and 48 <= buf[i] <= 57:
                if n_exp < 6:
                    exp = exp * 10 + (buf[i] - 48)
                n_exp += 1
                i += 1
            if n_exp == 0:
                return 2, 0.0
            if n_exp >= 6:
                return (2, 0.0) if i != e else (1, 0.0)
            if eneg:
                exp = -exp
        if i != e:
            return 2, 0.0
        if sig == 0:
            # zero: -0.0 as pandas reads a decimal; an integer -0 it reads as 0 when
            # every number of the chunk is an integer, else -0.0: the general reader
            if not neg:
                return 0, 0.0
            return (0, -0.0) if spelled else (2, 0.0)
        p = exp - frac
        if sig > 19 or m >= np.uint64(1 << 53) or p < -22 or p > 22:
            return 1, 0.0
        v = float(m)
        v = v * pow10[p] if p >= 0 else v / pow10[-p]
        return 0, -v if neg else v

    @numba.njit(cache=True, nogil=True)
    def _int_of(buf, s, e):  # pragma: no cover
        # (ok, value): at most 15 digits after an optional sign
        i = s
        neg = False
        if buf[i] == 43 or buf[i] == 45:
            neg = buf[i] == 45
            i += 1
        if i == e or e - i > 15:
            return False, 0
        v = 0
        while i < e:
            c = buf[i]
            if c < 48 or c > 57:
                return False, 0
            v = v * 10 + (c - 48)
            i += 1
        return True, -v if neg else v

    @numba.njit(cache=True, nogil=True)
    def _same2(a, s1, n1, buf, s2, n2):  # pragma: no cover
        # whether a[s1:s1 + n1] holds the bytes buf[s2:s2 + n2]
        if n1 != n2:
            return False
        for k in range(n1):
            if a[s1 + k] != buf[s2 + k]:
                return False
        return True

    @numba.njit(cache=True, nogil=True)
    def _scan(buf, kinds, slot, state, codes, ints, floats, slow, ids):  # pragma: no cover
        """Tokenize, code the ids and parse the numbers, from where ``state`` says.

        ``state`` is (byte, row, numbers for float(), beyond ASCII). Returns 0
        (done), 1 (fall back) or 3 (an array of ``ids`` is full: grow it, then
        call again; the line is read again).

        ``ids = (table, d_start, d_len, d_field, d_code, n_distinct, last, arena)``:
        one hash table of the distinct ids of every id field (the field is part
        of the key), each distinct id's place and length in the arena (their
        bytes, one after the other, small enough to be compared in cache), its
        field and its code in the field; the number of distinct ids per field,
        and the distinct id of each field's previous row. ``state[4]`` and
        ``state[5]`` count the distinct ids and the arena's bytes in use.
        """
        table, d_start, d_len, d_field, d_code, n_distinct, last, arena = ids
        n_fields = kinds.shape[0]
        pow10 = np.empty(23, dtype=np.float64)
        pow10[0] = 1.0
        for k in range(1, 23):
            pow10[k] = pow10[k - 1] * 10.0
        f_start = np.empty(n_fields, dtype=np.int64)
        f_end = np.empty(n_fields, dtype=np.int64)
        # byte classes: 0 text, 1 space or tab, 2 line end, 3 another control
        # character, 4 beyond ASCII
        cls = np.zeros(256, dtype=np.uint8)
        for c in range(32):
            cls[c] = 3
        cls[127] = 3
        for c in range(128, 256):
            cls[c] = 4
        cls[32] = 1
        cls[9] = 1
        cls[10] = 2
        cls[13] = 2
        size = table.shape[0]
        room = d_start.shape[0]
        a_room = arena.shape[0]
        s_room = slow.shape[1]
        n = buf.shape[0]
        pos, row, n_slow, high = state[0], state[1], state[2], state[3]
        n_all, a_used = state[4], state[5]
        status = 0
        while pos < n:
            line = pos
            nf = 0
            # one line: fields separated by runs of spaces and tabs
            while pos < n:
                k = cls[buf[pos]]
                if k == 1:
                    pos += 1
                    continue
                if k == 2:
                    break
                if nf == n_fields:
                    status = 1
                    break
                f_start[nf] = pos
                while pos < n:
                    k = cls[buf[pos]]
                    if k != 0:
                        if k <= 2:
                            break
                        if k == 3:
                            status = 1
                        else:
                            high = 1
                    pos += 1
                f_end[nf] = pos
                nf += 1
            if status != 0:
                break
            # the line's end: \n, \r\n or \r
            if pos < n:
                if buf[pos] == 13 and pos + 1 < n and buf[pos + 1] == 10:
                    pos += 1
                pos += 1
            if nf == 0:
                continue
            if nf != n_fields:
                status = 1
                break
            n_new = 0
            for j in range(n_fields):
                kind = kinds[j]
                s, e = f_start[j], f_end[j]
                if kind == 1:
                    idn = slot[j]
                    ln = e - s
                    p = last[idn]
                    if p >= 0 and _same2(arena, d_start[p], d_len[p], buf, s, ln):
                        codes[idn, row] = d_code[p]
                        continue
                    h = np.uint64(14695981039346656037) ^ np.uint64(idn)
                    for k in range(s, e):
                        h = (h ^ np.uint64(buf[k])) * np.uint64(1099511628211)
                    at = np.int64(h & np.uint64(size - 1))
                    while True:
                        q = table[at]
                        if q < 0:
                            q = n_all
                            if q == room or a_used + ln > a_room or 2 * (q + 1) > size:
                                state[6] = a_used + ln  # the arena's bytes needed
                                status = 3
                                break
                            d_start[q] = a_used
                            d_len[q] = ln
                            d_field[q] = idn
                            d_code[q] = n_distinct[idn]
                            for k in range(ln):
                                arena[a_used + k] = buf[s + k]
                            a_used += ln
                            n_distinct[idn] += 1
                            n_all += 1
                            table[at] = q
                            break
                        if d_field[q] == idn and _same2(arena, d_start[q], d_len[q], buf, s, ln):
                            break
                        at = (at + 1) & (size - 1)
                    if status != 0:
                        break
                    codes[idn, row] = d_code[q]
                    last[idn] = q
                elif kind == 2:
                    ok, v = _int_of(buf, s, e)
                    if not ok:
                        status = 1
                        break
                    ints[slot[j], row] = v
                elif kind == 3:
                    how, x = _float_of(buf, s, e, pow10)
                    if how == 2:
                        status = 1
                        break
                    if how == 1:
                        if n_slow + n_new == s_room:
                            status = 3
                            break
                        slow[0, n_slow + n_new] = slot[j]
                        slow[1, n_slow + n_new] = row
                        slow[2, n_slow + n_new] = s
                        slow[3, n_slow + n_new] = e
                        n_new += 1
                        x = np.nan
                    floats[slot[j], row] = x
            if status != 0:
                if status == 3:
                    pos = line  # read the line again once the arrays have grown
                break
            n_slow += n_new
            row += 1
        state[0], state[1], state[2], state[3] = pos, row, n_slow, high
        state[4], state[5] = n_all, a_used
        return status

    @numba.njit(cache=True, nogil=True)
    def _grown(arena, size, d_start, d_len, d_field, n_all):  # pragma: no cover
        # a hash table of ``size`` slots holding the ``n_all`` distinct ids
        table = np.full(size, -1, dtype=np.int64)
        for q in range(n_all):
            h = np.uint64(14695981039346656037) ^ np.uint64(d_field[q])
            for k in range(d_start[q], d_start[q] + d_len[q]):
                h = (h ^ np.uint64(arena[k])) * np.uint64(1099511628211)
            at = np.int64(h & np.uint64(size - 1))
            while table[at] >= 0:
                at = (at + 1) & (size - 1)
            table[at] = q
        return table

    @numba.njit(cache=True, nogil=True)
    def _gather(arena, starts, lengths):  # pragma: no cover
        # the bytes of the given distinct ids, one after the other, and their offsets
        offsets = np.zeros(starts.shape[0] + 1, dtype=np.int64)
        for q in range(starts.shape[0]):
            offsets[q + 1] = offsets[q] + lengths[q]
        data = np.empty(offsets[-1], dtype=np.uint8)
        for q in range(starts.shape[0]):
            data[offsets[q] : offsets[q + 1]] = arena[starts[q] : starts[q] + lengths[q]]
        return offsets, data

    @numba.njit(cache=True, nogil=True)
    def _line_ends(buf):  # pragma: no cover
        # the bytes \n and \r: at least the number of lines less one
        n = 0
        for i in range(buf.shape[0]):
            c = buf[i]
            n += (c == 10) | (c == 13)
        return n

    @numba.njit(cache=True, nogil=True)
    def _repeats(users, items, n_users, n_items):  # pragma: no cover
        # whether a (user, item) pair occurs twice: per run of one user's rows, the
        # items seen in the run; a user met again after its run is checked in full
        seen = np.full(n_items, -1, dtype=np.int64)
        done = np.zeros(n_users, dtype=np.bool_)
        run = -1
        prev = -1
        for r in range(users.shape[0]):
            u = users[r]
            if u != prev:
                if done[u]:
                    return True, False  # not grouped: sort the pairs instead
                if prev >= 0:
                    done[prev] = True
                run += 1
                prev = u
            i = items[r]
            if seen[i] == run:
                return True, True
            seen[i] = run
        return False, True


def _slots(kinds):
    """Each field's row in the arrays of its kind."""
    seen = [0, 0, 0, 0]
    slots = []
    for kind in kinds:
        slots.append(seen[kind])
        seen[kind] += 1
    return np.array(slots, dtype=np.int64), seen


def _wider(a):
    """A 2-d array with twice the columns, the first ones copied."""
    out = np.empty((a.shape[0], 2 * a.shape[1]), dtype=a.dtype)
    out[:, : a.shape[1]] = a
    return out


def _longer(a, used, at_least=0):
    """A 1-d array twice as long (or ``at_least``), its first ``used`` values copied."""
    out = np.empty(max(2 * a.shape[0], at_least), dtype=a.dtype)
    out[:used] = a[:used]
    return out


def _worth_it(size):
    """Whether to take the fast path for a file of ``size`` bytes (announcing a compilation)."""
    if size < _SMALL_BYTES and _dispatch._SMALL_TO_NUMPY:
        return _dispatch._ready(_scan, _scan_args(np.zeros(1, dtype=np.uint8), [ID], 1, 0))
    if not _dispatch._ready(_scan, _scan_args(np.zeros(1, dtype=np.uint8), [ID], 1, 0)):
        _dispatch._announce_compile()
    return True


def _scan_args(buf, kinds, n_max, start):
    """The arguments of :func:`_scan` at the start of the file."""
    kinds = np.asarray(kinds, dtype=np.int64)
    slot, count = _slots(kinds)
    n_ids = count[ID]
    codes = np.empty((n_ids, n_max), dtype=np.int32)
    ints = np.empty((count[INT], n_max), dtype=np.int64)
    floats = np.empty((count[FLOAT], n_max), dtype=np.float64)
    slow = np.empty((4, 1024), dtype=np.int64)  # numbers for float(): (slot, row, start, end)
    table = np.full(1 << 12, -1, dtype=np.int64)
    d_start = np.empty(1 << 11, dtype=np.int64)
    d_len = np.empty(1 << 11, dtype=np.int64)
    d_field = np.empty(1 << 11, dtype=np.int64)
    d_code = np.empty(1 << 11, dtype=np.int64)
    n_distinct = np.zeros(n_ids, dtype=np.int64)
    last = np.full(n_ids, -1, dtype=np.int64)
    arena = np.empty(1 << 16, dtype=np.uint8)
    # byte, row, numbers for float(), beyond ASCII, distinct ids, arena bytes in use
    # and the arena's bytes needed when it was full
    state = np.array([start, 0, 0, 0, 0, 0, 0], dtype=np.int64)
    ids = (table, d_start, d_len, d_field, d_code, n_distinct, last, arena)
    return buf, kinds, slot, state, codes, ints, floats, slow, ids


def _scan_all(buf, start, kinds, n_max):
    """:func:`_scan` over the whole file, growing its arrays as it needs."""
    args = _scan_args(buf, kinds, n_max, start)
    _, kinds, slot, state, codes, ints, floats, slow, ids = args
    table, d_start, d_len, d_field, d_code, n_distinct, last, arena = ids
    while True:
        ids = (table, d_start, d_len, d_field, d_code, n_distinct, last, arena)
        status = _scan(buf, kinds, slot, state, codes, ints, floats, slow, ids)
        if status != 3:
            break
        n_all, a_used = int(state[4]), int(state[5])
        if n_all >= d_start.shape[0] - 1:
            d_start, d_len, d_field, d_code = (
                _longer(a, n_all) for a in (d_start, d_len, d_field, d_code)
            )
        if state[6] > arena.shape[0] or a_used > arena.shape[0] // 2:
            arena = _longer(arena, a_used, int(state[6]))
        if 4 * (n_all + 1) > table.shape[0]:
            table = _grown(arena, 2 * table.shape[0], d_start, d_len, d_field, n_all)
        if state[2] + kinds.shape[0] >= slow.shape[1]:
            slow = _wider(slow)
    n, n_slow, high = int(state[1]), int(state[2]), bool(state[3])
    n_all = int(state[4])
    ids = (d_start[:n_all], d_len[:n_all], d_field[:n_all], n_distinct, arena, high)
    return status, n, codes, ints, floats, slow[:, :n_slow], ids


def read_fast(p, fields, kinds, compression, progress, categorical=False):
    """The columns of a well-formed TREC file, or None (then the general reader decides).

    ``kinds`` gives each field's kind (``SKIP``, ``ID``, ``INT``, ``FLOAT``);
    returns a dict field -> column (pandas' ``str`` for ids, int64, float64)
    for the fields that are not skipped. With ``categorical=True`` the ids
    are categorical columns of the same strings instead (the codes of the
    scan, categories in order of first appearance): nothing is copied per
    row, and :func:`recmetrics.from_frames` codes them without hashing rows.
    """
    if not HAVE_NUMBA:
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pinned beside pandas
        return None
    import pandas as pd

    # the ids' dtype of the general reader (astype(str)): pandas' strings in Arrow
    dtype = pd.Series(["a"]).astype(str).dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    try:
        if not _worth_it(p.stat().st_size):
            return None
        buf = _read_all(p, compression, progress)
    except Exception:  # the general reader names what is wrong with the file
        return None
    start = 3 if buf[:3].tobytes() == b"\xef\xbb\xbf" else 0
    n_max = _line_ends(buf) + 1
    status, n, codes, ints, floats, slow, ids = _scan_all(buf, start, kinds, n_max)
    if status == 1 or n == 0:  # n == 0: the general reader gives the empty frame
        return None
    if ids[-1]:  # text beyond ASCII: all of it must be UTF-8
        try:
            buf[start:].tobytes().decode("utf-8")
        except UnicodeDecodeError:
            return None
    d_start, d_len, d_field, n_distinct, arena, _ = ids
    slots, _ = _slots(kinds)
    for f, row, s, e in slow.T.tolist():
        floats[f, row] = float(buf[s:e].tobytes())
    if not np.isfinite(floats[:, :n]).all():
        return None
    names = list(fields)
    if "user" in names and "item" in names:
        u, i = slots[names.index("user")], slots[names.index("item")]
        users, n_users = codes[u, :n], n_distinct[u]
        if "group" in names:  # qrels_jg: a document is judged once per (query, group)
            g = slots[names.index("group")]
            users, n_users = _pair_codes(users, codes[g, :n], n_distinct[g])
        if _repeated(users, codes[i, :n], n_users, n_distinct[i]):
            return None
    strings = []
    for idn in range(codes.shape[0]):
        mine = d_field == idn  # in the order of their codes
        offsets, data = _gather(arena, d_start[mine], d_len[mine])
        strings.append(
            pa.LargeStringArray.from_buffers(
                int(n_distinct[idn]), pa.py_buffer(offsets), pa.py_buffer(data)
            )
        )
    del buf
    out = {}
    for j, kind in enumerate(kinds):
        if kind == ID and categorical:
            categories = pd.Index(pd.array(strings[slots[j]], dtype=dtype))
            out[names[j]] = pd.Categorical.from_codes(
                codes[slots[j], :n], dtype=pd.CategoricalDtype(categories)
            )
        elif kind == ID:
            column = strings[slots[j]].take(pa.array(codes[slots[j], :n]))
            out[names[j]] = pd.array(column, dtype=dtype)
        elif kind == INT:
            out[names[j]] = ints[slots[j], :n]  # a view: the rows beyond n are few
        elif kind == FLOAT:
            out[names[j]] = floats[slots[j], :n]
    return out


def _pair_codes(users, groups, n_groups):
    """Codes (int32, as the scan's) of the (user, group) pairs, and how many there are."""
    key = users.astype(np.int64) * int(n_groups) + groups
    distinct, inverse = np.unique(key, return_inverse=True)
    return inverse.astype(np.int32), distinct.shape[0]


def _repeated(users, items, n_users, n_items):
    """Whether a (user, item) pair (as codes) occurs twice."""
    found, grouped = _repeats(users, items, int(n_users), int(n_items))
    if grouped:
        return found
    key = users.astype(np.int64) * int(n_items) + items
    key.sort()
    return bool(key.shape[0] > 1 and (key[1:] == key[:-1]).any())
