#pragma once

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace ks::ui {

// Edit > Preferences: colour scheme, time unit and row limit of the torch tables the viewer
// writes, device peaks for the Overview, where a file opened over an unsaved trace goes. OK stores them
// (Preferences, QSettings); Cancel drops them.
class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget* parent = nullptr);

    QComboBox* schemeBox() const { return m_scheme; }
    QComboBox* timeUnitBox() const { return m_timeUnit; }
    QSpinBox* rowLimitBox() const { return m_rowLimit; }
    QComboBox* devicePeakBox() const { return m_peak; }
    QComboBox* openOverBox() const { return m_openOver; }

    // Stores the dialog's values (what OK does).
    void apply();

private:
    void validatePeak();

    QComboBox* m_scheme;
    QComboBox* m_timeUnit;
    QSpinBox* m_rowLimit;
    QComboBox* m_peak;
    QLabel* m_peakStatus;
    QComboBox* m_openOver;
    QDialogButtonBox* m_buttons;
};

} // namespace ks::ui
