/*
 * net.c: network destinations for hosts[]: URLs, scp/rsync user@host:path,
 * /dev/tcp/HOST/PORT. Hosts are lower-cased and stripped of user, port and
 * a final dot; an IPv4 address in any form the resolver takes (2852039166,
 * 0xa9fea9fe, 0251.0376.0251.0376, ::ffff:169.254.169.254) is written as
 * a.b.c.d, so policy and the metadata rule see the address it is.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

/* Rewrites h in place as a dotted quad when it is an IPv4 address in a
 * form inet_aton takes, or an IPv4-mapped IPv6 address; any other IPv6
 * address in its one short form (fd00:ec2:0::254 and fd00:ec2::254%25eth0,
 * with a zone, are fd00:ec2::254). */
static void net_canonical_ip(char *h, size_t cap)
{
	struct in_addr a4;
	struct in6_addr a6;
	char v6[INET6_ADDRSTRLEN + 1];
	size_t l = strcspn(h, "%"); /* the zone, %25eth0 in a URL, is no part of it */

	if (strspn(h, "0123456789abcdefx.") == strlen(h) && isdigit((unsigned char)h[0]) &&
	    inet_aton(h, &a4) == 1) {
		inet_ntop(AF_INET, &a4, h, (socklen_t)cap);
		return;
	}
	if (strchr(h, ':') == NULL || l >= sizeof(v6))
		return;
	memcpy(v6, h, l);
	v6[l] = '\0';
	if (inet_pton(AF_INET6, v6, &a6) != 1)
		return;
	if (IN6_IS_ADDR_V4MAPPED(&a6)) {
		memcpy(&a4, a6.s6_addr + 12, 4);
		inet_ntop(AF_INET, &a4, h, (socklen_t)cap);
	} else {
		inet_ntop(AF_INET6, &a6, h, (socklen_t)cap);
	}
}

void net_add_host(struct cctx *x, const char *host, size_t n)
{
	char h[256];
	size_t k = 0;

	if (n && host[0] == '[') { /* [v6]:port */
		const char *e = memchr(host, ']', n);
		if (e) {
			host++;
			n = (size_t)(e - host);
		}
	}
	for (; k < n && k + 1 < sizeof(h); k++)
		h[k] = (char)tolower((unsigned char)host[k]);
	h[k] = '\0';
	if (k > 1 && h[k - 1] == '.')
		h[--k] = '\0';
	net_canonical_ip(h, sizeof(h));
	if (k)
		cls_add_path(x, &x->v->hosts, h);
}

/* scheme://[user[:pw]@]host[:port][/...] or [user@]host:path */
bool net_add_url(struct cctx *x, const char *s)
{
	const char *p = strstr(s, "://"), *h, *e, *at;

	if (p) {
		h = p + 3;
		e = h + strcspn(h, "/?#");
		at = memchr(h, '@', (size_t)(e - h));
		if (at)
			h = at + 1;
		if (*h == '[')
			e = h + strcspn(h, "]") + 1;
		else
			e = h + strcspn(h, ":/?#");
		net_add_host(x, h, (size_t)(e - h));
		return e > h;
	}
	e = strchr(s, ':');
	if (e == NULL || e == s || memchr(s, '/', (size_t)(e - s)) || s[0] == '-')
		return false;
	at = memchr(s, '@', (size_t)(e - s));
	h = at ? at + 1 : s;
	net_add_host(x, h, (size_t)(e - h));
	return e > h;
}

/* A URL curl or wget was given, read as curl reads it: a scheme ends at
 * ":/" and any run of slashes follows (`http:/h`, `http:///h`); without
 * one (`curl evil.com/x`) it is http. The host follows the last '@' before
 * the first '/', '?' or '#' (`user:pw@h/x`), up to a ':'. */
void net_add_fetch_url(struct cctx *x, const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	const char *h = s, *e, *at;

	if (s[0] == '-')
		return;
	if (n && isalpha((unsigned char)s[0]) && s[n] == ':' && s[n + 1] == '/') {
		if (n == 4 && strncasecmp(s, "file", 4) == 0) /* a local path */
			return;
		for (h = s + n + 1; *h == '/'; h++)
			;
	}
	e = h + strcspn(h, "/?#");
	if ((at = memrchr(h, '@', (size_t)(e - h))) != NULL)
		h = at + 1;
	if (h[0] == '[' && h[strcspn(h, "]")] == ']')
		e = h + strcspn(h, "]") + 1;
	else
		e = h + strcspn(h, ":/?#");
	if (e > h)
		net_add_host(x, h, (size_t)(e - h));
}

void net_add_operand(struct cctx *x, const struct word *w)
{
	const char *v = w->val + (w->val[0] == '@');

	if ((w->flags & W_DYNAMIC) || v[0] == '+' || strchr(v, '=') ||
	    strspn(v, "0123456789") == strlen(v) ||
	    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(v) || net_add_url(x, v))
		return;
	net_add_fetch_url(x, v);
}
