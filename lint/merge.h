// `retrylint merge`: combining the JSON reports of `--shard` runs.
#pragma once
#include <string>

#include "lint/engine.h"

namespace retrylint {

// A `--format json` report read back; false (and `error`) when it is not one.
bool readJsonReport(const std::string &text, RunResult &out, std::string &error);

// `retrylint merge [--format F] [-o FILE] [--fail-on S] REPORT.json...`: one report from the
// shards' JSON reports, with the exit code a single run would have had.
int mergeMain(int argc, char **argv);

} // namespace retrylint
