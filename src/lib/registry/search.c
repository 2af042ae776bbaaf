/* SPDX-License-Identifier: MIT */
/*
 * search.c - BM25 ranking of the active entries (skit_registry_search).
 *
 * An inverted index is built once per scan (and once more for the bodies
 * with SKIT_SEARCH_BODY): every term maps to a postings array of
 * (document, term frequency), documents being active entries in index
 * order. A query adds each term's contribution into a score array sized
 * to the number of documents, remembering which documents it touched,
 * then keeps the best k with a bounded heap. Cost: the postings of the
 * query's terms, plus k log k; nothing proportional to all entries.
 *
 * Tokens: runs of ASCII letters and digits and of non-ASCII bytes (so UTF-8
 * words stay whole), ASCII lowercased, at most MAX_TOKEN bytes. Everything
 * else separates, '-' included; a name is also indexed whole ("pdf-tools"),
 * so a query for the exact name ranks it first. Name tokens count
 * NAME_WEIGHT times (a cheap BM25F): a word in the name says more about a
 * skill than the same word in its description.
 *
 * A query's English stop words ("a", "the", "of"...) are dropped before
 * ranking: nearly every description holds them, so they would rank a
 * skill for words the user did not mean ("summarise a spreadsheet" must
 * not favour a skill for its "a"). A query made only of stop words keeps
 * them, so it still finds what holds them. Documents keep every token:
 * the list can change without a rebuild of any index.
 */
#include "common.h"

#include "skit/registry.h"
#include "lib/registry/registry_int.h"
#include "lib/core/error.h"
#include "util/hash.h"

#define BM25_K1     1.2
#define BM25_B      0.75
#define NAME_WEIGHT 3
#define MAX_TOKEN   64
#define MAX_QUERY   64 /* distinct query terms used */
#define MAX_TF      65535

struct skit__search {
	size_t ndocs, nterms;
	struct skitx_strmap terms; /* term -> id; keys in `strings` */
	struct skit__arena strings;
	uint32_t *start;   /* nterms + 1 offsets into docs/tfs */
	uint32_t *docs;    /* postings: document ids, ascending per term */
	uint16_t *tfs;     /* postings: weighted term frequencies */
	float *norm;       /* per document: k1 * (1 - b + b * len / avglen) */
	double *scores;    /* scratch, one per document, kept zeroed */
	uint32_t *touched; /* scratch: documents with a score */
};

/* What the build accumulates before the postings are laid out. */
struct build {
	struct skit__search *s;
	uint32_t *tf_acc; /* per term: frequency in the current document */
	size_t acc_alloc;
	uint32_t *cur; /* terms seen in the current document */
	size_t ncur, cur_alloc;
	uint32_t *pt_term; /* (term, tf) pairs, document after document */
	uint16_t *pt_tf;
	size_t npt, pt_alloc;
	uint32_t *doc_end; /* per document: end of its pairs */
	uint64_t doc_len;  /* weighted tokens in the current document */
};

/* Sorted for bsearch(); lowercase, as query tokens are folded. */
static const char *const stop_words[] = {
	"a",     "about", "after", "all",  "also", "am",    "an",    "and",
	"any",   "are",   "as",    "at",   "be",   "been",  "being", "but",
	"by",    "can",   "could", "did",  "do",   "does",  "for",   "from",
	"had",   "has",   "have",  "he",   "her",  "here",  "him",   "his",
	"how",   "i",     "if",    "in",   "into", "is",    "it",    "its",
	"me",    "my",    "of",    "on",   "or",   "our",   "she",   "should",
	"so",    "some",  "such",  "than", "that", "the",   "their", "them",
	"then",  "there", "these", "they", "this", "those", "to",    "too",
	"us",    "very",  "was",   "we",   "were", "what",  "when",  "where",
	"which", "while", "who",   "whom", "why",  "will",  "with",  "would",
	"you",   "your",
};

static int cmp_word(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Whether the folded token `t` (len bytes) is a stop word. */
static bool stop_word(const char *t, size_t len)
{
	char w[16];

	if (len >= sizeof(w))
		return false;
	memcpy(w, t, len);
	w[len] = '\0';
	return bsearch(w, stop_words, SKIT_ARRAY_SIZE(stop_words),
	               sizeof(stop_words[0]), cmp_word) != NULL;
}

static bool token_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c >= 0x80;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Copy a token, lowercased and capped; returns its length. */
static size_t fold(char *out, const char *p, size_t len)
{
	if (len > MAX_TOKEN)
		len = MAX_TOKEN;
	for (size_t i = 0; i < len; i++)
		out[i] = lower(p[i]);
	return len;
}

static int grow_u32(uint32_t **v, size_t *alloc, size_t need)
{
	size_t n = *alloc ? *alloc : 64;
	uint32_t *p;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	p = skitx_realloc(*v, n * sizeof(*p));
	if (!p)
		return SKIT_ENOMEM;
	*v = p;
	*alloc = n;
	return 0;
}

/* Count one occurrence of the term `t` (len bytes, folded) in the doc. */
static int add_term(struct build *b, const char *t, size_t len, unsigned weight)
{
	struct skit__search *s = b->s;
	uint32_t *id, nid;
	char *key;
	int error;

	id = skitx_strmap_get(&s->terms, t, len);
	if (!id) {
		if (s->nterms >= UINT32_MAX - 1)
			return 0; /* absurd; ignore further new terms */
		key = skit__arena_strndup(&s->strings, t, len);
		if (!key)
			return SKIT_ENOMEM;
		nid = (uint32_t)s->nterms;
		error = skitx_strmap_put(&s->terms, key, len, nid, NULL);
		if (error < 0)
			return error;
		s->nterms++;
		if (s->nterms > b->acc_alloc) {
			size_t old = b->acc_alloc;

			error = grow_u32(&b->tf_acc, &b->acc_alloc, s->nterms);
			if (error < 0)
				return error;
			memset(b->tf_acc + old, 0,
			       (b->acc_alloc - old) * sizeof(*b->tf_acc));
		}
	} else {
		nid = *id;
	}
	if (!b->tf_acc[nid]) {
		error = grow_u32(&b->cur, &b->cur_alloc, b->ncur + 1);
		if (error < 0)
			return error;
		b->cur[b->ncur++] = nid;
	}
	b->tf_acc[nid] += weight;
	b->doc_len += weight;
	return 0;
}

/* Add every token of `text`; with `whole`, the whole text too. */
static int add_text(struct build *b, const char *text, unsigned weight,
                    bool whole)
{
	const unsigned char *p = (const unsigned char *)text;
	char tok[MAX_TOKEN];
	size_t n, pieces = 0;
	int error;

	while (*p) {
		const unsigned char *start;

		while (*p && !token_byte(*p))
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && token_byte(*p))
			p++;
		n = fold(tok, (const char *)start, (size_t)(p - start));
		error = add_term(b, tok, n, weight);
		if (error < 0)
			return error;
		pieces++;
	}
	if (whole && pieces > 1) {
		n = fold(tok, text, strlen(text));
		return add_term(b, tok, n, weight);
	}
	return 0;
}

/* Close the current document: move its (term, tf) pairs to the list. */
static int end_doc(struct build *b, size_t doc)
{
	size_t need = b->npt + b->ncur;

	if (need > b->pt_alloc) {
		size_t n = b->pt_alloc ? b->pt_alloc : 1024;
		uint32_t *t;
		uint16_t *f;

		while (n < need)
			n *= 2;
		t = skitx_realloc(b->pt_term, n * sizeof(*t));
		if (!t)
			return SKIT_ENOMEM;
		b->pt_term = t;
		f = skitx_realloc(b->pt_tf, n * sizeof(*f));
		if (!f)
			return SKIT_ENOMEM;
		b->pt_tf = f;
		b->pt_alloc = n;
	}
	if (need > UINT32_MAX)
		return SKIT_ENOMEM;
	for (size_t i = 0; i < b->ncur; i++) {
		uint32_t t = b->cur[i];

		b->pt_term[b->npt] = t;
		b->pt_tf[b->npt] =
		        (uint16_t)(b->tf_acc[t] > MAX_TF ? MAX_TF
		                                         : b->tf_acc[t]);
		b->npt++;
		b->tf_acc[t] = 0;
	}
	b->ncur = 0;
	b->doc_end[doc] = (uint32_t)b->npt;
	return 0;
}

/* Lay the pairs out as postings, grouped by term, documents ascending. */
static int layout(struct build *b)
{
	struct skit__search *s = b->s;
	uint32_t *fill;
	size_t d = 0;

	s->start = skitx_calloc(s->nterms + 1, sizeof(*s->start));
	s->docs = skitx_malloc((b->npt ? b->npt : 1) * sizeof(*s->docs));
	s->tfs = skitx_malloc((b->npt ? b->npt : 1) * sizeof(*s->tfs));
	if (!s->start || !s->docs || !s->tfs)
		return SKIT_ENOMEM;
	for (size_t i = 0; i < b->npt; i++)
		s->start[b->pt_term[i] + 1]++;
	for (size_t t = 0; t < s->nterms; t++)
		s->start[t + 1] += s->start[t];
	fill = skitx_malloc((s->nterms ? s->nterms : 1) * sizeof(*fill));
	if (!fill)
		return SKIT_ENOMEM;
	memcpy(fill, s->start, s->nterms * sizeof(*fill));
	for (size_t i = 0; i < b->npt; i++) {
		uint32_t t = b->pt_term[i], at;

		while (i >= b->doc_end[d])
			d++;
		at = fill[t]++;
		s->docs[at] = (uint32_t)d;
		s->tfs[at] = b->pt_tf[i];
	}
	skitx_free(fill);
	return 0;
}

/* Index the body of active entry `e`; an unreadable body adds nothing. */
static int add_body(struct build *b, skit_registry *reg, const skit_entry *e)
{
	skit_skill *skill = NULL;
	const char *body;
	int error;

	error = skit_registry_load(&skill, reg, e, NULL);
	if (error == SKIT_ENOMEM)
		return error;
	if (error < 0)
		return 0;
	error = skit_skill_body(skill, &body, NULL, NULL);
	if (!error)
		error = add_text(b, body, 1, false);
	else if (error != SKIT_ENOMEM)
		error = 0;
	skit_skill_free(skill);
	return error;
}

static void search_free(struct skit__search *s)
{
	if (!s)
		return;
	skitx_strmap_release(&s->terms);
	skit__arena_release(&s->strings);
	skitx_free(s->start);
	skitx_free(s->docs);
	skitx_free(s->tfs);
	skitx_free(s->norm);
	skitx_free(s->scores);
	skitx_free(s->touched);
	skitx_free(s);
}

static int build(struct skit__search **out, skit_registry *reg, bool body)
{
	struct build b;
	struct skit__search *s;
	size_t n = skit_registry_count(reg);
	double total = 0, avg;
	float *lens = NULL;
	int error = SKIT_ENOMEM;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	s = skitx_calloc(1, sizeof(*s));
	if (!s)
		return SKIT_ENOMEM;
	b.s = s;
	s->ndocs = n;
	if (n > UINT32_MAX - 1)
		goto out;
	b.doc_end = skitx_malloc((n ? n : 1) * sizeof(*b.doc_end));
	lens = skitx_malloc((n ? n : 1) * sizeof(*lens));
	s->norm = skitx_malloc((n ? n : 1) * sizeof(*s->norm));
	s->scores = skitx_calloc(n ? n : 1, sizeof(*s->scores));
	s->touched = skitx_malloc((n ? n : 1) * sizeof(*s->touched));
	if (!b.doc_end || !lens || !s->norm || !s->scores || !s->touched)
		goto out;

	for (size_t d = 0; d < n; d++) {
		const skit_entry *e = skit_registry_entry(reg, d);

		b.doc_len = 0;
		error = add_text(&b, e->name, NAME_WEIGHT, true);
		if (!error)
			error = add_text(&b, e->description, 1, false);
		if (!error && e->when_to_use)
			error = add_text(&b, e->when_to_use, 1, false);
		if (!error && body)
			error = add_body(&b, reg, e);
		if (!error)
			error = end_doc(&b, d);
		if (error < 0)
			goto out;
		lens[d] = (float)b.doc_len;
		total += (double)b.doc_len;
	}
	avg = n && total > 0 ? total / (double)n : 1;
	for (size_t d = 0; d < n; d++)
		s->norm[d] = (float)(BM25_K1 *
		                     (1 - BM25_B + BM25_B * lens[d] / avg));
	/* the build's scratch goes before the postings are laid out */
	skitx_free(b.tf_acc);
	skitx_free(b.cur);
	b.tf_acc = b.cur = NULL;
	if (b.npt && b.npt < b.pt_alloc) {
		uint32_t *t = skitx_realloc(b.pt_term, b.npt * sizeof(*t));
		uint16_t *f;

		if (t)
			b.pt_term = t;
		f = skitx_realloc(b.pt_tf, b.npt * sizeof(*f));
		if (f)
			b.pt_tf = f;
	}
	error = layout(&b);
	if (error < 0)
		goto out;
	*out = s;
	s = NULL;
out:
	search_free(s);
	skitx_free(lens);
	skitx_free(b.tf_acc);
	skitx_free(b.cur);
	skitx_free(b.pt_term);
	skitx_free(b.pt_tf);
	skitx_free(b.doc_end);
	return error;
}

/*
 * Natural logarithm for x > 0, without libm (the library links no -lm):
 * x = m * 2^e with m in [1, 2), then ln m = 2 atanh((m - 1) / (m + 1)),
 * whose series converges fast for |z| <= 1/3. Exact to ~1e-15; only IDF
 * needs it.
 */
static double ln(double x)
{
	static const double ln2 = 0.69314718055994530942;
	double z, z2, term, sum;
	int e = 0;

	while (x >= 2) {
		x /= 2;
		e++;
	}
	while (x < 1) {
		x *= 2;
		e--;
	}
	z = (x - 1) / (x + 1);
	z2 = z * z;
	term = z;
	sum = 0;
	for (int k = 1; k < 60; k += 2) {
		sum += term / k;
		term *= z2;
	}
	return 2 * sum + e * ln2;
}

/* Better hit first: higher score, then lower document (index order). */
static bool better(const double *scores, uint32_t a, uint32_t b)
{
	if (scores[a] != scores[b])
		return scores[a] > scores[b];
	return a < b;
}

/* A min-heap of the k best so far: the worst kept hit at heap[0]. */
static void sift_down(uint32_t *heap, size_t n, size_t i, const double *sc)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		uint32_t t;

		if (l < n && better(sc, heap[w], heap[l]))
			w = l;
		if (r < n && better(sc, heap[w], heap[r]))
			w = r;
		if (w == i)
			return;
		t = heap[i];
		heap[i] = heap[w];
		heap[w] = t;
		i = w;
	}
}

static void sift_up(uint32_t *heap, size_t i, const double *sc)
{
	while (i) {
		size_t p = (i - 1) / 2;
		uint32_t t;

		if (!better(sc, heap[p], heap[i]))
			return;
		t = heap[i];
		heap[i] = heap[p];
		heap[p] = t;
		i = p;
	}
}

/* Split the query into distinct folded terms (stored in `buf`). */
static size_t query_terms(const char *query, char (*buf)[MAX_TOKEN],
                          size_t *lens)
{
	const unsigned char *p = (const unsigned char *)query;
	size_t n = 0;

	while (*p && n < MAX_QUERY) {
		const unsigned char *word, *wend, *start;
		size_t pieces = 0;

		/* a word is a run without spaces; its pieces are tokens */
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		word = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' &&
		       *p != '\r')
			p++;
		wend = p;
		for (const unsigned char *q = word;
		     q < wend && n < MAX_QUERY;) {
			while (q < wend && !token_byte(*q))
				q++;
			if (q == wend)
				break;
			start = q;
			while (q < wend && token_byte(*q))
				q++;
			lens[n] = fold(buf[n], (const char *)start,
			               (size_t)(q - start));
			n++;
			pieces++;
		}
		/* "pdf-tools" also matches the whole name */
		if (pieces > 1 && n < MAX_QUERY) {
			while (word < wend && !token_byte(*word))
				word++;
			while (wend > word && !token_byte(wend[-1]))
				wend--;
			lens[n] = fold(buf[n], (const char *)word,
			               (size_t)(wend - word));
			n++;
		}
	}
	/* drop stop words, unless nothing else is left */
	{
		size_t kept = 0;

		for (size_t i = 0; i < n; i++)
			kept += !stop_word(buf[i], lens[i]);
		for (size_t i = 0; kept && kept < n && i < n; i++)
			if (stop_word(buf[i], lens[i])) {
				memmove(buf[i], buf[n - 1], MAX_TOKEN);
				lens[i] = lens[n - 1];
				n--;
				i--;
			}
	}
	/* drop repeats: each distinct term counts once */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (lens[i] == lens[j] &&
			    !memcmp(buf[i], buf[j], lens[i])) {
				memmove(buf[j], buf[n - 1], MAX_TOKEN);
				lens[j] = lens[n - 1];
				n--;
				j--;
			}
	return n;
}

int skit_registry_search(skit_registry *reg, const char *query,
                         unsigned int flags, skit_search_hit *hits, size_t k,
                         size_t *n, skit_error *err)
{
	char terms[MAX_QUERY][MAX_TOKEN];
	size_t lens[MAX_QUERY], nterms, ntouched = 0, nheap = 0;
	struct skit__search *s;
	uint32_t *heap;
	bool body = flags & SKIT_SEARCH_BODY;
	int error;

	assert(reg && query && n && (hits || !k));
	*n = 0;
	if (!reg->index || !k)
		return 0;
	s = reg->index->search[body];
	if (!s) {
		error = build(&s, reg, body);
		if (error < 0)
			return skit__error_oom(err);
		reg->index->search[body] = s;
		reg->index->search_free = search_free;
	}
	nterms = query_terms(query, terms, lens);

	for (size_t q = 0; q < nterms; q++) {
		uint32_t *id = skitx_strmap_get(&s->terms, terms[q], lens[q]);
		uint32_t from, to;
		double df, idf;

		if (!id)
			continue;
		from = s->start[*id];
		to = s->start[*id + 1];
		df = (double)(to - from);
		idf = ln(1 + ((double)s->ndocs - df + 0.5) / (df + 0.5));
		for (uint32_t i = from; i < to; i++) {
			uint32_t d = s->docs[i];
			double tf = s->tfs[i];

			if (s->scores[d] == 0)
				s->touched[ntouched++] = d;
			s->scores[d] +=
			        idf * tf * (BM25_K1 + 1) / (tf + s->norm[d]);
		}
	}

	/* Keep the best k in a heap whose top is the worst kept hit. */
	error = 0;
	heap = skitx_malloc((k < ntouched ? k
	                     : ntouched   ? ntouched
	                                  : 1) *
	                    sizeof(*heap));
	if (!heap) {
		error = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < ntouched; i++) {
		uint32_t d = s->touched[i];

		if (nheap < k) {
			heap[nheap++] = d;
			sift_up(heap, nheap - 1, s->scores);
		} else if (better(s->scores, d, heap[0])) {
			heap[0] = d;
			sift_down(heap, nheap, 0, s->scores);
		}
	}
	/* Pop worst-first into the tail of `hits`: the best ends up first. */
	*n = nheap;
	while (nheap) {
		uint32_t d = heap[0];

		hits[nheap - 1].entry = skit_registry_entry(reg, d);
		hits[nheap - 1].score = s->scores[d];
		heap[0] = heap[--nheap];
		sift_down(heap, nheap, 0, s->scores);
	}
	skitx_free(heap);
out:
	/* the score array stays zeroed between queries */
	for (size_t i = 0; i < ntouched; i++)
		s->scores[s->touched[i]] = 0;
	return error;
}
