#!/usr/bin/env python3
"""Inclusive instruction counts and call counts of functions in a callgrind output file.

    valgrind --tool=callgrind --callgrind-out-file=cg.out .build/release/harness bench ...
    scripts/callgrind-inclusive.py cg.out 'PATTERN' ['PATTERN' ...]

For each regular expression PATTERN, prints every function whose (mangled) name matches it:
how many times it was called, the instructions spent inside it and everything it called, and
their ratio (instructions per call). Costs are summed over every call site, so a function called
from several places counts once per call. Recursive calls are counted twice; the workload
bodies this is meant for do not recurse.
"""
import re
import sys
from collections import defaultdict


def parse(path):
    """Calls and inclusive instructions per callee name."""
    names = {}  # "(id)" -> name, for fn= / cfn= compression
    calls = defaultdict(int)
    inclusive = defaultdict(int)
    callee = None
    pending_calls = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("cfn="):
                callee = resolve(line[4:], names)
            elif line.startswith("fn="):
                resolve(line[3:], names)
            elif line.startswith("calls="):
                pending_calls = int(line[6:].split()[0])
            elif pending_calls is not None and line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                calls[callee] += pending_calls
                inclusive[callee] += cost
                pending_calls = None
    return calls, inclusive


def resolve(text, names):
    """A compressed name `(n) name` or `(n)` as its name."""
    m = re.match(r"\((\d+)\)(?: (.*))?", text)
    if not m:
        return text
    if m.group(2) is not None:
        names[m.group(1)] = m.group(2)
    return names.get(m.group(1), text)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    calls, inclusive = parse(sys.argv[1])
    for pattern in sys.argv[2:]:
        regex = re.compile(pattern)
        for name in sorted(n for n in calls if regex.search(n)):
            per = inclusive[name] / calls[name] if calls[name] else 0
            print(f"{calls[name]:>8} calls {inclusive[name]:>16,} Ir {per:>16,.0f} Ir/call  {name}")


if __name__ == "__main__":
    main()
