"""Code that runs in the student's process: ``worker`` (main loop), ``harness``
(operations) and ``wire`` (frames and the plain-data codec, the protocol's one definition).

The folder is copied whole into each scratch directory and run there as top-level
modules, so it imports nothing from the ``autograder`` package: only the standard
library, torch and its own modules by their top-level names (tests/test_layout.py
checks this). The grading process imports the same files as ``autograder.sandbox.child``.
"""
