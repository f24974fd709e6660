"""Runs a long foreign call in a worker thread, so that the main thread stays free to
take Ctrl-C, and returns or raises only once the call has stopped touching the memory
it was given. Standard library only: tests run it under every supported CPython
without the compiled core.

Thread.join is not used to wait: in CPython 3.11, a join(timeout) interrupted by
KeyboardInterrupt can release the thread's state lock and mark the thread stopped
while it still runs (the bpo-45274 handling), after which join() returns at once.
The worker instead sets its own flag as its last act and releases a plain lock; the
waiting thread trusts only the flag."""

from __future__ import annotations

import _thread
from collections.abc import Callable
from typing import Any


class _Call:
    """One call's state, shared by the waiting thread and the worker. Every field is
    written by one side only, under the GIL, in the order the protocol needs."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.entered = False  # the worker has begun (it then calls fn unless stopping)
        self.stopping = False  # the waiting thread has given up on the call
        self.ended = False  # the worker is past fn, or will never call it
        self.value: Any = None
        self.error: BaseException | None = None
        self.finished = _thread.allocate_lock()
        self.finished.acquire()  # released by the worker once ended is set

    def run(self) -> None:
        """The worker's body. entered is set before stopping is read, and the waiting
        thread sets stopping before it reads entered: so either the waiting thread
        sees entered and waits for ended, or the worker sees stopping and never calls
        fn."""
        self.entered = True
        try:
            if not self.stopping:
                self.value = self.fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            self.error = e
        finally:
            self.ended = True
            self.finished.release()

    def settle(self, stop: Callable[[], None], poll_s: float) -> None:
        """Gives up on the call: sets stopping, calls stop() and, if the worker has
        begun, waits for ended, whatever is raised in this thread meanwhile (a second
        Ctrl-C, another signal handler's exception), since fn holds its buffers until
        then. The caller re-raises the first interruption."""
        while True:
            try:
                self.stopping = True
                stop()
                if not self.entered:
                    return
                while not self.ended:
                    self.finished.acquire(timeout=poll_s)
                return
            except BaseException:  # noqa: BLE001, S110 - the first one is re-raised
                pass


def run_stoppable(
    fn: Callable[[], Any],
    stop: Callable[[], None],
    poll_s: float,
    on_poll: Callable[[], None] | None = None,
) -> Any:
    """fn() in a worker thread while this thread waits, waking every poll_s seconds
    to run Python's signal handlers (a signal that lands on the worker's thread does
    not wake this one) and on_poll. If the wait is interrupted (KeyboardInterrupt, or
    what a signal handler or on_poll raises), stop() is called, which must make fn
    return soon, and the exception is re-raised once fn has returned (or when fn was
    never called). Returns fn's value, or raises its exception."""
    call = _Call(fn)
    try:
        _thread.start_new_thread(call.run, ())
        while not call.ended:
            call.finished.acquire(timeout=poll_s)
            if on_poll is not None:
                on_poll()
    except BaseException:
        call.settle(stop, poll_s)
        raise
    if call.error is not None:
        raise call.error
    return call.value
