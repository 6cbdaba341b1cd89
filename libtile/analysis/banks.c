/* banks.c - shared-memory bank conflicts of threads' accesses to a
 * swizzled tile, and the phase order that avoids them.
 *
 * Shared memory serves a warp's access in wavefronts: 32 banks of 4 bytes,
 * one word per bank in each, a word several lanes touch counted once;
 * 16-byte accesses are served 8 lanes at a time, 8-byte ones 16 at a time.
 * smem_wavefronts replays the accesses lw_stage_tile and lw_read_tile make
 * (runs of registers consecutive along the stored rows as one access,
 * smem_access_run) lane by lane for every warp and counts wavefronts by
 * that rule. The XOR swizzle puts 8 consecutive rows at one chunk column
 * in distinct banks, which serves the tensor cores' accumulators (8 rows,
 * one chunk each per wavefront) but not a reader whose 8 lanes take 2
 * rows x 4 chunks: rows r and r+1 then differ in the phase's low bit only
 * and land on the same 4 chunks of banks. A tile that nothing but threads'
 * own accesses touch (a tensor-core result on its way to the stores: no
 * wgmma descriptor or TMA copy reads its swizzle) may mix the phase with
 * itself shifted left (phase_mix: rows r and r + 1 then differ in the
 * phase's top bit for a shift of 2, rows r .. r + 3 in its top two for a
 * shift of 1), and smem_layout_order_phase picks the shift whose writes
 * and reads take the fewest wavefronts together.
 */
#include "analysis/analysis.h"


int smem_access_run(const layout_map *m, ir_type t, const smem_layout *sl, int nregs)
{
	int d = m->dim_of[t.rank - (sl->transposed ? 2 : 1)], elem_bytes = sl->elem_bytes;
	int vec = layout_contig_regs(m, d);
	while (vec > 1 && (vec * elem_bytes > 16 || nregs % vec))
		vec /= 2;
	layout_field f = layout_dim_field(m, d);
	if (vec <= 1 || (f.lanes > 1 && f.lane_scale % vec) || (f.warps > 1 && f.warp_scale % vec) || m->shape[d] % vec)
		return 1;
	for (int r = 0; r < nregs; r += vec) {
		int32_t c0[IR_MAX_RANK], ci[IR_MAX_RANK];
		layout_reg_coords(m, r, c0);
		if (c0[d] % vec)
			return 1;
		for (int i = 1; i < vec; i++) {
			layout_reg_coords(m, r + i, ci);
			for (int j = 0; j < m->rank; j++)
				if (ci[j] != c0[j] + (j == d ? i : 0))
					return 1;
		}
	}
	return vec;
}

int smem_layout_phase(const smem_layout *s, int64_t row)
{
	int p = (int)((row / s->per_phase) % s->max_phase);
	if (s->phase_mix)
		p = (p ^ (p << s->phase_mix)) & (s->max_phase - 1);
	return p << s->phase_shift;
}

int64_t smem_layout_offset(const smem_layout *s, int64_t r, int64_t c)
{
	if (s->transposed) {
		int64_t t = r;
		r = c;
		c = t;
	}
	int64_t b = c * s->elem_bytes, p = s->panel_bytes;
	return b / p * s->rows * p + r * p + ((b % p / 16) ^ smem_layout_phase(s, r)) * 16 + b % 16;
}

int64_t smem_tile_stride(const smem_layout *s)
{
	return ((int64_t)s->tile_bytes + 127) & ~(int64_t)127;
}

/* Wavefronts of one access of `bytes` per lane by the lanes whose byte
 * offsets are off[] (-1: the lane does not take part). */
static int access_wavefronts(const int64_t *off, int bytes)
{
	int group = bytes >= 16 ? 8 : bytes == 8 ? 16 : 32, total = 0;
	for (int g = 0; g < 32; g += group) {
		int64_t words[32 * 4];
		int n = 0;
		for (int l = g; l < g + group; l++)
			for (int64_t wd = off[l] / 4; off[l] >= 0 && wd <= (off[l] + bytes - 1) / 4; wd++) {
				bool seen = false;
				for (int i = 0; i < n && !seen; i++)
					seen = words[i] == wd;
				if (!seen)
					words[n++] = wd;
			}
		int per_bank[32] = {0}, most = 0;
		for (int i = 0; i < n; i++)
			if (++per_bank[words[i] % 32] > most)
				most = per_bank[words[i] % 32];
		total += most;
	}
	return total;
}

uint64_t smem_wavefronts(const layout *l, ir_type t, const smem_layout *sl, int num_warps, bool store)
{
	if (t.rank != 2 && t.rank != 3)
		return 0;
	layout_map m = layout_map_of(l, t.rank, t.shape);
	int rr = t.rank - 2, rc = t.rank - 1;
	int vec = smem_access_run(&m, t, sl, m.nregs);
	layout_field fl[IR_MAX_RANK];
	for (int d = 0; d < m.rank; d++)
		fl[d] = layout_dim_field(&m, d);
	uint64_t total = 0;
	for (int w = 0; w < num_warps; w++)
		for (int r = 0; r < m.nregs; r += vec) {
			int32_t rc0[IR_MAX_RANK];
			layout_reg_coords(&m, r, rc0);
			int64_t off[32];
			for (int lane = 0; lane < 32; lane++) {
				int64_t c[IR_MAX_RANK] = {0};
				bool owner = true;
				for (int d = 0; d < m.rank; d++) {
					int64_t raw = (int64_t)((lane >> fl[d].lane_shift) & (fl[d].lanes - 1)) * fl[d].lane_scale +
						      (int64_t)((w >> fl[d].warp_shift) & (fl[d].warps - 1)) * fl[d].warp_scale;
					owner = owner && raw < m.shape[d];
					c[d] = (raw & (m.shape[d] - 1)) + rc0[d];
				}
				int64_t v[IR_MAX_RANK] = {0};
				for (int j = 0; j < t.rank; j++)
					v[j] = c[m.dim_of[j]];
				off[lane] = store && !owner ? -1 :
					    smem_layout_offset(sl, v[rr], v[rc]) + (t.rank == 3 ? v[0] * smem_tile_stride(sl) : 0);
			}
			total += (uint64_t)access_wavefronts(off, vec * sl->elem_bytes);
		}
	return total;
}

void smem_layout_order_phase(smem_layout *sl, const layout *writer, const layout *reader, ir_type t, int num_warps)
{
	uint64_t best = UINT64_MAX;
	int best_mix = 0;
	for (int k = 0; 1 << k < sl->max_phase; k++) { /* the shifts that keep a bit of the phase */
		sl->phase_mix = k;
		uint64_t n = smem_wavefronts(writer, t, sl, num_warps, true) + smem_wavefronts(reader, t, sl, num_warps, false);
		if (n < best) {
			best = n;
			best_mix = k;
		}
	}
	sl->phase_mix = best_mix;
}
