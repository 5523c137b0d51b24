// escapeText: trace text made safe for terminals and logs.

#include "core/util/textescape.h"

#include <QTest>

using namespace ks;

class TestTextEscape : public QObject {
    Q_OBJECT

private slots:
    void escapes_data()
    {
        QTest::addColumn<QByteArray>("in");
        QTest::addColumn<QByteArray>("out");
        auto row = [](const char* name, std::string_view in, const char* out) {
            QTest::newRow(name) << QByteArray(in.data(), qsizetype(in.size())) << QByteArray(out);
        };
        row("plain", "aten::add_ (x)", "aten::add_ (x)");
        row("esc", "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
        row("bel cr tab nl",
            "a\x07"
            "b\rc\td\ne",
            "a\\x07b\\x0dc\\x09d\\x0ae");
        row("nul", std::string_view("a\0b", 3), "a\\x00b");
        row("del", "a\x7f", "a\\x7f");
        row("invalid utf-8", "bad\xff\xfe\xc0\xaf", "bad\\xff\\xfe\\xc0\\xaf");
        row("truncated sequence", "x\xe2\x82", "x\\xe2\\x82");
        row("surrogate", "\xed\xa0\x80", "\\xed\\xa0\\x80");
        row("valid utf-8 kept", "\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x94\xa5",
            "\xc2\xb5s \xe2\x86\x92 \xf0\x9f\x94\xa5");
        row("c1 csi",
            "\xc2\x9b"
            "31m",
            "\\u009b31m");
        row("bidi override",
            "abc\xe2\x80\xae"
            "def",
            "abc\\u202edef");
        row("bidi isolate", "\xe2\x81\xa6x", "\\u2066x");
        row("backslash kept", "C:\\Users\\x1b", "C:\\Users\\x1b");
    }
    void escapes()
    {
        QFETCH(QByteArray, in);
        QFETCH(QByteArray, out);
        const std::string once = escapeText(std::string_view(in.constData(), size_t(in.size())));
        QCOMPARE(QByteArray::fromStdString(once), out);
        QCOMPARE(escapeText(once), once); // escaping is idempotent
    }

    void keepNewlines()
    {
        QCOMPARE(escapeText("a\nb\x1b", true), std::string("a\nb\\x1b"));
        QCOMPARE(escapeText("a\r\nb", true), std::string("a\\x0d\nb"));
    }
};

QTEST_GUILESS_MAIN(TestTextEscape)
#include "tst_textescape.moc"
