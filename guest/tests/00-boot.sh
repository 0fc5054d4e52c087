#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lab-needs: 4
# The guest we test in: CPUs, ramdisks, device-mapper targets, governors.
. /tests/lib.sh
plan 7
ge "guest sees 2 CPUs" "$(grep -c ^processor /proc/cpuinfo)" 2
ok "brd ramdisks present" test -b /dev/ram0 -a -b /dev/ram3
ok "dm-cache target registered" sh -c 'dmsetup targets | grep -q "^cache "'
ok "dm-delay and dm-flakey registered" sh -c 'dmsetup targets | grep -q "^delay " && dmsetup targets | grep -q "^flakey "'
zone=$(test_thermal_zone)
ok "a test thermal zone registers" test -d "$zone"
ok "power_allocator and step_wise available" sh -c "grep -qw power_allocator $zone/available_policies && grep -qw step_wise $zone/available_policies"
ok "tracefs mounted" test -d /sys/kernel/tracing/events
