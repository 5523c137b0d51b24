// with_stack: native call stacks captured at range begins, symbolized into Kineto's "Call stack"
// arg when the window is built, exported and read back, and fed to export_stacks.

#include "core/analysis/summary/stackexport.h"
#include "core/io/tracereader.h"
#include "core/record/api.h"
#include "core/record/profiler.h"
#include "core/record/stacksymbols.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <thread>

using namespace ks;
using namespace ks::record;
using namespace Qt::StringLiterals;

namespace {

// Busy for a while, so every range has self time export_stacks counts (at least 1 µs).
void spin(int us)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    while (std::chrono::steady_clock::now() < until) {
    }
}

// Not exported even with -rdynamic: a frame without a symbol.
[[gnu::noipa]] int unexportedFunction(int x)
{
    return x * 3 + 1;
}

} // namespace

// The known frames. External linkage, so dladdr finds their names (the test links with -rdynamic,
// tests/core/extra.cmake); noipa, so each stays a frame of its own under its own name.
[[gnu::noipa]] void stackTestInner()
{
    KS_RANGE("inner");
    spin(40);
}

[[gnu::noipa]] void stackTestMiddle()
{
    KS_RANGE("middle");
    spin(40);
    stackTestInner();
    spin(10);
}

[[gnu::noipa]] void stackTestOuter()
{
    rangeBegin(internName("outer"), Recorder::instance().addPayload(R"({"Input Dims": [[2, 3]]})"));
    spin(40);
    stackTestMiddle();
    rangeEnd();
}

[[gnu::noipa]] void stackTestWorker()
{
    KS_RANGE("worker");
    spin(20);
}

namespace {

struct Found {
    bool found = false;
    bool hasStack = false;
    std::string stack;
    std::vector<std::string> keys;
};

Found sliceNamed(const Trace& t, std::string_view name)
{
    Found f;
    for (size_t i = 0; i < t.trackCount() && !f.found; ++i) {
        const SliceTrack& s = t.track(TrackId(uint32_t(i))).slices;
        for (size_t r = 0; r < s.size(); ++r) {
            if (t.str(s.name(r)) != name) continue;
            f.found = true;
            for (const Arg& a : t.args().decode(s.args(r)))
                f.keys.emplace_back(a.key);
            ArgValue v;
            if (t.args().find(s.args(r), "Call stack", v)) {
                f.hasStack = true;
                f.stack = std::string(v.text);
            }
            break;
        }
    }
    return f;
}

QStringList framesOf(const std::string& stack)
{
    return QString::fromStdString(stack).split(u';');
}

int indexOf(const QStringList& frames, const char* function)
{
    for (int i = 0; i < frames.size(); ++i)
        if (frames[i].startsWith(QLatin1String(function))) return i;
    return -1;
}

// Records the three nested ranges and a worker thread's range in one window, exports it and reads
// the file back, as a user of torch.profiler would.
std::unique_ptr<Trace> recordAndReload(bool withStack, const QTemporaryDir& dir)
{
    ProfilerOptions o;
    o.withStack = withStack;
    Profiler prof(o);
    {
        ProfileScope scope(prof);
        stackTestOuter();
        std::thread worker(stackTestWorker);
        worker.join();
    }
    const std::string path = dir.filePath(withStack ? u"stack.json"_s : u"nostack.json"_s).toStdString();
    const SaveResult saved = prof.exportChromeTrace(path);
    if (!saved.ok) qFatal("export failed: %s", saved.error.c_str());
    LoadResult back = loadTraceFile(path);
    if (!back.ok()) qFatal("reload failed: %s", back.error.c_str());
    return std::move(back.trace);
}

} // namespace

class TestStackCapture : public QObject {
    Q_OBJECT
private slots:
    void nativeStacksNameCallersInnermostFirst()
    {
        QTemporaryDir dir;
        const auto trace = recordAndReload(true, dir);
        QVERIFY(trace->metadata().find("with_stack"));
        const Found inner = sliceNamed(*trace, "inner");
        QVERIFY(inner.found);
        QVERIFY2(inner.hasStack, "inner has no Call stack");
        const QStringList frames = framesOf(inner.stack);
        // The range's own function first, then its callers; nothing of the recorder.
        QCOMPARE(indexOf(frames, "stackTestInner"), 0);
        QVERIFY2(indexOf(frames, "stackTestMiddle") == 1, qPrintable(frames.join(u'\n')));
        QVERIFY2(indexOf(frames, "stackTestOuter") == 2, qPrintable(frames.join(u'\n')));
        for (const QString& f : frames) {
            QVERIFY2(!f.contains(QLatin1String("ks::record::")), qPrintable(f));
            QVERIFY2(!f.isEmpty(), inner.stack.c_str());
        }
        QVERIFY2(
            QRegularExpression(QStringLiteral("^stackTestInner\\(\\) \\(tst_stackcapture\\+0x[0-9a-f]+\\)$"))
                .match(frames[0])
                .hasMatch(),
            qPrintable(frames[0]));
        QVERIFY(frames.size() <= kMaxStackDepth);

        const Found middle = sliceNamed(*trace, "middle");
        QVERIFY(middle.hasStack);
        QCOMPARE(indexOf(framesOf(middle.stack), "stackTestMiddle"), 0);
        QCOMPARE(indexOf(framesOf(middle.stack), "stackTestOuter"), 1);
        // The stack follows the range's other args, where Kineto writes it.
        const Found outer = sliceNamed(*trace, "outer");
        QCOMPARE(indexOf(framesOf(outer.stack), "stackTestOuter"), 0);
        QCOMPARE(outer.keys, (std::vector<std::string>{"Input Dims", "Call stack"}));
    }

    void otherThreadsRecordTheirOwnStacks()
    {
        QTemporaryDir dir;
        const auto trace = recordAndReload(true, dir);
        const Found worker = sliceNamed(*trace, "worker");
        QVERIFY(worker.hasStack);
        const QStringList frames = framesOf(worker.stack);
        QCOMPARE(indexOf(frames, "stackTestWorker"), 0);
        QCOMPARE(indexOf(frames, "stackTestOuter"), -1);
    }

    void withoutStackNoCallStack()
    {
        QTemporaryDir dir;
        const auto trace = recordAndReload(false, dir);
        QVERIFY(!trace->metadata().find("with_stack"));
        for (const char* name : {"outer", "middle", "inner", "worker"}) {
            const Found f = sliceNamed(*trace, name);
            QVERIFY2(f.found, name);
            QVERIFY2(!f.hasStack, name);
        }
        QCOMPARE(sliceNamed(*trace, "outer").keys, (std::vector<std::string>{"Input Dims"}));
    }

    // export_stacks over the recorded trace: one line per range, frames outermost first.
    void exportStacksUsesRecordedFrames()
    {
        QTemporaryDir dir;
        const auto trace = recordAndReload(true, dir);
        std::string text, error;
        QVERIFY2(stacksText(*trace, "self_cpu_time_total", text, &error), error.c_str());
        bool sawInner = false;
        for (const QString& line : QString::fromStdString(text).split(u'\n', Qt::SkipEmptyParts)) {
            const int outer = line.indexOf(QLatin1String("stackTestOuter()_(tst_stackcapture+0x"));
            const int middle = line.indexOf(QLatin1String("stackTestMiddle()_("));
            const int inner = line.indexOf(QLatin1String("stackTestInner()_("));
            if (inner < 0) continue;
            sawInner = true;
            QVERIFY2(outer >= 0 && outer < middle && middle < inner, qPrintable(line));
            QVERIFY2(QRegularExpression(QStringLiteral("\\) \\d+$")).match(line).hasMatch(),
                     qPrintable(line));
        }
        QVERIFY2(sawInner, text.c_str());
    }

    void explicitStackTextIsKept()
    {
        ProfilerOptions o;
        o.withStack = true;
        o.nativeStacks = false;
        Profiler prof(o);
        {
            ProfileScope scope(prof);
            QVERIFY(stacksWanted());
            const uint32_t text = internName("train.py(12): step;train.py(40): main");
            rangeBeginWithStack(internName("explicit"), text);
            rangeEnd();
            KS_RANGE("no native stack");
        }
        QVERIFY(!stacksWanted());
        const Found f = sliceNamed(*prof.trace(), "explicit");
        QCOMPARE(f.stack, std::string("train.py(12): step;train.py(40): main"));
        QVERIFY(!sliceNamed(*prof.trace(), "no native stack").hasStack);
    }

    void symbolizerFormatsFrames()
    {
        StackSymbolizer sym;
        // A return address points after the call; the frame names the call's own byte.
        const auto exported = reinterpret_cast<uint64_t>(&stackTestWorker) + 5;
        QVERIFY2(
            QRegularExpression(QStringLiteral("^stackTestWorker\\(\\) \\(tst_stackcapture\\+0x[0-9a-f]+\\)$"))
                .match(QString::fromStdString(sym.frame(exported)))
                .hasMatch(),
            sym.frame(exported).c_str());
        const auto hidden = reinterpret_cast<uint64_t>(&unexportedFunction) + 1;
        Dl_info info{};
        QVERIFY(dladdr(reinterpret_cast<void*>(hidden - 1), &info));
        char expected[64];
        std::snprintf(
            expected, sizeof expected, "tst_stackcapture+0x%llx",
            static_cast<unsigned long long>(hidden - 1 - reinterpret_cast<uint64_t>(info.dli_fbase)));
        QCOMPARE(sym.frame(hidden), std::string(expected));
        // The recorder's own functions are not the user's frames.
        QCOMPARE(sym.frame(reinterpret_cast<uint64_t>(&warmStackCapture) + 4), std::string());
        const uint64_t frames[] = {exported, reinterpret_cast<uint64_t>(&warmStackCapture) + 4, hidden};
        QCOMPARE(sym.callStack(frames, 3), sym.frame(exported) + ";" + expected);
    }
};

QTEST_GUILESS_MAIN(TestStackCapture)
#include "tst_stackcapture.moc"
