"""Instructor-side orchestration, the top of the package: the generated ``assignments/``
folder (``sync``) and student releases (``release``). The stub maker itself is
:mod:`autograder.stubs`, low down, because grading and the notebooks use it too."""
