#!/bin/bash
# `make demo`: build everything, boot the test VM, start orfsd on a scratch
# export, mount it over soft-RoCE, copy a directory tree in and back out,
# check it byte for byte, and say what happened.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/install-deps.sh "${KVER:-}"
echo "demo: building orfs.ko, orfsd and tools"
make -s all
krel=$(modinfo -F vermagic orfs.ko | cut -d' ' -f1)
echo "demo: booting Debian's $krel kernel in qemu (software emulation; takes a while)"
exec tools/vm/run --timeout "${ORFS_VM_TIMEOUT:-1200}" tools/demo-guest.sh "${1:-}"
