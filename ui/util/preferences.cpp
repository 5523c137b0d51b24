#include "ui/util/preferences.h"

#include "core/analysis/overview/devicepeaks.h"
#include "ui/util/format.h"

#include <QSettings>

namespace ks::ui {

namespace {

const QString kScheme = QStringLiteral("preferences/scheme");
const QString kTimeUnit = QStringLiteral("preferences/timeUnit");
const QString kRowLimit = QStringLiteral("preferences/rowLimit");
const QString kDevicePeak = QStringLiteral("preferences/devicePeak");
const QString kOpenOver = QStringLiteral("preferences/openOver");

QString schemeName(Theme::Scheme s)
{
    switch (s) {
    case Theme::Scheme::Light:
        return QStringLiteral("light");
    case Theme::Scheme::Dark:
        return QStringLiteral("dark");
    case Theme::Scheme::System:
        break;
    }
    return QStringLiteral("system");
}

Theme::Scheme schemeFrom(const QString& name)
{
    if (name == QLatin1String("light")) return Theme::Scheme::Light;
    if (name == QLatin1String("dark")) return Theme::Scheme::Dark;
    return Theme::Scheme::System;
}

bool validOpenOver(const QString& w)
{
    return w == QLatin1String("ask") || w == QLatin1String("here") || w == QLatin1String("new");
}

bool validUnit(const QString& u)
{
    return u.isEmpty() || u == QLatin1String("s") || u == QLatin1String("ms") || u == QLatin1String("us");
}

} // namespace

Preferences& Preferences::instance()
{
    static Preferences* p = new Preferences; // lives as long as the process, like the Theme
    return *p;
}

Preferences::Preferences()
{
    reload();
}

void Preferences::reload()
{
    QSettings s;
    m_scheme = schemeFrom(s.value(kScheme).toString());
    const QString unit = s.value(kTimeUnit).toString();
    m_timeUnit = validUnit(unit) ? unit : QString();
    setDurationUnit(m_timeUnit);
    bool ok = false;
    const int rows = s.value(kRowLimit, kDefaultRowLimit).toInt(&ok);
    m_rowLimit = ok && rows >= -1 && rows != 0 ? rows : kDefaultRowLimit;
    const QString peak = s.value(kDevicePeak).toString();
    m_devicePeak = checkDevicePeak(peak) ? peak : QString();
    const QString over = s.value(kOpenOver).toString();
    m_openOver = validOpenOver(over) ? over : QStringLiteral("ask");
    Theme::instance().setScheme(m_scheme);
    emit changed();
}

std::optional<DevicePeak> Preferences::devicePeak() const
{
    if (m_devicePeak.isEmpty()) return std::nullopt;
    DevicePeak p;
    std::string why;
    if (!applyDevicePeakOverride(m_devicePeak.toStdString(), p, why)) return std::nullopt;
    return p;
}

bool Preferences::checkDevicePeak(const QString& text, QString* why)
{
    if (text.trimmed().isEmpty()) return true;
    DevicePeak p;
    std::string reason;
    if (!applyDevicePeakOverride(text.trimmed().toStdString(), p, reason)) {
        if (why) *why = QString::fromStdString(reason);
        return false;
    }
    if (!p.valid()) {
        if (why) *why = QStringLiteral("needs at least bf16=TFLOPS and tbps=TB/s (or a device name)");
        return false;
    }
    return true;
}

void Preferences::store(const QString& key, const QVariant& value)
{
    QSettings().setValue(key, value);
    emit changed();
}

void Preferences::setScheme(Theme::Scheme scheme)
{
    m_scheme = scheme;
    Theme::instance().setScheme(scheme);
    store(kScheme, schemeName(scheme));
}

void Preferences::setTimeUnit(const QString& unit)
{
    if (!validUnit(unit)) return;
    m_timeUnit = unit;
    setDurationUnit(unit);
    store(kTimeUnit, unit);
}

void Preferences::setRowLimit(int rows)
{
    if (rows == 0 || rows < -1) return;
    m_rowLimit = rows;
    store(kRowLimit, rows);
}

void Preferences::setDevicePeakText(const QString& text)
{
    if (!checkDevicePeak(text)) return;
    m_devicePeak = text.trimmed();
    store(kDevicePeak, m_devicePeak);
}

void Preferences::setOpenOver(const QString& where)
{
    if (!validOpenOver(where)) return;
    m_openOver = where;
    store(kOpenOver, where);
}

} // namespace ks::ui
