// The collector side of Intel's ITT API (INTEL_LIBITTNOTIFY64 names this library). The ITT
// "static part" linked into an application (torch's itt wrapper, oneDNN, ...) loads the collector
// and, when it exports __itt_api_version, looks up each API function here by its name. Tasks become
// recorder ranges, markers and events become marks.
//
// The structures below follow the public ittnotify.h layouts (domain and string handles are read
// by the static part: a domain must have a non-zero flags field or its calls are skipped). They are
// declared here because Debian ships no ittnotify headers.

#include "core/inject/injectsession.h"
#include "core/record/api.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#define KS_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct IttDomain {
    volatile int flags;
    const char* nameA;
    void* nameW;
    int extra1;
    void* extra2;
    IttDomain* next;
};

struct IttString {
    const char* strA;
    void* strW;
    int extra1;
    void* extra2;
    IttString* next;
};

struct IttId {
    unsigned long long d1, d2, d3;
};

// A string handle plus our name id, handed out as the IttString it starts with.
struct StringEntry {
    IttString handle;
    uint32_t name;
    std::string text;
};

struct DomainEntry {
    IttDomain handle;
    std::string text;
};

// Handles live for the whole process, as ITT expects.
struct Registry {
    std::mutex mutex;
    std::unordered_map<std::string, DomainEntry*> domains;
    std::unordered_map<std::string, StringEntry*> strings;
    std::deque<uint32_t> events; // __itt_event -> name id
};

Registry& registry()
{
    static auto* r = new Registry();
    return *r;
}

void ensureRecording()
{
    ks::inject::InjectSession::instance().start();
}

uint32_t nameOf(const IttString* s)
{
    return s ? reinterpret_cast<const StringEntry*>(s)->name : ks::record::internName("");
}

} // namespace

KS_EXPORT const char* __itt_api_version(void)
{
    return "kinetoscope";
}

KS_EXPORT IttDomain* __itt_domain_create(const char* name)
{
    ensureRecording();
    Registry& r = registry();
    const std::string key = name ? name : "";
    std::lock_guard lock(r.mutex);
    auto it = r.domains.find(key);
    if (it != r.domains.end()) return &it->second->handle;
    auto* d = new DomainEntry();
    d->text = key;
    d->handle.flags = 1;
    d->handle.nameA = d->text.c_str();
    r.domains.emplace(key, d);
    return &d->handle;
}

KS_EXPORT IttString* __itt_string_handle_create(const char* name)
{
    ensureRecording();
    Registry& r = registry();
    const std::string key = name ? name : "";
    std::lock_guard lock(r.mutex);
    auto it = r.strings.find(key);
    if (it != r.strings.end()) return &it->second->handle;
    auto* s = new StringEntry();
    s->text = key;
    s->handle.strA = s->text.c_str();
    s->name = ks::record::internName(key);
    r.strings.emplace(key, s);
    return &s->handle;
}

KS_EXPORT void __itt_task_begin(const IttDomain* domain, IttId, IttId, IttString* name)
{
    if (domain && domain->flags) ks::record::rangeBegin(nameOf(name));
}

KS_EXPORT void __itt_task_end(const IttDomain* domain)
{
    if (domain && domain->flags) ks::record::rangeEnd();
}

KS_EXPORT void __itt_marker(const IttDomain* domain, IttId, IttString* name, int)
{
    if (domain && domain->flags) ks::record::mark(nameOf(name));
}

KS_EXPORT int __itt_event_create(const char* name, int length)
{
    ensureRecording();
    const std::string text = name ? std::string(name, length > 0 ? size_t(length) : std::strlen(name)) : "";
    Registry& r = registry();
    const uint32_t id = ks::record::internName(text);
    std::lock_guard lock(r.mutex);
    r.events.push_back(id);
    return int(r.events.size()); // 0 means failure to ITT users
}

// torch's itt.mark() is event_create + event_start: a point in time.
KS_EXPORT int __itt_event_start(int event)
{
    Registry& r = registry();
    uint32_t name = 0;
    {
        std::lock_guard lock(r.mutex);
        if (event <= 0 || size_t(event) > r.events.size()) return -1;
        name = r.events[size_t(event) - 1];
    }
    ks::record::mark(name);
    return 0;
}

KS_EXPORT int __itt_event_end(int event)
{
    return event > 0 ? 0 : -1;
}

KS_EXPORT void __itt_thread_set_name(const char* name)
{
    if (name) ks::record::Recorder::instance().setCurrentThreadName(name);
}
