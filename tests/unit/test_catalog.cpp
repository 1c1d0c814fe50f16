// Catalog: schema checks on every entry and datasheet figures across vendors.
#include <set>

#include "gpucalc/catalog.hpp"
#include "gpucalc/cluster.hpp"
#include "helpers.hpp"

using namespace gpucalc;

using nlohmann::json;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
static const Device& dev(const char* id) {
    const Device* d = find_device(id);
    REQUIRE(d != nullptr);
    return *d;
}

TEST_CASE("catalog parses without errors and has the required devices") {
    CHECK(catalog_errors().empty());
    int accel = 0, cpus = 0;
    for (const auto& d : catalog()) (d.kind == "cpu" ? cpus : accel)++;
    CHECK(accel >= 24);
    CHECK(cpus >= 6);
    for (const char* id : {"nvidia-v100-sxm2-32gb",
                           "nvidia-v100-pcie",
                           "nvidia-a100-sxm4-40gb",
                           "nvidia-a100-sxm4-80gb",
                           "nvidia-a100-pcie-80gb",
                           "nvidia-h100-sxm5-80gb",
                           "nvidia-h100-pcie-80gb",
                           "nvidia-h100-nvl",
                           "nvidia-h200-sxm-141gb",
                           "nvidia-b200",
                           "nvidia-gb200-per-gpu",
                           "nvidia-b300",
                           "nvidia-gb300-per-gpu",
                           "nvidia-l4",
                           "nvidia-l40s",
                           "nvidia-t4",
                           "nvidia-rtx-4090",
                           "nvidia-a10g",
                           "amd-mi250x",
                           "amd-mi300x",
                           "amd-mi325x",
                           "google-tpu-v4",
                           "google-tpu-v5e",
                           "google-tpu-v5p",
                           "intel-gaudi2",
                           "intel-gaudi3",
                           "amd-epyc-9654",
                           "amd-epyc-7763",
                           "intel-xeon-8480plus",
                           "intel-xeon-8380",
                           "intel-core-i9-13900k",
                           "nvidia-grace-cpu-superchip"})
        CHECK(find_device(id) != nullptr);
}

TEST_CASE("every catalog entry has sources, sane units, unique id, dense <= sparse") {
    std::set<std::string> ids;
    for (const auto& d : catalog()) {
        INFO(d.id);
        CHECK(ids.insert(d.id).second);
        REQUIRE_FALSE(d.sources.empty());
        for (const auto& s : d.sources) CHECK(s.url.rfind("https://", 0) == 0);
        CHECK_FALSE(d.name.empty());
        if (d.memory_bytes) CHECK((*d.memory_bytes >= 8e9 && *d.memory_bytes <= 1e12));
        if (d.memory_bandwidth_bytes_per_second)
            CHECK((*d.memory_bandwidth_bytes_per_second >= 5e10 && *d.memory_bandwidth_bytes_per_second <= 2e13));
        if (d.tdp_watts) CHECK((*d.tdp_watts >= 50 && *d.tdp_watts <= 2000));
        bool any_peak = false;
        for (const auto& p : d.peak_flops_per_second)
            if (p) {
                any_peak = true;
                CHECK((*p >= 1e11 && *p <= 1e17));
            }
        CHECK(any_peak);
        // Matrix units beat the vector units of the same precision.
        if (d.peak(Precision::bf16) && d.peak(Precision::fp32)) CHECK(*d.peak(Precision::bf16) > *d.peak(Precision::fp32));
        const json j = to_nlohmann(device_to_json(d));
        for (auto it = j["sparse_peak_flops_per_second"].begin(); it != j["sparse_peak_flops_per_second"].end(); ++it)
            CHECK(it.value().get<double>() > j["peak_flops_per_second"][it.key()].get<double>());
        if (d.kind == "cpu") CHECK_FALSE(d.cpu_core_groups.empty());
    }
}

TEST_CASE("datasheet figures (dense peaks, memory, cores) across vendors") {
    // NVIDIA H100 whitepaper v1.04 Table 3 / datasheet: SXM5 BF16 1,979 sparse -> 989.4 dense; FP8 1,978.9 dense.
    CHECK(*dev("nvidia-h100-sxm5-80gb").peak(Precision::bf16) == Approx(989.4e12));
    CHECK(*dev("nvidia-h100-sxm5-80gb").peak(Precision::fp8) == Approx(1978.9e12));
    CHECK(*dev("nvidia-h100-sxm5-80gb").simt_cores == 16896);           // 132 SMs x 128
    CHECK(*dev("nvidia-h100-sxm5-80gb").full_die_simt_cores == 18432);  // full GH100, never shipped
    CHECK(dev("nvidia-h100-sxm5-80gb").memory_type == "HBM3");
    CHECK(*dev("nvidia-h100-sxm5-80gb").memory_bandwidth_bytes_per_second == Approx(3.35e12));
    CHECK(*dev("nvidia-h100-sxm5-80gb").tdp_watts == 700);
    // H100 PCIe: HBM2e, 2.0 TB/s (datasheet).
    CHECK(dev("nvidia-h100-pcie-80gb").memory_type == "HBM2e");
    CHECK(*dev("nvidia-h100-pcie-80gb").memory_bandwidth_bytes_per_second == Approx(2.0e12));
    // A100 datasheet: FP32 19.5, BF16 312 dense; 80GB HBM2e 2,039 GB/s.
    CHECK(*dev("nvidia-a100-sxm4-80gb").peak(Precision::fp32) == Approx(19.5e12));
    CHECK(*dev("nvidia-a100-sxm4-80gb").peak(Precision::bf16) == Approx(312e12));
    CHECK(*dev("nvidia-a100-sxm4-80gb").memory_bandwidth_bytes_per_second == Approx(2039e9));
    // V100 updated datasheet: FP32 15.7, FP16 tensor 125; no BF16.
    CHECK(*dev("nvidia-v100-sxm2-32gb").peak(Precision::fp32) == Approx(15.7e12));
    CHECK(*dev("nvidia-v100-sxm2-32gb").peak(Precision::fp16) == Approx(125e12));
    CHECK_FALSE(dev("nvidia-v100-sxm2-32gb").peak(Precision::bf16).has_value());
    // AMD ROCm MI300X table: BF16 1,307.4 dense, 192 GB HBM3, 5.3 TB/s.
    CHECK(*dev("amd-mi300x").peak(Precision::bf16) == Approx(1307.4e12));
    CHECK(*dev("amd-mi300x").memory_bytes == Approx(192 * GiB));  // "192 GB" HBM3 = 192 GiB
    CHECK(*dev("amd-mi300x").memory_bandwidth_bytes_per_second == Approx(5.3e12));
    // Google Cloud TPU v4: 275 TFLOPS bf16, 32 GiB... (catalog keeps Google's "32 GB"), 1,200 GB/s.
    CHECK(*dev("google-tpu-v4").peak(Precision::bf16) == Approx(275e12));
    // NVIDIA L4 datasheet FP16 242 sparse -> 121 dense.
    CHECK(*dev("nvidia-l4").peak(Precision::fp16) == Approx(121e12));
    // Intel Gaudi 3 whitepaper: 1,835 TFLOPS BF16 (at 1,750 MHz).
    CHECK(*dev("intel-gaudi3").peak(Precision::bf16) == Approx(1835e12));
    // H200: 141 GB HBM3e, 4.8 TB/s, same compute as H100 SXM.
    CHECK(*dev("nvidia-h200-sxm-141gb").memory_bytes == Approx(141 * GiB));
    CHECK(*dev("nvidia-h200-sxm-141gb").peak(Precision::bf16) == Approx(989.4e12));
    // Blackwell Ultra (Verda's per-GPU table without sparsity): GB300 BF16 2.5 PF, FP8 5 PF, FP4 15 PF,
    // 279 GB at 8 TB/s, 1.4 kW; HGX B300 BF16 2.25 PF, FP8 4.5 PF, 270 GB at 7.7 TB/s, 1.1 kW. The
    // training precisions are GB200's and B200's; FP64 drops to 1.25 TF (B200: 37).
    CHECK(*dev("nvidia-gb300-per-gpu").peak(Precision::bf16) == Approx(2.5e15));
    CHECK(*dev("nvidia-gb300-per-gpu").peak(Precision::fp8) == Approx(*dev("nvidia-gb200-per-gpu").peak(Precision::fp8)));
    CHECK(*dev("nvidia-gb300-per-gpu").peak(Precision::fp4) == Approx(1.5e16));
    CHECK(*dev("nvidia-gb300-per-gpu").memory_bytes == Approx(279 * GiB));
    CHECK(*dev("nvidia-b300").peak(Precision::bf16) == Approx(*dev("nvidia-b200").peak(Precision::bf16)));
    CHECK(*dev("nvidia-b300").peak(Precision::fp64) == Approx(1.25e12));
    CHECK(*dev("nvidia-b300").tdp_watts == 1100);
}

TEST_CASE("CPU peaks are derived as cores x clock x FLOPs/cycle") {
    // EPYC 9654: 96 cores x 2.4 GHz x 16 DP FLOPs/cycle = 3,686.4 GFLOPS (AMD product page clocks).
    CHECK(*dev("amd-epyc-9654").peak(Precision::fp64) == Approx(3686.4e9));
    CHECK(*dev("amd-epyc-9654").peak(Precision::fp32) == Approx(7372.8e9));
    // Grace CPU Superchip: 144 x 3.1 GHz x 16 = 7,142 GFLOPS, matching NVIDIA's published 7.1 TFLOPS.
    CHECK(*dev("nvidia-grace-cpu-superchip").peak(Precision::fp64) == Approx(7142.4e9));
    // i9-13900K hybrid: 8 P x 3.0 x 16 + 16 E x 2.2 x 8 = 665.6 GFLOPS.
    CHECK(*dev("intel-core-i9-13900k").peak(Precision::fp64) == Approx(665.6e9));
}

TEST_CASE("1,000 H100 SXM: 16.9M CUDA cores (18.4M only for the full die), 80 TB HBM3") {
    auto r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}}});
    REQUIRE_FALSE(r.contains("errors"));
    CHECK(r["cluster"]["cores"] == 16896000.0);
    CHECK(r["cluster"]["full_die_cores"] == 18432000.0);
    CHECK(r["cluster"]["memory_bytes"].get<double>() == Approx(1000 * 80 * GiB));  // 80,000 GiB = 85.9e12 bytes
    CHECK(r["cluster"]["peak_flops_per_second"]["bf16"].get<double>() == Approx(989.4e15));
    CHECK(r["cluster"]["power_watts"].get<double>() == Approx(700e3));
}

TEST_CASE("custom devices: full object, base + override, field-level errors") {
    auto ok = run({{"hardware",
                    {{"device",
                      {{"name", "My GPU"},
                       {"peak_flops_per_second", {{"bf16", 500e12}}},
                       {"memory_bytes", 64e9},
                       {"memory_bandwidth_bytes_per_second", 2e12}}},
                     {"count", 4}}}});
    REQUIRE_FALSE(ok.contains("errors"));
    CHECK(ok["cluster"]["peak_flops_per_second"]["bf16"].get<double>() == Approx(2000e12));
    auto based = run({{"hardware", {{"device", {{"base", "nvidia-h100-sxm5-80gb"}, {"memory_bytes", 96e9}}}, {"count", 2}}}});
    REQUIRE_FALSE(based.contains("errors"));
    CHECK(based["cluster"]["memory_bytes"].get<double>() == Approx(192e9));
    auto bad = run({{"hardware", {{"device", {{"name", "x"}, {"peak_flops_per_second", {{"bf16", -1}}}, {"memory_bytes", 0}}}}}});
    CHECK(has_error(bad, "hardware.device.peak_flops_per_second.bf16", "range"));
    CHECK(has_error(bad, "hardware.device.memory_bytes", "range"));
    CHECK(has_error(bad, "hardware.device.memory_bandwidth_bytes_per_second", "missing"));
}

TEST_CASE("accelerator memory is binary: an \"80 GB\" H100 holds 80 GiB (nvidia-smi: 81,559 MiB usable of 81,920)") {
    CHECK(*dev("nvidia-h100-sxm5-80gb").memory_bytes == Approx(80 * GiB));
    CHECK(*dev("nvidia-h100-sxm5-80gb").memory_bytes > 85.8e9);
    CHECK(*dev("nvidia-a100-sxm4-40gb").memory_bytes == Approx(40 * GiB));
    // CPU sockets carry no device memory.
    CHECK_FALSE(dev("amd-epyc-9654").memory_bytes.has_value());
}

TEST_CASE("cluster power: GPUs, whole nodes (DGX H100 10.2 kW per 8 GPUs) and the facility (x PUE)") {
    // 1,000 H100: 125 DGX H100 nodes x 10.2 kW (DGX H100 user guide) = 1.275 MW, x PUE 1.2 = 1.53 MW;
    // the GPUs alone: 1,000 x 700 W = 0.7 MW.
    auto r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 1000}}}});
    CHECK(r["cluster"]["power_watts"].get<double>() == Approx(700e3));
    CHECK(r["cluster"]["node_power_watts"].get<double>() == Approx(125 * 10200.0));
    CHECK(r["cluster"]["facility_power_watts"].get<double>() == Approx(125 * 10200.0 * 1.2));
    // A device without a reference node falls back to its TDP, and the derivation says so.
    auto t = run({{"hardware", {{"device", "nvidia-l4"}, {"count", 10}}}});
    CHECK(t["cluster"]["node_power_watts"].is_null());
    CHECK(t["cluster"]["facility_power_watts"].get<double>() == Approx(10 * 72.0 * 1.2));
    CHECK(t["explain"]["cluster.facility_power_watts"]["formula"].get<std::string>().find("GPUs only") != std::string::npos);
}

TEST_CASE("prices on one basis: H100 and H200 from the same provider and date; hyperscaler basis on request") {
    const Device& h100 = dev("nvidia-h100-sxm5-80gb");
    const Device& h200 = dev("nvidia-h200-sxm-141gb");
    REQUIRE(h100.cloud_usd_per_hour);
    REQUIRE(h200.cloud_usd_per_hour);
    CHECK(h100.cloud_provider == h200.cloud_provider);
    CHECK(h100.cloud_date == h200.cloud_date);
    CHECK(*h200.cloud_usd_per_hour / *h100.cloud_usd_per_hour < 1.5);  // was 3.5x (RunPod H100 vs AWS H200)
    // costs.price_basis picks the hyperscaler list price (AWS p5: $98.32 / 8 GPUs = $12.29).
    auto r = run({{"hardware", {{"device", "nvidia-h100-sxm5-80gb"}, {"count", 8}}}, {"costs", {{"price_basis", "hyperscaler"}}}});
    CHECK(r["cluster"]["cloud_usd_per_hour"].get<double>() == Approx(8 * 12.29));
    // A device without that basis uses the other one, with a warning that says so.
    auto l4 = run({{"hardware", {{"device", "nvidia-l4"}, {"count", 1}}}, {"costs", {{"price_basis", "hyperscaler"}}}});
    CHECK(l4["cluster"]["cloud_usd_per_hour"].get<double>() > 0);
    CHECK(l4["warnings"].dump().find("no hyperscaler price") != std::string::npos);
    // Every price in the catalog names its provider and date.
    for (const auto& d : catalog())
        for (const auto& p : d.cloud_prices) {
            INFO(d.id);
            CHECK_FALSE(p.provider.empty());
            CHECK_FALSE(p.date.empty());
        }
}

TEST_CASE("a GB200 GPU's NIC is a 400 Gb/s ConnectX-7 and a GB300's an 800 Gb/s ConnectX-8") {
    // NVIDIA Multi-Node NVLink tuning guide (GB200 72x1 compute tray: CX7); GB300 NVL72 Enterprise RA
    // (4 ConnectX-8 per 4-GPU tray). GB200's had been taken as 800 Gb/s (a formula review).
    REQUIRE(find_device("nvidia-gb200-per-gpu") != nullptr);
    CHECK(find_device("nvidia-gb200-per-gpu")->scale_out_bytes_per_second == Approx(400e9 / 8));
    CHECK(find_device("nvidia-gb300-per-gpu")->scale_out_bytes_per_second == Approx(800e9 / 8));
}
