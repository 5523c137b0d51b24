#pragma once

#include <QStringList>

namespace ks::ui {

// Recently opened traces and the last session's open files, kept in QSettings.
namespace recentfiles {

constexpr int kMax = 12;

QStringList list();
void add(const QString& path);
void clear();

// Files open when the application last quit.
QStringList lastSession();
void saveSession(const QStringList& paths);

} // namespace recentfiles

} // namespace ks::ui
