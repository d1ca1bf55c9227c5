// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd export layer.
 *
 * File handles are the kernel's own (name_to_handle_at()), so they survive a
 * server restart and need no table.  Decoding one (open_by_handle_at())
 * needs CAP_DAC_READ_SEARCH and can name any inode of the export's
 * filesystem, so every decoded handle is confined:
 *
 *  - the handle must be one orfsd issued for this export: after the
 *    kernel's bytes it carries a SipHash-2-4 tag of the handle's type,
 *    inode number and bytes, keyed by the export's secret key (see "File
 *    handle key" below).  orfsd only issues handles of objects it reached
 *    inside the export (MOUNT beneath the root, LOOKUP and the creations
 *    in a confined directory, never following a final symlink), so a
 *    client cannot name a file outside a subdirectory export by forging
 *    the kernel handle of it, nor use the handles of another export;
 *  - the object must be on the export's device (st_dev), and its inode
 *    number must match the one in the handle;
 *  - when the export is not the root of its filesystem, a directory must
 *    reach the export root by walking "..", in case it was moved out of
 *    the export after its handle was issued.  A non-directory has no
 *    unique parent: a file moved (or hard-linked) out of the export by a
 *    local user stays reachable through a handle issued before, as with
 *    NFS's no_subtree_check.
 *
 * File handle key: ORFS_FH_KEY_LEN random bytes, made at the first start
 * and kept in the extended attribute ORFS_FH_KEY_XATTR ("trusted.",
 * readable by CAP_SYS_ADMIN only) of the export root, so that handles
 * survive restarts and a copy or move of the tree keeps them valid; or in
 * a key file (--fh-key-file) for filesystems without trusted.* attributes.
 * Requests can neither read nor change it: attributes under
 * ORFS_XATTR_PRIVATE never cross the wire (ops_xattr.c).  A lost or new key
 * makes every handle clients hold stale (ESTALE), as a new filesystem does.
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
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "export.h"
#include "log.h"
#include "siphash.h"

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

/*
 * The client whose request the current thread handles, for the messages
 * about refused handles (orfs_fh_set_peer()).  One thread runs requests.
 */
static __thread const char *fh_peer;

/**
 * orfs_fh_set_peer() - name the client of the requests that follow
 * @peer: its address as text, or NULL; must outlive the requests
 *
 * Called by the request layer before each request, so that a refused
 * handle is logged with the client that sent it.  Per thread.
 */
void orfs_fh_set_peer(const char *peer)
{
	fh_peer = peer;
}

/**
 * orfs_xattr_private() - is @name one of orfsd's own extended attributes?
 * @name: an attribute name (need not be NUL-terminated)
 * @len: its length
 *
 * Those (ORFS_XATTR_PRIVATE..., the file handle key above all) are never
 * read, listed, set or removed on a client's behalf.
 */
bool orfs_xattr_private(const char *name, size_t len)
{
	size_t n = sizeof(ORFS_XATTR_PRIVATE) - 1;

	return len >= n && !memcmp(name, ORFS_XATTR_PRIVATE, n);
}

/* ---- the file handle key ---- */

/*
 * The key from the export root's ORFS_FH_KEY_XATTR; a new random one is
 * stored there if it has none.  Return 0, or a negative errno after
 * logging why (with the way out: --fh-key-file).
 */
static int fh_key_xattr(struct orfs_export *exp, const char *path)
{
	uint8_t key[ORFS_FH_KEY_LEN + 1];
	int tries;
	ssize_t n;

	for (tries = 0; tries < 2; tries++) {
		n = fgetxattr(exp->fd, ORFS_FH_KEY_XATTR, key, sizeof(key));
		if (n == ORFS_FH_KEY_LEN) {
			memcpy(exp->fh_key, key, ORFS_FH_KEY_LEN);
			return 0;
		}
		if (n >= 0 || errno == ERANGE) {
			log_err("export directory %s: %s is not a key of %u bytes; remove it (setfattr -x %s %s) to make a new one, which makes every file handle clients hold stale",
				path, ORFS_FH_KEY_XATTR, ORFS_FH_KEY_LEN,
				ORFS_FH_KEY_XATTR, path);
			return -EINVAL;
		}
		if (errno != ENODATA)
			break;
		if (getrandom(key, ORFS_FH_KEY_LEN, 0) != ORFS_FH_KEY_LEN)
			break;
		if (!fsetxattr(exp->fd, ORFS_FH_KEY_XATTR, key, ORFS_FH_KEY_LEN,
			       XATTR_CREATE)) {
			memcpy(exp->fh_key, key, ORFS_FH_KEY_LEN);
			log_info("export directory %s: new file handle key stored in %s",
				 path, ORFS_FH_KEY_XATTR);
			return 0;
		}
		if (errno != EEXIST)	/* else another orfsd made one: read it */
			break;
	}
	n = -errno;
	log_err("export directory %s: cannot keep the file handle key in its extended attribute %s: %s (the filesystem needs trusted.* attributes, and orfsd CAP_SYS_ADMIN); give a key file with --fh-key-file FILE",
		path, ORFS_FH_KEY_XATTR, strerror((int)-n));
	return n ? (int)n : -EIO;
}

/* The value of hex digit @c, or -1. */
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parse a key file's text: 2 * ORFS_FH_KEY_LEN hex digits, then nothing
 * but white space.  Return 0 or -EINVAL.
 */
static int fh_key_parse(const char *text, size_t len, uint8_t *key)
{
	size_t i;
	int hi, lo;

	if (len < 2 * ORFS_FH_KEY_LEN)
		return -EINVAL;
	for (i = 0; i < ORFS_FH_KEY_LEN; i++) {
		hi = hexval((unsigned char)text[2 * i]);
		lo = hexval((unsigned char)text[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	for (i = 2 * ORFS_FH_KEY_LEN; i < len; i++)
		if (!strchr(" \t\r\n", text[i]))
			return -EINVAL;
	return 0;
}

/* Make key file @file (it does not exist): a random key, mode 0600. */
static int fh_key_file_create(struct orfs_export *exp, const char *file)
{
	char text[2 * ORFS_FH_KEY_LEN + 2];
	uint8_t key[ORFS_FH_KEY_LEN];
	int fd, err = 0;
	size_t i;

	if (getrandom(key, sizeof(key), 0) != sizeof(key))
		return -errno;
	for (i = 0; i < ORFS_FH_KEY_LEN; i++)
		snprintf(text + 2 * i, 3, "%02x", key[i]);
	text[2 * ORFS_FH_KEY_LEN] = '\n';
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, 2 * ORFS_FH_KEY_LEN + 1) != 2 * ORFS_FH_KEY_LEN + 1 ||
	    fsync(fd) < 0)
		err = errno ? -errno : -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err) {
		unlink(file);
		return err;
	}
	memcpy(exp->fh_key, key, sizeof(key));
	log_info("file handle key file %s created", file);
	return 0;
}

/*
 * The key from @file, made if it does not exist.  The file must be a
 * regular file of orfsd's user that nobody else may read or write.
 * Return 0 or a negative errno after logging why.
 */
static int fh_key_file(struct orfs_export *exp, const char *file)
{
	char text[128];
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		err = fh_key_file_create(exp, file);
		if (err != -EEXIST) {
			if (err)
				log_err("file handle key file %s: cannot create it: %s",
					file, strerror(-err));
			return err;
		}
		fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		err = -errno;
		log_err("file handle key file %s: %s", file, strerror(-err));
		return err;
	}
	err = -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		log_err("file handle key file %s: not a regular file", file);
	} else if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		log_err("file handle key file %s: must belong to orfsd's user and be readable by it alone (chmod 600)",
			file);
	} else {
		n = read(fd, text, sizeof(text));
		if (n < 0 || fh_key_parse(text, (size_t)n, exp->fh_key))
			log_err("file handle key file %s: not %u hex digits", file,
				2 * ORFS_FH_KEY_LEN);
		else
			err = 0;
	}
	close(fd);
	return err;
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
 * orfs_export_open_key() with the file handle key in the export root's
 * extended attribute.
 *
 * Return: 0 or a negative errno.
 */
int orfs_export_open(struct orfs_export *exp, const char *path)
{
	return orfs_export_open_key(exp, path, NULL);
}

/**
 * orfs_export_open_key() - open and check an export directory, get its key
 * @exp: filled on success
 * @path: the directory
 * @key_file: the file handle key file (--fh-key-file), made with a new
 *	key if it does not exist; NULL: the key is the export root's
 *	ORFS_FH_KEY_XATTR, made at the first start
 *
 * Logs a message naming the problem on failure: a missing or non-directory
 * path, a filesystem without file handles or with handles too large, a
 * kernel without openat2(), a key that cannot be read or kept.
 *
 * Return: 0 or a negative errno.
 */
int orfs_export_open_key(struct orfs_export *exp, const char *path,
			 const char *key_file)
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
	if (kh.h.handle_bytes > ORFS_FH_DATA - ORFS_FH_MAC_LEN) {
		err = -EOVERFLOW;
		log_err("export directory %s: file handles of %u bytes exceed the protocol's %u (%u with orfsd's tag)",
			path, kh.h.handle_bytes, ORFS_FH_DATA - ORFS_FH_MAC_LEN,
			ORFS_FH_DATA);
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

	exp->fd = fd;
	err = key_file ? fh_key_file(exp, key_file) : fh_key_xattr(exp, path);
	if (err) {
		exp->fd = -1;
		goto out_close;
	}
	exp->path = strdup(path);
	if (!exp->path) {
		err = -ENOMEM;
		log_err("out of memory");
		exp->fd = -1;
		goto out_close;
	}
	exp->dev = st.st_dev;
	exp->ino = st.st_ino;
	exp->whole_fs = export_is_whole_fs(fd);
	log_debug("export %s: dev %u:%u ino %llu, %s", path,
		  major(st.st_dev), minor(st.st_dev),
		  (unsigned long long)st.st_ino,
		  exp->whole_fs ? "whole filesystem" : "subdirectory (walk check)");
	return 0;

out_close:
	explicit_bzero(exp->fh_key, sizeof(exp->fh_key));
	close(fd);
	return err;
}

void orfs_export_close(struct orfs_export *exp)
{
	if (exp->fd >= 0)
		close(exp->fd);
	exp->fd = -1;
	explicit_bzero(exp->fh_key, sizeof(exp->fh_key));
	free(exp->path);
	exp->path = NULL;
}

/*
 * The tag of a handle: SipHash-2-4, keyed with the export's key, of its
 * kernel bytes' length, type, inode number and the bytes themselves.
 */
static uint64_t fh_tag(const struct orfs_export *exp, uint32_t kh_len,
		       uint32_t type, uint64_t ino, const uint8_t *kh)
{
	uint8_t msg[16 + ORFS_FH_DATA];
	uint32_t i;

	for (i = 0; i < 4; i++) {
		msg[i] = (uint8_t)(kh_len >> (8 * i));
		msg[4 + i] = (uint8_t)(type >> (8 * i));
	}
	for (i = 0; i < 8; i++)
		msg[8 + i] = (uint8_t)(ino >> (8 * i));
	memcpy(msg + 16, kh, kh_len);
	return orfs_siphash24(exp->fh_key, msg, 16 + kh_len);
}

/*
 * Is @fh a handle this export issued?  Its tag must match, and the bytes
 * after the tag must be zero (so that one object has one handle, which the
 * client compares bytewise).  The caller checked @fh with orfs_fh_check().
 */
static bool fh_authentic(const struct orfs_export *exp,
			 const struct orfs_fh *fh)
{
	uint32_t len = orfs_cpu32(fh->len), kh_len, i;
	uint8_t diff = 0;
	uint64_t tag;

	if (len <= ORFS_FH_MAC_LEN)
		return false;
	kh_len = len - ORFS_FH_MAC_LEN;
	tag = fh_tag(exp, kh_len, orfs_cpu32(fh->type), orfs_cpu64(fh->ino),
		     fh->data);
	for (i = 0; i < ORFS_FH_MAC_LEN; i++)	/* in constant time */
		diff |= fh->data[kh_len + i] ^ (uint8_t)(tag >> (8 * i));
	for (i = len; i < ORFS_FH_DATA; i++)
		diff |= fh->data[i];
	return !diff;
}

/**
 * orfs_fh_encode() - make the wire handle of an open object
 * @exp: the export
 * @fd: the object (any open mode, O_PATH included)
 * @st: its attributes, from orfs_export_stat(@fd)
 * @fh: filled on success: the kernel's handle bytes, then their tag
 *	(ORFS_FH_MAC_LEN bytes); unused bytes of @fh->data are zero
 *
 * The handle is valid for this export only, and only until its key
 * changes.  Call it only for objects reached inside the export: the tag
 * vouches for the object, not for how it was found.
 *
 * Return: 0; -EXDEV if the object is on another filesystem (a mount inside
 * the export), -EOVERFLOW if the kernel handle and the tag exceed
 * ORFS_FH_DATA, or the errno of name_to_handle_at().
 */
int orfs_fh_encode(const struct orfs_export *exp, int fd,
		   const struct stat *st, struct orfs_fh *fh)
{
	union orfs_khandle kh;
	uint64_t tag;
	uint32_t i;
	int mnt_id;

	if (st->st_dev != exp->dev)
		return -EXDEV;
	kh.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &kh.h, &mnt_id, AT_EMPTY_PATH) < 0)
		return -errno;
	if (kh.h.handle_bytes == 0 ||
	    kh.h.handle_bytes > ORFS_FH_DATA - ORFS_FH_MAC_LEN) {
		log_ratelimited(ORFS_LOG_WARN,
				"file handle of %u bytes does not fit the protocol",
				kh.h.handle_bytes);
		return -EOVERFLOW;
	}
	memset(fh, 0, sizeof(*fh));
	fh->len = orfs_le32(kh.h.handle_bytes + ORFS_FH_MAC_LEN);
	fh->type = orfs_le32((uint32_t)kh.h.handle_type);
	fh->ino = orfs_le64((uint64_t)st->st_ino);
	memcpy(fh->data, kh.h.f_handle, kh.h.handle_bytes);
	tag = fh_tag(exp, kh.h.handle_bytes, (uint32_t)kh.h.handle_type,
		     (uint64_t)st->st_ino, fh->data);
	for (i = 0; i < ORFS_FH_MAC_LEN; i++)
		fh->data[kh.h.handle_bytes + i] = (uint8_t)(tag >> (8 * i));
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
 * The handle's tag is checked first: a handle this export did not issue
 * (forged, another export's, or made with a key since lost) is refused
 * before the kernel decodes anything, and logged (rate-limited) with the
 * client that sent it (orfs_fh_set_peer()).
 *
 * Return: a descriptor (caller closes), -EBADMSG for a malformed handle,
 * -ESTALE for one the export did not issue, that does not decode, that
 * decodes outside the export or to a regular file with no link left, or -ENOMEM/-EMFILE/-ENFILE when the server
 * is short of resources (those are not the handle's fault, so they are not
 * reported as stale).
 */
int orfs_fh_open(const struct orfs_export *exp, const struct orfs_fh *fh,
		 struct stat *st)
{
	union orfs_khandle kh;
	uint32_t len;
	int fd, err;

	if (orfs_fh_check(fh))
		return -EBADMSG;
	if (!fh_authentic(exp, fh)) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: refused a file handle export %s did not issue (ino %llu): forged, another export's, or made with an older key",
				fh_peer ? fh_peer : "(local)", exp->path,
				(unsigned long long)orfs_cpu64(fh->ino));
		return -ESTALE;
	}
	len = orfs_cpu32(fh->len) - ORFS_FH_MAC_LEN;
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
	/*
	 * A deleted file still decodes while anything holds it open (a local
	 * process, or a descriptor of the open-file cache that a local
	 * deletion has not released yet): it is stale all the same.
	 */
	if (S_ISREG(st->st_mode) && !st->st_nlink) {
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
