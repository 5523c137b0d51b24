// The safe pickle reader (core/io/pickle): what Python's pickle writes in protocols 2 to 5 reads
// back value for value, and hostile or broken input (code-running opcodes, truncation, huge
// lengths, deep nesting, bad memo references) ends with a one-line error naming the byte.

#include "core/io/bytesource.h"
#include "core/io/pickle/picklereader.h"
#include "gzipstring.h"

#include <QTest>
#include <string>
#include <vector>
#include <zlib.h>

using namespace ks;
using namespace ks::pickle;

namespace {

std::string fromHex(std::string_view hex)
{
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out += char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
    return out;
}

// Rebuilds the value as Python's repr would print it (bytes as hex), to compare with the source.
class Recorder final : public Handler {
public:
    struct Node {
        char kind; // '[', '{', '('
        std::vector<std::string> items;
    };
    std::vector<Node> nodes;
    std::string result;
    uint64_t appends = 0;

    std::string render(const Value& v) const
    {
        switch (v.kind) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return v.b ? "True" : "False";
        case Kind::Int:
            return std::to_string(v.i);
        case Kind::BigInt:
            return "<bigint>";
        case Kind::Float:
            return QByteArray::number(v.d, 'g', 17).toStdString();
        case Kind::Str: {
            // Appended, not `"'" + std::string(...) + "'"`: GCC 12 warns (-Wrestrict) on that one.
            std::string s = "'";
            s.append(v.text);
            s += '\'';
            return s;
        }
        case Kind::Bytes:
            return "b'" + QByteArray(v.text.data(), qsizetype(v.text.size())).toHex().toStdString() + "'";
        case Kind::Object: {
            const Node& n = nodes[v.handle];
            std::string s(1, n.kind);
            for (size_t k = 0; k < n.items.size(); ++k) {
                if (k) s += ", ";
                s += n.items[k];
            }
            if (n.kind == '(' && n.items.size() == 1) s += ",";
            return s + (n.kind == '[' ? "]" : n.kind == '{' ? "}" : ")");
        }
        }
        return "?";
    }
    uint64_t newList() override
    {
        nodes.push_back({'[', {}});
        return nodes.size() - 1;
    }
    uint64_t newDict() override
    {
        nodes.push_back({'{', {}});
        return nodes.size() - 1;
    }
    uint64_t newTuple(std::span<const Value> items) override
    {
        Node n{'(', {}};
        for (const Value& v : items)
            n.items.push_back(render(v));
        nodes.push_back(n);
        return nodes.size() - 1;
    }
    void append(uint64_t list, const Value& item) override
    {
        ++appends;
        if (nodes.at(list).kind != '[') throw std::runtime_error("append to a non-list");
        nodes[list].items.push_back(render(item));
    }
    void setItem(uint64_t dict, const Value& key, const Value& value) override
    {
        if (nodes.at(dict).kind != '{') throw std::runtime_error("setitem on a non-dict");
        nodes[dict].items.push_back(render(key) + ": " + render(value));
    }
    void finish(const Value& root) override { result = render(root); }
};

// Keeps nothing: for inputs whose rendering would be the cost (a million nested lists).
class Counter final : public Handler {
public:
    uint64_t made = 0, added = 0;
    uint64_t newList() override { return made++; }
    uint64_t newDict() override { return made++; }
    uint64_t newTuple(std::span<const Value>) override { return made++; }
    void append(uint64_t, const Value&) override { ++added; }
    void setItem(uint64_t, const Value&, const Value&) override { ++added; }
    void finish(const Value&) override {}
};

// Checks the ints appended to lists, in order: item k of the batch must be k (mod 2^32).
class Sequence final : public Handler {
public:
    uint64_t lists = 0, items = 0, outOfOrder = 0;
    uint64_t newList() override { return lists++; }
    uint64_t newDict() override { return lists++; }
    uint64_t newTuple(std::span<const Value>) override { return lists++; }
    void append(uint64_t, const Value& item) override
    {
        if (!item.isInt() || uint32_t(item.i) != uint32_t(items)) ++outOfOrder;
        ++items;
    }
    void setItem(uint64_t, const Value&, const Value&) override {}
    void finish(const Value&) override {}
};

// A list of n items as torch's C++ pickler writes one: EMPTY_LIST, MARK, every item, one APPENDS.
// Items are BININT k, or NONE (one byte a value, the densest a pickle can be) when nones is set.
std::string oneBatch(size_t n, bool nones = false)
{
    std::string bytes = "\x80\x02](";
    bytes.reserve(bytes.size() + n * (nones ? 1 : 5) + 2);
    for (size_t k = 0; k < n; ++k) {
        if (nones) {
            bytes += 'N';
            continue;
        }
        bytes += 'J';
        for (int b = 0; b < 4; ++b)
            bytes += char((k >> (8 * b)) & 0xff);
    }
    return bytes + "e.";
}

struct Outcome {
    bool ok;
    std::string text; // the value, or the error
};

Outcome readBytes(const std::string& bytes, Limits limits = {})
{
    Recorder r;
    Reader reader(r, limits);
    auto source = memoryByteSource(bytes);
    std::string error;
    if (!reader.read(*source, error)) return {false, error};
    return {true, r.result};
}

const char* kValue = "{'a': [1, -2, 300, 70000, -1099511627776, 9223372036854775807, -9223372036854775808], "
                     "'b': (1.5, None, True, False), 'd': 'h\xc3\xa9', 'e': ((),), 'f': [[1], [2, 3]]}";

// pickle.dumps(v, protocol=p) of the value above, by Python 3.11; for 3..5 with 'c': b'\x00\xff'
// added after 'b' (protocol 2 writes bytes through a GLOBAL, see refusesProtocol2Bytes).
const char* kP2 =
    "80027d71002858010000006171015d7102284b014afeffffff4d2c014a701101008a060000000000ff8a08ffffffffffffff7f8a"
    "08000000000000008065580100000062710328473ff80000000000004e88897471045801000000647105580300000068c3a971"
    "0658010000006571072985710858010000006671095d710a285d710b4b01615d710c284b024b036565752e";
const char* kP3 =
    "80037d71002858010000006171015d7102284b014afeffffff4d2c014a701101008a060000000000ff8a08ffffffffffffff7f8a"
    "08000000000000008065580100000062710328473ff80000000000004e888974710458010000006371054302"
    "00ff71065801000000647107580300000068c3a9710858010000006571092985710a580100000066710b5d710c285d710d4b016"
    "15d710e284b024b036565752e";
const char* kP4 =
    "8004957a000000000000007d94288c0161945d94284b014afeffffff4d2c014a701101008a060000000000ff8a08ffffffffffff"
    "ff7f8a080000000000000080658c01629428473ff80000000000004e888974948c016394430200ff948c0164948c0368c3a9948c"
    "0165942985948c0166945d94285d944b01615d94284b024b036565752e";

std::string withBytes()
{
    std::string v = kValue;
    v.insert(v.find(", 'd'"), ", 'c': b'00ff'");
    return v;
}

} // namespace

class TestPickleReader : public QObject {
    Q_OBJECT
private slots:
    void readsWhatPythonWrites()
    {
        Outcome o = readBytes(fromHex(kP2));
        QVERIFY2(o.ok, o.text.c_str());
        QCOMPARE(o.text, std::string(kValue));
        o = readBytes(fromHex(kP3));
        QVERIFY2(o.ok, o.text.c_str());
        QCOMPARE(o.text, withBytes());
        o = readBytes(fromHex(kP4));
        QVERIFY2(o.ok, o.text.c_str());
        QCOMPARE(o.text, withBytes());
        std::string p5 = fromHex(kP4);
        p5[1] = 5; // protocol 5 writes these values with the same opcodes
        o = readBytes(p5);
        QVERIFY2(o.ok, o.text.c_str());
        QCOMPARE(o.text, withBytes());
    }

    void memoRefersToTheSameContainer()
    {
        // s = [1]; pickle.dumps([s, s], 2): the second s is a BINGET of the first.
        Recorder r;
        Reader reader(r);
        const std::string bytes = fromHex("80025d7100285d71014b01616801652e");
        auto source = memoryByteSource(bytes);
        std::string error;
        QVERIFY2(reader.read(*source, error), error.c_str());
        QCOMPARE(r.result, std::string("[[1], [1]]"));
        QCOMPARE(r.nodes.size(), size_t(2)); // two containers made, not three
    }

    void dupWhileTheStackGrows()
    {
        // DUP pushes the stack's own top: when that push grows the stack the value must be copied
        // first (fuzz_snapshot found the use after free under ASan; corpus/snapshot/dup_at_growth).
        // Every count up to past the third growth, so one DUP lands on each boundary.
        for (int n = 1; n < 300; ++n) {
            std::string bytes = "\x80\x04]("; // PROTO 4, EMPTY_LIST, MARK
            std::string expected = "[";
            for (int i = 0; i < n; ++i) {
                bytes += "\x8c\x01"; // SHORT_BINUNICODE of one character
                bytes += char('a' + i % 26);
                expected += std::string(i ? ", '" : "'") + char('a' + i % 26) + "'";
            }
            bytes += "2e."; // DUP, APPENDS, STOP
            expected += std::string(", '") + char('a' + (n - 1) % 26) + "']";
            const Outcome o = readBytes(bytes);
            QVERIFY2(o.ok, o.text.c_str());
            QCOMPARE(o.text, expected);
        }
    }

    void bigIntegersAreFlagged()
    {
        // 2**64 and -(2**63) - 1: nine bytes that do not fit int64.
        QCOMPARE(readBytes(fromHex("8004950c000000000000008a090000000000000000012e")).text,
                 std::string("<bigint>"));
        QCOMPARE(readBytes(fromHex("8004950c000000000000008a09ffffffffffffff7fff2e")).text,
                 std::string("<bigint>"));
        // -1 written with nine bytes of sign extension still fits.
        QCOMPARE(readBytes(fromHex("80028a09ffffffffffffffffff2e")).text, std::string("-1"));
        // LONG4 of 100 zero bytes is 0; of 100 bytes ending in 0x01 is huge.
        std::string l4 = fromHex("80028b64000000") + std::string(100, '\0') + ".";
        QCOMPARE(readBytes(l4).text, std::string("0"));
        l4[l4.size() - 2] = 1;
        QCOMPARE(readBytes(l4).text, std::string("<bigint>"));
    }

    void refusesCodeRunningOpcodes()
    {
        // pickle.dumps of an object whose __reduce__ is (os.system, ('true',)), protocol 2 and 4.
        const std::string global =
            fromHex("800263706f7369780a73797374656d0a710058040000007472756571018571025271032e");
        Outcome o = readBytes(global);
        QVERIFY(!o.ok);
        QCOMPARE(o.text, std::string("pickle: opcode GLOBAL (0x63) would run code; refused at byte 2"));
        const std::string stackGlobal =
            fromHex("8004951f000000000000008c05706f736978948c0673797374656d9493948c047472756594859452942e");
        o = readBytes(stackGlobal);
        QVERIFY(!o.ok);
        QVERIFY2(o.text.find("STACK_GLOBAL (0x93) would run code; refused at byte 28") != std::string::npos,
                 o.text.c_str());
        for (const char* op : {"R", "b", "i", "o", "\x81", "\x92", "P", "Q", "\x82", "\x97"}) {
            o = readBytes(fromHex("80024e") + op + ".");
            QVERIFY(!o.ok);
            QVERIFY2(o.text.find("would run code; refused at byte 3") != std::string::npos, o.text.c_str());
        }
    }

    void refusesProtocol2Bytes()
    {
        // Protocol 2 pickles bytes as _codecs.encode(...): a GLOBAL, so refused like any other.
        const Outcome o = readBytes(fromHex("8002635f636f646563730a656e636f64650a7100580300000000c3bf71015806"
                                            "0000006c6174696e3171028671035271042e"));
        QVERIFY(!o.ok);
        QVERIFY2(o.text.find("GLOBAL") != std::string::npos, o.text.c_str());
    }

    void refusesOtherProtocolsAndUnknownOpcodes()
    {
        QCOMPARE(readBytes("(lp0\nI1\na.").text,
                 std::string("pickle: not a pickle of protocol 2 or later (first byte 0x28) at byte 0"));
        QCOMPARE(readBytes(fromHex("80064e2e")).text,
                 std::string("pickle: unsupported pickle protocol 6 at byte 0"));
        QCOMPARE(readBytes(fromHex("80024eff2e")).text, std::string("pickle: unknown opcode 0xff at byte 3"));
        QVERIFY(readBytes(fromHex("800249")).text.find("INT") != std::string::npos);
        QCOMPARE(readBytes("").text, std::string("pickle: truncated (needs 1 more bytes) at byte 0"));
    }

    void everyTruncationIsAnError()
    {
        const std::string full = fromHex(kP4);
        for (size_t n = 0; n < full.size(); ++n) {
            const Outcome o = readBytes(full.substr(0, n));
            QVERIFY2(!o.ok, std::to_string(n).c_str());
            QVERIFY2(o.text.find("at byte") != std::string::npos, o.text.c_str());
            QVERIFY(o.text.find('\n') == std::string::npos);
        }
    }

    void hugeLengthsAreRefusedWithoutAllocating()
    {
        // BINUNICODE8 claiming 2**62 bytes, BINUNICODE claiming 4 GiB - 1, BINBYTES8 past the limit.
        Outcome o = readBytes(fromHex("80048d0000000000000040"));
        QCOMPARE(o.text,
                 std::string("pickle: string of 4611686018427387904 bytes is over the limit at byte 2"));
        Limits small;
        small.maxItemBytes = 1 << 20;
        o = readBytes(fromHex("800258ffffffff"), small);
        QCOMPARE(o.text, std::string("pickle: string of 4294967295 bytes is over the limit at byte 2"));
        // Under the limit but past the end: truncated, after reading what there is.
        o = readBytes(fromHex("80025800001000") + "abc");
        QVERIFY2(o.text.find("truncated") != std::string::npos, o.text.c_str());
        // Distinct strings over their budget.
        small.maxStringBytes = 10;
        o = readBytes(fromHex("8002285805000000616161616158050000006262626262580500000063636363636c2e"),
                      small);
        QCOMPARE(o.text, std::string("pickle: distinct strings over 10 bytes at byte 23"));
    }

    void nestingAndStackAreBounded()
    {
        // 100000 MARKs: over the default 4096.
        Outcome o = readBytes(fromHex("8002") + std::string(100000, '(') + ".");
        QCOMPARE(o.text, std::string("pickle: more than 4096 open MARKs at byte 4098"));
        // Lists nested 200000 deep (each added to the one before): the reader has no recursion, so
        // depth costs only stack slots, which are bounded: by Limits::maxStack, or the file's size
        // when that is more. Gzipped, 5000 lists are a file of a few dozen bytes, and stop at the
        // limit; plain, the file has a byte a list and may hold them all.
        Limits small;
        small.maxStack = 1000;
        std::string lists = fromHex("8002") + std::string(5000, ']');
        const std::string zipped = ks::test::gzipString(lists + ".", 9);
        QVERIFY(zipped.size() < 1000);
        o = readBytes(zipped, small);
        QCOMPARE(o.text, "pickle: stack deeper than 1000 values (the larger of 1000 and the file's " +
                             std::to_string(zipped.size()) + " bytes) at byte 1002");
        lists += std::string(4999, 'a') + ".";
        o = readBytes(lists, small);
        QVERIFY2(o.ok, o.text.c_str());
        std::string deep = fromHex("8002");
        for (int k = 0; k < 200000; ++k)
            deep += "]";
        for (int k = 0; k < 199999; ++k)
            deep += "a";
        deep += ".";
        Counter counter;
        Reader reader(counter);
        auto source = memoryByteSource(deep);
        std::string error;
        QVERIFY2(reader.read(*source, error), error.c_str());
        QCOMPARE(counter.made, uint64_t(200000));
        QCOMPARE(counter.added, uint64_t(199999));
    }

    void oneBatchLongerThanTheStackLimit()
    {
        // torch's C++ pickler (_memory_snapshot_pickled) writes each list as one MARK ... APPENDS:
        // a device trace of more than Limits::maxStack entries is that many values on the stack.
        // The file has more bytes than values, so it reads, every item in order.
        const size_t n = Limits{}.maxStack + 1000;
        const std::string bytes = oneBatch(n);
        Sequence seq;
        Reader reader(seq);
        auto source = memoryByteSource(bytes);
        std::string error;
        QVERIFY2(reader.read(*source, error), error.c_str());
        QCOMPARE(seq.items, uint64_t(n));
        QCOMPARE(seq.outOfOrder, uint64_t(0));
        QCOMPARE(reader.stackLimit(), bytes.size());
        // Its memory: the batch plus the list below it, at most doubled by growth.
        QVERIFY(reader.stackCapacity() >= n + 1);
        QVERIFY2(reader.stackCapacity() <= 2 * (n + 1), std::to_string(reader.stackCapacity()).c_str());
    }

    void stackMemoryIsBoundedByTheFile()
    {
        // A value a byte (NONE), past the default limit: the stack never has room for more values
        // than the file has bytes, whatever the growth would have doubled to, so the reader's stack
        // costs at most sizeof(Value) bytes per byte read.
        const size_t n = Limits{}.maxStack + 1000;
        const std::string bytes = oneBatch(n, true);
        Counter counter;
        Reader reader(counter);
        auto source = memoryByteSource(bytes);
        std::string error;
        QVERIFY2(reader.read(*source, error), error.c_str());
        QCOMPARE(counter.added, uint64_t(n));
        QVERIFY(reader.stackCapacity() >= n + 1);
        QVERIFY2(reader.stackCapacity() <= bytes.size(), std::to_string(reader.stackCapacity()).c_str());
    }

    void smallFilesCannotRaiseTheStackLimit()
    {
        // The same batch gzipped is a few kilobytes: a bomb of values, refused at the default limit
        // without allocating past it, with a one-line error.
        const size_t n = Limits{}.maxStack + 1000;
        const std::string zipped = ks::test::gzipString(oneBatch(n, true), 9);
        QVERIFY(zipped.size() < 64 * 1024);
        Counter counter;
        Reader reader(counter);
        auto source = memoryByteSource(zipped);
        std::string error;
        QVERIFY(!reader.read(*source, error));
        QCOMPARE(error, "pickle: stack deeper than 4194304 values (the larger of 4194304 and the file's " +
                            std::to_string(zipped.size()) + " bytes) at byte " +
                            std::to_string(3 + Limits{}.maxStack));
        QCOMPARE(counter.added, uint64_t(0));
        QVERIFY(reader.stackCapacity() <= Limits{}.maxStack);
        // A tiny plain file that opens a batch it cannot hold: it ends before its APPENDS.
        Outcome o = readBytes(oneBatch(n, true).substr(0, 100));
        QCOMPARE(o.text, std::string("pickle: truncated (needs 1 more bytes) at byte 100"));
    }

    void badMemoAndStackUse()
    {
        QCOMPARE(readBytes(fromHex("8002680a2e")).text,
                 std::string("pickle: memo index 10 was never stored at byte 2"));
        QCOMPARE(readBytes(fromHex("80024e72ffffffff2e")).text,
                 std::string("pickle: memo index 4294967295 over the limit at byte 3"));
        QCOMPARE(readBytes(fromHex("80024e720000f0002e")).text,
                 std::string("pickle: memo index 15728640 far beyond the memo's 0 entries at byte 3"));
        QCOMPARE(readBytes(fromHex("8002612e")).text, std::string("pickle: stack underflow at byte 2"));
        QCOMPARE(readBytes(fromHex("80024e4e2e")).text,
                 std::string("pickle: STOP with 2 values on the stack at byte 4"));
        QCOMPARE(readBytes(fromHex("80024b0161")).text, std::string("pickle: stack underflow at byte 4"));
        // APPEND onto an int, SETITEMS with an odd count.
        QCOMPARE(readBytes(fromHex("80024b014b02612e")).text,
                 std::string("pickle: APPEND to a int at byte 6"));
        QCOMPARE(readBytes(fromHex("80027d284b01752e")).text,
                 std::string("pickle: SETITEMS with an odd number of items at byte 6"));
        // A handler's refusal comes back with the byte.
        QCOMPARE(readBytes(fromHex("80027d4b0161")).text,
                 std::string("append to a non-list (pickle byte 5)"));
    }

    void largeStringsCrossTheBuffer()
    {
        const std::string big(3 << 20, 'x');
        std::string bytes = fromHex("80048d") + std::string(8, '\0');
        const uint64_t n = big.size();
        for (int k = 0; k < 8; ++k)
            bytes[3 + k] = char((n >> (8 * k)) & 0xff);
        bytes += big + ".";
        const Outcome o = readBytes(bytes);
        QVERIFY(o.ok);
        QCOMPARE(o.text.size(), big.size() + 2);
    }
};

QTEST_GUILESS_MAIN(TestPickleReader)
#include "tst_picklereader.moc"
