#pragma once

// The CPython API, resolved at run time (dlsym): libkinetoscope_torch links no libpython and loads
// in programs without Python. Python.h is included for type names and constants only; no struct
// whose layout changes between Python versions is read.

#include <Python.h>
#include <frameobject.h>
#include <string>

namespace ks::torchobs {

// The functions used, resolved once; optional ones are null where the running Python lacks them.
class PyApi {
public:
    bool ok = false;
    std::string missing;
    int (*IsInitialized)();
    PyGILState_STATE (*GILStateEnsure)();
    void (*GILStateRelease)(PyGILState_STATE);
    PyThreadState* (*ThreadStateGet)();
    PyThreadState* (*ThreadStateSwap)(PyThreadState*);
    PyInterpreterState* (*ThreadStateGetInterpreter)(PyThreadState*);
    PyThreadState* (*InterpreterThreadHead)(PyInterpreterState*);
    PyThreadState* (*ThreadStateNext)(PyThreadState*);
    PyFrameObject* (*ThreadStateGetFrame)(PyThreadState*);
    PyFrameObject* (*FrameGetBack)(PyFrameObject*);
    PyCodeObject* (*FrameGetCode)(PyFrameObject*);
    int (*FrameGetLineNumber)(PyFrameObject*);
    void (*EvalSetProfile)(Py_tracefunc, PyObject*);
    int (*EvalSetProfileFor)(PyThreadState*, Py_tracefunc, PyObject*); // _PyEval_SetProfile, optional
    PyObject* (*ObjectRepr)(PyObject*);
    PyObject* (*GetAttrString)(PyObject*, const char*);
    PyObject* (*FrameGetLocals)(PyFrameObject*); // 3.11+, optional: native module frames
    // A mapping lookup, not PyDict_GetItemString: from Python 3.13 on, PyFrame_GetLocals gives a
    // function frame's locals as a FrameLocalsProxy (PEP 667), which is no dict.
    PyObject* (*MappingGetItemString)(PyObject*, const char*); // new reference
    PyObject* (*ImportModule)(const char*);
    const char* (*UnicodeAsUTF8)(PyObject*);
    PyObject* (*CapsuleNew)(void*, const char*, PyCapsule_Destructor);
    void* (*CapsuleGetPointer)(PyObject*, const char*);
    void (*IncRef)(PyObject*);
    void (*DecRef)(PyObject*);
    void (*ErrClear)();

    PyApi();

private:
    template <class F>
    void get(F& f, const char* name, bool required = true);
};

// Resolved once; ok is false (and missing names the first absent function) outside Python.
PyApi& api();

// The GIL for this scope, from any thread.
class Gil {
public:
    Gil() : m_state(api().GILStateEnsure()) {}
    ~Gil() { api().GILStateRelease(m_state); }
    Gil(const Gil&) = delete;
    Gil& operator=(const Gil&) = delete;

private:
    PyGILState_STATE m_state;
};

} // namespace ks::torchobs
