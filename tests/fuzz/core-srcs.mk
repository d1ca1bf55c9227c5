# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Read together with server/Makefile by tests/fuzz/Makefile:
#   make -s -C server -f Makefile -f ../tests/fuzz/core-srcs.mk orfs-fuzz-core-srcs
# prints the server's CORE_SRCS (the sources its unit tests link: everything
# but the RDMA transport and main()), so the fuzz targets link exactly what
# tests/server/test_ops links, whatever files are added there later.
.PHONY: orfs-fuzz-core-srcs
orfs-fuzz-core-srcs:
	@echo $(CORE_SRCS)
