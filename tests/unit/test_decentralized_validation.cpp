// Published decentralized runs (tests/data/decentralized_runs.json): each row a scenario and one
// published figure with its sources. Rows marked within_25 must be predicted within 25%; the others
// are published misses, kept with why (and checked to still miss, so the table stays true). Writes
// decentralized-validation-table.md, which scripts/validation.sh puts in docs/VALIDATION.md.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "gpucalc/claims.hpp"
#include "helpers.hpp"

using nlohmann::json;

namespace {

std::string pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f%%", 100.0 * v);
    return b;
}
std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

}  // namespace

TEST_CASE(
    "published decentralized runs: INTELLECT-1 and DiLoCo reproduce within 25% (tokens/s, utilisation, communication), each with its "
    "source") {
    std::ifstream f(std::string(GPUCALC_DATA) + "/decentralized_runs.json");
    const json doc = json::parse(f);
    REQUIRE(doc["runs"].size() >= 8);
    std::ostringstream md;
    md << "## Decentralized training: published runs\n\n"
          "Generated from `tests/data/decentralized_runs.json` by `tests/unit/test_decentralized_validation.cpp` (the test command "
          "checks it is current). Each row is a gpucalc scenario with one published figure; error = predicted / published - 1. "
          "Rows marked no are published figures the model does not reproduce within 25 %, kept with why.\n\n"
          "| run | figure | published | predicted | error | within 25 % | sources (verification) | assumptions |\n"
          "|---|---|---|---|---|---|---|---|\n";
    int within = 0, checked = 0;
    for (const auto& row : doc["runs"]) {
        const std::string id = row["id"].get<std::string>();
        INFO(id);
        REQUIRE(row["sources"].size() >= 1);
        std::string sources;
        for (const auto& s : row["sources"]) {
            CHECK(s["url"].get<std::string>().rfind("https://", 0) == 0);
            sources += (sources.empty() ? "" : "; ") + s["url"].get<std::string>() + " (" + s["verification"].get<std::string>() + ")";
        }
        json scenario = row["scenario"];
        scenario["explain"] = false;
        const json r = run(scenario);
        REQUIRE_FALSE(r.contains("errors"));
        bool found = false;
        const auto v = gpucalc::report_value(from_nlohmann(r), row["metric"].get<std::string>(), found);
        REQUIRE(v.has_value());
        const double published = row["published"].get<double>();
        const double err = *v / published - 1.0;
        const bool expect = row["within_25"].get<bool>();
        if (expect) {
            CHECK(std::abs(err) <= 0.25);
            ++within;
        } else {
            CHECK(std::abs(err) > 0.25);  // a documented miss: if it starts to reproduce, the table must say so
            CHECK_FALSE(row.value("note", std::string()).empty());
        }
        ++checked;
        md << "| " << row["name"].get<std::string>() << " | `" << row["metric"].get<std::string>() << "` | " << num(published) << " | "
           << num(*v) << " | " << pct(err) << " | " << (expect ? "yes" : "no: " + row["note"].get<std::string>()) << " | " << sources
           << " | " << row["assumptions"].get<std::string>() << " |\n";
    }
    CHECK(within >= 7);
    md << "\nNot reproduced as rows (figures secondary or setups not published in what could be retrieved): OpenDiLoCo's 90-95% "
          "utilisation (arXiv:2407.07852: H and bandwidth not retrieved; INTELLECT-1's README puts its links at up to 40x below 4 Gb/s); "
          "Covenant-72B's 94.5% and 70 s per round (secondary; 72.7B values at >146x compression are 1.99 GB per peer, 145 s at its "
          "~110 Mb/s uplink, so the published figures do not fit one bandwidth); SWARM's 48-82% utilisation of GPT-3-sized stages at "
          "500 Mb/s and 100 ms (secondary; tests/unit/test_network.cpp checks the bound and the square-cube law instead); Streaming "
          "DiLoCo's simulated bandwidth for 90% utilisation (secondary; its step-time assumptions were not retrieved).\n";
    std::ofstream("decentralized-validation-table.md") << md.str();
    CHECK(checked == static_cast<int>(doc["runs"].size()));
}
