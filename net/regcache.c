// SPDX-License-Identifier: GPL-2.0
/*
 * The O_DIRECT pin-down registration cache with batched deregistration
 * (FMRD), after [Wu04, 4.2] and [GGP05, 3.2] (Documentation/bibliography.md).
 *
 * A registration of user memory (an FRWR memory region mapping its pages)
 * costs a REG_MR work request to make and a LOCAL_INV to undo.  Databases
 * reuse their I/O buffers, so the registrations are kept: per connection
 * (a region belongs to the connection's protection domain) and per address
 * space, in the interval tree of net/regcache_tree.c, keyed by user virtual
 * address.  A request whose buffer lies inside a cached registration sends
 * the cached rkey and posts no registration at all.
 *
 * Staying correct when the address space changes:
 *  - each registration has an mmu interval notifier on its range; munmap,
 *    mremap, MADV_DONTNEED, copy-on-write after fork, migration and process
 *    exit invalidate it, and it is never handed out again;
 *  - fs/direct.c still pins the pages of every request; a cache hit is used
 *    only if those are the very pages the registration maps, so even a
 *    change that races with the notifier's set-up is caught;
 *  - the registration holds its own page references until it is
 *    invalidated by LOCAL_INV, so whatever the server still writes before
 *    that lands in pages nobody else owns.
 *
 * Retired registrations (evicted, invalidated, superseded) are queued, and
 * deregistered in batches: one chain of LOCAL_INV work requests, one
 * completion, then the pages are released (FMRD).  The batch runs in the
 * flush worker, not in the request that made it due, so no request waits
 * for a deregistration; the pindown mode deregisters each evicted entry
 * at once, in the request that evicted it.  The "dynamic" mode does
 * none of this: net/frwr.c registers and invalidates per request.
 *
 * Regions come from a pool allocated when the connection is set up, so
 * ib_alloc_mr() stays off the request path.  Everything is dropped when the
 * connection goes (a new connection has a new protection domain), and when
 * the process exits (its notifiers fire with MMU_NOTIFY_RELEASE).
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "xprt.h"
#include "orfs_trace.h"

/**
 * struct orfs_rc_mr - one cached registration
 * @ent: its entry in the address space's tree (ent.priv points here)
 * @rmm: the address space's cache
 * @mni: the notifier watching [ent.start, ent.last]
 * @mni_added: @mni is inserted and must be removed
 * @mr: a region of the connection's pool
 * @sgl: the pages, for DMA mapping
 * @nents: entries of @sgl DMA-mapped, 0 if none
 * @pages: the pages, each with a reference held
 * @npages: how many
 * @reg_wr: the REG_MR work request, posted in front of the first
 *	request's SEND
 * @reg_cqe: its completion (unsignaled: errors only)
 * @posted: @reg_wr was posted; a LOCAL_INV must undo it
 * @inv_wr: the LOCAL_INV work request of the batch that retires it
 */
struct orfs_rc_mr {
	struct orfs_rc_entry		ent;
	struct orfs_rc_mm		*rmm;
	struct mmu_interval_notifier	mni;
	bool				mni_added;
	struct ib_mr			*mr;
	struct scatterlist		*sgl;
	int				nents;
	struct page			**pages;
	u32				npages;
	struct ib_reg_wr		reg_wr;
	struct ib_cqe			reg_cqe;
	bool				posted;
	struct ib_send_wr		inv_wr;
};

/**
 * struct orfs_rc_mm - the registrations of one address space on one
 *	connection
 * @node: on the cache's @mms list
 * @mm: the address space (mmgrab'ed: the struct, not its pages)
 * @tree: its registrations
 * @rc: the cache
 */
struct orfs_rc_mm {
	struct list_head	node;
	struct mm_struct	*mm;
	struct orfs_rc_tree	tree;
	struct orfs_regcache	*rc;
};

static void orfs_rc_stat(struct orfs_regcache *rc, enum orfs_counter c, s64 n)
{
	orfs_stat_add(rc->conn->stats, c, n);
}

/* ---- the region pool ---- */

static struct ib_mr *orfs_rc_pool_get(struct orfs_regcache *rc)
{
	struct ib_mr *mr = NULL;

	spin_lock_bh(&rc->pool_lock);
	if (rc->pool_free)
		mr = rc->pool[--rc->pool_free];
	spin_unlock_bh(&rc->pool_lock);
	return mr;
}

static void orfs_rc_pool_put(struct orfs_regcache *rc, struct ib_mr *mr)
{
	spin_lock_bh(&rc->pool_lock);
	rc->pool[rc->pool_free++] = mr;
	spin_unlock_bh(&rc->pool_lock);
}

/* ---- notifier ---- */

/* The address space changed under [start, last] of a registration: take
 * every registration overlapping it out of service, and let the flush
 * worker deregister them.  Never sleeps.
 */
static bool orfs_rc_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct orfs_rc_mr *m = container_of(mni, struct orfs_rc_mr, mni);
	struct orfs_regcache *rc = m->rmm->rc;
	unsigned long start = max(range->start, m->ent.start);
	unsigned long last = min(range->end - 1, m->ent.last);
	unsigned int n;

	mmu_interval_set_seq(mni, cur_seq);
	n = orfs_rc_invalidate_range(&m->rmm->tree, start, last);
	if (n)
		orfs_rc_stat(rc, ORFS_CTR_RC_INVALIDATIONS, n);
	/* On exit the registrations may have been retired already (munmap)
	 * and only wait for a batch: the flush releases them all now.
	 */
	if ((n || range->event == MMU_NOTIFY_RELEASE) && !READ_ONCE(rc->dying))
		queue_work(system_unbound_wq, &rc->flush_work);
	return true;
}

static const struct mmu_interval_notifier_ops orfs_rc_mni_ops = {
	.invalidate = orfs_rc_invalidate,
};

/* ---- building and retiring registrations ---- */

/* Releases everything a registration holds; the device is done with it. */
static void orfs_rc_mr_free(struct orfs_regcache *rc, struct orfs_rc_mr *m)
{
	u32 i;

	if (m->mni_added)
		mmu_interval_notifier_remove(&m->mni);
	if (m->nents)
		ib_dma_unmap_sg(rc->conn->dev, m->sgl, m->npages, DMA_BIDIRECTIONAL);
	for (i = 0; i < m->npages; i++)
		put_page(m->pages[i]);
	if (m->mr)
		orfs_rc_pool_put(rc, m->mr);
	orfs_rc_stat(rc, ORFS_CTR_RC_PINNED_PAGES, -(s64)m->npages);
	kfree(m->sgl);
	kfree(m->pages);
	kfree(m);
}

/* A REG_MR is unsignaled: only a failed or flushed one completes. */
static void orfs_rc_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_rc_mr *m = container_of(wc->wr_cqe, struct orfs_rc_mr, reg_cqe);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_err_ratelimited("memory registration failed: %s (%d)\n",
				   ib_wc_status_msg(wc->status), wc->status);
	if (wc->status != IB_WC_SUCCESS)
		orfs_conn_fail(m->rmm->rc->conn, -ENOTCONN);
}

static void orfs_rc_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_regcache *rc = container_of(wc->wr_cqe, struct orfs_regcache,
						inv_cqe);

	rc->inv_status = wc->status;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err_ratelimited("invalidating registrations failed: %s (%d)\n",
					   ib_wc_status_msg(wc->status), wc->status);
		orfs_conn_fail(rc->conn, -ENOTCONN);
	}
	complete(&rc->inv_done);
}

/**
 * orfs_rc_retire() - deregister a batch of registrations
 * @rc: the cache
 * @list: entries taken off a deregistration list
 * @n: how many
 *
 * One chain of LOCAL_INV work requests, only the last signaled, then the
 * pages are unmapped and released and the regions go back to the pool.
 * If the connection is down the QP is in the error state and no remote
 * access is possible: the regions are simply released.
 *
 * Context: process; sleeps.  Called with rc->flush_lock held.
 */
static void orfs_rc_retire(struct orfs_regcache *rc, struct list_head *list,
			   unsigned int n)
{
	struct orfs_conn *conn = rc->conn;
	struct ib_send_wr *first = NULL, **link = &first, *last = NULL;
	struct orfs_rc_entry *e, *tmp;

	if (!orfs_conn_is_up(conn)) {
		/* Their REG_MRs may still be on the failed QP's send queue,
		 * to be flushed: free them only once it is drained.
		 */
		list_splice_tail_init(list, &rc->zombies);
		return;
	}
	list_for_each_entry(e, list, lru) {
		struct orfs_rc_mr *m = e->priv;

		if (!m->posted)
			continue;
		memset(&m->inv_wr, 0, sizeof(m->inv_wr));
		m->inv_wr.opcode = IB_WR_LOCAL_INV;
		m->inv_wr.ex.invalidate_rkey = m->mr->rkey;
		m->inv_wr.wr_cqe = &rc->inv_err_cqe;
		*link = &m->inv_wr;
		link = &m->inv_wr.next;
		last = &m->inv_wr;
	}
	if (last) {
		last->wr_cqe = &rc->inv_cqe;
		last->send_flags = IB_SEND_SIGNALED;
		reinit_completion(&rc->inv_done);
		if (!orfs_post_send(conn, first))
			wait_for_completion(&rc->inv_done);
		else
			orfs_conn_fail(conn, -ENOTCONN);
	}
	orfs_rc_stat(rc, ORFS_CTR_RC_DEREG_BATCHES, 1);
	orfs_rc_stat(rc, ORFS_CTR_RC_DEREG_ENTRIES, n);
	list_for_each_entry_safe(e, tmp, list, lru) {
		list_del_init(&e->lru);
		orfs_rc_mr_free(rc, e->priv);
	}
}

/* Unsignaled LOCAL_INVs complete only on error. */
static void orfs_rc_inv_err(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_regcache *rc = container_of(wc->wr_cqe, struct orfs_regcache,
						inv_err_cqe);

	if (wc->status != IB_WC_SUCCESS)
		orfs_conn_fail(rc->conn, -ENOTCONN);
}

static void orfs_rc_mm_free(struct orfs_rc_mm *rmm)
{
	orfs_rc_tree_destroy(&rmm->tree);
	mmdrop(rmm->mm);
	kfree(rmm);
}

/* Takes up to one batch of registrations due for deregistration, from
 * every address space: all queued ones of a process that has exited, or
 * with @all; otherwise those of a tree whose batch is due.  Called with
 * rc->flush_lock held; takes rc->mms_lock.  Returns how many.
 */
static unsigned int orfs_rc_take_due(struct orfs_regcache *rc, bool all,
				     struct list_head *batch)
{
	struct orfs_rc_mm *rmm;
	unsigned int n = 0;

	spin_lock(&rc->mms_lock);
	list_for_each_entry(rmm, &rc->mms, node) {
		bool dead = !atomic_read(&rmm->mm->mm_users);

		if (all || dead || orfs_rc_dereg_due(&rmm->tree))
			n += orfs_rc_dereg_take(&rmm->tree, batch, ORFS_RC_BATCH_MAX - n);
		if (n == ORFS_RC_BATCH_MAX)
			break;
	}
	spin_unlock(&rc->mms_lock);
	return n;
}

/* Forgets the address spaces of processes that have exited once nothing of
 * theirs is pinned.  Called with rc->flush_lock held; takes rc->mms_lock.
 */
static void orfs_rc_reap(struct orfs_regcache *rc)
{
	struct orfs_rc_mm *rmm, *tmp;
	struct orfs_rc_stats st;
	LIST_HEAD(gone);

	spin_lock(&rc->mms_lock);
	list_for_each_entry_safe(rmm, tmp, &rc->mms, node) {
		if (atomic_read(&rmm->mm->mm_users))
			continue;
		orfs_rc_get_stats(&rmm->tree, &st);
		if (!st.pinned_pages)
			list_move(&rmm->node, &gone);
	}
	spin_unlock(&rc->mms_lock);
	list_for_each_entry_safe(rmm, tmp, &gone, node)
		orfs_rc_mm_free(rmm);
}

/**
 * orfs_rc_flush() - deregister what is due, or everything queued
 * @rc: the cache
 * @all: take every queued entry, due or not
 *
 * The registrations of a process that has exited are all released, and
 * its address space is forgotten.
 *
 * Context: process; sleeps.
 */
static void orfs_rc_flush(struct orfs_regcache *rc, bool all)
{
	LIST_HEAD(batch);
	unsigned int n;

	mutex_lock(&rc->flush_lock);
	while (orfs_conn_is_up(rc->conn) && (n = orfs_rc_take_due(rc, all, &batch)))
		orfs_rc_retire(rc, &batch, n);
	/* (if the connection is down, orfs_rc_destroy() frees them) */
	orfs_rc_reap(rc);
	mutex_unlock(&rc->flush_lock);
}

static void orfs_rc_flush_work(struct work_struct *work)
{
	struct orfs_regcache *rc = container_of(work, struct orfs_regcache, flush_work);

	if (!READ_ONCE(rc->dying))
		orfs_rc_flush(rc, false);
}

static struct orfs_rc_mm *orfs_rc_mm_find(struct orfs_regcache *rc,
					  struct mm_struct *mm)
	__must_hold(&rc->mms_lock)
{
	struct orfs_rc_mm *rmm;

	list_for_each_entry(rmm, &rc->mms, node)
		if (rmm->mm == mm)
			return rmm;
	return NULL;
}

/* The cache of @mm on this connection, created on first use.  The caller
 * holds a user reference on @mm, so that the cache is not forgotten under
 * it (orfs_rc_reap()).  Never waits for a deregistration batch.
 */
static struct orfs_rc_mm *orfs_rc_mm_get(struct orfs_regcache *rc,
					 struct mm_struct *mm)
{
	struct orfs_rc_mm *rmm, *new;

	spin_lock(&rc->mms_lock);
	rmm = orfs_rc_mm_find(rc, mm);
	spin_unlock(&rc->mms_lock);
	if (rmm)
		return rmm;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	new->mm = mm;
	mmgrab(mm);
	new->rc = rc;
	orfs_rc_tree_init(&new->tree, rc->mode);
	orfs_rc_set_limits(&new->tree, rc->max_entries, rc->max_pages, rc->batch);

	spin_lock(&rc->mms_lock);
	rmm = orfs_rc_mm_find(rc, mm);
	if (!rmm) {
		list_add(&new->node, &rc->mms);
		rmm = new;
		new = NULL;
	}
	spin_unlock(&rc->mms_lock);
	if (new)
		orfs_rc_mm_free(new);
	return rmm;
}

/* A registration for the request's pages: they make one virtually
 * contiguous range [uaddr & PAGE_MASK, ...], one page per fragment.
 */
static struct orfs_rc_mr *orfs_rc_mr_new(struct orfs_regcache *rc,
					 struct orfs_rc_mm *rmm,
					 const struct orfs_msg *msg)
{
	unsigned long start = msg->uaddr & PAGE_MASK;
	struct orfs_rc_mr *m;
	u32 i;

	m = kzalloc(sizeof(*m), GFP_NOFS);
	if (!m)
		return NULL;
	m->rmm = rmm;
	m->pages = kcalloc(msg->nr_bvec, sizeof(*m->pages), GFP_NOFS);
	m->sgl = kcalloc(msg->nr_bvec, sizeof(*m->sgl), GFP_NOFS);
	m->mr = orfs_rc_pool_get(rc);
	if (!m->pages || !m->sgl || !m->mr)
		goto fail;
	sg_init_table(m->sgl, msg->nr_bvec);
	for (i = 0; i < msg->nr_bvec; i++) {
		m->pages[i] = msg->bvec[i].bv_page;
		get_page(m->pages[i]);
		sg_set_page(&m->sgl[i], m->pages[i], PAGE_SIZE, 0);
		m->npages++;
	}
	orfs_rc_stat(rc, ORFS_CTR_RC_PINNED_PAGES, m->npages);
	m->nents = ib_dma_map_sg(rc->conn->dev, m->sgl, m->npages, DMA_BIDIRECTIONAL);
	if (!m->nents)
		goto fail;
	m->reg_cqe.done = orfs_rc_reg_done;
	if (orfs_frwr_prepare(m->mr, m->sgl, m->nents, IB_ACCESS_LOCAL_WRITE |
			      IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
			      &m->reg_wr, &m->reg_cqe))
		goto fail;
	orfs_rc_entry_init(&m->ent, start, start + ((unsigned long)m->npages << PAGE_SHIFT) - 1,
			   m->npages, m);
	if (mmu_interval_notifier_insert(&m->mni, rmm->mm, start,
					 (unsigned long)m->npages << PAGE_SHIFT,
					 &orfs_rc_mni_ops))
		goto fail;
	m->mni_added = true;
	orfs_stat_add(rc->conn->stats, ORFS_CTR_MR_REGISTRATIONS, 1);
	return m;

fail:
	orfs_rc_mr_free(rc, m);
	return NULL;
}

/* Passes a registration's pages between CPU and device around a request. */
static void orfs_rc_sync(struct ib_device *dev, struct orfs_rc_mr *m, bool for_cpu)
{
	if (ib_uses_virt_dma(dev))
		return;
	if (for_cpu)
		dma_sync_sg_for_cpu(dev->dma_device, m->sgl, m->npages, DMA_BIDIRECTIONAL);
	else
		dma_sync_sg_for_device(dev->dma_device, m->sgl, m->npages,
				       DMA_BIDIRECTIONAL);
}

/* Do the request's pages match the registration's, from uaddr on? */
static bool orfs_rc_pages_match(const struct orfs_rc_mr *m, const struct orfs_msg *msg)
{
	u32 first = ((msg->uaddr & PAGE_MASK) - m->ent.start) >> PAGE_SHIFT;
	u32 i;

	if (first + msg->nr_bvec > m->npages)
		return false;
	for (i = 0; i < msg->nr_bvec; i++)
		if (msg->bvec[i].bv_page != m->pages[first + i])
			return false;
	return true;
}

/**
 * orfs_rc_map() - find or make a registration for an O_DIRECT request
 * @conn: the connection the request goes out on
 * @msg: the request: bvec holds its pinned pages, one per page of the
 *	virtually contiguous range starting at msg->uaddr in msg->mm
 * @seg: filled with what the server needs (address, rkey, length): one
 *	segment, or one per msg->dseg
 * @nseg: filled with their number
 * @mp: filled with the registration, to give to orfs_rc_posted() and
 *	orfs_rc_unmap()
 * @reg: filled with a REG_MR work request to post in front of the SEND,
 *	or NULL on a cache hit
 *
 * Context: process; may sleep (notifier set-up, a forced flush).
 * Return: 0; -EAGAIN if no registration could be made (the caller falls
 * back to a per-request registration).
 */
int orfs_rc_map(struct orfs_conn *conn, const struct orfs_msg *msg,
		struct orfs_rseg *seg, u32 *nseg, struct orfs_rc_mr **mp,
		struct ib_send_wr **reg)
{
	struct orfs_regcache *rc = conn->rc;
	size_t len = 0;
	struct orfs_rc_entry *e;
	struct orfs_rc_mm *rmm;
	struct orfs_rc_mr *m;
	u32 i;

	if (!rc || !msg->mm)
		return -EAGAIN;
	for (i = 0; i < msg->nr_bvec; i++)
		len += msg->bvec[i].bv_len;
	/* (with msg->dseg, len spans the region's whole pages) */
	rmm = orfs_rc_mm_get(rc, msg->mm);
	if (!rmm)
		return -EAGAIN;

	e = orfs_rc_lookup(&rmm->tree, msg->uaddr, len);
	if (e) {
		m = e->priv;
		if (orfs_rc_pages_match(m, msg)) {
			orfs_rc_stat(rc, ORFS_CTR_RC_HITS, 1);
			*reg = NULL;
			goto out;
		}
		/* The mapping changed before the notifier could say so. */
		orfs_rc_invalidate_range(&rmm->tree, e->start, e->last);
		orfs_rc_put(&rmm->tree, e);
	}
	orfs_rc_stat(rc, ORFS_CTR_RC_MISSES, 1);
	m = orfs_rc_mr_new(rc, rmm, msg);
	if (!m) {
		/* Out of regions: retire what is queued and try once more. */
		orfs_rc_flush(rc, true);
		m = orfs_rc_mr_new(rc, rmm, msg);
		if (!m)
			return -EAGAIN;
	}
	*reg = &m->reg_wr.wr;
out:
	/* The mapping outlives this request: hand the pages to the device. */
	orfs_rc_sync(conn->dev, m, false);
	*nseg = orfs_rseg_fill(seg, msg, m->mr, m->ent.start, len);
	*mp = m;
	return 0;
}

/**
 * orfs_rc_posted() - the request and its REG_MR, if any, were posted
 * @conn: the connection
 * @m: the registration from orfs_rc_map()
 * @reg: what orfs_rc_map() returned in @reg
 *
 * A new registration enters the cache only now, so that no other request
 * can use its rkey before its REG_MR is on the send queue (the queue keeps
 * their order).
 *
 * Context: any process context.
 */
void orfs_rc_posted(struct orfs_conn *conn, struct orfs_rc_mr *m,
		    struct ib_send_wr *reg)
{
	if (!reg)
		return;
	m->posted = true;
	if (orfs_rc_insert(&m->rmm->tree, &m->ent)) {
		/* Not cacheable after all: retire it after this request. */
		m->ent.state = ORFS_RC_NEW;
	}
}

/**
 * orfs_rc_unmap() - the request using a registration is over
 * @conn: the connection
 * @m: the registration
 * @reg: what orfs_rc_map() returned in @reg
 * @posted: whether the request was posted at all
 *
 * Drops the request's reference.  If that makes a deregistration due, the
 * pindown mode deregisters at once; fmrd leaves the batch to the flush
 * worker, so that the request's caller does not wait for it.
 *
 * Context: process; may sleep.
 */
void orfs_rc_unmap(struct orfs_conn *conn, struct orfs_rc_mr *m,
		   struct ib_send_wr *reg, bool posted)
{
	struct orfs_regcache *rc = conn->rc;
	LIST_HEAD(one);

	/* ... and back to the CPU, which reads what the server wrote. */
	if (m->nents)
		orfs_rc_sync(conn->dev, m, true);
	if (m->ent.state == ORFS_RC_NEW) {
		/* Never entered the cache: retire it alone, now. */
		list_add(&m->ent.lru, &one);
		mutex_lock(&rc->flush_lock);
		orfs_rc_retire(rc, &one, 1);
		mutex_unlock(&rc->flush_lock);
		return;
	}
	if (!orfs_rc_put(&m->rmm->tree, &m->ent))
		return;
	if (rc->mode != ORFS_RC_FMRD)
		orfs_rc_flush(rc, false);
	else if (!READ_ONCE(rc->dying))
		queue_work(system_unbound_wq, &rc->flush_work);
}

/**
 * orfs_rc_init() - set up a connection's registration cache
 * @conn: the connection, established, with conn->mr_pages set
 *
 * Allocates the pool of regions: the registrations kept, plus a batch
 * being retired and one filling up while it is, plus one per staging
 * buffer in flight.
 *
 * Context: process; sleeps.
 * Return: 0 or a negative errno.
 */
int orfs_rc_init(struct orfs_conn *conn)
{
	const struct orfs_conn_opts *o = &conn->opts;
	struct orfs_regcache *rc;
	u32 i, n;

	if (o->rc_mode == ORFS_RC_DYNAMIC || !conn->mr_pages || !conn->ngrants)
		return 0;
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return -ENOMEM;
	rc->conn = conn;
	rc->mode = o->rc_mode;
	rc->max_entries = o->rc_entries;
	rc->max_pages = o->rc_pages;
	rc->batch = o->rc_mode == ORFS_RC_FMRD ? min_t(u32, o->rc_batch, ORFS_RC_BATCH_MAX) : 1;
	mutex_init(&rc->flush_lock);
	spin_lock_init(&rc->pool_lock);
	spin_lock_init(&rc->mms_lock);
	INIT_LIST_HEAD(&rc->mms);
	INIT_LIST_HEAD(&rc->zombies);
	INIT_WORK(&rc->flush_work, orfs_rc_flush_work);
	init_completion(&rc->inv_done);
	rc->inv_cqe.done = orfs_rc_inv_done;
	rc->inv_err_cqe.done = orfs_rc_inv_err;
	n = rc->max_entries + 2 * rc->batch + conn->ngrants;
	rc->pool = kcalloc(n, sizeof(*rc->pool), GFP_KERNEL);
	if (!rc->pool)
		goto fail;
	conn->rc = rc;
	for (i = 0; i < n; i++) {
		struct ib_mr *mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG, conn->mr_pages);

		if (IS_ERR(mr)) {
			orfs_rc_destroy(conn);
			return PTR_ERR(mr);
		}
		rc->pool[rc->pool_free++] = mr;
		rc->pool_size++;
	}
	return 0;
fail:
	kfree(rc);
	return -ENOMEM;
}

/**
 * orfs_rc_destroy() - drop every registration of a connection
 * @conn: the connection; its QP is drained (no completion can run) or
 *	was never created
 *
 * Context: process; sleeps (notifier removal).
 */
void orfs_rc_destroy(struct orfs_conn *conn)
{
	struct orfs_regcache *rc = conn->rc;
	struct orfs_rc_mm *rmm, *tmp;
	struct orfs_rc_entry *e, *etmp;
	LIST_HEAD(all);
	LIST_HEAD(mms);
	u32 i;

	if (!rc)
		return;
	WRITE_ONCE(rc->dying, true);
	cancel_work_sync(&rc->flush_work);
	mutex_lock(&rc->flush_lock);
	list_splice_tail_init(&rc->zombies, &all);
	spin_lock(&rc->mms_lock);
	list_splice_init(&rc->mms, &mms);
	spin_unlock(&rc->mms_lock);
	list_for_each_entry(rmm, &mms, node) {
		orfs_rc_drain(&rmm->tree);
		orfs_rc_dereg_take(&rmm->tree, &all, UINT_MAX);
	}
	/* The QP is drained: no LOCAL_INV, nothing can complete any more. */
	list_for_each_entry_safe(e, etmp, &all, lru) {
		list_del_init(&e->lru);
		orfs_rc_mr_free(rc, e->priv);
	}
	list_for_each_entry_safe(rmm, tmp, &mms, node) {
		list_del(&rmm->node);
		orfs_rc_mm_free(rmm);
	}
	mutex_unlock(&rc->flush_lock);
	/* No notifier is left to queue it again. */
	cancel_work_sync(&rc->flush_work);
	WARN_ON(rc->pool_free != rc->pool_size);
	for (i = 0; i < rc->pool_free; i++)
		ib_dereg_mr(rc->pool[i]);
	kfree(rc->pool);
	kfree(rc);
	conn->rc = NULL;
}
