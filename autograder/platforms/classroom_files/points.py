"""Points of one assignment's public tests, for GitHub Classroom's autograding reporter.

    python .github/classroom/points.py a1_attention --max-score 12

Runs ``pytest assignments/<assignment>`` and writes the reporter's payload (base64 JSON:
one entry per test, 1 point each) to the step output ``result``. These are the public
checks you also run yourself; your grade comes from the instructor's hidden graders.

Ejecuta las pruebas públicas de una tarea y entrega sus puntos (1 por prueba) al reporter
de GitHub Classroom. Son las mismas pruebas que ejecutas tú; tu nota la ponen los
correctores ocultos del profesor.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path


def run_tests(assignment: str, timeout: float) -> tuple[list[dict], str]:
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        command = [sys.executable, "-m", "pytest", f"assignments/{assignment}", "-q", "-p", "no:cacheprovider",
                   f"--junitxml={junit}"]
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            log = proc.stdout + proc.stderr
        except subprocess.TimeoutExpired:
            return [], f"the tests did not finish in {timeout:g} s / las pruebas no terminaron en {timeout:g} s"
        if not junit.is_file():
            return [], log
        tests = []
        for case in ET.parse(junit).iter("testcase"):
            problem = case.find("failure")
            if problem is None:
                problem = case.find("error")
            skipped = case.find("skipped") is not None
            passed = problem is None and not skipped
            message = "" if passed else (problem.get("message", "") if problem is not None else "skipped")
            tests.append({
                "name": f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}",
                "status": "pass" if passed else "fail",
                "score": 1 if passed else 0,
                "max_score": 1,
                "message": message.splitlines()[0][:500] if message else "",
                "test_code": f"pytest assignments/{assignment} -k {case.get('name')}",
                "filename": case.get("file", ""),
                "line_no": int(case.get("line") or 0),
                "duration": round(float(case.get("time") or 0) * 1000),
            })
        return tests, log


def payload(tests: list[dict], max_score: int, log: str) -> dict:
    # Tests that did not run (a module that fails to import stops collection) count as failed,
    # so the points are always out of the release's number of tests.
    missing = max(0, max_score - len(tests))
    tests = tests[:max_score] + [{
        "name": f"tests that did not run ({missing}) / pruebas que no se ejecutaron", "status": "error",
        "score": 0, "max_score": missing, "message": log.strip().splitlines()[-1][:500] if log.strip() else "",
        "test_code": "", "filename": "", "line_no": 0, "duration": 0}] * (missing > 0)
    ok = all(t["status"] == "pass" for t in tests) and not missing
    return {"version": 1, "status": "pass" if ok else "fail", "max_score": max_score, "tests": tests}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignment", help="e.g. a1_attention")
    parser.add_argument("--max-score", type=int, required=True, help="number of public tests in the release")
    parser.add_argument("--timeout", type=float, default=900, help="seconds for the whole test run (default 900)")
    args = parser.parse_args()
    if not Path("assignments", args.assignment).is_dir():
        parser.error(f"no folder assignments/{args.assignment}; run this from the repository's root")
    tests, log = run_tests(args.assignment, args.timeout)
    data = payload(tests, args.max_score, log)
    score = sum(t["score"] for t in data["tests"])
    print(f"{args.assignment}: {score}/{args.max_score} public tests passed / pruebas públicas superadas")
    for t in data["tests"]:
        if t["status"] != "pass":
            print(f"  FAIL {t['name']}: {t['message']}")
    encoded = base64.b64encode(json.dumps(data).encode("utf-8")).decode("ascii")
    if os.environ.get("GITHUB_OUTPUT"):
        with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
            out.write(f"result={encoded}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
