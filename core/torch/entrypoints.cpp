// The C ABI of libkinetoscope_torch.so, for ctypes (resources/python/kinetoscope/torchobserver.py).
// Functions return 0 on success and -1 on failure with the message in kstorch_last_error().

#include "observer.h"
#include "pystack.h"

#include <string>

#define KSTORCH_API extern "C" __attribute__((visibility("default")))
// Also written into the sidecar libkinetoscope_torch.json by the build (core/torch/CMakeLists.txt).
// 3: kstorch_enable takes "key=value" lines (ObserverOptions::parse), no longer JSON.
#define KSTORCH_ABI_VERSION 3

namespace {
thread_local std::string t_error;
}

// Version of this ABI; the Python side refuses a library it does not know.
KSTORCH_API int kstorch_abi_version(void)
{
    return KSTORCH_ABI_VERSION;
}

KSTORCH_API const char* kstorch_last_error(void)
{
    return t_error.c_str();
}

// options: see ObserverOptions::parse. A warning (profile_memory unavailable) leaves the
// observer enabled, returns 1 and sets kstorch_last_error().
KSTORCH_API int kstorch_enable(const char* options)
{
    t_error.clear();
    ks::torchobs::ObserverOptions o;
    if (!o.parse(options ? options : "", &t_error)) return -1;
    if (!ks::torchobs::Observer::instance().enable(o, &t_error)) return -1;
    return t_error.empty() ? 0 : 1;
}

KSTORCH_API int kstorch_disable(void)
{
    ks::torchobs::Observer::instance().disable();
    return 0;
}

KSTORCH_API int kstorch_enabled(void)
{
    return ks::torchobs::Observer::instance().enabled() ? 1 : 0;
}

// with_stack, for the Python module (pystack.h). A thread started while Python stacks are recorded
// calls this from threading.setprofile's hook with the hook's frame (a PyFrameObject*).
KSTORCH_API void kstorch_stack_thread(void* frame)
{
    ks::torchobs::PythonStacks::installOnCurrentThread(frame);
}

// The module forward pre-hook names the Module._call_impl frame `depth` entries below the calling
// thread's innermost Python call ("nn.Module: Linear_0").
KSTORCH_API void kstorch_stack_module(const char* name, int depth)
{
    ks::torchobs::PythonStacks::nameModuleFrame(name, depth);
}

// 1 while Python stacks are recorded, 2 when module calls are also named and recorded as
// python_function ranges natively (the Python module's forward hooks are then not needed).
KSTORCH_API int kstorch_stacks_enabled(void)
{
    using ks::torchobs::PythonStacks;
    return PythonStacks::enabled() ? (PythonStacks::nativeModules() ? 2 : 1) : 0;
}
