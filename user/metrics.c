// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "escape.h"
#include "metrics.h"

const unsigned long long metrics_bucket_ns[METRICS_NBUCKETS] = {
	1000ULL,       2500ULL,	       5000ULL,	      10000ULL,
	25000ULL,      50000ULL,       100000ULL,     250000ULL,
	500000ULL,     1000000ULL,     2500000ULL,    5000000ULL,
	10000000ULL,   25000000ULL,    50000000ULL,   100000000ULL,
	250000000ULL,  500000000ULL,   1000000000ULL, 2500000000ULL,
	5000000000ULL, 10000000000ULL,
};

static const char *const type_names[] = {
	[METRIC_COUNTER] = "counter",
	[METRIC_GAUGE] = "gauge",
	[METRIC_HISTOGRAM] = "histogram",
};

static const char *const overflow_values[METRICS_MAX_LABELS] = { "(other)",
								 "(other)",
								 "(other)" };

void metrics_init(struct metrics *m)
{
	memset(m, 0, sizeof(*m));
}

void metrics_free(struct metrics *m)
{
	unsigned int i, k;
	size_t j;

	for (i = 0; i < m->n; i++) {
		struct metric_family *f = &m->families[i];

		for (j = 0; j < f->n; j++)
			for (k = 0; k < f->nlabels; k++)
				free(f->series[j].values[k]);
		free(f->series);
	}
	memset(m, 0, sizeof(*m));
}

struct metric_family *metrics_add_family(struct metrics *m, const char *name,
					 const char *help,
					 enum metric_type type,
					 const char *const *labels)
{
	struct metric_family *f;

	if (m->n == METRICS_MAX_FAMILIES)
		return NULL;
	f = &m->families[m->n++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->help = help;
	f->type = type;
	while (labels && labels[f->nlabels] &&
	       f->nlabels < METRICS_MAX_LABELS) {
		f->labels[f->nlabels] = labels[f->nlabels];
		f->nlabels++;
	}
	return f;
}

static bool same_values(const struct metric_series *s, unsigned int n,
			const char *const *values)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(s->values[i], values[i] ? values[i] : ""))
			return false;
	return true;
}

static struct metric_series *series_new(struct metric_family *f,
					const char *const *values)
{
	struct metric_series *s;
	unsigned int i;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct metric_series *grown =
			realloc(f->series, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		f->series = grown;
		f->cap = cap;
	}
	s = &f->series[f->n];
	memset(s, 0, sizeof(*s));
	for (i = 0; i < f->nlabels; i++) {
		s->values[i] = strdup(values[i] ? values[i] : "");
		if (!s->values[i]) {
			while (i--)
				free(s->values[i]);
			return NULL;
		}
	}
	f->n++;
	return s;
}

static struct metric_series *find_or_add(struct metric_family *f,
					 const char *const *values)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (same_values(&f->series[i], f->nlabels, values))
			return &f->series[i];
	if (f->n < METRICS_MAX_SERIES - 1)
		return series_new(f, values);
	/* Bound the memory a system-wide trace of many comms can take. */
	for (i = 0; i < f->n; i++)
		if (same_values(&f->series[i], f->nlabels, overflow_values))
			return &f->series[i];
	return series_new(f, overflow_values);
}

static bool valid_utf8(const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t left = strlen(v), n;

	for (; left; p += n, left -= n)
		if (!(n = nw_utf8_len(p, left)))
			return false;
	return true;
}

/* The value as exported: each byte of invalid UTF-8 becomes '?'. */
static char *exported_value(const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t left = strlen(v), n;
	char *out = malloc(left + 1), *o = out;

	if (!out)
		return NULL;
	for (; left; p += n, left -= n) {
		n = nw_utf8_len(p, left);
		if (n) {
			memcpy(o, p, n);
			o += n;
		} else {
			*o++ = '?';
			n = 1;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Series are keyed by the label values as exported: two values that differ
 * only in invalid bytes would otherwise be two series with identical labels.
 */
struct metric_series *metrics_series(struct metric_family *f,
				     const char *const *values)
{
	const char *exported[METRICS_MAX_LABELS];
	char *owned[METRICS_MAX_LABELS] = { NULL };
	struct metric_series *s = NULL;
	unsigned int i;

	for (i = 0; i < f->nlabels; i++) {
		exported[i] = values[i] ? values[i] : "";
		if (valid_utf8(exported[i]))
			continue;
		owned[i] = exported_value(exported[i]);
		if (!owned[i])
			goto out;
		exported[i] = owned[i];
	}
	s = find_or_add(f, exported);
out:
	for (i = 0; i < f->nlabels; i++)
		free(owned[i]);
	return s;
}

void metrics_observe_ns(struct metric_series *s, unsigned long long ns)
{
	unsigned int i = 0;

	while (i < METRICS_NBUCKETS && ns > metrics_bucket_ns[i])
		i++;
	s->bucket[i]++;
	s->sum_ns += ns;
	s->count++;
}

void metrics_write_label_value(FILE *out, const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t n;

	while (*p) {
		if (*p == '\\' || *p == '"') {
			fputc('\\', out);
			fputc(*p++, out);
		} else if (*p == '\n') {
			fputs("\\n", out);
			p++;
		} else if ((n = nw_utf8_len(p, strlen((const char *)p)))) {
			fwrite(p, 1, n, out);
			p += n;
		} else {
			/* comms are bytes, the format is UTF-8 */
			fputc('?', out);
			p++;
		}
	}
}

static void write_help(FILE *out, const char *help, enum metrics_format fmt)
{
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", out);
		else if (*help == '\n')
			fputs("\\n", out);
		else if (*help == '"' && fmt == METRICS_OPENMETRICS)
			fputs("\\\"", out);
		else
			fputc(*help, out);
	}
}

/* {a="x",b="y"[,le="..."]}, nothing when there is no label at all. */
static void write_labels(FILE *out, const struct metric_family *f,
			 const struct metric_series *s, const char *le)
{
	unsigned int i;

	if (!f->nlabels && !le)
		return;
	fputc('{', out);
	for (i = 0; i < f->nlabels; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", f->labels[i]);
		metrics_write_label_value(out, s->values[i]);
		fputc('"', out);
	}
	if (le)
		fprintf(out, "%sle=\"%s\"", f->nlabels ? "," : "", le);
	fputc('}', out);
}

static void write_histogram(FILE *out, const struct metric_family *f,
			    const struct metric_series *s)
{
	unsigned long long cum = 0;
	char le[32];
	unsigned int i;

	for (i = 0; i < METRICS_NBUCKETS; i++) {
		cum += s->bucket[i];
		snprintf(le, sizeof(le), "%g", metrics_bucket_ns[i] / 1e9);
		fprintf(out, "%s_bucket", f->name);
		write_labels(out, f, s, le);
		fprintf(out, " %llu\n", cum);
	}
	fprintf(out, "%s_bucket", f->name);
	write_labels(out, f, s, "+Inf");
	fprintf(out, " %llu\n", s->count);
	/* Exact decimal seconds: no float rounding of the sum. */
	fprintf(out, "%s_sum", f->name);
	write_labels(out, f, s, NULL);
	fprintf(out, " %llu.%09llu\n", s->sum_ns / 1000000000ULL,
		s->sum_ns % 1000000000ULL);
	fprintf(out, "%s_count", f->name);
	write_labels(out, f, s, NULL);
	fprintf(out, " %llu\n", s->count);
}

static void write_family(FILE *out, const struct metric_family *f,
			 enum metrics_format fmt)
{
	/* OpenMetrics names the counter family without the sample suffix. */
	const char *suffix = f->type == METRIC_COUNTER && fmt == METRICS_TEXT ?
				     "_total" :
				     "";
	size_t i;

	fprintf(out, "# HELP %s%s ", f->name, suffix);
	write_help(out, f->help, fmt);
	fprintf(out, "\n# TYPE %s%s %s\n", f->name, suffix,
		type_names[f->type]);
	for (i = 0; i < f->n; i++) {
		const struct metric_series *s = &f->series[i];

		switch (f->type) {
		case METRIC_COUNTER:
			fprintf(out, "%s_total", f->name);
			write_labels(out, f, s, NULL);
			if (f->ns_as_seconds)
				fprintf(out, " %llu.%09llu\n",
					s->value / 1000000000ULL,
					s->value % 1000000000ULL);
			else
				fprintf(out, " %llu\n", s->value);
			break;
		case METRIC_GAUGE:
			fputs(f->name, out);
			write_labels(out, f, s, NULL);
			fprintf(out, " %llu\n", s->value);
			break;
		case METRIC_HISTOGRAM:
			write_histogram(out, f, s);
			break;
		}
	}
}

int metrics_write(const struct metrics *m, FILE *out, enum metrics_format fmt)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		write_family(out, &m->families[i], fmt);
	if (fmt == METRICS_OPENMETRICS)
		fputs("# EOF\n", out);
	return ferror(out) ? -EIO : 0;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * One media range of an Accept header, [p, end): whether it names
 * OpenMetrics 1.0 or something the text format satisfies, and its q.
 */
static void media_range(const char *p, const char *end, bool *om, bool *text,
			double *q)
{
	const char *semi = memchr(p, ';', end - p);
	const char *type_end = semi ? semi : end;
	size_t len;

	p = skip_ws(p);
	while (type_end > p && (type_end[-1] == ' ' || type_end[-1] == '\t'))
		type_end--;
	len = type_end - p;
	*om = len == 28 && !strncasecmp(p, "application/openmetrics-text", 28);
	*text = (len == 10 && !strncasecmp(p, "text/plain", 10)) ||
		(len == 6 && !strncasecmp(p, "text/*", 6)) ||
		(len == 3 && !strncmp(p, "*/*", 3));
	*q = 1;
	while (semi && semi < end) {
		const char *param = skip_ws(semi + 1);

		semi = memchr(param, ';', end - param);
		if (!strncasecmp(param, "q=", 2))
			*q = strtod(param + 2, NULL);
		/* Only 1.0.0 is written; another version is not satisfied. */
		else if (*om && !strncasecmp(param, "version=", 8) &&
			 strncmp(param + 8, "1.0.0", 5))
			*om = false;
	}
}

enum metrics_format metrics_negotiate(const char *accept)
{
	double q, best_om = 0, best_text = 0;
	bool om, text;
	const char *end;

	while (accept && *accept) {
		end = strchr(accept, ',');
		if (!end)
			end = accept + strlen(accept);
		media_range(accept, end, &om, &text, &q);
		if (om && q > best_om)
			best_om = q;
		if (text && q > best_text)
			best_text = q;
		accept = *end ? end + 1 : end;
	}
	return best_om > 0 && best_om >= best_text ? METRICS_OPENMETRICS :
						     METRICS_TEXT;
}

const char *metrics_content_type(enum metrics_format fmt)
{
	return fmt == METRICS_OPENMETRICS ?
		       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		       "text/plain; version=0.0.4; charset=utf-8";
}
