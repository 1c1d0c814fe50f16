// gpucalc command line: a thin wrapper over core/api.
//   gpucalc estimate FILE|-   print the report for a scenario (exit 2 on invalid input)
//   gpucalc plan FILE|-       search parallel layouts for a training scenario
//   gpucalc explain FILE|- [KEY]  derivations of the scenario's report figures (all, or the figure KEY)
//   gpucalc devices           print the hardware catalog as JSON
//   gpucalc presets           print the model presets as JSON
//   gpucalc networks          print the network presets (hardware.network, hardware.wan) with their sources
//   gpucalc reality           famous runs (estimate vs published) and claims with verdicts
//   gpucalc schema [--markdown | --error-codes]  every scenario field (type, unit, range, default, doc); error codes
//   gpucalc bench FILE [N]    time N estimates (or plan searches, if FILE has "plan") of FILE; median seconds
//                             (plan searches: also the median of the search alone, search_median_seconds)
//   gpucalc estimate-lines    read one scenario per line on stdin, print one compact report per line
//                             (the exact string the WebAssembly module returns; used by parity tests)
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gpucalc/api.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/scenario_fields.hpp"

namespace {

int usage() {
    std::cerr << "usage: gpucalc estimate FILE|-\n"
                 "       gpucalc plan FILE|-\n"
                 "       gpucalc explain FILE|- [KEY]\n"
                 "       gpucalc devices\n"
                 "       gpucalc presets\n"
                 "       gpucalc networks\n"
                 "       gpucalc reality\n"
                 "       gpucalc schema [--markdown | --error-codes]\n"
                 "       gpucalc estimate-lines < scenarios.jsonl\n"
                 "       gpucalc --version\n";
    return 2;
}

// Reads at most the size limit + 1 byte (so /dev/zero or a huge file cannot exhaust memory; the
// entry point then reports "too_large").
bool read_input(const std::string& name, std::string& out) {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (name != "-") {
        file.open(name, std::ios::binary);
        if (!file) return false;
        in = &file;
    }
    out.assign(gpucalc::kMaxScenarioBytes + 1, '\0');
    in->read(out.data(), static_cast<std::streamsize>(out.size()));
    out.resize(static_cast<std::size_t>(in->gcount()));
    return true;
}

// Prints the result; errors also go to stderr, one line each, and give exit code 2.
int emit(const std::string& result) {
    const auto j = gpucalc::jv::Value::parse(result);
    if (!j.is_discarded() && j.is_object() && j.contains("errors")) {
        for (const auto& e : j["errors"]) std::cerr << "gpucalc: " << e.value("message", std::string("error")) << "\n";
        std::cout << gpucalc::jr::to_text(j, 2) << "\n";
        return 2;
    }
    std::cout << (j.is_discarded() ? result : gpucalc::jr::to_text(j, 2)) << "\n";
    return 0;
}

// The commands that print a catalog or a reference document and read no input; nothing when cmd
// (with its arguments) is none of them.
std::optional<int> reference_command(const std::string& cmd, int argc, char** argv) {
    if (cmd == "--version") {
        std::cout << "gpucalc " << gpucalc::kVersion << "\n";
        return 0;
    }
    if (cmd == "devices" && argc == 2) return emit(gpucalc::devices_json());
    if (cmd == "presets" && argc == 2) return emit(gpucalc::presets_json());
    if (cmd == "networks" && argc == 2) return emit(gpucalc::networks_json());
    if (cmd == "reality" && argc == 2) return emit(gpucalc::reality_json());
    if (cmd == "schema" && argc == 2) return emit(gpucalc::schema_json_text());
    if (cmd == "schema" && argc == 3 && std::string(argv[2]) == "--error-codes") {
        std::cout << gpucalc::error_codes_markdown();
        return 0;
    }
    if (cmd == "schema" && argc == 3 && std::string(argv[2]) == "--markdown") {
        std::cout << gpucalc::schema_markdown();
        return 0;
    }
    return std::nullopt;
}

// gpucalc bench FILE [N]: the median seconds of N estimates (or plan searches, with the median of
// the search alone), as one JSON line.
int bench(const std::string& file, int n) {
    std::string text;
    if (!read_input(file, text)) return usage();
    const bool plan = text.find("\"plan\"") != std::string::npos;
    std::vector<double> t, search;
    std::size_t sink = 0;
    for (int i = 0; i < n; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::string out = plan ? gpucalc::plan_json(text) : gpucalc::estimate_json(text);
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        sink += out.size();
        if (plan) {  // the search alone, as timed inside the core (after the clock stopped)
            const auto j = gpucalc::jv::Value::parse(out);
            if (j.is_object() && j.contains("plan") && j["plan"].value("search_seconds", -1.0) >= 0)
                search.push_back(j["plan"]["search_seconds"].as_double());
        }
    }
    std::sort(t.begin(), t.end());
    std::sort(search.begin(), search.end());
    std::cout << "{\"median_seconds\": " << t[t.size() / 2] << ", \"runs\": " << n << ", \"bytes\": " << sink / n;
    if (!search.empty()) std::cout << ", \"search_median_seconds\": " << search[search.size() / 2];
    std::cout << "}\n";
    return 0;
}

// Reads the scenario FILE (or stdin, -); says so on stderr when it cannot.
bool read_scenario(const char* name, std::string& text) {
    if (read_input(name, text)) return true;
    std::cerr << "gpucalc: cannot read " << name << "\n";
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    const std::string cmd = argv[1];
    if (const auto rc = reference_command(cmd, argc, argv)) return *rc;
    if (cmd == "bench" && (argc == 3 || argc == 4)) return bench(argv[2], argc == 4 ? std::max(1, std::atoi(argv[3])) : 200);
    if (cmd == "estimate-lines" && argc == 2) {
        std::string line;
        while (std::getline(std::cin, line)) std::cout << gpucalc::estimate_json(line) << "\n";  // lines are tests' own input
        return 0;
    }
    std::string text;
    if (cmd == "explain" && (argc == 3 || argc == 4)) {
        if (!read_scenario(argv[2], text)) return 2;
        return emit(gpucalc::explain_json(text, argc == 4 ? argv[3] : ""));
    }
    if ((cmd == "estimate" || cmd == "plan") && argc == 3) {
        if (!read_scenario(argv[2], text)) return 2;
        return emit(cmd == "estimate" ? gpucalc::estimate_json(text) : gpucalc::plan_json(text));
    }
    return usage();
}
