/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd export layer: the exported directory, file handles and attributes.
 *
 * Functions return 0 (or a file descriptor) on success and a negative errno
 * on failure; the errno is what the client sees as the reply status.
 */
#ifndef ORFSD_EXPORT_H
#define ORFSD_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cred.h"
#include "orfs_proto.h"

/*
 * Longest ".." walk when checking that a directory lies inside the export.
 * Deeper directories are refused (ESTALE); PATH_MAX allows at most 2048
 * components anyway.
 */
#define ORFS_EXPORT_WALK_MAX	4096

/* Room for "/proc/self/fd/N" (orfs_proc_fd_path()). */
#define ORFS_PROC_FD_LEN	32

/*
 * File handles carry a SipHash-2-4 tag of ORFS_FH_MAC_LEN bytes after the
 * kernel's handle bytes (export.c), keyed by a per-export key of
 * ORFS_FH_KEY_LEN random bytes: kept in the extended attribute
 * ORFS_FH_KEY_XATTR of the export root (made at the first start), or in
 * the file given with --fh-key-file.  Kernel handles of at most
 * ORFS_FH_DATA - ORFS_FH_MAC_LEN bytes therefore fit.
 */
#define ORFS_FH_MAC_LEN		8U
#define ORFS_FH_KEY_LEN		16U
#define ORFS_FH_KEY_XATTR	"trusted.orfsd.fh_key"
/* Extended attributes with this prefix are orfsd's own: never on the wire. */
#define ORFS_XATTR_PRIVATE	"trusted.orfsd."

/**
 * struct orfs_export - one exported directory
 * @path: the path given on the command line (for messages)
 * @fd: the export root, opened O_RDONLY|O_DIRECTORY; it is the mount fd for
 *	open_by_handle_at() (which refuses O_PATH fds) and the anchor for
 *	MOUNT's openat2(RESOLVE_BENEATH)
 * @dev: st_dev of the export root: every object served must be on it
 * @ino: st_ino of the export root
 * @whole_fs: the export root is the root of its filesystem (a mount point
 *	whose mountinfo root is "/"), so the st_dev check alone confines
 *	handles; otherwise directories are checked by walking ".."
 * @read_only: --read-only: every modifying request gets EROFS before it
 *	is decoded (set by main() after orfs_export_open())
 * @squash: how the identities requests carry are mapped (--root-squash,
 *	--all-squash, --anon-uid, --anon-gid; set by main() after
 *	orfs_export_open(), which leaves it all zero: no squashing)
 * @fh_key: the key the handles' tags are made with
 *
 * Immutable after orfs_export_open(), so it may be shared by threads.
 */
struct orfs_export {
	char	*path;
	int	fd;
	dev_t	dev;
	ino_t	ino;
	bool	whole_fs;
	bool	read_only;
	struct orfs_squash	squash;
	uint8_t	fh_key[ORFS_FH_KEY_LEN];
};

int orfs_export_open(struct orfs_export *exp, const char *path);
int orfs_export_open_key(struct orfs_export *exp, const char *path,
			 const char *key_file);
void orfs_fh_set_peer(const char *peer);
bool orfs_xattr_private(const char *name, size_t len);
void orfs_export_close(struct orfs_export *exp);

int orfs_fh_encode(const struct orfs_export *exp, int fd,
		   const struct stat *st, struct orfs_fh *fh);
int orfs_fh_open(const struct orfs_export *exp, const struct orfs_fh *fh,
		 struct stat *st);
int orfs_export_open_path(const struct orfs_export *exp, const char *path,
			  size_t len);
int orfs_export_stat(int fd, struct stat *st);
int orfs_fd_reopen(int fd, const struct stat *st, int flags);
int orfs_fd_chmod(int fd, mode_t mode);
void orfs_proc_fd_path(int fd, char *buf);
void orfs_attr_fill(struct orfs_attr *a, const struct stat *st);
uint64_t orfs_change_counter(const struct stat *st);

#endif /* ORFSD_EXPORT_H */
