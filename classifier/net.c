/*
 * net.c: network destinations for hosts[]: URLs, scp/rsync user@host:path,
 * /dev/tcp/HOST/PORT. Hosts are lower-cased and stripped of user and port.
 */
#include <ctype.h>
#include <string.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

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

/* A URL curl or wget was given: one without a scheme (`curl evil.com/x`)
 * is http to the host before the first ':', '/', '?' or '#'. */
void net_add_fetch_url(struct cctx *x, const char *s)
{
	const char *h = s, *e, *at;

	if (s[0] == '-' || net_add_url(x, s))
		return;
	e = h + strcspn(h, "/?#");
	if ((at = memchr(h, '@', (size_t)(e - h))) != NULL)
		h = at + 1;
	e = h[0] == '[' ? h + strcspn(h, "]") + 1 : h + strcspn(h, ":/?#");
	if (e > h)
		net_add_host(x, h, (size_t)(e - h));
}
