/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's connection limits: who may connect and how many (admission), how
 * many staging buffers a connection may take, and when a connection
 * is dropped because it does not complete its handshake or stops taking
 * its replies (the watchdog).  Pure decisions, no verbs: the transport
 * (rdma_conn.c, rdma_loop.c) counts and acts, and the unit tests drive
 * these functions alone (tests/server/test_conn_limits.c).
 */
#ifndef ORFSD_CONN_LIMITS_H
#define ORFSD_CONN_LIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "orfs_proto.h"

#define ORFS_MAX_CONNS_DEFAULT		512	/* --max-connections */
#define ORFS_MAX_ADDR_CONNS_DEFAULT	64	/* --max-connections-per-address */
#define ORFS_MAX_CONNS_MAX		65536
#define ORFS_HANDSHAKE_SECS_DEFAULT	10	/* --handshake-timeout */
#define ORFS_STALL_SECS_DEFAULT		30	/* --stall-timeout */
#define ORFS_LIMIT_SECS_MAX		3600	/* both timeouts' bound */
/*
 * After the server disconnects a connection, how long it waits for the
 * peer's side of the disconnect before it releases the connection anyway.
 */
#define ORFS_DISCONNECT_GRACE_MS	5000


/**
 * struct orfs_limits - what the transport enforces on connections
 * @max_conns: connections at once, all clients together
 * @max_addr_conns: connections at once from one client address
 * @insecure: accept connections from any source port (else only from a
 *	privileged one, below ORFS_PRIV_PORT_END)
 * @handshake_ms: a connection must be established and have sent its
 *	first request within this many ms of its connect request
 * @stall_ms: a connection with replies posted that the client has not
 *	taken for this many ms is disconnected
 */
struct orfs_limits {
	uint32_t	max_conns;
	uint32_t	max_addr_conns;
	bool		insecure;
	uint32_t	handshake_ms;
	uint32_t	stall_ms;
};

/**
 * enum orfs_admit - the verdict on a connect request
 * @ORFS_ADMIT_OK: admitted
 * @ORFS_ADMIT_INSECURE: its source port is not privileged and the server
 *	is not --insecure
 * @ORFS_ADMIT_CONNS: the server has @max_conns connections
 * @ORFS_ADMIT_ADDR_CONNS: its address has @max_addr_conns connections
 */
enum orfs_admit {
	ORFS_ADMIT_OK,
	ORFS_ADMIT_INSECURE,
	ORFS_ADMIT_CONNS,
	ORFS_ADMIT_ADDR_CONNS,
};

int orfs_addr_port(const struct sockaddr *sa);
enum orfs_admit orfs_admit(const struct orfs_limits *l,
			   const struct sockaddr *peer, uint32_t conns,
			   uint32_t addr_conns);
uint16_t orfs_admit_reason(enum orfs_admit verdict);
uint32_t orfs_grant_room(uint32_t nslots, uint32_t free, uint32_t max_conns,
			 uint32_t conns, uint32_t *min);

/**
 * enum orfs_watch_phase - where a connection is, as the watchdog sees it
 * @ORFS_WATCH_CONNECTING: accepted, the client has not completed the
 *	connection (rdma_cm ESTABLISHED not seen)
 * @ORFS_WATCH_UP: established
 * @ORFS_WATCH_CLOSING: the server disconnected it and waits for the
 *	client's side of the disconnect
 */
enum orfs_watch_phase {
	ORFS_WATCH_CONNECTING,
	ORFS_WATCH_UP,
	ORFS_WATCH_CLOSING,
};

/**
 * struct orfs_watch - one connection's watchdog state
 * @start_ms: CLOCK_MONOTONIC ms of the connect request (the handshake's
 *	deadline counts from it)
 * @ready: the connection has received its first request: its handshake
 *	is over once it is established too
 * @done_seen: replies completed at the last check
 * @stall_ms: CLOCK_MONOTONIC ms since which replies were waiting and none
 *	completed; 0 while that is not so
 * @closing_ms: CLOCK_MONOTONIC ms the server disconnected the connection
 *	(ORFS_WATCH_CLOSING only)
 */
struct orfs_watch {
	uint64_t	start_ms;
	bool		ready;
	uint64_t	done_seen;
	uint64_t	stall_ms;
	uint64_t	closing_ms;
};

/**
 * enum orfs_watch_verdict - what orfs_watch_check() found
 * @ORFS_WATCH_OK: nothing to do
 * @ORFS_WATCH_HANDSHAKE: the handshake did not complete in time
 * @ORFS_WATCH_STALLED: replies have waited for the client for @stall_ms
 *	without one of them completing
 * @ORFS_WATCH_RELEASE: the client has not answered the disconnect within
 *	ORFS_DISCONNECT_GRACE_MS: release the connection without it
 */
enum orfs_watch_verdict {
	ORFS_WATCH_OK,
	ORFS_WATCH_HANDSHAKE,
	ORFS_WATCH_STALLED,
	ORFS_WATCH_RELEASE,
};

void orfs_watch_start(struct orfs_watch *w, uint64_t now_ms);
enum orfs_watch_verdict orfs_watch_check(struct orfs_watch *w,
					 const struct orfs_limits *l,
					 enum orfs_watch_phase phase,
					 uint64_t now_ms, uint32_t sends_out,
					 uint64_t sends_done);

#endif /* ORFSD_CONN_LIMITS_H */
