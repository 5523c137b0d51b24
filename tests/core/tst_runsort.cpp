#include "core/util/runsort.h"

#include <QTest>
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

using namespace ks;

namespace {

using Item = std::pair<int, int>;

// Segments shaped like lists gathered track by track: each ascending, reversed or shuffled, with
// repeated keys, of random lengths (empty ones too).
std::vector<Item> segmented(std::mt19937& rng, int segments, std::vector<size_t>& bounds)
{
    std::vector<Item> v;
    bounds.assign(1, 0);
    for (int s = 0; s < segments; ++s) {
        const int n = int(rng() % 200);
        std::vector<Item> seg;
        int key = int(rng() % 50);
        for (int i = 0; i < n; ++i) {
            key += int(rng() % 3); // repeats
            seg.emplace_back(key, int(rng() % 4));
        }
        std::sort(seg.begin(), seg.end());
        switch (rng() % 4) {
        case 0:
            std::reverse(seg.begin(), seg.end());
            break;
        case 1:
            std::shuffle(seg.begin(), seg.end(), rng);
            break;
        case 2:
            if (seg.size() > 3) std::swap(seg[1], seg[seg.size() - 2]); // a few out of place
            break;
        default:
            break;
        }
        v.insert(v.end(), seg.begin(), seg.end());
        bounds.push_back(v.size());
    }
    return v;
}

} // namespace

class TestRunSort : public QObject {
    Q_OBJECT
private slots:
    void sortSegmentsEqualsStdSortForAnySegmentShape()
    {
        std::mt19937 rng(7);
        for (int round = 0; round < 300; ++round) {
            std::vector<size_t> bounds;
            std::vector<Item> v = segmented(rng, int(rng() % 12), bounds);
            std::vector<Item> expected = v;
            std::sort(expected.begin(), expected.end());
            sortSegments(v, bounds);
            QCOMPARE(v, expected);
        }
    }

    void sortRunsEqualsStdSortForFewAndManyRuns()
    {
        std::mt19937 rng(11);
        for (int round = 0; round < 300; ++round) {
            std::vector<size_t> bounds;
            std::vector<Item> v = segmented(rng, int(rng() % 12), bounds);
            if (round % 3 == 0) std::shuffle(v.begin(), v.end(), rng); // many runs
            std::vector<Item> expected = v;
            std::sort(expected.begin(), expected.end());
            sortRuns(v);
            QCOMPARE(v, expected);
        }
    }

    void sortRunsWithAKeyOnlyOrderSortsByTheKey()
    {
        std::mt19937 rng(3);
        std::vector<size_t> bounds;
        std::vector<Item> v = segmented(rng, 8, bounds);
        auto byKey = [](const Item& a, const Item& b) { return a.first < b.first; };
        std::vector<Item> expected = v;
        sortRuns(v, byKey);
        QVERIFY(std::is_sorted(v.begin(), v.end(), byKey));
        std::sort(v.begin(), v.end());
        std::sort(expected.begin(), expected.end());
        QCOMPARE(v, expected); // the same elements
    }
};

QTEST_GUILESS_MAIN(TestRunSort)
#include "tst_runsort.moc"
