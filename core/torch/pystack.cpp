// The profile function and the shadow stacks behind PythonStacks. CPython is reached through
// pyapi.h only (code objects' names come through attributes; PyCFunctionObject's m_ml has stayed
// right after the object header in every Python 3).
#include "pystack.h"

#include "kinetoscope.h"
#include "pyapi.h"
#include "shadowstack.h"

#include <atomic>
#include <charconv>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace ks::torchobs {

namespace {

using namespace pystack;

constexpr const char* kCapsuleName = "kinetoscope.pystack";
// A module instance seen calling: its frame text (never freed: its address is its tree key) and its
// range's name.
struct ModuleInfo {
    std::unique_ptr<std::string> frame; // "nn.Module: Linear_0"
    uint32_t rangeName = 0;             // "nn.Module: Linear"
};

// Global state, guarded by the GIL (the profile function and every entry point hold it).
struct State {
    std::atomic<bool> on{false};
    std::vector<std::string> prefixes;
    uint64_t prefixGeneration = 0;
    std::unordered_map<FrameKey, std::unique_ptr<std::string>, FrameKeyHash> texts;
    std::unordered_map<std::string, std::unique_ptr<std::string>> moduleNames;
    // Thread state → its stack. Stacks are never freed: an operator callback may still read one.
    std::unordered_map<PyThreadState*, ShadowStack*> stacks;
    std::vector<std::unique_ptr<ShadowStack>> all;
    // The thread states the profile function is installed on, to remove it from those still alive.
    std::unordered_set<PyThreadState*> installed;
    // Native module frames: torch.nn.Module.__call__'s code (null: named by the Python hook), the
    // modules seen (kept referenced until disable, so that an address stays one module's) and the
    // instances counted per class.
    PyObject* moduleCallCode = nullptr;
    // Module ranges named by instance ("nn.Module: Linear_0"), as torch 2.x's tracer names them;
    // torch 1.x names them by class.
    bool moduleRangeByInstance = false;
    std::unordered_map<PyObject*, ModuleInfo> modules;
    std::unordered_map<std::string, int> moduleCounts;
    std::vector<std::unique_ptr<std::string>> retiredModules;
};

State& state()
{
    static State* s = new State();
    return *s;
}

thread_local ShadowStack* t_stack = nullptr;
thread_local char t_tag;

std::string_view utf8(PyObject* o)
{
    if (!o) return {};
    const char* s = api().UnicodeAsUTF8(o);
    if (!s) {
        api().ErrClear();
        return {};
    }
    return s;
}

std::string attribute(PyObject* o, const char* name)
{
    PyObject* v = api().GetAttrString(o, name);
    if (!v) {
        api().ErrClear();
        return {};
    }
    std::string out(utf8(v));
    api().DecRef(v);
    return out;
}

std::string_view trimmed(std::string_view file)
{
    for (const std::string& p : state().prefixes)
        if (file.size() > p.size() && file.substr(0, p.size()) == p) return file.substr(p.size());
    return file;
}

const std::string* codeText(PyCodeObject* code, int line)
{
    State& s = state();
    auto [it, inserted] = s.texts.try_emplace(FrameKey{code, line});
    if (inserted) {
        // Kept alive while its text is cached, so the pointer stays this code object's.
        PyObject* c = reinterpret_cast<PyObject*>(code);
        api().IncRef(c);
        std::string t(trimmed(attribute(c, "co_filename")));
        t += '(';
        t += std::to_string(line);
        t += "): ";
        t += attribute(c, "co_name");
        it->second = std::make_unique<std::string>(std::move(t));
    }
    return it->second.get();
}

// C functions are keyed by their PyMethodDef: a bound method is a new object at every call, while
// its definition stays. The first repr seen names them all, as in torch.
const void* cKey(PyObject* fn)
{
    // CPython reports C calls of PyCFunction objects only (method descriptors are bound first),
    // and PyCMethodObject starts with PyCFunctionObject.
    return reinterpret_cast<PyCFunctionObject*>(fn)->m_ml;
}

const std::string* cText(PyObject* fn, const void* key)
{
    State& s = state();
    auto [it, inserted] = s.texts.try_emplace(FrameKey{key, -1});
    if (inserted) {
        std::string t;
        if (PyObject* r = api().ObjectRepr(fn)) {
            t = utf8(r);
            api().DecRef(r);
        } else {
            api().ErrClear();
        }
        if (t.empty()) t = "<built-in function>";
        it->second = std::make_unique<std::string>(std::move(t));
    }
    return it->second.get();
}

// Drops the entries from i on, ending the module ranges they opened.
void truncate(ShadowStack& st, size_t i)
{
    for (size_t j = st.entries.size(); j-- > i;)
        if (st.entries[j].moduleRange) ks_range_pop();
    st.entries.resize(i);
}

void popTo(ShadowStack& st, EntryKind kind, const void* frame, const void* key)
{
    // Usually the innermost entry; one further in means calls whose end was not seen (a C
    // function that was running at enable), which end here too.
    for (size_t i = st.entries.size(); i-- > 0;) {
        const Entry& e = st.entries[i];
        if (e.kind == kind && e.frame == frame && (kind == EntryKind::Python || e.key == key)) {
            truncate(st, i);
            return;
        }
    }
}

// The module a Module.__call__ frame calls (its `self`), named as torch's tracer names it.
const ModuleInfo* moduleOf(PyFrameObject* frame)
{
    PyApi& a = api();
    PyObject* locals = a.FrameGetLocals(frame);
    if (!locals) {
        a.ErrClear();
        return nullptr;
    }
    PyObject* self = a.MappingGetItemString(locals, "self"); // new reference
    if (!self) a.ErrClear();
    const ModuleInfo* out = nullptr;
    if (self) {
        State& s = state();
        auto [it, inserted] = s.modules.try_emplace(self);
        if (inserted) {
            a.IncRef(self);
            PyObject* type = a.GetAttrString(self, "__class__");
            std::string cls = type ? attribute(type, "__name__") : std::string();
            if (type) a.DecRef(type);
            a.ErrClear();
            if (cls.empty()) cls = "Module";
            const int n = s.moduleCounts[cls]++;
            it->second.frame = std::make_unique<std::string>("nn.Module: " + cls + "_" + std::to_string(n));
            it->second.rangeName = ks_intern(s.moduleRangeByInstance ? it->second.frame->c_str()
                                                                     : ("nn.Module: " + cls).c_str());
        }
        out = &it->second;
        a.DecRef(self); // the map's own reference (taken above) keeps it
    }
    a.DecRef(locals);
    return out;
}

void applySeed(ShadowStack& st)
{
    State& s = state();
    if (st.prefixGeneration != s.prefixGeneration) {
        st.reset();
        st.prefixGeneration = s.prefixGeneration;
    }
    st.entries.clear();
    Node* n = st.root();
    for (const SeedFrame& f : st.seed) {
        n = st.child(n, f.key, [&] { return f.text; });
        st.entries.push_back(Entry{n, f.frame, f.key.ptr, EntryKind::Python});
    }
    st.seed.clear();
    st.seedPending.store(false, std::memory_order_release);
}

// Makes st the calling thread's stack. A stack that another OS thread owned (its thread state moved,
// or its address was reused by a new one) is left to that thread, whose operator callback may still
// read it; this thread state gets a new one.
ShadowStack* claim(ShadowStack* st)
{
    if (st->owner == &t_tag) return st;
    if (st->owner != nullptr) {
        State& s = state();
        auto fresh = std::make_unique<ShadowStack>();
        fresh->seed = std::move(st->seed);
        fresh->seedPending.store(st->seedPending.load(std::memory_order_relaxed), std::memory_order_relaxed);
        fresh->active.store(st->active.load(std::memory_order_relaxed), std::memory_order_relaxed);
        st->active.store(false, std::memory_order_relaxed);
        st = fresh.get();
        s.all.push_back(std::move(fresh));
        s.stacks[api().ThreadStateGet()] = st;
    }
    st->owner = &t_tag;
    t_stack = st;
    return st;
}

int profile(PyObject* obj, PyFrameObject* frame, int what, PyObject* arg)
{
    if (!state().on.load(std::memory_order_relaxed)) return 0;
    ShadowStack* st = t_stack;
    if (!st || st->owner != &t_tag) {
        st = static_cast<ShadowStack*>(api().CapsuleGetPointer(obj, kCapsuleName));
        if (!st) {
            api().ErrClear();
            return 0;
        }
        auto it = state().stacks.find(api().ThreadStateGet());
        if (it != state().stacks.end()) st = it->second;
        st = claim(st);
    }
    if (st->seedPending.load(std::memory_order_relaxed)) applySeed(*st);
    switch (what) {
    case PyTrace_CALL: {
        PyCodeObject* code = api().FrameGetCode(frame);
        const int line = api().FrameGetLineNumber(frame);
        api().DecRef(reinterpret_cast<PyObject*>(code)); // kept alive by the frame (and codeText)
        if (reinterpret_cast<PyObject*>(code) == state().moduleCallCode) {
            if (const ModuleInfo* m = moduleOf(frame)) {
                // A module call: its frame is the module's, and it is a python_function range
                // ("nn.Module: Linear"), as torch's tracer records it.
                Node* n = st->child(st->top(), FrameKey{m->frame.get(), -2}, [&] { return m->frame.get(); });
                // Ended only if begun: a call that began before the window must not end one of
                // the window's ranges (ProfilerStep#N) at its return.
                const bool recorded = ks_recording() != 0;
                if (recorded) ks_python_push(m->rangeName);
                st->entries.push_back(Entry{n, frame, code, EntryKind::Python, recorded});
                break;
            }
        }
        Node* n = st->child(st->top(), FrameKey{code, line}, [&] { return codeText(code, line); });
        st->entries.push_back(Entry{n, frame, code, EntryKind::Python});
        break;
    }
    case PyTrace_RETURN:
        if (!st->entries.empty() && st->entries.back().frame == frame &&
            st->entries.back().kind == EntryKind::Python && !st->entries.back().moduleRange)
            st->entries.pop_back();
        else
            popTo(*st, EntryKind::Python, frame, nullptr);
        break;
    case PyTrace_C_CALL: {
        const void* key = cKey(arg);
        Node* n = st->child(st->top(), FrameKey{key, -1}, [&] { return cText(arg, key); });
        st->entries.push_back(Entry{n, frame, key, EntryKind::C});
        break;
    }
    case PyTrace_C_RETURN:
    case PyTrace_C_EXCEPTION: {
        const void* key = cKey(arg);
        if (!st->entries.empty() && st->entries.back().frame == frame && st->entries.back().key == key &&
            st->entries.back().kind == EntryKind::C)
            st->entries.pop_back();
        else
            popTo(*st, EntryKind::C, frame, key);
        break;
    }
    default:
        break;
    }
    return 0;
}

// The frames on a thread's stack, outermost first, as seeds (with the GIL).
std::vector<SeedFrame> seedFrom(PyFrameObject* top)
{
    std::vector<SeedFrame> out;
    PyFrameObject* f = top;
    if (f) api().IncRef(reinterpret_cast<PyObject*>(f));
    while (f) {
        PyCodeObject* code = api().FrameGetCode(f);
        const int line = api().FrameGetLineNumber(f);
        const ModuleInfo* m =
            reinterpret_cast<PyObject*>(code) == state().moduleCallCode ? moduleOf(f) : nullptr;
        if (m)
            out.push_back(SeedFrame{FrameKey{m->frame.get(), -2}, m->frame.get(), f});
        else
            out.push_back(SeedFrame{FrameKey{code, line}, codeText(code, line), f});
        api().DecRef(reinterpret_cast<PyObject*>(code));
        PyFrameObject* back = api().FrameGetBack(f);
        api().DecRef(reinterpret_cast<PyObject*>(f));
        f = back;
    }
    return {out.rbegin(), out.rend()};
}

void setProfileOn(PyThreadState* ts, Py_tracefunc fn, PyObject* obj)
{
    PyApi& a = api();
    if (a.EvalSetProfileFor) {
        if (a.EvalSetProfileFor(ts, fn, obj) < 0) a.ErrClear();
        return;
    }
    PyThreadState* self = a.ThreadStateGet();
    if (ts != self) a.ThreadStateSwap(ts);
    a.EvalSetProfile(fn, obj);
    if (ts != self) a.ThreadStateSwap(self);
}

// Installs the profile function on ts with its stack seeded from top (with the GIL).
void install(PyThreadState* ts, PyFrameObject* top, bool ownThread)
{
    State& s = state();
    ShadowStack* st = s.stacks[ts];
    if (!st) {
        s.all.push_back(std::make_unique<ShadowStack>());
        st = s.stacks[ts] = s.all.back().get();
    }
    st->seed = seedFrom(top);
    st->seedPending.store(true, std::memory_order_release);
    if (ownThread) {
        st = claim(st);
        applySeed(*st);
    }
    st->active.store(true, std::memory_order_relaxed);
    PyObject* capsule = api().CapsuleNew(st, kCapsuleName, nullptr);
    if (!capsule) {
        api().ErrClear();
        return;
    }
    setProfileOn(ts, profile, capsule);
    api().DecRef(capsule); // the thread state holds it now
    s.installed.insert(ts);
}

// The code of torch.nn.Module.__call__, when torch is imported and frames' locals can be read: the
// frame torch's tracer names after the module. That is _call_impl in torch 1.x and
// _wrapped_call_impl (which calls _call_impl) in torch 2.x.
void findModuleCallCode()
{
    PyApi& a = api();
    State& s = state();
    if (s.moduleCallCode || !a.FrameGetLocals) return;
    PyObject* mod = a.ImportModule("torch.nn.modules.module");
    PyObject* cls = mod ? a.GetAttrString(mod, "Module") : nullptr;
    PyObject* fn = cls ? a.GetAttrString(cls, "__call__") : nullptr;
    s.moduleCallCode = fn ? a.GetAttrString(fn, "__code__") : nullptr; // kept
    for (PyObject* o : {fn, cls, mod})
        if (o) a.DecRef(o);
    a.ErrClear();
    PyObject* torch = a.ImportModule("torch");
    const std::string version = torch ? attribute(torch, "__version__") : std::string();
    if (torch) a.DecRef(torch);
    a.ErrClear();
    int major = 0;
    std::from_chars(version.data(), version.data() + version.size(), major);
    s.moduleRangeByInstance = major != 1;
}

} // namespace

bool PythonStacks::enable(const std::vector<std::string>& prefixes, std::string* error, std::string* warning)
{
    PyApi& a = api();
    if (!a.ok) {
        if (error)
            *error = a.missing.empty()
                         ? "with_stack: the Python interpreter is not initialized"
                         : "with_stack: no Python interpreter in this process (no " + a.missing + ")";
        return false;
    }
    Gil gil;
    State& s = state();
    if (s.on.load(std::memory_order_relaxed)) return true;
    if (prefixes != s.prefixes) {
        s.prefixes = prefixes;
        ++s.prefixGeneration;
    }
    findModuleCallCode();
    PyThreadState* self = a.ThreadStateGet();
    // As torch's tracer does, this replaces any profile function the threads had (sys.setprofile).
    s.installed.clear();
    for (PyThreadState* ts = a.InterpreterThreadHead(a.ThreadStateGetInterpreter(self)); ts;
         ts = a.ThreadStateNext(ts)) {
        PyFrameObject* top = a.ThreadStateGetFrame(ts);
        install(ts, top, ts == self);
        if (top) a.DecRef(reinterpret_cast<PyObject*>(top));
    }
    s.on.store(true, std::memory_order_release);
    (void)warning;
    return true;
}

void PythonStacks::disable()
{
    PyApi& a = api();
    if (!a.ok) return;
    Gil gil;
    State& s = state();
    if (!s.on.load(std::memory_order_relaxed)) return;
    s.on.store(false, std::memory_order_release);
    PyThreadState* self = a.ThreadStateGet();
    for (PyThreadState* ts = a.InterpreterThreadHead(a.ThreadStateGetInterpreter(self)); ts;
         ts = a.ThreadStateNext(ts)) {
        if (s.installed.count(ts)) setProfileOn(ts, nullptr, nullptr);
    }
    s.installed.clear();
    for (auto& st : s.all)
        st->active.store(false, std::memory_order_relaxed);
    // Module ranges still open on this thread (stop() inside a forward) end here; other threads'
    // end with the window.
    if (ShadowStack* st = t_stack; st && st->owner == &t_tag) truncate(*st, 0);
    // Trees keep pointing to the modules' texts, which stay; the modules themselves go.
    for (auto& [module, info] : s.modules)
        a.DecRef(module);
    s.retiredModules.reserve(s.retiredModules.size() + s.modules.size());
    for (auto& [module, info] : s.modules)
        s.retiredModules.push_back(std::move(info.frame));
    s.modules.clear();
    s.moduleCounts.clear();
}

bool PythonStacks::nativeModules()
{
    return state().moduleCallCode != nullptr;
}

bool PythonStacks::enabled()
{
    return state().on.load(std::memory_order_acquire);
}

uint32_t PythonStacks::current()
{
    ShadowStack* st = t_stack;
    if (!st || st->owner != &t_tag || !st->active.load(std::memory_order_acquire) ||
        st->seedPending.load(std::memory_order_acquire) || st->entries.empty())
        return 0;
    Node* n = st->entries.back().node;
    if (n->stackId == 0 && n->frame) {
        std::string text;
        for (const Node* p = n; p && p->frame; p = p->parent) {
            if (!text.empty()) text += ';';
            text += *p->frame;
        }
        n->stackId = ks_intern(text.c_str());
    }
    return n->stackId;
}

void PythonStacks::installOnCurrentThread(void* frame)
{
    PyApi& a = api();
    if (!a.ok) return;
    Gil gil;
    if (!state().on.load(std::memory_order_relaxed)) {
        // Started while stacks were recorded, first call after they stopped: the hook goes.
        setProfileOn(a.ThreadStateGet(), nullptr, nullptr);
        return;
    }
    install(a.ThreadStateGet(), static_cast<PyFrameObject*>(frame), true);
}

void PythonStacks::nameModuleFrame(const char* text, int depth)
{
    PyApi& a = api();
    if (!a.ok || !text) return;
    Gil gil;
    State& s = state();
    ShadowStack* st = t_stack;
    if (!s.on.load(std::memory_order_relaxed) || !st || st->owner != &t_tag ||
        st->seedPending.load(std::memory_order_relaxed))
        return;
    if (depth < 0 || size_t(depth) >= st->entries.size()) return;
    const size_t i = st->entries.size() - 1 - size_t(depth);
    Entry& e = st->entries[i];
    if (e.kind != EntryKind::Python) return;
    // Names are few (one per module instance); the text's address is its key.
    std::unique_ptr<std::string>& owned = s.moduleNames[text];
    if (!owned) owned = std::make_unique<std::string>(text);
    const std::string* t = owned.get();
    Node* parent = i == 0 ? st->root() : st->entries[i - 1].node;
    e.node = st->child(parent, FrameKey{t, -2}, [&] { return t; });
}

} // namespace ks::torchobs
