#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# A skewed read load whose hot set fits in the cache: smq promotes it and
# reads then hit.
. /tests/lib.sh
plan 5
trap teardown_cache_devs EXIT
ok "cache devices" setup_cache_devs
zero_metadata
ok "smq cache created" create_cache writeback smq

run_zipf() {
	fio --name=hot --filename=/dev/mapper/lab-cache --rw=randread --bs=4k \
		--random_distribution=zipf:1.2 --ioengine=psync --direct=1 --numjobs=2 \
		--time_based --runtime="$1" --randseed=7 --group_reporting \
		--output-format=terse >/dev/null 2>&1
}

run_zipf "${WARM_S:-20}"
h0=$(cache_field read_hits)
m0=$(cache_field read_misses)
p0=$(cache_field promotions)
diag "after warm-up: $h0 read hits, $m0 misses, $p0 promotions"
ge "blocks promoted during warm-up" "$p0" 100

run_zipf "${MEASURE_S:-20}"
h1=$(cache_field read_hits)
m1=$(cache_field read_misses)
hits=$((h1 - h0))
misses=$((m1 - m0))
pct=$((100 * hits / (hits + misses + 1)))
diag "measured: $hits read hits, $misses misses: $pct% hit ratio, $(cache_field promotions) promotions, $(cache_field demotions) demotions"
echo "RESULT guest_read_hit_pct $pct"
ge "read hits keep growing" "$hits" 1000
ge "read hit ratio after warm-up (%)" "$pct" "${MIN_HIT_PCT:-65}"
