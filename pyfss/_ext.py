"""Loads the compiled Go core and is the one way into it: every call goes through
call() or call_stoppable(), which refuse to run in a forked child and turn the Go
side's errors into Python exceptions (go_error)."""

from __future__ import annotations

import ctypes
import json
import os
import threading

from ._progress import Reporter
from ._stoppable import run_stoppable

try:
    from ._gofss import _gofss as raw
    from ._gofss import binding as lib
except ImportError as e:
    raise ImportError(
        f"pyfss: the compiled Go core (pyfss._gofss) could not be loaded: {e}. "
        "It is built, for one Python version, when pyfss is installed (`pip install .` "
        "or a wheel); importing pyfss from a source checkout, where it was not built, "
        "fails: run from another directory."
    ) from e


def _small_calls():
    """The module of the extension's direct entries for the smallest calls (eval,
    gen, keygen: binding.Eval, Gen and KeyGen with gopy's positional arguments),
    made by the extension's C function pyfss_small_calls (the binding's cpython.c),
    fetched through ctypes once. Cheaper per call than raw's (0.42 against 0.65 us
    for a one-key eval) for the same work and errors."""
    make = ctypes.PyDLL(raw.__file__).pyfss_small_calls
    make.restype = ctypes.py_object
    return make()


#: The extension's direct entries (_small_calls).
small = _small_calls()

# A PYFSS_<PKG>_BACKEND variable that names a backend this CPU cannot run: a test
# or benchmark that asked for a path must not silently measure another.
if _refused := lib.BackendEnvError():
    raise ImportError(f"pyfss: {_refused}")

__all__ = [
    "STOPPABLE_WORK",
    "Control",
    "call",
    "call_long",
    "call_stoppable",
    "check_not_forked",
    "forked",
    "go_error",
    "lib",
    "raw",
    "small",
]

# -- fork ---------------------------------------------------------------------------

#: Set in a child made by fork(): Go's runtime (its threads) does not survive fork(),
#: and any call into it from the child would hang forever.
forked = False


def _mark_forked() -> None:
    global forked
    forked = True


os.register_at_fork(after_in_child=_mark_forked)


def check_not_forked() -> None:
    """Raises RuntimeError in a forked child, before it could call into Go and hang."""
    if forked:
        raise RuntimeError(
            "pyfss cannot run in a process made by fork() from one that had loaded it: "
            "Go's runtime does not survive fork(), and the call would hang. Start worker "
            "processes with the 'spawn' or 'forkserver' start method "
            "(multiprocessing.get_context('spawn'), or DataLoader(multiprocessing_context=...))"
        )


# -- errors -------------------------------------------------------------------------

#: The exception raised for each kind of Go error (see gofss/binding/errors.go).
_EXCEPTIONS = {
    "value": ValueError,
    "runtime": RuntimeError,
    "interrupted": KeyboardInterrupt,
    "internal": RuntimeError,
}


def go_error(e: RuntimeError) -> BaseException:
    """The exception for a RuntimeError raised by a bound Go function, whose message is
    the Go error as JSON {"kind": ..., "message": ...}. A RuntimeError with any other
    message is returned unchanged."""
    try:
        err = json.loads(str(e))
        exc = _EXCEPTIONS[err["kind"]]
        message = err["message"]
    except (ValueError, TypeError, KeyError):
        return e
    if not isinstance(message, str):
        return e
    return exc(message)


def call(fn, *args):
    """Calls a bound Go function (from lib, or its C entry point from raw or small), raising
    go_error(e) for its errors."""
    if forked:
        check_not_forked()
    try:
        return fn(*args)
    except RuntimeError as e:
        raise go_error(e) from None


# -- interruptible calls ----------------------------------------------------------------

#: Work (tree levels walked, or outputs) above which a CPU call runs in a worker
#: thread that Ctrl-C can stop: 2^20 units take a few milliseconds on the fast paths
#: and at most about 0.2 s on the portable one, so shorter calls finish before an
#: interrupt would be noticed, and starting a thread (about 50 us) is not worth it.
STOPPABLE_WORK = 1 << 20

#: The work of one proof piece folded into a proof, in those units: one hash, about
#: as long as 16 tree levels on the fast walks.
PIECE_WORK = 16

# How often the waiting main thread wakes up to run Python's signal handlers: the
# signal may land on the worker's thread, which does not wake the main one.
_POLL_S = 0.05


class Control(ctypes.Structure):
    """gofss.Control, the control block of a long call: a stop flag that the Go call
    polls, 4 bytes of padding, and the count of items it has finished."""

    _fields_ = (("stop", ctypes.c_int32), ("_pad", ctypes.c_int32), ("done", ctypes.c_int64))


def call_stoppable(fn, *args, progress: Reporter | None = None):
    """call(fn, *args, control), for a long CPU operation whose last parameter is the
    address of a Control: run in a worker thread while the main thread waits, so that
    Ctrl-C (KeyboardInterrupt in the main thread) sets its stop flag, which ends the Go
    call within milliseconds, and is re-raised once the Go call has returned: never
    while Go may still write into the caller's tensors (_stoppable). progress, if
    given, is updated from the control block's count as the call runs. From other
    threads, which receive no KeyboardInterrupt, a call without progress is made
    directly."""
    if progress is None and threading.current_thread() is not threading.main_thread():
        return call(fn, *args, 0)
    check_not_forked()
    control = Control()

    def stop() -> None:
        control.stop = 1

    def report() -> None:
        if progress is not None:
            progress.update(control.done)

    try:
        return run_stoppable(
            lambda: call(fn, *args, ctypes.addressof(control)), stop, _POLL_S, report
        )
    finally:
        if progress is not None:
            progress.close(control.done)


def call_long(fn, *args, work: int, progress: Reporter | None = None):
    """call(fn, *args, control) for a CPU operation of work units (STOPPABLE_WORK):
    through call_stoppable when it is long or progress is wanted, else directly with
    no control block (0)."""
    if work > STOPPABLE_WORK or progress is not None:
        return call_stoppable(fn, *args, progress=progress)
    return call(fn, *args, 0)
