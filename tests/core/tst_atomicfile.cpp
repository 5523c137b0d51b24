#include "core/io/bytesource.h"
#include "core/util/atomicfile.h"
#include "testfiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ks;
using namespace Qt::StringLiterals;

namespace {

using test::entriesOf;
using test::readAll;
using test::writeFile;

// Text that compresses like a trace but not trivially: repeated structure, varying numbers.
std::string sampleText(size_t bytes)
{
    std::mt19937 rng(7);
    std::string s;
    while (s.size() < bytes)
        s += "{\"ph\": \"X\", \"name\": \"aten::mm\", \"ts\": " + std::to_string(rng()) + ".123},\n";
    s.resize(bytes);
    return s;
}

// Reads a file back through the trace reader's byte source, which undoes gzip.
std::string readDecoded(const QString& path, bool& compressed)
{
    std::string err;
    auto src = openByteSource(path.toStdString(), err);
    if (!src) return "<" + err + ">";
    std::string out;
    char buf[65536];
    while (size_t n = src->read(buf, sizeof buf))
        out.append(buf, n);
    compressed = src->compressed();
    return out;
}

// Lowers the file size limit for this process so that writes fail with EFBIG, the same path as a
// full disk; works for root too, unlike permission bits.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_old);
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lim = m_old;
        lim.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &lim);
    }
    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_oldHandler);
    }

private:
    rlimit m_old{};
    void (*m_oldHandler)(int) = nullptr;
};

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    int m_case = 0;

    // A fresh empty directory per test.
    QString freshDir()
    {
        const QString d = m_tmp.filePath(QString::number(++m_case));
        QDir().mkpath(d);
        return d;
    }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void targetChangesOnlyAtCommit()
    {
        const QString dir = freshDir();
        const QString target = dir + u"/out.json"_s;
        writeFile(target, "old");
        AtomicFile f(target.toStdString());
        QVERIFY2(f.open(), f.error().c_str());
        QVERIFY(!f.compressed());
        const std::string text = sampleText(3 << 20); // several buffer flushes
        QVERIFY(f.write(text));
        // Written so far: all in the temporary file, beside the untouched target.
        QCOMPARE(readAll(target), QByteArray("old"));
        QCOMPARE(entriesOf(dir).size(), 2);
        QVERIFY(QFile::exists(QString::fromStdString(f.tempPath())));
        QVERIFY2(f.commit(), f.error().c_str());
        QCOMPARE(readAll(target), QByteArray::fromStdString(text));
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
        QCOMPARE(f.bytesIn(), uint64_t(text.size()));
        QCOMPARE(f.bytesOut(), uint64_t(text.size()));
    }

    void newFileGetsOrdinaryPermissions()
    {
        const QString dir = freshDir();
        const QString target = dir + u"/new.json"_s;
        const mode_t mask = ::umask(022);
        AtomicFile f(target.toStdString());
        QVERIFY(f.open() && f.write("{}") && f.commit());
        ::umask(mask);
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(target).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0644);
    }

    void replacedFileKeepsPermissions()
    {
        const QString dir = freshDir();
        const QString target = dir + u"/private.json"_s;
        writeFile(target, "old");
        QCOMPARE(::chmod(QFile::encodeName(target).constData(), 0600), 0);
        AtomicFile f(target.toStdString());
        QVERIFY(f.open() && f.write("new") && f.commit());
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(target).constData(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
        QCOMPARE(readAll(target), QByteArray("new"));
    }

    void symlinkIsWrittenThrough()
    {
        const QString dir = freshDir();
        QVERIFY(QDir().mkpath(dir + u"/real"_s));
        writeFile(dir + u"/real/trace.json"_s, "old");
        QVERIFY(QFile::link(dir + u"/real/trace.json"_s, dir + u"/link.json"_s));
        AtomicFile f(QString(dir + u"/link.json"_s).toStdString());
        QVERIFY(f.open() && f.write("new") && f.commit());
        QVERIFY(QFileInfo(dir + u"/link.json"_s).isSymLink());
        QCOMPARE(readAll(dir + u"/real/trace.json"_s), QByteArray("new"));
        QCOMPARE(entriesOf(dir + u"/real"_s), QStringList{u"trace.json"_s});
    }

    void destroyingWithoutCommitDiscards()
    {
        const QString dir = freshDir();
        const QString target = dir + u"/out.json"_s;
        writeFile(target, "old");
        {
            AtomicFile f(target.toStdString());
            QVERIFY(f.open());
            QVERIFY(f.write(sampleText(100000)));
        }
        QCOMPARE(readAll(target), QByteArray("old"));
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
        {
            AtomicFile f(target.toStdString());
            QVERIFY(f.open());
            QVERIFY(f.write("new"));
            f.discard();
            QVERIFY(!f.commit());
        }
        QCOMPARE(readAll(target), QByteArray("old"));
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
    }

    void gzipBySuffix()
    {
        const QString dir = freshDir();
        const QString target = dir + u"/out.json.gz"_s;
        const std::string text = sampleText(5 << 20);
        AtomicFile f(target.toStdString());
        QVERIFY(f.open());
        QVERIFY(f.compressed());
        QVERIFY(f.write(text));
        QVERIFY2(f.commit(), f.error().c_str());
        const QByteArray raw = readAll(target);
        QCOMPARE(uint64_t(raw.size()), f.bytesOut());
        QVERIFY(raw.size() < qsizetype(text.size()) / 2);
        bool compressed = false;
        QCOMPARE(readDecoded(target, compressed), text);
        QVERIFY(compressed);
        // One member: the header's flags and method are those of a plain deflate member, and the
        // trailer's ISIZE is the whole text's length (mod 2^32).
        QCOMPARE(uint8_t(raw[2]), uint8_t(8));
        const auto* tail = reinterpret_cast<const uint8_t*>(raw.constData() + raw.size() - 4);
        const uint32_t isize =
            uint32_t(tail[0]) | uint32_t(tail[1]) << 8 | uint32_t(tail[2]) << 16 | uint32_t(tail[3]) << 24;
        QCOMPARE(isize, uint32_t(text.size()));
    }

    void explicitCompressionOverridesSuffix()
    {
        const QString dir = freshDir();
        AtomicFile::Options o;
        o.compression = AtomicFile::Compression::None;
        AtomicFile plain(QString(dir + u"/a.gz"_s).toStdString(), o);
        QVERIFY(plain.open() && plain.write("{}") && plain.commit());
        QCOMPARE(readAll(dir + u"/a.gz"_s), QByteArray("{}"));
        o.compression = AtomicFile::Compression::Gzip;
        AtomicFile gz(QString(dir + u"/b.json"_s).toStdString(), o);
        QVERIFY(gz.open() && gz.write("{}") && gz.commit());
        bool compressed = false;
        QCOMPARE(readDecoded(dir + u"/b.json"_s, compressed), std::string("{}"));
        QVERIFY(compressed);
    }

    void missingDirectoryFails()
    {
        const QString target = m_tmp.filePath(u"does/not/exist.json"_s);
        AtomicFile f(target.toStdString());
        QVERIFY(!f.open());
        QVERIFY2(f.error().find("No such file or directory") != std::string::npos, f.error().c_str());
        QVERIFY(!f.write("x"));
        QVERIFY(!f.commit());
    }

    void targetThatIsADirectoryFails()
    {
        const QString dir = freshDir();
        QVERIFY(QDir().mkpath(dir + u"/sub"_s));
        AtomicFile f(QString(dir + u"/sub"_s).toStdString());
        QVERIFY(!f.open());
        QVERIFY(!f.error().empty());
        QCOMPARE(entriesOf(dir), QStringList{u"sub"_s});
    }

    void writeFailureKeepsTargetAndRemovesTemp_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << "out.json";
        QTest::newRow("gzip") << "out.json.gz";
    }

    void writeFailureKeepsTargetAndRemovesTemp()
    {
        QFETCH(QString, name);
        const QString dir = freshDir();
        const QString target = dir + u"/"_s + name;
        writeFile(target, "old");
        AtomicFile::Options o;
        o.gzipLevel = 1;
        AtomicFile f(target.toStdString(), o);
        QVERIFY(f.open());
        bool ok = true;
        {
            const FileSizeLimit limit(256 << 10);
            // Random bytes do not compress, so the gzip stream outgrows the limit as well.
            std::mt19937_64 rng(1);
            std::string chunk(1 << 20, '\0');
            for (char& c : chunk)
                c = char(rng());
            for (int i = 0; i < 4 && ok; ++i)
                ok = f.write(chunk);
            ok = ok && f.commit();
        }
        QVERIFY(!ok);
        QVERIFY2(f.error().find("File too large") != std::string::npos, f.error().c_str());
        QCOMPARE(readAll(target), QByteArray("old"));
        QCOMPARE(entriesOf(dir), QStringList{name});
    }

    void renameFailureRemovesTemp()
    {
        const QString dir = freshDir();
        const QString target = dir + u"/out.json"_s;
        AtomicFile f(target.toStdString());
        QVERIFY(f.open());
        QVERIFY(f.write("data"));
        // The target turns into a non-empty directory before commit: rename() must fail.
        QVERIFY(QDir().mkpath(target + u"/keep"_s));
        QVERIFY(!f.commit());
        QVERIFY2(f.error().find("cannot replace") != std::string::npos, f.error().c_str());
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
        QCOMPARE(entriesOf(target), QStringList{u"keep"_s});
    }

    void readOnlyDirectoryFails()
    {
        const QString dir = freshDir();
        writeFile(dir + u"/out.json"_s, "old");
        QVERIFY(test::setWritable(dir, false));
        if (test::readOnlyIgnored(dir)) {
            QSKIP("directory permissions do not apply to this user (root); the size-limit and rename cases "
                  "cover failures that do");
        }
        AtomicFile f(QString(dir + u"/out.json"_s).toStdString());
        const bool opened = f.open();
        test::setWritable(dir, true);
        QVERIFY(!opened);
        QVERIFY2(f.error().find("Permission denied") != std::string::npos, f.error().c_str());
        QCOMPARE(readAll(dir + u"/out.json"_s), QByteArray("old"));
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
    }

    // kill -9 during an export leaves the temporary file behind. The next write to that directory
    // removes such leftovers, but only ours (the name pattern, this user), only old ones, and only
    // when the pid the name records is gone.
    void staleTempFilesOfDeadWritersAreRemoved()
    {
        const QString dir = freshDir();
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        QVERIFY(child > 0);
        QCOMPARE(::waitpid(child, nullptr, 0), child);
        const QString dead = QString::number(child);
        const QString alive = QString::number(::getppid());
        auto make = [&](const QString& name, bool old) {
            writeFile(dir + u"/"_s + name, "partial");
            if (old) {
                const struct timespec times[2] = {{::time(nullptr) - 2 * 3600, 0},
                                                  {::time(nullptr) - 2 * 3600, 0}};
                QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(dir + u"/"_s + name).constData(), times, 0),
                         0);
            }
        };
        make(u".trace.json.ks-"_s + dead + u"-abcd1234.tmp"_s, true);    // removed
        make(u".other.json.gz.ks-"_s + dead + u"-zz99zz99.tmp"_s, true); // removed: any target in the dir
        make(u".recent.json.ks-"_s + dead + u"-abcd1234.tmp"_s, false);  // kept: may still be written
        make(u".live.json.ks-"_s + alive + u"-abcd1234.tmp"_s, true);    // kept: its writer runs
        make(u".foreign.json.abcd1234.tmp"_s, true);                     // kept: no pid, maybe not ours
        make(u".odd.json.ks-"_s + dead + u"-ABCD1234.tmp"_s, true);      // kept: not our random part
        make(u"visible.ks-"_s + dead + u"-abcd1234.tmp"_s, true);        // kept: not a hidden temp name
        QVERIFY(QDir().mkpath(dir + u"/.dir.json.ks-"_s + dead + u"-abcd1234.tmp"_s)); // kept: a directory

        AtomicFile f(QString(dir + u"/out.json"_s).toStdString());
        QVERIFY2(f.open(), f.error().c_str());
        // Our own temporary file records our pid, so others can tell whether we still run.
        QVERIFY2(f.tempPath().find(".out.json.ks-" + std::to_string(::getpid()) + "-") != std::string::npos,
                 f.tempPath().c_str());
        QVERIFY(f.write("new"));
        QVERIFY2(f.commit(), f.error().c_str());
        QStringList expected{
            u".dir.json.ks-"_s + dead + u"-abcd1234.tmp"_s,    u".foreign.json.abcd1234.tmp"_s,
            u".live.json.ks-"_s + alive + u"-abcd1234.tmp"_s,  u".odd.json.ks-"_s + dead + u"-ABCD1234.tmp"_s,
            u".recent.json.ks-"_s + dead + u"-abcd1234.tmp"_s, u"out.json"_s,
            u"visible.ks-"_s + dead + u"-abcd1234.tmp"_s};
        QStringList got = entriesOf(dir);
        got.sort();
        expected.sort();
        QCOMPARE(got, expected);
    }

    // A dead writer's leftover goes at the next write once it is a minute old, not an hour.
    void tempOfDeadWriterIsRemovedAfterAMinute()
    {
        const QString dir = freshDir();
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        QCOMPARE(::waitpid(child, nullptr, 0), child);
        const QString name = u".trace.json.ks-"_s + QString::number(child) + u"-abcd1234.tmp"_s;
        writeFile(dir + u"/"_s + name, "partial");
        const struct timespec times[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
        QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(dir + u"/"_s + name).constData(), times, 0), 0);
        QCOMPARE(AtomicFile::removeStaleTemps(dir.toStdString()), size_t(1));
        QVERIFY(entriesOf(dir).isEmpty());
    }

    // SIGTERM, SIGINT or SIGHUP in the middle of a write: the temporary file goes with the process,
    // which still dies by the signal.
    void signalRemovesOpenTemps_data()
    {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGHUP") << int(SIGHUP);
    }
    void signalRemovesOpenTemps()
    {
        QFETCH(int, sig);
        const QString dir = freshDir();
        int ready[2];
        QCOMPARE(::pipe(ready), 0);
        const pid_t child = ::fork();
        if (child == 0) {
            for (int s : {SIGINT, SIGTERM, SIGHUP})
                std::signal(s, SIG_DFL);
            AtomicFile::removeTempsOnSignals();
            AtomicFile a(QString(dir + u"/a.json"_s).toStdString());
            AtomicFile b(QString(dir + u"/b.json.gz"_s).toStdString());
            if (!a.open() || !b.open() || !a.write(std::string(3 << 20, 'x')) || !b.write("y")) ::_exit(3);
            if (::write(ready[1], "r", 1) != 1) ::_exit(4);
            for (;;)
                ::pause();
        }
        ::close(ready[1]);
        char c = 0;
        QCOMPARE(::read(ready[0], &c, 1), ssize_t(1));
        ::close(ready[0]);
        QCOMPARE(entriesOf(dir).size(), 2);
        QCOMPARE(::kill(child, sig), 0);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), sig);
        QCOMPARE(entriesOf(dir), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
