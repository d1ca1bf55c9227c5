/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's transport, the part of a reply that is bytes only: which way a
 * built reply leaves (rdma_reply.c, conn_reply()), and the changes the
 * transport makes to it on the way (a window list, a fallback to a copy,
 * declined verdicts, a bare reply).  No verbs here, so tests/fuzz runs
 * exactly this code (fuzz_reply.c) with windows that are plain structs.
 */
#ifndef ORFSD_REPLY_WIRE_H
#define ORFSD_REPLY_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "orfs_proto.h"

/**
 * enum orfs_reply_path - how conn_reply() moves a reply and its data
 * @ORFS_RP_PLAIN: the reply as built; cache blocks it held are released
 * @ORFS_RP_CHAIN: behind the RDMA WRITEs of a REMOTE READ (conn_chain())
 * @ORFS_RP_DEMOTE: behind the window chain of a zero-copy DEMOTE_META or
 *	DEMOTE (conn_reply_demote())
 * @ORFS_RP_WINDOWS: a granted READ's cache blocks shown through memory
 *	windows (conn_reply_windows())
 * @ORFS_RP_GATHER: an inline READ's data gathered from its cache blocks
 *	into the SEND (conn_reply_gather())
 */
enum orfs_reply_path {
	ORFS_RP_PLAIN,
	ORFS_RP_CHAIN,
	ORFS_RP_DEMOTE,
	ORFS_RP_WINDOWS,
	ORFS_RP_GATHER,
};

struct orfs_read_rep *orfs_reply_read_rep(uint8_t *rep, uint32_t n);
uint32_t orfs_reply_remote_bytes(const uint8_t *rep, uint32_t n,
				 uint32_t asked);
enum orfs_reply_path orfs_reply_path(uint8_t *rep, uint32_t n, int nchain,
				     bool rdata, bool remote_read,
				     bool win_write, bool win_end);
uint32_t orfs_reply_windows_listed(uint8_t *rep, uint32_t nwin);
uint32_t orfs_reply_windows_copied(uint8_t *rep);
void orfs_reply_demote_decline(uint8_t *rep, uint32_t n);
bool orfs_reply_bare_ok(const uint8_t *rep, uint32_t n, bool ahead,
			uint32_t *off, uint32_t *count, uint32_t *imm);

#endif /* ORFSD_REPLY_WIRE_H */
