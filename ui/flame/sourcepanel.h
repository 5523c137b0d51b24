#pragma once

#include "core/analysis/calltree/sourcelines.h"

#include <QString>
#include <QWidget>
#include <map>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ks::ui {

// A Python frame's source file beside the CPU time of the calls each line made (hotspot's source
// view): the frame's line selected, "Open in editor" in the context menu ($VISUAL or $EDITOR with
// +LINE, else the desktop's handler). A file that is not on this machine is said to be missing, with
// a path mapping (the trace's prefix → this machine's) to find it.
class SourcePanel : public QWidget {
    Q_OBJECT
public:
    explicit SourcePanel(QWidget* parent = nullptr);

    // lines: per line of file, the time of the calls made from it (lineTimes()).
    void showLocation(const SourceLocation& where, const std::map<int, TimeNs>& lines);
    // The line times of the shown location, when they come later (built off the GUI thread).
    void setLineTimes(const std::map<int, TimeNs>& lines);
    void clear();

    // The path the file was looked for at, after the mapping.
    QString resolvedPath() const { return m_path; }
    bool fileFound() const { return m_found; }
    QTableWidget* table() const { return m_table; }
    // The command line "Open in editor" runs (program first), or empty for the desktop's handler.
    QStringList editorCommand() const;

private:
    void load();
    void openInEditor();

    SourceLocation m_where;
    std::map<int, TimeNs> m_lines;
    QString m_path;
    bool m_found = false;
    QLabel* m_title = nullptr;
    QLabel* m_missing = nullptr;
    QLineEdit* m_from = nullptr;
    QLineEdit* m_to = nullptr;
    QWidget* m_mapping = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace ks::ui
