"""Screenshots of nbgrader feedback pages in a real browser (headless Chromium).

    python tests/feedback_screenshots.py COURSE_DIR --out DIR [--assignment a1_attention]

For every student with feedback for the assignment, writes ``DIR/<student>.png`` (the
page as Chromium renders it) and prints the path with the student's grade. Use it to check
by eye what a student sees: the per-cell points, each failed check's message in both
languages, the seed; and nothing of the hidden tests. Needs Debian's ``chromium``
(``apt-get install chromium``).
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("course", help="a course directory after `python -m autograder nbgrader autograde`")
    parser.add_argument("--out", required=True, help="folder for the PNG files")
    parser.add_argument("--assignment", default="a1_attention")
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        parser.error("no Chromium found; install it (Debian: apt-get install chromium)")
    pages = sorted(Path(args.course, "feedback").glob(f"*/{args.assignment}/*.html"))
    if not pages:
        parser.error(f"no feedback pages for {args.assignment} in {args.course}/feedback")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for page in pages:
        student = page.parts[-3]
        png = out / f"{student}.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1100,2600", f"--screenshot={png}", page.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)
        print(f"{png}  ({student})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
