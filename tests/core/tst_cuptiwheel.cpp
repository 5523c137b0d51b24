// The CUPTI a pip torch brings, in its own wheel under site-packages, is found and preferred: a
// fake Python environment holds a copy of this machine's libcupti where the CUDA 13 wheel puts it
// (nvidia/cu13/lib) and a library where torch's live (torch/lib); once that library is mapped,
// CuptiLibrary::load opens the copy, not the toolkit's libcupti on the loader's path. One load per
// process (a libcupti once mapped is reused), hence a test program of its own.

#include "core/collect/cuptilibrary.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <dlfcn.h>

using namespace ks::collect;

class TestCuptiWheel : public QObject {
    Q_OBJECT
private slots:
#if !defined(KS_WITH_CUPTI) || !defined(KS_CUPTI_LIBRARY_DIR)
    void initTestCase()
    {
        QSKIP("built without CUPTI (no CUDA toolkit at configure time)");
    }
#else
    void runningPythonsWheelComesFirst()
    {
        unsetenv("KINETOSCOPE_CUPTI_LIBRARY");
        QString real;
        for (const char* name : {"/libcupti.so.13", "/libcupti.so.12", "/libcupti.so"}) {
            const QFileInfo fi(QStringLiteral(KS_CUPTI_LIBRARY_DIR) + QLatin1String(name));
            if (fi.exists()) {
                real = fi.canonicalFilePath();
                break;
            }
        }
        QVERIFY2(!real.isEmpty(), KS_CUPTI_LIBRARY_DIR);

        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString site = tmp.path() + QStringLiteral("/venv/lib/python3.12/site-packages");
        QVERIFY(QDir().mkpath(site + QStringLiteral("/nvidia/cu13/lib")));
        QVERIFY(QDir().mkpath(site + QStringLiteral("/torch/lib")));
        const QString wheelCupti = site + QStringLiteral("/nvidia/cu13/lib/libcupti.so.13");
        QVERIFY(QFile::copy(real, wheelCupti));
        const QString torchLib = site + QStringLiteral("/torch/lib/libtorch_cuda.so");
        QVERIFY(QFile::copy(QStringLiteral(KS_WHEEL_STUB), torchLib));

        // "import torch": its library, mapped from that site-packages, shows where the wheels are.
        void* stub = dlopen(QFile::encodeName(torchLib).constData(), RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(stub, dlerror());

        std::string why;
        auto lib = CuptiLibrary::load(why);
        QVERIFY2(lib, why.c_str());
        QCOMPARE(QString::fromStdString(lib->path()), wheelCupti);
        QVERIFY(lib->version() >= 120000);

        // A second load reuses the mapped copy rather than opening another.
        auto again = CuptiLibrary::load(why);
        QVERIFY2(again, why.c_str());
        QCOMPARE(QString::fromStdString(again->path()), wheelCupti);
        // libcupti stays mapped (see ~CuptiLibrary); removing its file at the end is safe, the
        // mapping keeps the pages.
    }
#endif
};

QTEST_GUILESS_MAIN(TestCuptiWheel)
#include "tst_cuptiwheel.moc"
