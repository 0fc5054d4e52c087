#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 1
# The metadata our policy leaves behind checks clean, carries our hints,
# and loads back with its mappings.
. /tests/lib.sh
plan 7
trap teardown_cache_devs EXIT
ok "cache devices" setup_cache_devs
zero_metadata
ok "smq cache created" create_cache writeback smq
fio --name=fill --filename=/dev/mapper/lab-cache --rw=randread --bs=64k --size=64M \
	--random_distribution=zipf:1.1 --number_ios=4000 --ioengine=psync --direct=1 \
	--randseed=3 >/dev/null 2>&1
used=$(cache_field used)
ge "blocks promoted" "$used" 50
dmsetup remove lab-cache
ok "cache_check passes" cache_check /dev/mapper/lab-meta
cache_dump /dev/mapper/lab-meta >/tmp/dump.xml 2>/dev/null
ok "cache_dump names policy smq with hints" \
	sh -c 'grep -q "policy=\"smq\"" /tmp/dump.xml && grep -q "hint_width=\"4\"" /tmp/dump.xml'
nonzero=$(grep '<hint ' /tmp/dump.xml | grep -vc 'data="AAAAAA=="')
ge "hints carry levels (non-zero hints)" "$nonzero" 1
create_cache writeback smq
is "mappings load back" "$(cache_field used)" "$used"
