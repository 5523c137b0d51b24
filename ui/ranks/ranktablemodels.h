#pragma once

#include "core/analysis/ranks/jobsummary.h"
#include "ui/util/rowtablemodel.h"

namespace ks::ui {

// One row per rank: steps, mean and slowest step, communication, HTA overlap, collectives, file.
class RankTableModel : public RowTableModel<RankSummary> {
    Q_OBJECT
public:
    explicit RankTableModel(QObject* parent = nullptr);
    void setJob(std::shared_ptr<const JobSummary> job);
    const RankSummary* rank(int row) const { return rowAt(row); }

protected:
    int rowCountOf() const override { return m_job ? int(m_job->ranks.size()) : 0; }
    const RankSummary* rowAt(int r) const override { return m_job ? &m_job->ranks[size_t(r)] : nullptr; }

private:
    std::shared_ptr<const JobSummary> m_job;
};

// The job's collectives: op and size, calls, latency, nccl-tests' algbw and busbw, skew across ranks.
class CollectiveTableModel : public RowTableModel<CollectiveRow> {
    Q_OBJECT
public:
    explicit CollectiveTableModel(QObject* parent = nullptr);
    void setRows(std::vector<CollectiveRow> rows);

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const CollectiveRow* rowAt(int r) const override { return &m_rows[size_t(r)]; }

private:
    std::vector<CollectiveRow> m_rows;
};

// HTA's stragglers, one row per step: the metric kernel's start spread and the ranks flagged.
class StragglerTableModel : public RowTableModel<StragglerReport::StepRow> {
    Q_OBJECT
public:
    explicit StragglerTableModel(QObject* parent = nullptr);
    void setReport(const StragglerReport& report);

protected:
    int rowCountOf() const override { return int(m_rows.size()); }
    const StragglerReport::StepRow* rowAt(int r) const override { return &m_rows[size_t(r)]; }

private:
    std::vector<StragglerReport::StepRow> m_rows;
};

} // namespace ks::ui
