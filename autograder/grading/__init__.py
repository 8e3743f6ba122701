"""The grading side: code that runs in the grading process, never beside student code.

- ``runner``: ``python -m autograder grade``; one grading pytest process per assignment.
- ``pytest_plugin``: fixtures, seeds and per-test reports for the hidden graders.
- ``rules``: the one reader of a grader's metadata (points, bilingual title, request time
  limit, seed derivation, internal-error text, ``course_data``), shared by the plugin
  and the notebook build.
- ``student``: the graders' handle on the student's code, run by a sandboxed worker.
- ``checks``: verdict helpers; ``forbidden``: the static scan for forbidden shortcuts.
- ``reports``: results.json, JUnit and summary.md; ``console``: what ``grade`` prints.

Class intake (uploads, ``grade-class``, the class CSVs) is :mod:`autograder.intake`, above.
"""
