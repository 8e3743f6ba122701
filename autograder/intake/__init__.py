"""Class intake: what students hand in, turned into submissions, graded, and recorded.

- ``uploads``: any upload (folder, zip, git bundle, notebook) into the module form; a
  notebook goes through :mod:`autograder.notebooks.extract`, so this package sits above
  ``notebooks``.
- ``batch``: ``python -m autograder grade-class``, one upload per student, resumable.
- ``gradebook``: the class's CSVs (``grades.csv``, Canvas's import).
- ``sources``: what each student wrote, as text, for the class report's similarity check.
"""
