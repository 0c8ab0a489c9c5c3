#!/usr/bin/env python3
"""Lists Swift functions, initializers, accessors and subscripts longer than a limit.

Usage: scripts/function-lengths.py [--limit N] PATH...

A function's length is the number of lines from the line of its declaration keyword
(`func`, `init`, `deinit`, `subscript`) to the line of its closing brace, inclusive.
Comments and string literals are skipped when matching braces. Exits 1 when any function
is over the limit (default 80), printing one `path:line: name (N lines)` per finding,
longest first.
"""
import os
import re
import sys

DECL = re.compile(r'\b(func\s+[^\s(<]+|init[?!]?(?=\s*[(<])|deinit\b|subscript(?=\s*[(<]))')


def strip(source):
    """Returns the source with comments and string contents blanked, newlines kept."""
    out = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith('//', i):
            j = source.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif source.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif source.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(''.join('\n' if ch == '\n' else ' ' for ch in source[i:j]))
            i = j
        elif c == '"' or (c == '#' and re.match(r'#+"', source[i:])):
            hashes = len(re.match(r'#*', source[i:]).group(0))
            k = i + hashes
            triple = source.startswith('"""', k)
            quote = '"""' if triple else '"'
            close = quote + '#' * hashes
            j = k + len(quote)
            while j < n:
                if hashes == 0 and source[j] == '\\':
                    j += 2
                    continue
                if source.startswith(close, j):
                    j += len(close)
                    break
                if not triple and source[j] == '\n':
                    break
                j += 1
            out.append(''.join('\n' if ch == '\n' else ' ' for ch in source[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(path):
    text = strip(open(path, encoding='utf-8').read())
    line_starts = [0]
    for idx, ch in enumerate(text):
        if ch == '\n':
            line_starts.append(idx + 1)

    def line_of(offset):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    for m in DECL.finditer(text):
        # The body starts at the first `{` after the signature; a protocol requirement has none
        # before the next declaration or closing brace.
        j, paren = m.end(), 0
        while j < len(text):
            ch = text[j]
            if ch in '([':
                paren += 1
            elif ch in ')]':
                paren -= 1
            elif ch == '{' and paren == 0:
                break
            elif ch == '}' and paren == 0:
                j = -1
                break
            elif paren == 0 and DECL.match(text, j) and j > m.end():
                j = -1
                break
            j += 1
        if j < 0 or j >= len(text):
            continue
        depth, k = 0, j
        while k < len(text):
            if text[k] == '{':
                depth += 1
            elif text[k] == '}':
                depth -= 1
                if depth == 0:
                    break
            k += 1
        start, end = line_of(m.start()), line_of(k)
        yield m.group(0).split()[-1], start, end - start + 1


def main(argv):
    limit = 80
    if len(argv) > 1 and argv[0] == '--limit':
        limit, argv = int(argv[1]), argv[2:]
    findings = []
    for root in argv or ['Sources/OpenSwiftData']:
        paths = [root] if root.endswith('.swift') else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith('.swift')]
        for path in sorted(paths):
            for name, line, length in functions(path):
                if length > limit:
                    findings.append((length, path, line, name))
    for length, path, line, name in sorted(findings, reverse=True):
        print(f'{path}:{line}: {name} ({length} lines)')
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
