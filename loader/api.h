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
