/* layout.c - distributed layouts and their assignment.
 *
 * A blocked layout (Triton's BlockedEncoding) gives each thread
 * size_per_thread consecutive elements per dim, spreads threads of a warp
 * and then warps over the dims in `order` (fastest first), and repeats that
 * CTA tile until the shape is covered; a dim smaller than the tile is
 * replicated instead. A slice layout is its parent with one dim removed, so
 * every layout flattens to a blocked one over a shape with size-1 dims
 * reinserted (layout_map): register indices per dim, coordinates as lane
 * and warp bit fields plus a per-register constant.
 *
 * Assignment is Triton's default layout plus its coalescing, simplified:
 * one blocked layout per rank, built from the largest shape of that rank
 * with as many consecutive elements per thread as the widest memory access
 * of that rank allows (16 bytes, proven by axis info, capped so that all
 * threads get work). Reductions produce slices of their operand's layout,
 * expand_dims of a slice gives its parent back, elementwise ops follow the
 * first operand that is not cheap to rematerialize, and loop-carried values
 * take the layout of what the loop yields when their initial value is cheap
 * (zeros). Cheap values (constants, aranges, splats and elementwise chains
 * of them) are recomputed in whatever layout a use needs.
 *
 * Where such dots exist, the default 2-D layout is built for the smallest
 * of their operand tiles, so that no operand load fetches replicas.
 *
 * A dot the tensor cores take (layout_dot_mma: fp16, bf16, tf32) produces
 * layout_mma when every target has mma.sync (sm_80): a blocked layout whose registers are exactly the
 * instruction's accumulator fragments, so the accumulator of a K loop stays
 * in registers across iterations and the rest of the kernel treats it as
 * any blocked value.
 */
#include "analysis/analysis.h"

#include <string.h>

static int ilog2(int64_t v)
{
	int n = 0;
	while (((int64_t)1 << (n + 1)) <= v)
		n++;
	return n;
}

static int32_t min32(int32_t a, int32_t b)
{
	return a < b ? a : b;
}

layout *layout_blocked(arena *a, int rank, const int32_t *shape, int num_warps, int vec)
{
	layout *l = arena_alloc(a, sizeof *l);
	if (!l)
		return NULL;
	l->kind = LAYOUT_BLOCKED;
	l->rank = rank;
	for (int d = 0; d < rank; d++) {
		l->order[d] = rank - 1 - d;
		l->size_per_thread[d] = 1;
	}
	l->size_per_thread[rank - 1] = min32(vec > 0 ? vec : 1, shape[rank - 1]);
	int32_t threads = 32, warps = num_warps > 0 ? num_warps : 1;
	for (int i = 0; i < rank; i++) {
		int d = l->order[i];
		int32_t room = shape[d] / l->size_per_thread[d];
		int32_t t = min32(threads, room > 1 ? room : 1);
		l->threads_per_warp[d] = t;
		threads /= t;
	}
	l->threads_per_warp[l->order[0]] *= threads;
	for (int i = 0; i < rank; i++) {
		int d = l->order[i];
		int32_t room = shape[d] / (l->size_per_thread[d] * l->threads_per_warp[d]);
		int32_t w = min32(warps, room > 1 ? room : 1);
		l->warps_per_cta[d] = w;
		warps /= w;
	}
	/* Leftover warps replicate along the slowest dim, as Triton's do. */
	l->warps_per_cta[l->order[rank - 1]] *= warps;
	return l;
}

layout *layout_mma(arena *a, int num_warps)
{
	layout *l = arena_alloc(a, sizeof *l);
	if (!l)
		return NULL;
	*l = (layout){.kind = LAYOUT_BLOCKED, .rank = 2, .size_per_thread = {1, 2}, .threads_per_warp = {8, 4},
		      .warps_per_cta = {1, num_warps > 0 ? num_warps : 1}, .order = {1, 0}, .mma = true};
	return l;
}

bool layout_dot_mma(const ir_func *f, const ir_op *op)
{
	ir_type at = f->values[op->args[0]].type, bt = f->values[op->args[1]].type;
	ir_type ct = f->values[op->results[0]].type;
	bool tf32 = at.kind == IR_F32 && op->sub == IR_PRECISION_TF32;
	return (at.kind == IR_F16 || at.kind == IR_BF16 || tf32) && bt.kind == at.kind && ct.kind == IR_F32 &&
	       at.rank == 2 && at.shape[0] % 16 == 0 && at.shape[1] % 16 == 0 && bt.shape[1] % 8 == 0;
}

layout *layout_slice(arena *a, const layout *parent, int dim)
{
	layout *l = arena_alloc(a, sizeof *l);
	if (!l)
		return NULL;
	l->kind = LAYOUT_SLICE;
	l->rank = parent->rank - 1;
	l->dim = dim;
	l->parent = parent;
	return l;
}

bool layout_eq(const layout *x, const layout *y)
{
	if (x == y)
		return true;
	if (!x || !y || x->kind != y->kind || x->rank != y->rank)
		return false;
	if (x->kind == LAYOUT_SLICE)
		return x->dim == y->dim && layout_eq(x->parent, y->parent);
	size_t n = sizeof(int32_t) * (size_t)x->rank;
	return x->mma == y->mma && !memcmp(x->size_per_thread, y->size_per_thread, n) &&
	       !memcmp(x->threads_per_warp, y->threads_per_warp, n) &&
	       !memcmp(x->warps_per_cta, y->warps_per_cta, n) && !memcmp(x->order, y->order, n);
}

static int32_t spt_eff(const layout_map *m, int d)
{
	return min32(m->blocked->size_per_thread[d], m->shape[d]);
}

static int32_t tile_of(const layout *b, int d)
{
	return b->size_per_thread[d] * b->threads_per_warp[d] * b->warps_per_cta[d];
}

layout_map layout_map_of(const layout *l, int rank, const int32_t *shape)
{
	layout_map m;
	memset(&m, 0, sizeof m);
	if (l->kind == LAYOUT_SLICE) {
		int32_t full[IR_MAX_RANK];
		for (int d = 0, j = 0; d <= rank; d++)
			full[d] = d == l->dim ? 1 : shape[j++];
		m = layout_map_of(l->parent, rank + 1, full);
		int8_t outer[IR_MAX_RANK];
		memcpy(outer, m.dim_of, sizeof outer);
		for (int j = 0; j < rank; j++)
			m.dim_of[j] = outer[j < l->dim ? j : j + 1];
		return m;
	}
	m.blocked = l;
	m.rank = rank;
	m.nregs = 1;
	for (int d = 0; d < rank; d++) {
		m.dim_of[d] = (int8_t)d;
		m.shape[d] = shape[d];
		int32_t t = tile_of(l, d), reps = shape[d] / t;
		m.regs_per_dim[d] = spt_eff(&m, d) * (reps > 1 ? reps : 1);
		m.nregs *= m.regs_per_dim[d];
	}
	return m;
}

void layout_reg_split(const layout_map *m, int reg, int32_t *idx)
{
	for (int i = 0; i < m->rank; i++) {
		int d = m->blocked->order[i];
		idx[d] = reg % m->regs_per_dim[d];
		reg /= m->regs_per_dim[d];
	}
}

int layout_reg_join(const layout_map *m, const int32_t *idx)
{
	int reg = 0;
	for (int i = m->rank - 1; i >= 0; i--) {
		int d = m->blocked->order[i];
		reg = reg * m->regs_per_dim[d] + idx[d];
	}
	return reg;
}

void layout_reg_coords(const layout_map *m, int reg, int32_t *coords)
{
	int32_t idx[IR_MAX_RANK];
	layout_reg_split(m, reg, idx);
	for (int d = 0; d < m->rank; d++) {
		int32_t s = spt_eff(m, d);
		coords[d] = (idx[d] / s) * tile_of(m->blocked, d) + idx[d] % s;
	}
}

int layout_contig_regs(const layout_map *m, int d)
{
	for (int i = 0; i < m->rank; i++) {
		int o = m->blocked->order[i];
		if (o == d)
			return spt_eff(m, d);
		if (m->regs_per_dim[o] > 1)
			return 1;
	}
	return 1;
}

layout_field layout_dim_field(const layout_map *m, int d)
{
	const layout *b = m->blocked;
	layout_field f = {0};
	for (int i = 0; i < m->rank && b->order[i] != d; i++) {
		f.lane_shift += ilog2(b->threads_per_warp[b->order[i]]);
		f.warp_shift += ilog2(b->warps_per_cta[b->order[i]]);
	}
	f.lanes = b->threads_per_warp[d];
	f.warps = b->warps_per_cta[d];
	f.lane_scale = b->size_per_thread[d];
	f.warp_scale = b->size_per_thread[d] * b->threads_per_warp[d];
	return f;
}

bool layout_map_eq(const layout_map *x, const layout_map *y)
{
	return x->rank == y->rank && !memcmp(x->shape, y->shape, sizeof(int32_t) * (size_t)x->rank) &&
	       layout_eq(x->blocked, y->blocked);
}

static void ints_str(strbuf *sb, const char *name, const int32_t *v, int n)
{
	sb_printf(sb, "%s=[", name);
	for (int i = 0; i < n; i++)
		sb_printf(sb, i ? ",%d" : "%d", (int)v[i]);
	sb_putc(sb, ']');
}

void layout_str(strbuf *sb, const layout *l)
{
	if (!l) {
		sb_puts(sb, "scalar");
		return;
	}
	if (l->kind == LAYOUT_SLICE) {
		sb_printf(sb, "slice{dim=%d, ", l->dim);
		layout_str(sb, l->parent);
		sb_putc(sb, '}');
		return;
	}
	sb_puts(sb, "blocked{");
	ints_str(sb, "spt", l->size_per_thread, l->rank);
	ints_str(sb, ", tpw", l->threads_per_warp, l->rank);
	ints_str(sb, ", wpc", l->warps_per_cta, l->rank);
	ints_str(sb, ", order", l->order, l->rank);
	sb_puts(sb, l->mma ? ", mma}" : "}");
}

/* ---- assignment ---- */

typedef struct assigner {
	arena *a;
	const ir_func *f;
	const axis_info *ai;
	layout_plan *p;
	int32_t max_shape[IR_MAX_RANK + 1][IR_MAX_RANK];
	int vec[IR_MAX_RANK + 1];
	int32_t dot_tile[2];  /* the smallest operand dims of tensor-core dots */
	bool tensor_cores;
	bool oom;
} assigner;

static ir_type vtype(const assigner *s, int v)
{
	return s->f->values[v].type;
}

static bool on_tensor_cores(const assigner *s, const ir_op *op)
{
	return s->tensor_cores && op->code == IR_OP_DOT && layout_dot_mma(s->f, op);
}

static void note_shape(assigner *s, ir_type t)
{
	for (int d = 0; d < t.rank; d++)
		if (t.shape[d] > s->max_shape[t.rank][d])
			s->max_shape[t.rank][d] = t.shape[d];
}

/* Pass 1: the largest shape and the widest access of each rank. */
static void survey_region(assigner *s, const ir_region *r)
{
	int threads = 32 * (s->f->num_warps > 0 ? s->f->num_warps : 1);
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nresults; k++)
			note_shape(s, vtype(s, op->results[k]));
		for (int g = 0; g < op->nregions; g++) {
			const ir_region *reg = &op->regions[g];
			for (int k = 0; k < reg->nparams; k++)
				note_shape(s, vtype(s, reg->params[k]));
			survey_region(s, reg);
		}
		if (on_tensor_cores(s, op))
			for (int k = 0; k < 2; k++) {
				ir_type t = vtype(s, op->args[k]);
				for (int d = 0; d < 2; d++)
					if (t.shape[d] < s->dot_tile[d])
						s->dot_tile[d] = t.shape[d];
			}
		if ((op->code == IR_OP_LOAD || op->code == IR_OP_STORE) && vtype(s, op->args[0]).rank > 0) {
			ir_type pt = vtype(s, op->args[0]);
			int mask = -1;
			if (op->flags & IR_FLAG_HAS_MASK)
				mask = op->args[op->code == IR_OP_LOAD ? 1 : 2];
			int w = axis_vector_width(s->f, s->ai, op->args[0], mask);
			int64_t per_thread = ir_numel(pt) / threads;
			if (w > per_thread)
				w = per_thread > 1 ? (int)per_thread : 1;
			if (w > s->vec[pt.rank])
				s->vec[pt.rank] = w;
		}
	}
}

static bool remat_code(ir_opcode c)
{
	switch (c) {
	case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS: case IR_OP_CAST: case IR_OP_BITCAST:
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
	case IR_OP_MIN: case IR_OP_MAX: case IR_OP_NEG: case IR_OP_NOT: case IR_OP_CMP:
	case IR_OP_SELECT: case IR_OP_FMA: case IR_OP_PTR_ADD: case IR_OP_HINT:
		return true;
	default:
		return false;
	}
}

static const layout *by_rank(const assigner *s, int rank)
{
	return s->p->by_rank[rank];
}

/* The layout an op works in: its first operand that must stay where it is. */
static const layout *follow_operands(const assigner *s, const ir_op *op, int rank)
{
	for (int i = 0; i < op->nargs; i++) {
		int v = op->args[i];
		if (vtype(s, v).rank == rank && !s->p->remat[v] && s->p->of[v])
			return s->p->of[v];
	}
	return by_rank(s, rank);
}

static void assign_region(assigner *s, const ir_region *r);

static const layout *yielded(const assigner *s, const ir_region *r, int i)
{
	if (!r->nops)
		return NULL;
	const ir_op *t = r->ops[r->nops - 1];
	return i < t->nargs ? s->p->of[t->args[i]] : NULL;
}

/* Loop-carried values start in their initial values' layouts; those
 * whose initial value is cheap switch to what the loop yields (then the
 * body is assigned again). True when one switched. */
static bool retarget(assigner *s, const int *params, const int *inits, int n, const ir_region *yield_region)
{
	bool again = false;
	for (int i = 0; i < n; i++) {
		const layout *y = yielded(s, yield_region, i);
		if (y && s->p->remat[inits[i]] && !layout_eq(y, s->p->of[params[i]])) {
			s->p->of[params[i]] = y;
			again = true;
		}
	}
	return again;
}

static void assign_op(assigner *s, const ir_op *op)
{
	layout_plan *p = s->p;
	int res = op->nresults ? op->results[0] : -1;
	ir_type rt = res >= 0 ? vtype(s, res) : ir_scalar(IR_VOID);
	switch (op->code) {
	case IR_OP_FOR: {
		const ir_region *body = &op->regions[0];
		int n = op->nargs - 3;
		for (int i = 0; i < n; i++)
			p->of[body->params[1 + i]] = p->of[op->args[3 + i]];
		assign_region(s, body);
		if (retarget(s, body->params + 1, op->args + 3, n, body))
			assign_region(s, body);
		for (int i = 0; i < op->nresults; i++)
			p->of[op->results[i]] = p->of[body->params[1 + i]];
		return;
	}
	case IR_OP_WHILE: {
		const ir_region *before = &op->regions[0], *after = &op->regions[1];
		for (int i = 0; i < op->nargs && i < before->nparams; i++)
			p->of[before->params[i]] = p->of[op->args[i]];
		const ir_op *cond = before->nops ? before->ops[before->nops - 1] : NULL;
		for (int pass = 0; pass < 2 && cond; pass++) {
			assign_region(s, before);
			/* The after region's parameters are the condition's values. */
			for (int i = 0; i < after->nparams && i + 1 < cond->nargs; i++)
				p->of[after->params[i]] = p->of[cond->args[i + 1]];
			assign_region(s, after);
			if (!retarget(s, before->params, op->args, op->nargs, after))
				break;
		}
		for (int i = 0; cond && i < op->nresults && i + 1 < cond->nargs; i++)
			p->of[op->results[i]] = p->of[cond->args[i + 1]];
		return;
	}
	case IR_OP_IF:
		for (int g = 0; g < op->nregions; g++)
			assign_region(s, &op->regions[g]);
		for (int i = 0; i < op->nresults; i++) {
			const layout *t = yielded(s, &op->regions[0], i);
			const layout *e = op->nregions > 1 ? yielded(s, &op->regions[1], i) : NULL;
			const ir_op *ty = op->regions[0].nops ? op->regions[0].ops[op->regions[0].nops - 1] : NULL;
			bool then_cheap = ty && i < ty->nargs && p->remat[ty->args[i]];
			p->of[op->results[i]] = (then_cheap && e) ? e : t;
		}
		return;
	default:
		break;
	}
	if (res < 0 || rt.rank == 0)
		return;
	const layout *l;
	switch (op->code) {
	case IR_OP_CONST: case IR_OP_ARANGE: case IR_OP_SPLAT:
		p->remat[res] = true;
		l = by_rank(s, rt.rank);
		break;
	case IR_OP_REDUCE: {
		const layout *src = p->of[op->args[0]];
		int rin = vtype(s, op->args[0]).rank;
		if (!src || src->kind != LAYOUT_BLOCKED || p->remat[op->args[0]])
			src = by_rank(s, rin);
		l = layout_slice(s->a, src, op->axis);
		break;
	}
	case IR_OP_EXPAND_DIMS: {
		const layout *src = p->of[op->args[0]];
		if (src && src->kind == LAYOUT_SLICE && src->dim == op->axis && src->parent->rank == rt.rank &&
		    !p->remat[op->args[0]])
			l = src->parent;
		else
			l = by_rank(s, rt.rank);
		break;
	}
	case IR_OP_BROADCAST: {
		const layout *src = p->of[op->args[0]];
		l = (src && src->kind == LAYOUT_BLOCKED && !p->remat[op->args[0]]) ? src : by_rank(s, rt.rank);
		break;
	}
	case IR_OP_DOT:
		l = on_tensor_cores(s, op) ? layout_mma(s->a, s->f->num_warps) : follow_operands(s, op, rt.rank);
		break;
	default:
		l = follow_operands(s, op, rt.rank);
		break;
	}
	if (!l) {
		s->oom = true;
		return;
	}
	if (remat_code(op->code)) {
		bool all = true;
		for (int i = 0; i < op->nargs; i++)
			if (vtype(s, op->args[i]).rank > 0 && !p->remat[op->args[i]])
				all = false;
		p->remat[res] = all;
	}
	for (int i = 0; i < op->nresults; i++)
		p->of[op->results[i]] = l;
}

static void assign_region(assigner *s, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++)
		assign_op(s, r->ops[i]);
}

tilec_status layout_assign(tilec_ctx *ctx, arena *a, const ir_func *f, const axis_info *ai, bool tensor_cores,
			   layout_plan *out)
{
	(void)ctx;
	memset(out, 0, sizeof *out);
	assigner s;
	memset(&s, 0, sizeof s);
	s.a = a;
	s.f = f;
	s.ai = ai;
	s.tensor_cores = out->tensor_cores = tensor_cores;
	s.p = out;
	out->of = arena_alloc(a, sizeof(layout *) * (size_t)(f->nvalues + 1));
	out->remat = arena_alloc(a, sizeof(bool) * (size_t)(f->nvalues + 1));
	if (!out->of || !out->remat)
		return TILEC_ERR_NOMEM;
	for (int r = 1; r <= IR_MAX_RANK; r++)
		for (int d = 0; d < r; d++)
			s.max_shape[r][d] = 1;
	s.dot_tile[0] = s.dot_tile[1] = INT32_MAX;
	survey_region(&s, &f->body);
	/* The default 2-D layout must not replicate a dot's operand tiles (their
	 * loads would fetch everything twice): its CTA tile fits the smallest. */
	for (int d = 0; d < 2; d++)
		if (s.dot_tile[d] < s.max_shape[2][d])
			s.max_shape[2][d] = s.dot_tile[d];
	for (int r = 1; r <= IR_MAX_RANK; r++) {
		out->by_rank[r] = layout_blocked(a, r, s.max_shape[r], f->num_warps, s.vec[r] ? s.vec[r] : 1);
		if (!out->by_rank[r])
			return TILEC_ERR_NOMEM;
	}
	assign_region(&s, &f->body);
	return s.oom ? TILEC_ERR_NOMEM : TILEC_OK;
}
