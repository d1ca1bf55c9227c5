// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport, marshalling: a request's SEND, and how its data
 * moves.
 *
 * orfs_post_request() puts the header (with the caller's credential), the
 * body and its tail in the slot's send buffer and posts the SEND, behind
 * whatever must reach the device first.  orfs_needs_grant() says whether a
 * READ's or WRITE's data moves through a staging buffer; then it is
 * gathered into the SEND, RDMA-written into the staging buffer ahead of
 * the SEND, named by a page list on a trusted fabric, or, for O_DIRECT,
 * registered for the server to move.  This is xprtrdma's rpc_rdma.c
 * marshalling side.
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

void orfs_unmap_data(struct orfs_conn *conn, struct orfs_slot *slot)
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
void orfs_direct_done(struct orfs_conn *conn, struct orfs_grant *g,
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
 * orfs_post_request() - post a request's SEND, after an RDMA WRITE chain
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
 * the server moves the data.
 * The header carries msg->cred, or the calling task's credential.
 *
 * Context: process (the task making the call); does not sleep.
 */
int orfs_post_request(struct orfs_conn *conn, struct orfs_slot *slot,
		      const struct orfs_msg *msg, u16 hflags,
		      struct orfs_grant *g)
{
	u32 body_len = msg->body_len + msg->tail_len;
	struct ib_sge sge[1 + ORFS_DATA_SGE_MAX];
	struct orfs_rseg staging;
	struct orfs_hdr *h = slot->buf;
	struct ib_send_wr wr = {}, *first = &wr;
	bool rdma_write = g && msg->opcode == ORFS_OP_WRITE && !msg->direct;
	struct orfs_rseg seg[ORFS_RSEG_MAX];
	struct ib_rdma_wr *last;
	u32 nseg = 0, npages = 0;
	u32 len, data_len = 0, bytes = 0;
	int ret;

	if (g) {
		const struct orfs_io_req *q = msg->body;

		g->pages = false;
		bytes = le32_to_cpu(q->count);
		if (orfs_pages_fit(conn, g, msg, bytes)) {
			ret = orfs_pages_map(conn, g, msg, bytes);
			if (ret < 0)
				return ret;
			npages = ret;
			rdma_write = false;
			body_len += sizeof(struct orfs_rpages) + npages * sizeof(__le64);
		}
	}
	if (msg->direct) {
		g->rcm = NULL;
		g->rcreg = NULL;
		if (conn->rc && !orfs_rc_map(conn, msg, seg, &nseg, &g->rcm, &g->rcreg)) {
			/* Cached: a REG_MR only for a new registration. */
			if (g->rcreg) {
				g->rcreg->next = &wr;
				first = g->rcreg;
			}
			/* The registration outlives the request: its READ
			 * may complete from the receive completion.
			 */
			if (msg->early_done && msg->opcode == ORFS_OP_READ) {
				slot->early_want = bytes;
				slot->early_arg = msg->early_arg;
				WRITE_ONCE(slot->early_done, msg->early_done);
			}
		} else {
			if (conn->rc)
				orfs_stat_add(conn->stats, ORFS_CTR_RC_FALLBACKS, 1);
			ret = orfs_frwr_map(conn, &g->frwr, msg, seg, &nseg);
			if (ret)
				return ret;
			g->frwr.reg_wr.wr.next = &wr;
			first = &g->frwr.reg_wr.wr;
		}
		body_len += nseg * sizeof(seg[0]);	/* the segments follow the body */
	} else if (rdma_write) {
		ret = orfs_grant_map(conn, g, msg->bvec, msg->nr_bvec, bytes,
				     DMA_TO_DEVICE);
		if (ret)
			return ret;
		orfs_grant_rseg(conn, g, bytes, &staging);
		last = orfs_grant_chain(conn, g, IB_WR_RDMA_WRITE, &staging, 1);
		last->wr.next = &wr;
		first = &g->wr[0].wr;
	} else if (!g && msg->opcode != ORFS_OP_READ) {
		/* A READ's bvec is where its data goes, not data to send. */
		ret = orfs_map_data(conn, slot, msg, sge, &data_len);
		if (ret)
			return ret;
	}

	orfs_hdr_init(h, msg->opcode, slot->xid, hflags, body_len, data_len);
	h->credits = cpu_to_le16(conn->nrecv);
	orfs_ucred_fill(&h->cred, msg->cred ? msg->cred : current_cred());
	memcpy(h + 1, msg->body, msg->body_len);
	if (msg->tail_len)
		memcpy((u8 *)(h + 1) + msg->body_len, msg->tail, msg->tail_len);
	slot->bare_len = 0;
	if (!slot->bare_off && orfs_bare_ok(conn, msg, g)) {
		struct orfs_io_req *q = (struct orfs_io_req *)(h + 1);

		q->flags = cpu_to_le32(ORFS_IO_BARE);
		slot->bare_len = le32_to_cpu(q->count);
	}
	if (g) {
		struct orfs_io_req *q = (struct orfs_io_req *)(h + 1);

		q->flags |= cpu_to_le32(ORFS_IO_GRANT);
		q->grant = cpu_to_le32(g->idx);
		if (msg->direct) {
			q->flags |= cpu_to_le32(ORFS_IO_REMOTE);
			memcpy(q + 1, seg, nseg * sizeof(seg[0]));
		} else if (g->pages) {
			struct orfs_rpages *rp = (struct orfs_rpages *)(q + 1);

			q->flags |= cpu_to_le32(ORFS_IO_REMOTE | ORFS_IO_PAGES);
			rp->rkey = cpu_to_le32(conn->pd->unsafe_global_rkey);
			rp->npages = cpu_to_le32(npages);
		}
	}
	/* A page list's addresses are not in the send buffer but in @g->plist. */
	len = sizeof(*h) + body_len - npages * sizeof(__le64);
	if (data_len) {
		/* Data starts 8-aligned; zero the padding in between. */
		memset((u8 *)h + len, 0, orfs_data_offset(body_len) - len);
		len = orfs_data_offset(body_len);
	}
	ib_dma_sync_single_for_device(orfs_dev(conn), slot->dma, len, DMA_TO_DEVICE);

	sge[0].addr = slot->dma;
	sge[0].length = len;
	sge[0].lkey = conn->pd->local_dma_lkey;
	wr.wr_cqe = &slot->send_cqe;
	wr.sg_list = sge;
	wr.num_sge = 1 + slot->nr_data;
	if (npages) {
		sge[1].addr = g->plist_dma;
		sge[1].length = npages * sizeof(__le64);
		sge[1].lkey = conn->pd->local_dma_lkey;
		wr.num_sge = 2;
	}
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	trace_orfs_send(conn, slot->xid, msg->opcode, body_len, data_len);
	if (rdma_write)
		trace_orfs_rdma(conn, "write", g->idx, bytes);
	slot->posted_ns = ktime_get_ns();
	ret = orfs_post_send(conn, first);
	if (ret) {
		if (msg->direct)
			orfs_direct_done(conn, g, false);	/* not posted */
		else if (rdma_write || npages)
			orfs_grant_unmap(conn, g);
		else
			orfs_unmap_data(conn, slot);
		return ret;
	}
	if (msg->direct && g->rcm)
		orfs_rc_posted(conn, g->rcm, g->rcreg);
	else if (msg->direct)
		g->frwr.posted = true;
	orfs_stat_op(conn->stats, msg->opcode);
	if (rdma_write)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_CLIENT_WRITE, bytes);
	else if (npages && msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_PAGE_LIST, bytes);
	else if (msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_OUT, data_len);
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
