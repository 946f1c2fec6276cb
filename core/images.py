"""Images a student uploads, made safe to use: validate, decode, convert to RGB, resize.

An upload is untrusted bytes. :func:`load_image` accepts only PNG and JPEG (recognised by
their content, never by the file name), at most :data:`MAX_BYTES` bytes, and reads the
declared width × height from the file's header **before** anything is decoded, so a
"decompression bomb" (a tiny file that declares, say, 50000 × 50000 pixels) is rejected
without allocating its pixels. Truncated or garbage files are rejected as well. Every
problem is a ``ValueError`` with a message the student can act on; Pillow's own
``DecompressionBombError`` / ``DecompressionBombWarning`` are never reached (the header limit
is far below Pillow's) and are turned into ``ValueError`` if they ever were.

Shapes: H, W pixels of the upload; S the working side (images come out S × S × 3).
"""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from numpy.typing import NDArray
from PIL import Image

MAX_BYTES = 5 * 1024 * 1024  # the server's maxUploadSize is 5 MB too (.streamlit/config.toml)
MAX_PIXELS = 16_000_000  # 4000 × 4000; a PNG this size decodes to ≤ 64 MB (RGBA)
FORMATS = ("PNG", "JPEG")
ACCEPTED = {"PNG": {"PNG"}, "JPEG": {"JPEG", "MPO"}}  # MPO: a camera JPEG with extra views

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SOI = b"\xff\xd8"
# Start-of-frame markers (baseline, progressive, lossless, arithmetic ...): they carry H × W.
# 0xC4 (DHT), 0xC8 (JPG) and 0xCC (DAC) share the range but are not frames.
JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
JPEG_STANDALONE = frozenset(range(0xD0, 0xD8)) | {0x01}  # RSTn, TEM: no length field
JPEG_SOS, JPEG_EOI = 0xDA, 0xD9

# Everything Pillow raises on a malformed file (found by the fuzz tests in
# tests/core/test_images.py); each becomes one ValueError for the student.
_DECODE_ERRORS = (
    OSError,  # includes PIL.UnidentifiedImageError and "image file is truncated"
    SyntaxError,  # "broken PNG file", "not a JPEG file"
    ValueError,
    EOFError,
    struct.error,
    zlib.error,
    IndexError,
    KeyError,
    TypeError,
    Image.DecompressionBombError,
    Image.DecompressionBombWarning,
)


def _png_sizes(data: bytes) -> list[tuple[int, int]]:
    """(W, H) of every IHDR chunk before the first IDAT (Pillow keeps the last one)."""
    sizes, pos = [], len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IHDR" and length >= 8 and pos + 16 <= len(data):
            sizes.append(struct.unpack(">II", data[pos + 8 : pos + 16]))
        if kind in (b"IDAT", b"IEND"):
            break
        pos += 12 + length  # length, type, data, CRC
    return sizes


def _jpeg_sizes(data: bytes) -> list[tuple[int, int]]:
    """(W, H) of every start-of-frame segment before the first scan."""
    sizes, pos = [], len(JPEG_SOI)
    while pos + 2 <= len(data):
        if data[pos] != 0xFF:
            break  # not a marker: a malformed file, Pillow rejects it below
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in JPEG_STANDALONE:
            pos += 2
            continue
        if marker in (JPEG_SOS, JPEG_EOI) or pos + 4 > len(data):
            break
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if marker in JPEG_SOF and pos + 9 <= len(data):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            sizes.append((width, height))
        pos += 2 + length
    return sizes


def declared_size(data: bytes) -> tuple[str, tuple[int, int]]:
    """The format and the largest (W, H) a PNG or JPEG header declares, without decoding.

    Raises:
        ValueError: the bytes are not a PNG or JPEG, or the header declares no size.

    >>> declared_size(PNG_SIGNATURE + bytes.fromhex("0000000d49484452000000400000002008"))
    ('PNG', (64, 32))
    """
    if data.startswith(PNG_SIGNATURE):
        fmt, sizes = "PNG", _png_sizes(data)
    elif data.startswith(JPEG_SOI):
        fmt, sizes = "JPEG", _jpeg_sizes(data)
    else:
        raise ValueError(
            "this file is not a PNG or JPEG image (its first bytes say so, whatever its name); "
            "save it as .png or .jpg and upload it again."
        )
    if not sizes:
        raise ValueError(f"this {fmt} file has no readable size in its header: it is damaged.")
    return fmt, max(sizes, key=lambda wh: wh[0] * wh[1])


def load_image(data: bytes, side: int = 64) -> NDArray[np.uint8]:
    """Validate an uploaded PNG/JPEG and return it as an S × S RGB image.

    The image is centre-cropped to a square and resized to ``side`` (S) pixels.

    Args:
        data: the uploaded file's bytes (untrusted).
        side: S, the working size in pixels (1 … 1024).

    Returns:
        uint8 array (S, S, 3).

    Raises:
        ValueError: empty, too large, not PNG/JPEG, too many pixels declared in the header
            (checked before decoding), truncated or otherwise undecodable.
    """
    if not 1 <= side <= 1024:
        raise ValueError(f"the working size must be between 1 and 1024 pixels, not {side}.")
    if not data:
        raise ValueError("the file is empty.")
    if len(data) > MAX_BYTES:
        raise ValueError(
            f"the file has {len(data) / 1e6:.1f} MB; at most {MAX_BYTES / 1e6:.1f} MB are "
            "accepted. Save a smaller version of the image."
        )
    fmt, (W, H) = declared_size(data)
    if W < 1 or H < 1:
        raise ValueError(f"the {fmt} header declares {W} × {H} pixels: the file is damaged.")
    if W * H > MAX_PIXELS:
        raise ValueError(
            f"the {fmt} header declares {W:,} × {H:,} = {W * H:,} pixels; at most "
            f"{MAX_PIXELS:,} are accepted (counted from the header before decoding, so that a "
            "small 'decompression bomb' file cannot fill the memory). Use a smaller image."
        )
    try:
        with Image.open(io.BytesIO(data), formats=list(FORMATS)) as im:
            size, decoded_as = im.size, im.format
            if decoded_as in ACCEPTED[fmt] and size[0] * size[1] <= MAX_PIXELS:
                if fmt == "JPEG":  # decode at a reduced scale (1/2 … 1/8) when it is big
                    im.draft("RGB", (2 * side, 2 * side))
                im.load()  # the only full decode; raises on truncated data
                rgb = _square(im.convert("RGB")).resize((side, side), Image.Resampling.LANCZOS)
                return np.asarray(rgb, dtype=np.uint8).copy()
    except _DECODE_ERRORS as err:
        raise ValueError(
            f"this {fmt} file could not be decoded (it is truncated or damaged: "
            f"{type(err).__name__}). Export the image again and upload the new file."
        ) from None
    raise ValueError(
        f"this {fmt} file's header does not match its contents ({decoded_as}, "
        f"{size[0]} × {size[1]}): it is damaged."
    )


def _square(im: Image.Image) -> Image.Image:
    """The largest centred square of ``im``."""
    W, H = im.size
    s = min(W, H)
    left, top = (W - s) // 2, (H - s) // 2
    return im.crop((left, top, left + s, top + s))


def to_signed(image: NDArray[np.uint8]) -> NDArray[np.float64]:
    """uint8 pixels 0 … 255 → float64 in [−1, 1], the data range of DDPM (Ho et al. 2020, §4)."""
    return np.asarray(image, dtype=np.float64) / 127.5 - 1.0


def to_uint8(x: NDArray[np.float64]) -> NDArray[np.uint8]:
    """float in [−1, 1] → uint8 pixels (values outside are clipped; used to display x_t)."""
    return np.clip(np.rint((np.asarray(x) + 1.0) * 127.5), 0, 255).astype(np.uint8)
