// A stand-in for libcuda.so.1 that logs the calls the launcher makes, so that the
// driver glue can be tested on machines without a GPU (see driver_test.go). Every
// line of the log at $FAKE_CUDA_LOG is one call. $FAKE_CUDA_FAIL names a call that
// fails with CUDA_ERROR_INVALID_VALUE: "load" (cuModuleLoadData), "launch" or "sync"
// (cuStreamSynchronize).
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

__attribute__((format(printf, 1, 2))) static void logf_(const char* fmt, ...) {
  FILE* f = fopen(getenv("FAKE_CUDA_LOG"), "a");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

static int fails(const char* call) {
  const char* f = getenv("FAKE_CUDA_FAIL");
  return f && strcmp(f, call) == 0;
}

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return 0; }
CUresult cuDeviceGet(int* d, int ordinal) { *d = ordinal; return 0; }
CUresult cuDeviceGetAttribute(int* v, int attr, int d) { (void)d; *v = attr == 16 ? 2 : 0; return 0; }
CUresult cuDevicePrimaryCtxRetain(void** ctx, int d) {
  logf_("retain %d", d);
  *ctx = (void*)(uintptr_t)(0x100 + d);
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int d) { logf_("release %d", d); return 0; }
CUresult cuCtxPushCurrent_v2(void* ctx) { logf_("push %p", ctx); return 0; }
CUresult cuCtxPopCurrent_v2(void** ctx) { logf_("pop"); *ctx = NULL; return 0; }

CUresult cuModuleLoadData(void** mod, const void* image) {
  uint32_t magic;
  memcpy(&magic, image, 4);
  logf_("load %08x", magic);
  *mod = (void*)0x200;
  return fails("load");
}

// A function handle is its name.
CUresult cuModuleGetFunction(void** f, void* mod, const char* name) {
  (void)mod;
  *f = strdup(name);
  return 0;
}

CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void* stream, void** params, void** extra) {
  if (params || !extra || extra[0] != (void*)1 || extra[2] != (void*)2 || extra[4] != NULL) return 1;
  size_t size = *(size_t*)extra[3];
  const unsigned char* buf = extra[1];
  char hex[4096] = "";
  for (size_t i = 0; i < size && 2 * i + 2 < sizeof(hex); i++) sprintf(hex + 2 * i, "%02x", buf[i]);
  logf_("launch %s grid %u %u %u block %u %u %u smem %u stream %p size %zu %s", (const char*)f, gx, gy, gz, bx,
        by, bz, smem, stream, size, hex);
  return fails("launch");
}

CUresult cuGetErrorName(CUresult r, const char** s) { *s = r == 1 ? "CUDA_ERROR_INVALID_VALUE" : NULL; return 0; }
CUresult cuGetErrorString(CUresult r, const char** s) { *s = r == 1 ? "invalid argument" : NULL; return 0; }

CUresult cuMemAlloc_v2(void* p, size_t n) { (void)p; (void)n; return 1; }
CUresult cuMemFree_v2(uintptr_t p) { (void)p; return 1; }
CUresult cuMemcpyHtoD_v2(uintptr_t d, const void* s, size_t n) { (void)d; (void)s; (void)n; return 1; }
CUresult cuMemcpyDtoH_v2(void* d, uintptr_t s, size_t n) { (void)d; (void)s; (void)n; return 1; }
CUresult cuCtxSynchronize(void) { return 1; }
CUresult cuStreamSynchronize(void* stream) { logf_("sync %p", stream); return fails("sync"); }
