// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the kernel client's reply consumers, compiled from the
 * module's own files (fs/xattr_wire.c, fs/reply_wire.c, net/read_wire.c;
 * kshim/ stands in for the kernel headers they include), so the fuzzer
 * runs the code orfs.ko runs.
 *
 * An input is 32 bytes of parameters followed by a payload:
 *
 *	le32 len		READLINK: the target's length; READ: the count
 *	le32 bytes		READ: the destination's size
 *	le32 grant_size		READ: the staging buffer's size
 *	le32 count		READDIR: the entries the reply announces
 *	le64 cookie		READDIR: the cookie asked from
 *	le32 imm		bare reply: the immediate value
 *	u8   flags		READ: bit 0 placed (O_DIRECT, page list),
 *				bit 1 a staging buffer, bit 2 windows
 *	u8   pad[3]
 *	payload			copied to a buffer of exactly its size
 *
 * and the payload is consumed as each of:
 *  - a LISTXATTR name list: orfs_xattr_list_check(); a list it accepts is
 *    walked as orfs_listxattr() hands it on, name by name, each NUL
 *    terminated inside the list, 1..XATTR_NAME_MAX bytes;
 *  - a READLINK target: orfs_readlink_check(); an accepted target is
 *    copied with its NUL as orfs_get_link() does, and is 1..PATH_MAX - 1
 *    bytes with no NUL;
 *  - READDIR entries: orfs_readdir_check(); accepted entries are walked
 *    as orfs_emit_entries() does: exactly @count of them, each name
 *    inside the data, without '/' or NUL, no cookie 0 or back to the
 *    asked one;
 *  - a READ reply (if it passes orfs_hdr_check() as a successful READ's,
 *    as every reply does before it gets here): orfs_read_land_check();
 *    where it says the data is must agree with the flags and the request,
 *    and inline data is copied into a destination of exactly @bytes bytes
 *    as orfs_copy_to_bvec() does;
 *  - a bare READ reply of the payload's length answering the READ reply's
 *    xid: orfs_bare_accept() only when its immediate names that xid and
 *    the length is what the slot asked.
 * A broken promise aborts; ASan sees any read or write past a buffer.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/limits.h>

#include "orfs_proto.h"
#define FUZZ_NAME	"fuzz_client"
#include "fuzz_util.h"
#include "xattr_wire.h"
#include "reply_wire.h"
#include "read_wire.h"

#define FUZZ_PARAMS	32U

static void fuzz_xattr_list(const char *list, uint32_t len)
{
	uint32_t off = 0;
	size_t n;

	if (orfs_xattr_list_check(list, len))
		return;
	while (off < len) {
		n = strlen(list + off);	/* ASan: the NUL must be inside */
		if (n == 0 || n > ORFS_XATTR_NAME_MAX || off + n >= len)
			bug("an accepted xattr list has a name of %zu bytes at %u of %u",
			    n, off, len);
		off += (uint32_t)n + 1;
	}
}

static void fuzz_readlink(uint32_t len, const char *data, uint32_t data_len)
{
	char *target;

	if (orfs_readlink_check(len, data, data_len))
		return;
	if (len == 0 || len >= PATH_MAX || len > data_len)
		bug("an accepted READLINK target of %u bytes in %u", len, data_len);
	/* kmemdup_nul() */
	target = malloc((size_t)len + 1);
	if (!target)
		abort();
	memcpy(target, data, len);
	target[len] = 0;
	if (strlen(target) != len)
		bug("an accepted READLINK target has a NUL inside");
	free(target);
}

static void fuzz_readdir(const uint8_t *data, uint32_t len, uint32_t count,
			 uint64_t cookie)
{
	const struct orfs_dirent_plus *plus;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *de;
	const char *name;
	uint32_t seen = 0, nl;
	int ret;

	if (orfs_readdir_check(data, len, count, cookie))
		return;
	orfs_dirent_iter_init(&it, data, len, count);
	while ((ret = orfs_dirent_next(&it, &de, &name, &plus)) > 0) {
		nl = orfs_cpu16(de->name_len);
		if ((const uint8_t *)name < data ||
		    (const uint8_t *)name + nl > data + len ||
		    (plus && ((const uint8_t *)plus < data ||
			      (const uint8_t *)(plus + 1) > data + len)))
			bug("entry %u lies outside the reply's data", seen);
		if (!nl || nl > ORFS_NAME_MAX || memchr(name, '/', nl) ||
		    memchr(name, 0, nl))
			bug("entry %u has a name the VFS must not see", seen);
		if (!orfs_cpu64(de->next) || orfs_cpu64(de->next) == cookie)
			bug("entry %u leads to cookie %llu", seen,
			    (unsigned long long)orfs_cpu64(de->next));
		seen++;
	}
	if (ret || seen != count)
		bug("an accepted READDIR reply of %u entries walks %u (%d)",
		    count, seen, ret);
}

static void fuzz_read(const struct orfs_read_ask *ask, const uint8_t *msg,
		      uint32_t size)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)msg;
	const struct orfs_read_rep *rr;
	const struct orfs_rseg *seg;
	uint32_t n = 0, nwin = 0, data_len, flags, i;
	enum orfs_land land;
	uint64_t total = 0;
	const void *data;
	uint8_t *dest;

	if (orfs_hdr_check(h, size, 1) || h->status ||
	    orfs_cpu16(h->opcode) != ORFS_OP_READ ||
	    orfs_cpu32(h->body_len) < sizeof(*rr))
		return;
	rr = orfs_body(h);
	flags = orfs_cpu32(rr->flags);
	data = orfs_data(h);
	data_len = orfs_cpu32(h->data_len);
	if (orfs_read_land_check(ask, h, data, data_len, &land, &n, &nwin))
		return;
	if (n != orfs_cpu32(rr->count))
		bug("the landed count %u is not the reply's", n);
	switch (land) {
	case ORFS_LAND_PLACED:
		if (!ask->placed || n > ask->count || data_len ||
		    (flags & (ORFS_RF_GRANT | ORFS_RF_WINDOW)) ||
		    !(flags & ORFS_RF_REMOTE))
			bug("a placed READ of %u bytes, flags %#x", n, flags);
		return;
	case ORFS_LAND_WINDOWS:
		if (ask->placed || !ask->grant || !ask->windows ||
		    !nwin || nwin > ORFS_WINDOWS_MAX ||
		    nwin * sizeof(*seg) != data_len || !n ||
		    n > ask->count || n > ask->bytes || n > ask->grant_size)
			bug("a window READ of %u bytes in %u windows", n, nwin);
		seg = data;
		for (i = 0; i < nwin; i++)
			total += orfs_cpu32(seg[i].len);
		if (total != n)
			bug("%u windows of %llu bytes for a READ of %u", nwin,
			    (unsigned long long)total, n);
		return;
	case ORFS_LAND_GRANT:
		if (ask->placed || !ask->grant || data_len || n > ask->grant_size ||
		    n > ask->count || n > ask->bytes || !(flags & ORFS_RF_GRANT))
			bug("a staging-buffer READ of %u bytes", n);
		return;
	case ORFS_LAND_INLINE:
		if (ask->placed || n > data_len || n > ask->count ||
		    n > ask->bytes || (flags & (ORFS_RF_GRANT | ORFS_RF_REMOTE |
						ORFS_RF_WINDOW)))
			bug("an inline READ of %u bytes, %u inline, flags %#x", n,
			    data_len, flags);
		/* orfs_copy_to_bvec() into exactly the destination */
		dest = malloc(ask->bytes ? ask->bytes : 1);
		if (!dest)
			abort();
		memcpy(dest, data, n);
		free(dest);
		return;
	}
	bug("orfs_read_land_check() said %d", land);
}

static void fuzz_bare(uint32_t imm, const uint8_t *msg, uint32_t size,
		      uint32_t bare_len)
{
	uint64_t xid = 0;
	uint32_t want;

	if (size >= sizeof(struct orfs_hdr))
		xid = orfs_cpu64(((const struct orfs_hdr *)msg)->xid);
	if (!orfs_bare_accept(imm, xid, bare_len, size))
		return;
	if (!xid || orfs_bare_imm(xid, &want) || want != imm ||
	    !bare_len || size != bare_len)
		bug("a bare reply of %u bytes (imm %#x) accepted for xid %#llx, %u asked",
		    size, imm, (unsigned long long)xid, bare_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct orfs_read_ask ask;
	uint32_t len, count, imm;
	uint64_t cookie;
	uint8_t *p;

	if (size < FUZZ_PARAMS || size - FUZZ_PARAMS > ORFS_META_MAX + ORFS_INLINE_MAX)
		return -1;
	len = get32(data);
	ask.count = len;
	ask.bytes = get32(data + 4);
	ask.grant_size = get32(data + 8);
	count = get32(data + 12);
	cookie = get64(data + 16);
	imm = get32(data + 24);
	ask.placed = data[28] & 1;
	ask.grant = data[28] & 2;
	ask.windows = data[28] & 4;
	data += FUZZ_PARAMS;
	size -= FUZZ_PARAMS;

	/* A copy of exactly @size bytes (malloc() aligns it as a receive buffer). */
	p = malloc(size ? size : 1);
	if (!p)
		abort();
	memcpy(p, data, size);
	fuzz_xattr_list((const char *)p, (uint32_t)size);
	fuzz_readlink(len, (const char *)p, (uint32_t)size);
	fuzz_readdir(p, (uint32_t)size, count, cookie);
	fuzz_read(&ask, p, (uint32_t)size);
	fuzz_bare(imm, p, (uint32_t)size, ask.bytes);
	free(p);
	return 0;
}
