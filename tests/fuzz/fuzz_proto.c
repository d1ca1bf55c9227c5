// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the decoders of include/orfs_proto.h that the
 * request path of fuzz_decode.c does not reach, the client's above all.
 *
 * An input is 12 bytes of parameters followed by a payload:
 *
 *	le32 asked_inline	the inline threshold a client asked for
 *	le32 server_max		the server's --inline
 *	le32 count		entries announced for the raw dirent walk
 *	payload			copied to a buffer of exactly its size
 *
 * and the payload is decoded as each of:
 *  - connect private data on the server: orfs_conn_req_check(), then the
 *    accept the server would build from it (orfs_negotiate_inline()),
 *    which the client's orfs_conn_rep_check() must accept;
 *  - accept private data on the client: orfs_conn_rep_check(), which must
 *    refuse one with staging buffers (reserved bytes set);
 *  - reject private data on the client: orfs_rej_errno(), orfs_rej_str();
 *  - a reply on the client: orfs_hdr_check(reply), and for READDIR the
 *    entries through orfs_dirent_iter / orfs_dirent_next(), for
 *    DEMOTE_META and DEMOTE orfs_demote_rep_check() with @count blocks,
 *    for GRANTS orfs_grants_rep_check();
 *  - a request: orfs_hdr_check(request), and the name tails through
 *    orfs_tail_check() and orfs_name_check(); a DEMOTE_META or DEMOTE
 *    through orfs_demote_check(), and, if it passes, rebuilt with the
 *    client's batch helpers, which must give a body it passes again;
 *  - raw READDIR inline data: orfs_dirent_next() with @count entries;
 *  - one name: orfs_name_check();
 *  - attributes: orfs_attr_check(), on the payload and on the attributes
 *    of a GETATTR, SETATTR or LOOKUP reply.
 * Each result is checked against what its documentation promises; a
 * broken promise aborts.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orfs_proto.h"
#define FUZZ_NAME	"fuzz_proto"
#include "fuzz_util.h"

/* ---- connection private data ---- */

static void fuzz_conn_req(const uint8_t *p, uint32_t len, uint32_t server_max,
			  uint32_t credits)
{
	const struct orfs_conn_req *r = (const void *)p;
	struct orfs_conn_rep rep;
	uint16_t version = 0xffff;
	uint32_t asked, il;
	int rc;

	rc = orfs_conn_req_check(r, len, &version);
	if (rc != 0 && rc != ORFS_REJ_MALFORMED && rc != ORFS_REJ_VERSION)
		bug("orfs_conn_req_check() returned %d", rc);
	if (rc)
		return;
	if (len < sizeof(*r) || orfs_cpu32(r->magic) != ORFS_MAGIC)
		bug("orfs_conn_req_check() accepted %u bytes without the magic", len);
	if (version < ORFS_PROTO_MIN_VERSION || version > ORFS_PROTO_VERSION ||
	    version < orfs_cpu16(r->min_version) ||
	    version > orfs_cpu16(r->max_version))
		bug("orfs_conn_req_check() chose version %u for %u..%u", version,
		    orfs_cpu16(r->min_version), orfs_cpu16(r->max_version));
#ifdef ORFS_IO_MAX
	if (orfs_cpu32(r->io_size) > ORFS_IO_MAX)
		bug("orfs_conn_req_check() accepted io_size %u", orfs_cpu32(r->io_size));
#endif

	/* The accept orfsd (rdma_conn.c) builds must satisfy the client. */
	asked = orfs_cpu32(r->inline_size);
	il = orfs_negotiate_inline(asked, server_max);
	if (il < ORFS_INLINE_MIN || il > ORFS_INLINE_MAX || il % 1024)
		bug("orfs_negotiate_inline(%u, %u) = %u", asked, server_max, il);
	if (asked >= ORFS_INLINE_MIN && il > asked)
		bug("orfs_negotiate_inline(%u, %u) = %u, above the ask", asked,
		    server_max, il);
	if (server_max >= ORFS_INLINE_MIN && il > server_max)
		bug("orfs_negotiate_inline(%u, %u) = %u, above the server's limit",
		    asked, server_max, il);
	memset(&rep, 0, sizeof(rep));
	rep.magic = orfs_le32(ORFS_MAGIC);
	rep.version = orfs_le16(version);
	rep.credits = orfs_le16((uint16_t)(1 + credits % ORFS_CREDITS_MAX));
	rep.inline_size = orfs_le32(il);
	/* A client asks for 1 KiB..64 KiB (mount option inline=). */
	if (asked >= ORFS_INLINE_MIN && asked <= ORFS_INLINE_MAX &&
	    server_max >= ORFS_INLINE_MIN &&
	    orfs_conn_rep_check(&rep, sizeof(rep), asked))
		bug("the client refuses the accept for inline %u (asked %u, server %u)",
		    il, asked, server_max);
}

static void fuzz_conn_rep(const uint8_t *p, uint32_t len, uint32_t asked)
{
	const struct orfs_conn_rep *r = (const void *)p;
	uint32_t il;
	int rc;

	rc = orfs_conn_rep_check(r, len, asked);
	if (rc != 0 && rc != -EPROTO)
		bug("orfs_conn_rep_check() returned %d", rc);
	if (rc)
		return;
	il = orfs_cpu32(r->inline_size);
	if (len < sizeof(*r) || orfs_cpu32(r->magic) != ORFS_MAGIC ||
	    orfs_cpu16(r->version) < ORFS_PROTO_MIN_VERSION ||
	    orfs_cpu16(r->version) > ORFS_PROTO_VERSION ||
	    il < ORFS_INLINE_MIN || il > ORFS_INLINE_MAX || il > asked ||
	    !r->credits || orfs_cpu16(r->credits) > ORFS_CREDITS_MAX)
		bug("orfs_conn_rep_check() accepted a bad accept");
	if (orfs_cpu32(r->flags) & ~ORFS_CF_KNOWN)
		bug("orfs_conn_rep_check() accepted unknown flags %#x",
		    orfs_cpu32(r->flags));
	/* no staging buffer before the handshake: the reserved bytes zero */
	if (!orfs_conn_rep_reserved_zero(r))
		bug("orfs_conn_rep_check() accepted an accept with reserved bytes set");
}

/*
 * A GRANTS reply's body: staging buffers a client indexes without further
 * checks.
 */
static void fuzz_grants_rep(const struct orfs_grants_rep *g)
{
	uint64_t gs = orfs_cpu32(g->grant_size);
	uint64_t ng = orfs_cpu16(g->grants);
	uint64_t addr = orfs_cpu64(g->grant_addr);
	int rc;

	rc = orfs_grants_rep_check(g);
	if (rc != 0 && rc != -EPROTO)
		bug("orfs_grants_rep_check() returned %d", rc);
	if (rc)
		return;
	if (g->reserved0 || g->reserved1)
		bug("orfs_grants_rep_check() accepted reserved fields");
	if (!ng && (gs || addr || g->grant_rkey))
		bug("orfs_grants_rep_check() accepted no grants with a size, address or rkey");
	if (ng && (ng > ORFS_GRANTS_MAX || gs < 4096 || gs > ORFS_IO_MAX ||
		   gs % 4096 || addr + ng * gs < addr))
		bug("orfs_grants_rep_check() accepted %llu grants of %llu bytes at %#llx",
		    (unsigned long long)ng, (unsigned long long)gs,
		    (unsigned long long)addr);
}

static void fuzz_conn_rej(const uint8_t *p, uint32_t len)
{
	const struct orfs_conn_rej *r = (const void *)p;
	uint16_t reason;
	int e;

	if (len < sizeof(*r) || orfs_cpu32(r->magic) != ORFS_MAGIC)
		return;
	reason = orfs_cpu16(r->reason);
	e = orfs_rej_errno(reason);
	if (e >= 0 || e < -4095)
		bug("orfs_rej_errno(%u) = %d", reason, e);
	if (!orfs_rej_str(reason) || !*orfs_rej_str(reason))
		bug("orfs_rej_str(%u) is empty", reason);
}

/* ---- directory entries ---- */

/*
 * Walk @len bytes of entries, @count announced; every entry returned must
 * lie inside the data.  Return what orfs_dirent_next() ended with.
 */
static int walk_dirents(const uint8_t *data, uint32_t len, uint32_t count)
{
	const struct orfs_dirent_plus *plus;
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	const uint8_t *expect = data;
	const char *name;
	uint32_t used = 0, n = 0, nl, extra;
	int rc;

	orfs_dirent_iter_init(&it, data, len, count);
	while ((rc = orfs_dirent_next(&it, &de, &name, &plus)) == 1) {
		nl = orfs_cpu16(de->name_len);
		if ((const uint8_t *)de != expect ||
		    (const uint8_t *)name != expect + sizeof(*de))
			bug("orfs_dirent_next(): entry %u is not where the last one ended", n);
		if (nl == 0 || nl > ORFS_NAME_MAX || !de->next)
			bug("orfs_dirent_next(): entry %u has name_len %u, next %llu", n,
			    nl, (unsigned long long)orfs_cpu64(de->next));
		extra = plus ? (uint32_t)sizeof(*plus) : 0;
		if (plus && (const uint8_t *)plus != expect + orfs_dirent_size(nl))
			bug("orfs_dirent_next(): entry %u's handle is not after its name", n);
		if (!plus != !(de->flags & ORFS_DE_PLUS))
			bug("orfs_dirent_next(): entry %u: plus %p, flags %#x", n,
			    (const void *)plus, de->flags);
		used += orfs_dirent_size(nl) + extra;
		if (used > len)
			bug("orfs_dirent_next(): entry %u ends at %u, past %u bytes", n,
			    used, len);
		if (memchr(name, '/', nl) || memchr(name, 0, nl))
			bug("orfs_dirent_next(): entry %u has a '/' or NUL in its name", n);
		expect += orfs_dirent_size(nl) + extra;
		n++;
		if (n > count)
			bug("orfs_dirent_next(): more entries than the %u announced", count);
	}
	if (rc == 0 && (n != count || used != len))
		bug("orfs_dirent_next(): ended after %u of %u entries, %u of %u bytes",
		    n, count, used, len);
	if (rc != 0 && rc != -EBADMSG)
		bug("orfs_dirent_next() returned %d", rc);
	return rc;
}

/* ---- messages ---- */

/*
 * A DEMOTE reply to a request of @nblocks blocks: if orfs_demote_rep_check()
 * accepts it, the verdicts are known, counted right, inside the body.
 */
static void fuzz_demote_reply(const struct orfs_hdr *h, uint32_t nblocks)
{
	const struct orfs_demote_rep *r = orfs_body(h);
	const u8 *v = NULL;
	uint32_t i, acc = 0;
	int rc;

	rc = orfs_demote_rep_check(h, nblocks, &v);
	if (rc < 0) {
		if (rc != -EBADMSG)
			bug("orfs_demote_rep_check() returned %d", rc);
		return;
	}
	if (orfs_cpu32(h->body_len) != sizeof(*r) + nblocks ||
	    v != (const u8 *)(r + 1))
		bug("orfs_demote_rep_check() accepted a body of %u bytes for %u blocks",
		    orfs_cpu32(h->body_len), nblocks);
	/* Inline data only as a zero-copy DEMOTE_META's window list. */
	if (h->data_len && (!rc || orfs_cpu32(h->data_len) % sizeof(struct orfs_rseg) ||
			    orfs_cpu32(h->data_len) >
			    ORFS_WINDOWS_MAX * sizeof(struct orfs_rseg)))
		bug("orfs_demote_rep_check() accepted %u bytes of data with %d accepted",
		    orfs_cpu32(h->data_len), rc);
	for (i = 0; i < nblocks; i++) {
		if (v[i] > ORFS_DV_MAX)
			bug("orfs_demote_rep_check() accepted verdict %u", v[i]);
		acc += v[i] == ORFS_DV_ACCEPT;
	}
	if ((uint32_t)rc != acc || (acc && !r->block_size))
		bug("orfs_demote_rep_check() said %d accepted, %u are", rc, acc);
}

/*
 * A DEMOTE_META or DEMOTE request: what orfs_demote_check() accepts lies
 * inside the body and has the promised fields; the client's batch helpers
 * rebuild it (one handle per distinct handle) into a body that passes too,
 * with the same data length.
 */
static void fuzz_demote_request(const struct orfs_hdr *h)
{
	const struct orfs_demote_req *q = orfs_body(h);
	const struct orfs_demote_blk *b;
	const struct orfs_fh *f;
	struct orfs_demote_batch batch;
	uint64_t *body2;
	struct orfs_hdr *h2;
	uint32_t total = 0, total2 = 0, nf, nb, i;
	int rc, n;

	rc = orfs_demote_check(h, &total);
	if (rc != 0 && rc != -EBADMSG && rc != -EINVAL)
		bug("orfs_demote_check() returned %d", rc);
	if (rc)
		return;
	nf = orfs_cpu16(q->nfiles);
	nb = orfs_cpu16(q->nblocks);
	if (!nf || nf > ORFS_DEMOTE_FILES_MAX || !nb || nb > ORFS_DEMOTE_BLOCKS_MAX ||
	    orfs_cpu32(h->body_len) != orfs_demote_body_len(nf, nb) ||
	    orfs_cpu32(h->body_len) > ORFS_DEMOTE_BODY_MAX)
		bug("orfs_demote_check() accepted %u files, %u blocks in %u bytes",
		    nf, nb, orfs_cpu32(h->body_len));
	f = orfs_demote_files(q);
	b = orfs_demote_blocks(q);
	orfs_demote_batch_init(&batch);
	for (i = 0; i < nb; i++) {
		uint32_t file = orfs_cpu16(b[i].file);

		if (file >= nf || orfs_fh_check(&f[file]) || !b[i].version ||
		    !b[i].len || orfs_cpu32(b[i].len) > ORFS_DEMOTE_LEN_MAX)
			bug("orfs_demote_check() accepted block %u", i);
		rc = orfs_demote_batch_add(&batch, &f[file], orfs_cpu64(b[i].offset),
					   orfs_cpu32(b[i].len),
					   orfs_cpu64(b[i].version));
		if (rc != (int)i)
			bug("orfs_demote_batch_add() refused checked block %u: %d", i, rc);
	}
	if (batch.bytes != total)
		bug("the batch holds %u bytes, the check said %u", batch.bytes, total);
	body2 = calloc(1, sizeof(*h2) + ORFS_DEMOTE_BODY_MAX);
	if (!body2)
		abort();
	h2 = (struct orfs_hdr *)body2;
	n = orfs_demote_encode(&batch, h2 + 1, ORFS_DEMOTE_BODY_MAX,
			       orfs_cpu32(q->flags), orfs_cpu32(q->grant));
	if (n <= 0)
		bug("orfs_demote_encode() of a checked request: %d", n);
	orfs_hdr_init(h2, orfs_cpu16(h->opcode), 1, 0, (uint32_t)n, 0);
	if (orfs_hdr_check(h2, sizeof(*h2) + (uint32_t)n, 0) ||
	    orfs_demote_check(h2, &total2) || total2 != total)
		bug("the rebuilt DEMOTE does not check out");
	free(body2);
}

/*
 * Attributes on the client: what orfs_attr_check() accepts names one of
 * the seven file types and nothing above it, a size below 2^63 and
 * nanoseconds below 10^9.
 */
static void fuzz_attr(const struct orfs_attr *a)
{
	uint32_t mode = orfs_cpu32(a->mode), type = mode >> ORFS_MODE_TYPE_SHIFT;
	int rc = orfs_attr_check(a);

	if (rc != 0 && rc != -EBADMSG)
		bug("orfs_attr_check() returned %d", rc);
	if (rc)
		return;
	if (type != ORFS_FT_FIFO && type != ORFS_FT_CHR && type != ORFS_FT_DIR &&
	    type != ORFS_FT_BLK && type != ORFS_FT_REG && type != ORFS_FT_LNK &&
	    type != ORFS_FT_SOCK)
		bug("orfs_attr_check() accepted mode %#o", mode);
	if ((int64_t)orfs_cpu64(a->size) < 0)
		bug("orfs_attr_check() accepted size %llu",
		    (unsigned long long)orfs_cpu64(a->size));
	if (orfs_cpu32(a->atime_nsec) >= ORFS_NSEC_PER_SEC ||
	    orfs_cpu32(a->mtime_nsec) >= ORFS_NSEC_PER_SEC ||
	    orfs_cpu32(a->ctime_nsec) >= ORFS_NSEC_PER_SEC)
		bug("orfs_attr_check() accepted nanoseconds of a second or more");
}

static void fuzz_reply(const uint8_t *p, uint32_t len, uint32_t count)
{
	const struct orfs_hdr *h = (const void *)p;
	uint32_t body, data;
	int rc, min;

	rc = orfs_hdr_check(h, len, 1);
	if (rc != 0 && rc != -EBADMSG && rc != -EPROTO && rc != -EOPNOTSUPP)
		bug("orfs_hdr_check(reply) returned %d", rc);
	if (rc)
		return;
	body = orfs_cpu32(h->body_len);
	data = orfs_cpu32(h->data_len);
	if ((uint64_t)sizeof(*h) + body > len ||
	    (data && (uint64_t)orfs_data_offset(body) + data > len))
		bug("orfs_hdr_check(reply) accepted body %u, data %u in %u bytes",
		    body, data, len);
	if (!(orfs_cpu16(h->flags) & ORFS_HF_REPLY))
		bug("orfs_hdr_check(reply) accepted a request");
	if (h->status)
		return;
	min = orfs_body_min(orfs_cpu16(h->opcode), 1);
	if (min < 0 || body < (uint32_t)min)
		bug("orfs_hdr_check(reply) accepted a short body");
	switch (orfs_cpu16(h->opcode)) {
	case ORFS_OP_GETATTR:
	case ORFS_OP_SETATTR:
		fuzz_attr(&((const struct orfs_attr_rep *)orfs_body(h))->attr);
		break;
	case ORFS_OP_LOOKUP:
		fuzz_attr(&((const struct orfs_lookup_rep *)orfs_body(h))->attr);
		break;
	}
	if (orfs_cpu16(h->opcode) == ORFS_OP_READDIR) {
		const struct orfs_readdir_rep *b = orfs_body(h);

		/* As the client does: the entries are the inline data. */
		walk_dirents(data ? orfs_data(h) : NULL, data, orfs_cpu32(b->count));
	}
	if (orfs_cpu16(h->opcode) == ORFS_OP_DEMOTE_META ||
	    orfs_cpu16(h->opcode) == ORFS_OP_DEMOTE)
		fuzz_demote_reply(h, count);
	if (orfs_cpu16(h->opcode) == ORFS_OP_GRANTS)
		fuzz_grants_rep(orfs_body(h));
}

static void check_name_tail(const struct orfs_hdr *h, uint32_t fixed,
			    uint32_t tail_len, uint32_t max, bool component)
{
	uint32_t body = orfs_cpu32(h->body_len);
	const char *tail = (const char *)orfs_body(h) + fixed;
	int rc;

	rc = orfs_tail_check(h, fixed, tail_len, max);
	if (rc != 0 && rc != -EBADMSG && rc != -ENAMETOOLONG)
		bug("orfs_tail_check() returned %d", rc);
	if (rc)
		return;
	if (!tail_len || tail_len > max || fixed > body || tail_len > body - fixed)
		bug("orfs_tail_check() accepted %u bytes at %u of a %u-byte body (max %u)",
		    tail_len, fixed, body, max);
	if (memchr(tail, 0, tail_len))
		bug("orfs_tail_check() accepted a NUL");
	if (component && !orfs_name_check(tail, tail_len) &&
	    (memchr(tail, '/', tail_len) ||
	     (tail_len == 1 && tail[0] == '.') ||
	     (tail_len == 2 && tail[0] == '.' && tail[1] == '.')))
		bug("orfs_name_check() accepted '%.*s'", (int)tail_len, tail);
}

static void fuzz_request(const uint8_t *p, uint32_t len)
{
	const struct orfs_hdr *h = (const void *)p;
	int rc;

	rc = orfs_hdr_check(h, len, 0);
	if (rc != 0 && rc != -EBADMSG && rc != -EPROTO && rc != -EOPNOTSUPP)
		bug("orfs_hdr_check(request) returned %d", rc);
	if (rc)
		return;
	if (h->status || (orfs_cpu16(h->flags) & ORFS_HF_REPLY))
		bug("orfs_hdr_check(request) accepted a reply");
	switch (orfs_cpu16(h->opcode)) {
	case ORFS_OP_MOUNT: {
		const struct orfs_mount_req *m = orfs_body(h);

		check_name_tail(h, sizeof(*m), orfs_cpu32(m->path_len),
				ORFS_PATH_MAX, false);
		break;
	}
	case ORFS_OP_LOOKUP:
	case ORFS_OP_UNLINK:
	case ORFS_OP_RMDIR: {
		const struct orfs_lookup_req *q = orfs_body(h);

		check_name_tail(h, sizeof(*q), orfs_cpu32(q->name_len),
				ORFS_NAME_MAX, true);
		break;
	}
	case ORFS_OP_RENAME: {
		const struct orfs_rename_req *q = orfs_body(h);
		uint32_t ol = orfs_cpu32(q->oldname_len);

		check_name_tail(h, sizeof(*q), ol, ORFS_NAME_MAX, true);
		if (!orfs_tail_check(h, sizeof(*q), ol, ORFS_NAME_MAX))
			check_name_tail(h, sizeof(*q) + ol,
					orfs_cpu32(q->newname_len),
					ORFS_NAME_MAX, true);
		break;
	}
	case ORFS_OP_GETXATTR:
	case ORFS_OP_SETXATTR:
	case ORFS_OP_REMOVEXATTR: {
		const struct orfs_xattr_req *q = orfs_body(h);

		check_name_tail(h, sizeof(*q), orfs_cpu32(q->name_len),
				ORFS_XATTR_NAME_MAX, false);
		break;
	}
	case ORFS_OP_DEMOTE_META:
	case ORFS_OP_DEMOTE:
		fuzz_demote_request(h);
		break;
	default:
		break;
	}
}

static void fuzz_name(const uint8_t *p, uint32_t len)
{
	const char *s = (const char *)p;
	uint32_t n = len > ORFS_NAME_MAX + 1 ? ORFS_NAME_MAX + 1 : len;
	int rc = orfs_name_check(s, n);

	if (rc != 0 && rc != -EINVAL)
		bug("orfs_name_check() returned %d", rc);
	if (!rc && (n == 0 || n > ORFS_NAME_MAX || memchr(s, '/', n) ||
		    memchr(s, 0, n) || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.')))
		bug("orfs_name_check() accepted a bad name of %u bytes", n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t asked, server_max, count, len;
	uint8_t *p;

	if (size < 12 || size > 12 + ORFS_META_MAX + ORFS_INLINE_MAX)
		return -1;
	asked = get32(data);
	server_max = get32(data + 4);
	count = get32(data + 8);
	len = (uint32_t)(size - 12);
	/* Exactly @len bytes, malloc-aligned: ASan sees any overread. */
	p = malloc(len ? len : 1);
	if (!p)
		abort();
	memcpy(p, data + 12, len);

	fuzz_conn_req(p, len, server_max, count);
	fuzz_conn_rep(p, len, asked);
	fuzz_conn_rej(p, len);
	fuzz_reply(p, len, count);
	fuzz_request(p, len);
	walk_dirents(p, len, count);
	fuzz_name(p, len);
	if (len >= sizeof(struct orfs_attr))
		fuzz_attr((const struct orfs_attr *)p);

	free(p);
	return 0;
}
