"""VMAF from Python: ``vkssim.score(..., model=...)`` and the VMAF extractors
give the same files as libvmaf's ``vmaf -m ... --cpumask 255`` (full
precision, every line but the version and fps), from files and from arrays."""

from __future__ import annotations

import numpy as np
import pytest

import vkssim
from conftest import comparable, run_cli


def test_the_default_model_from_files_and_arrays_equals_vmafs(clips, tmp_path, vmaf_bin, full_precision_shim):
    clip = clips["422p10"]
    args = ["-r", str(clip.ref_yuv), "-d", str(clip.dist_yuv), *clip.raw_flags(), "-q", "--xml",
            "--cpumask", "255", "-m", "version=vmaf_v0.6.1", "--feature", "psnr"]
    vmaf = run_cli(vmaf_bin, args, tmp_path / "vmaf.xml", env={"LD_PRELOAD": str(full_precision_shim)})
    files = vkssim.score(clip.ref_yuv, clip.dist_yuv, "psnr", model="version=vmaf_v0.6.1", backend="cpu",
                         width=clip.width, height=clip.height, pix_fmt="422", bitdepth=10, precision="max")
    arrays = vkssim.score(clip.ref, clip.dist, ["psnr"], model=["version=vmaf_v0.6.1"], backend="cpu",
                          bitdepth=clip.bitdepth, precision="max")
    assert comparable(files.to_xml()) == comparable(vmaf)
    assert comparable(arrays.to_xml()) == comparable(vmaf)
    vm = arrays.scores["vmaf"]
    assert vm.dtype == np.float64 and len(vm) == clip.frames
    assert list(vm) == [f["vmaf"] for f in arrays.frames]


def test_a_bad_model_names_the_keyword(clips):
    clip = clips["420p8"]
    with pytest.raises(vkssim.OptionError, match="^model") as e:
        vkssim.score(clip.ref, clip.dist, model="version=vmaf_v9", backend="cpu")
    assert "vmaf_v9" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(vkssim.OptionError, match="^model=3: expected a model"):
        vkssim.score(clip.ref, clip.dist, model=3, backend="cpu")


def test_a_streaming_scorer_gives_motion2_per_frame(clips):
    clip = clips["420p8"]
    whole = vkssim.score(clip.ref[0], clip.dist[0], "motion", backend="cpu", model=None)
    with vkssim.Scorer(clip.width, clip.height, features="motion", backend="cpu") as s:
        for n in range(clip.frames):
            s.submit(clip.ref[0][n], clip.dist[0][n])
        frames = list(s)
    assert frames == whole.frames
    assert any(f["integer_motion2"] > 0 for f in frames)
    assert s.result().frames == whole.frames


def test_a_streaming_scorer_with_a_model_gives_vmaf_per_frame(clips):
    clip = clips["420p8"]
    whole = vkssim.score(clip.ref[0], clip.dist[0], "float_ssim", model="version=vmaf_v0.6.1",
                         backend="cpu", precision="max")
    with vkssim.Scorer(clip.width, clip.height, features="float_ssim", model="version=vmaf_v0.6.1",
                       backend="cpu", precision="max") as s:
        frames = []
        for n in range(clip.frames):
            s.submit(clip.ref[0][n], clip.dist[0][n])
            frames += s.ready()
        # The last frame waits for the end of the stream.
        assert len(frames) < clip.frames
        frames += list(s)
    assert [f["frameNum"] for f in frames] == list(range(clip.frames))
    assert frames == whole.frames
    assert "vmaf" in frames[0] and "integer_motion2" in frames[0]
    assert s.result().frames == whole.frames
    assert any(f["integer_motion2"] > 0 for f in whole.frames)


def test_score_runs_vmafs_default_model_by_default(clips, tmp_path, vmaf_bin, full_precision_shim):
    # vkssim.score(r, d) with no features and no model: `vmaf -r R -d D`.
    clip = clips["420p8"]
    args = ["-r", str(clip.ref_yuv), "-d", str(clip.dist_yuv), *clip.raw_flags(), "-q", "--xml", "--cpumask", "255"]
    vmaf = run_cli(vmaf_bin, args, tmp_path / "vmaf.xml", env={"LD_PRELOAD": str(full_precision_shim)})
    files = vkssim.score(clip.ref_yuv, clip.dist_yuv, precision="max", **clip.raw())
    arrays = vkssim.score(clip.ref, clip.dist, precision="max", bitdepth=clip.bitdepth)
    assert comparable(files.to_xml()) == comparable(vmaf)
    assert comparable(arrays.to_xml()) == comparable(vmaf)
    vm = files.scores["vmaf"]
    assert vm.dtype == np.float64 and len(vm) == clip.frames
    assert list(vm) == [f["vmaf"] for f in files.frames]
    assert files.metrics[-1] == "vmaf"
    # A feature is computed beside the model, as --feature is.
    beside = vkssim.score(clip.ref, clip.dist, "psnr", precision="max", bitdepth=clip.bitdepth)
    vmaf = run_cli(vmaf_bin, [*args, "--feature", "psnr"], tmp_path / "vmaf_psnr.xml",
                   env={"LD_PRELOAD": str(full_precision_shim)})
    assert comparable(beside.to_xml()) == comparable(vmaf)


def test_model_none_runs_the_features_alone_and_needs_one(clips):
    clip = clips["420p8"]
    alone = vkssim.score(clip.ref, clip.dist, "float_ssim", model=None, backend="cpu")
    assert alone.metrics == ["float_ssim"]
    with pytest.raises(vkssim.OptionError, match="^model=None and no features: nothing to score"):
        vkssim.score(clip.ref, clip.dist, model=None, backend="cpu")


def test_the_default_model_on_vulkan_equals_the_cpu_twin(clips):
    clip = clips["420p8"]
    on_cpu = vkssim.score(clip.ref, clip.dist, backend="cpu", bitdepth=clip.bitdepth)
    on_vulkan = vkssim.score(clip.ref, clip.dist, backend="vulkan", bitdepth=clip.bitdepth)
    assert on_vulkan.scores["vmaf"].tobytes() == on_cpu.scores["vmaf"].tobytes()
    assert on_vulkan.to_xml().count("frameNum") == on_cpu.to_xml().count("frameNum") > 0
    # libvmaf 3.2.0's motion too.
    v32 = [vkssim.score(clip.ref, clip.dist, backend=b, bitdepth=clip.bitdepth, motion_version="3.2.0")
           for b in ("cpu", "vulkan")]
    assert v32[1].scores["vmaf"].tobytes() == v32[0].scores["vmaf"].tobytes()


def _v32_fixture(name: str):
    """A pair of tests/fixtures/vmaf_v32 (tools/vmaf-v32-fixtures.sh) and what libvmaf 3.2.0's vmaf wrote
    for the default model at full precision, less integer_aim and integer_adm3 (not computed)."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "vmaf_v32"
    case = next(line.split() for line in (folder / "cases.txt").read_text().splitlines() if line.split()[0] == name)
    w, h, pix, bpc, frames = int(case[1]), int(case[2]), case[3], int(case[4]), int(case[5])
    want = json.loads((folder / f"{name}.json").read_text())
    drop = ("integer_aim", "integer_adm3")
    frames_want = [{k: v for k, v in f["metrics"].items() if k not in drop} for f in want["frames"]]
    pooled_want = {k: v for k, v in want["pooled_metrics"].items() if k not in drop}
    return folder / f"{name}_ref.yuv", folder / f"{name}_dis.yuv", (w, h, pix, bpc, frames), frames_want, pooled_want


def test_motion_version_3_2_0_gives_vmaf_3_2_0s_motion_and_scores(tmp_path):
    ref, dis, (w, h, pix, bpc, frames), frames_want, pooled_want = _v32_fixture("m8_64x48")
    res = vkssim.score(ref, dis, "motion", model="version=vmaf_v0.6.1", motion_version="3.2.0", backend="cpu",
                       width=w, height=h, pix_fmt=pix, bitdepth=bpc, precision="max")
    got = [{k: v for k, v in f.items() if k != "frameNum"} for f in res.frames]
    assert [list(f.items()) for f in got] == [list(f.items()) for f in frames_want]
    assert res.pooled == pooled_want
    # Arrays: the luma planes of the same files.
    luma = [np.fromfile(p, np.uint8).reshape(frames, -1)[:, : w * h].reshape(frames, h, w) for p in (ref, dis)]
    arrays = vkssim.score(luma[0], luma[1], "motion", model="version=vmaf_v0.6.1", motion_version="3.2.0",
                          backend="cpu", precision="max")
    assert [{k: v for k, v in f.items() if k != "frameNum"} for f in arrays.frames] == got
    # On the Vulkan engine (lavapipe here), the same.
    on_vulkan = vkssim.score(ref, dis, "motion", model="version=vmaf_v0.6.1", motion_version="3.2.0",
                             backend="vulkan", width=w, height=h, pix_fmt=pix, bitdepth=bpc, precision="max")
    assert [{k: v for k, v in f.items() if k != "frameNum"} for f in on_vulkan.frames] == got
    assert on_vulkan.pooled == pooled_want
    with pytest.raises(vkssim.OptionError, match="^motion_version='3.1'"):
        vkssim.score(ref, dis, "motion", motion_version="3.1", backend="cpu", width=w, height=h, pix_fmt=pix,
                     bitdepth=bpc)


def test_a_streaming_scorer_runs_the_model_with_3_2_0s_motion():
    """vkssim.Scorer with a model and motion_version="3.2.0", on the CPU twin and on Vulkan: every frame equal
    to what libvmaf 3.2.0's vmaf wrote (tests/fixtures/vmaf_v32), at full precision."""
    ref, dis, (w, h, pix, bpc, frames), frames_want, _ = _v32_fixture("m8_64x48")
    luma = [np.fromfile(p, np.uint8).reshape(frames, -1)[:, : w * h].reshape(frames, h, w) for p in (ref, dis)]
    for backend in ("cpu", "vulkan"):
        with vkssim.Scorer(w, h, features="motion", model="version=vmaf_v0.6.1", motion_version="3.2.0",
                           backend=backend, precision="max") as s:
            for r, d in zip(*luma):
                s.submit(r, d)
            got = [{k: v for k, v in f.items() if k != "frameNum"} for f in s]
        assert [list(f.items()) for f in got] == [list(f.items()) for f in frames_want], backend
