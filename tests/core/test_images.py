"""core.images: uploads are validated before decoding (Hypothesis fuzz + Pillow as oracle).

Whatever bytes come in, ``load_image`` returns an S × S × 3 uint8 image or raises
``ValueError`` with a short message — never another exception, never a warning (Pillow's
``DecompressionBombWarning`` included: the warnings filter is "error" in this module), and in
bounded time.
"""

from __future__ import annotations

import io
import struct
import time
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image

from core import images

pytestmark = pytest.mark.filterwarnings("error")

TIME_LIMIT_S = 2.0  # generous: CI shares two cores; a rejection takes microseconds
MAX_MESSAGE = 400
SIDE = 48


def encode(im: Image.Image, fmt: str, **kwargs) -> bytes:
    buf = io.BytesIO()
    im.save(buf, fmt, **kwargs)
    return buf.getvalue()


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_declaring(width: int, height: int, idat: bytes = zlib.compress(b"\0" * 64)) -> bytes:
    """A tiny, well-formed PNG (valid CRCs) whose header claims width × height RGB pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        images.PNG_SIGNATURE
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", idat)
        + png_chunk(b"IEND", b"")
    )


def jpeg_declaring(width: int, height: int) -> bytes:
    """A real JPEG whose start-of-frame segment is patched to claim width × height."""
    data = bytearray(encode(Image.new("RGB", (16, 16), (90, 30, 200)), "JPEG"))
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def load(data: bytes, side: int = SIDE) -> np.ndarray | None:
    """load_image, with the contract checked: a right-shaped image or a short ValueError."""
    start = time.perf_counter()
    try:
        out = images.load_image(data, side)
    except ValueError as err:
        assert 0 < len(str(err)) <= MAX_MESSAGE
        out = None
    else:
        assert out.shape == (side, side, 3) and out.dtype == np.uint8
    assert time.perf_counter() - start < TIME_LIMIT_S
    return out


@st.composite
def small_images(draw) -> Image.Image:
    """Images of every mode a PNG or JPEG file may hold, 1…40 pixels a side."""
    mode = draw(st.sampled_from(["RGB", "RGBA", "L", "LA", "P", "1", "I;16", "CMYK"]))
    w, h = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    pixels = np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)
    return Image.fromarray(pixels, "RGB").convert(mode)


def fmt_for(im: Image.Image) -> str:
    return "JPEG" if im.mode in ("RGB", "L", "CMYK") and im.width % 2 == 0 else "PNG"


# ---- valid images ------------------------------------------------------------------------
@given(small_images(), st.integers(1, 64))
def test_every_valid_png_or_jpeg_becomes_an_s_by_s_rgb_image(im, side):
    fmt = fmt_for(im)
    if im.mode in ("CMYK",) and fmt == "PNG":
        im = im.convert("RGB")
    out = load(encode(im, fmt), side)
    assert out is not None


@given(small_images())
def test_the_header_size_is_the_size_pillow_decodes(im):
    """Oracle: our own header parser agrees with Pillow on every valid file."""
    fmt = fmt_for(im)
    if im.mode == "CMYK" and fmt == "PNG":
        im = im.convert("RGB")
    data = encode(im, fmt)
    with Image.open(io.BytesIO(data)) as decoded:
        assert images.declared_size(data) == (decoded.format, decoded.size)


def test_a_square_png_at_the_working_size_keeps_its_pixels():
    pixels = np.random.default_rng(0).integers(0, 256, (SIDE, SIDE, 3), dtype=np.uint8)
    out = images.load_image(encode(Image.fromarray(pixels), "PNG"), SIDE)
    assert np.array_equal(out, pixels)


def test_the_centre_square_is_kept_and_resized():
    im = Image.new("RGB", (300, 100), (255, 0, 0))
    im.paste((0, 0, 255), (100, 0, 200, 100))  # a blue centre square between red sides
    out = images.load_image(encode(im, "PNG"), 16)
    assert np.array_equal(out[8, 8], [0, 0, 255]) and (out[:, :, 0] < 10).all()


def test_a_big_jpeg_is_decoded_at_a_reduced_scale_and_stays_correct():
    im = Image.new("RGB", (3200, 2400), (20, 140, 60))
    out = images.load_image(encode(im, "JPEG", quality=90), SIDE)
    assert np.abs(out.astype(int) - [20, 140, 60]).max() <= 3


def test_signed_range_round_trip():
    pixels = np.arange(256, dtype=np.uint8).reshape(16, 16, 1).repeat(3, axis=2)
    x = images.to_signed(pixels)
    assert x.min() == -1.0 and x.max() == 1.0
    assert np.array_equal(images.to_uint8(x), pixels)
    assert np.array_equal(images.to_uint8(np.array([-3.0, 0.0, 3.0])), [0, 128, 255])


# ---- hostile input: random bytes, wrong formats, truncations, bombs ----------------------
@given(st.binary(max_size=4096))
@example(b"")
@example(images.PNG_SIGNATURE)
@example(images.JPEG_SOI)
@example(b"\xff\xd8\xff")
@example(images.PNG_SIGNATURE + b"\x00\x00\x00\x0dIHDR")
def test_random_bytes_never_escape_as_anything_but_value_error(data):
    load(data)


@given(st.binary(max_size=2048))
def test_random_bytes_after_a_valid_signature_are_rejected_cleanly(tail):
    load(images.PNG_SIGNATURE + tail)
    load(b"\xff\xd8\xff\xe0" + tail)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(small_images(), st.data())
def test_truncated_real_files_are_rejected_or_still_complete(im, data):
    fmt = fmt_for(im)
    if im.mode == "CMYK" and fmt == "PNG":
        im = im.convert("RGB")
    whole = encode(im, fmt)
    cut = data.draw(st.integers(0, len(whole) - 1))
    load(whole[:cut])


def test_truncated_files_are_rejected_with_a_clear_message():
    pixels = np.random.default_rng(1).integers(0, 256, (64, 64, 3), dtype=np.uint8)
    for fmt in ("PNG", "JPEG"):
        whole = encode(Image.fromarray(pixels), fmt)
        with pytest.raises(ValueError, match="truncated or damaged"):
            images.load_image(whole[: len(whole) // 2])


@given(st.integers(1, 2**31 - 1), st.integers(1, 2**31 - 1))
@example(50_000, 50_000)
@example(10_000, 10_000)  # between Pillow's warning (89 MP) and error (179 MP) thresholds
@example(4001, 4000)
def test_huge_declared_png_sizes_are_rejected_from_the_header(width, height):
    data = png_declaring(width, height)
    if width * height > images.MAX_PIXELS:
        with pytest.raises(ValueError, match="decompression bomb"):
            images.load_image(data)
    else:
        load(data)  # a small IDAT cannot fill a big image: "damaged", never a crash


@given(st.integers(1, 65535), st.integers(1, 65535))
@example(65535, 65535)
def test_huge_declared_jpeg_sizes_are_rejected_from_the_header(width, height):
    data = jpeg_declaring(width, height)
    assert images.declared_size(data) == ("JPEG", (width, height))
    if width * height > images.MAX_PIXELS:
        with pytest.raises(ValueError, match="pixels"):
            images.load_image(data)
    else:
        load(data)


def test_the_largest_declared_frame_counts():
    """A second IHDR claiming more pixels is what Pillow would use: it is the one checked."""
    small = struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)
    huge = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 2, 0, 0, 0)
    data = (
        images.PNG_SIGNATURE
        + png_chunk(b"IHDR", small)
        + png_chunk(b"IHDR", huge)
        + png_chunk(b"IDAT", zlib.compress(b"\0" * 9))
        + png_chunk(b"IEND", b"")
    )
    assert images.declared_size(data) == ("PNG", (60_000, 60_000))
    with pytest.raises(ValueError, match="decompression bomb"):
        images.load_image(data)


@pytest.mark.parametrize("fmt", ["GIF", "BMP", "TIFF", "WEBP", "ICO", "PPM", "TGA"])
def test_other_image_formats_are_refused_by_content(fmt):
    data = encode(Image.new("RGB", (16, 16), (1, 2, 3)), fmt)
    with pytest.raises(ValueError, match="not a PNG or JPEG"):
        images.load_image(data)


@pytest.mark.parametrize(
    "data", [b"hello, world", b"<svg xmlns='http://www.w3.org/2000/svg'/>", b"%PDF-1.7\n" * 20]
)
def test_text_and_documents_are_refused(data):
    with pytest.raises(ValueError, match="not a PNG or JPEG"):
        images.load_image(data)


def test_zero_sized_and_oversized_uploads():
    with pytest.raises(ValueError, match="empty"):
        images.load_image(b"")
    with pytest.raises(ValueError, match="MB"):
        images.load_image(images.PNG_SIGNATURE + b"\0" * images.MAX_BYTES)
    with pytest.raises(ValueError, match="damaged"):
        images.load_image(png_declaring(0, 10))
    with pytest.raises(ValueError, match="working size"):
        images.load_image(png_declaring(8, 8), side=0)


def test_a_png_with_a_bad_crc_is_rejected():
    data = bytearray(encode(Image.new("RGB", (8, 8)), "PNG"))
    data[29] ^= 0xFF  # inside the IHDR CRC
    with pytest.raises(ValueError, match="truncated or damaged"):
        images.load_image(bytes(data))
