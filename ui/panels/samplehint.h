#pragma once

#include "ui/panels/dismissiblestrip.h"

namespace ks::ui {

// A strip above the timeline while the bundled sample is shown, the first thing a new user sees:
// it says that this is a sample and what to do next, as links that the main window carries out.
class SampleHint : public DismissibleStrip {
    Q_OBJECT
public:
    explicit SampleHint(QWidget* parent = nullptr);

    // The bundled sample's path (set once at start-up by the application), and whether `path` is it.
    static void setSamplePath(const QString& path);
    static bool isSample(const QString& path);

signals:
    // "open", "launch" or "compare".
    void actionRequested(const QString& action);
};

} // namespace ks::ui
