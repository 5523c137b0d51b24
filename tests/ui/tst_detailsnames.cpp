// The details panel on long kernel names: demangled, elided to one line with the whole name on
// hover and a Copy link, the fields first, and the panel's width back after the window shrank and
// grew.

#include "core/util/demangle.h"
#include "openedwindow.h"
#include "ui/panels/detailshtml.h"
#include "ui/panels/detailspanel.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/kerneltablemodel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/timeline/timelineview.h"

#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <pthread.h>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kMi300 = "AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz";

test::OpenedWindow open(const char* name)
{
    return test::openSharedTrace(name, &MainWindow::operatorPanel, &OperatorPanel::summaryReady);
}

SliceRef longestNamed(const Trace& t)
{
    SliceRef best;
    size_t longest = 0;
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const TrackId id{uint32_t(i)};
        const SliceTrack& st = t.slices(id);
        for (size_t r = 0; r < st.size(); ++r)
            if (t.str(st.name(r)).size() > longest && t.str(st.name(r)).substr(0, 2) == "_Z") {
                longest = t.str(st.name(r)).size();
                best = SliceRef{id, uint32_t(r)};
            }
    }
    return best;
}

} // namespace

class TestDetailsNames : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QSettings().clear();
    }

    void namesDemangleAndHugeTemplatesKeepTheirQualifiedName()
    {
        std::string out;
        QVERIFY(demangle("_ZN2at6native18elementwise_kernelILi128ELi2EEEvi", out));
        QCOMPARE(out, std::string("void at::native::elementwise_kernel<128, 2>(int)"));
        QVERIFY(!demangle("aten::mm", out));
        QVERIFY(!demangleForDisplay("aten::mm", out));
        QVERIFY(!demangleForDisplay("_Z", out));
        QVERIFY(!demangleForDisplay("_ZN99short", out));
        QVERIFY(demangleForDisplay("_ZN2ck6device12_GLOBAL__N_16kernelINS_4GemmEEEvv", out));
        QCOMPARE(out, std::string("void ck::device::(anonymous namespace)::kernel<ck::Gemm>()"));
        // std::bfloat16_t ("DF16b"), which ROCm's aiter and ck_tile kernels use: libstdc++'s demangler
        // of Debian 12 refuses it, c++filt reads it (an sglang MI300 trace's kernel).
        QVERIFY(demangleForDisplay(
            "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb0ELb0ELb1ELi1EEEvPT0_"
            "PT_PfS4_S4_S4_diiiiiiib",
            out));
        QCOMPARE(out, std::string(
                          "void aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 256, 16, "
                          "false, false, true, 1>(std::bfloat16_t*, std::bfloat16_t*, float*, "
                          "std::bfloat16_t*, std::bfloat16_t*, std::bfloat16_t*, double, int, int, int, "
                          "int, int, int, int, bool)"));
    }

    // A hostile trace's names reach the demangler on the GUI thread and on pool threads with small
    // stacks: deep nesting must neither overflow the stack nor take long.
    void hostileMangledNamesAreSafeOnASmallStack()
    {
        struct Job {
            std::vector<std::string> names;
            int done = 0;
        } job;
        for (const char* unit : {"P", "N1a", "PFv", "PA1_", "IN1aE"})
            for (size_t len : {2000, 8000, 100000}) {
                std::string n = "_Z1f";
                while (n.size() < len)
                    n += unit;
                job.names.push_back(n + "i");
            }
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        pthread_t thread;
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(pthread_create(
                     &thread, &attr,
                     [](void* arg) -> void* {
                         auto* j = static_cast<Job*>(arg);
                         std::string out;
                         for (const std::string& n : j->names) {
                             demangleForDisplay(n, out);
                             ++j->done;
                         }
                         return nullptr;
                     },
                     &job),
                 0);
        pthread_join(thread, nullptr);
        pthread_attr_destroy(&attr);
        QCOMPARE(job.done, int(job.names.size()));
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    }

    void longMangledKernelNameIsDemangledElidedAndCopyable()
    {
        test::OpenedWindow o = open(kMi300);
        QVERIFY(o.doc);
        const Trace& t = *o.doc->trace;
        const SliceRef k = longestNamed(t);
        QVERIFY(k.valid());
        const std::string_view raw = t.str(t.slices(k.track).name(k.index));
        QVERIFY2(raw.substr(0, 5) == "_ZN2c" && raw.size() > 1000, std::string(raw.substr(0, 40)).c_str());
        // Too many components for libstdc++'s demangler; c++filt --no-recurse-limit reads it whole.
        const QString full = displaySliceName(*o.doc, k);
        QVERIFY2(full.startsWith(QStringLiteral(
                     "void ck::tensor_operation::device::(anonymous namespace)::kernel_grouped_conv_fwd")),
                 qPrintable(full));
        QVERIFY2(full.endsWith(QLatin1Char(')')) && !full.contains(QStringLiteral("<…>")),
                 qPrintable(full.right(80)));
        // The timeline's label and the GPU-kernels table show the same readable name.
        QCOMPARE(o.window->timeline()->renderer().name(t.slices(k.track).name(k.index)), full);
        KernelTableModel* kernels = o.window->kernelPanel()->model();
        QVERIFY(kernels->rowCount() > 0);
        bool found = false;
        for (int row = 0; row < kernels->rowCount(); ++row) {
            const QString shown = kernels->index(row, KernelTableModel::Name).data().toString();
            QVERIFY2(!shown.startsWith(QStringLiteral("_Z")), qPrintable(shown.left(80)));
            found = found || shown == full;
        }
        QVERIFY(found);

        o.window->timeline()->selectSlice(k, true);
        DetailsPanel* panel = o.window->detailsPanel();
        QCOMPARE(panel->fullName(), full);
        const QStringList lines = panel->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 4);
        // One line for the name, within the panel's width (the name plus its Copy link).
        QVERIFY2(lines[0].endsWith(QStringLiteral("Copy")), qPrintable(lines[0]));
        QFont f;
        f.setPixelSize(13);
        QVERIFY(QFontMetrics(f).horizontalAdvance(lines[0]) <= panel->viewport()->width());
        // Shortened to the function's own name (cut at the end if even that is too long).
        QString title = lines[0];
        title.chop(4);
        title = title.trimmed();
        if (title.endsWith(QStringLiteral("…"))) title.chop(1);
        QVERIFY2(title.startsWith(QStringLiteral("kernel_grouped_conv_fwd")), qPrintable(title));
        QVERIFY2(full.contains(title.section(QLatin1Char('<'), 0, 0)), qPrintable(title));
        QVERIFY(!lines[0].contains(QStringLiteral("_ZN")));
        // The fields come right after it.
        QVERIFY2(lines[1].startsWith(QStringLiteral("Kind")), qPrintable(lines[1]));
        const QString text = panel->toPlainText();
        QVERIFY2(text.indexOf(QStringLiteral("Duration")) < 400, qPrintable(text.left(600)));
        // The raw name is still there, at the end, for whoever needs it.
        QVERIFY(panel->toPlainText().contains(QStringLiteral("Mangled name")));
        QString dir = qEnvironmentVariable("KS_SCREENSHOT_DIR");
        if (dir.isEmpty()) dir = QStringLiteral(KS_BINARY_DIR "/tests/screenshots");
        QDir().mkpath(dir);
        QVERIFY(o.window->grab().save(dir + QStringLiteral("/details-long-kernel-name.png")));
        emit panel->anchorClicked(QUrl(QStringLiteral("ks-copy:name")));
        QCOMPARE(QGuiApplication::clipboard()->text(), full);
    }

    // Selecting a second aten::to showed its block twice: the first setHtml() showed the scroll bar,
    // and the resize it caused rendered the slice again from inside it.
    void detailsShowOnceAfterSelectingAnotherSlice()
    {
        test::OpenedWindow o =
            open("AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        QVERIFY(o.doc);
        const Trace& t = *o.doc->trace;
        std::vector<SliceRef> tos;
        for (size_t i = 0; i < t.trackCount() && tos.size() < 3; ++i) {
            const SliceTrack& st = t.slices(TrackId{uint32_t(i)});
            for (size_t r = 0; r < st.size() && tos.size() < 3; ++r)
                if (t.str(st.name(r)) == "aten::to")
                    tos.push_back(SliceRef{TrackId{uint32_t(i)}, uint32_t(r)});
        }
        QVERIFY(tos.size() >= 2);
        DetailsPanel* panel = o.window->detailsPanel();
        for (SliceRef r : tos) {
            o.window->timeline()->selectSlice(r, true);
            QCoreApplication::processEvents();
            QTest::qWait(100);
            const QString text = panel->toPlainText();
            QCOMPARE(text.count(QStringLiteral("Self time")), 1);
        }
    }

    void detailsWidthComesBackAfterTheWindowShrinksAndGrows()
    {
        test::OpenedWindow o = open(kMi300);
        QVERIFY(o.doc);
        auto* dock = o.window->findChild<QDockWidget*>(QStringLiteral("detailsDock"));
        QVERIFY(dock);
        QTRY_VERIFY_WITH_TIMEOUT(dock->width() > 250, 5000);
        QTest::qWait(50);
        const int before = dock->width();
        const QSize size = o.window->size();
        o.window->resize(640, size.height());
        QTRY_VERIFY_WITH_TIMEOUT(dock->width() < before, 5000);
        QVERIFY(dock->width() >= 220);
        o.window->resize(size);
        QTRY_VERIFY2_WITH_TIMEOUT(std::abs(dock->width() - before) <= 8,
                                  qPrintable(QStringLiteral("%1 then %2").arg(before).arg(dock->width())),
                                  5000);
    }
};

QTEST_MAIN(TestDetailsNames)
#include "tst_detailsnames.moc"
