#!/usr/bin/env python3
"""Where each behaviour-reference ID (UNQ-10, DEL-04, ...) is verified.

The IDs are defined in Docs/BehaviourReference.md: an entry is a list item that starts with the
ID in bold (`- **UNQ-10** · H · ...`). A conformance suite case verifies the IDs in its `id:` and
in its title; a test under `Tests/` verifies the IDs named in its `@Test("...")` title. An ID
named in a title only as context is written after "suite:" or "(suite" and is not counted, e.g.
"(values: the migrations suite, MIG-01)".

    scripts/reference-coverage.py            # summary + IDs verified twice
    scripts/reference-coverage.py --list     # every ID with its suite cases and tests

Numbers: lines of Swift under Tests/, IDs defined, IDs covered (in a suite or a test), IDs
verified twice (both in a suite case and in a Tests/ test). It also lists the IDs that suites or
tests use but the reference does not define, and the defined IDs nothing covers. Exit status 1
when an ID is used but not defined (a typo, or an entry to write), 0 otherwise.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = os.path.join(ROOT, "Sources", "OpenSwiftDataTesting", "Conformance", "Suites")
TESTS = os.path.join(ROOT, "Tests")
REFERENCE = os.path.join(ROOT, "Docs", "BehaviourReference.md")
DEFINITION = re.compile(r"^\s*[-*]\s+\*\*([A-Z]{3}-[0-9]{2})\*\*", re.MULTILINE)
ID = re.compile(r"\b([A-Z]{3}-[0-9]{2})\b")
RANGE = re.compile(r"\b([A-Z]{3})-([0-9]{2})\s*(?:…|\.\.\.)\s*([0-9]{2})\b")
CONTEXT = re.compile(r"(suite[s]?\b[^)]*)", re.IGNORECASE)


def ids_in(text):
    """IDs named in text, with ranges (MIG-01…11) expanded; context mentions dropped."""
    text = CONTEXT.sub("", text)
    found = set(ID.findall(text))
    for prefix, lo, hi in RANGE.findall(text):
        found.update(f"{prefix}-{n:02d}" for n in range(int(lo), int(hi) + 1))
    return found


def swift_files(top):
    for dirpath, _, names in os.walk(top):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(dirpath, name)


def suite_cases():
    case = re.compile(r'ConformanceCase\(\s*suite:\s*"([^"]+)",\s*id:\s*"([^"]+)",\s*title:\s*"((?:[^"\\]|\\.)*)"')
    for path in swift_files(SUITES):
        # The whole file: a formatted case spreads its arguments over several lines.
        for m in case.finditer(open(path, encoding="utf-8").read()):
            suite, cid, title = m.groups()
            yield ids_in(cid) | ids_in(title), f"{suite}: {cid} {title}"


def tests():
    test = re.compile(r'@Test\(\s*"((?:[^"\\]|\\.)*)"')
    for path in swift_files(TESTS):
        rel = os.path.relpath(path, ROOT)
        text = open(path, encoding="utf-8").read()
        for m in test.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            yield ids_in(m.group(1)), f"{rel}:{line} {m.group(1)}"


def defined_ids():
    """The IDs Docs/BehaviourReference.md defines (list items starting with the ID in bold)."""
    with open(REFERENCE, encoding="utf-8") as f:
        return set(DEFINITION.findall(f.read()))


def test_lines():
    return sum(sum(1 for _ in open(p, encoding="utf-8")) for p in swift_files(TESTS))


def main():
    in_suite, in_tests = {}, {}
    for ids, where in suite_cases():
        for i in ids:
            in_suite.setdefault(i, []).append(where)
    for ids, where in tests():
        for i in ids:
            in_tests.setdefault(i, []).append(where)
    defined = defined_ids()
    covered = sorted(set(in_suite) | set(in_tests))
    twice = sorted(set(in_suite) & set(in_tests))
    if "--list" in sys.argv:
        for i in covered:
            print(i)
            for w in in_suite.get(i, []):
                print(f"  suite  {w}")
            for w in in_tests.get(i, []):
                print(f"  test   {w}")
    print(f"test lines (Tests/**/*.swift): {test_lines()}")
    print(f"reference IDs defined ({os.path.relpath(REFERENCE, ROOT)}): {len(defined)}")
    print(f"reference IDs covered: {len(covered)} (suites {len(in_suite)}, Tests/ {len(in_tests)})")
    print(f"IDs verified twice (suite case and Tests/ test): {len(twice)}")
    if twice:
        print("  " + " ".join(twice))
    only_tests = sorted(set(in_tests) - set(in_suite))
    print(f"IDs only in Tests/: {len(only_tests)}")
    if only_tests:
        print("  " + " ".join(only_tests))
    undefined = sorted(set(covered) - defined)
    print(f"IDs used by suites or tests but not defined in the reference: {len(undefined)}")
    for i in undefined:
        for w in in_suite.get(i, []) + in_tests.get(i, []):
            print(f"  {i}  {w}")
    uncovered = sorted(defined - set(covered))
    print(f"IDs defined but covered by no suite case or test: {len(uncovered)}")
    if uncovered:
        print("  " + " ".join(uncovered))
    return 1 if undefined else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # piped into head
        sys.stderr.close()
