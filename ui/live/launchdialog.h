#pragma once

#include "core/live/livesession.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace ks::ui {

// Run > Launch: which interpreter runs which script with which arguments, where and with which
// environment, what to capture and (for torch.profiler windows) on which schedule. Every field is
// remembered for the next launch. Start is refused with a message in the dialog when the
// interpreter or the script cannot be found.
class LaunchDialog : public QDialog {
    Q_OBJECT
public:
    explicit LaunchDialog(QWidget* parent = nullptr);

    // The launch as entered (resources are filled in by the caller).
    live::LaunchRequest request() const;
    // Checks the fields; empty when the launch can go ahead.
    QString validate() const;

    void accept() override;

private:
    void load();
    void save() const;
    void updateModeWidgets();

    QLineEdit* m_interpreter;
    QLineEdit* m_script;
    QLineEdit* m_arguments;
    QLineEdit* m_workdir;
    QPlainTextEdit* m_env;
    QComboBox* m_mode;
    QCheckBox* m_cpu;
    QCheckBox* m_cuda;
    QCheckBox* m_xpu;
    QCheckBox* m_shapes;
    QCheckBox* m_memory;
    QCheckBox* m_stack;
    QSpinBox* m_wait;
    QSpinBox* m_warmup;
    QSpinBox* m_active;
    QSpinBox* m_repeat;
    QSpinBox* m_skipFirst;
    QWidget* m_scheduleRow;
    QLabel* m_message;
};

} // namespace ks::ui
