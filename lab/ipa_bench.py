#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The thermal half of `make bench`: metrics, optimum, table and plots.

    ipa_bench.py OUT_DIR RESULTS_DIR...

Each RESULTS_DIR holds what guest/bench/run recorded: <scenario>-<governor>.csv
(one line per update of the emulated SoC), .platform (its constants) and
scenarios (the scenarios it ran, in order: the table's).
For every scenario and governor this prints

    RESULT ipa.<scenario>.<governor>.<metric> <value>

for overshoot_c, time_above_s, settle_s, steady_error_c, ripple_c,
work_pct_of_optimum and split_pct_of_best (the work of the last quarter
against the best split of the power drawn then, as the optimum would spend
it), settle_ratio_vs_right_sp for every sp_ scenario (a sustainable power
other than the right one), and writes OUT_DIR/thermal.md and one PNG per
scenario.  A run that is not within 1 C of the desired temperature at its
end has no settle_s (the table says "never"), and no ratio.

The optimum is the work of an ideal controller on the same model, loads and
ambient: every actor at its fastest OPP until the die reaches the desired
temperature, then exactly the power that holds it there, spent in the most
efficient way the OPP tables allow (power continuously variable along the
upper convex hull of each actor's OPPs, the steepest performance per mW
first; no actor below its slowest OPP).
"""
import csv
import glob
import os
import subprocess
import sys

GOVERNORS = ['ours', 'tree', 'step_wise']
METRICS = ['overshoot_c', 'time_above_s', 'settle_s', 'steady_error_c', 'ripple_c',
           'work_pct_of_optimum', 'split_pct_of_best']


def read_platform(path):
    p = {'actors': {}}
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == 'actor':
            opps = [tuple(int(x) for x in o.split(':')) for o in f[f.index('opps') + 1:]]
            p['actors'][f[1]] = dict(cores=int(f[3]), opps=opps)
        else:
            p[f[0]] = int(f[1])
    return p


def read_run(path):
    plat = read_platform(path[:-4] + '.platform')
    rows = list(csv.reader(open(path)))
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    actors = sorted({h[:-len('_load')] for h in head if h.endswith('_load')})
    run = dict(t=[], die=[], amb=[], loads=[], perf=[], power=[])
    for r in rows[1:]:
        run['t'].append(int(r[col['time_ms']]) / 1000)
        run['die'].append(int(r[col['t_die']]) / 1000)
        run['amb'].append(int(r[col['t_ambient']]))
        loads, perf, power = {}, 0.0, 0
        for a in actors:
            load = int(r[col[a + '_load']])
            loads[a] = load
            cores = plat['actors'][a]['cores'] if a in plat['actors'] else 0
            perf += int(r[col[a + '_mhz']]) * cores * load / 100
            power += int(r[col[a + '_power']])
        run['loads'].append(loads)
        run['perf'].append(perf)
        run['power'].append(power)
    return run


class Optimum:
    """The ideal controller of the module docstring, on the platform's model."""

    def __init__(self, plat):
        self.p = plat
        self.cache = {}

    def curve(self, loads):
        """(min power, min perf, max power, segments sorted by perf per mW)."""
        key = tuple(sorted(loads.items()))
        if key in self.cache:
            return self.cache[key]
        pmin = fmin = pmax = 0.0
        segs = []
        for name, a in self.p['actors'].items():
            load = loads.get(name, 0) / 100
            if not load:
                continue
            pts = [(cp * a['cores'] * load, mhz * a['cores'] * load) for mhz, _, cp in a['opps']]
            pts.sort()
            hull = [pts[0]]
            for pt in pts[1:]:
                hull.append(pt)
                # keep the upper hull: slopes must decrease
                while len(hull) >= 3:
                    (x0, y0), (x1, y1), (x2, y2) = hull[-3:]
                    if (y1 - y0) * (x2 - x1) <= (y2 - y1) * (x1 - x0):
                        del hull[-2]
                    else:
                        break
            pmin += hull[0][0]
            fmin += hull[0][1]
            pmax += hull[-1][0]
            for (x0, y0), (x1, y1) in zip(hull, hull[1:]):
                if x1 > x0:
                    segs.append(((y1 - y0) / (x1 - x0), x1 - x0))
        segs.sort(reverse=True)
        self.cache[key] = (pmin, fmin, pmax, segs)
        return self.cache[key]

    def perf(self, loads, power):
        pmin, fmin, pmax, segs = self.curve(loads)
        budget, perf = power - pmin, fmin
        for slope, width in segs:
            if budget <= 0:
                break
            take = min(width, budget)
            perf += slope * take
            budget -= take
        return perf

    def work(self, run, desired):
        p = self.p
        r_dc = p['r_die_case_uc_per_mw'] / 1e6          # °C per mW
        r_ca = p['r_case_ambient_uc_per_mw'] / 1e6
        c_die = p['c_die_mj_per_c'] / 1e3                 # J per °C
        c_case = p['c_case_mj_per_c'] / 1e3
        dt = p['substep_ms'] / 1e3
        steps = p['period_ms'] // p['substep_ms']
        die = case = run['amb'][0] / 1000
        work = 0.0
        for loads, amb in zip(run['loads'], run['amb']):
            amb /= 1000
            pmin, _, pmax, _ = self.curve(loads)
            for _ in range(steps):
                q_dc = (die - case) / r_dc
                q_ca = (case - amb) / r_ca
                # the power that brings the die exactly to the desired temperature
                reach = q_dc + (desired - die) * c_die / dt * 1000
                power = min(pmax, max(pmin, reach))
                work += self.perf(loads, power) * dt
                die += (power - q_dc) / 1000 * dt / c_die
                case += (q_dc - q_ca) / 1000 * dt / c_case
        return work


def split_pct(run, optimum, start):
    """Work from update @start on, against the best split of the power drawn.

    Tells a budget spent badly from a budget set badly: the optimum's work
    is the product of both.
    """
    best = sum(optimum.perf(loads, power)
               for loads, power in zip(run['loads'][start:], run['power'][start:]))
    return 100 * sum(run['perf'][start:]) / best if best else 0.0


def metrics(run, desired, period_s, optimum_work, optimum):
    temps = run['die']
    n = len(temps)
    last = temps[3 * n // 4:]
    inside = [abs(t - desired) <= 1.0 for t in temps]
    settle = n
    while settle > 0 and inside[settle - 1]:
        settle -= 1
    work = sum(run['perf']) * period_s
    return {
        'overshoot_c': max(0.0, max(temps) - desired),
        'time_above_s': sum(1 for t in temps if t > desired) * period_s,
        # None: not within 1 C at the end, so the run measured no settling time
        'settle_s': settle * period_s if settle < n else None,
        'steady_error_c': sum(t - desired for t in last) / len(last),
        'ripple_c': (max(last) - min(last)) / 2,
        'work_pct_of_optimum': 100 * work / optimum_work if optimum_work else 0.0,
        'split_pct_of_best': split_pct(run, optimum, 3 * n // 4),
    }


def plot(out_dir, scenario, runs, desired):
    png = os.path.join(out_dir, 'thermal-%s.png' % scenario)
    dats = []
    for gov, run in runs.items():
        dat = os.path.join(out_dir, 'thermal-%s-%s.dat' % (scenario, gov))
        with open(dat, 'w') as f:
            for t, die, pw in zip(run['t'], run['die'], run['power']):
                f.write('%.1f %.3f %d\n' % (t, die, pw))
        dats.append((gov, dat))
    script = [
        'set terminal pngcairo size 900,700 noenhanced', 'set output "%s"' % png,
        'set multiplot layout 2,1 title "%s: emulated SoC, desired %.0f C"' % (scenario, desired),
        'set ylabel "die temperature (C)"', 'set grid', 'set key bottom right',
        'plot ' + ', '.join('"%s" using 1:2 with lines title "%s"' % (d, g) for g, d in dats) +
        ', %f with lines dashtype 2 title "desired"' % desired,
        'set ylabel "power drawn (mW)"', 'set xlabel "time (s)"',
        'plot ' + ', '.join('"%s" using 1:3 with lines title "%s"' % (d, g) for g, d in dats),
        'unset multiplot',
    ]
    subprocess.run(['gnuplot'], input='\n'.join(script), text=True, check=True)
    return png


def main():
    out_dir, dirs = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    files, scenarios = {}, []
    for d in dirs:
        # the guest's list, in the order it ran them
        with open(os.path.join(d, 'scenarios')) as f:
            scenarios += [s for s in f.read().split() if s not in scenarios]
        for path in glob.glob(os.path.join(d, '*.csv')):
            scenario, gov = os.path.basename(path)[:-4].rsplit('-', 1)
            files[(scenario, gov)] = path

    results, plots = [], []
    table = ['# Thermal governors on the emulated SoC', '',
             'Each scenario is 600 simulated seconds of 100 ms updates. Work is the integral of '
             'the granted OPPs\' performance (MHz x cores x load), against an ideal controller '
             '(see lab/ipa_bench.py).', '',
             '| scenario | governor | ' + ' | '.join(METRICS) + ' |',
             '|---|---|' + '---:|' * len(METRICS)]
    settle = {}
    for scenario in scenarios:
        runs = {g: read_run(files[(scenario, g)]) for g in GOVERNORS if (scenario, g) in files}
        if not runs:
            continue
        gov0 = next(iter(runs))
        plat = read_platform(files[(scenario, gov0)][:-4] + '.platform')
        desired = plat['desired'] / 1000
        period_s = plat['period_ms'] / 1000
        optimum = Optimum(plat)
        opt = optimum.work(runs[gov0], desired)
        for gov, run in runs.items():
            m = metrics(run, desired, period_s, opt, optimum)
            settle[(scenario, gov)] = m['settle_s']
            table.append('| %s | %s | ' % (scenario, gov) +
                         ' | '.join('never' if m[k] is None else '%.2f' % m[k]
                                    for k in METRICS) + ' |')
            for k in METRICS:
                if m[k] is not None:
                    results.append(('ipa.%s.%s.%s' % (scenario, gov, k), m[k]))
        png = plot(out_dir, scenario, runs, desired)
        plots.append('![%s](%s)' % (scenario, os.path.basename(png)))
    table += [''] + plots

    # only between two runs that settled: a run that never did has no time
    for scenario in (s for s in scenarios if s.startswith('sp_')):
        for gov in GOVERNORS:
            if settle.get((scenario, gov)) and settle.get(('step', gov)):
                ratio = settle[(scenario, gov)] / settle[('step', gov)]
                results.append(('ipa.%s.%s.settle_ratio_vs_right_sp' % (scenario, gov), ratio))

    with open(os.path.join(out_dir, 'thermal.md'), 'w') as f:
        f.write('\n'.join(table) + '\n')
    print('# report: %s' % os.path.abspath(os.path.join(out_dir, 'thermal.md')))
    for name, value in results:
        print('RESULT %s %.6g' % (name, value))


if __name__ == '__main__':
    main()
