#pragma once

#include <QSize>
#include <QString>

namespace ks::app {

// Opens file in a main window of the given size, waits for the load, renders the window to a PNG
// and returns the exit code (0 written, 1 failed). Works on the offscreen platform.
int runScreenshot(const QString& file, const QString& out, QSize size);

} // namespace ks::app
