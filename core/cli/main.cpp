// gpucalc command line: a thin wrapper over core/api.
//   gpucalc estimate FILE|-   print the report for a scenario (exit 2 on invalid input)
//   gpucalc plan FILE|-       search parallel layouts for a training scenario
//   gpucalc devices           print the hardware catalog as JSON
//   gpucalc presets           print the model presets as JSON
//   gpucalc estimate-lines    read one scenario per line on stdin, print one compact report per line
//                             (the exact string the WebAssembly module returns; used by parity tests)
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "gpucalc/api.hpp"
#include "gpucalc/plan.hpp"

namespace {

int usage() {
    std::cerr << "usage: gpucalc estimate FILE|-\n"
                 "       gpucalc plan FILE|-\n"
                 "       gpucalc devices\n"
                 "       gpucalc presets\n"
                 "       gpucalc estimate-lines < scenarios.jsonl\n"
                 "       gpucalc --version\n";
    return 2;
}

bool read_input(const std::string& name, std::string& out) {
    if (name == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream f(name, std::ios::binary);
    if (!f) return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
}

// Prints the result; errors also go to stderr, one line each, and give exit code 2.
int emit(const std::string& result) {
    const auto j = nlohmann::json::parse(result, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("errors")) {
        for (const auto& e : j["errors"]) std::cerr << "gpucalc: " << e.value("message", std::string("error")) << "\n";
        std::cout << j.dump(2) << "\n";
        return 2;
    }
    std::cout << (j.is_discarded() ? result : j.dump(2)) << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    const std::string cmd = argv[1];
    if (cmd == "--version") {
        std::cout << "gpucalc " << gpucalc::kVersion << "\n";
        return 0;
    }
    if (cmd == "devices" && argc == 2) return emit(gpucalc::devices_json());
    if (cmd == "presets" && argc == 2) return emit(gpucalc::presets_json());
    if (cmd == "estimate-lines" && argc == 2) {
        std::string line;
        while (std::getline(std::cin, line)) std::cout << gpucalc::estimate_json(line) << "\n";
        return 0;
    }
    if ((cmd == "estimate" || cmd == "plan") && argc == 3) {
        std::string text;
        if (!read_input(argv[2], text)) {
            std::cerr << "gpucalc: cannot read " << argv[2] << "\n";
            return 2;
        }
        return emit(cmd == "estimate" ? gpucalc::estimate_json(text) : gpucalc::plan_json(text));
    }
    return usage();
}
