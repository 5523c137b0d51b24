/* A plain Level Zero program with no profiling code: it launches a few kernels, a copy and a fill
 * through the loader. Run with the fake driver (ZE_ENABLE_ALT_DRIVERS) and the injection library
 * preloaded, it is the target of the live injection test (tests/scripts/test_inject_live.sh). */
#include <level_zero/ze_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        ze_result_t r_ = (call);                                                                             \
        if (r_ != ZE_RESULT_SUCCESS) {                                                                       \
            fprintf(stderr, "%s failed: 0x%x\n", #call, (unsigned)r_);                                       \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

int main(int argc, char** argv)
{
    const int kernels = argc > 1 ? atoi(argv[1]) : 5;
    ze_driver_handle_t driver = NULL;
    ze_device_handle_t device = NULL;
    ze_context_handle_t context = NULL;
    ze_command_list_handle_t list = NULL;
    ze_module_handle_t module = NULL;
    ze_kernel_handle_t kernel = NULL;
    uint32_t n = 1;
    CHECK(zeInit(0));
    CHECK(zeDriverGet(&n, &driver));
    n = 1;
    CHECK(zeDeviceGet(driver, &n, &device));
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    CHECK(zeContextCreate(driver, &cd, &context));
    ze_command_queue_desc_t qd = {0};
    qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    CHECK(zeCommandListCreateImmediate(context, device, &qd, &list));
    ze_module_desc_t md = {0};
    md.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    CHECK(zeModuleCreate(context, device, &md, &module, NULL));
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "spin_200us"};
    CHECK(zeKernelCreate(module, &kd, &kernel));
    CHECK(zeKernelSetGroupSize(kernel, 64, 1, 1));
    ze_group_count_t g = {8, 1, 1};
    for (int i = 0; i < kernels; ++i)
        CHECK(zeCommandListAppendLaunchKernel(list, kernel, &g, NULL, 0, NULL));
    void* dev = NULL;
    void* host = NULL;
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    CHECK(zeMemAllocDevice(context, &dd, 4096, 64, device, &dev));
    CHECK(zeMemAllocHost(context, &hd, 4096, 64, &host));
    CHECK(zeCommandListAppendMemoryCopy(list, dev, host, 4096, NULL, 0, NULL));
    printf("launched %d kernels\n", kernels);
    zeMemFree(context, dev);
    zeMemFree(context, host);
    return 0;
}
