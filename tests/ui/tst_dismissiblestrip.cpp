// The dismissible strips above the timeline (ui/panels/dismissiblestrip.*): the reader warnings'
// Banner and the sample's SampleHint start hidden, their Dismiss button hides them, and their
// colours (and the hint's link colour) follow a theme switch; the Banner shows three warnings and
// counts the rest. tst_mainwindow and tst_opening show them in a window.

#include "ui/panels/banner.h"
#include "ui/panels/samplehint.h"
#include "ui/util/theme.h"

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

using namespace ks::ui;

namespace {

QToolButton* dismissButton(QWidget* strip)
{
    for (QToolButton* b : strip->findChildren<QToolButton*>())
        if (b->text() == QStringLiteral("Dismiss")) return b;
    return nullptr;
}

// The colours a strip's style sheet gives its background, border and text, in that order.
QStringList colours(const QWidget* strip)
{
    const QString sheet = strip->styleSheet();
    QStringList out;
    for (const char* key : {"background:", "solid ", "color:"}) {
        const qsizetype at = sheet.indexOf(QLatin1String(key));
        out << (at < 0 ? QString() : sheet.mid(at + qsizetype(strlen(key)), 7));
    }
    return out;
}

} // namespace

class TestDismissibleStrip : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { Theme::instance().setScheme(Theme::Scheme::Light); }

    void startHiddenAndDismissHides()
    {
        QWidget window;
        auto* banner = new Banner(&window);
        auto* hint = new SampleHint(&window);
        window.show();
        for (QWidget* strip : {static_cast<QWidget*>(banner), static_cast<QWidget*>(hint)}) {
            QVERIFY(!strip->isVisible());
            strip->show();
            QVERIFY(strip->isVisible());
            QToolButton* dismiss = dismissButton(strip);
            QVERIFY(dismiss);
            QTest::mouseClick(dismiss, Qt::LeftButton);
            QVERIFY(!strip->isVisible());
        }
        // The warning sign comes before the warnings; the hint has none.
        QCOMPARE(banner->findChildren<QLabel*>().first()->text(), QStringLiteral("⚠"));
        QCOMPARE(hint->findChildren<QLabel*>().size(), 1);
    }

    void bannerShowsThreeWarningsAndCountsTheRest()
    {
        QWidget window;
        auto* banner = new Banner(&window);
        window.show();
        const QStringList five{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                               QStringLiteral("d"), QStringLiteral("e")};
        banner->showMessages(five);
        QVERIFY(banner->isVisible());
        QCOMPARE(banner->text(), QStringLiteral("a\nb\nc\n… and 2 more (see Trace info)"));
        QCOMPARE(banner->toolTip(), five.join(QLatin1Char('\n')));
        banner->showMessages(five.mid(0, 2));
        QCOMPARE(banner->text(), QStringLiteral("a\nb"));
        banner->showMessages({});
        QVERIFY(!banner->isVisible());
    }

    void coloursFollowTheTheme()
    {
        Theme::instance().setScheme(Theme::Scheme::Light);
        Banner banner;
        SampleHint hint;
        const Palette light = Palette::light(), dark = Palette::dark();
        QCOMPARE(colours(&banner), (QStringList{light.bannerBackground.name(), light.bannerBorder.name(),
                                                light.bannerText.name()}));
        QCOMPARE(colours(&hint), (QStringList{light.header.name(), light.border.name(), light.text.name()}));
        QVERIFY(banner.styleSheet().startsWith(QStringLiteral("#warningBanner{")));
        QVERIFY(hint.styleSheet().startsWith(QStringLiteral("#sampleHint{")));
        QVERIFY(hint.text().contains(QStringLiteral("color:") + light.link.name()));

        Theme::instance().setScheme(Theme::Scheme::Dark);
        QCOMPARE(colours(&banner), (QStringList{dark.bannerBackground.name(), dark.bannerBorder.name(),
                                                dark.bannerText.name()}));
        QCOMPARE(colours(&hint), (QStringList{dark.header.name(), dark.border.name(), dark.text.name()}));
        QVERIFY(hint.text().contains(QStringLiteral("color:") + dark.link.name()));
        QVERIFY(!hint.text().contains(QStringLiteral("color:") + light.link.name()));
    }

    void hintLinksAskForActions()
    {
        SampleHint hint;
        QSignalSpy asked(&hint, &SampleHint::actionRequested);
        emit hint.findChild<QLabel*>()->linkActivated(QStringLiteral("launch"));
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.first().first().toString(), QStringLiteral("launch"));
    }
};

QTEST_MAIN(TestDismissibleStrip)
#include "tst_dismissiblestrip.moc"
