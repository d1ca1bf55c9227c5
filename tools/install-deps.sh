#!/bin/bash
# Install, idempotently, every Debian package ORFS's build, tests, VM and
# benchmarks use.  Runs `apt-get update` at most once, and does nothing at all
# when every package is already installed.
set -euo pipefail

PACKAGES=(
	# build: module, server, tools
	build-essential make gcc bc flex bison libelf-dev libssl-dev kmod cpio xz-utils
	linux-headers-amd64 sparse
	# server
	libibverbs-dev librdmacm-dev liburing-dev
	# tests: server unit tests, fuzzing, KUnit (UML build of linux-source)
	libcmocka-dev clang libclang-rt-14-dev linux-source-6.1 python3
	# VM: Debian's kernel in qemu, busybox initramfs, soft-RoCE user space
	linux-image-amd64 qemu-system-x86 busybox-static rdma-core ibverbs-providers
	ibverbs-utils rdmacm-utils iproute2 procps psmisc e2fsprogs coreutils
	# integration tests and benchmarks
	fio perftest gnuplot-nox nfs-kernel-server nfs-common
)

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
