"""Progress of long calls: tqdm's bar when tqdm is installed, else a line on stderr
rewritten in place. The Go core counts the items it has finished in the call's
control block; the thread waiting on the call reports that count."""

from __future__ import annotations

import sys
import time
from typing import Protocol


class Reporter(Protocol):
    """What a call reports its count of finished items to (call_stoppable)."""

    def update(self, done: int) -> None: ...

    def close(self, done: int) -> None: ...


class Progress:
    """Reports done out of total items (named what) as a call runs."""

    def __init__(self, total: int, what: str):
        self.total, self.what = total, what
        self.done = 0
        try:
            from tqdm import tqdm
        except ImportError:
            self._bar = None
            self._last = 0.0
        else:
            self._bar = tqdm(total=total, unit=f" {what}", unit_scale=True, leave=False)

    def update(self, done: int) -> None:
        self.done = done
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            return
        now = time.monotonic()
        if now - self._last >= 0.2 or done == self.total:  # a line at most 5 times a second
            self._last = now
            pct = 100 * done // max(self.total, 1)
            sys.stderr.write(f"\rpyfss: {done}/{self.total} {self.what} ({pct}%)")
            sys.stderr.flush()

    def close(self, done: int) -> None:
        self.update(done)
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")

    def span(self, base: int) -> Span:
        """One call's report into this Progress, where several calls in turn make up
        the total: its items count from base, and its end leaves the bar open."""
        return Span(self, base)


class Span:
    """A call's part of a Progress (Progress.span)."""

    def __init__(self, progress: Progress, base: int):
        self.progress, self.base = progress, base

    def update(self, done: int) -> None:
        self.progress.update(self.base + done)

    def close(self, done: int) -> None:
        self.update(done)
