# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the lab scripts; sourced, never run.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$LAB_DIR")

# Everything large lives outside the clone; LAB_CACHE moves it.
LAB_CACHE=${LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/smqipa-lab}
SRC_PKG=${SRC_PKG:-linux-source-6.12}
SRC_TARBALL=${SRC_TARBALL:-/usr/src/$SRC_PKG.tar.xz}

PRISTINE=$LAB_CACHE/pristine	# git repo: the package's tree, one commit
WORK=$LAB_CACHE/work		# git repo: pristine + our series, checked out
BUILD=$LAB_CACHE/build		# O= directories, one per kernel flavour
OUT=$LAB_CACHE/out		# logs, initramfs, results

JOBS=${JOBS:-$(nproc)}

# The source a kernel flavour builds from: the tree with our series
# (guest, debug), or the tree with only the patches marked for it ("tree":
# the packaged governor on our emulated platform).
flavour_src() {
	case $1 in
	tree) echo "$LAB_CACHE/work-tree" ;;
	step) echo "$LAB_CACHE/work-step" ;;
	*) echo "$WORK" ;;
	esac
}

# tree: the pristine tree and the emulated SoC; step: the first $LAB_STEP
# patches of the series; others: all of it.
flavour_series() {
	case $1 in
	tree) echo tree ;;
	step) echo "upto:${LAB_STEP:?LAB_STEP names the last patch of the step}" ;;
	*) echo all ;;
	esac
}

stage() {
	LAB_STAGE=$1
	printf '==> [%s] %s\n' "$1" "${2:-}" >&2
}

die() {
	printf 'FAILED [%s]: %s\n' "${LAB_STAGE:-lab}" "$*" >&2
	exit 1
}

pkg_version() {
	dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null
}
