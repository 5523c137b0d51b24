// libFuzzer target for .kjob files (core/analysis/ranks/kjob): any text must read as a job (or a
// rank summary) or give a one-line error without control bytes, never a crash, a hang or a
// sanitizer report. What reads is written again and must read back; the job views that
// analyze-job prints (step matrix, stragglers, collective tables) are computed on it, with times
// and sizes anywhere in the int64 range. Seeds: corpus/kjob/.
// Build and run: tests/fuzz/run_fuzz.sh, docs/fuzzing.md.

#include "core/analysis/overview/stepbreakdown.h"
#include "core/analysis/ranks/jobsummary.h"
#include "core/analysis/ranks/kjob.h"
#include "fuzzcheck.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using ks::fuzz::checkMessage;

namespace {

void views(const ks::JobSummary& job)
{
    ks::stepMatrix(job);
    for (size_t c = 0; c < ks::kStepCategoryCount; ++c)
        ks::stepMatrix(job, int(c));
    const ks::StragglerReport s = ks::findStragglers(job);
    checkMessage(s.why);
    ks::collectiveTable(job);
    ks::rankCollectiveTable(job);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    ks::JobSummary job;
    std::string error;
    const bool ok = ks::jobSummaryFromJson(text, job, error);
    if (ok != error.empty()) std::abort(); // an error exactly when it does not read
    checkMessage(error);
    if (ok) {
        views(job);
        const std::string again = ks::jobSummaryToJson(job);
        ks::JobSummary back;
        if (!ks::jobSummaryFromJson(again, back, error)) std::abort(); // what we write reads back
        if (ks::jobSummaryToJson(back) != again) std::abort();         // and the same
    }

    ks::RankSummary rank;
    std::string rankError;
    const bool rankOk = ks::rankSummaryFromJson(text, rank, rankError);
    if (rankOk != rankError.empty()) std::abort();
    checkMessage(rankError);
    if (rankOk) {
        ks::RankSummary back;
        if (!ks::rankSummaryFromJson(ks::rankSummaryToJson(rank), back, rankError)) std::abort();
        ks::JobSummary one;
        one.ranks.push_back(rank);
        one.normalize();
        views(one);
    }
    return 0;
}
