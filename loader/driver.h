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
