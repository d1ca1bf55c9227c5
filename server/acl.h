/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd client allow-list: which peer addresses may connect; and the key
 * that identifies a peer's address (orfs_addr_key()).
 */
#ifndef ORFSD_ACL_H
#define ORFSD_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The length of an address key (orfs_addr_key()). */
#define ORFS_ADDR_KEY_LEN	16

/* Longest "ADDR/PREFIX" orfs_acl_format_entry() writes, with the NUL. */
#define ORFS_ACL_ENTRY_STRLEN	(46 + 4 + 1)

/**
 * struct orfs_acl_entry - one allowed network
 * @addr: the network, IPv6; an IPv4 entry is stored IPv4-mapped
 *	(::ffff:a.b.c.d), host bits beyond @prefix cleared
 * @prefix: prefix length over @addr (an IPv4 /N is stored as 96 + N)
 * @v4: the entry was written as IPv4 (for printing it back)
 */
struct orfs_acl_entry {
	uint8_t		addr[16];
	uint8_t		prefix;
	bool		v4;
};

/**
 * struct orfs_acl - the allow-list; empty allows every address
 * @entries: array of @n entries
 * @n: number of entries
 * @cap: allocated entries
 *
 * Built at startup and read-only afterwards, so it needs no lock.
 */
struct orfs_acl {
	struct orfs_acl_entry	*entries;
	size_t			n;
	size_t			cap;
};

int orfs_acl_parse_entry(const char *s, struct orfs_acl_entry *e);
int orfs_acl_add(struct orfs_acl *acl, const char *s);
int orfs_acl_add_list(struct orfs_acl *acl, const char *list,
		      char *bad, size_t bad_len);
void orfs_acl_clear(struct orfs_acl *acl);
bool orfs_addr_key(const struct sockaddr *sa, uint8_t key[ORFS_ADDR_KEY_LEN]);
bool orfs_acl_allows(const struct orfs_acl *acl, const struct sockaddr *sa);
void orfs_acl_format_entry(const struct orfs_acl_entry *e, char *buf,
			   size_t len);

#endif /* ORFSD_ACL_H */
