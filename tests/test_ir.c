/* test_ir.c - the IR builder, types and dump. */
#include "check.h"
#include "ir/ir.h"

int main(void)
{
	arena *a = arena_new();
	ir_param params[2] = {{"x_ptr", ir_ptr(IR_F32), true, false, false, 0}, {"n", ir_scalar(IR_I32), false, false, false, 0}};
	ir_func *f = ir_func_new(a, "k", 2, params);
	CHECK(f != NULL);
	ir_type i32 = ir_scalar(IR_I32);
	ir_op *pid = ir_op_new(f, IR_OP_PROGRAM_ID, (src_loc){0}, 0, NULL, 1, &i32, 0);
	CHECK(pid && ir_region_append(f, &f->body, pid));
	int32_t shape[1] = {128};
	ir_type blk = ir_block(i32, 1, shape);
	ir_op *ar = ir_op_new(f, IR_OP_ARANGE, (src_loc){0}, 0, NULL, 1, &blk, 0);
	ar->ival2 = 128;
	CHECK(ir_region_append(f, &f->body, ar));
	strbuf sb;
	sb_init(&sb);
	ir_dump(&sb, f);
	CHECK_STR_CONTAINS(sb_str(&sb), "func @k(%0: *fp32 {div16} \"x_ptr\", %1: i32 \"n\")");
	CHECK_STR_CONTAINS(sb_str(&sb), "%3 = arange 0, 128 : <128xi32>");
	sb_free(&sb);
	strbuf t;
	sb_init(&t);
	int32_t s2[2] = {64, 32};
	ir_type_str(&t, ir_block(ir_ptr(IR_BF16), 2, s2));
	CHECK(strcmp(sb_str(&t), "<64x32x*bf16>") == 0);
	sb_free(&t);
	ir_kind k;
	CHECK(ir_kind_from_name("bfloat16", 8, &k) && k == IR_BF16);
	CHECK(!ir_kind_from_name("fp8", 3, &k));
	arena_free(a);
	return check_report("test_ir");
}
