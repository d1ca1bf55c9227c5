// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd export layer.
 *
 * File handles are the kernel's own (name_to_handle_at()), so they survive a
 * server restart and need no table.  Decoding one (open_by_handle_at())
 * needs CAP_DAC_READ_SEARCH and can name any inode of the export's
 * filesystem, so every decoded handle is confined:
 *
 *  - the object must be on the export's device (st_dev), and its inode
 *    number must match the one in the handle;
 *  - when the export is not the root of its filesystem, a directory must
 *    reach the export root by walking "..".  A non-directory has no unique
 *    parent, so it is only checked for st_dev: a client that forges a valid
 *    kernel handle of a file outside the export but on the same filesystem
 *    can reach it (see "Known gaps" in the server report / README).
 *
 * Attributes: change = ctime in nanoseconds (ctime_sec * 1e9 + ctime_nsec).
 * Every change to data or metadata bumps ctime, so this works as a change
 * counter, with the caveat that two changes within one ctime tick (the
 * kernel's coarse clock, a few ms) are not distinguished.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "export.h"
#include "log.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID		0x00001000U
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT	0x00002000
#endif

/* A struct file_handle with room for the largest handle the kernel makes. */
union orfs_khandle {
	struct file_handle	h;
	char			buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

static int sys_openat2(int dirfd, const char *path, struct open_how *how)
{
	return (int)syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
}

/**
 * orfs_proc_fd_path() - "/proc/self/fd/N", the magic link to descriptor N
 * @fd: the descriptor (O_PATH included)
 * @buf: ORFS_PROC_FD_LEN bytes, filled with the path
 *
 * A call that follows this link (open, chmod, getxattr ...) reaches exactly
 * the object @fd holds, a symbolic link itself included, and never resolves
 * a path again.  A call that does not follow it (lstat, lgetxattr ...) acts
 * on the /proc link instead.
 */
void orfs_proc_fd_path(int fd, char *buf)
{
	snprintf(buf, ORFS_PROC_FD_LEN, "/proc/self/fd/%d", fd);
}

int orfs_export_stat(int fd, struct stat *st)
{
	if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/**
 * mountinfo_root_is_slash() - is mount @mnt_id's root the filesystem root?
 * @mnt_id: a mount id from statx(STATX_MNT_ID)
 *
 * Reads /proc/self/mountinfo, whose 4th field is the path of the mount's
 * root within its filesystem ("/" unless it is a bind mount of a
 * subdirectory or a btrfs subvolume).
 */
static bool mountinfo_root_is_slash(uint64_t mnt_id)
{
	char line[4096], root[4096];
	unsigned long long id;
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %*u %*s %4095s", &id, root) != 2)
			continue;
		if (id == mnt_id) {
			found = !strcmp(root, "/");
			break;
		}
	}
	fclose(f);
	return found;
}

/* Is @fd the root of a mount that shows its whole filesystem? */
static bool export_is_whole_fs(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0)
		return false;
	if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return false;
	return mountinfo_root_is_slash(stx.stx_mnt_id);
}

/**
 * orfs_export_open() - open and check an export directory
 * @exp: filled on success
 * @path: the directory
 *
 * Logs a message naming the problem on failure: a missing or non-directory
 * path, a filesystem without file handles, a kernel without openat2().
 *
 * Return: 0 or a negative errno.
 */
int orfs_export_open(struct orfs_export *exp, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH,
	};
	union orfs_khandle kh;
	struct stat st;
	int mnt_id, fd, probe, err;

	memset(exp, 0, sizeof(*exp));
	exp->fd = -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		log_err("export directory %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		log_err("export directory %s: %s", path, strerror(-err));
		goto out_close;
	}
	kh.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &kh.h, &mnt_id, AT_EMPTY_PATH) < 0) {
		err = -errno;
		log_err("export directory %s: cannot make file handles: %s%s",
			path, strerror(-err),
			err == -EPERM ? " (orfsd must run as root)" : "");
		goto out_close;
	}
	if (kh.h.handle_bytes > ORFS_FH_DATA) {
		err = -EOVERFLOW;
		log_err("export directory %s: file handles of %u bytes exceed the protocol's %u",
			path, kh.h.handle_bytes, ORFS_FH_DATA);
		goto out_close;
	}
	probe = sys_openat2(fd, ".", &how);
	if (probe < 0) {
		err = -errno;
		log_err("export directory %s: openat2: %s (Linux >= 5.6 needed)",
			path, strerror(-err));
		goto out_close;
	}
	close(probe);
	probe = orfs_fd_reopen(fd, &st, O_RDONLY | O_DIRECTORY);
	if (probe < 0) {
		err = probe;
		log_err("export directory %s: cannot reopen it through /proc/self/fd: %s (is /proc mounted?)",
			path, strerror(-err));
		goto out_close;
	}
	close(probe);

	exp->path = strdup(path);
	if (!exp->path) {
		err = -ENOMEM;
		log_err("out of memory");
		goto out_close;
	}
	exp->fd = fd;
	exp->dev = st.st_dev;
	exp->ino = st.st_ino;
	exp->whole_fs = export_is_whole_fs(fd);
	log_debug("export %s: dev %u:%u ino %llu, %s", path,
		  major(st.st_dev), minor(st.st_dev),
		  (unsigned long long)st.st_ino,
		  exp->whole_fs ? "whole filesystem" : "subdirectory (walk check)");
	return 0;

out_close:
	close(fd);
	return err;
}

void orfs_export_close(struct orfs_export *exp)
{
	if (exp->fd >= 0)
		close(exp->fd);
	exp->fd = -1;
	free(exp->path);
	exp->path = NULL;
}

/**
 * orfs_fh_encode() - make the wire handle of an open object
 * @exp: the export
 * @fd: the object (any open mode, O_PATH included)
 * @st: its attributes, from orfs_export_stat(@fd)
 * @fh: filled on success; unused bytes of @fh->data are zero
 *
 * Return: 0; -EXDEV if the object is on another filesystem (a mount inside
 * the export), -EOVERFLOW if the kernel handle exceeds ORFS_FH_DATA, or the
 * errno of name_to_handle_at().
 */
int orfs_fh_encode(const struct orfs_export *exp, int fd,
		   const struct stat *st, struct orfs_fh *fh)
{
	union orfs_khandle kh;
	int mnt_id;

	if (st->st_dev != exp->dev)
		return -EXDEV;
	kh.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &kh.h, &mnt_id, AT_EMPTY_PATH) < 0)
		return -errno;
	if (kh.h.handle_bytes == 0 || kh.h.handle_bytes > ORFS_FH_DATA) {
		log_ratelimited(ORFS_LOG_WARN,
				"file handle of %u bytes does not fit the protocol",
				kh.h.handle_bytes);
		return -EOVERFLOW;
	}
	memset(fh, 0, sizeof(*fh));
	fh->len = orfs_le32(kh.h.handle_bytes);
	fh->type = orfs_le32((uint32_t)kh.h.handle_type);
	fh->ino = orfs_le64((uint64_t)st->st_ino);
	memcpy(fh->data, kh.h.f_handle, kh.h.handle_bytes);
	return 0;
}

/**
 * export_dir_confined() - does directory @fd lie inside the export?
 * @exp: the export
 * @fd: an open directory on the export's device
 * @st: its attributes
 *
 * Walks ".." until the export root is found (inside), or the filesystem
 * root, another device, an unreachable parent (the kernel refuses ".." above
 * a bind mount's root) or ORFS_EXPORT_WALK_MAX levels is met (outside).
 *
 * Return: 0 if inside, -ESTALE if not, or -ENOMEM/-EMFILE/-ENFILE.
 */
static int export_dir_confined(const struct orfs_export *exp, int fd,
			       const struct stat *st)
{
	struct stat cur = *st, up;
	int dfd = -1, nfd, depth, err = -ESTALE;

	for (depth = 0; depth < ORFS_EXPORT_WALK_MAX; depth++) {
		if (cur.st_dev == exp->dev && cur.st_ino == exp->ino) {
			err = 0;
			break;
		}
		nfd = openat(dfd < 0 ? fd : dfd, "..",
			     O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0) {
			if (errno == ENOMEM || errno == EMFILE || errno == ENFILE)
				err = -errno;
			break;
		}
		if (dfd >= 0)
			close(dfd);
		dfd = nfd;
		if (orfs_export_stat(dfd, &up) < 0 || up.st_dev != exp->dev)
			break;
		if (up.st_ino == cur.st_ino)
			break;		/* ".." of the root is the root */
		cur = up;
	}
	if (dfd >= 0)
		close(dfd);
	return err;
}

/**
 * orfs_fh_open() - decode a wire handle into an O_PATH descriptor
 * @exp: the export
 * @fh: the handle from the client
 * @st: filled with the object's attributes
 *
 * The caller reopens the result (openat(fd, ".", ...)) when it needs more
 * than O_PATH, so that a type mismatch shows up as ENOTDIR and not ESTALE.
 *
 * Return: a descriptor (caller closes), -EBADMSG for a malformed handle,
 * -ESTALE for one that does not decode or decodes outside the export, or
 * -ENOMEM/-EMFILE/-ENFILE when the server is short of resources (those are
 * not the handle's fault, so they are not reported as stale).
 */
int orfs_fh_open(const struct orfs_export *exp, const struct orfs_fh *fh,
		 struct stat *st)
{
	union orfs_khandle kh;
	uint32_t len;
	int fd, err;

	if (orfs_fh_check(fh))
		return -EBADMSG;
	len = orfs_cpu32(fh->len);
	kh.h.handle_bytes = len;
	kh.h.handle_type = (int)orfs_cpu32(fh->type);
	memcpy(kh.h.f_handle, fh->data, len);
	fd = open_by_handle_at(exp->fd, &kh.h, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOMEM || err == EMFILE || err == ENFILE)
			return -err;
		log_debug("open_by_handle_at: %s", strerror(err));
		return -ESTALE;
	}
	err = orfs_export_stat(fd, st);
	if (err)
		goto out_close;
	if (st->st_dev != exp->dev ||
	    (uint64_t)st->st_ino != orfs_cpu64(fh->ino)) {
		err = -ESTALE;
		goto out_close;
	}
	if (!exp->whole_fs && S_ISDIR(st->st_mode)) {
		err = export_dir_confined(exp, fd, st);
		if (err) {
			if (err == -ESTALE)
				log_ratelimited(ORFS_LOG_WARN,
						"refused a handle of directory ino %llu outside export %s",
						(unsigned long long)st->st_ino,
						exp->path);
			goto out_close;
		}
	}
	return fd;

out_close:
	close(fd);
	return err;
}

/**
 * orfs_export_open_path() - resolve a MOUNT path beneath the export
 * @exp: the export
 * @path: the path, not NUL-terminated, already checked for NUL bytes
 * @len: its length
 *
 * Leading slashes are ignored ("/" and "" name the export root).  The path
 * is resolved with RESOLVE_BENEATH (no escape by "..", absolute symlinks or
 * symlinks leading outside), RESOLVE_NO_MAGICLINKS and RESOLVE_NO_XDEV (no
 * other filesystem), and must name a directory.
 *
 * Return: an O_PATH descriptor, -EACCES for a path that leaves the export
 * or its filesystem, -ENAMETOOLONG, or the errno of openat2() (ENOENT,
 * ENOTDIR, ELOOP ...).
 */
int orfs_export_open_path(const struct orfs_export *exp, const char *path,
			  size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	char buf[ORFS_PATH_MAX + 1];
	int fd;

	if (len > ORFS_PATH_MAX)
		return -ENAMETOOLONG;
	while (len && *path == '/') {
		path++;
		len--;
	}
	if (len) {
		memcpy(buf, path, len);
		buf[len] = '\0';
	} else {
		strcpy(buf, ".");
	}
	fd = sys_openat2(exp->fd, buf, &how);
	if (fd < 0) {
		if (errno == EXDEV)
			return -EACCES;
		if (errno == EAGAIN)	/* racing rename: let the client retry */
			return -EAGAIN;
		return -errno;
	}
	return fd;
}

/**
 * orfs_fd_reopen() - open an object again, with a real access mode
 * @fd: the object, usually an O_PATH descriptor from orfs_fh_open()
 * @st: its attributes, from orfs_export_stat(@fd)
 * @flags: open flags (O_RDONLY, O_WRONLY, O_DIRECTORY ...); O_CLOEXEC and
 *	O_NOCTTY are added
 *
 * Reopens through /proc/self/fd/N, which names exactly the object @fd holds
 * (no path is looked up again, so nothing can be swapped in between).  Only
 * call it for regular files and directories: opening a FIFO would block and
 * opening a device has side effects.  The result is checked to be the same
 * inode.
 *
 * Return: a descriptor (caller closes), or a negative errno (the open's,
 * or -ESTALE if a different inode came back).
 */
int orfs_fd_reopen(int fd, const struct stat *st, int flags)
{
	char path[ORFS_PROC_FD_LEN];
	struct stat nst;
	int nfd, err;

	orfs_proc_fd_path(fd, path);
	nfd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	if (nfd < 0)
		return -errno;
	err = orfs_export_stat(nfd, &nst);
	if (!err && (nst.st_dev != st->st_dev || nst.st_ino != st->st_ino))
		err = -ESTALE;
	if (err) {
		close(nfd);
		return err;
	}
	return nfd;
}

/**
 * orfs_fd_chmod() - change the permission bits of the object @fd holds
 * @fd: any descriptor, O_PATH included (fchmod() refuses O_PATH)
 * @mode: the new permission bits (07777)
 *
 * Goes through /proc/self/fd/N, which never opens the object, so it is
 * safe for FIFOs, sockets and devices.  Linux cannot change the mode of a
 * symbolic link: that gives -EOPNOTSUPP.
 *
 * Return: 0 or a negative errno.
 */
int orfs_fd_chmod(int fd, mode_t mode)
{
	char path[ORFS_PROC_FD_LEN];

	orfs_proc_fd_path(fd, path);
	if (fchmodat(AT_FDCWD, path, mode, 0) < 0)
		return -errno;
	return 0;
}

uint64_t orfs_change_counter(const struct stat *st)
{
	return (uint64_t)st->st_ctim.tv_sec * 1000000000ULL +
	       (uint64_t)st->st_ctim.tv_nsec;
}

/**
 * orfs_attr_fill() - encode struct stat as struct orfs_attr
 * @a: the wire attributes
 * @st: from orfs_export_stat()
 *
 * Times before 1970 are sent as their two's complement (the client reads
 * the *_sec fields as signed).
 */
void orfs_attr_fill(struct orfs_attr *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->ino = orfs_le64((uint64_t)st->st_ino);
	a->size = orfs_le64((uint64_t)st->st_size);
	a->blocks = orfs_le64((uint64_t)st->st_blocks);
	a->change = orfs_le64(orfs_change_counter(st));
	a->atime_sec = orfs_le64((uint64_t)st->st_atim.tv_sec);
	a->mtime_sec = orfs_le64((uint64_t)st->st_mtim.tv_sec);
	a->ctime_sec = orfs_le64((uint64_t)st->st_ctim.tv_sec);
	a->atime_nsec = orfs_le32((uint32_t)st->st_atim.tv_nsec);
	a->mtime_nsec = orfs_le32((uint32_t)st->st_mtim.tv_nsec);
	a->ctime_nsec = orfs_le32((uint32_t)st->st_ctim.tv_nsec);
	a->mode = orfs_le32((uint32_t)st->st_mode);
	a->nlink = orfs_le32((uint32_t)st->st_nlink);
	a->uid = orfs_le32((uint32_t)st->st_uid);
	a->gid = orfs_le32((uint32_t)st->st_gid);
	a->rdev_major = orfs_le32(major(st->st_rdev));
	a->rdev_minor = orfs_le32(minor(st->st_rdev));
	a->blksize = orfs_le32((uint32_t)st->st_blksize);
}
