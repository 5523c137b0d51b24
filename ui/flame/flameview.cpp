#include "ui/flame/flameview.h"

#include "core/analysis/calltree/flamegraph.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/calltreejob.h"
#include "ui/util/theme.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace ks::ui {

namespace {

QColor frameColour(const Palette& p, FrameKind kind)
{
    switch (kind) {
    case FrameKind::Python:
    case FrameKind::PythonLine:
        return p.span;
    case FrameKind::Module:
        return p.step;
    case FrameKind::Annotation:
        return p.dataloader;
    case FrameKind::Op:
        return p.cpu;
    case FrameKind::Runtime:
        return p.runtime;
    case FrameKind::Device:
        return p.kernel;
    default:
        return p.other;
    }
}

} // namespace

FlameView::FlameView(QWidget* parent) : QWidget(parent), m_jobs(new CallTreeJob(this))
{
    setMouseTracking(false);
    setMinimumHeight(kRowHeight * 4);
    repaintOnThemeChange(this);
    m_options.keepSlices = true; // a click names the frame's slices
    connect(m_jobs, &CallTreeJob::progressed, this, [this](int permille) {
        if (!m_tree) update(); // the progress is painted in place of the tree
        emit buildProgress(permille);
    });
}

FlameView::~FlameView() = default;

QSize FlameView::sizeHint() const
{
    return QSize(800, kRowHeight * 20);
}

void FlameView::setDocument(std::shared_ptr<const TraceDocument> doc, bool growing, TimeNs from, TimeNs to)
{
    m_doc = std::move(doc);
    m_growing = growing;
    m_options.from = from;
    m_options.to = to;
    rebuild();
}

void FlameView::setRange(TimeNs from, TimeNs to)
{
    m_options.from = from;
    m_options.to = to;
    rebuild();
}

void FlameView::clearRange()
{
    setRange(std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max());
}

void FlameView::refreshGrowing()
{
    if (!m_doc || isBuilding()) return;
    m_growing = true;
    rebuild(true);
}

bool FlameView::isBuilding() const
{
    return m_jobs->isRunning();
}

int FlameView::buildPermille() const
{
    return m_jobs->permille();
}

void FlameView::setMetric(CallTree::Metric metric)
{
    m_metric = metric;
    update();
}

void FlameView::setByLine(bool byLine)
{
    if (m_options.byLine == byLine) return;
    m_options.byLine = byLine;
    rebuild();
}

void FlameView::rebuild(bool keepShown)
{
    if (!keepShown && m_tree) adopt(nullptr, false);
    if (!m_doc || !m_doc->trace) {
        m_jobs->cancel();
        update();
        return;
    }
    m_jobs->start(
        m_doc, m_options, m_growing,
        [](CallTree&& t) { return std::make_shared<const CallTree>(std::move(t)); },
        [this, keepShown](std::shared_ptr<const CallTree> tree) { adopt(std::move(tree), keepShown); });
    update();
}

void FlameView::adopt(std::shared_ptr<const CallTree> tree, bool keepZoom)
{
    // A refreshed tree (a live session's): the zoomed and the clicked frame are found again by
    // their paths of frames (node numbers differ between trees).
    auto remap = [&](uint32_t node) -> uint32_t {
        if (!keepZoom || !tree || !m_tree || node == 0 || node >= m_tree->size())
            return node == 0 ? 0 : UINT32_MAX;
        uint32_t at = 0;
        for (uint32_t n : m_tree->path(node)) {
            const Frame& want = m_tree->frameOf(n);
            uint32_t found = UINT32_MAX;
            for (uint32_t c : tree->node(at).children)
                if (tree->frameOf(c).kind == want.kind && tree->frameOf(c).name == want.name) found = c;
            if (found == UINT32_MAX) return UINT32_MAX;
            at = found;
        }
        return at;
    };
    const uint32_t zoom = remap(m_zoom);
    const uint32_t selected = m_selected == UINT32_MAX ? UINT32_MAX : remap(m_selected);
    m_tree = std::move(tree);
    m_labels.clear();
    m_zoom = zoom == UINT32_MAX ? 0 : zoom;
    m_selected = selected;
    setSearch(m_search);
    emit zoomChanged(m_zoom);
    emit treeChanged();
}

void FlameView::setSearch(const QString& text)
{
    m_search = text;
    m_match.clear();
    if (m_tree && !text.isEmpty()) {
        const QByteArray needle = text.toUtf8();
        const std::string_view n(needle.constData(), size_t(needle.size()));
        m_match.resize(m_tree->frameCount(), 0);
        for (uint32_t f = 0; f < m_tree->frameCount(); ++f)
            m_match[f] = m_tree->frame(f).name.find(n) != std::string_view::npos;
    }
    update();
}

bool FlameView::matches(uint32_t node) const
{
    return !m_match.empty() && m_match[m_tree->node(node).frame];
}

double FlameView::searchShare() const
{
    if (!m_tree || m_match.empty()) return 0;
    const int64_t total = CallTree::value(m_tree->node(m_zoom), m_metric);
    if (total <= 0) return 0;
    int64_t hit = 0;
    std::vector<uint32_t> todo{m_zoom};
    while (!todo.empty()) {
        const uint32_t n = todo.back();
        todo.pop_back();
        if (n != m_zoom && matches(n)) {
            hit += CallTree::value(m_tree->node(n), m_metric); // its callees are inside it
            continue;
        }
        for (uint32_t c : m_tree->node(n).children)
            todo.push_back(c);
    }
    return double(hit) / double(total);
}

void FlameView::zoomTo(uint32_t node)
{
    if (!m_tree || node >= m_tree->size()) node = 0;
    m_zoom = node;
    emit zoomChanged(node);
    update();
}

void FlameView::layout(std::vector<Box>& boxes, std::vector<Box>* merged) const
{
    boxes.clear();
    if (!m_tree || m_tree->size() == 0) return;
    const double width = double(this->width());
    // The zoomed frame's callers first, full width, one row each.
    int row = 0;
    if (m_zoom != 0)
        for (uint32_t n : m_tree->path(m_zoom))
            boxes.push_back(Box{n, 0, width, row++});
    const int64_t total = CallTree::value(m_tree->node(m_zoom), m_metric);
    if (total <= 0) return;
    const double scale = width / double(total);
    const int rows = height() / kRowHeight + 1;
    // Breadth-first by row so that a paint stops at the bottom edge.
    std::vector<Box> level{Box{m_zoom, 0, width, row - 1}};
    std::vector<Box> next;
    while (!level.empty() && level.front().row + 1 < rows) {
        next.clear();
        for (const Box& parent : level) {
            double x = parent.x;
            double narrowStart = -1, narrowWidth = 0;
            for (uint32_t c : m_tree->node(parent.node).children) {
                const int64_t v = CallTree::value(m_tree->node(c), m_metric);
                if (v <= 0) continue;
                const double w = double(v) * scale;
                if (w < 1.0) {
                    // Narrower than a pixel: merged with its narrow neighbours into one block.
                    if (narrowStart < 0) narrowStart = x;
                    narrowWidth += w;
                } else {
                    if (narrowStart >= 0 && merged)
                        merged->push_back(Box{UINT32_MAX, narrowStart, narrowWidth, parent.row + 1});
                    narrowStart = -1;
                    narrowWidth = 0;
                    next.push_back(Box{c, x, w, parent.row + 1});
                }
                x += w;
            }
            if (narrowStart >= 0 && merged)
                merged->push_back(Box{UINT32_MAX, narrowStart, narrowWidth, parent.row + 1});
        }
        boxes.insert(boxes.end(), next.begin(), next.end());
        level.swap(next);
    }
}

uint32_t FlameView::nodeAt(QPoint pos) const
{
    std::vector<Box> boxes;
    layout(boxes, nullptr);
    const int row = pos.y() / kRowHeight;
    for (const Box& b : boxes)
        if (b.row == row && pos.x() >= b.x && pos.x() < b.x + b.w) return b.node;
    return UINT32_MAX;
}

void FlameView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const Palette& pal = Theme::palette();
    p.fillRect(rect(), pal.base);
    std::vector<Box> boxes, merged;
    layout(boxes, &merged);
    m_painted = boxes.size() + merged.size();
    m_merged = merged.size();
    if (!m_tree || boxes.empty()) {
        p.setPen(pal.hintText);
        const int permille = buildPermille();
        p.drawText(
            rect(), Qt::AlignCenter,
            !m_doc ? tr("Open a trace to see its call tree")
            : permille >= 0
                ? tr("Building call tree… %1%").arg(permille / 10)
                : tr("Nothing to show for %1 in this range").arg(QString::fromLatin1(metricName(m_metric))));
        return;
    }
    const QFontMetrics fm(font());
    for (const Box& b : merged)
        p.fillRect(QRectF(b.x, b.row * kRowHeight, std::max(b.w, 1.0), kRowHeight - 1), pal.other);
    for (const Box& b : boxes) {
        const Frame& f = m_tree->frameOf(b.node);
        QColor fill = frameColour(pal, f.kind);
        if (!m_match.empty()) fill = matches(b.node) ? pal.highlight : withAlpha(fill, 90);
        const QRectF r(b.x, b.row * kRowHeight, b.w - (b.w > 3 ? 1 : 0), kRowHeight - 1);
        p.fillRect(r, fill);
        if (b.w > 30) {
            p.setPen(pal.onLightFill);
            // Shaping text is most of a paint: each frame's elided label is kept for its width.
            const int textWidth = int(b.w) - 5;
            auto cached = m_labels.find(b.node);
            if (cached == m_labels.end() || cached->first != textWidth) {
                // Kernel names run to kilobytes: only what can fit is converted and elided (no
                // glyph is narrower than about 3 px), cut at a UTF-8 character boundary.
                size_t bytes = std::min(f.name.size(), size_t(b.w / 3) + 4);
                while (bytes < f.name.size() && bytes > 0 &&
                       (static_cast<unsigned char>(f.name[bytes]) & 0xc0) == 0x80)
                    --bytes;
                QString name = QString::fromUtf8(f.name.data(), qsizetype(bytes));
                if (bytes < f.name.size()) name += QChar(0x2026);
                cached = m_labels.insert(b.node, {textWidth, fm.elidedText(name, Qt::ElideRight, textWidth)});
            }
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, cached->second);
        }
    }
    // The clicked frame: outlined, so the callers, callees and source beside say whose they are.
    for (const Box& b : boxes)
        if (b.node == m_selected) {
            p.setPen(QPen(pal.text, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(b.x + 1, b.row * kRowHeight + 1, std::max(b.w - 2, 1.0), kRowHeight - 3));
        }
}

void FlameView::mousePressEvent(QMouseEvent* event)
{
    const uint32_t n = nodeAt(event->position().toPoint());
    if (n != UINT32_MAX) {
        m_selected = n;
        update();
        emit frameActivated(n);
    }
    QWidget::mousePressEvent(event);
}

void FlameView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) m_labels.clear(); // labels were elided in the old font
    QWidget::changeEvent(event);
}

void FlameView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const uint32_t n = nodeAt(event->position().toPoint());
    zoomTo(n == UINT32_MAX || n == m_zoom ? m_tree && m_zoom ? m_tree->node(m_zoom).parent : 0 : n);
}

} // namespace ks::ui
