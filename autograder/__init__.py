"""Course tooling: stub generation, hidden graders and the grading runner."""
