// FLOPs recomputed from trace arguments, checked against the values torch 1.13 itself reported for
// the same calls (spec torch-profiler-exports.md §6, [RUN-1.13]), plus the rules' edge cases.

#include "core/analysis/summary/flopcounter.h"
#include "core/analysis/summary/pyrepr.h"

#include <QTest>
#include <string>

using namespace ks;

class TestFlopCounter : public QObject {
    Q_OBJECT
private slots:
    void valuesTorchReported()
    {
        FlopCounter c;
        QCOMPARE(c.count(FlopOp::Mm, "[[64,32],[32,16]]"), uint64_t(65536));
        // addmm(bias, mat1, mat2): the bias is ignored.
        QCOMPARE(c.count(FlopOp::Addmm, "[[16],[64,32],[32,16],[],[]]"), uint64_t(65536));
        QCOMPARE(c.count(FlopOp::Mul, "[[64,16],[64,16]]"), uint64_t(1024));
        QCOMPARE(c.count(FlopOp::Conv2d, "[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]",
                         "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"1\"]"),
                 uint64_t(27648));
    }

    void batchedAndEdgeCases()
    {
        FlopCounter c;
        // [B,M,K]@[B,K,N] = 2*B*M*K*N.
        QCOMPARE(c.count(FlopOp::Bmm, "[[2,3,4],[2,4,5]]"), uint64_t(2 * 2 * 3 * 4 * 5));
        QCOMPARE(c.count(FlopOp::Baddbmm, "[[2,3,5],[2,3,4],[2,4,5],[],[]]"), uint64_t(2 * 2 * 3 * 4 * 5));
        QCOMPARE(c.count(FlopOp::Mm, "[[64,0],[0,16]]"), uint64_t(0));  // K = 0
        QCOMPARE(c.count(FlopOp::Mm, "[[],[32,16]]"), uint64_t(0));     // no shape
        QCOMPARE(c.count(FlopOp::Mm, "[[64,32]]"), uint64_t(0));        // missing operand
        QCOMPARE(c.count(FlopOp::Add, "[[],[]]"), uint64_t(1));         // 0-d tensor: one element
        QCOMPARE(c.count(FlopOp::Mul, "[[[2,3],[2,3]]]"), uint64_t(0)); // a tensor list is no shape
        QCOMPARE(c.count(FlopOp::None, "[[64,32],[32,16]]"), uint64_t(0));
        QCOMPARE(c.count(FlopOp::Mm, "not json"), uint64_t(0));
    }

    void conv2dNeedsConcreteArguments()
    {
        FlopCounter c;
        const char* dims = "[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]";
        // Stride 2, no padding: Hout = Wout = (8 - 2 - 1) / 2 + 1 = 3; 2*2*3*3*3*3*3*4 = 3888.
        QCOMPARE(c.count(FlopOp::Conv2d, dims, "[\"\",\"\",\"\",\"[2, 2]\",\"[0, 0]\",\"[1, 1]\",\"1\"]"),
                 uint64_t(3888));
        // groups divides the whole product (Cin is the input's channel count): 27648 / 3.
        QCOMPARE(c.count(FlopOp::Conv2d, dims, "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"3\"]"),
                 uint64_t(27648 / 3));
        QCOMPARE(c.count(FlopOp::Conv2d, dims, "[\"\",\"\",\"\",\"[1, 1]\",\"'same'\",\"[1, 1]\",\"1\"]"),
                 uint64_t(0));
        QCOMPARE(c.count(FlopOp::Conv2d, dims, ""), uint64_t(0));
        QCOMPARE(c.count(FlopOp::Conv2d, dims, "[\"\",\"\",\"\",\"[0, 1]\",\"[1, 1]\",\"[1, 1]\",\"1\"]"),
                 uint64_t(0));
    }

    void conv2dFromTheBackwardGradient()
    {
        // torch 1.13 traces have no "Concrete Inputs"; the backward function's first input is the
        // output gradient. torch's check value: x=[2,3,8,8], w=[4,3,3,3], stride 1, padding 1 gives an
        // 8x8 output and 27648. With stride 2 the output is 4x4: 2*2*4*4*3*3*3*4 = 6912.
        FlopCounter c;
        const char* dims = "[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]";
        QCOMPARE(c.conv2dFromOutput(dims, "[[2,4,8,8]]"), uint64_t(27648));
        QCOMPARE(c.conv2dFromOutput(dims, "[[2,4,4,4]]"), uint64_t(6912));
        // groups = input channels / weight channels = 4 / 2: 2*2*8*8*3*3*4*4 / 2 = 18432.
        QCOMPARE(c.conv2dFromOutput("[[2,4,8,8],[4,2,3,3],[],[],[],[],[]]", "[[2,4,8,8]]"), uint64_t(18432));
        // A gradient that is not this conv's output (batch or channels differ), or none, counts 0.
        QCOMPARE(c.conv2dFromOutput(dims, "[[3,4,4,4]]"), uint64_t(0));
        QCOMPARE(c.conv2dFromOutput(dims, "[[2,5,4,4]]"), uint64_t(0));
        QCOMPARE(c.conv2dFromOutput(dims, "[[]]"), uint64_t(0));
        QCOMPARE(c.conv2dFromOutput(dims, ""), uint64_t(0));
        QCOMPARE(c.conv2dFromOutput("[[2,3,8,8],[4,2,3,3],[],[],[],[],[]]", "[[2,4,8,8]]"), uint64_t(0));
    }

    void opNames()
    {
        QCOMPARE(FlopCounter::opOf("aten::mm"), FlopOp::Mm);
        QCOMPARE(FlopCounter::opOf("aten::conv2d"), FlopOp::Conv2d);
        QCOMPARE(FlopCounter::opOf("aten::matmul"), FlopOp::None);
        QCOMPARE(FlopCounter::opOf("aten::mul_"), FlopOp::None);
    }

    void pythonRepr()
    {
        auto repr = [](const char* json) {
            std::string s;
            return appendPythonRepr(json, s) ? s : std::string("<invalid>");
        };
        QCOMPARE(repr("[[64,32],[32,16]]"), std::string("[[64, 32], [32, 16]]"));
        QCOMPARE(repr("[[], [1]]"), std::string("[[], [1]]"));
        QCOMPARE(repr("[null,true,false]"), std::string("[None, True, False]"));
        QCOMPARE(repr("[\"a\",\"it's\"]"), std::string("['a', \"it's\"]"));
        QCOMPARE(repr("{\"k\":[1]}"), std::string("{'k': [1]}"));
        QCOMPARE(repr("[1,"), std::string("<invalid>"));
    }
};

QTEST_GUILESS_MAIN(TestFlopCounter)
#include "tst_flopcounter.moc"
