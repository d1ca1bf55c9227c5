// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: orfsd's transport between a built reply and its SEND
 * (server/rdma_reply.c, conn_reply()), without a device: the decisions and
 * reply changes of server/reply_wire.c and the memory-window chains of
 * server/window.c, whose windows, registrations and work requests are
 * plain structs here (nothing is posted, as in tests/server/test_window.c).
 *
 * An input is a 16-byte header, spans, and a reply:
 *
 *	u8   what		bit 0: the request left cache blocks (rdata)
 *				bit 1: it is a REMOTE READ
 *				bit 2: win_write (a DEMOTE_META's reservation)
 *				bit 3: win_end (a DEMOTE took one in)
 *				bit 4: each cache block has its own
 *				       registration (windows_per_block())
 *				bit 5: areq.bare (the READ may go bare)
 *	u8   per_set		windows per staging buffer, 1..ORFS_WINDOWS_MAX
 *	u8   nbound		windows of the set still bound from before
 *	u8   nspans		spans of the rdata, at most FUZZ_SPANS_MAX
 *	le32 asked		a REMOTE READ's count
 *	le32 rkey		the rkeys the set's windows start with
 *	le32 grant		the staging buffer (mod FUZZ_XPORT_SETS)
 *	nspans x { le32 off, le32 len }	in the fake arena
 *	the reply, as orfs_handle_request() would have built it
 *
 * The reply must be one the ops layer could build: it passes the client's
 * orfs_hdr_check(), and a successful READ or DEMOTE reply has its fixed
 * body (fuzz_decode.c checks both of what the ops layer builds), else the
 * input is rejected.  Then it goes the way conn_reply() sends it
 * (fuzz_xport.c, which lists the checks), in a send buffer of exactly a
 * connection's size, so ASan sees a window list written past it.
 * fuzz_decode.c plays the same transport with the replies and cache
 * blocks of real requests; here the spans and replies are anything.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_xport.h"
#include "orfs_proto.h"
#define FUZZ_NAME	"fuzz_reply"
#include "fuzz_util.h"

#define FUZZ_INLINE		4096U
#define FUZZ_REP_SIZE		(ORFS_META_MAX + FUZZ_INLINE)	/* as rdma_conn.c */
#define FUZZ_BLOCK_SHIFT	12U
#define FUZZ_BLOCKS		64U
#define FUZZ_ARENA		(FUZZ_BLOCKS << FUZZ_BLOCK_SHIFT)
#define FUZZ_SPANS_MAX		40U
#define FUZZ_HDR		16U

static uint8_t arena[FUZZ_ARENA] __attribute__((aligned(4096)));

static void no_release(struct orfs_rdata *rd)
{
}

/* Could the ops layer have built @rep (@n bytes)? */
static bool buildable(const uint8_t *rep, uint32_t n)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	uint16_t op;

	if (n > FUZZ_REP_SIZE || orfs_hdr_check(h, n, 1))
		return false;
	op = orfs_cpu16(h->opcode);
	if (h->status)
		return true;
	if (op == ORFS_OP_READ)
		return orfs_cpu32(h->body_len) == sizeof(struct orfs_read_rep);
	if (op == ORFS_OP_DEMOTE_META || op == ORFS_OP_DEMOTE)
		return orfs_cpu32(h->body_len) <= sizeof(struct orfs_demote_rep) +
						   ORFS_DEMOTE_BLOCKS_MAX;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_xport x;
	struct orfs_span spans[FUZZ_SPANS_MAX];
	struct orfs_rdata rdata = { 0, spans, no_release };
	struct fuzz_xport_req r = { 0 };
	uint32_t per_set, nbound, nspans, off, len, i, g;
	uint8_t what, *rep;
	bool bare;

	if (size < FUZZ_HDR)
		return -1;
	what = data[0];
	per_set = data[1] % ORFS_WINDOWS_MAX + 1;
	nbound = data[2] % (per_set + 1);
	nspans = data[3] % (FUZZ_SPANS_MAX + 1);
	g = get32(data + 12) % FUZZ_XPORT_SETS;
	if (size < FUZZ_HDR + 8 * (size_t)nspans)
		return -1;
	for (i = 0; i < nspans; i++) {
		off = get32(data + FUZZ_HDR + 8 * i) % FUZZ_ARENA;
		len = get32(data + FUZZ_HDR + 8 * i + 4) % (FUZZ_ARENA - off) + 1;
		spans[i].addr = arena + off;
		spans[i].len = len;
	}
	rdata.nspans = nspans;
	fuzz_xport_init(&x, arena, FUZZ_ARENA, FUZZ_BLOCK_SHIFT, what & 16,
			per_set, nbound, get32(data + 8));
	r.rdata = (what & 1) && nspans ? &rdata : NULL;
	r.remote_read = what & 2;
	r.asked = get32(data + 4);
	r.grant = g;
	r.win_write = what & 4;
	r.win_end = what & 8;
	r.win_grant = g;
	r.bare = what & 32;
	data += FUZZ_HDR + 8 * (size_t)nspans;
	size -= FUZZ_HDR + 8 * (size_t)nspans;
	if (!buildable(data, (uint32_t)size))
		return -1;

	/* The send buffer, exactly as big as the connection's. */
	rep = malloc(FUZZ_REP_SIZE);
	if (!rep)
		abort();
	memcpy(rep, data, size);
	fuzz_xport_reply(&x, rep, (uint32_t)size, FUZZ_REP_SIZE, &r, &bare);
	free(rep);
	return 0;
}
