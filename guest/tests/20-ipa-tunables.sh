#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 7
# The power allocator's tunables on the emulated SoC: defaults, writes,
# bad writes refused with the value unchanged, and gains a user set
# surviving a new sustainable power; an estimated sustainable power
# following the devices that come and go; the gains following the trips
# written through sysfs, a switch-on trip above the desired one reported,
# actors binding to a desired trip that moved, and the emulated platform
# reporting the trips as written; tunables written while the policy
# switches.
. /tests/lib.sh
plan 39
ok "emulated SoC with power_allocator" emul_setup governor=power_allocator sustainable_power=4500
z=$(emul_zone)
is "the zone uses power_allocator" "$(cat $z/policy)" power_allocator
is "sustainable_power from the platform" "$(cat $z/sustainable_power)" 4500
# k_pu = 2 * 4500 mW / 10 °C in 10-bit fixed point per m°C, k_po half
is "default k_pu" "$(cat $z/k_pu)" $((2 * 4500 * 1024 / 10000))
is "default k_po" "$(cat $z/k_po)" $((4500 * 1024 / 10000))
is "default k_i" "$(cat $z/k_i)" $((2 * 4500 * 1024 / 10000 / 10))
is "default k_d" "$(cat $z/k_d)" 0

ok "k_po written" sh -c "echo 333 > $z/k_po"
is "k_po reads back" "$(cat $z/k_po)" 333
for bad in -1 abc 99999999999 ""; do
	fails "k_po '$bad' refused" sh -c "echo '$bad' > $z/k_po"
done
is "k_po unchanged by the bad writes" "$(cat $z/k_po)" 333
fails "a negative sustainable_power refused" sh -c "echo -5 > $z/sustainable_power"

echo 3000 >$z/sustainable_power
echo "little=100 big=100 gpu=100" >$EMUL/load
emul_run 20
is "k_po a user set survives a new sustainable_power" "$(cat $z/k_po)" 333
is "k_pu follows the new sustainable_power" "$(cat $z/k_pu)" $((2 * 3000 * 1024 / 10000))

# A zone without a sustainable power: the estimate counts every device
# bound, however late, and only while nobody wrote one.
ok "emulated SoC without a sustainable power" emul_setup governor=power_allocator sustainable_power=0
z=$(emul_zone)
emul_run 1
all=$(cat $z/sustainable_power)
echo "unregister gpu" >$EMUL/actor
emul_run 1
less=$(cat $z/sustainable_power)
ok "estimated again without the GPU ($all -> $less mW)" test "$less" -gt 0 -a "$less" -lt "$all"
echo "register gpu" >$EMUL/actor
emul_run 1
is "and with it again" "$(cat $z/sustainable_power)" "$all"
echo 2000 >$z/sustainable_power
echo "unregister gpu" >$EMUL/actor
emul_run 1
is "a sustainable power a user wrote stays" "$(cat $z/sustainable_power)" 2000
ok "the GPU registered again" sh -c "echo 'register gpu' > $EMUL/actor"

# The passive trips are writable, as a device tree's are.  The gains the
# governor estimated follow them; a switch-on trip written invalid is no
# switch-on trip (the range counts from 0 C, not from -274 C); a gain a
# user set stays.
ok "emulated SoC with writable trips" emul_setup governor=power_allocator sustainable_power=4500
z=$(emul_zone)
ok "switch-on trip written 55 C" sh -c "echo 55000 > $z/trip_point_0_temp"
emul_run 1
is "k_pu over 20 C" "$(cat $z/k_pu)" $((2 * 4500 * 1024 / 20000))
ok "switch-on trip written invalid" sh -c "echo -274000 > $z/trip_point_0_temp"
emul_run 1
is "k_pu over 75 C, from 0 C" "$(cat $z/k_pu)" $((2 * 4500 * 1024 / 75000))
echo 333 >$z/k_po
echo 65000 >$z/trip_point_0_temp
emul_run 1
is "k_pu over 10 C again" "$(cat $z/k_pu)" $((2 * 4500 * 1024 / 10000))
is "k_po a user set stays" "$(cat $z/k_po)" 333
# A switch-on trip written above the desired one counts as none for the
# gains, which then count from 0 C and follow a new sustainable power; it
# is reported once, not at every update nor for the new power.
log_mark
echo 85000 >$z/trip_point_0_temp
emul_run 3
echo 4000 >$z/sustainable_power
emul_run 3
is "a switch-on trip above the desired one reported once" "$(log_since |
	grep -c 'switch-on trip at 85000 mC is not below the desired 75000 mC')" 1
is "k_pu over 75 C meanwhile, from 0 C" "$(cat $z/k_pu)" $((2 * 4000 * 1024 / 75000))
echo 4500 >$z/sustainable_power
echo 65000 >$z/trip_point_0_temp
emul_run 1
# An actor registered after the desired trip moved still binds to it.
echo 80000 >$z/trip_point_1_temp
echo "unregister gpu" >$EMUL/actor
ok "the GPU registered after the desired trip moved" sh -c "echo 'register gpu' > $EMUL/actor"
is "and bound: three actors" "$(ls $z | grep -c '^cdev[0-9]*_weight$')" 3
is "the platform file shows the trips as written" \
	"$(grep -E '^(switch_on|desired) ' $EMUL/platform | tr '\n' ' ')" "switch_on 65000 desired 80000 "

# The tunables are read and written under the zone's lock, as the
# governor's calls are.  Written while the policy switches back and forth
# (the governor unbinding and binding again), the last values written
# stay, and KASAN and lockdep on the sanitizer kernel find nothing (see
# 99-kernel-log).  This checks that the lock breaks nothing, not the
# races it closes: the emulated SoC registers its zone with parameters,
# which the governor therefore never frees, and the windows are a few
# instructions wide.
ok "emulated SoC for tunables written while the policy switches" \
	emul_setup governor=power_allocator sustainable_power=4500
z=$(emul_zone)
(
	i=0
	while [ $i -lt 100 ]; do
		echo step_wise >$z/policy && echo power_allocator >$z/policy || exit 1
		i=$((i + 1))
	done
) &
switcher=$!
i=0
refused=0
while [ $i -lt 300 ]; do
	echo $((1000 + i)) >$z/k_po || refused=$((refused + 1))
	echo $((2000 + i)) >$z/sustainable_power || refused=$((refused + 1))
	i=$((i + 1))
done
wait $switcher
is "the policy switched 200 times meanwhile" "$?" 0
is "no write refused" "$refused" 0
is "k_po written while the policy switched" "$(cat $z/k_po)" 1299
is "sustainable_power written while the policy switched" "$(cat $z/sustainable_power)" 2299
