#include "core/util/bigalloc.h"
#include "core/util/column.h"
#include "core/util/stringpool.h"

#include <QTest>
#include <atomic>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// How many of the 4 KiB pages of [p, p + bytes) are resident.
size_t residentPages(void* p, size_t bytes)
{
    std::vector<unsigned char> v((bytes + 4095) / 4096);
    if (::mincore(p, bytes, v.data()) != 0) return SIZE_MAX;
    size_t n = 0;
    for (unsigned char c : v)
        n += c & 1;
    return n;
}

} // namespace

using namespace ks;

class TestColumn : public QObject {
    Q_OBJECT
private slots:
    void appendAndIndexAcrossSegments()
    {
        Column<uint64_t> c;
        for (uint64_t i = 0; i < 100000; ++i)
            c.push_back(i * 3);
        QCOMPARE(c.size(), size_t(100000));
        for (uint64_t i = 0; i < 100000; i += 997)
            QCOMPARE(c[i], i * 3);
        QCOMPARE(c.back(), uint64_t(99999 * 3));
    }

    void bulkAppendMatchesPushBack()
    {
        std::vector<int> v(50000);
        for (int i = 0; i < 50000; ++i)
            v[i] = i - 25000;
        Column<int> c;
        c.append(v.data(), 1000);
        c.append(v.data() + 1000, v.size() - 1000);
        QCOMPARE(c.size(), v.size());
        size_t seen = 0;
        c.forEachSpan(0, c.size(), [&](const int* d, size_t n, size_t first) {
            for (size_t i = 0; i < n; ++i)
                QCOMPARE(d[i], v[first + i]);
            seen += n;
        });
        QCOMPARE(seen, v.size());
    }

    void addressesStayStable()
    {
        Column<int> c;
        c.push_back(42);
        const int* first = &c[0];
        for (int i = 0; i < 1 << 18; ++i)
            c.push_back(i);
        QCOMPARE(first, &c[0]);
        QCOMPARE(*first, 42);
    }

    void releasingTheUnusedTailKeepsValuesAndLetsAppendsContinue()
    {
        // 300k 8-byte values end in a 2 MiB (huge-page) segment, partly filled.
        Column<int64_t> c;
        const size_t n = 300000;
        for (size_t i = 0; i < n; ++i)
            c.push_back(int64_t(i) * 3 + 1);
        c.releaseUnusedTail();
        for (size_t i = 0; i < n; ++i)
            QCOMPARE(c[i], int64_t(i) * 3 + 1);
        // Released pages come back zeroed and writable.
        for (size_t i = n; i < n + 100000; ++i)
            c.push_back(-int64_t(i));
        c.releaseUnusedTail();
        QCOMPARE(c.size(), n + 100000);
        QCOMPARE(c[n - 1], int64_t(n - 1) * 3 + 1);
        QCOMPARE(c[n], -int64_t(n));
        QCOMPARE(c.back(), -int64_t(n + 99999));
        Column<int64_t> empty;
        empty.releaseUnusedTail();
        QCOMPARE(empty.size(), size_t(0));
    }

    void blockTailsAndSparseBlocksFaultInOnlyTheTouchedPages()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("blocks come from malloc under AddressSanitizer");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
        QSKIP("blocks come from malloc under AddressSanitizer");
#endif
#endif
        // A 3 MiB block: its second 2 MiB is only half the block's, so it is not a huge page, and
        // touching its last byte makes one 4 KiB page resident, not 2 MiB.
        const size_t mib = size_t(1) << 20;
        auto* block = static_cast<char*>(ks::allocateLarge(3 * mib));
        block[3 * mib - 1] = 1;
        QCOMPARE(residentPages(block + 2 * mib, mib), size_t(1));
        ks::freeLarge(block, 3 * mib);
        // A sparse block holds only the pages written.
        auto* sparse = static_cast<char*>(ks::allocateSparse(64 * mib));
        sparse[10 * mib] = 1;
        sparse[50 * mib + 5] = 2;
        QCOMPARE(residentPages(sparse, 64 * mib), size_t(2));
        QCOMPARE(int(sparse[50 * mib + 5]), 2);
        ks::freeSparse(sparse, 64 * mib);
    }

    void lowerBound()
    {
        Column<int> c;
        for (int i = 0; i < 5000; ++i)
            c.push_back(i * 2);
        const auto less = [](int a, int b) { return a < b; };
        QCOMPARE(c.lowerBound(0, less), size_t(0));
        QCOMPARE(c.lowerBound(7, less), size_t(4));
        QCOMPARE(c.lowerBound(8, less), size_t(4));
        QCOMPARE(c.lowerBound(100000, less), size_t(5000));
    }

    // One writer appends while a reader keeps checking everything below the published size.
    void readerSeesConsistentPrefixWhileWriterAppends()
    {
        Column<uint64_t> c;
        std::atomic<bool> done{false};
        std::atomic<bool> bad{false};
        std::thread reader([&] {
            while (!done.load()) {
                const size_t n = c.size();
                for (size_t i = n > 64 ? n - 64 : 0; i < n; ++i)
                    if (c[i] != i * 7) bad.store(true);
            }
        });
        for (uint64_t i = 0; i < 2000000; ++i)
            c.push_back(i * 7);
        done.store(true);
        reader.join();
        QVERIFY(!bad.load());
    }

    void stringPoolInterns()
    {
        StringPool p;
        QCOMPARE(p.view(StringPool::kEmpty), std::string_view());
        const StringId a = p.intern("aten::mm");
        const StringId b = p.intern("aten::addmm");
        QVERIFY(a != b);
        QCOMPARE(p.intern("aten::mm"), a);
        QCOMPARE(p.view(b), std::string_view("aten::addmm"));
        QCOMPARE(p.find("aten::addmm"), b);
        QVERIFY(!p.find("missing").valid());
        for (int i = 0; i < 100000; ++i)
            p.intern("name" + std::to_string(i));
        QCOMPARE(p.view(a), std::string_view("aten::mm"));
        QCOMPARE(p.find("name77777").valid(), true);
        const std::string big(100000, 'x');
        QCOMPARE(p.view(p.intern(big)), std::string_view(big));
    }
};

QTEST_GUILESS_MAIN(TestColumn)
#include "tst_column.moc"
