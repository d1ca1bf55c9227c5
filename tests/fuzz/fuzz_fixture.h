/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What fuzz_decode.c (the harness) and gen_corpus.c (the seed generator)
 * agree on: the scratch tree the requests run against, and how an input
 * names one of its objects.
 *
 * Real file handles carry a random generation number, so no input can
 * carry a valid one.  A handle slot of a request whose @len is
 * FUZZ_FH_MARK is therefore replaced, before the request is handled, by
 * the real handle of fixture object (@ino % FUZZ_NOBJ).  Any other handle
 * bytes reach the server untouched, so malformed and forged handles are
 * fuzzed too.  (FUZZ_FH_MARK is above ORFS_FH_DATA: such a handle is never
 * a valid one, so the substitution hides no server path.)  The objects
 * outside the export get the handles a second export made on outside/
 * issues: correctly tagged, with another export's key, so no request that
 * names one may succeed.
 *
 * The scratch tree, on a private tmpfs (paths relative to its root):
 *
 *	export/			the export (a subdirectory: the ".." walk
 *				of export.c is in play)
 *	export/file.txt		FUZZ_FILE_DATA
 *	export/sub/inner.txt
 *	export/sub/deep/
 *	export/empty/
 *	export/big/		FUZZ_BIG_N files, names of 1..255 bytes
 *	export/link-sub		-> sub
 *	export/link-out		-> /etc
 *	export/link-up		-> ../outside
 *	export/fifo		a FIFO
 *	export/sock		a socket inode (mknod)
 *	export/xattr.txt	trusted.orfs and user.orfs set
 *	outside/secret.txt	outside the export, same filesystem
 *	outside/dir/
 *	(a removed file, whose handle is stale)
 */
#ifndef ORFS_FUZZ_FIXTURE_H
#define ORFS_FUZZ_FIXTURE_H

#define FUZZ_FH_MARK		0xffffffffU

enum fuzz_obj {
	OBJ_ROOT,		/* export/ */
	OBJ_FILE,		/* export/file.txt */
	OBJ_SUB,		/* export/sub/ */
	OBJ_INNER,		/* export/sub/inner.txt */
	OBJ_DEEP,		/* export/sub/deep/ */
	OBJ_EMPTY,		/* export/empty/ */
	OBJ_BIG,		/* export/big/ */
	OBJ_LINK_SUB,		/* export/link-sub -> sub */
	OBJ_LINK_OUT,		/* export/link-out -> /etc */
	OBJ_FIFO,		/* export/fifo */
	OBJ_SOCK,		/* export/sock */
	OBJ_XATTR,		/* export/xattr.txt */
	OBJ_OUTSIDE,		/* outside/ */
	OBJ_SECRET,		/* outside/secret.txt */
	OBJ_OUTSIDE_DIR,	/* outside/dir/ */
	OBJ_STALE,		/* a removed file */
	FUZZ_NOBJ
};

#define FUZZ_FILE_DATA		"hello from the orfs fuzzer\n"
#define FUZZ_SECRET_DATA	"secret\n"
#define FUZZ_BIG_N		48
#define FUZZ_XATTR_VALUE	"fuzz-value"

/*
 * DEMOTE: DEMOTE_META and DEMOTE inputs run against a block cache of 4 KiB
 * blocks made for each of them, with versions from FUZZ_VERSION_BASE.
 * Before the input, export/file.txt was READ (its block 0 is cached:
 * CACHED, version FUZZ_VERSION_FILE) and export/sub/inner.txt READ and
 * then dropped from the cache (version FUZZ_VERSION_INNER): a demote of
 * its block 0, 6 bytes, with that version is the only one accepted.  (The
 * first READ of a file gives it a new version; the drop another one.)
 */
#define FUZZ_VERSION_BASE	1000ULL
#define FUZZ_VERSION_FILE	(FUZZ_VERSION_BASE + 1)
#define FUZZ_VERSION_INNER	(FUZZ_VERSION_BASE + 3)
#define FUZZ_INNER_DATA		"inner\n"

/*
 * The transport (fuzz_xport.c): DEMOTE_META and DEMOTE inputs, and READ
 * inputs whose xid slot (xid & 0xffff) is FUZZ_CACHE_SLOT, run with the
 * block cache of DEMOTE inputs on a connection whose transport shows cache
 * blocks through memory windows (FUZZ_WIN_PER_SET per staging buffer),
 * gathers inline READs from them, RDMA-writes REMOTE READs from them and
 * sends bare replies; the reply checked is the one the client would get.
 * Cache blocks are registered one by one when the xid's bit 16 is set (as
 * orfsd does on soft-RoCE), else together.  A DEMOTE with ORFS_IO_WINDOW
 * follows a DEMOTE_META of export/sub/inner.txt's block 0 on the same
 * staging buffer, whose window the harness fills with FUZZ_INNER_DATA, as
 * a client would.
 */
#define FUZZ_CACHE_SLOT		0xc4U
#define FUZZ_WIN_PER_SET	3U

/* The negotiated inline threshold the harness uses (ORFS_FUZZ_INLINE overrides). */
#define FUZZ_INLINE_DEFAULT	4096U
#define FUZZ_CLIENT_ID		0x0f0f0f0f12345678ULL

/*
 * The shared-secret handshake (server/auth.c).  A request whose xid slot
 * (xid & 0xffff) is FUZZ_AUTH_SLOT runs on a connection that has not yet
 * authenticated: secret FUZZ_AUTH_KEY, client nonce FUZZ_AUTH_NC bytes,
 * server nonce FUZZ_AUTH_NS bytes, client id FUZZ_CLIENT_ID.  Only an AUTH
 * carrying FUZZ_AUTH_PROOF (their client proof, computed with Python's
 * hmac) may succeed there, and its reply must carry FUZZ_AUTH_SERVER_PROOF;
 * everything else must get EACCES (or the header errors) and execute
 * nothing.
 */
#define FUZZ_AUTH_SLOT		0xa7U
#define FUZZ_AUTH_KEY		"orfs fuzz shared secret 0123456789"
#define FUZZ_AUTH_NC		0x11
#define FUZZ_AUTH_NS		0x22
#define FUZZ_AUTH_PROOF		"\x83\x05\x7b\xde\x5a\xf6\x1f\x66\x95\x68\x40\x95" \
				"\x3f\x21\x69\x42\x55\x30\xda\x04\xa9\x50\x32\x9a" \
				"\xcc\xb2\x15\x46\x42\x5d\xb5\xc6"
/* The server's proof the right AUTH's reply must carry. */
#define FUZZ_AUTH_SERVER_PROOF	"\xe3\x07\xc2\x79\x51\xa9\xdd\x53\x0c\x53\x4e\xf6" \
				"\x85\xda\x7a\x84\x80\xf8\xb1\xba\xdb\x5c\x5b\xd4" \
				"\x26\x5e\x6c\xdf\x82\xcb\xa2\x0e"

#endif /* ORFS_FUZZ_FIXTURE_H */
