#include "ui/ranks/ranktablemodels.h"

#include "ui/util/format.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ks::ui {

namespace {

TimeNs meanStep(const RankSummary& r)
{
    if (r.steps.empty()) return 0;
    TimeNs sum = 0;
    for (const RankStep& s : r.steps)
        sum += s.total();
    return sum / TimeNs(r.steps.size());
}

TimeNs maxStep(const RankSummary& r)
{
    TimeNs m = 0;
    for (const RankStep& s : r.steps)
        m = std::max(m, s.total());
    return m;
}

QString ranksText(const std::vector<int64_t>& ranks)
{
    QStringList parts;
    for (int64_t r : ranks)
        parts << QString::number(r);
    return parts.join(u", "_s);
}

QString bandwidth(double gbps)
{
    return gbps > 0 ? QString::number(gbps, 'f', 2) : u"–"_s;
}

} // namespace

RankTableModel::RankTableModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    setColumns({
        C::number(
            u"Rank"_s, u"distributedInfo.rank (or the file name's rank)"_s,
            [](const RankSummary& r) { return QVariant::fromValue(qlonglong(r.rank)); },
            [](const RankSummary& r) { return QVariant::fromValue(qlonglong(r.rank)); })
            .withFirstSortOrder(Qt::AscendingOrder),
        C::number(
            u"Mean step"_s, u"Mean step time (device spans on GPU traces)"_s,
            [](const RankSummary& r) { return formatDuration(meanStep(r)); },
            [](const RankSummary& r) { return QVariant::fromValue(qlonglong(meanStep(r))); }),
        C::number(
            u"Slowest step"_s, u"The rank's longest step"_s,
            [](const RankSummary& r) { return formatDuration(maxStep(r)); },
            [](const RankSummary& r) { return QVariant::fromValue(qlonglong(maxStep(r))); }),
        C::number(
            u"Overlap"_s,
            u"HTA's comm/comp overlap: the share of communication time during which a computation kernel ran"_s,
            [](const RankSummary& r) {
                return r.overlapRatio() < 0 ? u"–"_s : formatPercent(r.overlapRatio());
            },
            [](const RankSummary& r) { return r.overlapRatio(); }),
        C::number(
            u"Communication"_s, u"Time NCCL/RCCL kernels ran (merged), over the whole trace"_s,
            [](const RankSummary& r) { return formatDuration(r.commTime); },
            [](const RankSummary& r) { return QVariant::fromValue(qlonglong(r.commTime)); }),
        C::number(
            u"Collectives"_s, u"Collective calls (NCCL/RCCL kernels, or CPU collectives without a GPU)"_s,
            [](const RankSummary& r) { return QVariant::fromValue(qulonglong(r.collectives.size())); },
            [](const RankSummary& r) { return QVariant::fromValue(qulonglong(r.collectives.size())); }),
        C::number(
            u"Steps"_s, u"ProfilerStep ranges analysed"_s,
            [](const RankSummary& r) { return QVariant::fromValue(qulonglong(r.steps.size())); },
            [](const RankSummary& r) { return QVariant::fromValue(qulonglong(r.steps.size())); }),
        C::text(u"File"_s, u"The rank's trace"_s,
                [](const RankSummary& r) { return QFileInfo(QString::fromStdString(r.path)).fileName(); })
            .withCellToolTip([](const RankSummary& r) { return QString::fromStdString(r.path); }),
    });
}

void RankTableModel::setJob(std::shared_ptr<const JobSummary> job)
{
    beginResetModel();
    m_job = std::move(job);
    endResetModel();
}

CollectiveTableModel::CollectiveTableModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using R = CollectiveRow;
    setColumns({
        C::text(u"Op"_s, u"The collective, normalized (allreduce, allgather, reducescatter, alltoall, ...)"_s,
                [](const R& r) { return QString::fromStdString(r.op); }),
        C::number(
            u"Size"_s, u"Bytes per call as nccl-tests counts them: the larger of the in and out buffers"_s,
            [](const R& r) { return r.bytes > 0 ? formatBytes(double(r.bytes)) : u"?"_s; },
            [](const R& r) { return QVariant::fromValue(qlonglong(r.bytes)); }),
        C::text(u"Dtype"_s, u"Element type"_s, [](const R& r) { return QString::fromStdString(r.dtype); }),
        C::number(
            u"Calls"_s, u"Calls over all ranks"_s,
            [](const R& r) { return QVariant::fromValue(qulonglong(r.calls)); },
            [](const R& r) { return QVariant::fromValue(qulonglong(r.calls)); }),
        C::number(
            u"Ranks"_s, u"Ranks that ran it"_s,
            [](const R& r) { return QVariant::fromValue(qulonglong(r.ranks)); },
            [](const R& r) { return QVariant::fromValue(qulonglong(r.ranks)); }),
        C::number(
            u"Latency"_s, u"Mean duration of a call (kernel time)"_s,
            [](const R& r) { return formatDuration(int64_t(r.meanLatency)); },
            [](const R& r) { return r.meanLatency; }),
        C::number(
            u"algbw GB/s"_s, u"nccl-tests' algorithm bandwidth: size / latency"_s,
            [](const R& r) { return bandwidth(r.algBandwidth); }, [](const R& r) { return r.algBandwidth; }),
        C::number(
            u"busbw GB/s"_s,
            u"nccl-tests' bus bandwidth: algbw × 2(n-1)/n (allreduce), (n-1)/n (allgather, reducescatter, "
            u"alltoall), 1 (broadcast, reduce)"_s,
            [](const R& r) { return bandwidth(r.busBandwidth); }, [](const R& r) { return r.busBandwidth; }),
        C::number(
            u"Max skew"_s, u"Largest start-time spread of one call across ranks (k-th call matched)"_s,
            [](const R& r) { return formatDuration(r.maxSkew); },
            [](const R& r) { return QVariant::fromValue(qlonglong(r.maxSkew)); }),
        C::number(
            u"Mean skew"_s, u"Mean start-time spread across ranks"_s,
            [](const R& r) { return formatDuration(int64_t(r.meanSkew)); },
            [](const R& r) { return r.meanSkew; }),
        C::number(
            u"Late rank"_s, u"The rank that most often started the call last"_s,
            [](const R& r) { return r.lateRank < 0 ? u"–"_s : QString::number(r.lateRank); },
            [](const R& r) { return QVariant::fromValue(qlonglong(r.lateRank)); }),
    });
}

void CollectiveTableModel::setRows(std::vector<CollectiveRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

StragglerTableModel::StragglerTableModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using R = StragglerReport::StepRow;
    setColumns({
        C::number(
            u"Step"_s, u"ProfilerStep number"_s,
            [](const R& r) { return QVariant::fromValue(qlonglong(r.step)); },
            [](const R& r) { return QVariant::fromValue(qlonglong(r.step)); })
            .withFirstSortOrder(Qt::AscendingOrder),
        C::number(
            u"Start spread"_s, u"Latest minus earliest start of the metric kernel across ranks"_s,
            [](const R& r) { return formatDuration(r.spread); },
            [](const R& r) { return QVariant::fromValue(qlonglong(r.spread)); }),
        C::number(
            u"Ranks"_s, u"Ranks whose metric kernel of this step is long enough to count (1% of a step)"_s,
            [](const R& r) { return QVariant::fromValue(qulonglong(r.ranks)); },
            [](const R& r) { return QVariant::fromValue(qulonglong(r.ranks)); }),
        C::number(
            u"Latest rank"_s, u"The rank that started the metric kernel last"_s,
            [](const R& r) { return QVariant::fromValue(qlonglong(r.latestRank)); },
            [](const R& r) { return QVariant::fromValue(qlonglong(r.latestRank)); }),
        C::text(
            u"Late ranks"_s,
            u"HTA's two latest-starting ranks of the step, less those within the tolerance of the earliest "
            "start; none when the ranks start together"_s,
            [](const R& r) { return r.stragglers.empty() ? u"none"_s : ranksText(r.stragglers); }),
    });
}

void StragglerTableModel::setReport(const StragglerReport& report)
{
    beginResetModel();
    m_rows = report.steps;
    endResetModel();
}

} // namespace ks::ui
