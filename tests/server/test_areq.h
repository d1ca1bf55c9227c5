/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Starting a request as the transport does (orfs_req_start() on buffers
 * of the request's own, with a done callback), for the tests of requests
 * that may be left pending: test_ops_offload.c, test_ops_slow.c.
 */
#ifndef ORFS_TEST_AREQ_H
#define ORFS_TEST_AREQ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ops.h"

/**
 * areq_start() - start a request from a copy of its bytes
 * @a: filled and started
 * @ctx: the connection context
 * @src: the request's bytes (copied to @req, as a receive buffer holds them)
 * @len: their number
 * @req: the request's own buffer (8-byte aligned)
 * @rep: its reply buffer (8-byte aligned), of @rep_size bytes
 * @rep_size: the reply buffer's size
 * @done: called when a pending request finishes
 *
 * Return: whether the request was left pending; orfs_req_start()'s reply
 * length in *@n (0 when pending).
 */
static inline bool areq_start(struct orfs_areq *a,
			      const struct orfs_req_ctx *ctx, const void *src,
			      uint32_t len, uint8_t *req, uint8_t *rep,
			      uint32_t rep_size, orfs_areq_done_fn done,
			      uint32_t *n)
{
	bool pending = false;

	memcpy(req, src, len);
	*a = (struct orfs_areq){ .ctx = ctx, .req = req, .len = len,
		.rep = rep, .rep_size = rep_size, .done = done };
	*n = orfs_req_start(a, &pending);
	return pending;
}

#endif /* ORFS_TEST_AREQ_H */
