"""Read members of a zip archive, including zstd-compressed ones (zip method 93), on any Python.

inspect-ai >= 0.3.206 writes its ``.eval`` logs with zstd-compressed members (``inspect_ai/_util/zipfile.py``:
``compression=ZIP_ZSTANDARD``, several zstd frames per member for large ones). Python's :mod:`zipfile`
reads method 93 only from 3.14 on. For the older Pythons the member's compressed bytes are located from
its local file header (PKWARE APPNOTE.TXT 4.3.7: signature ``PK\\x03\\x04``, 30 fixed bytes, then the file
name and the extra field) and decompressed with the ``zstandard`` package, frame after frame; the result
is checked against the central directory's size and CRC-32.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from benchsift.errors import FormatError

ZIP_ZSTANDARD = 93
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # APPNOTE 4.3.7, 30 bytes
_LOCAL_SIGNATURE = b"PK\x03\x04"


def read_member(zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo) -> bytes:
    """The uncompressed bytes of member ``info`` of the open archive ``zf`` (file ``path``).

    Stored, deflate, bzip2 and lzma members go through :mod:`zipfile`; zstd members through
    :func:`_read_zstd` unless this Python's :mod:`zipfile` reads them itself. A damaged member is a
    :class:`FormatError` naming the file and the member.
    """
    where = f"{path}, member {info.filename}"
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
    data = raw
    try:
        while data:  # one zstd frame after another
            dobj = zstandard.ZstdDecompressor().decompressobj()
            out += dobj.decompress(data)
            if not dobj.eof:
                raise FormatError(f"{where}: truncated zstd frame")
            data = dobj.unused_data
            if len(out) > info.file_size:
                break
    except zstandard.ZstdError as exc:
        raise FormatError(f"{where}: damaged zstd data ({exc})") from None
    if len(out) != info.file_size or zlib.crc32(out) != info.CRC:
        raise FormatError(f"{where}: size or CRC-32 does not match the zip directory (damaged member)")
    return bytes(out)
