"""A one-line progress bar for long runs (stderr), with a plain-log fallback off a terminal."""

from __future__ import annotations

import sys
import time


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


class Progress:
    """``update(fraction, text)`` redraws ``[#####.....] 42% text | ETA 03:10``.

    On a terminal the line is redrawn in place at most ``every`` seconds; in a log file
    (CI, nohup) one full line is written every ``log_every`` seconds instead.
    """

    def __init__(self, stream=None, width: int = 24, every: float = 0.5, log_every: float = 30.0,
                 settle: float = 10.0):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width, self.every = width, every if self.tty else log_every
        self.settle = settle  # seconds of measured progress before an ETA is shown
        self.first: tuple[float, float] | None = None  # (time, fraction) of the first update
        self.last = 0.0
        self.drawn = False

    def eta(self, fraction: float, now: float) -> str:
        """Time left at the rate measured since the first update. The first steps (warm-up,
        first allocations) are slow, so nothing is promised until the rate has settled."""
        if self.first is None:
            self.first = (now, fraction)
        start, start_fraction = self.first
        if now - start < self.settle or fraction <= start_fraction:
            return "--:--"
        return clock((now - start) * (1 - fraction) / (fraction - start_fraction))

    def update(self, fraction: float, text: str, force: bool = False) -> None:
        now = time.monotonic()
        fraction = min(max(fraction, 0.0), 1.0)
        eta = self.eta(fraction, now)
        if not force and now - self.last < self.every:
            return
        self.last = now
        filled = int(self.width * fraction)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {text} | ETA {eta}"
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
            self.drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def write(self, message: str) -> None:
        """A message on its own line, without tearing the bar."""
        if self.drawn:
            self.stream.write("\n")
            self.drawn = False
        self.stream.write(message + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
