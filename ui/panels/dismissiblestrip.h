#pragma once

#include <QColor>
#include <QFrame>
#include <functional>

class QLabel;

namespace ks::ui {

struct Palette;

// A strip above the timeline that the user can dismiss: a text (after an optional icon), a Dismiss
// button that hides the strip, and colours that follow the theme. It starts hidden. The sample's
// hint (SampleHint) and the reader warnings (Banner) are two of them.
class DismissibleStrip : public QFrame {
    Q_OBJECT
public:
    QString text() const;

protected:
    struct Colors {
        QColor background, border, text;
    };

    // name: the object name the strip's style sheet addresses; icon: shown before the text (none
    // when empty).
    DismissibleStrip(const QString& name, const QString& icon, QWidget* parent);
    QLabel* label() const { return m_text; }
    // The strip's colours from the palette, now and on every theme change (colors may also redo
    // what depends on the palette, such as the colour of links in the text).
    void followColors(std::function<Colors(const Palette&)> colors);

private:
    QLabel* m_text;
};

} // namespace ks::ui
