#!/bin/bash
# Install, idempotently, every Debian package ORFS's build, tests, VM and
# benchmarks use.  Runs `apt-get update` at most once, and does nothing at all
# when every package is already installed.
#
# Usage: tools/install-deps.sh [KVER...]
#
# Without KVER it installs Debian 12's default kernel generation, 6.1 (the
# linux-image-amd64 and linux-headers-amd64 metapackages and linux-source-6.1),
# which the build and the VM use by default.  Each KVER adds a kernel
# generation's image (the VM boots it), headers (orfs.ko builds against them)
# and source (tools/kunit.sh builds a UML kernel from it):
#   6.1                     the default above
#   6.12 (any X.Y)          Debian 12's linux-image-X.Y-amd64 and
#                           linux-headers-X.Y-amd64 metapackages, linux-source-X.Y
#   6.12.117+deb12-amd64    that exact release (any RELEASE-amd64):
#                           linux-image-RELEASE, linux-headers-RELEASE,
#                           linux-source-X.Y
set -euo pipefail

PACKAGES=(
	# build: module, server, tools
	build-essential make gcc bc flex bison libelf-dev libssl-dev kmod cpio xz-utils
	sparse
	# server
	libibverbs-dev librdmacm-dev liburing-dev
	# tests: server unit tests, fuzzing, KUnit (UML build of linux-source)
	libcmocka-dev clang libclang-rt-14-dev python3
	# VM: Debian's kernel in qemu, busybox initramfs, soft-RoCE user space
	qemu-system-x86 busybox-static rdma-core ibverbs-providers
	ibverbs-utils rdmacm-utils iproute2 procps psmisc e2fsprogs coreutils
	# integration tests and benchmarks
	fio perftest gnuplot-nox nfs-kernel-server nfs-common
	# packages (make dkms, make deb) and their checks: DKMS, the Debian
	# build tools, lintian, and man(1) to check the man pages
	dkms dh-dkms debhelper dpkg-dev fakeroot lintian man-db groff-base
)

# kernel_packages KVER: the image, headers and source of one kernel generation.
kernel_packages() {
	case $1 in
	6.1)
		echo linux-image-amd64 linux-headers-amd64 linux-source-6.1 ;;
	[0-9]*.[0-9]*-amd64)
		# An exact release: its series is the first two numbers.
		local series
		series=$(echo "$1" | sed -n 's/^\([0-9]\+\.[0-9]\+\)[.-].*/\1/p')
		[ -n "$series" ] || return 1
		echo "linux-image-$1 linux-headers-$1 linux-source-$series" ;;
	[0-9]*.[0-9]*)
		[[ $1 =~ ^[0-9]+\.[0-9]+$ ]] || return 1
		echo "linux-image-$1-amd64 linux-headers-$1-amd64 linux-source-$1" ;;
	*)
		return 1 ;;
	esac
}

kvers=(6.1 "$@")
for k in "${kvers[@]}"; do
	[ -n "$k" ] || continue
	if ! pkgs=$(kernel_packages "$k"); then
		echo "install-deps: KVER=$k: expected a series (6.1, 6.12) or a release (6.12.117+deb12-amd64)" >&2
		exit 2
	fi
	# shellcheck disable=SC2206 # package names have no spaces or globs
	PACKAGES+=($pkgs)
done

missing=()
for p in "${PACKAGES[@]}"; do
	# "install ok installed" is the only state that counts as present.
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
