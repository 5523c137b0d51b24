/* A CUDA-free program using NVTX the way applications do (header-only nvtx3 from the toolkit).
 * Run with NVTX_INJECTION64_PATH pointing at libkinetoscope_inject.so, its calls become ranges. */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <time.h>

static void busy(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static nvtxRangeId_t g_async;

static void* worker(void* arg)
{
    (void)arg;
    nvtxRangePushA("worker step");
    busy(200);
    nvtxRangePop();
    nvtxRangeEnd(g_async); /* started on the main thread, ended here */
    return 0;
}

int main(void)
{
    nvtxRangePushA("outer");
    busy(100);
    nvtxRangePushA("inner");
    busy(100);
    nvtxMarkA("checkpoint");
    nvtxRangePop();
    nvtxRangePop();

    g_async = nvtxRangeStartA("async load");
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);

    nvtxDomainHandle_t domain = nvtxDomainCreateA("my library");
    nvtxStringHandle_t registered = nvtxDomainRegisterStringA(domain, "registered range");
    nvtxEventAttributes_t attr = {0};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attr.message.registered = registered;
    nvtxDomainRangePushEx(domain, &attr);
    busy(100);
    nvtxDomainRangePop(domain);
    nvtxDomainDestroy(domain);
    return 0;
}
