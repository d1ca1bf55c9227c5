// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd duplicate-request cache.
 *
 * Entries are keyed by (owner, sequence number, request), the sequence
 * number being xid >> 16: the low 16 bits of an xid are the client's slot
 * index, which may differ between an original and its retransmission.
 *
 * The owner (struct orfs_drc_owner) is what the server knows of the
 * connection's identity, not merely the client id the connect request
 * claims: the client id a shared-secret handshake proved, or else the
 * client id together with the peer's address (without its port, which a
 * reconnection changes).  So a peer that learns or guesses another client's
 * id gets an owner of its own, whose entries are not the other client's:
 * its retransmissions do not find the other client's replies, and its
 * insertions evict only its own entries (below).
 *
 * The request is its opcode, its body length and a fingerprint of its
 * credential, body and inline data, keyed SipHash (with a per-process
 * random key, so that a client cannot make two different requests collide
 * on purpose).  A retransmission that does not repeat the original byte
 * for byte (a client bug, a sequence number reused after a client restart
 * that kept its id, or a replay under another uid) is not answered with
 * the original's reply: it is a miss and runs, under its own credential,
 * and its reply is kept in an entry of its own.
 *
 * Bounds, both fixed by configuration and never by what clients send:
 *  - at most @max_per_client entries per owner: inserting one more
 *    evicts that owner's least recently used entry, so a busy client only
 *    ever evicts its own entries while it is under this bound;
 *  - at most @max_entries in total: otherwise the globally least recently
 *    used entry goes.
 * Entries have a fixed size (the reply is stored inline, at most
 * ORFS_DRC_REPLY_MAX bytes), owner records exist only while they own an
 * entry, and both hash tables are sized at creation, so memory is at most
 * max_entries * orfs_drc_entry_bytes() plus the tables.
 *
 * Hash buckets are chosen with a per-process random seed, so a client
 * cannot aim its ids and sequence numbers at one bucket.
 *
 * The busy list holds the cacheable requests that are running and have no
 * reply yet.  It is short (ALLOCATE, COPY, UNLINK, RMDIR and truncating
 * SETATTRs waiting for an offload thread, at most one per request slot of
 * each connection) and searched linearly, only for retransmissions.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "drc.h"
#include "hash.h"
#include "log.h"
#include "siphash.h"
#include "util.h"

/* ---- tiny intrusive lists ---- */

/* Circular doubly linked list; a head is a node linked to itself. */
struct lnode {
	struct lnode	*prev;
	struct lnode	*next;
};

static void list_init(struct lnode *h)
{
	h->prev = h->next = h;
}

static bool list_empty(const struct lnode *h)
{
	return h->next == h;
}

static void list_del(struct lnode *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

/* Append @n at the tail (most recently used end) of @h. */
static void list_add_tail(struct lnode *n, struct lnode *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static void list_move_tail(struct lnode *n, struct lnode *h)
{
	list_del(n);
	list_add_tail(n, h);
}

/* ---- the cache ---- */

/**
 * struct drc_client - the entries of one owner
 * @hash: link in orfs_drc.clients
 * @entries: its entries, least recently used first
 * @owner: the owner
 * @ohash: owner_hash() of @owner
 * @count: entries on @entries (never 0 outside orfs_drc_insert())
 */
struct drc_client {
	struct orfs_hnode	hash;
	struct lnode	entries;
	struct orfs_drc_owner	owner;
	uint64_t	ohash;
	uint32_t	count;
};

/**
 * struct drc_entry - one cached reply
 * @hash: link in orfs_drc.entries
 * @lru: link in orfs_drc.lru
 * @clru: link in @client->entries
 * @client: the owner
 * @seq: the request's sequence number (xid >> 16)
 * @fp: req_fingerprint() of the request
 * @body_len: the request's body length
 * @opcode: the request's opcode
 * @rep_len: bytes in @rep
 * @rep: the reply as sent (header, then body; never inline data)
 */
struct drc_entry {
	struct orfs_hnode		hash;
	struct lnode		lru;
	struct lnode		clru;
	struct drc_client	*client;
	uint64_t		seq;
	uint64_t		fp;
	uint32_t		body_len;
	uint16_t		opcode;
	uint16_t		rep_len;
	uint8_t			rep[ORFS_DRC_REPLY_MAX] __attribute__((aligned(8)));
};

/**
 * struct orfs_drc - the duplicate-request cache
 * @lock: protects every field below and every entry and client record;
 *	held only for hash walks, list moves and small copies
 * @max_entries: bound on @nentries (0: the cache is disabled)
 * @max_per_client: bound on any drc_client.count
 * @mask: bucket count - 1 (a power of two minus one)
 * @seed: random hash seed
 * @fp_key: random SipHash key of the fingerprints
 * @entries: hash buckets of entries, by (owner, seq)
 * @clients: hash buckets of owner records, by owner
 * @lru: every entry, least recently used first
 * @nentries: entries cached
 * @nclients: client records
 * @busy: running cacheable requests (struct orfs_drc_busy, the callers')
 * @nbusy: entries on @busy
 * @hits: see struct orfs_drc_stats
 * @misses: see struct orfs_drc_stats
 * @joins: see struct orfs_drc_stats
 * @evictions: see struct orfs_drc_stats
 */
struct orfs_drc {
	pthread_mutex_t	lock;
	uint32_t	max_entries;
	uint32_t	max_per_client;
	uint32_t	mask;
	uint64_t	seed;
	uint8_t		fp_key[ORFS_SIPHASH_KEY_LEN];
	struct orfs_hnode	**entries;
	struct orfs_hnode	**clients;
	struct lnode	lru;
	uint32_t	nentries;
	uint32_t	nclients;
	struct orfs_drc_busy	*busy;
	uint32_t	nbusy;
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	joins;
	uint64_t	evictions;
};

_Static_assert(sizeof(struct orfs_attr_rep) <= sizeof(struct orfs_lookup_rep),
	       "ORFS_DRC_REPLY_MAX must hold every cached reply");
_Static_assert(ORFS_DRC_REPLY_MAX <= UINT16_MAX, "rep_len is 16 bits");

/* A bucket-hashing value of @o (with the cache's seed). */
static uint64_t owner_hash(const struct orfs_drc *drc,
			   const struct orfs_drc_owner *o)
{
	uint64_t a0, a1;

	memcpy(&a0, o->addr, sizeof(a0));
	memcpy(&a1, o->addr + 8, sizeof(a1));
	return orfs_mix64(orfs_mix64(orfs_mix64(o->client_id ^ drc->seed) + a0) +
			  (a1 ^ (uint64_t)o->authenticated));
}

static bool owner_equal(const struct orfs_drc_owner *a,
			const struct orfs_drc_owner *b)
{
	return a->client_id == b->client_id &&
	       a->authenticated == b->authenticated &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

static uint32_t entry_bucket(const struct orfs_drc *drc, uint64_t ohash,
			     uint64_t seq)
{
	return (uint32_t)(orfs_mix64(ohash + seq) & drc->mask);
}

static uint32_t client_bucket(const struct orfs_drc *drc, uint64_t ohash)
{
	return (uint32_t)(orfs_mix64(ohash ^ drc->seed) & drc->mask);
}

/* Bytes req_fingerprint() hashes last: credential, lengths, two digests. */
#define FP_MSG_LEN	(sizeof(struct orfs_ucred) + 2 + 4 + 4 + 8 + 8)

/**
 * req_fingerprint() - what a retransmission must repeat of its original
 * @drc: the cache (its key)
 * @req: the request; it passed orfs_hdr_check()
 *
 * SipHash-2-4, under the cache's random key, of the request's credential
 * (the identity it runs as: a replay under another uid must not get the
 * original's reply), opcode, body and inline-data lengths, and the
 * SipHash digests of its body and of its inline data (a SETXATTR's value,
 * the only cached op that carries any).  The lengths keep bytes moved
 * between body and data from matching.  Keyed, so that a client that
 * cannot see the key cannot build a second request with the same value.
 *
 * Return: the fingerprint.
 */
static uint64_t req_fingerprint(const struct orfs_drc *drc,
				const struct orfs_hdr *req)
{
	uint32_t dlen = orfs_cpu32(req->data_len);
	uint8_t m[FP_MSG_LEN], *p = m;
	uint64_t hb, hd = 0;

	hb = orfs_siphash24(drc->fp_key, orfs_body(req), orfs_cpu32(req->body_len));
	if (dlen)
		hd = orfs_siphash24(drc->fp_key, orfs_data(req), dlen);
	memcpy(p, &req->cred, sizeof(req->cred));
	p += sizeof(req->cred);
	memcpy(p, &req->opcode, 2);
	memcpy(p + 2, &req->body_len, 4);
	memcpy(p + 6, &req->data_len, 4);
	memcpy(p + 10, &hb, 8);
	memcpy(p + 18, &hd, 8);
	return orfs_siphash24(drc->fp_key, m, sizeof(m));
}

static uint64_t req_seq(const struct orfs_hdr *req)
{
	return orfs_cpu64(req->xid) >> 16;
}

/**
 * orfs_drc_cacheable() - is @opcode's reply kept in the cache?
 * @opcode: enum orfs_opcode
 *
 * The non-idempotent operations: running them twice is visible (EEXIST,
 * ENOENT, ENODATA, or a later change undone).  WRITE is not among them: it
 * carries its offset, so writing the same bytes again leaves the same file.
 * ALLOCATE and COPY are, although running either again on an unchanged
 * file changes nothing: run again after a later change (a write into a
 * punched range, a truncation after an extending allocation, a source
 * changed after a copy) they would undo it, and their replies are small.
 */
bool orfs_drc_cacheable(uint16_t opcode)
{
	return orfs_op_modifies(opcode) && opcode != ORFS_OP_WRITE;
}

/**
 * orfs_drc_owner_init() - the identity a connection's entries belong to
 * @o: filled in
 * @client_id: the client id of the connect request
 * @authenticated: the connection proves the shared secret before it runs
 *	anything (the server has --secret-file), which binds @client_id
 * @peer: the peer's address (AF_INET or AF_INET6); not needed with
 *	@authenticated
 *
 * An authenticated owner is @client_id alone: whoever proved the secret
 * for it, from any address.  Otherwise it is @client_id and @peer's
 * address, without the port.
 *
 * Return: 0; -EAFNOSUPPORT if @peer is needed and is neither AF_INET nor
 * AF_INET6 (then @o->client_id is 0: the connection is not cached).
 */
int orfs_drc_owner_init(struct orfs_drc_owner *o, uint64_t client_id,
			bool authenticated, const struct sockaddr *peer)
{
	static const uint8_t v4_mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	memset(o, 0, sizeof(*o));
	o->client_id = client_id;
	o->authenticated = authenticated;
	if (authenticated)
		return 0;
	if (peer && peer->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)peer;

		memcpy(o->addr, v4_mapped, sizeof(v4_mapped));
		memcpy(o->addr + 12, &in->sin_addr, 4);
	} else if (peer && peer->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)peer;

		memcpy(o->addr, &in6->sin6_addr, 16);
	} else {
		o->client_id = 0;
		return -EAFNOSUPPORT;
	}
	return 0;
}

/* Worst-case bytes one entry costs: itself, an owner record, two buckets. */
size_t orfs_drc_entry_bytes(void)
{
	return sizeof(struct drc_entry) + sizeof(struct drc_client) +
	       2 * sizeof(struct orfs_hnode *);
}

/**
 * orfs_drc_create() - make an empty cache
 * @max_entries: most replies kept in total; 0 disables the cache
 * @max_per_client: most replies kept per owner (at least 1)
 *
 * Return: the cache, or NULL (out of memory, logged).
 */
struct orfs_drc *orfs_drc_create(uint32_t max_entries, uint32_t max_per_client)
{
	struct orfs_drc *drc;
	uint64_t k0, k1;
	uint32_t n = 16;

	if (max_entries > ORFS_DRC_ENTRIES_MAX)
		max_entries = ORFS_DRC_ENTRIES_MAX;
	if (!max_per_client)
		max_per_client = 1;
	while (n < max_entries)
		n <<= 1;
	drc = calloc(1, sizeof(*drc));
	if (!drc)
		goto nomem;
	drc->entries = calloc(n, sizeof(*drc->entries));
	drc->clients = calloc(n, sizeof(*drc->clients));
	if (!drc->entries || !drc->clients)
		goto nomem;
	if (pthread_mutex_init(&drc->lock, NULL))
		goto nomem;
	drc->max_entries = max_entries;
	drc->max_per_client = max_per_client;
	drc->mask = n - 1;
	drc->seed = orfs_hash_seed();
	k0 = orfs_hash_seed();
	k1 = orfs_hash_seed();
	memcpy(drc->fp_key, &k0, sizeof(k0));
	memcpy(drc->fp_key + sizeof(k0), &k1, sizeof(k1));
	list_init(&drc->lru);
	return drc;

nomem:
	log_err("duplicate-request cache: out of memory");
	if (drc) {
		free(drc->entries);
		free(drc->clients);
		free(drc);
	}
	return NULL;
}

void orfs_drc_destroy(struct orfs_drc *drc)
{
	struct drc_entry *e;
	struct orfs_hnode *n;
	uint32_t i;

	if (!drc)
		return;
	while (!list_empty(&drc->lru)) {
		e = container_of(drc->lru.next, struct drc_entry, lru);
		list_del(&e->lru);
		free(e);
	}
	for (i = 0; i <= drc->mask; i++) {
		while ((n = drc->clients[i])) {
			orfs_hnode_del(n);
			free(container_of(n, struct drc_client, hash));
		}
	}
	pthread_mutex_destroy(&drc->lock);
	free(drc->entries);
	free(drc->clients);
	free(drc);
}

/* Caller holds drc->lock.  @oh: owner_hash(@o). */
static struct drc_client *client_find(struct orfs_drc *drc,
				      const struct orfs_drc_owner *o, uint64_t oh)
{
	struct orfs_hnode *n;

	for (n = drc->clients[client_bucket(drc, oh)]; n; n = n->next) {
		struct drc_client *cl = container_of(n, struct drc_client, hash);

		if (cl->ohash == oh && owner_equal(&cl->owner, o))
			return cl;
	}
	return NULL;
}

/* Caller holds drc->lock.  Return: the record, or NULL (out of memory). */
static struct drc_client *client_get(struct orfs_drc *drc,
				     const struct orfs_drc_owner *o, uint64_t oh)
{
	struct drc_client *cl = client_find(drc, o, oh);

	if (cl)
		return cl;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return NULL;
	cl->owner = *o;
	cl->ohash = oh;
	list_init(&cl->entries);
	orfs_hnode_add(&cl->hash, &drc->clients[client_bucket(drc, oh)]);
	drc->nclients++;
	return cl;
}

/* Caller holds drc->lock; @cl owns no entry. */
static void client_free(struct orfs_drc *drc, struct drc_client *cl)
{
	orfs_hnode_del(&cl->hash);
	drc->nclients--;
	free(cl);
}

/* Is @e the entry of request @req, whose fingerprint is @fp? */
static bool entry_matches(const struct drc_entry *e, const struct orfs_hdr *req,
			  uint64_t fp)
{
	return e->fp == fp && e->opcode == orfs_cpu16(req->opcode) &&
	       e->body_len == orfs_cpu32(req->body_len);
}

/*
 * The entry of request @req (fingerprint @fp) of owner @o (owner_hash()
 * @oh), or NULL.  Caller holds drc->lock.
 */
static struct drc_entry *entry_find(struct orfs_drc *drc,
				    const struct orfs_drc_owner *o, uint64_t oh,
				    const struct orfs_hdr *req, uint64_t fp)
{
	uint64_t seq = req_seq(req);
	struct orfs_hnode *n;

	for (n = drc->entries[entry_bucket(drc, oh, seq)]; n; n = n->next) {
		struct drc_entry *e = container_of(n, struct drc_entry, hash);

		if (e->seq == seq && entry_matches(e, req, fp) &&
		    e->client->ohash == oh && owner_equal(&e->client->owner, o))
			return e;
	}
	return NULL;
}

/**
 * entry_unlink() - take an entry out of the cache (not freed)
 * @drc: the cache, locked
 * @e: the entry
 * @keep: a client record not to free even if @e was its last entry
 */
static void entry_unlink(struct orfs_drc *drc, struct drc_entry *e,
			 struct drc_client *keep)
{
	struct drc_client *cl = e->client;

	orfs_hnode_del(&e->hash);
	list_del(&e->lru);
	list_del(&e->clru);
	e->client = NULL;
	drc->nentries--;
	if (--cl->count == 0 && cl != keep)
		client_free(drc, cl);
}

/**
 * entry_alloc() - find room for one more entry of client @cl
 * @drc: the cache, locked
 * @cl: the client the entry will belong to
 *
 * Evicts @cl's least recently used entry if @cl is at its bound, else the
 * globally least recently used entry if the cache is full, and reuses it.
 *
 * Return: an unlinked entry, or NULL (out of memory).
 */
static struct drc_entry *entry_alloc(struct orfs_drc *drc,
				     struct drc_client *cl)
{
	struct drc_entry *victim = NULL;

	if (cl->count >= drc->max_per_client)
		victim = container_of(cl->entries.next, struct drc_entry, clru);
	else if (drc->nentries >= drc->max_entries)
		victim = container_of(drc->lru.next, struct drc_entry, lru);
	if (!victim)
		return malloc(sizeof(struct drc_entry));
	drc->evictions++;
	entry_unlink(drc, victim, cl);
	return victim;
}

/* Store the request's identity and @rep in @e. */
static void entry_fill(struct drc_entry *e, const struct orfs_hdr *req,
		       uint64_t fp, const void *rep, uint32_t rep_len)
{
	e->seq = req_seq(req);
	e->fp = fp;
	e->body_len = orfs_cpu32(req->body_len);
	e->opcode = orfs_cpu16(req->opcode);
	e->rep_len = (uint16_t)rep_len;
	memcpy(e->rep, rep, rep_len);
}

/* Make @e the most recently used entry, globally and of its client. */
static void entry_touch(struct orfs_drc *drc, struct drc_entry *e)
{
	list_move_tail(&e->lru, &drc->lru);
	list_move_tail(&e->clru, &e->client->entries);
}

static bool drc_enabled(const struct orfs_drc *drc,
			const struct orfs_drc_owner *owner)
{
	/* Client id 0: a client that does not identify itself. */
	return drc && drc->max_entries && owner && owner->client_id;
}

/**
 * orfs_drc_insert() - remember the reply to a request
 * @drc: the cache (NULL: no cache)
 * @owner: the connection's identity (client id 0: not cached)
 * @req: the request; it passed orfs_hdr_check()
 * @rep: the reply as sent (a header, then the body; no inline data)
 * @rep_len: its length
 *
 * Replaces the entry of the same request: the same (owner, sequence
 * number), opcode, credential, body and inline data.  Another request
 * with the same owner and sequence number (a replay under another
 * credential) gets an entry of its own, as in NFS's cache, whose key
 * includes a checksum of the request: it does not push out the reply a
 * retransmission of the original needs.  A reply that does not fit
 * ORFS_DRC_REPLY_MAX is not kept, and any older entry of the same request
 * is dropped so it cannot answer in its place.
 */
void orfs_drc_insert(struct orfs_drc *drc, const struct orfs_drc_owner *owner,
		     const struct orfs_hdr *req, const void *rep,
		     uint32_t rep_len)
{
	bool fits = rep_len >= sizeof(struct orfs_hdr) &&
		    rep_len <= ORFS_DRC_REPLY_MAX;
	uint64_t fp, oh, seq = req_seq(req);
	struct drc_client *cl;
	struct drc_entry *e;

	if (!drc_enabled(drc, owner))
		return;
	fp = req_fingerprint(drc, req);
	oh = owner_hash(drc, owner);
	pthread_mutex_lock(&drc->lock);
	e = entry_find(drc, owner, oh, req, fp);
	if (e) {
		if (fits) {
			entry_fill(e, req, fp, rep, rep_len);
			entry_touch(drc, e);
		} else {
			entry_unlink(drc, e, NULL);
			free(e);
		}
		goto out;
	}
	if (!fits)
		goto out;
	cl = client_get(drc, owner, oh);
	if (!cl)
		goto out;
	e = entry_alloc(drc, cl);
	if (!e) {
		if (!cl->count)
			client_free(drc, cl);
		goto out;
	}
	entry_fill(e, req, fp, rep, rep_len);
	e->client = cl;
	orfs_hnode_add(&e->hash, &drc->entries[entry_bucket(drc, oh, seq)]);
	list_add_tail(&e->lru, &drc->lru);
	list_add_tail(&e->clru, &cl->entries);
	cl->count++;
	drc->nentries++;
out:
	pthread_mutex_unlock(&drc->lock);
}

/**
 * orfs_drc_lookup() - answer a retransmission from the cache
 * @drc: the cache (NULL: no cache)
 * @owner: the connection's identity
 * @req: the retransmitted request; it passed orfs_hdr_check()
 * @credits: the credits to put in the reply
 * @rep: the reply buffer
 * @rep_size: its size
 *
 * A hit needs the same owner and sequence number, and the same opcode,
 * credential, body and inline data as the original.  The cached reply is
 * copied with the new request's xid (its slot index may have changed) and
 * @credits.
 *
 * Return: the reply length on a hit, 0 on a miss.
 */
uint32_t orfs_drc_lookup(struct orfs_drc *drc, const struct orfs_drc_owner *owner,
			 const struct orfs_hdr *req, uint16_t credits,
			 void *rep, uint32_t rep_size)
{
	struct orfs_hdr *h = rep;
	struct drc_entry *e;
	uint64_t fp, oh;
	uint32_t n = 0;

	if (!drc_enabled(drc, owner))
		return 0;
	fp = req_fingerprint(drc, req);
	oh = owner_hash(drc, owner);
	pthread_mutex_lock(&drc->lock);
	e = entry_find(drc, owner, oh, req, fp);
	if (e && e->rep_len <= rep_size) {
		entry_touch(drc, e);
		memcpy(rep, e->rep, e->rep_len);
		n = e->rep_len;
		drc->hits++;
	} else {
		drc->misses++;
	}
	pthread_mutex_unlock(&drc->lock);
	if (n) {
		h->xid = req->xid;
		h->credits = orfs_le16(credits);
	}
	return n;
}

/**
 * orfs_drc_busy_add() - note that a cacheable request is running
 * @drc: the cache (NULL: no cache)
 * @owner: the connection's identity (client id 0: not tracked)
 * @req: the request; it passed orfs_hdr_check()
 * @b: where to keep its identity; must stay valid until orfs_drc_busy_del()
 *
 * Called for a request left pending; the caller removes it before it
 * inserts the reply (orfs_drc_insert()).
 *
 * Return: true if @b was added (orfs_drc_busy_del() must follow), false
 * when the cache is disabled for @owner.
 */
bool orfs_drc_busy_add(struct orfs_drc *drc, const struct orfs_drc_owner *owner,
		       const struct orfs_hdr *req, struct orfs_drc_busy *b)
{
	if (!drc_enabled(drc, owner))
		return false;
	b->owner = *owner;
	b->seq = req_seq(req);
	b->fp = req_fingerprint(drc, req);
	b->body_len = orfs_cpu32(req->body_len);
	b->opcode = orfs_cpu16(req->opcode);
	pthread_mutex_lock(&drc->lock);
	b->next = drc->busy;
	drc->busy = b;
	drc->nbusy++;
	pthread_mutex_unlock(&drc->lock);
	return true;
}

/**
 * orfs_drc_busy_del() - a request orfs_drc_busy_add() added has ended
 * @drc: the cache it was added to
 * @b: its entry
 */
void orfs_drc_busy_del(struct orfs_drc *drc, struct orfs_drc_busy *b)
{
	struct orfs_drc_busy **p;

	pthread_mutex_lock(&drc->lock);
	for (p = &drc->busy; *p; p = &(*p)->next) {
		if (*p == b) {
			*p = b->next;
			drc->nbusy--;
			break;
		}
	}
	pthread_mutex_unlock(&drc->lock);
	b->next = NULL;
}

/**
 * orfs_drc_busy_find() - is a retransmission's original still running?
 * @drc: the cache (NULL: no cache)
 * @owner: the connection's identity
 * @req: the retransmitted request; it passed orfs_hdr_check()
 *
 * Matches as orfs_drc_lookup() does: the same owner and sequence number,
 * and the same opcode, credential, body and inline data.  A match counts
 * as a join: the caller waits for the original's reply.
 *
 * Return: the original's entry, or NULL.
 */
struct orfs_drc_busy *orfs_drc_busy_find(struct orfs_drc *drc,
					 const struct orfs_drc_owner *owner,
					 const struct orfs_hdr *req)
{
	uint64_t fp, seq = req_seq(req);
	struct orfs_drc_busy *b;

	if (!drc_enabled(drc, owner))
		return NULL;
	fp = req_fingerprint(drc, req);
	pthread_mutex_lock(&drc->lock);
	for (b = drc->busy; b; b = b->next) {
		if (owner_equal(&b->owner, owner) && b->seq == seq &&
		    b->fp == fp && b->opcode == orfs_cpu16(req->opcode) &&
		    b->body_len == orfs_cpu32(req->body_len))
			break;
	}
	if (b)
		drc->joins++;
	pthread_mutex_unlock(&drc->lock);
	return b;
}

void orfs_drc_get_stats(struct orfs_drc *drc, struct orfs_drc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!drc)
		return;
	pthread_mutex_lock(&drc->lock);
	st->entries = drc->nentries;
	st->clients = drc->nclients;
	st->hits = drc->hits;
	st->misses = drc->misses;
	st->joins = drc->joins;
	st->busy = drc->nbusy;
	st->evictions = drc->evictions;
	st->mem_bytes = (uint64_t)drc->nentries * sizeof(struct drc_entry) +
			(uint64_t)drc->nclients * sizeof(struct drc_client) +
			2ULL * (drc->mask + 1) * sizeof(struct orfs_hnode *);
	pthread_mutex_unlock(&drc->lock);
}
