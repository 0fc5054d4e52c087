#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest half of the cache benchmark: traces through the real target.

The harness predicts what each smq costs; this checks the prediction on
the kernels themselves.  `export` writes the traces below, in cache
blocks as the harness reads them, and a manifest of the cache sizes into
a tar that make bench hands each guest as a second disk; the guests
replay every trace through dm-cache with their smq (ours on our kernel,
the packaged one on the tree's).  `report` compares what reached the
origin in the two guests with the harness's prediction for the same
cells, writes a Markdown report and prints RESULT lines.

    cache_guest_bench.py export TAR
    cache_guest_bench.py report OUT_DIR OURS_RESULTS TREE_RESULTS
"""
import math
import os
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
REPLAY = os.path.join(REPO, 'harness', 'build', 'replay')
TRACES = os.environ.get('LAB_TRACES', os.path.join(os.path.dirname(REPO), 'shared', 'traces'))
BLOCK_BYTES = 32768	# the target's smallest cache block

# The traces replayed in the guests, whole: the LIRS set but for its pure
# loop, at 10 and 25 % of each footprint, RATE requests a second.  The
# tree's smq counts its periods in seconds, ours in lookups: unpaced, a
# guest under TCG replays 15,000 to 30,000 requests a second, and the
# tree's smq then promotes almost nothing before a short trace ends.  The
# harness predicts each cell at the same rate.
LIRS = ['2_pools', 'backf', 'cpp', 'cs', 'gli', 'multi1', 'multi2', 'multi3', 'ps', 'scan',
        'sprite', 'zigzag']
CELLS = [('lirs/%s.trace.gz' % t, [10, 25]) for t in LIRS]
RATE = 4000
# The first request comes LEAD_MS after the cache's creation, in the guests
# (blkreplay's START) and in the harness (--lead-us): long enough for a
# guest under TCG to create the cache and start blkreplay (up to 200 ms
# were seen).  The tree's smq ends its first hotspot period at the first
# lookup a jiffy or more after its creation and the target ticks it every
# second from its creation: with another lead its figures change (cpp at
# 10 %: 0.556 of accesses missed with none, 0.710 with 50 ms, 0.752 with
# 8 or 500 ms; ours: 0.230 with each).
LEAD_MS = 500
LATE_MS = 100	# a replay further behind its schedule is flagged


def run_replay(args):
    out = subprocess.run([REPLAY] + args, capture_output=True, text=True)
    if out.returncode:
        sys.exit('cache_guest_bench: replay %s failed:\n%s' % (' '.join(args), out.stderr))
    return out.stdout


def footprint(header):
    """Blocks a trace touches, from replay's '# name: ...' line."""
    words = header.split()
    return int(words[words.index('footprint') + 1])


def export(tar_path):
    manifest = []
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(tar_path, 'w') as tar:
        for path, sizes in CELLS:
            name = os.path.basename(path).split('.')[0]
            lt = os.path.join(tmp, name + '.lt')
            head = run_replay(['--block-bytes', str(BLOCK_BYTES), '--export', lt,
                               os.path.join(TRACES, path)])
            fp = footprint(head.splitlines()[0])
            for pct in sizes:
                # as replay sizes a cache: a share of the footprint, at least 1
                manifest.append('%s.lt %dpct %d %d %d' % (name, pct, max(fp * pct // 100, 1),
                                                         RATE, LEAD_MS))
            tar.add(lt, arcname=name + '.lt')
        mf = os.path.join(tmp, 'MANIFEST')
        with open(mf, 'w') as f:
            f.write('\n'.join(manifest) + '\n')
        tar.add(mf, arcname='MANIFEST')


def parse_guest(path):
    """cache NAME SIZE BLOCKS ACCESSES RH RM WH WM DEM PROM ORIGIN_R ORIGIN_W LATE_MS"""
    if not os.path.exists(path):
        sys.exit('cache_guest_bench: no results at %s (see the guest log)' % path)
    cells = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) != 14 or w[0] != 'cache':
                sys.exit('cache_guest_bench: %s: bad line: %s' % (path, line.strip()))
            n = [int(x) for x in w[3:]]
            if sum(n[2:6]) != n[1]:
                sys.exit('cache_guest_bench: %s: %s at %s: %d hits and misses for %d '
                         'accesses' % (path, w[1], w[2], sum(n[2:6]), n[1]))
            cells[(w[1], w[2])] = dict(
                blocks=n[0], accesses=n[1], miss=(n[3] + n[5]) / n[1],
                promotions=n[7], demotions=n[6], slow=(n[8] + n[9]) / n[1], late=n[10])
    return cells


def predict(cells):
    """The harness's figures for the same cells, with the guests' block size."""
    pred = {}
    for path, sizes in CELLS:
        out = run_replay(['--data', '--policies', 'ours,tree',
                          '--sizes', ','.join(str(p) for p in sizes),
                          '--block-bytes', str(BLOCK_BYTES), '--rate', str(RATE),
                          '--lead-us', str(LEAD_MS * 1000), os.path.join(TRACES, path)])
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == 'DATA' and (f[1], f[2]) in cells:
                pred[(f[1], f[2], f[3])] = float(f[6])
    return pred


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def report(out_dir, ours_path, tree_path):
    ours, tree = parse_guest(ours_path), parse_guest(tree_path)
    both = sorted(set(ours) & set(tree))
    want = sum(len(sizes) for _, sizes in CELLS)
    if len(both) != want:
        sys.exit('cache_guest_bench: %d of %d cells replayed in both guests (ours: %s, '
                 'tree: %s)' % (len(both), want, ours_path, tree_path))
    pred = predict(set(both))
    lines = ['# Cache policies in the guests: traces through dm-cache', '',
             'Each trace replayed by blkreplay through dm-cache (writeback, 32 KiB '
             'blocks, zero targets for cache and origin, %d requests a second from %d ms '
             "after the cache's creation) on our kernel (our smq) and on the tree's "
             'kernel (its smq). Slow I/O per access counts the requests that reached '
             "the origin; the harness's prediction for the same cell (ours / tree) is "
             'beside it. Late: how far behind its schedule each replay fell (ms, ours / '
             'tree).' % (RATE, LEAD_MS), '',
             '| trace | size | blocks | accesses | miss ours | miss tree | slow ours |'
             ' slow tree | ratio | harness ratio | promotions ours | promotions tree | late |',
             '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|']
    results, ratios, miss_ratios, preds, late = [], [], [], [], []
    for key in both:
        o, t = ours[key], tree[key]
        ratio = o['slow'] / t['slow']
        p_o, p_t = pred.get(key + ('ours',)), pred.get(key + ('tree',))
        p_ratio = p_o / p_t if p_o is not None and p_t else float('nan')
        ratios.append(ratio)
        if t['miss']:
            miss_ratios.append(o['miss'] / t['miss'])
        if p_o is not None and p_t:
            preds.append(p_ratio)
        if max(o['late'], t['late']) > LATE_MS:
            late.append('%s at %s' % key)
        lines.append('| %s | %s | %d | %d | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %d | %d |'
                     ' %d / %d |' % (key[0], key[1], o['blocks'], o['accesses'], o['miss'],
                                     t['miss'], o['slow'], t['slow'], ratio, p_ratio,
                                     o['promotions'], t['promotions'], o['late'], t['late']))
        results.append(('guest_slow_io_ratio.%s.%s' % key, ratio))
    results.append(('guest_geomean_slow_io_ratio.ours_vs_tree', geomean(ratios)))
    if len(miss_ratios) == len(ratios):
        results.append(('guest_geomean_miss_ratio.ours_vs_tree', geomean(miss_ratios)))
    if len(preds) == len(ratios):
        results.append(('guest_geomean_slow_io_ratio.harness_prediction', geomean(preds)))
    lines += ['', 'Geometric means over %d cells: slow I/O %.4f, misses %.4f (ours / tree); '
              'the harness predicted %.4f.' % (len(ratios), geomean(ratios),
                                                geomean(miss_ratios) if miss_ratios else
                                                float('nan'),
                                                geomean(preds) if preds else float('nan'))]
    if late:
        lines += ['', 'More than %d ms behind schedule (not paced as the harness assumes): %s.'
                  % (LATE_MS, ', '.join(late))]
        print('cache_guest_bench: replays behind schedule: %s' % ', '.join(late),
              file=sys.stderr)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'cache-guest.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('# report: %s' % os.path.join(out_dir, 'cache-guest.md'), file=sys.stderr)
    for name, value in results:
        print('RESULT %s %.6g' % (name, value))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'export':
        export(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == 'report':
        report(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
