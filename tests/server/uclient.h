/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uclient: a userspace ORFS client of a running orfsd over rdma-core,
 * without orfs.ko.  The helpers orfs-smoke (rdma_smoke.c) and orfs-hostile
 * (tests/hostile/hostile.c) share: connecting (the connect request, the
 * accept, the shared-secret handshake, GRANTS), building and sending
 * requests, waiting for their replies, and RDMA READ and WRITE of server
 * memory (staging buffers, memory windows) from a registered buffer.
 *
 * One client is one RC connection with ASK_CREDITS send buffers (slot i
 * holds the request sent with post_send(c, i, ...)) and ASK_CREDITS
 * receive buffers.  Everything is polled; nothing here is thread-safe.
 *
 * A version-1 orfsd (which put the staging buffers in its accept, before
 * any handshake) is understood too, so that orfs-hostile can show what
 * such a server gives away: client_connect() takes the grants out of a
 * version-1 accept, and requests carry the version agreed.
 */
#ifndef ORFS_UCLIENT_H
#define ORFS_UCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "orfs_proto.h"

#define ASK_CREDITS	16
#define ASK_INLINE	4096
#define TIMEOUT_MS	5000
#define ASK_IO_SIZE	(1U << 20)	/* staging buffers of at least this */
#define SEG_GAP		4096U		/* bytes between segments (struct dio) */
#define UC_SEND_WRID	0x80000000U	/* wr_id bit of send-queue work requests */

/**
 * struct uc_opts - what connect requests ask for (one per process)
 * @client_id: the client id every connection carries (one "mount")
 * @auth: offer the shared-secret handshake (ORFS_CF_AUTH and a nonce)
 * @windows: offer ORFS_CF_WINDOWS
 * @secret: the shared secret client_open() proves with AUTH, or NULL
 * @secret_len: its length
 * @io_size: the connect request's io_size (0: inline I/O only)
 * @port: orfsd's port (-p)
 * @mpath: the export path MOUNT asks for (-m)
 */
struct uc_opts {
	uint64_t	client_id;
	bool		auth;
	bool		windows;
	const uint8_t	*secret;
	size_t		secret_len;
	uint32_t	io_size;
	const char	*port;
	const char	*mpath;
};

extern struct uc_opts uc_opts;

/* The options every uclient program takes, for getopt(): -p PORT, -m PATH. */
#define UC_GETOPT	"p:m:"
int uc_option(int opt, const char *arg);

/**
 * struct client - one connection to orfsd
 * @ch: its rdma_cm event channel
 * @id: its cm id (and QP)
 * @pd: protection domain of the QP and buffers
 * @cq: send and receive completions
 * @mr: registration of @mem
 * @mem: @nrecv receive buffers, then @nsend send buffers
 * @buf_size: bytes per buffer
 * @nrecv: receive buffers posted
 * @nsend: send buffers
 * @rep: the accept
 * @version: the protocol version agreed
 * @grants: the staging buffers GRANTS gave (or a version-1 accept carried);
 *	zero until then
 * @accept_grants: the accept itself carried staging buffers (version 1)
 * @nonce: the connect request's nonce (ORFS_CF_AUTH)
 * @next_xid: the next request's xid
 * @credits: requests the server lets it keep in flight
 * @inline_size: the agreed inline threshold
 */
struct client {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct ibv_pd			*pd;
	struct ibv_cq			*cq;
	struct ibv_mr			*mr;
	uint8_t				*mem;
	uint32_t			buf_size;
	uint32_t			nrecv;
	uint32_t			nsend;
	struct orfs_conn_rep		rep;
	uint16_t			version;
	struct orfs_grants_rep		grants;
	bool				accept_grants;
	uint8_t				nonce[ORFS_AUTH_NONCE_LEN];
	uint64_t			next_xid;
	uint16_t			credits;
	uint32_t			inline_size;
};

/**
 * struct dio - a registered buffer for RDMA: the server may RDMA-read and
 *	write it, and the client RDMA-reads and writes server memory from it
 * @mr: its registration (local, remote read and write)
 * @mem: @size bytes; the write source first, the read target after it
 * @size: bytes
 * @half: bytes of each half
 */
struct dio {
	struct ibv_mr	*mr;
	uint8_t		*mem;
	size_t		size;
	size_t		half;
};

/* TAP output: "ok N - ..." or "not ok N - ..."; counted. */
extern int tap_n, tap_failed;
void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

long now_ms(void);
uint8_t *recv_buf(struct client *c, uint32_t i);
uint8_t *send_buf(struct client *c, uint32_t i);
int wait_cm(struct client *c, enum rdma_cm_event_type want,
	    struct rdma_cm_event *out, void *pdata, size_t plen);
int post_recv(struct client *c, uint32_t i);
int post_send(struct client *c, uint32_t i, uint32_t len);
int poll_wc(struct client *c, struct ibv_wc *wc, long end, bool quiet);
int wait_recv(struct client *c, uint32_t *idx, uint32_t *len, long ms);

void conn_req_init(struct orfs_conn_req *r, uint16_t lo, uint16_t hi);
int client_setup(struct client *c, const char *host, const char *port);
int client_setup_from(struct client *c, const char *src, const char *host,
		      const char *port);
int client_connect(struct client *c, uint16_t lo, uint16_t hi,
		   struct orfs_conn_rej *rej);
int client_auth(struct client *c);
int client_grants(struct client *c);
int client_open(struct client *c, const char *host, const char *port);
int client_mount(struct client *c, const char *path, struct orfs_fh *root);
void client_destroy(struct client *c, bool abrupt);

void *req_start(struct client *c, uint32_t slot, uint16_t op,
		uint32_t body_len, uint64_t *xid);
int call(struct client *c, uint64_t xid, uint32_t len, uint8_t *out);
uint32_t msg_len(struct client *c, uint32_t slot);
uint32_t msg_len_data(struct client *c, uint32_t slot);
const void *rep_body(const uint8_t *out);
uint64_t name_req(struct client *c, uint16_t op, const struct orfs_fh *dir,
		  const char *name);
uint64_t create_req(struct client *c, uint16_t op, const struct orfs_fh *dir,
		    const char *name, uint32_t mode, uint32_t flags,
		    const char *target);

int dio_init(struct client *c, struct dio *d, uint32_t count);
void dio_fini(struct dio *d);
int rdma_at(struct client *c, enum ibv_wr_opcode op, struct dio *d,
	    uint8_t *local, uint32_t len, uint64_t raddr, uint32_t rkey);
int grant_rdma(struct client *c, enum ibv_wr_opcode op, struct dio *d,
	       uint8_t *local, uint32_t len, uint32_t grant);
int windows_rdma(struct client *c, enum ibv_wr_opcode op, struct dio *d,
		 const uint8_t *out, uint32_t n, struct orfs_rseg *first);

/* File data of a pattern: WRITE it, READ it back (and check it). */
extern uint64_t windows_read;
uint8_t dpat(uint32_t seed, uint64_t i);
int dwrite(struct client *c, struct dio *d, const struct orfs_fh *fh,
	   uint32_t seed, uint64_t off, uint32_t len, uint8_t *out);
int dread_raw(struct client *c, struct dio *d, const struct orfs_fh *fh,
	      uint64_t off, uint32_t len, uint32_t grant, uint64_t *version,
	      uint8_t *out, const uint8_t **data, uint32_t *n);
int dread(struct client *c, struct dio *d, const struct orfs_fh *fh,
	  uint32_t seed, uint64_t off, uint32_t len, uint64_t *version,
	  uint8_t *out);

#endif /* ORFS_UCLIENT_H */
