# SPDX-License-Identifier: GPL-2.0
# Entry points; the work is done by the scripts in lab/.
#   make test      build, boot, run KUnit + guest + userspace tests, 3 power
#                  cuts, and the KUnit and guest tests on the sanitizer kernel
#   make test-quick  the guest and userspace layers only (the edit loop)
#   make test-debug  the sanitizer kernel only
#   make test-crash  20 power cuts (LAB_CUTS=n for more or fewer)
#   make demo      boot and show the project at work
#   make shell     the test guest, interactive
#   make patches   export the series and prove it applies and builds
#   make check     checkpatch, sparse and W=1 on our files
#   make bench     measurements: RESULT lines, out/bench/*.md and plots
#   make fuzz      the policy fuzzer for an hour (FUZZ_TIME=seconds)

.PHONY: test test-quick test-debug test-steps test-crash demo shell patches check kernel clean-cache fuzz bench

test:
	lab/test.sh $(T)

test-quick:
	LAB_LAYERS="guest userspace" lab/test.sh $(T)

test-debug:
	LAB_LAYERS=debug lab/test.sh $(T)

test-steps:
	LAB_LAYERS=steps lab/test.sh $(T)

test-crash:
	LAB_LAYERS=crash LAB_CUTS=$(or $(LAB_CUTS),20) lab/test.sh

demo:
	lab/demo.sh

shell:
	lab/deps.sh && lab/tree.sh && lab/apply.sh && lab/build.sh guest && \
		lab/rootfs.sh guest && lab/qemu.sh guest shell

kernel:
	lab/deps.sh && lab/tree.sh && lab/apply.sh && lab/build.sh guest

patches:
	lab/patches.sh

check:
	lab/check.sh

bench:
	lab/bench.sh

clean-cache:
	@. lab/lib.sh && echo "removing $$LAB_CACHE" && rm -rf "$$LAB_CACHE"

fuzz:
	$(MAKE) -C harness fuzz FUZZ_TIME=$(or $(FUZZ_TIME),3600)
