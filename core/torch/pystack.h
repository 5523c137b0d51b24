#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ks::torchobs {

// The Python stacks of operators under with_stack, the way torch 1.13's Python tracer gets them.
//
// Torch runs operators with the GIL released, so the operator callback cannot walk Python's
// frames. Instead, while enabled, a C-level profile function (PyEval_SetProfile) on every thread
// of the interpreter keeps a shadow stack of the Python calls (PyTrace_CALL/RETURN) and C function
// calls (PyTrace_C_CALL/C_RETURN/C_EXCEPTION) in progress, seeded from the frames already on the
// stack at enable. Each entry points to a node of a per-thread prefix tree of stacks whose
// "Call stack" text is built and interned once, on the first operator seen under it; the operator
// callback, on the same thread, only reads the innermost node: no GIL, no lock, no allocation once
// the node's text exists.
//
// Frames are named as torch names them: `file(line): function` for Python code (the file without
// the longest of the given prefixes, the line where the frame was when it was entered: the `def`
// line for a call, the current line for frames seeded at enable), `repr(function)` for C
// functions, `nn.Module: Class_N` for module calls (Module._call_impl frames, named here from their
// `self`, or by the Python module's forward pre-hook through nameModuleFrame() where frames' locals
// cannot be read).
//
// The CPython API is resolved at run time (dlsym), so the library still loads in a program without
// Python; enable() then fails with a message and operators get no Python stacks.
class PythonStacks {
public:
    // Installs the profile function on every thread of the interpreter (takes the GIL). prefixes:
    // file-name prefixes to strip, tried in order. False with a message when Python is not there;
    // a warning (another profile function on a thread, which is then left alone) in warning.
    static bool enable(const std::vector<std::string>& prefixes, std::string* error, std::string* warning);
    // Removes it from every thread it is installed on (takes the GIL).
    static void disable();
    static bool enabled();
    // Module calls are named, and recorded as python_function ranges "nn.Module: <class>", by the
    // profile function itself (Python 3.11+, torch imported): the Python module's forward hooks
    // are then not needed.
    static bool nativeModules();

    // The interned "Call stack" text (frames innermost first, joined by ';') of the calling
    // thread's current Python stack, or 0. For the operator callback: no GIL needed.
    static uint32_t current();

    // For a thread started while enabled (threading.setprofile's hook): installs the profile
    // function on the calling thread, seeded from frame (a PyFrameObject*, the hook's frame
    // argument). Takes the GIL.
    static void installOnCurrentThread(void* frame);
    // Names the Python frame `depth` entries below the calling thread's innermost (the
    // Module._call_impl frame, seen from the forward pre-hook that calls this) as text
    // ("nn.Module: Linear_0"), as torch's tracer names module calls. Takes the GIL.
    static void nameModuleFrame(const char* text, int depth);
};

} // namespace ks::torchobs
