// The environment a launched target gets (core/live/launchenv): an XPU capture preloads the
// injection library in front of what LD_PRELOAD already holds, except a sanitizer's runtime, which
// must stay the process's first library (ASan refuses to start otherwise: a sanitizer build's
// tests, or an instrumented target run by hand, preload it).

#include "core/live/launchenv.h"

#include <QTest>

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
