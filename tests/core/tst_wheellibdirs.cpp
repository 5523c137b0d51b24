// Where the collectors look for the libraries a pip torch brings in NVIDIA's wheels
// (core/collect/wheellibdirs.h): the site-packages of the Python running in the process first, then
// the environment's, the user's and the system's; each wheel layout of CUDA 13 and 12.

#include "core/collect/wheellibdirs.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <map>

using namespace ks::collect;

namespace {

struct FakeSystem {
    std::map<std::string, std::string> env;
    std::map<std::string, std::vector<std::string>> globs;

    WheelSearchInputs inputs(std::vector<std::string> mapped) const
    {
        WheelSearchInputs in;
        in.mapped = std::move(mapped);
        in.env = [this](const char* name) -> const char* {
            auto it = env.find(name);
            return it == env.end() ? nullptr : it->second.c_str();
        };
        in.expand = [this](const std::string& pattern) {
            auto it = globs.find(pattern);
            return it == globs.end() ? std::vector<std::string>{} : it->second;
        };
        return in;
    }
};

using Strings = std::vector<std::string>;

} // namespace

class TestWheelLibDirs : public QObject {
    Q_OBJECT
private slots:
    void mappedFilesNameTheRunningPython()
    {
        const FakeSystem sys;
        const SitePackagesRoots r = sitePackagesRoots(sys.inputs({
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/lib/libc10.so",
            "/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.so",
            "/home/u/site-packages-old/lib/x.so", // no "/site-packages/" component
        }));
        QCOMPARE(r.running, (Strings{"/opt/torch/.venv/lib/python3.12/site-packages",
                                     "/usr/lib/python3/dist-packages"}));
        QVERIFY(r.environment.empty());
    }

    void environmentUserAndSystemFollowInOrder()
    {
        FakeSystem sys;
        sys.env = {{"VIRTUAL_ENV", "/work/venv"},
                   {"CONDA_PREFIX", "/opt/conda"},
                   {"PYTHONPATH", "/tmp/site::relative/dir:/work/venv/lib/python3.12/site-packages/"},
                   {"HOME", "/home/u"}};
        sys.globs = {
            {"/work/venv/lib/python3*/site-packages", {"/work/venv/lib/python3.12/site-packages"}},
            {"/opt/conda/lib/python3*/site-packages", {"/opt/conda/lib/python3.11/site-packages"}},
            {"/home/u/.local/lib/python3*/site-packages", {"/home/u/.local/lib/python3.12/site-packages"}},
            {"/usr/local/lib/python3*/dist-packages", {"/usr/local/lib/python3.11/dist-packages"}},
            {"/usr/lib/python3/dist-packages", {"/usr/lib/python3/dist-packages"}},
        };
        const SitePackagesRoots r =
            sitePackagesRoots(sys.inputs({"/usr/lib/python3/dist-packages/torch/lib/x.so"}));
        QCOMPARE(r.running, (Strings{"/usr/lib/python3/dist-packages"}));
        // Each once (the trailing slash and the mapped root do not repeat); relative PYTHONPATH
        // entries are skipped (they depend on the program's working directory).
        QCOMPARE(r.environment, (Strings{
                                    "/work/venv/lib/python3.12/site-packages",
                                    "/opt/conda/lib/python3.11/site-packages",
                                    "/tmp/site",
                                    "/home/u/.local/lib/python3.12/site-packages",
                                    "/usr/local/lib/python3.11/dist-packages",
                                }));
    }

    void noEnvironmentAtAll()
    {
        WheelSearchInputs in;
        in.mapped = {"/a/site-packages/b.so"};
        const SitePackagesRoots r = sitePackagesRoots(in);
        QCOMPARE(r.running, (Strings{"/a/site-packages"}));
        QVERIFY(r.environment.empty());
    }

    void cuda13FolderBeforeCuda12Folder()
    {
        QCOMPARE(wheelLibraryDirs({"/v/site-packages", "/w/dist-packages"}, "cuda_cupti"),
                 (Strings{"/v/site-packages/nvidia/cu13/lib", "/v/site-packages/nvidia/cuda_cupti/lib",
                          "/w/dist-packages/nvidia/cu13/lib", "/w/dist-packages/nvidia/cuda_cupti/lib"}));
    }

    // The process's own inputs: this test runs in no Python, so nothing mapped is in a
    // site-packages, and glob finds only folders that exist.
    void processInputsAreReal()
    {
        const WheelSearchInputs in = processWheelSearchInputs();
        QVERIFY(!in.mapped.empty());
        QVERIFY(in.env);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string root = tmp.path().toStdString();
        for (const char* v : {"python3.9", "python3.12", "python3.11"})
            QVERIFY(QDir().mkpath(QString::fromStdString(root + "/lib/" + v + "/site-packages")));
        // Newest Python first, by version rather than by letter (3.12 before 3.9).
        QCOMPARE(in.expand(root + "/lib/python3*/site-packages"),
                 (Strings{root + "/lib/python3.12/site-packages", root + "/lib/python3.11/site-packages",
                          root + "/lib/python3.9/site-packages"}));
        QVERIFY(in.expand(root + "/nothing*").empty());
    }
};

QTEST_GUILESS_MAIN(TestWheelLibDirs)
#include "tst_wheellibdirs.moc"
