// Roofline and device comparison.
#include "helpers.hpp"

using nlohmann::json;

TEST_CASE("roofline: ridge point = peak / bandwidth; decode memory-bound, big GEMM compute-bound") {
    auto r = run({{"roofline", {{"devices", {"nvidia-h100-sxm5-80gb", "amd-epyc-9654"}}, {"precision", "bf16"}}}});
    REQUIRE_FALSE(r.contains("errors"));
    const auto& h = r["roofline"]["devices"][0];
    CHECK(h["ridge_flops_per_byte"].get<double>() == Approx(989.4e12 / 3.35e12));
    auto kernel = [&](const json& d, const char* id) {
        for (const auto& k : d["kernels"])
            if (k["id"] == id) return k;
        return json();
    };
    CHECK(kernel(h, "gemm_8192")["bound"] == "compute");
    CHECK(kernel(h, "decode_batch1")["bound"] == "memory");
    CHECK(kernel(h, "decode_batch1")["attainable_flops_per_second"].get<double>() == Approx(3.35e12));
    // The CPU has no bf16 peak in the catalog: it falls back to fp32 and says so.
    const auto& c = r["roofline"]["devices"][1];
    CHECK(c["precision"] == "fp32");
    CHECK(c["peak_flops_per_second"].get<double>() == Approx(7372.8e9));
    // 8192^3 GEMM takes far longer on the CPU.
    CHECK(kernel(c, "gemm_8192")["seconds"].get<double>() > 100 * kernel(h, "gemm_8192")["seconds"].get<double>());
    CHECK(h["curve"].size() == 84);
}

TEST_CASE("A100 vs V100: 19.5 vs 15.7 TFLOPS FP32, but 312 vs 125 on tensor cores") {
    auto fp32 = run({{"compare", {{"a", "nvidia-a100-sxm4-80gb"}, {"b", "nvidia-v100-sxm2-32gb"}, {"precision", "fp32"}}}});
    CHECK(fp32["compare"]["compute_ratio"].get<double>() == Approx(19.5 / 15.7));
    auto tc = run({{"compare", {{"a", "nvidia-a100-sxm4-80gb"}, {"b", "nvidia-v100-sxm2-32gb"}, {"precision", "fp16"}}}});
    CHECK(tc["compare"]["peak_a_flops_per_second"].get<double>() == Approx(312e12));
    CHECK(tc["compare"]["peak_b_flops_per_second"].get<double>() == Approx(125e12));
    CHECK(tc["compare"]["compute_ratio"].get<double>() == Approx(2.496));
}

TEST_CASE("what one H100 is worth in EPYC 9654 cores (peak to peak)") {
    auto r = run({{"compare", {{"a", "nvidia-h100-sxm5-80gb"}, {"b", "amd-epyc-9654"}, {"precision", "bf16"}}}});
    const auto& c = r["compare"];
    CHECK(c["precision_b"] == "fp32");
    CHECK(c["compute_ratio"].get<double>() == Approx(989.4e12 / 7372.8e9));
    CHECK(c["cpu_cores_equivalent"].get<double>() == Approx(989.4e12 / 7372.8e9 * 96));
    CHECK(c["bandwidth_ratio"].get<double>() == Approx(3350.0 / 460.8));
}
