"""The second round of held-out classic mistakes (being written)."""

MUTANTS = {}
