// Checks of 2026-12-06 (eleventh session). Each test states what it pins and its source.
#include "helpers.hpp"

using nlohmann::json;

namespace {

// gpus_needed for `model` on `device`, `tokens` in `days`, with `training` (tokens added).
json gpus_needed(const char* model, const char* device, double tokens, double days, json training = json::object()) {
    training["tokens"] = tokens;
    return run({{"model", {{"preset", model}}},
                {"hardware", {{"device", device}}},
                {"training", training},
                {"inverse", {{"question", "gpus_needed"}, {"days", days}}},
                {"explain", false}});
}

// The seconds an estimate of a gpus_needed report's echo takes: its inputs, the inverse question
// removed, on the count answered.
double echo_seconds(const json& report) {
    json e = report["inputs"];
    e.erase("inverse");
    e["hardware"]["count"] = report["inverse"]["gpus"];
    e["explain"] = false;
    const json t = run(e)["training"];
    REQUIRE(t["fits"] == true);
    return t["seconds"].get<double>();
}

}  // namespace

TEST_CASE("gpus_needed tries the replicas a layout's own MFU asks for, where the batch caps the layout: Llama 3 70B at pp 4 on H100") {
    // A red team (stop 49): with pp 4 given, TP4 runs at 46.8 % MFU up to 30,720 H100 (1,920 replicas
    // of 4 sequences: the largest published batch, 62.9M tokens) and TP8 at 36.5 % above. The
    // bisection of TP4's replicas took fewer replicas to run no faster, met only at TP8, and 7.52 days
    // answered 41,568 GPUs where 30,192 at TP4 take 7.516 days (the answer before c04b3a2).
    const double days = 5 * std::pow(1.06, 7);  // 7.518
    const json r = gpus_needed("llama3-70b", "nvidia-h100-sxm5-80gb", 15e12, days, {{"pp", 4}});
    const json& a = r["inverse"];
    REQUIRE(a["gpus"].is_number());
    CHECK(a["gpus"].get<double>() <= 30192);
    CHECK(a["plan"]["tp"] == 4);
    CHECK(a["seconds_at_gpus"].get<double>() <= days * 86400);
    CHECK(echo_seconds(r) == Approx(a["seconds_at_gpus"].get<double>()).epsilon(1e-9));
    // Around it, a longer deadline never answers more.
    double fewest = 0;
    for (double d = 7.0; d <= 8.0; d += 0.1) {
        INFO(d << " days");
        const json b = gpus_needed("llama3-70b", "nvidia-h100-sxm5-80gb", 15e12, d, {{"pp", 4}})["inverse"];
        REQUIRE(b["gpus"].is_number());
        if (fewest > 0) CHECK(b["gpus"].get<double>() <= fewest);
        fewest = fewest > 0 ? std::min(fewest, b["gpus"].get<double>()) : b["gpus"].get<double>();
    }
}

TEST_CASE("gpus_needed for DeepSeek-V3 at ep 8 on A100 in 23.7 days answers no more than the 30,336 GPUs of before c04b3a2") {
    // A red team (stop 49): c04b3a2 answered 39,144 GPUs; the replicas of a 21-stage layout at its own
    // MFU meet it on fewer.
    const json r = gpus_needed("deepseek-v3", "nvidia-a100-sxm4-80gb", 14.8e12, 5 * std::pow(1.07, 23), {{"ep", 8}});
    REQUIRE(r["inverse"]["gpus"].is_number());
    CHECK(r["inverse"]["gpus"].get<double>() <= 30336);
    CHECK(echo_seconds(r) == Approx(r["inverse"]["seconds_at_gpus"].get<double>()).epsilon(1e-9));
}

TEST_CASE(
    "gpus_needed still says 'cannot be met' when the fastest run takes far longer than the deadline, without trying the balanced depths") {
    // A red team (stop 49): Llama 3 70B on H100 in 4 sites (the default WAN between them) cannot meet
    // any deadline; c04b3a2 tried every balanced depth's replicas below twice the fastest count, 2-5x
    // the time. The answer is unchanged.
    const json a = run({{"model", {{"preset", "llama3-70b"}}},
                        {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"sites", 4}}},
                        {"training", {{"tokens", 15e12}}},
                        {"inverse", {{"question", "gpus_needed"}, {"days", 221}}},
                        {"explain", false}})["inverse"];
    CHECK(a["gpus"].is_null());
    CHECK(a["infeasible_reason"].get<std::string>().find("cannot be met") != std::string::npos);
}

TEST_CASE("gpus_needed tries the balanced pipeline depths with ep given: DeepSeek-V3 at ep 8 on A100 over 28.9 and 29.4 days") {
    // A red team (stop 49): whole replicas of the balanced depths were tried only with none of tp, pp,
    // cp and ep given. With ep 8, 28.9 days answered 21,672 GPUs at 21 stages and 29.4 days 23,424 at
    // 16; and 14.2 to 14.6 days were 'cannot be met' where 116,352 GPUs at 9 stages take 14.17 days.
    // A replica of p stages holds p x ep ranks whole.
    const double shorter = 5 * std::pow(1.015, 118), longer = 5 * std::pow(1.015, 119);  // 28.97, 29.41
    const json a = gpus_needed("deepseek-v3", "nvidia-a100-sxm4-80gb", 14.8e12, shorter, {{"ep", 8}})["inverse"];
    const json b = gpus_needed("deepseek-v3", "nvidia-a100-sxm4-80gb", 14.8e12, longer, {{"ep", 8}})["inverse"];
    REQUIRE(a["gpus"].is_number());
    REQUIRE(b["gpus"].is_number());
    CHECK(b["gpus"].get<double>() <= a["gpus"].get<double>());
    CHECK(b["seconds_at_gpus"].get<double>() <= longer * 86400);
    const json c = gpus_needed("deepseek-v3", "nvidia-a100-sxm4-80gb", 14.8e12, 14.2, {{"ep", 8}});
    REQUIRE(c["inverse"]["gpus"].is_number());
    CHECK(c["inverse"]["seconds_at_gpus"].get<double>() <= 14.2 * 86400);
    CHECK(echo_seconds(c) == Approx(c["inverse"]["seconds_at_gpus"].get<double>()).epsilon(1e-9));
}
