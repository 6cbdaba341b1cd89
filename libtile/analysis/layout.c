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
 * threads get work; a mask that still leaves vectors does not narrow it,
 * as Triton's coalescing does not). Reductions produce slices of their operand's layout,
 * expand_dims of a slice gives its parent back, elementwise ops follow the
 * first operand that is not cheap to rematerialize, and loop-carried values
 * take the layout of what the loop yields when their initial value is cheap
 * (zeros). Cheap values (constants, aranges, splats and elementwise chains
 * of them, and small reshapes and permutes of such chains, evaluated
 * element by element) are recomputed in whatever layout a use needs; a
 * broadcast only one op reads takes that op's layout (its smaller source
 * moves), and so does an operand computed from broadcasts and cheap values
 * alone. A load only an interleave reads gets a layout of its own shape
 * where the rank's would replicate it, so the join folds in registers;
 * splits, joins and reshapes whose elements each thread already holds
 * take their source's registers (fold_split, fold_join, fold_reorder).
 *
 * Where such dots exist, the default 2-D layout is built for the smallest
 * of their operand tiles, so that no operand load fetches replicas; a
 * larger block loaded for something else, which that layout would hold
 * several times over, takes the layout of its own shape (load_unreplicated).
 *
 * A dot the tensor cores take (layout_dot_mma: fp16, bf16, tf32) produces
 * layout_mma when every target has mma.sync (sm_80): a blocked layout whose registers are exactly the
 * instruction's accumulator fragments, so the accumulator of a K loop stays
 * in registers across iterations and the rest of the kernel treats it as
 * any blocked value; on wgmma, layout_wgmma, whose warpgroups may split N
 * into contiguous blocks. A 1-D load that only scales such a result
 * (through an expand_dims and a broadcast) is loaded in the result's slice
 * (scale_load), so that no scale row moves through shared memory; a row
 * that is only broadcast against an operand already placed is loaded in
 * that operand's slice (broadcast_row). Assignment runs forward, in
 * program order; rows loaded at the top level before the ops that place
 * them (a reduction's slice they are added to), whose every use meets one
 * slice, are wanted in it and the top level is assigned again
 * (placed_rows), as Triton's layouts propagate back from the reduction.
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
	int32_t order[IR_MAX_RANK];
	for (int d = 0; d < rank; d++)
		order[d] = rank - 1 - d;
	return layout_blocked_order(a, rank, shape, num_warps, vec, order);
}

layout *layout_blocked_order(arena *a, int rank, const int32_t *shape, int num_warps, int vec, const int32_t *order)
{
	layout *l = arena_alloc(a, sizeof *l);
	if (!l)
		return NULL;
	l->kind = LAYOUT_BLOCKED;
	l->rank = rank;
	for (int d = 0; d < rank; d++) {
		l->order[d] = order[d];
		l->size_per_thread[d] = 1;
	}
	l->size_per_thread[order[0]] = min32(vec > 0 ? vec : 1, shape[order[0]]);
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

layout *layout_mma(arena *a, int rank, int wb, int wm, int wn, bool wide)
{
	layout *l = arena_alloc(a, sizeof *l);
	if (!l)
		return NULL;
	if (rank == 3) /* a batched dot's: the batch dim over warps, then in registers, slowest */
		*l = (layout){.kind = LAYOUT_BLOCKED, .rank = 3, .size_per_thread = {1, 1, wide ? 8 : 2},
			      .threads_per_warp = {1, 8, 4}, .warps_per_cta = {wb, wm, wn}, .order = {2, 1, 0}, .mma = true};
	else
		*l = (layout){.kind = LAYOUT_BLOCKED, .rank = 2, .size_per_thread = {1, wide ? 8 : 2},
			      .threads_per_warp = {8, 4}, .warps_per_cta = {wm, wn}, .order = {1, 0}, .mma = true};
	return l;
}


/* Triton's choice of warps for mma.sync (warpsPerTileV2): a dot chained
 * to another (attention) puts all warps along its longer dim, so the
 * result feeds the next dot's A operand from registers; otherwise each
 * doubling goes to the dim with more instruction tiles per warp left
 * (16-row tiles of M against 8-column tiles of N, ties to M), which
 * balances A's and B's fragments and so the registers. A warp here reads
 * B 16 columns at a time (ldmatrix x4), so where that split would leave a
 * warp fewer than 16 columns the doublings compare 16-wide blocks of both
 * dims instead, never putting more warps along M than it has 16-row
 * blocks. */
void layout_mma_warps(int64_t m, int64_t n, int num_warps, bool chained, int *wm, int *wn)
{
	int w = num_warps > 0 ? num_warps : 1;
	if (chained) {
		*wm = m >= n ? w : 1;
		*wn = m >= n ? 1 : w;
		return;
	}
	int64_t reps_m = (m + 15) / 16, reps_n = (n + 7) / 8;
	*wm = *wn = 1;
	while (*wm * *wn < w) {
		if (reps_m >= reps_n) {
			*wm *= 2;
			if (reps_m != 1)
				reps_m /= 2;
		} else {
			*wn *= 2;
			reps_n /= 2;
		}
	}
	if (n / *wn >= 16 && m / *wm >= 16)
		return;
	*wm = *wn = 1;
	while (*wm * *wn < w) {
		if (m / 16 / *wm >= n / 16 / *wn && *wm < m / 16)
			*wm *= 2;
		else
			*wn *= 2;
	}
}

smem_layout smem_layout_make(int32_t r, int32_t c, int elem_bytes, bool transposed, bool panels)
{
	smem_layout s = {.transposed = transposed, .elem_bytes = elem_bytes};
	s.rows = transposed ? c : r;
	s.row_bytes = (transposed ? r : c) * elem_bytes;
	s.panel_bytes = s.row_bytes;
	for (int w = 128; panels && w >= 32; w /= 2)
		if (s.row_bytes % w == 0) {
			s.panel_bytes = w;
			break;
		}
	int chunks = s.panel_bytes / 16;
	/* rows sharing one 128-byte line of banks need no phase of their own */
	s.per_phase = s.panel_bytes >= 128 ? 1 : 128 / (s.panel_bytes > 0 ? s.panel_bytes : 1);
	s.max_phase = chunks >= 8 ? 8 : chunks > 0 ? chunks : 1;
	s.tile_bytes = (uint32_t)s.rows * (uint32_t)s.row_bytes;
	return s;
}

bool layout_dot_mma(const ir_func *f, const ir_op *op)
{
	ir_type at = f->values[op->args[0]].type, bt = f->values[op->args[1]].type;
	ir_type ct = f->values[op->results[0]].type;
	int kstep;
	if ((at.kind == IR_F16 && (ct.kind == IR_F32 || ct.kind == IR_F16)) || (at.kind == IR_BF16 && ct.kind == IR_F32))
		kstep = 16;
	else if (at.kind == IR_F32 && op->sub == IR_PRECISION_TF32 && ct.kind == IR_F32)
		kstep = 8;
	else if (at.kind == IR_I8 && ct.kind == IR_I32)
		kstep = 32;
	else
		return false;
	int r0 = at.rank - 2; /* 3-D: batched, the last two dims as a 2-D dot's */
	return bt.kind == at.kind && (at.rank == 2 || at.rank == 3) && at.shape[r0] % 16 == 0 &&
	       at.shape[r0 + 1] % kstep == 0 && bt.shape[r0 + 1] % 8 == 0;
}

bool layout_dot_mma_fp8(const ir_func *f, const ir_op *op)
{
	ir_type at = f->values[op->args[0]].type, bt = f->values[op->args[1]].type;
	ir_type ct = f->values[op->results[0]].type;
	return ir_kind_is_fp8((ir_kind)at.kind) && ir_kind_is_fp8((ir_kind)bt.kind) && ct.kind == IR_F32 && at.rank == 2 &&
	       at.shape[0] % 16 == 0 && at.shape[1] % 32 == 0 && bt.shape[1] % 8 == 0;
}

bool layout_wgmma_warps(int64_t m, int64_t n, int num_warps, int *wm, int *wn)
{
	if (num_warps < 4 || num_warps % 4)
		return false;
	*wm = 4;
	*wn = 1;
	while (*wm * *wn < num_warps) {
		if (m > 16 * *wm)
			*wm *= 2;
		else
			*wn *= 2;
	}
	return m % (16 * *wm) == 0 && n % (8 * *wn) == 0;
}

layout *layout_wgmma(arena *a, int wm, int wn)
{
	layout *l = layout_mma(a, 2, 1, wm, wn, false);
	if (l)
		l->warp_blocks = wn > 1;
	return l;
}

bool layout_dot_wgmma(const ir_func *f, const ir_op *op)
{
	ir_type at = f->values[op->args[0]].type, bt = f->values[op->args[1]].type;
	ir_type ct = f->values[op->results[0]].type;
	int wm, wn;
	return (at.kind == IR_F16 || at.kind == IR_BF16) && bt.kind == at.kind && ct.kind == IR_F32 && at.rank == 2 &&
	       layout_wgmma_warps(at.shape[0], bt.shape[1], f->num_warps, &wm, &wn) && at.shape[1] % 16 == 0;
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
	return x->mma == y->mma && x->warp_blocks == y->warp_blocks && !memcmp(x->size_per_thread, y->size_per_thread, n) &&
	       !memcmp(x->threads_per_warp, y->threads_per_warp, n) &&
	       !memcmp(x->warps_per_cta, y->warps_per_cta, n) && !memcmp(x->order, y->order, n);
}

/* mma.sync's M dim: its 8-row lane groups sit 16 rows apart per warp,
 * rows 8 apart are registers of one thread. */
static bool mma_rows(const layout *b, int d)
{
	return b->mma && d == b->rank - 2;
}

/* Registers of one thread per repetition of the CTA tile along dim d. */
static int32_t spt_eff(const layout_map *m, int d)
{
	if (mma_rows(m->blocked, d))
		return m->shape[d] >= 16 ? 2 : 1;
	return min32(m->blocked->size_per_thread[d], m->shape[d]);
}

/* The coordinate distance between those registers. */
static int32_t spt_stride(const layout *b, int d)
{
	return mma_rows(b, d) ? 8 : 1;
}

/* The CTA tile along dim d: what its warps cover together. */
static int32_t tile_of(const layout *b, int d)
{
	if (mma_rows(b, d))
		return 16 * b->warps_per_cta[d];
	return b->size_per_thread[d] * b->threads_per_warp[d] * b->warps_per_cta[d];
}

/* The coordinate distance between a thread's repetitions along dim d:
 * the CTA tile, or where each warp holds one block of the dim (N of a
 * layout_wgmma split along it), one warp's tile. */
static int32_t rep_stride(const layout *b, int d)
{
	if (b->warp_blocks && d == b->rank - 1)
		return b->size_per_thread[d] * b->threads_per_warp[d];
	return tile_of(b, d);
}

/* The i-th dim in the order warps count along (M first for warp_blocks). */
static int warp_order(const layout *b, int i)
{
	return b->warp_blocks ? b->order[b->rank - 1 - i] : b->order[i];
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
		m.vrank = rank;
		return m;
	}
	m.blocked = l;
	m.rank = rank;
	m.vrank = rank;
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
		coords[d] = (idx[d] / s) * rep_stride(m->blocked, d) + (idx[d] % s) * spt_stride(m->blocked, d);
	}
}

int layout_contig_regs(const layout_map *m, int d)
{
	for (int i = 0; i < m->rank; i++) {
		int o = m->blocked->order[i];
		if (o == d)
			return spt_stride(m->blocked, d) == 1 ? spt_eff(m, d) : 1;
		if (m->regs_per_dim[o] > 1)
			return 1;
	}
	return 1;
}

layout_field layout_dim_field(const layout_map *m, int d)
{
	const layout *b = m->blocked;
	layout_field f = {0};
	for (int i = 0; i < m->rank && b->order[i] != d; i++)
		f.lane_shift += ilog2(b->threads_per_warp[b->order[i]]);
	for (int i = 0; i < m->rank && warp_order(b, i) != d; i++)
		f.warp_shift += ilog2(b->warps_per_cta[warp_order(b, i)]);
	f.lanes = b->threads_per_warp[d];
	f.warps = b->warps_per_cta[d];
	f.lane_scale = b->size_per_thread[d];
	f.warp_scale = tile_of(b, d) / b->warps_per_cta[d];
	if (rep_stride(b, d) != tile_of(b, d)) /* a warp's block: all its repetitions */
		f.warp_scale = m->shape[d] > tile_of(b, d) ? m->shape[d] / b->warps_per_cta[d] : f.warp_scale;
	return f;
}

static int map_threads(const layout_map *m)
{
	int warps = 1;
	for (int d = 0; d < m->rank; d++)
		warps *= m->blocked->warps_per_cta[d];
	return 32 * warps;
}

/* The value coordinates of thread t's register r in map m, as the lowering
 * computes them (lw_reg_coords): the thread's part modulo the shape, plus
 * the register's constant. */
static void element_of(const layout_map *m, int t, int r, int32_t *c)
{
	int32_t rc[IR_MAX_RANK];
	layout_reg_coords(m, r, rc);
	for (int j = 0; j < m->vrank; j++) {
		int d = m->dim_of[j];
		layout_field f = layout_dim_field(m, d);
		int32_t raw = ((t & 31) >> f.lane_shift & (f.lanes - 1)) * f.lane_scale +
			      ((t >> 5) >> f.warp_shift & (f.warps - 1)) * f.warp_scale;
		c[j] = (raw & (m->shape[d] - 1)) + rc[d];
	}
}

bool layout_map_eq(const layout_map *x, const layout_map *y)
{
	if (x->rank == y->rank && !memcmp(x->shape, y->shape, sizeof(int32_t) * (size_t)x->rank) &&
	    !memcmp(x->dim_of, y->dim_of, sizeof x->dim_of) && layout_eq(x->blocked, y->blocked))
		return true;
	/* different layouts: every thread's every register compared, where
	 * that is cheap (one of these is a move saved through shared memory) */
	int threads = map_threads(x);
	if (x->vrank != y->vrank || x->nregs != y->nregs || threads != map_threads(y) ||
	    (int64_t)threads * x->nregs > (1 << 16))
		return false;
	for (int t = 0; t < threads; t++)
		for (int r = 0; r < x->nregs; r++) {
			int32_t cx[IR_MAX_RANK], cy[IR_MAX_RANK];
			element_of(x, t, r, cx);
			element_of(y, t, r, cy);
			if (memcmp(cx, cy, sizeof(int32_t) * (size_t)x->vrank))
				return false;
		}
	return true;
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
	sb_puts(sb, l->warp_blocks ? ", mma, warp blocks}" : l->mma ? ", mma}" : "}");
}

bool smem_layout_delta(const smem_layout *s, int64_t dr, int64_t dc, int64_t *bytes)
{
	if (s->transposed) {
		int64_t t = dr;
		dr = dc;
		dc = t;
	}
	int64_t period = (int64_t)s->per_phase * s->max_phase, pb = s->panel_bytes, db = dc * s->elem_bytes;
	/* the chunk bits the phase XORs, in bytes */
	int64_t span = s->max_phase > 1 ? 16 * ((int64_t)s->max_phase << s->phase_shift) : 1;
	if (dr % period || db % span || (pb < s->row_bytes && db % pb))
		return false;
	*bytes = dr * pb + (pb < s->row_bytes ? db / pb * s->rows * pb : db);
	return true;
}

void smem_layout_str(strbuf *sb, const smem_layout *s)
{
	sb_printf(sb, "shared{%s, row=%dB", s->transposed ? "col-major" : "row-major", s->row_bytes);
	if (s->panel_bytes < s->row_bytes)
		sb_printf(sb, " in %dB panels", s->panel_bytes);
	sb_printf(sb, ", swizzle=%d/%d", s->per_phase, s->max_phase);
	if (s->phase_mix)
		sb_printf(sb, " mixed %d", s->phase_mix);
	if (s->phase_shift)
		sb_printf(sb, "<<%d", s->phase_shift);
	sb_putc(sb, '}');
}

/* ---- assignment ---- */

typedef struct assigner {
	arena *a;
	const ir_func *f;
	const axis_info *ai;
	layout_plan *p;
	int32_t max_shape[IR_MAX_RANK + 1][IR_MAX_RANK];
	int vec[IR_MAX_RANK + 1];
	/* per rank: the dim the global accesses run along (their pointers'
	 * most contiguous), -1 before any, -2 once two disagree */
	int lead[IR_MAX_RANK + 1];
	int lead_vec[IR_MAX_RANK + 1];
	/* where no access of a rank runs along a proven contiguous dim
	 * (proven), the dim their likely runs agree on (likely; -1 none, -2
	 * several): a convolution's pixels, `% width` apart, one a thread */
	bool proven[IR_MAX_RANK + 1];
	int likely[IR_MAX_RANK + 1];
	int32_t dot_tile[2];  /* the smallest operand dims of tensor-core dots */
	bool tensor_cores;
	dot_unit unit;
	const ir_region *region; /* being assigned */
	const ir_op *loop;       /* the innermost FOR whose body is being assigned */
	int loops;               /* FOR and WHILE loops around the ops being assigned */
	const ir_op **copy_of;   /* per ring value id: an asynchronous copy into it */
	int *view_uses;          /* per value id: uses as a tensor-core dot's A or B, -1 after any other use */
	int *uses;               /* per value id: operands naming it */
	const ir_op **user;      /* per value id: the last op naming it */
	const layout **want;     /* per value id: the layout operand_load or carried_row chose for it, or NULL */
	bool oom;
} assigner;

static ir_type vtype(const assigner *s, int v)
{
	return s->f->values[v].type;
}

static bool on_tensor_cores(const assigner *s, const ir_op *op)
{
	return s->tensor_cores && op->code == IR_OP_DOT &&
	       (layout_dot_mma(s->f, op) || layout_dot_mma_fp8(s->f, op));
}

static void note_shape(assigner *s, ir_type t)
{
	for (int d = 0; d < t.rank; d++)
		if (t.shape[d] > s->max_shape[t.rank][d])
			s->max_shape[t.rank][d] = t.shape[d];
}

/* How a dot operand read in place is stored: a ring's tile (LOCAL_LOAD),
 * or its transpose (the same tile, rows the other dim). */
enum { VIEW_NONE, VIEW_ROWS, VIEW_TRANSPOSED, VIEW_UNKNOWN };

static int view_transposed(const assigner *s, int v)
{
	const ir_op *d = s->f->values[v].def;
	if (!s->p->view[v] || !d)
		return VIEW_NONE; /* registers */
	bool flipped = d->code == IR_OP_PERMUTE;
	if (flipped)
		d = s->f->values[d->args[0]].def;
	if (d && d->code == IR_OP_CAST)
		d = s->f->values[d->args[0]].def;
	const smem_layout *sl = d && d->code == IR_OP_LOCAL_LOAD ? s->p->ring[d->args[0]] : NULL;
	if (!sl)
		return VIEW_UNKNOWN;
	return sl->transposed != flipped ? VIEW_TRANSPOSED : VIEW_ROWS;
}

/* Whether a dot operand has K contiguous where wgmma reads it: a ring's
 * tile read in place (or its transpose) stored along K; registers are
 * (A's fragments, B staged K-major). */
static bool operand_k_major(const assigner *s, const ir_op *dot, int which)
{
	int t = view_transposed(s, dot->args[which]);
	/* K is A's dim 1 and B's dim 0: contiguous when A is not transposed, B is */
	return t == VIEW_NONE || t == (which == 0 ? VIEW_ROWS : VIEW_TRANSPOSED);
}

/* An 8-bit dot wgmma runs (fp8 into fp32, int8 into int32): its operands
 * must be K-major in shared memory (wgmma has no transpose for them). */
static bool wgmma_8bit(const assigner *s, const ir_op *op)
{
	ir_type at = vtype(s, op->args[0]), bt = vtype(s, op->args[1]), ct = vtype(s, op->results[0]);
	int w = s->f->num_warps;
	bool fp8 = ir_kind_is_fp8((ir_kind)at.kind) && ir_kind_is_fp8((ir_kind)bt.kind) && ct.kind == IR_F32;
	bool int8 = at.kind == IR_I8 && bt.kind == IR_I8 && ct.kind == IR_I32;
	int wm, wn;
	return (fp8 || int8) && at.rank == 2 && layout_wgmma_warps(at.shape[0], bt.shape[1], w, &wm, &wn) &&
	       at.shape[1] % 32 == 0 &&
	       operand_k_major(s, op, 0) && operand_k_major(s, op, 1);
}

/* A transpose of registers whose one user is a tensor-core dot reading it
 * as B (`tl.dot(x, tl.trans(w.to(tl.float16)))`), or as A where wgmma
 * runs the dot (attention backward's `tl.dot(tl.trans(p), do)`): never
 * lowered, the dot stages its operand's registers into shared memory in
 * the other order (lw_operand_regs), instead of a transpose through
 * shared memory and a second staging. */
static bool staged_transpose(const assigner *s, const ir_op *op)
{
	int res = op->results[0];
	const ir_op *u = s->user[res];
	if (op->code != IR_OP_PERMUTE || op->ints[0] != 1 || vtype(s, res).rank != 2 || s->uses[res] != 1 || !u ||
	    !on_tensor_cores(s, u) || u->args[0] == u->args[1] || s->p->view[op->args[0]])
		return false;
	return u->args[1] == res || (s->unit == DOT_UNIT_WGMMA && layout_dot_wgmma(s->f, u));
}

/* A ring's 8-bit integer tile converted to fp16 or bf16 for a mma.sync
 * dot's B through a transpose (`tl.dot(x, tl.trans(w.to(tl.float16)))`,
 * a linear layer's int8 weights [N, K] stored along K): read in place,
 * each fragment's K-adjacent bytes read together and converted as they
 * are read (dot_mma.c), as Triton does, instead of converted in a blocked
 * layout and staged back into shared memory as fp16. wgmma reads B only
 * from shared memory in its own kind, so not for a dot it runs; other
 * shapes of the pattern (A, or K not contiguous) keep the staging. */
static bool view_cast(const assigner *s, const ir_op *op)
{
	const ir_op *d = op->nargs == 1 ? s->f->values[op->args[0]].def : NULL;
	ir_type st = vtype(s, op->args[0]), rt = vtype(s, op->results[0]);
	return op->code == IR_OP_CAST && rt.rank == 2 && d && d->code == IR_OP_LOCAL_LOAD &&
	       (st.kind == IR_I8 || st.kind == IR_U8) && (rt.kind == IR_F16 || rt.kind == IR_BF16);
}

/* After the survey: whether view_cast's result is, through a transpose,
 * the B of one dot mma.sync runs, its ring stored along K (the tile's
 * last dim, as assign_ring will store it: its copies at least as wide
 * along that dim). */
static bool view_cast_dot(const assigner *s, const ir_op *op)
{
	const ir_op *t = s->uses[op->results[0]] == 1 ? s->user[op->results[0]] : NULL;
	if (!t || t->code != IR_OP_PERMUTE || s->uses[t->results[0]] != 1)
		return false;
	const ir_op *u = s->user[t->results[0]];
	if (!u || !on_tensor_cores(s, u) || u->args[1] != t->results[0] || u->args[0] == t->results[0] ||
	    (s->unit == DOT_UNIT_WGMMA && layout_dot_wgmma(s->f, u)))
		return false;
	const ir_op *copy = s->copy_of[s->f->values[op->args[0]].def->args[0]];
	if (!copy)
		return false;
	int mask = copy->flags & IR_FLAG_HAS_MASK ? copy->args[3] : -1;
	return axis_vector_width_dim(s->f, s->ai, copy->args[2], mask, 0) <=
	       axis_vector_width_dim(s->f, s->ai, copy->args[2], mask, 1);
}

/* The dequantization of packed 4-bit weights feeding a mma.sync dot's B
 * through a transpose (`tl.dot(x, tl.trans(tl.interleave(w & 0xF, w >> 4)
 * .to(tl.float16) * s[:, None]))`, the low nibble first): elementwise ops
 * with constants from a ring's 8-bit tile to the two halves of an
 * interleave, elementwise ops with constants and broadcast rows after it.
 * Each thread then holds the elements of its B fragments (K pairs 2t,
 * 2t + 1 and 8 on, of columns g, 8 a warp's tile apart) when the tile is
 * read in blocked {spt [1, 1], tpw [8, 4], wpc [wn, 1]}: the interleave
 * folds its halves into {spt [1, 2], ...} and the dot reads B's words from
 * those registers (dot_mma.c), where a blocked layout staged the
 * converted tile into shared memory for ldmatrix (8 16-byte stores and two
 * barriers an iteration). Triton converts in the dot operand's layout as
 * well. The layout of the ring's tile, NULL where not so. */
static bool chain_step(const assigner *s, const ir_op *d, int *x)
{
	switch (d->code) {
	case IR_OP_CAST: case IR_OP_BITCAST: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL:
	case IR_OP_SHR: case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
		break;
	default:
		return false;
	}
	if (d->nresults != 1)
		return false;
	int chain = -1;
	for (int i = 0; i < d->nargs; i++) {
		const ir_op *a = s->f->values[d->args[i]].def;
		bool side = a && (a->code == IR_OP_CONST || a->code == IR_OP_SPLAT || a->code == IR_OP_BROADCAST);
		if (!side) {
			if (chain >= 0)
				return false;
			chain = d->args[i];
		}
	}
	*x = chain;
	return chain >= 0;
}

/* Whether value x comes from v through single-use chain_step ops. */
static bool chain_from(const assigner *s, int x, int v)
{
	for (int n = 0; x != v && n < 16; n++) {
		const ir_op *d = s->f->values[x].def;
		if (!d || s->uses[x] != 1 || !chain_step(s, d, &x))
			return false;
	}
	return x == v;
}

static const layout *tensor_core_layout(assigner *s, const ir_op *op, bool *wgmma);

static const layout *dequant_b(assigner *s, const ir_op *load)
{
	int v = load->results[0];
	ir_type vt = vtype(s, v);
	if (vt.rank != 2 || (vt.kind != IR_U8 && vt.kind != IR_I8) || s->uses[v] != 2)
		return NULL;
	const ir_region *r = s->region;
	const ir_op *join = NULL;
	for (int i = 0; i < r->nops && !join; i++) {
		const ir_op *op = r->ops[i];
		if (op->code == IR_OP_JOIN && op->args[0] != op->args[1] && chain_from(s, op->args[0], v) &&
		    chain_from(s, op->args[1], v))
			join = op;
	}
	int y = join ? join->results[0] : -1;
	const ir_op *u = y >= 0 && s->uses[y] == 1 ? s->user[y] : NULL;
	if (!u || u->code != IR_OP_RESHAPE || vtype(s, u->results[0]).rank != 2 ||
	    vtype(s, u->results[0]).shape[1] != 2 * vt.shape[1])
		return NULL;
	/* forward to the transpose the dot reads as B */
	for (int n = 0; n < 16 && u && u->code != IR_OP_PERMUTE; n++) {
		y = u->results[0];
		u = s->uses[y] == 1 ? s->user[y] : NULL;
		int x;
		if (u && u->code != IR_OP_PERMUTE && (!chain_step(s, u, &x) || x != y))
			return NULL;
	}
	if (!u || u->code != IR_OP_PERMUTE || u->ints[0] != 1 || s->uses[u->results[0]] != 1)
		return NULL;
	const ir_op *dot = s->user[u->results[0]];
	ir_type bt = vtype(s, u->results[0]);
	bool wgmma;
	if (!dot || dot->args[1] != u->results[0] || dot->args[0] == u->results[0] || (bt.kind != IR_F16 && bt.kind != IR_BF16))
		return NULL;
	const layout *dl = tensor_core_layout(s, dot, &wgmma);
	if (!dl || wgmma || dl->rank != 2 || dl->warps_per_cta[0] != 1 || dl->size_per_thread[1] != 2)
		return NULL;
	layout *l = arena_alloc(s->a, sizeof *l);
	if (!l) {
		s->oom = true;
		return NULL;
	}
	*l = (layout){.kind = LAYOUT_BLOCKED, .rank = 2, .size_per_thread = {1, 1}, .threads_per_warp = {8, 4},
		      .warps_per_cta = {dl->warps_per_cta[1], 1}, .order = {1, 0}};
	return l;
}

/* A transpose of a ring's tile (pipeline.c lets one sit between a load
 * and the dots), or of its conversion (view_cast): read in place as well
 * when only dots read it. */
static bool view_transpose(const assigner *s, const ir_op *op)
{
	const ir_op *d = op->nargs == 1 ? s->f->values[op->args[0]].def : NULL;
	return op->code == IR_OP_PERMUTE && vtype(s, op->results[0]).rank == 2 && op->ints[0] == 1 && d &&
	       (d->code == IR_OP_LOCAL_LOAD || (d->code == IR_OP_CAST && view_cast(s, d)));
}

/* Pass 1: the largest shape and the widest access of each rank. */

/* The elements an access through pointer block ptr (with mask, -1 for
 * none) moves at once along dim, at most the elements a thread gets of a
 * block of per_thread elements a thread (at least 1). */
static int access_width(const assigner *s, int ptr, int mask, int dim, int64_t per_thread)
{
	int w = axis_vector_width_dim(s->f, s->ai, ptr, mask, dim);
	return w > per_thread ? (per_thread > 1 ? (int)per_thread : 1) : w;
}

/* The dim an access through pointer block ptr runs along: its most
 * contiguous, the last on ties (lead_dim). Where every access of a rank runs along
 * one dim other than the last (a block whose dim 0 is the contiguous one:
 * attorch's batch norm over [H*W, N] tiles), the rank's default layout
 * puts that dim first, as Triton's coalescing orders each access by its
 * pointer's contiguity; otherwise a warp's threads would run across the
 * memory's rows, one element each. */
static int lead_dim(const assigner *s, int ptr)
{
	int r = vtype(s, ptr).rank, d0 = r - 1;
	for (int d = r - 2; d >= 0; d--)
		if (s->ai[ptr].contiguity[d] > s->ai[ptr].contiguity[d0])
			d0 = d;
	return s->ai[ptr].contiguity[d0] < 2 ? r - 1 : d0;
}

/* The dim pointer block ptr likely runs along where no dim is proven
 * contiguous: its longest runs (axis info's `runs`, a remainder by a
 * runtime width taken not to wrap), the last on ties; -1 for none. */
static int likely_lead(const assigner *s, int ptr)
{
	int r = vtype(s, ptr).rank, d0 = r - 1;
	for (int d = r - 2; d >= 0; d--)
		if (s->ai[ptr].runs[d] > s->ai[ptr].runs[d0])
			d0 = d;
	return s->ai[ptr].runs[d0] < 2 ? -1 : d0;
}

static void vote(int *lead, int d)
{
	*lead = *lead == -1 || *lead == d ? d : -2;
}

static void note_lead(assigner *s, int ptr, int mask, int64_t per_thread)
{
	int r = vtype(s, ptr).rank, d0 = lead_dim(s, ptr), likely = likely_lead(s, ptr);
	vote(&s->lead[r], d0);
	s->proven[r] |= s->ai[ptr].contiguity[d0] > 1;
	if (likely >= 0)
		vote(&s->likely[r], likely);
	int w = access_width(s, ptr, mask, d0, per_thread);
	if (w > s->lead_vec[r])
		s->lead_vec[r] = w;
}

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
		for (int k = 0; k < op->nargs; k++) {
			s->uses[op->args[k]]++;
			s->user[op->args[k]] = op;
			int *u = &s->view_uses[op->args[k]];
			bool in_place = (on_tensor_cores(s, op) && k < 2) || view_transpose(s, op) || view_cast(s, op);
			*u = *u >= 0 && in_place ? *u + 1 : -1;
		}
		if (op->code == IR_OP_ASYNC_COPY && !s->copy_of[op->args[0]])
			s->copy_of[op->args[0]] = op;
		if (on_tensor_cores(s, op) && vtype(s, op->args[0]).rank == 2)
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
			int64_t per_thread = ir_numel(pt) / threads;
			/* Where the mask leaves vectors, as wide as the pointers
			 * allow (Triton's coalescing sizes a thread's run by its
			 * pointers alone; the mask cuts the accesses, not the run):
			 * FLA's layer norm masks 100 of 128 columns, in runs of 4,
			 * where its weights' pointers allow 8, and a row 8 a thread
			 * is reduced over 16 lanes, not 32. Where it leaves single
			 * elements, adjacent threads keep adjacent elements, so that
			 * each access is one coalesced row. */
			int w = access_width(s, op->args[0], mask, pt.rank - 1, per_thread);
			if (w >= 2)
				w = access_width(s, op->args[0], -1, pt.rank - 1, per_thread);
			if (w > s->vec[pt.rank])
				s->vec[pt.rank] = w;
			note_lead(s, op->args[0], mask, per_thread);
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

/* Whether a reshape or permute of v is cheap: v is, and its chain,
 * counted as a tree (an operand read twice counted twice), has at most
 * *budget ops, so that evaluating it element by element (cheap_at in the
 * lowering) stays small. */
static bool cheap_chain(const assigner *s, int v, int *budget)
{
	const ir_op *d = s->f->values[v].def;
	if (!vtype(s, v).rank || !d)
		return true;
	if (!s->p->remat[v] || --*budget < 0 || d->nresults != 1)
		return false;
	for (int i = 0; i < d->nargs; i++)
		if (!cheap_chain(s, d->args[i], budget))
			return false;
	return true;
}

/* Whether a load's pointer block and mask (*mask, -1 for none) are
 * recomputed in any layout for free: one carried through a loop would
 * move instead. */
static bool free_pointers(const assigner *s, const ir_op *load, int *mask)
{
	*mask = load->flags & IR_FLAG_HAS_MASK ? load->args[1] : -1;
	return s->p->remat[load->args[0]] && (*mask < 0 || s->p->remat[*mask]);
}

/* Whether a load's pointer block and mask are in layout l, or recomputed
 * there for free. */
static bool pointers_in(const assigner *s, const ir_op *load, const layout *l)
{
	int mask;
	return free_pointers(s, load, &mask) || (layout_eq(s->p->of[load->args[0]], l) &&
						   (mask < 0 || s->p->remat[mask] || layout_eq(s->p->of[mask], l)));
}

/* The rows R of the broadcast that ends join's chain (joins of a value
 * with itself and reshapes, each read once: tl.interleave), into
 * <R x N>; 0 where the chain is not so. */
static int32_t interleaved_rows(const assigner *s, const ir_op *join)
{
	const ir_op *op = join;
	if (join->args[0] != join->args[1])
		return 0;
	for (int depth = 0; depth < 8; depth++) {
		int v = op->results[0];
		const ir_op *u = s->user[v];
		if (!u || u->nresults != 1 || s->uses[v] != (u->code == IR_OP_JOIN ? 2 : 1))
			return 0;
		if (u->code == IR_OP_BROADCAST)
			return vtype(s, u->results[0]).rank == 2 ? vtype(s, u->results[0]).shape[0] : 0;
		if (u->code != IR_OP_RESHAPE && !(u->code == IR_OP_JOIN && u->args[0] == u->args[1]))
			return 0;
		op = u;
	}
	return 0;
}

/* A load that only a join reads (tl.interleave's), in a layout l that
 * replicates it (a smaller block than its rank's largest): a blocked
 * layout of its own shape, as wide as its access allows, so that each
 * thread loads its elements once and the join folds them into the
 * registers of its result (fold_join); l where none of this holds, or
 * where its pointers or mask are not recomputed in any layout for free.
 * A ring's tile (AWQ's packed weights, copied ahead) is read so too: in
 * the replicated layout a quarter of the threads unpacked and converted
 * all of it while the others waited. */
static const layout *joined_load(assigner *s, const ir_op *op, const layout *l, ir_type t)
{
	int v = op->results[0];
	const ir_op *join = s->user[v];
	int64_t threads = 32 * (int64_t)s->f->num_warps, numel = ir_numel(t);
	if (!l || l->kind != LAYOUT_BLOCKED || l->mma || !join || join->code != IR_OP_JOIN ||
	    s->uses[v] != (join->args[0] == join->args[1] ? 2 : 1))
		return l;
	/* a row a ring holds (AWQ's zeros), interleaved and then broadcast
	 * over R rows: the layout a tile of R such rows would take, so that
	 * the row comes out of the joins in the broadcast's layout; in l it
	 * moved through shared memory */
	int32_t rows = numel < threads && op->code == IR_OP_LOCAL_LOAD && t.rank == 2 && t.shape[0] == 1 ?
			       interleaved_rows(s, join) : 0;
	int32_t shape[2] = {rows, t.rank == 2 ? t.shape[1] : 0};
	if (rows)
		numel = (int64_t)rows * shape[1];
	else if (numel < threads || (int64_t)layout_map_of(l, t.rank, t.shape).nregs * threads <= numel)
		return l;
	int mask, vec = (int)(16 / ir_kind_bytes((ir_kind)t.kind));
	if (op->code == IR_OP_LOCAL_LOAD && numel / threads < vec)
		vec = numel / threads > 1 ? (int)(numel / threads) : 1;
	else if (free_pointers(s, op, &mask))
		vec = access_width(s, op->args[0], mask, t.rank - 1, numel / threads);
	else
		return l;
	const layout *own = layout_blocked_order(s->a, t.rank, rows ? shape : t.shape, s->f->num_warps, vec, l->order);
	if (!own)
		s->oom = true;
	return own;
}

/* Ops a value may pass through between a load and the dot that reads it
 * as its operand, each in whatever layout the load takes. */
static bool operand_path_code(ir_opcode c)
{
	switch (c) {
	case IR_OP_CAST: case IR_OP_BITCAST: case IR_OP_SELECT: case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
	case IR_OP_DIV: case IR_OP_FMA: case IR_OP_MIN: case IR_OP_MAX: case IR_OP_NEG:
		return true;
	default:
		return false;
	}
}

/* The op that reads v past the single-use ops a dot operand may pass
 * through (operand_path_code, at most 8 of them); NULL where v or one of
 * them has several uses. *end: the value that op reads. */
static const ir_op *past_operand_path(const assigner *s, int v, int *end)
{
	const ir_op *u;
	for (int n = 0; (u = s->uses[v] == 1 ? s->user[v] : NULL) && operand_path_code(u->code) && u->nresults == 1 && n < 8;
	     n++)
		v = u->results[0];
	*end = v;
	return u;
}

/* Whether value v is computed from scalars, constants and aranges by ops
 * that are recomputed in any layout (remat_code): what the assignment
 * will find cheap, asked before it has visited v (a loop's carried
 * pointers take their layout before the body is assigned). */
static bool cheap_def(const assigner *s, int v, int depth)
{
	const ir_op *d = s->f->values[v].def;
	if (!vtype(s, v).rank || s->p->remat[v])
		return true;
	if (!d || depth > 12 || d->nresults != 1)
		return false;
	if (d->code == IR_OP_ARANGE || d->code == IR_OP_CONST || d->code == IR_OP_SPLAT)
		return true;
	if (!remat_code(d->code))
		return false;
	for (int i = 0; i < d->nargs; i++)
		if (!cheap_def(s, d->args[i], depth + 1))
			return false;
	return true;
}

/* A 2-D load that only a tensor-core dot reads, as one operand, through
 * single-use elementwise ops, and whose accesses run along a dim its
 * layout l does not lead with (attention's K read as K^T through a
 * transposed pointer block: each key's row contiguous along dim 0;
 * lightning attention's K^T as A, scaled by a decay row): a blocked layout
 * of its own shape led by that dim, so that its accesses are vectors, since
 * the dot stages its operands through shared memory from any layout, along
 * K where its registers run so (dot_mma.c, dot_wgmma.c). NULL where not so
 * or where its mask is not recomputed in any layout for free; *x: the
 * value the dot reads. */
static const layout *operand_own(assigner *s, const ir_op *op, const layout *l, ir_type t, int *x)
{
	int ptr = op->args[0], mask = op->flags & IR_FLAG_HAS_MASK ? op->args[1] : -1;
	if (t.rank != 2 || !l || l->kind != LAYOUT_BLOCKED || l->mma || (mask >= 0 && !cheap_def(s, mask, 0)))
		return NULL;
	int d0 = lead_dim(s, ptr);
	int64_t threads = 32 * (int64_t)s->f->num_warps, per_thread = ir_numel(t) / threads;
	int w = access_width(s, ptr, mask, d0, per_thread);
	if (l->order[0] == d0 || w < 2 || w <= access_width(s, ptr, mask, l->order[0], per_thread))
		return NULL;
	const ir_op *u = past_operand_path(s, op->results[0], x);
	if (!u || !on_tensor_cores(s, u) || (u->args[0] == *x) == (u->args[1] == *x))
		return NULL;
	const int32_t order[2] = {d0, 1 - d0};
	const layout *own = layout_blocked_order(s->a, 2, t.shape, s->f->num_warps, w, order);
	if (!own)
		s->oom = true;
	return own;
}

/* operand_own's layout for such a load whose pointers are recomputed there
 * for free or already in it (a loop-carried pointer block that took it,
 * carried_pointer_layout), for it and the ops on the way (want); l where
 * not so. */
static const layout *operand_load(assigner *s, const ir_op *op, const layout *l, ir_type t)
{
	int operand;
	const layout *own = operand_own(s, op, l, t, &operand);
	if (!own || !pointers_in(s, op, own))
		return l;
	for (int x = op->results[0]; x != operand; x = s->user[x]->results[0])
		s->want[s->user[x]->results[0]] = own;
	return own;
}

/* An elementwise op outside loops (a kernel's epilogue, also under an if:
 * SGLang's qkv LoRA B returns early for rank 0) that combines a
 * tensor-core result with a loaded block works in the load's layout: the
 * result then moves once, through a swizzled tile (convert.c), and the
 * store that follows is as wide as the load; in the result's fragments
 * the block would move element by element (SGLang's LoRA B adds the
 * output it loads). Triton converts the same way. NULL where not so. */
static const layout *epilogue_load(const assigner *s, const ir_op *op, int rank)
{
	const layout *load = NULL;
	bool fragments = false;
	if (s->loops)
		return NULL;
	for (int i = 0; i < op->nargs; i++) {
		int v = op->args[i];
		const layout *l = s->p->of[v];
		const ir_op *d = s->f->values[v].def;
		if (vtype(s, v).rank != rank || s->p->remat[v] || !l || !d)
			continue;
		if (l->mma)
			fragments = true;
		else if (l->kind == LAYOUT_BLOCKED && d->code == IR_OP_LOAD)
			load = l;
	}
	return fragments ? load : NULL;
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

/* A broadcast that only one op reads (and the expand_dims only it reads)
 * takes that op's layout l, so that its source is moved into a slice of
 * l, not the broadcast block into l: a bias row added to a dot's result
 * moves N elements through shared memory instead of M x N. A ring's row
 * only the broadcast reads (a group's scales, copied ahead) is read from
 * shared memory in l itself, and nothing moves. */
static void adopt_broadcast(assigner *s, int v, const layout *l)
{
	layout_plan *p = s->p;
	const ir_op *def = s->f->values[v].def;
	if (!l || l->kind != LAYOUT_BLOCKED || !def || def->code != IR_OP_BROADCAST || s->uses[v] != 1 || p->remat[v] ||
	    !p->of[v] || layout_eq(p->of[v], l) || vtype(s, v).rank != l->rank)
		return;
	p->of[v] = l;
	int src = def->args[0];
	const ir_op *sd = s->f->values[src].def;
	if (sd && (sd->code == IR_OP_EXPAND_DIMS || (sd->code == IR_OP_LOCAL_LOAD && !p->view[src])) &&
	    s->uses[src] == 1 && !p->remat[src])
		p->of[src] = l;
}

/* Whether l holds the elements of a value of type t more times over than
 * its threads need (each element once, or once a thread where there are
 * fewer elements than threads). */
static bool replicates(const assigner *s, const layout *l, ir_type t)
{
	int64_t threads = 32 * (int64_t)s->f->num_warps, numel = ir_numel(t);
	layout_map m = layout_map_of(l, t.rank, t.shape);
	return (int64_t)m.nregs * threads > (numel > threads ? numel : threads);
}

/* l for a value of type t, unless l would hold its elements several times
 * over: a rank's default layout is cut for the largest shape of that rank,
 * and a reshape, permute, split or join to another shape of the rank
 * (tutorial 09's epilogue: <128x2x64> permuted to <128x64x2>) can spread
 * its threads over a dim of 2 and leave the others whole in each thread.
 * Then the blocked layout of t's own shape (unless folded, these ops move
 * their data through shared memory whatever the layouts). */
static const layout *unreplicated(const assigner *s, const layout *l, ir_type t)
{
	if (!l || l->kind != LAYOUT_BLOCKED || l->mma || t.rank == 0 || !replicates(s, l, t))
		return l;
	return layout_blocked(s->a, t.rank, t.shape, s->f->num_warps, 1);
}

/* A load's layout l, unless l holds the block several times over while the
 * block has an element for every thread and no dim of 1 (a row or column
 * broadcast later, whose replicas serve the broadcast): the default 2-D
 * layout is cut for the dots' smallest operand tile, and a larger block
 * loaded in it (SGLang's LoRA B adds a [16, 256] block to the result of its
 * [16, 16] x [16, 256] dot) was fetched by every warp; the default 1-D
 * layout is cut for the rank's largest shape (bitsandbytes' 4-bit
 * dequantization loads [256] packed bytes for a [512] output). Then the
 * blocked layout of its own shape, with l's order and vector width, as
 * Triton's coalescing gives each load; a dot's operands keep theirs. */
static const layout *load_unreplicated(const assigner *s, const ir_op *load, const layout *l, ir_type t)
{
	int64_t threads = 32 * (int64_t)s->f->num_warps, numel = ir_numel(t);
	if (!l || l->kind != LAYOUT_BLOCKED || l->mma || t.rank == 0 || numel < threads)
		return l;
	for (int d = 0; d < t.rank; d++)
		if (t.shape[d] == 1)
			return l;
	int end;
	const ir_op *u = past_operand_path(s, load->results[0], &end);
	if (!replicates(s, l, t) || (u && u->code == IR_OP_DOT)) /* the dot's lowering places its operands */
		return l;
	/* as wide as l; a row no wider than leaves every thread an element
	 * (a 2-D block that small keeps its replicas: FLA's causal conv1d
	 * sums each row of its [64, 4] weights in a thread) */
	int vec = l->size_per_thread[l->order[0]];
	while (t.rank == 1 && vec > 1 && numel / vec < threads)
		vec /= 2;
	const layout *own = layout_blocked_order(s->a, t.rank, t.shape, s->f->num_warps, vec, l->order);
	return own && !replicates(s, own, t) ? own : l;
}

/* Thread t's part of its elements' coordinates in map m (FORMAT of
 * layout_dim_field), modulo the shape as the lowering takes them
 * (lw_thread_coord): a thread holding replicas holds its first owner's. */
static void thread_coords(const layout_map *m, int t, int32_t *c)
{
	for (int d = 0; d < m->rank; d++) {
		layout_field f = layout_dim_field(m, d);
		c[d] = (((t & 31) >> f.lane_shift & (f.lanes - 1)) * f.lane_scale +
			((t >> 5) >> f.warp_shift & (f.warps - 1)) * f.warp_scale) & (m->shape[d] - 1);
	}
}

static int64_t row_major(int rank, const int32_t *shape, const int32_t *c)
{
	int64_t lin = 0;
	for (int d = 0; d < rank; d++)
		lin = lin * shape[d] + c[d];
	return lin;
}

/* Coordinates c of a value of type *t back through reshape and permute
 * ops (each op's result is the value before it), to the first op's
 * operand; *t becomes that operand's type. */
static void back_through(const assigner *s, const ir_op *const *chain, int n, int32_t *c, ir_type *t)
{
	for (int k = 0; k < n; k++) {
		ir_type src = vtype(s, chain[k]->args[0]);
		int32_t sc[IR_MAX_RANK];
		if (chain[k]->code == IR_OP_PERMUTE) {
			for (int d = 0; d < t->rank; d++)
				sc[chain[k]->ints[d]] = c[d];
		} else {
			int64_t lin = row_major(t->rank, t->shape, c);
			for (int d = src.rank - 1; d >= 0; d--) {
				sc[d] = (int32_t)(lin % src.shape[d]);
				lin /= src.shape[d];
			}
		}
		memcpy(c, sc, sizeof sc);
		*t = src;
	}
}

/* The registers of a fold. A target value of type tt in blocked layout lt
 * (a split's half, or a join's reordered result) is made of the registers
 * of its source(s) of type st in ls (the split's operand's source x, or the
 * join's two operands), where every thread holds each element of its own
 * target registers among its source registers, at a register that does not
 * depend on the thread. Checked by visiting every thread and register (the
 * layouts are bit fields): layout_fold's regs. top: the type the chain
 * starts from (the split's operand, or the join's reordered result); for a
 * split, the half is that value's last coordinate, for a join the last
 * coordinate of the join's result that the chain leads back to. NULL where
 * the fold does not hold. */
enum fold_kind { FOLD_SPLIT, FOLD_JOIN, FOLD_REORDER };

static int32_t *fold_regs(assigner *s, const layout *ls, const layout *lt, ir_type st, ir_type tt, ir_type top,
			  const ir_op *const *chain, int n, enum fold_kind kind)
{
	bool split = kind == FOLD_SPLIT;
	layout_map ms = layout_map_of(ls, st.rank, st.shape), mt = layout_map_of(lt, tt.rank, tt.shape);
	int64_t numel = ir_numel(st);
	int nt = split ? 2 * mt.nregs : mt.nregs;
	int32_t *at = arena_alloc(s->a, sizeof(int32_t) * (size_t)numel); /* source reg-part coordinates -> register */
	int32_t *regs = arena_alloc(s->a, sizeof(int32_t) * (size_t)nt);
	if (!at || !regs) {
		s->oom = true;
		return NULL;
	}
	for (int64_t i = 0; i < numel; i++)
		at[i] = -1;
	for (int q = 0; q < ms.nregs; q++) {
		int32_t c[IR_MAX_RANK];
		layout_reg_coords(&ms, q, c);
		for (int d = 0; d < st.rank; d++)
			if (c[d] >= st.shape[d])
				return NULL; /* wraps: not a plain register per element */
		at[row_major(st.rank, st.shape, c)] = q;
	}
	for (int t = 0; t < 32 * s->f->num_warps; t++) {
		int32_t ts[IR_MAX_RANK], tc[IR_MAX_RANK];
		thread_coords(&ms, t, ts);
		thread_coords(&mt, t, tc);
		for (int i = 0; i < nt; i++) {
			int r = i % mt.nregs, h = split ? i / mt.nregs : 0;
			int32_t c[IR_MAX_RANK + 1], rc[IR_MAX_RANK];
			layout_reg_coords(&mt, r, rc);
			for (int d = 0; d < tt.rank; d++)
				c[d] = tc[d] + rc[d];
			if (split)
				c[tt.rank] = h; /* the halves along the operand's last dim */
			ir_type ct = top;
			back_through(s, chain, n, c, &ct);
			if (kind == FOLD_JOIN)
				h = c[st.rank]; /* the join's operand */
			for (int d = 0; d < st.rank; d++) {
				c[d] -= ts[d];
				if (c[d] < 0 || c[d] >= st.shape[d])
					return NULL;
			}
			int32_t q = at[row_major(st.rank, st.shape, c)];
			if (q < 0)
				return NULL;
			q += kind == FOLD_JOIN ? h * ms.nregs : 0; /* a join's: which operand */
			if (t && regs[i] != q)
				return NULL;
			regs[i] = q;
		}
	}
	return regs;
}

/* The layouts a fold may give its target, source layout l first: l, and
 * (not for mma.sync's) l with one dim's elements per thread halved (a
 * split of pairs each thread holds, as RoPE's of a vectorized row) or
 * doubled (a join of such pairs); *n of them. */
static int fold_layouts(assigner *s, const layout *l, bool split, const layout **out)
{
	int n = 0;
	out[n++] = l;
	for (int d = 0; d < l->rank && !l->mma; d++) {
		if (split && l->size_per_thread[d] < 2)
			continue;
		layout *c = arena_alloc(s->a, sizeof *c);
		if (!c) {
			s->oom = true;
			break;
		}
		*c = *l;
		c->size_per_thread[d] = split ? c->size_per_thread[d] / 2 : c->size_per_thread[d] * 2;
		out[n++] = c;
	}
	return n;
}

static bool reorders(const assigner *s, int v)
{
	const ir_op *d = s->f->values[v].def;
	return s->uses[v] == 1 && d && (d->code == IR_OP_RESHAPE || d->code == IR_OP_PERMUTE);
}

/* Records a fold: value y takes registers regs of a and b (the same value
 * but for a join's two operands), and the reorders chain[from..n) between
 * are never lowered. l where recorded, NULL when out of memory. */
static const layout *record_fold(assigner *s, int y, int a, int b, int32_t *regs, const ir_op *const *chain, int from,
				 int n, const layout *l)
{
	layout_fold *fold = arena_alloc(s->a, sizeof *fold);
	if (!fold) {
		s->oom = true;
		return NULL;
	}
	*fold = (layout_fold){{a, b}, regs};
	for (int k = from; k < n; k++)
		s->p->folded[chain[k]->results[0]] = true;
	s->p->fold[y] = fold;
	return l;
}

/* A split whose operand only reshapes and permutes of a value x reorder
 * (each used once), x in a blocked layout of the halves' rank, takes x's
 * registers in the first of fold_layouts for which fold_regs holds; the
 * reshapes and permutes are then never lowered. That layout, or NULL. */
static const layout *fold_split(assigner *s, const ir_op *split)
{
	const ir_op *chain[8];
	int n = 0, x = split->args[0];
	while (n < 8 && reorders(s, x)) {
		chain[n++] = s->f->values[x].def;
		x = chain[n - 1]->args[0];
	}
	ir_type xt = vtype(s, x), ht = vtype(s, split->results[0]);
	const layout *l = s->p->of[x], *cand[1 + IR_MAX_RANK];
	if (!n || !l || l->kind != LAYOUT_BLOCKED || s->p->remat[x] || xt.rank != ht.rank)
		return NULL;
	int ncand = fold_layouts(s, l, true, cand), c = 0;
	int32_t *regs = NULL;
	for (; c < ncand && !regs; c++)
		regs = fold_regs(s, l, cand[c], xt, ht, vtype(s, split->args[0]), chain, n, FOLD_SPLIT);
	return regs ? record_fold(s, split->results[0], x, x, regs, chain, 0, n, cand[c - 1]) : NULL;
}

/* The mirror: the last of the reshapes and permutes that only reorder a
 * join (each result used once), where the join's operands share a blocked
 * layout of its rank, takes that layout and the operands' registers where
 * fold_regs holds (an interleave of two halves); the join and the ops
 * between are then never lowered. */
static const layout *fold_join(assigner *s, const ir_op *op)
{
	int y = op->results[0];
	if (s->uses[y] == 1 && s->user[y] && (s->user[y]->code == IR_OP_RESHAPE || s->user[y]->code == IR_OP_PERMUTE))
		return NULL; /* not the chain's last op: a later one folds it all */
	const ir_op *chain[8] = {op};
	int n = 1, x = op->args[0];
	while (n < 8 && reorders(s, x)) {
		chain[n++] = s->f->values[x].def;
		x = chain[n - 1]->args[0];
	}
	const ir_op *join = s->f->values[x].def;
	if (!join || join->code != IR_OP_JOIN || s->uses[x] != 1)
		return NULL;
	int a = join->args[0], b = join->args[1];
	ir_type at = vtype(s, a), yt = vtype(s, y);
	const layout *l = s->p->of[a], *cand[1 + IR_MAX_RANK];
	if (!l || l->kind != LAYOUT_BLOCKED || !s->p->of[b] || !layout_eq(l, s->p->of[b]) || s->p->remat[a] || s->p->remat[b] ||
	    at.rank != yt.rank)
		return NULL;
	int ncand = fold_layouts(s, l, false, cand), c = 0;
	int32_t *regs = NULL;
	for (; c < ncand && !regs; c++)
		regs = fold_regs(s, l, cand[c], at, yt, yt, chain, n, FOLD_JOIN);
	if (!regs)
		return NULL;
	s->p->folded[x] = true;
	return record_fold(s, y, a, b, regs, chain, 1, n, cand[c - 1]);
}

/* A reshape or permute of a value x in a blocked layout, where a blocked
 * layout of the result puts each element at a register of the thread that
 * holds it in x, at a register that does not depend on the thread (the
 * runs a thread holds line up: [512] four a thread as [8, 64] and back),
 * takes that layout and x's registers, as many as x has: nothing moves.
 * Tried: the rank's default layout, then layouts of the result's shape
 * with as many consecutive elements a thread as x has along its fastest
 * dim, or fewer. The reshapes and permutes before it that only reorder
 * (each read once) fold with it; where its one user reorders or splits
 * further, that user folds the whole chain instead. */
static const layout *fold_reorder(assigner *s, const ir_op *op)
{
	int y = op->results[0], x = op->args[0], n = 1;
	const ir_op *u = s->uses[y] == 1 ? s->user[y] : NULL, *chain[8] = {op};
	if (u && (u->code == IR_OP_RESHAPE || u->code == IR_OP_PERMUTE || u->code == IR_OP_SPLIT))
		return NULL;
	while (n < 8 && reorders(s, x)) {
		chain[n++] = s->f->values[x].def;
		x = chain[n - 1]->args[0];
	}
	const layout *l = s->p->of[x];
	if (!l || l->kind != LAYOUT_BLOCKED || l->mma || s->p->remat[x])
		return NULL;
	ir_type xt = vtype(s, x), yt = vtype(s, y);
	const layout *c = by_rank(s, yt.rank);
	int nregs = layout_map_of(l, xt.rank, xt.shape).nregs;
	for (int32_t vec = l->size_per_thread[l->order[0]];; vec /= 2) {
		int32_t *regs = NULL;
		if (layout_map_of(c, yt.rank, yt.shape).nregs == nregs &&
		    (regs = fold_regs(s, l, c, xt, yt, yt, chain, n, FOLD_REORDER)))
			return record_fold(s, y, x, x, regs, chain, 1, n, c);
		if (vec < 1)
			return NULL;
		if (!(c = layout_blocked_order(s->a, yt.rank, yt.shape, s->f->num_warps, vec, c->order))) {
			s->oom = true;
			return NULL;
		}
	}
}

static void assign_region(assigner *s, const ir_region *r);

/* A dot reachable from `dot` through the values of its region, forward
 * from its result or backward from its operands (Triton's slice): the
 * chain of an attention loop. */
static bool chained_dot(assigner *s, const ir_op *dot)
{
	const ir_region *r = s->region;
	bool *mark = arena_alloc(s->a, sizeof(bool) * (size_t)(s->f->nvalues + 1));
	int at = 0;
	if (!mark) {
		s->oom = true;
		return false;
	}
	while (at < r->nops && r->ops[at] != dot)
		at++;
	mark[dot->results[0]] = true;
	for (int i = at + 1; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		bool uses = false;
		for (int a = 0; a < op->nargs; a++)
			uses |= mark[op->args[a]];
		if (uses && op->code == IR_OP_DOT)
			return true;
		for (int k = 0; uses && k < op->nresults; k++)
			mark[op->results[k]] = true;
	}
	memset(mark, 0, sizeof(bool) * (size_t)s->f->nvalues);
	mark[dot->args[0]] = mark[dot->args[1]] = true;
	for (int i = at - 1; i >= 0; i--) {
		const ir_op *op = r->ops[i];
		bool defines = false;
		for (int k = 0; k < op->nresults; k++)
			defines |= mark[op->results[k]];
		if (defines && op->code == IR_OP_DOT)
			return true;
		for (int a = 0; defines && a < op->nargs; a++)
			mark[op->args[a]] = true;
	}
	return false;
}

/* An int8 dot whose B tile has its N dim contiguous (a ring stored so,
 * or registers, which dot_mma.c stages so): its B fragments come fastest
 * four 8-column tiles at a time (layout_mma's `wide`), each lane reading
 * 4-byte runs instead of single bytes. */
static bool wide_b(const assigner *s, const ir_op *dot, int wn)
{
	ir_type at = vtype(s, dot->args[0]), ct = vtype(s, dot->results[0]);
	if (at.kind != IR_I8 || ct.shape[1] % (32 * wn))
		return false;
	int t = view_transposed(s, dot->args[1]);
	return t == VIEW_NONE || t == VIEW_ROWS;
}

/* A tf32 dot reads an N-contiguous B ring element by element, as Triton
 * does (ldmatrix has no transpose for 32-bit elements): per K step and
 * 8-column tile, lane (g, t) reads rows t and t + 4 at column g. With the
 * phase moved to chunk bits 1-2 and repeating every 4 rows, the 4 rows one
 * load reads fall on distinct bank groups, and rows t and t + 4 (and every
 * K step) share a phase, so a lane's addresses differ by constants: one
 * register per tile instead of one per element, and no register moves
 * into the instruction's operand pairs (a 16-byte read of four tiles'
 * words needed one per word). */
static void tf32_b_phases(assigner *s, const ir_op *dot)
{
	const ir_op *d = s->f->values[dot->args[1]].def;
	if (vtype(s, dot->args[0]).kind != IR_F32 || !s->p->view[dot->args[1]] || !d || d->code != IR_OP_LOCAL_LOAD)
		return;
	smem_layout *sl = (smem_layout *)s->p->ring[d->args[0]]; /* assign_ring made it */
	if (s->f->values[d->args[0]].def->flags & IR_FLAG_TENSORMAP)
		return; /* TMA's swizzle */
	if (sl && !sl->transposed && sl->elem_bytes == 4 && sl->panel_bytes >= 128 && sl->per_phase == 1 &&
	    sl->max_phase == 8) {
		sl->max_phase = 4;
		sl->phase_shift = 1;
	}
}

/* A ring's tile layout and the layout its copies read pointers in: the
 * tile is stored along the pointer's more contiguous dim, and each thread
 * copies as many consecutive elements of it as one access may cover. */
static void assign_ring(assigner *s, int ring)
{
	ir_type rt = vtype(s, ring);
	const ir_op *copy = s->copy_of[ring];
	int32_t tile[2] = {rt.shape[1], rt.shape[2]};
	int w[2] = {1, 1};
	for (int d = 0; copy && d < 2; d++)
		w[d] = axis_vector_width_dim(s->f, s->ai, copy->args[2],
					     copy->flags & IR_FLAG_HAS_MASK ? copy->args[3] : -1, d);
	/* stored along the dim of wider copies, or where both copy a piece at
	 * a time, of longer runs */
	bool transposed = w[0] > w[1] ||
			  (copy && w[0] == w[1] && s->ai[copy->args[2]].contiguity[0] > s->ai[copy->args[2]].contiguity[1]);
	int vec = w[transposed ? 0 : 1];
	/* pieces under 4 bytes are copied one by one: a thread takes up to 16
	 * bytes of a contiguous run, addressed from the run's first element
	 * (lw_emit_async_copy), so it keeps one pointer a run, not one an
	 * element (4095^3 fp16 matmul: 255 registers and KBs of spills) */
	int bytes = ir_kind_bytes((ir_kind)rt.pointee);
	if (copy && vec * bytes < 4) {
		const axis_info *ai = &s->ai[copy->args[2]];
		int64_t c = ai->contiguity[transposed ? 0 : 1];
		/* with no run proven, a likely one (`% N`): each piece is still
		 * loaded on its own, but a thread's pieces lie side by side in
		 * the stored row and go to shared memory in one store */
		if (c < 2)
			c = ai->runs[transposed ? 0 : 1];
		while (vec * 2 <= c && vec * 2 * bytes <= 16)
			vec *= 2;
	}
	int64_t per_thread = (int64_t)tile[0] * tile[1] / (32 * (s->f->num_warps > 0 ? s->f->num_warps : 1));
	if (vec > per_thread)
		vec = per_thread > 1 ? (int)per_thread : 1;
	int32_t order[2] = {transposed ? 0 : 1, transposed ? 1 : 0};
	smem_layout *sl = arena_alloc(s->a, sizeof *sl);
	const layout *cl = layout_blocked_order(s->a, 2, tile, s->f->num_warps, vec, order);
	if (!sl || !cl) {
		s->oom = true;
		return;
	}
	/* TMA stores a block as its map's box: rows along the contiguous dim,
	 * cut into panels of the swizzle width (ir_tensormap_box) */
	bool tma = s->f->values[ring].def->flags & IR_FLAG_TENSORMAP;
	*sl = smem_layout_make(tile[0], tile[1], ir_kind_bytes((ir_kind)rt.pointee), transposed && !tma,
			       s->unit == DOT_UNIT_WGMMA || tma);
	s->p->ring[ring] = sl;
	s->p->copy[ring] = cl;
}

/* The layout the asynchronous copies of a loop body read pointer block v
 * in (a pointer carried ahead of the loop), NULL when none does. */
static const layout *copy_pointer_layout(const assigner *s, const ir_region *body, int v)
{
	for (int i = 0; i < body->nops; i++) {
		const ir_op *op = body->ops[i];
		if (op->code == IR_OP_ASYNC_COPY && op->args[2] == v)
			return s->p->copy[op->args[0]];
	}
	return NULL;
}

static const layout *yielded(const assigner *s, const ir_region *r, int i)
{
	if (!r->nops)
		return NULL;
	const ir_op *t = r->ops[r->nops - 1];
	return i < t->nargs ? s->p->of[t->args[i]] : NULL;
}

/* Whether value v (a loop's initial value), where it is not cheap, is
 * computed in any layout for what its own parts cost there: elementwise
 * ops, each read once, over cheap values and broadcasts of smaller blocks
 * (zeros plus a bias row, a dot's accumulator before the K loop). */
static bool rebuildable(const assigner *s, int v, int depth)
{
	const ir_op *d = s->f->values[v].def;
	if (s->p->remat[v])
		return true;
	if (!d || depth > 8 || s->uses[v] != 1 || d->nresults != 1 || !remat_code(d->code))
		return false;
	if (d->code == IR_OP_BROADCAST)
		return true;
	for (int i = 0; i < d->nargs; i++)
		if (vtype(s, d->args[i]).rank && !rebuildable(s, d->args[i], depth + 1))
			return false;
	return true;
}

/* Gives such a value, and what it is computed from, layout l: its
 * broadcasts are built in l from their sources moved (adopt_broadcast). */
static void rebuild_in(assigner *s, int v, const layout *l)
{
	const ir_op *d = s->f->values[v].def;
	if (s->p->remat[v] || !d)
		return;
	if (d->code == IR_OP_BROADCAST) {
		adopt_broadcast(s, v, l);
		return;
	}
	s->p->of[v] = l;
	for (int i = 0; i < d->nargs; i++)
		if (vtype(s, d->args[i]).rank == l->rank)
			rebuild_in(s, d->args[i], l);
}

/* Loop-carried values start in their initial values' layouts; those
 * whose initial value is cheap, or rebuilt in any layout for little
 * (rebuildable), switch to what the loop yields (then the body is
 * assigned again). So does one whose initial value is an enclosing loop's
 * carried value still left open (a dot's accumulator through a nest of
 * loops, as a convolution's kernel rows, columns and channels): that loop
 * then takes the same layout from what it yields, instead of the inner
 * loop's accumulator moving through shared memory every iteration. True
 * when one switched. */
static bool retarget(assigner *s, const int *params, const int *inits, int n, const ir_region *yield_region)
{
	bool again = false;
	for (int i = 0; i < n; i++) {
		const layout *y = yielded(s, yield_region, i);
		if (!y || layout_eq(y, s->p->of[params[i]]))
			continue;
		if (!s->p->of[inits[i]] && !s->f->values[inits[i]].def && vtype(s, inits[i]).rank) {
			s->p->of[params[i]] = y;
			again = true;
			continue;
		}
		if (!rebuildable(s, inits[i], 0))
			continue;
		if (!s->p->remat[inits[i]] && y->kind == LAYOUT_BLOCKED && vtype(s, inits[i]).rank == y->rank)
			rebuild_in(s, inits[i], y);
		else if (!s->p->remat[inits[i]])
			continue;
		s->p->of[params[i]] = y;
		again = true;
	}
	return again;
}

/* The layout of a tensor-core dot's result (of s->region), NULL for a dot
 * off the tensor cores; *wgmma: whether wgmma computes it. */
static const layout *tensor_core_layout(assigner *s, const ir_op *op, bool *wgmma)
{
	ir_type rt = vtype(s, op->results[0]);
	*wgmma = false;
	if (s->unit == DOT_UNIT_WGMMA && (layout_dot_wgmma(s->f, op) || wgmma_8bit(s, op))) {
		/* a warpgroup's four warps take 64 consecutive rows */
		int wm, wn;
		layout_wgmma_warps(rt.shape[0], rt.shape[1], s->f->num_warps, &wm, &wn);
		*wgmma = true;
		return layout_wgmma(s->a, wm, wn);
	}
	if (!on_tensor_cores(s, op))
		return NULL;
	int wb = 1, wm, wn;
	if (rt.rank == 3) {
		/* batched: warps along the batch dim first (as Triton), so
		 * that each warp computes whole 2-D dots and no operand
		 * fragment is read by two warps; those left (batches
		 * fewer than warps) split each 2-D dot over M and N */
		while (wb * 2 <= s->f->num_warps && wb * 2 <= rt.shape[0])
			wb *= 2;
		layout_mma_warps(rt.shape[1], rt.shape[2], s->f->num_warps / wb, false, &wm, &wn);
		return layout_mma(s->a, 3, wb, wm, wn, false);
	}
	layout_mma_warps(rt.shape[0], rt.shape[1], s->f->num_warps, chained_dot(s, op), &wm, &wn);
	return layout_mma(s->a, 2, 1, wm, wn, wide_b(s, op, wn));
}

/* A 1-D load of region r that only scales a tensor-core dot's result of
 * r, through an expand_dims and a broadcast (blockwise fp8's
 * `tl.dot(a, b) * a_s[:, None] * b_s[None, :]`): the slice of the dot's
 * layout, in which each thread loads the elements its fragments need, as
 * Triton does; in the default layout the block would move through shared
 * memory, with barriers, at every iteration. NULL where not so. */
static const layout *scale_load(assigner *s, const ir_region *r, const ir_op *load)
{
	int v = load->results[0];
	const ir_op *ex = s->uses[v] == 1 ? s->user[v] : NULL;
	/* loaded one iteration ahead (pipeline.c's prefetch_rest): the scale
	 * is the loop's carried value, which the prologue's load starts and
	 * the body's load yields */
	const ir_region *body = NULL;
	int k = -1;
	if (ex && ex->code == IR_OP_FOR) {
		body = &ex->regions[0];
		for (int i = 3; i < ex->nargs && k < 0; i++)
			k = ex->args[i] == v ? i - 3 : -1;
	} else if (ex && ex->code == IR_OP_YIELD && r->nops && ex == r->ops[r->nops - 1] && r->nparams) {
		body = r; /* the yield of a loop's body */
		for (int i = 0; i < ex->nargs && k < 0; i++)
			k = ex->args[i] == v ? i : -1;
	}
	if (body && k >= 0 && 1 + k < body->nparams) {
		v = body->params[1 + k];
		r = body;
	}
	int axis;
	bool wgmma;
	const ir_op *d = ir_scaled_dot(s->f, r, v, &axis);
	if (!d)
		return NULL;
	const ir_region *outer = s->region;
	s->region = r;
	const layout *dl = tensor_core_layout(s, d, &wgmma);
	s->region = outer;
	const layout *l = dl ? layout_slice(s->a, dl, axis) : NULL;
	if (dl && !l)
		s->oom = true;
	return l;
}

/* The layout a loop's carried pointer block takes from the start: that of
 * the asynchronous copies reading it, or of a scale_load of it (or of it
 * advanced, the next iteration's). */
static const layout *carried_pointer_layout(assigner *s, const ir_region *body, int v)
{
	const layout *l = copy_pointer_layout(s, body, v);
	for (int i = 0; i < body->nops && !l; i++) {
		const ir_op *op = body->ops[i];
		const ir_op *d = op->code == IR_OP_LOAD ? s->f->values[op->args[0]].def : NULL;
		int operand;
		if (op->code == IR_OP_LOAD && (op->args[0] == v || (d && d->code == IR_OP_PTR_ADD && d->args[0] == v))) {
			ir_type t = vtype(s, op->results[0]);
			l = scale_load(s, body, op);
			if (!l && t.rank == 2)
				l = operand_own(s, op, by_rank(s, 2), t, &operand);
		}
	}
	return l;
}

/* A row loaded one iteration ahead (pipeline.c's prefetch_rest) that the
 * body only broadcasts into an op of a blocked layout L (the int4 GEMV's
 * group scale, `w * s[:, None]` before the dot): the carried value, its
 * first load and the body's next one take the slice of L, in which each
 * thread loads the elements its rows need; in their own layout the row
 * would move through shared memory, with two barriers, every iteration.
 * NULL where not so. */
static const layout *carried_row(assigner *s, const ir_region *body, int i, int init)
{
	int param = body->params[1 + i];
	const ir_op *ex = s->uses[param] == 1 ? s->user[param] : NULL;
	const ir_op *yield = body->nops ? body->ops[body->nops - 1] : NULL;
	if (!ex || ex->code != IR_OP_EXPAND_DIMS || vtype(s, param).rank != 1 || !yield || i >= yield->nargs)
		return NULL;
	const layout *l = s->p->of[ex->results[0]];
	int next = yield->args[i];
	const ir_op *first = s->f->values[init].def, *again = s->f->values[next].def;
	if (!l || l->kind != LAYOUT_BLOCKED || l->rank != 2 || !first || first->code != IR_OP_LOAD ||
	    s->uses[init] != 1 || !again || again->code != IR_OP_LOAD || s->uses[next] != 1)
		return NULL;
	const layout *row = layout_slice(s->a, l, ex->axis);
	if (!row)
		s->oom = true;
	return row && pointers_in(s, first, row) && pointers_in(s, again, row) ? row : NULL;
}

/* A row loaded for one broadcast (through casts and an expand_dims) into
 * an elementwise op whose other operand already holds a blocked layout L
 * (`w * x[None, :]`, x loaded after the weights w): the slice of L, where
 * it gives each thread at least as many consecutive elements as the rank's
 * own layout, so that each thread loads the elements its rows need as wide
 * as before. In the rank's layout the row moves through shared memory,
 * with barriers, at each use (int8 weights hold 16 elements a thread, x's
 * fp16 row 8). NULL where not so. Threads of L along the broadcast dim
 * each load the row, as in Triton's slice: a warp's lanes read one
 * address at once, where the rank's layout moved the row through shared
 * memory between two barriers (Mamba's chunk cumsum: its [8] rows of A
 * and dt_bias against an [8, 256] block, every lane a row's part). */
static const layout *broadcast_row(assigner *s, const ir_op *load)
{
	int v = load->results[0];
	const ir_op *u = s->uses[v] == 1 ? s->user[v] : NULL;
	if (vtype(s, v).rank != 1)
		return NULL;
	while (u && u->code == IR_OP_CAST && s->uses[u->results[0]] == 1)
		u = s->user[v = u->results[0]];
	if (!u || u->code != IR_OP_EXPAND_DIMS || s->uses[u->results[0]] != 1)
		return NULL;
	int axis = u->axis, e = u->results[0];
	const ir_op *c = s->user[e];
	if (c && c->code == IR_OP_BROADCAST && s->uses[c->results[0]] == 1)
		c = s->user[e = c->results[0]];
	if (!c || !remat_code(c->code) || c->nresults != 1 || vtype(s, c->results[0]).rank != 2)
		return NULL;
	const layout *l = NULL;
	for (int i = 0; i < c->nargs && !l; i++)
		if (c->args[i] != e && vtype(s, c->args[i]).rank == 2 && !s->p->remat[c->args[i]])
			l = s->p->of[c->args[i]];
	if (!l || l->kind != LAYOUT_BLOCKED || l->mma || l->rank != 2 ||
	    l->size_per_thread[1 - axis] < by_rank(s, 1)->size_per_thread[0])
		return NULL;
	const layout *row = layout_slice(s->a, l, axis);
	if (!row)
		s->oom = true;
	return row;
}

/* Whether each op of r reading the rank-2 value e (an expand_dims of a
 * row) is an elementwise op, through a broadcast at most, whose other
 * rank-2 operand holds a blocked layout, or which holds one itself where
 * no operand does (a mask ANDed from two broadcast rows): *l, all agree.
 * Operands not assigned yet (a loop's accumulator) are passed over. */
static bool expand_into(assigner *s, const ir_region *r, int e, const layout **l, int depth)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (!ir_op_reads(op, e))
			continue;
		if (op->nregions || !remat_code(op->code) || op->nresults != 1 || vtype(s, op->results[0]).rank != 2)
			return false;
		if (op->code == IR_OP_BROADCAST) {
			if (depth || !expand_into(s, r, op->results[0], l, 1))
				return false;
			continue;
		}
		const layout *o = NULL;
		for (int a = 0; a < op->nargs && !o; a++)
			if (op->args[a] != e && vtype(s, op->args[a]).rank == 2 && !s->p->remat[op->args[a]])
				o = s->p->of[op->args[a]];
		if (!o)
			o = s->p->of[op->results[0]];
		if (!o)
			continue;
		if (o->kind != LAYOUT_BLOCKED || o->mma || o->rank != 2 || (*l && !layout_eq(*l, o)))
			return false;
		*l = o;
	}
	return true;
}

/* Whether every use of the row v in r, through elementwise ops of rank 1
 * and the values r's loop carries, is an expand_dims along one axis
 * (*axis) into ops expand_into accepts. */
static bool row_uses(assigner *s, const ir_region *r, const ir_op *loop, int v, bool *seen, const layout **l,
		     int *axis)
{
	if (seen[v])
		return true;
	seen[v] = true;
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (!ir_op_reads(op, v))
			continue;
		if (op->code == IR_OP_YIELD && loop) {
			for (int a = 0; a < op->nargs; a++)
				if (op->args[a] == v && !row_uses(s, r, loop, r->params[1 + a], seen, l, axis))
					return false;
			continue;
		}
		if (op->code == IR_OP_EXPAND_DIMS) {
			if ((*axis >= 0 && *axis != op->axis) || !expand_into(s, r, op->results[0], l, 0))
				return false;
			*axis = op->axis;
			continue;
		}
		if (op->nregions || !(remat_code(op->code) || op->code == IR_OP_MATH) || op->nresults != 1 ||
		    vtype(s, op->results[0]).rank != 1 || !row_uses(s, r, loop, op->results[0], seen, l, axis))
			return false;
	}
	return true;
}

/* The slice of the one blocked layout every use of the row v in r
 * broadcasts into (row_uses; loop: r's loop, whose carried values it
 * follows), or NULL. */
static const layout *uses_slice(assigner *s, const ir_region *r, const ir_op *loop, int v)
{
	bool *seen = arena_alloc(s->a, sizeof(bool) * (size_t)(s->f->nvalues + 1));
	const layout *l = NULL, *row;
	int axis = -1;
	if (!seen) {
		s->oom = true;
		return NULL;
	}
	if (!row_uses(s, r, loop, v, seen, &l, &axis) || !l || axis < 0)
		return NULL;
	if (!(row = layout_slice(s->a, l, axis)))
		s->oom = true;
	return row;
}

/* A short row (no more elements than threads) loaded in a loop whose
 * every use, through elementwise ops of its rank and the loop's carried
 * values, is a broadcast into an op of a blocked layout L (kernl's
 * split-attention reduce: maxima and sums loaded per row, combined with
 * the carried ones, the results scaling the accumulator and the block
 * loaded beside it): the slice of L, which the chain of its uses then
 * takes. In the rank's own layout each of those broadcasts moves through
 * shared memory, with two barriers, every iteration. Outside loops that
 * move happens once, and the slice's loads (a row a thread of L holds
 * several of) measured slower (FLA's l2norm backward). NULL where not so. */
static const layout *broadcast_chain(assigner *s, const ir_op *load)
{
	int v = load->results[0];
	ir_type t = vtype(s, v);
	const ir_op *loop = s->loop && s->region == &s->loop->regions[0] ? s->loop : NULL;
	if (t.rank != 1 || ir_numel(t) > 32 * (int64_t)s->f->num_warps || !loop)
		return NULL;
	const layout *row = uses_slice(s, s->region, loop, v);
	/* threads of L along the broadcast dim load the row too: for a row
	 * this short, a few lines of L1 against a trip through shared memory */
	return row && layout_map_of(row, t.rank, t.shape).nregs <= 8 ? row : NULL;
}

/* Whether the row v of layout x meets one other rank-1 layout *meet on
 * every path of its uses in r, through elementwise ops still in x: an
 * elementwise op placed in another layout (a reduction's slice, the row's
 * value moved there; *placed), or an expand_dims into ops of a blocked
 * layout L (expand_into; the slice of L). Stores take any layout. */
static bool meets_slice(assigner *s, const ir_region *r, int v, const layout *x, const layout **meet, bool *placed,
			int depth)
{
	if (depth > 8)
		return false;
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (!ir_op_reads(op, v))
			continue;
		const layout *m = NULL;
		if (op->code == IR_OP_STORE) {
			if (op->args[0] == v)
				return false; /* a block of pointers */
			continue;
		}
		if (op->code == IR_OP_EXPAND_DIMS) {
			const layout *l = NULL;
			if (!expand_into(s, r, op->results[0], &l, 0) || !l)
				return false;
			if (!(m = layout_slice(s->a, l, op->axis))) {
				s->oom = true;
				return false;
			}
		} else if (op->nregions || !(remat_code(op->code) || op->code == IR_OP_MATH) || op->nresults != 1 ||
			   vtype(s, op->results[0]).rank != 1 || !s->p->of[op->results[0]]) {
			return false;
		} else if (layout_eq(s->p->of[op->results[0]], x)) {
			if (!meets_slice(s, r, op->results[0], x, meet, placed, depth + 1))
				return false;
			continue;
		} else {
			m = s->p->of[op->results[0]];
			*placed = true;
		}
		if (m->kind != LAYOUT_SLICE || (*meet && !layout_eq(*meet, m)))
			return false;
		*meet = m;
	}
	return true;
}

/* After the kernel's top level is assigned: the rows loaded there before
 * the ops that would place them (Mamba's selective state update: x, D and
 * z loaded, then summed with a row reduced from the [32, 16] state), whose
 * uses all meet one slice S (meets_slice), are wanted in S, where each
 * thread loads the elements its rows need; in the rank's own layout each
 * meeting moves the row through shared memory between two barriers. Triton
 * gets there by propagating layouts back from the reduction. A row only
 * broadcast is left to broadcast_row: loaded in the slice outside loops,
 * such rows measured slower (FLA's l2norm backward, 1.13 -> 0.87 of
 * Triton). True where a row is, and the top level is assigned again. */
static bool placed_rows(assigner *s, const ir_region *body)
{
	bool again = false;
	for (int i = 0; i < body->nops; i++) {
		const ir_op *op = body->ops[i];
		int v = op->nresults ? op->results[0] : -1;
		if (op->code != IR_OP_LOAD || vtype(s, v).rank != 1 || s->want[v] || !s->p->of[v] ||
		    s->p->of[v]->kind != LAYOUT_BLOCKED)
			continue;
		const layout *meet = NULL;
		ir_type t = vtype(s, v);
		bool placed = false;
		if (!meets_slice(s, body, v, s->p->of[v], &meet, &placed, 0) || !placed ||
		    layout_map_of(meet, 1, t.shape).nregs > 8 || !pointers_in(s, op, meet))
			continue;
		s->want[v] = meet;
		again = true;
	}
	return again;
}

/* Loop value i of `loop`, started from a cheap value (an arange), a short
 * row whose every use in the body, through elementwise ops and its own
 * update, is a broadcast into one blocked layout L (FlagGems' column
 * offsets, `cols < N` ANDed into each block's mask and `cols += BLOCK`
 * yielded): the slice of L, so that its mask is computed where the loads
 * read it; in the rank's own layout the mask moves through shared memory
 * every iteration. NULL where not so. */
static const layout *carried_chain(assigner *s, const ir_op *loop, int i)
{
	int param = loop->regions[0].params[1 + i];
	ir_type t = vtype(s, param);
	if (t.rank != 1 || ir_numel(t) > 32 * (int64_t)s->f->num_warps * 16)
		return NULL;
	const layout *row = uses_slice(s, &loop->regions[0], loop, param);
	return row && !replicates(s, row, t) ? row : NULL;
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
		/* A value carried from a cheap start (zeros, -inf) is first left
		 * open, so the body's ops follow their other operands (a
		 * reduction's slice, a dot's accumulator) and the value then takes
		 * what the body yields; copies' pointers take the copies' layout,
		 * scales' pointers their loads'. */
		for (int i = 0; i < n; i++) {
			int param = body->params[1 + i], init = op->args[3 + i];
			const layout *want = p->remat[init] ? carried_pointer_layout(s, body, param) : NULL;
			p->of[param] = want ? want : p->remat[init] && vtype(s, init).rank ? NULL : p->of[init];
		}
		const ir_op *outer_loop = s->loop;
		s->loop = op;
		s->loops++;
		assign_region(s, body);
		bool again = retarget(s, body->params + 1, op->args + 3, n, body);
		for (int i = 0; i < n; i++) {
			int param = body->params[1 + i], init = op->args[3 + i];
			const layout *row = carried_row(s, body, i, init);
			if (!row && p->remat[init])
				row = carried_chain(s, op, i);
			if (row && !layout_eq(row, p->of[param])) {
				p->of[param] = p->of[init] = s->want[body->ops[body->nops - 1]->args[i]] = row;
				again = true;
			} else if (!p->of[param] && vtype(s, init).rank) {
				p->of[param] = p->of[init];
				again = true;
			}
		}
		if (again)
			assign_region(s, body);
		s->loop = outer_loop;
		s->loops--;
		for (int i = 0; i < op->nresults; i++)
			p->of[op->results[i]] = p->of[body->params[1 + i]];
		return;
	}
	case IR_OP_WHILE: {
		const ir_region *before = &op->regions[0], *after = &op->regions[1];
		for (int i = 0; i < op->nargs && i < before->nparams; i++)
			p->of[before->params[i]] = p->of[op->args[i]];
		const ir_op *cond = before->nops ? before->ops[before->nops - 1] : NULL;
		s->loops++;
		for (int pass = 0; pass < 2 && cond; pass++) {
			assign_region(s, before);
			/* The after region's parameters are the condition's values. */
			for (int i = 0; i < after->nparams && i + 1 < cond->nargs; i++)
				p->of[after->params[i]] = p->of[cond->args[i + 1]];
			assign_region(s, after);
			if (!retarget(s, before->params, op->args, op->nargs, after))
				break;
		}
		s->loops--;
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
	case IR_OP_LOCAL_ALLOC:
		assign_ring(s, res);
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
	case IR_OP_REDUCE:
	case IR_OP_REDUCE_FN: {
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
		if ((l = tensor_core_layout(s, op, &p->wgmma[res])))
			tf32_b_phases(s, op);
		else
			l = follow_operands(s, op, rt.rank);
		if (op->nargs > 2)
			adopt_broadcast(s, op->args[2], l); /* the accumulator */
		break;
	case IR_OP_PERMUTE:
	case IR_OP_RESHAPE:
		if (p->remat[op->args[0]] && cheap_chain(s, op->args[0], &(int){24})) {
			p->remat[res] = true; /* computed where it is used, element by element */
			l = by_rank(s, rt.rank);
		} else if (view_transpose(s, op) && p->view[op->args[0]] && s->view_uses[res] > 0) {
			p->view[res] = true; /* the ring's tile, read transposed */
			l = by_rank(s, rt.rank);
		} else if (staged_transpose(s, op)) {
			p->folded[res] = true; /* the dot stages its operand's registers, transposed */
			l = by_rank(s, rt.rank);
		} else if (!(l = fold_join(s, op)) && !(l = fold_reorder(s, op))) {
			l = unreplicated(s, follow_operands(s, op, rt.rank), rt);
		}
		break;
	case IR_OP_SPLIT:
		if (!(l = fold_split(s, op)))
			l = unreplicated(s, follow_operands(s, op, rt.rank), rt);
		break;
	case IR_OP_JOIN:
		l = unreplicated(s, follow_operands(s, op, rt.rank), rt);
		break;
	case IR_OP_LOAD: {
		const layout *scale = s->want[res] ? s->want[res] : scale_load(s, s->region, op);
		if (!scale)
			scale = broadcast_row(s, op);
		if (!scale)
			scale = broadcast_chain(s, op);
		if (scale && pointers_in(s, op, scale))
			l = scale;
		else
			l = load_unreplicated(s, op,
					      operand_load(s, op, joined_load(s, op, follow_operands(s, op, rt.rank), rt), rt), rt);
		for (int i = 0; i < op->nargs; i++)
			adopt_broadcast(s, op->args[i], l);
		break;
	}
	case IR_OP_LOCAL_LOAD:
		/* read where a dot needs it (a view, or its B fragments' elements
		 * for a dequantization), else into the default layout */
		p->view[res] = s->view_uses[res] > 0;
		if (p->view[res] || !(l = dequant_b(s, op)))
			l = joined_load(s, op, by_rank(s, rt.rank), rt);
		break;
	default:
		if (view_cast(s, op) && s->view_uses[res] > 0 && p->view[op->args[0]]) {
			p->view[res] = true; /* a ring's tile the dot converts as it reads it */
			l = by_rank(s, rt.rank);
			break;
		}
		if (!(l = s->want[res]) && !(l = epilogue_load(s, op, rt.rank)))
			l = follow_operands(s, op, rt.rank);
		for (int i = 0; i < op->nargs; i++) {
			int v = op->args[i];
			/* an operand computed for little in l (AWQ's zeros, shifted out
			 * of a broadcast row) is, and only its broadcasts' rows move */
			if (l->kind == LAYOUT_BLOCKED && vtype(s, v).rank == rt.rank && p->of[v] && !layout_eq(p->of[v], l) &&
			    rebuildable(s, v, 0))
				rebuild_in(s, v, l);
			else
				adopt_broadcast(s, v, l);
		}
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
	const ir_region *outer = s->region;
	s->region = r;
	for (int i = 0; i < r->nops; i++)
		assign_op(s, r->ops[i]);
	s->region = outer;
}

tilec_status layout_assign(tilec_ctx *ctx, arena *a, const ir_func *f, const axis_info *ai, dot_unit unit,
			   layout_plan *out)
{
	(void)ctx;
	memset(out, 0, sizeof *out);
	assigner s;
	memset(&s, 0, sizeof s);
	s.a = a;
	s.f = f;
	s.ai = ai;
	s.unit = out->unit = unit;
	s.tensor_cores = out->tensor_cores = unit != DOT_UNIT_FMA;
	s.p = out;
	size_t nv = (size_t)(f->nvalues + 1);
	out->of = arena_alloc(a, sizeof(layout *) * nv);
	out->remat = arena_alloc(a, sizeof(bool) * nv);
	out->ring = arena_alloc(a, sizeof(smem_layout *) * nv);
	out->copy = arena_alloc(a, sizeof(layout *) * nv);
	out->view = arena_alloc(a, sizeof(bool) * nv);
	out->wgmma = arena_alloc(a, sizeof(bool) * nv);
	out->folded = arena_alloc(a, sizeof(bool) * nv);
	out->fold = arena_alloc(a, sizeof(layout_fold *) * nv);
	s.copy_of = arena_alloc(a, sizeof(ir_op *) * nv);
	s.view_uses = arena_alloc(a, sizeof(int) * nv);
	s.uses = arena_alloc(a, sizeof(int) * nv);
	s.user = arena_alloc(a, sizeof(ir_op *) * nv);
	s.want = arena_alloc(a, sizeof(layout *) * nv);
	if (!out->of || !out->remat || !out->ring || !out->copy || !out->view || !out->wgmma || !out->folded || !out->fold ||
	    !s.copy_of || !s.view_uses || !s.uses || !s.user || !s.want)
		return TILEC_ERR_NOMEM;
	for (int r = 1; r <= IR_MAX_RANK; r++)
		for (int d = 0; d < r; d++)
			s.max_shape[r][d] = 1;
	s.dot_tile[0] = s.dot_tile[1] = INT32_MAX;
	for (int r = 0; r <= IR_MAX_RANK; r++)
		s.lead[r] = s.likely[r] = -1;
	survey_region(&s, &f->body);
	for (int v = 0; v < f->nvalues; v++) {
		const ir_op *d = f->values[v].def;
		if (d && view_cast(&s, d) && !view_cast_dot(&s, d))
			s.view_uses[v] = -1;
	}
	/* then back from the dots: a transpose, a conversion, the ring's tile */
	for (int v = 0; v < f->nvalues; v++) {
		const ir_op *d = f->values[v].def;
		if (d && view_transpose(&s, d) && s.view_uses[v] <= 0)
			s.view_uses[d->args[0]] = -1;
	}
	for (int v = 0; v < f->nvalues; v++) {
		const ir_op *d = f->values[v].def;
		if (d && view_cast(&s, d) && s.view_uses[v] <= 0)
			s.view_uses[d->args[0]] = -1;
	}
	/* The default 2-D layout must not replicate a dot's operand tiles (their
	 * loads would fetch everything twice): its CTA tile fits the smallest. */
	for (int d = 0; d < 2; d++)
		if (s.dot_tile[d] < s.max_shape[2][d])
			s.max_shape[2][d] = s.dot_tile[d];
	for (int r = 1; r <= IR_MAX_RANK; r++) {
		int32_t order[IR_MAX_RANK];
		int lead = s.lead[r] >= 0 ? s.lead[r] : r - 1, k = 0, vec = s.vec[r];
		if (!s.proven[r] && s.likely[r] >= 0)
			lead = s.likely[r];
		order[k++] = lead;
		for (int d = r - 1; d >= 0; d--)
			if (d != lead)
				order[k++] = d;
		if (lead != r - 1)
			vec = s.lead_vec[r];
		out->by_rank[r] = layout_blocked_order(a, r, s.max_shape[r], f->num_warps, vec ? vec : 1, order);
		if (!out->by_rank[r])
			return TILEC_ERR_NOMEM;
	}
	assign_region(&s, &f->body);
	if (!s.oom && placed_rows(&s, &f->body))
		assign_region(&s, &f->body);
	return s.oom ? TILEC_ERR_NOMEM : TILEC_OK;
}
