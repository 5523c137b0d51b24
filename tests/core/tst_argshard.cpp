// ArgShard encodes args objects against shapes it predicts from a hint; whatever the prediction,
// every object must decode to exactly what was added.

#include "core/model/args.h"

#include <QTest>
#include <random>

using namespace ks;

namespace {

struct Item {
    std::string key;
    ArgValue value;
    std::string text; // backing store for string values
};

void addItem(ArgShard& shard, const Item& it)
{
    switch (it.value.type) {
    case ArgType::Int:
        shard.addInt(it.key, it.value.i);
        break;
    case ArgType::UInt:
        shard.addUInt(it.key, it.value.u);
        break;
    case ArgType::Double:
        shard.addDouble(it.key, it.value.d);
        break;
    case ArgType::String:
        shard.addString(it.key, it.text);
        break;
    case ArgType::Json:
        shard.addJson(it.key, it.text);
        break;
    case ArgType::Null:
        shard.addNull(it.key);
        break;
    case ArgType::True:
    case ArgType::False:
        shard.addBool(it.key, it.value.type == ArgType::True);
        break;
    }
}

} // namespace

class TestArgShard : public QObject {
    Q_OBJECT
private slots:
    // Objects under one hint switch between shapes, share prefixes, change a key's type, grow and
    // shrink; hints collide in the predictor's table. Each must decode to its own keys and values.
    void predictionNeverChangesContent()
    {
        ArgStore store;
        ArgShard& shard = store.shard(0);
        std::mt19937 rng(7);
        const std::vector<std::string> keys = {"External id",      "correlation", "cbid",   "Input Dims",
                                               "Python parent id", "device",      "stream", "external id"};
        std::vector<std::vector<Item>> objects;
        std::vector<ArgsRef> refs;
        for (int n = 0; n < 5000; ++n) {
            const uint32_t hint =
                (rng() % 3 == 0) ? ArgShard::kNoHint : uint32_t(rng() % 6) * 256 + rng() % 2;
            std::vector<Item> items;
            const size_t count = rng() % 6;
            for (size_t k = 0; k < count; ++k) {
                Item it;
                it.key = keys[(k + (rng() % 4 == 0 ? rng() : 0)) % keys.size()];
                switch (rng() % 5) {
                case 0:
                    it.value = ArgValue::integer(int64_t(rng()) - (1 << 30));
                    break;
                case 1:
                    it.value = ArgValue::unsignedInteger(uint64_t(INT64_MAX) + 1 + rng());
                    break;
                case 2:
                    it.value = ArgValue::real(double(rng()) / 7.0);
                    break;
                case 3:
                    it.text = std::string("s").append(std::to_string(rng() % 50));
                    it.value.type = ArgType::String;
                    break;
                default:
                    it.value = ArgValue::null();
                    break;
                }
                items.push_back(it);
            }
            shard.begin(hint);
            for (const Item& it : items)
                addItem(shard, it);
            refs.push_back(shard.finish());
            objects.push_back(std::move(items));
        }
        for (size_t n = 0; n < objects.size(); ++n) {
            const ArgList got = store.decode(refs[n]);
            QCOMPARE(got.size(), objects[n].size());
            for (size_t k = 0; k < got.size(); ++k) {
                const Item& want = objects[n][k];
                QCOMPARE(std::string(got[k].key), want.key);
                QCOMPARE(int(got[k].value.type), int(want.value.type));
                switch (want.value.type) {
                case ArgType::Int:
                    QCOMPARE(got[k].value.i, want.value.i);
                    break;
                case ArgType::UInt:
                    QCOMPARE(got[k].value.u, want.value.u);
                    break;
                case ArgType::Double:
                    QCOMPARE(got[k].value.d, want.value.d);
                    break;
                case ArgType::String:
                    QCOMPARE(std::string(got[k].value.text), want.text);
                    break;
                default:
                    break;
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestArgShard)
#include "tst_argshard.moc"
