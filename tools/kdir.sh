#!/bin/sh
# Prints the default kernel build directory: the running kernel's if it
# exists, otherwise the newest installed Debian linux-headers-*-amd64.
d=/lib/modules/$(uname -r)/build
if [ -d "$d" ]; then
	echo "$d"
else
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1
fi
