"""The notebook form of the course.

- ``sources``: what notebooks are made from: the narratives, the solution modules read as
  syntax trees, and what an assignment brings from earlier ones.
- ``build``: notebooks generated from those sources.
- ``nbgrader_course``: the nbgrader course and its release (``python -m autograder nbgrader build``).
- ``nbgrader_autograde``: grading it from the sandbox (``python -m autograder nbgrader autograde``).
- ``extract``: a submitted notebook into the module form, which is what is graded.
- ``sandboxed``: nbgrader's grades from the sandbox (the module form's verdicts).
- ``scan``: the static scan that refuses notebooks which tamper with nbgrader's kernel run.
- ``selfcheck``: the students' ``check("masks")`` cells (public tests only, never a grade).
"""
