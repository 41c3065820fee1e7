/* A small MUSA runtime (libmusart.so) and MCCL (libmccl.so) for the simulator, so programs
 * that load the CUDA runtime through ctypes are tested against a real shared library.
 *
 * Entry points follow the MUSA runtime's CUDA-shaped C API (musaError_t = int, 0 is
 * musaSuccess; ../shared/torch_musa_api/cuda_vs_musa.md: libcudart -> libmusart). The
 * answers come from the simulator through callbacks it installs at import
 * (torchada_sim_runtime_install), so they agree with torch.musa. Built with the host C
 * compiler; MCCL_ONLY selects the libmccl.so half. */
#include <stddef.h>

#define SUCCESS 0
#define ERROR_INVALID_VALUE 1
#define ERROR_NOT_READY 3  /* "not initialised": the simulator has not installed its hooks */

#ifndef MCCL_ONLY
typedef int (*int_out_fn)(int *);
typedef int (*int_in_fn)(int);
typedef int (*meminfo_fn)(size_t *, size_t *);
typedef int (*void_fn)(void);

static int_out_fn g_device_count, g_get_device;
static int_in_fn g_set_device;
static meminfo_fn g_mem_get_info;
static void_fn g_synchronize;
static int g_runtime_version;

void torchada_sim_runtime_install(int_out_fn device_count, int_out_fn get_device,
                                  int_in_fn set_device, meminfo_fn mem_get_info,
                                  void_fn synchronize, int runtime_version) {
  g_device_count = device_count;
  g_get_device = get_device;
  g_set_device = set_device;
  g_mem_get_info = mem_get_info;
  g_synchronize = synchronize;
  g_runtime_version = runtime_version;
}

int musaGetDeviceCount(int *count) {
  if (!count) return ERROR_INVALID_VALUE;
  return g_device_count ? g_device_count(count) : ERROR_NOT_READY;
}
int musaGetDevice(int *device) {
  if (!device) return ERROR_INVALID_VALUE;
  return g_get_device ? g_get_device(device) : ERROR_NOT_READY;
}
int musaSetDevice(int device) { return g_set_device ? g_set_device(device) : ERROR_NOT_READY; }
int musaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  if (!free_bytes || !total_bytes) return ERROR_INVALID_VALUE;
  return g_mem_get_info ? g_mem_get_info(free_bytes, total_bytes) : ERROR_NOT_READY;
}
int musaDeviceSynchronize(void) { return g_synchronize ? g_synchronize() : ERROR_NOT_READY; }
int musaRuntimeGetVersion(int *version) {
  if (!version) return ERROR_INVALID_VALUE;
  *version = g_runtime_version;
  return SUCCESS;
}
int musaDriverGetVersion(int *version) { return musaRuntimeGetVersion(version); }
const char *musaGetErrorString(int error) {
  switch (error) {
    case SUCCESS: return "no error";
    case ERROR_INVALID_VALUE: return "invalid argument";
    case ERROR_NOT_READY: return "MUSA runtime not initialised";
    default: return "unknown error";
  }
}
#else
int mcclGetVersion(int *version) {
  if (!version) return ERROR_INVALID_VALUE;
  *version = 21600; /* the simulator's _mccl_version() 2.16.0, as major*10000+minor*100 */
  return SUCCESS;
}
#endif
