"""numpy input, file input and the command line give the same scores and
the same files; and the files equal libvmaf's vmaf command line's (every
line but the version and fps), at its 6 digits and at full precision."""

from __future__ import annotations

import pytest

import vkssim
from conftest import comparable, run_cli

FEATURE_SETS = {
    "ssim": ["float_ssim"],
    "three": ["float_ssim=enable_lcs=true", "psnr=enable_apsnr=true", "float_ms_ssim"],
}


def _cases():
    for clip in ("420p8", "422p10"):
        for name in FEATURE_SETS:
            yield clip, name


@pytest.mark.parametrize("clip_name,features", list(_cases()))
def test_numpy_file_and_cli_are_identical(clips, tmp_path, vkssim_bin, clip_name, features):
    clip = clips[clip_name]
    feats = FEATURE_SETS[features]
    from_file = vkssim.score(clip.ref_yuv, clip.dist_yuv, feats, backend="cpu", **clip.raw(), model=None)
    from_arrays = vkssim.score(clip.ref, clip.dist, feats, backend="cpu", bitdepth=clip.bitdepth, model=None)
    assert len(from_file.frames) == clip.frames
    # Every value, fp64 for fp64 (NaN never appears on these clips).
    assert from_arrays.frames == from_file.frames
    assert from_arrays.pooled == from_file.pooled
    assert from_arrays.aggregate == from_file.aggregate
    base = ["score", "-r", str(clip.ref_yuv), "-d", str(clip.dist_yuv), *clip.raw_flags(), "--backend", "cpu", "-q",
            "-n"]
    for f in feats:
        base += ["--feature", f]
    for fmt in ("json", "xml", "csv"):
        cli = run_cli(vkssim_bin, [*base, f"--{fmt}"], tmp_path / f"out.{fmt}")
        for result in (from_file, from_arrays):
            text = getattr(result, f"to_{fmt}")()
            assert comparable(text) == comparable(cli)
            # The fps line is the only other one, and it is there.
            assert len(text.splitlines()) == len(cli.splitlines())


def test_y4m_file_equals_raw_and_arrays(clips):
    clip = clips["420p8"]
    feats = ["float_ssim", "psnr"]
    y4m = vkssim.score(clip.ref_y4m, clip.dist_y4m, feats, backend="cpu", model=None)
    raw = vkssim.score(str(clip.ref_yuv), str(clip.dist_yuv), feats, backend="cpu", **clip.raw(), model=None)
    arrays = vkssim.score(clip.ref, clip.dist, feats, backend="cpu", model=None)
    assert y4m.frames == raw.frames == arrays.frames
    assert comparable(y4m.to_json()) == comparable(arrays.to_json())


@pytest.mark.parametrize("clip_name", ["420p8", "422p10", "444p8_odd"])
def test_files_equal_vmafs(clips, tmp_path, vmaf_bin, clip_name):
    clip = clips[clip_name]
    feats = ["float_ssim", "psnr"] + (["float_ms_ssim"] if clip.width >= 176 else [])
    args = ["-r", str(clip.ref_yuv), "-d", str(clip.dist_yuv), *clip.raw_flags(), "-n", "-q", "--json"]
    for f in feats:
        args += ["--feature", f]
    vmaf = run_cli(vmaf_bin, args, tmp_path / "vmaf.json")
    ours = vkssim.score(clip.ref, clip.dist, feats, backend="cpu", bitdepth=clip.bitdepth, model=None)
    assert comparable(ours.to_json()) == comparable(vmaf)
    assert len(comparable(vmaf)) > 10 * clip.frames


def test_full_precision_equals_vmafs(clips, tmp_path, vmaf_bin, full_precision_shim):
    clip = clips["422p10"]
    feats = ["float_ssim=enable_lcs=true", "psnr=enable_mse=true", "float_ms_ssim"]
    args = ["-r", str(clip.ref_yuv), "-d", str(clip.dist_yuv), *clip.raw_flags(), "-n", "-q", "--xml"]
    for f in feats:
        args += ["--feature", f]
    vmaf = run_cli(vmaf_bin, args, tmp_path / "vmaf.xml", env={"LD_PRELOAD": str(full_precision_shim)})
    ours = vkssim.score(clip.ref, clip.dist, feats, backend="cpu", bitdepth=clip.bitdepth, precision="max", model=None)
    assert comparable(ours.to_xml()) == comparable(vmaf)


def test_frame_selection_matches_the_cli(clips, tmp_path, vkssim_bin):
    clip = clips["420p8"]
    opts = dict(frame_skip_ref=1, frame_skip_dist=1, frame_cnt=3, subsample=2)
    arrays = vkssim.score(clip.ref, clip.dist, "psnr", backend="cpu", **opts, model=None)
    args = ["score", "-r", str(clip.ref_yuv), "-d", str(clip.dist_yuv), *clip.raw_flags(), "--backend", "cpu",
            "-q", "-n", "--json", "--feature", "psnr", "--frame_skip_ref", "1", "--frame_skip_dist", "1",
            "--frame_cnt", "3", "--subsample", "2"]
    cli = run_cli(vkssim_bin, args, tmp_path / "sel.json")
    assert [f["frameNum"] for f in arrays.frames] == [0, 2]
    assert comparable(arrays.to_json()) == comparable(cli)


def test_vulkan_on_this_machine_equals_the_cpu_twin(clips, monkeypatch):
    """The Vulkan engine (lavapipe without a GPU), validation on."""
    monkeypatch.setenv("VKSSIM_VALIDATION", "1")
    clip = clips["444p8_odd"]
    cpu = vkssim.score(clip.ref[0], clip.dist[0], backend="cpu", features="float_ssim", model=None)
    vk = vkssim.score(clip.ref[0], clip.dist[0], backend="vulkan", features="float_ssim", model=None)
    assert vk.frames == cpu.frames
    with vkssim.Scorer(clip.width, clip.height, backend="vulkan") as s:
        assert "cpu" not in s.backend
        for i in range(clip.frames):
            s.submit(clip.ref[0][i], clip.dist[0][i])
        assert list(s) == cpu.frames
