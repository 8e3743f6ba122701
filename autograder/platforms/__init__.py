"""Where courses grade: Gradescope's autograder zip and runner (``gradescope``)."""
