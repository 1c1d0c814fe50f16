// Parameter counts against published figures; FLOPs per token against the paper formulas.
#include "gpucalc/model.hpp"
#include "helpers.hpp"

using namespace gpucalc;

TEST_CASE("every preset's parameter count matches its published figure") {
    for (const auto& p : model_presets()) {
        INFO(p.id << " source: " << p.published_source);
        const double n = count_params(p.spec).total;
        // Exact where the publication gives an exact count (HF checkpoints), else the rounding of the paper.
        const bool exact = p.published_params != std::floor(p.published_params / 1e7) * 1e7;
        if (exact)
            CHECK(n == p.published_params);
        else
            CHECK(n == Approx(p.published_params).epsilon(0.05));  // papers round (1.65B is "1.7B")
    }
}

TEST_CASE("GPT-3 175B: 174,604,259,328 parameters (Brown et al. 2020 Table D.1: 174,600M)") {
    CHECK(count_params(*find_model_preset("gpt3-175b")).total == 174604259328.0);
}

TEST_CASE("MoE totals vs active: Mixtral 46.7B/12.9B, DeepSeek-V3 671B/37B") {
    const ParamCount mx = count_params(*find_model_preset("mixtral-8x7b"));
    CHECK(mx.total == 46702792704.0);                   // HF safetensors total
    CHECK(mx.active == Approx(12.9e9).epsilon(0.005));  // arXiv:2401.04088: 12.9B active
    const ParamCount ds = count_params(*find_model_preset("deepseek-v3"));
    CHECK(ds.total == Approx(671e9).epsilon(0.001));  // arXiv:2412.19437: 671B
    CHECK(ds.active == Approx(37e9).epsilon(0.02));   // 37B activated
}

TEST_CASE("GPT-3 (175B params, 300B tokens) = 3.15e23 FLOPs by 6ND") {
    auto r = run({{"model", {{"params", 175e9}}},
                  {"hardware", {{"device", "nvidia-a100-sxm4-80gb"}, {"count", 1024}}},
                  {"training", {{"tokens", 300e9}, {"mfu", 0.4}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["training"]["flops"].get<double>() == Approx(3.15e23));
    CHECK(r["training"]["flops_6nd"].get<double>() == Approx(3.15e23));
}

TEST_CASE("training FLOPs per token match Megatron's 72 B s l h^2 (1 + s/6h + V/12lh) (arXiv:2104.04473 Eq. 3)") {
    for (const char* id : {"megatron-1.7b", "megatron-145b", "megatron-1t", "gpt3-175b"}) {
        const ModelSpec& m = *find_model_preset(id);
        const double l = m.layers, h = m.hidden, s = m.seq_len, V = m.vocab;
        const double megatron = 72.0 * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
        INFO(id);
        CHECK(model_flops_per_token_training(m) == Approx(megatron).epsilon(0.002));  // biases/norms differ
    }
}

TEST_CASE("PaLM 540B MFU convention: 6N + 12 L H Q T") {
    const ModelSpec& m = *find_model_preset("palm-540b");
    CHECK(attention_flops_per_token_training(m) == Approx(12.0 * 118 * 48 * 256 * 2048));
}

TEST_CASE("model validation names the field") {
    auto r = run({{"model", {{"layers", 4}, {"hidden", 100}, {"heads", 3}, {"vocab", 1000}}}});
    CHECK(has_error(r, "model.heads", "divisibility"));
    auto r2 = run({{"model", {{"preset", "no-such-model"}}}});
    CHECK(has_error(r2, "model.preset", "unknown_preset"));
    auto r3 = run({{"model", {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"kv_heads", 3}, {"vocab", 10}}}});
    CHECK(has_error(r3, "model.kv_heads", "divisibility"));
}
