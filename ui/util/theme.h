#pragma once

#include <QColor>
#include <QObject>
#include <QPalette>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

class QMenu;
class QWidget;

namespace ks::ui {

// The UI's colours by meaning. Every colour the UI paints or writes into a style sheet or HTML
// comes from here, so a dark window gets dark tracks and a colour means the same thing everywhere.
struct Palette {
    // Text.
    QColor text;      // body text, labels, ruler figures, lines drawn "in ink"
    QColor mutedText; // summaries, keys in key/value tables, console notes
    QColor hintText;  // placeholders and explanations ("Click a slice…"), secondary details
    QColor heading;   // small section headings in the HTML panels
    QColor link;      // links, and the selected range's edges and labels

    // Surfaces and lines.
    QColor base;        // track area background
    QColor header;      // ruler and label column background
    QColor groupHeader; // a process (group) header row
    QColor separator;   // lines between rows
    QColor border;      // the ruler's bottom edge, panel frames
    QColor grid;        // vertical time grid
    QColor tick;        // ruler ticks
    QColor stepBand;    // every other step in the track area
    QColor stepLine;    // step boundaries
    QColor stepLabel;   // step labels in the ruler, alternating with stepLabelAlt
    QColor stepLabelAlt;
    QColor counterFill; // counter tracks
    QColor counterLine;
    QColor tooltipBackground; // the cursor's time label in the ruler (onDarkFill text)
    QColor onDarkFill;        // text on a dark or saturated fill (slices, labels)
    QColor onLightFill;       // text on a light fill
    QColor hostAccent;        // the bar beside a host's (CPU process) group header
    QColor deviceAccent;      // the bar beside a device's group header

    // States.
    QColor highlight; // search matches and a kernel's or operator's occurrences
    QColor selection; // a selected time range; drawn with alpha over the tracks
    QColor error;
    QColor warning;
    QColor success;
    QColor bannerBackground; // the warning banner above the timeline
    QColor bannerBorder;
    QColor bannerText;

    // Kinds of work, for slices and, later, charts that break time down by kind.
    QColor kernel;
    QColor memcpy;
    QColor memset;
    QColor communication;
    QColor runtime;
    QColor dataloader;
    QColor cpu;
    QColor sync;
    QColor step;
    QColor span; // slices that only group others (python stacks' frames on the CPU side, NVTX)
    QColor other;
    QColor idle;
    QColor unknown; // a slice whose name is not known yet

    // Heatmaps (the rank overview's rank × step map): cool for the job's fastest, hot for its slowest.
    QColor heatLow;
    QColor heatMid;
    QColor heatHigh;
    QColor heatMissing; // a cell without a value (the rank lacks the step)

    // Per-name slice colours: vivid ones for GPU work and CPU ops, quiet ones for python frames.
    std::vector<QColor> sliceHues;
    std::vector<QColor> quietSliceHues;
    // Distinct series in a chart (the step strip's phases).
    std::vector<QColor> series;

    static Palette light();
    static Palette dark();
    // Qt's widget palette in these colours, for a scheme the system does not use.
    QPalette widgetPalette() const;
};

// The palette in use, light or dark. It follows the system (the application palette's window
// colour, or QStyleHints::colorScheme() where Qt has it) until setScheme() picks one, and emits
// changed() whenever the palette switches, so views repaint and style sheets are rebuilt. A scheme
// other than the system's also sets the application's widget palette (tables, menus, docks), and
// the system's comes back with it.
class Theme : public QObject {
    Q_OBJECT
public:
    enum class Scheme { System, Light, Dark };

    static Theme& instance();
    // Shorthand for instance().current().
    static const Palette& palette() { return instance().m_palette; }

    const Palette& current() const { return m_palette; }
    bool isDark() const { return m_dark; }
    Scheme scheme() const { return m_scheme; }
    void setScheme(Scheme scheme);

signals:
    void changed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    Theme();
    void update();
    bool systemIsDark() const;
    void overrideWidgetPalette(bool override);

    Scheme m_scheme = Scheme::System;
    bool m_dark = false;
    Palette m_palette;
    std::optional<QPalette> m_systemPalette; // while a forced scheme has replaced it
    bool m_settingPalette = false;
};

// c with an alpha (0..255): selections and hover lines are drawn translucent over the tracks.
inline QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

// Applies style(palette) as w's style sheet now and again whenever the theme changes.
void followTheme(QWidget* w, std::function<QString(const Palette&)> style);
// "Colors": follow the system, light or dark, checked as the theme stands.
QMenu* newColorSchemeMenu(QWidget* parent);
// Calls w->update() whenever the theme changes, for widgets that paint with the palette.
void repaintOnThemeChange(QWidget* w);

} // namespace ks::ui
