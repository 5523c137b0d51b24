#include "ui/mainwindow/preferencesdialog.h"

#include "core/analysis/overview/devicepeaks.h"
#include "ui/util/preferences.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ks::ui {

PreferencesDialog::PreferencesDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(QStringLiteral("Preferences"));
    const Preferences& prefs = Preferences::instance();
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);

    m_scheme = new QComboBox(this);
    m_scheme->addItem(QStringLiteral("Follow the system"), int(Theme::Scheme::System));
    m_scheme->addItem(QStringLiteral("Light"), int(Theme::Scheme::Light));
    m_scheme->addItem(QStringLiteral("Dark"), int(Theme::Scheme::Dark));
    m_scheme->setCurrentIndex(m_scheme->findData(int(prefs.scheme())));
    m_scheme->setToolTip(QStringLiteral("The system's scheme is read from the desktop's palette at start "
                                        "and followed when the desktop changes it"));
    form->addRow(QStringLiteral("&Colors:"), m_scheme);

    m_timeUnit = new QComboBox(this);
    m_timeUnit->addItem(QStringLiteral("Automatic (per value, as torch)"), QString());
    m_timeUnit->addItem(QStringLiteral("Seconds (s)"), QStringLiteral("s"));
    m_timeUnit->addItem(QStringLiteral("Milliseconds (ms)"), QStringLiteral("ms"));
    m_timeUnit->addItem(QStringLiteral("Microseconds (us)"), QStringLiteral("us"));
    m_timeUnit->setCurrentIndex(std::max(0, m_timeUnit->findData(prefs.timeUnit())));
    m_timeUnit->setToolTip(QStringLiteral("The unit of every duration on screen (tables, details, tooltips) "
                                          "and in the torch tables the viewer writes (Copy table, File > "
                                          "Export), like table(time_unit=...)"));
    form->addRow(QStringLiteral("&Time unit:"), m_timeUnit);

    m_rowLimit = new QSpinBox(this);
    m_rowLimit->setRange(-1, 1000000);
    m_rowLimit->setSpecialValueText(QStringLiteral("All rows"));
    m_rowLimit->setValue(prefs.rowLimit());
    m_rowLimit->setToolTip(QStringLiteral("Rows of the exported torch table and text reports, like "
                                          "table(row_limit=...); -1 or \"All rows\" for every row"));
    form->addRow(QStringLiteral("Exported table &rows:"), m_rowLimit);

    m_peak = new QComboBox(this);
    m_peak->setEditable(true);
    m_peak->setInsertPolicy(QComboBox::NoInsert);
    m_peak->addItem(QString());
    for (const DevicePeak& p : knownDevicePeaks())
        m_peak->addItem(QString::fromStdString(p.name));
    m_peak->lineEdit()->setPlaceholderText(QStringLiteral("From the trace's device (built-in table)"));
    m_peak->setEditText(prefs.devicePeakText());
    m_peak->setToolTip(QStringLiteral(
        "Peak throughput for the Overview's % of peak and roofline, as analyze --device-peak: a device "
        "name from the list, or bf16=TFLOPS,fp32=TFLOPS,tbps=TB/s[,fp8=,tf32=]. Empty: the trace's "
        "deviceProperties name looked up in the built-in table"));
    form->addRow(QStringLiteral("Device &peaks:"), m_peak);
    m_peak->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_peak->setMinimumContentsLength(28);
    m_peakStatus = new QLabel(this);
    m_peakStatus->setWordWrap(true);
    m_peakStatus->setMinimumWidth(320);
    m_peakStatus->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    form->addRow(QString(), m_peakStatus);

    m_openOver = new QComboBox(this);
    m_openOver->addItem(QStringLiteral("Ask"), QStringLiteral("ask"));
    m_openOver->addItem(QStringLiteral("Open here"), QStringLiteral("here"));
    m_openOver->addItem(QStringLiteral("Open in a new window"), QStringLiteral("new"));
    m_openOver->setCurrentIndex(std::max(0, m_openOver->findData(prefs.openOver())));
    m_openOver->setToolTip(QStringLiteral(
        "When a file is opened in a window whose trace cannot simply be opened again (a recording not "
        "saved, a file since removed). Over a trace that is still on disk, files always open here"));
    form->addRow(QStringLiteral("Opening over an &unsaved trace:"), m_openOver);
    layout->addLayout(form);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        apply();
        accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_peak, &QComboBox::editTextChanged, this, &PreferencesDialog::validatePeak);
    validatePeak();
    setMinimumWidth(520);
}

void PreferencesDialog::validatePeak()
{
    QString why;
    const bool ok = Preferences::checkDevicePeak(m_peak->currentText(), &why);
    const Palette& p = Theme::palette();
    if (ok) {
        m_peakStatus->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                                  .arg(p.hintText.name(), m_peak->currentText().trimmed().isEmpty()
                                                              ? QStringLiteral("Using the trace's device.")
                                                              : QStringLiteral("Valid.")));
    } else {
        m_peakStatus->setText(
            QStringLiteral("<span style='color:%1'>%2</span><br><span style='color:%3'>A "
                           "name from the list, or bf16=TFLOPS,fp32=TFLOPS,tbps=TB/s</span>")
                .arg(p.error.name(), why.toHtmlEscaped(), p.hintText.name()));
    }
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

void PreferencesDialog::apply()
{
    Preferences& prefs = Preferences::instance();
    prefs.setScheme(Theme::Scheme(m_scheme->currentData().toInt()));
    prefs.setTimeUnit(m_timeUnit->currentData().toString());
    prefs.setRowLimit(m_rowLimit->value() == 0 ? Preferences::kDefaultRowLimit : m_rowLimit->value());
    if (Preferences::checkDevicePeak(m_peak->currentText())) prefs.setDevicePeakText(m_peak->currentText());
    prefs.setOpenOver(m_openOver->currentData().toString());
}

} // namespace ks::ui
