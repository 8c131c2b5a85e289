// startup_floor: what a process pays before its first kernel, phase by phase, with no
// ragged code involved: dlopen + cuInit, primary context, NVML init and queries, NVRTC
// load. Run twice in a row to see warm figures. Build: cc -O2 -o startup_floor
// experiments/startup_floor.c -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void) {
    double t0 = now_ms();
    void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    double t1 = now_ms();
    if (nvml) {
        int (*init)(void) = dlsym(nvml, "nvmlInit_v2");
        int (*count)(unsigned*) = dlsym(nvml, "nvmlDeviceGetCount_v2");
        int (*handle)(unsigned, void**) = dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2");
        int (*name)(void*, char*, unsigned) = dlsym(nvml, "nvmlDeviceGetName");
        int (*cc)(void*, int*, int*) = dlsym(nvml, "nvmlDeviceGetCudaComputeCapability");
        int (*drv)(int*) = dlsym(nvml, "nvmlSystemGetCudaDriverVersion_v2");
        int rc = init();
        double t2 = now_ms();
        unsigned n = 0;
        count(&n);
        void* h = 0;
        handle(0, &h);
        char buf[96] = {0};
        name(h, buf, sizeof buf);
        int major = 0, minor = 0, v = 0;
        cc(h, &major, &minor);
        drv(&v);
        double t3 = now_ms();
        printf("nvml: dlopen %.1f ms, init %.1f ms (rc %d), queries %.1f ms: %u x %s sm_%d%d cuda %d\n", t1 - t0,
               t2 - t1, rc, t3 - t2, n, buf, major, minor, v);
    }
    t0 = now_ms();
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
    t1 = now_ms();
    if (!cuda) {
        printf("cuda: dlopen failed: %s\n", dlerror());
        return 1;
    }
    int (*cuInit)(unsigned) = dlsym(cuda, "cuInit");
    int rc = cuInit(0);
    double t2 = now_ms();
    int (*retain)(void**, int) = dlsym(cuda, "cuDevicePrimaryCtxRetain");
    void* ctx = 0;
    int rc2 = retain(&ctx, 0);
    int (*set)(void*) = dlsym(cuda, "cuCtxSetCurrent");
    set(ctx);
    int (*fr)(void*) = dlsym(cuda, "cuCtxSynchronize");
    fr(0);
    double t3 = now_ms();
    printf("cuda: dlopen %.1f ms, cuInit %.1f ms (rc %d), primary context %.1f ms (rc %d)\n", t1 - t0, t2 - t1, rc,
           t3 - t2, rc2);
    t0 = now_ms();
    void* nvrtc = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_GLOBAL);
    t1 = now_ms();
    if (nvrtc) {
        int (*ver)(int*, int*) = dlsym(nvrtc, "nvrtcVersion");
        int a, b;
        ver(&a, &b);
        printf("nvrtc: dlopen %.1f ms, version %d.%d %.1f ms\n", t1 - t0, a, b, now_ms() - t1);
    } else {
        printf("nvrtc: dlopen failed: %s\n", dlerror());
    }
    return 0;
}
