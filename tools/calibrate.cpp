// tools/calibrate: fits the training time model's efficiency constants on published runs and reports
// the error on runs it did not fit (leave-one-source-group-out).
//
//   gpucalc_calibrate DATA CALIBRATION [--write] [--check] [--markdown OUT]
//   gpucalc_calibrate DATA CALIBRATION --eval [fitted] | --explain RUN_ID | --breakdown
//
// DATA is tests/data/training_runs.json (published tokens/s per device, each row a scenario);
// CALIBRATION is core/data/calibration.json. The fit minimises the squared log error of throughput
// over the benchmark runs (production runs, whose averages include failures and unknown layouts, and
// rows marked "fitted": false, whose fit_note says why, are only predicted), each source group weighted by the square root of its size,
// plus a ridge pull of every constant towards its hardware-fact prior (the value in the generation/framework entry), so that a constant
// with little data stays near what the kernels are measured to reach. Leave-one-group-out: for each group, fit on the others, predict the
// group; the uncertainty band is the 5th-95th percentile of those out-of-sample ratios, its coverage measured on each group with a band
// built from the other groups only.
//   --write     write the fitted constants and band into CALIBRATION
//   --check     exit 1 unless CALIBRATION holds what this run fits and the targets below are met
//   --markdown  write the validation tables (docs/VALIDATION.md's training section)
//   --eval      every run's prediction under the file's priors (--eval fitted: the fitted constants)
//   --explain   one run's layout and step terms; --breakdown: every run's, tab-separated
// The constants fitted in each left-out fold are printed to stderr and tabulated in the markdown.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpucalc/efficiency.hpp"
#include "gpucalc/json_out.hpp"
#include "gpucalc/layout.hpp"
#include "gpucalc/reality.hpp"
#include "gpucalc/scenario.hpp"
#include "gpucalc/scenario_parse.hpp"
#include "gpucalc/training.hpp"

using nlohmann::json;

// The core reads and writes its own JSON values (gpucalc::jv::Value); this tool uses nlohmann's,
// converted through the text (which keeps every value and its kind).
static json to_nlohmann(const gpucalc::jv::Value& v) { return json::parse(gpucalc::jw::text(v)); }
static gpucalc::jv::Value from_nlohmann(const json& j) { return gpucalc::jv::Value::parse(j.dump()); }
using namespace gpucalc;

namespace {

struct Row {
    std::string id, source, group, what;
    Scenario scenario;
    double published = 0;  // tokens/s per device
    bool production = false;
    bool predicted_only = false;  // a production run, or a row marked "fitted": false (its fit_note says why)
};

// A fitted constant: which entry, which field, and its bounds.
struct Param {
    std::string entry;  // generation or framework id
    std::string field;
    double lo, hi;
    bool framework;
    // Never fitted above its prior: a GEMM constant whose prior is measured (Hopper: the H200 GEMMs of
    // tests/data/kernels/; others: the maximum achievable matmul FLOPS, calibration.json) would
    // otherwise let the fit predict GEMMs faster than any measured, absorbing other costs of the runs.
    // Likewise fused attention, whose prior is the kernel's own measurement: on Hopper cuDNN measured
    // on the H200 (0.58), on Ampere FlashAttention-2's A100 benchmark (0.64; Dao 2023 Fig. 4): a
    // framework cannot run attention faster than the kernel it calls. (Free, the fit took Ampere's to
    // 0.758, attention above FlashAttention-2's own figures, absorbing other costs of the A100 runs.)
    bool at_most_prior = false;
};

double* field_ptr(Calibration& c, const Param& p) {
    if (p.entry == "attention_kernels") return p.field == "ring_overhead" ? &c.ring_overhead : nullptr;
    if (p.framework) {
        for (auto& f : c.frameworks)
            if (f.id == p.entry) {
                if (p.field == "kernel_seconds_per_layer") return &f.kernel_seconds_per_layer;
                if (p.field == "memory_traffic") return &f.memory_traffic;
                if (p.field == "tp_overlap") return &f.tp_overlap;
                if (p.field == "dp_overlap") return &f.dp_overlap;
                if (p.field == "fsdp_overlap") return &f.fsdp_overlap;
                if (p.field == "attention_kernel") return &f.attention_kernel;
                if (p.field == "gemm_kernel") return &f.gemm_kernel;
                if (p.field == "fp8_kernel") return &f.fp8_kernel;
                if (p.field == "moe_overhead") return &f.moe_overhead;
                if (p.field == "moe_overlap_hidden") return &f.moe_overlap_hidden;
            }
    } else {
        for (auto& g : c.generations)
            if (g.id == p.entry) {
                if (p.field == "gemm") return &g.gemm;
                if (p.field == "gemm_fp8") return &g.gemm_fp8;
                if (p.field == "attention") return &g.attention;
                if (p.field == "attention_flash2") return &g.attention_flash2;
                if (p.field == "memory") return &g.memory;
                if (p.field == "gemm_half_width") return &g.gemm_half_width;
            }
    }
    return nullptr;
}

const std::vector<Param>& params() {
    static const std::vector<Param> p = {
        {"ampere", "gemm", 0.4, 0.95, false, true},
        {"ampere", "attention", 0.2, 0.9, false, true},
        {"hopper", "gemm", 0.4, 0.95, false, true},
        {"hopper", "attention", 0.2, 0.9, false, true},
        {"hopper", "gemm_fp8", 0.3, 0.95, false, true},
        {"tpu", "gemm", 0.4, 0.98, false},
        {"tpu", "attention", 0.2, 0.9, false},
        {"megatron", "kernel_seconds_per_layer", 1e-6, 5e-4, true},
        {"megatron", "memory_traffic", 0.3, 3.0, true},
        {"megatron", "tp_overlap", 0.0, 0.95, true},
        {"megatron", "dp_overlap", 0.0, 1.0, true},
        {"megatron", "moe_overhead", 0.5, 10.0, true},
        {"megatron", "moe_overlap_hidden", 0.0, 1.0, true},
        {"megatron-legacy", "gemm_kernel", 0.4, 1.2, true},
        {"megatron-legacy", "memory_traffic", 0.3, 3.0, true},
        {"torchtitan", "kernel_seconds_per_layer", 1e-6, 5e-4, true},
        {"torchtitan", "memory_traffic", 0.3, 3.0, true},
        {"torchtitan", "fp8_kernel", 0.4, 1.2, true},
        {"llm-foundry", "kernel_seconds_per_layer", 1e-6, 5e-4, true},
        {"llm-foundry", "memory_traffic", 0.3, 3.0, true},
        {"maxtext", "kernel_seconds_per_layer", 1e-6, 5e-4, true},
        {"maxtext", "memory_traffic", 0.3, 3.0, true},
        {"maxtext", "fsdp_overlap", 0.0, 1.0, true},
        {"attention_kernels", "ring_overhead", 0.01, 2.0, false},
    };
    return p;
}

// Ridge weight of the pull towards the priors, in squared log units (a 10% departure costs as much
// as a 10% error on ~1/5 of a group).
constexpr double kRidge = 0.05;
// The band: the central 90% of the out-of-sample ratios (5th-95th percentile). The out-of-sample
// ratios are heavy-tailed (one framework's runs sit together when its constants are priors), so a
// nominal 90% band is what covers ~80% of a group predicted from the other groups' band; the 82%
// band used before covered 75% of the runs once the model stopped absorbing one group's errors into
// constants shared with another.
constexpr double kBandLow = 0.05, kBandHigh = 0.95;

std::vector<Row> load_rows(const std::string& path, std::vector<std::pair<std::string, std::string>>& excluded) {
    std::ifstream f(path);
    const json doc = json::parse(f);
    std::vector<Row> rows;
    for (const auto& r : doc["runs"]) {
        Row row;
        row.id = r["id"].get<std::string>();
        row.source = r["source"].get<std::string>();
        row.group = r["group"].get<std::string>();
        row.what = r.value("what", std::string());
        row.published = r["published_tokens_per_second_per_device"].get<double>();
        row.production = r.value("production_run", false);
        row.predicted_only = row.production || !r.value("fitted", true);
        Errors errors;
        if (!parse_scenario(from_nlohmann(r["scenario"]), row.scenario, errors)) {
            excluded.push_back({row.id, errors.empty() ? "invalid" : errors[0].field + ": " + errors[0].message});
            continue;
        }
        rows.push_back(row);
    }
    // Rows the data file leaves out, each with its reason (its `skipped` list), are reported with the rest.
    for (const auto& s : doc.value("skipped", json::array()))
        excluded.push_back({s.value("id", std::string()), s.value("why", std::string())});
    return rows;
}

// A row's layout, resolved as the calculator would resolve it for a user who gives what the source
// published, and its training estimate under the current calibration.
struct RunEstimate {
    LayoutChoice layout;
    TrainingResult result;
};
RunEstimate estimate_row(const Row& row) {
    const Scenario& s = row.scenario;
    RunEstimate e{resolve_layout(*s.model, *s.hardware, *s.training), {}};
    Trace none(false);
    e.result = estimate_training(*s.model, *s.hardware, e.layout.config, s.costs, none);
    return e;
}

// Predicted tokens/s per device for a row under the current calibration.
double predict(const Row& row, std::string* note = nullptr) {
    const TrainingResult r = estimate_row(row).result;
    if (note) *note = r.fits ? "" : r.infeasible_reason.empty() ? "does not fit" : r.infeasible_reason;  // the reason says so itself
    return r.tokens_per_second / static_cast<double>(row.scenario.hardware->count);
}

struct Fit {
    Calibration cal;
    double loss = 0;
};

double loss_of(const std::vector<const Row*>& rows, const Calibration& cal, const Calibration& prior) {
    set_calibration_override(&cal);
    std::map<std::string, std::pair<double, int>> by_group;
    for (const Row* r : rows) {
        const double p = predict(*r);
        const double e = p > 0 ? std::log(p / r->published) : 3.0;
        auto& g = by_group[r->group];
        g.first += e * e;
        g.second += 1;
    }
    set_calibration_override(nullptr);
    // Each group weighs sqrt(its size): a large benchmark table counts more than a single paper row,
    // but no publisher dominates.
    double loss = 0;
    for (const auto& [name, g] : by_group) loss += g.first / std::sqrt(static_cast<double>(g.second));
    Calibration c = cal, q = prior;
    for (const auto& p : params()) {
        const double a = *field_ptr(c, p), b = *field_ptr(q, p);
        if (a > 0 && b > 0) loss += kRidge * std::pow(std::log(a / b), 2);
    }
    return loss;
}

// Coordinate descent in log space with shrinking steps; deterministic.
Fit fit(const std::vector<const Row*>& rows, const Calibration& start) {
    Fit best{start, loss_of(rows, start, start)};
    Calibration prior = start;  // the priors, for the constants never fitted above theirs
    double step = 0.3;
    for (int round = 0; round < 7; ++round) {
        bool improved = true;
        for (int pass = 0; pass < 4 && improved; ++pass) {
            improved = false;
            for (const auto& p : params()) {
                for (double dir : {1.0, -1.0}) {
                    Calibration c = best.cal;
                    double* v = field_ptr(c, p);
                    if (!v) continue;
                    // Overlap fractions move additively (they may be 0); the rest multiplicatively.
                    const bool additive = p.field.find("overlap") != std::string::npos;
                    const double next = additive ? *v + dir * step / 2.0 : *v * std::exp(dir * step);
                    const double hi = p.at_most_prior ? std::min(p.hi, *field_ptr(prior, p)) : p.hi;
                    *v = std::clamp(next, p.lo, hi);
                    const double l = loss_of(rows, c, start);
                    if (l < best.loss - 1e-12) {
                        best = {c, l};
                        improved = true;
                    }
                }
            }
        }
        step /= 2.0;
    }
    return best;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(pos);
    const double f = pos - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

std::string fmt(double v, int digits = 3) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
}
std::string pct(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%+.1f%%", 100.0 * v);
    return b;
}

using Excluded = std::vector<std::pair<std::string, std::string>>;  // row id, why

// What the command line asks for (--explain ID and --breakdown only as the third argument).
struct Options {
    std::string data_path, cal_path, markdown, explain_id;
    bool write = false, check = false, eval_only = false, eval_fitted = false, explain = false, breakdown = false;
};

// The command line: DATA CALIBRATION, then the flags in any order.
Options parse_options(int argc, char** argv) {
    Options o;
    o.data_path = argv[1];
    o.cal_path = argv[2];
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--write")
            o.write = true;
        else if (a == "--check")
            o.check = true;
        else if (a == "--eval")
            o.eval_only = true;
        else if (a == "--markdown" && i + 1 < argc)
            o.markdown = argv[++i];
    }
    o.explain = argc > 4 && std::string(argv[3]) == "--explain";
    if (o.explain) o.explain_id = argv[4];
    o.breakdown = argc > 3 && std::string(argv[3]) == "--breakdown";
    o.eval_fitted = argc > 4 && std::string(argv[argc - 1]) == "fitted";
    return o;
}

// The whole text of a file (empty when it cannot be read).
std::string read_text(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// One run's layout and step terms (seconds) under the current calibration.
void print_explain(const Row& r) {
    const Scenario& s = r.scenario;
    const RunEstimate e = estimate_row(r);
    const TrainingConfig& c = e.layout.config;
    const TrainingResult& t = e.result;
    const StepTime& b = t.step;
    std::cout << r.id << " published " << r.published << " predicted " << t.tokens_per_second / static_cast<double>(s.hardware->count)
              << "\n tp " << c.tp << " cp " << c.cp << " pp " << c.pp << " dp " << *c.dp << " ep " << c.ep << " vpp " << c.vpp << " mb "
              << c.micro_batch << " gb " << *c.global_batch << " zero " << c.zero << " rc " << static_cast<int>(c.recompute) << "\n gemm "
              << b.gemm << " attention " << b.attention << " memory " << b.memory_bound << " overhead " << b.overhead << " tp " << b.tp_comm
              << " cp " << b.cp_comm << " pp " << b.pp_comm << " ep " << b.ep_comm << " bubble " << b.pp_bubble << " dp " << b.dp_comm
              << " opt " << b.optimizer << " total " << b.total << "\n mfu " << t.mfu << " fits " << t.fits << "\n";
}

// --explain ID: one run's breakdown under the file's fitted constants.
int explain_run(const std::vector<Row>& rows, const std::string& cal_text, const std::string& id) {
    const Calibration cal = parse_calibration(cal_text, true);
    set_calibration_override(&cal);
    for (const auto& r : rows)
        if (r.id == id) print_explain(r);
    set_calibration_override(nullptr);
    return 0;
}

// One run's resolved layout and step terms (fractions of the step), tab-separated.
void print_breakdown_row(const Row& r) {
    const RunEstimate e = estimate_row(r);
    const TrainingResult& t = e.result;
    const StepTime& b = t.step;
    const double p = t.tokens_per_second / static_cast<double>(r.scenario.hardware->count), T = b.total > 0 ? b.total : 1.0;
    const TrainingConfig& c = t.config;
    std::cout << r.group << "\t" << r.id << "\t" << r.published << "\t" << p << "\t" << p / r.published - 1.0 << "\t" << c.tp << "\t"
              << c.cp << "\t" << c.pp << "\t" << c.dp.value_or(1) << "\t" << c.ep << "\t" << c.vpp << "\t" << c.micro_batch << "\t"
              << c.global_batch.value_or(0) << "\t" << c.zero << "\t" << static_cast<int>(c.recompute) << "\t"
              << static_cast<double>(c.global_batch.value_or(0)) / static_cast<double>(c.dp.value_or(1) * c.micro_batch) << "\t" << t.mfu
              << "\t" << b.gemm / T << "\t" << b.attention / T << "\t" << b.memory_bound / T << "\t" << b.overhead / T << "\t"
              << b.tp_comm / T << "\t" << b.cp_comm / T << "\t" << b.pp_comm / T << "\t" << b.ep_comm / T << "\t" << b.pp_bubble / T << "\t"
              << b.dp_comm / T << "\t" << b.optimizer / T << "\t" << b.total << "\n";
}

// --breakdown: every run's layout and step terms under the file's fitted constants, for residual analysis.
int print_breakdown(const std::vector<Row>& rows, const std::string& cal_text) {
    const Calibration cal = parse_calibration(cal_text, true);
    set_calibration_override(&cal);
    std::cout << "group\tid\tpublished\tpredicted\terror\ttp\tcp\tpp\tdp\tep\tvpp\tmb\tgb\tzero\trecompute\tmicrobatches\tmfu"
                 "\tgemm\tattention\tmemory\toverhead\ttp_comm\tcp_comm\tpp_comm\tep_comm\tbubble\tdp_comm\toptimizer\tstep_s\n";
    for (const auto& r : rows) print_breakdown_row(r);
    set_calibration_override(nullptr);
    return 0;
}

// --eval: the constants as they are (priors; or the embedded fitted ones with --eval fitted), one line per run.
int print_eval(const std::vector<Row>& rows, const std::string& cal_text, bool fitted) {
    const Calibration cal = parse_calibration(cal_text, fitted);
    set_calibration_override(&cal);
    std::vector<double> errs;
    for (const auto& r : rows) {
        std::string note;
        const double p = predict(r, &note);
        errs.push_back(std::abs(p / r.published - 1.0));
        std::cout << r.group << "\t" << r.id << "\t" << fmt(r.published, 5) << "\t" << fmt(p, 5) << "\t" << pct(p / r.published - 1.0)
                  << "\t" << note << "\n";
    }
    std::cout << "median |error| " << pct(percentile(errs, 0.5)) << "\n";
    set_calibration_override(nullptr);
    return 0;
}

// The rows' source groups, sorted.
std::vector<std::string> source_groups(const std::vector<Row>& rows) {
    std::vector<std::string> groups;
    for (const auto& r : rows)
        if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
    std::sort(groups.begin(), groups.end());
    return groups;
}

// Every row predicted by constants fitted without its source group.
struct OutOfSample {
    std::map<std::string, double> ratio;  // row id -> published / predicted (out of sample)
    std::map<std::string, std::string> note;
    std::map<std::string, std::vector<double>> fold_values;  // group -> fitted constants without it
};

// Leave one group out: fit on the other groups' benchmark runs, predict the group; each fold's
// constants go to stderr.
OutOfSample leave_one_group_out(const std::vector<Row>& rows, const std::vector<std::string>& groups, const Calibration& prior) {
    OutOfSample oos;
    for (const auto& g : groups) {
        std::vector<const Row*> train;
        for (const auto& r : rows)
            if (r.group != g && !r.predicted_only) train.push_back(&r);
        const Fit f = fit(train, prior);
        set_calibration_override(&f.cal);
        for (const auto& r : rows)
            if (r.group == g) {
                std::string note;
                const double p = predict(r, &note);
                oos.ratio[r.id] = p > 0 ? r.published / p : 0;
                oos.note[r.id] = note;
            }
        set_calibration_override(nullptr);
        std::cerr << "left out " << g << ":";
        for (const auto& p : params()) {
            Calibration c = f.cal;
            std::cerr << " " << p.entry << "." << p.field << "=" << fmt(*field_ptr(c, p));
            oos.fold_values[g].push_back(*field_ptr(c, p));
        }
        std::cerr << "\n";
    }
    return oos;
}

// The shipping fit: every benchmark run.
Fit fit_all(const std::vector<Row>& rows, const Calibration& prior) {
    std::vector<const Row*> all;
    for (const auto& r : rows)
        if (!r.predicted_only) all.push_back(&r);
    return fit(all, prior);
}

// Every row under the shipped constants (fitted on all groups, its own included): what the
// calculator answers for the published setup. In sample, so never the headline: it shows how much
// of the out-of-sample error is a group's own offset that the others cannot teach.
std::map<std::string, double> in_sample_errors(const std::vector<Row>& rows, const Calibration& shipped) {
    std::map<std::string, double> err;  // row id -> |predicted / published - 1|
    set_calibration_override(&shipped);
    for (const auto& r : rows) err[r.id] = std::abs(predict(r) / r.published - 1.0);
    set_calibration_override(nullptr);
    return err;
}

// Metrics on the out-of-sample ratios.
struct Metrics {
    double median = 0, within15 = 0, covered = 0;  // |error| median, share within 15 %, band coverage
    double band_lo = 0, band_hi = 0, median_half_width = 0;
    double moe_lo = 0, moe_hi = 0, moe_covered = 0, moe_runs = 0;  // the MoE runs' band (shipped) and its coverage
    std::map<std::string, std::vector<double>> group_err;          // group -> |predicted / published - 1|
    std::map<std::string, std::pair<double, double>> group_band;   // group -> band from the other groups
};

bool is_moe_row(const Row& r) { return r.scenario.model->is_moe(); }

// A mixture-of-experts run's band: the common band widened to span the MoE runs' own 5th-95th
// percentile (`moe`: their ratios); the common band when there are fewer than 10 such runs.
std::pair<double, double> moe_band(double lo, double hi, const std::vector<double>& moe) {
    if (moe.size() < 10) return {lo, hi};
    return {std::min(lo, percentile(moe, kBandLow)), std::max(hi, percentile(moe, kBandHigh))};
}

// The band's coverage is measured per group with a band built from the other groups' ratios only
// (a MoE run's from the other groups' ratios and their MoE runs' ratios); the half-width is the
// median over the runs of the band each would be shipped with.
Metrics out_of_sample_metrics(const std::vector<Row>& rows, const std::vector<std::string>& groups, const OutOfSample& oos) {
    Metrics m;
    std::vector<double> abs_err, ratios;
    for (const auto& r : rows) {
        const double q = oos.ratio.at(r.id);
        ratios.push_back(q);
        abs_err.push_back(std::abs(1.0 / q - 1.0));  // |predicted / published - 1|
    }
    m.median = percentile(abs_err, 0.5);
    for (double e : abs_err) m.within15 += e <= 0.15 ? 1 : 0;
    m.within15 /= static_cast<double>(abs_err.size());
    std::map<std::string, std::vector<double>> group_ratio;
    for (const auto& r : rows) {
        m.group_err[r.group].push_back(std::abs(1.0 / oos.ratio.at(r.id) - 1.0));
        group_ratio[r.group].push_back(oos.ratio.at(r.id));
    }
    for (const auto& g : groups) {
        std::vector<double> others, others_moe;
        for (const auto& r : rows)
            if (r.group != g) {
                others.push_back(oos.ratio.at(r.id));
                if (is_moe_row(r)) others_moe.push_back(oos.ratio.at(r.id));
            }
        const double lo = percentile(others, kBandLow), hi = percentile(others, kBandHigh);
        const auto [mlo, mhi] = moe_band(lo, hi, others_moe);
        m.group_band[g] = {lo, hi};
        for (const auto& r : rows) {
            if (r.group != g) continue;
            const double q = oos.ratio.at(r.id);
            const bool in = is_moe_row(r) ? (q >= mlo && q <= mhi) : (q >= lo && q <= hi);
            m.covered += in ? 1 : 0;
            if (is_moe_row(r)) m.moe_covered += in ? 1 : 0, m.moe_runs += 1;
        }
    }
    m.covered /= static_cast<double>(rows.size());
    if (m.moe_runs > 0) m.moe_covered /= m.moe_runs;
    m.band_lo = percentile(ratios, kBandLow);
    m.band_hi = percentile(ratios, kBandHigh);
    std::vector<double> moe_ratios, half_widths;
    for (const auto& r : rows)
        if (is_moe_row(r)) moe_ratios.push_back(oos.ratio.at(r.id));
    std::tie(m.moe_lo, m.moe_hi) = moe_band(m.band_lo, m.band_hi, moe_ratios);
    for (const auto& r : rows) half_widths.push_back(is_moe_row(r) ? (m.moe_hi - m.moe_lo) / 2.0 : (m.band_hi - m.band_lo) / 2.0);
    m.median_half_width = percentile(half_widths, 0.5);
    return m;
}

// What the summary, the markdown and calibration.json's fitted section read.
struct Report {
    const std::vector<Row>& rows;
    const Excluded& excluded;
    const std::vector<std::string>& groups;
    const OutOfSample& oos;
    const Metrics& m;
    const Calibration& prior;
    const Calibration& fitted;                         // the shipping fit
    const std::map<std::string, double>& shipped_err;  // row id -> |error| under the shipping fit (in sample)
};

// Median |error| and the share within 15 % of a set of errors ("—" when empty).
std::pair<std::string, std::string> error_figures(const std::vector<double>& e) {
    if (e.empty()) return {"—", "—"};
    double w = 0;
    for (double x : e) w += x <= 0.15 ? 1 : 0;
    return {pct(percentile(e, 0.5)).substr(1), fmt(100 * w / static_cast<double>(e.size())) + " %"};
}
std::string error_cells(const std::vector<double>& e) {
    const auto [median, within] = error_figures(e);
    return median + " | " + within;
}

// The out-of-sample summary: runs, median error, share within 15 %, the band and its coverage.
void print_summary(const Report& r) {
    const Metrics& m = r.m;
    std::cout << "rows " << r.rows.size() << " in " << r.groups.size() << " groups; excluded " << r.excluded.size() << "\n"
              << "out-of-sample |error| median " << pct(m.median) << ", within 15%: " << fmt(100 * m.within15) << "% of runs\n"
              << "band (5th-95th percentile of published/predicted): [" << fmt(m.band_lo) << ", " << fmt(m.band_hi) << "], coverage "
              << fmt(100 * m.covered) << "% (each group against a band from the others), half-width " << fmt(100 * m.median_half_width)
              << "%\nMoE band [" << fmt(m.moe_lo) << ", " << fmt(m.moe_hi) << "] for " << m.moe_runs << " MoE runs, coverage "
              << fmt(100 * m.moe_covered) << "%\n";
}

// The fitted constants in params() order: calibration.json's fitted.parameters.
json fitted_parameters(const Calibration& cal) {
    json fitted = json::array();
    for (const auto& p : params()) {
        Calibration c = cal;
        fitted.push_back({{"entry", p.entry}, {"field", p.field}, {"value", *field_ptr(c, p)}});
    }
    return fitted;
}

// calibration.json's fitted section: the constants, the band, the generations and frameworks the
// runs calibrate (sorted; a generation reached by fallback is not calibrated) and the metrics.
json fitted_section(const Report& r, const json& fitted) {
    std::vector<std::string> cal_gens, cal_fws;
    for (const auto& row : r.rows) {
        const Device& d = row.scenario.hardware->device;
        const Efficiency e = efficiency_for(d, framework_of(*row.scenario.training, d), r.prior);
        if (!e.fallback_used && std::find(cal_gens.begin(), cal_gens.end(), e.gen.id) == cal_gens.end()) cal_gens.push_back(e.gen.id);
        if (std::find(cal_fws.begin(), cal_fws.end(), e.fw.id) == cal_fws.end()) cal_fws.push_back(e.fw.id);
    }
    std::sort(cal_gens.begin(), cal_gens.end());
    std::sort(cal_fws.begin(), cal_fws.end());
    // The runs' range: an estimate beyond it extrapolates, and its band widens (training.cpp extrapolations).
    BandScope most;
    for (const auto& row : r.rows) {
        const BandScope s = band_scope(*row.scenario.model, *row.scenario.hardware, *row.scenario.training);
        most.devices = std::max(most.devices, s.devices), most.seq_len = std::max(most.seq_len, s.seq_len);
        most.params = std::max(most.params, s.params), most.sites = std::max(most.sites, s.sites);
        most.local_steps = std::max(most.local_steps, s.local_steps), most.mixed_devices = most.mixed_devices || s.mixed_devices;
    }
    const Metrics& m = r.m;
    const std::string runs = std::to_string(r.rows.size());
    return {{"on", runs + " published runs of tests/data/training_runs.json in " + std::to_string(r.groups.size()) + " source groups"},
            {"parameters", fitted},
            {"band",
             {{"low", m.band_lo},
              {"high", m.band_hi},
              {"extrapolation", 1.5},
              {"range",
               {{"max_devices", most.devices},
                {"max_seq_len", most.seq_len},
                {"max_params", most.params},
                {"max_sites", most.sites},
                {"max_local_steps", most.local_steps},
                {"mixed_devices", most.mixed_devices}}},
              {"basis", "5th-95th percentile of published/predicted tokens/s over leave-one-source-group-out predictions of " + runs +
                            " published runs (docs/VALIDATION.md)"},
              {"moe",
               {{"low", m.moe_lo},
                {"high", m.moe_hi},
                {"basis",
                 "mixture-of-experts model: the common band widened to the 5th-95th percentile of published/predicted tokens/s of the " +
                     fmt(m.moe_runs) + " MoE runs among the " + runs +
                     " (leave-one-source-group-out; the published MoE runs disagree with the model and each other more than "
                     "dense ones; docs/VALIDATION.md)"}}}}},
            {"calibrated_generations", cal_gens},
            {"calibrated_frameworks", cal_fws},
            {"out_of_sample",
             {{"median_abs_error", m.median},
              {"within_15_percent", m.within15},
              {"band_coverage", m.covered},
              {"moe_band_coverage", m.moe_covered},
              {"band_half_width", m.median_half_width}}}};
}

// The rows predicted but never fitted, counted for the reader.
std::string predicted_only_sentence(const std::vector<Row>& rows) {
    const auto production = std::count_if(rows.begin(), rows.end(), [](const Row& x) { return x.production; });
    const auto marked = std::count_if(rows.begin(), rows.end(), [](const Row& x) { return x.predicted_only && !x.production; });
    std::ostringstream o;
    o << production + marked << " of them are predicted but never fitted: " << production
      << " production runs (averages with failures and layouts not published) and " << marked
      << " rows marked `fitted: false` in the data, each with its `fit_note` (Megatron-Bridge rows whose figures move with what "
         "the scenario cannot express: newer MoE recipes' software switches, Blackwell Ultra's speed at Blackwell's peaks). ";
    return o.str();
}

// The markdown's headline: how it was made and the out-of-sample metrics, then one row per source group.
void md_summary(std::ostream& md, const Report& r) {
    const Metrics& m = r.m;
    md << "## Training throughput: leave-one-source-group-out\n\n"
       << "Generated by `build/native/tools/gpucalc_calibrate tests/data/training_runs.json core/data/calibration.json --markdown ...` "
          "(the test command checks it is current). "
       << r.rows.size() << " published runs in " << r.groups.size()
       << " source groups; each group is predicted by constants fitted on the other groups only (never on itself). "
       << predicted_only_sentence(r.rows) << "Error = predicted / published tokens/s per device − 1.\n\n"
       << "| | value |\n|---|---|\n"
       << "| median \\|error\\| | " << pct(m.median).substr(1) << " |\n"
       << "| runs within 15 % | " << fmt(100 * m.within15) << " % |\n"
       << "| band (published/predicted, 5th–95th percentile) | " << fmt(m.band_lo) << " – " << fmt(m.band_hi) << " |\n"
       << "| band coverage (each group vs a band from the others) | " << fmt(100 * m.covered) << " % |\n"
       << "| band half-width (median over the runs) | " << fmt(100 * m.median_half_width) << " % |\n"
       << "| MoE runs' band (published/predicted; the common band widened to the MoE runs' 5th–95th percentile) | " << fmt(m.moe_lo)
       << " – " << fmt(m.moe_hi) << " |\n"
       << "| its coverage of the " << fmt(m.moe_runs) << " MoE runs (each group vs a band from the others) | " << fmt(100 * m.moe_covered)
       << " % |\n\n"
       << "| source group | runs | median \\|error\\| | within 15 % | band from the other groups | shipped constants: median \\|error\\| | "
          "within 15 % |\n|---|---|---|---|---|---|---|\n";
    std::map<std::string, std::vector<double>> shipped;
    for (const auto& row : r.rows) shipped[row.group].push_back(r.shipped_err.at(row.id));
    for (const auto& g : r.groups) {
        md << "| " << g << " | " << m.group_err.at(g).size() << " | " << error_cells(m.group_err.at(g)) << " | "
           << fmt(m.group_band.at(g).first) << " – " << fmt(m.group_band.at(g).second) << " | " << error_cells(shipped[g]) << " |\n";
    }
    std::vector<double> all;
    for (const auto& row : r.rows) all.push_back(r.shipped_err.at(row.id));
    const auto [median, within] = error_figures(all);
    md << "\nThe last two columns are in sample (the shipped constants, fitted on every group, this one included): what the "
          "calculator answers for the published setups; over all runs median |error| "
       << median << ", " << within << " within 15 %. The headline figures are the out-of-sample ones.\n";
}

// One subset's error, out of sample and under the shipped constants: the runs pred selects.
void md_subset(std::ostream& md, const Report& r, const char* what, bool (*pred)(const Row&)) {
    std::vector<double> oos, shipped;
    for (const auto& row : r.rows)
        if (pred(row)) {
            oos.push_back(std::abs(1.0 / r.oos.ratio.at(row.id) - 1.0));
            shipped.push_back(r.shipped_err.at(row.id));
        }
    md << "| " << what << " | " << oos.size() << " | " << error_cells(oos) << " | " << error_cells(shipped) << " |\n";
}

// The subsets: long-context (context parallelism) and FP8 runs, out of sample and in sample.
void md_subsets(std::ostream& md, const Report& r) {
    md << "\n| subset | runs | median \\|error\\| | within 15 % | shipped constants: median \\|error\\| | within 15 % |\n"
          "|---|---|---|---|---|---|\n";
    md_subset(md, r, "context parallelism (cp ≥ 2)", [](const Row& x) { return x.scenario.training->cp >= 2; });
    md_subset(md, r, "FP8", [](const Row& x) { return x.scenario.training->precision == Precision::fp8; });
    md_subset(md, r, "FP8, Megatron-Core / NeMo",
              [](const Row& x) { return x.scenario.training->precision == Precision::fp8 && x.group == "nvidia-nemo"; });
    md_subset(md, r, "FP8, dense models",
              [](const Row& x) { return x.scenario.training->precision == Precision::fp8 && !x.scenario.model->is_moe(); });
    md_subset(md, r, "FP8, MoE models",
              [](const Row& x) { return x.scenario.training->precision == Precision::fp8 && x.scenario.model->is_moe(); });
    md_subset(md, r, "MoE", [](const Row& x) { return x.scenario.model->is_moe(); });
}

// The fitted constants against their priors, and the constants fitted in each fold.
void md_constants(std::ostream& md, const Report& r) {
    const auto fitted = std::count_if(r.rows.begin(), r.rows.end(), [](const Row& x) { return !x.predicted_only; });
    md << "\nFitted constants (the " << fitted << " runs fitted; priors in core/data/calibration.json, ridge-pulled towards them):\n\n"
       << "| entry | field | prior | fitted |\n|---|---|---|---|\n";
    for (const auto& p : params()) {
        Calibration a = r.prior, b = r.fitted;
        md << "| " << p.entry << " | " << p.field << " | " << fmt(*field_ptr(a, p)) << " | " << fmt(*field_ptr(b, p)) << " |\n";
    }
    md << "\nConstants fitted in each fold (the column's group left out; a framework or generation seen by one group only "
          "keeps its prior when that group is left out):\n\n| entry | field |";
    for (const auto& g : r.groups) md << " " << g << " |";
    md << "\n|---|---|";
    for (std::size_t i = 0; i < r.groups.size(); ++i) md << "---|";
    md << "\n";
    for (std::size_t k = 0; k < params().size(); ++k) {
        md << "| " << params()[k].entry << " | " << params()[k].field << " |";
        for (const auto& g : r.groups) md << " " << fmt(r.oos.fold_values.at(g)[k]) << " |";
        md << "\n";
    }
}

// Every run's out-of-sample prediction (folded), and the rows left out.
void md_runs(std::ostream& md, const Report& r) {
    md << "\n<details><summary>Every run (out-of-sample prediction)</summary>\n\n"
       << "| run | group | published tokens/s/device | predicted | error | note |\n|---|---|---|---|---|---|\n";
    for (const auto& row : r.rows) {
        const double q = r.oos.ratio.at(row.id);
        md << "| " << row.id << " | " << row.group << " | " << fmt(row.published, 5) << " | " << fmt(q > 0 ? row.published / q : 0, 5)
           << " | " << pct(q > 0 ? 1.0 / q - 1.0 : -1.0) << " | "
           << (row.production       ? "production run, not fitted; "
               : row.predicted_only ? "not fitted (fit_note); "
                                    : "")
           << r.oos.note.at(row.id) << " |\n";
    }
    md << "\n</details>\n\nExcluded rows: ";
    for (const auto& [id, why] : r.excluded) md << id << " (" << why << "); ";
}

// The famous runs' whole-run figures (core/data/reality.json) under the shipped constants.
void md_reality(std::ostream& md) {
    md << "\n\n## Famous runs: whole-run figures (core/data/reality.json, the shipped constants)\n\n"
       << "Whole-run GPU-hours include what a throughput model does not see beyond goodput (evaluation, data "
          "stalls, loss-spike rollbacks, experiments); layouts marked assumed are not published. The step model "
          "was never fitted to these rows.\n\n"
       << "| run | metric | published | estimate | error | assumptions |\n|---|---|---|---|---|---|\n";
    const json reality = to_nlohmann(reality_report());
    for (const auto& run : reality["runs"])
        for (const auto& c : run["comparisons"]) {
            const std::string metric = c["metric"].get<std::string>();
            if (metric != "gpu_hours" && metric != "days" && metric != "mfu" && metric != "achieved_flops_per_second_per_gpu") continue;
            md << "| " << run["name"].get<std::string>() << " | " << metric << " | " << fmt(c["published"].get<double>(), 4) << " | "
               << (c["estimate"].is_number() ? fmt(c["estimate"].get<double>(), 4) : std::string("—")) << " | "
               << (c["error"].is_number() ? pct(c["error"].get<double>()) : std::string("—")) << " | "
               << run["assumptions"].get<std::string>() << " |\n";
        }
}

// --markdown OUT: the validation tables (docs/VALIDATION.md's training section).
void write_markdown(const Report& r, const std::string& path) {
    std::ostringstream md;
    md_summary(md, r);
    md_subsets(md, r);
    md_constants(md, r);
    md_runs(md, r);
    md_reality(md);
    std::ofstream(path) << md.str();
}

// --write: the fitted section, and the fitted values applied to the generation and framework entries.
void write_calibration(json& cal_doc, const json& new_fitted, const Calibration& fitted, const std::string& path) {
    cal_doc["fitted"] = new_fitted;
    for (const auto& p : params()) {
        Calibration c = fitted;
        const double v = *field_ptr(c, p);
        if (p.entry == "attention_kernels")
            cal_doc["attention_kernels"]["fitted_" + p.field] = v;
        else
            for (auto& e : cal_doc[p.framework ? "frameworks" : "generations"])
                if (e["id"] == p.entry) e["fitted_" + p.field] = v;
    }
    std::ofstream(path) << cal_doc.dump(1) << "\n";
    std::cout << "wrote " << path << "\n";
}

// --check: 0 when the calibration file holds what this fit gives, else 1.
int check_current(const json& cal_doc, const json& fitted) {
    const json& cur = cal_doc["fitted"];
    bool same = cur.contains("parameters") && cur["parameters"].size() == fitted.size();
    for (std::size_t i = 0; same && i < fitted.size(); ++i)
        same = std::abs(cur["parameters"][i]["value"].get<double>() - fitted[i]["value"].get<double>()) <=
               1e-9 * std::max(1.0, std::abs(fitted[i]["value"].get<double>()));
    if (!same) {
        std::cout << "CHECK FAILED: core/data/calibration.json does not hold what this fit gives: run gpucalc_calibrate --write\n";
        return 1;
    }
    std::cout << "calibration current\n";
    return 0;
}

// The leave-one-group-out validation and the shipping fit, then what the options ask of them.
int calibrate(const Options& o, const std::vector<Row>& rows, const Excluded& excluded, const std::string& cal_text,
              const Calibration& prior) {
    const std::vector<std::string> groups = source_groups(rows);
    const OutOfSample oos = leave_one_group_out(rows, groups, prior);
    const Fit full = fit_all(rows, prior);
    const Metrics m = out_of_sample_metrics(rows, groups, oos);
    const std::map<std::string, double> shipped_err =
        o.markdown.empty() ? std::map<std::string, double>{} : in_sample_errors(rows, full.cal);
    const Report report{rows, excluded, groups, oos, m, prior, full.cal, shipped_err};
    print_summary(report);
    json cal_doc = json::parse(cal_text);
    const json fitted = fitted_parameters(full.cal);
    const json new_fitted = fitted_section(report, fitted);
    if (!o.markdown.empty()) write_markdown(report, o.markdown);
    if (o.write) write_calibration(cal_doc, new_fitted, full.cal, o.cal_path);
    return o.check ? check_current(cal_doc, fitted) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: gpucalc_calibrate DATA CALIBRATION [--write] [--check] [--markdown OUT]\n";
        return 2;
    }
    const Options o = parse_options(argc, argv);
    Excluded excluded;
    const std::vector<Row> rows = load_rows(o.data_path, excluded);
    // The priors: the embedded constants with the fitted values reset to the file's generation entries
    // (fits always start from the same point, so --check reproduces --write exactly).
    const std::string cal_text = read_text(o.cal_path);
    const Calibration prior = parse_calibration(cal_text, false);
    if (o.explain) return explain_run(rows, cal_text, o.explain_id);
    if (o.breakdown) return print_breakdown(rows, cal_text);
    if (o.eval_only) return print_eval(rows, cal_text, o.eval_fitted);
    return calibrate(o, rows, excluded, cal_text, prior);
}
