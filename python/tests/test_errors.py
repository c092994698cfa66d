"""Each exception class, with the command line's messages."""

from __future__ import annotations

import numpy as np
import pytest

import vkssim
from conftest import make_clip


def test_the_classes_share_one_base():
    for cls in (vkssim.InputError, vkssim.GeometryError, vkssim.LengthError, vkssim.OptionError,
                vkssim.UnsupportedError, vkssim.DeviceError):
        assert issubclass(cls, vkssim.Error) and issubclass(cls, Exception)
    assert issubclass(vkssim.Interrupted, KeyboardInterrupt)
    assert vkssim.Error.__module__ == "vkssim"


def test_input_errors_name_the_file_and_frame(clips, tmp_path):
    clip = clips["420p8"]
    missing = tmp_path / "missing.y4m"
    with pytest.raises(vkssim.InputError, match="cannot read the reference: .*missing.y4m"):
        vkssim.score(missing, clip.dist_y4m, backend="cpu", features="float_ssim", model=None)
    cut = tmp_path / "cut.yuv"
    cut.write_bytes(clip.dist_yuv.read_bytes()[:-100])
    with pytest.raises(vkssim.InputError, match=r"cut.yuv: frame 4 is incomplete") as info:
        vkssim.score(clip.ref_yuv, cut, backend="cpu", **clip.raw(), features="float_ssim", model=None)
    assert info.value.result is None or isinstance(info.value.result, vkssim.Result)


def test_a_sample_above_the_bit_depth_is_an_input_error_with_the_frames_before_it(clips):
    clip = clips["422p10"]
    bad = clip.dist[0].copy()
    bad[2, 5, 7] = 1024
    with pytest.raises(vkssim.InputError, match="x=7, y=5 is 1024, above 1023") as info:
        vkssim.score(clip.ref[0], bad, backend="cpu", bitdepth=10, threads=1, frames_in_flight=1, features="float_ssim", model=None)
    assert len(info.value.result) == 2


def test_arrays_of_the_wrong_kind_are_input_errors(clips):
    clip = clips["444p8_odd"]
    ref, dist = clip.ref[0], clip.dist[0]
    with pytest.raises(vkssim.InputError, match="uint8 .* or uint16 .*got float32"):
        vkssim.score(ref.astype(np.float32), dist, backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.InputError, match="expected a numpy array, got list"):
        vkssim.score(ref.tolist(), dist, backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.InputError, match="expected 3 dimensions"):
        vkssim.score(ref[..., np.newaxis], dist, backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.InputError, match="differ in dtype"):
        vkssim.score((ref, clip.ref[1].astype(np.uint16), clip.ref[2]), clip.dist, backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.InputError, match="fit no layout"):
        vkssim.score((ref, ref[:, :3], ref[:, :3]), (dist, dist[:, :3], dist[:, :3]), "psnr", backend="cpu", model=None)
    with pytest.raises(vkssim.OptionError, match="uint16 arrays need bitdepth"):
        vkssim.score(ref.astype(np.uint16), dist.astype(np.uint16), backend="cpu", features="float_ssim", model=None)


def test_geometry_errors(clips):
    clip = clips["444p8_odd"]
    with pytest.raises(vkssim.GeometryError, match="reference and distorted differ"):
        vkssim.score(clip.ref[0], clip.dist[0][:, :40], backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.GeometryError, match="float_ms_ssim cannot score a 67x45 frame"):
        vkssim.score(clip.ref[0], clip.dist[0], "float_ms_ssim", backend="cpu", model=None)


def test_length_errors_say_how_to_score_the_common_frames(clips, tmp_path):
    clip = clips["420p8"]
    short = make_clip(tmp_path, "short", 176, 176, 5, "420", 8, seed=1, dist_frames=3)
    with pytest.raises(vkssim.LengthError, match="reference has 5 frames but distorted has 3 .*allow_length_mismatch=True"):
        vkssim.score(clip.ref, short.dist, backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.LengthError):
        vkssim.score(short.ref_yuv, short.dist_yuv, backend="cpu", **clip.raw(), features="float_ssim", model=None)
    r = vkssim.score(clip.ref, short.dist, backend="cpu", allow_length_mismatch=True, features="float_ssim", model=None)
    assert len(r) == 3


def test_option_errors(clips):
    clip = clips["420p8"]
    with pytest.raises(vkssim.OptionError, match=r"^backend='gpu': expected 'auto', 'vulkan' or 'cpu'$"):
        vkssim.score(clip.ref, clip.dist, backend="gpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.OptionError, match="vmaf"):
        vkssim.score(clip.ref, clip.dist, "vmaf", backend="cpu", model=None)
    with pytest.raises(vkssim.OptionError, match="both paths or both numpy arrays"):
        vkssim.score(clip.ref_y4m, clip.dist, backend="cpu", features="float_ssim", model=None)
    with pytest.raises(vkssim.OptionError, match="for files only"):
        vkssim.score(clip.ref, clip.dist, width=176, backend="cpu", features="float_ssim", model=None)
    # Luma alone is a 4:0:0 picture: psnr scores luma only, as libvmaf
    # scores 4:0:0 (psnr_y, no psnr_cb or psnr_cr), the same values as with
    # enable_chroma off.
    luma = vkssim.score(clip.ref[0], clip.dist[0], "psnr", backend="cpu", model=None)
    off = vkssim.score(clip.ref[0], clip.dist[0], "psnr=enable_chroma=false", backend="cpu", model=None)
    assert len(luma.frames) == len(off.frames) == clip.frames
    assert luma.metrics == off.metrics == ["psnr_y"]
    for a, b in zip(luma.frames, off.frames):
        assert a["psnr_y"] == b["psnr_y"]


def test_unsupported_formats(clips, tmp_path):
    clip = clips["420p8"]
    with pytest.raises(vkssim.UnsupportedError):
        vkssim.score(clip.ref_yuv, clip.dist_yuv, backend="cpu", width=176, height=176, pix_fmt="420", bitdepth=9, features="float_ssim", model=None)


def test_device_errors(clips):
    clip = clips["444p8_odd"]
    with pytest.raises(vkssim.DeviceError, match=r"^device=99: there (is|are) "):
        vkssim.score(clip.ref[0], clip.dist[0], backend="vulkan", device=99, features="float_ssim", model=None)
