/* test_llvm_diag.c - LLVM's own diagnostics become tilec diagnostics.
 *
 * Without a handler, LLVM prints a diagnostic to stderr and, for an error,
 * exits the process. A context from target_context must instead leave the
 * message in the compilation's diagnostics and count the error: linking
 * two modules that both define a function is an error LLVM reports that
 * way (this program would exit with status 1 and no result line
 * otherwise). stderr is redirected to a file to check that LLVM printed
 * nothing. */
#include "check.h"
#include "nvptx/nvptx.h"

#include <stdlib.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>

static LLVMModuleRef module_defining(LLVMContextRef c, const char *module, const char *fn)
{
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext(module, c);
	LLVMTypeRef ty = LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 0);
	LLVMValueRef f = LLVMAddFunction(m, fn, ty);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return m;
}

int main(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	target_diag d = {ctx, 0};
	char path[] = "/tmp/tile_llvm_diag_XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	LLVMContextRef c = target_context(&d);
	CHECK(c != NULL && fd >= 0 && saved >= 0);
	if (!c || fd < 0 || saved < 0)
		return check_report("test_llvm_diag");
	fflush(stderr);
	dup2(fd, 2);
	LLVMModuleRef a = module_defining(c, "a", "twice"), b = module_defining(c, "b", "twice");
	int failed = LLVMLinkModules2(a, b); /* consumes b */
	fflush(stderr);
	dup2(saved, 2);
	CHECK(failed);
	CHECK_EQ_INT(d.errors, 1);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "error: LLVM: ");
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "twice");
	CHECK_EQ_INT(lseek(fd, 0, SEEK_END), 0); /* nothing on stderr */
	/* a module that links cleanly adds nothing */
	LLVMModuleRef e = module_defining(c, "e", "other");
	CHECK(!LLVMLinkModules2(a, e));
	CHECK_EQ_INT(d.errors, 1);
	LLVMDisposeModule(a);
	LLVMContextDispose(c);
	close(fd);
	unlink(path);
	close(saved);
	tilec_ctx_free(ctx);
	return check_report("test_llvm_diag");
}
