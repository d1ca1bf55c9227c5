#!/bin/sh
# kdir.sh            print the default kernel build directory: the running
#                    kernel's if it exists, else the newest installed Debian
#                    linux-headers-*-amd64.
# kdir.sh --release [KDIR]
#                    print the release KDIR builds modules for (the
#                    vermagic), e.g. 6.1.0-56-amd64.
if [ "${1:-}" = --release ]; then
	k=${2:-$("$0")}
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$k/include/generated/utsrelease.h" 2>/dev/null
	exit 0
fi
d=/lib/modules/$(uname -r)/build
if [ -d "$d" ]; then
	echo "$d"
else
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1
fi
