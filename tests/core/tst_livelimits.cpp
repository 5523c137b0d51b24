// LiveSession at the limits of its environment: accept() out of file descriptors (EMFILE) must
// not spin, a private socket directory taken over by someone else must not block sessions, and
// what sessions killed with SIGKILL left behind is cleaned up.

#include "core/live/endpoint.h"
#include "core/live/frames.h"
#include "core/live/livesession.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ks;
using namespace ks::live;

namespace {

bool sendAll(int fd, const std::string& bytes)
{
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return false;
        off += size_t(n);
    }
    return true;
}

int countLines(const std::vector<OutputLine>& lines, const QString& text)
{
    int n = 0;
    for (const OutputLine& l : lines)
        n += QString::fromStdString(l.text).contains(text);
    return n;
}

// Holds descriptors until the process has none left, and gives them (and the old limit) back.
struct FdExhaustion {
    rlimit old{};
    std::vector<int> fds;
    FdExhaustion() { ::getrlimit(RLIMIT_NOFILE, &old); }
    void exhaust(rlim_t limit)
    {
        rlimit r = old;
        r.rlim_cur = std::min<rlim_t>(limit, old.rlim_cur);
        ::setrlimit(RLIMIT_NOFILE, &r);
        while (true) {
            const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd < 0) break;
            fds.push_back(fd);
        }
    }
    void release(size_t n)
    {
        for (size_t i = 0; i < n && !fds.empty(); ++i) {
            ::close(fds.back());
            fds.pop_back();
        }
    }
    ~FdExhaustion()
    {
        release(fds.size());
        ::setrlimit(RLIMIT_NOFILE, &old);
    }
};

pid_t deadPid()
{
    const pid_t p = ::fork();
    if (p == 0) ::_exit(0);
    ::waitpid(p, nullptr, 0);
    return p;
}

// A socket file left behind, as by a process killed before it could unlink it.
void leaveSocket(const std::string& path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::close(fd);
}

// Points the private socket directory at a test directory for the duration of a test.
struct TmpDirEnv {
    QTemporaryDir tmp;
    QByteArray oldTmp = qgetenv("TMPDIR"), oldXdg = qgetenv("XDG_RUNTIME_DIR");
    bool hadTmp = qEnvironmentVariableIsSet("TMPDIR"), hadXdg = qEnvironmentVariableIsSet("XDG_RUNTIME_DIR");
    TmpDirEnv()
    {
        qputenv("TMPDIR", tmp.path().toUtf8());
        qunsetenv("XDG_RUNTIME_DIR");
    }
    ~TmpDirEnv()
    {
        hadTmp ? qputenv("TMPDIR", oldTmp) : qunsetenv("TMPDIR");
        if (hadXdg) qputenv("XDG_RUNTIME_DIR", oldXdg);
    }
    std::string usual() const
    {
        return tmp.path().toStdString() + "/kinetoscope-" + std::to_string(::getuid());
    }
};

} // namespace

class TestLiveLimits : public QObject {
    Q_OBJECT
private slots:
    void acceptOutOfDescriptorsBacksOff()
    {
        Trace trace;
        LiveSession session(trace);
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        const int existing = connectUnix(session.endpoint(), error);
        QVERIFY2(existing >= 0, error.c_str());
        std::string b;
        HelloFrame h;
        h.pid = uint32_t(::getpid());
        h.program = "existing";
        encodeHello(b, h);
        QVERIFY(sendAll(existing, b));
        QTRY_VERIFY_WITH_TIMEOUT(session.status().helloSeen, 10000);

        // Declared after the session: gives the descriptors back before the session is destroyed.
        FdExhaustion fds;
        fds.exhaust(1024);
        QVERIFY(!fds.fds.empty());
        fds.release(1);
        // Takes the last descriptor; the connection waits in the listening socket's backlog, where
        // accept() now fails with EMFILE.
        const int waiting = connectUnix(session.endpoint(), error);
        QVERIFY2(waiting >= 0, error.c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(500));

        // The existing connection is still served...
        LogFrame l;
        l.text = "still served";
        b.clear();
        encodeLog(b, l);
        QVERIFY(sendAll(existing, b));
        // Counted as it comes (a spinning session would print millions of lines).
        int served = 0, failures = 0, summaries = 0;
        auto poll = [&] {
            const std::vector<OutputLine> lines = session.takeOutput();
            served += countLines(lines, QStringLiteral("still served"));
            failures += countLines(lines, QStringLiteral("Too many open files"));
            summaries += countLines(lines, QStringLiteral("in all"));
        };
        QTRY_VERIFY_WITH_TIMEOUT((poll(), served == 1), 5000);
        // ...and the failure is logged once, not once per retry.
        QCOMPARE(failures, 1);

        // Once descriptors are free the waiting connection is taken, and the count is reported.
        fds.release(8);
        QTRY_COMPARE_WITH_TIMEOUT(session.status().connections, size_t(2), 5000);
        QTRY_VERIFY_WITH_TIMEOUT((poll(), summaries == 1), 5000);
        QCOMPARE(failures, 2); // the first line and the summary
        session.stop();
        QVERIFY(session.waitFinished(5000));
        ::close(waiting);
        ::close(existing);
    }

    void aForeignSocketDirectoryIsReplaced()
    {
        TmpDirEnv env;
        const std::string usual = env.usual();
        // Someone else's directory where ours goes (as root here: chown it to nobody), open to all.
        QCOMPARE(::mkdir(usual.c_str(), 0777), 0);
        ::chmod(usual.c_str(), 0777);
        if (::getuid() == 0) {
            QCOMPARE(::chown(usual.c_str(), 65534, 65534), 0);
        } else {
            // Not root: a symlink stands in for the foreign directory.
            QCOMPARE(::rmdir(usual.c_str()), 0);
            QCOMPARE(::symlink(env.tmp.path().toUtf8().constData(), usual.c_str()), 0);
        }
        Trace trace;
        LiveSession session(trace);
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        const std::string endpoint = session.endpoint();
        QVERIFY2(endpoint.rfind(usual + "-", 0) == 0, endpoint.c_str());
        const std::string dir = endpoint.substr(0, endpoint.rfind('/'));
        struct stat st;
        QCOMPARE(::lstat(dir.c_str(), &st), 0);
        QVERIFY(S_ISDIR(st.st_mode));
        QCOMPARE(st.st_uid, ::getuid());
        QCOMPARE(int(st.st_mode & 0777), 0700);
        QCOMPARE(countLines(session.takeOutput(), QStringLiteral("instead")), 1);
        session.stop();
        QVERIFY(session.waitFinished(5000));
        ::rmdir(usual.c_str());
        ::unlink(usual.c_str());
    }

    void aSymlinkedSocketDirectoryIsReplaced()
    {
        TmpDirEnv env;
        const std::string usual = env.usual();
        QTemporaryDir target;
        QCOMPARE(::symlink(target.path().toUtf8().constData(), usual.c_str()), 0);
        Trace trace;
        LiveSession session(trace);
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        const std::string endpoint = session.endpoint();
        const std::string dir = endpoint.substr(0, endpoint.rfind('/'));
        QVERIFY(dir != usual);
        QVERIFY(dir.rfind(usual + "-", 0) == 0);
        QCOMPARE(countLines(session.takeOutput(), QStringLiteral("instead")), 1);
        struct stat st;
        QCOMPARE(::lstat(dir.c_str(), &st), 0);
        QVERIFY(S_ISDIR(st.st_mode));
        // Nothing went where the symlink points.
        QCOMPARE(QDir(target.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size(), 0);
        session.stop();
        QVERIFY(session.waitFinished(5000));
        ::unlink(usual.c_str());
    }

    void leftoversOfKilledSessionsAreRemoved()
    {
        TmpDirEnv env;
        std::string error;
        const std::string dir = privateSocketDir(error);
        QVERIFY2(dir == env.usual(), error.c_str());
        const std::string dead = std::to_string(deadPid()), alive = std::to_string(::getpid());
        leaveSocket(dir + "/session-" + dead + "-0.sock");
        leaveSocket(dir + "/session-" + alive + "-99.sock");
        QCOMPARE(::mkdir((dir + "/windows-" + dead + "-abcdef").c_str(), 0700), 0);
        {
            std::ofstream(dir + "/windows-" + dead + "-abcdef/w.json") << "{}";
        }
        QCOMPARE(::mkdir((dir + "/windows-" + alive + "-ghijkl").c_str(), 0700), 0);
        // Not ours to judge: a regular file with a socket's name.
        {
            std::ofstream(dir + "/notes-" + dead + "-1.sock") << "x";
        }

        Trace trace;
        LiveSession session(trace);
        QVERIFY2(session.listen(error), error.c_str());
        auto exists = [&](const std::string& name) {
            return QFileInfo::exists(QString::fromStdString(dir + "/" + name));
        };
        QVERIFY(!exists("session-" + dead + "-0.sock"));
        QVERIFY(!exists("windows-" + dead + "-abcdef"));
        QVERIFY(exists("session-" + alive + "-99.sock"));
        QVERIFY(exists("windows-" + alive + "-ghijkl"));
        QVERIFY(exists("notes-" + dead + "-1.sock"));
        session.stop();
        QVERIFY(session.waitFinished(5000));
    }
};

QTEST_GUILESS_MAIN(TestLiveLimits)
#include "tst_livelimits.moc"
