/* ir.c - the tile IR: types, the builder and the text dump.
 *
 * Types are small values (element kind, pointee, rank, shape) compared
 * field by field, so no interning is needed. Values are ids into one table
 * per function; ops point at their operands by id and own their nested
 * regions. The dump prints one op per line, nested regions indented, with
 * %N value names and types spelled as Triton spells them, so golden tests
 * stay readable.
 */
#include "ir/ir.h"

#include <string.h>

static const struct {
	const char *name;
	int bits;
} kind_info[IR_KIND_COUNT] = {
	[IR_VOID] = {"void", 0},
	[IR_I1] = {"i1", 1}, [IR_I8] = {"i8", 8}, [IR_I16] = {"i16", 16},
	[IR_I32] = {"i32", 32}, [IR_I64] = {"i64", 64},
	[IR_U8] = {"u8", 8}, [IR_U16] = {"u16", 16}, [IR_U32] = {"u32", 32}, [IR_U64] = {"u64", 64},
	[IR_F16] = {"fp16", 16}, [IR_BF16] = {"bf16", 16}, [IR_F32] = {"fp32", 32}, [IR_F64] = {"fp64", 64},
	[IR_F8E4NV] = {"fp8e4nv", 8}, [IR_F8E5] = {"fp8e5", 8},
	[IR_PTR] = {"ptr", 64}, [IR_SMEM] = {"smem", 0},
};

ir_type ir_scalar(ir_kind kind)
{
	ir_type t = {0};
	t.kind = (uint8_t)kind;
	return t;
}

ir_type ir_ptr(ir_kind pointee)
{
	ir_type t = {0};
	t.kind = IR_PTR;
	t.pointee = (uint8_t)pointee;
	return t;
}

ir_type ir_block(ir_type elem, int rank, const int32_t *shape)
{
	ir_type t = ir_elem(elem);
	t.rank = (uint8_t)rank;
	for (int i = 0; i < rank && i < IR_MAX_RANK; i++)
		t.shape[i] = shape[i];
	return t;
}

ir_type ir_elem(ir_type t)
{
	ir_type e = {0};
	e.kind = t.kind;
	e.pointee = t.pointee;
	return e;
}

bool ir_same_shape(ir_type a, ir_type b)
{
	if (a.rank != b.rank)
		return false;
	for (int i = 0; i < a.rank; i++)
		if (a.shape[i] != b.shape[i])
			return false;
	return true;
}

bool ir_type_eq(ir_type a, ir_type b)
{
	return a.kind == b.kind && ((a.kind != IR_PTR && a.kind != IR_SMEM) || a.pointee == b.pointee) &&
	       ir_same_shape(a, b);
}

int64_t ir_numel(ir_type t)
{
	int64_t n = 1;
	for (int i = 0; i < t.rank; i++)
		n *= t.shape[i];
	return n;
}

int ir_kind_bits(ir_kind k)
{
	return k < IR_KIND_COUNT ? kind_info[k].bits : 0;
}

int ir_kind_bytes(ir_kind k)
{
	return k == IR_I1 ? 1 : ir_kind_bits(k) / 8;
}

bool ir_kind_is_float(ir_kind k)
{
	return k >= IR_F16 && k <= IR_F8E5;
}

bool ir_kind_is_fp8(ir_kind k)
{
	return k == IR_F8E4NV || k == IR_F8E5;
}

bool ir_kind_is_int(ir_kind k)
{
	return k >= IR_I1 && k <= IR_U64;
}

bool ir_kind_is_signed(ir_kind k)
{
	return k >= IR_I8 && k <= IR_I64;
}

const char *ir_kind_name(ir_kind k)
{
	return k < IR_KIND_COUNT ? kind_info[k].name : "?";
}

bool ir_kind_from_name(const char *name, size_t len, ir_kind *out)
{
	static const struct {
		const char *name;
		ir_kind kind;
	} aliases[] = {
		{"i1", IR_I1}, {"int1", IR_I1}, {"bool", IR_I1},
		{"i8", IR_I8}, {"int8", IR_I8}, {"i16", IR_I16}, {"int16", IR_I16},
		{"i32", IR_I32}, {"int32", IR_I32}, {"i64", IR_I64}, {"int64", IR_I64},
		{"u8", IR_U8}, {"uint8", IR_U8}, {"u16", IR_U16}, {"uint16", IR_U16},
		{"u32", IR_U32}, {"uint32", IR_U32}, {"u64", IR_U64}, {"uint64", IR_U64},
		{"fp16", IR_F16}, {"float16", IR_F16}, {"bf16", IR_BF16}, {"bfloat16", IR_BF16},
		{"fp32", IR_F32}, {"float32", IR_F32}, {"fp64", IR_F64}, {"float64", IR_F64},
		{"fp8e4nv", IR_F8E4NV}, {"float8e4nv", IR_F8E4NV}, {"fp8e5", IR_F8E5}, {"float8e5", IR_F8E5},
	};
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strlen(aliases[i].name) == len && memcmp(aliases[i].name, name, len) == 0) {
			*out = aliases[i].kind;
			return true;
		}
	return false;
}

static void elem_str(strbuf *sb, ir_type t)
{
	if (t.kind == IR_PTR)
		sb_printf(sb, "*%s", ir_kind_name((ir_kind)t.pointee));
	else if (t.kind == IR_SMEM)
		sb_puts(sb, ir_kind_name((ir_kind)t.pointee));
	else
		sb_puts(sb, ir_kind_name((ir_kind)t.kind));
}

void ir_type_str(strbuf *sb, ir_type t)
{
	if (t.rank == 0) {
		elem_str(sb, t);
		return;
	}
	if (t.kind == IR_SMEM) /* smem<3x64x32xfp16> */
		sb_puts(sb, "smem");
	sb_putc(sb, '<');
	for (int i = 0; i < t.rank; i++)
		sb_printf(sb, "%dx", (int)t.shape[i]);
	elem_str(sb, t);
	sb_putc(sb, '>');
}

ir_func *ir_func_new(arena *a, const char *name, int nparams, const ir_param *params)
{
	ir_func *f = arena_alloc(a, sizeof *f);
	if (!f)
		return NULL;
	f->arena = a;
	f->name = arena_strdup(a, name);
	f->num_warps = 4;
	f->num_stages = 3;
	f->num_ctas = 1;
	f->nparams = nparams;
	f->params = arena_alloc(a, sizeof(ir_param) * (size_t)(nparams ? nparams : 1));
	if (!f->name || !f->params)
		return NULL;
	for (int i = 0; i < nparams; i++) {
		f->params[i] = params[i];
		int id = ir_value_new(f, params[i].type);
		if (id != i)
			return NULL;
		f->values[id].name = params[i].name;
	}
	return f;
}

/* Deep copies of regions and ops; value ids stay as they are, so the
 * copy's values array is the original's with defs pointing at new ops. */
static bool clone_region(ir_func *to, ir_region *dst, const ir_region *src);

static ir_op *clone_op(ir_func *to, const ir_op *src)
{
	ir_op *op = arena_alloc(to->arena, sizeof *op);
	if (!op)
		return NULL;
	*op = *src;
	op->args = arena_alloc(to->arena, sizeof(int) * (size_t)(src->nargs + 1));
	op->results = arena_alloc(to->arena, sizeof(int) * (size_t)(src->nresults + 1));
	op->regions = arena_alloc(to->arena, sizeof(ir_region) * (size_t)(src->nregions + 1));
	if (!op->args || !op->results || !op->regions)
		return NULL;
	if (src->nargs)
		memcpy(op->args, src->args, sizeof(int) * (size_t)src->nargs);
	if (src->nresults)
		memcpy(op->results, src->results, sizeof(int) * (size_t)src->nresults);
	for (int i = 0; i < src->nresults; i++)
		to->values[src->results[i]].def = op;
	for (int i = 0; i < src->nregions; i++)
		if (!clone_region(to, &op->regions[i], &src->regions[i]))
			return NULL;
	return op;
}

static bool clone_region(ir_func *to, ir_region *dst, const ir_region *src)
{
	memset(dst, 0, sizeof *dst);
	dst->nparams = src->nparams;
	dst->params = arena_alloc(to->arena, sizeof(int) * (size_t)(src->nparams + 1));
	dst->ops = arena_alloc(to->arena, sizeof(ir_op *) * (size_t)(src->nops + 1));
	if (!dst->params || !dst->ops)
		return false;
	if (src->nparams)
		memcpy(dst->params, src->params, sizeof(int) * (size_t)src->nparams);
	dst->nops = dst->capops = src->nops;
	for (int i = 0; i < src->nops; i++)
		if (!(dst->ops[i] = clone_op(to, src->ops[i])))
			return false;
	return true;
}

ir_func *ir_clone(arena *a, const ir_func *f)
{
	ir_func *g = arena_alloc(a, sizeof *g);
	if (!g)
		return NULL;
	*g = *f;
	g->arena = a;
	g->capvalues = f->nvalues > 0 ? f->nvalues : 1;
	g->values = arena_alloc(a, sizeof(ir_value) * (size_t)g->capvalues);
	if (!g->values)
		return NULL;
	if (f->nvalues)
		memcpy(g->values, f->values, sizeof(ir_value) * (size_t)f->nvalues);
	if (f->nparams) { /* hints are per clone (tilec's own variants) */
		if (!(g->params = arena_alloc(a, sizeof(ir_param) * (size_t)f->nparams)))
			return NULL;
		memcpy(g->params, f->params, sizeof(ir_param) * (size_t)f->nparams);
	}
	return clone_region(g, &g->body, &f->body) ? g : NULL;
}

int ir_value_new(ir_func *f, ir_type type)
{
	if (f->nvalues == f->capvalues) {
		int cap = f->capvalues ? f->capvalues * 2 : 64;
		ir_value *v = arena_realloc(f->arena, f->values, sizeof(ir_value) * (size_t)f->capvalues,
					    sizeof(ir_value) * (size_t)cap);
		if (!v)
			return -1;
		f->values = v;
		f->capvalues = cap;
	}
	ir_value *v = &f->values[f->nvalues];
	memset(v, 0, sizeof *v);
	v->type = type;
	return f->nvalues++;
}

ir_op *ir_op_new(ir_func *f, ir_opcode code, src_loc loc, int nargs, const int *args,
		 int nresults, const ir_type *result_types, int nregions)
{
	ir_op *op = arena_alloc(f->arena, sizeof *op);
	if (!op)
		return NULL;
	op->code = code;
	op->loc = loc;
	op->nargs = nargs;
	op->nresults = nresults;
	op->nregions = nregions;
	op->args = arena_alloc(f->arena, sizeof(int) * (size_t)(nargs + 1));
	op->results = arena_alloc(f->arena, sizeof(int) * (size_t)(nresults + 1));
	op->regions = arena_alloc(f->arena, sizeof(ir_region) * (size_t)(nregions + 1));
	if (!op->args || !op->results || !op->regions)
		return NULL;
	if (nargs)
		memcpy(op->args, args, sizeof(int) * (size_t)nargs);
	for (int i = 0; i < nresults; i++) {
		int id = ir_value_new(f, result_types[i]);
		if (id < 0)
			return NULL;
		f->values[id].def = op;
		f->values[id].def_index = i;
		op->results[i] = id;
	}
	return op;
}

bool ir_region_append(ir_func *f, ir_region *r, ir_op *op)
{
	if (r->nops == r->capops) {
		int cap = r->capops ? r->capops * 2 : 16;
		ir_op **ops = arena_realloc(f->arena, r->ops, sizeof(ir_op *) * (size_t)r->capops,
					    sizeof(ir_op *) * (size_t)cap);
		if (!ops)
			return false;
		r->ops = ops;
		r->capops = cap;
	}
	r->ops[r->nops++] = op;
	return true;
}

bool ir_region_insert(ir_func *f, ir_region *r, int at, ir_op *op)
{
	if (!ir_region_append(f, r, op))
		return false;
	memmove(&r->ops[at + 1], &r->ops[at], sizeof(ir_op *) * (size_t)(r->nops - 1 - at));
	r->ops[at] = op;
	return true;
}

bool ir_region_has(const ir_region *r, ir_opcode code)
{
	for (int i = 0; i < r->nops; i++) {
		if (r->ops[i]->code == code)
			return true;
		for (int g = 0; g < r->ops[i]->nregions; g++)
			if (ir_region_has(&r->ops[i]->regions[g], code))
				return true;
	}
	return false;
}

int ir_producer_loop(const ir_func *f)
{
	for (int i = 0; i < f->body.nops; i++)
		if (f->body.ops[i]->code == IR_OP_FOR && f->body.ops[i]->flags & IR_FLAG_PRODUCER)
			return i;
	return -1;
}

bool ir_op_reads(const ir_op *op, int v)
{
	for (int i = 0; i < op->nargs; i++)
		if (op->args[i] == v)
			return true;
	for (int g = 0; g < op->nregions; g++)
		for (int i = 0; i < op->regions[g].nops; i++)
			if (ir_op_reads(op->regions[g].ops[i], v))
				return true;
	return false;
}

void ir_count_uses(const ir_region *r, int *uses)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nargs; k++)
			uses[op->args[k]]++;
		for (int k = 0; k < op->nregions; k++)
			ir_count_uses(&op->regions[k], uses);
	}
}

static bool removable(const ir_op *op)
{
	switch (op->code) {
	case IR_OP_STORE: case IR_OP_LOAD: case IR_OP_ASSUME: case IR_OP_YIELD: case IR_OP_CONDITION:
	case IR_OP_FOR: case IR_OP_IF: case IR_OP_WHILE:
	case IR_OP_ATOMIC_RMW: case IR_OP_ATOMIC_CAS: /* they write memory */
		return false;
	case IR_OP_INLINE_ASM: /* is_pure=False: it may have effects */
		return !(op->flags & IR_FLAG_VOLATILE) && op->nresults == 1;
	default:
		return op->nresults == 1;
	}
}

static bool prune_region(ir_region *r, const int *uses)
{
	bool changed = false;
	int k = 0;
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		for (int j = 0; j < op->nregions; j++)
			changed |= prune_region(&op->regions[j], uses);
		if (removable(op) && uses[op->results[0]] == 0)
			changed = true;
		else
			r->ops[k++] = op;
	}
	r->nops = k;
	return changed;
}

bool ir_prune(ir_func *f, int nmaps, const ir_derived_map *maps)
{
	int *uses = arena_alloc(f->arena, sizeof(int) * (size_t)(f->nvalues + 1));
	if (!uses)
		return false;
	do {
		memset(uses, 0, sizeof(int) * (size_t)f->nvalues);
		ir_count_uses(&f->body, uses);
		for (int k = 0; k < nmaps; k++)
			for (int i = 0; i < 2 * maps[k].rank - 1; i++)
				uses[i < maps[k].rank ? maps[k].shape[i] : maps[k].strides[i - maps[k].rank]]++;
	} while (prune_region(&f->body, uses));
	return true;
}

/* The one op of r reading v, NULL unless exactly one takes it, once, and
 * none inside its regions. */
static const ir_op *sole_reader(const ir_region *r, int v)
{
	const ir_op *u = NULL;
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		int n = 0;
		for (int a = 0; a < op->nargs; a++)
			n += op->args[a] == v;
		if (n > 1 || (n && u) || (!n && ir_op_reads(op, v)))
			return NULL;
		if (n)
			u = op;
	}
	return u;
}

static bool scaling(const ir_op *op)
{
	return (op->code == IR_OP_MUL || op->code == IR_OP_ADD || op->code == IR_OP_SUB || op->code == IR_OP_DIV) &&
	       op->nargs == 2 && op->nresults == 1;
}

const ir_op *ir_scaled_dot(const ir_func *f, const ir_region *r, int v, int *axis)
{
	if (f->values[v].type.rank != 1)
		return NULL;
	const ir_op *ex = sole_reader(r, v);
	const ir_op *bc = ex && ex->code == IR_OP_EXPAND_DIMS ? sole_reader(r, ex->results[0]) : NULL;
	const ir_op *u = bc && bc->code == IR_OP_BROADCAST ? sole_reader(r, bc->results[0]) : NULL;
	if (!u || !scaling(u))
		return NULL;
	int x = u->args[0] == bc->results[0] ? u->args[1] : u->args[0];
	const ir_op *d = f->values[x].def;
	for (int n = 0; d && scaling(d) && n < 4; n++)
		d = f->values[d->args[0]].def;
	if (!d || d->code != IR_OP_DOT || f->values[d->results[0]].type.rank != 2)
		return NULL;
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i] == d) {
			*axis = ex->axis;
			return d;
		}
	return NULL;
}

bool ir_op_orders_memory(const ir_op *op)
{
	switch (op->code) {
	case IR_OP_STORE: case IR_OP_ATOMIC_RMW: case IR_OP_ATOMIC_CAS: case IR_OP_BARRIER: case IR_OP_GRID_DEP:
		return true;
	default:
		return false;
	}
}

int ir_region_add_param(ir_func *f, ir_region *r, ir_type type)
{
	int id = ir_value_new(f, type);
	if (id < 0)
		return -1;
	int *p = arena_realloc(f->arena, r->params, sizeof(int) * (size_t)r->nparams,
			       sizeof(int) * (size_t)(r->nparams + 1));
	if (!p)
		return -1;
	p[r->nparams++] = id;
	r->params = p;
	return id;
}

const char *ir_opcode_name(ir_opcode code)
{
	static const char *const names[] = {
#define IR_NAME_(name, text) text,
		IR_OPCODES(IR_NAME_)
#undef IR_NAME_
	};
	return code < IR_OP_COUNT ? names[code] : "?";
}

const char *ir_math_name(ir_math m)
{
	static const char *const names[IR_MATH_COUNT] = {
		"exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "abs", "floor", "ceil", "erf",
	};
	return m < IR_MATH_COUNT ? names[m] : "?";
}

const char *ir_cmp_name(ir_cmp c)
{
	static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
	return c <= IR_CMP_GE ? names[c] : "?";
}

const char *ir_reduce_name(ir_reduce r)
{
	static const char *const names[] = {"sum", "max", "min", "argmax", "argmin", "xor_sum"};
	return r <= IR_REDUCE_XOR_SUM ? names[r] : "?";
}

const char *ir_atomic_name(ir_atomic a)
{
	static const char *const names[] = {"add", "max", "min", "and", "or", "xor", "xchg"};
	return (unsigned)a < IR_ATOMIC_COUNT ? names[a] : "?";
}

const char *ir_sem_name(ir_sem m)
{
	static const char *const names[] = {"acq_rel", "relaxed", "acquire", "release"};
	return (unsigned)m < IR_SEM_COUNT ? names[m] : "?";
}

const char *ir_scope_name(ir_scope c)
{
	static const char *const names[] = {"gpu", "cta", "sys"};
	return (unsigned)c < IR_SCOPE_COUNT ? names[c] : "?";
}

static void dump_value(strbuf *sb, const ir_func *f, int id)
{
	sb_printf(sb, "%%%d", id);
	(void)f;
}

static void dump_region(strbuf *sb, const ir_func *f, const ir_region *r, int indent);

static void dump_attrs(strbuf *sb, const ir_func *f, const ir_op *op)
{
	ir_type rt = op->nresults ? f->values[op->results[0]].type : ir_scalar(IR_VOID);
	switch (op->code) {
	case IR_OP_CONST:
		if (ir_kind_is_float((ir_kind)rt.kind))
			sb_printf(sb, " %.17g", op->fval);
		else
			sb_printf(sb, " %lld", (long long)op->ival);
		break;
	case IR_OP_PROGRAM_ID:
	case IR_OP_NUM_PROGRAMS:
	case IR_OP_EXPAND_DIMS:
		sb_printf(sb, " axis=%d", op->axis);
		break;
	case IR_OP_ARANGE:
		sb_printf(sb, " %lld, %lld", (long long)op->ival, (long long)op->ival2);
		break;
	case IR_OP_BARRIER:
		if (op->ival)
			sb_puts(sb, " cluster");
		break;
	case IR_OP_PERMUTE:
		sb_puts(sb, " order=[");
		for (int i = 0; i < rt.rank; i++)
			sb_printf(sb, i ? ",%d" : "%d", (int)op->ints[i]);
		sb_putc(sb, ']');
		break;
	case IR_OP_CMP:
		sb_printf(sb, " %s", ir_cmp_name((ir_cmp)op->sub));
		break;
	case IR_OP_MATH:
		sb_printf(sb, " %s", ir_math_name((ir_math)op->sub));
		break;
	case IR_OP_EXTERN:
		sb_printf(sb, " @%s", op->name ? op->name : "?");
		break;
	case IR_OP_REDUCE:
		sb_printf(sb, " %s axis=%d", ir_reduce_name((ir_reduce)op->sub), op->axis);
		break;
	case IR_OP_SCAN:
		sb_printf(sb, " axis=%d%s", op->axis, op->ival ? " reverse" : "");
		break;
	case IR_OP_REDUCE_FN:
		sb_printf(sb, " axis=%d", op->axis);
		break;
	case IR_OP_FLIP:
		sb_printf(sb, " axis=%d xor=%lld", op->axis, (long long)op->ival);
		break;
	case IR_OP_GATHER:
		sb_printf(sb, " axis=%d", op->axis);
		break;
	case IR_OP_INLINE_ASM:
		sb_printf(sb, " pack=%lld%s constraints=\"%s\"", (long long)op->ival,
			  op->flags & IR_FLAG_VOLATILE ? " not_pure" : "", op->text ? op->text : "");
		break;
	case IR_OP_DEVICE_ASSERT:
	case IR_OP_DEVICE_PRINT:
		sb_printf(sb, " \"%s\"%s", op->name ? op->name : "", op->ival ? " hex" : "");
		break;
	case IR_OP_HISTOGRAM:
		sb_printf(sb, " bins=%lld", (long long)op->ival);
		break;
	case IR_OP_GRID_DEP:
		sb_puts(sb, op->sub ? " launch_dependents" : " wait");
		break;
	case IR_OP_DOT:
		sb_printf(sb, " precision=%s", op->sub == IR_PRECISION_IEEE ? "ieee" : op->sub == IR_PRECISION_TF32X3 ? "tf32x3" : "tf32");
		break;
	case IR_OP_ASYNC_WAIT:
		sb_printf(sb, " pending=%lld", (long long)op->ival);
		break;
	case IR_OP_TMA_COPY:
		sb_printf(sb, " map=%%%lld", (long long)op->ival);
		break;
	case IR_OP_LOAD:
	case IR_OP_STORE:
		if (op->flags & IR_FLAG_TENSORMAP)
			sb_printf(sb, " map=%%%lld", (long long)op->ival);
		break;
	case IR_OP_ATOMIC_RMW:
		sb_printf(sb, " %s", ir_atomic_name((ir_atomic)op->sub));
		/* fall through */
	case IR_OP_ATOMIC_CAS:
		sb_printf(sb, " sem=%s scope=%s", ir_sem_name((ir_sem)op->ival), ir_scope_name((ir_scope)op->ival2));
		break;
	case IR_OP_HINT: {
		static const char *const hints[] = {"multiple_of", "max_contiguous", "max_constancy"};
		ir_type at = f->values[op->args[0]].type;
		sb_printf(sb, " %s=[", op->sub >= 0 && op->sub <= 2 ? hints[op->sub] : "?");
		for (int i = 0; i < (at.rank ? at.rank : 1); i++)
			sb_printf(sb, i ? ",%d" : "%d", (int)op->ints[i]);
		sb_putc(sb, ']');
		break;
	}
	default:
		break;
	}
	if (op->flags & IR_FLAG_PRECISE)
		sb_puts(sb, " precise");
	if (op->flags & IR_FLAG_PROPAGATE_NAN)
		sb_puts(sb, " propagate_nan");
	if (op->flags & IR_FLAG_VOLATILE)
		sb_puts(sb, " volatile");
	if (op->flags & IR_FLAG_SPARE_TILE)
		sb_puts(sb, " spare_tile");
	if (op->flags & IR_FLAG_KEEP_A)
		sb_puts(sb, " keep_a");
	if (op->flags & IR_FLAG_WARP_SPECIALIZE)
		sb_puts(sb, " warp_specialize");
	if (op->flags & IR_FLAG_PRODUCER)
		sb_puts(sb, " producer");
	if (op->flags & IR_FLAG_SUNK)
		sb_puts(sb, " sunk");
	if (op->code == IR_OP_LOCAL_ALLOC && op->flags & IR_FLAG_TENSORMAP)
		sb_puts(sb, " tma");
}

static void dump_op(strbuf *sb, const ir_func *f, const ir_op *op, int indent)
{
	sb_printf(sb, "%*s", indent, "");
	for (int i = 0; i < op->nresults; i++) {
		if (i)
			sb_puts(sb, ", ");
		dump_value(sb, f, op->results[i]);
	}
	if (op->nresults)
		sb_puts(sb, " = ");
	sb_puts(sb, ir_opcode_name(op->code));
	dump_attrs(sb, f, op);
	for (int i = 0; i < op->nargs; i++) {
		sb_puts(sb, i ? ", " : " ");
		dump_value(sb, f, op->args[i]);
	}
	if (op->nresults) {
		sb_puts(sb, " : ");
		for (int i = 0; i < op->nresults; i++) {
			if (i)
				sb_puts(sb, ", ");
			ir_type_str(sb, f->values[op->results[i]].type);
		}
	}
	for (int r = 0; r < op->nregions; r++) {
		const ir_region *reg = &op->regions[r];
		sb_puts(sb, r ? " else" : "");
		sb_puts(sb, " {");
		if (reg->nparams) {
			sb_puts(sb, " (");
			for (int i = 0; i < reg->nparams; i++) {
				if (i)
					sb_puts(sb, ", ");
				dump_value(sb, f, reg->params[i]);
				sb_puts(sb, ": ");
				ir_type_str(sb, f->values[reg->params[i]].type);
			}
			sb_putc(sb, ')');
		}
		sb_putc(sb, '\n');
		dump_region(sb, f, reg, indent + 2);
		sb_printf(sb, "%*s}", indent, "");
	}
	sb_putc(sb, '\n');
}

static void dump_region(strbuf *sb, const ir_func *f, const ir_region *r, int indent)
{
	for (int i = 0; i < r->nops; i++)
		dump_op(sb, f, r->ops[i], indent);
}

const ir_desc_param *ir_param_desc(const ir_func *f, int i)
{
	for (int k = 0; k < f->ndescs; k++)
		if (f->descs[k].first == i)
			return &f->descs[k];
	return NULL;
}

const ir_desc_param *ir_tensormap_desc(const ir_func *f, int i)
{
	for (int k = 0; k < f->ndescs; k++)
		if (f->descs[k].tensormap && f->descs[k].first + 1 + 2 * f->descs[k].rank == i)
			return &f->descs[k];
	return NULL;
}

const ir_derived_map *ir_derived_map_at(const ir_func *f, int i)
{
	for (int k = 0; k < f->nmaps; k++)
		if (f->maps[k].param == i)
			return &f->maps[k];
	return NULL;
}

bool ir_tensormap_block(const ir_func *f, int i, ir_type *block)
{
	const ir_desc_param *dp = ir_tensormap_desc(f, i);
	const ir_derived_map *dm = dp ? NULL : ir_derived_map_at(f, i);
	if (dp)
		*block = ir_block(ir_scalar((ir_kind)f->params[dp->first].type.pointee), dp->rank, dp->block);
	else if (dm)
		*block = ir_block(ir_scalar((ir_kind)f->params[dm->base].type.pointee), dm->rank, dm->block);
	return dp || dm;
}

static void shift_ids(int *ids, int n, int from, int by)
{
	for (int i = 0; i < n; i++)
		if (ids[i] >= from)
			ids[i] += by;
}

static void shift_region(ir_region *r, int from, int by)
{
	shift_ids(r->params, r->nparams, from, by);
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		shift_ids(op->args, op->nargs, from, by);
		shift_ids(op->results, op->nresults, from, by);
		for (int j = 0; j < op->nregions; j++)
			shift_region(&op->regions[j], from, by);
	}
}

bool ir_append_params(ir_func *f, int n, const ir_param *params)
{
	int old = f->nparams;
	ir_param *p = arena_alloc(f->arena, sizeof(ir_param) * (size_t)(old + n + 1));
	if (!p)
		return false;
	memcpy(p, f->params, sizeof(ir_param) * (size_t)old);
	memcpy(p + old, params, sizeof(ir_param) * (size_t)n);
	for (int i = 0; i < n; i++)
		if (ir_value_new(f, ir_scalar(IR_VOID)) < 0)
			return false;
	/* ops hold value ids in their operands, results and region
	 * parameters only (a tensor map's id in ival is a parameter's) */
	memmove(&f->values[old + n], &f->values[old], sizeof(ir_value) * (size_t)(f->nvalues - n - old));
	for (int i = 0; i < n; i++) {
		memset(&f->values[old + i], 0, sizeof(ir_value));
		f->values[old + i].type = params[i].type;
		f->values[old + i].name = params[i].name;
	}
	shift_region(&f->body, old, n);
	f->params = p;
	f->nparams = old + n;
	return true;
}

int ir_tensormap_box(ir_kind elem, int rank, const int32_t *block, uint32_t *box)
{
	int e = elem == IR_I1 ? 0 : ir_kind_bytes(elem);
	if (!e || rank < 1 || rank > IR_MAX_RANK)
		return 0;
	int64_t inner = (int64_t)block[rank - 1] * e;
	int w = inner % 128 == 0 ? 128 : inner == 64 ? 64 : inner == 32 ? 32 : 0;
	if (!w)
		return 0;
	box[0] = (uint32_t)(w / e);
	for (int i = 1; i < rank; i++) {
		if (block[rank - 1 - i] > 256)
			return 0;
		box[i] = (uint32_t)block[rank - 1 - i];
	}
	return w;
}

void ir_dump(strbuf *sb, const ir_func *f)
{
	sb_printf(sb, "func @%s(", f->name);
	for (int i = 0; i < f->nparams; i++) {
		const ir_param *p = &f->params[i];
		if (i)
			sb_puts(sb, ", ");
		dump_value(sb, f, i);
		sb_puts(sb, ": ");
		ir_type_str(sb, p->type);
		if (p->div16)
			sb_puts(sb, " {div16}");
		if (p->div_by)
			sb_printf(sb, " {div%d}", p->div_by);
		if (p->equal_one)
			sb_puts(sb, " {==1}");
		if (p->tensormap)
			sb_puts(sb, " {tensormap}");
		if (p->name)
			sb_printf(sb, " \"%s\"", p->name);
		const ir_derived_map *dm = ir_derived_map_at(f, i);
		if (dm) {
			sb_printf(sb, " {derived from %%%d [", dm->base);
			for (int d = 0; d < dm->rank; d++)
				sb_printf(sb, "%s%d", d ? ", " : "", (int)dm->block[d]);
			sb_printf(sb, "] (%s)}", dm->values);
		}
		const ir_desc_param *dp = ir_param_desc(f, i);
		if (dp) {
			sb_printf(sb, " {tensordesc %s [", dp->name);
			for (int d = 0; d < dp->rank; d++)
				sb_printf(sb, "%s%d", d ? ", " : "", (int)dp->block[d]);
			sb_puts(sb, "]}");
		}
	}
	sb_printf(sb, ") num_warps=%d num_stages=%d", f->num_warps, f->num_stages);
	if (f->num_ctas > 1)
		sb_printf(sb, " num_ctas=%d", f->num_ctas);
	if (f->maxnreg)
		sb_printf(sb, " maxnreg=%d", f->maxnreg);
	for (int k = 0; k < 2; k++) {
		uint64_t bits = k ? f->restore_value : f->reset_to_zero;
		const char *sep = k ? " restore_value=[" : " reset_to_zero=[";
		for (int i = 0; i < f->nparams && i < 64; i++)
			if (bits >> i & 1) {
				sb_printf(sb, "%s%s", sep, f->params[i].name);
				sep = ",";
			}
		if (bits)
			sb_putc(sb, ']');
	}
	for (int i = 0; i < f->nconstexprs; i++) {
		const ir_constexpr *c = &f->constexprs[i];
		sb_printf(sb, i ? ", %s=" : " constexprs: %s=", c->name);
		switch (c->kind) {
		case IR_CONSTEXPR_INT: sb_printf(sb, "%lld", (long long)c->ival); break;
		case IR_CONSTEXPR_BOOL: sb_puts(sb, c->ival ? "True" : "False"); break;
		case IR_CONSTEXPR_FLOAT: sb_printf(sb, "%.17g", c->fval); break;
		case IR_CONSTEXPR_STRING: sb_printf(sb, "\"%s\"", c->sval ? c->sval : ""); break;
		case IR_CONSTEXPR_DTYPE: sb_puts(sb, ir_kind_name((ir_kind)c->ival)); break;
		}
	}
	sb_puts(sb, " {\n");
	dump_region(sb, f, &f->body, 2);
	sb_puts(sb, "}\n");
}

uint32_t ir_f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

float ir_f32_from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}
