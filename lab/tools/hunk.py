#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print a unified diff of upstream files edited by small Python rules.

    hunk.py PRISTINE RULES.py

RULES.py defines EDITS = [(path, [(old, new), ...]), ...]: each old text
must occur exactly once in the pristine file; CONTEXT (default 3) sets the
lines of context, enough to keep a macro and its use in one hunk.  The output is what a patch
file of patches/ carries after its '---' line.
"""
import difflib
import runpy
import sys


def main():
    tree, rules = sys.argv[1:3]
    ns = runpy.run_path(rules)
    edits, context = ns['EDITS'], ns.get('CONTEXT', 3)
    out = []
    for path, changes in edits:
        old = open('%s/%s' % (tree, path)).read()
        new = old
        for a, b in changes:
            if new.count(a) != 1:
                sys.exit('%s: %r occurs %d times' % (path, a[:60], new.count(a)))
            new = new.replace(a, b)
        out += difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                    'a/' + path, 'b/' + path, n=context)
    sys.stdout.write(''.join(out))


if __name__ == '__main__':
    main()
