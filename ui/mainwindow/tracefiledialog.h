#pragma once

#include <QFileDialog>

namespace ks::ui {

// File > Open…: one dialog for everything Kinetoscope opens. Files as usual; and a folder that
// holds torch.profiler's *.pt.trace.json files (a TensorBoard log directory, down to three levels)
// or ranks' traces (a job) is opened when it is
// selected and Open is pressed, where a plain file dialog would only go into it. Double-clicking a
// folder still goes into it, to pick one file there.
class TraceFileDialog : public QFileDialog {
    Q_OBJECT
public:
    explicit TraceFileDialog(QWidget* parent = nullptr);

    // What to open once exec() returned Accepted: a file or a folder.
    QString chosenPath() const { return m_chosen; }

    // Whether Open on this folder opens it (it holds traces or is a job) instead of entering it.
    static bool opensAsFolder(const QString& dir);

public slots:
    void accept() override;

private:
    QString m_chosen;
};

} // namespace ks::ui
