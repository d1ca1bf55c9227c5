/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The client's side of the shared-secret handshake (net/auth.c): the
 * HMAC-SHA256 proofs of Documentation/protocol.md, "Shared-secret
 * handshake".  The secret from the mount option is decoded by
 * orfs_auth_parse_secret(), which fs/ calls: net/orfs_net.h declares it.
 * No RDMA here, so KUnit can build it (tests/kunit/orfs_auth_test.c).
 */
#ifndef ORFS_AUTH_H
#define ORFS_AUTH_H

#include <linux/types.h>
#include "orfs_proto.h"
#include "orfs_net.h"	/* orfs_auth_parse_secret() */

struct crypto_shash;

struct crypto_shash *orfs_auth_tfm_alloc(const u8 *secret, u32 len);
void orfs_auth_tfm_free(struct crypto_shash *tfm);
int orfs_auth_proof(struct crypto_shash *tfm, int client, const u8 *nc,
		    const u8 *ns, u64 client_id, u8 *out);
int orfs_auth_check_server(struct crypto_shash *tfm, const u8 *nc,
			   const u8 *ns, u64 client_id, const u8 *proof);

#endif /* ORFS_AUTH_H */
