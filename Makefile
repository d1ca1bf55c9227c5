# ORFS top-level Makefile.
#
#   make                build orfs.ko (here), server/orfsd and the tools
#   make check          run the whole test suite (installs what it needs)
#   make fuzz           run the libFuzzer targets longer (FUZZ_SECONDS each, default 300)
#   make demo           build, boot a VM, serve an export, mount it, use it
#   make bench          raw rxe vs ORFS vs NFS/RDMA in one VM boot (build/bench/)
#   make install        install orfs.ko, orfsd and mount.orfs
#   make docs           rewrite the option lists of Documentation/admin-guide.md
#                       from the tables (tools/gen-docs.sh; --check checks them)
#   make W=1 / C=1      extra warnings / sparse, passed to kbuild
#   make ORFS_BENCH=y   build orfs.ko with its benchmark-only parts (fs/bench.c:
#                       the ORFS_IOC_XFER ioctl and the O_DIRECT A/B switches);
#                       make check and make bench do, make install never
#
# KDIR defaults to the running kernel's build directory if it exists,
# otherwise to the newest installed Debian kernel headers.

KDIR ?= $(shell $(CURDIR)/tools/kdir.sh)
# The kernel release KDIR builds for; the VM boots the matching image.
KREL = $(shell $(CURDIR)/tools/kdir.sh --release $(KDIR))

# y: orfs.ko with fs/bench.c (see above); anything else: a production module.
ORFS_BENCH ?=
KBUILD_BENCH = $(if $(filter y,$(ORFS_BENCH)),CONFIG_ORFS_BENCH=y)

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all module server tools docs check fuzz demo bench install clean deps kdir-check

all: module server tools

kdir-check:
	@if [ -z "$(KDIR)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "orfs: no kernel build directory found." >&2; \
		echo "orfs: install linux-headers-\$$(uname -r) or pass KDIR=/path/to/build" >&2; \
		exit 1; \
	fi

module: kdir-check
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_BENCH) modules

server:
	$(MAKE) -C server

tools:
	$(MAKE) -C tools

deps:
	tools/install-deps.sh

docs:
	tools/gen-docs.sh

check: deps
	@KDIR=$(KDIR) tests/run-all.sh

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
	-depmod -a $(KREL)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C server clean
	$(MAKE) -C tools clean
