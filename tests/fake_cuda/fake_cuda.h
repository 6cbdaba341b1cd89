/* fake_cuda.h - what the loader's fake-driver test and the fake driver
 * (fake_cuda.c) share: limits, the launch record and the control functions
 * the test looks up with dlsym. */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#define FAKE_MAX_DEVICES 4
#define FAKE_SMEM_OPTIN 232448 /* an H100's opt-in shared memory per block */
#define FAKE_SHARED_STATIC 1024

typedef struct fake_launch {
	char symbol[64], image[128];
	unsigned int grid[3], block[3], cluster[3], shared;
	void *stream, *ctx;
	int ex;     /* through cuLaunchKernelEx */
	int cluster_policy; /* CUclusterSchedulingPolicy given to cuLaunchKernelEx */
	int programmatic;   /* programmatic stream serialization allowed (cuLaunchKernelEx) */
	int cooperative;    /* a cooperative launch (cuLaunchKernelEx) */
	int count;  /* launches recorded since the last reset of this record */
	unsigned long long params[16]; /* values, by the sizes given with fake_cuda_param_sizes */
	/* parameters of size 128 (tensor maps), in order, each with its pointer's address modulo 64 */
	int n_maps;
	unsigned char maps[4][128];
	unsigned int map_misalign[4];
} fake_launch;

/* The arguments of the last cuTensorMapEncodeTiled call. The map it
 * writes starts with FAKE_MAP_MAGIC + the call's number (1, 2, ...; the
 * count since the process started), then the global address twice. */
#define FAKE_MAP_MAGIC 0x544d415000000000ull
typedef struct fake_tensormap {
	int data_type;
	unsigned int rank;
	unsigned long long address, dims[5], strides[5];
	unsigned int box[5], element_strides[5];
	int interleave, swizzle, l2_promotion, oob_fill;
	unsigned int map_misalign; /* the map's address modulo 64 */
} fake_tensormap;
typedef void (*fake_cuda_last_tensormap_fn)(fake_tensormap *out);
/* The arguments of the call `back` calls before the last (0: the last;
 * up to 7); 0 when there was none. */
typedef int (*fake_cuda_recent_tensormap_fn)(int back, fake_tensormap *out);
typedef int (*fake_cuda_map_mismatches_fn)(void);

typedef void (*fake_cuda_reset_fn)(void);
typedef int (*fake_cuda_calls_fn)(const char *name);
typedef void (*fake_cuda_fail_fn)(const char *name, int result);
typedef void (*fake_cuda_set_devices_fn)(int n, const int *cc);
typedef void *(*fake_cuda_ctx_create_fn)(int device);
typedef int (*fake_cuda_live_modules_fn)(void);
typedef int (*fake_cuda_primary_refs_fn)(int device);
typedef void (*fake_cuda_param_sizes_fn)(int n, const int *sizes);
typedef void (*fake_cuda_last_launch_fn)(fake_launch *out);
typedef void (*fake_cuda_ctx_destroy_fn)(void *ctx);
typedef void (*fake_cuda_primary_reset_fn)(int device);
typedef void (*fake_cuda_capture_fn)(void *stream, int on);
typedef long long (*fake_cuda_ctx_launches_fn)(void *ctx);

#endif
