"""The notebook form of the course.

- ``sources``: what notebooks are made from: the narratives, the solution modules read as
  syntax trees, and what an assignment brings from earlier ones.
- ``build``: notebooks generated from those sources.
- ``nbgrader_course``: the nbgrader course and its release (``python -m autograder nbgrader build``).
- ``nbgrader_autograde``: grading it from the sandbox (``python -m autograder nbgrader autograde``).
- ``scan``: the static scan that refuses notebooks which tamper with the kernel.
- ``kernel``: grading inside a student's kernel (nbgrader's hidden test cells); it depends
  on ``grading``, ``settings`` and ``sources``, never on the notebook build or the nbgrader course.
"""
