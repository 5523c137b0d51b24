#pragma once

#include <QSize>
#include <QString>

namespace ks::app {

// Opens file in a main window of the given size, waits for the load, renders the window to a PNG
// and returns the exit code (0 written, 1 failed). Works on the offscreen platform. With compare,
// the file is compared with that trace and the compare window is rendered instead.
int runScreenshot(const QString& file, const QString& out, QSize size, const QString& compare = {});

} // namespace ks::app
