#include "core/collect/cuptilibrary.h"

#include "core/collect/wheellibdirs.h"

#include <cstdlib>
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <mutex>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace ks::collect {

// Only the entry points the collector calls, typed from the headers we build against and resolved
// by name in whichever libcupti is loaded.
struct CuptiLibrary::Api {
    void* handle = nullptr;
    decltype(&cuptiGetVersion) getVersion = nullptr;
    decltype(&cuptiGetResultString) getResultString = nullptr;
    decltype(&cuptiGetTimestamp) getTimestamp = nullptr;
    decltype(&cuptiActivityRegisterCallbacks) registerCallbacks = nullptr;
    decltype(&cuptiActivityEnable) enable = nullptr;
    decltype(&cuptiActivityDisable) disable = nullptr;
    decltype(&cuptiActivityFlushAll) flushAll = nullptr;
    decltype(&cuptiActivityGetNextRecord) getNextRecord = nullptr;
    decltype(&cuptiActivityGetNumDroppedRecords) getNumDroppedRecords = nullptr;
    decltype(&cuptiActivityPushExternalCorrelationId) pushExternal = nullptr;
    decltype(&cuptiActivityPopExternalCorrelationId) popExternal = nullptr;
    decltype(&cuptiGetCallbackName) getCallbackName = nullptr;
    decltype(&cuptiSubscribe) subscribe = nullptr;
    decltype(&cuptiSubscribe_v2) subscribeV2 = nullptr; // CUDA 13 only
    decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
};

// libcuda.so.1, for the "is there a driver" probe and the device table. Never cuInit: the
// application (or the driver calling our injection) does that.
struct CuptiLibrary::Driver {
    void* handle = nullptr;
    std::string problem;
    decltype(&cuDriverGetVersion) driverGetVersion = nullptr;
    decltype(&cuDeviceGetCount) deviceGetCount = nullptr;
    decltype(&cuDeviceGet) deviceGet = nullptr;
    decltype(&cuDeviceGetName) deviceGetName = nullptr;
    decltype(&cuDeviceTotalMem) deviceTotalMem = nullptr;
    decltype(&cuDeviceGetAttribute) deviceGetAttribute = nullptr;
    std::mutex mutex;
    bool queried = false;
    std::vector<std::string> properties;
    std::vector<DeviceLimits> limits;
};

namespace {

template <typename F>
void resolve(void* handle, F& fn, const char* name)
{
    fn = reinterpret_cast<F>(dlsym(handle, name));
}

// By soname and in each folder searched, newest CUDA first.
constexpr const char* kSonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};

void* openCupti(std::string& path, std::string& errors, std::vector<std::string>& looked)
{
    auto attempt = [&](const std::string& p, int flags) -> void* {
        dlerror();
        void* h = dlopen(p.c_str(), flags);
        if (h) {
            path = p;
        } else if (const char* e = dlerror(); e && !(flags & RTLD_NOLOAD)) {
            if (!errors.empty()) errors += "; ";
            errors += e;
        }
        return h;
    };
    // A file that is not there is no error worth reporting; one that is there and fails to load is.
    auto inDirs = [&](const std::vector<std::string>& dirs) -> void* {
        for (const std::string& d : dirs) {
            looked.push_back(d);
            for (const char* soname : kSonames) {
                const std::string p = d + '/' + soname;
                if (access(p.c_str(), F_OK) != 0) continue;
                if (void* h = attempt(p, RTLD_NOW | RTLD_LOCAL)) return h;
            }
        }
        return nullptr;
    };
    if (const char* forced = std::getenv("KINETOSCOPE_CUPTI_LIBRARY"); forced && *forced)
        return attempt(forced, RTLD_NOW | RTLD_LOCAL);
    // One walk of the files mapped here serves both the mapped libcupti and the wheel search.
    const WheelSearchInputs process = processWheelSearchInputs();
    for (const std::string& m : process.mapped) {
        const size_t slash = m.rfind('/');
        if (std::string_view(m)
                .substr(slash == std::string::npos ? 0 : slash + 1)
                .starts_with("libcupti.so")) {
            if (void* h = attempt(m, RTLD_NOW | RTLD_NOLOAD)) return h;
            break;
        }
    }
    // The CUPTI wheel beside the Python running here (a pip torch that has not loaded its CUPTI
    // yet) matches that torch's CUDA; one on the loader's path may be another toolkit's.
    const SitePackagesRoots roots = sitePackagesRoots(process);
    if (void* h = inDirs(wheelLibraryDirs(roots.running, "cuda_cupti"))) return h;
    for (const char* soname : kSonames) {
        if (void* h = attempt(soname, RTLD_NOW | RTLD_LOCAL)) return h;
    }
    std::vector<std::string> dirs;
    for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
        if (const char* v = std::getenv(env); v && *v) {
            dirs.push_back(std::string(v) + "/extras/CUPTI/lib64");
            dirs.push_back(std::string(v) + "/lib64");
        }
    }
    for (std::string& d : wheelLibraryDirs(roots.environment, "cuda_cupti"))
        dirs.push_back(std::move(d));
    dirs.push_back("/usr/local/cuda/extras/CUPTI/lib64");
    dirs.push_back("/usr/local/cuda/lib64");
#ifdef KS_CUPTI_LIBRARY_DIR
    dirs.push_back(KS_CUPTI_LIBRARY_DIR);
#endif
    return inDirs(dirs);
}

} // namespace

std::unique_ptr<CuptiLibrary> CuptiLibrary::load(std::string& why)
{
    std::string path, errors;
    std::vector<std::string> looked;
    void* handle = openCupti(path, errors, looked);
    if (!handle) {
        why = "libcupti not found (" +
              (errors.empty() ? std::string("no libcupti.so.13/.12 on the library path") : errors) +
              "; looked in " + std::to_string(looked.size()) +
              " folders, pip's CUDA wheels among them); install the CUDA toolkit's CUPTI or the "
              "nvidia-cuda-cupti wheel, or set KINETOSCOPE_CUPTI_LIBRARY";
        return nullptr;
    }
    std::unique_ptr<CuptiLibrary> lib(new CuptiLibrary());
    lib->m_path = path;
    lib->m_api = std::make_unique<Api>();
    Api& a = *lib->m_api;
    a.handle = handle;
    resolve(handle, a.getVersion, "cuptiGetVersion");
    resolve(handle, a.getResultString, "cuptiGetResultString");
    resolve(handle, a.getTimestamp, "cuptiGetTimestamp");
    resolve(handle, a.registerCallbacks, "cuptiActivityRegisterCallbacks");
    resolve(handle, a.enable, "cuptiActivityEnable");
    resolve(handle, a.disable, "cuptiActivityDisable");
    resolve(handle, a.flushAll, "cuptiActivityFlushAll");
    resolve(handle, a.getNextRecord, "cuptiActivityGetNextRecord");
    resolve(handle, a.getNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
    resolve(handle, a.pushExternal, "cuptiActivityPushExternalCorrelationId");
    resolve(handle, a.popExternal, "cuptiActivityPopExternalCorrelationId");
    resolve(handle, a.getCallbackName, "cuptiGetCallbackName");
    resolve(handle, a.subscribe, "cuptiSubscribe");
    resolve(handle, a.subscribeV2, "cuptiSubscribe_v2");
    resolve(handle, a.unsubscribe, "cuptiUnsubscribe");
    if (!a.getVersion || !a.getTimestamp || !a.registerCallbacks || !a.enable || !a.disable || !a.flushAll ||
        !a.getNextRecord || !a.pushExternal || !a.popExternal) {
        why = path + " lacks the CUPTI activity API entry points";
        dlclose(handle);
        return nullptr;
    }

    lib->m_driver = std::make_unique<Driver>();
    Driver& d = *lib->m_driver;
    dlerror();
    d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!d.handle) d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d.handle) {
        const char* e = dlerror();
        d.problem = std::string("no NVIDIA driver: libcuda.so.1 cannot be loaded") +
                    (e ? std::string(" (") + e + ")" : "");
    } else {
        resolve(d.handle, d.driverGetVersion, "cuDriverGetVersion");
        resolve(d.handle, d.deviceGetCount, "cuDeviceGetCount");
        resolve(d.handle, d.deviceGet, "cuDeviceGet");
        resolve(d.handle, d.deviceGetName, "cuDeviceGetName");
        resolve(d.handle, d.deviceTotalMem, "cuDeviceTotalMem_v2");
        resolve(d.handle, d.deviceGetAttribute, "cuDeviceGetAttribute");
        int v = 0;
        if (!d.driverGetVersion || d.driverGetVersion(&v) != CUDA_SUCCESS) {
            d.problem = "the NVIDIA driver (libcuda.so.1) does not answer cuDriverGetVersion";
        } else {
            // CUPTI works only with a driver at least as new as its own CUDA release.
            uint32_t cupti = 0;
            a.getVersion(&cupti);
            const int needMajor = cupti >= 130000 ? int(cupti / 10000) : cupti >= 19 ? 12 : 0;
            if (v / 1000 < needMajor)
                d.problem = "the NVIDIA driver supports CUDA " + std::to_string(v / 1000) + "." +
                            std::to_string(v % 1000 / 10) + ", older than " + path + " (CUDA " +
                            std::to_string(needMajor) +
                            "); update the driver or point KINETOSCOPE_CUPTI_LIBRARY at the CUPTI of the "
                            "CUDA version the program uses";
        }
    }
    return lib;
}

CuptiLibrary::~CuptiLibrary()
{
    // libcupti and libcuda stay loaded: CUPTI may still call our buffer callbacks from its own
    // thread, and unloading either under a running CUDA program is never safe.
}

uint32_t CuptiLibrary::version()
{
    uint32_t v = 0;
    return m_api->getVersion(&v) == CUPTI_SUCCESS ? v : 0;
}

std::string CuptiLibrary::driverProblem()
{
    return m_driver->problem;
}

int CuptiLibrary::probeSubscriber(std::string& otherTool)
{
    CUpti_SubscriberHandle h = nullptr;
    CUptiResult r;
    if (m_api->subscribeV2) {
        char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
        CUpti_SubscriberParams p = {};
        p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        p.subscriberName = "Kinetoscope";
        p.oldSubscriberName = old;
        p.oldSubscriberSize = sizeof old;
        r = m_api->subscribeV2(
            &h, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr, &p);
        otherTool = old;
    } else if (m_api->subscribe) {
        r = m_api->subscribe(
            &h, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr);
    } else {
        return CUPTI_SUCCESS;
    }
    if (r == CUPTI_SUCCESS && m_api->unsubscribe) m_api->unsubscribe(h);
    return int(r);
}

int CuptiLibrary::registerCallbacks(RequestFn request, CompleteFn complete)
{
    return int(
        m_api->registerCallbacks(request, reinterpret_cast<CUpti_BuffersCallbackCompleteFunc>(complete)));
}

int CuptiLibrary::enable(int kind)
{
    return int(m_api->enable(CUpti_ActivityKind(kind)));
}

int CuptiLibrary::disable(int kind)
{
    return int(m_api->disable(CUpti_ActivityKind(kind)));
}

int CuptiLibrary::flushAll(uint32_t flags)
{
    return int(m_api->flushAll(flags));
}

int CuptiLibrary::nextRecord(uint8_t* buffer, size_t validSize, uint8_t** record)
{
    return int(m_api->getNextRecord(buffer, validSize, reinterpret_cast<CUpti_Activity**>(record)));
}

size_t CuptiLibrary::droppedRecords(uint32_t streamId)
{
    size_t n = 0;
    if (m_api->getNumDroppedRecords && m_api->getNumDroppedRecords(nullptr, streamId, &n) == CUPTI_SUCCESS)
        return n;
    return 0;
}

int CuptiLibrary::pushExternal(uint64_t id)
{
    return int(m_api->pushExternal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, id));
}

int CuptiLibrary::popExternal()
{
    uint64_t id = 0;
    return int(m_api->popExternal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id));
}

int64_t CuptiLibrary::timestamp()
{
    uint64_t t = 0;
    m_api->getTimestamp(&t);
    return int64_t(t);
}

std::string CuptiLibrary::resultName(int code)
{
    const char* s = nullptr;
    if (m_api->getResultString && m_api->getResultString(CUptiResult(code), &s) == CUPTI_SUCCESS && s)
        return s;
    return "CUPTI error " + std::to_string(code);
}

std::string CuptiLibrary::callbackName(bool driver, uint32_t cbid)
{
    const char* s = nullptr;
    if (m_api->getCallbackName &&
        m_api->getCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &s) ==
            CUPTI_SUCCESS &&
        s)
        return s;
    return {};
}

bool CuptiLibrary::queryDevices()
{
    Driver& d = *m_driver;
    std::lock_guard lock(d.mutex);
    if (d.queried) return true;
    if (!d.handle || !d.deviceGetCount || !d.deviceGet || !d.deviceGetAttribute) return false;
    int count = 0;
    // CUDA_ERROR_NOT_INITIALIZED until the application's cuInit: ask again later.
    if (d.deviceGetCount(&count) != CUDA_SUCCESS) return false;
    for (int i = 0; i < count; ++i) {
        CUdevice dev = 0;
        if (d.deviceGet(&dev, i) != CUDA_SUCCESS) continue;
        auto attr = [&](CUdevice_attribute a) {
            int v = 0;
            d.deviceGetAttribute(&v, a, dev);
            return v;
        };
        char name[256] = {};
        if (d.deviceGetName) d.deviceGetName(name, sizeof name - 1, dev);
        size_t mem = 0;
        if (d.deviceTotalMem) d.deviceTotalMem(&mem, dev);
        std::string escaped;
        for (const char* c = name; *c; ++c) {
            if (*c == '"' || *c == '\\') escaped += '\\';
            if (static_cast<unsigned char>(*c) >= 0x20) escaped += *c;
        }
        DeviceLimits l;
        l.numSms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
        l.maxThreadsPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
        l.maxBlocksPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
        l.regsPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
        l.sharedPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
        l.warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
        d.limits.push_back(l);
        // Kineto's keys and order.
        std::string j = "{\"id\": " + std::to_string(i) + ", \"name\": \"" + escaped + "\"";
        j += ", \"totalGlobalMem\": " + std::to_string(mem);
        j += ", \"computeMajor\": " + std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
        j += ", \"computeMinor\": " + std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
        j += ", \"maxThreadsPerBlock\": " + std::to_string(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
        j += ", \"maxThreadsPerMultiprocessor\": " + std::to_string(l.maxThreadsPerSm);
        j += ", \"regsPerBlock\": " + std::to_string(attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK));
        j += ", \"regsPerMultiprocessor\": " + std::to_string(l.regsPerSm);
        j += ", \"warpSize\": " + std::to_string(l.warpSize);
        j += ", \"sharedMemPerBlock\": " +
             std::to_string(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
        j += ", \"sharedMemPerMultiprocessor\": " + std::to_string(l.sharedPerSm);
        j += ", \"numSms\": " + std::to_string(l.numSms);
        j += ", \"sharedMemPerBlockOptin\": " +
             std::to_string(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)) + "}";
        d.properties.push_back(std::move(j));
    }
    d.queried = true;
    return true;
}

std::vector<std::string> CuptiLibrary::deviceProperties()
{
    if (!queryDevices()) return {};
    return m_driver->properties;
}

bool CuptiLibrary::deviceLimits(int device, DeviceLimits& out)
{
    if (!queryDevices()) return false;
    if (device < 0 || size_t(device) >= m_driver->limits.size()) return false;
    out = m_driver->limits[size_t(device)];
    return out.numSms > 0;
}

} // namespace ks::collect
