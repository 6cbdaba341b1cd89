/* kernel_spec.h - how the fuzz targets that specialize kernels (fuzz_sema.c,
 * fuzz_lower.c) make up a kernel's spec from its parameters' names and bits
 * of the input's hash, by one of two guesses. The first: pointers named
 * *ptr*, the rest i32; :16, :8, :4 or no hints; fp16 or fp32 pointees,
 * picked per parameter. The second reads names as real kernels write them:
 * arrays (x_ptr, seq_lens, ...) and names it does not know (X, out, ...)
 * pointers, :16, to one pointee for the kernel (fp16, bf16 or fp32, or for
 * three kernels in eight i8, i32 or fp8e5); floats (eps, scale, ...) fp32;
 * sizes, strides and offsets (n, M, stride_am, n_rows, ...) i32, :16 or
 * not. Both: constexprs named in upper case 32 or 64, the others their
 * defaults; 4 or 8 warps; num_stages 3; one CTA per program or a cluster
 * of 2. */
#ifndef TILE_FUZZ_KERNEL_SPEC_H
#define TILE_FUZZ_KERNEL_SPEC_H

#include "front/front.h"

#include <stdio.h>
#include <string.h>

static bool all_upper(const char *s)
{
	bool letter = false;
	for (; *s; s++) {
		if (*s >= 'a' && *s <= 'z')
			return false;
		letter |= *s >= 'A' && *s <= 'Z';
	}
	return letter;
}

static bool name_has(const char *name, const char *const *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(name, parts[i]))
			return true;
	return false;
}

/* A parameter's type by the second guess. */
static const char *guess_type(const char *name, const char *pointer)
{
	static const char *const floats[] = {"eps", "scale", "alpha", "beta", "momentum", "temp", "slope", "lr",
					     "gamma", "lambda", "weight_decay", "softcap"};
	static const char *const ints[] = {"stride", "size", "numel", "len", "num", "dim", "off", "idx", "start",
					   "end", "seed", "batch", "rows", "cols", "count", "head", "n_", "N_", "_n",
					   "_N", "_m", "_M", "_k", "_K", "_d", "_D"};
	static const char *const arrays[] = {"ptr", "lens", "offsets", "indices", "ids", "starts", "ends", "locs",
					     "table", "lse"};
	if (name_has(name, arrays, sizeof arrays / sizeof arrays[0]))
		return pointer;
	if (name_has(name, floats, sizeof floats / sizeof floats[0]))
		return "fp32";
	if ((strlen(name) == 1 && strchr("nmkNMKHDLTSCEG", name[0])) || name_has(name, ints, sizeof ints / sizeof ints[0]))
		return "i32";
	return pointer;
}

/* The spec of kernel `name` of m (in a) by guess 0 or 1; *bits steps once
 * per parameter, and the bits it ends with pick the warps and the CTAs,
 * and whatever more the caller picks. false when out of memory. */
static bool fuzz_kernel_spec(arena *a, const fe_module *m, const char *name, int guess, uint32_t *bits, fe_spec *spec)
{
	int np = fe_param_count(m, name);
	fe_define *defs = arena_alloc(a, sizeof *defs * (size_t)(np > 0 ? np : 1));
	char *sig = arena_alloc(a, 24 * (size_t)(np > 0 ? np : 1) + 1);
	if (!defs || !sig)
		return false;
	int nd = 0;
	size_t at = 0;
	uint32_t b = *bits;
	static const char *const pointees[8] = {"*fp16:16", "*bf16:16", "*fp32:16", "*fp16:16",
						"*fp32:16", "*i8:16", "*fp8e5:16", "*i32:16"};
	const char *pointer = pointees[b >> 14 & 7];
	sig[0] = 0;
	for (int i = 0; i < np; i++, b = b * 1664525u + 1013904223u) {
		const char *p = fe_param_name(m, name, i);
		if (fe_param_is_constexpr(m, name, i)) {
			if (all_upper(p))
				defs[nd++] = (fe_define){p, b >> 20 & 1 ? "64" : "32"};
			continue;
		}
		static const char *const hints[4] = {"", ":16", ":8", ":4"};
		const char *t, *hint = hints[b >> 24 & 3];
		if (guess == 0) {
			t = strstr(p, "ptr") ? (b >> 20 & 1 ? "*fp32" : "*fp16") : "i32";
		} else {
			t = guess_type(p, pointer);
			hint = strcmp(t, "i32") || (b >> 24 & 1) ? "" : ":16";
		}
		at += (size_t)snprintf(sig + at, 24, "%s%s%s", at ? ", " : "", t, hint);
	}
	*spec = (fe_spec){.kernel = name, .signature = sig, .defines = defs, .ndefines = nd,
			  .num_warps = b >> 23 & 1 ? 8 : 4, .num_stages = 3, .num_ctas = b >> 26 & 1 ? 2 : 1};
	*bits = b;
	return true;
}

#endif
