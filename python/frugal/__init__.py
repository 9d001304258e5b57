"""Helper for training scripts supervised by `frugal run` (protocol version 1, docs/protocol.md).

Standard library only. Outside frugal (no FRUGAL_REPORT in the environment) every call is a
harmless no-op, so the same script runs anywhere:

    import frugal
    start = load(frugal.resume_from()) if frugal.resume_from() else 0
    for step in range(start, total):
        train_one_step()
        frugal.report(step + 1, loss=loss)
        if frugal.checkpoint_requested() or frugal.should_stop() or (step + 1) % 500 == 0:
            with frugal.checkpoint(step + 1) as directory:
                save(os.path.join(directory, "state.pt"))
        if frugal.should_stop():
            break
"""

import atexit
import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
import time
import uuid

__all__ = [
    "PROTOCOL_VERSION", "supervised", "run_id", "resume_from", "report", "result",
    "checkpoint", "checkpoint_requested", "should_stop",
]

PROTOCOL_VERSION = 1

_lock = threading.Lock()
_checkpoint_requested = threading.Event()
_stop_requested = threading.Event()
_report_fd = None


def supervised():
    """Whether this process runs under `frugal run` (FRUGAL_REPORT is set)."""
    return bool(os.environ.get("FRUGAL_REPORT"))


def run_id():
    """The run id frugal gave this run, or None outside frugal."""
    return os.environ.get("FRUGAL_RUN_ID") or None


def resume_from():
    """Path of the committed checkpoint to resume from, or None on a fresh start."""
    return os.environ.get("FRUGAL_RESUME_FROM") or None


def checkpoint_requested():
    """True once frugal asked for a checkpoint (SIGUSR1: a preemption notice or a budget stop),
    until the next checkpoint is reported."""
    return _checkpoint_requested.is_set()


def should_stop():
    """True once frugal asked the process to stop (SIGTERM): checkpoint if you can, then exit."""
    return _stop_requested.is_set()


def _write(message):
    global _report_fd
    if not supervised():
        return
    message.setdefault("v", PROTOCOL_VERSION)
    line = (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode()
    with _lock:
        if _report_fd is None:
            _report_fd = os.open(os.environ["FRUGAL_REPORT"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        # One write on an O_APPEND descriptor: the line lands whole.
        os.write(_report_fd, line)


def _clean_metrics(metrics):
    clean = {}
    for key, value in metrics.items():
        if isinstance(value, bool):
            clean[key] = value
        elif isinstance(value, (int, float)):
            if value == value and value not in (float("inf"), float("-inf")):
                clean[key] = value
        elif hasattr(value, "item"):  # a 0-d tensor or numpy scalar
            clean[key] = float(value.item())
    return clean


def report(step, *, tokens=None, samples=None, **metrics):
    """Reports progress: the step reached and any numeric metrics (loss=..., lr=...).
    tokens= and samples= are the work done since the fresh start (cumulative counts), from
    which `frugal profile` measures throughput in the job's own units."""
    message = {"type": "progress", "step": int(step), "metrics": _clean_metrics(metrics), "t": time.time()}
    for key, count in (("tokens", tokens), ("samples", samples)):
        if count is not None:
            message[key] = float(count.item()) if hasattr(count, "item") else float(count)
    _write(message)


def result(**metrics):
    """Reports the final result of the work (drills compare it against an uninterrupted run)."""
    _write({"type": "result", "metrics": _clean_metrics(metrics)})


def _fsync_tree(directory):
    sizes = {}
    for root, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                os.fsync(f.fileno())
            # A name that is not UTF-8 cannot go into the report's JSON as it is: it is sent
            # escaped, and frugal rejects the checkpoint with a warning (its manifest cannot
            # hold the name) rather than the report line being lost.
            relative = os.fsencode(os.path.relpath(path, directory)).decode("utf-8", "backslashreplace")
            sizes[relative.replace(os.sep, "/")] = os.path.getsize(path)
    return sizes


@contextlib.contextmanager
def checkpoint(step):
    """Yields a fresh staging directory to write a checkpoint into. When the block completes,
    the files are synced, the directory is given its final name and reported to frugal, which
    verifies and commits it. If the block raises, nothing is reported and the staging directory
    is removed: a half-written checkpoint never exists. Outside frugal the directory is a
    temporary one, removed afterwards."""
    base = os.environ.get("FRUGAL_CHECKPOINT_DIR")
    if not supervised() or not base:
        directory = tempfile.mkdtemp(prefix="frugal-checkpoint-")
        try:
            yield directory
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return
    unique = "%d-%s" % (os.getpid(), uuid.uuid4().hex[:8])
    staging = os.path.join(base, ".partial-step%d-%s" % (int(step), unique))
    os.makedirs(staging)
    try:
        yield staging
        sizes = _fsync_tree(staging)
        final = os.path.join(base, "step%d-%s" % (int(step), unique))
        os.rename(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _checkpoint_requested.clear()
    _write({"type": "checkpoint", "path": os.path.basename(final), "step": int(step), "files": sizes})


def _install_handlers():
    if not supervised() or threading.current_thread() is not threading.main_thread():
        return

    def on_checkpoint(signum, frame):
        _checkpoint_requested.set()

    def on_stop(signum, frame):
        _checkpoint_requested.set()
        _stop_requested.set()

    signal.signal(signal.SIGUSR1, on_checkpoint)
    signal.signal(signal.SIGTERM, on_stop)
    # Once the script is done, a checkpoint request that comes while the interpreter shuts down
    # (which puts the default, fatal action back) asks nothing of it: its last checkpoint stands.
    atexit.register(signal.signal, signal.SIGUSR1, signal.SIG_IGN)


_install_handlers()
