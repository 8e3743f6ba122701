"""The notebook form of the course.

- ``build``: notebooks generated from the solutions and their narratives (sources).
- ``nbgrader_course``: the nbgrader course (``python -m autograder nbgrader ...``).
- ``scan``: the static scan that refuses notebooks which tamper with the kernel.
- ``kernel``: grading inside a student's kernel (nbgrader's hidden test cells); it depends
  on ``grading`` and ``settings``, never on the nbgrader course build.
"""
