#!/usr/bin/env python3
"""Counts each module's public declarations from the symbol graphs `scripts/docs.sh` writes.

Usage: scripts/public-declarations.py [--graphs DIR] [--budget MODULE=N ...] [--by-type MODULE]

A declaration is one symbol of the module's own graph (`<Module>.symbols.json`, public and open
only): a type, case, property, method, initializer, subscript or operator, each counted once.
Members the compiler synthesizes (protocol extension members a type inherits) are not counted;
a conformance's requirements the compiler writes for the type (`init(from:)` of a `Codable`
struct, `init(rawValue:)` of a raw-value enum) are, as a client can call them. Extensions of
other modules' types (`<Module>@Swift.symbols.json`) are counted with the module; symbols a
module re-exports from another (`@_exported import`) are not. Modules under Sources/ only.

Prints `MODULE N` per module, largest first. With `--budget`, exits 1 when a module has more
public declarations than its budget. With `--by-type`, also lists that module's counts per
top-level type.
"""
import argparse
import collections
import glob
import json
import os
import sys


def symbols(paths, sources):
    """The non-synthesized public symbols of the graphs at `paths` declared under `sources`
    (a module that re-exports another module's graph lists its symbols too). A symbol the
    compiler wrote has no location; it counts when its parent type is declared under `sources`."""
    public = []
    for path in paths:
        with open(path) as f:
            graph = json.load(f)
        public += [
            symbol for symbol in graph.get('symbols', [])
            if '::SYNTHESIZED::' not in symbol['identifier']['precise']
            and symbol.get('accessLevel') in ('public', 'open')
        ]
    own = [s for s in public if sources in s.get('location', {}).get('uri', '')]
    own_types = {tuple(s['pathComponents']) for s in own}
    written = [
        s for s in public
        if 'location' not in s and tuple(s['pathComponents'][:-1]) in own_types
    ]
    return own + written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--graphs', default='.build/docs/symbol-graphs')
    parser.add_argument('--budget', action='append', default=[], metavar='MODULE=N')
    parser.add_argument('--by-type', metavar='MODULE')
    args = parser.parse_args()

    if not os.path.isdir(args.graphs):
        sys.exit(f'public-declarations.py: no symbol graphs in {args.graphs} (run scripts/docs.sh first)')
    modules = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(args.graphs, '*.symbols.json'))):
        name = os.path.basename(path)[:-len('.symbols.json')]
        modules[name.split('@')[0]].append(path)

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
    counts = {
        module: symbols(paths, os.path.join(root, 'Sources', module) + os.sep)
        for module, paths in modules.items()
        if os.path.isdir(os.path.join(root, 'Sources', module))
    }
    for module, found in sorted(counts.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f'{module} {len(found)}')

    if args.by_type:
        per_type = collections.Counter(s['pathComponents'][0] for s in counts.get(args.by_type, []))
        print(f'\n{args.by_type} by top-level type:')
        for name, n in per_type.most_common():
            print(f'  {n:4d} {name}')

    failed = False
    for budget in args.budget:
        module, _, limit = budget.partition('=')
        if module not in counts:
            sys.exit(f'public-declarations.py: no symbol graph for {module}')
        if len(counts[module]) > int(limit):
            print(f'public-declarations.py: {module} has {len(counts[module])} public declarations, '
                  f'over its budget of {limit}: make the project\'s own helpers `package`', file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
