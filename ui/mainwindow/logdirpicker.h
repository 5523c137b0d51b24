#pragma once

#include "core/io/logdir.h"

#include <QDialog>
#include <vector>

class QTableView;

namespace ks::ui {

class LogdirModel;

// Lets the user pick one trace (run / worker / span) of a TensorBoard log directory.
class LogdirPicker : public QDialog {
    Q_OBJECT
public:
    LogdirPicker(const QString& dir, std::vector<LogdirEntry> entries, QWidget* parent = nullptr);
    QString selectedPath() const;

private:
    LogdirModel* m_model;
    QTableView* m_table;
};

} // namespace ks::ui
