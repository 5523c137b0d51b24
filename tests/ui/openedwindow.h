#pragma once

// A main window with one of the shared traces open, for tests of its panels.

#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"

#include <QSignalSpy>
#include <memory>

namespace ks::test {

struct OpenedWindow {
    std::unique_ptr<ui::MainWindow> window;
    std::shared_ptr<const ui::TraceDocument> doc; // null when loading or `ready` timed out
};

// Opens KS_SHARED_TRACES/name in a new window and waits until it is loaded and `ready` (a signal of
// an object the window owns, found by `sender`, e.g. a panel's "computed" signal) has fired once.
template <typename Object, typename Signal>
OpenedWindow openSharedTrace(const char* name, Object* (ui::MainWindow::*sender)() const, Signal ready)
{
    OpenedWindow o;
    o.window = std::make_unique<ui::MainWindow>();
    o.window->setInteractive(false);
    o.window->setSessionTracking(false);
    o.window->resize(1400, 900);
    o.window->show();
    QSignalSpy loaded(o.window.get(), &ui::MainWindow::documentLoaded);
    QSignalSpy done((o.window.get()->*sender)(), ready);
    o.window->openPath(sharedTracePath(name), false);
    if (!loaded.wait(60000)) return o;
    if (done.isEmpty() && !done.wait(60000)) return o;
    o.doc = o.window->document();
    return o;
}

} // namespace ks::test
