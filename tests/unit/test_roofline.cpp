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
    CHECK(kernel(h, "gemm")["bound"] == "compute");
    CHECK(kernel(h, "decode_batch1")["bound"] == "memory");
    CHECK(kernel(h, "decode_batch1")["attainable_flops_per_second"].get<double>() == Approx(3.35e12));
    // The per-element kernels are sized so their times read in everyday units, not picoseconds:
    // one billion 16-bit weights read at 3.35 TB/s take 0.60 ms; a 4,096 x 8,192 elementwise add
    // moves 6 bytes per element, 201 MB, in 60 us; 4,096 cached tokens of one head, 2 MiB, in 0.63 us.
    CHECK(kernel(h, "decode_batch1")["seconds"].get<double>() == Approx(2e9 / 3.35e12));
    CHECK(kernel(h, "elementwise_add")["seconds"].get<double>() == Approx(6.0 * 4096 * 8192 / 3.35e12));
    CHECK(kernel(h, "attention_decode")["seconds"].get<double>() == Approx(2.0 * 128 * 2 * 4096 / 3.35e12));
    for (const auto& k : h["kernels"]) CHECK(k["seconds"].get<double>() > 1e-7);
    // The CPU has no bf16 peak in the catalog: it falls back to fp32 and says so.
    const auto& c = r["roofline"]["devices"][1];
    CHECK(c["precision"] == "fp32");
    CHECK(c["peak_flops_per_second"].get<double>() == Approx(7372.8e9));
    // 8192^3 GEMM takes far longer on the CPU.
    CHECK(kernel(c, "gemm")["seconds"].get<double>() > 100 * kernel(h, "gemm")["seconds"].get<double>());
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

TEST_CASE("workload timing: an N x N GEMM and one forward pass of a model on each device, with the bound") {
    auto r =
        run({{"roofline",
              {{"devices", {"nvidia-a100-sxm4-80gb", "intel-xeon-8480plus"}}, {"matmul_n", 4096}, {"model", {{"preset", "llama2-7b"}}}}}});
    REQUIRE_FALSE(r.contains("errors"));
    auto kernel = [&](const json& d, const char* id) {
        for (const auto& k : d["kernels"])
            if (k["id"] == id) return k;
        return json();
    };
    const auto& gpu = r["roofline"]["devices"][0];
    const auto& cpu = r["roofline"]["devices"][1];
    // 2 x 4096^3 FLOPs at 312 TFLOP/s.
    CHECK(kernel(gpu, "gemm")["seconds"].get<double>() == Approx(2.0 * 4096 * 4096 * 4096 / 312e12));
    // One token through Llama 2 7B reads 13.5 GB of weights: memory-bound on both, ~6.6 ms on the A100.
    CHECK(kernel(gpu, "forward_1_token")["bound"] == "memory");
    CHECK(kernel(gpu, "forward_1_token")["seconds"].get<double>() == Approx(2.0 * 6738415616.0 / 2039e9).epsilon(0.01));
    CHECK(kernel(cpu, "forward_1_token")["seconds"].get<double>() > 6 * kernel(gpu, "forward_1_token")["seconds"].get<double>());
    CHECK(kernel(gpu, "forward_prompt")["bound"] == "compute");
    auto bad = run({{"roofline", {{"devices", {"nvidia-a100-sxm4-80gb"}}, {"model", {{"preset", "nope"}}}}}});
    CHECK(has_error(bad, "roofline.model.preset"));
}

TEST_CASE("a GPU's BF16 against a CPU's FP32 carries the ratio at one precision both list") {
    // H100 SXM BF16 989.4 TFLOP/s, FP32 66.9; EPYC 9654 FP32 96 cores x 2.4 GHz x 32 = 7.3728 TFLOP/s
    // (no BF16 peak in the catalog): 134x across precisions, 9.07x like for like.
    const json r = run(json{{"compare", {{"a", "nvidia-h100-sxm5-80gb"}, {"b", "amd-epyc-9654"}}}});
    const json& c = r["compare"];
    CHECK(c["precision_a"] == "bf16");
    CHECK(c["precision_b"] == "fp32");
    CHECK(c["compute_ratio"].get<double>() == Approx(989.4e12 / 7.3728e12));
    CHECK(c["same_precision"] == "fp32");
    CHECK(c["compute_ratio_same_precision"].get<double>() == Approx(66.9e12 / 7.3728e12));
    // Both at the precision asked for: the two ratios are one.
    const json g =
        run(json{{"compare", {{"a", "nvidia-a100-sxm4-80gb"}, {"b", "nvidia-v100-sxm2-32gb"}, {"precision", "fp16"}}}})["compare"];
    CHECK(g["same_precision"] == "fp16");
    CHECK(g["compute_ratio_same_precision"] == g["compute_ratio"]);
}

TEST_CASE("a device with only an FP8 peak is compared at FP8, not at a bf16 peak it lacks (ratio 0 before)") {
    const json c =
        run(json{{"compare",
                  {{"a", {{"memory_bytes", 8e10}, {"memory_bandwidth_bytes_per_second", 3e12}, {"peak_flops_per_second", {{"fp8", 1e15}}}}},
                   {"b", "nvidia-h100-sxm5-80gb"}}}})["compare"];
    CHECK(c["precision_a"] == "fp8");
    CHECK(c["compute_ratio"].get<double>() == Approx(1e15 / 989.4e12));
    CHECK(c["same_precision"] == "fp8");  // the H100's 1,978.9 TFLOP/s FP8
    CHECK(c["compute_ratio_same_precision"].get<double>() == Approx(1e15 / 1978.9e12));
}
