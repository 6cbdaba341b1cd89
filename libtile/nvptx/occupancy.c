/* occupancy.c - the blocks per SM ptxas assembles an entry for.
 *
 * A second block where registers alone keep it out: an SM runs as many
 * blocks of a kernel as both its shared memory and its 64K registers hold.
 * A pipelined tensor-core kernel of 8 warps often has rings small enough
 * for two blocks while ptxas, free to use up to 255 registers, takes a few
 * more than the 128 per thread two blocks of 256 threads allow, and the SM
 * runs one (tf32 128x128x32: 160 registers, 0.95 of Triton's speed;
 * Triton's code fits in 126 and runs two). Where the shared memory the
 * kernel needs fits twice on the arch and the registers ptxas reports are
 * at most half again the two-block budget, the entry gets `.minnctapersm 2`
 * and ptxas assembles the PTX again; the directive stays only where ptxas
 * then reports no spill (forcing registers out to local memory costs more
 * than the second block gains).
 *
 * And one block where ptxas gave up on registers: an entry whose registers
 * do not fit even at 255 a thread (under `.reqntid`) may come back with 32
 * registers and kilobytes of spills, ptxas having gone for the most blocks
 * an SM takes (vLLM's lightning attention: 32 registers, 13 KB spilled a
 * thread, 10x slower than Triton's build; 255 registers and 2.4 KB under
 * `.minnctapersm 1`). Such an entry (spills, under half the registers its
 * block may have) gets `.minnctapersm 1`, kept where its spills shrink.
 *
 * The others are assembled once more without a directive that did not
 * hold. The PTX that produced the cubin is returned, so a PTX image of the
 * same arch can carry the same directives (compile.c): the driver then
 * compiles it for the GPU at hand under the same bound.
 */
#include "nvptx/nvptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Whether two blocks of `threads` threads fit an SM's registers at n_regs
 * per thread (allocated per warp, in units of 8 per thread). */
static bool two_blocks_fit(int n_regs, int threads)
{
	int warps = (threads + 31) / 32;
	return 2 * warps * 32 * ((n_regs + 7) / 8 * 8) <= TARGET_SM_REGISTERS;
}

/* PTX with `.minnctapersm want[k]` after the `.reqntid` line of each entry
 * k whose want[k] is 1 or 2 (malloc'd; NULL when out of memory). */
static char *with_min_blocks(const char *ptx, const char *const *symbols, const int *want, int n)
{
	size_t len = strlen(ptx);
	char *out = malloc(len + (size_t)n * 24 + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	const char *p = ptx;
	for (;;) {
		/* the next marked entry's .reqntid line */
		const char *at = NULL;
		int blocks = 0;
		for (int k = 0; k < n; k++) {
			if (!want[k])
				continue;
			char head[320];
			snprintf(head, sizeof head, ".entry %.300s(", symbols[k]);
			const char *e = strstr(p, head);
			const char *r = e ? strstr(e, "\n.reqntid ") : NULL, *body = e ? strchr(e, '{') : NULL;
			if (r && body && r > body)
				r = NULL; /* another entry's */
			if (r && (!at || r < at)) {
				at = r;
				blocks = want[k];
			}
		}
		if (!at)
			break;
		const char *eol = strchr(at + 1, '\n');
		if (!eol)
			break;
		memcpy(out + o, p, (size_t)(eol + 1 - p));
		o += (size_t)(eol + 1 - p);
		o += (size_t)sprintf(out + o, ".minnctapersm %d\n", blocks);
		p = eol + 1;
	}
	memcpy(out + o, p, strlen(p) + 1);
	return out;
}

/* Spill bytes (stores and loads) ptxas reports for an entry, or -1. */
static int64_t spill_bytes(const char *log, const char *symbol)
{
	compile_kernel_info ki = {0};
	if (!target_ptxas_info(log, symbol, &ki) || !ki.spills_known)
		return -1;
	return (int64_t)ki.spill_stores + ki.spill_loads;
}

tilec_status target_ptxas_occupancy(tilec_ctx *ctx, const char *ptxas, int arch, char **ptx,
				    const char *const *symbols, ir_func *const *funcs, const uint32_t *shared,
				    const int *producer_warps, int n, uint8_t **cubin, size_t *size, strbuf *log)
{
	tilec_status st = target_ptxas(ctx, ptxas, *ptx, arch, cubin, size, log);
	if (st != TILEC_OK)
		return st;
	int *want = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	int64_t *spilled = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
	if (!want || !spilled) {
		free(want);
		free(spilled);
		return TILEC_OK; /* the plain cubin stands */
	}
	int nwant = 0;
	for (int k = 0; k < n; k++) {
		compile_kernel_info ki = {0};
		int threads = 32 * ((funcs[k]->num_warps > 0 ? funcs[k]->num_warps : 4) + (producer_warps ? producer_warps[k] : 0));
		int budget = TARGET_SM_REGISTERS / (2 * threads), cap = TARGET_SM_REGISTERS / threads > 255 ? 255 : TARGET_SM_REGISTERS / threads;
		if (funcs[k]->maxnreg || !target_ptxas_info(sb_str(log), symbols[k], &ki) || !ki.spills_known)
			continue;
		spilled[k] = (int64_t)ki.spill_stores + ki.spill_loads;
		if (spilled[k] && 2 * ki.n_regs < cap)
			want[k] = 1; /* ptxas gave up on registers */
		else if (!spilled[k] && !two_blocks_fit(ki.n_regs, threads) && 2 * ki.n_regs <= 3 * budget &&
			 2 * ((uint64_t)shared[k] + TARGET_BLOCK_RESERVED_SMEM) <= target_smem_per_sm(arch))
			want[k] = 2;
		nwant += want[k] != 0;
	}
	/* at most three times more: with every candidate, then without those
	 * whose directive did not hold; a failure there is not the kernel's
	 * (the plain cubin stands), so its diagnostics go to a context of
	 * their own */
	tilec_ctx *scratch = nwant ? tilec_ctx_new() : NULL;
	for (int round = 0; round < 3 && nwant && scratch; round++) {
		char *next = with_min_blocks(*ptx, symbols, want, n);
		uint8_t *c2 = NULL;
		size_t s2 = 0;
		strbuf l2;
		sb_init(&l2);
		if (!next || target_ptxas(scratch, ptxas, next, arch, &c2, &s2, &l2) != TILEC_OK) {
			free(next);
			free(c2);
			sb_free(&l2);
			break;
		}
		int dropped = 0;
		for (int k = 0; k < n; k++) {
			int64_t now = want[k] ? spill_bytes(sb_str(&l2), symbols[k]) : 0;
			/* two blocks: no spill; one block: fewer spills than before */
			if (want[k] && (now < 0 || (want[k] == 2 ? now > 0 : now >= spilled[k]))) {
				want[k] = 0;
				nwant--;
				dropped++;
			}
		}
		if (dropped) {
			free(next);
			free(c2);
			sb_free(&l2);
			continue;
		}
		free(*ptx);
		*ptx = next;
		free(*cubin);
		*cubin = c2;
		*size = s2;
		sb_free(log);
		*log = l2;
		break;
	}
	tilec_ctx_free(scratch);
	free(want);
	free(spilled);
	return TILEC_OK;
}
