#include "ui/mainwindow/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

namespace ks::ui::recentfiles {

QStringList list()
{
    QStringList out;
    for (const QString& p : QSettings().value(QStringLiteral("recentFiles")).toStringList())
        if (QFileInfo::exists(p)) out << p;
    return out;
}

void add(const QString& path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList files = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMax)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
}

void clear()
{
    QSettings().remove(QStringLiteral("recentFiles"));
}

QStringList lastSession()
{
    QStringList out;
    for (const QString& p : QSettings().value(QStringLiteral("session/files")).toStringList())
        if (QFileInfo::exists(p)) out << p;
    return out;
}

void saveSession(const QStringList& paths)
{
    QSettings().setValue(QStringLiteral("session/files"), paths);
}

} // namespace ks::ui::recentfiles
