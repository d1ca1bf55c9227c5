# ORFS top-level Makefile.
#
#   make                build orfs.ko (here), server/orfsd and the tools
#   make check          run the whole test suite (installs what it needs): 6.1
#                       fully and 6.12's build, KUnit and kernel-sensitive VM
#                       tests, unless KVER= names one kernel (then all of it)
#   make fuzz           run the libFuzzer targets longer (FUZZ_SECONDS each, default 300)
#   make demo           build, boot a VM, serve an export, mount it, use it
#   make bench          raw rxe vs ORFS vs NFS/RDMA in one VM boot (build/bench/)
#   make install        install orfs.ko, orfsd, mount.orfs and orfsstat
#   make docs           rewrite the option lists of Documentation/admin-guide.md
#                       from the tables (tools/gen-docs.sh; --check checks them)
#   make W=1 / C=1      extra warnings / sparse, passed to kbuild
#   make ORFS_BENCH=y   build orfs.ko with its benchmark-only parts (fs/bench.c:
#                       the ORFS_IOC_XFER ioctl and the O_DIRECT A/B switches);
#                       make check and make bench do, make install never
#
# KVER picks the kernel, for every target (tools/kdir.sh): empty for the
# default one (the running kernel's headers if installed, else Debian 12's
# 6.1), a series (KVER=6.1, KVER=6.12: its newest installed release) or a
# release (KVER=6.12.117+deb12-amd64).  `make check KVER=...` and `make
# bench KVER=...` install that kernel's image, headers and source first
# (tools/install-deps.sh).  KDIR=/path/to/kernel/build overrides KVER.

KVER ?=
KDIR ?= $(shell $(CURDIR)/tools/kdir.sh $(KVER))
# The kernel release KDIR builds for; the VM boots the matching image.
KREL = $(shell $(CURDIR)/tools/kdir.sh --release $(KDIR))
# KDIR as the caller gave it, to pass on to the scripts (which otherwise
# resolve KVER themselves, after installing it).
KDIR_ARG = $(if $(filter command line environment,$(origin KDIR)),KDIR=$(KDIR))

# The configure step: what kcompat/probe.sh finds in KDIR's headers, for
# include/orfs_kcompat.h.  Redone when a probe, the script, or the kernel's
# configuration changes.
KCOMPAT_H = build/kcompat/$(KREL)/orfs_config.h

# The kernel generations `make check` tests when KVER is empty: the default
# one fully, then each other one as tests/run-all.sh says.
CHECK_KVERS = $(if $(KVER),$(KVER),6.1 6.12)
# The VM tests of the other generation (6.12) in that run: those that go
# through what differs between the kernels (Documentation/testing.md,
# "Kernels: KVER"), so that both fit in CI's 90 minutes with margin.
# `make check KVER=6.12` runs its whole suite; CHECK_VM_OTHER=all here too.
CHECK_VM_OTHER ?= t-basic t-data t-direct t-fileops t-migrate-poison t-xattr t-trace t-conn-spread

# y: orfs.ko with fs/bench.c (see above); anything else: a production module.
ORFS_BENCH ?=
KBUILD_BENCH = $(if $(filter y,$(ORFS_BENCH)),CONFIG_ORFS_BENCH=y)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all module server tools docs check fuzz demo bench install clean deps kdir-check kcompat

all: module server tools

kdir-check:
	@if [ -z "$(KDIR)" ] || [ ! -d "$(KDIR)" ] || [ -z "$(KREL)" ]; then \
		echo "orfs: no kernel build directory found$(if $(KVER), for KVER=$(KVER))." >&2; \
		echo "orfs: run tools/install-deps.sh $(KVER), or pass KDIR=/path/to/build" >&2; \
		exit 1; \
	fi

$(KCOMPAT_H): kcompat/probe.sh $(wildcard kcompat/probes/*.c) $(KDIR)/include/generated/autoconf.h
	kcompat/probe.sh $(KDIR) $@

kcompat: kdir-check
	@$(MAKE) --no-print-directory $(KCOMPAT_H)

module: kcompat
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_BENCH) modules

server:
	$(MAKE) -C server

tools:
	$(MAKE) -C tools

deps:
	tools/install-deps.sh $(KVER)

docs:
	tools/gen-docs.sh

check:
	tools/install-deps.sh $(CHECK_KVERS)
	@$(KDIR_ARG) ORFS_CHECK_KVERS="$(CHECK_KVERS)" \
		ORFS_CHECK_VM_OTHER="$(filter-out all,$(CHECK_VM_OTHER))" tests/run-all.sh

# Seconds per fuzz target; make check runs them for 20 s each.
FUZZ_SECONDS ?= 300
fuzz: deps
	@tests/fuzz/run.sh $(FUZZ_SECONDS)

demo: deps
	@KDIR=$(KDIR) tools/demo.sh

bench: deps
	@KDIR=$(KDIR) tools/bench/run.sh

install: override ORFS_BENCH :=
install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	install -D -m 0755 server/orfsd $(DESTDIR)$(PREFIX)/sbin/orfsd
	install -D -m 0755 tools/mount.orfs $(DESTDIR)/sbin/mount.orfs
	install -D -m 0755 tools/orfsstat $(DESTDIR)$(PREFIX)/sbin/orfsstat
	-depmod -a $(KREL)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C server clean
	$(MAKE) -C tools clean
