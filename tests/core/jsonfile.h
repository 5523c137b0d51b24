#pragma once

// A JSON file, gzip-compressed or not, parsed whole: tests that edit a real trace before loading it.

#include <QTest>
#include <nlohmann/json.hpp>
#include <string>
#include <zlib.h>

namespace ks::test {

inline nlohmann::json readJson(const std::string& path)
{
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) qFatal("cannot open %s", path.c_str());
    std::string text;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        text.append(buf, size_t(n));
    gzclose(f);
    return nlohmann::json::parse(text);
}

} // namespace ks::test
