// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd client allow-list (--allow ADDR[/PREFIX], "allow =" in the config
 * file).  IPv4 and IPv6; every address is compared in IPv6 form, an IPv4
 * one IPv4-mapped, so an IPv4 entry also matches a client that reaches an
 * IPv6 listener with a v4-mapped address (::ffff:192.0.2.1).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "util.h"

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

/* Clear the bits of @addr past the first @prefix. */
static void mask_addr(uint8_t addr[16], unsigned int prefix)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		if (prefix >= 8) {
			prefix -= 8;
			continue;
		}
		addr[i] &= (uint8_t)(0xff00U >> prefix);
		prefix = 0;
	}
}

/* A prefix length "0".."max": at most three digits, nothing else. */
static int parse_prefix(const char *s, unsigned long max, unsigned int *out)
{
	unsigned long v;

	if (strlen(s) > 3 || orfs_parse_dec(s, 0, max, &v))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/**
 * orfs_acl_parse_entry() - parse one "ADDR[/PREFIX]"
 * @s: a numeric IPv4 or IPv6 address, optionally with a prefix length
 *	(0..32 for IPv4, 0..128 for IPv6; default: the whole address)
 * @e: filled in; host bits beyond the prefix are cleared
 *
 * Host names, scope ids (fe80::1%eth0), empty strings, leading zeros in
 * the prefix beyond three digits and stray characters are refused.
 *
 * Return: 0 or -EINVAL.
 */
int orfs_acl_parse_entry(const char *s, struct orfs_acl_entry *e)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct in_addr a4;
	unsigned int prefix;
	char *slash;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(e, 0, sizeof(*e));
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		if (slash && parse_prefix(slash, 32, &prefix))
			return -EINVAL;
		if (!slash)
			prefix = 32;
		memcpy(e->addr, v4_mapped_prefix, 12);
		memcpy(e->addr + 12, &a4, 4);
		e->prefix = (uint8_t)(96 + prefix);
		e->v4 = true;
	} else if (inet_pton(AF_INET6, buf, e->addr) == 1) {
		if (slash && parse_prefix(slash, 128, &prefix))
			return -EINVAL;
		if (!slash)
			prefix = 128;
		e->prefix = (uint8_t)prefix;
	} else {
		return -EINVAL;
	}
	mask_addr(e->addr, e->prefix);
	return 0;
}

/**
 * orfs_acl_add() - parse "ADDR[/PREFIX]" and append it
 * @acl: the list
 * @s: the entry
 *
 * Return: 0, -EINVAL (malformed) or -ENOMEM.
 */
int orfs_acl_add(struct orfs_acl *acl, const char *s)
{
	struct orfs_acl_entry e, *v;
	size_t cap;

	if (orfs_acl_parse_entry(s, &e))
		return -EINVAL;
	if (acl->n == acl->cap) {
		cap = acl->cap ? acl->cap * 2 : 8;
		v = realloc(acl->entries, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		acl->entries = v;
		acl->cap = cap;
	}
	acl->entries[acl->n++] = e;
	return 0;
}

/**
 * orfs_acl_add_list() - append every entry of a comma/space separated list
 * @acl: the list
 * @list: e.g. "192.0.2.0/24, 10.1.2.3 2001:db8::/32"
 * @bad: on -EINVAL, gets the entry that did not parse (truncated)
 * @bad_len: size of @bad
 *
 * Entries before a bad one stay added.  An empty list (only separators)
 * is -EINVAL, with @bad empty.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int orfs_acl_add_list(struct orfs_acl *acl, const char *list,
		      char *bad, size_t bad_len)
{
	static const char sep[] = ", \t";
	char tok[INET6_ADDRSTRLEN + 8];
	size_t len, added = 0;
	int err;

	if (bad_len)
		bad[0] = '\0';
	for (list += strspn(list, sep); *list; list += strspn(list, sep)) {
		len = strcspn(list, sep);
		if (len >= sizeof(tok)) {
			snprintf(bad, bad_len, "%.*s", (int)len, list);
			return -EINVAL;
		}
		memcpy(tok, list, len);
		tok[len] = '\0';
		err = orfs_acl_add(acl, tok);
		if (err) {
			if (err == -EINVAL)
				snprintf(bad, bad_len, "%s", tok);
			return err;
		}
		added++;
		list += len;
	}
	return added ? 0 : -EINVAL;
}

/* Free the entries; the list is empty (allows everyone) afterwards. */
void orfs_acl_clear(struct orfs_acl *acl)
{
	free(acl->entries);
	memset(acl, 0, sizeof(*acl));
}

/* Does @addr lie in @e's network? */
static bool entry_match(const struct orfs_acl_entry *e, const uint8_t addr[16])
{
	unsigned int full = e->prefix / 8, rest = e->prefix % 8;
	uint8_t mask;

	if (memcmp(e->addr, addr, full))
		return false;
	if (!rest)
		return true;
	mask = (uint8_t)(0xff00U >> rest);
	return (addr[full] & mask) == e->addr[full];
}

/**
 * orfs_addr_key() - a peer's address in the form the allow-list compares
 * @sa: the address (AF_INET or AF_INET6), or NULL
 * @key: filled with it in IPv6 form, an IPv4 one IPv4-mapped, so that a
 *	client reaching an IPv6 listener with a v4-mapped address has the
 *	same key as over IPv4; the port is not part of it
 *
 * Return: false for NULL or another family (@key is then zeroed).
 */
bool orfs_addr_key(const struct sockaddr *sa, uint8_t key[ORFS_ADDR_KEY_LEN])
{
	memset(key, 0, ORFS_ADDR_KEY_LEN);
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		memcpy(key, v4_mapped_prefix, 12);
		memcpy(key + 12, &in->sin_addr, 4);
		return true;
	}
	if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		memcpy(key, &in6->sin6_addr, ORFS_ADDR_KEY_LEN);
		return true;
	}
	return false;
}

/**
 * orfs_acl_allows() - may a peer with this address connect?
 * @acl: the allow-list; empty allows every address
 * @sa: the peer's address (AF_INET or AF_INET6); NULL or any other family
 *	is refused by a non-empty list
 *
 * Return: true if allowed.
 */
bool orfs_acl_allows(const struct orfs_acl *acl, const struct sockaddr *sa)
{
	uint8_t addr[ORFS_ADDR_KEY_LEN];
	size_t i;

	if (!acl || !acl->n)
		return true;
	if (!orfs_addr_key(sa, addr))
		return false;
	for (i = 0; i < acl->n; i++)
		if (entry_match(&acl->entries[i], addr))
			return true;
	return false;
}

/* Print @e as "ADDR/PREFIX" (IPv4 entries in IPv4 form). */
void orfs_acl_format_entry(const struct orfs_acl_entry *e, char *buf,
			   size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (e->v4) {
		inet_ntop(AF_INET, e->addr + 12, a, sizeof(a));
		snprintf(buf, len, "%s/%u", a, e->prefix - 96U);
	} else {
		inet_ntop(AF_INET6, e->addr, a, sizeof(a));
		snprintf(buf, len, "%s/%u", a, e->prefix);
	}
}
