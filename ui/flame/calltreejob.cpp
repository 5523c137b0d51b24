#include "ui/flame/calltreejob.h"

#include "core/analysis/timeline/linkindex.h"
#include "ui/document/tracedocument.h"

namespace ks::ui {

CallTree buildDocumentCallTree(const TraceDocument& doc, CallTreeOptions options, bool growing)
{
    if (!growing) return CallTree::build(*doc.trace, doc.links, options);
    LinkIndex links;
    links.build(*doc.trace, options.cancel);
    return CallTree::build(*doc.trace, links, options);
}

CallTreeJob::CallTreeJob(QObject* parent) : QObject(parent)
{
    m_poll.setInterval(100);
    connect(&m_poll, &QTimer::timeout, this, [this] {
        if (m_permille) emit progressed(m_permille->load(std::memory_order_relaxed));
    });
}

void CallTreeJob::cancel()
{
    m_jobs.cancel();
    finish();
}

void CallTreeJob::finish()
{
    m_poll.stop();
    m_permille.reset();
}

int CallTreeJob::permille() const
{
    return m_permille ? m_permille->load(std::memory_order_relaxed) : -1;
}

} // namespace ks::ui
