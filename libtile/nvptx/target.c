/* target.c - from an LLVM module to PTX and cubins.
 *
 * The NVPTX target machine is created per arch (CPU sm_XX, PTX ISA 8.0,
 * which every supported arch accepts). An arch newer than LLVM's NVPTX
 * back end knows (sm_100 and later for LLVM 19) gets the PTX of the
 * newest CPU it does know below it (sm_90), which ptxas assembles for
 * the real arch: PTX for .target sm_XY compiles to every sm_MN >= XY.
 * LLVM prints to stderr when given a CPU it does not know and the C API
 * has no query, so the CPUs come from a table of those every supported
 * LLVM (17 and later) knows at PTX ISA 8.0, and no other name reaches it.
 * From sm_89 on the PTX is ISA 8.4 where LLVM has it (19 and later), for
 * fp8's mma.sync and sm_89's fp8 cvt. libdevice is linked only into
 * modules that call __nv_* functions: the bitcode is read lazily, its
 * definitions made linkonce so that the linker brings in only the
 * functions the module reaches, then every definition that is not a
 * kernel made internal and the nvvm-reflect-ftz flag set, so that
 * default<O3> resolves __nvvm_reflect, inlines what is used and drops the
 * rest. The flag is 1 unless asked otherwise, as Triton links libdevice:
 * its functions then flush subnormal inputs and results to zero and run
 * the shorter paths (rsqrtf: one rsqrt.approx.ftz, without the rescaling
 * of subnormals). PTX comes from the back end as text; ptxas runs as a
 * child process with -v, whose report gives registers, spills and shared
 * memory. Nothing here prints; every failure is a diagnostic and a
 * status. The LLVM context of a compilation has a diagnostic handler
 * (target_context): without one, LLVM prints its diagnostics (a linker's,
 * a back end's) to stderr and exits the process on an error; with it they
 * become the compilation's diagnostics ("LLVM: ..."), errors failing the
 * compile.
 * compile_module calls these from several threads at once, each with
 * contexts and modules of its own; the one process-wide setup (targets,
 * the NVPTX options) is done once, by whichever thread comes first.
 */
#include "nvptx/nvptx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm/Config/llvm-config.h> /* LLVM_VERSION_MAJOR */
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm-c/Analysis.h>

extern char **environ;

#define TARGET_TRIPLE "nvptx64-nvidia-cuda"
#define PTX_KERNEL_CC 71

static const src_loc no_loc;

/* LLVM's targets and options are process-wide; they are set up once
 * (pthread_once: compile_module's threads may ask for target machines at
 * the same time), and nothing else in libtile sets LLVM options.
 * Triton compiles with floating-point op fusion (enable_fp_fusion): a*b+c
 * becomes fma and other f32 arithmetic is emitted without .rn, so ptxas
 * may fuse too. The C API reaches that setting only through the NVPTX
 * option, given its default value explicitly. Shared-memory pointers are
 * 32 bits wide (-nvptx-short-ptr, as in Triton's data layout): addresses
 * into shared memory take one register instead of two. Loop strength
 * reduction is off (-disable-lsr): in a pipelined loop it folds the
 * per-row pointers of the asynchronous copies into one base plus
 * loop-invariant offsets, so every address is recomputed at the top of
 * the loop and held through the dots until its copy is issued; with the
 * pointers kept as loop values ptxas has fewer live registers there and
 * the 4-warp matmuls ran 2-6% faster (docs/PERF.md). */
static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void llvm_init(void)
{
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
	const char *const args[] = {"tile", "-nvptx-fma-level=2", "-nvptx-short-ptr", "-disable-lsr"};
	LLVMParseCommandLineOptions(4, args, NULL);
}

static void llvm_diagnostic(LLVMDiagnosticInfoRef info, void *opaque)
{
	target_diag *d = opaque;
	char *msg = LLVMGetDiagInfoDescription(info);
	switch (LLVMGetDiagInfoSeverity(info)) {
	case LLVMDSError:
		diag_error(d->ctx, no_loc, "LLVM: %s", msg ? msg : "error");
		d->errors++;
		break;
	case LLVMDSWarning:
		diag_warning(d->ctx, no_loc, "LLVM: %s", msg ? msg : "warning");
		break;
	default: /* remarks and notes: optimization chatter */
		break;
	}
	LLVMDisposeMessage(msg);
}

LLVMContextRef target_context(target_diag *d)
{
	/* before the context: the options are set before any thread's LLVM reads them */
	pthread_once(&llvm_once, llvm_init);
	LLVMContextRef c = LLVMContextCreate();
	if (c)
		LLVMContextSetDiagnosticHandler(c, llvm_diagnostic, d);
	return c;
}

const char *target_name(int target, char *buf, size_t n)
{
	snprintf(buf, n, "sm_%d%s", TARGET_ARCH(target), target & TARGET_ARCH_SPECIFIC ? "a" : "");
	return buf;
}

dot_unit target_dot_unit(int target)
{
	if (TARGET_ARCH(target) < 80)
		return DOT_UNIT_FMA;
	return target == (90 | TARGET_ARCH_SPECIFIC) ? DOT_UNIT_WGMMA : DOT_UNIT_MMA;
}

int target_llvm_cpu(int target)
{
	static const short known[] = {20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};
	if (target == (90 | TARGET_ARCH_SPECIFIC))
		return target;
	int best = known[0];
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (known[i] <= TARGET_ARCH(target))
			best = known[i];
	return best;
}

/* fp8's mma.sync needs PTX ISA 8.4 (sm_89's fp8 cvt 8.1); LLVM has it from
 * 19 on. With an older LLVM the PTX stays 8.0 and ptxas refuses those
 * instructions, naming the ISA they need. */
static const char *ptx_feature(int cpu)
{
#if LLVM_VERSION_MAJOR >= 19
	return TARGET_ARCH(cpu) >= 89 ? "+ptx84" : "+ptx80";
#else
	(void)cpu;
	return "+ptx80";
#endif
}

tilec_status target_machine(tilec_ctx *ctx, int arch, LLVMTargetMachineRef *out)
{
	pthread_once(&llvm_once, llvm_init);
	LLVMTargetRef t;
	char *err = NULL;
	if (LLVMGetTargetFromTriple(TARGET_TRIPLE, &t, &err)) {
		diag_error(ctx, no_loc, "LLVM has no NVPTX target: %s", err ? err : "?");
		LLVMDisposeMessage(err);
		return TILEC_ERR_LLVM;
	}
	if (TARGET_ARCH(arch) < 20 || TARGET_ARCH(arch) > 999 || (arch & ~(TARGET_ARCH_SPECIFIC | 1023))) {
		diag_error(ctx, no_loc, "invalid GPU architecture %d", arch);
		return TILEC_ERR_INVALID;
	}
	char cpu[16];
	target_name(target_llvm_cpu(arch), cpu, sizeof cpu);
	*out = LLVMCreateTargetMachine(t, TARGET_TRIPLE, cpu, ptx_feature(target_llvm_cpu(arch)),
				       LLVMCodeGenLevelAggressive,
				       LLVMRelocDefault, LLVMCodeModelDefault);
	if (!*out) {
		diag_error(ctx, no_loc, "LLVM cannot create a target machine for %s", cpu);
		return TILEC_ERR_LLVM;
	}
	return TILEC_OK;
}

static bool file_exists(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool executable(const char *p)
{
	return file_exists(p) && access(p, X_OK) == 0;
}

uint32_t target_smem_per_sm(int arch)
{
	switch (TARGET_ARCH(arch)) {
	case 80: case 87: return 164u << 10;
	case 86: case 89: case 120: case 121: return 100u << 10;
	default: return TARGET_ARCH(arch) >= 90 ? 228u << 10 : 0;
	}
}

uint32_t target_smem_limit(int arch)
{
	switch (TARGET_ARCH(arch)) {
	case 70: case 72: return 96u << 10;
	case 75: return 64u << 10;
	case 80: case 87: return 163u << 10; /* Orin's SMs are A100's */
	case 86: case 89: case 120: case 121: return 99u << 10;
	default: return TARGET_ARCH(arch) >= 90 ? 227u << 10 : 48u << 10;
	}
}

const char *target_find_ptxas(arena *a, const char *explicit_path)
{
	if (explicit_path)
		return executable(explicit_path) ? explicit_path : NULL;
	const char *env = getenv("TILE_PTXAS");
	if (env && *env)
		return executable(env) ? env : NULL;
	const char *cuda = getenv("CUDA_HOME");
	if (cuda && *cuda) {
		char *p = arena_printf(a, "%s/bin/ptxas", cuda);
		if (executable(p))
			return p;
	}
	if (executable("/usr/local/cuda/bin/ptxas"))
		return "/usr/local/cuda/bin/ptxas";
	const char *path = getenv("PATH");
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (n) {
			char *p = arena_printf(a, "%.*s/ptxas", (int)n, path);
			if (executable(p))
				return p;
		}
		path = end ? end + 1 : NULL;
	}
	return NULL;
}

/* libdevice sits in nvvm/libdevice of a CUDA installation; ptxas's own
 * installation is a good guess when none is named. */
static char *find_libdevice(arena *a, const char *ptxas)
{
	const char *env = getenv("TILE_LIBDEVICE");
	if (env && *env)
		return file_exists(env) ? arena_strdup(a, env) : NULL;
	const char *rel = "nvvm/libdevice/libdevice.10.bc";
	const char *cuda = getenv("CUDA_HOME");
	char *p;
	if (cuda && *cuda && file_exists(p = arena_printf(a, "%s/%s", cuda, rel)))
		return p;
	if (file_exists(p = arena_printf(a, "/usr/local/cuda/%s", rel)))
		return p;
	if (ptxas) {
		const char *slash = strrchr(ptxas, '/');
		if (slash && file_exists(p = arena_printf(a, "%.*s/../%s", (int)(slash - ptxas), ptxas, rel)))
			return p;
	}
	return NULL;
}

tilec_status target_link_libdevice(tilec_ctx *ctx, LLVMModuleRef m, const char *ptxas, bool flush_subnormals)
{
	arena *a = arena_new();
	if (!a)
		return TILEC_ERR_NOMEM;
	char *path = find_libdevice(a, ptxas);
	if (!path) {
		diag_error(ctx, no_loc, "libdevice.10.bc not found (set TILE_LIBDEVICE or CUDA_HOME): "
			   "the kernel calls libdevice math functions");
		arena_free(a);
		return TILEC_ERR_IO;
	}
	LLVMMemoryBufferRef buf;
	char *err = NULL;
	if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &err)) {
		diag_error(ctx, no_loc, "cannot read %s: %s", path, err ? err : "?");
		LLVMDisposeMessage(err);
		arena_free(a);
		return TILEC_ERR_IO;
	}
	/* Lazily read (the module owns buf from here), with every definition
	 * linkonce: the linker then materializes only what m references. */
	LLVMModuleRef lib;
	if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(m), buf, &lib)) {
		LLVMDisposeMemoryBuffer(buf);
		diag_error(ctx, no_loc, "%s is not valid LLVM bitcode", path);
		arena_free(a);
		return TILEC_ERR_LLVM;
	}
	arena_free(a);
	LLVMSetTarget(lib, LLVMGetTarget(m));
	LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
	for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn))
		if (LLVMGetLinkage(fn) == LLVMExternalLinkage && !LLVMIsDeclaration(fn))
			LLVMSetLinkage(fn, LLVMLinkOnceODRLinkage);
	if (LLVMLinkModules2(m, lib)) {
		diag_error(ctx, no_loc, "linking libdevice failed");
		return TILEC_ERR_LLVM;
	}
	tilec_status st = TILEC_OK;
	for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
		size_t len;
		const char *name = LLVMGetValueName2(fn, &len);
		if (!LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) != PTX_KERNEL_CC)
			LLVMSetLinkage(fn, LLVMInternalLinkage);
		else if (LLVMIsDeclaration(fn) && len > 5 && !strncmp(name, "__nv_", 5) && LLVMGetFirstUse(fn)) {
			diag_error(ctx, no_loc, "libdevice has no function '%.*s'", (int)len, name);
			st = TILEC_ERR_UNSUPPORTED;
		}
	}
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g))
			LLVMSetLinkage(g, LLVMInternalLinkage);
	LLVMContextRef c = LLVMGetModuleContext(m);
	LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", strlen("nvvm-reflect-ftz"),
			  LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), flush_subnormals, false)));
	return st;
}

static bool is_barrier(LLVMValueRef inst)
{
	if (!inst || !LLVMIsACallInst(inst))
		return false;
	size_t len;
	const char *callee = LLVMGetValueName2(LLVMGetCalledValue(inst), &len);
	return len == strlen("llvm.nvvm.barrier0") && !memcmp(callee, "llvm.nvvm.barrier0", len);
}

/* A barrier right after another orders nothing more. Lowering asks for
 * one wherever shared memory changes hands (a ring's set-up, a TMA store's
 * staging after the wait for the previous box), and after the optimizer
 * has merged blocks two may meet; LLVM keeps both (they are convergent). */
static void drop_repeated_barriers(LLVMModuleRef m)
{
	for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;) {
				LLVMValueRef next = LLVMGetNextInstruction(i);
				if (is_barrier(i) && is_barrier(LLVMGetPreviousInstruction(i)))
					LLVMInstructionEraseFromParent(i);
				i = next;
			}
}

tilec_status target_verify(tilec_ctx *ctx, LLVMModuleRef m)
{
	char *msg = NULL;
	if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
		diag_error(ctx, no_loc, "LLVM verifier: %s", msg ? msg : "invalid module");
		LLVMDisposeMessage(msg);
		return TILEC_ERR_LLVM;
	}
	LLVMDisposeMessage(msg);
	return TILEC_OK;
}

tilec_status target_optimize(tilec_ctx *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm)
{
	tilec_status st = target_verify(ctx, m);
	if (st)
		return st;
	LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
	LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", tm, opts);
	LLVMDisposePassBuilderOptions(opts);
	if (e) {
		char *s = LLVMGetErrorMessage(e);
		diag_error(ctx, no_loc, "LLVM optimizer: %s", s);
		LLVMDisposeErrorMessage(s);
		return TILEC_ERR_LLVM;
	}
	drop_repeated_barriers(m);
	return TILEC_OK;
}

tilec_status target_emit_ptx(tilec_ctx *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, char **out, size_t *len)
{
	LLVMMemoryBufferRef buf;
	char *err = NULL;
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &err, &buf)) {
		diag_error(ctx, no_loc, "LLVM NVPTX back end: %s", err ? err : "failed");
		LLVMDisposeMessage(err);
		return TILEC_ERR_LLVM;
	}
	size_t n = LLVMGetBufferSize(buf);
	const char *s = LLVMGetBufferStart(buf);
	while (n && s[n - 1] == '\0')
		n--;
	*out = malloc(n + 1);
	if (!*out) {
		LLVMDisposeMemoryBuffer(buf);
		return TILEC_ERR_NOMEM;
	}
	memcpy(*out, s, n);
	(*out)[n] = '\0';
	*len = n;
	LLVMDisposeMemoryBuffer(buf);
	return TILEC_OK;
}

static bool write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

tilec_status target_ptxas(tilec_ctx *ctx, const char *ptxas, const char *ptx, int arch,
			  uint8_t **cubin, size_t *size, strbuf *log)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	char in[4096], outp[4096], logp[4096];
	snprintf(in, sizeof in, "%s/tile-XXXXXX.ptx", tmp);
	int fd = mkostemps(in, 4, O_CLOEXEC); /* not inherited by another thread's ptxas */
	if (fd < 0) {
		diag_error(ctx, no_loc, "cannot create a temporary file in %s: %s", tmp, strerror(errno));
		return TILEC_ERR_IO;
	}
	bool wrote = write_all(fd, ptx, strlen(ptx));
	close(fd);
	snprintf(outp, sizeof outp, "%.4080s.cubin", in);
	snprintf(logp, sizeof logp, "%.4080s.log", in);
	tilec_status st = TILEC_OK;
	if (!wrote) {
		diag_error(ctx, no_loc, "cannot write %s", in);
		st = TILEC_ERR_IO;
		goto done;
	}
	char name[16], archarg[32];
	snprintf(archarg, sizeof archarg, "-arch=%s", target_name(arch, name, sizeof name));
	char *argv[] = {(char *)ptxas, (char *)"-v", archarg, in, (char *)"-o", outp, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int rc = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		diag_error(ctx, no_loc, "cannot run %s: %s", ptxas, strerror(rc));
		st = TILEC_ERR_PTXAS;
		goto done;
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	uint8_t *text = NULL;
	size_t tlen = 0;
	if (file_read(logp, &text, &tlen) == FILE_READ_OK) {
		sb_putn(log, (const char *)text, tlen);
		free(text);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		diag_error(ctx, no_loc, "ptxas failed for %s (%s %d):\n%s", name,
			   WIFEXITED(status) ? "exit status" : "signal",
			   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), sb_str(log));
		if (TARGET_ARCH(arch) == 101)
			diag_note(ctx, no_loc, "CUDA 13 renamed sm_101 (Jetson Thor) to sm_110: use sm_110 with its ptxas");
		st = TILEC_ERR_PTXAS;
		goto done;
	}
	if (file_read(outp, cubin, size) != FILE_READ_OK) {
		diag_error(ctx, no_loc, "ptxas wrote no cubin for %s", name);
		st = TILEC_ERR_PTXAS;
	}
done:
	unlink(in);
	unlink(outp);
	unlink(logp);
	return st;
}

/* The number before `what` on the same line, or -1. */
static long number_before(const char *line, const char *end, const char *what)
{
	size_t wl = strlen(what);
	for (const char *p = line; p + wl <= end; p++) {
		if (memcmp(p, what, wl) != 0)
			continue;
		const char *q = p;
		while (q > line && q[-1] == ' ')
			q--;
		const char *d = q;
		while (d > line && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d == q)
			return -1;
		long n = strtol(d, NULL, 10); /* saturates: the writer refuses what cannot be true */
		return n > INT_MAX ? INT_MAX : n;
	}
	return -1;
}

bool target_ptxas_info(const char *log, const char *symbol, compile_kernel_info *info)
{
	char head[512];
	snprintf(head, sizeof head, "Compiling entry function '%s'", symbol);
	const char *p = strstr(log, head);
	if (!p)
		return false;
	info->n_regs = 0;
	info->spill_stores = info->spill_loads = 0;
	info->shared_static = 0;
	info->spills_known = false;
	/* The entry's report runs until the next "Compiling" line. */
	p = strchr(p, '\n');
	while (p && *++p) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (memmem(p, (size_t)(end - p), "Compiling", 9))
			break;
		long v;
		if ((v = number_before(p, end, "registers")) >= 0)
			info->n_regs = (int)v;
		if ((v = number_before(p, end, "bytes spill stores")) >= 0) {
			info->spill_stores = (uint32_t)v;
			info->spills_known = true;
		}
		if ((v = number_before(p, end, "bytes spill loads")) >= 0)
			info->spill_loads = (uint32_t)v;
		if ((v = number_before(p, end, "bytes smem")) >= 0)
			info->shared_static = (uint32_t)v;
		p = *end ? end : NULL;
	}
	return true;
}
