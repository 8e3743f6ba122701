"""The hidden graders, one folder per assignment (docs/instructors.md, "Hidden graders").

An assignment's classic mistakes live beside the check that recognises them, in its
``test_*.py``; a module of their own (a4's ``layer_mistakes.py``, a6's ``variants.py``)
only when another module of the graders builds on them.
"""
