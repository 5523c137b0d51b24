// What a Profiler asked for CUDA and XPU does on a machine without any GPU driver, with the
// collectors this build has (the real libcupti and Level Zero loader): one status line per
// activity saying why, CPU recording unharmed, no crash. Parts are skipped where a driver exists.

#include "core/collect/collectors.h"
#include "core/io/tracereader.h"
#include "core/record/api.h"
#include "core/record/profiler.h"

#include <QTest>
#include <dlfcn.h>

using namespace ks;
using namespace ks::record;

namespace {

bool libraryLoads(const char* soname)
{
    void* h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
}

const std::string* line(const std::vector<std::string>& status, const std::string& prefix)
{
    for (const std::string& s : status)
        if (s.rfind(prefix, 0) == 0) return &s;
    return nullptr;
}

} // namespace

class TestGpuAbsent : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Nothing from other tests' fake drivers.
        unsetenv("ZE_ENABLE_ALT_DRIVERS");
        unsetenv("KINETOSCOPE_CUPTI_LIBRARY");
    }

    // The record layer knows no collector of its own (they live a layer above): until the
    // process installs them, a device activity is unavailable and the status says why.
    void withoutInstalledCollectorsTheStatusSaysSo()
    {
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA};
        Profiler prof(o);
        prof.start();
        prof.stop();
        const std::string* cuda = line(prof.status(), "CUDA: not available: ");
        QVERIFY(cuda);
        QVERIFY(cuda->find("installBuiltinCollectors") != std::string::npos);
        ks::collect::installBuiltinCollectors();
    }

    void profilerSaysWhyAndKeepsRecording()
    {
        const bool cudaDriver = libraryLoads("libcuda.so.1");
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA, Activity::XPU};
        Profiler prof(o);
        prof.start();
        {
            KS_RANGE("cpu only");
        }
        prof.stop();
        QVERIFY(prof.trace());
        size_t ranges = 0;
        for (size_t i = 0; i < prof.trace()->trackCount(); ++i)
            ranges += prof.trace()->track(TrackId(uint32_t(i))).slices.size();
        QCOMPARE(ranges, size_t(1));
        const auto& st = prof.status();
        for (const std::string& s : st)
            qInfo("%s", s.c_str());
        if (!cudaDriver) {
            const std::string* cuda = line(st, "CUDA: not available: ");
            QVERIFY(cuda);
#ifdef KS_WITH_CUPTI
            QVERIFY2(cuda->find("no NVIDIA driver") != std::string::npos ||
                         cuda->find("libcupti not found") != std::string::npos,
                     cuda->c_str());
#else
            QVERIFY2(cuda->find("no CUPTI collector") != std::string::npos, cuda->c_str());
#endif
        }
        const std::string* xpu = line(st, "XPU: ");
        QVERIFY(xpu);
        if (xpu->rfind("XPU: not available: ", 0) != 0) QSKIP("this machine has a Level Zero GPU driver");
#ifdef KS_WITH_LEVEL_ZERO
        QVERIFY2(xpu->find("Level Zero") != std::string::npos, xpu->c_str());
#else
        QVERIFY2(xpu->find("no Level Zero collector") != std::string::npos, xpu->c_str());
#endif
        // One line per activity, no more.
        size_t cudaLines = 0, xpuLines = 0;
        for (const std::string& s : st) {
            cudaLines += s.rfind("CUDA:", 0) == 0;
            xpuLines += s.rfind("XPU:", 0) == 0;
        }
        QVERIFY(cudaLines <= 1);
        QCOMPARE(xpuLines, size_t(1));
    }

    // A second window asks again and gets the same answer, quickly, without new side effects.
    void secondWindowIsTheSame()
    {
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA, Activity::XPU};
        Profiler prof(o);
        prof.start();
        prof.stop();
        const auto first = prof.status();
        prof.start();
        prof.stop();
        QCOMPARE(prof.status(), first);
    }
};

QTEST_GUILESS_MAIN(TestGpuAbsent)
#include "tst_gpuabsent.moc"
