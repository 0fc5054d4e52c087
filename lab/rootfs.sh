#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs: busybox, the device-mapper and cache tools with
# the shared libraries they load, the modules of a kernel flavour and the
# guest-side tests.
#   lab/rootfs.sh [flavour]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
flavour=${1:-guest}
obj=$BUILD/$flavour
root=$OUT/rootfs-$flavour
img=$OUT/initramfs-$flavour.cpio
stage rootfs "initramfs for $flavour"

BINS=(/usr/sbin/dmsetup /usr/bin/fio /usr/sbin/pdata_tools /usr/sbin/lvm)
for b in /bin/busybox "${BINS[@]}"; do
	[ -x "$b" ] || die "$b missing (run lab/deps.sh)"
done

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,mnt,root,var/tmp}
cp /bin/busybox "$root/bin/busybox"
for app in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done

# Binaries, then every library ldd names, with the dynamic loader.
copy_with_parents() { cp -L --parents "$1" "$root"; }
for b in "${BINS[@]}"; do
	copy_with_parents "$b"
	ldd "$b" | grep -o '/[^ ]*' | sort -u | while read -r lib; do
		[ -e "$root$lib" ] || copy_with_parents "$lib"
	done
done
for t in cache_check cache_dump cache_restore cache_repair cache_metadata_size; do
	ln -sf pdata_tools "$root/usr/sbin/$t"
done
# /lib64 is where x86-64 binaries look for the loader.
[ -e "$root/lib64" ] || ln -s lib "$root/lib64" 2>/dev/null || true

if [ -d "$obj/modroot/lib/modules" ]; then
	mkdir -p "$root/lib"
	cp -a "$obj/modroot/lib/modules" "$root/lib/"
fi

mkdir -p "$root/etc/lvm"
cat >"$root/etc/lvm/lvm.conf" <<'LVM'
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
devices { obtain_device_list_from_udev = 0 }
backup { backup = 0 archive = 0 }
global { use_lvmetad = 0 }
LVM
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"

cp -a "$REPO_DIR/guest" "$root/tests"
# our own guest tools, static
for src in "$REPO_DIR"/guest/tools/*.c; do
	gcc -static -O2 -Wall -o "$root/usr/bin/$(basename "${src%.c}")" "$src" ||
		die "cannot build $(basename "$src")"
done
ln -sf tests/init "$root/init"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$img.tmp" ||
	die "cpio failed"
mv "$img.tmp" "$img"
echo "initramfs: $img ($(du -h "$img" | cut -f1))" >&2
