#pragma once

#include "ui/util/theme.h"

#include <QObject>
#include <QString>
#include <optional>

namespace ks {
struct DevicePeak;
}

namespace ks::ui {

// The user's settings from Edit > Preferences, kept in QSettings ("preferences/..."): the colour
// scheme, the time unit and row limit of the torch tables the viewer writes (copy, export), and the
// device peaks the Overview rates kernels against. Loaded once per process; the scheme is applied to
// the Theme on load and whenever it changes.
class Preferences : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultRowLimit = 100; // torch's table(row_limit=100) default

    static Preferences& instance();

    Theme::Scheme scheme() const { return m_scheme; }
    // "" (each column picks its unit, as torch does), "s", "ms" or "us".
    QString timeUnit() const { return m_timeUnit; }
    // Rows of exported torch tables and text reports; -1 for all.
    int rowLimit() const { return m_rowLimit; }
    // `--device-peak` text: a table name ("H100") or "bf16=..,fp32=..,tbps=.."; empty: the trace's
    // device from the built-in table.
    QString devicePeakText() const { return m_devicePeak; }
    // The parsed override, or nothing (empty or invalid text).
    std::optional<DevicePeak> devicePeak() const;
    // Checks devicePeak text; empty is valid. A one-line reason otherwise.
    static bool checkDevicePeak(const QString& text, QString* why = nullptr);
    // Where a file goes when the window already shows a trace that cannot simply be opened again
    // (unsaved, or its file is gone): "ask" (the default), "here" or "new".
    QString openOver() const { return m_openOver; }

    void setScheme(Theme::Scheme scheme);
    void setTimeUnit(const QString& unit);
    void setRowLimit(int rows);
    void setDevicePeakText(const QString& text);
    void setOpenOver(const QString& where);

    // Reads the stored values again (tests; another window's dialog wrote them).
    void reload();

signals:
    void changed();

private:
    Preferences();
    void store(const QString& key, const QVariant& value);

    Theme::Scheme m_scheme = Theme::Scheme::System;
    QString m_timeUnit;
    int m_rowLimit = kDefaultRowLimit;
    QString m_devicePeak;
    QString m_openOver = QStringLiteral("ask");
};

} // namespace ks::ui
