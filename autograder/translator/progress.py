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

    def __init__(self, stream=None, width: int = 24, every: float = 0.5, log_every: float = 30.0):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width, self.every = width, every if self.tty else log_every
        self.start = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def update(self, fraction: float, text: str, elapsed: float | None = None, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        fraction = min(max(fraction, 0.0), 1.0)
        elapsed = now - self.start if elapsed is None else elapsed
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else 0.0
        filled = int(self.width * fraction)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {text} | ETA {clock(eta)}"
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
