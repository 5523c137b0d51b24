#pragma once

// Helpers of the comparison tests (tst_compare, tst_comparesteps): runs loaded or edited from JSON,
// compared, and the report's rows looked up.

#include "core/analysis/compare/runcompare.h"
#include "core/io/tracereader.h"
#include "jsonfile.h"

#include <QTest>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace ks::test {

struct Run {
    std::unique_ptr<Trace> trace;
    LinkIndex links;
};

inline std::unique_ptr<Run> runOf(std::unique_ptr<Trace> t)
{
    auto r = std::make_unique<Run>();
    r->trace = std::move(t);
    r->links.build(*r->trace);
    return r;
}

inline std::unique_ptr<Run> loadRun(const std::string& path)
{
    LoadResult l = loadTraceFile(path);
    if (!l.trace) qFatal("%s did not load: %s", path.c_str(), l.error.c_str());
    return runOf(std::move(l.trace));
}

inline CompareReport compare(const Run& a, const Run& b, StepRange ra = {}, StepRange rb = {},
                             CompareOptions o = {})
{
    CompareReport r;
    std::string error;
    if (!compareRuns(CompareSideInput{a.trace.get(), &a.links, "A", ra},
                     CompareSideInput{b.trace.get(), &b.links, "B", rb}, o, r, &error))
        qFatal("compare failed: %s", error.c_str());
    return r;
}

inline const OpDiffRow* row(const CompareReport& r, const std::string& name, bool device = false)
{
    for (const OpDiffRow& o : r.ops.rows)
        if (o.name == name && o.device == device) return &o;
    return nullptr;
}

// Per name: ops inserted minus ops removed in the aligned step pair.
inline std::map<std::string, int> treeBalance(const TreeAlignment& t)
{
    std::map<std::string, int> out;
    for (const AlignedOp& op : t.ops) {
        if (op.kind == AlignedOp::Kind::Inserted) ++out[op.name];
        if (op.kind == AlignedOp::Kind::Removed) --out[op.name];
    }
    for (auto it = out.begin(); it != out.end();)
        it = it->second == 0 ? out.erase(it) : std::next(it);
    return out;
}

inline std::string sharedTrace(const char* name)
{
    return std::string(KS_SHARED_TRACES) + "/" + name;
}

inline std::unique_ptr<Run> runFromJson(const nlohmann::json& doc)
{
    LoadResult l = loadTraceData(doc.dump());
    if (!l.trace) qFatal("edited trace did not load: %s", l.error.c_str());
    return runOf(std::move(l.trace));
}

} // namespace ks::test
