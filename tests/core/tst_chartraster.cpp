#include "base64decode.h"
#include "core/analysis/memory/memorychart.h"
#include "core/util/base64.h"
#include "core/util/bitmapfont.h"
#include "core/util/png.h"
#include "core/util/raster.h"
#include "pngdecode.h"

#include <QTest>
#include <random>
#include <set>

using namespace ks;

class TestChartRaster : public QObject {
    Q_OBJECT
private slots:
    void base64MatchesRfc4648Vectors()
    {
        // RFC 4648 section 10.
        const std::pair<const char*, const char*> vectors[] = {
            {"", ""},
            {"f", "Zg=="},
            {"fo", "Zm8="},
            {"foo", "Zm9v"},
            {"foob", "Zm9vYg=="},
            {"fooba", "Zm9vYmE="},
            {"foobar", "Zm9vYmFy"},
        };
        for (const auto& [plain, coded] : vectors) {
            QCOMPARE(base64Encode(plain), std::string(coded));
            QCOMPARE(*ks::test::base64Decode(coded), std::string(plain));
        }
        QCOMPARE(base64Encode(std::string("\xff\xfe\x00", 3)), std::string("//4A"));
        QVERIFY(!ks::test::base64Decode("Zm9"));
        QVERIFY(!ks::test::base64Decode("Zm9v!A=="));
        QVERIFY(!ks::test::base64Decode("Zg==Zg=="));
    }

    void pngRoundTrips()
    {
        std::mt19937 rng(7);
        const int w = 37, h = 23;
        std::vector<uint8_t> px(size_t(w) * h * 3);
        for (auto& b : px)
            b = uint8_t(rng());
        const std::string png = encodePng(w, h, px);
        const ks::test::PngImage img = ks::test::decodePng(png);
        QVERIFY2(img.ok, img.error.c_str());
        QCOMPARE(img.width, w);
        QCOMPARE(img.height, h);
        QCOMPARE(img.bitDepth, 8);
        QCOMPARE(img.colorType, 2);
        QVERIFY(img.rgb == px);
        QVERIFY(encodePng(w, h + 1, px).empty());
    }

    void pngDecoderRejectsDamage()
    {
        std::vector<uint8_t> px(4 * 4 * 3, 200);
        const std::string png = encodePng(4, 4, px);
        std::string badCrc = png;
        badCrc[40] ^= 0x55; // inside IDAT
        QVERIFY(!ks::test::decodePng(badCrc).ok);
        QVERIFY(!ks::test::decodePng(png.substr(0, png.size() - 20)).ok);
        std::string badSig = png;
        badSig[1] = 'Q';
        QCOMPARE(ks::test::decodePng(badSig).error, std::string("not a PNG: bad signature"));
        QVERIFY(!ks::test::decodePng({}).ok);
    }

    void everyPrintableGlyphIsDistinct()
    {
        std::set<std::vector<bool>> shapes;
        for (int c = 33; c < 127; ++c) {
            std::vector<bool> bits;
            int ink = 0;
            for (int r = 0; r < BitmapFont::kGlyphRows; ++r)
                for (int x = 0; x < BitmapFont::kGlyphColumns; ++x) {
                    bits.push_back(BitmapFont::ink(char(c), x, r));
                    ink += bits.back();
                }
            QVERIFY2(ink > 0, qPrintable(QStringLiteral("glyph %1 is empty").arg(QChar(c))));
            QVERIFY2(shapes.insert(bits).second,
                     qPrintable(QStringLiteral("glyph %1 repeats").arg(QChar(c))));
        }
        for (int r = 0; r < BitmapFont::kGlyphRows; ++r)
            for (int x = 0; x < BitmapFont::kGlyphColumns; ++x)
                QVERIFY(!BitmapFont::ink(' ', x, r));
        // Bytes outside printable ASCII draw as '?'.
        for (int r = 0; r < BitmapFont::kGlyphRows; ++r)
            for (int x = 0; x < BitmapFont::kGlyphColumns; ++x)
                QCOMPARE(BitmapFont::ink('\x90', x, r), BitmapFont::ink('?', x, r));
        QCOMPARE(BitmapFont::textWidth("ab", 2), (2 * 6 - 1) * 2);
    }

    void textIsDrawnUprightAndTurned()
    {
        // 'L' has a full left column and a full bottom row.
        Raster up(20, 20);
        BitmapFont::drawText(up, 1, 1, "L", 1, 0x000000);
        QCOMPARE(up.pixel(1, 1), uint32_t(0)); // top of the stem
        QCOMPARE(up.pixel(5, 7), uint32_t(0)); // right end of the foot (row 6)
        QCOMPARE(up.pixel(5, 1), uint32_t(0xffffff));
        // Turned counter-clockwise: the stem lies along the bottom, the foot runs up on the right.
        Raster turned(20, 20);
        BitmapFont::drawTextUp(turned, 1, 15, "L", 1, 0x000000);
        QCOMPARE(turned.pixel(1, 14), uint32_t(0)); // stem's top, now at the left end
        QCOMPARE(turned.pixel(7, 14), uint32_t(0)); // foot's start, at the stem's other end
        QCOMPARE(turned.pixel(7, 10), uint32_t(0)); // foot's end, 4 px up
        QCOMPARE(turned.pixel(1, 10), uint32_t(0xffffff));
    }

    void rasterBlendsAndClips()
    {
        Raster r(4, 4, 0xffffff);
        r.fillRect(-5, -5, 2, 2, 0x000000, 0.5f);
        QCOMPARE(r.pixel(0, 0), uint32_t(0x808080)); // 255 * 0.5 = 127.5 -> 128
        QCOMPARE(r.pixel(2, 2), uint32_t(0xffffff));
        r.fillColumn(3, 1.5, 3.0, 0x000000);
        QCOMPARE(r.pixel(3, 1), uint32_t(0x808080)); // half covered
        QCOMPARE(r.pixel(3, 2), uint32_t(0x000000));
        QCOMPARE(r.pixel(3, 3), uint32_t(0xffffff));
        r.blendPixel(100, 100, 0); // outside: ignored
    }

    void emptyChartStillHasItsFrame()
    {
        MemoryChartData d;
        d.title = "\n\nMax memory allocated: 0.00 GiB \nMax memory reserved: n/a";
        const Raster r = renderMemoryChart(d);
        QCOMPARE(r.width(), 1600);
        QCOMPARE(r.height(), 960);
        QCOMPARE(r.pixel(200, 400), uint32_t(0));
        // The right edge of the axes box ends left of the legend's frame (0xcccccc, top-right corner):
        // the legend never covers the plot.
        int right = -1, legendLeft = -1;
        for (int x = r.width() - 1; x >= 0 && right < 0; --x)
            if (r.pixel(x, 400) == 0) right = x;
        for (int x = 0; x < r.width() && legendLeft < 0; ++x)
            if (r.pixel(x, 6) == 0xcccccc) legendLeft = x;
        QVERIFY(right > 1200);
        QVERIFY(legendLeft > right);
        QCOMPARE(r.pixel(700, 854), uint32_t(0));
    }
};

QTEST_GUILESS_MAIN(TestChartRaster)
#include "tst_chartraster.moc"
