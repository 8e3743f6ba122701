"""Course tooling: stub generation, hidden graders and the grading runner."""

from .settings import passive_waiting

# Every entry point (python -m autograder, translator, the benchmarks) imports this package
# before torch, so its OpenMP threads are set to wait passively here (settings.py says why).
passive_waiting()
