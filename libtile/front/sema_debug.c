/* sema_debug.c - tl.device_assert / assert, tl.device_print / print and
 * tl.static_print.
 *
 * Triton emits device assertions only with TRITON_DEBUG set; tile emits
 * them, and device prints too, only in debug mode (fe_spec.debug, `tilec
 * compile --debug`), so that a kernel compiled as usual carries no trap or
 * printf code. In debug mode an assertion is a DEVICE_ASSERT op holding its
 * message (the GPU calls __assertfail where the condition is false, the
 * interpreter stops with the message) and a print a DEVICE_PRINT op holding
 * its prefix (vprintf on the GPU, the context's device output in the
 * interpreter). Constant assertions are checked at compile time in every
 * mode. tl.static_print reports its values as a note, which is when Triton
 * prints them: while compiling.
 */
#include "front/sema.h"

#include <string.h>

/* A constexpr string's bytes, or an error naming what it is for. */
static bool string_arg(sema *s, src_loc loc, sv v, const char *what, const char **out)
{
	if (v.kind == SV_NONE || v.kind == SV_UNDEF) {
		*out = "";
		return true;
	}
	if (v.kind != SV_STR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "%s must be a string literal, got %s", what, sema_sv_str(s, v));
	for (size_t i = 0; i < v.slen; i++)
		if ((unsigned char)v.s[i] < 0x20 || (unsigned char)v.s[i] > 0x7e)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "%s must be printable ASCII", what);
	*out = arena_printf(s->a, "%.*s", (int)v.slen, v.s);
	return *out != NULL || sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
}

bool sema_device_assert(sema *s, src_loc loc, sv cond, sv msg)
{
	const char *m;
	if (!string_arg(s, loc, msg, "the message of an assertion", &m))
		return false;
	if (cond.kind != SV_TENSOR) {
		bool t;
		if (!sema_truth(s, loc, cond, &t))
			return false;
		return t || sema_error(s, loc, TILEC_ERR_SEMANTIC, "assertion failed at compile time%s%s", *m ? ": " : "", m);
	}
	if (!s->debug)
		return true;
	int c = sema_cast(s, loc, cond.id, ir_scalar(IR_I1));
	if (c < 0)
		return false;
	ir_op *op = sema_emit(s, loc, IR_OP_DEVICE_ASSERT, 1, &c, ir_scalar(IR_VOID));
	if (!op)
		return false;
	op->name = m;
	return true;
}

bool sema_device_print(sema *s, src_loc loc, sv prefix, int n, const sv *args, bool hex)
{
	const char *p;
	if (!string_arg(s, loc, prefix, "the prefix of tl.device_print", &p))
		return false;
	int ids[16];
	if (n > 16)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "tl.device_print of more than 16 values is not supported");
	int shaped = -1;
	for (int i = 0; i < n; i++) {
		if ((ids[i] = sema_to_tensor(s, loc, args[i])) < 0)
			return false;
		ir_type t = sema_type(s, ids[i]);
		if (t.kind == IR_PTR || ir_kind_is_fp8((ir_kind)t.kind))
			return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "tl.device_print of %s is not supported",
					  sema_type_str(s, t));
		if (t.rank && shaped < 0)
			shaped = i;
	}
	/* blocks are printed element by element side by side: one shape */
	for (int i = 0; shaped >= 0 && i < n; i++)
		if (sema_type(s, ids[i]).rank && i != shaped && !sema_broadcast(s, loc, &ids[shaped], &ids[i]))
			return false;
	for (int i = 0; shaped >= 0 && i < n; i++)
		if (sema_type(s, ids[i]).rank && (ids[i] = sema_splat_to(s, loc, ids[i], sema_type(s, ids[shaped]))) < 0)
			return false;
	if (!s->debug)
		return true;
	ir_op *op = sema_emit(s, loc, IR_OP_DEVICE_PRINT, n, ids, ir_scalar(IR_VOID));
	if (!op)
		return false;
	op->name = p;
	op->ival = hex;
	return true;
}

bool sema_static_print(sema *s, src_loc loc, int n, const sv *args, sv sep)
{
	strbuf sb;
	sb_init(&sb);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_printf(&sb, "%.*s", sep.kind == SV_STR ? (int)sep.slen : 1, sep.kind == SV_STR ? sep.s : " ");
		if (args[i].kind == SV_STR)
			sb_printf(&sb, "%.*s", (int)args[i].slen, args[i].s);
		else
			sb_puts(&sb, sema_sv_str(s, args[i]));
	}
	diag_note(s->ctx, loc, "static_print: %s", sb_str(&sb));
	sb_free(&sb);
	return true;
}
