"""Progress of long calls: tqdm's bar when tqdm is installed, else a line on stderr
rewritten in place. The Go core counts the items it has finished in the call's
control block; the thread waiting on the call reports that count."""

from __future__ import annotations

import sys
import time


class Progress:
    """Reports done out of total items (named what) as a call runs."""

    def __init__(self, total: int, what: str):
        self.total, self.what = total, what
        try:
            from tqdm import tqdm
        except ImportError:
            self._bar = None
            self._last = 0.0
        else:
            self._bar = tqdm(total=total, unit=f" {what}", unit_scale=True, leave=False)

    def update(self, done: int) -> None:
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
