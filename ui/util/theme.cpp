#include "ui/util/theme.h"

#include "ui/util/preferences.h"

#include <QActionGroup>
#include <QEvent>
#include <QGuiApplication>
#include <QMenu>
#include <QPalette>
#include <QStyleHints>
#include <QWidget>

namespace ks::ui {

namespace {

std::vector<QColor> colors(std::initializer_list<QRgb> rgb)
{
    std::vector<QColor> out;
    for (QRgb c : rgb)
        out.emplace_back(c);
    return out;
}

// Per-name hues for ops and kernels, shared by both schemes (slices are fills, text on them picks
// its own contrast). No greens or violets: those mark memcpy and memset.
std::vector<QColor> vividHues()
{
    return colors({0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0xedc948, 0x9c755f, 0xff9da7,
                   0xa0cbe8, 0xffbe7d, 0xff9d9a, 0x86bcb6, 0xf1ce63, 0xd7b5a6, 0x6b9ac4,
                   0xe8a33d, 0xc9705f, 0x5fa2a8, 0xd4a95b, 0xb5838d, 0x7f9fc0});
}

void setKinds(Palette& p)
{
    p.kernel = QColor(0x4e79a7);
    p.memcpy = QColor(0x3ca951);
    p.memset = QColor(0x9b6bd6);
    p.communication = QColor(0xf28e2b);
    p.runtime = QColor(0xa9b3be);
    p.dataloader = QColor(0xedc948);
    p.cpu = QColor(0x76b7b2);
    p.sync = QColor(0xd94f4f);
    p.step = QColor(0xd8cb9a);
    p.other = QColor(0xbfbfbf);
    p.unknown = QColor(0xbdbdbd);
    p.onDarkFill = QColor(0xffffff);
    p.onLightFill = QColor(0x1d1d1f);
    p.hostAccent = QColor(0x4e79a7);
    p.deviceAccent = QColor(0x3ca951);
    p.sliceHues = vividHues();
    // Tableau 10, in its order: the roofline has up to eight op families.
    p.series = colors({0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0xe15759, 0x76b7b2, 0xedc948, 0x9c755f});
}

} // namespace

Palette Palette::light()
{
    Palette p;
    p.text = QColor(0x252a31);
    p.mutedText = QColor(0x6b7380);
    p.hintText = QColor(0x7a828e);
    p.heading = QColor(0x4a5260);
    p.link = QColor(0x1a5fd0);
    p.base = QColor(0xffffff);
    p.header = QColor(0xf6f7f9);
    p.groupHeader = QColor(0xe9ecf1);
    p.separator = QColor(0xe3e6eb);
    p.border = QColor(0xd5d9e0);
    p.grid = QColor(0xf0f2f5);
    p.tick = QColor(0x8a93a0);
    p.stepBand = QColor(0xf4f6fb);
    p.stepLine = QColor(0xc9d2e3);
    p.stepLabel = QColor(0xe4e9f4);
    p.stepLabelAlt = QColor(0xd3dcee);
    p.counterFill = QColor(0xb9cde4);
    p.counterLine = QColor(0x2f6bb0);
    p.tooltipBackground = QColor(0x333a44);
    p.highlight = QColor(0xff8f00);
    p.selection = QColor(0x4285f4);
    p.error = QColor(0xb3261e);
    p.warning = QColor(0xb05a00);
    p.success = QColor(0x1a7f37);
    p.bannerBackground = QColor(0xfff4d6);
    p.bannerBorder = QColor(0xe8d08c);
    p.bannerText = QColor(0x5c4300);
    setKinds(p);
    p.span = QColor(0xdddddd);
    p.idle = QColor(0xeceef1);
    p.heatLow = QColor(0xdcebf7);
    p.heatMid = QColor(0xf6d28b);
    p.heatHigh = QColor(0xc0392b);
    p.heatMissing = QColor(0xf4f5f7);
    // Quiet hues for Python frames, which often stack ten deep above the ops that matter.
    p.quietSliceHues = colors(
        {0xc8d3df, 0xd9d0e3, 0xe3dccb, 0xcfe0dc, 0xe0cfd3, 0xd3dcc8, 0xcbd8e6, 0xe6d8c8, 0xd8cbe0, 0xc9ddd6});
    return p;
}

Palette Palette::dark()
{
    Palette p;
    p.text = QColor(0xd8dce2);
    p.mutedText = QColor(0x9ba3ae);
    p.hintText = QColor(0x8a929d);
    p.heading = QColor(0xb5bcc7);
    p.link = QColor(0x78a6f5);
    p.base = QColor(0x1d2025);
    p.header = QColor(0x262a30);
    p.groupHeader = QColor(0x30353d);
    p.separator = QColor(0x363b43);
    p.border = QColor(0x444a53);
    p.grid = QColor(0x262a30);
    p.tick = QColor(0x7d8693);
    p.stepBand = QColor(0x22262d);
    p.stepLine = QColor(0x3f4859);
    p.stepLabel = QColor(0x2c3444);
    p.stepLabelAlt = QColor(0x36425a);
    p.counterFill = QColor(0x2f4a6b);
    p.counterLine = QColor(0x78a6f5);
    p.tooltipBackground = QColor(0x4a525e);
    p.highlight = QColor(0xffa229);
    p.selection = QColor(0x5b95f5);
    p.error = QColor(0xf2786f);
    p.warning = QColor(0xe5a54a);
    p.success = QColor(0x55c271);
    p.bannerBackground = QColor(0x3b3218);
    p.bannerBorder = QColor(0x6e5b25);
    p.bannerText = QColor(0xf0d98c);
    setKinds(p);
    p.span = QColor(0x4a4f57);
    p.idle = QColor(0x2b2f35);
    p.heatLow = QColor(0x22384f);
    p.heatMid = QColor(0x8a6d2c);
    p.heatHigh = QColor(0xe0533f);
    p.heatMissing = QColor(0x23262b);
    p.quietSliceHues = colors(
        {0x47566a, 0x574d63, 0x5e5744, 0x46605a, 0x60494f, 0x4e5c43, 0x455870, 0x665646, 0x574865, 0x446258});
    return p;
}

Theme& Theme::instance()
{
    static Theme* theme = new Theme; // lives as long as the process; views connect to it
    return *theme;
}

Theme::Theme()
{
    if (qApp) {
        qApp->installEventFilter(this);
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
        connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, this, &Theme::update);
#endif
    }
    m_dark = m_scheme == Scheme::Dark || (m_scheme == Scheme::System && systemIsDark());
    m_palette = m_dark ? Palette::dark() : Palette::light();
}

QPalette Palette::widgetPalette() const
{
    QPalette pal;
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        const bool off = g == QPalette::Disabled;
        const QColor& ink = off ? hintText : text;
        pal.setColor(g, QPalette::Window, header);
        pal.setColor(g, QPalette::WindowText, ink);
        pal.setColor(g, QPalette::Base, base);
        pal.setColor(g, QPalette::AlternateBase, stepBand);
        pal.setColor(g, QPalette::Text, ink);
        pal.setColor(g, QPalette::Button, groupHeader);
        pal.setColor(g, QPalette::ButtonText, ink);
        pal.setColor(g, QPalette::BrightText, onDarkFill);
        pal.setColor(g, QPalette::Light, separator);
        pal.setColor(g, QPalette::Midlight, separator);
        pal.setColor(g, QPalette::Mid, border);
        pal.setColor(g, QPalette::Dark, tick);
        pal.setColor(g, QPalette::Shadow, tooltipBackground);
        pal.setColor(g, QPalette::Highlight, off ? border : selection);
        pal.setColor(g, QPalette::HighlightedText, onDarkFill);
        pal.setColor(g, QPalette::ToolTipBase, tooltipBackground);
        pal.setColor(g, QPalette::ToolTipText, onDarkFill);
        pal.setColor(g, QPalette::PlaceholderText, hintText);
        pal.setColor(g, QPalette::Link, link);
        pal.setColor(g, QPalette::LinkVisited, link);
    }
    return pal;
}

bool Theme::systemIsDark() const
{
    if (!qApp) return false;
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    const Qt::ColorScheme s = QGuiApplication::styleHints()->colorScheme();
    if (s != Qt::ColorScheme::Unknown) return s == Qt::ColorScheme::Dark;
#endif
    // Before Qt 6.5 (and where the platform does not say) the palette tells: a dark window is a
    // dark scheme, whether it came from the desktop or from a style.
    const QPalette pal = m_systemPalette ? *m_systemPalette : QGuiApplication::palette();
    return pal.color(QPalette::Window).lightness() < pal.color(QPalette::WindowText).lightness();
}

void Theme::setScheme(Scheme scheme)
{
    m_scheme = scheme;
    update();
}

void Theme::update()
{
    if (m_settingPalette) return; // our own palette change coming back
    const bool systemDark = systemIsDark();
    const bool dark = m_scheme == Scheme::Dark || (m_scheme == Scheme::System && systemDark);
    const bool switched = dark != m_dark;
    m_dark = dark;
    m_palette = dark ? Palette::dark() : Palette::light();
    // Only on a change: setting the palette posts a palette event, which calls update() again.
    const bool override = dark != systemDark;
    if (override != m_systemPalette.has_value() || (override && switched)) overrideWidgetPalette(override);
    if (switched) emit changed();
}

void Theme::overrideWidgetPalette(bool override)
{
    if (!qApp || (!override && !m_systemPalette)) return;
    m_settingPalette = true;
    if (override) {
        if (!m_systemPalette) m_systemPalette = QGuiApplication::palette();
        QGuiApplication::setPalette(m_palette.widgetPalette());
    } else {
        QGuiApplication::setPalette(*m_systemPalette);
        m_systemPalette.reset();
    }
    m_settingPalette = false;
}

bool Theme::eventFilter(QObject* watched, QEvent* event)
{
    // The desktop changed its colours. While a forced scheme has replaced the palette, the system's
    // is not seen here; the forced scheme stays until setScheme(System).
    if (watched == qApp && event->type() == QEvent::ApplicationPaletteChange) update();
    return QObject::eventFilter(watched, event);
}

void followTheme(QWidget* w, std::function<QString(const Palette&)> style)
{
    w->setStyleSheet(style(Theme::palette()));
    QObject::connect(&Theme::instance(), &Theme::changed, w,
                     [w, style = std::move(style)] { w->setStyleSheet(style(Theme::palette())); });
}

QMenu* newColorSchemeMenu(QWidget* parent)
{
    auto* menu = new QMenu(QStringLiteral("Co&lors"), parent);
    auto* group = new QActionGroup(menu);
    const std::pair<const char*, Theme::Scheme> schemes[] = {{"Follow the &System", Theme::Scheme::System},
                                                             {"&Light", Theme::Scheme::Light},
                                                             {"&Dark", Theme::Scheme::Dark}};
    for (const auto& [label, scheme] : schemes) {
        QAction* a = menu->addAction(QString::fromUtf8(label));
        a->setCheckable(true);
        a->setData(int(scheme));
        group->addAction(a);
        // Through the preferences, so that the choice is kept for the next start.
        QObject::connect(a, &QAction::triggered, menu,
                         [s = scheme] { Preferences::instance().setScheme(s); });
    }
    // The Preferences dialog may have changed the scheme since the menu was built.
    auto check = [menu] {
        for (QAction* a : menu->actions())
            a->setChecked(Theme::Scheme(a->data().toInt()) == Theme::instance().scheme());
    };
    check();
    QObject::connect(menu, &QMenu::aboutToShow, menu, check);
    return menu;
}

void repaintOnThemeChange(QWidget* w)
{
    QObject::connect(&Theme::instance(), &Theme::changed, w, [w] { w->update(); });
}

} // namespace ks::ui
