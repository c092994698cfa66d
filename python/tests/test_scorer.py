"""The streaming Scorer under load: frame numbers from the library, Ctrl-C
while iterating, use from several threads, and its arguments' errors."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading

import numpy as np
import pytest

import vkssim


class _Deadline(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds):
    """Raises _Deadline in the main thread after ``seconds`` (a hang, e.g.
    a wait for a result already taken, fails the test instead of the run)."""

    def expired(signum, frame):
        raise _Deadline(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def python_sigint():
    """Python's own SIGINT handler, whatever the run inherited (a process
    started with SIGINT ignored keeps it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def gil_only_on_blocking_calls():
    """The main thread gives the GIL away only where it blocks (e.g. in a
    native wait, which releases it), never on the interpreter's timer: what
    another Python thread does then happens while the main thread is inside
    such a call."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(60.0)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


FEATURES = ("float_ssim", "psnr=enable_chroma=false", "float_ms_ssim")


@pytest.mark.parametrize("seed", range(5))
def test_thousands_of_tiny_pairs_keep_their_frame_numbers(seed):
    # Results that are back when a pair is submitted used to be matched to
    # frame numbers by position before the new pair's number was recorded:
    # one labelled 2**64-1, the rest shifted, then a wait forever.
    rng = np.random.default_rng(seed)
    n, size = 2000, 12
    ref = rng.integers(0, 256, (n, size, size), dtype=np.uint8)
    dist = rng.integers(0, 256, (n, size, size), dtype=np.uint8)
    features = FEATURES[:2]
    whole = vkssim.score(ref, dist, features, backend="cpu", model=None).frames
    for repeat in range(3):
        seen = []
        with deadline(60):
            with vkssim.Scorer(size, size, features=features, backend="cpu") as s:
                for i in range(n):
                    assert s.submit(ref[i], dist[i]) == i
                    if (i + repeat) % 7 == 0:
                        seen += s.ready()
                    if i % 251 == 0 and s.in_flight:
                        seen.append(next(iter(s)))
                seen += list(s)
                assert s.in_flight == 0 and s.submitted == n
                result = s.result()
        assert [f["frameNum"] for f in seen] == list(range(n)), f"seed {seed}, repeat {repeat}"
        assert seen == whole, f"seed {seed}, repeat {repeat}"
        assert result.frames == whole


def test_ctrl_c_while_iterating_skips_no_frame():
    # SIGINT sent while the main thread waits for a result inside the
    # scorer: the frame finished then is yielded by the iteration that
    # follows the Interrupted, and is in the Interrupted's result.
    rng = np.random.default_rng(7)
    n, (h, w) = 12, (720, 1280)
    ref = rng.integers(0, 256, (n, h, w), dtype=np.uint8)
    dist = rng.integers(0, 256, (n, h, w), dtype=np.uint8)
    whole = vkssim.score(ref, dist, FEATURES[::2], backend="cpu", model=None).frames
    go = threading.Event()
    stop = threading.Event()

    def interrupter():
        while True:
            go.wait()
            go.clear()
            if stop.is_set():
                return
            # This line runs only while the main thread has the GIL
            # released: inside the scorer's wait.
            os.kill(os.getpid(), signal.SIGINT)

    seen, interrupts = [], []
    helper = threading.Thread(target=interrupter)
    with python_sigint(), deadline(120), gil_only_on_blocking_calls():
        helper.start()
        try:
            s = vkssim.Scorer(w, h, features=FEATURES[::2], backend="cpu", threads=1)
            # Rounds of two pairs (within the CPU twin's queue of two per
            # thread, so submit returns at once), each drained by iterating:
            # the first result of a round takes a frame's scoring to come.
            for r in range(n // 2):
                s.submit(ref[2 * r], dist[2 * r])
                s.submit(ref[2 * r + 1], dist[2 * r + 1])
                if r in (1, 3, 4):
                    go.set()
                while True:
                    try:
                        for frame in s:
                            seen.append(frame)
                        break
                    except vkssim.Interrupted as e:
                        interrupts.append((len(seen), e.result.frames))
            s.close()
        finally:
            stop.set()
            go.set()
            helper.join()
    assert len(interrupts) == 3
    assert [f["frameNum"] for f in seen] == list(range(n))
    assert seen == whole
    assert s.result().frames == whole
    # Each Interrupted carried every frame scored before it, in order, the
    # one finished as it came (not yet yielded) included.
    for yielded, carried in interrupts:
        assert len(carried) > yielded and carried == whole[: len(carried)]


def test_a_scorer_used_by_two_threads_at_once_says_so():
    rng = np.random.default_rng(3)
    n, (h, w) = 2, (720, 1280)
    ref = rng.integers(0, 256, (n, h, w), dtype=np.uint8)
    dist = rng.integers(0, 256, (n, h, w), dtype=np.uint8)
    # Two pairs in flight (the CPU twin's queue at one thread), a frame's
    # scoring each: the other thread's flush waits.
    s = vkssim.Scorer(w, h, features=FEATURES[::2], backend="cpu", threads=1)
    for i in range(n):
        s.submit(ref[i], dist[i])
    started = threading.Event()

    def flush():
        started.set()
        s.flush()

    other = threading.Thread(target=flush)
    with deadline(120), gil_only_on_blocking_calls():
        other.start()
        # The main thread runs again only once the other has released the
        # GIL: inside flush, waiting for the pairs in flight.
        started.wait()
        with pytest.raises(vkssim.Error, match="in use by another thread") as info:
            s.submit(ref[0], dist[0])
        assert "one thread at a time" in str(info.value)
        with pytest.raises(vkssim.Error, match="in use by another thread"):
            s.in_flight
        other.join()
    # Once the other thread is done, the scorer is usable again.
    assert s.in_flight == 0
    s.submit(ref[0], dist[0])
    frames = list(s)
    s.close()
    assert [f["frameNum"] for f in frames] == list(range(n + 1))


@pytest.mark.parametrize("name", ["width", "height", "bitdepth"])
@pytest.mark.parametrize("value", [-1, 2**40, 1.5, True, "64"])
def test_scorer_geometry_errors_name_the_argument(name, value):
    args = dict(width=64, height=48, bitdepth=8)
    args[name] = value
    with pytest.raises(vkssim.OptionError, match=f"^{re.escape(name)}={re.escape(repr(value))}: ") as info:
        vkssim.Scorer(args["width"], args["height"], args["bitdepth"], backend="cpu")
    assert not isinstance(info.value, OverflowError)


@pytest.mark.parametrize("value", [-1, 2**40, True])
def test_an_array_bitdepth_error_names_the_argument(value):
    frames = np.zeros((1, 48, 64), np.uint16)
    with pytest.raises(vkssim.OptionError, match=f"^bitdepth={re.escape(repr(value))}: "):
        vkssim.score(frames, frames, backend="cpu", bitdepth=value, features="float_ssim", model=None)


@pytest.mark.parametrize("value", [False, True])
def test_a_boolean_precision_is_refused(value):
    frames = np.zeros((1, 48, 64), np.uint8)
    with pytest.raises(vkssim.OptionError, match=f"^precision={value!r}: "):
        vkssim.score(frames, frames, backend="cpu", precision=value, features="float_ssim", model=None)
    with pytest.raises(vkssim.OptionError, match=f"^precision={value!r}: "):
        vkssim.Scorer(64, 48, backend="cpu", precision=value)
    # An integer precision is taken (0 is not "unset").
    assert len(vkssim.score(frames, frames, backend="cpu", precision=0, features="float_ssim", model=None)) == 1


def test_a_nul_byte_in_a_path_is_escaped_in_the_message(tmp_path):
    bad = str(tmp_path / "ref\x00.y4m")
    for ref, dist, role in ((bad, str(tmp_path / "d.y4m"), "reference"), (str(tmp_path / "r.y4m"), bad, "distorted")):
        with pytest.raises(vkssim.InputError) as info:
            vkssim.score(ref, dist, backend="cpu", features="float_ssim", model=None)
        message = str(info.value)
        assert "\x00" not in message
        assert f"the {role} path {bad!r}" in message and "NUL byte" in message
    with pytest.raises(vkssim.InputError, match="NUL"):
        vkssim.score(bad.encode(), str(tmp_path / "d.y4m"), backend="cpu", features="float_ssim", model=None)
