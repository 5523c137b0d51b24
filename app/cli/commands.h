#pragma once

// Headless subcommands of the kinetoscope executable. Each takes the arguments after its name
// (args[0] is the first argument, not the command) and returns the process exit code:
// 0 success, 1 failure (message on stderr), 2 usage error.

#include "core/live/liveresources.h"

#include <string>
#include <vector>

namespace ks::cli {

using Args = std::vector<std::string>;

struct Command {
    const char* name;
    const char* summary; // one line for --help
    int (*run)(const Args& args);
};

// All subcommands, in the order --help lists them.
const std::vector<Command>& commands();

int runInfo(const Args& args);
int runExport(const Args& args);
int runExportStacks(const Args& args);
int runFlame(const Args& args);
int runExportMemory(const Args& args);
int runSummary(const Args& args);
int runAnalyze(const Args& args);
// analyze --critical-path (app/cli/criticalpath.cpp): runAnalyze hands the arguments over.
bool wantsCriticalPath(const Args& args);
int runAnalyzeCriticalPath(const Args& args);
int runDiff(const Args& args);
int runAnalyzeJob(const Args& args);
int runAnalyzeRank(const Args& args);
int runSnapshot(const Args& args);

// Prints the summary table of a trace (or a log directory's newest trace) when no window can be
// opened; `why` says why ("no display available").
int describeOnTerminal(const std::string& path, const char* why);
int runRecord(const Args& args);

// Resolves the bundled sample trace (build tree or installed location); empty if missing.
std::string sampleTracePath();
// The library, Python bootstrap and injection library a launched live target needs.
live::LiveResources liveResources();

} // namespace ks::cli
