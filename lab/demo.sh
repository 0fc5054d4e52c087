#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build, boot, and show the project at work (guest/demo/run).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$LAB_DIR/deps.sh"
"$LAB_DIR/tree.sh"
echo "tree: $SRC_PKG $(pkg_version)"
"$LAB_DIR/apply.sh"
"$LAB_DIR/build.sh" guest
"$LAB_DIR/rootfs.sh" guest
"$LAB_DIR/qemu.sh" guest demo
