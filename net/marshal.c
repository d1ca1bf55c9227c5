// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport, marshalling: a request's SEND, and how its data
 * moves.
 *
 * orfs_post_request() puts the header (with the caller's credential), the
 * body and its tail in the slot's send buffer and posts the SEND, behind
 * whatever must reach the device first.  How a READ's or WRITE's data
 * moves (enum orfs_place) is chosen once per request, from what
 * orfs_needs_grant() gave it, and each way has one encoder, which maps or
 * registers the data and marks the body for the server:
 *  - inline (orfs_enc_inline()): a request's pages are gathered into the
 *    SEND; an inline READ's data comes back in the reply, bare if it may;
 *  - staging buffer, WRITE (orfs_enc_grant_write()): a chain of RDMA
 *    WRITEs gathers the pages into the buffer ahead of the SEND;
 *  - staging buffer, READ: nothing to do before the SEND; net/call.c reads
 *    the data out of the buffer once the reply is in;
 *  - page list (orfs_enc_pages()): trusted fabric, the server moves the
 *    page-cache pages itself;
 *  - O_DIRECT (orfs_enc_direct()): the user's pages are registered (FRWR,
 *    or a cached registration) and the server moves the data.
 * orfs_req_unmap() undoes what an encoder did, after a failed post or once
 * the request is over.  This is xprtrdma's rpc_rdma.c marshalling side.
 *
 * net/call.c takes the slot and staging buffer, calls orfs_post_request()
 * and waits for the reply; net/grant.c builds the RDMA chains; net/frwr.c
 * and net/regcache.c register O_DIRECT pages.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/cred.h>
#include <linux/timekeeping.h>
#include <rdma/ib_verbs.h>
#include "xprt.h"
#include "orfs_trace.h"

static void orfs_unmap_data(struct orfs_conn *conn, struct orfs_slot *slot)
{
	u32 i;

	for (i = 0; i < slot->nr_data; i++)
		ib_dma_unmap_page(orfs_dev(conn), slot->data_dma[i], slot->data_len[i],
				  DMA_TO_DEVICE);
	slot->nr_data = 0;
}

/* Maps the data pages for the SEND and fills their SGEs after sge[0]. */
static int orfs_map_data(struct orfs_conn *conn, struct orfs_slot *slot,
			 const struct orfs_msg *msg, struct ib_sge *sge, u32 *data_len)
{
	struct ib_device *dev = orfs_dev(conn);
	u32 i;

	*data_len = 0;
	for (i = 0; i < msg->nr_bvec; i++) {
		const struct bio_vec *bv = &msg->bvec[i];
		u64 dma = ib_dma_map_page(dev, bv->bv_page, bv->bv_offset, bv->bv_len,
					  DMA_TO_DEVICE);

		if (ib_dma_mapping_error(dev, dma)) {
			orfs_unmap_data(conn, slot);
			return -ENOMEM;
		}
		slot->data_dma[i] = dma;
		slot->data_len[i] = bv->bv_len;
		slot->nr_data = i + 1;
		sge[i + 1].addr = dma;
		sge[i + 1].length = bv->bv_len;
		sge[i + 1].lkey = conn->pd->local_dma_lkey;
		*data_len += bv->bv_len;
	}
	return 0;
}

/* An O_DIRECT request is over (or was never posted): release its
 * registration, cached or per request.
 */
static void orfs_direct_done(struct orfs_conn *conn, struct orfs_grant *g,
			     bool posted)
{
	if (g->rcm)
		orfs_rc_unmap(conn, g->rcm, g->rcreg, posted);
	else
		orfs_frwr_unmap(conn, &g->frwr);
	g->rcm = NULL;
	g->rcreg = NULL;
}

/* Total bytes of an O_DIRECT message's data runs. */
static u32 orfs_dseg_bytes(const struct orfs_msg *msg)
{
	u32 i, n = 0;

	for (i = 0; i < msg->nr_dseg; i++)
		n += msg->dseg[i].len;
	return n;
}

/* Total bytes of a message's data fragments. */
u32 orfs_msg_bytes(const struct orfs_msg *msg)
{
	u32 i, n = 0;

	for (i = 0; i < msg->nr_bvec; i++)
		n += msg->bvec[i].bv_len;
	return n;
}

/**
 * orfs_ucred_fill() - put a task credential on the wire
 * @w: the header's credential
 * @cred: the credential
 *
 * fsuid, fsgid and the first ORFS_NGROUPS_MAX supplementary groups, as
 * seen from the initial user namespace (an id with no mapping there goes
 * as the overflow id, never as -1).
 */
static void orfs_ucred_fill(struct orfs_ucred *w, const struct cred *cred)
{
	const struct group_info *gi = cred->group_info;
	u32 i, n = gi ? min_t(u32, gi->ngroups, ORFS_NGROUPS_MAX) : 0;

	w->uid = cpu_to_le32(from_kuid_munged(&init_user_ns, cred->fsuid));
	w->gid = cpu_to_le32(from_kgid_munged(&init_user_ns, cred->fsgid));
	w->ngroups = cpu_to_le16(n);
	for (i = 0; i < n; i++)
		w->groups[i] = cpu_to_le32(from_kgid_munged(&init_user_ns, gi->gid[i]));
}

/* Whether @msg, about to go on @conn with staging buffer @g (or inline),
 * asks for a bare reply (ORFS_IO_BARE): an inline READ with no other flag,
 * on a connection whose server takes it, with bare_read on.  Without @g
 * the READ is inline: orfs_needs_grant() gives O_DIRECT and anything above
 * the inline threshold a staging buffer.
 */
static bool orfs_bare_ok(const struct orfs_conn *conn, const struct orfs_msg *msg,
			 const struct orfs_grant *g)
{
	const struct orfs_io_req *q = msg->body;

	return conn->bare && READ_ONCE(conn->opts.bare_read) && !g &&
	       msg->opcode == ORFS_OP_READ && msg->body_len == sizeof(*q) &&
	       !msg->tail_len && !q->flags && q->count;
}

/**
 * struct orfs_enc - a request being encoded (orfs_post_request())
 * @send: its SEND
 * @first: the first work request to post: @send, or the REG_MR or RDMA
 *	WRITE chain in front of it
 * @sge: the SEND's SGEs: the send buffer, then the data pages gathered or
 *	the page list (1 + ORFS_DATA_SGE_MAX of them)
 * @bytes: with a staging buffer, the READ's or WRITE's data bytes (its
 *	orfs_io_req's count); 0 otherwise
 * @body_len: the body, its tail, and what an encoder put after them
 * @data_len: bytes of data gathered into the SEND
 * @npages: entries of the page list (ORFS_PLACE_PAGES), 0 otherwise
 */
struct orfs_enc {
	struct ib_send_wr	send;
	struct ib_send_wr	*first;
	struct ib_sge		*sge;
	u32			bytes;
	u32			body_len;
	u32			data_len;
	u32			npages;
};

/* The orfs_io_req of a READ or WRITE, in the send buffer after the header. */
static struct orfs_io_req *orfs_enc_io_req(struct orfs_slot *slot)
{
	return (struct orfs_io_req *)((struct orfs_hdr *)slot->buf + 1);
}

/**
 * orfs_place() - choose how a request's data moves
 * @conn: the connection
 * @msg: the request
 * @g: the staging buffer orfs_needs_grant() had it take, or NULL
 * @bytes: with @g, its data bytes
 *
 * Return: ORFS_PLACE_INLINE without a staging buffer; with one, the page
 * list if orfs_pages_fit(), else O_DIRECT's registration, else the client's
 * RDMA WRITE for a WRITE and the client's RDMA READ for a READ (only READs
 * and WRITEs take staging buffers).
 *
 * Context: any.
 */
static enum orfs_place orfs_place(const struct orfs_conn *conn,
				  const struct orfs_msg *msg,
				  const struct orfs_grant *g, u32 bytes)
{
	if (!g)
		return ORFS_PLACE_INLINE;
	if (orfs_pages_fit(conn, g, msg, bytes))
		return ORFS_PLACE_PAGES;
	if (msg->direct)
		return ORFS_PLACE_DIRECT;
	return msg->opcode == ORFS_OP_WRITE ? ORFS_PLACE_GRANT_WRITE :
		ORFS_PLACE_GRANT_READ;
}

/**
 * orfs_enc_inline() - encode a request whose data, if any, is in the SEND
 * @conn: the connection
 * @slot: the request's slot
 * @msg: the request
 * @g: NULL
 * @e: the encoding
 *
 * A request's pages are mapped and gathered into the SEND after the send
 * buffer; a READ's are where its data goes, not data to send.  An inline
 * READ asks for a bare reply where orfs_bare_ok() and the slot allow it.
 *
 * Context: process; does not sleep.
 * Return: 0 or -ENOMEM.
 */
static int orfs_enc_inline(struct orfs_conn *conn, struct orfs_slot *slot,
			   const struct orfs_msg *msg, const struct orfs_grant *g,
			   struct orfs_enc *e)
{
	int ret;

	if (msg->opcode != ORFS_OP_READ) {
		ret = orfs_map_data(conn, slot, msg, e->sge, &e->data_len);
		if (ret)
			return ret;
	}
	if (!slot->bare_off && orfs_bare_ok(conn, msg, g)) {
		struct orfs_io_req *q = orfs_enc_io_req(slot);

		q->flags = cpu_to_le32(ORFS_IO_BARE);
		slot->bare_len = le32_to_cpu(q->count);
	}
	return 0;
}

/**
 * orfs_enc_grant_write() - encode a WRITE through a staging buffer
 * @conn: the connection
 * @msg: the WRITE
 * @g: its staging buffer
 * @e: the encoding
 *
 * The pages are mapped and a chain of RDMA WRITEs gathers them into @g,
 * posted in front of the SEND: RC ordering makes the data land first.
 *
 * Context: process; does not sleep.
 * Return: 0, -EMSGSIZE or -ENOMEM.
 */
static int orfs_enc_grant_write(struct orfs_conn *conn, const struct orfs_msg *msg,
				struct orfs_grant *g, struct orfs_enc *e)
{
	struct orfs_rseg staging;
	struct ib_rdma_wr *last;
	int ret;

	ret = orfs_grant_map(conn, g, msg->bvec, msg->nr_bvec, e->bytes,
			     DMA_TO_DEVICE);
	if (ret)
		return ret;
	orfs_grant_rseg(conn, g, e->bytes, &staging);
	last = orfs_grant_chain(conn, g, IB_WR_RDMA_WRITE, &staging, 1);
	last->wr.next = &e->send;
	e->first = &g->wr[0].wr;
	return 0;
}

/**
 * orfs_enc_pages() - encode a buffered READ or WRITE by its page list
 * @conn: the connection (trusted fabric)
 * @slot: the request's slot
 * @msg: the request, which orfs_pages_fit()
 * @g: its staging buffer, whose page list the SEND gathers
 * @e: the encoding
 *
 * The pages stay mapped until the reply, and the server moves the data
 * (ORFS_IO_PAGES): the body is followed by struct orfs_rpages and the
 * list's addresses, which the SEND takes from @g->plist.
 *
 * Context: process; does not sleep.
 * Return: 0, -EMSGSIZE, -ENOMEM or -EINVAL.
 */
static int orfs_enc_pages(struct orfs_conn *conn, struct orfs_slot *slot,
			  const struct orfs_msg *msg, struct orfs_grant *g,
			  struct orfs_enc *e)
{
	struct orfs_io_req *q = orfs_enc_io_req(slot);
	struct orfs_rpages *rp = (struct orfs_rpages *)(q + 1);
	int ret;

	ret = orfs_pages_map(conn, g, msg, e->bytes);
	if (ret < 0)
		return ret;
	e->npages = ret;
	e->body_len += sizeof(struct orfs_rpages) + e->npages * sizeof(__le64);
	q->flags |= cpu_to_le32(ORFS_IO_REMOTE | ORFS_IO_PAGES);
	rp->rkey = cpu_to_le32(conn->pd->unsafe_global_rkey);
	rp->npages = cpu_to_le32(e->npages);
	return 0;
}

/**
 * orfs_enc_direct() - encode an O_DIRECT READ or WRITE
 * @conn: the connection
 * @slot: the request's slot
 * @msg: the request, whose pinned user pages the server moves
 * @g: its staging buffer, whose FRWR region registers them unless the
 *	registration cache has them (net/regcache.c)
 * @e: the encoding
 *
 * A new registration's REG_MR goes in front of the SEND (a cache hit
 * needs none), and the body is followed by the segments the server uses
 * (ORFS_IO_REMOTE).  A READ with a cached registration, which outlives the
 * request, arms msg->early_done.
 *
 * Context: process; does not sleep.
 * Return: 0 or orfs_frwr_map()'s error.
 */
static int orfs_enc_direct(struct orfs_conn *conn, struct orfs_slot *slot,
			   const struct orfs_msg *msg, struct orfs_grant *g,
			   struct orfs_enc *e)
{
	struct orfs_io_req *q = orfs_enc_io_req(slot);
	struct orfs_rseg seg[ORFS_RSEG_MAX];
	u32 nseg = 0;
	int ret;

	g->rcm = NULL;
	g->rcreg = NULL;
	if (conn->rc && !orfs_rc_map(conn, msg, seg, &nseg, &g->rcm, &g->rcreg)) {
		/* Cached: a REG_MR only for a new registration. */
		if (g->rcreg) {
			g->rcreg->next = &e->send;
			e->first = g->rcreg;
		}
		/* The registration outlives the request: its READ
		 * may complete from the receive completion.
		 */
		if (msg->early_done && msg->opcode == ORFS_OP_READ) {
			slot->early_want = e->bytes;
			slot->early_arg = msg->early_arg;
			WRITE_ONCE(slot->early_done, msg->early_done);
		}
	} else {
		if (conn->rc)
			orfs_stat_add(conn->stats, ORFS_CTR_RC_FALLBACKS, 1);
		ret = orfs_frwr_map(conn, &g->frwr, msg, seg, &nseg);
		if (ret)
			return ret;
		g->frwr.reg_wr.wr.next = &e->send;
		e->first = &g->frwr.reg_wr.wr;
	}
	e->body_len += nseg * sizeof(seg[0]);	/* the segments follow the body */
	q->flags |= cpu_to_le32(ORFS_IO_REMOTE);
	memcpy(q + 1, seg, nseg * sizeof(seg[0]));
	return 0;
}

/* Runs the encoder of the slot's placement. */
static int orfs_encode(struct orfs_conn *conn, struct orfs_slot *slot,
		       const struct orfs_msg *msg, struct orfs_grant *g,
		       struct orfs_enc *e)
{
	switch (slot->place) {
	case ORFS_PLACE_INLINE:
		return orfs_enc_inline(conn, slot, msg, g, e);
	case ORFS_PLACE_GRANT_WRITE:
		return orfs_enc_grant_write(conn, msg, g, e);
	case ORFS_PLACE_GRANT_READ:
		/* The server fills @g; orfs_read_land() reads it out. */
		return 0;
	case ORFS_PLACE_PAGES:
		return orfs_enc_pages(conn, slot, msg, g, e);
	case ORFS_PLACE_DIRECT:
		return orfs_enc_direct(conn, slot, msg, g, e);
	}
	return 0;
}

/**
 * orfs_req_unmap() - undo what a request's encoder mapped or registered
 * @conn: the connection
 * @slot: the request's slot
 * @g: its staging buffer, or NULL
 * @posted: the request was posted (and is now over); false when posting
 *	it failed
 *
 * Inline data gathered into the SEND is unmapped; so are the pages of an
 * RDMA WRITE chain or a page list.  An O_DIRECT registration is released
 * (orfs_direct_done()).  A READ through a staging buffer has nothing left:
 * orfs_grant_read() unmaps its pages itself.
 *
 * Context: process; does not sleep.
 */
void orfs_req_unmap(struct orfs_conn *conn, struct orfs_slot *slot,
		    struct orfs_grant *g, bool posted)
{
	switch (slot->place) {
	case ORFS_PLACE_INLINE:
	case ORFS_PLACE_GRANT_READ:
		orfs_unmap_data(conn, slot);
		break;
	case ORFS_PLACE_GRANT_WRITE:
	case ORFS_PLACE_PAGES:
		orfs_grant_unmap(conn, g);
		break;
	case ORFS_PLACE_DIRECT:
		orfs_direct_done(conn, g, posted);
		break;
	}
}

/**
 * orfs_post_request() - encode a request and post its SEND
 * @conn: the connection
 * @slot: the request's slot
 * @msg: the request
 * @hflags: header flags
 * @g: the staging buffer a READ or WRITE moves its data through, or NULL
 *	for inline data
 *
 * With @g, the body's orfs_io_req is marked ORFS_IO_GRANT and names it; a
 * WRITE's pages are RDMA-written into it by a chain posted in front of the
 * SEND.  Without, a WRITE's pages are gathered into the SEND itself.  On a
 * trusted fabric a buffered READ or WRITE whose pages orfs_pages_fit()
 * names them instead (ORFS_IO_PAGES, the list gathered from @g->plist) and
 * the server moves the data.  O_DIRECT registers the user's pages.  The
 * body goes into the send buffer first, for the encoder of the way
 * orfs_place() chose to mark and extend; the header follows, once the
 * encoder has said how long the body and the inline data are.
 * The header carries msg->cred, or the calling task's credential.
 *
 * Context: process (the task making the call); does not sleep.
 * Return: 0 (posted: orfs_req_unmap() once the request is over), an
 * encoder's error, or ib_post_send()'s; nothing stays mapped on failure.
 */
int orfs_post_request(struct orfs_conn *conn, struct orfs_slot *slot,
		      const struct orfs_msg *msg, u16 hflags,
		      struct orfs_grant *g)
{
	struct ib_sge sge[1 + ORFS_DATA_SGE_MAX];
	struct orfs_hdr *h = slot->buf;
	struct orfs_enc e = {
		.sge		= sge,
		.body_len	= msg->body_len + msg->tail_len,
	};
	u32 len;
	int ret;

	e.first = &e.send;
	if (g) {
		const struct orfs_io_req *q = msg->body;

		g->pages = false;
		e.bytes = le32_to_cpu(q->count);
	}
	slot->place = orfs_place(conn, msg, g, e.bytes);

	memcpy(h + 1, msg->body, msg->body_len);
	if (msg->tail_len)
		memcpy((u8 *)(h + 1) + msg->body_len, msg->tail, msg->tail_len);
	slot->bare_len = 0;
	if (g) {
		struct orfs_io_req *q = orfs_enc_io_req(slot);

		q->flags |= cpu_to_le32(ORFS_IO_GRANT);
		q->grant = cpu_to_le32(g->idx);
	}
	ret = orfs_encode(conn, slot, msg, g, &e);
	if (ret)
		return ret;

	orfs_hdr_init(h, msg->opcode, slot->xid, hflags, e.body_len, e.data_len);
	h->credits = cpu_to_le16(conn->nrecv);
	orfs_ucred_fill(&h->cred, msg->cred ? msg->cred : current_cred());
	/* A page list's addresses are not in the send buffer but in @g->plist. */
	len = sizeof(*h) + e.body_len - e.npages * sizeof(__le64);
	if (e.data_len) {
		/* Data starts 8-aligned; zero the padding in between. */
		memset((u8 *)h + len, 0, orfs_data_offset(e.body_len) - len);
		len = orfs_data_offset(e.body_len);
	}
	ib_dma_sync_single_for_device(orfs_dev(conn), slot->dma, len, DMA_TO_DEVICE);

	sge[0].addr = slot->dma;
	sge[0].length = len;
	sge[0].lkey = conn->pd->local_dma_lkey;
	e.send.wr_cqe = &slot->send_cqe;
	e.send.sg_list = sge;
	e.send.num_sge = 1 + slot->nr_data;
	if (e.npages) {
		sge[1].addr = g->plist_dma;
		sge[1].length = e.npages * sizeof(__le64);
		sge[1].lkey = conn->pd->local_dma_lkey;
		e.send.num_sge = 2;
	}
	e.send.opcode = IB_WR_SEND;
	e.send.send_flags = IB_SEND_SIGNALED;
	trace_orfs_send(conn, slot->xid, msg->opcode, e.body_len, e.data_len);
	if (slot->place == ORFS_PLACE_GRANT_WRITE)
		trace_orfs_rdma(conn, "write", g->idx, e.bytes);
	slot->posted_ns = ktime_get_ns();
	ret = orfs_post_send(conn, e.first);
	if (ret) {
		orfs_req_unmap(conn, slot, g, false);	/* not posted */
		return ret;
	}
	if (slot->place == ORFS_PLACE_DIRECT) {
		if (g->rcm)
			orfs_rc_posted(conn, g->rcm, g->rcreg);
		else
			g->frwr.posted = true;
	}
	orfs_stat_op(conn->stats, msg->opcode);
	if (slot->place == ORFS_PLACE_GRANT_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_CLIENT_WRITE, e.bytes);
	else if (slot->place == ORFS_PLACE_PAGES && msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_PAGE_LIST, e.bytes);
	else if (msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_OUT, e.data_len);
	return 0;
}

/* Whether a READ or WRITE moves its data through a staging buffer: it is
 * bigger than the inline threshold or has more fragments than one SEND
 * gathers.  Returns -EMSGSIZE if it needs one and the connection has none.
 */
int orfs_needs_grant(struct orfs_conn *conn, const struct orfs_msg *msg,
		     bool *need)
{
	const struct orfs_io_req *q = msg->body;
	u32 bytes;

	*need = false;
	if (msg->opcode != ORFS_OP_READ && msg->opcode != ORFS_OP_WRITE)
		return msg->nr_bvec > conn->max_data_sge || msg->direct ? -EMSGSIZE : 0;
	if (msg->body_len < sizeof(*q))
		return -EINVAL;
	bytes = le32_to_cpu(q->count);
	if (msg->nr_dseg && (!msg->direct || msg->nr_dseg > ORFS_RSEG_MAX ||
			     bytes != orfs_dseg_bytes(msg)))
		return -EINVAL;
	if (msg->opcode == ORFS_OP_WRITE && !msg->nr_dseg && bytes != orfs_msg_bytes(msg))
		return -EINVAL;
	if (msg->direct) {
		/* O_DIRECT: always registered and moved by the server. */
		if (!conn->ngrants || !conn->mr_pages || bytes > orfs_conn_io_max(conn) ||
		    msg->nr_bvec > conn->mr_pages || msg->tail_len)
			return -EMSGSIZE;
		*need = true;
		return 0;
	}
	if (bytes <= conn->inline_size &&
	    (msg->opcode == ORFS_OP_READ || msg->nr_bvec <= conn->max_data_sge))
		return 0;
	if (!conn->ngrants || bytes > orfs_conn_io_max(conn) ||
	    msg->nr_bvec > conn->io_pages + 1)
		return -EMSGSIZE;
	*need = true;
	return 0;
}
