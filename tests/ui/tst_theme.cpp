// The palette module: both schemes are complete, switching emits changed() once, and the painted
// views follow the switch.

#include "ui/util/theme.h"

#include <QGuiApplication>
#include <QSignalSpy>
#include <QTest>

using namespace ks::ui;

namespace {

std::vector<QColor> named(const Palette& p)
{
    return {p.text,
            p.mutedText,
            p.hintText,
            p.heading,
            p.link,
            p.base,
            p.header,
            p.groupHeader,
            p.separator,
            p.border,
            p.grid,
            p.tick,
            p.stepBand,
            p.stepLine,
            p.stepLabel,
            p.stepLabelAlt,
            p.counterFill,
            p.counterLine,
            p.tooltipBackground,
            p.onDarkFill,
            p.onLightFill,
            p.hostAccent,
            p.deviceAccent,
            p.highlight,
            p.selection,
            p.error,
            p.warning,
            p.success,
            p.bannerBackground,
            p.bannerBorder,
            p.bannerText,
            p.kernel,
            p.memcpy,
            p.memset,
            p.communication,
            p.runtime,
            p.dataloader,
            p.cpu,
            p.sync,
            p.step,
            p.span,
            p.other,
            p.idle,
            p.unknown};
}

} // namespace

class TestTheme : public QObject {
    Q_OBJECT
private slots:
    void schemesAreComplete()
    {
        for (const Palette& p : {Palette::light(), Palette::dark()}) {
            for (const QColor& c : named(p))
                QVERIFY(c.isValid());
            QVERIFY(!p.series.empty());
        }
        // A name keeps its hue index whatever the scheme: the counts agree.
        QCOMPARE(Palette::light().sliceHues.size(), Palette::dark().sliceHues.size());
        QCOMPARE(Palette::light().quietSliceHues.size(), Palette::dark().quietSliceHues.size());
        // Text reads on its background in both.
        QVERIFY(Palette::light().text.lightness() < Palette::light().base.lightness());
        QVERIFY(Palette::dark().text.lightness() > Palette::dark().base.lightness());
    }

    void switchesAtRunTime()
    {
        Theme& theme = Theme::instance();
        QSignalSpy changed(&theme, &Theme::changed);
        theme.setScheme(Theme::Scheme::Light);
        changed.clear();
        theme.setScheme(Theme::Scheme::Dark);
        QCOMPARE(changed.count(), 1);
        QVERIFY(theme.isDark());
        QCOMPARE(Theme::palette().base, Palette::dark().base);
        theme.setScheme(Theme::Scheme::Dark); // no change, no signal
        QCOMPARE(changed.count(), 1);
        theme.setScheme(Theme::Scheme::Light);
        QCOMPARE(changed.count(), 2);
        QCOMPARE(Theme::palette().base, Palette::light().base);
    }

    void forcedSchemeSetsTheWidgetPalette()
    {
        Theme& theme = Theme::instance();
        theme.setScheme(Theme::Scheme::System);
        const QPalette system = QGuiApplication::palette();
        const bool systemDark = theme.isDark();
        theme.setScheme(systemDark ? Theme::Scheme::Light : Theme::Scheme::Dark);
        QCOMPARE(QGuiApplication::palette().color(QPalette::Base), Theme::palette().base);
        QCoreApplication::processEvents(); // the palette event comes back without switching again
        QCOMPARE(theme.isDark(), !systemDark);
        theme.setScheme(Theme::Scheme::System);
        QCOMPARE(theme.isDark(), systemDark);
        QCOMPARE(QGuiApplication::palette().color(QPalette::Base), system.color(QPalette::Base));
    }

    void followTheRestyledWidget()
    {
        Theme::instance().setScheme(Theme::Scheme::Light);
        QWidget w;
        followTheme(&w, [](const Palette& p) { return QStringLiteral("color:%1").arg(p.mutedText.name()); });
        QCOMPARE(w.styleSheet(), QStringLiteral("color:") + Palette::light().mutedText.name());
        Theme::instance().setScheme(Theme::Scheme::Dark);
        QCOMPARE(w.styleSheet(), QStringLiteral("color:") + Palette::dark().mutedText.name());
        Theme::instance().setScheme(Theme::Scheme::System);
    }
};

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
