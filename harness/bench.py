#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cache half of `make bench`.

Replays every trace of shared/traces and the synthetic generators through
our smq, the tree's smq, LRU and OPT at 1, 5, 10 and 25 % of each
footprint, again (ours and the tree's) with migrations that take 1 ms, and
measures memory per block, the longest tick, instructions per lookup
(callgrind), re-warming after a working-set shift and the sensitivity to
the replay rate.  Writes a Markdown report and PNG plots,
and prints one `RESULT name value` line per figure.

    bench.py [--traces DIR] [--out DIR] [--quick]
"""
import argparse
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPLAY = os.path.join(HERE, 'build', 'replay')
POLICIES = ['ours', 'tree', 'lru', 'opt']
SIZES = ['1pct', '5pct', '10pct', '25pct']

# (file, extra replay arguments); names are the file names without extensions
TRACES = [
    ('cloudphysics/cloudPhysicsIO.vscsi', []),
    ('cloudphysics/w106.trace.xz', []),
    ('arc/OLTP.lis.zst', []),
    ('arc/P3.lis.zst', []),
]
GENERATORS = ['gen:zipf:0.8', 'gen:zipf:1.0', 'gen:zipf:1.2', 'gen:scan:0.3', 'gen:shift',
              'gen:uniform']
# Ours draws the multipliers of its hashes at random when it is created
# (get_random_u64(), which the harness seeds: replay --policy-seed), and its
# results move a little with the draw.  In the main tables and in those of
# migrations that take 1 ms its figures are means over SEEDS draws, 0 to
# SEEDS - 1; the geometric means of the best and the worst single draw are
# printed beside them.  The rest of the bench replays draw 0 alone.
SEEDS = 8


def replay(args):
    cmd = [REPLAY, '--data'] + args
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit('bench: %s failed:\n%s' % (' '.join(cmd), out.stderr))
    return out.stdout


def parse_bounds(text):
    """The floor under any policy's slow-device I/O and the cost of the best
    clairvoyant plan found (misses + promotions), per trace and size."""
    return {(f[1], f[2]): (float(f[4]), float(f[5]))
            for f in (line.split() for line in text.splitlines()) if f and f[0] == 'BOUND'}


def parse_data(text):
    rows = []
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == 'DATA':
            rows.append(dict(trace=f[1], size=f[2], policy=f[3], blocks=int(f[4]),
                             miss=float(f[5]), slow=float(f[6]), promotions=int(f[7]),
                             demotions=int(f[8]), writebacks=int(f[9]), bytes=int(f[10]),
                             lookups=int(f[11]), unused=int(f[12])))
    return rows


def parse_swaps(text):
    """SWAPS lines (replay --audit), by trace, size and policy."""
    return {(f[1], f[2], f[3]): dict(swaps=int(f[4]), paid=int(f[5]), won=int(f[6]),
                                     lost=int(f[7]), copies=int(f[8]))
            for f in (line.split() for line in text.splitlines()) if f and f[0] == 'SWAPS'}


def swaps_table(swaps, cells, title):
    """What each smq's promotions into a full cache bought, cell by cell,
    and in all (the report's text says how; harness/audit.c settles them)."""
    lines = ['### What promotions into a full cache bought, %s\n' % title,
             'A swap is a promotion paired with the demotion that freed its block. Its net '
             'is the hits the promoted block served until it left, less the accesses to the '
             'demoted block over the same span, less the copy (harness/audit.c): positive, '
             'the swap saved slow-device I/O. The demoted block\'s hits are an estimate: had '
             'it stayed, another block might have left in its place later.\n',
             '| trace | size | ours: swaps | paid | net per swap | tree: swaps | paid |'
             ' net per swap |', '|---|---|---:|---:|---:|---:|---:|---:|']
    total = {}
    for trace, size in cells:
        row = ['%s | %s' % (trace, size)]
        for p in ('ours', 'tree'):
            a = swaps.get((trace, size, p))
            if not a or not a['swaps']:
                row.append('0 | | ')
                continue
            net = a['won'] - a['lost'] - a['copies']
            t = total.setdefault(p, [0, 0, 0])
            t[0] += a['swaps']
            t[1] += a['paid']
            t[2] += net
            row.append('%d | %.0f %% | %+.2f' % (a['swaps'], 100.0 * a['paid'] / a['swaps'],
                                                net / a['swaps']))
        lines.append('| ' + ' | '.join(row) + ' |')
    lines.append('')
    for p, (n, paid, net) in sorted(total.items()):
        lines.append('- %s: %d swaps, %.0f %% paid, %+d slow-device I/Os saved in all' %
                     (p, n, 100.0 * paid / n, net))
    return '\n'.join(lines) + '\n'


def mean_over_seeds(runs):
    """Ours' rows of one trace replayed with each seed, as one row per size:
    ratios averaged, counts averaged and rounded."""
    rows = []
    for cell in zip(*runs):
        r = dict(cell[0])
        for key in ('miss', 'slow'):
            r[key] = sum(c[key] for c in cell) / len(cell)
        for key in ('promotions', 'demotions', 'writebacks', 'unused'):
            r[key] = int(round(sum(c[key] for c in cell) / len(cell)))
        rows.append(r)
    return rows


def ours_over_seeds(rows, path, extra, seed_rows):
    """@rows, a replay of @path with draw 0 and @extra, with ours' rows made
    means over SEEDS draws (see mean_over_seeds()); each draw's rows of
    ours go to its list in @seed_rows."""
    runs = [[r for r in rows if r['policy'] == 'ours']]
    runs += [parse_data(replay(extra + ['--policies', 'ours', '--policy-seed', str(seed), path]))
             for seed in range(1, SEEDS)]
    for seed, run in enumerate(runs):
        seed_rows[seed] += run
    ours = iter(mean_over_seeds(runs))
    return [next(ours) if r['policy'] == 'ours' else r for r in rows]


def seed_spread(rows, seed_rows, suffix, report, results):
    """The geometric means over the cells of @rows of ours against the tree,
    each draw of ours' hashes alone: the best and the worst."""
    tree = {(r['trace'], r['size']): r for r in rows if r['policy'] == 'tree'}
    for key, name, label in (('slow', 'slow_io', 'slow-device I/O'), ('miss', 'miss', 'misses')):
        by_seed = []
        for seed in seed_rows:
            ratio = [r[key] / tree[(r['trace'], r['size'])][key] for r in seed
                     if (r['trace'], r['size']) in tree and tree[(r['trace'], r['size'])][key]]
            by_seed.append(geomean(ratio))
        results.append(('geomean_%s_ratio%s.ours_vs_tree.seed_min' % (name, suffix),
                        min(by_seed)))
        results.append(('geomean_%s_ratio%s.ours_vs_tree.seed_max' % (name, suffix),
                        max(by_seed)))
        report.append('- ours, %s, one draw at a time: geometric mean from %.4f to %.4f over %d '
                      'draws' % (label, min(by_seed), max(by_seed), len(by_seed)))
    report.append('')


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')


def table(rows, title, bounds=None):
    lines = ['### ' + title, '',
             '| size | policy | cache blocks | miss ratio | slow I/O per access | promotions |'
             ' demotions | demoted unhit | writebacks |',
             '|---|---|---:|---:|---:|---:|---:|---:|---:|']
    for r in rows:
        lines.append('| %s | %s | %d | %.4f | %.4f | %d | %d | %d | %d |' % (
            r['size'], r['policy'], r['blocks'], r['miss'], r['slow'], r['promotions'],
            r['demotions'], r['unused'], r['writebacks']))
        bound = (bounds or {}).get((r['trace'], r['size']))
        if bound is not None and r['policy'] == POLICIES[-1]:
            lines.append('| %s | floor | %d | | %.4f | | | | |' %
                         (r['size'], r['blocks'], bound[0]))
            lines.append('| %s | clairvoyant plan | %d | | %.4f | | | | |' %
                         (r['size'], r['blocks'], bound[1]))
    return '\n'.join(lines) + '\n'


def plot(rows, trace, out_dir):
    """Miss ratio against cache size, one line per policy."""
    dat = os.path.join(out_dir, trace + '.dat')
    with open(dat, 'w') as f:
        for p in POLICIES:
            for s in SIZES:
                r = [x for x in rows if x['policy'] == p and x['size'] == s]
                if r:
                    f.write('%s %s\n' % (s.replace('pct', ''), r[0]['miss']))
            f.write('\n\n')
    png = os.path.join(out_dir, trace + '.png')
    script = '\n'.join([
        'set terminal pngcairo size 720,480 noenhanced' if have_cairo() else 'set terminal png size 720,480 noenhanced',
        'set output "%s"' % png,
        'set title "%s: miss ratio by cache size"' % trace,
        'set xlabel "cache size, % of footprint"', 'set ylabel "miss ratio"',
        'set logscale x', 'set xtics (1, 5, 10, 25)', 'set yrange [0:*]', 'set key top right',
        'plot ' + ', '.join('"%s" index %d with linespoints title "%s"' % (dat, i, p)
                            for i, p in enumerate(POLICIES)),
    ])
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    return png


_cairo = None


def have_cairo():
    global _cairo
    if _cairo is None:
        out = subprocess.run(['gnuplot', '-e', 'set terminal'], capture_output=True, text=True)
        _cairo = 'pngcairo' in out.stdout + out.stderr
    return _cairo


def insn_per_lookup(trace_path, policy, out_dir):
    """Instructions inside the policy's lookup functions per lookup."""
    cg = os.path.join(out_dir, 'callgrind.%s.out' % policy)
    cmd = ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + cg,
           '--toggle-collect=smq_lookup', '--toggle-collect=smq_lookup_with_work',
           REPLAY, '--data', '--policies', policy, '--sizes', '10', trace_path]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit('bench: callgrind failed:\n' + out.stderr[-2000:])
    lookups = parse_data(out.stdout)[0]['lookups']
    ann = subprocess.run(['callgrind_annotate', cg], capture_output=True, text=True).stdout
    m = re.search(r'^([\d,]+)\s+(?:\(100\.0%\)\s+)?PROGRAM TOTALS', ann, re.M)
    if not m:
        sys.exit('bench: no totals in callgrind output')
    return int(m.group(1).replace(',', '')) / lookups


def summarise_vs_tree(rows, title, suffix, report, results, bounds=None):
    """Geometric mean and worst cell of each policy over the tree's, per metric.

    LRU and OPT put ours in context: OPT is the offline miss-optimal policy
    (it may bypass), so its slow-device I/O shows how far a policy that
    knows the future but minimises misses gets against the tree.  The floor
    (harness/bound.c) is below what any policy, however clairvoyant, can
    reach in slow-device I/O; the clairvoyant plan is the cheapest real plan
    found on the way to it (misses + promotions; writebacks, which only
    cloudPhysicsIO has, not counted), so the optimum lies between the two.
    Policies not replayed are left out.  Names the cells of ours that have
    more slow-device I/O than the tree's, and returns how many there are.
    """
    pairs = {}
    named = []
    for r in rows:
        pairs.setdefault((r['trace'], r['size']), {})[r['policy']] = r
    report.append('### Against the tree, %s × sizes\n' % title)
    report.append('| policy | metric | geometric mean | worst cell | cells above 1.0 |')
    report.append('|---|---|---:|---:|---:|')
    for policy in ('ours', 'lru', 'opt'):
        for key, name, label in (('slow', 'slow_io', 'slow-device I/O'),
                                 ('miss', 'miss', 'miss ratio')):
            ratios = {cell: p[policy][key] / p['tree'][key] for cell, p in pairs.items()
                      if policy in p and p['tree'][key]}
            if not ratios:
                continue
            ratio = list(ratios.values())
            above = sorted((x, cell) for cell, x in ratios.items() if x > 1.0)
            if (policy, key) == ('ours', 'slow'):
                named = above
            report.append('| %s | %s | %.3f | %.3f | %d of %d |' %
                          (policy, label, geomean(ratio), max(ratio), len(above), len(ratio)))
            results.append(('geomean_%s_ratio%s.%s_vs_tree' % (name, suffix, policy),
                            geomean(ratio)))
    for i, name, label in ((0, 'floor', 'floor'), (1, 'plan', 'clairvoyant plan')):
        if not bounds:
            break
        ratio = [bounds[cell][i] / p['tree']['slow'] for cell, p in pairs.items()]
        report.append('| %s | slow-device I/O | %.3f | %.3f | %d of %d |' %
                      (label, geomean(ratio), max(ratio), sum(x > 1.0 for x in ratio),
                       len(ratio)))
        results.append(('geomean_slow_io_ratio%s.%s_vs_tree' % (suffix, name), geomean(ratio)))
    report.append('')
    if named:
        report.append('Ours above the tree in slow-device I/O: %s.\n' % ', '.join(
            '%s at %s (%.4f)' % (trace, size, x) for x, (trace, size) in reversed(named)))
    return len(named)


def rewarm(windows, policy, nr_windows):
    """Requests after the shift until a window reaches 90% of steady state."""
    hr = windows[policy]
    half = nr_windows // 2
    steady = sum(hr[-nr_windows // 4:]) / (nr_windows // 4)
    for i in range(half, nr_windows):
        if hr[i] >= 0.9 * steady:
            return i - half + 1, steady
    return nr_windows - half, steady


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--traces', default=os.path.join(HERE, '..', '..', 'shared', 'traces'))
    ap.add_argument('--out', default=os.path.join(HERE, '..', 'out', 'bench'))
    ap.add_argument('--quick', action='store_true', help='skip callgrind and the LIRS set')
    ap.add_argument('--no-callgrind', action='store_true', help='skip callgrind')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = []
    report = ['# Cache policies: ours, the tree\'s smq, LRU and OPT', '',
              'Replayed by `harness/build/replay` (dm-cache\'s core modelled; see '
              'harness/sim.c). Slow-device I/O per access is (misses + promotions + '
              'writebacks) / accesses; promotions are whole-block copies from the origin.', '']

    traces = [(os.path.join(a.traces, f), x) for f, x in TRACES]
    if not a.quick:
        lirs = sorted(os.listdir(os.path.join(a.traces, 'lirs')))
        traces += [(os.path.join(a.traces, 'lirs', f), []) for f in lirs]
    traces += [(g, []) for g in GENERATORS]

    all_rows = []
    seed_rows = [[] for _ in range(SEEDS)]
    bounds = {}
    swaps = {}
    generated = set()
    for path, extra in traces:
        # the floor takes seconds a trace: only for the real traces, the
        # ones it is reported for
        real = not path.startswith('gen:')
        out = replay(extra + ['--audit'] +
                     (['--policies', ','.join(POLICIES + ['bound'])] if real else []) + [path])
        rows = ours_over_seeds(parse_data(out), path, extra, seed_rows)
        bounds.update(parse_bounds(out))
        swaps.update(parse_swaps(out))
        name = rows[0]['trace']
        if not real:
            generated.add(name)
        all_rows += rows
        report.append(table(rows, name + ' (4 KiB blocks, or the trace\'s own blocks)', bounds))
        report.append('![%s](%s)\n' % (name, os.path.basename(plot(rows, name, a.out))))
        for r in rows:
            for metric, key in (('miss_ratio', 'miss'), ('slow_io_per_access', 'slow'),
                                ('promotions', 'promotions'),
                                ('demoted_unhit', 'unused')):
                results.append(('%s.%s.%s.%s' % (name, r['size'], r['policy'], metric), r[key]))

    # cloudPhysicsIO at lvm's default cache chunk
    rows = parse_data(replay(['--block-bytes', '64K', traces[0][0]]))
    report.append(table(rows, 'cloudPhysicsIO at 64 KiB blocks (lvm\'s default chunk), ours '
                        'with draw 0 alone'))
    for r in rows:
        results.append(('cloudPhysicsIO_64k.%s.%s.miss_ratio' % (r['size'], r['policy']), r['miss']))

    # each policy against the tree, over the real traces and over the
    # generators, told apart by where the rows came from, not by name: the
    # LIRS set has a file named scan
    report.append('Ours\' rows in the tables above are means over %d draws of its hashes '
                  '(replay --policy-seed 0 to %d); what its promotions bought is draw 0\'s.\n'
                  % (SEEDS, SEEDS - 1))
    for title, suffix, rows in (
            ('real traces', '', [r for r in all_rows if r['trace'] not in generated]),
            ('synthetic generators', '_generators',
             [r for r in all_rows if r['trace'] in generated])):
        above = summarise_vs_tree(rows, title, suffix, report, results,
                                  bounds if not suffix else None)
        results.append(('cells_above_tree%s.ours' % suffix, above))
        seed_spread(rows, [[r for r in seed if (r['trace'] in generated) == bool(suffix)]
                           for seed in seed_rows], suffix, report, results)
        cells = sorted({(r['trace'], r['size']) for r in rows},
                       key=lambda c: (c[0], int(c[1].rstrip('pct'))))
        report.append(swaps_table(swaps, cells, title))

    # memory per cache block at 1M blocks
    mem = subprocess.run([REPLAY, '--memory', str(1 << 20)], capture_output=True, text=True,
                         check=True).stdout
    report.append('### Memory per cache block at 1,048,576 blocks\n')
    for line in mem.splitlines():
        f = line.split()
        results.append(('bytes_per_block.' + f[1], float(f[4])))
        report.append('- %s: %s bytes' % (f[1], f[4]))
    report.append('')

    # the longest tick, a queue rebalance under the policy lock, at 16M blocks
    nr_tick = 16 << 20
    out = subprocess.run([REPLAY, '--longest-tick', str(nr_tick)], capture_output=True,
                         text=True, check=True).stdout
    report.append('### Longest tick at %s cache blocks\n' % format(nr_tick, ','))
    report.append('Three times the cache size in reads of distinct blocks, a tick every '
                  '4,096, into an empty cache and into one activated full with every hint '
                  'at level 0; the longer of the two. A tick rebalances the queues under '
                  'the policy lock, interrupts off in the kernel.\n')
    for line in out.splitlines():
        f = line.split()
        results.append(('longest_tick_ms.' + f[1], float(f[3])))
        report.append('- %s: %s ms' % (f[1], f[3]))
    report.append('')

    # re-warming after a working-set shift
    nr_w = 200
    out = replay(['--windows', str(nr_w), '--sizes', '10', 'gen:shift'])
    windows = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == 'WINDOWS':
            windows[f[3]] = [float(x) for x in f[4:]]
    n_req = 2000000 // nr_w
    report.append('### Re-warming after a working-set shift (gen:shift, cache 10 %)\n')
    report.append('| policy | steady hit ratio | requests to 90 % of it |')
    report.append('|---|---:|---:|')
    for p in POLICIES:
        w, steady = rewarm(windows, p, nr_w)
        results.append(('rewarm_requests.' + p, w * n_req))
        report.append('| %s | %.3f | %d |' % (p, steady, w * n_req))
    report.append('')

    # a scan mixed into a hot set: the hot set's hit ratio with and without
    # it, the scan reading each block in one request, then in eight (a
    # reader's bios smaller than the cache block)
    hot = 20000     # gen:scan's hot set: a tenth of its 200,000 blocks
    scans = (('gen:scan:0.3', 'scan', 'one request'),
             ('gen:scan:0.3:8', 'scan_small_bios', 'eight requests'))
    hr, slow = {}, {}
    for blocks in (hot // 4, hot // 2, hot):
        for gen in ['gen:scan:0'] + [g for g, _, _ in scans]:
            out = replay(['--hot-below', str(hot), '--cache-blocks', str(blocks), gen])
            for line in out.splitlines():
                f = line.split()
                if f and f[0] == 'HOT':
                    hr[(blocks, gen, f[3])] = float(f[5])
            for r in parse_data(out):
                slow[(blocks, gen, r['policy'])] = r['slow']
    for gen, name, how in scans:
        report.append('### A sequential scan (30 %% of requests, each block read in %s) '
                      'mixed into a hot set of %d blocks\n' % (how, hot))
        report.append('| cache blocks | policy | hot-set hit ratio alone | with the scan | lost '
                      '| slow I/O per access |')
        report.append('|---:|---|---:|---:|---:|---:|')
        worst = {}
        for blocks in (hot // 4, hot // 2, hot):
            for p in POLICIES:
                alone, mixed = hr[(blocks, 'gen:scan:0', p)], hr[(blocks, gen, p)]
                lost = 100.0 * (1 - mixed / alone) if alone else 0.0
                worst[p] = max(worst.get(p, lost), lost)
                results.append(('%s_hot_hit_loss_pct.%d.%s' % (name, blocks, p), lost))
                if name != 'scan':
                    results.append(('%s_slow_io_per_access.%d.%s' % (name, blocks, p),
                                    slow[(blocks, gen, p)]))
                report.append('| %d | %s | %.4f | %.4f | %.1f %% | %.4f |' %
                              (blocks, p, alone, mixed, lost, slow[(blocks, gen, p)]))
        for p in POLICIES:
            results.append(('%s_hot_hit_loss_pct.%s' % (name, p), worst[p]))
        report.append('')

    # migrations that take time, as the target's do: every trace again with
    # each migration ending 1 ms after it started (the rest of the bench
    # ends each before the next request)
    report.append('### Migrations of 1 ms\n')
    report.append('A migration ends 1 ms after the worker started it in the tables that '
                  'follow (`--migration-us 1000`); meanwhile a promoted block misses and a '
                  'demoted one is off the queues.  Ours\' figures are means over %d draws, '
                  'as in the main tables.\n' % SEEDS)
    rows_1ms = []
    seed_rows_1ms = [[] for _ in range(SEEDS)]
    for path, extra in traces:
        extra_1ms = extra + ['--migration-us', '1000']
        rows_1ms += ours_over_seeds(parse_data(replay(extra_1ms + ['--policies', 'ours,tree',
                                                                   path])),
                                    path, extra_1ms, seed_rows_1ms)
    for title, suffix, gen in (
            ('real traces, migrations of 1 ms', '_migration_1ms', False),
            ('synthetic generators, migrations of 1 ms', '_migration_1ms_generators', True)):
        rows = [r for r in rows_1ms if (r['trace'] in generated) == gen]
        above = summarise_vs_tree(rows, title, suffix, report, results)
        results.append(('cells_above_tree%s.ours' % suffix, above))
        seed_spread(rows, [[r for r in seed if (r['trace'] in generated) == gen]
                           for seed in seed_rows_1ms], suffix, report, results)

    # the replay rate of an untimed trace: do conclusions hold at 0.1x and 10x?
    report.append('### Replay rate (w106 has no timestamps): 100, 1000 and 10000 requests/s\n')
    report.append('| rate | size | ours miss | tree miss | ours slow I/O | tree slow I/O |')
    report.append('|---:|---|---:|---:|---:|---:|')
    holds = True
    signs = {}
    by_rate = {}
    for rate in ('100', '1000', '10000'):
        rows = parse_data(replay(['--rate', rate, '--policies', 'ours,tree',
                                  os.path.join(a.traces, 'cloudphysics/w106.trace.xz')]))
        for s in SIZES:
            o = [r for r in rows if r['size'] == s and r['policy'] == 'ours'][0]
            t = [r for r in rows if r['size'] == s and r['policy'] == 'tree'][0]
            report.append('| %s | %s | %.4f | %.4f | %.4f | %.4f |' %
                          (rate, s, o['miss'], t['miss'], o['slow'], t['slow']))
            for r in (o, t):
                by_rate.setdefault((r['policy'], s), []).append(r['miss'])
            sign = (o['slow'] <= t['slow'], o['miss'] <= t['miss'])
            holds &= signs.setdefault(s, sign) == sign
    report.append('\nThe comparison of ours against the tree %s across the rates.\n' %
                  ('is the same' if holds else 'CHANGES'))
    results.append(('rate_conclusions_hold', 1 if holds else 0))
    # how much each policy's own miss ratio moves with the rate: the worst
    # size's (max - min) / min
    for p in ('ours', 'tree'):
        spread = max((max(v) - min(v)) / min(v) for (q, _), v in by_rate.items() if q == p)
        results.append(('rate_miss_spread.' + p, spread))
        report.append('- %s: its miss ratio moves by up to %.1f %% with the rate' %
                      (p, 100 * spread))
    report.append('')

    if not a.quick and not a.no_callgrind:
        path = os.path.join(a.traces, 'cloudphysics/cloudPhysicsIO.vscsi')
        report.append('### Instructions per lookup (callgrind, cloudPhysicsIO, cache 10 %)\n')
        for p in ('ours', 'tree'):
            ipl = insn_per_lookup(path, p, a.out)
            results.append(('insn_per_lookup.' + p, ipl))
            report.append('- %s: %.1f' % (p, ipl))
        report.append('')

    md = os.path.join(a.out, 'cache.md')
    with open(md, 'w') as f:
        f.write('\n'.join(report))
    print('# report: %s' % os.path.abspath(md))
    for name, value in results:
        if isinstance(value, float):
            print('RESULT %s %.6g' % (name, value))
        else:
            print('RESULT %s %s' % (name, value))


if __name__ == '__main__':
    main()
