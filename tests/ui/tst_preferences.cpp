// Preferences: stored in QSettings, applied to the theme, the Overview's device peaks and the
// exported torch tables; the system's dark scheme is followed.

#include "openedwindow.h"
#include "ui/mainwindow/exportmenu.h"
#include "ui/mainwindow/preferencesdialog.h"
#include "ui/overview/overviewpage.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/kerneltablemodel.h"
#include "ui/util/format.h"
#include "ui/util/preferences.h"
#include "ui/util/theme.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

QPalette systemPalette(bool dark)
{
    QPalette p;
    const QColor window = dark ? QColor(0x2b, 0x2b, 0x2b) : QColor(0xef, 0xef, 0xef);
    const QColor text = dark ? QColor(0xe8, 0xe8, 0xe8) : QColor(0x10, 0x10, 0x10);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, dark ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white));
    p.setColor(QPalette::Text, text);
    return p;
}

} // namespace

class TestPreferences : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_preferences"));
        QSettings().remove(QStringLiteral("preferences"));
        Preferences::instance().reload();
    }
    void cleanupTestCase()
    {
        QSettings().remove(QStringLiteral("preferences"));
        Preferences::instance().reload();
    }

    void themeFollowsADarkSystemPalette()
    {
        Preferences::instance().setScheme(Theme::Scheme::System);
        QApplication::setPalette(systemPalette(true));
        QCoreApplication::processEvents();
        QVERIFY(Theme::instance().isDark());
        QCOMPARE(Theme::palette().base, Palette::dark().base);
        QApplication::setPalette(systemPalette(false));
        QCoreApplication::processEvents();
        QVERIFY(!Theme::instance().isDark());
        // A forced scheme wins over the system's until System is chosen again.
        Preferences::instance().setScheme(Theme::Scheme::Dark);
        QVERIFY(Theme::instance().isDark());
        Preferences::instance().setScheme(Theme::Scheme::System);
        QVERIFY(!Theme::instance().isDark());
    }

    void dialogValuesPersist()
    {
        {
            PreferencesDialog d;
            d.schemeBox()->setCurrentIndex(d.schemeBox()->findData(int(Theme::Scheme::Dark)));
            d.timeUnitBox()->setCurrentIndex(d.timeUnitBox()->findData(QStringLiteral("ms")));
            d.rowLimitBox()->setValue(7);
            d.devicePeakBox()->setEditText(QStringLiteral("bf16=100,fp32=10,tbps=1.5"));
            d.apply();
        }
        QSettings s;
        QCOMPARE(s.value(QStringLiteral("preferences/scheme")).toString(), QStringLiteral("dark"));
        QCOMPARE(s.value(QStringLiteral("preferences/timeUnit")).toString(), QStringLiteral("ms"));
        QCOMPARE(s.value(QStringLiteral("preferences/rowLimit")).toInt(), 7);
        QCOMPARE(s.value(QStringLiteral("preferences/devicePeak")).toString(),
                 QStringLiteral("bf16=100,fp32=10,tbps=1.5"));

        // What the next start reads.
        Preferences::instance().setScheme(Theme::Scheme::Light);
        QSettings().setValue(QStringLiteral("preferences/scheme"), QStringLiteral("dark"));
        Preferences::instance().reload();
        const Preferences& p = Preferences::instance();
        QCOMPARE(p.scheme(), Theme::Scheme::Dark);
        QVERIFY(Theme::instance().isDark());
        QCOMPARE(p.timeUnit(), QStringLiteral("ms"));
        QCOMPARE(p.rowLimit(), 7);
        QVERIFY(p.devicePeak());
        QCOMPARE(p.devicePeak()->tflopsBf16, 100.0);
        QCOMPARE(p.devicePeak()->memoryTBps, 1.5);

        // A new dialog shows them.
        PreferencesDialog again;
        QCOMPARE(again.schemeBox()->currentData().toInt(), int(Theme::Scheme::Dark));
        QCOMPARE(again.timeUnitBox()->currentData().toString(), QStringLiteral("ms"));
        QCOMPARE(again.rowLimitBox()->value(), 7);
        QCOMPARE(again.devicePeakBox()->currentText(), QStringLiteral("bf16=100,fp32=10,tbps=1.5"));

        // The View > Colors menu and the dialog are one setting.
        QWidget host;
        QMenu* colors = newColorSchemeMenu(&host);
        QMetaObject::invokeMethod(colors, "aboutToShow");
        for (QAction* a : colors->actions())
            QCOMPARE(a->isChecked(), a->data().toInt() == int(Theme::Scheme::Dark));
        colors->actions().first()->trigger(); // Follow the System
        QCOMPARE(QSettings().value(QStringLiteral("preferences/scheme")).toString(),
                 QStringLiteral("system"));
    }

    void aBadDevicePeakIsRefused()
    {
        PreferencesDialog d;
        QPushButton* ok = d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        d.devicePeakBox()->setEditText(QStringLiteral("bf16=fast"));
        QVERIFY(!ok->isEnabled());
        d.devicePeakBox()->setEditText(QStringLiteral("H100"));
        QVERIFY(ok->isEnabled());
        d.devicePeakBox()->setEditText(QString());
        QVERIFY(ok->isEnabled());
        QVERIFY(!Preferences::checkDevicePeak(QStringLiteral("bf16=fast")));
    }

    void devicePeakAndTableSettingsAreUsed()
    {
        Preferences::instance().setDevicePeakText(QString());
        test::OpenedWindow o =
            test::openSharedTrace(kBert, &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(o.doc);
        QVERIFY(o.window->overviewPage()->report());
        // The Overview recomputes with the peaks of the Preferences.
        QSignalSpy computed(o.window->overviewPage(), &OverviewPage::computed);
        Preferences::instance().setDevicePeakText(QStringLiteral("bf16=123,fp32=45,tbps=6.7"));
        QVERIFY(computed.wait(60000));
        const OverviewReport* r = o.window->overviewPage()->report();
        QVERIFY(r && r->peak);
        QCOMPARE(r->peak->tflopsBf16, 123.0);
        QCOMPARE(r->peak->memoryTBps, 6.7);

        // The exported torch table takes the row limit and time unit.
        Preferences::instance().setRowLimit(3);
        Preferences::instance().setTimeUnit(QStringLiteral("ms"));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.txt"));
        QSignalSpy finished(o.window->exportMenu(), &ExportMenu::finished);
        o.window->exportMenu()->exportTo(ExportFormat::OperatorTable, path);
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.at(0).at(1).toString().isEmpty());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts);
        // Header rule, titles, rule, three rows, rule, two totals.
        QCOMPARE(lines.size(), 9);
        QVERIFY(lines[3].contains(QStringLiteral("ms ")));
        QVERIFY(!lines[3].contains(QStringLiteral("us ")));
        Preferences::instance().setTimeUnit(QString());
    }

    // The time unit applies to durations on screen too, not only to the tables the viewer writes.
    void timeUnitAppliesToOnScreenDurations()
    {
        Preferences::instance().setTimeUnit(QString());
        QCOMPARE(formatDuration(850), QStringLiteral("850 ns"));
        QCOMPARE(formatDuration(12'345'678), QStringLiteral("12.3 ms"));
        test::OpenedWindow o =
            test::openSharedTrace(kBert, &MainWindow::overviewPage, &OverviewPage::computed);
        QVERIFY(o.doc);
        const QAbstractItemModel* kernels = o.window->kernelPanel()->model();
        QVERIFY(kernels && kernels->rowCount() > 0);
        const QModelIndex total = kernels->index(0, KernelTableModel::Total);
        const QString automatic = total.data().toString();

        Preferences::instance().setTimeUnit(QStringLiteral("ms"));
        QCOMPARE(formatDuration(850), QStringLiteral("0.000850 ms"));
        QCOMPARE(formatDuration(12'345'678), QStringLiteral("12.3 ms"));
        QCOMPARE(formatDuration(1'234'567'890), QStringLiteral("1235 ms"));
        QVERIFY2(total.data().toString().endsWith(QStringLiteral(" ms")),
                 qPrintable(total.data().toString()));
        Preferences::instance().setTimeUnit(QStringLiteral("us"));
        QCOMPARE(formatDuration(850), QStringLiteral("0.850 µs"));
        QCOMPARE(formatDuration(12'345'678), QStringLiteral("12346 µs"));
        Preferences::instance().setTimeUnit(QStringLiteral("s"));
        QCOMPARE(formatDuration(1'234'567'890), QStringLiteral("1.23 s"));
        // Stored: a new process (reload) shows the same unit.
        Preferences::instance().reload();
        QCOMPARE(formatDuration(12'345'678), QStringLiteral("0.0123 s"));
        Preferences::instance().setTimeUnit(QString());
        QCOMPARE(total.data().toString(), automatic);
    }
};

QTEST_MAIN(TestPreferences)
#include "tst_preferences.moc"
