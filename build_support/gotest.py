"""`go test` over several packages with a line per package as soon as it finishes.

Without -json, go test prints the packages' results in their order, so a slow first
package (gofss: 1.5 min on 2 cores) holds back every line after it; its -json events
come as they happen. This prints go test's own line for each package as it ends (`ok`, `?`),
the whole output of a package that fails, and every build error.

Usage: ``python build_support/gotest.py [go test flags and packages]``; exits with go
test's status. Standard library only.
"""

from __future__ import annotations

import json
import subprocess
import sys


def main(argv: list[str]) -> int:
    proc = subprocess.Popen(["go", "test", "-json", *argv], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    output: dict[str, list[str]] = {}  # package: all its output so far
    summary: dict[str, list[str]] = {}  # package: its own lines (ok, ?, coverage)
    for line in proc.stdout:
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            sys.stdout.write(line)  # not an event: pass it on
        elif event.get("Action") == "build-output":
            sys.stdout.write(event.get("Output", ""))
        elif event.get("Action") == "output":
            package, text = event.get("Package"), event.get("Output", "")
            output.setdefault(package, []).append(text)
            if "Test" not in event and text != "PASS\n":
                summary.setdefault(package, []).append(text)
        elif event.get("Action") in ("pass", "fail", "skip") and "Test" not in event:
            package = event.get("Package")
            shown = output if event["Action"] == "fail" else summary
            sys.stdout.write("".join(shown.get(package, [])))
            output.pop(package, None)
            summary.pop(package, None)
        sys.stdout.flush()
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
