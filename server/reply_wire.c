// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: the bytes of a reply on its way out (reply_wire.h).
 * Every function works on the reply buffer alone; rdma_reply.c posts what
 * they decide.
 */
#include <stddef.h>
#include <string.h>

#include "reply_wire.h"

/**
 * orfs_reply_read_rep() - the body of a successful READ reply
 * @rep: the reply orfs_handle_request() built
 * @n: its length
 *
 * Return: the body, or NULL if @rep is not a successful READ's reply with
 * its whole body.
 */
struct orfs_read_rep *orfs_reply_read_rep(uint8_t *rep, uint32_t n)
{
	struct orfs_hdr *h = (struct orfs_hdr *)rep;

	if (n < sizeof(*h) + sizeof(struct orfs_read_rep) || h->status ||
	    orfs_cpu16(h->opcode) != ORFS_OP_READ)
		return NULL;
	return (struct orfs_read_rep *)(h + 1);
}

/**
 * orfs_reply_remote_bytes() - how much of a REMOTE READ's data to RDMA-write
 * @rep: the reply orfs_handle_request() built
 * @n: its length
 * @asked: the request's count
 *
 * Return: the reply's count if it is a successful READ reply flagged
 * ORFS_RF_REMOTE, at most @asked; else 0 (an error reply, nothing read).
 */
uint32_t orfs_reply_remote_bytes(const uint8_t *rep, uint32_t n, uint32_t asked)
{
	const struct orfs_read_rep *rr = orfs_reply_read_rep((uint8_t *)rep, n);
	uint32_t count;

	if (!rr || !(orfs_cpu32(rr->flags) & ORFS_RF_REMOTE))
		return 0;
	count = orfs_cpu32(rr->count);
	return count < asked ? count : asked;
}

/**
 * orfs_reply_path() - which way conn_reply() sends a reply
 * @rep: the reply
 * @n: its length (not 0)
 * @nchain: the RDMA WRITEs of a REMOTE READ built for it (conn_chain())
 * @rdata: the request left cache blocks to move or show (areq.rdata)
 * @remote_read: the request is a REMOTE READ
 * @win_write: areq.win_write (a zero-copy DEMOTE_META's reservation)
 * @win_end: areq.win_end (a zero-copy DEMOTE took its reservation in)
 *
 * Return: the path (enum orfs_reply_path).  A READ whose blocks stay in
 * the cache is shown through windows if the ops layer flagged its reply
 * ORFS_RF_WINDOW, else gathered.
 */
enum orfs_reply_path orfs_reply_path(uint8_t *rep, uint32_t n, int nchain,
				     bool rdata, bool remote_read,
				     bool win_write, bool win_end)
{
	const struct orfs_read_rep *rr;

	if (nchain > 0)
		return ORFS_RP_CHAIN;
	if ((win_write && rdata) || win_end)
		return ORFS_RP_DEMOTE;
	rr = rdata && !remote_read ? orfs_reply_read_rep(rep, n) : NULL;
	if (!rr)
		return ORFS_RP_PLAIN;
	if (orfs_cpu32(rr->flags) & ORFS_RF_WINDOW)
		return ORFS_RP_WINDOWS;
	return ORFS_RP_GATHER;
}

/**
 * orfs_reply_windows_listed() - a reply now carries a window list
 * @rep: the reply; orfs_windows_build() wrote @nwin segments at its data
 *	offset
 * @nwin: their number (0: none, the reply is left alone)
 *
 * Return: the reply's new length, or 0 if @nwin is 0 (keep the old one).
 */
uint32_t orfs_reply_windows_listed(uint8_t *rep, uint32_t nwin)
{
	struct orfs_hdr *h = (struct orfs_hdr *)rep;
	uint32_t len = nwin * (uint32_t)sizeof(struct orfs_rseg);

	if (!nwin)
		return 0;
	h->data_len = orfs_le32(len);
	return orfs_data_offset(orfs_cpu32(h->body_len)) + len;
}

/**
 * orfs_reply_windows_copied() - a window READ's data went to the staging
 *	buffer instead
 * @rep: a successful READ reply flagged ORFS_RF_WINDOW
 *
 * Its flags say ORFS_RF_GRANT rather than ORFS_RF_WINDOW.
 *
 * Return: the READ's count, for the statistics.
 */
uint32_t orfs_reply_windows_copied(uint8_t *rep)
{
	struct orfs_read_rep *rr = (struct orfs_read_rep *)(rep + sizeof(struct orfs_hdr));

	rr->flags = orfs_le32((orfs_cpu32(rr->flags) & ~ORFS_RF_WINDOW) |
			      ORFS_RF_GRANT);
	return orfs_cpu32(rr->count);
}

/**
 * orfs_reply_demote_decline() - turn a DEMOTE_META's accepted verdicts
 *	into ORFS_DV_NOROOM
 * @rep: a DEMOTE_META or DEMOTE reply
 * @n: its length
 *
 * For a reservation the windows cannot show.  Only verdicts inside the
 * reply's body and its @n bytes are touched, whatever nblocks says; an
 * error reply (no body) is left alone.
 */
void orfs_reply_demote_decline(uint8_t *rep, uint32_t n)
{
	struct orfs_hdr *h = (struct orfs_hdr *)rep;
	struct orfs_demote_rep *dr = (struct orfs_demote_rep *)(h + 1);
	uint8_t *verdict = (uint8_t *)(dr + 1);
	uint32_t i, nb, room;

	if (n < sizeof(*h) + sizeof(*dr) || h->status ||
	    orfs_cpu32(h->body_len) < sizeof(*dr))
		return;
	room = orfs_cpu32(h->body_len) - (uint32_t)sizeof(*dr);
	if (room > n - sizeof(*h) - sizeof(*dr))
		room = n - (uint32_t)(sizeof(*h) + sizeof(*dr));
	nb = orfs_cpu16(dr->nblocks);
	if (nb > room)
		nb = room;
	for (i = 0; i < nb; i++)
		if (verdict[i] == ORFS_DV_ACCEPT)
			verdict[i] = ORFS_DV_NOROOM;
	dr->accepted = 0;
}

/**
 * orfs_reply_bare_ok() - may a READ's reply go bare (ORFS_IO_BARE)?
 * @rep: the reply built, for a READ whose op said it may (areq.bare)
 * @n: its length
 * @ahead: work requests go ahead of the SEND (a chain or windows)
 * @off: filled with the data's offset in @rep
 * @count: filled with the data's length
 * @imm: filled with the immediate value (orfs_bare_imm(), host order)
 *
 * Only if the reply is what a bare reply stands for: status 0, inline
 * data of exactly @count bytes ending the reply, no flag but EOF (which a
 * bare reply drops: the client knows the size it asked for), and nothing
 * posted ahead of it.
 *
 * Return: true if it may; the outputs are set only then.
 */
bool orfs_reply_bare_ok(const uint8_t *rep, uint32_t n, bool ahead,
			uint32_t *off, uint32_t *count, uint32_t *imm)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	const struct orfs_read_rep *rr = orfs_reply_read_rep((uint8_t *)rep, n);
	uint32_t c, o, i;

	if (!rr || (orfs_cpu32(rr->flags) & ~ORFS_RF_EOF) || ahead)
		return false;
	c = orfs_cpu32(rr->count);
	o = orfs_data_offset(orfs_cpu32(h->body_len));
	if (!c || orfs_cpu32(h->data_len) != c || o > n || n - o != c ||
	    orfs_bare_imm(orfs_cpu64(h->xid), &i))
		return false;
	*off = o;
	*count = c;
	*imm = i;
	return true;
}
