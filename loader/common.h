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
