#include "ui/mainwindow/recentfiles.h"

#include <QCoreApplication>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ks::ui;

class TestRecentFiles : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_recentfiles"));
        recentfiles::clear();
        recentfiles::saveSession({});
    }

    void mostRecentFirstWithoutDuplicatesOrMissingFiles()
    {
        QTemporaryDir dir;
        QStringList files;
        for (int i = 0; i < recentfiles::kMax + 3; ++i) {
            const QString f = dir.filePath(QStringLiteral("t%1.json").arg(i));
            QFile file(f);
            QVERIFY(file.open(QIODevice::WriteOnly));
            files << f;
            recentfiles::add(f);
        }
        recentfiles::add(files[recentfiles::kMax + 1]); // again: moves to the front, no duplicate
        const QStringList list = recentfiles::list();
        QCOMPARE(list.size(), recentfiles::kMax);
        QCOMPARE(list.first(), files[recentfiles::kMax + 1]);
        QCOMPARE(list.count(files[recentfiles::kMax + 1]), 1);
        QVERIFY(!list.contains(files[0])); // pushed out
        QFile::remove(files[recentfiles::kMax + 2]);
        QVERIFY(!recentfiles::list().contains(files[recentfiles::kMax + 2])); // deleted files drop out
    }

    void sessionRoundTrip()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("a.json")), b = dir.filePath(QStringLiteral("b.json"));
        for (const QString& f : {a, b}) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        recentfiles::saveSession({a, b, dir.filePath(QStringLiteral("gone.json"))});
        QCOMPARE(recentfiles::lastSession(), (QStringList{a, b}));
    }
};

QTEST_GUILESS_MAIN(TestRecentFiles)
#include "tst_recentfiles.moc"
