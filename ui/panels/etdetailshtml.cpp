#include "ui/panels/etdetailshtml.h"

#include "ui/panels/detailshtml.h"
#include "ui/util/theme.h"

#include <QStringList>

namespace ks::ui {

namespace {

QString hint(const QString& text)
{
    return QStringLiteral("<span style='color:%1'>%2</span>").arg(Theme::palette().hintText.name(), text);
}

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped();
}

QString ints(const std::vector<int64_t>& v)
{
    QStringList parts;
    for (int64_t x : v)
        parts << QString::number(x);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// An op as a link to its slice when it has one, else as plain "#id name".
QString opRef(const ExecutionTrace& et, const EtLinks& links, uint32_t node)
{
    const EtNode& n = et.nodes()[node];
    const QString label = qstr(n.name) + QLatin1Char(' ') + hint(QStringLiteral("#%1").arg(n.id));
    const SliceRef s = links.sliceOf(node);
    return s.valid() ? QStringLiteral("<a href='%1'>%2</a>").arg(sliceLink(s), label) : label;
}

QString tensorText(const EtTensor& t)
{
    QString s = QStringLiteral("tensor %1 · storage %2").arg(t.id).arg(t.storage);
    if (t.offset) s += QStringLiteral(" +%1").arg(t.offset);
    s += QStringLiteral(" · %1 %2").arg(qstr(t.dtype), ints(t.shape));
    if (t.hasStrides) s += QStringLiteral(" · strides %1").arg(ints(t.strides));
    if (!t.device.empty()) s += QStringLiteral(" · ") + qstr(t.device);
    return s;
}

} // namespace

QString etDetailsHtml(const Trace& trace, const ExecutionTrace& et, const EtLinks& links, uint32_t node)
{
    (void)trace;
    const EtNode& n = et.nodes()[node];
    QString html = QStringLiteral("<h4 style='margin-bottom:2px'>Execution trace</h4><p style='margin-top:0'>"
                                  "node #%1 · rf_id %2")
                       .arg(n.id)
                       .arg(n.rfId);
    if (!n.opSchema.empty()) html += QStringLiteral("<br><code>%1</code>").arg(qstr(n.opSchema));
    html += QStringLiteral("</p>");
    for (int side = 0; side < 2; ++side) {
        const auto& values = side == 0 ? n.inputs : n.outputs;
        if (values.empty()) continue;
        html += QStringLiteral("<p><b>%1</b><br>")
                    .arg(side == 0 ? QStringLiteral("Inputs") : QStringLiteral("Outputs"));
        for (uint32_t v = 0; v < values.size(); ++v) {
            const EtValue& value = values[v];
            html += QStringLiteral("%1. <i>%2</i> ").arg(v).arg(qstr(value.type));
            if (value.tensors.empty()) {
                html += qstr(value.text.size() > 80 ? value.text.substr(0, 80) + "…" : value.text) +
                        QStringLiteral("<br>");
                continue;
            }
            html += QStringLiteral("<br>");
            for (uint32_t t = 0; t < value.tensors.size(); ++t) {
                html += QStringLiteral("&nbsp;&nbsp;") + tensorText(value.tensors[t]);
                if (side == 0) {
                    const int64_t p = et.producerOf(node, v, t);
                    html += p < 0 ? QStringLiteral(" ← ") + hint(QStringLiteral("from outside the trace"))
                                  : QStringLiteral(" ← ") + opRef(et, links, uint32_t(p));
                } else {
                    const auto users = et.consumersOf(node, v, t);
                    QStringList refs;
                    for (uint32_t c : users)
                        refs << opRef(et, links, c);
                    html += users.empty() ? QStringLiteral(" → ") + hint(QStringLiteral("not used later"))
                                          : QStringLiteral(" → ") + refs.join(QStringLiteral(", "));
                }
                html += QStringLiteral("<br>");
            }
        }
        html += QStringLiteral("</p>");
    }
    return html;
}

} // namespace ks::ui
