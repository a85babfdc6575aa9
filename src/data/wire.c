/* wire.c: the byte layout of the cache files (wire.h). */
#include "data/wire.h"

#include <string.h>

void wire_put_u64(struct buf *b, uint64_t v)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	buf_put(b, (const char *)le, sizeof le);
}

void wire_put_u32(struct buf *b, uint32_t v)
{
	unsigned char le[4];
	for (int i = 0; i < 4; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	buf_put(b, (const char *)le, sizeof le);
}

void wire_put_f64(struct buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	wire_put_u64(b, u);
}

void wire_put_bytes(struct buf *b, const void *p, size_t n)
{
	wire_put_u64(b, n);
	if (n)
		buf_put(b, p, n);
}

void wire_put_str(struct buf *b, const char *s)
{
	wire_put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

bool wire_get(struct wire_rd *r, void *out, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(out, 0, n);
		return false;
	}
	memcpy(out, r->p, n);
	r->p += n;
	return true;
}

uint64_t wire_u64(struct wire_rd *r)
{
	unsigned char le[8];
	if (!wire_get(r, le, sizeof le))
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)le[i] << (8 * i);
	return v;
}

uint32_t wire_u32(struct wire_rd *r)
{
	unsigned char le[4];
	if (!wire_get(r, le, sizeof le))
		return 0;
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)le[i] << (8 * i);
	return v;
}

double wire_f64(struct wire_rd *r)
{
	uint64_t u = wire_u64(r);
	double v;
	memcpy(&v, &u, sizeof v);
	return v;
}

size_t wire_count(struct wire_rd *r, size_t each)
{
	uint64_t n = wire_u64(r);
	if (r->bad || n > (uint64_t)(r->end - r->p) / (each ? each : 1)) {
		r->bad = true;
		return 0;
	}
	return (size_t)n;
}

struct span wire_span(struct wire_rd *r)
{
	struct span s = {"", 0};
	size_t n = wire_count(r, 1);
	if (r->bad)
		return s;
	s.p = r->p;
	s.len = n;
	r->p += n;
	return s;
}

char *wire_str(struct wire_rd *r)
{
	struct span s = wire_span(r);
	if (memchr(s.p, '\0', s.len))
		r->bad = true;
	return xstrndup(s.p, s.len);
}
