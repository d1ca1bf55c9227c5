// SPDX-License-Identifier: GPL-2.0
/*
 * READ replies: checking that one adds up before its data lands (see
 * read_wire.h).  net/call.c does the landing.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include "read_wire.h"

/**
 * orfs_remote_read_ok() - does a READ reply the server RDMA-wrote add up?
 * @h: a success READ reply, its body checked (orfs_hdr_check())
 * @want: the most bytes the request asked for
 * @n: filled with the reply's count
 *
 * Context: any.
 * Return: true if the reply says REMOTE, nothing else about where the data
 * is, carries no inline data, and counts at most @want bytes.
 */
bool orfs_remote_read_ok(const struct orfs_hdr *h, u32 want, u32 *n)
{
	const struct orfs_read_rep *rr = orfs_body(h);
	u32 flags = le32_to_cpu(rr->flags);

	*n = le32_to_cpu(rr->count);
	return (flags & ORFS_RF_REMOTE) && !(flags & (ORFS_RF_GRANT | ORFS_RF_WINDOW)) &&
	       !h->data_len && *n <= want;
}

/**
 * orfs_read_land_check() - does a READ reply add up, and where is its data?
 * @ask: what the request asked for
 * @h: the reply (status 0, its body checked by orfs_hdr_check())
 * @data: its inline data
 * @data_len: the inline data's length
 * @land: filled with where the data is, also on failure (for the message)
 * @n: filled with the reply's count
 * @nwin: filled with the windows of %ORFS_LAND_WINDOWS
 *
 * Nothing may land before this passes: the count must not exceed what was
 * asked nor the destination, and the data must be where the flags say and
 * only there.
 *
 * Context: any.
 * Return: 0, or -EIO for a reply that does not add up.
 */
int orfs_read_land_check(const struct orfs_read_ask *ask,
			 const struct orfs_hdr *h, const void *data,
			 u32 data_len, enum orfs_land *land, u32 *n, u32 *nwin)
{
	const struct orfs_read_rep *rr = orfs_body(h);
	u32 flags = le32_to_cpu(rr->flags);
	bool granted = flags & ORFS_RF_GRANT;
	bool remote = flags & ORFS_RF_REMOTE;

	*n = le32_to_cpu(rr->count);
	if (ask->placed) {
		*land = ORFS_LAND_PLACED;
		return orfs_remote_read_ok(h, ask->count, n) ? 0 : -EIO;
	}
	if (flags & ORFS_RF_WINDOW) {
		*land = ORFS_LAND_WINDOWS;
		if (!ask->grant || granted || remote || !ask->windows ||
		    orfs_windows_check(data, data_len, *n,
				       min3(ask->count, ask->bytes, ask->grant_size),
				       nwin))
			return -EIO;
		return 0;
	}
	*land = granted ? ORFS_LAND_GRANT : ORFS_LAND_INLINE;
	if (remote || *n > ask->count || *n > ask->bytes ||
	    (granted && (!ask->grant || data_len || *n > ask->grant_size)) ||
	    (!granted && *n > data_len))
		return -EIO;
	return 0;
}

/**
 * orfs_bare_accept() - is a bare READ reply the answer a slot waits for?
 * @imm: the reply's immediate value, in host byte order (orfs_bare_imm())
 * @xid: the slot's request, 0 if none
 * @bare_len: the bytes the slot's READ asked for bare, 0 if it did not
 * @len: the bytes the reply carries
 *
 * A bare reply stands for a successful READ of exactly @bare_len bytes.
 *
 * Context: any.
 * Return: true if it answers the slot's request.
 */
bool orfs_bare_accept(u32 imm, u64 xid, u32 bare_len, u32 len)
{
	return orfs_bare_match(imm, xid) && bare_len && len == bare_len;
}
