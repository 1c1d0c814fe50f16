// Plan search: feasibility rules, ranking, and the published Megatron plans.
#include "gpucalc/catalog.hpp"
#include "gpucalc/plan.hpp"
#include "helpers.hpp"

using namespace gpucalc;
using nlohmann::json;

TEST_CASE("plan search: counts, rejection reasons, ranking, every returned plan valid") {
    json s = {{"model", {{"preset", "gpt3-175b"}}},
              {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
              {"training", {{"global_batch", 1536}, {"tokens", 300e9}}}};
    auto r = json::parse(plan_json(s.dump()));
    REQUIRE_FALSE(r.contains("errors"));
    const auto& p = r["plan"];
    CHECK(p["considered"].get<double>() > 10000);
    CHECK(p["feasible"].get<double>() > 0);
    CHECK(p["rejected"]["out_of_memory"].get<double>() > 0);
    CHECK(p["rejected"]["indivisible"].get<double>() > 0);
    CHECK(p["considered"].get<double>() ==
          p["feasible"].get<double>() + p["rejected"]["out_of_memory"].get<double>() + p["rejected"]["indivisible"].get<double>());
    const auto& best = p["best"];
    REQUIRE(best.size() == 10);
    for (std::size_t i = 0; i < best.size(); ++i) {
        const auto& b = best[i];
        CHECK(b["tp"].get<double>() * b["pp"].get<double>() * b["dp"].get<double>() == 1024);
        CHECK(b["memory_per_gpu_bytes"].get<double>() <= 80e9);
        CHECK(b["pp"].get<double>() * b["vpp"].get<double>() <= 96 + 2);  // uneven stages, a layer (or embedding/loss) per chunk
        CHECK(!(b["zero"].get<double>() >= 2 && b["pp"].get<double>() > 1));
        if (i > 0) CHECK(b["tokens_per_second"].get<double>() <= best[i - 1]["tokens_per_second"].get<double>());
    }
    // The best plan's configuration, evaluated through the forward estimator, gives the same step time.
    json fwd = s;
    for (const char* k : {"tp", "pp", "vpp", "micro_batch", "zero", "recompute", "sequence_parallel", "overlap_dp_comm"})
        fwd["training"][k] = best[0][k];
    auto e = run(fwd);
    CHECK(e["training"]["step_seconds"].get<double>() == Approx(best[0]["step_seconds"].get<double>()));
    CHECK(e["training"]["fits"] == true);
}

TEST_CASE("published Megatron 2021 layouts: search is at least as fast and ranks them in the top 10 layouts") {
    struct Row {
        const char* preset;
        double tp, pp, n, gb;
    };
    const Row rows[] = {{"megatron-18b", 8, 1, 256, 1024},
                        {"megatron-39b", 8, 2, 512, 1536},
                        {"megatron-76b", 8, 4, 1024, 1792},
                        {"megatron-145b", 8, 8, 1536, 2304},
                        {"megatron-310b", 8, 16, 1920, 2160}};
    for (const auto& row : rows) {
        INFO(row.preset);
        json s = {{"model", {{"preset", row.preset}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", row.n}}},
                  {"training", {{"global_batch", row.gb}, {"attention", "materialized"}, {"precision", "fp16"}}}};
        auto r = json::parse(plan_json(s.dump()));
        json pub = s;
        pub["training"]["recompute"] = "full";
        REQUIRE_FALSE(r.contains("errors"));
        pub["training"]["tp"] = row.tp;
        pub["training"]["pp"] = row.pp;
        pub["training"]["zero"] = 0;
        pub["training"]["sequence_parallel"] = false;
        pub["training"]["overlap_dp_comm"] = false;
        const double published = run(pub)["training"]["step_seconds"].get<double>();
        CHECK(r["plan"]["best"][0]["step_seconds"].get<double>() <= published);
        const auto& layouts = r["plan"]["best_per_layout"];
        bool found = false;
        for (std::size_t i = 0; i < layouts.size() && i < 10; ++i)
            if (layouts[i]["tp"] == row.tp && layouts[i]["pp"] == row.pp) found = true;
        CHECK(found);
    }
}
