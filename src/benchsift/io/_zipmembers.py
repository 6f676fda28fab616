"""Read members of a zip archive, including zstd-compressed ones (zip method 93), on any Python.

inspect-ai >= 0.3.206 writes its ``.eval`` logs with zstd-compressed members (``inspect_ai/_util/zipfile.py``:
``compression=ZIP_ZSTANDARD``, several zstd frames per member for large ones). Python's :mod:`zipfile`
reads method 93 only from 3.14 on. For the older Pythons the member's compressed bytes are located from
its local file header (PKWARE APPNOTE.TXT 4.3.7: signature ``PK\\x03\\x04``, 30 fixed bytes, then the file
name and the extra field) and decompressed with the ``zstandard`` package, frame after frame; the result
is checked against the central directory's size and CRC-32.

Bounds (issue 32): a member is read only when the size the central directory declares for it is at most
``max_member_bytes`` (default :data:`MAX_MEMBER_BYTES`, 256 MiB) and, above 1 MiB, at most ``max_ratio``
(default :data:`MAX_RATIO`, 200) times its compressed size; otherwise it is refused before a byte is
decompressed, in one line naming the file, the member, the limit and the parameter that raises it. The
declared size is also a hard stop: :mod:`zipfile` never returns more than it (and checks the CRC-32), and
the zstd path decompresses in 1 MiB steps and stops one byte past it. So a zip bomb costs at most the limit
in memory, whatever its members claim or hold. Real inspect members compress 3x to 20x.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

from benchsift.errors import FormatError

ZIP_ZSTANDARD = 93
#: largest decompressed size of one member that is read (bytes); ``max_member_bytes`` raises it
MAX_MEMBER_BYTES = 256 << 20
#: largest ratio of decompressed to compressed size of a member above :data:`RATIO_FLOOR` bytes
MAX_RATIO = 200.0
#: members no larger than this (decompressed) are read whatever their ratio: small files of repeated text
#: compress very well and cost nothing
RATIO_FLOOR = 1 << 20
_STEP = 1 << 20
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # APPNOTE 4.3.7, 30 bytes
_LOCAL_SIGNATURE = b"PK\x03\x04"


def check_member(
    path: Path,
    info: zipfile.ZipInfo,
    *,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_ratio: float = MAX_RATIO,
    hint: str | None = None,
) -> None:
    """Refuse member ``info`` of archive ``path`` when the size its directory entry declares is over the
    bounds (module docstring); the message says how to raise them: the parameter (``max_member_bytes``
    or ``max_ratio``), or ``hint`` where the caller has no such parameter."""
    where = f"{path}, member {info.filename}"
    size, packed = info.file_size, max(info.compress_size, 1)
    size_hint = hint or "raise the limit with `max_member_bytes`"
    ratio_hint = hint or "raise the limit with `max_ratio`"
    if size > max_member_bytes:
        raise FormatError(
            f"{where}: decompresses to {size:,} bytes, over the limit of {max_member_bytes:,} bytes per "
            f"member (a zip bomb, or a genuinely huge file: {size_hint})"
        )
    if size > RATIO_FLOOR and size > max_ratio * packed:
        raise FormatError(
            f"{where}: decompresses {size / packed:,.0f}x ({packed:,} -> {size:,} bytes), over the limit of "
            f"{max_ratio:g}x (a zip bomb, or very repetitive data: {ratio_hint})"
        )


def check_archive(
    zf: zipfile.ZipFile,
    path: Path,
    *,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_ratio: float = MAX_RATIO,
    hint: str | None = None,
) -> None:
    """:func:`check_member` on every member of ``zf`` (an archive read by another library, e.g. an Excel
    workbook read by openpyxl, which reads each member whole)."""
    for info in zf.infolist():
        check_member(path, info, max_member_bytes=max_member_bytes, max_ratio=max_ratio, hint=hint)


def read_member(
    zf: zipfile.ZipFile,
    path: Path,
    info: zipfile.ZipInfo,
    *,
    max_member_bytes: int = MAX_MEMBER_BYTES,
    max_ratio: float = MAX_RATIO,
) -> bytes:
    """The uncompressed bytes of member ``info`` of the open archive ``zf`` (file ``path``).

    Stored, deflate, bzip2 and lzma members go through :mod:`zipfile`; zstd members through
    :func:`_read_zstd` unless this Python's :mod:`zipfile` reads them itself. A damaged member is a
    :class:`FormatError` naming the file and the member; so is one over the bounds (:func:`check_member`).
    """
    where = f"{path}, member {info.filename}"
    check_member(path, info, max_member_bytes=max_member_bytes, max_ratio=max_ratio)
    if info.flag_bits & 0x1:
        raise FormatError(f"{where}: encrypted zip member")
    native = info.compress_type != ZIP_ZSTANDARD or getattr(zipfile, "ZIP_ZSTANDARD", None) == ZIP_ZSTANDARD
    try:
        if native:
            return zf.read(info)
        return _read_zstd(path, info, where)
    except NotImplementedError:
        raise FormatError(f"{where}: zip compression method {info.compress_type} is not supported") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise FormatError(f"{where}: damaged zip member ({exc})") from None


def _read_zstd(path: Path, info: zipfile.ZipInfo, where: str) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise FormatError(
            f"{where}: zstd-compressed member; install the 'zstandard' package (pip install zstandard)"
        ) from None
    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        head = fh.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != _LOCAL_SIGNATURE:
            raise FormatError(f"{where}: no local file header at offset {info.header_offset}")
        fields = _LOCAL_HEADER.unpack(head)
        name_len, extra_len = fields[-2], fields[-1]
        fh.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
        raw = fh.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise FormatError(f"{where}: truncated member ({len(raw)} of {info.compress_size} bytes)")
    out = bytearray()
    try:
        # frame after frame, 1 MiB at a time, stopping one byte past the declared size: a member whose
        # frames hold more than its directory entry says never costs more memory than that (plus a step)
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True) as reader:
            while len(out) <= info.file_size:
                chunk = reader.read(_STEP)
                if not chunk:
                    break
                out += chunk
    except zstandard.ZstdError as exc:
        raise FormatError(f"{where}: damaged zstd data ({exc})") from None
    if len(out) != info.file_size or zlib.crc32(out) != info.CRC:
        raise FormatError(f"{where}: size or CRC-32 does not match the zip directory (damaged member)")
    return bytes(out)
