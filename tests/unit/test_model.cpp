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

TEST_CASE("gpt-oss and Qwen3: active parameters as their model cards give them") {
    // arXiv:2508.10925 Table 1 counts the unembedding but not the input embedding in "active":
    // 5.13B (120b) and 3.61B (20b); gpucalc's active count holds both embeddings.
    for (const auto& [id, card] : {std::pair<const char*, double>{"gpt-oss-120b", 5132849472.0}, {"gpt-oss-20b", 3608307264.0}}) {
        const ModelSpec& m = *find_model_preset(id);
        INFO(id);
        CHECK(count_params(m).active - m.vocab * m.hidden == card);  // 201,088 x 2,880 = 579,133,440 input embedding
    }
    // Qwen3-235B-A22B: "22B activated" (arXiv:2505.09388 Table 2); 94 x (attention 71,303,424 + norms
    // 8,192 + 8 experts x 18,874,368 + router 524,288) + embeddings 1,244,659,712 + final norm 4,096.
    CHECK(count_params(*find_model_preset("qwen3-235b-a22b")).active == 22190763520.0);
}

TEST_CASE("hybrid windows: gpt-oss's 18 full and 18 windowed layers attend to 33,344 keys on average at 64K") {
    const ModelSpec& m = *find_model_preset("gpt-oss-120b");
    CHECK(attended_tokens(m, 65536) == (18.0 * 65536 + 18.0 * 128) / 36);  // = 32,832
    CHECK(attended_tokens(m, 66560) == 33344.0);                           // 64K prompt + 1,024 out: (18 x 66,560 + 18 x 128) / 36
    CHECK(attended_tokens(m, 100) == 100.0);                               // shorter than the window: every layer sees all
    // Training FLOPs at its 4,096 pretraining sequence: 6 L H (Q + V) t with t = (18 x 4,096 + 18 x 128) / 36 = 2,112.
    CHECK(attention_flops_per_token_training(m) == 6.0 * 36 * 64 * (64 + 64) * 2112);
    ModelSpec all_windowed = m;
    all_windowed.full_attention_layers = 0;
    CHECK(attended_tokens(all_windowed, 65536) == 128.0);
}

TEST_CASE("hybrid windows: a serving KV cache holds each layer's own span (gpt-oss-120b, 64K prompt, one H100)") {
    auto r = run({{"model", {{"preset", "gpt-oss-120b"}}},
                  {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1}}},
                  {"inference", {{"weight_precision", "int4"}, {"prompt_tokens", 65536}, {"output_tokens", 1024}}}});
    const nlohmann::json& i = r["inference"];
    // K and V: 2 x 8 kv heads x 64 x 2 bytes x 36 layers = 73,728 bytes per token of all layers.
    CHECK(i["kv_cache_bytes_per_token"].get<double>() == 73728.0);
    CHECK(i["kv_cache_bytes"].get<double>() == i["max_batch"].get<double>() * 73728.0 * 33344.0);
    CHECK(i["max_batch"].get<double>() >= 1);
}

TEST_CASE("hybrid windows: disaggregated serving sends each layer's own span of the prompt") {
    auto transfer = [](double window) {
        auto r =
            run({{"model", {{"preset", "gpt-oss-120b"}, {"sliding_window", window}}},
                 {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 16}}},
                 {"inference",
                  {{"weight_precision", "fp8"}, {"prompt_tokens", 8192}, {"output_tokens", 512}, {"disaggregated", true}, {"tp", 2}}}});
        return r["inference"]["disaggregation"]["kv_transfer_seconds"].get<double>();
    };
    // (18 x 8,192 + 18 x 128) / 36 = 4,160 tokens of the 8,192 (no window: every layer sends all).
    CHECK(transfer(128) == Approx(transfer(0) * 4160.0 / 8192.0).epsilon(1e-12));
}

TEST_CASE("hybrid windows: a training step's attention time is its layers' own, half full and half windowed") {
    auto attention = [](int full) {
        auto r = run({{"model", {{"preset", "gpt-oss-20b"}, {"seq_len", 32768}, {"full_attention_layers", full}}},
                      {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 64}}},
                      {"training",
                       {{"tokens", 1e11},
                        {"tp", 1},
                        {"pp", 1},
                        {"cp", 4},
                        {"dp", 16},
                        {"ep", 8},
                        {"micro_batch", 1},
                        {"global_batch", 128},
                        {"recompute", "full"}}}});
        return r["training"]["step_breakdown_seconds"]["attention"].get<double>();
    };
    const double windowed = attention(0), half = attention(12), full = attention(24);
    CHECK(windowed < half);
    CHECK(half < full);
    CHECK(half == Approx((windowed + full) / 2).epsilon(1e-12));
}

TEST_CASE("hybrid windows: full_attention_layers needs a window and at most model.layers") {
    auto r = run({{"model", {{"layers", 4}, {"hidden", 64}, {"heads", 4}, {"vocab", 100}, {"full_attention_layers", 2}}}});
    CHECK(has_error(r, "model.sliding_window", "missing"));
    auto r2 = run(
        {{"model", {{"layers", 4}, {"hidden", 64}, {"heads", 4}, {"vocab", 100}, {"sliding_window", 16}, {"full_attention_layers", 5}}}});
    CHECK(has_error(r2, "model.full_attention_layers", "range"));
}

TEST_CASE("hybrid windows: a preset's full-attention layers follow its layers and its window, and the echo is a valid scenario") {
    auto echo = [](const nlohmann::json& model) {
        auto r = run({{"model", model}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}}});
        REQUIRE(!r.contains("errors"));
        const nlohmann::json m = r["inputs"]["model"];
        auto again = run({{"model", m}, {"hardware", {{"device", "nvidia-h100-sxm5-80gb"}}}});
        CHECK(!again.contains("errors"));
        return m["full_attention_layers"].get<double>();
    };
    CHECK(echo({{"preset", "gpt-oss-20b"}}) == 12);
    CHECK(echo({{"preset", "gpt-oss-120b"}, {"layers", 20}}) == 10);  // every other layer, as gpt-oss builds them
    CHECK(echo({{"preset", "gpt-oss-120b"}, {"layers", 7}}) == 3);    // layers 0, 2, 4, 6 windowed
    CHECK(echo({{"preset", "gpt-oss-120b"}, {"sliding_window", 0}}) == 0);
    CHECK(echo({{"preset", "gpt-oss-120b"}, {"sliding_window", 0}, {"full_attention_layers", nullptr}}) == 0);  // null: not given
    CHECK(echo({{"preset", "gpt-oss-120b"}, {"layers", 20}, {"full_attention_layers", nullptr}}) == 10);
    CHECK(echo({{"preset", "gpt-oss-120b"}, {"layers", 20}, {"full_attention_layers", 20}}) == 20);
    CHECK(echo({{"preset", "gemma3-27b"}}) == 10);                 // layers 5, 11, ..., 59 of 62
    CHECK(echo({{"preset", "gemma3-27b"}, {"layers", 12}}) == 2);  // every sixth
    CHECK(echo({{"preset", "gemma3-27b"}, {"layers", 5}}) == 0);   // all local
}

TEST_CASE("Gemma 3 27B: 25,600M parameters besides the embedding (arXiv:2503.19786 Table 1), by hand") {
    const ModelSpec& m = *find_model_preset("gemma3-27b");
    const ParamCount c = count_params(m);
    // Per layer: Q, K, V, O 22,020,096 each but K and V (16 kv heads) 11,010,048 each = 66,060,288; q/k
    // norms 2 x 128; four norms 4 x 5,376 (before and after attention and MLP); gated MLP 3 x 5,376 x
    // 21,504 = 346,816,512. 62 layers + final norm 5,376 = 25,599,716,096 ("25,600M").
    CHECK(c.total - c.embedding == 25599716096.0);
    CHECK(c.embedding == 262208.0 * 5376);  // tied: 1,409,630,208 (Table 1 gives 1,416M)
    CHECK(attended_tokens(m, 131072) == (10.0 * 131072 + 52.0 * 1024) / 62);
}
