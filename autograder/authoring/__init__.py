"""Instructor-side authoring: student stubs from the solutions (``stubs``), the generated
``assignments/`` folder (``sync``) and student releases (``release``)."""
