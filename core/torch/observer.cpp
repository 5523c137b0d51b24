#include "observer.h"

#include "inputformat.h"
#include "kinetoscope.h"
#include "memoryreporter.h"
#include "pystack.h"

#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace ks::torchobs {

std::atomic<bool> Observer::s_shapes{false};
std::atomic<bool> Observer::s_stacks{false};
std::atomic<uint32_t> Observer::s_shapeEvery{1};
std::atomic<uint64_t> Observer::s_generation{1};

namespace {

// A name as the recorder knows it, and what the filter and shape sampling decided for it.
struct NameEntry {
    uint32_t id = 0;
    bool keep = true;
    uint32_t calls = 0; // for shape sampling
};

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct SignatureHash {
    size_t operator()(const std::vector<int64_t>& v) const
    {
        uint64_t h = 1469598103934665603ull;
        for (int64_t x : v)
            h = (h ^ uint64_t(x)) * 1099511628211ull;
        return size_t(h);
    }
};

// Per thread, so the callback takes no lock once a name has been seen: names, and the args
// payloads of input signatures already seen (identical inputs share one stored payload, formatted
// once, so a long run neither formats nor grows the recorder's payload table with every call).
struct ThreadCache {
    uint64_t generation = 0;
    std::unordered_map<std::string, NameEntry, StringHash, std::equal_to<>> names;
    std::unordered_map<std::vector<int64_t>, uint64_t, SignatureHash> payloads;
    std::vector<int64_t> signature;
    std::string text;
};
thread_local ThreadCache t_cache;
// Its address tells an end callback whether it runs on the thread that began the range.
thread_local char t_threadTag;

constexpr size_t kMaxCachedPayloads = 1 << 16;

// Handed from the start callback to the end callback of a range this observer opened.
struct OpenRange final : at::ObserverContext {
    explicit OpenRange(const char* t) : thread(t) {}
    const char* thread;
};

NameEntry& entryFor(ThreadCache& c, const char* name)
{
    const uint64_t gen = Observer::s_generation.load(std::memory_order_acquire);
    if (c.generation != gen) {
        c.names.clear();
        c.generation = gen;
    }
    const std::string_view key(name);
    auto it = c.names.find(key);
    if (it != c.names.end()) return it->second;
    NameEntry e;
    e.id = ks_intern(name);
    e.keep = Observer::instance().wants(key);
    return c.names.emplace(std::string(key), e).first->second;
}

uint64_t payloadFor(ThreadCache& c, c10::ArrayRef<const c10::IValue> inputs)
{
    inputSignature(inputs, c.signature);
    auto it = c.payloads.find(c.signature);
    if (it != c.payloads.end()) return it->second;
    if (c.payloads.size() >= kMaxCachedPayloads) c.payloads.clear();
    formatInputs(inputs, c.text);
    const uint64_t id = ks_payload(c.text.c_str());
    c.payloads.emplace(c.signature, id);
    return id;
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn)
{
    if (!ks_recording()) return nullptr;
    ThreadCache& c = t_cache;
    const char* name = fn.name();
    if (!name) return nullptr;
    NameEntry& e = entryFor(c, name);
    if (fn.scope() == at::RecordScope::USER_SCOPE) {
        // record_function ranges get the Python stack too, as in torch.
        if (Observer::s_stacks.load(std::memory_order_relaxed))
            ks_range_push_stack_id(e.id, PythonStacks::current());
        else
            ks_range_push(e.id);
    } else {
        if (!e.keep) return nullptr;
        uint64_t payload = 0;
        if (Observer::s_shapes.load(std::memory_order_relaxed) && fn.needsInputs()) {
            const uint32_t every = Observer::s_shapeEvery.load(std::memory_order_relaxed);
            if (e.calls++ % every == 0) payload = payloadFor(c, fn.inputs());
        }
        // Backward functions get none: their stack is their forward op's (torch gives them none
        // either, and its EventList takes the forward op's; so does Kinetoscope's, BackwardStacks).
        const uint32_t stack = Observer::s_stacks.load(std::memory_order_relaxed) &&
                                       fn.scope() != at::RecordScope::BACKWARD_FUNCTION
                                   ? PythonStacks::current()
                                   : 0;
        if (stack != 0)
            ks_op_push_stack(e.id, payload, fn.handle(), fn.seqNr(), fn.forwardThreadId(), fn.threadId(),
                             stack);
        else
            ks_op_push(e.id, payload, fn.handle(), fn.seqNr(), fn.forwardThreadId(), fn.threadId());
    }
    return std::make_unique<OpenRange>(&t_threadTag);
}

void onEnd(const at::RecordFunction&, at::ObserverContext* ctx)
{
    // An async op can end on another thread; its range is then left to end with the window rather
    // than closing whatever that thread has open.
    if (ctx && static_cast<OpenRange*>(ctx)->thread == &t_threadTag) ks_range_pop();
}

} // namespace

Observer& Observer::instance()
{
    // Never destroyed: callbacks may still run on other threads while statics are torn down.
    static Observer* o = new Observer();
    return *o;
}

bool Observer::wants(std::string_view name)
{
    std::lock_guard lock(m_mutex);
    return m_options.wants(name);
}

bool Observer::enable(const ObserverOptions& options, std::string* error)
{
    std::lock_guard lock(m_mutex);
    try {
        const bool inputsChanged = options.recordShapes != m_options.recordShapes;
        m_options = options;
        s_shapes.store(options.recordShapes, std::memory_order_relaxed);
        s_shapeEvery.store(options.shapeEvery, std::memory_order_relaxed);
        s_generation.fetch_add(1, std::memory_order_acq_rel);
        // needsInputs is fixed per registration, and copying every op's inputs costs even when
        // shapes are off; so the callback is registered again when that changes.
        if (m_handle != at::INVALID_CALLBACK_HANDLE && inputsChanged) {
            at::removeCallback(m_handle);
            m_handle = at::INVALID_CALLBACK_HANDLE;
        }
        if (m_handle == at::INVALID_CALLBACK_HANDLE) {
            m_handle = at::addGlobalCallback(
                at::RecordFunctionCallback(onStart, onEnd)
                    .needsInputs(options.recordShapes)
                    .needsIds(true)
                    .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                             at::RecordScope::TORCHSCRIPT_FUNCTION, at::RecordScope::USER_SCOPE}));
        }
        if (options.profileMemory && !m_memory) {
            m_memory = MemoryReporter::install();
            if (!m_memory && error)
                *error = "profile_memory: a profiler is already running on this thread; allocations are "
                         "not recorded";
        } else if (!options.profileMemory && m_memory) {
            MemoryReporter::uninstall();
            m_memory = false;
        }
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        return false;
    }
    setStacks(options, error);
    return true;
}

void Observer::setStacks(const ObserverOptions& options, std::string* error)
{
    // Outside m_mutex: this takes the GIL, and a thread holding the GIL may be in an operator
    // callback waiting for m_mutex (wants()).
    std::lock_guard lock(m_stackMutex);
    if (options.withStack && !m_stacks) {
        std::string warning;
        std::string failure;
        m_stacks = PythonStacks::enable(options.stackPrefixes, &failure, &warning);
        if (!m_stacks) warning = failure + "; operators get no Python stacks";
        if (!warning.empty() && error) *error += (error->empty() ? "" : "; ") + warning;
    } else if (!options.withStack && m_stacks) {
        s_stacks.store(false, std::memory_order_relaxed);
        PythonStacks::disable();
        m_stacks = false;
    }
    s_stacks.store(m_stacks, std::memory_order_relaxed);
}

void Observer::disable()
{
    setStacks(ObserverOptions{});
    std::lock_guard lock(m_mutex);
    if (m_handle != at::INVALID_CALLBACK_HANDLE) {
        at::removeCallback(m_handle);
        m_handle = at::INVALID_CALLBACK_HANDLE;
    }
    if (m_memory) {
        MemoryReporter::uninstall();
        m_memory = false;
    }
}

bool Observer::enabled() const
{
    std::lock_guard lock(m_mutex);
    return m_handle != at::INVALID_CALLBACK_HANDLE;
}

} // namespace ks::torchobs
