/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd shared-secret handshake: HMAC-SHA256, the secret file, the accept
 * decision and the AUTH request (Documentation/protocol.md, "Shared-secret
 * handshake").  No verbs here, so all of it is unit-testable.
 */
#ifndef ORFSD_AUTH_H
#define ORFSD_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orfs_proto.h"

#define ORFS_SHA256_LEN		32
#define ORFS_SHA256_BLOCK	64

/**
 * struct orfs_sha256 - SHA-256 state (FIPS 180-4)
 * @h: the chaining value
 * @len: bytes hashed so far
 * @buf: a partial block
 * @used: bytes in @buf
 */
struct orfs_sha256 {
	uint32_t	h[8];
	uint64_t	len;
	uint8_t		buf[ORFS_SHA256_BLOCK];
	size_t		used;
};

void orfs_sha256_init(struct orfs_sha256 *s);
void orfs_sha256_update(struct orfs_sha256 *s, const void *data, size_t len);
void orfs_sha256_final(struct orfs_sha256 *s, uint8_t out[ORFS_SHA256_LEN]);
void orfs_hmac_sha256(const void *key, size_t key_len, const void *msg,
		      size_t msg_len, uint8_t out[ORFS_SHA256_LEN]);
bool orfs_auth_equal(const void *a, const void *b, size_t len);

/**
 * struct orfs_secret - the shared secret, from --secret-file
 * @key: its bytes
 * @len: how many (ORFS_SECRET_MIN..ORFS_SECRET_MAX); 0: no secret
 */
struct orfs_secret {
	uint8_t		key[ORFS_SECRET_MAX];
	size_t		len;
};

int orfs_secret_load(const char *path, struct orfs_secret *s, char *msg,
		     size_t msg_len);
void orfs_secret_wipe(struct orfs_secret *s);

/*
 * enum orfs_auth_state - where a connection of a server with a secret is
 * @ORFS_AUTH_PENDING: accepted; only AUTH is answered
 * @ORFS_AUTH_OK: AUTH succeeded; requests run
 * @ORFS_AUTH_FAILED: a wrong proof, another request first, or no AUTH in
 *	time: everything gets EACCES and the transport disconnects
 */
enum orfs_auth_state {
	ORFS_AUTH_PENDING = 1,
	ORFS_AUTH_OK,
	ORFS_AUTH_FAILED,
};

/**
 * struct orfs_auth - one connection's handshake
 * @secret: the server's secret
 * @state: enum orfs_auth_state
 * @nc: the client's nonce (connect request)
 * @ns: the server's nonce (accept)
 * @client_id: the connect request's client id
 *
 * Lives in the transport's connection; the request layer reaches it
 * through orfs_req_ctx.auth.  Only the event-loop thread touches it.
 */
struct orfs_auth {
	const struct orfs_secret	*secret;
	enum orfs_auth_state		state;
	uint8_t				nc[ORFS_AUTH_NONCE_LEN];
	uint8_t				ns[ORFS_AUTH_NONCE_LEN];
	uint64_t			client_id;
};

struct orfs_stats;

int orfs_auth_accept(const struct orfs_secret *secret,
		     const struct orfs_conn_req *req, const uint8_t *ns,
		     struct orfs_auth *a, struct orfs_conn_rep *rep);
int orfs_auth_check(struct orfs_auth *a, const struct orfs_hdr *h,
		    int hdr_err, const char *peer, struct orfs_stats *st,
		    struct orfs_auth_rep *rep);
void orfs_auth_proof(const struct orfs_secret *secret, int client,
		     const uint8_t *nc, const uint8_t *ns, uint64_t client_id,
		     uint8_t out[ORFS_AUTH_PROOF_LEN]);

#endif /* ORFSD_AUTH_H */
