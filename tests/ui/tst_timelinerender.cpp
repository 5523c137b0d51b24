// TimelineRenderer paints a depth's slices as one blitted image line where the painter allows it
// (raster engine, no scaling): those frames must be the very pixels QPainter::drawRects gives.

#include "generatedtrace.h"
#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinerenderer.h"
#include "ui/timeline/timelinestate.h"
#include "ui/timeline/timelineview.h"

#include <QImage>
#include <QPainter>
#include <QPixmap>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

// Nested host threads (fifteen levels, sixty-four op names) and GPU streams of short kernels with
// memcpys among them: dense enough that zoomed out most slices share pixel columns.
std::shared_ptr<TraceDocument> generatedDocument()
{
    bench::GeneratedTraceOptions o;
    o.cpuThreads = 2;
    o.gpuStreams = 2;
    o.cpuSlicesPerThread = 60'000;
    o.kernelsPerStream = 30'000;
    o.span = 200'000'000;
    return makeDocument(bench::generateTrace(o), QStringLiteral("generated"));
}

QImage render(TimelineRenderer& r, const TimelineState& s, QSize size, QImage::Format format, qreal dpr = 1)
{
    QImage image(size * dpr, format);
    image.setDevicePixelRatio(dpr);
    image.fill(Qt::black);
    QPainter p(&image);
    r.paint(p, size, s);
    return image;
}

} // namespace

class TestTimelineRender : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_doc = generatedDocument(); }

    void stripeBlitsPaintTheSamePixelsAsDrawRects_data()
    {
        QTest::addColumn<double>("from"); // fraction of the trace where the window starts
        QTest::addColumn<double>("span"); // fraction of the trace it covers
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("scrollY");
        QTest::addColumn<int>("format");
        const int rgb32 = QImage::Format_RGB32, argb = QImage::Format_ARGB32_Premultiplied;
        QTest::newRow("whole trace") << 0.0 << 1.0 << QSize(1600, 900) << 0 << rgb32;
        QTest::newRow("whole trace, ARGB") << 0.0 << 1.0 << QSize(1600, 900) << 0 << argb;
        QTest::newRow("before the start") << -0.2 << 0.5 << QSize(1200, 700) << 0 << rgb32;
        QTest::newRow("past the end") << 0.8 << 0.5 << QSize(1200, 700) << 0 << rgb32;
        QTest::newRow("a tenth, odd width") << 0.31 << 0.1 << QSize(977, 613) << 0 << rgb32;
        QTest::newRow("scrolled mid-track") << 0.1 << 0.3 << QSize(1300, 500) << 137 << rgb32;
        QTest::newRow("zoomed in, labels") << 0.4 << 0.0004 << QSize(1400, 800) << 0 << argb;
        QTest::newRow("narrow window") << 0.5 << 0.01 << QSize(300, 400) << 20 << rgb32;
    }
    void stripeBlitsPaintTheSamePixelsAsDrawRects()
    {
        QFETCH(double, from);
        QFETCH(double, span);
        QFETCH(QSize, size);
        QFETCH(int, scrollY);
        QFETCH(int, format);
        const Trace& t = *m_doc->trace;
        const double length = double(t.endTime() - t.startTime());
        TimelineState s;
        s.window.t0 = t.startTime() + TimeNs(from * length);
        s.window.t1 = s.window.t0 + std::max<TimeNs>(1000, TimeNs(span * length));
        s.scrollY = scrollY;
        s.hoverX = size.width() / 2;

        TimelineRenderer blits;
        blits.setDocument(m_doc.get());
        TimelineRenderer rects;
        rects.setDocument(m_doc.get());
        rects.setStripeBlits(false);
        const QImage a = render(blits, s, size, QImage::Format(format));
        const QImage b = render(rects, s, size, QImage::Format(format));
        QVERIFY(blits.stripesBlitted() > 0); // the blits were taken, not the fallback
        QCOMPARE(rects.stripesBlitted(), uint64_t(0));
        QCOMPARE(a, b);
        // A repaint from the cached geometry (hover moved) too.
        s.hoverX += 37;
        QCOMPARE(render(blits, s, size, QImage::Format(format)),
                 render(rects, s, size, QImage::Format(format)));
    }

    void scaledPaintersFallBackToRectangles()
    {
        // On a high-DPI device the blit would be scaled: drawRects paints there.
        const Trace& t = *m_doc->trace;
        TimelineState s;
        s.window = TimeWindow{t.startTime(), t.endTime()};
        TimelineRenderer blits;
        blits.setDocument(m_doc.get());
        TimelineRenderer rects;
        rects.setDocument(m_doc.get());
        rects.setStripeBlits(false);
        const QImage a = render(blits, s, QSize(800, 500), QImage::Format_RGB32, 2);
        QCOMPARE(blits.stripesBlitted(), uint64_t(0));
        QCOMPARE(a, render(rects, s, QSize(800, 500), QImage::Format_RGB32, 2));
        // The same renderer blits again once the painter is unscaled.
        render(blits, s, QSize(800, 500), QImage::Format_RGB32);
        QVERIFY(blits.stripesBlitted() > 0);
    }

    void theViewBlitsOnScreenWithTheSamePixels()
    {
        // The widget's painter (backing store, widget offset) takes the blits too.
        TimelineView v;
        v.resize(1100, 650);
        v.setDocument(m_doc);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.fitAll();
        const uint64_t before = v.renderer().stripesBlitted();
        v.viewport()->repaint();
        QVERIFY(v.renderer().stripesBlitted() > before);
        const QImage blitted = v.viewport()->grab().toImage();
        v.renderer().setStripeBlits(false);
        const QImage rects = v.viewport()->grab().toImage();
        QCOMPARE(blitted, rects);
    }

private:
    std::shared_ptr<TraceDocument> m_doc;
};

QTEST_MAIN(TestTimelineRender)
#include "tst_timelinerender.moc"
