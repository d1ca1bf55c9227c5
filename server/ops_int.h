/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd request handling: what ops.c (dispatch, lookups, directory
 * listing), ops_io.c (the data of one file), ops_attr.c (SETATTR,
 * READLINK), ops_remote.c (ORFS_IO_REMOTE for the transport), ops_ns.c
 * (namespace changes), ops_xattr.c (extended attributes), ops_demote.c
 * (DEMOTE exclusive caching) and ops_offload.c (SEEK, ALLOCATE, COPY) share.
 * Not used outside the request layer.
 */
#ifndef ORFSD_OPS_INT_H
#define ORFSD_OPS_INT_H

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "cred.h"
#include "diskio.h"
#include "ops.h"
#include "orfs_proto.h"

/*
 * An op handler: decode the request @h (it passed orfs_hdr_check(), so its
 * fixed body is there), execute it, fill @r.  Return 0 or a negative errno,
 * which becomes the reply status (an error reply has no body).
 */
typedef int (*orfs_op_fn)(const struct orfs_req_ctx *ctx,
			  const struct orfs_hdr *h, struct orfs_reply *r);

/*
 * An op that may wait for the disk or an offload thread (READ, WRITE,
 * COMMIT, DEMOTE_META, DEMOTE, ALLOCATE, COPY): like orfs_op_fn,
 * with @a->r as the reply, but it may also return -EINPROGRESS, and then
 * calls orfs_areq_complete() exactly once when it is done.
 */
typedef int (*orfs_aop_fn)(struct orfs_areq *a, const struct orfs_hdr *h);

void orfs_areq_complete(struct orfs_areq *a, int err);
struct orfs_unifier *orfs_ctx_uni(const struct orfs_req_ctx *ctx);

static inline void *orfs_reply_body(struct orfs_reply *r)
{
	return r->buf + sizeof(struct orfs_hdr);
}

/* The errno READ, WRITE and SETATTR SIZE give for a non-regular file. */
static inline int orfs_not_regular_errno(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

/* A name component copied out of a request, NUL-terminated. */
struct orfs_name {
	char	s[ORFS_NAME_MAX + 1];
};

int orfs_req_name(const struct orfs_hdr *h, uint32_t off, uint32_t len,
		  struct orfs_name *name);
void orfs_req_cred(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_cred *c);
const struct orfs_squash *orfs_ctx_squash(const struct orfs_req_ctx *ctx);
int orfs_io_kill_priv(const struct orfs_cred *c, int fd, struct stat *st);
int orfs_encode_obj(const struct orfs_req_ctx *ctx, int fd,
		    const struct stat *st, struct orfs_fh *fh,
		    struct orfs_attr *attr);
int orfs_open_dir(const struct orfs_req_ctx *ctx, const struct orfs_fh *fh,
		  struct stat *st);

/* ops_io.c */
int orfs_io_read_check(const struct orfs_req_ctx *ctx,
		       const struct orfs_hdr *h, u8 **buf, uint32_t *nseg);
int orfs_io_write_check(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, u8 **buf, uint32_t *nseg);
int orfs_op_read(struct orfs_areq *a, const struct orfs_hdr *h);
int orfs_op_write(struct orfs_areq *a, const struct orfs_hdr *h);
int orfs_op_commit(struct orfs_areq *a, const struct orfs_hdr *h);

/* ops_attr.c */
int orfs_op_readlink(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r);
int orfs_op_setattr(struct orfs_areq *a, const struct orfs_hdr *h);

/* ops_ns.c */
int orfs_op_create(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r);
int orfs_op_remove(struct orfs_areq *a, const struct orfs_hdr *h);
int orfs_op_rename(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r);
int orfs_op_link(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		 struct orfs_reply *r);

/* ops_demote.c */
int orfs_op_demote_meta(struct orfs_areq *a, const struct orfs_hdr *h);
int orfs_op_demote(struct orfs_areq *a, const struct orfs_hdr *h);

/* ops_xattr.c */
int orfs_op_getxattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r);
int orfs_op_setxattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r);
int orfs_op_listxattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		      struct orfs_reply *r);
int orfs_op_removexattr(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, struct orfs_reply *r);

/* ops_offload.c */
int orfs_op_seek(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		 struct orfs_reply *r);
int orfs_op_allocate(struct orfs_areq *a, const struct orfs_hdr *h);
int orfs_op_copy(struct orfs_areq *a, const struct orfs_hdr *h);
int orfs_copy_fallback(int sfd, uint64_t soff, int dfd, uint64_t doff,
		       uint64_t count, uint64_t *done);
void orfs_req_offload(struct orfs_areq *a, struct orfs_disk_io *io, int fd,
		      orfs_disk_call_fn call, orfs_disk_done_fn done, void *priv);

#endif /* ORFSD_OPS_INT_H */
