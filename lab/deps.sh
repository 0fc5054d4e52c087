#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install with apt-get whatever the lab needs and is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
stage deps "checking packages"

PKGS=(
	"$SRC_PKG" qemu-system-x86 busybox-static
	build-essential bc flex bison libelf-dev libssl-dev cpio kmod rsync
	xz-utils zstd gzip bzip2 python3 perl
	dmsetup lvm2 fio thin-provisioning-tools
	sparse clang libclang-rt-14-dev valgrind gnuplot-nox python3-sphinx
	python3-ply python3-git
)
PKGS+=(${LAB_EXTRA_PKGS:-})

missing=()
for p in "${PKGS[@]}"; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $s == ii* ]] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 || die "apt-get update failed"
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
	die "apt-get install failed for: ${missing[*]}"
