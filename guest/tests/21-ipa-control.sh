#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 7
# The power allocator controlling the emulated SoC: a step load from cool
# settles at the desired temperature; weights bias the split; an actor
# can leave and come back mid-run; what was learnt for one desired
# temperature is not kept for another; step_wise and power_allocator swap;
# the tracepoints report sane values.
. /tests/lib.sh
plan 14
ok "emulated SoC" emul_setup governor=power_allocator sustainable_power=4500
z=$(emul_zone)
echo "little=100 big=100 gpu=100" >$EMUL/load
ok "10 simulated minutes of full load" emul_run 6000
set -- $(emul_stats 4500)
diag "last quarter: mean $1 m°C, min $2, max $3"
ok "steady within 1 °C of the desired 75 °C" test "$1" -ge 74000 -a "$1" -le 76000

# weights: the big cluster's share of the budget grows with its weight
g1=$(emul_power_share emul-big 5000)
echo 4096 >"$(emul_cdev_attr emul-big _weight)"
emul_run 1000
g2=$(emul_power_share emul-big 6500)
diag "big cluster's share of the power drawn: $g1% at weight 1024, $g2% at 4096"
ok "a heavier big cluster gets a larger share" test "$g2" -gt "$g1"

# an actor leaves and returns while the zone is throttled
ok "the GPU unregistered mid-run" sh -c "echo 'unregister gpu' > $EMUL/actor"
ok "runs on without it" emul_run 600
ok "the GPU registered again" sh -c "echo 'register gpu' > $EMUL/actor"
ok "runs on with it" emul_run 600

# What E learnt to hold one desired temperature is not kept for another.
# Learnt with a sustainable power 30 % low, kept after the trips moved 20 C
# down while the zone was cool, it took the next heat-up past the new one.
ok "emulated SoC, sustainable power 30 % low" emul_setup governor=power_allocator sustainable_power=3150
z=$(emul_zone)
echo "little=100 big=100 gpu=100" >$EMUL/load
emul_run 6000
echo "little=0 big=0 gpu=0" >$EMUL/load
emul_run 3000
echo 45000 >$z/trip_point_0_temp
echo 55000 >$z/trip_point_1_temp
echo "little=100 big=100 gpu=100" >$EMUL/load
emul_run 6000
set -- $(emul_stats 9000)
diag "after the trips moved to 45 and 55 C: mean $1 m°C, min $2, max $3"
ok "the heat-up peaks within 0.5 C of the new desired 55 C" test "$3" -le 55500

# governors swap on the same zone
ok "switch to step_wise" sh -c "echo step_wise > $z/policy && . /tests/lib.sh && emul_run 300"
ok "and back to power_allocator" sh -c "echo power_allocator > $z/policy && . /tests/lib.sh && emul_run 300"

# tracepoints
T=/sys/kernel/tracing
echo 1 >$T/events/thermal_power_allocator/enable
echo >$T/trace
emul_run 20
echo 0 >$T/events/thermal_power_allocator/enable
ok "pid, actor and allocator events traced" sh -c "grep -q 'thermal_power_allocator_pid:.*output=' $T/trace &&
	grep -q 'thermal_power_actor:.*actor_id=2 ' $T/trace && grep -q 'thermal_power_allocator: thermal_zone_id=' $T/trace"
bad=$(awk '/thermal_power_allocator:/ { for (i = 1; i <= NF; i++) { split($i, kv, "=");
	v[kv[1]] = kv[2] }
	if (v["power_range"] + 0 > v["max_allocatable_power"] + 0 || v["total_granted_power"] + 0 > v["max_allocatable_power"] + 0) n++ }
	END { print n + 0 }' $T/trace)
is "budgets and grants within the allocatable power" "$bad" 0
