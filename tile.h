/* tile.h - load and launch tile blobs (kernels compiled by tilec).
 *
 * Generated from loader/ by loader/amalgamate.sh: edit those files, then run
 * ./build.sh header. Single-header library: include it anywhere for the
 * declarations; in exactly one C or C++ file, first
 *     #define TILE_IMPLEMENTATION
 * for the implementation. Options (define before including):
 *     TILE_STATIC            private (static) functions
 *     TILE_MALLOC(size), TILE_FREE(ptr)
 *     TILE_USE_ZLIB          inflate with zlib (link -lz) instead of the built-in decoder
 *     TILE_LIBCUDA_NAME      the CUDA driver library to dlopen ("libcuda.so.1", then "libcuda.so")
 *     TILE_INITIAL_CONTEXTS  context slots a module starts with (4; the table grows)
 *     TILE_DEBUG             detect a launch racing with tile_module_destroy
 * Needs POSIX (dlopen, pthreads: link -ldl -lpthread on older glibc).
 */
/* api.h - the public declarations of tile.h (first part of the amalgamation). */
#ifndef TILE_H
#define TILE_H

#include <stddef.h>
#include <stdint.h>

#ifndef TILEDEF
#ifdef TILE_STATIC
/* A program uses only some of the functions: no unused-function warnings. */
#if defined(__GNUC__)
#define TILEDEF static __attribute__((unused))
#else
#define TILEDEF static
#endif
#else
#define TILEDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The blob format versions this header reads (docs/FORMAT.md): the newest
 * and the oldest; generated .c files check at compile time that their
 * blob's lies between. */
#define TILE_BLOB_VERSION 6
#define TILE_BLOB_VERSION_MIN 5

/* Fixed values: they are part of the ABI. */
typedef enum tile_status {
	TILE_SUCCESS = 0,
	TILE_ERROR_INVALID_ARGUMENT = 1, /* NULL pointer, bad index, wrong argument count */
	TILE_ERROR_OUT_OF_MEMORY = 2,
	TILE_ERROR_BAD_BLOB = 3,         /* failed validation: the detail names the field */
	TILE_ERROR_VERSION = 4,          /* a blob format version this loader does not know */
	TILE_ERROR_CHECKSUM = 5,
	TILE_ERROR_INFLATE = 6,          /* a corrupt compressed image */
	TILE_ERROR_NO_DRIVER = 7,        /* libcuda could not be opened */
	TILE_ERROR_DRIVER_SYMBOL = 8,    /* a driver entry point is missing */
	TILE_ERROR_CUDA = 9,             /* a driver call failed: the detail names the call and error */
	TILE_ERROR_NO_IMAGE = 10,        /* no cubin or PTX usable on the device */
	TILE_ERROR_JIT = 11,             /* the driver's PTX JIT failed: the detail holds its log */
	TILE_ERROR_GRID = 12,            /* grid program error: overflow, division by zero, limits */
	TILE_ERROR_NO_VARIANT = 13,      /* no variant's predicates hold for the arguments */
	TILE_ERROR_NOT_FOUND = 14,       /* no kernel of that name */
	TILE_ERROR_CAPTURING = 15,       /* a first load would happen while the stream is being captured */
	TILE_ERROR_DESTROYED = 16        /* TILE_DEBUG: the module was used while (or after) being destroyed */
} tile_status;

typedef unsigned long long tile_deviceptr; /* CUdeviceptr */
typedef struct CUstream_st *tile_stream;    /* CUstream; NULL is the default stream */
typedef struct tile_module tile_module;

/* Storage for a module created on first use, thread-safe; zero-initialize it
 * (static storage does). Generated code keeps one per blob. */
typedef struct tile_lazy_module {
	tile_module *volatile module;
	volatile int state;
} tile_lazy_module;

/* Validates the whole blob (nothing reaches the driver before that) and
 * creates a module. The blob must outlive the module; it is not copied. */
TILEDEF tile_status tile_module_create(const void *blob, size_t size, tile_module **out);
/* Unloads the module from every context it was loaded into (that is still
 * alive) and frees it. Contract: no other thread may be using the module,
 * neither launching nor loading, and none may start to: a launch racing
 * with destroy reads freed memory. Built with TILE_DEBUG, the loader
 * detects it instead: destroy waits for launches in progress, and a launch
 * that starts during or after destroy returns TILE_ERROR_DESTROYED (the
 * module's memory is then kept, as a tombstone, for the process's life). */
TILEDEF void tile_module_destroy(tile_module *module);
/* Creates the module on first call (once, whatever the number of threads). */
TILEDEF tile_status tile_lazy_get(tile_lazy_module *lazy, const void *blob, size_t size, tile_module **out);
/* Destroys the module; the next tile_lazy_get creates it again. Like
 * tile_module_destroy, only while no other thread uses it. */
TILEDEF void tile_lazy_release(tile_lazy_module *lazy);

/* Loads the module into the current context now (or the primary context of
 * the thread's device, tile_set_device, when the thread has none) instead
 * of at the first launch: every kernel and variant, so that no later launch
 * in that context touches anything but cuLaunchKernel. Call it before
 * capturing launches into a CUDA graph: a launch whose first load would
 * happen while its stream is being captured returns TILE_ERROR_CAPTURING
 * (loading a module is not allowed during capture). */
TILEDEF tile_status tile_module_load(tile_module *module);

/* The device (ordinal) whose primary context this thread's launches use
 * when the thread has no current context, or when its current context is
 * a primary context the loader itself made current. Default 0. The module
 * retains each primary context it uses once and releases it on destroy.
 * Threads that manage their own contexts (cuCtxSetCurrent) are unaffected.
 * TILE_ERROR_INVALID_ARGUMENT for a negative ordinal; an ordinal past the
 * devices fails at the next launch, with the driver's error. */
TILEDEF tile_status tile_set_device(int device);
TILEDEF int tile_get_device(void);

TILEDEF int tile_kernel_count(const tile_module *module);
/* Index of the kernel with that name, or -1. */
TILEDEF int tile_kernel_index(const tile_module *module, const char *name);

/* Launches kernel `kernel` of the module. `args` holds one pointer per
 * visible parameter, pointing at its value (as cuLaunchKernel's
 * kernelParams); `nargs` must equal the kernel's visible parameter count.
 * A tensor-map parameter (kind 4, which follows a descriptor's strides in
 * kernels built for sm_90 and newer) takes a pointer to the tile_tensordesc itself:
 * the loader encodes the 128-byte TMA map from it (cuTensorMapEncodeTiled,
 * the rule of docs/FORMAT.md; cached per context while the descriptor
 * stays the same) when the image loaded for the context reads maps, and
 * passes zeros otherwise; `args` is not written. A descriptor the rule
 * cannot encode is TILE_ERROR_INVALID_ARGUMENT, a driver without
 * cuTensorMapEncodeTiled (older than CUDA 12.0) TILE_ERROR_DRIVER_SYMBOL,
 * a failing encode TILE_ERROR_CUDA, each naming the parameter.
 * A hidden tensor-map parameter (a device-side descriptor's map, which the
 * caller does not pass) is built the same way from the selected variant's
 * recipe: the descriptor of a pointer argument, with the shape and strides
 * its program computes from the arguments; one that breaks Triton's
 * descriptor rules (16-byte aligned base, shapes in [0, 2^31), strides
 * multiples of 16 bytes) is TILE_ERROR_INVALID_ARGUMENT, a program that
 * overflows TILE_ERROR_GRID, each naming the kernel and the map.
 * `grid` NULL runs the selected variant's grid program; otherwise it is the
 * grid (x, y, z). An empty grid is a successful no-op. */
TILEDEF tile_status tile_launch(tile_module *module, int kernel, const uint32_t *grid,
				tile_stream stream, void **args, int nargs);

/* tile_launch_ex's flags. TILE_LAUNCH_PDL: programmatic dependent launch
 * (CUDA's programmatic stream serialization): the kernel may start while
 * the kernel before it in the stream is still running, and waits for it
 * where it calls tl.extra.cuda.gdc_wait() (which that kernel may allow
 * earlier with gdc_launch_dependents()); a kernel that reads what the one
 * before writes must call gdc_wait() before it does. Compute capability
 * 9.0 on; on older devices the launch is an ordinary one (which is what
 * gdc_wait assumes there). */
#define TILE_LAUNCH_PDL 1u
/* TILE_LAUNCH_COOPERATIVE: a cooperative launch (CUDA's
 * cuLaunchCooperativeKernel): every program of the grid is resident at
 * once, so programs may wait for one another (a grid-wide barrier built
 * from atomics); a grid larger than the GPU holds at once fails with the
 * driver's CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE instead of hanging. */
#define TILE_LAUNCH_COOPERATIVE 2u
/* tile_launch_config with flags (TILE_LAUNCH_*; unknown bits are
 * TILE_ERROR_INVALID_ARGUMENT). */
TILEDEF tile_status tile_launch_ex(tile_module *module, int kernel, int config, const uint32_t *grid, tile_stream stream,
				   void **args, int nargs, unsigned flags);

/* Autotuned kernels (docs/TUNING.md). A kernel compiled with its
 * @triton.autotune configs has tile_config_count() > 1; tile_launch picks
 * the config from the kernel's tuning table (a runtime table set by
 * tile_tuning_apply, else the blob's): the entry whose key values equal the
 * arguments named by the autotune key, else the nearest entry (the same
 * divisibility by 16, 8 and 4 on the key parameters with such variants
 * first, then the least distance in octaves), else the default config.
 * Without lock or allocation. tile_launch_config launches config `config`
 * instead (-1: as tile_launch). */
TILEDEF tile_status tile_launch_config(tile_module *module, int kernel, int config, const uint32_t *grid,
				       tile_stream stream, void **args, int nargs);
TILEDEF int tile_config_count(const tile_module *module, int kernel); /* -1: no such kernel */
/* The config tile_launch would run for these arguments (-1 when the kernel
 * or an argument is missing). */
TILEDEF int tile_dispatch_config(const tile_module *module, int kernel, void **args, int nargs);

#define TILE_TUNING_MAX_KEYS 8
typedef struct tile_tuning_info {
	int n_keys;
	int key_params[TILE_TUNING_MAX_KEYS]; /* visible parameter indices */
	int n_entries;
	int default_config;
	int runtime;                         /* 1: a table from tile_tuning_apply; 0: the blob's */
} tile_tuning_info;
/* The table tile_launch dispatches through, and its entries in key order
 * (keys: n_keys values). */
TILEDEF tile_status tile_tuning_get_info(const tile_module *module, int kernel, tile_tuning_info *out);
TILEDEF tile_status tile_tuning_get_entry(const tile_module *module, int kernel, int entry, int64_t *keys, int *config);
/* Heuristics evaluated at launch: @triton.heuristics entries that read
 * runtime arguments. Each computes a constexpr from the arguments and the
 * config's constexprs; tilec compiled the variants for its values (True
 * and False) and a launch takes the variant whose value it computes. The
 * program is FORMAT.md's bytecode (one result). */
typedef struct tile_heuristic_info {
	const char *name;         /* the constexpr it computes */
	const uint8_t *program;
	uint32_t program_size;
} tile_heuristic_info;
TILEDEF int tile_heuristic_count(const tile_module *module, int kernel); /* -1: no such kernel */
TILEDEF tile_status tile_heuristic_get_info(const tile_module *module, int kernel, int index, tile_heuristic_info *out);

/* The identity of kernel `kernel` as this blob compiled it (0: no such
 * kernel): a 64-bit FNV-1a hash of its name, its parameters (name, kind,
 * size, dtype, flags), its config count, its heuristics' names and, per
 * variant in order, its config, source config, num_warps, num_stages,
 * cluster, predicates and constexprs (name, kind, value) - docs/TUNING.md
 * lists the bytes. Not hashed: the tuning table, images, symbols and
 * resources. tile-tune writes it on each kernel line of a tuning file;
 * tile_tuning_apply and `tilec compile --tuning` refuse a line whose
 * identity differs: its times were measured on other variants. */
TILEDEF uint64_t tile_kernel_identity(const tile_module *module, int kernel);

/* The tuning file version this header reads and tile-tune writes
 * ("tile-tuning 2": kernel lines carry the kernel's identity). */
#define TILE_TUNING_VERSION 2

/* Reads a tuning file (the text tile-tune writes, docs/TUNING.md) and
 * makes its tables the kernels' runtime tables, replacing the blob's. All
 * or nothing: a file of another version (a version 1 file records no
 * identity), naming an unknown kernel or parameter, a config count other
 * than the blob's, an identity other than the kernel's (a file tuned for
 * another blob), a config out of range or a key twice is refused with the
 * line in the detail. Call it while no other thread launches the module's
 * kernels. len 0: strlen(text). */
TILEDEF tile_status tile_tuning_apply(tile_module *module, const char *text, size_t len);

/* A host-side tensor descriptor, Triton's TensorDescriptor: the argument of
 * a kernel parameter declared `tensordesc<DTYPE[B0, B1, ...]>`. The kernel
 * reads and writes blocks of block_shape elements of the rank-dimensional
 * tensor at base; elements outside shape read as zero and are not written.
 * Strides count elements. As Triton asserts: 1 <= rank <= 5 (tile compiles
 * up to 4), base 16-byte aligned, strides[rank - 1] == 1, the other strides
 * multiples of 16 bytes, block_shape the one the kernel was compiled for;
 * tile also needs 0 <= shape[i] < 2^31 (the kernel computes bounds in
 * int32, as Triton does). Entries past rank are ignored. A tensor map for
 * TMA (cuTensorMapEncodeTiled) is built from exactly these fields: kernels
 * that read the descriptor with TMA get one at launch (tile_launch). */
#define TILE_TENSORDESC_MAX_RANK 5
typedef struct tile_tensordesc {
	tile_deviceptr base;
	int32_t rank;
	int64_t shape[TILE_TENSORDESC_MAX_RANK];
	int64_t strides[TILE_TENSORDESC_MAX_RANK];
	int32_t block_shape[TILE_TENSORDESC_MAX_RANK];
} tile_tensordesc;

/* Checks a descriptor against a kernel parameter compiled for `rank`
 * dimensions, elements of elem_bytes and block_shape: every rule above.
 * TILE_ERROR_INVALID_ARGUMENT, the detail naming `param` and the field,
 * when one fails. Generated launch functions call it before launching. */
TILEDEF tile_status tile_tensordesc_check(const tile_tensordesc *desc, const char *param, int rank, int elem_bytes,
					  const int32_t *block_shape);

/* Introspection (no driver needed): what tilec inspect and tools print. */
typedef struct tile_variant_info {
	const char *symbol;      /* entry point in the image */
	int group;               /* module (image group) holding it */
	int num_warps, num_stages;
	uint32_t shared_static, shared_dynamic;
	uint16_t cluster[3];
	int n_regs;              /* 0: unknown */
	int spill_stores, spill_loads; /* bytes per thread; -1: unknown */
	/* Bit i: visible parameter i divisible by 16, equal to 1, divisible by
	 * 8, by 4 (a parameter has at most one predicate), for parameters 0..31;
	 * n_high_preds more on parameters from 32 on, which tile_variant_predicate
	 * reads (it reads any parameter's). */
	uint32_t pred_div16, pred_eq1;
	uint32_t pred_div8, pred_div4;
	int n_constexprs;
	int has_grid_program;
	int config;              /* the kernel's autotune config it belongs to (0 when not autotuned) */
	int source_config;       /* that config's index in the source's @triton.autotune list; -1: none */
	int n_recipes;           /* hidden tensor maps built at launch (tile_recipe_get_info) */
	int n_high_preds;        /* predicates on visible parameters 32 and up */
	int producer_warps;      /* warps launched beyond num_warps where the image loaded is
	                            warp-specialized (a producer warp: 1), else 0 */
} tile_variant_info;

/* The predicate of variant `variant` on visible parameter `param`, in
 * Triton's spelling of a specialization: 16, 8 or 4 (divisible by it), 1
 * (equal to 1), 0 (none); -1 when there is no such kernel, variant or
 * visible parameter. */
TILEDEF int tile_variant_predicate(const tile_module *module, int kernel, int variant, int param);

/* How a launch of a variant builds one of its kernel's hidden tensor maps
 * (FORMAT.md's recipe): the map of the descriptor with the base pointer
 * argument, the shape and strides the program computes from the
 * arguments (a grid program of 2 * rank - 1 values: the shape, then the
 * strides but the last, which is 1), and the block shape. */
typedef struct tile_recipe_info {
	int param;               /* the hidden tensor map it builds */
	int base;                /* the visible pointer parameter */
	int rank;
	int32_t block_shape[TILE_TENSORDESC_MAX_RANK];
	const uint8_t *program;
	uint32_t program_size;
} tile_recipe_info;

typedef struct tile_constexpr_info {
	const char *name;
	int kind;                /* 0 int, 1 float, 2 bool, 3 string, 4 dtype (FORMAT.md) */
	int64_t ival;
	double fval;
	const char *sval;
} tile_constexpr_info;

typedef struct tile_param_info {
	const char *name;
	int kind, size, dtype;   /* FORMAT.md codes; kind 4: a TMA tensor map (size 128, the descriptor's dtype) */
	int hidden;
	int reset_to_zero, restore_value; /* named by @triton.autotune's lists: tile-tune zeroes / restores it */
} tile_param_info;

typedef struct tile_image_info {
	int group;
	int kind;                /* 0 cubin, 1 PTX */
	int arch;                /* 80, 87, 90, ... */
	unsigned flags;          /* bit 0: arch-specific (sm_90a); bit 1: reads TMA tensor maps */
	uint32_t size, raw_size;
	int compression;         /* 0 stored, 1 zlib */
} tile_image_info;

TILEDEF const char *tile_kernel_name(const tile_module *module, int kernel);
TILEDEF int tile_param_count(const tile_module *module, int kernel);    /* hidden ones included */
TILEDEF tile_status tile_param_get_info(const tile_module *module, int kernel, int param, tile_param_info *out);
TILEDEF int tile_variant_count(const tile_module *module, int kernel);
TILEDEF tile_status tile_variant_get_info(const tile_module *module, int kernel, int variant, tile_variant_info *out);
TILEDEF tile_status tile_constexpr_get_info(const tile_module *module, int kernel, int variant, int index, tile_constexpr_info *out);
TILEDEF tile_status tile_recipe_get_info(const tile_module *module, int kernel, int variant, int index, tile_recipe_info *out);
TILEDEF int tile_image_count(const tile_module *module);
TILEDEF tile_status tile_image_get_info(const tile_module *module, int image, tile_image_info *out);

TILEDEF const char *tile_status_string(tile_status status);
/* The detail of the calling thread's last failure ("" when none): the
 * driver call and CUDA error name, the JIT log, the missing symbol, the
 * field of the blob that failed validation. */
TILEDEF const char *tile_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* TILE_H */

#ifdef TILE_IMPLEMENTATION
#ifndef TILE_IMPLEMENTATION_INCLUDED
#define TILE_IMPLEMENTATION_INCLUDED

/* common.h - what every part of the implementation shares: allocation hooks,
 * the per-thread error detail, little-endian field readers, CRC-32, and the
 * decoded form of a module.
 *
 * The loader needs POSIX (dlopen, pthread) and the GCC/Clang __atomic
 * builtins, which read the same in C and C++. The blob is never trusted:
 * blob.h decodes it once, while validating it, into the small structs
 * below, so the launch path reads plain fields; only the bytes of programs
 * (grid, heuristic and tensor-map recipe programs, with their constants)
 * are read from the blob at launch, already validated.
 * The error detail lives in thread-local storage so that concurrent callers
 * never see each other's messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#ifndef TILE_MALLOC
#define TILE_MALLOC(size) malloc(size)
#endif
#ifndef TILE_FREE
#define TILE_FREE(ptr) free(ptr)
#endif

/* Context slots a module starts with; the table doubles when full. */
#ifndef TILE_INITIAL_CONTEXTS
#define TILE_INITIAL_CONTEXTS 4
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define TILE__THREAD_LOCAL thread_local
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
#define TILE__THREAD_LOCAL _Thread_local
#else
#define TILE__THREAD_LOCAL __thread
#endif

#if defined(__GNUC__)
#define TILE__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TILE__PRINTF(f, a)
#endif

/* Large enough for a JIT log of a failing PTX. */
#define TILE__DETAIL_SIZE 4096
static TILE__THREAD_LOCAL char tile__detail[TILE__DETAIL_SIZE];

static tile_status tile__fail(tile_status status, const char *fmt, ...) TILE__PRINTF(2, 3);
static tile_status tile__fail(tile_status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tile__detail, sizeof tile__detail, fmt, ap);
	va_end(ap);
	return status;
}

static uint32_t tile__u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t tile__u32(const uint8_t *p) { return tile__u16(p) | tile__u16(p + 2) << 16; }
static uint64_t tile__u64(const uint8_t *p) { return (uint64_t)tile__u32(p) | (uint64_t)tile__u32(p + 4) << 32; }

static const uint32_t tile__crc_table[256] = {
	0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
	0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
	0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
	0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
	0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
	0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
	0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
	0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
	0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
	0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
	0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
	0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
	0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
	0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
	0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
	0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
	0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
	0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
	0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
	0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
	0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
	0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
	0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
	0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
	0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
	0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
	0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
	0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
	0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
	0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
	0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
	0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
	0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
	0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
	0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
	0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
	0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
	0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
	0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
	0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
	0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
	0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
	0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du, 
};

/* CRC-32 of IEEE 802.3 (zlib's crc32). */
static uint32_t tile__crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	while (n--)
		c = tile__crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/* TILE_DEBUG: the value of tile_module.alive while the module may be used. */
#define TILE__ALIVE 0x711e11feu

/* Decoded records (field meanings in docs/FORMAT.md). */
typedef struct tile__param {
	uint32_t name;
	uint8_t kind, size, dtype, hidden;
	uint8_t flags;       /* FORMAT.md's: hidden, reset_to_zero, restore_value */
	uint8_t desc_rank;   /* a descriptor's tensor map: the rank of the descriptor group before it; 0 otherwise */
	uint32_t map_index;  /* a tensor map (either sort): its entry in each slot's map cache */
} tile__param;

/* A kernel has at most this many tensor maps, descriptor and hidden ones
 * together (FORMAT.md): a launch encodes them into a buffer of its stack. */
#define TILE__MAX_MAPS 16

/* How a launch builds a hidden tensor map of one variant (FORMAT.md's
 * recipe): param and base index the kernel's parameters; the program in
 * grid_code leaves the shape, then the strides but the last. */
typedef struct tile__recipe {
	uint32_t variant, param, base, rank, code_offset, code_size;
	int32_t block[5];    /* the block shape; 0 past rank */
} tile__recipe;

/* A tuning table (dispatch.h): dispatch-key values to a config. */
#define TILE__MAX_KEYS 8
typedef struct tile__table {
	uint32_t n_keys, n_entries, default_config;
	uint8_t keys[TILE__MAX_KEYS]; /* visible integer parameters, in key order */
	const int64_t *words;         /* n_entries * (n_keys + 1): key values then config; sorted */
	const char *names;            /* a runtime table's key names, NUL-separated; NULL in a blob's */
	uint32_t aligned;             /* bits 3j..3j+2: key j's parameter has a :16, :8, :4 predicate
	                                 in some variant (tile__key_aligned) */
} tile__table;

/* A heuristic evaluated at launch (dispatch.h): the constexpr it computes
 * and its program in grid_code. */
#define TILE__MAX_HEURISTICS 8
typedef struct tile__heuristic {
	uint32_t name, offset, size;
} tile__heuristic;

typedef struct tile__kernel {
	uint32_t name, first_param, n_params, n_visible, first_variant, n_variants;
	uint64_t pred_mask;  /* parameters any variant has a predicate on */
	uint64_t div_mask[3]; /* parameters any variant has a :16, :8, :4 predicate on */
	uint32_t n_configs;  /* autotune configs compiled (1 when not autotuned) */
	tile__table table;   /* the blob's */
	tile__table *volatile runtime; /* tile_tuning_apply's, read with an acquire load; NULL: none */
	uint32_t n_heuristics;
	tile__heuristic heuristics[TILE__MAX_HEURISTICS];
	uint64_t map_mask;   /* bit i: parameter i is a tensor map (either sort) */
	uint64_t hidden_maps; /* bit i: parameter i is a hidden tensor map (built from the variant's recipe) */
	int copy_args;       /* hidden parameters or tensor maps: the launch builds its own argument array */
} tile__kernel;

typedef struct tile__variant {
	uint32_t kernel, symbol, group, first_constexpr, n_constexprs;
	uint32_t shared_static, shared_dynamic, grid_offset, grid_size;
	/* bit i: visible parameter i; bits 0..31 from the record, the rest from
	 * the preds array (version 6) */
	uint64_t pred_div16, pred_div8, pred_div4, pred_eq1;
	uint32_t spill_stores, spill_loads; /* bytes; TILE__SPILLS_UNKNOWN */
	uint32_t config, source_config; /* the kernel's config; its index in the source's autotune list */
	uint32_t first_recipe, n_recipes; /* its recipes: a range of tile_module.recipes, by parameter */
	int64_t heuristic_values[TILE__MAX_HEURISTICS]; /* its constexprs the kernel's heuristics compute */
	uint32_t heuristic_bools;  /* bit h: heuristic h's constexpr is a bool */
	uint32_t block;     /* 32 * num_warps; a group with TILE__GROUP_PRODUCER adds 32 * producer_warps */
	int n_preds;        /* the specialization rank: 3 a predicate by 16 or == 1, 2 by 8, 1 by 4 */
	int cluster;        /* cluster dims other than 1 1 1: launch with cuLaunchKernelEx */
	uint16_t num_warps, num_stages, cluster_dim[3], n_regs;
	uint16_t producer_warps; /* warps beyond num_warps where the image loaded has TILE__IMAGE_PRODUCER */
} tile__variant;

typedef struct tile__image {
	uint32_t group, kind, arch, flags, offset, size, raw_size, compression;
} tile__image;

enum { TILE__KIND_PTR = 0, TILE__KIND_INT = 1, TILE__KIND_UINT = 2, TILE__KIND_FLOAT = 3, TILE__KIND_TENSORMAP = 4 };
enum { TILE__IMAGE_CUBIN = 0, TILE__IMAGE_PTX = 1 };
enum { TILE__IMAGE_ARCH_SPECIFIC = 1, TILE__IMAGE_TENSORMAPS = 2, TILE__IMAGE_PRODUCER = 4 };
/* A loaded image reads tensor maps; it is for compute capability 9.0 or
 * newer, so its code runs in the variants' clusters (tilec compiles the
 * images of older archs one CTA per program). */
enum { TILE__GROUP_MAPS = 1, TILE__GROUP_CLUSTERS = 2, TILE__GROUP_PRODUCER = 4 };
#define TILE__TENSORMAP_SIZE 128u /* bytes of a CUtensorMap */
#define TILE__CONSTEXPR_SIZE 16u /* bytes of a constexpr record (FORMAT.md) */

/* One CUDA context a module is loaded into, keyed by the driver's unique
 * context ID (cuCtxGetId), or by the handle's value where the driver lacks
 * it. key and funcs[] are read without the lock (key with an acquire load,
 * funcs[] entries published with release stores); everything else is
 * touched only under the module's lock. A slot whose context died (its
 * handle now names another context) is recycled in place for the new one:
 * the driver freed the modules with the context, so they are forgotten, not
 * unloaded. Slots are allocated one by one and live as long as the module. */
typedef struct tile__slot {
	uint64_t key;       /* context ID (or handle); 0 while being recycled */
	void *ctx;          /* CUcontext */
	int device, arch;   /* CUdevice and its compute capability (major*10+minor) */
	int smem_optin;     /* the device's opt-in shared memory per block; 0: not queried yet */
	void **modules;     /* CUmodule per group; NULL: not loaded */
	void **funcs;       /* CUfunction per variant; NULL: not looked up */
	uint8_t *group_flags; /* per group: TILE__GROUP_* of its loaded image (set before funcs[] publish) */
	struct tile__map_entry *maps; /* per tensor-map parameter of the module (tensordesc.h); NULL: none */
} tile__slot;

/* The published slot table: the launch path reads it with one acquire load
 * of the pointer and one of n. A full table is replaced by a copy twice its
 * size (under the lock); the old one is kept on the retired chain until
 * the module is destroyed, since a launch may still be scanning it. */
typedef struct tile__slot_table {
	unsigned n, cap;
	struct tile__slot_table *retired; /* the table this one replaced */
	tile__slot *slot[1];              /* cap entries */
} tile__slot_table;

/* A primary context the module retained for threads without a context. */
typedef struct tile__primary {
	void *ctx;          /* NULL: not retained */
	int device;         /* the CUdevice it was retained with */
} tile__primary;

struct tile_module {
	const uint8_t *blob;
	size_t size;
	uint32_t n_kernels, n_params, n_variants, n_constexprs, n_images, grid_code_size, strtab_size, n_groups;
	uint32_t n_keys, tune_words, n_heuristics, n_recipes;
	uint32_t n_preds;   /* predicates on parameters 32 and up (0 in a version 5 blob) */
	uint32_t n_maps;    /* tensor-map parameters of all kernels */
	const uint8_t *constexprs, *grid_code, *strtab; /* inside the blob */
	int64_t *tune;      /* the tuning tables' words, decoded */
	tile__kernel *kernels;
	tile__param *params;
	tile__variant *variants;
	tile__image *images;
	tile__recipe *recipes;
	pthread_mutex_t lock;
	tile__primary *primary; /* per device ordinal, n_primary of them; released on destroy */
	int n_primary;
	tile__slot_table *slots; /* published with a release store */
#ifdef TILE_DEBUG
	uint32_t alive;         /* TILE__ALIVE until tile_module_destroy starts */
	int users;              /* launches and loads in progress */
	struct tile_module *next_tombstone;
#endif
};

/* inflate.h - a hardened zlib (RFC 1950) / deflate (RFC 1951) decoder.
 *
 * The output size is known in advance (the image's raw_size), so the decoder
 * writes into one caller buffer and refuses to produce a byte more or less.
 * Bits are taken from a 64-bit buffer refilled a byte at a time, never past
 * the input; every length, distance, repeat count and code-length set is
 * checked. Huffman codes decode through a 9-bit lookup table, with canonical
 * bit-by-bit decoding for the rarer longer codes; incomplete codes are
 * accepted only where zlib accepts them (a single one-bit code, or none).
 * With TILE_USE_ZLIB defined, zlib's uncompress() replaces it all. */
#ifdef TILE_USE_ZLIB
#include <zlib.h>

static tile_status tile__inflate_image(uint32_t image, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	uLongf got = (uLongf)out_len;
	int r = uncompress(out, &got, in, (uLong)in_len);
	if (r != Z_OK || got != out_len)
		return tile__fail(TILE_ERROR_INFLATE, "image %u: inflate: zlib error %d (%lu of %lu bytes)", image, r,
				  (unsigned long)got, (unsigned long)out_len);
	return TILE_SUCCESS;
}
#else

typedef enum tile__inflate_result {
	TILE__INF_OK = 0,
	TILE__INF_BAD_HEADER,     /* compression method or header check */
	TILE__INF_BAD_WINDOW,     /* window size over 32 KiB */
	TILE__INF_DICTIONARY,     /* preset dictionary requested */
	TILE__INF_BLOCK_TYPE,     /* block type 3 */
	TILE__INF_STORED_LENGTH,  /* LEN and NLEN disagree */
	TILE__INF_CODE_COUNT,     /* more than 286 literal/length or 30 distance codes */
	TILE__INF_OVERSUBSCRIBED, /* code lengths describe more codes than fit */
	TILE__INF_INCOMPLETE,     /* code lengths leave codes unused */
	TILE__INF_BAD_REPEAT,     /* code-length repeat with nothing before or past the end */
	TILE__INF_NO_END,         /* no code for end-of-block */
	TILE__INF_BAD_SYMBOL,     /* an unused code, or length/distance symbol out of range */
	TILE__INF_DISTANCE,       /* distance past the start of the output */
	TILE__INF_OVERFLOW,       /* more output than expected */
	TILE__INF_SHORT,          /* less output than expected */
	TILE__INF_TRUNCATED,      /* input ended early */
	TILE__INF_ADLER,          /* Adler-32 mismatch */
	TILE__INF_TRAILING        /* bytes after the Adler-32 */
} tile__inflate_result;

static const char *tile__inflate_message(tile__inflate_result r)
{
	switch (r) {
	case TILE__INF_OK: return "ok";
	case TILE__INF_BAD_HEADER: return "bad zlib header";
	case TILE__INF_BAD_WINDOW: return "window size over 32 KiB";
	case TILE__INF_DICTIONARY: return "preset dictionary";
	case TILE__INF_BLOCK_TYPE: return "invalid block type";
	case TILE__INF_STORED_LENGTH: return "stored block length does not match its complement";
	case TILE__INF_CODE_COUNT: return "too many length or distance codes";
	case TILE__INF_OVERSUBSCRIBED: return "over-subscribed code lengths";
	case TILE__INF_INCOMPLETE: return "incomplete code lengths";
	case TILE__INF_BAD_REPEAT: return "invalid code-length repeat";
	case TILE__INF_NO_END: return "no end-of-block code";
	case TILE__INF_BAD_SYMBOL: return "invalid code";
	case TILE__INF_DISTANCE: return "distance too far back";
	case TILE__INF_OVERFLOW: return "output longer than the expected size";
	case TILE__INF_SHORT: return "output shorter than the expected size";
	case TILE__INF_TRUNCATED: return "truncated input";
	case TILE__INF_ADLER: return "Adler-32 mismatch";
	case TILE__INF_TRAILING: return "data after the end of the stream";
	}
	return "?";
}

typedef struct tile__bits {
	const uint8_t *in;
	size_t len, pos;
	uint64_t buf;
	unsigned cnt;
} tile__bits;

static void tile__bits_fill(tile__bits *b)
{
	while (b->cnt <= 56 && b->pos < b->len) {
		b->buf |= (uint64_t)b->in[b->pos++] << b->cnt;
		b->cnt += 8;
	}
}

/* n <= 16 */
static int tile__bits_get(tile__bits *b, unsigned n, uint32_t *out)
{
	if (b->cnt < n) {
		tile__bits_fill(b);
		if (b->cnt < n)
			return 0;
	}
	*out = (uint32_t)(b->buf & ((1u << n) - 1));
	b->buf >>= n;
	b->cnt -= n;
	return 1;
}

#define TILE__FAST_BITS 9

typedef struct tile__huff {
	uint16_t count[16];   /* codes per length */
	uint16_t symbol[288]; /* symbols ordered by code */
	uint16_t fast[1u << TILE__FAST_BITS]; /* symbol | length << 9 for codes up to 9 bits; 0: longer */
} tile__huff;

static tile__inflate_result tile__huff_build(tile__huff *h, const uint8_t *lengths, unsigned n, int allow_single)
{
	uint16_t offs[16];
	uint32_t next[16], code;
	unsigned len, sym, used = 0;
	int left = 1;
	memset(h->count, 0, sizeof h->count);
	for (sym = 0; sym < n; sym++)
		h->count[lengths[sym]]++;
	for (len = 1; len < 16; len++) {
		left = (left << 1) - h->count[len];
		if (left < 0)
			return TILE__INF_OVERSUBSCRIBED;
		used += h->count[len];
	}
	/* zlib's rule: an incomplete code only when it is empty or one code of one bit. */
	if (left > 0 && !(allow_single && (used == 0 || (used == 1 && h->count[1] == 1))))
		return TILE__INF_INCOMPLETE;
	offs[1] = 0;
	for (len = 1; len < 15; len++)
		offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
	code = 0;
	next[0] = 0;
	for (len = 1; len < 16; len++) {
		code = (code + (len > 1 ? h->count[len - 1] : 0u)) << 1;
		next[len] = code;
	}
	memset(h->fast, 0, sizeof h->fast);
	for (sym = 0; sym < n; sym++) {
		uint32_t c, rev = 0, i;
		len = lengths[sym];
		if (!len)
			continue;
		h->symbol[offs[len]++] = (uint16_t)sym;
		c = next[len]++;
		if (len > TILE__FAST_BITS)
			continue;
		for (i = 0; i < len; i++)
			rev |= ((c >> i) & 1u) << (len - 1 - i);
		for (i = rev; i < (1u << TILE__FAST_BITS); i += 1u << len)
			h->fast[i] = (uint16_t)(sym | len << 9);
	}
	return TILE__INF_OK;
}

static tile__inflate_result tile__huff_decode(tile__bits *b, const tile__huff *h, unsigned *sym)
{
	unsigned e, len;
	uint32_t code = 0, first = 0, index = 0;
	uint64_t bits;
	if (b->cnt < 15)
		tile__bits_fill(b);
	e = h->fast[b->buf & ((1u << TILE__FAST_BITS) - 1)];
	if (e) {
		len = e >> 9;
		if (len > b->cnt)
			return TILE__INF_TRUNCATED;
		b->buf >>= len;
		b->cnt -= len;
		*sym = e & 511;
		return TILE__INF_OK;
	}
	bits = b->buf;
	for (len = 1; len < 16; len++) {
		uint32_t count = h->count[len];
		if (len > b->cnt)
			return TILE__INF_TRUNCATED;
		code |= (uint32_t)(bits & 1);
		bits >>= 1;
		if (code - first < count) {
			b->buf >>= len;
			b->cnt -= len;
			*sym = h->symbol[index + code - first];
			return TILE__INF_OK;
		}
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return TILE__INF_BAD_SYMBOL;
}

static const uint16_t tile__len_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
					     35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t tile__len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
					    3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t tile__dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
					      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
					      6145, 8193, 12289, 16385, 24577};
static const uint8_t tile__dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
					     6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

typedef struct tile__inflate_state {
	tile__bits bits;
	uint8_t *out;
	size_t out_len, out_pos;
	tile__huff lit, dist;
} tile__inflate_state;

/* Decodes one compressed block's symbols with s->lit and s->dist. */
static tile__inflate_result tile__inflate_codes(tile__inflate_state *s)
{
	for (;;) {
		unsigned sym, dsym;
		uint32_t extra, len, dist;
		tile__inflate_result r = tile__huff_decode(&s->bits, &s->lit, &sym);
		if (r)
			return r;
		if (sym < 256) {
			if (s->out_pos >= s->out_len)
				return TILE__INF_OVERFLOW;
			s->out[s->out_pos++] = (uint8_t)sym;
			continue;
		}
		if (sym == 256)
			return TILE__INF_OK;
		sym -= 257;
		if (sym >= 29)
			return TILE__INF_BAD_SYMBOL;
		if (!tile__bits_get(&s->bits, tile__len_extra[sym], &extra))
			return TILE__INF_TRUNCATED;
		len = tile__len_base[sym] + extra;
		r = tile__huff_decode(&s->bits, &s->dist, &dsym);
		if (r)
			return r;
		if (dsym >= 30)
			return TILE__INF_BAD_SYMBOL;
		if (!tile__bits_get(&s->bits, tile__dist_extra[dsym], &extra))
			return TILE__INF_TRUNCATED;
		dist = tile__dist_base[dsym] + extra;
		if (dist > s->out_pos)
			return TILE__INF_DISTANCE;
		if (len > s->out_len - s->out_pos)
			return TILE__INF_OVERFLOW;
		{
			/* Byte by byte: source and destination overlap when dist < len. */
			uint8_t *d = s->out + s->out_pos;
			const uint8_t *from = d - dist;
			s->out_pos += len;
			while (len--)
				*d++ = *from++;
		}
	}
}

static tile__inflate_result tile__inflate_stored(tile__inflate_state *s)
{
	tile__bits *b = &s->bits;
	uint32_t len, nlen;
	b->buf >>= b->cnt & 7;
	b->cnt -= b->cnt & 7;
	if (!tile__bits_get(b, 16, &len) || !tile__bits_get(b, 16, &nlen))
		return TILE__INF_TRUNCATED;
	if (len != (~nlen & 0xffffu))
		return TILE__INF_STORED_LENGTH;
	if (len > s->out_len - s->out_pos)
		return TILE__INF_OVERFLOW;
	for (; len && b->cnt >= 8; len--) {
		s->out[s->out_pos++] = (uint8_t)b->buf;
		b->buf >>= 8;
		b->cnt -= 8;
	}
	if (len > b->len - b->pos)
		return TILE__INF_TRUNCATED;
	memcpy(s->out + s->out_pos, b->in + b->pos, len);
	s->out_pos += len;
	b->pos += len;
	return TILE__INF_OK;
}

static tile__inflate_result tile__inflate_fixed(tile__inflate_state *s)
{
	uint8_t lengths[288];
	unsigned i;
	for (i = 0; i < 288; i++)
		lengths[i] = (uint8_t)(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
	tile__huff_build(&s->lit, lengths, 288, 0);
	/* All 32 five-bit codes: 30 and 31 decode, then fail as symbols. */
	for (i = 0; i < 32; i++)
		lengths[i] = 5;
	tile__huff_build(&s->dist, lengths, 32, 0);
	return tile__inflate_codes(s);
}

static tile__inflate_result tile__inflate_dynamic(tile__inflate_state *s)
{
	static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
	uint8_t lengths[286 + 30];
	uint32_t nlen, ndist, ncode, i, v;
	tile__inflate_result r;
	if (!tile__bits_get(&s->bits, 5, &nlen) || !tile__bits_get(&s->bits, 5, &ndist) ||
	    !tile__bits_get(&s->bits, 4, &ncode))
		return TILE__INF_TRUNCATED;
	nlen += 257;
	ndist += 1;
	ncode += 4;
	if (nlen > 286 || ndist > 30)
		return TILE__INF_CODE_COUNT;
	memset(lengths, 0, 19);
	for (i = 0; i < ncode; i++) {
		if (!tile__bits_get(&s->bits, 3, &v))
			return TILE__INF_TRUNCATED;
		lengths[order[i]] = (uint8_t)v;
	}
	/* The code-length code lives in s->lit until the real one replaces it. */
	r = tile__huff_build(&s->lit, lengths, 19, 0);
	if (r)
		return r;
	for (i = 0; i < nlen + ndist;) {
		unsigned sym;
		uint32_t rep, fill = 0;
		r = tile__huff_decode(&s->bits, &s->lit, &sym);
		if (r)
			return r;
		if (sym < 16) {
			lengths[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (i == 0)
				return TILE__INF_BAD_REPEAT;
			fill = lengths[i - 1];
			if (!tile__bits_get(&s->bits, 2, &rep))
				return TILE__INF_TRUNCATED;
			rep += 3;
		} else if (sym == 17) {
			if (!tile__bits_get(&s->bits, 3, &rep))
				return TILE__INF_TRUNCATED;
			rep += 3;
		} else {
			if (!tile__bits_get(&s->bits, 7, &rep))
				return TILE__INF_TRUNCATED;
			rep += 11;
		}
		if (rep > nlen + ndist - i)
			return TILE__INF_BAD_REPEAT;
		memset(lengths + i, (int)fill, rep);
		i += rep;
	}
	if (lengths[256] == 0)
		return TILE__INF_NO_END;
	r = tile__huff_build(&s->lit, lengths, nlen, 1);
	if (r)
		return r;
	r = tile__huff_build(&s->dist, lengths + nlen, ndist, 1);
	if (r)
		return r;
	return tile__inflate_codes(s);
}

static uint32_t tile__adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	while (n) {
		/* 5552 bytes keep b below 2^32 between reductions. */
		size_t chunk = n < 5552 ? n : 5552;
		n -= chunk;
		while (chunk--) {
			a += *p++;
			b += a;
		}
		a %= 65521u;
		b %= 65521u;
	}
	return b << 16 | a;
}

/* Inflates a whole zlib stream into exactly out_len bytes. *at receives the
 * input offset where decoding stopped (for messages). */
static tile__inflate_result tile__inflate(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *at)
{
	tile__inflate_state st, *s = &st;
	tile__inflate_result r = TILE__INF_OK;
	uint32_t final = 0, type, adler = 0, byte, i;
	*at = 0;
	if (in_len < 2)
		return TILE__INF_TRUNCATED;
	if ((in[0] & 15) != 8 || ((unsigned)in[0] << 8 | in[1]) % 31 != 0)
		return TILE__INF_BAD_HEADER;
	if (in[0] >> 4 > 7)
		return TILE__INF_BAD_WINDOW;
	if (in[1] & 0x20)
		return TILE__INF_DICTIONARY;
	memset(&s->bits, 0, sizeof s->bits);
	s->bits.in = in;
	s->bits.len = in_len;
	s->bits.pos = 2;
	s->out = out;
	s->out_len = out_len;
	s->out_pos = 0;
	while (!final && !r) {
		if (!tile__bits_get(&s->bits, 1, &final) || !tile__bits_get(&s->bits, 2, &type))
			r = TILE__INF_TRUNCATED;
		else if (type == 0)
			r = tile__inflate_stored(s);
		else if (type == 1)
			r = tile__inflate_fixed(s);
		else if (type == 2)
			r = tile__inflate_dynamic(s);
		else
			r = TILE__INF_BLOCK_TYPE;
	}
	if (!r && s->out_pos != out_len)
		r = TILE__INF_SHORT;
	if (!r) {
		s->bits.buf >>= s->bits.cnt & 7;
		s->bits.cnt -= s->bits.cnt & 7;
		for (i = 0; i < 4 && !r; i++) {
			if (!tile__bits_get(&s->bits, 8, &byte))
				r = TILE__INF_TRUNCATED;
			adler = adler << 8 | byte;
		}
	}
	if (!r && adler != tile__adler32(out, out_len))
		r = TILE__INF_ADLER;
	if (!r && (s->bits.cnt || s->bits.pos != in_len))
		r = TILE__INF_TRAILING;
	*at = s->bits.pos - s->bits.cnt / 8;
	return r;
}

static tile_status tile__inflate_image(uint32_t image, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	size_t at;
	tile__inflate_result r = tile__inflate(in, in_len, out, out_len, &at);
	if (r)
		return tile__fail(TILE_ERROR_INFLATE, "image %u: inflate: %s at input byte %lu", image,
				  tile__inflate_message(r), (unsigned long)at);
	return TILE_SUCCESS;
}
#endif

/* grid.h - grid programs: validation when the blob is opened, evaluation at
 * launch. Heuristic programs (dispatch.h) and the recipe programs of hidden
 * tensor maps (blob.h, tensordesc.h) are the same bytecode with another
 * number of results, checked and run by the same two functions, which take
 * that number from their caller: 1..3 for a grid, 1 for a heuristic,
 * 2 * rank - 1 for a recipe.
 *
 * A grid program is a few bytes of stack code over signed 64-bit integers
 * (docs/FORMAT.md), and doubles that only float comparisons read (a
 * heuristic's `args["eps"] > 0.0`). Validation proves every opcode,
 * operand, parameter and constexpr index, the stack depth at every step and
 * which entries hold doubles, so the evaluator only has to care about
 * arithmetic: each operation is overflow-checked without compiler
 * builtins, division follows Python (floor division, modulo with the
 * divisor's sign) since that is what the kernel's grid lambda meant, and
 * comparisons give Python's results (NaN unordered, an int compared with a
 * float exactly). */

enum {
	TILE__OP_ARG = 0x01, TILE__OP_CONST = 0x02, TILE__OP_CONSTEXPR = 0x03, TILE__OP_FARG = 0x04, TILE__OP_FCONST = 0x05,
	TILE__OP_ADD = 0x10, TILE__OP_SUB = 0x11, TILE__OP_MUL = 0x12, TILE__OP_FLOORDIV = 0x13,
	TILE__OP_CDIV = 0x14, TILE__OP_MOD = 0x15, TILE__OP_MIN = 0x16, TILE__OP_MAX = 0x17,
	TILE__OP_EQ = 0x18, TILE__OP_NE = 0x19, TILE__OP_LT = 0x1a, TILE__OP_LE = 0x1b, TILE__OP_GT = 0x1c,
	TILE__OP_GE = 0x1d, TILE__OP_AND = 0x1e, TILE__OP_OR = 0x1f, TILE__OP_NOT = 0x20, TILE__OP_NEXTPOW2 = 0x21,
	TILE__OP_FCMP = 0x22
};
/* TILE__OP_FCMP's operand: bits 0..2 the comparison (0..5: == != < <= > >=),
 * bit 3 the first operand is a float, bit 4 the second (one at least). */
enum { TILE__FCMP_A = 0x08, TILE__FCMP_B = 0x10 };
/* The float parameters a program reads: their type codes (FORMAT.md). */
enum { TILE__DT_FP16 = 10, TILE__DT_BF16 = 11, TILE__DT_FP32 = 12, TILE__DT_FP64 = 13 };
#define TILE__GRID_MAX_DEPTH 16

/* Checks a program of n >= 1 bytes of kernel k whose constexpr operands
 * index variant v's constexprs, and which must leave `values` values (its
 * first byte says how many; the caller has checked the range that byte
 * may take, with its own message); `who` prefixes the messages
 * ("variant 3: grid program"). */
static tile_status tile__program_check(const tile_module *m, const tile__kernel *k, const tile__variant *v, const uint8_t *code,
				       uint32_t n, uint32_t values, const char *who)
{
	uint32_t pc = 1;
	unsigned depth = 0;
	uint32_t floats = 0; /* bit i: stack entry i holds a double */
	if (code[0] != values)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: a program of %u values, %u expected", who, code[0], values);
	while (pc < n) {
		uint32_t at = pc, op = code[pc++], idx, in = 0, want = 0;
		switch (op) {
		case TILE__OP_ARG:
		case TILE__OP_FARG:
		case TILE__OP_CONSTEXPR:
			if (pc >= n)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			idx = code[pc++];
			if (op != TILE__OP_CONSTEXPR) {
				const tile__param *p;
				if (idx >= k->n_visible)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: parameter %u out of range at byte %u", who, idx, at);
				p = &m->params[k->first_param + idx];
				if (op == TILE__OP_ARG && p->kind != TILE__KIND_INT && p->kind != TILE__KIND_UINT)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: parameter %u is not an integer at byte %u", who, idx, at);
				/* the evaluator converts by the dtype: it must agree with the size */
				if (op == TILE__OP_FARG &&
				    (p->kind != TILE__KIND_FLOAT ||
				     !(p->size == 2 ? p->dtype == TILE__DT_FP16 || p->dtype == TILE__DT_BF16
						    : p->dtype == (p->size == 4 ? TILE__DT_FP32 : TILE__DT_FP64))))
					return tile__fail(TILE_ERROR_BAD_BLOB,
							  "%s: parameter %u is not an fp16, bf16, fp32 or fp64 float at byte %u", who, idx, at);
				floats |= (uint32_t)(op == TILE__OP_FARG) << depth;
			} else {
				uint8_t kind;
				if (idx >= v->n_constexprs)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: constexpr %u out of range at byte %u", who, idx, at);
				kind = m->constexprs[(size_t)(v->first_constexpr + idx) * TILE__CONSTEXPR_SIZE + 4];
				if (kind != 0 && kind != 2)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: constexpr %u is not an int or bool at byte %u", who, idx, at);
			}
			depth++;
			break;
		case TILE__OP_CONST:
		case TILE__OP_FCONST:
			if (n - pc < 8)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			pc += 8;
			floats |= (uint32_t)(op == TILE__OP_FCONST) << depth;
			depth++;
			break;
		case TILE__OP_NOT: case TILE__OP_NEXTPOW2:
			in = 1;
			break;
		case TILE__OP_ADD: case TILE__OP_SUB: case TILE__OP_MUL: case TILE__OP_FLOORDIV:
		case TILE__OP_CDIV: case TILE__OP_MOD: case TILE__OP_MIN: case TILE__OP_MAX:
		case TILE__OP_EQ: case TILE__OP_NE: case TILE__OP_LT: case TILE__OP_LE: case TILE__OP_GT:
		case TILE__OP_GE: case TILE__OP_AND: case TILE__OP_OR:
			in = 2;
			break;
		case TILE__OP_FCMP:
			if (pc >= n)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			want = code[pc++];
			if ((want & 7) > 5 || !(want & (TILE__FCMP_A | TILE__FCMP_B)) || (want & ~0x1fu))
				return tile__fail(TILE_ERROR_BAD_BLOB,
						  "%s: float comparison operand 0x%02x (a comparison 0..5, bits 3 and 4 its float "
						  "operands, one at least) at byte %u", who, want, at);
			want = (want & TILE__FCMP_A ? 1u : 0u) | (want & TILE__FCMP_B ? 2u : 0u);
			in = 2;
			break;
		default:
			return tile__fail(TILE_ERROR_BAD_BLOB, "%s: unknown opcode 0x%02x at byte %u", who, op, at);
		}
		if (in) {
			/* the operands' types: doubles where a float comparison
			 * says so, integers everywhere else */
			if (depth < in)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack underflow at byte %u", who, at);
			if ((floats >> (depth - in) & 3u) != want)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %s at byte %u", who,
						  want ? "operands of other types than the float comparison's operand bits say"
						       : "a float operand of an integer operation",
						  at);
			depth -= in - 1;
			floats &= (1u << (depth - 1)) - 1; /* the result is an integer */
		}
		if (depth > TILE__GRID_MAX_DEPTH)
			return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack deeper than %d at byte %u", who, TILE__GRID_MAX_DEPTH, at);
	}
	if (depth != values)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %u values left, %u expected", who, depth, values);
	if (floats)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: a float among the values left", who);
	return TILE_SUCCESS;
}

/* Variant vi's grid program (grid_size >= 1 bytes inside grid_code). */
static tile_status tile__grid_check(const tile_module *m, uint32_t vi)
{
	const tile__variant *v = &m->variants[vi];
	const uint8_t *code = m->grid_code + v->grid_offset;
	char who[48];
	snprintf(who, sizeof who, "variant %u: grid program", vi);
	if (code[0] < 1 || code[0] > 3)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %u dimensions (1..3)", who, code[0]);
	return tile__program_check(m, &m->kernels[v->kernel], v, code, v->grid_size, code[0], who);
}

/* A parameter's value as 64 bits: sign- or zero-extended by its kind. */
static uint64_t tile__param_bits(const tile__param *p, const void *value)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8 = 0;
	int sign = p->kind == TILE__KIND_INT;
	switch (p->size) {
	case 1: memcpy(&b1, value, 1); return sign ? (uint64_t)(int64_t)(int8_t)b1 : b1;
	case 2: memcpy(&b2, value, 2); return sign ? (uint64_t)(int64_t)(int16_t)b2 : b2;
	case 4: memcpy(&b4, value, 4); return sign ? (uint64_t)(int64_t)(int32_t)b4 : b4;
	default: memcpy(&b8, value, 8); return b8;
	}
}

/* An fp16 as a double (exact). */
static double tile__half_double(uint16_t h)
{
	uint32_t e = h >> 10 & 31, man = h & 1023;
	uint64_t u;
	double d;
	if (e == 0) {
		d = man / 16777216.0; /* subnormal: man * 2^-24 */
	} else {
		u = (uint64_t)(e == 31 ? 2047 : e - 15 + 1023) << 52 | (uint64_t)man << 42; /* 31: inf, NaN */
		memcpy(&d, &u, 8);
	}
	return h >> 15 ? -d : d;
}

/* A float parameter's value as a double (exact for all four types; the
 * checker proved the dtype agrees with the size). */
static double tile__param_double(const tile__param *p, const void *value)
{
	uint16_t h;
	uint32_t w;
	float f;
	double d;
	switch (p->dtype) {
	case TILE__DT_FP16: memcpy(&h, value, 2); return tile__half_double(h);
	case TILE__DT_BF16: memcpy(&h, value, 2); w = (uint32_t)h << 16; memcpy(&f, &w, 4); return f;
	case TILE__DT_FP32: memcpy(&f, value, 4); return f;
	default: memcpy(&d, value, 8); return d;
	}
}

/* A stack entry holding a double, and back. */
static int64_t tile__from_double(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return (int64_t)u;
}

static double tile__to_double(int64_t v)
{
	uint64_t u = (uint64_t)v;
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* i against d exactly, as Python compares an int with a float (no rounding
 * of i to a double): -1 i < d, 0 equal, 1 i > d, 2 d is NaN. */
static int tile__cmp_int_double(int64_t i, double d)
{
	int64_t t;
	double frac;
	if (d != d)
		return 2;
	if (d >= 9223372036854775808.0)
		return -1;
	if (d < -9223372036854775808.0)
		return 1;
	t = (int64_t)d; /* in range: truncation toward zero */
	if (i != t)
		return i < t ? -1 : 1;
	frac = d - (double)t; /* exact: d's fractional part, 0 from 2^52 on */
	return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

/* a OP b for TILE__OP_FCMP's operand c: each side a double where its bit
 * says so, else an integer. NaN compares unequal and unordered, -0.0
 * equals 0.0 (C's double comparisons, which are Python's). */
static int64_t tile__fcompare(uint32_t c, int64_t a, int64_t b)
{
	int rel;
	if ((c & TILE__FCMP_A) && (c & TILE__FCMP_B)) {
		double x = tile__to_double(a), y = tile__to_double(b);
		rel = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
	} else if (c & TILE__FCMP_A) {
		rel = tile__cmp_int_double(b, tile__to_double(a));
		rel = rel == 2 ? 2 : -rel;
	} else {
		rel = tile__cmp_int_double(a, tile__to_double(b));
	}
	switch (c & 7) {
	case 0: return rel == 0;
	case 1: return rel != 0;
	case 2: return rel == -1;
	case 3: return rel == -1 || rel == 0;
	case 4: return rel == 1;
	default: return rel == 1 || rel == 0;
	}
}

/* 0: the result overflows int64. */
static int tile__add(int64_t a, int64_t b, int64_t *r)
{
	if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
		return 0;
	*r = a + b;
	return 1;
}

static int tile__sub(int64_t a, int64_t b, int64_t *r)
{
	if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
		return 0;
	*r = a - b;
	return 1;
}

static int tile__mul(int64_t a, int64_t b, int64_t *r)
{
	if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
		  : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))
		return 0;
	*r = a * b;
	return 1;
}

/* Python's a // b; b != 0. */
static int tile__floordiv(int64_t a, int64_t b, int64_t *r)
{
	if (a == INT64_MIN && b == -1)
		return 0;
	*r = a / b - (a % b != 0 && (a < 0) != (b < 0));
	return 1;
}

/* Evaluates a checked program of v's kernel (constexprs: v's) for the
 * launch arguments (the caller's: visible parameters) into out[0..n_out),
 * n_out at least the program's count of values; entries past that count
 * are 1 (a grid's missing dimensions). `who`, followed by `name` when not
 * NULL, names the program in errors ("grid program"; "tensor map", "a_tmap"). */
static tile_status tile__program_eval(const tile_module *m, const tile__variant *v, const uint8_t *code, uint32_t n,
				      void *const *args, int64_t *out, uint32_t n_out, const char *who, const char *name)
{
	const tile__kernel *k = &m->kernels[v->kernel];
	int64_t stack[TILE__GRID_MAX_DEPTH], a, b, r = 0;
	uint32_t pc = 1, values = code[0], i;
	int sp = 0;
	const char *what = NULL;
	while (pc < n) {
		uint32_t at = pc, op = code[pc++];
		if (op == TILE__OP_ARG) {
			const tile__param *p = &m->params[k->first_param + code[pc]];
			uint64_t bits = tile__param_bits(p, args[code[pc++]]);
			if (p->kind == TILE__KIND_UINT && bits > (uint64_t)INT64_MAX)
				return tile__fail(TILE_ERROR_GRID, "kernel %s: %s%s%s: argument out of range at byte %u",
						  (const char *)m->strtab + k->name, who, name ? " " : "", name ? name : "", at);
			stack[sp++] = (int64_t)bits;
			continue;
		}
		if (op == TILE__OP_FARG) {
			stack[sp++] = tile__from_double(tile__param_double(&m->params[k->first_param + code[pc]], args[code[pc]]));
			pc++;
			continue;
		}
		if (op == TILE__OP_CONST || op == TILE__OP_FCONST) {
			stack[sp++] = (int64_t)tile__u64(code + pc); /* a double's bits as they are */
			pc += 8;
			continue;
		}
		if (op == TILE__OP_FCMP) {
			sp--;
			stack[sp - 1] = tile__fcompare(code[pc++], stack[sp - 1], stack[sp]);
			continue;
		}
		if (op == TILE__OP_CONSTEXPR) {
			stack[sp++] = (int64_t)tile__u64(m->constexprs + (size_t)(v->first_constexpr + code[pc++]) * TILE__CONSTEXPR_SIZE + 8);
			continue;
		}
		if (op == TILE__OP_NOT) {
			stack[sp - 1] = !stack[sp - 1];
			continue;
		}
		if (op == TILE__OP_NEXTPOW2) {
			/* triton.next_power_of_2: 0 for n <= 0 */
			a = stack[sp - 1];
			if (a > (INT64_C(1) << 62))
				return tile__fail(TILE_ERROR_GRID, "kernel %s: %s%s%s: overflow at byte %u",
						  (const char *)m->strtab + k->name, who, name ? " " : "", name ? name : "", at);
			for (r = a > 0; r && r < a;)
				r *= 2;
			stack[sp - 1] = r;
			continue;
		}
		b = stack[--sp];
		a = stack[--sp];
		switch (op) {
		case TILE__OP_ADD: if (!tile__add(a, b, &r)) what = "overflow"; break;
		case TILE__OP_SUB: if (!tile__sub(a, b, &r)) what = "overflow"; break;
		case TILE__OP_MUL: if (!tile__mul(a, b, &r)) what = "overflow"; break;
		case TILE__OP_FLOORDIV:
			if (b == 0) what = "division by zero";
			else if (!tile__floordiv(a, b, &r)) what = "overflow";
			break;
		case TILE__OP_CDIV:
			/* (a + b - 1) // b; for b > 0 computed without the sum's overflow. */
			if (b == 0) what = "division by zero";
			else if (b > 0) r = a / b + (a % b != 0 && a > 0);
			else if (!tile__add(a, b, &r) || !tile__sub(r, 1, &r) || !tile__floordiv(r, b, &r)) what = "overflow";
			break;
		case TILE__OP_MOD:
			if (b == 0) what = "division by zero";
			else if (b == -1) r = 0;
			else r = a % b + (a % b != 0 && (a % b < 0) != (b < 0) ? b : 0);
			break;
		case TILE__OP_MIN: r = a < b ? a : b; break;
		case TILE__OP_MAX: r = a > b ? a : b; break;
		case TILE__OP_EQ: r = a == b; break;
		case TILE__OP_NE: r = a != b; break;
		case TILE__OP_LT: r = a < b; break;
		case TILE__OP_LE: r = a <= b; break;
		case TILE__OP_GT: r = a > b; break;
		case TILE__OP_GE: r = a >= b; break;
		case TILE__OP_AND: r = a ? b : a; break; /* Python's: an operand */
		default: r = a ? a : b; break;           /* or */
		}
		if (what)
			return tile__fail(TILE_ERROR_GRID, "kernel %s: %s%s%s: %s at byte %u", (const char *)m->strtab + k->name, who,
					  name ? " " : "", name ? name : "", what, at);
		stack[sp++] = r;
	}
	for (i = 0; i < n_out; i++)
		out[i] = i < values ? stack[i] : 1;
	return TILE_SUCCESS;
}

/* Evaluates variant v's grid program for the launch arguments into dims. */
static tile_status tile__grid_eval(const tile_module *m, const tile__variant *v, void *const *args, int64_t dims[3])
{
	return tile__program_eval(m, v, m->grid_code + v->grid_offset, v->grid_size, args, dims, 3, "grid program", NULL);
}

/* Checks a grid against the hardware limits. 1: launch; 0: empty grid. */
static int tile__grid_limits(const tile_module *m, const tile__kernel *k, const int64_t dims[3], tile_status *st)
{
	static const int64_t limit[3] = {INT64_C(2147483647), 65535, 65535};
	int i, empty = 0;
	*st = TILE_SUCCESS;
	for (i = 0; i < 3; i++) {
		if (dims[i] < 0 || dims[i] > limit[i]) {
			*st = tile__fail(TILE_ERROR_GRID, "kernel %s: grid dimension %c = %lld outside 0..%lld",
					 (const char *)m->strtab + k->name, "xyz"[i], (long long)dims[i], (long long)limit[i]);
			return 0;
		}
		empty |= dims[i] == 0;
	}
	return !empty;
}

/* blob.h - blob validation, module creation and introspection.
 *
 * tile_module_create checks every rule of docs/FORMAT.md before anything
 * else looks at the blob: header, checksum, the metadata layout (the arrays
 * must tile meta_size exactly), every string, index, range and enum, the
 * grid programs, and the images' ranges (inside the blob, after the
 * metadata, pairwise disjoint). Counts are multiplied in 64 bits and bounded
 * by the metadata size before anything is allocated, so a hostile blob can
 * at most make the loader allocate in proportion to its own size. The first
 * failing rule is reported with the record and field it concerns. Records
 * are then decoded into the structs of common.h; nothing is inflated here.
 *
 * Tensor maps come in two sorts: a descriptor's (flags 0), which must
 * follow its descriptor group, and a hidden one (flags 1), built at launch
 * from a recipe of the chosen variant. Recipes are checked once every
 * variant is decoded: sorted by (variant, param), each names a hidden map
 * of its variant's kernel, a visible pointer of the map's dtype, and a
 * program checked as a grid program is, with 2 * rank - 1 results. Their
 * order makes each variant's recipes one range, which the variant records,
 * so that a launch reads its own recipes only.
 *
 * Version 6 adds the preds array: predicates on parameters 32 and up,
 * which the variant records' 32-bit masks cannot hold. A version 5 blob is
 * read as one with no preds. Both end up in the variant's 64-bit masks, so
 * a launch tests every parameter the same way. */

#define TILE__HEADER_SIZE 32u
#define TILE__META_HEADER_SIZE_V5 48u
#define TILE__META_HEADER_SIZE 52u
#define TILE__PRED_SIZE 8u
#define TILE__RECIPE_SIZE 36u
#define TILE__KERNEL_SIZE 52u
#define TILE__HEURISTIC_SIZE 12u
#define TILE__PARAM_SIZE 12u
#define TILE__VARIANT_SIZE 80u
#define TILE__NO_SOURCE_CONFIG 0xffffffffu
#define TILE__SPILLS_UNKNOWN 0xffffffffu
#define TILE__MAX_SPILL (512u << 10)
#define TILE__IMAGE_SIZE 32u
#define TILE__MAX_PARAMS 64u
#define TILE__MAX_RAW_SIZE (256u << 20)

/* dispatch.h: the tuning tables, checked once the kernels and their
 * parameters are. */
static tile_status tile__check_tables(tile_module *m, const uint8_t *kernel_records, const uint8_t *keys, const uint8_t *tune);
static tile_status tile__check_heuristics(tile_module *m, const uint8_t *kernel_records, const uint8_t *heuristics);

/* A string offset naming a NUL-terminated string inside the table. */
static int tile__str_ok(const tile_module *m, uint32_t off, int allow_empty)
{
	return off < m->strtab_size && (allow_empty || m->strtab[off] != 0) &&
	       memchr(m->strtab + off, 0, m->strtab_size - off) != NULL;
}

static const char *tile__str(const tile_module *m, uint32_t off) { return (const char *)m->strtab + off; }

/* malloc(0) may return NULL: ask for at least one element. */
static void *tile__alloc_array(uint32_t n, size_t size)
{
	return TILE_MALLOC((n ? n : 1) * size);
}

/* The same, zeroed. */
static void *tile__alloc_zeroed(uint32_t n, size_t size)
{
	void *p = tile__alloc_array(n, size);
	if (p)
		memset(p, 0, (n ? n : 1) * size);
	return p;
}

/* The metadata header's size: version 6 adds n_preds. */
static uint32_t tile__meta_header_size(const tile_module *m)
{
	return tile__u16(m->blob + 4) == 5 ? TILE__META_HEADER_SIZE_V5 : TILE__META_HEADER_SIZE;
}

static tile_status tile__check_header(tile_module *m)
{
	const uint8_t *b = m->blob;
	uint32_t total, meta_offset, meta_size;
	if (m->size < TILE__HEADER_SIZE)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: %lu bytes, shorter than the %u-byte header",
				  (unsigned long)m->size, TILE__HEADER_SIZE);
	if (memcmp(b, "TILE", 4) != 0)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: bad magic (not a tile blob)");
	if (tile__u16(b + 4) < TILE_BLOB_VERSION_MIN || tile__u16(b + 4) > TILE_BLOB_VERSION)
		return tile__fail(TILE_ERROR_VERSION, "header: blob format version %u, but this tile.h reads versions %u..%u only%s",
				  tile__u16(b + 4), (unsigned)TILE_BLOB_VERSION_MIN, (unsigned)TILE_BLOB_VERSION,
				  tile__u16(b + 4) < TILE_BLOB_VERSION ? ": regenerate the blob with the tilec of this tile.h"
								      : ": use the tile.h of the tilec that wrote it");
	if (tile__u16(b + 6) != TILE__HEADER_SIZE)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: header_size %u (expected 32)", tile__u16(b + 6));
	total = tile__u32(b + 8);
	if (total != m->size)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: total_size %u but %lu bytes given", total, (unsigned long)m->size);
	if (tile__u32(b + 24) != 0)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: flags 0x%x (must be 0)", tile__u32(b + 24));
	if (tile__u32(b + 28) != 0)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: reserved field not 0");
	meta_offset = tile__u32(b + 16);
	meta_size = tile__u32(b + 20);
	if (meta_offset != TILE__HEADER_SIZE)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: meta_offset %u (expected 32)", meta_offset);
	if (meta_size < tile__meta_header_size(m) || meta_size % 4 || (uint64_t)meta_offset + meta_size > total)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: meta_size %u does not fit the blob of %u bytes", meta_size, total);
	if (tile__crc32(b + TILE__HEADER_SIZE, total - TILE__HEADER_SIZE) != tile__u32(b + 12))
		return tile__fail(TILE_ERROR_CHECKSUM, "header: checksum mismatch (blob corrupted)");
	return TILE_SUCCESS;
}

/* The metadata arrays in order (FORMAT.md). */
enum {
	TILE__A_KERNELS, TILE__A_PARAMS, TILE__A_VARIANTS, TILE__A_CONSTEXPRS, TILE__A_IMAGES, TILE__A_KEYS, TILE__A_TUNE,
	TILE__A_HEURISTICS, TILE__A_RECIPES, TILE__A_PREDS, TILE__A_GRID_CODE, TILE__A_STRTAB, TILE__N_ARRAYS
};

/* Reads the metadata header and places the arrays; the sizes must add up
 * to meta_size exactly. A version 5 header ends before n_preds: no preds. */
static tile_status tile__check_layout(tile_module *m, const uint8_t **arrays)
{
	const uint8_t *h = m->blob + TILE__HEADER_SIZE;
	uint32_t meta_size = tile__u32(m->blob + 20), grid_padded, i;
	uint64_t sizes[TILE__N_ARRAYS], offsets[TILE__N_ARRAYS], want = tile__meta_header_size(m);
	m->n_kernels = tile__u32(h);
	m->n_params = tile__u32(h + 4);
	m->n_variants = tile__u32(h + 8);
	m->n_constexprs = tile__u32(h + 12);
	m->n_images = tile__u32(h + 16);
	m->grid_code_size = tile__u32(h + 20);
	m->strtab_size = tile__u32(h + 24);
	m->n_groups = tile__u32(h + 28);
	m->n_keys = tile__u32(h + 32);
	m->tune_words = tile__u32(h + 36);
	m->n_heuristics = tile__u32(h + 40);
	m->n_recipes = tile__u32(h + 44);
	m->n_preds = want > TILE__META_HEADER_SIZE_V5 ? tile__u32(h + 48) : 0;
	if (m->strtab_size % 4)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: strtab_size %u is not a multiple of 4", m->strtab_size);
	grid_padded = m->grid_code_size + (4 - m->grid_code_size % 4) % 4;
	sizes[TILE__A_KERNELS] = (uint64_t)m->n_kernels * TILE__KERNEL_SIZE;
	sizes[TILE__A_PARAMS] = (uint64_t)m->n_params * TILE__PARAM_SIZE;
	sizes[TILE__A_VARIANTS] = (uint64_t)m->n_variants * TILE__VARIANT_SIZE;
	sizes[TILE__A_CONSTEXPRS] = (uint64_t)m->n_constexprs * TILE__CONSTEXPR_SIZE;
	sizes[TILE__A_IMAGES] = (uint64_t)m->n_images * TILE__IMAGE_SIZE;
	sizes[TILE__A_KEYS] = (uint64_t)m->n_keys * 4;
	sizes[TILE__A_TUNE] = (uint64_t)m->tune_words * 8;
	sizes[TILE__A_HEURISTICS] = (uint64_t)m->n_heuristics * TILE__HEURISTIC_SIZE;
	sizes[TILE__A_RECIPES] = (uint64_t)m->n_recipes * TILE__RECIPE_SIZE;
	sizes[TILE__A_PREDS] = (uint64_t)m->n_preds * TILE__PRED_SIZE;
	sizes[TILE__A_GRID_CODE] = m->grid_code_size > 0xfffffffcu ? UINT64_C(1) << 33 : grid_padded;
	sizes[TILE__A_STRTAB] = m->strtab_size;
	for (i = 0; i < TILE__N_ARRAYS; i++) {
		offsets[i] = want;
		want += sizes[i];
	}
	if (want != meta_size)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: counts describe %llu bytes but meta_size is %u",
				  (unsigned long long)want, meta_size);
	/* Pointers only now: the offsets are known to lie inside the metadata. */
	for (i = 0; i < TILE__N_ARRAYS; i++)
		arrays[i] = h + offsets[i];
	for (i = m->grid_code_size; i < grid_padded; i++)
		if (arrays[TILE__A_GRID_CODE][i] != 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: grid_code padding not zero");
	if (m->n_groups > m->n_images)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: %u groups but only %u images", m->n_groups, m->n_images);
	m->grid_code = arrays[TILE__A_GRID_CODE];
	m->strtab = arrays[TILE__A_STRTAB];
	m->constexprs = arrays[TILE__A_CONSTEXPRS];
	return TILE_SUCCESS;
}

static tile_status tile__check_params(tile_module *m, const uint8_t *p)
{
	uint32_t i;
	for (i = 0; i < m->n_params; i++, p += TILE__PARAM_SIZE) {
		tile__param *d = &m->params[i];
		int size_ok;
		d->name = tile__u32(p);
		d->kind = p[4];
		d->size = p[5];
		d->dtype = p[6];
		d->hidden = p[7] & 1;
		d->flags = p[7];
		d->desc_rank = 0;
		d->map_index = 0;
		if (!tile__str_ok(m, d->name, 0))
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: name is not a string of the table", i);
		switch (d->kind) {
		case TILE__KIND_PTR: size_ok = d->size == 8; break;
		case TILE__KIND_INT:
		case TILE__KIND_UINT: size_ok = d->size == 1 || d->size == 2 || d->size == 4 || d->size == 8; break;
		case TILE__KIND_FLOAT: size_ok = d->size == 2 || d->size == 4 || d->size == 8; break;
		case TILE__KIND_TENSORMAP: size_ok = d->size == TILE__TENSORMAP_SIZE; break;
		default: return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: kind %u (0..4)", i, d->kind);
		}
		if (!size_ok)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: size %u invalid for kind %u", i, d->size, d->kind);
		if (d->dtype < 1 || d->dtype > 15)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: dtype %u (1..15)", i, d->dtype);
		if (p[7] & ~7u)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: flags 0x%x (only bits 0..2 defined)", i, p[7]);
		if (p[7] > 1 && d->kind == TILE__KIND_TENSORMAP)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: flags 0x%x on a tensor map (0: a descriptor's, 1: hidden)", i,
					  p[7]);
		if ((p[7] & 6u) && d->kind != TILE__KIND_PTR)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: reset_to_zero/restore_value on a parameter that is not a pointer", i);
		if (tile__u32(p + 8) != 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: reserved field not 0", i);
	}
	return TILE_SUCCESS;
}

static tile_status tile__check_constexprs(tile_module *m)
{
	uint32_t i;
	for (i = 0; i < m->n_constexprs; i++) {
		const uint8_t *c = m->constexprs + (size_t)i * TILE__CONSTEXPR_SIZE;
		uint64_t value = tile__u64(c + 8);
		if (!tile__str_ok(m, tile__u32(c), 0))
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: name is not a string of the table", i);
		if (c[4] > 4)
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: kind %u (0..4)", i, c[4]);
		if (c[5] || c[6] || c[7])
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: reserved bytes not 0", i);
		if (c[4] == 2 && value > 1)
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: bool value %llu", i, (unsigned long long)value);
		if (c[4] == 3 && (value > 0xffffffffu || !tile__str_ok(m, (uint32_t)value, 1)))
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: string value is not a string of the table", i);
		if (c[4] == 4 && (value < 1 || value > 15))
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: dtype %llu (1..15)", i, (unsigned long long)value);
	}
	return TILE_SUCCESS;
}

typedef struct tile__name_ref {
	const tile_module *m;
	uint32_t name, index;
} tile__name_ref;

/* By name, then by index; the same offset is the same name without a strcmp. */
static int tile__name_ref_cmp(const void *a, const void *b)
{
	const tile__name_ref *x = (const tile__name_ref *)a, *y = (const tile__name_ref *)b;
	int c = x->name == y->name ? 0 : strcmp(tile__str(x->m, x->name), tile__str(x->m, y->name));
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* first[i]: the first kernel with kernel i's name (i itself when none comes
 * before it), found by sorting rather than comparing every pair, so that a
 * blob of many kernels cannot make validation quadratic. Kernels whose name
 * is not a string of the table are left out: their own check fails first. */
static tile_status tile__kernel_first_names(const tile_module *m, const uint8_t *p, uint32_t *first)
{
	tile__name_ref *refs = (tile__name_ref *)tile__alloc_array(m->n_kernels, sizeof *refs);
	uint32_t i, n = 0;
	if (!refs)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	for (i = 0; i < m->n_kernels; i++, p += TILE__KERNEL_SIZE) {
		first[i] = i;
		if (tile__str_ok(m, tile__u32(p), 0)) {
			refs[n].m = m;
			refs[n].name = tile__u32(p);
			refs[n++].index = i;
		}
	}
	qsort(refs, n, sizeof *refs, tile__name_ref_cmp);
	for (i = 1; i < n; i++)
		if (refs[i - 1].name == refs[i].name || strcmp(tile__str(m, refs[i - 1].name), tile__str(m, refs[i].name)) == 0)
			first[refs[i].index] = first[refs[i - 1].index];
	TILE_FREE(refs);
	return TILE_SUCCESS;
}

/* Kernels own disjoint parameter and variant ranges; `owned` marks them.
 * first: from tile__kernel_first_names. */
static tile_status tile__check_kernel_records(tile_module *m, const uint8_t *p, uint8_t *param_owned, uint8_t *variant_owned,
					      const uint32_t *first)
{
	uint32_t i, j;
	for (i = 0; i < m->n_kernels; i++, p += TILE__KERNEL_SIZE) {
		tile__kernel *k = &m->kernels[i];
		k->name = tile__u32(p);
		k->first_param = tile__u32(p + 4);
		k->n_params = tile__u32(p + 8);
		k->first_variant = tile__u32(p + 12);
		k->n_variants = tile__u32(p + 16);
		k->n_configs = tile__u32(p + 20);
		if (!tile__str_ok(m, k->name, 0))
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: name is not a string of the table", i);
		if (first[i] != i)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: name '%s' already used by kernel %u", i, tile__str(m, k->name), first[i]);
		if (k->n_params > TILE__MAX_PARAMS)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u parameters (at most %u)", i, k->n_params, TILE__MAX_PARAMS);
		if ((uint64_t)k->first_param + k->n_params > m->n_params)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: parameter range %u+%u outside the %u parameters", i,
					  k->first_param, k->n_params, m->n_params);
		if (k->n_variants == 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: no variants", i);
		if ((uint64_t)k->first_variant + k->n_variants > m->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: variant range %u+%u outside the %u variants", i,
					  k->first_variant, k->n_variants, m->n_variants);
		if (k->n_configs < 1 || k->n_configs > k->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u configs (1..%u, each needs a variant)", i, k->n_configs,
					  k->n_variants);
		k->n_visible = 0;
		k->pred_mask = k->div_mask[0] = k->div_mask[1] = k->div_mask[2] = 0;
		for (j = 0; j < k->n_params; j++) {
			const tile__param *q = &m->params[k->first_param + j];
			if (param_owned[k->first_param + j]++)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: parameter range overlaps another kernel's", i);
			if (!q->hidden && k->n_visible != j)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: parameter %u is visible after a hidden one", i, j);
			k->n_visible += !q->hidden;
		}
		for (j = 0; j < k->n_variants; j++)
			if (variant_owned[k->first_variant + j]++)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: variant range overlaps another kernel's", i);
	}
	for (j = 0; j < m->n_variants; j++)
		if (!variant_owned[j])
			return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: belongs to no kernel", j);
	return TILE_SUCCESS;
}

/* A descriptor's tensor map directly follows its descriptor group: r
 * int64 strides right before it (the run of int64 parameters there, 1..5
 * long), r int32 shapes before those, and a pointer of the map's dtype
 * before them, all parameters of the same kernel. A hidden map (flags 1,
 * hence among the trailing hidden parameters) follows no group. At most
 * TILE__MAX_MAPS of both sorts a kernel. Numbers the maps for the slots'
 * caches. */
static tile_status tile__check_maps(tile_module *m, uint32_t ki)
{
	tile__kernel *k = &m->kernels[ki];
	tile__param *p = &m->params[k->first_param];
	uint32_t j, r, i, n = 0;
	int ok;
	for (j = 0; j < k->n_params; j++)
		n += p[j].kind == TILE__KIND_TENSORMAP;
	if (n > TILE__MAX_MAPS)
		return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u tensor maps (at most %u, descriptors' and hidden ones together)",
				  ki, n, TILE__MAX_MAPS);
	for (j = 0; j < k->n_params; j++) {
		if (p[j].kind != TILE__KIND_TENSORMAP)
			continue;
		p[j].map_index = m->n_maps++;
		k->map_mask |= UINT64_C(1) << j;
		if (p[j].flags) {
			k->hidden_maps |= UINT64_C(1) << j;
			continue;
		}
		for (r = 0; r < j && r <= TILE_TENSORDESC_MAX_RANK && p[j - 1 - r].kind == TILE__KIND_INT && p[j - 1 - r].size == 8; r++)
			;
		ok = r >= 1 && r <= TILE_TENSORDESC_MAX_RANK && j >= 2 * r + 1;
		for (i = 1; ok && i <= r; i++)
			ok = p[j - r - i].kind == TILE__KIND_INT && p[j - r - i].size == 4;
		if (!ok || p[j - 1 - 2 * r].kind != TILE__KIND_PTR || p[j - 1 - 2 * r].dtype != p[j].dtype)
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "kernel %u: tensor map parameter %u does not follow a descriptor group (a pointer of "
					  "its dtype, rank int32 shapes, rank int64 strides; rank 1..5)",
					  ki, j);
		p[j].desc_rank = (uint8_t)r;
	}
	k->copy_args = k->n_params > k->n_visible || k->map_mask;
	return TILE_SUCCESS;
}

static tile_status tile__check_kernels(tile_module *m, const uint8_t *p, uint8_t *param_owned, uint8_t *variant_owned)
{
	uint32_t *first = (uint32_t *)tile__alloc_array(m->n_kernels, sizeof *first), i;
	tile_status st;
	if (!first)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	st = tile__kernel_first_names(m, p, first);
	if (!st)
		st = tile__check_kernel_records(m, p, param_owned, variant_owned, first);
	for (i = 0; !st && i < m->n_kernels; i++)
		st = tile__check_maps(m, i);
	TILE_FREE(first);
	return st;
}

static int tile__popcount(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

static tile_status tile__check_variants(tile_module *m, const uint8_t *p, uint8_t *config_seen)
{
	uint32_t i, j, k;
	for (k = 0; k < m->n_kernels; k++) {
		memset(config_seen, 0, m->kernels[k].n_configs);
		const tile__kernel *kern = &m->kernels[k];
		uint64_t div;
		uint32_t int_mask = 0, visible_mask = kern->n_visible >= 32 ? 0xffffffffu : (1u << kern->n_visible) - 1;
		for (j = 0; j < kern->n_visible && j < 32; j++)
			if (m->params[kern->first_param + j].kind == TILE__KIND_INT || m->params[kern->first_param + j].kind == TILE__KIND_UINT)
				int_mask |= 1u << j;
		for (i = kern->first_variant; i < kern->first_variant + kern->n_variants; i++) {
			const uint8_t *r = p + (size_t)i * TILE__VARIANT_SIZE;
			tile__variant *v = &m->variants[i];
			int c0, c1, c2;
			v->kernel = tile__u32(r);
			v->symbol = tile__u32(r + 4);
			v->group = tile__u32(r + 8);
			v->first_constexpr = tile__u32(r + 12);
			v->n_constexprs = tile__u32(r + 16);
			v->num_warps = r[20];
			v->producer_warps = r[21];
			v->num_stages = (uint16_t)tile__u16(r + 22);
			v->shared_static = tile__u32(r + 24);
			v->shared_dynamic = tile__u32(r + 28);
			c0 = (int)tile__u16(r + 32);
			c1 = (int)tile__u16(r + 34);
			c2 = (int)tile__u16(r + 36);
			v->n_regs = (uint16_t)tile__u16(r + 38);
			v->pred_div16 = tile__u32(r + 40);
			v->pred_eq1 = tile__u32(r + 44);
			v->grid_offset = tile__u32(r + 48);
			v->grid_size = tile__u32(r + 52);
			v->spill_stores = tile__u32(r + 56);
			v->spill_loads = tile__u32(r + 60);
			v->config = tile__u32(r + 64);
			v->source_config = tile__u32(r + 68);
			v->pred_div8 = tile__u32(r + 72);
			v->pred_div4 = tile__u32(r + 76);
			if (v->kernel != k)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: kernel %u but listed by kernel %u", i, v->kernel, k);
			if (!tile__str_ok(m, v->symbol, 0))
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: symbol is not a string of the table", i);
			if (v->config >= kern->n_configs)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: config %u (kernel %u has %u)", i, v->config, k,
						  kern->n_configs);
			config_seen[v->config] = 1;
			if (v->group >= m->n_groups)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: group %u (blob has %u)", i, v->group, m->n_groups);
			if ((uint64_t)v->first_constexpr + v->n_constexprs > m->n_constexprs)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: constexpr range %u+%u outside the %u constexprs", i,
						  v->first_constexpr, v->n_constexprs, m->n_constexprs);
			if (v->num_warps < 1 || v->num_warps > 32)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: num_warps %u (1..32)", i, v->num_warps);
			if (v->num_warps + v->producer_warps > 32)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: num_warps %u and %u producer warps (at most 32)", i,
						  v->num_warps, v->producer_warps);
			if (c0 == 0 && c1 == 0 && c2 == 0)
				c0 = c1 = c2 = 1;
			if (c0 == 0 || c1 == 0 || c2 == 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: cluster %d x %d x %d", i, c0, c1, c2);
			v->cluster_dim[0] = (uint16_t)c0;
			v->cluster_dim[1] = (uint16_t)c1;
			v->cluster_dim[2] = (uint16_t)c2;
			v->cluster = c0 != 1 || c1 != 1 || c2 != 1;
			div = v->pred_div16 | v->pred_div8 | v->pred_div4;
			if ((div | v->pred_eq1) & ~visible_mask)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: predicate on a parameter the kernel does not have", i);
			if (v->pred_eq1 & ~int_mask)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: pred_eq1 on a parameter that is not an integer", i);
			if ((v->pred_div16 & v->pred_div8) | (v->pred_div16 & v->pred_div4) | (v->pred_div8 & v->pred_div4) |
			    (div & v->pred_eq1))
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: more than one predicate on a parameter", i);
			for (j = 0; j < kern->n_visible && j < 32; j++)
				if ((div >> j & 1) && m->params[kern->first_param + j].kind >= TILE__KIND_FLOAT)
					return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: pred_div%s on %s parameter %u", i,
							  v->pred_div16 >> j & 1 ? "16" : v->pred_div8 >> j & 1 ? "8" : "4",
							  m->params[kern->first_param + j].kind == TILE__KIND_FLOAT ? "float" : "tensor-map", j);
			if ((v->spill_stores == TILE__SPILLS_UNKNOWN) != (v->spill_loads == TILE__SPILLS_UNKNOWN) ||
			    (v->spill_stores != TILE__SPILLS_UNKNOWN &&
			     (v->spill_stores > TILE__MAX_SPILL || v->spill_loads > TILE__MAX_SPILL)))
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: spills %u stored, %u loaded (at most %u, or both unknown)",
						  i, v->spill_stores, v->spill_loads, TILE__MAX_SPILL);
			if ((uint64_t)v->grid_offset + v->grid_size > m->grid_code_size)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: grid program %u+%u outside grid_code of %u bytes", i,
						  v->grid_offset, v->grid_size, m->grid_code_size);
			v->block = 32u * v->num_warps;
			/* divisible by 16 or == 1 outranks by 8, which outranks by 4 (FORMAT.md) */
			v->n_preds = 3 * (tile__popcount(v->pred_div16) + tile__popcount(v->pred_eq1)) +
				     2 * tile__popcount(v->pred_div8) + tile__popcount(v->pred_div4);
			m->kernels[k].pred_mask |= div | v->pred_eq1;
			m->kernels[k].div_mask[0] |= v->pred_div16;
			m->kernels[k].div_mask[1] |= v->pred_div8;
			m->kernels[k].div_mask[2] |= v->pred_div4;
			if (v->grid_size) {
				tile_status st = tile__grid_check(m, i);
				if (st)
					return st;
			}
		}
		for (j = 0; j < kern->n_configs; j++)
			if (!config_seen[j])
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: config %u has no variant", k, j);
	}
	return TILE_SUCCESS;
}

/* Predicates on parameters 32 and up (version 6), once the variants are
 * decoded: each names a visible parameter of its variant's kernel from 32
 * on (the record's masks hold 0..31) and what it asks of it, by the rules
 * of the masks. (variant, param) ascends strictly, so a parameter has one
 * predicate at most. They join the variant's masks and rank and the
 * kernel's masks. */
static tile_status tile__check_preds(tile_module *m, const uint8_t *p)
{
	uint32_t i, prev_variant = 0, prev_param = 0;
	for (i = 0; i < m->n_preds; i++, p += TILE__PRED_SIZE) {
		uint32_t vi = tile__u32(p), j = tile__u16(p + 4), by = p[6];
		tile__variant *v;
		tile__kernel *k;
		const tile__param *q;
		uint64_t bit;
		if (vi >= m->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: variant %u (blob has %u)", i, vi, m->n_variants);
		if (i && (vi < prev_variant || (vi == prev_variant && j <= prev_param)))
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "pred %u: variant %u, parameter %u after pred %u's variant %u, parameter %u (preds ascend "
					  "by variant, then parameter; one a parameter)",
					  i, vi, j, i - 1, prev_variant, prev_param);
		prev_variant = vi;
		prev_param = j;
		v = &m->variants[vi];
		k = &m->kernels[v->kernel];
		if (j < 32 || j >= k->n_visible)
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "pred %u: parameter %u of kernel %u (%u visible) is not a visible parameter from 32 on", i,
					  j, v->kernel, k->n_visible);
		q = &m->params[k->first_param + j];
		if (by != 16 && by != 8 && by != 4 && by != 1)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: predicate %u (16, 8, 4: divisible by it; 1: equal to 1)", i,
					  by);
		if (by != 1 && q->kind >= TILE__KIND_FLOAT)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: divisible by %u on %s parameter %u", i, by,
					  q->kind == TILE__KIND_FLOAT ? "float" : "tensor-map", j);
		if (by == 1 && q->kind != TILE__KIND_INT && q->kind != TILE__KIND_UINT)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: equal to 1 on parameter %u, which is not an integer", i, j);
		if (p[7])
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: reserved byte not 0", i);
		bit = UINT64_C(1) << j;
		if (by == 16) {
			v->pred_div16 |= bit;
			k->div_mask[0] |= bit;
		} else if (by == 8) {
			v->pred_div8 |= bit;
			k->div_mask[1] |= bit;
		} else if (by == 4) {
			v->pred_div4 |= bit;
			k->div_mask[2] |= bit;
		} else {
			v->pred_eq1 |= bit;
		}
		v->n_preds += by == 8 ? 2 : by == 4 ? 1 : 3; /* the rank, as check_variants weighs the masks */
		k->pred_mask |= bit;
	}
	return TILE_SUCCESS;
}

/* Recipes, once the variants are decoded: each names a hidden tensor map
 * of its variant's kernel, the visible pointer of the map's dtype it
 * addresses, a rank, a program leaving the shape and the strides but the
 * last (2 * rank - 1 values), and the block shape. (variant, param)
 * ascends strictly, so each variant's recipes are one range. */
static tile_status tile__check_recipes(tile_module *m, const uint8_t *p)
{
	uint32_t i, j;
	for (i = 0; i < m->n_recipes; i++, p += TILE__RECIPE_SIZE) {
		tile__recipe *r = &m->recipes[i];
		const tile__recipe *prev = i ? r - 1 : NULL;
		const tile__param *map, *base;
		const tile__kernel *k;
		tile__variant *v;
		const uint8_t *code;
		uint32_t values;
		char who[48];
		tile_status st;
		r->variant = tile__u32(p);
		r->param = tile__u32(p + 4);
		r->base = tile__u32(p + 8);
		r->rank = tile__u32(p + 12);
		r->code_offset = tile__u32(p + 16);
		r->code_size = tile__u32(p + 20);
		for (j = 0; j < 5; j++)
			r->block[j] = (int32_t)tile__u16(p + 24 + 2 * j);
		if (r->variant >= m->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: variant %u (blob has %u)", i, r->variant, m->n_variants);
		if (prev && prev->variant == r->variant && prev->param == r->param)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: variant %u, parameter %u again (recipe %u)", i, r->variant,
					  r->param, i - 1);
		if (prev && (prev->variant > r->variant || (prev->variant == r->variant && prev->param > r->param)))
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "recipe %u: variant %u, parameter %u after recipe %u's variant %u, parameter %u (recipes "
					  "ascend by variant, then parameter)",
					  i, r->variant, r->param, i - 1, prev->variant, prev->param);
		v = &m->variants[r->variant];
		k = &m->kernels[v->kernel];
		if (r->param >= k->n_params || !(k->hidden_maps >> r->param & 1))
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: parameter %u of kernel %u is not a hidden tensor map", i,
					  r->param, v->kernel);
		map = &m->params[k->first_param + r->param];
		base = r->base < k->n_params ? &m->params[k->first_param + r->base] : NULL;
		if (!base || base->kind != TILE__KIND_PTR || base->hidden)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: base %u is not a visible pointer parameter of kernel %u", i,
					  r->base, v->kernel);
		if (base->dtype != map->dtype)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: base %u points to dtype %u, the tensor map's is %u", i, r->base,
					  base->dtype, map->dtype);
		if (r->rank < 1 || r->rank > TILE_TENSORDESC_MAX_RANK)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: rank %u (1..%d)", i, r->rank, TILE_TENSORDESC_MAX_RANK);
		if (r->code_size < 2 || (uint64_t)r->code_offset + r->code_size > m->grid_code_size)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: program %u+%u outside grid_code of %u bytes (or under 2 bytes)",
					  i, r->code_offset, r->code_size, m->grid_code_size);
		code = m->grid_code + r->code_offset;
		values = 2 * r->rank - 1;
		if (code[0] != values)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: a program of %u values for rank %u (2 * rank - 1 = %u)", i,
					  code[0], r->rank, values);
		snprintf(who, sizeof who, "recipe %u: program", i);
		if ((st = tile__program_check(m, k, v, code, r->code_size, values, who)) != TILE_SUCCESS)
			return st;
		for (j = 0; j < 5; j++) {
			if (j < r->rank && r->block[j] == 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: block[%u] = 0 (1..65535)", i, j);
			if (j >= r->rank && r->block[j] != 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: block[%u] = %d past rank %u (must be 0)", i, j,
						  (int)r->block[j], r->rank);
		}
		if (tile__u16(p + 34) != 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: reserved field not 0", i);
		if (!v->n_recipes)
			v->first_recipe = i;
		v->n_recipes++;
	}
	return TILE_SUCCESS;
}

static int tile__image_cmp(const void *a, const void *b)
{
	const tile__image *x = (const tile__image *)a, *y = (const tile__image *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static tile_status tile__check_images(tile_module *m, const uint8_t *p, uint8_t *group_seen)
{
	uint32_t data_start = TILE__HEADER_SIZE + tile__u32(m->blob + 20), i;
	tile__image *sorted;
	for (i = 0; i < m->n_images; i++, p += TILE__IMAGE_SIZE) {
		tile__image *im = &m->images[i];
		im->group = tile__u32(p);
		im->kind = tile__u32(p + 4);
		im->arch = tile__u32(p + 8);
		im->flags = tile__u32(p + 12);
		im->offset = tile__u32(p + 16);
		im->size = tile__u32(p + 20);
		im->raw_size = tile__u32(p + 24);
		im->compression = tile__u32(p + 28);
		if (im->group >= m->n_groups)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: group %u (blob has %u)", i, im->group, m->n_groups);
		if (im->kind > TILE__IMAGE_PTX)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: kind %u (0 cubin, 1 PTX)", i, im->kind);
		if (im->arch < 10 || im->arch > 9999)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: arch %u", i, im->arch);
		if (im->flags & ~(uint32_t)(TILE__IMAGE_ARCH_SPECIFIC | TILE__IMAGE_TENSORMAPS | TILE__IMAGE_PRODUCER))
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: flags 0x%x (only bits 0 to 2 defined)", i, im->flags);
		if (im->offset % 4 || im->offset < data_start || (uint64_t)im->offset + im->size > m->size)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: data %u+%u outside the image area %u..%lu", i,
					  im->offset, im->size, data_start, (unsigned long)m->size);
		if (im->raw_size == 0 || im->raw_size > TILE__MAX_RAW_SIZE)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: raw_size %u (1..256 MiB)", i, im->raw_size);
		if (im->compression > 1)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: compression %u (0 stored, 1 zlib)", i, im->compression);
		if (im->compression == 0 && im->size != im->raw_size)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: stored with size %u != raw_size %u", i, im->size, im->raw_size);
		if (im->compression == 1 && im->size < 8)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: zlib stream of %u bytes", i, im->size);
		group_seen[im->group] = 1;
	}
	for (i = 0; i < m->n_groups; i++)
		if (!group_seen[i])
			return tile__fail(TILE_ERROR_BAD_BLOB, "group %u: no image", i);
	if (m->n_images < 2)
		return TILE_SUCCESS;
	sorted = (tile__image *)TILE_MALLOC(m->n_images * sizeof *sorted);
	if (!sorted)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	memcpy(sorted, m->images, m->n_images * sizeof *sorted);
	qsort(sorted, m->n_images, sizeof *sorted, tile__image_cmp);
	for (i = 1; i < m->n_images; i++)
		if ((uint64_t)sorted[i - 1].offset + sorted[i - 1].size > sorted[i].offset)
			break;
	if (i < m->n_images) {
		uint32_t at = sorted[i].offset;
		TILE_FREE(sorted);
		return tile__fail(TILE_ERROR_BAD_BLOB, "images: data ranges overlap at offset %u", at);
	}
	TILE_FREE(sorted);
	return TILE_SUCCESS;
}

static void tile__module_free(tile_module *m)
{
	uint32_t i;
	for (i = 0; m->kernels && i < m->n_kernels; i++)
		TILE_FREE(m->kernels[i].runtime);
	TILE_FREE(m->tune);
	TILE_FREE(m->kernels);
	TILE_FREE(m->params);
	TILE_FREE(m->variants);
	TILE_FREE(m->images);
	TILE_FREE(m->recipes);
	TILE_FREE(m);
}

static tile_status tile__validate(tile_module *m)
{
	const uint8_t *arrays[TILE__N_ARRAYS];
	uint8_t *marks;
	uint32_t n_marks;
	tile_status st = tile__check_header(m);
	if (!st)
		st = tile__check_layout(m, arrays);
	if (st)
		return st;
	m->kernels = (tile__kernel *)tile__alloc_zeroed(m->n_kernels, sizeof *m->kernels);
	m->params = (tile__param *)tile__alloc_array(m->n_params, sizeof *m->params);
	m->variants = (tile__variant *)tile__alloc_zeroed(m->n_variants, sizeof *m->variants);
	m->images = (tile__image *)tile__alloc_array(m->n_images, sizeof *m->images);
	m->recipes = (tile__recipe *)tile__alloc_array(m->n_recipes, sizeof *m->recipes);
	/* marks: params owned, variants owned, groups with an image, configs
	 * seen (a kernel has at most as many configs as variants) */
	n_marks = m->n_params + 2 * m->n_variants + m->n_groups;
	marks = (uint8_t *)tile__alloc_zeroed(n_marks, 1);
	if (!m->kernels || !m->params || !m->variants || !m->images || !m->recipes || !marks) {
		TILE_FREE(marks);
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	st = tile__check_params(m, arrays[TILE__A_PARAMS]);
	if (!st)
		st = tile__check_constexprs(m);
	if (!st)
		st = tile__check_kernels(m, arrays[TILE__A_KERNELS], marks, marks + m->n_params);
	if (!st)
		st = tile__check_variants(m, arrays[TILE__A_VARIANTS], marks + m->n_params + m->n_variants + m->n_groups);
	if (!st)
		st = tile__check_preds(m, arrays[TILE__A_PREDS]);
	if (!st)
		st = tile__check_recipes(m, arrays[TILE__A_RECIPES]);
	if (!st)
		st = tile__check_images(m, arrays[TILE__A_IMAGES], marks + m->n_params + m->n_variants);
	if (!st)
		st = tile__check_tables(m, arrays[TILE__A_KERNELS], arrays[TILE__A_KEYS], arrays[TILE__A_TUNE]);
	if (!st)
		st = tile__check_heuristics(m, arrays[TILE__A_KERNELS], arrays[TILE__A_HEURISTICS]);
	TILE_FREE(marks);
	return st;
}

TILEDEF tile_status tile_module_create(const void *blob, size_t size, tile_module **out)
{
	tile_module *m;
	tile_status st;
	if (!out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_create: out is NULL");
	*out = NULL;
	if (!blob)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_create: blob is NULL");
	m = (tile_module *)TILE_MALLOC(sizeof *m);
	if (!m)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	memset(m, 0, sizeof *m);
	m->blob = (const uint8_t *)blob;
	m->size = size;
	st = tile__validate(m);
	if (!st && pthread_mutex_init(&m->lock, NULL) != 0)
		st = tile__fail(TILE_ERROR_OUT_OF_MEMORY, "pthread_mutex_init failed");
	if (st) {
		tile__module_free(m);
		return st;
	}
#ifdef TILE_DEBUG
	m->alive = TILE__ALIVE;
#endif
	*out = m;
	return TILE_SUCCESS;
}

TILEDEF int tile_kernel_count(const tile_module *m) { return m ? (int)m->n_kernels : 0; }

TILEDEF int tile_kernel_index(const tile_module *m, const char *name)
{
	uint32_t i;
	if (!m || !name)
		return -1;
	for (i = 0; i < m->n_kernels; i++)
		if (strcmp(tile__str(m, m->kernels[i].name), name) == 0)
			return (int)i;
	return -1;
}

static const tile__kernel *tile__kernel_at(const tile_module *m, int kernel)
{
	return m && kernel >= 0 && (uint32_t)kernel < m->n_kernels ? &m->kernels[kernel] : NULL;
}

TILEDEF const char *tile_kernel_name(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? tile__str(m, k->name) : NULL;
}

TILEDEF int tile_param_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_params : -1;
}

TILEDEF tile_status tile_param_get_info(const tile_module *m, int kernel, int param, tile_param_info *out)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__param *p;
	if (!k || !out || param < 0 || (uint32_t)param >= k->n_params)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_param_get_info: no parameter %d of kernel %d", param, kernel);
	p = &m->params[k->first_param + (uint32_t)param];
	out->name = tile__str(m, p->name);
	out->kind = p->kind;
	out->size = p->size;
	out->dtype = p->dtype;
	out->hidden = p->hidden;
	out->reset_to_zero = (p->flags >> 1) & 1;
	out->restore_value = (p->flags >> 2) & 1;
	return TILE_SUCCESS;
}

TILEDEF int tile_variant_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_variants : -1;
}

static const tile__variant *tile__variant_at(const tile_module *m, int kernel, int variant)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	if (!k || variant < 0 || (uint32_t)variant >= k->n_variants)
		return NULL;
	return &m->variants[k->first_variant + (uint32_t)variant];
}

TILEDEF tile_status tile_variant_get_info(const tile_module *m, int kernel, int variant, tile_variant_info *out)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	if (!v || !out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_variant_get_info: no variant %d of kernel %d", variant, kernel);
	out->symbol = tile__str(m, v->symbol);
	out->group = (int)v->group;
	out->num_warps = v->num_warps;
	out->producer_warps = v->producer_warps;
	out->num_stages = v->num_stages;
	out->shared_static = v->shared_static;
	out->shared_dynamic = v->shared_dynamic;
	memcpy(out->cluster, v->cluster_dim, sizeof out->cluster);
	out->n_regs = v->n_regs;
	out->spill_stores = v->spill_stores == TILE__SPILLS_UNKNOWN ? -1 : (int)v->spill_stores;
	out->spill_loads = v->spill_loads == TILE__SPILLS_UNKNOWN ? -1 : (int)v->spill_loads;
	/* parameters 0..31; n_high_preds counts the rest */
	out->pred_div16 = (uint32_t)v->pred_div16;
	out->pred_div8 = (uint32_t)v->pred_div8;
	out->pred_div4 = (uint32_t)v->pred_div4;
	out->pred_eq1 = (uint32_t)v->pred_eq1;
	out->n_constexprs = (int)v->n_constexprs;
	out->has_grid_program = v->grid_size != 0;
	out->config = (int)v->config;
	out->source_config = v->source_config == TILE__NO_SOURCE_CONFIG ? -1 : (int)v->source_config;
	out->n_recipes = (int)v->n_recipes;
	out->n_high_preds = tile__popcount((v->pred_div16 | v->pred_div8 | v->pred_div4 | v->pred_eq1) >> 32);
	return TILE_SUCCESS;
}

TILEDEF int tile_variant_predicate(const tile_module *m, int kernel, int variant, int param)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	uint64_t bit;
	if (!v || param < 0 || (uint32_t)param >= m->kernels[kernel].n_visible)
		return -1;
	bit = UINT64_C(1) << param;
	return v->pred_div16 & bit ? 16 : v->pred_div8 & bit ? 8 : v->pred_div4 & bit ? 4 : v->pred_eq1 & bit ? 1 : 0;
}

TILEDEF tile_status tile_recipe_get_info(const tile_module *m, int kernel, int variant, int index, tile_recipe_info *out)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	const tile__recipe *r;
	if (!v || !out || index < 0 || (uint32_t)index >= v->n_recipes)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_recipe_get_info: no recipe %d of variant %d of kernel %d", index,
				  variant, kernel);
	r = &m->recipes[v->first_recipe + (uint32_t)index];
	out->param = (int)r->param;
	out->base = (int)r->base;
	out->rank = (int)r->rank;
	memcpy(out->block_shape, r->block, sizeof out->block_shape);
	out->program = m->grid_code + r->code_offset;
	out->program_size = r->code_size;
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_constexpr_get_info(const tile_module *m, int kernel, int variant, int index, tile_constexpr_info *out)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	const uint8_t *c;
	uint64_t value;
	if (!v || !out || index < 0 || (uint32_t)index >= v->n_constexprs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_constexpr_get_info: no constexpr %d of variant %d of kernel %d",
				  index, variant, kernel);
	c = m->constexprs + (size_t)(v->first_constexpr + (uint32_t)index) * TILE__CONSTEXPR_SIZE;
	value = tile__u64(c + 8);
	out->name = tile__str(m, tile__u32(c));
	out->kind = c[4];
	out->ival = (int64_t)value;
	memcpy(&out->fval, &value, sizeof out->fval);
	out->sval = c[4] == 3 ? tile__str(m, (uint32_t)value) : NULL;
	return TILE_SUCCESS;
}

TILEDEF int tile_image_count(const tile_module *m) { return m ? (int)m->n_images : 0; }

TILEDEF tile_status tile_image_get_info(const tile_module *m, int image, tile_image_info *out)
{
	const tile__image *im;
	if (!m || !out || image < 0 || (uint32_t)image >= m->n_images)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_image_get_info: no image %d", image);
	im = &m->images[image];
	out->group = (int)im->group;
	out->kind = (int)im->kind;
	out->arch = (int)im->arch;
	out->flags = im->flags;
	out->size = im->size;
	out->raw_size = im->raw_size;
	out->compression = (int)im->compression;
	return TILE_SUCCESS;
}

TILEDEF const char *tile_status_string(tile_status status)
{
	switch (status) {
	case TILE_SUCCESS: return "success";
	case TILE_ERROR_INVALID_ARGUMENT: return "invalid argument";
	case TILE_ERROR_OUT_OF_MEMORY: return "out of memory";
	case TILE_ERROR_BAD_BLOB: return "invalid blob";
	case TILE_ERROR_VERSION: return "unsupported blob version";
	case TILE_ERROR_CHECKSUM: return "blob checksum mismatch";
	case TILE_ERROR_INFLATE: return "corrupt compressed image";
	case TILE_ERROR_NO_DRIVER: return "CUDA driver library not found";
	case TILE_ERROR_DRIVER_SYMBOL: return "CUDA driver entry point missing";
	case TILE_ERROR_CUDA: return "CUDA driver call failed";
	case TILE_ERROR_NO_IMAGE: return "no image for this device";
	case TILE_ERROR_JIT: return "PTX JIT compilation failed";
	case TILE_ERROR_GRID: return "invalid grid";
	case TILE_ERROR_NO_VARIANT: return "no variant matches the arguments";
	case TILE_ERROR_NOT_FOUND: return "not found";
	case TILE_ERROR_CAPTURING: return "module load during stream capture";
	case TILE_ERROR_DESTROYED: return "module used during or after destroy";
	}
	return "unknown status";
}

TILEDEF const char *tile_last_error(void) { return tile__detail; }

/* dispatch.h - autotuned kernels: tuning tables, config dispatch, tuning files.
 *
 * A kernel compiled with its @triton.autotune configs carries every config
 * as variants (each variant names its config) and a tuning table: the
 * integer parameters of the autotune key, entries of key values sorted in
 * signed lexicographic order with the config measured best for them, and a
 * default config. Validation (tile__check_tables, called by blob.h) decodes
 * the table words once into one array, checks that the kernels' key and
 * entry ranges follow one another and cover the arrays exactly, that keys
 * name distinct visible integer parameters, and that entries are strictly
 * ascending (no duplicate keys) with configs in range. At launch,
 * tile__dispatch reads the key arguments and looks them up by binary search
 * (O(k log n), no lock, no allocation); a key not in the table goes to the
 * nearest entry, in one pass over the table: first the fewest key
 * dimensions whose divisibility by 16, 8 or 4 differs from the arguments',
 * counting for each divisor only parameters some variant has that
 * predicate on (an aligned and an unaligned value run different variants,
 * whose best configs differ), then
 * the least distance in octaves (the absolute differences of the values'
 * base-2 logarithms, summed over the key's dimensions: 1536 is nearer
 * 2048 than 1024, 3000 nearer 4096 than 2048), then the first
 * entry in table order; an empty table goes to the default config. A
 * runtime table (tile_tuning_apply, from the text file tile-tune writes)
 * replaces the blob's: it is parsed, checked and sorted up front, then
 * published with a release store that the launch path reads with an
 * acquire load, so the launch path stays free of locks. */
#include <errno.h>

/* log2(v) in 1/256ths, 0 for values <= 1: the bit position of the
 * leading one, plus log2(1 + f) of the 16 bits after it taken as
 * f + 0.3466 f (1 - f) (within 0.005 of it), in integers. */
static int32_t tile__log2_q8(int64_t v)
{
	unsigned long long u = (unsigned long long)v;
	int e;
	uint32_t f;
	if (v <= 1)
		return 0;
	e = 63 - __builtin_clzll(u);
	f = (uint32_t)((e >= 16 ? u >> (e - 16) : u << (16 - e)) & 0xffff);
	return e * 256 + (int32_t)((f + (((uint64_t)f * (65536 - f)) >> 16) * 355 / 1024) >> 8);
}

/* <0, 0, >0 as key a (n values) sorts before, equal to, after b. */
static int tile__key_cmp(const int64_t *a, const int64_t *b, uint32_t n)
{
	uint32_t i;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* Bits 0, 1, 2: a value whose low 4 bits are the index is divisible by
 * 16, 8, 4 (two's complement: the low bits decide, negative values too).
 * Key dimension j's take bits 3j..3j+2. */
static const uint8_t tile__divisible[16] = {7, 0, 0, 0, 4, 0, 0, 0, 6, 0, 0, 0, 4, 0, 0, 0};

/* t->aligned for kernel k's table t, once its keys are known: bit 3j,
 * 3j+1 or 3j+2 when key j's parameter has a :16, :8 or :4 predicate in
 * some variant. */
static uint32_t tile__key_aligned(const tile__kernel *k, const tile__table *t)
{
	uint32_t i, by, aligned = 0;
	for (i = 0; i < t->n_keys; i++)
		for (by = 0; by < 3; by++)
			aligned |= (uint32_t)(k->div_mask[by] >> t->keys[i] & 1) << (3 * i + by);
	return aligned;
}

/* The config of the entry equal to key, else of the nearest entry, else
 * the default. Where t->aligned says a key dimension's parameter has a
 * divisibility predicate, an entry whose value's divisibility differs from
 * the key's was measured on another variant, so the number of such
 * dimensions ranks before the distance in octaves. */
static uint32_t tile__table_lookup(const tile__table *t, const int64_t *key)
{
	uint32_t stride = t->n_keys + 1, lo = 0, hi = t->n_entries, i, j, best = 0, key_div = 0;
	int64_t best_dist = -1;
	int32_t lq[TILE__MAX_KEYS];
	int best_miss = 0;
	if (!t->n_entries)
		return t->default_config;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const int64_t *e = t->words + (size_t)mid * stride;
		int c = tile__key_cmp(key, e, t->n_keys);
		if (c == 0)
			return (uint32_t)e[t->n_keys];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (j = 0; j < t->n_keys; j++) {
		lq[j] = tile__log2_q8(key[j]);
		key_div |= (uint32_t)tile__divisible[(uint64_t)key[j] & 15] << 3 * j;
	}
	for (i = 0; i < t->n_entries; i++) {
		const int64_t *e = t->words + (size_t)i * stride;
		int64_t dist = 0;
		uint32_t differ = 0;
		int miss;
		for (j = 0; j < t->n_keys; j++) {
			int32_t d = tile__log2_q8(e[j]) - lq[j];
			dist += d < 0 ? -d : d;
			differ |= (uint32_t)tile__divisible[(uint64_t)e[j] & 15] << 3 * j;
		}
		differ = (differ ^ key_div) & t->aligned;
		/* one count per dimension, whichever of its divisors differ */
		miss = tile__popcount((differ | differ >> 1 | differ >> 2) & 0x249249u);
		if (best_dist < 0 || miss < best_miss || (miss == best_miss && dist < best_dist)) {
			best_miss = miss;
			best_dist = dist;
			best = i;
		}
	}
	return (uint32_t)t->words[(size_t)best * stride + t->n_keys];
}

static const tile__table *tile__table_of(const tile__kernel *k)
{
	const tile__table *t = __atomic_load_n(&k->runtime, __ATOMIC_ACQUIRE);
	return t ? t : &k->table;
}

/* The config tile_launch runs for args (already checked non-NULL). */
static uint32_t tile__dispatch(const tile_module *m, const tile__kernel *k, void *const *args)
{
	const tile__table *t;
	int64_t key[TILE__MAX_KEYS];
	uint32_t i;
	if (k->n_configs <= 1)
		return 0;
	t = tile__table_of(k);
	for (i = 0; i < t->n_keys; i++)
		key[i] = (int64_t)tile__param_bits(&m->params[k->first_param + t->keys[i]], args[t->keys[i]]);
	return tile__table_lookup(t, key);
}

/* Key parameter `param` of kernel kernel: a visible integer parameter. */
static int tile__key_param_ok(const tile_module *m, const tile__kernel *k, uint32_t param)
{
	uint8_t kind;
	if (param >= k->n_visible)
		return 0;
	kind = m->params[k->first_param + param].kind;
	return kind == TILE__KIND_INT || kind == TILE__KIND_UINT;
}

static tile_status tile__check_tables(tile_module *m, const uint8_t *records, const uint8_t *keys, const uint8_t *tune)
{
	uint32_t ki, i, j, key_at = 0, word_at = 0;
	m->tune = (int64_t *)tile__alloc_array(m->tune_words, sizeof(int64_t));
	if (!m->tune)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	for (i = 0; i < m->tune_words; i++)
		m->tune[i] = (int64_t)tile__u64(tune + (size_t)i * 8);
	for (ki = 0; ki < m->n_kernels; ki++) {
		const uint8_t *r = records + (size_t)ki * TILE__KERNEL_SIZE;
		tile__kernel *k = &m->kernels[ki];
		tile__table *t = &k->table;
		uint32_t first_key = tile__u32(r + 28), first_entry = tile__u32(r + 36);
		uint64_t words;
		t->default_config = tile__u32(r + 24);
		t->n_keys = tile__u32(r + 32);
		t->n_entries = tile__u32(r + 40);
		if (t->default_config >= k->n_configs)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: default config %u (it has %u)", ki, t->default_config, k->n_configs);
		if (first_key != key_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: first_key %u (expected %u: kernels' keys follow one another)", ki,
					  first_key, key_at);
		if (t->n_keys > TILE__MAX_KEYS || t->n_keys > m->n_keys - key_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u keys (at most %u, inside the %u keys)", ki, t->n_keys,
					  TILE__MAX_KEYS, m->n_keys);
		for (i = 0; i < t->n_keys; i++) {
			uint32_t param = tile__u32(keys + (size_t)(key_at + i) * 4);
			if (!tile__key_param_ok(m, k, param))
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: key %u names parameter %u, not a visible integer parameter", ki,
						  i, param);
			for (j = 0; j < i; j++)
				if (t->keys[j] == param)
					return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: key %u repeats parameter %u", ki, i, param);
			t->keys[i] = (uint8_t)param;
		}
		t->aligned = tile__key_aligned(k, t);
		key_at += t->n_keys;
		if (first_entry != word_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: first_entry %u (expected %u: kernels' entries follow one another)",
					  ki, first_entry, word_at);
		if (t->n_entries && !t->n_keys)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u tuning entries but no key", ki, t->n_entries);
		words = (uint64_t)t->n_entries * (t->n_keys + 1);
		if (words > m->tune_words - word_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u tuning entries outside the %u table words", ki, t->n_entries,
					  m->tune_words);
		t->words = m->tune + word_at;
		for (i = 0; i < t->n_entries; i++) {
			const int64_t *e = t->words + (size_t)i * (t->n_keys + 1);
			if (e[t->n_keys] < 0 || (uint64_t)e[t->n_keys] >= k->n_configs)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: tuning entry %u: config %lld (it has %u)", ki, i,
						  (long long)e[t->n_keys], k->n_configs);
			if (i && tile__key_cmp(e - (t->n_keys + 1), e, t->n_keys) >= 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: tuning entry %u: %s", ki, i,
						  tile__key_cmp(e - (t->n_keys + 1), e, t->n_keys) ? "keys not in ascending order"
												   : "the same key as the entry before");
		}
		word_at += (uint32_t)words;
	}
	if (key_at != m->n_keys || word_at != m->tune_words)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: the kernels use %u of %u keys and %u of %u table words", key_at,
				  m->n_keys, word_at, m->tune_words);
	return TILE_SUCCESS;
}

/* Heuristics: each names an int or bool constexpr that every variant of
 * its kernel has (its value decoded into the variant), and a program of
 * one result valid for every variant's constexprs. Kernels' ranges follow
 * one another and cover the array. */
static tile_status tile__check_heuristics(tile_module *m, const uint8_t *records, const uint8_t *heuristics)
{
	uint32_t ki, h, vi, c, at = 0;
	for (ki = 0; ki < m->n_kernels; ki++) {
		const uint8_t *r = records + (size_t)ki * TILE__KERNEL_SIZE;
		tile__kernel *k = &m->kernels[ki];
		uint32_t first = tile__u32(r + 44);
		k->n_heuristics = tile__u32(r + 48);
		if (first != at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: first_heuristic %u (expected %u: kernels' heuristics follow one "
					  "another)", ki, first, at);
		if (k->n_heuristics > TILE__MAX_HEURISTICS || k->n_heuristics > m->n_heuristics - at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u heuristics (at most %u, inside the %u heuristics)", ki,
					  k->n_heuristics, TILE__MAX_HEURISTICS, m->n_heuristics);
		for (h = 0; h < k->n_heuristics; h++) {
			const uint8_t *q = heuristics + (size_t)(at + h) * TILE__HEURISTIC_SIZE;
			tile__heuristic *hd = &k->heuristics[h];
			char who[64];
			hd->name = tile__u32(q);
			hd->offset = tile__u32(q + 4);
			hd->size = tile__u32(q + 8);
			if (!tile__str_ok(m, hd->name, 0))
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: name is not a string of the table", ki, h);
			for (c = 0; c < h; c++)
				if (!strcmp(tile__str(m, k->heuristics[c].name), tile__str(m, hd->name)))
					return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: '%s' computed twice", ki, h,
							  tile__str(m, hd->name));
			if (hd->size < 2 || (uint64_t)hd->offset + hd->size > m->grid_code_size)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: program %u+%u outside grid_code of %u bytes", ki,
						  h, hd->offset, hd->size, m->grid_code_size);
			if (m->grid_code[hd->offset] != 1)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: a program of %u results (1)", ki, h,
						  m->grid_code[hd->offset]);
			snprintf(who, sizeof who, "kernel %u: heuristic %u", ki, h);
			for (vi = k->first_variant; vi < k->first_variant + k->n_variants; vi++) {
				tile__variant *v = &m->variants[vi];
				tile_status st = tile__program_check(m, k, v, m->grid_code + hd->offset, hd->size, 1, who);
				if (st)
					return st;
				for (c = 0; c < v->n_constexprs; c++) {
					const uint8_t *x = m->constexprs + (size_t)(v->first_constexpr + c) * TILE__CONSTEXPR_SIZE;
					if (!strcmp(tile__str(m, tile__u32(x)), tile__str(m, hd->name)) && (x[4] == 0 || x[4] == 2)) {
						v->heuristic_values[h] = (int64_t)tile__u64(x + 8);
						v->heuristic_bools |= (uint32_t)(x[4] == 2) << h;
						break;
					}
				}
				if (c == v->n_constexprs)
					return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: variant %u has no int or bool constexpr '%s'",
							  ki, h, vi, tile__str(m, hd->name));
			}
		}
		at += k->n_heuristics;
	}
	if (at != m->n_heuristics)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: the kernels use %u of %u heuristics", at, m->n_heuristics);
	return TILE_SUCCESS;
}

/* Whether each heuristic of k, evaluated for args with v's constexprs,
 * gives v's value. A program that fails (division by zero) holds for no
 * variant. */
static int tile__heuristics_hold(const tile_module *m, const tile__kernel *k, const tile__variant *v, void *const *args)
{
	uint32_t h;
	for (h = 0; h < k->n_heuristics; h++) {
		const tile__heuristic *hd = &k->heuristics[h];
		int64_t r[1];
		if (tile__program_eval(m, v, m->grid_code + hd->offset, hd->size, args, r, 1, "heuristic", NULL) != TILE_SUCCESS)
			return 0;
		/* a bool constexpr takes the result's truth, an int one its value */
		if ((v->heuristic_bools >> h & 1) ? (r[0] != 0) != (v->heuristic_values[h] != 0) : r[0] != v->heuristic_values[h])
			return 0;
	}
	return 1;
}

TILEDEF int tile_heuristic_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_heuristics : -1;
}

TILEDEF tile_status tile_heuristic_get_info(const tile_module *m, int kernel, int index, tile_heuristic_info *out)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	if (!k || !out || index < 0 || (uint32_t)index >= k->n_heuristics)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_heuristic_get_info: no heuristic %d of kernel %d", index, kernel);
	out->name = tile__str(m, k->heuristics[index].name);
	out->program = m->grid_code + k->heuristics[index].offset;
	out->program_size = k->heuristics[index].size;
	return TILE_SUCCESS;
}

TILEDEF int tile_config_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_configs : -1;
}

TILEDEF int tile_dispatch_config(const tile_module *m, int kernel, void **args, int nargs)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	int i;
	if (!k || nargs != (int)k->n_visible || (nargs && !args))
		return -1;
	for (i = 0; i < nargs; i++)
		if (!args[i])
			return -1;
	return (int)tile__dispatch(m, k, args);
}

TILEDEF tile_status tile_tuning_get_info(const tile_module *m, int kernel, tile_tuning_info *out)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__table *t;
	uint32_t i;
	if (!k || !out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_tuning_get_info: no kernel %d", kernel);
	t = tile__table_of(k);
	memset(out, 0, sizeof *out);
	out->n_keys = (int)t->n_keys;
	for (i = 0; i < t->n_keys; i++)
		out->key_params[i] = t->keys[i];
	out->n_entries = (int)t->n_entries;
	out->default_config = (int)t->default_config;
	out->runtime = t != &k->table;
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_tuning_get_entry(const tile_module *m, int kernel, int entry, int64_t *keys, int *config)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__table *t = k ? tile__table_of(k) : NULL;
	const int64_t *e;
	if (!t || entry < 0 || (uint32_t)entry >= t->n_entries || (!keys && t->n_keys) || !config)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_tuning_get_entry: no entry %d of kernel %d", entry, kernel);
	e = t->words + (size_t)entry * (t->n_keys + 1);
	if (t->n_keys)
		memcpy(keys, e, t->n_keys * sizeof *keys);
	*config = (int)e[t->n_keys];
	return TILE_SUCCESS;
}

/* ---- a kernel's identity (docs/TUNING.md) --------------------------------
 *
 * FNV-1a over what decides which code each config runs: integers as 8
 * little-endian bytes, strings with their NUL. Neither the tuning table
 * (tilec embeds the file's own) nor the images, symbols or resources. */

static void tile__fnv(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	while (n--) {
		*h ^= *b++;
		*h *= 0x100000001b3ull;
	}
}

static void tile__fnv_u64(uint64_t *h, uint64_t v)
{
	uint8_t b[8];
	int i;
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> 8 * i);
	tile__fnv(h, b, 8);
}

static void tile__fnv_str(uint64_t *h, const char *s) { tile__fnv(h, s, strlen(s) + 1); }

TILEDEF uint64_t tile_kernel_identity(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i, c;
	if (!k)
		return 0;
	tile__fnv_str(&h, tile__str(m, k->name));
	tile__fnv_u64(&h, k->n_params);
	for (i = 0; i < k->n_params; i++) {
		const tile__param *p = &m->params[k->first_param + i];
		tile__fnv_str(&h, tile__str(m, p->name));
		tile__fnv_u64(&h, p->kind);
		tile__fnv_u64(&h, p->size);
		tile__fnv_u64(&h, p->dtype);
		tile__fnv_u64(&h, p->flags);
	}
	tile__fnv_u64(&h, k->n_configs);
	tile__fnv_u64(&h, k->n_heuristics);
	for (i = 0; i < k->n_heuristics; i++)
		tile__fnv_str(&h, tile__str(m, k->heuristics[i].name));
	tile__fnv_u64(&h, k->n_variants);
	for (i = 0; i < k->n_variants; i++) {
		const tile__variant *v = &m->variants[k->first_variant + i];
		tile__fnv_u64(&h, v->config);
		tile__fnv_u64(&h, v->source_config);
		tile__fnv_u64(&h, v->num_warps);
		tile__fnv_u64(&h, v->num_stages);
		for (c = 0; c < 3; c++)
			tile__fnv_u64(&h, v->cluster_dim[c]);
		tile__fnv_u64(&h, v->pred_div16);
		tile__fnv_u64(&h, v->pred_div8);
		tile__fnv_u64(&h, v->pred_div4);
		tile__fnv_u64(&h, v->pred_eq1);
		tile__fnv_u64(&h, v->n_constexprs);
		for (c = 0; c < v->n_constexprs; c++) {
			const uint8_t *x = m->constexprs + (size_t)(v->first_constexpr + c) * TILE__CONSTEXPR_SIZE;
			tile__fnv_str(&h, tile__str(m, tile__u32(x)));
			tile__fnv_u64(&h, x[4]);
			if (x[4] == 3) /* a string: its text, not its offset */
				tile__fnv_str(&h, tile__str(m, (uint32_t)tile__u64(x + 8)));
			else
				tile__fnv_u64(&h, tile__u64(x + 8));
		}
	}
	return h ? h : 1; /* 0 says: no such kernel */
}

/* ---- tuning files (docs/TUNING.md) ---------------------------------------
 *
 *   tile-tuning 2
 *   kernel NAME identity H configs N key P1,P2,... default D   ("key -": none;
 *                                                   H: tile_kernel_identity, 16 hex digits)
 *   V1 V2 ... CONFIG                                    one entry per line
 *
 * '#' starts a comment; blank lines are skipped. A version 1 file (no
 * identity) is refused: nothing says which blob it was measured on. */

#define TILE__TUNE_LINE 1024

typedef struct tile__tune_reader {
	const char *p, *end;
	int line;
	char buf[TILE__TUNE_LINE];
	char *tok[TILE__MAX_KEYS + 8];
	int ntok;
} tile__tune_reader;

/* The next line with tokens, split in place; 0 at the end, -1 when a line
 * is too long. */
static int tile__tune_next(tile__tune_reader *r)
{
	while (r->p < r->end) {
		const char *e = r->p;
		size_t n;
		char *s;
		while (e < r->end && *e != '\n')
			e++;
		n = (size_t)(e - r->p);
		r->line++;
		if (n >= sizeof r->buf)
			return -1;
		memcpy(r->buf, r->p, n);
		r->buf[n] = 0;
		r->p = e < r->end ? e + 1 : e;
		if ((s = strchr(r->buf, '#')) != NULL)
			*s = 0;
		r->ntok = 0;
		for (s = r->buf; *s;) {
			while (*s == ' ' || *s == '\t' || *s == '\r')
				*s++ = 0;
			if (!*s)
				break;
			if (r->ntok == (int)(sizeof r->tok / sizeof r->tok[0])) {
				r->ntok++;
				break;
			}
			r->tok[r->ntok++] = s;
			while (*s && *s != ' ' && *s != '\t' && *s != '\r')
				s++;
		}
		if (r->ntok)
			return 1;
	}
	return 0;
}

static int tile__tune_int(const char *s, int64_t *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		return 0;
	*out = v;
	return 1;
}

/* An identity: exactly 16 hex digits. */
static int tile__tune_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 16; i++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	if (s[16])
		return 0;
	*out = v;
	return 1;
}

/* Entry lines after the current one, up to the next kernel line. */
static uint32_t tile__tune_count(const tile__tune_reader *r)
{
	tile__tune_reader peek = *r;
	uint32_t n = 0;
	while (tile__tune_next(&peek) == 1 && strcmp(peek.tok[0], "kernel") != 0)
		n++;
	return n;
}

/* Sorts the entries (insertion sort: tables are small and this runs once). */
static void tile__tune_sort(tile__table *t, int64_t *words)
{
	uint32_t stride = t->n_keys + 1, i, j;
	int64_t tmp[TILE__MAX_KEYS + 1];
	for (i = 1; i < t->n_entries; i++) {
		memcpy(tmp, words + (size_t)i * stride, stride * sizeof *tmp);
		for (j = i; j > 0 && tile__key_cmp(words + (size_t)(j - 1) * stride, tmp, t->n_keys) > 0; j--)
			memcpy(words + (size_t)j * stride, words + (size_t)(j - 1) * stride, stride * sizeof *tmp);
		memcpy(words + (size_t)j * stride, tmp, stride * sizeof *tmp);
	}
}

/* Parses the kernel line in r and the entries after it into a new table
 * (one allocation: the struct, its words, its key names). */
static tile_status tile__tune_section(tile_module *m, tile__tune_reader *r, uint32_t *kernel_out, tile__table **out)
{
	const tile__kernel *k;
	tile__table *t;
	int64_t *words, n_configs = 0, def = 0;
	uint64_t identity = 0, own;
	char *names, *key_list = NULL, *s;
	uint32_t cap, i, stride;
	int ki, line = r->line, have_configs = 0, have_default = 0, have_identity = 0;
	tile_status st;
	size_t names_len;
	if (r->ntok < 2)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: 'kernel' needs a name", line);
	ki = tile_kernel_index(m, r->tok[1]);
	if (ki < 0)
		return tile__fail(TILE_ERROR_NOT_FOUND, "tuning line %d: the module has no kernel '%s'", line, r->tok[1]);
	k = &m->kernels[ki];
	for (i = 2; i < (uint32_t)r->ntok; i += 2) {
		const char *name = r->tok[i], *val = i + 1 < (uint32_t)r->ntok ? r->tok[i + 1] : NULL;
		if (!val)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: '%s' needs a value", line, name);
		if (!strcmp(name, "configs") && tile__tune_int(val, &n_configs))
			have_configs = 1;
		else if (!strcmp(name, "default") && tile__tune_int(val, &def))
			have_default = 1;
		else if (!strcmp(name, "identity") && tile__tune_hex(val, &identity))
			have_identity = 1;
		else if (!strcmp(name, "key"))
			key_list = r->tok[i + 1];
		else
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: unknown or bad field '%s %s'", line, name, val);
	}
	if (!have_identity)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: needs 'identity H' (16 hex digits: the "
				  "kernel's tile_kernel_identity, as tile-tune writes it)", line, r->tok[1]);
	if (!have_configs || n_configs != (int64_t)k->n_configs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: the file was measured with %lld configs, "
				  "the blob has %u", line, r->tok[1], (long long)n_configs, k->n_configs);
	own = tile_kernel_identity(m, ki);
	if (identity != own)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: the file was tuned for identity %016llx, "
				  "this blob's kernel %s is %016llx (other configs, signatures or constexprs): re-run tile-tune with "
				  "this blob", line, r->tok[1], (unsigned long long)identity, r->tok[1], (unsigned long long)own);
	if (!have_default || def < 0 || def >= n_configs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: needs 'default D' with D < %lld", line,
				  r->tok[1], (long long)n_configs);
	if (!key_list)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: needs 'key P1,P2,...' (or 'key -')", line,
				  r->tok[1]);
	cap = tile__tune_count(r);
	names_len = strlen(key_list) + 1;
	/* at most TILE__MAX_KEYS keys: checked below, the words sized for that */
	t = (tile__table *)TILE_MALLOC(sizeof *t + (size_t)cap * (TILE__MAX_KEYS + 1) * sizeof(int64_t) + names_len);
	if (!t)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	memset(t, 0, sizeof *t);
	words = (int64_t *)(void *)(t + 1);
	names = (char *)(words + (size_t)cap * (TILE__MAX_KEYS + 1));
	memcpy(names, key_list, names_len);
	t->words = words;
	t->names = names;
	t->default_config = (uint32_t)def;
	for (s = names; strcmp(names, "-") != 0 && *s;) {
		char *comma = strchr(s, ',');
		uint32_t p;
		if (comma)
			*comma = 0;
		for (p = 0; p < k->n_visible; p++)
			if (!strcmp(tile__str(m, m->params[k->first_param + p].name), s))
				break;
		if (t->n_keys == TILE__MAX_KEYS || p == k->n_visible || !tile__key_param_ok(m, k, p)) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: key '%s' is not an integer parameter "
					  "(or more than %d keys)", line, tile__str(m, k->name), s, TILE__MAX_KEYS);
			goto fail;
		}
		for (i = 0; i < t->n_keys; i++)
			if (t->keys[i] == p) {
				st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: key '%s' given twice", line, s);
				goto fail;
			}
		t->keys[t->n_keys++] = (uint8_t)p;
		if (!comma)
			break;
		s = comma + 1;
	}
	t->aligned = tile__key_aligned(k, t);
	stride = t->n_keys + 1;
	while (t->n_entries < cap && tile__tune_next(r) == 1) {
		int64_t *e = words + (size_t)t->n_entries * stride;
		if (r->ntok != (int)stride) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: %d fields, expected %u key values and a config",
					  r->line, r->ntok, t->n_keys);
			goto fail;
		}
		for (i = 0; i < stride; i++)
			if (!tile__tune_int(r->tok[i], &e[i])) {
				st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: '%s' is not an integer", r->line, r->tok[i]);
				goto fail;
			}
		if (e[t->n_keys] < 0 || e[t->n_keys] >= n_configs) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: config %lld (the kernel has %lld)", r->line,
					  (long long)e[t->n_keys], (long long)n_configs);
			goto fail;
		}
		t->n_entries++;
	}
	if (t->n_entries && !t->n_keys) {
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: entries but 'key -'", line);
		goto fail;
	}
	tile__tune_sort(t, words);
	for (i = 1; i < t->n_entries; i++)
		if (!tile__key_cmp(words + (size_t)(i - 1) * stride, words + (size_t)i * stride, t->n_keys)) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: a key appears twice", line,
					  tile__str(m, k->name));
			goto fail;
		}
	*kernel_out = (uint32_t)ki;
	*out = t;
	return TILE_SUCCESS;
fail:
	TILE_FREE(t);
	return st;
}

TILEDEF tile_status tile_tuning_apply(tile_module *m, const char *text, size_t len)
{
	tile__tune_reader *r;
	tile__table **pending;
	tile_status st = TILE_SUCCESS;
	uint32_t i;
	int got;
	if (!m || !text)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_tuning_apply: NULL argument");
	r = (tile__tune_reader *)TILE_MALLOC(sizeof *r);
	pending = (tile__table **)tile__alloc_zeroed(m->n_kernels, sizeof *pending);
	if (!r || !pending) {
		TILE_FREE(r);
		TILE_FREE(pending);
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	memset(r, 0, sizeof *r);
	r->p = text;
	r->end = text + (len ? len : strlen(text));
	got = tile__tune_next(r);
	if (got == 1 && r->ntok == 2 && !strcmp(r->tok[0], "tile-tuning") && !strcmp(r->tok[1], "1"))
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: a version 1 file ('tile-tuning 1') does not record "
				"the identity of the blob it was tuned for: re-run tile-tune with this blob (this loader reads "
				"'tile-tuning 2')", r->line);
	else if (got != 1 || r->ntok != 2 || strcmp(r->tok[0], "tile-tuning") != 0 || strcmp(r->tok[1], "2") != 0)
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: expected 'tile-tuning 2'", r->line);
	while (!st && (got = tile__tune_next(r)) == 1) {
		uint32_t ki = 0;
		tile__table *t = NULL;
		if (strcmp(r->tok[0], "kernel") != 0) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: expected 'kernel NAME ...'", r->line);
			break;
		}
		if ((st = tile__tune_section(m, r, &ki, &t)) != TILE_SUCCESS)
			break;
		if (pending[ki]) {
			TILE_FREE(t);
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning: kernel %s appears twice", tile__str(m, m->kernels[ki].name));
		} else {
			pending[ki] = t;
		}
	}
	if (!st && got < 0)
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: longer than %d bytes", r->line, TILE__TUNE_LINE - 1);
	for (i = 0; i < m->n_kernels; i++) {
		if (st) {
			TILE_FREE(pending[i]);
		} else if (pending[i]) {
			tile__table *old = __atomic_exchange_n(&m->kernels[i].runtime, pending[i], __ATOMIC_ACQ_REL);
			TILE_FREE(old);
		}
	}
	TILE_FREE(pending);
	TILE_FREE(r);
	return st;
}

/* driver.h - the CUDA driver, opened with dlopen.
 *
 * No cuda.h: the few types the loader needs are declared here with the
 * driver's ABI (enums are ints, handles are pointers, CUdevice is an int).
 * Every entry point is listed once in TILE__DRIVER_SYMBOLS, which expands to
 * the function-pointer table and to the dlsym loop; where cuda.h maps a name
 * to a versioned symbol (cuDevicePrimaryCtxRelease -> _v2) the table names
 * the versioned one. TILE__DRIVER_OPTIONAL lists entry points newer than
 * the oldest driver the loader runs on: cuCtxGetId (CUDA 12.0: unique
 * context IDs), cuStreamIsCapturing (CUDA 10.0) and cuTensorMapEncodeTiled
 * (CUDA 12.0: TMA tensor maps); a missing one is left NULL and the loader
 * does without (launch.h says how), or, for tensor maps, refuses only the
 * launches that need one (tensordesc.h). The library is
 * opened once per process under
 * pthread_once; cuInit(0) runs then too. The outcome is kept so that every
 * later caller gets the same status, with the detail written into its own
 * thread's message. TILE_LIBCUDA_NAME replaces the library name (tests point
 * it at a fake driver). */

typedef int tile__CUresult;

enum {
	TILE__CU_DEVICE_ATTRIBUTE_CC_MAJOR = 75,
	TILE__CU_DEVICE_ATTRIBUTE_CC_MINOR = 76,
	TILE__CU_DEVICE_ATTRIBUTE_SMEM_OPTIN = 97,
	TILE__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
	TILE__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	TILE__CU_JIT_ERROR_LOG_BUFFER = 5,
	TILE__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
	TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
	TILE__CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1,
	TILE__CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
	TILE__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
	TILE__CU_STREAM_CAPTURE_STATUS_NONE = 0,
	TILE__CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906
};

/* CUlaunchAttribute: an enum id, padding to 8, a 64-byte value union. */
typedef struct tile__CUlaunchAttribute {
	int id;
	char pad[4];
	union {
		char bytes[64];
		struct {
			unsigned int x, y, z;
		} cluster;
		int policy;
		int programmatic; /* programmaticStreamSerializationAllowed */
		int cooperative;
		void *align;
	} value;
} tile__CUlaunchAttribute;

typedef struct tile__CUlaunchConfig {
	unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
	void *hStream;
	tile__CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} tile__CUlaunchConfig;

#define TILE__DRIVER_SYMBOLS(X) \
	X(cuInit, "cuInit", (unsigned int flags)) \
	X(cuDeviceGet, "cuDeviceGet", (int *device, int ordinal)) \
	X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *value, int attribute, int device)) \
	X(cuCtxGetCurrent, "cuCtxGetCurrent", (void **ctx)) \
	X(cuCtxSetCurrent, "cuCtxSetCurrent", (void *ctx)) \
	X(cuCtxGetDevice, "cuCtxGetDevice", (int *device)) \
	X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (void **ctx, int device)) \
	X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (int device)) \
	X(cuModuleLoadData, "cuModuleLoadData", (void **module, const void *image)) \
	X(cuModuleLoadDataEx, "cuModuleLoadDataEx", (void **module, const void *image, unsigned int n, int *options, void **values)) \
	X(cuModuleUnload, "cuModuleUnload", (void *module)) \
	X(cuModuleGetFunction, "cuModuleGetFunction", (void **func, void *module, const char *name)) \
	X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *value, int attribute, void *func)) \
	X(cuFuncSetAttribute, "cuFuncSetAttribute", (void *func, int attribute, int value)) \
	X(cuLaunchKernel, "cuLaunchKernel", (void *func, unsigned int gx, unsigned int gy, unsigned int gz, \
					     unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, \
					     void *stream, void **params, void **extra)) \
	X(cuLaunchKernelEx, "cuLaunchKernelEx", (const tile__CUlaunchConfig *config, void *func, void **params, void **extra)) \
	X(cuGetErrorName, "cuGetErrorName", (tile__CUresult error, const char **name)) \
	X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))

#define TILE__DRIVER_OPTIONAL(X) \
	X(cuCtxGetId, "cuCtxGetId", (void *ctx, unsigned long long *id)) \
	X(cuStreamIsCapturing, "cuStreamIsCapturing", (void *stream, int *status)) \
	X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", (void *map, int data_type, uint32_t rank, void *address, \
							      const uint64_t *dims, const uint64_t *strides, const uint32_t *box, \
							      const uint32_t *element_strides, int interleave, int swizzle, \
							      int l2_promotion, int oob_fill))

typedef struct tile__driver_table {
#define TILE__DRIVER_FIELD(name, symbol, params) tile__CUresult (*name) params;
	TILE__DRIVER_SYMBOLS(TILE__DRIVER_FIELD)
	TILE__DRIVER_OPTIONAL(TILE__DRIVER_FIELD)
#undef TILE__DRIVER_FIELD
} tile__driver_table;

static tile__driver_table tile__cu;
static pthread_once_t tile__driver_once = PTHREAD_ONCE_INIT;
static tile_status tile__driver_status;
static int tile__driver_ready;
static const char *tile__driver_missing;   /* the symbol dlsym did not find */
static tile__CUresult tile__driver_init_error;
static char tile__driver_dlerror[256];

static void tile__driver_open(void)
{
	const char *err;
	void *lib, *sym;
#ifdef TILE_LIBCUDA_NAME
	const char *tried = TILE_LIBCUDA_NAME;
	lib = dlopen(TILE_LIBCUDA_NAME, RTLD_NOW | RTLD_LOCAL);
#else
	const char *tried = "libcuda.so.1, then libcuda.so";
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
#endif
	if (!lib) {
		err = dlerror();
		snprintf(tile__driver_dlerror, sizeof tile__driver_dlerror, "%s (%s)", tried, err ? err : "unknown error");
		tile__driver_status = TILE_ERROR_NO_DRIVER;
		return;
	}
	/* memcpy: ISO C has no conversion from void * to a function pointer. */
#define TILE__DRIVER_LOAD(name, symbol, params) \
	sym = dlsym(lib, symbol); \
	if (!sym) { \
		tile__driver_missing = symbol; \
		tile__driver_status = TILE_ERROR_DRIVER_SYMBOL; \
		return; \
	} \
	memcpy(&tile__cu.name, &sym, sizeof sym);
	TILE__DRIVER_SYMBOLS(TILE__DRIVER_LOAD)
#undef TILE__DRIVER_LOAD
#define TILE__DRIVER_LOAD_OPTIONAL(name, symbol, params) \
	sym = dlsym(lib, symbol); \
	if (sym) \
		memcpy(&tile__cu.name, &sym, sizeof sym);
	TILE__DRIVER_OPTIONAL(TILE__DRIVER_LOAD_OPTIONAL)
#undef TILE__DRIVER_LOAD_OPTIONAL
	tile__driver_init_error = tile__cu.cuInit(0);
	tile__driver_status = tile__driver_init_error ? TILE_ERROR_CUDA : TILE_SUCCESS;
	__atomic_store_n(&tile__driver_ready, tile__driver_status == TILE_SUCCESS, __ATOMIC_RELEASE);
}

static const char *tile__cuda_error_name(tile__CUresult r)
{
	const char *name = NULL;
	if (tile__cu.cuGetErrorName(r, &name) != 0 || !name)
		return "unknown CUDA error";
	return name;
}

/* "call: CUDA_ERROR_xxx" as the thread's detail. */
static tile_status tile__cuda_fail(const char *call, tile__CUresult r)
{
	return tile__fail(TILE_ERROR_CUDA, "%s: %s (%d)", call, tile__cuda_error_name(r), r);
}

/* Opens the driver on first use; the same outcome afterwards. Once it is
 * open, a single acquire load answers (the launch path comes here). */
static tile_status tile__driver(void)
{
	if (__atomic_load_n(&tile__driver_ready, __ATOMIC_ACQUIRE))
		return TILE_SUCCESS;
	pthread_once(&tile__driver_once, tile__driver_open);
	switch (tile__driver_status) {
	case TILE_SUCCESS: return TILE_SUCCESS;
	case TILE_ERROR_NO_DRIVER:
		return tile__fail(TILE_ERROR_NO_DRIVER, "cannot open the CUDA driver library: %s", tile__driver_dlerror);
	case TILE_ERROR_DRIVER_SYMBOL:
		return tile__fail(TILE_ERROR_DRIVER_SYMBOL, "the CUDA driver library has no %s", tile__driver_missing);
	default: return tile__cuda_fail("cuInit", tile__driver_init_error);
	}
}

/* tensordesc.h - tensor descriptors: the checks of a host-side
 * tile_tensordesc before a launch, and the TMA tensor maps encoded at
 * launch, from a host-side descriptor or from a variant's recipe.
 *
 * A kernel parameter declared `tensordesc<fp16[64, 64]>` is compiled as a
 * base pointer, rank int32 shapes and rank int64 strides; its generated
 * launch function takes one tile_tensordesc, checks it here and passes the
 * fields. The rules are those Triton's TensorDescriptor asserts on the host
 * (rank, 16-byte aligned base, a contiguous last dimension, other strides
 * multiples of 16 bytes) plus what the kernel was compiled for (rank, block
 * shape) and the int32 range of the shape the kernel's bounds use. The
 * kernel relies on the alignment (its vector widths assume it), so a
 * descriptor that breaks a rule never reaches the driver. A device-side
 * descriptor (tl.make_tensor_descriptor) read with TMA is a hidden map
 * parameter whose descriptor the launch builds from a recipe; the same
 * rules (tile__desc_rules) hold for it, as Triton states them there. */

/* How a refusal names what it refuses: "tensor descriptor NAME", or with
 * a kernel, "kernel K: tensor map NAME". */
#define TILE__WHO_FMT "%s%s%s%s %s"
#define TILE__WHO(kernel, what, name) (kernel) ? "kernel " : "", (kernel) ? (kernel) : "", (kernel) ? ": " : "", what, name

/* Triton's rules of a descriptor's fields: a 16-byte aligned base, shapes
 * in [0, 2^31), the last stride 1, the others multiples of 16 bytes. */
static tile_status tile__desc_rules(const tile_tensordesc *d, int rank, int elem_bytes, const char *kernel, const char *what,
				    const char *name)
{
	int i;
	if (d->base % 16)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, TILE__WHO_FMT ": base 0x%llx is not 16-byte aligned",
				  TILE__WHO(kernel, what, name), (unsigned long long)d->base);
	for (i = 0; i < rank; i++) {
		if (d->shape[i] < 0 || d->shape[i] > INT32_MAX)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, TILE__WHO_FMT ": shape[%d] = %lld is outside [0, 2^31)",
					  TILE__WHO(kernel, what, name), i, (long long)d->shape[i]);
		if (i == rank - 1 && d->strides[i] != 1)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  TILE__WHO_FMT ": strides[%d] is %lld; the last dimension must be contiguous (1)",
					  TILE__WHO(kernel, what, name), i, (long long)d->strides[i]);
		if (i < rank - 1 && (d->strides[i] < 0 || d->strides[i] > INT64_MAX / 16 || (d->strides[i] * elem_bytes) % 16))
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  TILE__WHO_FMT ": strides[%d] = %lld elements of %d bytes is not a multiple of 16 bytes",
					  TILE__WHO(kernel, what, name), i, (long long)d->strides[i], elem_bytes);
	}
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_tensordesc_check(const tile_tensordesc *d, const char *param, int rank, int elem_bytes,
					  const int32_t *block_shape)
{
	tile_status st;
	int i;
	if (!param)
		param = "?";
	if (!d || !block_shape || rank < 1 || rank > TILE_TENSORDESC_MAX_RANK || elem_bytes < 1 || elem_bytes > 16)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: NULL descriptor or bad call", param);
	if (d->rank != rank)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: rank %d, the kernel takes rank %d",
				  param, (int)d->rank, rank);
	if ((st = tile__desc_rules(d, rank, elem_bytes, NULL, "tensor descriptor", param)) != TILE_SUCCESS)
		return st;
	for (i = 0; i < rank; i++)
		if (d->block_shape[i] != block_shape[i])
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "tensor descriptor %s: block_shape[%d] is %d, the kernel was compiled for %d", param, i,
					  (int)d->block_shape[i], (int)block_shape[i]);
	return TILE_SUCCESS;
}

/* TMA tensor maps. A kernel built for a tensor-core target from sm_90 on
 * that reads a descriptor with TMA takes a 128-byte CUtensorMap by value
 * (a parameter of kind 4, FORMAT.md). A host-side descriptor's map comes
 * right after the descriptor's strides; the caller passes a pointer to the
 * tile_tensordesc there. A device-side descriptor's map is a hidden
 * parameter (flags 1) the caller never passes; the chosen variant's recipe
 * for it gives the descriptor: the base pointer argument, and the shape and
 * strides its program computes from the arguments (tile__recipe_desc).
 * The launch puts in each map parameter's place a map encoded with
 * cuTensorMapEncodeTiled, or 128 zero bytes when the image loaded for the
 * context does not read maps (an image for another arch), and for a
 * hidden map the variant has no recipe for. Both sorts take one path from
 * the descriptor on (tile__map_encode): the encoding follows one rule
 * (tile__tensormap_plan, FORMAT.md), which the compiler's shared-memory
 * tiles are laid out for. Encoding costs host time on every launch, so
 * each slot keeps the last map of every map parameter, keyed by the encode
 * call's inputs: a seqlock whose words are all atomics (the launch path is
 * lock-free), written by one thread at a time (a try-lock: a thread that
 * finds it taken keeps its own map uncached), read by copying out and
 * checking the sequence did not move. */

/* FORMAT.md's dtype codes to CUtensorMapDataType (-1: none) and to bytes. */
static const signed char tile__tma_types[16] = {-1, -1, 0, 1, 3, 5, 0, 1, 2, 4, 6, 9, 7, 8, 0, 0};
static const unsigned char tile__dtype_bytes[16] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1, 1};

/* The arguments of cuTensorMapEncodeTiled that depend on the descriptor;
 * innermost dimension first, as the driver counts. */
typedef struct tile__tensormap_args {
	int data_type;       /* CUtensorMapDataType */
	int swizzle;         /* CUtensorMapSwizzle: 1 32B, 2 64B, 3 128B */
	uint32_t rank;
	uint64_t address;
	uint64_t dims[TILE_TENSORDESC_MAX_RANK];
	uint64_t strides[TILE_TENSORDESC_MAX_RANK - 1]; /* bytes, of dimensions 1.. */
	uint32_t box[TILE_TENSORDESC_MAX_RANK];
} tile__tensormap_args;

/* The encoding rule: the swizzle is the widest of 128, 64, 32 bytes that
 * the block's innermost row (B[r-1] elements of e bytes) fills (a multiple
 * of 128, or exactly 64 or 32); the box is one swizzle span of elements
 * innermost, then the block's other dimensions (at most 256 each); the
 * global dims and byte strides are the descriptor's shape and strides.
 * kernel and param name the map in the detail of a refusal. */
static tile_status tile__tensormap_plan(const tile_tensordesc *d, int dtype, int rank, const char *kernel, const char *param,
					tile__tensormap_args *out)
{
	uint64_t e, inner, span;
	int i;
	memset(out, 0, sizeof *out);
	if (dtype < 1 || dtype > 15 || tile__tma_types[dtype] < 0)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: dtype %d has no TMA data type", kernel, param,
				  dtype);
	if (rank < 1 || rank > TILE_TENSORDESC_MAX_RANK || d->rank != rank)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: the descriptor has rank %d, the kernel takes %d",
				  kernel, param, (int)d->rank, rank);
	e = tile__dtype_bytes[dtype];
	for (i = 0; i < rank; i++) {
		if (d->block_shape[i] < 1)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: block_shape[%d] is %d", kernel, param, i,
					  (int)d->block_shape[i]);
		if (d->shape[i] < 1 || d->shape[i] > INT64_C(1) << 32)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "kernel %s: tensor map %s: shape[%d] = %lld; a TMA dimension holds 1 to 2^32 elements", kernel,
					  param, i, (long long)d->shape[i]);
		if (i < rank - 1 && (d->strides[i] < 0 || d->strides[i] > INT64_MAX / 8))
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: strides[%d] = %lld", kernel, param, i,
					  (long long)d->strides[i]);
	}
	inner = (uint64_t)d->block_shape[rank - 1] * e;
	span = inner % 128 == 0 ? 128 : inner == 64 ? 64 : inner == 32 ? 32 : 0;
	if (!span)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
				  "kernel %s: tensor map %s: block_shape[%d] = %d elements of %d bytes: a TMA row needs 32, 64 or a "
				  "multiple of 128 bytes",
				  kernel, param, rank - 1, (int)d->block_shape[rank - 1], (int)e);
	out->data_type = tile__tma_types[dtype];
	out->swizzle = span == 128 ? 3 : span == 64 ? 2 : 1;
	out->rank = (uint32_t)rank;
	out->address = d->base;
	out->box[0] = (uint32_t)(span / e);
	for (i = 0; i < rank; i++) {
		out->dims[i] = (uint64_t)d->shape[rank - 1 - i];
		if (i == 0)
			continue;
		if (d->block_shape[rank - 1 - i] > 256)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "kernel %s: tensor map %s: block_shape[%d] = %d; a TMA box holds at most 256 elements a "
					  "dimension",
					  kernel, param, rank - 1 - i, (int)d->block_shape[rank - 1 - i]);
		out->box[i] = (uint32_t)d->block_shape[rank - 1 - i];
		out->strides[i - 1] = (uint64_t)d->strides[rank - 1 - i] * e;
	}
	return TILE_SUCCESS;
}

/* A slot's cached map of one map parameter (see above). seq is odd while
 * a writer fills the entry, 0 while it was never filled. */
#define TILE__MAP_KEY_WORDS 12
#define TILE__MAP_WORDS (TILE__TENSORMAP_SIZE / 8)
typedef struct tile__map_entry {
	uint32_t seq;
	uint64_t key[TILE__MAP_KEY_WORDS];
	uint64_t map[TILE__MAP_WORDS];
} tile__map_entry;

/* A plan as the words of a cache key: equal keys, equal encode calls. */
static void tile__tensormap_key(const tile__tensormap_args *p, uint64_t *key)
{
	int i;
	key[0] = p->address;
	for (i = 0; i < TILE_TENSORDESC_MAX_RANK; i++)
		key[1 + i] = p->dims[i];
	for (i = 0; i < TILE_TENSORDESC_MAX_RANK - 1; i++)
		key[6 + i] = p->strides[i];
	/* box entries are at most 256 */
	key[10] = p->box[0] | (uint64_t)p->box[1] << 16 | (uint64_t)p->box[2] << 32 | (uint64_t)p->box[3] << 48;
	key[11] = p->box[4] | (uint64_t)p->rank << 16 | (uint64_t)p->swizzle << 24 | (uint64_t)p->data_type << 32;
}

/* Copies the entry's map into `map` when its key is `key`. The data words
 * are read with acquire loads so that the closing read of seq comes after
 * them; a writer's release stores of the data then make that read see its
 * odd seq, whenever one of them was seen. */
static int tile__map_cached(tile__map_entry *e, const uint64_t *key, uint64_t *map)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	int i, same = seq && !(seq & 1);
	for (i = 0; same && i < TILE__MAP_KEY_WORDS; i++)
		same = __atomic_load_n(&e->key[i], __ATOMIC_ACQUIRE) == key[i];
	for (i = 0; same && i < (int)TILE__MAP_WORDS; i++)
		map[i] = __atomic_load_n(&e->map[i], __ATOMIC_ACQUIRE);
	return same && __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == seq;
}

/* Caches a map unless another thread is writing the entry. */
static void tile__map_store(tile__map_entry *e, const uint64_t *key, const uint64_t *map)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	int i;
	if ((seq & 1) || !__atomic_compare_exchange_n(&e->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	for (i = 0; i < TILE__MAP_KEY_WORDS; i++)
		__atomic_store_n(&e->key[i], key[i], __ATOMIC_RELEASE);
	for (i = 0; i < (int)TILE__MAP_WORDS; i++)
		__atomic_store_n(&e->map[i], map[i], __ATOMIC_RELEASE);
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
}

/* What a map parameter gets when the image does not read maps, or, a
 * hidden one, when the variant has no recipe for it. */
static const uint64_t tile__zero_map[TILE__MAP_WORDS] = {0};

/* The map of map parameter p of kernel k for descriptor d (rank: what the
 * kernel takes) into `map`, 64-byte aligned: the slot's cached one when
 * the encode inputs are the same, else encoded and cached. */
static tile_status tile__map_encode(const tile_module *m, const tile__kernel *k, tile__slot *slot, const tile__param *p,
				    const tile_tensordesc *d, int rank, uint64_t *map)
{
	static const uint32_t ones[TILE_TENSORDESC_MAX_RANK] = {1, 1, 1, 1, 1};
	const char *kernel = tile__str(m, k->name);
	tile__map_entry *e = &slot->maps[p->map_index];
	uint64_t key[TILE__MAP_KEY_WORDS];
	tile__tensormap_args plan;
	tile__CUresult r;
	tile_status st = tile__tensormap_plan(d, p->dtype, rank, kernel, tile__str(m, p->name), &plan);
	if (st)
		return st;
	tile__tensormap_key(&plan, key);
	if (tile__map_cached(e, key, map))
		return TILE_SUCCESS;
	/* interleave none, L2 promotion 128B, out-of-bounds elements read as zero */
	r = tile__cu.cuTensorMapEncodeTiled(map, plan.data_type, plan.rank, (void *)(uintptr_t)plan.address, plan.dims, plan.strides,
					    plan.box, ones, 0, plan.swizzle, 2, 0);
	if (r)
		return tile__fail(TILE_ERROR_CUDA, "kernel %s: cuTensorMapEncodeTiled (tensor map %s): %s (%d)", kernel,
				  tile__str(m, p->name), tile__cuda_error_name(r), r);
	tile__map_store(e, key, map);
	return TILE_SUCCESS;
}

/* The descriptor of hidden map recipe r (of variant v of kernel k) for the
 * caller's arguments: the base pointer argument, the shape and strides its
 * program leaves (the last stride 1), its block shape; refused, naming the
 * kernel and the map, when the program fails (TILE_ERROR_GRID, as a grid
 * program) or the descriptor breaks Triton's rules. */
static tile_status tile__recipe_desc(const tile_module *m, const tile__kernel *k, const tile__variant *v, const tile__recipe *r,
				     void *const *args, tile_tensordesc *d)
{
	const tile__param *p = &m->params[k->first_param + r->param];
	int64_t values[2 * TILE_TENSORDESC_MAX_RANK - 1];
	uint32_t i, rank = r->rank;
	tile_status st = tile__program_eval(m, v, m->grid_code + r->code_offset, r->code_size, args, values, 2 * rank - 1,
					    "tensor map", tile__str(m, p->name));
	if (st)
		return st;
	memset(d, 0, sizeof *d);
	d->base = tile__param_bits(&m->params[k->first_param + r->base], args[r->base]);
	d->rank = (int32_t)rank;
	for (i = 0; i < rank; i++) {
		d->shape[i] = values[i];
		d->strides[i] = i + 1 < rank ? values[rank + i] : 1;
		d->block_shape[i] = r->block[i];
	}
	return tile__desc_rules(d, (int)rank, tile__dtype_bytes[p->dtype], tile__str(m, k->name), "tensor map",
				tile__str(m, p->name));
}

/* Puts the maps of a launch of variant v of kernel k (in the slot's
 * context) into params, the launch's own copy of the arguments, where each
 * descriptor's map parameter holds the caller's tile_tensordesc pointer;
 * args: the caller's arguments, which recipe programs read. buffers:
 * TILE__MAX_MAPS maps, 64-byte aligned (the driver's alignment for a
 * CUtensorMap). */
static tile_status tile__tensormaps(const tile_module *m, const tile__kernel *k, const tile__variant *v, tile__slot *slot,
				    void *const *args, void **params, uint64_t *buffers)
{
	uint64_t descs = k->map_mask & ~k->hidden_maps, mask;
	const tile__recipe *r = m->recipes + v->first_recipe, *end = r + v->n_recipes;
	tile_status st;
	if (!(__atomic_load_n(&slot->group_flags[v->group], __ATOMIC_RELAXED) & TILE__GROUP_MAPS)) {
		for (mask = k->map_mask; mask; mask &= mask - 1)
			params[__builtin_ctzll(mask)] = (void *)tile__zero_map;
		return TILE_SUCCESS;
	}
	if ((descs || r < end) && !tile__cu.cuTensorMapEncodeTiled)
		return tile__fail(TILE_ERROR_DRIVER_SYMBOL,
				  "kernel %s: its image reads TMA tensor maps, and the CUDA driver library has no "
				  "cuTensorMapEncodeTiled (CUDA 12.0 or newer)",
				  tile__str(m, k->name));
	for (mask = descs; mask; mask &= mask - 1, buffers += TILE__MAP_WORDS) {
		int j = __builtin_ctzll(mask);
		const tile__param *p = &m->params[k->first_param + (uint32_t)j];
		if ((st = tile__map_encode(m, k, slot, p, (const tile_tensordesc *)params[j], p->desc_rank, buffers)) != TILE_SUCCESS)
			return st;
		params[j] = buffers;
	}
	/* hidden maps: zeros unless the variant has a recipe */
	for (mask = k->hidden_maps; mask; mask &= mask - 1)
		params[__builtin_ctzll(mask)] = (void *)tile__zero_map;
	for (; r < end; r++, buffers += TILE__MAP_WORDS) {
		tile_tensordesc d;
		if ((st = tile__recipe_desc(m, k, v, r, args, &d)) != TILE_SUCCESS ||
		    (st = tile__map_encode(m, k, slot, &m->params[k->first_param + r->param], &d, (int)r->rank, buffers)) != TILE_SUCCESS)
			return st;
		params[r->param] = buffers;
	}
	return TILE_SUCCESS;
}

/* launch.h - loading into contexts, launching, unloading, lazy creation.
 *
 * A module keeps one slot per CUDA context it has been used in. The launch
 * path asks the driver for the current context, scans the published slots
 * (an acquire load of n_slots, then plain compares), and reads the
 * variant's cached CUfunction with an acquire load: no lock, no allocation.
 * Only a miss takes the module's mutex, where the slot is created, the
 * group's image chosen for the device, inflated and loaded, and the function
 * looked up; the function is then published with a release store, so each
 * (group, context) is loaded once and each (variant, context) looked up once
 * whatever the number of racing threads. A thread without a current context
 * gets the primary context of its device (tile_set_device; 0 by default),
 * retained once per module and made current on that thread, as the CUDA
 * runtime does.
 *
 * A launch of a kernel with hidden parameters or TMA tensor maps builds
 * its own argument array (the caller's is never written): zeros for the
 * hidden ones, and where the image loaded in the context reads tensor
 * maps, maps encoded from the caller's descriptors and, for hidden map
 * parameters, from the chosen variant's recipes evaluated on the caller's
 * arguments (tensordesc.h); zeros where the image does not read maps.
 * The maps live in a buffer on the launch's stack. Other kernels pass the
 * caller's array as it is.
 *
 * Slots are keyed by the driver's unique context ID, not the handle: a
 * context destroyed and another created at the same address must not find
 * the first one's functions (the slot is recycled instead). That costs the
 * launch path one cuCtxGetId call. The slot table grows by copying (the
 * old copies retired until destroy), so a module serves any number of
 * contexts over its life and the launch path stays lock-free. */

/* The image of `group` to load on a device of compute capability `arch`:
 * the exact cubin (sm_90a counts as exact on 9.0 only), else the newest
 * cubin of the same major version not newer than the device, else the
 * newest PTX not newer than the device. -1 when none fits. */
static int tile__pick_image(const tile_module *m, uint32_t group, int arch)
{
	int best = -1, best_rank = 0;
	uint32_t i;
	for (i = 0; i < m->n_images; i++) {
		const tile__image *im = &m->images[i];
		int a = (int)im->arch, rank;
		if (im->group != group || a > arch)
			continue;
		if ((im->flags & TILE__IMAGE_ARCH_SPECIFIC) && a != arch)
			continue;
		if (im->kind == TILE__IMAGE_CUBIN && a == arch)
			rank = 40000 + a * 2 + (im->flags & TILE__IMAGE_ARCH_SPECIFIC);
		else if (im->kind == TILE__IMAGE_CUBIN && a / 10 == arch / 10)
			rank = 20000 + a;
		else if (im->kind == TILE__IMAGE_PTX)
			rank = 10000 + a;
		else
			continue;
		if (rank > best_rank) {
			best_rank = rank;
			best = (int)i;
		}
	}
	return best;
}

static tile_status tile__no_image(const tile_module *m, uint32_t group, int arch)
{
	char list[512];
	size_t len = 0;
	uint32_t i;
	list[0] = 0;
	for (i = 0; i < m->n_images && len < sizeof list; i++) {
		const tile__image *im = &m->images[i];
		if (im->group != group)
			continue;
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %s_%u%s", len ? ", " : "",
					im->kind == TILE__IMAGE_PTX ? "PTX" : "cubin",
					im->kind == TILE__IMAGE_PTX ? "compute" : "sm", im->arch,
					im->flags & TILE__IMAGE_ARCH_SPECIFIC ? "a" : "");
	}
	return tile__fail(TILE_ERROR_NO_IMAGE, "group %u: no image for the device (sm_%d); the blob has %s", group, arch, list);
}

/* Loads `group` into the slot's context (current on this thread). Locked. */
static tile_status tile__load_group(tile_module *m, tile__slot *slot, uint32_t group)
{
	int pick = tile__pick_image(m, group, slot->arch);
	const tile__image *im;
	uint8_t *image;
	void *mod = NULL;
	tile__CUresult r;
	tile_status st = TILE_SUCCESS;
	if (pick < 0)
		return tile__no_image(m, group, slot->arch);
	im = &m->images[pick];
	/* A private copy: the driver wants aligned ELF, the blob is only 4-byte aligned. */
	image = (uint8_t *)TILE_MALLOC(im->raw_size);
	if (!image)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "image %d: out of memory for %u bytes", pick, im->raw_size);
	if (im->compression)
		st = tile__inflate_image((uint32_t)pick, m->blob + im->offset, im->size, image, im->raw_size);
	else
		memcpy(image, m->blob + im->offset, im->size);
	if (!st && im->kind == TILE__IMAGE_PTX && image[im->raw_size - 1] != 0)
		st = tile__fail(TILE_ERROR_BAD_BLOB, "image %d: PTX text is not NUL-terminated", pick);
	if (!st && im->kind == TILE__IMAGE_PTX) {
		char log[2048];
		int options[2] = {TILE__CU_JIT_ERROR_LOG_BUFFER, TILE__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *values[2];
		values[0] = log;
		values[1] = (void *)(uintptr_t)sizeof log;
		log[0] = 0;
		r = tile__cu.cuModuleLoadDataEx(&mod, image, 2, options, values);
		log[sizeof log - 1] = 0;
		if (r)
			st = tile__fail(TILE_ERROR_JIT, "cuModuleLoadDataEx (PTX compute_%u for sm_%d): %s: %s", im->arch,
					slot->arch, tile__cuda_error_name(r), log);
	} else if (!st) {
		r = tile__cu.cuModuleLoadData(&mod, image);
		if (r)
			st = tile__fail(TILE_ERROR_CUDA, "cuModuleLoadData (cubin sm_%u%s): %s (%d)", im->arch,
					im->flags & TILE__IMAGE_ARCH_SPECIFIC ? "a" : "", tile__cuda_error_name(r), r);
	}
	TILE_FREE(image);
	if (!st) {
		slot->modules[group] = mod;
		__atomic_store_n(&slot->group_flags[group],
				 (uint8_t)((im->flags & TILE__IMAGE_TENSORMAPS ? TILE__GROUP_MAPS : 0) |
					   (im->arch >= 90 ? TILE__GROUP_CLUSTERS : 0) |
					   (im->flags & TILE__IMAGE_PRODUCER ? TILE__GROUP_PRODUCER : 0)),
				 __ATOMIC_RELAXED);
	}
	return st;
}

/* The slot of the context whose key is `key`, or NULL. No lock: an
 * acquire load of the table, of its count, and of each slot's key. */
static tile__slot *tile__slot_find(tile_module *m, uint64_t key)
{
	tile__slot_table *t = __atomic_load_n(&m->slots, __ATOMIC_ACQUIRE);
	unsigned n, i;
	if (!t)
		return NULL;
	n = __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (__atomic_load_n(&t->slot[i]->key, __ATOMIC_ACQUIRE) == key)
			return t->slot[i];
	return NULL;
}

/* Room for one more slot: the table, or a copy twice its size published in
 * its place (the old one retired, not freed: a launch may be reading it).
 * Locked. */
static tile_status tile__slot_room(tile_module *m)
{
	tile__slot_table *t = m->slots, *bigger;
	unsigned cap;
	if (t && t->n < t->cap)
		return TILE_SUCCESS;
	cap = t ? t->cap * 2 : (TILE_INITIAL_CONTEXTS > 0 ? TILE_INITIAL_CONTEXTS : 1);
	if (t && cap <= t->cap)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "too many contexts");
	bigger = (tile__slot_table *)TILE_MALLOC(sizeof *bigger + (size_t)(cap - 1) * sizeof(tile__slot *));
	if (!bigger)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory for a table of %u contexts", cap);
	bigger->cap = cap;
	bigger->n = t ? t->n : 0;
	bigger->retired = t;
	if (t)
		memcpy(bigger->slot, t->slot, t->n * sizeof(tile__slot *));
	__atomic_store_n(&m->slots, bigger, __ATOMIC_RELEASE);
	return TILE_SUCCESS;
}

static void tile__slot_free(tile__slot *slot)
{
	TILE_FREE(slot->modules);
	TILE_FREE(slot->funcs);
	TILE_FREE(slot->group_flags);
	TILE_FREE(slot->maps);
	TILE_FREE(slot);
}

/* A slot for the context ctx (current on this thread) whose key is `key`.
 * A slot holding the same handle under another key belonged to a context
 * that has been destroyed since (a live handle names one context): it is
 * recycled, its modules forgotten (the driver freed them with their
 * context). Locked. */
static tile_status tile__slot_add(tile_module *m, void *ctx, uint64_t key, tile__slot **out)
{
	tile__slot_table *t = m->slots;
	tile__slot *slot = NULL;
	int device = 0, major = 0, minor = 0;
	tile__CUresult r;
	tile_status st;
	unsigned i;
	uint32_t j;
	int fresh = 0;
	if ((r = tile__cu.cuCtxGetDevice(&device)) != 0)
		return tile__cuda_fail("cuCtxGetDevice", r);
	if ((r = tile__cu.cuDeviceGetAttribute(&major, TILE__CU_DEVICE_ATTRIBUTE_CC_MAJOR, device)) != 0 ||
	    (r = tile__cu.cuDeviceGetAttribute(&minor, TILE__CU_DEVICE_ATTRIBUTE_CC_MINOR, device)) != 0)
		return tile__cuda_fail("cuDeviceGetAttribute", r);
	for (i = 0; t && i < t->n; i++)
		if (t->slot[i]->ctx == ctx)
			slot = t->slot[i];
	if (slot) {
		/* No launch reads this slot's entries: its key is a dead context's. */
		for (j = 0; j < m->n_groups; j++) {
			slot->modules[j] = NULL;
			__atomic_store_n(&slot->group_flags[j], (uint8_t)0, __ATOMIC_RELAXED);
		}
		for (j = 0; j < m->n_variants; j++)
			__atomic_store_n(&slot->funcs[j], (void *)NULL, __ATOMIC_RELAXED);
	} else {
		if ((st = tile__slot_room(m)) != TILE_SUCCESS)
			return st;
		t = m->slots;
		slot = (tile__slot *)TILE_MALLOC(sizeof *slot);
		if (!slot)
			return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
		slot->modules = (void **)tile__alloc_zeroed(m->n_groups, sizeof(void *));
		slot->funcs = (void **)tile__alloc_zeroed(m->n_variants, sizeof(void *));
		slot->group_flags = (uint8_t *)tile__alloc_zeroed(m->n_groups, 1);
		/* the cached maps outlive a recycling: a map names no context */
		slot->maps = m->n_maps ? (tile__map_entry *)tile__alloc_zeroed(m->n_maps, sizeof(tile__map_entry)) : NULL;
		if (!slot->modules || !slot->funcs || !slot->group_flags || (m->n_maps && !slot->maps)) {
			tile__slot_free(slot);
			return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
		}
		slot->key = 0;
		t->slot[t->n] = slot;
		fresh = 1;
	}
	slot->ctx = ctx;
	slot->device = device;
	slot->arch = major * 10 + minor;
	slot->smem_optin = 0;
	__atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
	if (fresh)
		__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
	*out = slot;
	return TILE_SUCCESS;
}

/* Looks up variant vi's function in the slot's context, loading its group
 * first; raises the dynamic shared memory limit past the 48 KiB default
 * when the variant asks for more. Locked. */
static tile_status tile__prepare_variant(tile_module *m, tile__slot *slot, uint32_t vi)
{
	const tile__variant *v = &m->variants[vi];
	void *f = NULL;
	tile__CUresult r;
	tile_status st;
	if (slot->funcs[vi])
		return TILE_SUCCESS;
	if (!slot->modules[v->group] && (st = tile__load_group(m, slot, v->group)) != TILE_SUCCESS)
		return st;
	if ((r = tile__cu.cuModuleGetFunction(&f, slot->modules[v->group], tile__str(m, v->symbol))) != 0)
		return tile__fail(TILE_ERROR_CUDA, "cuModuleGetFunction(%s): %s (%d)", tile__str(m, v->symbol), tile__cuda_error_name(r), r);
	if (v->shared_dynamic > 48u * 1024) {
		int shared_static = 0;
		if (!slot->smem_optin &&
		    (r = tile__cu.cuDeviceGetAttribute(&slot->smem_optin, TILE__CU_DEVICE_ATTRIBUTE_SMEM_OPTIN, slot->device)) != 0)
			return tile__cuda_fail("cuDeviceGetAttribute", r);
		if ((r = tile__cu.cuFuncGetAttribute(&shared_static, TILE__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) != 0)
			return tile__cuda_fail("cuFuncGetAttribute", r);
		if ((r = tile__cu.cuFuncSetAttribute(f, TILE__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						      slot->smem_optin - shared_static)) != 0)
			return tile__cuda_fail("cuFuncSetAttribute", r);
	}
	__atomic_store_n(&slot->funcs[vi], f, __ATOMIC_RELEASE);
	return TILE_SUCCESS;
}

/* The device whose primary context this thread uses without a context of
 * its own, and the primary context the loader made current on it (with
 * its device), so that tile_set_device can move the thread to another. */
static TILE__THREAD_LOCAL int tile__thread_device;
static TILE__THREAD_LOCAL void *tile__thread_primary;
static TILE__THREAD_LOCAL int tile__thread_primary_device;

TILEDEF tile_status tile_set_device(int device)
{
	if (device < 0)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_set_device: device %d", device);
	tile__thread_device = device;
	return TILE_SUCCESS;
}

TILEDEF int tile_get_device(void) { return tile__thread_device; }

/* The module's retained primary context of device ordinal `device`, or
 * NULL. No lock: the table and its entries are published with release
 * stores. */
static void *tile__primary_held(tile_module *m, int device)
{
	tile__primary *p = __atomic_load_n(&m->primary, __ATOMIC_ACQUIRE);
	if (!p || device >= __atomic_load_n(&m->n_primary, __ATOMIC_ACQUIRE))
		return NULL;
	return __atomic_load_n(&p[device].ctx, __ATOMIC_ACQUIRE);
}

/* Retains the primary context of device ordinal `device` for the module
 * (once). Locked. */
static tile_status tile__primary_retain(tile_module *m, int device, void **ctx)
{
	tile__CUresult r;
	int count = 0, dev = 0;
	void *primary = NULL;
	if (!m->primary) {
		tile__primary *p;
		if ((r = tile__cu.cuDeviceGetCount(&count)) != 0)
			return tile__cuda_fail("cuDeviceGetCount", r);
		p = (tile__primary *)tile__alloc_zeroed(count > 0 ? (uint32_t)count : 1u, sizeof *p);
		if (!p)
			return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
		__atomic_store_n(&m->n_primary, count, __ATOMIC_RELAXED);
		__atomic_store_n(&m->primary, p, __ATOMIC_RELEASE);
	}
	if ((r = tile__cu.cuDeviceGet(&dev, device)) != 0)
		return tile__cuda_fail("cuDeviceGet", r);
	if (device >= m->n_primary)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "device %d: the driver counts %d devices", device, m->n_primary);
	if (m->primary[device].ctx) {
		*ctx = m->primary[device].ctx;
		return TILE_SUCCESS;
	}
	if ((r = tile__cu.cuDevicePrimaryCtxRetain(&primary, dev)) != 0)
		return tile__cuda_fail("cuDevicePrimaryCtxRetain", r);
	m->primary[device].device = dev;
	__atomic_store_n(&m->primary[device].ctx, primary, __ATOMIC_RELEASE);
	*ctx = primary;
	return TILE_SUCCESS;
}

/* The context a launch of this thread uses: its current context; with none
 * (or with a primary context the loader made current for another device
 * than tile_set_device names now), the primary context of the thread's
 * device, retained by the module and made current, as the CUDA runtime
 * does. */
static tile_status tile__context(tile_module *m, void **ctx)
{
	int device = tile__thread_device;
	tile__CUresult r = tile__cu.cuCtxGetCurrent(ctx);
	tile_status st = TILE_SUCCESS;
	if (r)
		return tile__cuda_fail("cuCtxGetCurrent", r);
	if (*ctx && *ctx != tile__thread_primary)
		return TILE_SUCCESS;
	if (*ctx && tile__thread_primary_device == device && tile__primary_held(m, device) == *ctx)
		return TILE_SUCCESS;
	pthread_mutex_lock(&m->lock);
	st = tile__primary_retain(m, device, ctx);
	pthread_mutex_unlock(&m->lock);
	if (!st && (r = tile__cu.cuCtxSetCurrent(*ctx)) != 0)
		st = tile__cuda_fail("cuCtxSetCurrent", r);
	if (!st) {
		tile__thread_primary = *ctx;
		tile__thread_primary_device = device;
	}
	return st;
}

/* The key a context's slot is found by: the driver's unique context ID
 * (handles are reused: a context created after another was destroyed may
 * get its address), or, from drivers older than CUDA 12.0 which have no
 * cuCtxGetId, the handle itself. */
static tile_status tile__context_key(void *ctx, uint64_t *key)
{
	unsigned long long id = 0;
	tile__CUresult r;
	if (!tile__cu.cuCtxGetId) {
		*key = (uint64_t)(uintptr_t)ctx;
		return TILE_SUCCESS;
	}
	if ((r = tile__cu.cuCtxGetId(ctx, &id)) != 0)
		return tile__cuda_fail("cuCtxGetId", r);
	*key = id;
	return TILE_SUCCESS;
}

/* A variant's first use in a context loads its module (or looks up its
 * function), which a stream being captured into a graph does not allow:
 * refused with TILE_ERROR_CAPTURING when the driver can tell. The launch
 * path comes here only on a miss. */
static tile_status tile__capture_check(const tile_module *m, const tile__kernel *k, void *stream)
{
	int status = TILE__CU_STREAM_CAPTURE_STATUS_NONE;
	tile__CUresult r;
	if (!tile__cu.cuStreamIsCapturing)
		return TILE_SUCCESS;
	r = tile__cu.cuStreamIsCapturing(stream, &status);
	if (r == TILE__CUDA_ERROR_STREAM_CAPTURE_IMPLICIT || (!r && status != TILE__CU_STREAM_CAPTURE_STATUS_NONE))
		return tile__fail(TILE_ERROR_CAPTURING,
				  "kernel %s: first launch in this context while the stream is being captured: the module must be "
				  "loaded before capture (NAME_load(), tile_module_load)",
				  tile__str(m, k->name));
	if (r)
		return tile__cuda_fail("cuStreamIsCapturing", r);
	return TILE_SUCCESS;
}

/* The slow path of a launch, and tile_module_load: variants [first, end)
 * ready in context ctx (key `key`), under the lock; *func (when given) is
 * first's, *slot_out (when given) the context's slot. */
static tile_status tile__prepare(tile_module *m, void *ctx, uint64_t key, uint32_t first, uint32_t end, void **func,
				 tile__slot **slot_out)
{
	tile__slot *slot;
	tile_status st = TILE_SUCCESS;
	uint32_t vi;
	pthread_mutex_lock(&m->lock);
	slot = tile__slot_find(m, key);
	if (!slot)
		st = tile__slot_add(m, ctx, key, &slot);
	for (vi = first; !st && vi < end; vi++)
		st = tile__prepare_variant(m, slot, vi);
	if (!st && func)
		*func = slot->funcs[first];
	if (!st && slot_out)
		*slot_out = slot;
	pthread_mutex_unlock(&m->lock);
	return st;
}

#ifdef TILE_DEBUG
/* TILE_DEBUG: every launch and load counts itself in m->users while it
 * runs and checks m->alive after; destroy clears m->alive first and waits
 * for the count to drain (both sequentially consistent, so one of the two
 * sees the other), then frees all but the module's struct, kept as a
 * tombstone on a process-wide chain (reachable: not a leak) so that a late
 * launch still reads a valid m->alive. */
static tile_status tile__debug_enter(tile_module *m, const char *what)
{
	if (__atomic_load_n(&m->alive, __ATOMIC_SEQ_CST) == TILE__ALIVE) {
		__atomic_add_fetch(&m->users, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&m->alive, __ATOMIC_SEQ_CST) == TILE__ALIVE)
			return TILE_SUCCESS;
		__atomic_sub_fetch(&m->users, 1, __ATOMIC_SEQ_CST);
	}
	return tile__fail(TILE_ERROR_DESTROYED, "%s: the module is being destroyed or was destroyed (a launch raced with "
			  "tile_module_destroy or NAME_unload)", what);
}
static void tile__debug_leave(tile_module *m) { __atomic_sub_fetch(&m->users, 1, __ATOMIC_SEQ_CST); }
#define TILE__DEBUG_ENTER(m, what) \
	do { \
		tile_status debug_st_ = tile__debug_enter(m, what); \
		if (debug_st_) \
			return debug_st_; \
	} while (0)
#define TILE__DEBUG_LEAVE(m) tile__debug_leave(m)
#else
#define TILE__DEBUG_ENTER(m, what) (void)0
#define TILE__DEBUG_LEAVE(m) (void)0
#endif

static tile_status tile__module_load(tile_module *m)
{
	void *ctx = NULL;
	uint64_t key = 0;
	tile_status st;
	if ((st = tile__driver()) != TILE_SUCCESS || (st = tile__context(m, &ctx)) != TILE_SUCCESS ||
	    (st = tile__context_key(ctx, &key)) != TILE_SUCCESS)
		return st;
	return tile__prepare(m, ctx, key, 0, m->n_variants, NULL, NULL);
}

TILEDEF tile_status tile_module_load(tile_module *m)
{
	tile_status st;
	if (!m)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_load: module is NULL");
	TILE__DEBUG_ENTER(m, "tile_module_load");
	st = tile__module_load(m);
	TILE__DEBUG_LEAVE(m);
	return st;
}

/* The most specialized variant of `config` whose predicates hold; -1 when none. */
static int tile__select_variant(const tile_module *m, const tile__kernel *k, uint32_t config, void *const *args)
{
	uint64_t div16 = 0, div8 = 0, div4 = 0, eq1 = 0, mask;
	uint32_t i;
	int best = -1, best_preds = -1;
	/* only the parameters some variant has a predicate on, whichever their index */
	for (mask = k->pred_mask; mask; mask &= mask - 1) {
		uint64_t bits;
		i = (uint32_t)__builtin_ctzll(mask);
		bits = tile__param_bits(&m->params[k->first_param + i], args[i]);
		div16 |= (uint64_t)(bits % 16 == 0) << i;
		div8 |= (uint64_t)(bits % 8 == 0) << i;
		div4 |= (uint64_t)(bits % 4 == 0) << i;
		eq1 |= (uint64_t)(bits == 1) << i;
	}
	for (i = k->first_variant; i < k->first_variant + k->n_variants; i++) {
		const tile__variant *v = &m->variants[i];
		if (v->config != config || (v->pred_div16 & ~div16) || (v->pred_div8 & ~div8) || (v->pred_div4 & ~div4) ||
		    (v->pred_eq1 & ~eq1) || v->n_preds <= best_preds ||
		    !tile__heuristics_hold(m, k, v, args))
			continue;
		best = (int)i;
		best_preds = v->n_preds;
	}
	return best;
}

#define TILE__LAUNCH_FLAGS (TILE_LAUNCH_PDL | TILE_LAUNCH_COOPERATIVE)

/* A launch of config `which` (-1: the one the tuning table gives). */
static tile_status tile__launch(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream, void **args,
				int nargs, unsigned flags)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__variant *v;
	void *params[TILE__MAX_PARAMS], **launch_args = args, *ctx, *f = NULL;
	uint64_t map_words[TILE__MAX_MAPS * TILE__MAP_WORDS + 8]; /* room to align TILE__MAX_MAPS maps to 64 bytes */
	tile_deviceptr zero = 0;
	uint64_t key = 0;
	int64_t dims[3];
	tile__slot *slot;
	tile__CUresult r;
	tile_status st;
	int vi, i, pdl, cluster;
	uint8_t group_flags;
	uint32_t block;
	if (!k)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: no kernel %d in the module", kernel);
	if (flags & ~TILE__LAUNCH_FLAGS)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: unknown launch flags 0x%x", flags & ~TILE__LAUNCH_FLAGS);
	if (nargs != (int)k->n_visible || (nargs && !args))
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s takes %u arguments, %d given",
				  tile__str(m, k->name), k->n_visible, nargs);
	for (i = 0; i < nargs; i++)
		if (!args[i])
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s: argument %d is NULL", tile__str(m, k->name), i);
	if (which < -1 || which >= (int)k->n_configs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s has %u configs, not config %d", tile__str(m, k->name),
				  k->n_configs, which);
	vi = tile__select_variant(m, k, which < 0 ? tile__dispatch(m, k, args) : (uint32_t)which, args);
	if (vi < 0)
		return tile__fail(TILE_ERROR_NO_VARIANT, "tile_launch: kernel %s: no variant's predicates hold for these arguments",
				  tile__str(m, k->name));
	v = &m->variants[vi];
	if (grid) {
		for (i = 0; i < 3; i++)
			dims[i] = grid[i];
	} else if (!v->grid_size) {
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s has no grid program: pass the grid",
				  tile__str(m, k->name));
	} else if ((st = tile__grid_eval(m, v, args, dims)) != TILE_SUCCESS) {
		return st;
	}
	if (!tile__grid_limits(m, k, dims, &st))
		return st;
	if ((st = tile__driver()) != TILE_SUCCESS || (st = tile__context(m, &ctx)) != TILE_SUCCESS ||
	    (st = tile__context_key(ctx, &key)) != TILE_SUCCESS)
		return st;
	slot = tile__slot_find(m, key);
	if (slot)
		f = __atomic_load_n(&slot->funcs[vi], __ATOMIC_ACQUIRE);
	if (!f && ((st = tile__capture_check(m, k, stream)) != TILE_SUCCESS ||
		   (st = tile__prepare(m, ctx, key, (uint32_t)vi, (uint32_t)vi + 1, &f, &slot)) != TILE_SUCCESS))
		return st;
	if (k->copy_args) {
		/* Hidden trailing parameters (scratch pointers) get a null pointer;
		 * tensor maps are encoded from the caller's descriptors and the
		 * variant's recipes. */
		for (i = 0; i < (int)k->n_params; i++)
			params[i] = i < nargs ? args[i] : (void *)&zero;
		if (k->map_mask && (st = tile__tensormaps(m, k, v, slot, args, params,
							  (uint64_t *)(((uintptr_t)map_words + 63) & ~(uintptr_t)63))) != TILE_SUCCESS)
			return st;
		launch_args = params;
	}
	pdl = (flags & TILE_LAUNCH_PDL) && slot->arch >= 90;
	group_flags = __atomic_load_n(&slot->group_flags[v->group], __ATOMIC_RELAXED);
	/* a warp-specialized image runs the variant's producer warps too */
	block = v->block + (group_flags & TILE__GROUP_PRODUCER ? 32u * v->producer_warps : 0u);
	/* an image for an arch below 9.0 runs one CTA per program */
	cluster = v->cluster && (group_flags & TILE__GROUP_CLUSTERS);
	if (cluster || pdl || (flags & TILE_LAUNCH_COOPERATIVE)) {
		tile__CUlaunchConfig config;
		tile__CUlaunchAttribute attr[4];
		unsigned n = 0;
		uint64_t gx = (uint64_t)dims[0], gy = (uint64_t)dims[1], gz = (uint64_t)dims[2];
		memset(&config, 0, sizeof config);
		memset(attr, 0, sizeof attr);
		if (cluster) {
			/* As Triton: the grid counts clusters, the launch counts
			 * blocks, and a cluster's blocks are spread over the SMs. */
			gx *= v->cluster_dim[0];
			gy *= v->cluster_dim[1];
			gz *= v->cluster_dim[2];
			if (gx > 2147483647u || gy > 65535u || gz > 65535u)
				return tile__fail(TILE_ERROR_GRID, "kernel %s: grid times cluster exceeds the grid limits",
						  tile__str(m, k->name));
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
			attr[n].value.cluster.x = v->cluster_dim[0];
			attr[n].value.cluster.y = v->cluster_dim[1];
			attr[n++].value.cluster.z = v->cluster_dim[2];
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
			attr[n++].value.policy = TILE__CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
		}
		if (pdl) {
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
			attr[n++].value.programmatic = 1;
		}
		if (flags & TILE_LAUNCH_COOPERATIVE) {
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
			attr[n++].value.cooperative = 1;
		}
		config.gridDimX = (unsigned int)gx;
		config.gridDimY = (unsigned int)gy;
		config.gridDimZ = (unsigned int)gz;
		config.blockDimX = block;
		config.blockDimY = config.blockDimZ = 1;
		config.sharedMemBytes = v->shared_dynamic;
		config.hStream = stream;
		config.attrs = attr;
		config.numAttrs = n;
		if ((r = tile__cu.cuLaunchKernelEx(&config, f, launch_args, NULL)) != 0)
			return tile__cuda_fail("cuLaunchKernelEx", r);
		return TILE_SUCCESS;
	}
	r = tile__cu.cuLaunchKernel(f, (unsigned int)dims[0], (unsigned int)dims[1], (unsigned int)dims[2], block, 1, 1,
				    v->shared_dynamic, stream, launch_args, NULL);
	if (r)
		return tile__cuda_fail("cuLaunchKernel", r);
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_launch_ex(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream,
				   void **args, int nargs, unsigned flags)
{
	tile_status st;
	if (!m)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: module is NULL");
	TILE__DEBUG_ENTER(m, "tile_launch");
	st = tile__launch(m, kernel, which, grid, stream, args, nargs, flags);
	TILE__DEBUG_LEAVE(m);
	return st;
}

TILEDEF tile_status tile_launch_config(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream,
				       void **args, int nargs)
{
	return tile_launch_ex(m, kernel, which, grid, stream, args, nargs, 0);
}

TILEDEF tile_status tile_launch(tile_module *m, int kernel, const uint32_t *grid, tile_stream stream, void **args, int nargs)
{
	return tile_launch_config(m, kernel, -1, grid, stream, args, nargs);
}

/* Whether the slot's context is still the one its modules were loaded in:
 * the handle may name a newer context, or none. Without cuCtxGetId the
 * loader cannot tell and assumes it is. */
static int tile__slot_alive(const tile__slot *slot)
{
	unsigned long long id = 0;
	if (!tile__cu.cuCtxGetId)
		return 1;
	return tile__cu.cuCtxGetId(slot->ctx, &id) == 0 && id == slot->key;
}

#ifdef TILE_DEBUG
static tile_module *volatile tile__tombstones;
#endif

TILEDEF void tile_module_destroy(tile_module *m)
{
	tile__slot_table *t, *older;
	unsigned i;
	uint32_t g;
	int d;
	if (!m)
		return;
#ifdef TILE_DEBUG
	{
		uint32_t alive = TILE__ALIVE;
		if (!__atomic_compare_exchange_n(&m->alive, &alive, 0u, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return; /* destroyed already: a tombstone */
		while (__atomic_load_n(&m->users, __ATOMIC_SEQ_CST))
			sched_yield();
	}
#endif
	t = m->slots;
	/* Contexts exist only once the driver opened; errors are ignored: the
	 * context may already be gone. */
	if (t || m->primary) {
		void *previous = NULL;
		tile__cu.cuCtxGetCurrent(&previous);
		for (i = 0; t && i < t->n; i++) {
			tile__slot *slot = t->slot[i];
			int current = 0, alive = tile__slot_alive(slot);
			for (g = 0; alive && g < m->n_groups; g++) {
				if (!slot->modules[g])
					continue;
				if (!current)
					current = tile__cu.cuCtxSetCurrent(slot->ctx) == 0;
				tile__cu.cuModuleUnload(slot->modules[g]);
			}
			tile__slot_free(slot);
		}
		tile__cu.cuCtxSetCurrent(previous);
		for (d = 0; m->primary && d < m->n_primary; d++)
			if (m->primary[d].ctx)
				tile__cu.cuDevicePrimaryCtxRelease(m->primary[d].device);
	}
	for (; t; t = older) {
		older = t->retired;
		TILE_FREE(t);
	}
	m->slots = NULL;
	TILE_FREE(m->primary);
	m->primary = NULL;
	pthread_mutex_destroy(&m->lock);
#ifdef TILE_DEBUG
	{
		tile_module *head;
		TILE_FREE(m->kernels);
		TILE_FREE(m->params);
		TILE_FREE(m->variants);
		TILE_FREE(m->images);
		TILE_FREE(m->recipes);
		m->kernels = NULL;
		m->params = NULL;
		m->variants = NULL;
		m->images = NULL;
		m->recipes = NULL;
		head = __atomic_load_n(&tile__tombstones, __ATOMIC_ACQUIRE);
		do
			m->next_tombstone = head;
		while (!__atomic_compare_exchange_n(&tile__tombstones, &head, m, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	}
#else
	tile__module_free(m);
#endif
}

TILEDEF tile_status tile_lazy_get(tile_lazy_module *lazy, const void *blob, size_t size, tile_module **out)
{
	tile_module *m;
	if (!lazy || !out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_lazy_get: NULL argument");
	for (;;) {
		int idle = 0;
		m = __atomic_load_n(&lazy->module, __ATOMIC_ACQUIRE);
		if (m) {
			*out = m;
			return TILE_SUCCESS;
		}
		/* state: 0 idle, 1 being created, 2 created; a failed creation
		 * goes back to 0 and the next caller tries again. */
		if (__atomic_compare_exchange_n(&lazy->state, &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			tile_status st = tile_module_create(blob, size, &m);
			if (!st)
				__atomic_store_n(&lazy->module, m, __ATOMIC_RELEASE);
			__atomic_store_n(&lazy->state, st ? 0 : 2, __ATOMIC_RELEASE);
			*out = m;
			return st;
		}
		sched_yield();
	}
}

TILEDEF void tile_lazy_release(tile_lazy_module *lazy)
{
	if (!lazy)
		return;
	tile_module_destroy(__atomic_exchange_n(&lazy->module, (tile_module *)NULL, __ATOMIC_ACQ_REL));
	__atomic_store_n(&lazy->state, 0, __ATOMIC_RELEASE);
}

#endif /* TILE_IMPLEMENTATION_INCLUDED */
#endif /* TILE_IMPLEMENTATION */
