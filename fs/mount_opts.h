/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS mount options: one list of every option orfs_parse_param() takes
 * (fs/super.c), with its bounds, unit, default and a help line, and the
 * named limits and defaults the list uses.
 *
 * fs/super.c makes the fs_parameter_spec table, the bounds of its generic
 * handler and the defaults of a new mount from the ORFS_MOUNT_OPT() list
 * below, so that they cannot disagree.  tools/mount-options.c, a host
 * program, makes the admin guide's list of mount options from the same list
 * (make docs).  So this header holds no kernel type and includes only the
 * protocol header, which userspace compiles too.
 */
#ifndef ORFS_MOUNT_OPTS_H
#define ORFS_MOUNT_OPTS_H

#include "orfs_proto.h"

/* Defaults and bounds, in the units of the mount options. */
#define ORFS_DEF_TIMEO		600	/* deciseconds per request, like NFS */
#define ORFS_TIMEO_MAX		36000	/* an hour */
/* Attribute cache bounds, seconds, as NFS's defaults. */
#define ORFS_DEF_ACREGMIN	3
#define ORFS_DEF_ACREGMAX	60
#define ORFS_DEF_ACDIRMIN	30
#define ORFS_DEF_ACDIRMAX	60
#define ORFS_AC_MAX		3600
#define ORFS_DEF_IOSIZE		(1024 * 1024)	/* rsize, wsize */
#define ORFS_IOSIZE_MIN		4096
#define ORFS_IOSIZE_MAX		(4 * 1024 * 1024)
#define ORFS_DEF_RETRANS	3
#define ORFS_RETRANS_MAX	100
#define ORFS_DEF_KEEPALIVE	10	/* seconds */
#define ORFS_KEEPALIVE_MAX	3600	/* an hour */
#define ORFS_RC_DEFAULT_ENTRIES	64	/* regcache_entries */
#define ORFS_RC_DEFAULT_BATCH	16	/* regcache_batch */
#define ORFS_RC_ENTRIES_MAX	4096
#define ORFS_RC_PAGES_MAX	0xffffffffU	/* regcache_pages: a u32's */
#define ORFS_SA_DEFAULT		16384	/* statahead=: entries per pass */
#define ORFS_SA_MAX		1000000

/*
 * Limits net/ owns too (array sizes, chain lengths, the spin budget), under
 * names of their own so that a host program can read them; fs/super.c
 * asserts that both agree.
 */
#define ORFS_MNT_NCONNECT_MAX		16	/* ORFS_NCONNECT_MAX */
#define ORFS_MNT_NCONNECT_DEFAULT	2	/* ORFS_NCONNECT_DEFAULT */
#define ORFS_MNT_RC_BATCH_MAX		32	/* ORFS_RC_BATCH_MAX */
#define ORFS_MNT_RC_PAGES_DEFAULT	32768	/* ORFS_RC_DEFAULT_MAX_PAGES */
#define ORFS_MNT_BUSY_POLL_MAX_US	1000	/* ORFS_BUSY_POLL_MAX_US */

/* The def of an option that has no default of its own (actimeo). */
#define ORFS_MO_NODEF		0xffffffffU

#endif /* ORFS_MOUNT_OPTS_H */

/*
 * The lists.  Like include/linux/cgroup_subsys.h, this part has no guard: a
 * user defines ORFS_REGCACHE_MODE() or ORFS_MOUNT_OPT(), includes this
 * header, and undefines it, once for each table it makes.
 */

/*
 * regcache=: ORFS_REGCACHE_MODE(name, value), value an enum orfs_rc_mode
 * (net/regcache_tree.h; the host program uses only the names).
 */
#ifdef ORFS_REGCACHE_MODE
ORFS_REGCACHE_MODE(dynamic, ORFS_RC_DYNAMIC)
ORFS_REGCACHE_MODE(pindown, ORFS_RC_PINDOWN)
ORFS_REGCACHE_MODE(fmrd, ORFS_RC_FMRD)
#endif

/*
 * Every mount option but the source, in the order the admin guide lists
 * them: ORFS_MOUNT_OPT(name, kind, field, arg, min, max, unit, def, help).
 *
 * name:  the option, as a C token
 * kind:  U32      a number, fsparam_u32: the generic handler checks it is in
 *                 [min, max] ("%s=%u: must be min..max unit", or "must be
 *                 at least min" if max is ORFS_RC_PAGES_MAX) and stores it
 *        FLAG_NO  name and noname, fsparam_flag_no: the generic handler
 *                 stores a bool
 *        FLAG     name alone, fsparam_flag
 *        STRING   fsparam_string
 *        ENUM     fsparam_enum, its values in the ORFS_REGCACHE_MODE() list
 *        orfs_parse_param() handles some options of kind U32 (actimeo, rsize,
 *        wsize) and those of the other kinds itself.
 * field: the member of struct orfs_mount_opts the option sets
 * arg:   what the admin guide calls the value ("N", "BYTES", "S"), or ""
 * min, max: the bounds of a number (for STRING the bounds of its special
 *        handler, shown in the admin guide only)
 * unit:  the unit of a number: "bytes", "seconds", ...; "" for a count
 * def:   U32 and FLAG_NO: the field's default, which a new mount gets
 *        (ORFS_MO_NODEF: none); the other kinds: the default as the admin
 *        guide writes it, which orfs_init_fs_context() sets itself
 * help:  one line on what it does (the admin guide's list)
 */
#ifdef ORFS_MOUNT_OPT
ORFS_MOUNT_OPT(port, U32, port, "N", 1, ORFS_PORT_MAX, "", ORFS_DEFAULT_PORT,
	       "server port")
ORFS_MOUNT_OPT(inline, U32, inline_size, "BYTES", ORFS_INLINE_MIN,
	       ORFS_INLINE_MAX, "bytes", ORFS_INLINE_DEFAULT,
	       "inline threshold to ask for: data up to this size travels inside the request or reply; the server may grant less")
ORFS_MOUNT_OPT(credits, U32, credits, "N", 1, ORFS_CREDITS_MAX, "",
	       ORFS_CREDITS_DEFAULT,
	       "request slots (requests in flight) per connection to ask for; the server may grant fewer")
ORFS_MOUNT_OPT(nconnect, U32, nconnect, "N", 1, ORFS_MNT_NCONNECT_MAX, "",
	       ORFS_MNT_NCONNECT_DEFAULT,
	       "connections per mount; by default at most one per online CPU")
ORFS_MOUNT_OPT(rsize, U32, rsize, "BYTES", ORFS_IOSIZE_MIN, ORFS_IOSIZE_MAX,
	       "bytes", ORFS_DEF_IOSIZE,
	       "most bytes per read request, a multiple of the page size; also the readahead window")
ORFS_MOUNT_OPT(wsize, U32, wsize, "BYTES", ORFS_IOSIZE_MIN, ORFS_IOSIZE_MAX,
	       "bytes", ORFS_DEF_IOSIZE,
	       "most bytes per write request, a multiple of the page size")
ORFS_MOUNT_OPT(timeo, U32, timeo, "DS", 1, ORFS_TIMEO_MAX, "deciseconds",
	       ORFS_DEF_TIMEO,
	       "per-request timeout: a request with no reply in time is sent again on a new connection")
ORFS_MOUNT_OPT(retrans, U32, retrans, "N", 1, ORFS_RETRANS_MAX, "",
	       ORFS_DEF_RETRANS,
	       "with soft: how many timeo periods pass before a request fails with EIO")
ORFS_MOUNT_OPT(soft, FLAG, soft, "", 0, 0, "", "no",
	       "a request fails with EIO after timeo times retrans, which can lose data that applications believed written")
ORFS_MOUNT_OPT(hard, FLAG, soft, "", 0, 0, "", "yes",
	       "retry until the server answers; only a fatal signal ends the wait")
ORFS_MOUNT_OPT(keepalive, U32, keepalive, "S", 0, ORFS_KEEPALIVE_MAX, "seconds",
	       ORFS_DEF_KEEPALIVE,
	       "probe an idle connection with a NULL request every S seconds; 0 disables")
ORFS_MOUNT_OPT(busy_poll, STRING, busy_poll, "auto|US", 0,
	       ORFS_MNT_BUSY_POLL_MAX_US, "microseconds", "auto",
	       "how a process waits for a reply: auto spins for small requests as long as their replies usually take; US spins up to US microseconds for every reply; 0 never spins")
ORFS_MOUNT_OPT(acregmin, U32, acregmin, "S", 0, ORFS_AC_MAX, "seconds",
	       ORFS_DEF_ACREGMIN,
	       "shortest time a file's attributes are trusted; the timeout doubles up to acregmax while the file does not change")
ORFS_MOUNT_OPT(acregmax, U32, acregmax, "S", 0, ORFS_AC_MAX, "seconds",
	       ORFS_DEF_ACREGMAX,
	       "longest time a file's attributes are trusted")
ORFS_MOUNT_OPT(acdirmin, U32, acdirmin, "S", 0, ORFS_AC_MAX, "seconds",
	       ORFS_DEF_ACDIRMIN,
	       "acregmin for directories, their entries and negative entries")
ORFS_MOUNT_OPT(acdirmax, U32, acdirmax, "S", 0, ORFS_AC_MAX, "seconds",
	       ORFS_DEF_ACDIRMAX,
	       "acregmax for directories, their entries and negative entries")
ORFS_MOUNT_OPT(actimeo, U32, acregmin, "S", 0, ORFS_AC_MAX, "seconds",
	       ORFS_MO_NODEF,
	       "sets all four ac* options; 0 asks the server on every stat and lookup")
ORFS_MOUNT_OPT(cto, FLAG_NO, cto, "", 0, 0, "", 1,
	       "close-to-open consistency: every open asks the server for fresh attributes")
ORFS_MOUNT_OPT(secret, STRING, secret, "HEX", ORFS_SECRET_MIN, ORFS_SECRET_MAX,
	       "bytes", "none",
	       "the shared secret, in hex digits; never shown in /proc/mounts or logged")
ORFS_MOUNT_OPT(resvport, FLAG_NO, resvport, "", 0, 0, "", 1,
	       "connect from a privileged source port (below 1024), as orfsd requires unless it is --insecure; noresvport: from any port")
ORFS_MOUNT_OPT(trusted_fabric, FLAG_NO, trusted_fabric, "", 0, 0, "", 0,
	       "buffered I/O lets the server move page-cache pages itself with the global rkey: the server can then read and write all of this host's memory")
ORFS_MOUNT_OPT(writebehind, FLAG_NO, writebehind, "", 0, 0, "", 1,
	       "a buffered write that ends a wsize chunk of the file starts writing the chunks it touched back at once")
ORFS_MOUNT_OPT(openread, FLAG_NO, openread, "", 0, 0, "", 1,
	       "with cto, opening a small file for reading brings its data and attributes in one READ")
ORFS_MOUNT_OPT(bareread, FLAG_NO, bareread, "", 0, 0, "", 1,
	       "an inline READ that gets all its bytes comes back as its data alone, without header")
ORFS_MOUNT_OPT(rdirplus, FLAG_NO, rdirplus, "", 0, 0, "", 1,
	       "directory listings also bring each entry's handle and attributes")
ORFS_MOUNT_OPT(statahead, U32, statahead, "N", 0, ORFS_SA_MAX, "",
	       ORFS_SA_DEFAULT,
	       "most entries a statahead pass over a directory brings into the caches; 0 turns statahead off")
ORFS_MOUNT_OPT(regcache, ENUM, rc_mode, "MODE", 0, 0, "", "fmrd",
	       "how O_DIRECT buffers are registered")
ORFS_MOUNT_OPT(regcache_entries, U32, rc_entries, "N", 1, ORFS_RC_ENTRIES_MAX,
	       "", ORFS_RC_DEFAULT_ENTRIES,
	       "registrations kept per process and connection")
ORFS_MOUNT_OPT(regcache_pages, U32, rc_pages, "N", 1, ORFS_RC_PAGES_MAX,
	       "pages", ORFS_MNT_RC_PAGES_DEFAULT,
	       "pages the cached registrations of one process may keep pinned")
ORFS_MOUNT_OPT(regcache_batch, U32, rc_batch, "N", 1, ORFS_MNT_RC_BATCH_MAX, "",
	       ORFS_RC_DEFAULT_BATCH,
	       "fmrd: retired registrations that make a deregistration batch")
ORFS_MOUNT_OPT(addr, STRING, addr, "IP", 0, 0, "", "the source's",
	       "shown in /proc/mounts, so that mount(8) hands it back on remount; the address always comes from the source")
#endif
