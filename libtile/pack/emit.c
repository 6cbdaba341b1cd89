/* emit.c - the generated C: BASE.c holds the blob, BASE.h declares the API.
 *
 * The blob becomes a byte array inside a union with an unsigned long long,
 * which aligns it in plain C99 and C++ without compiler extensions. Each
 * kernel gets a typed launch function named after it, with its kernel index
 * fixed at generation time (kernels keep blob order), so the launch path is
 * a lazy-module check and tile_launch. Scalars narrower than 32 bits are
 * widened into a 32-bit local before their address is passed: whatever
 * parameter size the image declares for them, the driver reads initialized
 * bytes of the right value (little-endian). When any variant of a kernel
 * lacks a grid program the launch function takes the grid from the caller.
 * Parameters keep their kernel's names in C unless C cannot use them (see
 * c_names): the rename is deterministic and the doc comment shows both.
 * A host-side tensor descriptor is one tile_tensordesc in C for all its
 * kernel parameters: checked, then unpacked into the base, shapes and
 * strides, and passed whole (its address) for its TMA map, which
 * tile_launch encodes.
 * The files are written all or nothing (temporaries renamed into place).
 */
#include "pack/pack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *emit_c_type(const blob_param *p)
{
	switch (p->kind) {
	case BLOB_PARAM_PTR:
		return "tile_deviceptr";
	case BLOB_PARAM_FLOAT:
		return p->size == 2 ? "uint16_t" : p->size == 4 ? "float" : "double";
	case BLOB_PARAM_INT:
		return p->size == 1 ? "int8_t" : p->size == 2 ? "int16_t" : p->size == 4 ? "int32_t" : "int64_t";
	default:
		return p->size == 1 ? "uint8_t" : p->size == 2 ? "uint16_t" : p->size == 4 ? "uint32_t" : "uint64_t";
	}
}

static bool is_identifier(const char *s)
{
	static const char *const keywords[] = {
		"auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete",
		"do", "double", "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline",
		"int", "long", "namespace", "new", "operator", "private", "protected", "public", "register",
		"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "template",
		"this", "true", "typedef", "union", "unsigned", "using", "virtual", "void", "volatile", "while",
	};
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (const char *p = s; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (!strcmp(s, keywords[i]))
			return false;
	return true;
}

/* Names the launch function uses itself. */
static bool is_reserved(const char *s)
{
	return !strcmp(s, "stream") || !strcmp(s, "grid_x") || !strcmp(s, "grid_y") || !strcmp(s, "grid_z") ||
	       !strncmp(s, "tile_", 5);
}

static int visible_count(const blob_kernel *k);

/* A parameter name C cannot take as it is: not an ASCII identifier, a C or
 * C++ keyword, a name reserved to the implementation (`_X`, `__x`), a
 * name the launch function or its headers use (`stream`, `grid_x`, `tile_*`,
 * `TILE*`, `NULL`, `offsetof`, `*_t` types, stdint's macros), or one of
 * the module's generated symbols (BASE_load, ..., the header guard). */
static bool param_clashes(const char *s, const char *base)
{
	static const char *const more[] = {
		"alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "compl", "concept",
		"const_cast", "consteval", "constexpr", "constinit", "co_await", "co_return", "co_yield", "decltype",
		"dynamic_cast", "explicit", "export", "friend", "mutable", "noexcept", "not", "not_eq", "nullptr",
		"or", "or_eq", "reinterpret_cast", "requires", "static_assert", "static_cast", "thread_local",
		"throw", "try", "typeid", "typename", "xor", "xor_eq", "NULL", "offsetof",
	};
	if (!is_identifier(s) || is_reserved(s) || !strncmp(s, "TILE", 4) || (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'))))
		return true;
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
		if (!strcmp(s, more[i]))
			return true;
	size_t n = strlen(s), nb = strlen(base);
	if (n >= 2 && !strcmp(s + n - 2, "_t"))
		return true;
	bool upper = true;
	for (const char *p = s; *p; p++)
		upper &= !(*p >= 'a' && *p <= 'z');
	static const char *const macros[] = {"INT", "UINT", "SIZE_", "PTRDIFF_", "SIG_ATOMIC_", "WCHAR_", "WINT_"};
	for (size_t i = 0; upper && i < sizeof macros / sizeof macros[0]; i++)
		if (!strncmp(s, macros[i], strlen(macros[i])))
			return true;
	if (!strncmp(s, base, nb)) {
		static const char *const gen[] = {"_load", "_unload", "_module", "_blob", "_lazy"};
		for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++)
			if (!strcmp(s + nb, gen[i]))
				return true;
	}
	if (n == nb + 7 && !strcmp(s + nb, "_TILE_H")) { /* the header guard: BASE upper-cased */
		bool guard = true;
		for (size_t i = 0; i < nb; i++)
			guard &= s[i] == (base[i] >= 'a' && base[i] <= 'z' ? base[i] - 'a' + 'A' : base[i]);
		if (guard)
			return true;
	}
	return false;
}

/* The C names of a kernel's visible parameters. A name C cannot take
 * becomes "p<index>" followed by its runs of ASCII letters and digits,
 * each after one '_' (`tile_row_start_ptr`, parameter 3:
 * `p3_tile_row_start_ptr`; `__x`: `p3_x`; `café`: `p3_caf`);
 * any name equal to an earlier parameter's C name gets '_' appended until
 * it is unique. */
typedef struct c_names {
	int n;
	char *name[BLOB_MAX_PARAMS];
} c_names;

static void c_names_free(c_names *cn)
{
	for (int i = 0; i < cn->n; i++)
		free(cn->name[i]);
	cn->n = 0;
}

static bool c_names_make(const blob_kernel *k, const char *base, c_names *cn)
{
	cn->n = 0;
	for (int i = 0; i < visible_count(k) && i < BLOB_MAX_PARAMS; i++) {
		const blob_param *p = &k->params[i];
		const char *own = p->desc_rank ? p->desc_name : p->name ? p->name : "";
		strbuf sb;
		sb_init(&sb);
		if (param_clashes(own, base)) {
			sb_printf(&sb, "p%d", i);
			for (const char *p = own; *p; p++) {
				bool alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
				if (alnum && (p == own || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
							    (p[-1] >= '0' && p[-1] <= '9'))))
					sb_putc(&sb, '_'); /* one '_' for each run of other bytes */
				if (alnum)
					sb_putc(&sb, *p);
			}
		} else {
			sb_puts(&sb, own);
		}
		for (bool dup = true; dup;) {
			dup = false;
			for (int j = 0; j < i; j++)
				dup |= !strcmp(cn->name[j], sb_str(&sb));
			if (dup)
				sb_putc(&sb, '_');
		}
		cn->name[i] = strdup(sb_str(&sb));
		sb_free(&sb);
		if (!cn->name[i]) {
			c_names_free(cn);
			return false;
		}
		cn->n = i + 1;
	}
	return true;
}

static int visible_count(const blob_kernel *k)
{
	int n = 0;
	while (n < k->nparams && !(k->params[n].flags & BLOB_PARAM_HIDDEN))
		n++;
	return n;
}

/* The parameters after a descriptor's base (parameter i) that its
 * tile_tensordesc stands for too: the shapes and strides, then the TMA
 * map when the kernel reads one. */
static int desc_tail(const blob_kernel *k, int i)
{
	int n = 2 * k->params[i].desc_rank;
	return i + n + 1 < k->nparams && k->params[i + n + 1].kind == BLOB_PARAM_TENSORMAP ? n + 1 : n;
}

static bool takes_grid(const blob_kernel *k)
{
	for (int i = 0; i < k->nvariants; i++)
		if (!k->variants[i].grid_size)
			return true;
	return false;
}

static bool check_names(tilec_ctx *ctx, const blob_desc *d, const char *name)
{
	src_loc none = {0};
	if (!is_identifier(name)) {
		diag_error(ctx, none, "'%s' is not a C identifier: give the output a name with --name", name);
		return false;
	}
	for (int ki = 0; ki < d->nkernels; ki++) {
		const blob_kernel *k = &d->kernels[ki];
		if (k->nparams > BLOB_MAX_PARAMS) {
			diag_error(ctx, none, "kernel '%s' has more than %d parameters", k->name, BLOB_MAX_PARAMS);
			return false;
		}
		if (!is_identifier(k->name) || is_reserved(k->name)) {
			diag_error(ctx, none, "kernel name '%s' cannot name a C function", k->name);
			return false;
		}
		size_t n = strlen(name);
		const char *rest = k->name + n;
		if (!strncmp(k->name, name, n) && (!strcmp(rest, "_load") || !strcmp(rest, "_unload") ||
						   !strcmp(rest, "_module") || !strcmp(rest, "_blob") || !strcmp(rest, "_lazy"))) {
			diag_error(ctx, none, "kernel name '%s' clashes with the generated %s; choose another --name",
				   k->name, k->name);
			return false;
		}
		for (int i = 0; i < visible_count(k); i++) {
			const blob_param *p = &k->params[i];
			if (p->kind == BLOB_PARAM_TENSORMAP) {
				/* a descriptor's own map is skipped with it below */
				diag_error(ctx, none, "kernel '%s': tensor map '%s' does not follow a tensor descriptor parameter",
					   k->name, p->name);
				return false;
			}
			if (!p->desc_rank)
				continue;
			bool ok = p->kind == BLOB_PARAM_PTR && p->desc_rank <= IR_MAX_RANK && p->desc_name &&
				  i + 2 * p->desc_rank < visible_count(k);
			for (int j = 1; ok && j <= 2 * p->desc_rank; j++)
				ok = p[j].kind == BLOB_PARAM_INT && p[j].size == (j <= p->desc_rank ? 4 : 8) && !p[j].desc_rank;
			if (!ok) {
				diag_error(ctx, none, "kernel '%s': tensor descriptor parameter '%s' is malformed", k->name,
					   p->desc_name ? p->desc_name : "");
				return false;
			}
			i += desc_tail(k, i);
		}
	}
	return true;
}

/* `tensordesc<fp16[64, 64]>`, Triton's spelling */
static void desc_type_name(strbuf *sb, const blob_param *p)
{
	sb_printf(sb, "tensordesc<%s[", ir_kind_name((ir_kind)p->dtype));
	for (int d = 0; d < p->desc_rank; d++)
		sb_printf(sb, "%s%d", d ? ", " : "", (int)p->desc_block[d]);
	sb_puts(sb, "]>");
}

/* Text inside a generated comment: no comment end, printable ASCII only. */
static void put_comment_text(strbuf *sb, const char *s)
{
	for (char prev = 0; *s; prev = *s++)
		sb_putc(sb, *s == '/' && prev == '*' ? '|' : (*s < ' ' || *s > '~') ? '?' : *s);
}

static void type_name(strbuf *sb, const blob_param *p)
{
	sb_printf(sb, "%s%s", p->kind == BLOB_PARAM_PTR ? "*" : "", ir_kind_name((ir_kind)p->dtype));
}

static void put_grid_doc(strbuf *h, const blob_kernel *k, const blob_variant *v)
{
	const char *names[BLOB_MAX_PARAMS], *cnames[256];
	for (int i = 0; i < k->nparams; i++)
		names[i] = k->params[i].name;
	for (int i = 0; i < v->nconstexprs && i < 256; i++)
		cnames[i] = v->constexprs[i].name;
	gridexpr_format(h, v->grid_code, v->grid_size, k->nparams, names,
			v->nconstexprs < 256 ? v->nconstexprs : 256, cnames);
}

static void put_constexprs(strbuf *h, const blob_variant *v)
{
	for (int c = 0; c < v->nconstexprs; c++) {
		const ir_constexpr *x = &v->constexprs[c];
		sb_printf(h, "%s%s=", c ? ", " : "", x->name);
		switch (x->kind) {
		case IR_CONSTEXPR_FLOAT: sb_printf(h, "%g", x->fval); break;
		case IR_CONSTEXPR_BOOL: sb_puts(h, x->ival ? "True" : "False"); break;
		case IR_CONSTEXPR_STRING:
			sb_putc(h, '"');
			put_comment_text(h, x->sval);
			sb_putc(h, '"');
			break;
		case IR_CONSTEXPR_DTYPE: sb_puts(h, ir_kind_name((ir_kind)x->ival)); break;
		default: sb_printf(h, "%lld", (long long)x->ival);
		}
	}
}

/* The doc comment of a kernel's launch function. */
static void put_kernel_doc(strbuf *h, const blob_kernel *k, const c_names *cn)
{
	int nvis = visible_count(k);
	sb_printf(h, "/* %s: launches the kernel on `stream` (NULL: the default stream).\n", k->name);
	if (takes_grid(k))
		sb_puts(h, " * grid_x, grid_y, grid_z: the grid, in blocks (0 anywhere: nothing runs).\n");
	for (int i = 0; i < nvis; i++) {
		const blob_param *p = &k->params[i];
		size_t at = h->len;
		sb_puts(h, " *   ");
		put_comment_text(h, p->desc_rank ? p->desc_name : p->name ? p->name : "");
		for (size_t w = h->len - at; w < 21; w++)
			sb_putc(h, ' ');
		sb_putc(h, ' ');
		if (p->desc_rank) {
			sb_puts(h, "tile_tensordesc of ");
			desc_type_name(h, p);
			sb_puts(h, " (kernel parameters ");
			put_comment_text(h, p->name);
			sb_puts(h, " .. ");
			put_comment_text(h, p[2 * p->desc_rank].name);
			if (desc_tail(k, i) > 2 * p->desc_rank) {
				sb_puts(h, ", and the TMA map ");
				put_comment_text(h, p[2 * p->desc_rank + 1].name);
				sb_puts(h, " encoded from it at launch");
			}
			sb_putc(h, ')');
		} else {
			type_name(h, p);
		}
		if (strcmp(cn->name[i], p->desc_rank ? p->desc_name : p->name ? p->name : ""))
			sb_printf(h, " (C parameter %s)", cn->name[i]);
		if (p->desc_rank)
			i += desc_tail(k, i);
		sb_putc(h, '\n');
	}
	int nmaps = 0;
	for (int i = nvis; i < k->nparams; i++)
		nmaps += k->params[i].kind == BLOB_PARAM_TENSORMAP;
	if (nmaps)
		sb_printf(h, " * (plus %d TMA map%s of descriptors the kernel makes, built by tile_launch from these arguments)\n",
			  nmaps, nmaps == 1 ? "" : "s");
	if (nvis + nmaps < k->nparams)
		sb_printf(h, " * (plus %d hidden trailing parameters, passed as 0)\n", k->nparams - nvis - nmaps);
	if (k->nconfigs > 1) {
		sb_printf(h, " * %d autotune configs: the tuning table picks one per launch (key", k->nconfigs);
		for (int i = 0; i < k->nkeys; i++)
			sb_printf(h, "%s%s", i ? ", " : " ", k->params[k->keys[i]].name);
		sb_printf(h, "%s; %d entr%s; default config %d; docs/TUNING.md), tile_launch_config another\n",
			  k->nkeys ? "" : " none", k->nentries, k->nentries == 1 ? "y" : "ies", k->default_config);
	}
	for (int i = 0; i < k->nheuristics; i++) {
		sb_puts(h, " * heuristic ");
		put_comment_text(h, k->heuristics[i].name);
		sb_puts(h, " evaluated at each launch from the arguments\n");
	}
	sb_printf(h, " * %d variant%s, the most specialized whose predicates hold is launched:\n",
		  k->nvariants, k->nvariants == 1 ? "" : "s");
	for (int i = 0; i < k->nvariants; i++) {
		const blob_variant *v = &k->variants[i];
		sb_puts(h, " *   ");
		put_comment_text(h, v->symbol);
		if (k->nconfigs > 1)
			sb_printf(h, ": config %d, num_warps=%d", v->config, v->num_warps);
		else
			sb_printf(h, ": num_warps=%d", v->num_warps);
		if (v->producer_warps)
			sb_printf(h, " (+%d producer warp%s on sm_90a)", v->producer_warps, v->producer_warps == 1 ? "" : "s");
		if (v->cluster[0] * v->cluster[1] * v->cluster[2] > 1) /* the grid counts clusters */
			sb_printf(h, ", clusters of %ux%ux%u from sm_90 on", v->cluster[0], v->cluster[1], v->cluster[2]);
		if (v->nconstexprs) {
			sb_puts(h, ", ");
			put_constexprs(h, v);
		}
		for (int p = 0; p < nvis; p++) {
			uint64_t bit = UINT64_C(1) << p;
			if (v->pred_div16 & bit)
				sb_printf(h, ", %s %% 16 == 0", k->params[p].name);
			if (v->pred_div8 & bit)
				sb_printf(h, ", %s %% 8 == 0", k->params[p].name);
			if (v->pred_div4 & bit)
				sb_printf(h, ", %s %% 4 == 0", k->params[p].name);
			if (v->pred_eq1 & bit)
				sb_printf(h, ", %s == 1", k->params[p].name);
		}
		if (v->grid_size) {
			sb_puts(h, ", grid (");
			put_grid_doc(h, k, v);
			sb_putc(h, ')');
		}
		sb_putc(h, '\n');
	}
	sb_puts(h, " */\n");
}

static void put_signature(strbuf *sb, const blob_kernel *k, const c_names *cn, bool pdl)
{
	sb_printf(sb, "tile_status %s%s(tile_stream stream", k->name, pdl ? "_pdl" : "");
	if (takes_grid(k))
		sb_puts(sb, ", uint32_t grid_x, uint32_t grid_y, uint32_t grid_z");
	for (int i = 0; i < visible_count(k); i++) {
		const blob_param *p = &k->params[i];
		if (p->desc_rank) {
			sb_printf(sb, ", tile_tensordesc %s", cn->name[i]);
			i += desc_tail(k, i);
			continue;
		}
		sb_printf(sb, ", %s %s", emit_c_type(p), cn->name[i]);
	}
	sb_putc(sb, ')');
}

static bool put_header(strbuf *h, const blob_desc *d, const char *name, const char *file)
{
	strbuf guard;
	sb_init(&guard);
	for (const char *p = name; *p; p++)
		sb_putc(&guard, (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p));
	sb_puts(&guard, "_TILE_H");
	sb_printf(h, "/* %s - generated by tilec; do not edit.\n"
		     " *\n"
		     " * Kernel launchers over tile.h. Define TILE_IMPLEMENTATION in exactly one\n"
		     " * C file of the program before including tile.h. Every function returns a\n"
		     " * tile_status; tile_last_error() holds the detail of a failure. */\n",
		  file);
	sb_printf(h, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#include \"tile.h\"\n\n"
		     "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
		  sb_str(&guard), sb_str(&guard));
	sb_printf(h, "/* Creates the module (once) and loads it into the current context (or\n"
		     " * the primary context of the thread's device, tile_set_device) now,\n"
		     " * rather than at the first launch. Call it before capturing launches into\n"
		     " * a CUDA graph: a first load during capture is TILE_ERROR_CAPTURING. */\n"
		     "tile_status %s_load(void);\n"
		     "/* Unloads the module from every context and frees it; a later launch\n"
		     " * creates it again. Only while no other thread launches its kernels. */\n"
		     "void %s_unload(void);\n"
		     "/* The module, created on first use, for tile.h's introspection calls. */\n"
		     "tile_status %s_module(tile_module **out);\n\n",
		  name, name, name);
	for (int ki = 0; ki < d->nkernels; ki++) {
		c_names cn;
		if (!c_names_make(&d->kernels[ki], name, &cn))
			return false;
		put_kernel_doc(h, &d->kernels[ki], &cn);
		put_signature(h, &d->kernels[ki], &cn, false);
		sb_puts(h, ";\n\n");
		if (d->kernels[ki].pdl) {
			sb_printf(h, "/* %s_pdl: the same with programmatic dependent launch (TILE_LAUNCH_PDL):\n"
				     " * the kernel may start while the one before it in the stream runs, and\n"
				     " * waits for it at tl.extra.cuda.gdc_wait() (compute capability 9.0 on). */\n",
				  d->kernels[ki].name);
			put_signature(h, &d->kernels[ki], &cn, true);
			sb_puts(h, ";\n\n");
		}
		c_names_free(&cn);
	}
	sb_printf(h, "#ifdef __cplusplus\n}\n#endif\n#endif /* %s */\n", sb_str(&guard));
	sb_free(&guard);
	return true;
}

static bool put_launcher(strbuf *c, const blob_kernel *k, int index, const char *name, bool pdl)
{
	int nvis = visible_count(k);
	bool grid = takes_grid(k);
	c_names cn;
	if (!c_names_make(k, name, &cn))
		return false;
	put_signature(c, k, &cn, pdl);
	sb_printf(c, "\n{\n\ttile_module *tile_m;\n\ttile_status tile_s = %s_module(&tile_m);\n", name);
	if (grid)
		sb_puts(c, "\tconst uint32_t tile_grid[3] = {grid_x, grid_y, grid_z};\n");
	for (int i = 0; i < nvis; i++) {
		const blob_param *p = &k->params[i];
		if (p->kind != BLOB_PARAM_PTR && p->size < 4)
			sb_printf(c, "\t%s tile_w%d = %s;\n", p->kind == BLOB_PARAM_INT ? "int32_t" : "uint32_t",
				  i, cn.name[i]);
	}
	for (int i = 0; i < nvis; i++) {
		const blob_param *p = &k->params[i];
		if (!p->desc_rank)
			continue;
		sb_printf(c, "\tstatic const int32_t tile_block%d[%d] = {", i, p->desc_rank);
		for (int d = 0; d < p->desc_rank; d++)
			sb_printf(c, "%s%d", d ? ", " : "", (int)p->desc_block[d]);
		sb_printf(c, "};\n\tint32_t tile_shape%d[%d];\n", i, p->desc_rank);
	}
	if (nvis)
		sb_printf(c, "\tvoid *tile_args[%d];\n", nvis);
	sb_puts(c, "\tif (tile_s != TILE_SUCCESS)\n\t\treturn tile_s;\n");
	for (int i = 0; i < nvis; i++) {
		const blob_param *p = &k->params[i];
		if (p->desc_rank) {
			/* checked as Triton's TensorDescriptor asserts, then unpacked */
			int r = p->desc_rank;
			sb_printf(c, "\ttile_s = tile_tensordesc_check(&%s, \"%s\", %d, %d, tile_block%d);\n"
				     "\tif (tile_s != TILE_SUCCESS)\n\t\treturn tile_s;\n",
				  cn.name[i], cn.name[i], r, ir_kind_bytes((ir_kind)p->dtype), i);
			sb_printf(c, "\ttile_args[%d] = &%s.base;\n", i, cn.name[i]);
			for (int d = 0; d < r; d++)
				sb_printf(c, "\ttile_shape%d[%d] = (int32_t)%s.shape[%d];\n\ttile_args[%d] = &tile_shape%d[%d];\n",
					  i, d, cn.name[i], d, i + 1 + d, i, d);
			for (int d = 0; d < r; d++)
				sb_printf(c, "\ttile_args[%d] = &%s.strides[%d];\n", i + 1 + r + d, cn.name[i], d);
			if (desc_tail(k, i) > 2 * r) /* tile_launch encodes the map from the descriptor */
				sb_printf(c, "\ttile_args[%d] = &%s;\n", i + 1 + 2 * r, cn.name[i]);
			i += desc_tail(k, i);
			continue;
		}
		if (p->kind != BLOB_PARAM_PTR && p->size < 4)
			sb_printf(c, "\ttile_args[%d] = &tile_w%d;\n", i, i);
		else
			sb_printf(c, "\ttile_args[%d] = &%s;\n", i, cn.name[i]);
	}
	sb_printf(c, "\treturn %s(tile_m, %d, %s%s, stream, %s, %d%s);\n}\n\n", pdl ? "tile_launch_ex" : "tile_launch", index,
		  pdl ? "-1, " : "", grid ? "tile_grid" : "NULL", nvis ? "tile_args" : "NULL", nvis, pdl ? ", TILE_LAUNCH_PDL" : "");
	c_names_free(&cn);
	return true;
}

static bool put_source(strbuf *c, const blob_desc *d, const uint8_t *blob, size_t size,
		       const char *name, const char *file, const char *header)
{
	int version = blob[4] | blob[5] << 8; /* blob_write's pick: the oldest that holds the blob */
	sb_printf(c, "/* %s - generated by tilec; do not edit.\n"
		     " *\n"
		     " * The blob (docs/FORMAT.md of tile) and the launchers declared in %s. */\n"
		     "#include \"%s\"\n\n"
		     "#if !defined(TILE_BLOB_VERSION) || TILE_BLOB_VERSION < %d || \\\n"
		     "\t(defined(TILE_BLOB_VERSION_MIN) && TILE_BLOB_VERSION_MIN > %d)\n"
		     "#error \"%s holds a version %d blob that this tile.h cannot read: use the tile.h of the tilec that generated it\"\n"
		     "#endif\n\n",
		  file, header, header, version, version, file, version);
	sb_printf(c, "/* The union aligns the bytes for the loader's direct reads. */\n"
		     "static const union {\n\tunsigned char bytes[%zu];\n\tunsigned long long align;\n"
		     "} %s_blob = {{\n",
		  size, name);
	for (size_t i = 0; i < size; i++)
		sb_printf(c, "%s0x%02x,%s", i % 16 ? " " : "\t", blob[i], i % 16 == 15 || i + 1 == size ? "\n" : "");
	sb_printf(c, "}};\n\nstatic tile_lazy_module %s_lazy;\n\n", name);
	sb_printf(c, "tile_status %s_module(tile_module **out)\n{\n"
		     "\treturn tile_lazy_get(&%s_lazy, %s_blob.bytes, sizeof %s_blob.bytes, out);\n}\n\n",
		  name, name, name, name);
	sb_printf(c, "tile_status %s_load(void)\n{\n\ttile_module *m;\n\ttile_status s = %s_module(&m);\n"
		     "\treturn s != TILE_SUCCESS ? s : tile_module_load(m);\n}\n\n",
		  name, name);
	sb_printf(c, "void %s_unload(void)\n{\n\ttile_lazy_release(&%s_lazy);\n}\n\n", name, name);
	for (int ki = 0; ki < d->nkernels; ki++)
		if (!put_launcher(c, &d->kernels[ki], ki, name, false) ||
		    (d->kernels[ki].pdl && !put_launcher(c, &d->kernels[ki], ki, name, true)))
			return false;
	return true;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

tilec_status emit_c(tilec_ctx *ctx, const blob_desc *d, const uint8_t *blob, size_t size,
		    const char *base_path, const char *name)
{
	src_loc none = {0};
	if (!check_names(ctx, d, name))
		return TILEC_ERR_INVALID;
	strbuf c, h, cpath, hpath;
	sb_init(&c);
	sb_init(&h);
	sb_init(&cpath);
	sb_init(&hpath);
	sb_printf(&cpath, "%s.c", base_path);
	sb_printf(&hpath, "%s.h", base_path);
	bool ok = put_header(&h, d, name, base_name(sb_str(&hpath)));
	ok = ok && put_source(&c, d, blob, size, name, base_name(sb_str(&cpath)), base_name(sb_str(&hpath)));
	tilec_status st;
	if (!ok || c.failed || h.failed || cpath.failed || hpath.failed) {
		diag_error(ctx, none, "out of memory while generating C");
		st = TILEC_ERR_NOMEM;
	} else {
		const char *paths[2] = {sb_str(&cpath), sb_str(&hpath)};
		const void *data[2] = {c.data, h.data};
		size_t sizes[2] = {c.len, h.len};
		st = emit_write_files(ctx, 2, paths, data, sizes);
	}
	sb_free(&c);
	sb_free(&h);
	sb_free(&cpath);
	sb_free(&hpath);
	return st;
}

tilec_status emit_write_files(tilec_ctx *ctx, int n, const char *const *paths,
			      const void *const *data, const size_t *sizes)
{
	src_loc none = {0};
	strbuf tmp[8];
	if (n > 8) {
		diag_error(ctx, none, "emit_write_files: at most 8 files at once");
		return TILEC_ERR_INVALID;
	}
	tilec_status st = TILEC_OK;
	int made = 0;
	for (; made < n && st == TILEC_OK; made++) {
		sb_init(&tmp[made]);
		sb_printf(&tmp[made], "%s.tmp%ld", paths[made], (long)getpid());
		FILE *f = tmp[made].failed ? NULL : fopen(sb_str(&tmp[made]), "wb");
		if (!f) {
			diag_error(ctx, none, "cannot write '%s': %s", paths[made], strerror(errno));
			st = TILEC_ERR_IO;
			continue;
		}
		bool ok = fwrite(data[made], 1, sizes[made], f) == sizes[made];
		ok &= fclose(f) == 0;
		if (!ok) {
			diag_error(ctx, none, "cannot write '%s': %s", paths[made], strerror(errno));
			st = TILEC_ERR_IO;
		}
	}
	for (int i = 0; i < made && st == TILEC_OK; i++)
		if (rename(sb_str(&tmp[i]), paths[i]) != 0) {
			diag_error(ctx, none, "cannot write '%s': %s", paths[i], strerror(errno));
			st = TILEC_ERR_IO;
		}
	for (int i = 0; i < made; i++) {
		if (st != TILEC_OK)
			remove(sb_str(&tmp[i]));
		sb_free(&tmp[i]);
	}
	return st;
}
