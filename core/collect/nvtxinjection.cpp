#include "core/collect/nvtxinjection.h"

#include "core/record/api.h"

#include <cwchar>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ks::collect {

namespace {

// What nvtxDomainRegisterStringA hands out: our name id, so registered messages cost no lookup.
struct Registered {
    uint32_t name;
};
struct Domain {
    std::string name;
};

std::string narrow(const wchar_t* w)
{
    std::string out;
    std::mbstate_t state{};
    char buf[8];
    for (; w && *w; ++w) {
        const size_t n = std::wcrtomb(buf, *w, &state);
        if (n == size_t(-1)) {
            out += '?';
            state = {};
        } else {
            out.append(buf, n);
        }
    }
    return out;
}

uint32_t nameOf(const nvtxEventAttributes_t* a)
{
    if (!a) return record::internName("");
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return record::internName(a->message.ascii ? a->message.ascii : "");
    case NVTX_MESSAGE_TYPE_UNICODE:
        return record::internName(narrow(a->message.unicode));
    case NVTX_MESSAGE_TYPE_REGISTERED:
        if (a->message.registered) return reinterpret_cast<const Registered*>(a->message.registered)->name;
        break;
    default:
        break;
    }
    return record::internName("");
}

// nvtxRangeStart/End pairs: may end on another thread, so they live here until they end.
struct StartedRange {
    uint32_t name;
    uint64_t startTicks;
};
std::mutex g_startedMutex;
std::unordered_map<nvtxRangeId_t, StartedRange>* g_started =
    new std::unordered_map<nvtxRangeId_t, StartedRange>();
std::atomic<nvtxRangeId_t> g_nextRangeId{1};

void markName(uint32_t name)
{
    record::mark(name);
}

int push(uint32_t name)
{
    record::rangeBegin(name);
    return 0;
}

nvtxRangeId_t start(uint32_t name)
{
    const nvtxRangeId_t id = g_nextRangeId.fetch_add(1);
    if (!record::recording()) return id;
    std::lock_guard lock(g_startedMutex);
    (*g_started)[id] = StartedRange{name, record::Clock::ticks()};
    return id;
}

void end(nvtxRangeId_t id)
{
    StartedRange r{};
    {
        std::lock_guard lock(g_startedMutex);
        auto it = g_started->find(id);
        if (it == g_started->end()) return;
        r = it->second;
        g_started->erase(it);
    }
    record::completeRange(r.name, r.startTicks, record::Clock::ticks());
}

// ---- the callbacks NVTX calls ----

void NVTX_API markEx(const nvtxEventAttributes_t* a)
{
    markName(nameOf(a));
}
void NVTX_API markA(const char* m)
{
    markName(record::internName(m ? m : ""));
}
void NVTX_API markW(const wchar_t* m)
{
    markName(record::internName(narrow(m)));
}
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* a)
{
    return start(nameOf(a));
}
nvtxRangeId_t NVTX_API rangeStartA(const char* m)
{
    return start(record::internName(m ? m : ""));
}
nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* m)
{
    return start(record::internName(narrow(m)));
}
void NVTX_API rangeEnd(nvtxRangeId_t id)
{
    end(id);
}
int NVTX_API rangePushEx(const nvtxEventAttributes_t* a)
{
    return push(nameOf(a));
}
int NVTX_API rangePushA(const char* m)
{
    return push(record::internName(m ? m : ""));
}
int NVTX_API rangePushW(const wchar_t* m)
{
    return push(record::internName(narrow(m)));
}
int NVTX_API rangePop()
{
    record::rangeEnd();
    return 0;
}
void NVTX_API nameOsThreadA(uint32_t tid, const char* name)
{
    // Only the calling thread's own name can be set in the recorder.
    if (name && record::recording() && tid == uint32_t(record::currentBuffer()->tid()))
        record::Recorder::instance().setCurrentThreadName(name);
}

void NVTX_API domainMarkEx(nvtxDomainHandle_t, const nvtxEventAttributes_t* a)
{
    markEx(a);
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t, const nvtxEventAttributes_t* a)
{
    return rangeStartEx(a);
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id)
{
    end(id);
}
int NVTX_API domainRangePushEx(nvtxDomainHandle_t, const nvtxEventAttributes_t* a)
{
    return rangePushEx(a);
}
int NVTX_API domainRangePop(nvtxDomainHandle_t)
{
    return rangePop();
}
nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t, const char* s)
{
    // Registered strings live as long as the process, as NVTX promises its users.
    return reinterpret_cast<nvtxStringHandle_t>(new Registered{record::internName(s ? s : "")});
}
nvtxStringHandle_t NVTX_API domainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s)
{
    return reinterpret_cast<nvtxStringHandle_t>(new Registered{record::internName(narrow(s))});
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name)
{
    return reinterpret_cast<nvtxDomainHandle_t>(new Domain{name ? name : ""});
}
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name)
{
    return reinterpret_cast<nvtxDomainHandle_t>(new Domain{narrow(name)});
}
void NVTX_API domainDestroy(nvtxDomainHandle_t d)
{
    delete reinterpret_cast<Domain*>(d);
}
void NVTX_API initialize(const void*) {}

template <typename F>
void set(NvtxFunctionTable table, unsigned int size, unsigned int id, F fn)
{
    if (table && id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

} // namespace

int initializeNvtxInjection(NvtxGetExportTableFunc_t getExportTable)
{
    if (!getExportTable) return 0;
    auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
        !callbacks->GetModuleFunctionTable)
        return 0;
    NvtxFunctionTable core = nullptr;
    unsigned int coreSize = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &coreSize) || !core) return 0;
    set(core, coreSize, NVTX_CBID_CORE_MarkEx, markEx);
    set(core, coreSize, NVTX_CBID_CORE_MarkA, markA);
    set(core, coreSize, NVTX_CBID_CORE_MarkW, markW);
    set(core, coreSize, NVTX_CBID_CORE_RangeStartEx, rangeStartEx);
    set(core, coreSize, NVTX_CBID_CORE_RangeStartA, rangeStartA);
    set(core, coreSize, NVTX_CBID_CORE_RangeStartW, rangeStartW);
    set(core, coreSize, NVTX_CBID_CORE_RangeEnd, rangeEnd);
    set(core, coreSize, NVTX_CBID_CORE_RangePushEx, rangePushEx);
    set(core, coreSize, NVTX_CBID_CORE_RangePushA, rangePushA);
    set(core, coreSize, NVTX_CBID_CORE_RangePushW, rangePushW);
    set(core, coreSize, NVTX_CBID_CORE_RangePop, rangePop);
    set(core, coreSize, NVTX_CBID_CORE_NameOsThreadA, nameOsThreadA);
    NvtxFunctionTable core2 = nullptr;
    unsigned int core2Size = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2Size) && core2) {
        set(core2, core2Size, NVTX_CBID_CORE2_DomainMarkEx, domainMarkEx);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainRangeStartEx, domainRangeStartEx);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainRangeEnd, domainRangeEnd);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainRangePushEx, domainRangePushEx);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainRangePop, domainRangePop);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringA, domainRegisterStringA);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringW, domainRegisterStringW);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainCreateA, domainCreateA);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainCreateW, domainCreateW);
        set(core2, core2Size, NVTX_CBID_CORE2_DomainDestroy, domainDestroy);
        set(core2, core2Size, NVTX_CBID_CORE2_Initialize, initialize);
    }
    // Tells the application which NVTX version its tool speaks.
    auto* version = static_cast<const NvtxExportTableVersionInfo*>(getExportTable(NVTX_ETID_VERSIONINFO));
    if (version && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
        version->SetInjectionNvtxVersion)
        version->SetInjectionNvtxVersion(NVTX_VERSION);
    return 1;
}

} // namespace ks::collect
