//go:build cgo

package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The few driver API types used here, so that building needs no CUDA headers.
typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef unsigned long long CUdeviceptr;

#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_LAUNCH_PARAM_END ((void*)0)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)1)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)2)

static struct {
	CUresult (*init)(unsigned);
	CUresult (*deviceGetCount)(int*);
	CUresult (*deviceGet)(CUdevice*, int);
	CUresult (*deviceGetAttribute)(int*, int, CUdevice);
	CUresult (*primaryCtxRetain)(CUcontext*, CUdevice);
	CUresult (*primaryCtxRelease)(CUdevice);
	CUresult (*ctxPush)(CUcontext);
	CUresult (*ctxPop)(CUcontext*);
	CUresult (*moduleLoadData)(CUmodule*, const void*);
	CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*);
	CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                         CUstream, void**, void**);
	CUresult (*getErrorName)(CUresult, const char**);
	CUresult (*getErrorString)(CUresult, const char**);
	// For the tests and benchmarks, which need memory of their own.
	CUresult (*memAlloc)(CUdeviceptr*, size_t);
	CUresult (*memFree)(CUdeviceptr);
	CUresult (*memcpyHtoD)(CUdeviceptr, const void*, size_t);
	CUresult (*memcpyDtoH)(void*, CUdeviceptr, size_t);
	CUresult (*ctxSynchronize)(void);
	CUresult (*streamSynchronize)(CUstream);
} drv;

// Opens the driver and resolves every entry point; returns NULL or what failed.
// The _v2 names are what cuda.h maps the plain names to.
static const char* pyfss_open_driver(void) {
	void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) return dlerror();
	struct { void** fn; const char* name; } syms[] = {
		{(void**)&drv.init, "cuInit"},
		{(void**)&drv.deviceGetCount, "cuDeviceGetCount"},
		{(void**)&drv.deviceGet, "cuDeviceGet"},
		{(void**)&drv.deviceGetAttribute, "cuDeviceGetAttribute"},
		{(void**)&drv.primaryCtxRetain, "cuDevicePrimaryCtxRetain"},
		{(void**)&drv.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
		{(void**)&drv.ctxPush, "cuCtxPushCurrent_v2"},
		{(void**)&drv.ctxPop, "cuCtxPopCurrent_v2"},
		{(void**)&drv.moduleLoadData, "cuModuleLoadData"},
		{(void**)&drv.moduleGetFunction, "cuModuleGetFunction"},
		{(void**)&drv.launchKernel, "cuLaunchKernel"},
		{(void**)&drv.getErrorName, "cuGetErrorName"},
		{(void**)&drv.getErrorString, "cuGetErrorString"},
		{(void**)&drv.memAlloc, "cuMemAlloc_v2"},
		{(void**)&drv.memFree, "cuMemFree_v2"},
		{(void**)&drv.memcpyHtoD, "cuMemcpyHtoD_v2"},
		{(void**)&drv.memcpyDtoH, "cuMemcpyDtoH_v2"},
		{(void**)&drv.ctxSynchronize, "cuCtxSynchronize"},
		{(void**)&drv.streamSynchronize, "cuStreamSynchronize"},
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		if (!*syms[i].fn) return syms[i].name;
	}
	return NULL;
}

static CUresult pyfss_init(void) { return drv.init(0); }
static CUresult pyfss_device_count(int* n) { return drv.deviceGetCount(n); }
static CUresult pyfss_device_get(CUdevice* d, int ordinal) { return drv.deviceGet(d, ordinal); }
static CUresult pyfss_sm_count(int* n, CUdevice d) {
	return drv.deviceGetAttribute(n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
}
static CUresult pyfss_retain_primary_ctx(CUcontext* c, CUdevice d) { return drv.primaryCtxRetain(c, d); }
static CUresult pyfss_release_primary_ctx(CUdevice d) { return drv.primaryCtxRelease(d); }
static CUresult pyfss_push(CUcontext c) { return drv.ctxPush(c); }
static CUresult pyfss_pop(void) { CUcontext c; return drv.ctxPop(&c); }
static CUresult pyfss_load(CUmodule* m, const void* image) { return drv.moduleLoadData(m, image); }
static CUresult pyfss_function(CUfunction* f, CUmodule m, const char* name) {
	return drv.moduleGetFunction(f, m, name);
}

// The parameter buffer is passed whole through `extra`; the driver copies it before
// returning, so it may live in Go memory.
static CUresult pyfss_launch(CUfunction f, unsigned blocks, unsigned threads, uintptr_t stream, void* args,
                             size_t size) {
	void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
	return drv.launchKernel(f, blocks, 1, 1, threads, 1, 1, 0, (CUstream)stream, NULL, extra);
}

static CUresult pyfss_alloc(uintptr_t* p, size_t n) {
	CUdeviceptr d = 0;
	CUresult r = drv.memAlloc(&d, n);
	*p = (uintptr_t)d;
	return r;
}
static CUresult pyfss_free(uintptr_t p) { return drv.memFree((CUdeviceptr)p); }
static CUresult pyfss_to_device(uintptr_t dst, const void* src, size_t n) {
	return drv.memcpyHtoD((CUdeviceptr)dst, src, n);
}
static CUresult pyfss_from_device(void* dst, uintptr_t src, size_t n) {
	return drv.memcpyDtoH(dst, (CUdeviceptr)src, n);
}
static CUresult pyfss_synchronize(void) { return drv.ctxSynchronize(); }
static CUresult pyfss_stream_synchronize(uintptr_t stream) { return drv.streamSynchronize((CUstream)stream); }

static const char* pyfss_error_name(CUresult r) {
	const char* s = NULL;
	drv.getErrorName(r, &s);
	return s;
}
static const char* pyfss_error_string(CUresult r) {
	const char* s = NULL;
	drv.getErrorString(r, &s);
	return s;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// Grids are capped at this many blocks per multiprocessor, several waves of resident
// blocks; the kernels' grid-stride loops cover the rest.
const maxBlocksPerSM = 32

var (
	driverOnce  sync.Once
	driverErr   error // why the driver cannot be used; nil once cuInit succeeded
	driverOpen  bool  // libcuda.so.1 and its entry points were found
	deviceCount int

	devicesMu sync.Mutex
	devices   = map[int]*device{}
)

var errNoDevice = errors.New("cuda: the driver reports no CUDA device")

// device is one GPU's primary context with the kernels loaded into it.
type device struct {
	ctx    C.CUcontext
	module C.CUmodule
	sms    int

	mu        sync.Mutex
	functions map[string]C.CUfunction
}

func openDriver() error {
	driverOnce.Do(func() {
		if msg := C.pyfss_open_driver(); msg != nil {
			driverErr = fmt.Errorf("%w: %s", ErrNoDriver, C.GoString(msg))
			return
		}
		driverOpen = true
		if r := C.pyfss_init(); r != 0 {
			driverErr = fmt.Errorf("%w: %s", ErrNoDriver, driverError("cuInit", r))
			return
		}
		var n C.int
		if r := C.pyfss_device_count(&n); r != 0 {
			driverErr = fmt.Errorf("%w: %s", ErrNoDriver, driverError("cuDeviceGetCount", r))
			return
		}
		deviceCount = int(n)
	})
	return driverErr
}

// driverError names the failed call and the driver's code and description, as in
// "cuLaunchKernel(dpf_eval_chacha_uint32): CUDA_ERROR_INVALID_VALUE (invalid argument)".
func driverError(call string, r C.CUresult) error {
	name, desc := C.pyfss_error_name(r), C.pyfss_error_string(r)
	if name == nil {
		return fmt.Errorf("%s: CUDA error %d", call, int(r))
	}
	if desc == nil {
		return fmt.Errorf("%s: %s", call, C.GoString(name))
	}
	return fmt.Errorf("%s: %s (%s)", call, C.GoString(name), C.GoString(desc))
}

// GetInfo reports whether the kernels are compiled in and the driver and devices can
// be used; Reason says what is missing.
func GetInfo() Info {
	var info Info
	kernelsErr := kernelsInfo(&info)
	err := openDriver()
	info.DriverLoaded = driverOpen
	info.Devices = deviceCount
	switch {
	case kernelsErr != nil:
		info.Reason = kernelsErr.Error()
	case err != nil:
		info.Reason = err.Error()
	case deviceCount == 0:
		info.Reason = errNoDevice.Error()
	}
	return info
}

// getDevice returns device ordinal's state, retaining its primary context and loading
// the module into it at first use. Both stay for the life of the process once loaded:
// a module lives in its context, and PyTorch holds the same context anyway.
func getDevice(ordinal int) (*device, error) {
	if err := kernelsInfo(&Info{}); err != nil {
		return nil, err
	}
	if err := openDriver(); err != nil {
		return nil, err
	}
	if deviceCount == 0 {
		return nil, errNoDevice
	}
	if ordinal < 0 || ordinal >= deviceCount {
		return nil, fmt.Errorf("cuda: device %d out of range: %d CUDA devices", ordinal, deviceCount)
	}
	devicesMu.Lock()
	defer devicesMu.Unlock()
	if d := devices[ordinal]; d != nil {
		return d, nil
	}
	var cuDev C.CUdevice
	if r := C.pyfss_device_get(&cuDev, C.int(ordinal)); r != 0 {
		return nil, fmt.Errorf("cuda: %w", driverError("cuDeviceGet", r))
	}
	d := &device{functions: map[string]C.CUfunction{}}
	var sms C.int
	if r := C.pyfss_sm_count(&sms, cuDev); r != 0 {
		return nil, fmt.Errorf("cuda: %w", driverError("cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)", r))
	}
	d.sms = int(sms)
	if r := C.pyfss_retain_primary_ctx(&d.ctx, cuDev); r != 0 {
		return nil, fmt.Errorf("cuda: %w", driverError("cuDevicePrimaryCtxRetain", r))
	}
	if err := d.loadModule(); err != nil {
		// Give our reference back: kept unused, it would hold the context (and its
		// memory) for the life of the process, and the next call retains it again.
		if r := C.pyfss_release_primary_ctx(cuDev); r != 0 {
			err = fmt.Errorf("%w; %w", err, driverError("cuDevicePrimaryCtxRelease", r))
		}
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	devices[ordinal] = d
	return d, nil
}

// loadModule loads the embedded kernels into the device's context. The image stays
// once loaded: the driver documents no copy of it, and with lazy loading
// (CUDA_MODULE_LOADING=LAZY) it may read kernels from it later.
func (d *device) loadModule() error {
	image := C.CBytes(fatbin)
	err := d.withContext(func() error {
		if r := C.pyfss_load(&d.module, image); r != 0 {
			return driverError("cuModuleLoadData", r)
		}
		return nil
	})
	if err != nil {
		C.free(image)
	}
	return err
}

// withContext runs f with the device's primary context current on this OS thread and
// then restores the caller's (PyTorch's) current context.
func (d *device) withContext(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := C.pyfss_push(d.ctx); r != 0 {
		return driverError("cuCtxPushCurrent", r)
	}
	err := f()
	if r := C.pyfss_pop(); r != 0 && err == nil {
		err = driverError("cuCtxPopCurrent", r)
	}
	return err
}

func (d *device) function(name string) (C.CUfunction, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.functions[name]; ok {
		return f, nil
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f C.CUfunction
	if r := C.pyfss_function(&f, d.module, cname); r != 0 {
		return nil, driverError(fmt.Sprintf("cuModuleGetFunction(%s)", name), r)
	}
	d.functions[name] = f
	return f, nil
}

// syncLaunches is PYFSS_CUDA_SYNC set (to anything but 0): run then waits for each
// kernel and returns its fault, naming it, where a fault would otherwise surface at the
// next synchronization, often in a later call. For tests and debugging: it
// serializes the host with the GPU.
var syncLaunches = os.Getenv("PYFSS_CUDA_SYNC") != "" && os.Getenv("PYFSS_CUDA_SYNC") != "0"

// run issues the launches in order on stream (0 is the legacy default stream) and
// returns without waiting for them, unless syncLaunches.
func run(dev int, stream uintptr, launches []launch) error {
	d, err := getDevice(dev)
	if err != nil {
		return err
	}
	err = d.withContext(func() error {
		for _, l := range launches {
			f, err := d.function(l.kernel)
			if err != nil {
				return err
			}
			blocks := min((l.threads+threadsPerBlock-1)/threadsPerBlock, uint64(d.sms*maxBlocksPerSM))
			r := C.pyfss_launch(f, C.uint(blocks), threadsPerBlock, C.uintptr_t(stream),
				unsafe.Pointer(&l.args.buf[0]), C.size_t(len(l.args.buf)))
			if r != 0 {
				return driverError(fmt.Sprintf("cuLaunchKernel(%s)", l.kernel), r)
			}
			if syncLaunches {
				if r := C.pyfss_stream_synchronize(C.uintptr_t(stream)); r != 0 {
					return driverError(fmt.Sprintf("cuStreamSynchronize after %s", l.kernel), r)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cuda: device %d: %w", dev, err)
	}
	return nil
}

// Device memory for the tests and benchmarks of this package; the library itself works
// only in memory its caller allocated.

func deviceAlloc(dev, n int) (uintptr, error) {
	var p C.uintptr_t
	err := onDevice(dev, "cuMemAlloc", func() C.CUresult { return C.pyfss_alloc(&p, C.size_t(n)) })
	return uintptr(p), err
}

func deviceFree(dev int, p uintptr) error {
	return onDevice(dev, "cuMemFree", func() C.CUresult { return C.pyfss_free(C.uintptr_t(p)) })
}

// copyToDevice and copyFromDevice are synchronous; on the legacy default stream they
// also wait for the kernels launched before them.
func copyToDevice(dev int, dst uintptr, src []uint32) error {
	return onDevice(dev, "cuMemcpyHtoD", func() C.CUresult {
		return C.pyfss_to_device(C.uintptr_t(dst), unsafe.Pointer(&src[0]), C.size_t(4*len(src)))
	})
}

func copyFromDevice(dev int, dst []uint32, src uintptr) error {
	return onDevice(dev, "cuMemcpyDtoH", func() C.CUresult {
		return C.pyfss_from_device(unsafe.Pointer(&dst[0]), C.uintptr_t(src), C.size_t(4*len(dst)))
	})
}

func synchronize(dev int) error {
	return onDevice(dev, "cuCtxSynchronize", func() C.CUresult { return C.pyfss_synchronize() })
}

func onDevice(dev int, call string, f func() C.CUresult) error {
	d, err := getDevice(dev)
	if err != nil {
		return err
	}
	return d.withContext(func() error {
		if r := f(); r != 0 {
			return driverError(call, r)
		}
		return nil
	})
}
