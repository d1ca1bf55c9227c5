# ORFS top-level Makefile.
#
#   make                build orfs.ko (here), server/orfsd and the tools
#   make check          run the whole test suite (installs what it needs): 6.1
#                       fully and 6.12's build, KUnit and kernel-sensitive VM
#                       tests, unless KVER= names one kernel (then all of it)
#   make fuzz           run the libFuzzer targets longer (FUZZ_SECONDS each, default 300)
#   make demo           build, boot a VM, serve an export, mount it, use it
#   make bench          raw rxe vs ORFS vs NFS/RDMA in one VM boot (build/bench/)
#   make install        install orfs.ko, orfsd, mount.orfs, orfsstat and the man
#                       pages
#   make dkms           install the module's source as /usr/src/orfs-VERSION
#                       with dkms.conf and build and install it with DKMS for
#                       the KVER kernel; DKMS rebuilds it for every new
#                       kernel (with DESTDIR: only the source, for packages)
#   make deb            the Debian packages orfs-dkms, orfsd and orfs-client
#                       (dpkg-buildpackage; in build/deb/, checked by lintian)
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
MANDIR ?= $(PREFIX)/share/man

# The release, one number for orfsd --version, DKMS and the packages
# (debian/changelog must agree: make deb checks).
CONFIG_H = $(wildcard $(CURDIR)/server/config.h)
VERSION = $(if $(CONFIG_H),$(shell sed -n 's/^\#define ORFSD_VERSION[[:space:]]*"\(.*\)"$$/\1/p' $(CONFIG_H)))

# What DKMS needs to build orfs.ko: the module's sources, its configure
# step and the Makefile that runs both (there, without server/, VERSION
# is empty: only dkms-source needs it).
DKMS_DIR = $(DESTDIR)/usr/src/orfs-$(VERSION)
DKMS_FILES = Kbuild Makefile $(wildcard fs/*.[ch] net/*.[ch] include/*.h) \
	kcompat/probe.sh $(wildcard kcompat/probes/*.c) tools/kdir.sh

# The man pages (Documentation/man/; their option lists are generated,
# tools/gen-docs.sh).
MAN5 = $(wildcard Documentation/man/*.5)
MAN8 = $(wildcard Documentation/man/*.8)

.PHONY: all module server tools docs check fuzz demo bench install clean deps kdir-check kcompat \
	module-clean dkms dkms-source deb

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
	install -d $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	-depmod -a $(KREL)

# The module's source tree for DKMS (and the orfs-dkms package).
dkms-source:
	@[ -n "$(VERSION)" ] || { echo "orfs: no ORFSD_VERSION in server/config.h" >&2; exit 1; }
	rm -rf $(DKMS_DIR)
	for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DKMS_DIR)/$$f || exit 1; done
	chmod 0755 $(DKMS_DIR)/kcompat/probe.sh $(DKMS_DIR)/tools/kdir.sh
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DKMS_DIR)/dkms.conf

# Registers the source with DKMS and builds and installs the module for the
# KVER kernel; DKMS's kernel hook does the same for each kernel installed
# later (AUTOINSTALL).  With DESTDIR, only the source tree.
dkms: dkms-source kdir-check
ifeq ($(DESTDIR),)
	-dkms remove orfs/$(VERSION) -k $(KREL) >/dev/null 2>&1
	dkms add orfs/$(VERSION) 2>/dev/null || dkms status orfs/$(VERSION) | grep -q .
	dkms build orfs/$(VERSION) -k $(KREL) --kernelsourcedir $(KDIR)
	dkms install orfs/$(VERSION) -k $(KREL) --kernelsourcedir $(KDIR) --force
endif

# orfs-dkms, orfsd, orfs-client in build/deb/ (debian/), lintian-checked.
deb:
	tools/build-deb.sh

# What the module's build leaves in the tree (DKMS's CLEAN: no server/ there).
module-clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf build/kcompat

clean: module-clean
	$(MAKE) -C server clean
	$(MAKE) -C tools clean
