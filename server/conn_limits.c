// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's connection limits (conn_limits.h): the decisions, which the transport
 * applies.
 *
 * Admission (orfs_admit()), after the allow-list: like an NFS server's
 * "secure" export, orfsd accepts by default only connections from a
 * privileged source port, one below 1024, which rdma_cm lets only a
 * process with CAP_NET_BIND_SERVICE bind (cma_get_port() in the kernel):
 * orfs.ko binds one (mount option resvport, the default), an unprivileged
 * user's rdma_cm client cannot, so it cannot send requests under uids it
 * does not own.  --insecure turns that off.  Then the total and the
 * per-address connection limits, so that one client (or a flood from one
 * host) cannot take every queue pair, buffer and staging buffer.
 *
 * Staging buffers (orfs_grant_room()): with a connection limit, every
 * connection it admits is owed its part of them, and none may take what
 * the ones that may still come are owed.
 *
 * The watchdog (orfs_watch_check()), run about once a second for every
 * connection:
 *  - the handshake: a connection must be established, and its first
 *    request (AUTH with a shared secret, else any; orfs.ko sends GRANTS,
 *    or a NULL on a connection without staging buffers) must have
 *    arrived, within --handshake-timeout of its connect request, or it is
 *    dropped: a client that connects and then says nothing holds a queue
 *    pair and message buffers for nothing;
 *  - progress: a connection with reply SENDs posted of which none has
 *    completed for --stall-timeout is disconnected.  A client that stops
 *    posting receive buffers answers every SEND with an RNR NAK, and the
 *    server's queue pair retries it for ever when the client's connect
 *    request asked for that (rnr_retry_count 7: the passive side of an IB
 *    CM connection gets its RNR retry count from the REQ, so orfsd cannot
 *    bound it itself); meanwhile the reply's buffer, the cache blocks a
 *    zero-copy reply pins and the staging buffers stay taken.  A
 *    disconnect flushes the SENDs, which frees them.  Only SENDs count:
 *    time spent on the disk is the server's, and an idle connection has
 *    nothing posted, so neither an idle mount nor one waiting for a slow
 *    disk is ever cut.  A slow but live client takes its replies, however
 *    slowly: each completion restarts the clock;
 *  - a connection the server disconnected whose client does not answer
 *    the disconnect within ORFS_DISCONNECT_GRACE_MS is released without
 *    it (rdma_cm would otherwise keep it until its own timeouts, about a
 *    minute, with its staging buffers).
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "conn_limits.h"
#include "orfs_proto.h"

/**
 * orfs_addr_port() - the port of an IPv4 or IPv6 address
 * @sa: the address, or NULL
 *
 * Return: the port in host order, or -1 for NULL or another family.
 */
int orfs_addr_port(const struct sockaddr *sa)
{
	if (sa && sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa && sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return -1;
}

/**
 * orfs_admit() - may a connect request that passed the allow-list go on?
 * @l: the limits
 * @peer: the client's address and source port
 * @conns: connections the server has now
 * @addr_conns: of which from @peer's address
 *
 * Checked in this order: the source port (a request from an unprivileged
 * port is refused whatever the counts), the per-address limit, the total.
 *
 * Return: ORFS_ADMIT_OK or why not.
 */
enum orfs_admit orfs_admit(const struct orfs_limits *l,
			   const struct sockaddr *peer, uint32_t conns,
			   uint32_t addr_conns)
{
	int port = orfs_addr_port(peer);

	if (!l->insecure && (port < 0 || port >= ORFS_PRIV_PORT_END))
		return ORFS_ADMIT_INSECURE;
	if (addr_conns >= l->max_addr_conns)
		return ORFS_ADMIT_ADDR_CONNS;
	if (conns >= l->max_conns)
		return ORFS_ADMIT_CONNS;
	return ORFS_ADMIT_OK;
}

/* The reject reason (enum orfs_rej_reason) of a refused connect request. */
uint16_t orfs_admit_reason(enum orfs_admit verdict)
{
	switch (verdict) {
	case ORFS_ADMIT_INSECURE:
		return ORFS_REJ_INSECURE;
	case ORFS_ADMIT_CONNS:
		return ORFS_REJ_CONNS;
	case ORFS_ADMIT_ADDR_CONNS:
		return ORFS_REJ_ADDR_CONNS;
	case ORFS_ADMIT_OK:
		break;
	}
	return ORFS_REJ_UNKNOWN;
}

/**
 * orfs_grant_room() - the staging buffers a new connection may take, and
 *	those it is sure to get
 * @nslots: the staging buffers there are
 * @free: of which free now
 * @max_conns: --max-connections
 * @conns: connections that hold staging buffers now, not counting the
 *	one asking (below @max_conns: orfs_admit() let it in); every other
 *	connection, admitted or still to come, is owed its part
 * @min: set to its guarantee: nslots / max_conns, as far as that many are
 *	free
 *
 * Grants cannot be taken back, so without more the first connections get
 * the most and, once about 36 hold the default 128 buffers, later ones get
 * none and move everything inline.  With a connection limit, every
 * connection the limit admits is owed nslots / max_conns of them: a new
 * one may take at most what leaves that much for each connection that may
 * still come, and at least its own part.  With the defaults (128 buffers,
 * 512 connections) the part is 0 and nothing changes; an admin who sets
 * --max-connections (or --staging-size) so that it is 1 or more makes
 * sure that every client gets RDMA I/O.
 *
 * Return: how many it may take at most (at least *@min).
 */
uint32_t orfs_grant_room(uint32_t nslots, uint32_t free, uint32_t max_conns,
			 uint32_t conns, uint32_t *min)
{
	uint32_t part = max_conns ? nslots / max_conns : 0;
	uint64_t later = conns + 1 < max_conns ? max_conns - conns - 1 : 0;
	uint64_t keep = later * part;
	uint32_t room = free > keep ? (uint32_t)(free - keep) : 0;

	*min = part < free ? part : free;
	return room > *min ? room : *min;
}

/* A new connection's watchdog: its handshake deadline counts from @now_ms. */
void orfs_watch_start(struct orfs_watch *w, uint64_t now_ms)
{
	*w = (struct orfs_watch){ .start_ms = now_ms };
}

/*
 * Progress of an established connection: has it had @sends_out replies
 * posted, with none of them completing, for @stall_ms?  @sends_done counts
 * the completions so far; the stall's start is the first check that saw
 * replies waiting and no completion since the check before.
 */
static bool watch_stalled(struct orfs_watch *w, uint32_t stall_ms,
			  uint64_t now_ms, uint32_t sends_out,
			  uint64_t sends_done)
{
	if (!sends_out || sends_done != w->done_seen) {
		w->done_seen = sends_done;
		w->stall_ms = 0;
		return false;
	}
	if (!w->stall_ms) {
		w->stall_ms = now_ms;
		return false;
	}
	return now_ms - w->stall_ms >= stall_ms;
}

/**
 * orfs_watch_check() - the watchdog's look at one connection
 * @w: its state, updated
 * @l: the limits (handshake and stall timeouts)
 * @phase: where the connection is
 * @now_ms: CLOCK_MONOTONIC ms now
 * @sends_out: reply SENDs posted and not completed
 * @sends_done: reply SENDs completed since the connection began
 *
 * Meant to run about once a second: a stall is measured from the first
 * check that saw no completion, so it is found between @stall_ms and
 * @stall_ms plus the interval between checks after the last completion.
 *
 * Return: what to do (see enum orfs_watch_verdict).
 */
enum orfs_watch_verdict orfs_watch_check(struct orfs_watch *w,
					 const struct orfs_limits *l,
					 enum orfs_watch_phase phase,
					 uint64_t now_ms, uint32_t sends_out,
					 uint64_t sends_done)
{
	switch (phase) {
	case ORFS_WATCH_CLOSING:
		return now_ms - w->closing_ms >= ORFS_DISCONNECT_GRACE_MS ?
		       ORFS_WATCH_RELEASE : ORFS_WATCH_OK;
	case ORFS_WATCH_CONNECTING:
		return now_ms - w->start_ms >= l->handshake_ms ?
		       ORFS_WATCH_HANDSHAKE : ORFS_WATCH_OK;
	case ORFS_WATCH_UP:
		break;
	}
	if (!w->ready)
		return now_ms - w->start_ms >= l->handshake_ms ?
		       ORFS_WATCH_HANDSHAKE : ORFS_WATCH_OK;
	return watch_stalled(w, l->stall_ms, now_ms, sends_out, sends_done) ?
	       ORFS_WATCH_STALLED : ORFS_WATCH_OK;
}
