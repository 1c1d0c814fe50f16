// Fixes of 2026-12-06 (review 15): the derivations ("show the work") still incomplete after review 13.
// Each test recomputes the figure from the derivation's own values and compares it with the figure.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;

namespace {

json explained(json scenario) {
    scenario["explain"] = true;
    const json r = run(scenario);
    INFO(r.dump().substr(0, 2000));
    REQUIRE_FALSE(r.contains("errors"));
    return r;
}

json derivation_of(const json& report, const std::string& key) {
    INFO(key);
    REQUIRE(report["explain"].contains(key));
    return report["explain"][key];
}

double result(const json& d) { return d["result"].get<double>(); }

}  // namespace

TEST_CASE("fine-tuning's trainable parameters are the rank x the listed d_in + d_out x the layers, exactly") {
    // Review 15: lora_width was computed twice (for the figure and for its derivation); now once. Dense,
    // MoE and MLA models, every module choice.
    for (const char* model : {"llama3-8b", "mixtral-8x7b", "deepseek-v3"}) {
        for (const char* modules : {"qv", "qkv", "attention", "all_linear", "qvo_mlp"}) {
            const json r = explained({{"model", {{"preset", model}}},
                                      {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}},
                                      {"finetune", {{"method", "lora"}, {"lora_modules", modules}, {"lora_rank", 16}, {"tokens", 1e8}}}});
            const json d = derivation_of(r, "finetune.trainable_params");
            INFO(model << " " << modules << ": " << d.dump());
            CHECK(derivation_value(d, "d_in_plus_d_out") > 0);
            CHECK(result(d) == derivation_value(d, "rank") * derivation_value(d, "d_in_plus_d_out") * derivation_value(d, "layers"));
            CHECK(result(d) == r["finetune"]["trainable_params"].get<double>());
        }
    }
}
