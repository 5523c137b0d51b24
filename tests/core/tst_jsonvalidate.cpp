#include "core/util/jsonvalidate.h"

#include <QTest>

using namespace ks;

// The writers copy stored JSON text only when this says it is valid, so it must reject everything a
// strict parser (Python's json) rejects that a tolerant reader may have let through.
class TestJsonValidate : public QObject {
    Q_OBJECT
private slots:
    void jsonValidator_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("object") << QByteArray("{\"a\": [1, -2.5e+3, true, false, null, \"x\\\"\\u00e9\"]}")
                                << true;
        QTest::newRow("spaces") << QByteArray(" \n[ ]\t") << true;
        QTest::newRow("utf8") << QByteArray("\"\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80\"") << true;
        QTest::newRow("trailing comma") << QByteArray("[1, 2,]") << false;
        QTest::newRow("bare inf") << QByteArray("[inf]") << false;
        QTest::newRow("NaN") << QByteArray("NaN") << false;
        QTest::newRow("N/A") << QByteArray("{\"x\": N/A}") << false;
        QTest::newRow("leading zero") << QByteArray("01") << false;
        QTest::newRow("bad escape") << QByteArray("\"C:\\path\"") << false;
        QTest::newRow("control char") << QByteArray("\"a\tb\"") << false;
        QTest::newRow("bad utf8") << QByteArray("\"\xff\"") << false;
        QTest::newRow("overlong utf8") << QByteArray("\"\xc0\xaf\"") << false;
        QTest::newRow("two values") << QByteArray("1 2") << false;
        QTest::newRow("unterminated") << QByteArray("{\"a\": [1") << false;
        QTest::newRow("empty") << QByteArray("") << false;
        QTest::newRow("deep") << QByteArray(600, '[') + QByteArray(600, ']') << false;
        QTest::newRow("deep ok") << QByteArray(500, '[') + QByteArray(500, ']') << true;
    }

    void jsonValidator()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, valid);
        QCOMPARE(isValidJson(std::string_view(text.constData(), size_t(text.size()))), valid);
    }
};

QTEST_GUILESS_MAIN(TestJsonValidate)
#include "tst_jsonvalidate.moc"
