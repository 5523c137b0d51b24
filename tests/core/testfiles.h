#pragma once

// File helpers shared by the tests of atomic writes: what a file holds, what a directory holds
// (temporary files included), and whether a read-only directory really refuses this user.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks::test {

inline QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

// Everything in a directory except "." and "..", hidden files included (temporary files are).
inline QStringList entriesOf(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

inline bool setWritable(const QString& dir, bool writable)
{
    return ::chmod(QFile::encodeName(dir).constData(), writable ? 0755 : 0555) == 0;
}

// True when this user can still create a file in dir after setWritable(dir, false) (root can); the
// directory is made writable again then, and the test has nothing to check.
inline bool readOnlyIgnored(const QString& dir)
{
    const QByteArray probe = QFile::encodeName(dir + QStringLiteral("/probe"));
    const int fd = ::open(probe.constData(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return false;
    ::close(fd);
    ::unlink(probe.constData());
    setWritable(dir, true);
    return true;
}

} // namespace ks::test
