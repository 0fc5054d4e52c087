// SPDX-License-Identifier: GPL-2.0
/*
 * Traces: the readers for every format in shared/traces (vscsi, raw u32
 * blocks, ARC .lis, LIRS, MSR, SYSTOR, Tencent CBS) and blkparse text,
 * compressed or not, and the synthetic generators.  Every request ends up
 * in cache blocks of the chosen size; traces that are already block
 * numbers are used as they are.  A malformed record is an error naming the
 * file and position.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "trace.h"

void trace_init(struct trace *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
}

void trace_add(struct trace *t, uint64_t block, uint32_t nr_blocks, bool write, bool whole,
	       uint64_t time_us)
{
	struct request *r;

	if (!nr_blocks)
		return;
	if (t->nr_reqs == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->reqs = realloc(t->reqs, t->cap * sizeof(*t->reqs));
		if (!t->reqs) {
			fprintf(stderr, "out of memory reading %s\n", t->name);
			exit(2);
		}
	}
	/* Replayed time never runs backwards. */
	if (t->nr_reqs && time_us < t->reqs[t->nr_reqs - 1].time_us)
		time_us = t->reqs[t->nr_reqs - 1].time_us;
	r = &t->reqs[t->nr_reqs++];
	r->block = block;
	r->nr_blocks = nr_blocks;
	r->write = write;
	r->whole = whole;
	r->time_us = time_us;
	t->nr_accesses += nr_blocks;
	if (block + nr_blocks - 1 > t->max_block)
		t->max_block = block + nr_blocks - 1;
}

void trace_finish(struct trace *t)
{
	struct hashmap seen;
	size_t i;
	uint32_t b;

	t->footprint = 0;
	if (hashmap_init(&seen, t->nr_accesses < (1u << 26) ? t->nr_accesses : (1u << 26))) {
		fprintf(stderr, "out of memory sizing %s\n", t->name);
		exit(2);
	}
	for (i = 0; i < t->nr_reqs; i++)
		for (b = 0; b < t->reqs[i].nr_blocks; b++)
			if (!hashmap_find(&seen, t->reqs[i].block + b)) {
				if (2 * seen.count >= seen.mask) {
					fprintf(stderr, "%s: footprint too large\n", t->name);
					exit(2);
				}
				hashmap_insert(&seen, t->reqs[i].block + b, 0);
				t->footprint++;
			}
	hashmap_free(&seen);
}

void trace_free(struct trace *t)
{
	free(t->name);
	free(t->reqs);
	memset(t, 0, sizeof(*t));
}

/*----------------------------------------------------------------*/

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A byte range of the origin, in requests of whole cache blocks. */
static void add_bytes(struct trace *t, const struct load_opts *o, uint64_t offset,
		      uint64_t len, bool write, uint64_t time_us)
{
	uint64_t first = offset / o->block_bytes;
	uint64_t last = (offset + (len ? len : 1) - 1) / o->block_bytes;
	bool whole = offset % o->block_bytes == 0 && len % o->block_bytes == 0;

	trace_add(t, first, last - first + 1, write, whole, time_us);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The file name without directory and without any extensions. */
char *trace_name(const char *path)
{
	char *name = strdup(base_name(path)), *dot = strchr(name, '.');

	if (dot && dot != name)
		*dot = 0;
	return name;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Open through a decompressor chosen by the file's magic number. */
static FILE *open_trace(const char *path, bool *piped, char *err, size_t len)
{
	static const struct {
		const unsigned char magic[6];
		size_t n;
		const char *cmd;
	} tools[] = {
		{ { 0x1f, 0x8b }, 2, "gzip -dc" },
		{ { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, "xz -dc" },
		{ { 0x28, 0xb5, 0x2f, 0xfd }, 4, "zstd -dcq" },
		{ { 'B', 'Z', 'h' }, 3, "bzip2 -dc" },
	};
	unsigned char head[6] = { 0 };
	char cmd[4200];
	size_t i, n;
	FILE *f = fopen(path, "rb");

	*piped = false;
	if (!f) {
		fail(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	n = fread(head, 1, sizeof(head), f);
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (n < tools[i].n || memcmp(head, tools[i].magic, tools[i].n))
			continue;
		fclose(f);
		if (strchr(path, '\'') || strlen(path) > 4000) {
			fail(err, len, "%s: unsupported file name", path);
			return NULL;
		}
		snprintf(cmd, sizeof(cmd), "%s '%s'", tools[i].cmd, path);
		f = popen(cmd, "r");
		if (!f)
			fail(err, len, "%s: cannot run %s", path, tools[i].cmd);
		*piped = true;
		return f;
	}
	rewind(f);
	return f;
}

static const char *guess_format(const char *path, const char *first_line)
{
	char *name = strdup(base_name(path));
	const char *fmt = NULL;
	char *ext;

	/* strip compression suffixes */
	for (;;) {
		ext = strrchr(name, '.');
		if (ext && (!strcmp(ext, ".gz") || !strcmp(ext, ".xz") || !strcmp(ext, ".zst") ||
			    !strcmp(ext, ".bz2")))
			*ext = 0;
		else
			break;
	}
	if (has_suffix(name, ".vscsi"))
		fmt = "vscsi";
	else if (has_suffix(name, ".lis"))
		fmt = "arc";
	else if (strstr(name, "msr"))
		fmt = "msr";
	else if (strstr(name, "systor") || !strncmp(first_line, "Timestamp,Response,IOType", 25))
		fmt = "systor";
	else if (strstr(name, "cloud_storage"))
		fmt = "tencent";
	else if (strstr(name, "blkparse") || has_suffix(name, ".blktrace.txt"))
		fmt = "blkparse";
	else if (has_suffix(name, ".trace")) {
		/* LIRS text, or a raw array of u32 block numbers */
		const char *p = first_line;

		while (*p && (isdigit((unsigned char)*p) || *p == '\r' || *p == '*'))
			p++;
		fmt = *p == '\n' || (!*p && p != first_line) ? "lirs" : "u32";
	}
	free(name);
	return fmt;
}

/* Split a CSV line in place; returns the number of fields. */
static int split_csv(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		fields[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = 0;
	}
	return n;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	while (*end == ' ' || *end == '\r' || *end == '\n')
		end++;
	return !errno && !*end;
}

static bool parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\r' || *end == '\n')
		end++;
	return end != s && !errno && !*end;
}

static int read_vscsi(struct trace *t, FILE *f, const char *path, const struct load_opts *o,
		      char *err, size_t len)
{
	unsigned char rec[32];
	uint64_t n = 0, t0 = 0;
	size_t got;

	while ((got = fread(rec, 1, sizeof(rec), f)) == sizeof(rec)) {
		uint32_t bytes = rec[4] | rec[5] << 8 | rec[6] << 16 | (uint32_t)rec[7] << 24;
		uint16_t cmd = rec[12] | rec[13] << 8, ver = rec[14] | rec[15] << 8;
		uint64_t lbn = 0, ts = 0;
		bool write;
		int i;

		for (i = 7; i >= 0; i--) {
			lbn = lbn << 8 | rec[16 + i];
			ts = ts << 8 | rec[24 + i];
		}
		if (ver >> 8 != 1)
			return fail(err, len, "%s: record %" PRIu64 ": version %#x, not a vscsi v1 record",
				    path, n, ver);
		switch (cmd) {
		case 0x08: case 0x28: case 0xa8: case 0x88:
			write = false;
			break;
		case 0x0a: case 0x2a: case 0xaa: case 0x8a:
			write = true;
			break;
		default:
			return fail(err, len, "%s: record %" PRIu64 ": SCSI command %#x is not a read or write",
				    path, n, cmd);
		}
		if (!n)
			t0 = ts;
		add_bytes(t, o, lbn * 512, bytes, write, ts >= t0 ? ts - t0 : 0);
		n++;
	}
	if (got)
		return fail(err, len, "%s: record %" PRIu64 ": truncated (%zu of 32 bytes)", path, n, got);
	t->has_time = true;
	return 0;
}

static int read_u32(struct trace *t, FILE *f, const char *path, const struct load_opts *o,
		    char *err, size_t len)
{
	unsigned char b[4 * 4096];
	uint64_t n = 0;
	size_t got, i;

	while ((got = fread(b, 1, sizeof(b), f)) > 0) {
		if (got % 4)
			return fail(err, len, "%s: byte %" PRIu64 ": truncated u32 record",
				    path, n * 4 + got - got % 4);
		for (i = 0; i < got; i += 4, n++)
			trace_add(t, b[i] | b[i + 1] << 8 | b[i + 2] << 16 | (uint32_t)b[i + 3] << 24,
				  1, false, false, n * 1000000ull / o->rate);
	}
	return 0;
}

static int read_lines(struct trace *t, FILE *f, const char *path, const char *fmt,
		      const struct load_opts *o, char *err, size_t len)
{
	char *line = NULL, *fields[16];
	size_t cap = 0;
	uint64_t lineno = 0, n = 0, v[4];
	double ts0 = -1, d;
	int64_t volume = -1;
	ssize_t got;
	int nf;

	while ((got = getline(&line, &cap, f)) > 0) {
		uint64_t time_us = n * 1000000ull / o->rate;
		bool write = false;

		lineno++;
		while (got && (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = 0;

		if (!strcmp(fmt, "lirs")) {
			if (!got || !strcmp(line, "*"))
				continue;	/* a blank line or a phase marker: no block */
			if (!parse_u64(line, &v[0]))
				goto bad;
			trace_add(t, v[0], 1, false, false, time_us);
		} else if (!strcmp(fmt, "arc")) {
			if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1],
				   &v[2], &v[3]) != 4 || !v[1])
				goto bad;
			trace_add(t, v[0], v[1], false, false, time_us);
		} else if (!strcmp(fmt, "msr")) {
			nf = split_csv(line, fields, 8);
			if (nf != 7 || !parse_u64(fields[0], &v[0]) || !parse_u64(fields[4], &v[1]) ||
			    !parse_u64(fields[5], &v[2]))
				goto bad;
			if (!strcmp(fields[3], "Write"))
				write = true;
			else if (strcmp(fields[3], "Read"))
				goto bad;
			if (ts0 < 0)
				ts0 = v[0];
			/* FILETIME counts 100 ns; a record stamped before the first comes at once */
			add_bytes(t, o, v[1], v[2], write,
				  v[0] > (uint64_t)ts0 ? (v[0] - (uint64_t)ts0) / 10 : 0);
			t->has_time = true;
		} else if (!strcmp(fmt, "systor")) {
			if (lineno == 1 && !strncmp(line, "Timestamp,", 10))
				continue;	/* the header */
			nf = split_csv(line, fields, 8);
			if (nf != 6 || !parse_double(fields[0], &d) || !parse_u64(fields[4], &v[1]) ||
			    !parse_u64(fields[5], &v[2]))
				goto bad;
			if (!strcmp(fields[2], "W"))
				write = true;
			else if (strcmp(fields[2], "R"))
				goto bad;
			if (ts0 < 0)
				ts0 = d;
			/* the log is in completion order: some start before the first */
			add_bytes(t, o, v[1], v[2], write, d > ts0 ? (uint64_t)((d - ts0) * 1e6) : 0);
			t->has_time = true;
		} else if (!strcmp(fmt, "tencent")) {
			nf = split_csv(line, fields, 8);
			if (nf != 5 || !parse_u64(fields[0], &v[0]) || !parse_u64(fields[1], &v[1]) ||
			    !parse_u64(fields[2], &v[2]) || !parse_u64(fields[4], &v[3]) ||
			    (strcmp(fields[3], "0") && strcmp(fields[3], "1")))
				goto bad;
			/* One volume per replay: the one asked for, else the first. */
			if (volume < 0)
				volume = o->volume >= 0 ? o->volume : (int64_t)v[3];
			if ((int64_t)v[3] != volume)
				continue;
			if (ts0 < 0)
				ts0 = v[0];
			add_bytes(t, o, v[1] * 512, v[2] * 512, fields[3][0] == '1',
				  (v[0] > ts0 ? v[0] - (uint64_t)ts0 : 0) * 1000000ull);
			t->has_time = true;
		} else if (!strcmp(fmt, "blkparse")) {
			/* dev cpu seq time pid action rwbs sector + n [comm] */
			char dev[32], action[8], rwbs[16], plus[4];
			unsigned int cpu, pid;

			if (!got)
				continue;
			if (!strncmp(line, "CPU", 3) || !strncmp(line, "Total", 5))
				break;	/* the summary blkparse prints after the events */
			if (sscanf(line, "%31s %u %" SCNu64 " %lf %u %7s %15s", dev, &cpu, &v[0], &d,
				   &pid, action, rwbs) != 7)
				goto bad;
			if (strcmp(action, "Q"))
				continue;	/* one event per request: the queueing */
			if (!strchr(rwbs, 'R') && !strchr(rwbs, 'W'))
				continue;	/* flushes and discards carry no data */
			if (sscanf(line, "%*s %*u %*u %*f %*u %*s %*s %" SCNu64 " %3s %" SCNu64,
				   &v[1], plus, &v[2]) != 3 || strcmp(plus, "+"))
				goto bad;
			add_bytes(t, o, v[1] * 512, v[2] * 512, !!strchr(rwbs, 'W'),
				  (uint64_t)(d * 1e6));
			t->has_time = true;
		} else {
			free(line);
			return fail(err, len, "%s: unknown format %s", path, fmt);
		}
		n++;
		if (o->max_reqs && t->nr_reqs >= o->max_reqs)
			break;
	}
	free(line);
	return 0;
bad:
	fail(err, len, "%s:%" PRIu64 ": malformed %s record: '%.80s'", path, lineno, fmt, line);
	free(line);
	return -EINVAL;
}

int trace_load(struct trace *t, const char *path, const struct load_opts *o, char *err,
	       size_t len)
{
	char first[256] = "";
	const char *fmt = o->format;
	bool piped;
	FILE *f;
	int r, c;
	size_t n = 0;
	char *name = trace_name(path);

	trace_init(t, name);
	free(name);
	f = open_trace(path, &piped, err, len);
	if (!f) {
		trace_free(t);
		return -ENOENT;
	}

	if (!fmt) {
		/* peek at the first line through a second open */
		bool p2;
		FILE *g = open_trace(path, &p2, err, len);

		while (g && n + 1 < sizeof(first) && (c = fgetc(g)) != EOF) {
			first[n++] = c;
			if (c == '\n')
				break;
		}
		first[n] = 0;
		if (g)
			p2 ? pclose(g) : fclose(g);
		fmt = guess_format(path, first);
		if (!fmt) {
			piped ? pclose(f) : fclose(f);
			trace_free(t);
			return fail(err, len, "%s: cannot tell the trace format; give --format", path);
		}
	}

	if (!strcmp(fmt, "vscsi"))
		r = read_vscsi(t, f, path, o, err, len);
	else if (!strcmp(fmt, "u32"))
		r = read_u32(t, f, path, o, err, len);
	else
		r = read_lines(t, f, path, fmt, o, err, len);

	c = piped ? pclose(f) : fclose(f);
	if (!r && c)
		r = fail(err, len, "%s: reading failed (decompressor exit %d)", path, c);
	if (!r && !t->nr_reqs)
		r = fail(err, len, "%s: no requests", path);
	if (r)
		trace_free(t);
	else
		trace_finish(t);
	return r;
}

/*----------------------------------------------------------------*/

/* xorshift64*: deterministic for a given seed, here and in every run. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static double rnd_unit(uint64_t *s)
{
	return (rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Zipf(theta) over [0, n) by inverting the CDF, ranks scattered over blocks. */
struct zipf {
	double *cdf;
	uint64_t n;
};

static void zipf_init(struct zipf *z, uint64_t n, double theta)
{
	double sum = 0;
	uint64_t i;

	z->n = n;
	z->cdf = malloc(n * sizeof(*z->cdf));
	for (i = 0; i < n; i++)
		sum += 1.0 / pow(i + 1, theta);
	for (i = 0, z->cdf[0] = 0; i < n; i++)
		z->cdf[i] = (i ? z->cdf[i - 1] : 0) + 1.0 / pow(i + 1, theta) / sum;
}

static uint64_t zipf_draw(struct zipf *z, uint64_t *s)
{
	double u = rnd_unit(s);
	uint64_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A fixed permutation, so that hot ranks are not neighbouring blocks. */
static uint64_t scatter(uint64_t rank, uint64_t n)
{
	return (rank * 2654435761ull + 12345) % n;
}

int trace_generate(struct trace *t, const char *spec, const struct load_opts *o, char *err,
		   size_t len)
{
	uint64_t seed = o->seed ? o->seed : 42, i, n = o->gen_requests, blocks = o->gen_blocks;
	double theta = 0.9, scan_frac = 0.2;
	char kind[32];
	struct zipf z = { 0 };
	unsigned int hot_pct = 10;

	if (sscanf(spec, "%31[a-z_]", kind) != 1)
		return fail(err, len, "generator '%s': expected uniform, zipf:THETA, scan:FRACTION or shift",
			    spec);
	trace_init(t, spec);
	for (char *p = t->name; *p; p++)
		if (*p == ':')
			*p = '-';

	if (!strcmp(kind, "uniform")) {
		for (i = 0; i < n; i++)
			trace_add(t, rnd(&seed) % blocks, 1, rnd(&seed) % 4 == 0, true,
				  i * 1000000ull / o->rate);
	} else if (!strcmp(kind, "zipf")) {
		if (sscanf(spec, "zipf:%lf", &theta) != 1 || theta <= 0 || theta > 3) {
			trace_free(t);
			return fail(err, len, "generator '%s': zipf:THETA with 0 < THETA <= 3", spec);
		}
		zipf_init(&z, blocks, theta);
		for (i = 0; i < n; i++)
			trace_add(t, scatter(zipf_draw(&z, &seed), blocks), 1, rnd(&seed) % 4 == 0, true,
				  i * 1000000ull / o->rate);
	} else if (!strcmp(kind, "scan")) {
		/*
		 * A hot set (a tenth of the blocks, zipf 1.0 inside) with a
		 * share of requests that sweep sequentially through blocks
		 * outside it, far more of them than any cache holds; the
		 * sweep reads each block in BIOS requests (default 1), each a
		 * part of the block, one after the other.
		 */
		uint64_t hot = blocks * hot_pct / 100, cursor = 0;
		unsigned int bios = 1, b;
		int got = sscanf(spec, "scan:%lf:%u", &scan_frac, &bios);
		double sweep;

		if (got < 1 || scan_frac < 0 || scan_frac >= 1 || !bios || bios > 1024) {
			trace_free(t);
			return fail(err, len,
				    "generator '%s': scan:FRACTION[:BIOS] with 0 <= FRACTION < 1, 1 <= BIOS <= 1024",
				    spec);
		}
		/* how often a block of the sweep comes next, for that share */
		sweep = scan_frac / (bios - (bios - 1) * scan_frac);
		zipf_init(&z, hot, 1.0);
		for (i = 0; i < n;) {
			if (rnd_unit(&seed) < sweep) {
				for (b = 0; b < bios && i < n; b++, i++)
					trace_add(t, hot + cursor, 1, false, bios == 1,
						  i * 1000000ull / o->rate);
				cursor = (cursor + 1) % (blocks - hot);
			} else {
				trace_add(t, scatter(zipf_draw(&z, &seed), hot), 1, rnd(&seed) % 4 == 0,
					  true, i * 1000000ull / o->rate);
				i++;
			}
		}
	} else if (!strcmp(kind, "shift")) {
		/*
		 * Zipf 1.0 over one working set, then at half time over a
		 * disjoint one of the same size.
		 */
		uint64_t half = blocks / 2;

		zipf_init(&z, half, 1.0);
		for (i = 0; i < n; i++)
			trace_add(t, (i < n / 2 ? 0 : half) + scatter(zipf_draw(&z, &seed), half), 1,
				  rnd(&seed) % 4 == 0, true, i * 1000000ull / o->rate);
	} else {
		return fail(err, len, "generator '%s': unknown (uniform, zipf:T, scan:F, shift)", spec);
	}
	free(z.cdf);
	trace_finish(t);
	return 0;
}

/*
 * Write @t's requests for guest/tools/blkreplay.c, little-endian 64-bit
 * words: "LABTRACE", the number of requests, the blocks the origin needs;
 * then per request its first block and (nr_blocks | write << 32 |
 * whole << 33).  The guest replays exactly the requests the policies
 * here see.
 */
int trace_export(const struct trace *t, const char *path)
{
	uint64_t w[3] = { 0, htole64(t->nr_reqs), htole64(t->max_block + 1) };
	FILE *f = fopen(path, "wb");
	size_t i;

	if (!f)
		return -errno;
	memcpy(w, "LABTRACE", 8);
	fwrite(w, sizeof(w[0]), 3, f);
	for (i = 0; i < t->nr_reqs; i++) {
		const struct request *rq = t->reqs + i;

		w[0] = htole64(rq->block);
		w[1] = htole64(rq->nr_blocks | (uint64_t)rq->write << 32 |
			       (uint64_t)rq->whole << 33);
		fwrite(w, sizeof(w[0]), 2, f);
	}
	i = ferror(f);
	if (fclose(f) || i)
		return -EIO;
	return 0;
}
