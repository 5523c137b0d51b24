#include "pyapi.h"

#include <dlfcn.h>

namespace ks::torchobs {

template <class F>
void PyApi::get(F& f, const char* name, bool required)
{
    f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
    if (!f && required && missing.empty()) missing = name;
}

PyApi::PyApi()
{
    get(IsInitialized, "Py_IsInitialized");
    get(GILStateEnsure, "PyGILState_Ensure");
    get(GILStateRelease, "PyGILState_Release");
    get(ThreadStateGet, "PyThreadState_Get");
    get(ThreadStateSwap, "PyThreadState_Swap");
    get(ThreadStateGetInterpreter, "PyThreadState_GetInterpreter");
    get(InterpreterThreadHead, "PyInterpreterState_ThreadHead");
    get(ThreadStateNext, "PyThreadState_Next");
    get(ThreadStateGetFrame, "PyThreadState_GetFrame");
    get(FrameGetBack, "PyFrame_GetBack");
    get(FrameGetCode, "PyFrame_GetCode");
    get(FrameGetLineNumber, "PyFrame_GetLineNumber");
    get(EvalSetProfile, "PyEval_SetProfile");
    get(EvalSetProfileFor, "_PyEval_SetProfile", false);
    get(ObjectRepr, "PyObject_Repr");
    get(GetAttrString, "PyObject_GetAttrString");
    get(FrameGetLocals, "PyFrame_GetLocals", false);
    get(MappingGetItemString, "PyMapping_GetItemString");
    get(ImportModule, "PyImport_ImportModule");
    get(UnicodeAsUTF8, "PyUnicode_AsUTF8");
    get(CapsuleNew, "PyCapsule_New");
    get(CapsuleGetPointer, "PyCapsule_GetPointer");
    get(IncRef, "Py_IncRef");
    get(DecRef, "Py_DecRef");
    get(ErrClear, "PyErr_Clear");
    ok = missing.empty() && IsInitialized();
}

PyApi& api()
{
    static PyApi* a = new PyApi();
    return *a;
}

} // namespace ks::torchobs
