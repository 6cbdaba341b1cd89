/* llm.c - a Llama-style decoder-only transformer in plain C over tile.
 *
 * The model (TinyLlama-1.1B's shape by default, any shape the weight file's
 * header gives within the limits check_config states) runs entirely in the
 * kernels of kernels.py, compiled by tilec into kernels.c/kernels.h (the
 * manifest kernels.tile) and launched through tile.h; the program itself
 * only reads the weight file, allocates device memory through the driver
 * (cuda.h, dlopen'd libcuda.so.1) and orders the launches.
 *
 * Flow: the prompt runs as one prefill (GEMMs over all its rows, causal
 * flash attention, the KV cache written for every position), then each
 * decode step (one token) is a fixed sequence of launches that reads the
 * position and the token from device memory (`state` = [pos, token]): its
 * last kernel picks the next token by argmax, writes it into the token
 * history, embeds it into the hidden state and advances pos. So the step is
 * captured once into a CUDA graph and replayed with no host work between
 * steps; the host reads the logits back only to dump or check them.
 *
 * Launches go through tile_launch_ex with the grid computed here, so the
 * same code drives the second back end, interp.h (tile's reference
 * interpreter, built with -DLLM_CPU), which the CPU test uses; --check
 * compares either back end's logits with a plain-C fp32 forward pass
 * (ref_forward below) run on the same tokens.
 *
 * Start-up on the GPU: the driver's (cuInit, the primary context, the
 * kernels' modules) runs in a thread while the main thread reads the weight
 * file (device_start); what was read goes to the device once the driver is
 * up, the rest piece by piece as it is read (load_weights).
 *
 * Weight file: README.md. Options: usage() below. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "kernels.h"
#include "cuda.h"
#ifdef LLM_CPU
#include "interp.h"
#endif

enum { MAX_HEAD_DIM = 256 };

#define WEIGHT_MAGIC "TILELLM\0"
enum { WEIGHT_VERSION = 1, HEADER_BYTES = 64 };

typedef struct config {
	int hidden, layers, heads, kv_heads, head_dim, ffn, vocab;
	float eps, theta;
} config;

typedef struct layer_w {
	uint64_t attn_norm, wqkv, wo, mlp_norm, wgu, wdown;
} layer_w;

enum kern {
	K_GEMV_NORM,
	K_GEMV_RESIDUAL,
	K_GEMV_LOGITS,
	K_GEMV_SWIGLU,
	K_GEMV_DOWN,
	K_ATTN_DECODE,
	K_ATTN_DECODE_SPLIT,
	K_ATTN_REDUCE,
	K_ARGMAX_STEP,
	K_EMBED,
	K_RMSNORM,
	K_GEMM,
	K_GEMM_RESIDUAL,
	K_GEMM_SWIGLU,
	K_ROPE_KV,
	K_ATTN_PREFILL,
	K_COUNT
};
static const char *const kern_name[K_COUNT] = {
	"gemv_norm",   "gemv_residual", "gemv_logits", "gemv_swiglu", "gemv_down",     "attn_decode",
	"attn_decode_split", "attn_reduce", "argmax_step", "embed",    "rmsnorm",       "gemm",
	"gemm_residual", "gemm_swiglu",     "rope_kv",     "attn_prefill",
};
/* the decode kernels, which wait (gdc_wait) before reading what an earlier
 * kernel wrote, so --pdl may launch them early */
static int kern_pdl_safe(int k) { return k <= K_ARGMAX_STEP; }

typedef struct alloc_rec {
	uint64_t p;
} alloc_rec;

typedef struct model {
	config c;
	int qkv_dim, ctx, rows, npart;
	int cpu, pdl, split_reduce;
	int only; /* >= 0: launch() skips every kernel but this one (--bench-kernels) */
	unsigned skip;  /* decode kernels a decode step leaves out (--bench-skip), by enum kern bit */
	int in_decode;  /* decode_step is launching */
	size_t payload_bytes;     /* all weights, as in the file after the header */
	size_t streamed_bytes;    /* weight bytes a decode step reads */
	uint16_t *host_weights;   /* on the GPU the payload as read; freed after the first token unless --check */
	uint64_t weights;         /* the payload on the device */
	uint64_t emb, final_norm, lm_head;
	layer_w *layer;
	uint64_t h, xn, qkv, qr, attn, act, kc, vc, cos, sin, po, pl, cnt, logits, pval, pidx, state, tokens;
	alloc_rec *allocs;
	int nallocs, cap_allocs;
	cu_handle ctx_handle, stream;
	int device, have_ctx;
	tile_module *mod;
	int kidx[K_COUNT];
	/* the kernels' constexprs the grids and buffers depend on, read from
	 * the blob (or the manifest, --cpu): kernels.tile is their one source */
	int bm[K_COUNT], bn[K_COUNT], bk[K_COUNT];
	int splits, group, head_dim;
} model;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cdiv(int a, int b) { return (a + b - 1) / b; }

/* ------------------------------------------------------------ fp16 */

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;
	float f;
	if (exp == 0) {
		f = ldexpf((float)man, -24);
		return sign ? -f : f;
	}
	if (exp == 31)
		bits = sign | 0x7f800000u | (man << 13);
	else
		bits = sign | ((exp + 112) << 23) | (man << 13);
	memcpy(&f, &bits, sizeof f);
	return f;
}

static uint16_t float_to_half(float f)
{
	uint32_t x, sign, man;
	int exp;
	memcpy(&x, &f, sizeof x);
	sign = (x >> 16) & 0x8000u;
	exp = (int)((x >> 23) & 255) - 127 + 15;
	man = x & 0x7fffffu;
	if (((x >> 23) & 255) == 255)
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) {
		uint32_t m, shift, r;
		if (exp < -10)
			return (uint16_t)sign;
		m = man | 0x800000u;
		shift = (uint32_t)(14 - exp);
		r = m >> shift;
		if ((m & ((1u << shift) - 1)) > (1u << (shift - 1)) ||
		    ((m & ((1u << shift) - 1)) == (1u << (shift - 1)) && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	{
		uint32_t r = ((uint32_t)exp << 10) | (man >> 13), rest = man & 0x1fffu;
		if (rest > 0x1000u || (rest == 0x1000u && (r & 1)))
			r++; /* may carry into the exponent: still right, up to infinity */
		return (uint16_t)(sign | r);
	}
}

/* ------------------------------------------------------------ memory */

static int track(model *m, uint64_t p, size_t bytes)
{
	if (m->nallocs == m->cap_allocs) {
		int cap = m->cap_allocs ? 2 * m->cap_allocs : 32;
		alloc_rec *a = realloc(m->allocs, sizeof *a * (size_t)cap);
		if (!a)
			return 1;
		m->allocs = a;
		m->cap_allocs = cap;
	}
	m->allocs[m->nallocs++].p = p;
#ifdef LLM_CPU
	if (m->cpu && interp_region_add(p, bytes))
		return 1;
#else
	(void)bytes;
#endif
	return 0;
}

/* Zeroed device memory (host memory for the interpreter), 256-byte aligned. */
static int dalloc(model *m, uint64_t *out, size_t bytes, const char *what)
{
	size_t size = (bytes + 255) & ~(size_t)255;
	*out = 0;
	if (size == 0)
		size = 256;
	if (m->cpu) {
		void *p = NULL;
		if (posix_memalign(&p, 256, size) != 0 || !p) {
			fprintf(stderr, "llm: out of memory allocating %s (%zu bytes)\n", what, size);
			return 1;
		}
		memset(p, 0, size);
		*out = (uint64_t)(uintptr_t)p;
	} else {
		cu_ptr p = 0;
		if (cu_fail(cu.cuMemAlloc_v2(&p, size), what) || cu_fail(cu.cuMemsetD8Async(p, 0, size, m->stream), what)) {
			if (p)
				cu.cuMemFree_v2(p);
			return 1;
		}
		*out = p;
	}
	if (track(m, *out, bytes ? bytes : 1)) {
		fprintf(stderr, "llm: out of memory\n");
		if (m->cpu)
			free((void *)(uintptr_t)*out);
		else
			cu.cuMemFree_v2(*out);
		*out = 0;
		return 1;
	}
	return 0;
}

static int htod(model *m, uint64_t dst, const void *src, size_t bytes)
{
	if (m->cpu) {
		memcpy((void *)(uintptr_t)dst, src, bytes);
		return 0;
	}
	return cu_fail(cu.cuMemcpyHtoDAsync_v2(dst, src, bytes, m->stream), "cuMemcpyHtoDAsync");
}

static int dtoh(model *m, void *dst, uint64_t src, size_t bytes)
{
	if (m->cpu) {
		memcpy(dst, (const void *)(uintptr_t)src, bytes);
		return 0;
	}
	return cu_fail(cu.cuMemcpyDtoHAsync_v2(dst, src, bytes, m->stream), "cuMemcpyDtoHAsync") ||
	       cu_fail(cu.cuStreamSynchronize(m->stream), "cuStreamSynchronize");
}

/* ------------------------------------------------------------ launches */

typedef struct karg {
	char kind; /* 'p' pointer, 'i' i32, 'f' fp32 */
	uint64_t p;
	int32_t i;
	float f;
} karg;
#define AP(x) ((karg){'p', (x), 0, 0.0f})
#define AI(x) ((karg){'i', 0, (int32_t)(x), 0.0f})
#define AF(x) ((karg){'f', 0, 0, (float)(x)})
#define LAUNCH(m, k, gx, gy, ...) \
	launch((m), (k), (uint32_t)(gx), (uint32_t)(gy), (karg[]){__VA_ARGS__}, \
	       (int)(sizeof((karg[]){__VA_ARGS__}) / sizeof(karg)))

static int launch(model *m, int k, uint32_t gx, uint32_t gy, karg *a, int n)
{
	const uint32_t grid[3] = {gx, gy, 1};
	if ((m->only >= 0 && k != m->only) || (m->in_decode && (m->skip >> k & 1)))
		return 0;
	if (m->cpu) {
#ifdef LLM_CPU
		char kinds[32];
		uint64_t ptrs[32];
		int32_t ints[32];
		float floats[32];
		for (int i = 0; i < n && i < 32; i++) {
			kinds[i] = a[i].kind;
			ptrs[i] = a[i].p;
			ints[i] = a[i].i;
			floats[i] = a[i].f;
		}
		return interp_launch(kern_name[k], grid, n, kinds, ptrs, ints, floats);
#else
		return 1;
#endif
	} else {
		void *args[32];
		tile_status st;
		for (int i = 0; i < n && i < 32; i++)
			args[i] = a[i].kind == 'p' ? (void *)&a[i].p : a[i].kind == 'i' ? (void *)&a[i].i : (void *)&a[i].f;
		st = tile_launch_ex(m->mod, m->kidx[k], -1, grid, (tile_stream)m->stream, args, n,
				    m->pdl && kern_pdl_safe(k) ? TILE_LAUNCH_PDL : 0);
		if (st != TILE_SUCCESS) {
			fprintf(stderr, "llm: launching %s: %s: %s\n", kern_name[k], tile_status_string(st), tile_last_error());
			return 1;
		}
		return 0;
	}
}

/* ------------------------------------------------------------ the model */

static uint64_t kv_layer(const model *m, uint64_t base, int l)
{
	return base + (uint64_t)l * (uint64_t)m->c.kv_heads * (uint64_t)m->ctx * (uint64_t)m->c.head_dim * 2;
}

/* decode_step's launches, in order */
static int decode_launches(model *m)
{
	const config *c = &m->c;
	const float scale = 1.0f / sqrtf((float)c->head_dim);
	const int H = c->hidden, attn_dim = c->heads * c->head_dim;
	for (int l = 0; l < c->layers; l++) {
		const layer_w *w = &m->layer[l];
		const uint64_t kc = kv_layer(m, m->kc, l), vc = kv_layer(m, m->vc, l);
		if (LAUNCH(m, K_GEMV_NORM, cdiv(m->qkv_dim, m->bn[K_GEMV_NORM]), 1, AP(m->h), AP(w->attn_norm), AP(w->wqkv), AP(m->qkv),
			   AP(0), AP(0), AI(m->qkv_dim), AI(H), AF(c->eps)) ||
		    LAUNCH(m, m->split_reduce ? K_ATTN_DECODE_SPLIT : K_ATTN_DECODE, c->kv_heads, m->splits, AP(m->qkv),
			   AP(kc), AP(vc), AP(m->cos), AP(m->sin), AP(m->state), AP(m->po), AP(m->pl), AP(m->cnt),
			   AP(m->attn), AI(m->ctx), AF(scale), AI(c->heads), AI(c->kv_heads)) ||
		    (m->split_reduce &&
		     LAUNCH(m, K_ATTN_REDUCE, c->heads, 1, AP(m->po), AP(m->pl), AP(m->attn), AI(c->heads))) ||
		    LAUNCH(m, K_GEMV_RESIDUAL, cdiv(H, m->bn[K_GEMV_RESIDUAL]), 1, AP(m->attn), AP(0), AP(w->wo), AP(m->h), AP(0), AP(0),
			   AI(H), AI(attn_dim), AF(c->eps)) ||
		    LAUNCH(m, K_GEMV_SWIGLU, cdiv(c->ffn, m->bn[K_GEMV_SWIGLU]), 1, AP(m->h), AP(w->mlp_norm), AP(w->wgu), AP(m->act),
			   AI(c->ffn), AI(H), AF(c->eps)) ||
		    LAUNCH(m, K_GEMV_DOWN, cdiv(H, m->bn[K_GEMV_DOWN]), 1, AP(m->act), AP(0), AP(w->wdown), AP(m->h), AP(0), AP(0),
			   AI(H), AI(c->ffn), AF(c->eps)))
			return 1;
	}
	return LAUNCH(m, K_GEMV_LOGITS, m->npart, 1, AP(m->h), AP(m->final_norm), AP(m->lm_head), AP(m->logits),
		      AP(m->pval), AP(m->pidx), AI(c->vocab), AI(H), AF(c->eps)) ||
	       LAUNCH(m, K_ARGMAX_STEP, 1, 1, AP(m->pval), AP(m->pidx), AI(m->npart), AP(m->emb), AP(m->h),
		      AP(m->state), AP(m->tokens), AI(H));
}

/* One decode step for the token in h at position state[0]; ends with the
 * next token chosen and embedded (argmax_step). No host state is read, so
 * the same launches are captured once and replayed. --bench-skip leaves
 * the kernels it names out of it (timing only). */
static int decode_step(model *m)
{
	m->in_decode = 1;
	int rc = decode_launches(m);
	m->in_decode = 0;
	return rc;
}

/* The decode step (of the kernels m->only lets through) captured into a
 * graph and instantiated; on failure *graph and *exec are whatever was made,
 * for the caller to release. */
static int capture_step(model *m, cu_handle *graph, cu_handle *exec)
{
	if (cu_fail(cu.cuStreamBeginCapture_v2(m->stream, CU_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture"))
		return 1;
	if (decode_step(m)) {
		cu.cuStreamEndCapture(m->stream, graph);
		return 1;
	}
	return cu_fail(cu.cuStreamEndCapture(m->stream, graph), "cuStreamEndCapture") ||
	       cu_fail(cu.cuGraphInstantiateWithFlags(exec, *graph, 0), "cuGraphInstantiateWithFlags");
}

/* A graph, its instance and n events, any of them NULL. */
static void release_timing(cu_handle exec, cu_handle graph, cu_handle *ev, int n)
{
	if (exec)
		cu.cuGraphExecDestroy(exec);
	if (graph)
		cu.cuGraphDestroy(graph);
	for (int i = 0; i < n; i++)
		if (ev[i])
			cu.cuEventDestroy_v2(ev[i]);
}

/* --bench-kernels: each decode kernel alone, its launches of one step (one
 * a layer) captured in a graph and replayed, so that the time per launch is
 * what the kernel costs inside a step, launch gaps included. Runs after
 * everything else: kernels run alone leave h and the cache as no real step
 * would. step_ms > 0 gives each kernel's share of a step. */
static int bench_kernels(model *m, double step_ms)
{
	const config *c = &m->c;
	const double H = c->hidden, A = (double)c->heads * c->head_dim;
	const int ks[] = {K_GEMV_NORM,   m->split_reduce ? K_ATTN_DECODE_SPLIT : K_ATTN_DECODE,
			  m->split_reduce ? K_ATTN_REDUCE : -1,
			  K_GEMV_RESIDUAL, K_GEMV_SWIGLU, K_GEMV_DOWN, K_GEMV_LOGITS, K_ARGMAX_STEP};
	const int reps = 20;
	cu_handle ev[2] = {0, 0}, graph = 0, exec = 0;
	int rc = 1;
	if (cu_fail(cu.cuEventCreate(&ev[0], 0), "cuEventCreate") || cu_fail(cu.cuEventCreate(&ev[1], 0), "cuEventCreate"))
		goto out;
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		const int k = ks[i];
		const int per_step = k == K_GEMV_LOGITS || k == K_ARGMAX_STEP ? 1 : c->layers;
		/* the weight bytes one launch reads (0: not a GEMV) */
		const double bytes = k == K_GEMV_NORM ? m->qkv_dim * H * 2
				     : k == K_GEMV_RESIDUAL ? H * A * 2
				     : k == K_GEMV_SWIGLU  ? 2.0 * c->ffn * H * 2
				     : k == K_GEMV_DOWN    ? H * c->ffn * 2
				     : k == K_GEMV_LOGITS  ? c->vocab * H * 2
							   : 0;
		float ms = 0;
		if (k < 0)
			continue;
		m->only = k;
		if (capture_step(m, &graph, &exec) || cu_fail(cu.cuGraphLaunch(exec, m->stream), "cuGraphLaunch") ||
		    cu_fail(cu.cuEventRecord(ev[0], m->stream), "cuEventRecord"))
			goto out;
		for (int r = 0; r < reps; r++)
			if (cu_fail(cu.cuGraphLaunch(exec, m->stream), "cuGraphLaunch"))
				goto out;
		if (cu_fail(cu.cuEventRecord(ev[1], m->stream), "cuEventRecord") ||
		    cu_fail(cu.cuEventSynchronize(ev[1]), "cuEventSynchronize") ||
		    cu_fail(cu.cuEventElapsedTime(&ms, ev[0], ev[1]), "cuEventElapsedTime"))
			goto out;
		cu.cuGraphExecDestroy(exec);
		cu.cuGraphDestroy(graph);
		exec = graph = 0;
		{
			const double us = ms * 1e3 / reps / per_step;
			char share[32] = "", rate[48] = "";
			if (step_ms > 0)
				snprintf(share, sizeof share, ", %4.1f%% of a step", 100.0 * us * per_step / (step_ms * 1e3));
			if (bytes > 0)
				snprintf(rate, sizeof rate, ", %5.0f GB/s of weights", bytes / (us * 1e-6) / 1e9);
			printf("bench: kernel %-17s x%-2d %7.2f us each%s%s\n", kern_name[k], per_step, us, share, rate);
		}
	}
	rc = 0;
out:
	m->only = -1;
	release_timing(exec, graph, ev, 2);
	return rc;
}

/* The prompt (tokens[0..P) already on the device) in one pass; ends as a
 * decode step does, with token P chosen, embedded into h (row 0) and
 * state = [P, token]. */
static int prefill(model *m, int P, int last_token)
{
	const config *c = &m->c;
	const float scale = 1.0f / sqrtf((float)c->head_dim);
	const int H = c->hidden, attn_dim = c->heads * c->head_dim;
	const int32_t state[4] = {P - 1, last_token, 0, 0};
	if (htod(m, m->state, state, sizeof state) ||
	    LAUNCH(m, K_EMBED, P, 1, AP(m->tokens), AP(m->emb), AP(m->h), AI(P), AI(H)))
		return 1;
	for (int l = 0; l < c->layers; l++) {
		const layer_w *w = &m->layer[l];
		const uint64_t kc = kv_layer(m, m->kc, l), vc = kv_layer(m, m->vc, l);
		const int mb = cdiv(P, m->bm[K_GEMM]), mbr = cdiv(P, m->bm[K_GEMM_RESIDUAL]),
			  mbs = cdiv(P, m->bm[K_GEMM_SWIGLU]);
		if (LAUNCH(m, K_RMSNORM, P, 1, AP(m->h), AP(w->attn_norm), AP(m->xn), AI(P), AI(H), AF(c->eps)) ||
		    LAUNCH(m, K_GEMM, mb, cdiv(m->qkv_dim, m->bn[K_GEMM]), AP(m->xn), AP(w->wqkv), AP(m->qkv), AI(P),
			   AI(m->qkv_dim), AI(H)) ||
		    LAUNCH(m, K_ROPE_KV, P, c->heads + c->kv_heads, AP(m->qkv), AP(m->cos), AP(m->sin), AP(m->qr), AP(kc),
			   AP(vc), AI(P), AI(m->ctx), AI(c->heads), AI(c->kv_heads)) ||
		    LAUNCH(m, K_ATTN_PREFILL, cdiv(P, m->bm[K_ATTN_PREFILL]), c->heads, AP(m->qr), AP(kc), AP(vc), AP(m->attn), AI(P),
			   AI(m->ctx), AF(scale), AI(c->heads), AI(c->kv_heads)) ||
		    LAUNCH(m, K_GEMM_RESIDUAL, mbr, cdiv(H, m->bn[K_GEMM_RESIDUAL]), AP(m->attn), AP(w->wo), AP(m->h), AI(P), AI(H),
			   AI(attn_dim)) ||
		    LAUNCH(m, K_RMSNORM, P, 1, AP(m->h), AP(w->mlp_norm), AP(m->xn), AI(P), AI(H), AF(c->eps)) ||
		    LAUNCH(m, K_GEMM_SWIGLU, mbs, cdiv(c->ffn, m->bn[K_GEMM_SWIGLU]), AP(m->xn), AP(w->wgu), AP(m->act), AI(P),
			   AI(c->ffn), AI(H)) ||
		    LAUNCH(m, K_GEMM_RESIDUAL, mbr, cdiv(H, m->bn[K_GEMM_RESIDUAL]), AP(m->act), AP(w->wdown), AP(m->h), AI(P), AI(H),
			   AI(c->ffn)))
			return 1;
	}
	return LAUNCH(m, K_GEMV_LOGITS, m->npart, 1, AP(m->h + (uint64_t)(P - 1) * (uint64_t)H * 2),
		      AP(m->final_norm), AP(m->lm_head), AP(m->logits), AP(m->pval), AP(m->pidx), AI(c->vocab), AI(H),
		      AF(c->eps)) ||
	       LAUNCH(m, K_ARGMAX_STEP, 1, 1, AP(m->pval), AP(m->pidx), AI(m->npart), AP(m->emb), AP(m->h),
		      AP(m->state), AP(m->tokens), AI(H));
}

/* ------------------------------------------------------------ driver start-up */

/* Opens libcuda.so.1 into `cu`; before the start-up thread, which then only
 * reads the table. */
static int open_driver(void)
{
	char why[160];
	if (cu_open(why, sizeof why)) {
		fprintf(stderr, "llm: no GPU: %s%s\n", why,
#ifdef LLM_CPU
			" (--cpu runs the kernels in the reference interpreter)"
#else
			""
#endif
		);
		return 1;
	}
	return 0;
}

/* The module from the blob and each kernel's index; no driver call. */
static int find_kernels(model *m)
{
	tile_status st = kernels_module(&m->mod);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "llm: loading the kernels: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	for (int k = 0; k < K_COUNT; k++)
		if ((m->kidx[k] = tile_kernel_index(m->mod, kern_name[k])) < 0) {
			fprintf(stderr, "llm: the blob has no kernel %s\n", kern_name[k]);
			return 1;
		}
	return 0;
}

/* The driver's start-up (cuInit and the primary context: about 200 ms on an
 * H200) runs in a thread while the main thread reads the weight file. The thread
 * makes the primary context current on itself to create the stream and
 * load the kernels' modules; currency is per thread, so device_join makes
 * the context current on the main thread as well. The thread writes only
 * this struct (the model stays the main thread's until the join) and
 * reports its own failure, with the messages of a start-up on the main
 * thread. */
typedef struct device_start {
	pthread_t thread;
	pthread_mutex_t lock;
	int started;
	int done;   /* under lock: the read polls it */
	int failed; /* read after the join */
	tile_module *mod;
	int device, have_ctx, major, minor, sms;
	cu_handle ctx, stream;
	char name[128];
	double t_device, t_modules; /* driver and context; the modules' load */
} device_start;

static void *device_start_run(void *arg)
{
	device_start *d = arg;
	double t0 = now_s();
	int n = 0, failed = 1;
	tile_status st;
	if (cu_fail(cu.cuInit(0), "cuInit") || cu_fail(cu.cuDeviceGetCount(&n), "cuDeviceGetCount"))
		goto out;
	if (n == 0) {
		fprintf(stderr, "llm: no CUDA device\n");
		goto out;
	}
	if (cu_fail(cu.cuDeviceGet(&d->device, 0), "cuDeviceGet") ||
	    cu_fail(cu.cuDevicePrimaryCtxRetain(&d->ctx, d->device), "cuDevicePrimaryCtxRetain"))
		goto out;
	d->have_ctx = 1;
	if (cu_fail(cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent") ||
	    cu_fail(cu.cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
		goto out;
	memcpy(d->name, "?", 2);
	cu.cuDeviceGetName(d->name, sizeof d->name, d->device);
	cu.cuDeviceGetAttribute(&d->major, CU_ATTR_CC_MAJOR, d->device);
	cu.cuDeviceGetAttribute(&d->minor, CU_ATTR_CC_MINOR, d->device);
	cu.cuDeviceGetAttribute(&d->sms, CU_ATTR_MULTIPROCESSOR_COUNT, d->device);
	d->t_device = now_s() - t0;
	t0 = now_s();
	if ((st = tile_module_load(d->mod)) != TILE_SUCCESS) {
		fprintf(stderr, "llm: loading the kernels: %s: %s\n", tile_status_string(st), tile_last_error());
		goto out;
	}
	d->t_modules = now_s() - t0;
	failed = 0;
out:
	d->failed = failed;
	pthread_mutex_lock(&d->lock);
	d->done = 1;
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Starts the thread; `cu` is filled (open_driver) and the module created
 * (find_kernels) before. */
static int device_start_begin(device_start *d, tile_module *mod)
{
	int rc;
	d->mod = mod;
	if ((rc = pthread_mutex_init(&d->lock, NULL)) == 0 &&
	    (rc = pthread_create(&d->thread, NULL, device_start_run, d)) != 0)
		pthread_mutex_destroy(&d->lock);
	if (rc) {
		fprintf(stderr, "llm: cannot start the driver's thread: %s\n", strerror(rc));
		return 1;
	}
	d->started = 1;
	return 0;
}

/* Whether the thread has finished (device_join will not wait). */
static int device_done(device_start *d)
{
	int done;
	pthread_mutex_lock(&d->lock);
	done = d->done;
	pthread_mutex_unlock(&d->lock);
	return done;
}

/* Waits for the thread (every path out of main does, so that nothing it
 * made is lost), hands what it made to the model for teardown and makes
 * the context current on this thread; 1 when the start-up failed. */
static int device_join(model *m, device_start *d, int quiet)
{
	if (!d->started)
		return 0;
	pthread_join(d->thread, NULL);
	pthread_mutex_destroy(&d->lock);
	d->started = 0;
	m->device = d->device;
	m->ctx_handle = d->ctx;
	m->have_ctx = d->have_ctx;
	m->stream = d->stream;
	if (d->failed) {
		if (d->have_ctx)
			cu.cuCtxSetCurrent(d->ctx); /* for teardown, as when the start-up ran here */
		return 1;
	}
	if (cu_fail(cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent"))
		return 1;
	if (!quiet)
		printf("llm: device %s (compute capability %d.%d, %d SMs)\n", d->name, d->major, d->minor, d->sms);
	if (m->pdl && d->major < 9 && !quiet)
		printf("llm: --pdl: compute capability below 9.0 launches them normally\n");
	return 0;
}

/* ------------------------------------------------------------ weights */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float lef32(const unsigned char *p)
{
	uint32_t u = le32(p);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* What this build's kernels can run; a clear message for anything else. */
static int check_config(const config *c, const char *path)
{
	const char *bad = NULL;
	if (c->hidden <= 0 || c->hidden > 65536 || c->hidden % 64)
		bad = "hidden size must be a positive multiple of 64 (at most 65536)";
	else if (c->layers <= 0 || c->layers > 1024)
		bad = "layers must be 1 to 1024";
	else if (c->head_dim <= 0 || c->head_dim > MAX_HEAD_DIM || c->head_dim % 16)
		bad = "head_dim must be a multiple of 16, at most 256";
	else if (c->heads <= 0 || c->kv_heads <= 0 || c->heads % c->kv_heads || c->heads > 1024)
		bad = "heads must be a positive multiple of kv_heads (at most 1024)";
	else if (c->ffn <= 0 || c->ffn > 1 << 18 || c->ffn % 64)
		bad = "MLP size must be a positive multiple of 64 (at most 262144)";
	else if (c->vocab <= 0 || c->vocab > 1 << 22 || c->vocab % 16)
		bad = "vocab must be a positive multiple of 16 (at most 4194304)";
	else if (!(c->eps > 0.0f && c->eps < 1.0f) || !(c->theta > 1.0f && c->theta < 1e9f))
		bad = "rms_eps or rope_theta out of range";
	if (bad) {
		fprintf(stderr, "llm: %s: unsupported config: %s\n", path, bad);
		return 1;
	}
	return 0;
}

static size_t payload_elems(const config *c, int qkv_dim)
{
	const size_t H = (size_t)c->hidden, F = (size_t)c->ffn, V = (size_t)c->vocab, A = (size_t)c->heads * c->head_dim;
	size_t per_layer = H + (size_t)qkv_dim * H + H * A + H + 2 * F * H + H * F;
	return V * H + (size_t)c->layers * per_layer + H + V * H;
}

/* Reads the header; the file must be exactly as long as the config says. */
static int read_header(FILE *fp, const char *path, config *c)
{
	unsigned char hdr[HEADER_BYTES];
	if (fread(hdr, 1, sizeof hdr, fp) != sizeof hdr) {
		fprintf(stderr, "llm: %s: shorter than the %d-byte header\n", path, HEADER_BYTES);
		return 1;
	}
	if (memcmp(hdr, WEIGHT_MAGIC, 8) != 0) {
		fprintf(stderr, "llm: %s: not a weight file (bad magic; examples/llm/README.md has the format)\n", path);
		return 1;
	}
	if (le32(hdr + 8) != WEIGHT_VERSION) {
		fprintf(stderr, "llm: %s: format version %u, this program reads %d\n", path, le32(hdr + 8),
			WEIGHT_VERSION);
		return 1;
	}
	{
		uint32_t v[7];
		for (int i = 0; i < 7; i++) {
			v[i] = le32(hdr + 12 + 4 * i);
			if (v[i] > (1u << 30)) {
				fprintf(stderr, "llm: %s: header field %d is %u, out of range\n", path, i, v[i]);
				return 1;
			}
		}
		c->hidden = (int)v[0];
		c->layers = (int)v[1];
		c->heads = (int)v[2];
		c->kv_heads = (int)v[3];
		c->head_dim = (int)v[4];
		c->ffn = (int)v[5];
		c->vocab = (int)v[6];
	}
	c->eps = lef32(hdr + 40);
	c->theta = lef32(hdr + 44);
	return check_config(c, path);
}

/* The file must be exactly as long as the header's config says; leaves fp
 * at the payload. */
static int check_size(FILE *fp, const char *path, size_t bytes)
{
	long long have;
	if (fseek(fp, 0, SEEK_END) != 0 || (have = ftell(fp)) < 0 || fseek(fp, HEADER_BYTES, SEEK_SET) != 0) {
		fprintf(stderr, "llm: %s: cannot seek: %s\n", path, strerror(errno));
		return 1;
	}
	if ((unsigned long long)have != HEADER_BYTES + (unsigned long long)bytes) {
		fprintf(stderr, "llm: %s: %lld bytes, the header's config needs %llu (truncated or not this format)\n", path,
			have, HEADER_BYTES + (unsigned long long)bytes);
		return 1;
	}
	return 0;
}

/* Where the weight loading's time went; the driver's wait is on the way to
 * the first token, the read and the upload are what --bench leaves out. */
typedef struct load_times {
	double read, wait, upload;
} load_times;

/* The device's copy of the payload, once the driver is up: the thread
 * joined (what the main thread waited for it counted) and the memory
 * allocated. */
static int device_up(model *m, device_start *d, int quiet, load_times *t)
{
	double t0 = now_s();
	if (device_join(m, d, quiet))
		return 1;
	t->wait += now_s() - t0;
	t0 = now_s();
	if (dalloc(m, &m->weights, m->payload_bytes, "the weights (cuMemAlloc)"))
		return 1;
	t->upload += now_s() - t0;
	return 0;
}

/* Bytes [off, off + n) of the payload onto the device, from src. */
static int upload(model *m, size_t off, const void *src, size_t n, load_times *t)
{
	double t0 = now_s();
	if (n && (htod(m, m->weights + off, src, n) || cu_fail(cu.cuStreamSynchronize(m->stream), "upload")))
		return 1;
	t->upload += now_s() - t0;
	return 0;
}

/* Reads the payload; on the CPU into the interpreter's "device" memory. On
 * the GPU the driver starts in the thread d meanwhile: the file is read in
 * 64 MB pieces into a host buffer of the payload's size, the thread polled
 * between pieces; once it has finished, what was read goes to the device
 * in one copy and every later piece right after its read, read into the
 * buffer's start (into its own place when --check keeps the payload). So
 * only what is read during the start-up is held, not a fresh copy of the
 * whole payload, whose page faults would lengthen the read; and a start-up
 * that failed (the thread has said why) ends the read at the next piece. */
static int load_weights(model *m, FILE *fp, const char *path, int keep_host, device_start *d, int quiet,
			load_times *t)
{
	const size_t bytes = m->payload_bytes, chunk = (size_t)64 << 20;
	unsigned char *host;
	int up = 0; /* the driver is up: each piece goes to the device after its read */
	if (check_size(fp, path, bytes))
		return 1;
	if (m->cpu) {
		if (dalloc(m, &m->weights, bytes, "the weights"))
			return 1;
		/* regions for the interpreter's bounds checks come per tensor in
		 * place_weights; the whole payload's region stays too but is never
		 * the smallest */
		if (fread((void *)(uintptr_t)m->weights, 1, bytes, fp) != bytes) {
			fprintf(stderr, "llm: %s: read error\n", path);
			return 1;
		}
		if (keep_host)
			m->host_weights = (uint16_t *)(uintptr_t)m->weights;
		return 0;
	}
	if (!(host = malloc(bytes))) {
		fprintf(stderr, "llm: out of memory for the weights (%zu bytes of host memory)\n", bytes);
		return 1;
	}
	m->host_weights = (uint16_t *)host; /* teardown frees it on an error */
	for (size_t off = 0, n; off < bytes; off += n) {
		unsigned char *dst;
		double t0;
		n = bytes - off < chunk ? bytes - off : chunk;
		if (!up && device_done(d)) {
			if (device_up(m, d, quiet, t) || upload(m, 0, host, off, t))
				return 1;
			up = 1;
		}
		dst = up && !keep_host ? host : host + off;
		t0 = now_s();
		if (fread(dst, 1, n, fp) != n) {
			fprintf(stderr, "llm: %s: read error at byte %zu\n", path, HEADER_BYTES + off);
			return 1;
		}
		t->read += now_s() - t0;
		if (up && upload(m, off, dst, n, t))
			return 1;
	}
	if (!up && (device_up(m, d, quiet, t) || upload(m, 0, host, bytes, t)))
		return 1;
	return 0; /* main frees the host copy after the first token, unless --check reads it */
}

/* Points every weight at its place in the payload. The file order makes q,
 * k, v one [qkv_dim, hidden] matrix and gate, up one [2 * ffn, hidden]
 * matrix. */
static int place_weights(model *m)
{
	const config *c = &m->c;
	const size_t H = (size_t)c->hidden, F = (size_t)c->ffn, V = (size_t)c->vocab, A = (size_t)c->heads * c->head_dim;
	uint64_t p = m->weights;
#ifdef LLM_CPU
#define TENSOR(dst, elems) \
	do { \
		(dst) = p; \
		if (m->cpu && interp_region_add(p, (elems) * 2)) \
			return 1; \
		p += (uint64_t)(elems) * 2; \
	} while (0)
#else
#define TENSOR(dst, elems) \
	do { \
		(dst) = p; \
		p += (uint64_t)(elems) * 2; \
	} while (0)
#endif
	TENSOR(m->emb, V * H);
	for (int l = 0; l < c->layers; l++) {
		layer_w *w = &m->layer[l];
		TENSOR(w->attn_norm, H);
		TENSOR(w->wqkv, (size_t)m->qkv_dim * H);
		TENSOR(w->wo, H * A);
		TENSOR(w->mlp_norm, H);
		TENSOR(w->wgu, 2 * F * H);
		TENSOR(w->wdown, H * F);
	}
	TENSOR(m->final_norm, H);
	TENSOR(m->lm_head, V * H);
#undef TENSOR
	return p - m->weights == m->payload_bytes ? 0 : 1;
}

/* ------------------------------------------------------------ plain-C reference */

/* fp32 forward of the same model over tokens[0..n), teacher-forced: the
 * logits after positions first..n-1 go to out (one row of vocab each).
 * Everything in fp32 from the fp16 weights; slow, for checking only. */
static int ref_forward(const model *m, const int32_t *tokens, int n, int first, float *out)
{
	const config *c = &m->c;
	const int H = c->hidden, F = c->ffn, D = c->head_dim, NH = c->heads, NKV = c->kv_heads, QD = m->qkv_dim;
	const int grp = NH / NKV;
	const uint16_t *w = m->host_weights;
	size_t lsize = (size_t)H + (size_t)QD * H + (size_t)H * NH * D + H + 2 * (size_t)F * H + (size_t)H * F;
	float *x = malloc(sizeof(float) * (size_t)H), *xn = malloc(sizeof(float) * (size_t)H);
	float *qkv = malloc(sizeof(float) * (size_t)QD), *att = malloc(sizeof(float) * (size_t)NH * D);
	float *gu = malloc(sizeof(float) * 2 * (size_t)F), *sc = malloc(sizeof(float) * (size_t)n);
	float *kc = malloc(sizeof(float) * (size_t)c->layers * NKV * n * D);
	float *vc = malloc(sizeof(float) * (size_t)c->layers * NKV * n * D);
	int rc = 0;
	if (!x || !xn || !qkv || !att || !gu || !sc || !kc || !vc) {
		fprintf(stderr, "llm: out of memory for the reference\n");
		rc = 1;
		goto done;
	}
	for (int pos = 0; pos < n; pos++) {
		const uint16_t *lw = w + (size_t)c->vocab * H;
		for (int i = 0; i < H; i++)
			x[i] = half_to_float(w[(size_t)tokens[pos] * H + i]);
		for (int l = 0; l < c->layers; l++, lw += lsize) {
			const uint16_t *an = lw, *wqkv = an + H, *wo = wqkv + (size_t)QD * H, *mn = wo + (size_t)H * NH * D;
			const uint16_t *wgu = mn + H, *wd = wgu + 2 * (size_t)F * H;
			float *kl = kc + (size_t)l * NKV * n * D, *vl = vc + (size_t)l * NKV * n * D;
			double ss = 0;
			for (int i = 0; i < H; i++)
				ss += (double)x[i] * x[i];
			for (int i = 0; i < H; i++)
				xn[i] = x[i] / sqrtf((float)(ss / H) + c->eps) * half_to_float(an[i]);
			for (int o = 0; o < QD; o++) {
				float s = 0;
				for (int i = 0; i < H; i++)
					s += half_to_float(wqkv[(size_t)o * H + i]) * xn[i];
				qkv[o] = s;
			}
			for (int hd = 0; hd < NH + NKV; hd++) { /* RoPE, rotate-half */
				float *v = qkv + hd * D, t[MAX_HEAD_DIM];
				for (int d = 0; d < D; d++) {
					int j = d % (D / 2);
					double ang = pos * pow(c->theta, -2.0 * j / D);
					float rot = d < D / 2 ? -v[d + D / 2] : v[d - D / 2];
					t[d] = v[d] * (float)cos(ang) + rot * (float)sin(ang);
				}
				memcpy(v, t, sizeof(float) * (size_t)D);
			}
			for (int g = 0; g < NKV; g++) {
				memcpy(kl + ((size_t)g * n + pos) * D, qkv + (NH + g) * D, sizeof(float) * D);
				memcpy(vl + ((size_t)g * n + pos) * D, qkv + (NH + NKV + g) * D, sizeof(float) * D);
			}
			for (int hq = 0; hq < NH; hq++) {
				const float *q = qkv + hq * D, *kh = kl + (size_t)(hq / grp) * n * D,
					    *vh = vl + (size_t)(hq / grp) * n * D;
				float mx = -INFINITY, sum = 0;
				for (int t = 0; t <= pos; t++) {
					float s = 0;
					for (int d = 0; d < D; d++)
						s += q[d] * kh[(size_t)t * D + d];
					sc[t] = s / sqrtf((float)D);
					mx = sc[t] > mx ? sc[t] : mx;
				}
				for (int t = 0; t <= pos; t++)
					sum += sc[t] = expf(sc[t] - mx);
				for (int d = 0; d < D; d++) {
					float s = 0;
					for (int t = 0; t <= pos; t++)
						s += sc[t] * vh[(size_t)t * D + d];
					att[hq * D + d] = s / sum;
				}
			}
			for (int o = 0; o < H; o++) {
				float s = 0;
				for (int i = 0; i < NH * D; i++)
					s += half_to_float(wo[(size_t)o * NH * D + i]) * att[i];
				x[o] += s;
			}
			ss = 0;
			for (int i = 0; i < H; i++)
				ss += (double)x[i] * x[i];
			for (int i = 0; i < H; i++)
				xn[i] = x[i] / sqrtf((float)(ss / H) + c->eps) * half_to_float(mn[i]);
			for (int o = 0; o < 2 * F; o++) {
				float s = 0;
				for (int i = 0; i < H; i++)
					s += half_to_float(wgu[(size_t)o * H + i]) * xn[i];
				gu[o] = s;
			}
			for (int i = 0; i < F; i++)
				gu[i] = gu[i] / (1.0f + expf(-gu[i])) * gu[F + i];
			for (int o = 0; o < H; o++) {
				float s = 0;
				for (int i = 0; i < F; i++)
					s += half_to_float(wd[(size_t)o * F + i]) * gu[i];
				x[o] += s;
			}
		}
		if (pos >= first) {
			const uint16_t *fn = lw, *lm = fn + H;
			float *row = out + (size_t)(pos - first) * c->vocab;
			double ss = 0;
			for (int i = 0; i < H; i++)
				ss += (double)x[i] * x[i];
			for (int i = 0; i < H; i++)
				xn[i] = x[i] / sqrtf((float)(ss / H) + c->eps) * half_to_float(fn[i]);
			for (int o = 0; o < c->vocab; o++) {
				float s = 0;
				for (int i = 0; i < H; i++)
					s += half_to_float(lm[(size_t)o * H + i]) * xn[i];
				row[o] = s;
			}
		}
	}
done:
	free(x);
	free(xn);
	free(qkv);
	free(att);
	free(gu);
	free(sc);
	free(kc);
	free(vc);
	return rc;
}

/* Compares the kernels' logits (steps rows) with the reference's on the
 * same tokens. Tolerance: the largest difference at most 2% of the largest
 * reference logit, about 20 fp16 roundings of activations of unit scale
 * through every layer; each chosen token must be the reference's argmax
 * or within that tolerance of its maximum (a near tie that rounding may
 * break either way). */
static int check_logits(const model *m, const float *got, const float *want, const int32_t *chosen, int steps)
{
	const int V = m->c.vocab;
	int bad = 0, exact = 0;
	double worst = 0;
	for (int s = 0; s < steps; s++) {
		const float *g = got + (size_t)s * V, *w = want + (size_t)s * V;
		double scale = 0, diff = 0;
		int best = 0;
		for (int i = 0; i < V; i++) {
			double d = fabs((double)g[i] - w[i]);
			scale = fabs(w[i]) > scale ? fabs(w[i]) : scale;
			diff = d > diff || d != d ? d : diff;
			if (w[i] > w[best])
				best = i;
		}
		{
			double tol = 0.02 * (scale > 1e-3 ? scale : 1e-3), rel = diff / (scale > 1e-3 ? scale : 1e-3);
			worst = rel > worst || rel != rel ? rel : worst;
			if (!(diff <= tol)) {
				fprintf(stderr, "check: step %d: logits differ by %.4g (%.3g of the scale %.4g)\n", s, diff,
					rel, scale);
				bad++;
			}
			if (chosen[s] == best)
				exact++;
			else if (!(w[chosen[s]] >= w[best] - tol)) {
				fprintf(stderr, "check: step %d: chose token %d (reference logit %.5g), the reference's argmax is %d (%.5g)\n",
					s, chosen[s], w[chosen[s]], best, w[best]);
				bad++;
			}
		}
	}
	printf("check: %d steps, largest logit difference %.3g of the logits' scale (tolerance 0.02), %d of %d tokens the "
	       "reference's argmax, the rest near ties: %s\n",
	       steps, worst, exact, steps, bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------ options */

typedef struct options {
	const char *weights, *prompt, *prompt_file, *dump, *skip;
	int prompt_random, steps, ctx, bench, bench_kernels, pdl, graph, check, cpu, quiet, split_reduce;
	unsigned skip_mask; /* --bench-skip's kernels, by enum kern bit */
} options;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: llm --weights FILE [--prompt 1,2,3 | --prompt-file FILE | --prompt-random N]\n"
		"           [--steps N] [--ctx N] [--dump-logits FILE] [--bench] [--pdl] [--no-graph]\n"
		"           [--split-reduce] [--bench-kernels] [--bench-skip K,K] [--check] [--cpu] [-q]\n"
		"\n"
		"Runs the prompt (token ids) through the model once (prefill), then generates\n"
		"greedily: --steps tokens in all (default 16), the first from the prefill,\n"
		"each further one from a decode step captured once in a CUDA graph and replayed.\n"
		"Prints the generated ids as 'tokens: a,b,...'.\n"
		"  --prompt-random N  N pseudo-random token ids (fixed seed), for timing\n"
		"  --ctx N            KV-cache positions (default max(2176, prompt + steps))\n"
		"  --dump-logits F    the fp32 logits of every step, steps x vocab, row-major\n"
		"  --bench            time the prefill, the decode steps and the first token\n"
		"  --bench-kernels    last, time each decode kernel alone (graph replays of its\n"
		"                     launches in a step); leaves the model's state unusable\n"
		"  --bench-skip K,K   with --bench: decode steps without these decode kernels\n"
		"                     (gemv_norm, attn_decode, ...), to time what each costs;\n"
		"                     the tokens then mean nothing\n"
		"  --pdl              launch the decode kernels with programmatic dependent launch\n"
		"  --no-graph         launch each decode step's kernels eagerly\n"
		"  --split-reduce     decode attention as two kernels (splits, then their reduce)\n"
		"                     instead of one whose last split per KV head reduces\n"
		"  --check            compare every step's logits with a plain-C fp32 forward pass\n"
		"  --cpu              run the kernels in tile's reference interpreter (CPU builds)\n"
		"  -q                 print only the tokens and the results\n");
}

static int parse_int(const char *s, int lo, int hi, const char *what, int *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "llm: %s: '%s' is not an integer in [%d, %d]\n", what, s, lo, hi);
		return 1;
	}
	*out = (int)v;
	return 0;
}

/* --bench-skip's list: decode kernels' names separated by commas. */
static int parse_skip(const char *list, unsigned *mask)
{
	const char *p = list;
	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		int k = 0;
		while (k <= K_ARGMAX_STEP && (strlen(kern_name[k]) != n || strncmp(kern_name[k], p, n)))
			k++;
		if (k > K_ARGMAX_STEP) {
			fprintf(stderr, "llm: --bench-skip: '%.*s' is not a decode kernel (", (int)n, p);
			for (k = 0; k <= K_ARGMAX_STEP; k++)
				fprintf(stderr, "%s%s", k ? ", " : "", kern_name[k]);
			fprintf(stderr, ")\n");
			return 1;
		}
		*mask |= 1u << k;
		p += n + (p[n] == ',');
	}
	if (!*mask) {
		fprintf(stderr, "llm: --bench-skip needs at least one kernel's name\n");
		return 1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
	memset(o, 0, sizeof *o);
	o->steps = 16;
	o->graph = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
#define VALUE() \
	(more ? argv[++i] : (fprintf(stderr, "llm: %s needs a value\n", a), (char *)NULL))
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--weights")) {
			if (!(o->weights = VALUE()))
				return 1;
		} else if (!strcmp(a, "--prompt")) {
			if (!(o->prompt = VALUE()))
				return 1;
		} else if (!strcmp(a, "--prompt-file")) {
			if (!(o->prompt_file = VALUE()))
				return 1;
		} else if (!strcmp(a, "--prompt-random")) {
			const char *v = VALUE();
			if (!v || parse_int(v, 1, 1 << 20, a, &o->prompt_random))
				return 1;
		} else if (!strcmp(a, "--steps")) {
			const char *v = VALUE();
			if (!v || parse_int(v, 1, 1 << 20, a, &o->steps))
				return 1;
		} else if (!strcmp(a, "--ctx")) {
			const char *v = VALUE();
			if (!v || parse_int(v, 1, 1 << 20, a, &o->ctx))
				return 1;
		} else if (!strcmp(a, "--dump-logits")) {
			if (!(o->dump = VALUE()))
				return 1;
		} else if (!strcmp(a, "--bench")) {
			o->bench = 1;
		} else if (!strcmp(a, "--bench-kernels")) {
			o->bench_kernels = 1;
		} else if (!strcmp(a, "--bench-skip")) {
			if (!(o->skip = VALUE()) || parse_skip(o->skip, &o->skip_mask))
				return 1;
		} else if (!strcmp(a, "--pdl")) {
			o->pdl = 1;
		} else if (!strcmp(a, "--no-graph")) {
			o->graph = 0;
		} else if (!strcmp(a, "--split-reduce")) {
			o->split_reduce = 1;
		} else if (!strcmp(a, "--check")) {
			o->check = 1;
		} else if (!strcmp(a, "--cpu")) {
			o->cpu = 1;
		} else if (!strcmp(a, "-q")) {
			o->quiet = 1;
		} else {
			fprintf(stderr, "llm: unknown option '%s' (--help lists them)\n", a);
			return 1;
		}
#undef VALUE
	}
	if (!o->weights) {
		fprintf(stderr, "llm: --weights FILE is required (--help lists the options)\n");
		return 1;
	}
	if (!!o->prompt + !!o->prompt_file + !!o->prompt_random != 1) {
		fprintf(stderr, "llm: give exactly one of --prompt, --prompt-file, --prompt-random\n");
		return 1;
	}
#ifndef LLM_CPU
	if (o->cpu) {
		fprintf(stderr, "llm: --cpu needs a build with the reference interpreter (examples/build.sh, -DLLM_CPU)\n");
		return 1;
	}
#endif
	if (o->skip && (!o->bench || o->check || o->dump || o->bench_kernels)) {
		fprintf(stderr, "llm: --bench-skip only times decode steps: it needs --bench, and not --check, "
				"--dump-logits or --bench-kernels\n");
		return 1;
	}
	if (o->cpu && (o->bench || o->bench_kernels)) {
		fprintf(stderr, "llm: %s times the GPU; not with --cpu\n", o->bench ? "--bench" : "--bench-kernels");
		return 1;
	}
	return 0;
}

/* Token ids separated by commas or blanks; *out is malloc'd. */
static int parse_tokens(const char *text, const char *where, int32_t **out, int *n)
{
	int cap = 64;
	const char *p = text;
	*n = 0;
	*out = malloc(sizeof(int32_t) * (size_t)cap);
	if (!*out)
		return 1;
	for (;;) {
		char *end;
		long v;
		while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v > INT32_MAX ||
		    (*end && *end != ',' && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) {
			fprintf(stderr, "llm: %s: bad token id near '%.12s'\n", where, p);
			return 1;
		}
		if (*n == cap) {
			int32_t *t = realloc(*out, sizeof(int32_t) * (size_t)(cap *= 2));
			if (!t)
				return 1;
			*out = t;
		}
		(*out)[(*n)++] = (int32_t)v;
		p = end;
	}
	if (*n == 0) {
		fprintf(stderr, "llm: %s: no token ids\n", where);
		return 1;
	}
	return 0;
}

static int read_prompt(const options *o, int vocab, int32_t **tok, int *n)
{
	*tok = NULL;
	if (o->prompt_random) {
		uint64_t s = 0x9e3779b97f4a7c15ull;
		*n = o->prompt_random;
		if (!(*tok = malloc(sizeof(int32_t) * (size_t)*n)))
			return 1;
		for (int i = 0; i < *n; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			(*tok)[i] = (int32_t)((s >> 33) % (uint64_t)vocab);
		}
		return 0;
	}
	if (o->prompt) {
		if (parse_tokens(o->prompt, "--prompt", tok, n))
			return 1;
	} else {
		FILE *fp = fopen(o->prompt_file, "rb");
		char *text;
		long len;
		int rc;
		if (!fp) {
			fprintf(stderr, "llm: cannot open %s: %s\n", o->prompt_file, strerror(errno));
			return 1;
		}
		if (fseek(fp, 0, SEEK_END) || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) || len > (64 << 20) ||
		    !(text = malloc((size_t)len + 1))) {
			fprintf(stderr, "llm: cannot read %s\n", o->prompt_file);
			fclose(fp);
			return 1;
		}
		text[fread(text, 1, (size_t)len, fp)] = 0;
		fclose(fp);
		rc = parse_tokens(text, o->prompt_file, tok, n);
		free(text);
		if (rc)
			return 1;
	}
	for (int i = 0; i < *n; i++)
		if ((*tok)[i] >= vocab) {
			fprintf(stderr, "llm: prompt token %d is %d, past the vocab (%d)\n", i, (*tok)[i], vocab);
			return 1;
		}
	return 0;
}

/* ------------------------------------------------------------ setup */

/* Integer (or bool, as 0/1) constexpr `name` of kernel k as built (the blob's first variant,
 * or the manifest's -D under --cpu); 0 when it has none. */
static int kconst(const model *m, int k, const char *name)
{
	if (m->cpu) {
#ifdef LLM_CPU
		return interp_constexpr(kern_name[k], name);
#else
		return 0;
#endif
	} else {
		tile_variant_info vi;
		if (tile_variant_get_info(m->mod, m->kidx[k], 0, &vi) != TILE_SUCCESS)
			return 0;
		for (int i = 0; i < vi.n_constexprs; i++) {
			tile_constexpr_info ci;
			if (tile_constexpr_get_info(m->mod, m->kidx[k], 0, i, &ci) == TILE_SUCCESS &&
			    (ci.kind == 0 || ci.kind == 2) &&
			    strcmp(ci.name, name) == 0)
				return (int)ci.ival;
		}
		return 0;
	}
}

/* The block sizes the grids divide by, and what the build's kernels need
 * of the config (head dim, group size, K a multiple of the GEMMs' BLOCK_K). */
static int read_build(model *m, const char *path)
{
	const config *c = &m->c;
	const int attn_dim = c->heads * c->head_dim;
	for (int k = 0; k < K_COUNT; k++) {
		m->bm[k] = kconst(m, k, "BLOCK_M");
		m->bn[k] = kconst(m, k, "BLOCK_N");
		m->bk[k] = kconst(m, k, "BLOCK_K");
	}
	m->splits = kconst(m, K_ATTN_DECODE, "SPLITS");
	m->group = kconst(m, K_ATTN_DECODE, "GROUP");
	m->head_dim = kconst(m, K_ATTN_DECODE, "HD");
	for (int k = 0; k < K_COUNT; k++) {
		int need_n = k <= K_GEMV_DOWN || k == K_GEMM || k == K_GEMM_RESIDUAL || k == K_GEMM_SWIGLU;
		int need_m = k == K_GEMM || k == K_GEMM_RESIDUAL || k == K_GEMM_SWIGLU || k == K_ATTN_PREFILL;
		if ((need_n && m->bn[k] <= 0) || (need_m && m->bm[k] <= 0)) {
			fprintf(stderr, "llm: the kernels' build lacks %s's block sizes\n", kern_name[k]);
			return 1;
		}
	}
	if (m->splits <= 0 || m->group <= 0 || m->splits != kconst(m, K_ATTN_REDUCE, "SPLITS") ||
	    m->splits != kconst(m, K_ATTN_DECODE_SPLIT, "SPLITS") || m->group != kconst(m, K_ATTN_DECODE_SPLIT, "GROUP") ||
	    m->head_dim != kconst(m, K_ATTN_DECODE_SPLIT, "HD") ||
	    m->head_dim != kconst(m, K_ATTN_REDUCE, "HD") || m->head_dim != kconst(m, K_ROPE_KV, "HD") ||
	    m->head_dim != kconst(m, K_ATTN_PREFILL, "HD")) {
		fprintf(stderr, "llm: the kernels' build disagrees on SPLITS or HD (kernels.tile)\n");
		return 1;
	}
	if (c->head_dim != m->head_dim) {
		fprintf(stderr, "llm: %s: head_dim %d, the kernels are built for %d (HD in kernels.tile)\n", path,
			c->head_dim, m->head_dim);
		return 1;
	}
	if (c->heads / c->kv_heads > m->group) {
		fprintf(stderr, "llm: %s: %d query heads per KV head, the kernels take at most %d (GROUP in kernels.tile)\n",
			path, c->heads / c->kv_heads, m->group);
		return 1;
	}
	for (int k = K_GEMM; k <= K_GEMM_SWIGLU; k++)
		if (m->bk[k] <= 0 || c->hidden % m->bk[k] || c->ffn % m->bk[k] || attn_dim % m->bk[k]) {
			fprintf(stderr, "llm: %s: hidden, MLP and heads * head_dim must be multiples of %s's BLOCK_K (%d)\n",
				path, kern_name[k], m->bk[k]);
			return 1;
		}
	/* the GEMVs built to take a whole row of K in one block */
	{
		const int gemv_k[] = {[K_GEMV_NORM] = c->hidden, [K_GEMV_RESIDUAL] = attn_dim, [K_GEMV_LOGITS] = c->hidden,
				      [K_GEMV_SWIGLU] = c->hidden, [K_GEMV_DOWN] = c->ffn};
		for (int k = 0; k <= K_GEMV_DOWN; k++)
			if ((k == K_GEMV_SWIGLU || kconst(m, k, "WHOLE_K")) && gemv_k[k] > m->bk[k]) {
				fprintf(stderr, "llm: %s: %s reads K = %d in one block of BLOCK_K = %d (kernels.tile): "
						"build it with a larger BLOCK_K, or WHOLE_K=False\n",
					path, kern_name[k], gemv_k[k], m->bk[k]);
				return 1;
			}
	}
	m->npart = cdiv(c->vocab, m->bn[K_GEMV_LOGITS]);
	return 0;
}

static int alloc_buffers(model *m, int rows)
{
	const config *c = &m->c;
	const size_t H = (size_t)c->hidden, R = (size_t)rows, A = (size_t)c->heads * c->head_dim;
	const size_t kv = (size_t)c->layers * c->kv_heads * m->ctx * c->head_dim * 2;
	const int half = c->head_dim / 2;
	uint16_t *tab;
	int rc;
	if (dalloc(m, &m->h, R * H * 2, "h") || dalloc(m, &m->xn, R * H * 2, "xn") ||
	    dalloc(m, &m->qkv, R * m->qkv_dim * 2, "qkv") || dalloc(m, &m->qr, R * A * 2, "q") ||
	    dalloc(m, &m->attn, R * A * 2, "attn") || dalloc(m, &m->act, R * c->ffn * 2, "act") ||
	    dalloc(m, &m->kc, kv, "the K cache") || dalloc(m, &m->vc, kv, "the V cache") ||
	    dalloc(m, &m->cos, (size_t)m->ctx * half * 2, "cos") || dalloc(m, &m->sin, (size_t)m->ctx * half * 2, "sin") ||
	    dalloc(m, &m->po, (size_t)c->heads * m->splits * c->head_dim * 4, "attention partials") ||
	    dalloc(m, &m->pl, (size_t)c->heads * m->splits * 4, "attention partials") ||
	    dalloc(m, &m->cnt, (size_t)c->kv_heads * 4, "attention counters") ||
	    dalloc(m, &m->logits, (size_t)c->vocab * 4, "logits") || dalloc(m, &m->pval, (size_t)m->npart * 4, "argmax") ||
	    dalloc(m, &m->pidx, (size_t)m->npart * 4, "argmax") || dalloc(m, &m->state, 16, "state") ||
	    dalloc(m, &m->tokens, ((size_t)m->ctx + 1) * 4, "tokens"))
		return 1;
	/* RoPE tables as HF computes them: inv_freq and the angle in fp32,
	 * cos/sin rounded to fp16 */
	if (!(tab = malloc(sizeof *tab * (size_t)m->ctx * half * 2))) {
		fprintf(stderr, "llm: out of memory\n");
		return 1;
	}
	for (int p = 0; p < m->ctx; p++)
		for (int j = 0; j < half; j++) {
			float inv = 1.0f / powf(c->theta, (float)(2 * j) / (float)c->head_dim);
			float ang = (float)p * inv;
			tab[(size_t)p * half + j] = float_to_half(cosf(ang));
			tab[(size_t)m->ctx * half + (size_t)p * half + j] = float_to_half(sinf(ang));
		}
	rc = htod(m, m->cos, tab, (size_t)m->ctx * half * 2) ||
	     htod(m, m->sin, tab + (size_t)m->ctx * half, (size_t)m->ctx * half * 2) ||
	     (!m->cpu && cu_fail(cu.cuStreamSynchronize(m->stream), "cuStreamSynchronize"));
	free(tab);
	return rc;
}

static void teardown(model *m)
{
	if (!m->cpu && m->stream)
		cu.cuStreamSynchronize(m->stream);
	for (int i = 0; i < m->nallocs; i++) {
		if (m->cpu)
			free((void *)(uintptr_t)m->allocs[i].p);
		else
			cu.cuMemFree_v2(m->allocs[i].p);
	}
	free(m->allocs);
	if (!m->cpu)
		free(m->host_weights);
	free(m->layer);
	if (!m->cpu) {
		kernels_unload();
		if (m->stream)
			cu.cuStreamDestroy_v2(m->stream);
		if (m->have_ctx)
			cu.cuDevicePrimaryCtxRelease_v2(m->device);
	}
#ifdef LLM_CPU
	if (m->cpu)
		interp_close();
#endif
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	const double t_start = now_s();
	options o;
	model m;
	config *c = &m.c;
	FILE *fp = NULL, *dump = NULL;
	int32_t *prompt = NULL, *out_tokens = NULL;
	float *all_logits = NULL, *ref_logits = NULL;
	cu_handle graph = NULL, exec = NULL, ev[4] = {NULL, NULL, NULL, NULL};
	int P = 0, rc = 1;
	device_start ds;
	load_times lt = {0, 0, 0};
	double t_first = 0, t_prefill = 0, t_buffers = 0;
	float prefill_ms = -1, decode_ms = -1;
	int timed_steps = 0;

	memset(&m, 0, sizeof m);
	memset(&ds, 0, sizeof ds);
	m.only = -1;
	if (parse_options(argc, argv, &o))
		return 2;
	m.cpu = o.cpu;
	m.pdl = o.pdl;
	m.skip = o.skip_mask;
	m.split_reduce = o.split_reduce;
	if (!(fp = fopen(o.weights, "rb"))) {
		fprintf(stderr, "llm: cannot open %s: %s\n", o.weights, strerror(errno));
		return 1;
	}
	if (read_header(fp, o.weights, c))
		goto out;
	m.qkv_dim = (c->heads + 2 * c->kv_heads) * c->head_dim;
	m.payload_bytes = payload_elems(c, m.qkv_dim) * 2;
	m.streamed_bytes = m.payload_bytes - (size_t)c->vocab * c->hidden * 2; /* all but the embedding */
	if (read_prompt(&o, c->vocab, &prompt, &P))
		goto out;
	m.ctx = o.ctx ? o.ctx : (P + o.steps > 2176 ? P + o.steps : 2176);
	m.ctx = (m.ctx + 15) & ~15;
	if (P + o.steps > m.ctx) {
		fprintf(stderr, "llm: prompt (%d) + steps (%d) exceed the context (%d; --ctx)\n", P, o.steps, m.ctx);
		goto out;
	}
	if (!(m.layer = calloc((size_t)c->layers, sizeof *m.layer)) ||
	    !(out_tokens = calloc((size_t)o.steps, sizeof *out_tokens))) {
		fprintf(stderr, "llm: out of memory\n");
		goto out;
	}
	if ((o.check || o.dump) &&
	    !(all_logits = malloc(sizeof(float) * (size_t)c->vocab * (size_t)o.steps))) {
		fprintf(stderr, "llm: out of memory for %d steps of logits\n", o.steps);
		goto out;
	}
	if (m.cpu) {
#ifdef LLM_CPU
		if (interp_open(LLM_MANIFEST))
			goto out;
#endif
	} else if (open_driver() || find_kernels(&m)) {
		goto out;
	}
	if (read_build(&m, o.weights) || (!m.cpu && device_start_begin(&ds, m.mod)))
		goto out;
	if (!o.quiet)
		printf("llm: hidden %d, %d layers, %d heads (%d KV), head dim %d, MLP %d, vocab %d; %.3f GB of fp16 "
		       "weights; context %d; prompt %d tokens; %s\n",
		       c->hidden, c->layers, c->heads, c->kv_heads, c->head_dim, c->ffn, c->vocab, m.payload_bytes / 1e9,
		       m.ctx, P, m.cpu ? "reference interpreter (CPU)" : "GPU");
	if (load_weights(&m, fp, o.weights, o.check, &ds, o.quiet, &lt) || place_weights(&m))
		goto out;
	fclose(fp);
	fp = NULL;
	m.rows = P;
	t_buffers = now_s();
	if (alloc_buffers(&m, P))
		goto out;
	if (htod(&m, m.tokens, prompt, sizeof(int32_t) * (size_t)P))
		goto out;
	t_buffers = now_s() - t_buffers;
	if (!m.cpu) {
		for (int i = 0; i < 4; i++)
			if (cu_fail(cu.cuEventCreate(&ev[i], 0), "cuEventCreate"))
				goto out;
		if (cu_fail(cu.cuEventRecord(ev[0], m.stream), "cuEventRecord"))
			goto out;
	}
	/* the prompt, and the first token */
	const double prefill_start = now_s();
	if (prefill(&m, P, prompt[P - 1]))
		goto out;
	if (!m.cpu && cu_fail(cu.cuEventRecord(ev[1], m.stream), "cuEventRecord"))
		goto out;
	{
		int32_t state[4];
		if (dtoh(&m, state, m.state, sizeof state))
			goto out;
		out_tokens[0] = state[1];
	}
	t_first = now_s() - t_start;
	t_prefill = now_s() - prefill_start;
	if (!m.cpu && !o.check) { /* its pages go back to the system after the first token, not before */
		free(m.host_weights);
		m.host_weights = NULL;
	}
	if (!m.cpu && cu_fail(cu.cuEventElapsedTime(&prefill_ms, ev[0], ev[1]), "cuEventElapsedTime"))
		goto out;
	if (all_logits && dtoh(&m, all_logits, m.logits, sizeof(float) * (size_t)c->vocab))
		goto out;

	/* the decode steps: captured once, replayed */
	if (o.steps > 1 && !m.cpu && o.graph && capture_step(&m, &graph, &exec))
		goto out;
	for (int s = 1; s < o.steps; s++) {
		/* the first replay is a warm-up: the timing covers the others */
		if (!m.cpu && s == 2 && cu_fail(cu.cuEventRecord(ev[2], m.stream), "cuEventRecord"))
			goto out;
		if (exec ? cu_fail(cu.cuGraphLaunch(exec, m.stream), "cuGraphLaunch") : decode_step(&m))
			goto out;
		if (all_logits && dtoh(&m, all_logits + (size_t)s * c->vocab, m.logits, sizeof(float) * (size_t)c->vocab))
			goto out;
	}
	if (!m.cpu) {
		if (cu_fail(cu.cuEventRecord(ev[3], m.stream), "cuEventRecord") ||
		    cu_fail(cu.cuStreamSynchronize(m.stream), "decode steps"))
			goto out;
		if (o.steps > 2) {
			timed_steps = o.steps - 2;
			if (cu_fail(cu.cuEventElapsedTime(&decode_ms, ev[2], ev[3]), "cuEventElapsedTime"))
				goto out;
		}
	}
	if (o.steps > 1 && dtoh(&m, out_tokens + 1, m.tokens + (uint64_t)(P + 1) * 4, sizeof(int32_t) * (size_t)(o.steps - 1)))
		goto out;

	printf("tokens: ");
	for (int s = 0; s < o.steps; s++)
		printf("%s%d", s ? "," : "", out_tokens[s]);
	printf("\n");
	if (o.dump) {
		size_t n = (size_t)c->vocab * (size_t)o.steps;
		int bad = !(dump = fopen(o.dump, "wb")) || fwrite(all_logits, sizeof(float), n, dump) != n;
		if ((dump && fclose(dump)) || bad) {
			fprintf(stderr, "llm: cannot write %s: %s\n", o.dump, strerror(errno));
			dump = NULL;
			goto out;
		}
		dump = NULL;
	}
	if (o.bench) {
		/* prefill again, warm (same prompt, same cache rows), for tokens/s */
		float warm_ms = 0;
		const double kv_bytes = 2.0 * c->layers * c->kv_heads * c->head_dim * 2.0 * (P + o.steps / 2.0);
		if (cu_fail(cu.cuEventRecord(ev[0], m.stream), "cuEventRecord") || prefill(&m, P, prompt[P - 1]) ||
		    cu_fail(cu.cuEventRecord(ev[1], m.stream), "cuEventRecord") ||
		    cu_fail(cu.cuEventSynchronize(ev[1]), "cuEventSynchronize") ||
		    cu_fail(cu.cuEventElapsedTime(&warm_ms, ev[0], ev[1]), "cuEventElapsedTime"))
			goto out;
		printf("bench: prefill %d tokens: %.3f ms (%.0f tokens/s); first run %.3f ms\n", P, warm_ms,
		       P / (warm_ms * 1e-3), prefill_ms);
		/* the driver's start-up ran in the thread during the file read:
		 * what the main thread waited for it is part of the time left */
		const double own = t_first - lt.read - lt.upload;
		printf("bench: first token %.1f ms after process start; %.1f ms with the weight loading excluded "
		       "(file read %.1f ms, %.2f GB/s; upload %.1f ms, %.2f GB/s)\n",
		       t_first * 1e3, own * 1e3, lt.read * 1e3, m.payload_bytes / lt.read / 1e9, lt.upload * 1e3,
		       m.payload_bytes / lt.upload / 1e9);
		printf("bench: of the %.1f ms: waiting for the driver after the file read %.1f ms, buffers and the "
		       "prompt copy %.1f ms, first prefill with its token read back %.1f ms, the rest (options, header, "
		       "kernels' blob) %.1f ms; in a thread during the file read: driver and context (cuInit, primary "
		       "context, stream) %.1f ms, kernels' modules (inflate, cuModuleLoadData) %.1f ms\n",
		       own * 1e3, lt.wait * 1e3, t_buffers * 1e3, t_prefill * 1e3, (own - lt.wait - t_buffers - t_prefill) * 1e3,
		       ds.t_device * 1e3, ds.t_modules * 1e3);
		if (timed_steps > 0) {
			double per = decode_ms / timed_steps;
			printf("bench: decode %.4f ms/token over %d steps at context %d..%d (%s%s%s%s%s%s); %.3f GB of weights a "
			       "token: %.0f GB/s (%.0f GB/s with the KV cache)\n",
			       per, timed_steps, P + 1, P + o.steps - 1, exec ? "CUDA graph" : "eager launches",
			       m.pdl ? ", PDL" : "", m.split_reduce ? ", split reduce" : "", o.skip ? ", without " : "",
			       o.skip ? o.skip : "",
			       all_logits ? ", with a logits copy after each step" : "", m.streamed_bytes / 1e9, m.streamed_bytes / (per * 1e-3) / 1e9,
			       (m.streamed_bytes + kv_bytes) / (per * 1e-3) / 1e9);
		} else {
			printf("bench: decode needs --steps 3 or more to be timed\n");
		}
	}
	if (o.check) {
		int32_t *seq = malloc(sizeof(int32_t) * (size_t)(P + o.steps));
		if (!seq || !(ref_logits = malloc(sizeof(float) * (size_t)c->vocab * (size_t)o.steps))) {
			free(seq);
			fprintf(stderr, "llm: out of memory for --check\n");
			goto out;
		}
		memcpy(seq, prompt, sizeof(int32_t) * (size_t)P);
		memcpy(seq + P, out_tokens, sizeof(int32_t) * (size_t)o.steps);
		if (ref_forward(&m, seq, P + o.steps - 1, P - 1, ref_logits) ||
		    check_logits(&m, all_logits, ref_logits, out_tokens, o.steps)) {
			free(seq);
			goto out;
		}
		free(seq);
	}
	if (o.bench_kernels && bench_kernels(&m, timed_steps > 0 ? decode_ms / timed_steps : 0))
		goto out;
	rc = 0;
out:
	device_join(&m, &ds, 1);
	if (fp)
		fclose(fp);
	release_timing(exec, graph, ev, 4);
	teardown(&m);
	free(prompt);
	free(out_tokens);
	free(all_logits);
	free(ref_logits);
	return rc;
}
