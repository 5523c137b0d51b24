// The environment a launched target gets (core/live/launchenv): an XPU capture preloads the
// injection library in front of what LD_PRELOAD already holds, except a sanitizer's runtime, which
// must stay the process's first library (ASan refuses to start otherwise: a sanitizer build's
// tests, or an instrumented target run by hand, preload it). A CUDA capture loads the injection
// library through the driver in native mode only: in windows mode torch.profiler's Kineto records
// the GPU, and one process has one CUPTI activity client.

#include "core/live/launchenv.h"

#include <QTest>
#include <algorithm>
#include <map>

using namespace ks::live;

namespace {

std::string preloadOf(const std::vector<std::string>& base, bool xpu = true)
{
    CaptureOptions capture;
    capture.xpu = xpu;
    LiveResources resources;
    resources.library = "/build/libkinetoscope.so.1";
    resources.injectLibrary = "/build/libkinetoscope_inject.so";
    const LaunchEnvironment env = buildLaunchEnvironment(base, {}, "/tmp/ks.sock", {}, capture, resources);
    for (const std::string& e : env.env)
        if (e.rfind("LD_PRELOAD=", 0) == 0) return e.substr(11);
    return "(unset)";
}

std::map<std::string, std::string> cudaEnv(CaptureOptions::Mode mode, std::vector<std::string>& notes)
{
    CaptureOptions capture;
    capture.cuda = true;
    capture.mode = mode;
    LiveResources resources;
    resources.library = "/build/libkinetoscope.so.1";
    resources.injectLibrary = "/build/libkinetoscope_inject.so";
    const LaunchEnvironment env = buildLaunchEnvironment({}, {}, "/tmp/ks.sock", {}, capture, resources);
    std::map<std::string, std::string> out;
    for (const std::string& e : env.env)
        out[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
    notes = env.notes;
    return out;
}

} // namespace

class TestLaunchEnv : public QObject {
    Q_OBJECT
private slots:
    void injectionLibraryGoesFirst()
    {
        QCOMPARE(preloadOf({}), std::string("/build/libkinetoscope_inject.so"));
        QCOMPARE(preloadOf({"LD_PRELOAD="}), std::string("/build/libkinetoscope_inject.so"));
        QCOMPARE(preloadOf({"LD_PRELOAD=/opt/libfoo.so"}),
                 std::string("/build/libkinetoscope_inject.so:/opt/libfoo.so"));
        QCOMPARE(preloadOf({"LD_PRELOAD=/opt/libfoo.so"}, false), std::string("/opt/libfoo.so"));
    }

    void cudaInjectionInNativeModeOnly()
    {
        std::vector<std::string> notes;
        auto native = cudaEnv(CaptureOptions::Mode::Native, notes);
        QCOMPARE(native["CUDA_INJECTION64_PATH"], std::string("/build/libkinetoscope_inject.so"));
        QCOMPARE(native["NVTX_INJECTION64_PATH"], std::string("/build/libkinetoscope_inject.so"));
        auto windows = cudaEnv(CaptureOptions::Mode::Windows, notes);
        QVERIFY(!windows.count("CUDA_INJECTION64_PATH"));
        QVERIFY(!windows.count("NVTX_INJECTION64_PATH"));
        QVERIFY(!windows.count("LD_PRELOAD"));
        QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
            return n.find("torch.profiler") != std::string::npos;
        }));
        // The capture still asks torch.profiler for CUDA in the windows (the bootstrap reads it).
        QVERIFY(windows["KINETOSCOPE_CAPTURE"].find("\"cuda\": true") != std::string::npos);
    }

    void sanitizerRuntimesStayFirst()
    {
        QCOMPARE(preloadOf({"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libasan.so.8"}),
                 std::string("/usr/lib/x86_64-linux-gnu/libasan.so.8:/build/libkinetoscope_inject.so"));
        QCOMPARE(
            preloadOf({"LD_PRELOAD=/b/sanitizer/libasan.so.8:/b/sanitizer/libubsan.so.1:/opt/libfoo.so"}),
            std::string("/b/sanitizer/libasan.so.8:/b/sanitizer/libubsan.so.1:/build/"
                        "libkinetoscope_inject.so:/opt/libfoo.so"));
        // ld.so takes spaces as separators too; clang's runtime has its own name.
        QCOMPARE(
            preloadOf({"LD_PRELOAD=/lib/libclang_rt.asan-x86_64.so /opt/libfoo.so"}),
            std::string("/lib/libclang_rt.asan-x86_64.so:/build/libkinetoscope_inject.so:/opt/libfoo.so"));
        // Only the leading ones: a runtime after another library cannot come first anyway.
        QCOMPARE(preloadOf({"LD_PRELOAD=/opt/libfoo.so:/lib/libasan.so.8"}),
                 std::string("/build/libkinetoscope_inject.so:/opt/libfoo.so:/lib/libasan.so.8"));
    }
};

QTEST_GUILESS_MAIN(TestLaunchEnv)
#include "tst_launchenv.moc"
