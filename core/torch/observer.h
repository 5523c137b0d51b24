#pragma once

#include "observeroptions.h"

#include <ATen/record_function.h>
#include <atomic>
#include <mutex>
#include <string>

namespace ks::torchobs {

// The global RecordFunction callback that feeds libkinetoscope's recorder. While enabled, every
// operator (scope FUNCTION), autograd function (BACKWARD_FUNCTION), TorchScript function and
// record_function range (USER_SCOPE) that starts while the recorder is recording becomes a range:
// ops with category cpu_op and their record function id, sequence number and forward thread id;
// user scopes as user_annotation. The callback is registered only while enabled, so a disabled
// observer costs the program nothing; while enabled and not recording, each op costs one call.
//
// Nothing here touches tensor data or changes what the op computes: the callbacks only read the
// op's name, ids and input metadata.
class Observer {
public:
    static Observer& instance();

    // Registers the callback with these options (again if they changed) and, with profileMemory,
    // installs the memory reporter on the calling thread; with withStack, the Python stacks.
    // False with a message on failure; a warning leaves it enabled with the message in error.
    bool enable(const ObserverOptions& options, std::string* error);
    // Removes the callback, the calling thread's memory reporter and the Python stacks.
    void disable();
    bool enabled() const;

    // Read by the callbacks.
    static std::atomic<bool> s_shapes;
    // Operators get the calling thread's Python stack (pystack.h).
    static std::atomic<bool> s_stacks;
    static std::atomic<uint32_t> s_shapeEvery;
    // Bumped when the options change, so threads drop their cached per-name decisions.
    static std::atomic<uint64_t> s_generation;
    // The filter, for names a thread sees for the first time.
    bool wants(std::string_view name);

private:
    Observer() = default;
    void setStacks(const ObserverOptions& options, std::string* error = nullptr);

    mutable std::mutex m_mutex;
    at::CallbackHandle m_handle = at::INVALID_CALLBACK_HANDLE;
    ObserverOptions m_options;
    bool m_memory = false;
    std::mutex m_stackMutex;
    bool m_stacks = false; // guarded by m_stackMutex
};

} // namespace ks::torchobs
