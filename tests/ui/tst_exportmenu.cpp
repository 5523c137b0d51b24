// File > Export: every export of the command line, written off the GUI thread, atomically.

#include "core/io/tracereader.h"
#include "openedwindow.h"
#include "ui/mainwindow/exporter.h"
#include "ui/mainwindow/exportmenu.h"
#include "ui/overview/overviewpage.h"
#include "ui/util/jobtracker.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestExportMenu : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        m_opened = test::openSharedTrace(kBert, &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(m_opened.doc);
        QVERIFY(m_dir.isValid());
    }
    void cleanupTestCase() { m_opened.window.reset(); }

    void fileMenuOffersEveryExportEnabled()
    {
        MainWindow* w = m_opened.window.get();
        QMenu* file = nullptr;
        for (QAction* a : w->menuBar()->actions())
            if (a->text() == QStringLiteral("&File")) file = a->menu();
        QVERIFY(file);
        QVERIFY(file->actions().contains(w->exportMenu()->menuAction()));
        QMetaObject::invokeMethod(w->exportMenu(), "aboutToShow");
        QCOMPARE(int(exportFormats().size()), 11);
        for (const ExportFormatInfo& info : exportFormats()) {
            QAction* a = w->exportMenu()->action(info.format);
            QVERIFY2(a, qPrintable(info.label));
            QVERIFY2(a->isEnabled(), qPrintable(info.label));
            QVERIFY(!a->toolTip().isEmpty());
        }
    }

    void writesEachFormat_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("name");
        QTest::newRow("chrome trace") << int(ExportFormat::ChromeTrace) << "t.pt.trace.json.gz";
        QTest::newRow("stacks cpu") << int(ExportFormat::StacksCpu) << "t.cpu.stacks";
        QTest::newRow("stacks device") << int(ExportFormat::StacksDevice) << "t.cuda.stacks";
        QTest::newRow("memory html") << int(ExportFormat::MemoryHtml) << "t.memory.html";
        QTest::newRow("memory json") << int(ExportFormat::MemoryJson) << "t.memory.json";
        QTest::newRow("memory json gz") << int(ExportFormat::MemoryJsonGz) << "t.memory.json.gz";
        QTest::newRow("memory raw") << int(ExportFormat::MemoryRawJsonGz) << "t.memory.raw.json.gz";
        QTest::newRow("operator table") << int(ExportFormat::OperatorTable) << "t.key_averages.txt";
        QTest::newRow("overview text") << int(ExportFormat::OverviewText) << "t.analyze.txt";
        QTest::newRow("overview json") << int(ExportFormat::OverviewJson) << "t.analyze.json";
        QTest::newRow("overview csv") << int(ExportFormat::OverviewCsv) << "csv";
    }
    void writesEachFormat()
    {
        QFETCH(int, format);
        QFETCH(QString, name);
        const ExportFormat f = ExportFormat(format);
        const QString path = m_dir.filePath(name);
        ExportMenu* menu = m_opened.window->exportMenu();
        QSignalSpy finished(menu, &ExportMenu::finished);
        menu->exportTo(f, path);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(0).toString(), path);
        QVERIFY2(finished.at(0).at(1).toString().isEmpty(), qPrintable(finished.at(0).at(1).toString()));
        const QByteArray bytes = f == ExportFormat::OverviewCsv ? QByteArray() : readAll(path);
        switch (f) {
        case ExportFormat::ChromeTrace: {
            const LoadResult r = loadTraceFile(path.toStdString());
            QVERIFY(r.ok());
            QCOMPARE(r.trace->sliceCount(), m_opened.doc->trace->sliceCount());
            break;
        }
        case ExportFormat::StacksCpu:
        case ExportFormat::StacksDevice: {
            const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            QVERIFY(!lines.isEmpty());
            const QRegularExpression line(QStringLiteral("^\\S.* [1-9][0-9]*$"));
            for (const QString& l : lines)
                QVERIFY2(line.match(l).hasMatch(), qPrintable(l));
            break;
        }
        case ExportFormat::MemoryHtml: {
            const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'));
            QCOMPARE(lines.size(), 6);
            QCOMPARE(lines[0], QStringLiteral("<html>"));
            const QRegularExpression img(
                QStringLiteral("^  <img src='data:image/png;base64,([A-Za-z0-9+/=]+)'"));
            const QRegularExpressionMatch m = img.match(lines[3]);
            QVERIFY(m.hasMatch());
            // The image shrinks to the window: nothing (the legend) runs off its right edge.
            QVERIFY(lines[3].contains(QStringLiteral("max-width:100%")));
            QImage png;
            QVERIFY(png.loadFromData(QByteArray::fromBase64(m.captured(1).toLatin1()), "PNG"));
            QCOMPARE(png.size(), QSize(1600, 960));
            break;
        }
        case ExportFormat::MemoryJson: {
            const QJsonDocument doc = QJsonDocument::fromJson(bytes);
            QVERIFY(doc.isArray());
            const QJsonArray a = doc.array();
            QCOMPARE(a.size(), 2);
            QVERIFY(a[0].toArray().size() > 0);
            QCOMPARE(a[0].toArray().size(), a[1].toArray().size());
            QCOMPARE(a[1].toArray()[0].toArray().size(), 9); // placeholder + eight categories
            break;
        }
        case ExportFormat::MemoryJsonGz:
        case ExportFormat::MemoryRawJsonGz:
            QVERIFY(bytes.size() > 20);
            QCOMPARE(uchar(bytes[0]), uchar(0x1f));
            QCOMPARE(uchar(bytes[1]), uchar(0x8b));
            break;
        case ExportFormat::OperatorTable:
            QVERIFY(bytes.contains("Self CPU %"));
            QVERIFY(bytes.contains("Self CUDA %"));
            QVERIFY(bytes.contains("Self CPU time total:"));
            break;
        case ExportFormat::OverviewText:
            QVERIFY(bytes.size() > 200);
            break;
        case ExportFormat::OverviewJson: {
            const QJsonDocument doc = QJsonDocument::fromJson(bytes);
            QVERIFY(doc.isObject());
            QVERIFY(doc.object().contains(QStringLiteral("gpu_timeline")));
            break;
        }
        case ExportFormat::OverviewCsv: {
            const QStringList files = QDir(path).entryList(QDir::Files);
            QVERIFY2(files.contains(QStringLiteral("gpu_timeline.csv")), qPrintable(files.join(u' ')));
            QVERIFY(files.contains(QStringLiteral("kernel_summary.csv")));
            QVERIFY(readAll(QDir(path).filePath(QStringLiteral("gpu_timeline.csv"))).startsWith("type,"));
            break;
        }
        }
        // Atomic writes leave no temporary files behind.
        const QStringList left =
            QDir(m_dir.path()).entryList({QStringLiteral("*.tmp")}, QDir::Files | QDir::Hidden);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(u' ')));
    }

    void memoryFormatMustMatchTheName()
    {
        const QString path = m_dir.filePath(QStringLiteral("wrong.txt"));
        ExportMenu* menu = m_opened.window->exportMenu();
        QSignalSpy finished(menu, &ExportMenu::finished);
        menu->exportTo(ExportFormat::MemoryHtml, path);
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.at(0).at(1).toString().contains(QStringLiteral(".html")));
        QVERIFY(!QFile::exists(path));
    }

    void cancelLeavesTheTargetAsItWas()
    {
        const QString path = m_dir.filePath(QStringLiteral("kept.pt.trace.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("old");
        }
        // Hold every job thread so that the export cannot start before Cancel.
        QThreadPool* pool = &jobPool();
        const int threads = pool->maxThreadCount();
        QSemaphore started, release;
        for (int i = 0; i < threads; ++i)
            pool->start([&] {
                started.release();
                release.acquire();
            });
        started.acquire(threads);
        ExportMenu* menu = m_opened.window->exportMenu();
        QSignalSpy finished(menu, &ExportMenu::finished);
        menu->exportTo(ExportFormat::ChromeTrace, path);
        QVERIFY(menu->isRunning());
        menu->cancel();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        release.release(threads);
        QVERIFY(pool->waitForDone(60000));
        QCOMPARE(readAll(path), QByteArray("old"));
        QCOMPARE(finished.size(), 1);
    }

private:
    test::OpenedWindow m_opened;
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestExportMenu)
#include "tst_exportmenu.moc"
