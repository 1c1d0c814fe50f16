// Scenario parsing and validation: type, range and consistency of every field, all errors at once.
#include "gpucalc/scenario_parse.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "gpucalc/catalog.hpp"
#include "gpucalc/json_read.hpp"
#include "gpucalc/network.hpp"
#include "gpucalc/scenario_fields.hpp"
#include "gpucalc/training.hpp"

namespace gpucalc {

using json = jv::Value;
using namespace jr;

// ---- devices ----

constexpr double kMinPeakFlops = 1e6;  // 1 MFLOP/s: below any real device (absurd input is an error)

namespace {
// A null inside a custom device object is an error, not "absent": beside a base it would otherwise
// keep the base's figure without a word, and a catalog figure cannot be removed (the echo never
// writes null there, so it still parses back).
// (Keys no table knows are reported as unknown fields, not here too.)
void reject_nulls(const json& j, const std::string& path, Errors& errors, bool peaks = false) {
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        bool known = peaks ? parse_precision(k).has_value() : table_has(custom_device_fields(), k);
        for (const char* x : {"base", "id", "name", "kind", "peak_flops_per_second"}) known = known || (!peaks && k == x);
        const std::string f = join(path, k);
        if (known && it->is_null())
            add_error(errors, "type", f,
                      "null is not a value for " + f + ": give a value, or leave the key out (beside base, the base's is kept)");
        else if (!peaks && k == "peak_flops_per_second" && it->is_object())
            reject_nulls(*it, f, errors, true);
    }
}
}  // namespace

bool device_from_scenario(const json& j, const std::string& path, Device& out, Errors& errors) {
    if (j.is_string()) {
        const std::string id = j.get<std::string>();
        const Device* d = find_device(id);
        if (!d) {
            add_error(errors, "unknown_device", path,
                      path + ": unknown device \"" + shorten(id) + "\" (run `gpucalc devices` for the list)");
            return false;
        }
        out = *d;
        return true;
    }
    if (!j.is_object()) {
        add_error(errors, "type", path, path + " must be a catalog id (string) or a custom device object");
        return false;
    }
    const std::size_t before = errors.size();
    check_table_keys(j, path, custom_device_fields(), errors, {"base", "id", "name", "kind", "peak_flops_per_second"});
    reject_nulls(j, path, errors);
    Device d;
    if (auto base = string(j, "base", path, errors)) {
        const Device* b = find_device(*base);
        if (!b)
            add_error(errors, "unknown_device", join(path, "base"), join(path, "base") + ": unknown device \"" + shorten(*base) + "\"");
        else
            d = *b, d.base_id = b->id;
    }
    const bool has_base = !d.base_id.empty();
    d.custom = true;
    d.sources.clear();
    d.id = string(j, "id", path, errors, false, 64).value_or(has_base ? d.id + "-custom" : "custom");
    d.name = string(j, "name", path, errors, false, 100).value_or(has_base ? d.name + " (custom)" : "Custom device");
    if (auto k = choice(j, "kind", path, errors, {"gpu", "tpu", "accelerator", "cpu"}))
        d.kind = *k;
    else if (!has_base)
        d.kind = "gpu";
    if (const json* p = object(j, "peak_flops_per_second", path, errors, !has_base)) {
        const std::string pp = join(path, "peak_flops_per_second");
        check_keys(*p, pp, errors, {"fp64", "fp64_matrix", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"});
        int n = 0;
        for (int i = 0; i < kPrecisionCount; ++i) {
            if (auto v = number(*p, kPrecisionNames[i], pp, errors, Range{kMinPeakFlops, 1e20, false, false})) {
                d.peak_flops_per_second[i] = *v;
                ++n;
            }
        }
        if (n == 0 && !has_base) add_error(errors, "missing", pp, pp + " needs at least one precision (e.g. \"bf16\": 989.4e12)");
    }
    read_fields(j, path, custom_device_fields(), d, errors);
    if (!has_base)
        for (const char* k : {"memory_bytes", "memory_bandwidth_bytes_per_second"})
            if (!j.contains(k)) add_error(errors, "missing", join(path, k), join(path, k) + " is required (a number)");
    out = d;
    return errors.size() == before;
}

// ---- model ----

namespace {

// The model object being read: its JSON, its path, and the errors it started with.
struct ModelInput {
    const json& j;
    const std::string& path;
    Errors& errors;
    std::size_t before;  // errors.size() when reading began
    bool ok() const { return errors.size() == before; }
};

// A bare parameter count (no preset, no architecture): 6ND and weight memory; the time model uses a
// GPT-like shape. Architecture fields beside it are conflicts.
bool bare_model_from_json(const ModelInput& in, const std::optional<std::string>& name, ModelSpec& out) {
    const json& j = in.j;
    const std::string& path = in.path;
    Errors& errors = in.errors;
    if (!j.contains("params") || j["params"].is_null()) {
        add_error(errors, "missing", join(path, "params"),
                  path + " needs preset, params, or an architecture (layers, hidden, heads, vocab)");
        return false;
    }
    ModelSpec bare;
    for (const auto& f : model_fields()) {
        if (f.spec.name != "params" && f.spec.name != "active_params" && f.spec.name != "seq_len" && j.contains(f.spec.name)) {
            const std::string fp = join(path, f.spec.name);
            add_error(errors, "conflict", fp, fp + " needs an architecture (layers, hidden, heads, vocab), not only params");
        }
    }
    read_fields(j, path, model_fields(), bare, errors);
    bare.has_architecture = false;
    bare.name = name.value_or("custom model");
    if (bare.active_params > bare.params)
        add_error(errors, "range", join(path, "active_params"), join(path, "active_params") + " must not exceed " + join(path, "params"));
    out = bare;
    return in.ok();
}

// Consistency rules of an architecture: heads and kv_heads that divide, mixture-of-experts and MLA
// fields that go together.
void check_model_rules(const ModelInput& in, const ModelSpec& m) {
    const std::string& path = in.path;
    Errors& errors = in.errors;
    if (m.head_dim == 0 && !m.is_mla() && !divides(m.hidden, m.heads))
        add_error(errors, "divisibility", join(path, "heads"),
                  join(path, "hidden") + " (" + fmt_num(m.hidden) + ") must be divisible by " + join(path, "heads") + " (" +
                      fmt_num(m.heads) + ") unless " + join(path, "head_dim") + " is given");
    if (!divides(m.heads, m.kv_heads))
        add_error(errors, "divisibility", join(path, "kv_heads"),
                  join(path, "heads") + " (" + fmt_num(m.heads) + ") must be divisible by " + join(path, "kv_heads") + " (" +
                      fmt_num(m.kv_heads) + ")");
    if (m.is_moe() && (m.experts_per_token < 1 || m.experts_per_token > m.experts))
        add_error(errors, "range", join(path, "experts_per_token"),
                  join(path, "experts_per_token") + " must be between 1 and " + join(path, "experts"));
    if (!m.is_moe() && (m.experts_per_token > 0 || m.shared_experts > 0 || m.expert_ffn_hidden > 0 || m.dense_layers > 0))
        add_error(errors, "missing", join(path, "experts"),
                  join(path, "experts") + " must be given (> 0) for the other mixture-of-experts fields to apply");
    if (m.dense_layers > m.layers)
        add_error(errors, "range", join(path, "dense_layers"), join(path, "dense_layers") + " must not exceed " + join(path, "layers"));
    if (m.full_attention_layers > m.layers)
        add_error(errors, "range", join(path, "full_attention_layers"),
                  join(path, "full_attention_layers") + " (" + fmt_num(m.full_attention_layers) + ") must not exceed " +
                      join(path, "layers") + " (" + fmt_num(m.layers) + ")");
    if (in.j.contains("full_attention_layers") && m.full_attention_layers > 0 && !(m.sliding_window > 0))
        add_error(errors, "missing", join(path, "sliding_window"),
                  join(path, "full_attention_layers") + " says which layers are not windowed: it needs " + join(path, "sliding_window") +
                      " (> 0)");
    if (m.is_mla() && (m.qk_nope_head_dim <= 0 || m.qk_rope_head_dim <= 0 || m.v_head_dim <= 0))
        add_error(errors, "missing", join(path, "kv_lora_rank"),
                  join(path, "kv_lora_rank") + " (MLA) needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
}

// A stated params beside an architecture must agree with the architecture's count (0.5%: rounding in
// published counts).
// (model.params and model.active_params, each when given: an active count the architecture does not
// have had been ignored without a word, a red team: Mixtral with active_params 1e9 kept its 12.9e9.)
void check_stated_params(const ModelInput& in, const ModelSpec& m) {
    const std::string& path = in.path;
    Errors& errors = in.errors;
    const ParamCount c = count_params(m);
    for (const auto& [key, arch] : {std::pair<const char*, double>{"params", c.total}, {"active_params", c.active}}) {
        if (!in.j.contains(key) || in.j[key].is_null()) continue;
        const double given = in.j[key].get<double>();
        // Published active counts are rounded ("37B") and often leave out the input embedding (a
        // lookup, no FLOPs): gpt-oss-120b's card gives 5.13B where the architecture's 5.71B has its
        // 0.58B embedding (a red team had 5.1e9, 37e9 and 22e9 refused). Either, within 3 %.
        const double input_embedding = m.vocab * m.hidden;
        const bool agrees = key == std::string_view("params")
                                ? std::abs(arch - given) <= 0.005 * arch
                                : std::abs(arch - given) <= 0.03 * arch || std::abs(arch - input_embedding - given) <= 0.03 * arch;
        if (!agrees)
            add_error(errors, "conflict", join(path, key),
                      join(path, key) + " (" + fmt_num(given) + ") disagrees with the architecture's count (" + fmt_num(arch) +
                          "); give the counts alone (params, active_params), or the architecture alone");
    }
}

// The range of model field `name` (model_fields).
const FieldSpec& model_field_spec(std::string_view name) {
    for (const auto& f : model_fields())
        if (f.spec.name == name) return f.spec;
    return model_fields()[0].spec;  // not reached: every name asked for is a row
}

// Whether v lies in the field's range (and is whole for an integer field).
bool within(const FieldSpec& f, double v) {
    const bool above_min = f.min_exclusive ? v > f.min : v >= f.min;
    return above_min && v <= f.max && (f.kind != FieldKind::integer || std::floor(v) == v);
}

// Defaults derived from other fields are echoed (write_model: head_dim, ffn_hidden, params) and the
// echo must parse back: a derived value outside its own field's range is an error on the field it
// derives from, naming the value.
void check_derived_defaults(const ModelInput& in, const ModelSpec& m, bool ffn_derived) {
    const std::string& path = in.path;
    const FieldSpec& hd = model_field_spec("head_dim");
    if (m.head_dim == 0 && !within(hd, m.hidden / m.heads))
        add_error(in.errors, "range", join(path, "heads"),
                  join(path, "head_dim") + " defaults to " + join(path, "hidden") + " / " + join(path, "heads") + " (" +
                      fmt_num(m.hidden / m.heads) + "), which must be a whole number from " + fmt_num(hd.min) + " to " + fmt_num(hd.max) +
                      ": give " + join(path, "head_dim") + " or another number of heads");
    const FieldSpec& ffn = model_field_spec("ffn_hidden");
    if (ffn_derived && !within(ffn, m.ffn_hidden))
        add_error(in.errors, "range", join(path, "hidden"),
                  join(path, "ffn_hidden") + " defaults to 4 x " + join(path, "hidden") + " (" + fmt_num(m.ffn_hidden) +
                      "), above its limit " + fmt_num(ffn.max) + ": give " + join(path, "ffn_hidden"));
    const FieldSpec& params = model_field_spec("params");
    const double total = count_params(m).total;
    if (!within(params, total))
        add_error(in.errors, "range", join(path, "layers"),
                  "the architecture has " + fmt_num(total) + " parameters (" + join(path, "params") + ", echoed with it, is at most " +
                      fmt_num(params.max) + "): fewer layers or a narrower model");
}

}  // namespace

bool model_from_json(const json& j, const std::string& path, ModelSpec& out, Errors& errors) {
    if (!j.is_object()) {
        add_error(errors, "type", path, path + " must be an object: {\"preset\": id}, {\"params\": N} or architecture fields");
        return false;
    }
    const ModelInput in{j, path, errors, errors.size()};
    check_table_keys(j, path, model_fields(), errors, {"preset", "name"});
    ModelSpec m;
    bool from_preset = false;
    if (auto preset = string(j, "preset", path, errors)) {
        const ModelSpec* p = find_model_preset(*preset);
        if (!p) {
            const std::string f = join(path, "preset");
            add_error(errors, "unknown_preset", f, f + ": unknown model preset \"" + shorten(*preset) + "\" (run `gpucalc presets`)");
            return false;
        }
        m = *p;
        from_preset = true;
    }
    const auto name = string(j, "name", path, errors, false, 100);
    const bool arch_given = j.contains("layers") || j.contains("hidden") || j.contains("heads");
    if (!from_preset && !arch_given) return bare_model_from_json(in, name, out);
    if (!from_preset) {
        m.has_architecture = true;
        m.name = "custom model";
        m.tied_embeddings = true;  // a custom architecture is GPT-style unless stated
        for (const char* k : {"layers", "hidden", "heads", "vocab"})
            if (!j.contains(k)) add_error(errors, "missing", join(path, k), join(path, k) + " is required (a number)");
    }
    if (name) m.name = *name;
    const double kv_before = m.kv_heads, heads_before = m.heads, layers_before = m.layers;
    const double stated_params = m.params;
    read_fields(j, path, model_fields(), m, errors);
    if (!in.ok()) return false;
    // A preset's full-attention layers follow its layers in the preset's pattern (gpt-oss: every
    // second layer; Gemma 3: every sixth), and go with the window.
    if (!j.contains("full_attention_layers") || j["full_attention_layers"].is_null()) {  // null: not given
        if (from_preset && m.layers != layers_before && m.full_attention_period > 0)
            m.full_attention_layers = pattern_full_attention_layers(m);
        if (!(m.sliding_window > 0)) m.full_attention_layers = 0;
    }
    // Defaults that follow other fields: kv_heads = heads, ffn_hidden = 4 x hidden (custom).
    if (!j.contains("kv_heads") && (!from_preset || m.heads != heads_before))
        m.kv_heads = from_preset && kv_before != heads_before ? kv_before : m.heads;
    const bool ffn_derived = !from_preset && !j.contains("ffn_hidden");
    if (ffn_derived) m.ffn_hidden = 4 * m.hidden;
    m.params = stated_params;
    m.active_params = 0;
    check_model_rules(in, m);
    if (in.ok()) check_derived_defaults(in, m, ffn_derived);
    if (in.ok()) check_stated_params(in, m);
    out = m;
    return in.ok();
}

namespace {

// hardware.pools: 1 to 64 pools {device, count, site, devices_per_node, gpu_hour_usd}; every error names its pool.
bool parse_pools(const json& arr, Hardware& hw, Errors& errors) {
    const std::string path = "hardware.pools";
    if (!arr.is_array()) {
        add_error(errors, "type", path, path + " must be an array of pools {device, count, site}");
        return false;
    }
    if (arr.empty() || arr.size() > kMaxPools) {
        add_error(errors, "range", path,
                  path + " must hold 1 to " + std::to_string(kMaxPools) + " pools (it holds " + std::to_string(arr.size()) + ")");
        return false;
    }
    const std::size_t before = errors.size();
    double total = 0;
    for (std::size_t i = 0; i < arr.size(); ++i) {
        const json& p = arr[i];
        const std::string pp = path + "[" + std::to_string(i) + "]";
        if (!p.is_object()) {
            add_error(errors, "type", pp, pp + " must be an object {device, count, site}");
            continue;
        }
        check_keys(p, pp, errors, {"device", "count", "site", "devices_per_node", "gpu_hour_usd"});
        Pool pool;
        auto d = p.find("device");
        if (d == p.end() || d->is_null())
            add_error(errors, "missing", join(pp, "device"), join(pp, "device") + " is required (a catalog id or a custom device)");
        else
            device_from_scenario(*d, join(pp, "device"), pool.device, errors);
        if (auto c = number(p, "count", pp, errors, Range{1, 1e8, false, true}, true)) pool.count = static_cast<Count>(*c);
        pool.site = string(p, "site", pp, errors, false, 64).value_or("site-1");
        if (pool.site.empty()) add_error(errors, "range", join(pp, "site"), join(pp, "site") + " must not be empty");
        if (auto n = number(p, "devices_per_node", pp, errors, Range{1, 1e6, false, true}))
            pool.devices_per_node = static_cast<Count>(*n);
        else
            pool.devices_per_node = static_cast<Count>(pool.device.gpus_per_node);
        pool.gpu_hour_usd = number(p, "gpu_hour_usd", pp, errors, Range{0, 1e6, false, false});
        total += static_cast<double>(pool.count);
        hw.pools.push_back(pool);
    }
    if (total > 1e8) add_error(errors, "range", path, path + ": the pools hold " + fmt_num(total) + " devices; at most 1e8");
    return errors.size() == before;
}

void parse_hardware(const json& h, Scenario& s, Errors& errors) {
    const std::string path = "hardware";
    check_table_keys(h, path, hardware_fields(), errors, {"device", "device_name", "pools"});
    string(h, "device_name", path, errors, false, 200);  // the echo's display name: informational
    Hardware hw;
    auto it = h.find("device");
    auto pools = h.find("pools");
    const bool has_pools = pools != h.end() && !pools->is_null();
    const bool has_device = it != h.end() && !it->is_null();
    bool ok = true;
    if (has_pools) {
        ok = parse_pools(*pools, hw, errors);
        if (has_device) {
            add_error(errors, "conflict", "hardware.device",
                      "hardware.device cannot be combined with hardware.pools (each pool names its device)");
            ok = false;
        }
    } else if (!has_device) {
        add_error(errors, "missing", "hardware.device", "hardware.device is required (a catalog id or a custom device)");
        ok = false;
    } else {
        ok = device_from_scenario(*it, "hardware.device", hw.device, errors);
    }
    const std::uint64_t given = read_fields(h, path, hardware_fields(), hw, errors);
    if (ok && has_pools) {
        // The fleet's totals: device count and sites from the pools; hardware.device is the first pool's
        // (what code paths that need one device see; the fleet estimator uses every pool's).
        Count total = 0;
        std::vector<std::string> sites;
        for (const auto& p : hw.pools) {
            total += p.count;
            if (std::find(sites.begin(), sites.end(), p.site) == sites.end()) sites.push_back(p.site);
        }
        if ((given & field_bit(hardware_fields(), "count")) && hw.count != total)
            add_error(errors, "conflict", "hardware.count",
                      "hardware.count (" + fmt_num(static_cast<double>(hw.count)) + ") must equal the pools' total (" +
                          fmt_num(static_cast<double>(total)) + ") or be left out");
        if ((given & field_bit(hardware_fields(), "sites")) && hw.sites != static_cast<Count>(sites.size()))
            add_error(errors, "conflict", "hardware.sites",
                      "hardware.sites (" + fmt_num(static_cast<double>(hw.sites)) + ") must equal the number of distinct pool sites (" +
                          std::to_string(sites.size()) + ") or be left out");
        hw.count = total;
        hw.sites = static_cast<Count>(sites.size());
        hw.device = hw.pools.front().device;
        if (hw.devices_per_node == 0) hw.devices_per_node = hw.pools.front().devices_per_node;
    }
    if (ok) {
        if (hw.devices_per_node == 0) hw.devices_per_node = static_cast<Count>(hw.device.gpus_per_node);
        s.hardware = std::move(hw);
    }
}

void parse_training(const json& t, Scenario& s, Errors& errors) {
    const std::string path = "training";
    check_table_keys(t, path, training_fields(), errors, {"efficiency"});
    TrainingConfig c;
    if (const json* e = object(t, "efficiency", path, errors)) {
        const std::string ep = "training.efficiency";
        check_table_keys(*e, ep, efficiency_fields(), errors);
        read_fields(*e, ep, efficiency_fields(), c.efficiency, errors);
    }
    c.given = read_fields(t, path, training_fields(), c, errors);
    resolve_diloco_defaults(c);  // before the plan search sizes the memory
    s.training = c;
}

void parse_inference(const json& t, Scenario& s, Errors& errors) {
    const std::string path = "inference";
    check_table_keys(t, path, inference_fields(), errors, {"slo", "speculative"});
    InferenceConfig c;
    read_fields(t, path, inference_fields(), c, errors);
    // A preset released in a low precision is served in it unless the scenario says otherwise (gpt-oss-120b
    // on one H100 had 'does not fit, 218.6 GiB' by default where its MXFP4 release fits; a red team).
    const bool precision_given = (t.contains("weight_precision") && !t["weight_precision"].is_null()) ||
                                 (t.contains("weight_format") && !t["weight_format"].is_null());
    const bool released = s.model && s.model->released_weights != Precision::bf16 && !precision_given;
    if (released) c.weight_precision = s.model->released_weights;
    if (!t.contains("quant_group_size") || t["quant_group_size"].is_null())
        c.quant_group_size = released && s.model->released_group > 0 ? s.model->released_group : default_quant_group(c.weight_precision);
    if (const json* o = object(t, "slo", path, errors)) {
        check_table_keys(*o, "inference.slo", slo_fields(), errors);
        ServingSlo slo;
        read_fields(*o, "inference.slo", slo_fields(), slo, errors);
        if (!slo.ttft_seconds && !slo.tpot_seconds)
            add_error(errors, "missing", "inference.slo", "inference.slo needs ttft_seconds, tpot_seconds or both");
        c.slo = slo;
    }
    if (const json* o = object(t, "speculative", path, errors)) {
        check_table_keys(*o, "inference.speculative", speculative_fields(), errors, {"draft_model"});
        SpeculativeConfig sp;
        read_fields(*o, "inference.speculative", speculative_fields(), sp, errors);
        const bool model_given = o->contains("draft_model") && !(*o)["draft_model"].is_null();
        if (model_given) {
            ModelSpec draft;
            if (model_from_json((*o)["draft_model"], "inference.speculative.draft_model", draft, errors)) sp.draft_model = draft;
        }
        const bool params_given = o->contains("draft_params") && !(*o)["draft_params"].is_null();
        if (sp.draft_model) {  // the draft model's parameters read per token: its active ones
            const double active = count_params(*sp.draft_model).active;
            if (!params_given)
                sp.draft_params = active;
            else if (std::abs(sp.draft_params - active) > 1e-9 * active)
                add_error(errors, "conflict", "inference.speculative.draft_params",
                          "inference.speculative.draft_params (" + fmt_num(sp.draft_params) +
                              ") is not the draft model's active parameters (" + fmt_num(active) +
                              "): give draft_params alone, or draft_model alone");
        } else if (!params_given && !model_given)
            add_error(errors, "missing", "inference.speculative.draft_params",
                      "inference.speculative needs draft_params (parameters of the draft model or MTP module) or draft_model "
                      "({\"preset\": id} or an architecture)");
        c.speculative = sp;
    }
    if (c.disaggregated && s.hardware && s.hardware->count < 2 * c.tp.value_or(1) * c.ep)
        add_error(errors, "range", "inference.disaggregated",
                  "inference.disaggregated runs prefill and decode on separate GPUs: it needs at least two copies (hardware.count >= 2 x "
                  "inference.tp x inference.ep)");
    // A GGUF format sets the bits per weight itself: another weight precision beside it would be
    // echoed but not used (the echo writes the default, bf16, beside a format: that one parses back).
    if (c.weight_format != WeightFormat::native && t.contains("weight_precision") &&
        c.weight_precision != InferenceConfig{}.weight_precision)
        add_error(errors, "conflict", "inference.weight_precision",
                  "inference.weight_precision does not apply with inference.weight_format (the GGUF format sets the bits per weight): "
                  "give one of them");
    s.inference = c;
}

void parse_finetune(const json& f, Scenario& s, Errors& errors) {
    check_table_keys(f, "finetune", finetune_fields(), errors);
    FinetuneConfig c;
    read_fields(f, "finetune", finetune_fields(), c, errors);
    // A LoRA rank beside full fine-tuning would be echoed but not used (as weight_precision beside a
    // GGUF format): one or the other.
    for (const char* k : {"lora_rank", "lora_modules"})
        if (c.method == FinetuneMethod::full && f.contains(k) && !f[k].is_null())
            add_error(errors, "conflict", std::string("finetune.") + k,
                      std::string("finetune.") + k +
                          " does not apply to finetune.method full (every parameter is trained): leave it out, or choose lora or qlora");
    s.finetune = c;
}

void parse_costs(const json& c, Scenario& s, Errors& errors) {
    const std::string path = "costs";
    check_table_keys(c, path, costs_fields(), errors);
    read_fields(c, path, costs_fields(), s.costs, errors);
    // An owned device-hour is its amortised price plus power (pricing.hpp device_hour_cost): a rent
    // beside it would be ignored without a word.
    if (s.costs.ownership == Ownership::owned && s.costs.gpu_hour_usd)
        add_error(errors, "conflict", "costs.gpu_hour_usd",
                  "costs.gpu_hour_usd is a rent, and costs.ownership is owned (the hour costs the purchase price amortised over "
                  "costs.lifetime_years plus its electricity): leave gpu_hour_usd out, or use ownership cloud");
    if (s.costs.ownership != Ownership::owned || !s.hardware) return;
    for (std::size_t i = 0; i < s.hardware->pools.size(); ++i)
        if (s.hardware->pools[i].gpu_hour_usd) {
            const std::string pp = "hardware.pools[" + std::to_string(i) + "].gpu_hour_usd";
            add_error(errors, "conflict", pp, pp + " is a rent, and costs.ownership is owned: leave it out, or use ownership cloud");
        }
}

void parse_compare(const json& c, Scenario& s, Errors& errors) {
    const std::string path = "compare";
    check_table_keys(c, path, compare_fields(), errors, {"a", "b"});
    CompareRequest r;
    read_fields(c, path, compare_fields(), r, errors);
    bool ok = true;
    for (const char* k : {"a", "b"}) {
        auto it = c.find(k);
        const std::string f = join(path, k);
        if (it == c.end()) {
            add_error(errors, "missing", f, f + " is required (a device id or custom device)");
            ok = false;
        } else {
            ok = device_from_scenario(*it, f, k[0] == 'a' ? r.a : r.b, errors) && ok;
        }
    }
    if (ok) s.compare = r;
}

void parse_roofline(const json& c, Scenario& s, Errors& errors) {
    const std::string path = "roofline";
    check_table_keys(c, path, roofline_fields(), errors, {"devices", "model"});
    RooflineRequest r;
    read_fields(c, path, roofline_fields(), r, errors);
    if (const json* m = object(c, "model", path, errors)) {
        ModelSpec spec;
        if (model_from_json(*m, "roofline.model", spec, errors)) r.model = spec;
    }
    auto it = c.find("devices");
    if (it == c.end() || !it->is_array() || it->empty()) {
        add_error(errors, "missing", "roofline.devices", "roofline.devices must be a non-empty array of device ids or objects");
        return;
    }
    if (it->size() > 32) {
        add_error(errors, "range", "roofline.devices", "roofline.devices holds at most 32 devices");
        return;
    }
    bool ok = true;
    for (std::size_t i = 0; i < it->size(); ++i) {
        Device d;
        if (device_from_scenario((*it)[i], "roofline.devices[" + std::to_string(i) + "]", d, errors))
            r.devices.push_back(d);
        else
            ok = false;
    }
    if (ok) s.roofline = r;
}

// What the layout rules read: the scenario, its training config, and whether the layout is chosen
// by the plan search (then only the fields the scenario gives are checked).
struct LayoutRules {
    Scenario& s;
    TrainingConfig& t;
    bool automatic;
    bool given(const char* name) const { return training_field_given(t, name); }
    // The sizes are the scenario's (layout given), or, under layout auto, all of these are given:
    // a rule on them holds now, not after the search chooses.
    bool known(std::initializer_list<const char*> names) const {
        if (!automatic) return true;
        for (const char* n : names)
            if (!given(n)) return false;
        return true;
    }
};

// Layout auto (or a plan search): the sizes the scenario gives must tile hardware.count, the search
// choosing the others; the experts' ranks (ep) lie within dp x cp x tp = count / pp, so ep divides
// the count (and count / pp when pp is given).
void check_given_sizes(const LayoutRules& r, Errors& errors) {
    const TrainingConfig& t = r.t;
    const Count n = r.s.hardware->count;
    Count fixed = 1;
    std::string names, first;
    const std::pair<const char*, Count> sizes[] = {{"tp", t.tp}, {"cp", t.cp}, {"pp", t.pp}, {"dp", t.dp.value_or(1)}};
    for (const auto& [name, v] : sizes)
        if (r.given(name)) {
            fixed *= v;
            names += (names.empty() ? "training." : " x training.") + std::string(name);
            if (first.empty()) first = "training." + std::string(name);
        }
    if (!names.empty() && n % fixed != 0) {
        add_error(errors, "divisibility", first,
                  "hardware.count (" + fmt_num(n) + ") must be divisible by " + names + " (" + fmt_num(fixed) + ")");
        return;
    }
    if (t.shard_group && n % *t.shard_group != 0)
        add_error(errors, "divisibility", "training.shard_group",
                  "hardware.count (" + fmt_num(n) + ") must be divisible by training.shard_group (" + fmt_num(*t.shard_group) +
                      "): the shard group tiles the data- and context-parallel ranks");
    const Count per_stage = r.given("pp") ? n / t.pp : n;
    if (r.given("ep") && t.ep > 1 && per_stage % t.ep != 0)
        add_error(errors, "divisibility", "training.ep",
                  std::string(r.given("pp") ? "hardware.count / training.pp (" : "hardware.count (") + fmt_num(per_stage) +
                      ") must be divisible by training.ep (" + fmt_num(t.ep) +
                      "): the experts' ranks are data-, context- or tensor-parallel ranks of one stage");
}

// tp x cp x pp x dp = hardware.count; dp, when not given, is what is left (layout given).
void resolve_data_parallel(const LayoutRules& r, Errors& errors) {
    TrainingConfig& t = r.t;
    const Count n = r.s.hardware->count;
    const Count model_par = t.tp * t.cp * t.pp;  // devices of one model replica
    if (!r.automatic) {
        if (!t.dp) {
            if (n % model_par != 0)
                add_error(errors, "divisibility", "training.tp",
                          "hardware.count (" + fmt_num(n) + ") must be divisible by training.tp x training.cp x training.pp (" +
                              fmt_num(model_par) + ")");
            else
                t.dp = n / model_par, t.given |= field_bit(training_fields(), "dp");
        } else if (*t.dp * model_par != n) {
            add_error(errors, "divisibility", "training.dp",
                      "training.tp x training.cp x training.pp x training.dp (" + fmt_num(*t.dp * model_par) +
                          ") must equal hardware.count (" + fmt_num(n) + ")");
        }
    } else {
        check_given_sizes(r, errors);
    }
}

// training.overlap_moe_comm: what Megatron-Core's TransformerConfig asserts for the combined 1F1B
// schedule (megatron/core/transformer/transformer_config.py __post_init__: expert_model_parallel_size
// > 1, recompute_granularity != 'full', virtual_pipeline_model_parallel_size given when
// pipeline_model_parallel_size > 1); DualPipe is a schedule of its own. Under layout auto the plan
// search keeps to the same rules (plan.cpp).
void check_moe_overlap(const LayoutRules& r, Errors& errors) {
    const TrainingConfig& t = r.t;
    if (!t.overlap_moe_comm) return;
    const std::string f = "training.overlap_moe_comm";
    // A model given by its parameter count alone is dense unless its active parameters say otherwise
    // (training_model: assumed experts).
    // The combinations Megatron-Core refuses are conflicts between fields (not a number out of range).
    const bool dense = r.s.model && !(training_model(*r.s.model).in.moe_layer_fraction > 0);
    if (dense && r.s.model->experts > 0)
        add_error(errors, "conflict", f,
                  f + " (the expert all-to-all hidden behind another micro-batch) needs MoE layers, and every layer of this model is "
                      "dense (model.dense_layers = model.layers)");
    else if (dense)
        add_error(errors, "conflict", f,
                  f + " (the expert all-to-all hidden behind another micro-batch) needs an MoE model (model.experts, or "
                      "model.active_params below model.params)");
    else if (t.ep == 1 && r.known({"ep"}))
        add_error(errors, "conflict", f, f + " needs training.ep > 1: without expert parallelism there is no all-to-all to hide");
    if (t.dualpipe) add_error(errors, "conflict", f, f + " and training.dualpipe are two schedules: DualPipe already hides the all-to-all");
    // Megatron-Core's schedule: a framework given (or the TPU default, maxtext) that is not Megatron-Core has none.
    const Framework fw = t.framework ? *t.framework : r.s.hardware ? framework_of(t, r.s.hardware->device) : Framework::megatron;
    if (fw != Framework::megatron)
        add_error(errors, "conflict", f,
                  f + " is Megatron-Core's combined 1F1B schedule (--overlap-moe-expert-parallel-comm): it needs training.framework "
                      "megatron (or nemo)");
    if (t.recompute == Recompute::full && r.known({"recompute"}))
        add_error(errors, "conflict", f, f + " needs training.recompute none or selective (Megatron-Core asserts no full recomputation)");
    if (t.pp > 1 && t.vpp == 1 && r.known({"pp", "vpp"}) && !t.dualpipe)
        add_error(errors, "conflict", f,
                  f + " with training.pp > 1 needs the interleaved schedule, training.vpp > 1 (Megatron-Core asserts it)");
}

// The shard group, context-parallel chunks and interleaved stages.
void check_group_sizes(const LayoutRules& r, Errors& errors) {
    const TrainingConfig& t = r.t;
    if (t.shard_group && t.dp && r.known({"dp", "cp"}) && (*t.dp * t.cp) % *t.shard_group != 0)
        add_error(errors, "divisibility", "training.shard_group",
                  "training.dp x training.cp (" + fmt_num(*t.dp * t.cp) + ") must be divisible by training.shard_group (" +
                      fmt_num(*t.shard_group) + ")");
    if (t.cp > 1 && r.s.model && std::fmod(r.s.model->seq_len, 2.0 * static_cast<double>(t.cp)) != 0)
        add_error(errors, "divisibility", "training.cp",
                  "model.seq_len (" + fmt_num(r.s.model->seq_len) + ") must be divisible by 2 x training.cp (" +
                      fmt_num(2.0 * static_cast<double>(t.cp)) + "): causal load balancing gives each rank two chunks");
    if (t.vpp > 1 && t.pp == 1 && r.known({"pp"}))
        add_error(errors, "range", "training.vpp", "training.vpp > 1 (interleaved schedule) needs training.pp > 1");
    if (t.dualpipe && t.vpp > 1)
        add_error(errors, "conflict", "training.vpp",
                  "training.vpp > 1 (the interleaved schedule) and training.dualpipe are two schedules: DualPipe runs its two directions "
                  "instead of interleaved chunks");
    if (t.dualpipe && t.pp == 1 && r.known({"pp"}))
        add_error(errors, "range", "training.dualpipe",
                  "training.dualpipe (DeepSeek-V3's bidirectional pipeline schedule) needs training.pp > 1");
    // deepseek-ai/DualPipe dualpipe/dualpipe.py DualPipe.step: assert num_ranks % 2 == 0 (each rank
    // holds stage i of one direction and stage pp - 1 - i of the other).
    if (t.dualpipe && t.pp > 1 && t.pp % 2 != 0 && r.known({"pp"}))
        add_error(errors, "range", "training.pp",
                  "training.pp must be even with training.dualpipe: each device holds stage i of one direction and stage pp - 1 - i "
                  "of the other (deepseek-ai/DualPipe asserts an even number of ranks)");
    check_moe_overlap(r, errors);
}

// Heads split over tensor-parallel ranks; every pipeline chunk needs a layer.
void check_layout_against_model(const LayoutRules& r, Errors& errors) {
    if (!r.s.model) return;
    const TrainingConfig& t = r.t;
    const ModelSpec& m = *r.s.model;
    if (m.has_architecture) {
        if (r.known({"tp"}) && !divides(m.heads, static_cast<double>(t.tp)))
            add_error(errors, "divisibility", "training.tp",
                      "model.heads (" + fmt_num(m.heads) + ") must be divisible by training.tp (" + fmt_num(t.tp) + ")");
        if (r.known({"tp"}) && !m.is_mla() && !divides(m.kv_heads, static_cast<double>(t.tp)) &&
            !divides(static_cast<double>(t.tp), m.kv_heads))
            add_error(errors, "divisibility", "training.tp",
                      "model.kv_heads (" + fmt_num(m.kv_heads) + ") and training.tp (" + fmt_num(t.tp) + ") must divide one another");
    }
    // Uneven stages are allowed (training_step.cpp stage_split: as in BLOOM's 70 layers on 12 stages
    // or Llama 3's 126 on 16), but every model chunk needs a layer, or the embedding or the loss
    // (Megatron-Core account_for_embedding/loss_in_pipeline_split). A bare parameter count runs on an
    // assumed GPT-like shape (training_model), whose layers bound the pipeline the same way.
    const double layers = m.has_architecture ? m.layers : training_model(m).shape.layers;
    if (layers + 2 < static_cast<double>(t.pp * t.vpp))
        add_error(errors, "range", "training.pp",
                  m.has_architecture
                      ? "model.layers (" + fmt_num(layers) + ") + 2 (embedding and loss) must be at least training.pp x training.vpp (" +
                            fmt_num(t.pp * t.vpp) + ")"
                      : "the shape assumed for model.params has " + fmt_num(layers) +
                            " layers; + 2 (embedding and loss) must be at least training.pp x training.vpp (" + fmt_num(t.pp * t.vpp) +
                            "): give model.layers (and the rest of the architecture) or a smaller training.pp");
}

// Sharded gradients (ZeRO 2 and 3) with pipeline parallelism: only FSDP-style frameworks allow it.
void check_zero_with_pipeline(const LayoutRules& r, Errors& errors) {
    const TrainingConfig& t = r.t;
    const bool fsdp_pp = t.framework && zero_sharding_with_pipeline(*t.framework);
    if (t.zero >= 2 && t.pp > 1 && !fsdp_pp && r.known({"zero", "pp"}))
        add_error(errors, "conflict", "training.zero",
                  "training.zero " + fmt_num(t.zero) +
                      " (sharded gradients) cannot be combined with pipeline parallelism (training.pp > 1): "
                      "DeepSpeed rejects it and Megatron shards only the optimizer (zero 1); PyTorch FSDP with pipelining "
                      "(training.framework fsdp, as torchtitan and Llama 3) allows it");
}

// A mixture-of-experts model: routed experts in its architecture, or a bare parameter count whose
// total exceeds its active count (the time model then assumes routed experts).
bool moe_model(const Scenario& s) {
    if (!s.model || s.model->is_moe()) return s.model.has_value();
    if (s.model->has_architecture) return false;
    const ParamCount c = count_params(*s.model);
    return c.total > 1.01 * c.active;
}

// The experts' own tensor-parallel size (MoE parallel folding): a divisor of tp, with a given layout,
// whose expert-parallel groups (ep x expert_tp ranks) tile each stage's dp x cp x tp ranks.
void check_expert_tensor_parallel(const LayoutRules& r, Errors& errors) {
    const TrainingConfig& t = r.t;
    if (!t.expert_tp) return;
    const Count et = *t.expert_tp;
    if (!moe_model(r.s))
        add_error(errors, "range", "training.expert_tp",
                  "training.expert_tp (the routed experts' tensor parallelism) needs a mixture-of-experts model");
    else if (r.automatic && !(r.given("tp") && r.given("ep")))
        add_error(errors, "missing", "training.expert_tp",
                  "training.expert_tp needs training.tp and training.ep given: the plan search does not choose the experts' tensor "
                  "parallelism");
    else if (t.tp % et != 0)
        add_error(errors, "divisibility", "training.expert_tp",
                  "training.tp (" + fmt_num(t.tp) + ") must be divisible by training.expert_tp (" + fmt_num(et) +
                      "): gpucalc models the experts' tensor parallelism within the attention's");
    else if (t.dp && r.known({"dp", "cp"}) && (*t.dp * t.cp * t.tp) % (t.ep * et) != 0)
        add_error(errors, "divisibility", "training.expert_tp",
                  "training.dp x training.cp x training.tp (" + fmt_num(*t.dp * t.cp * t.tp) +
                      ") must be divisible by training.ep x training.expert_tp (" + fmt_num(t.ep * et) + ")");
}

// Expert parallelism: a mixture-of-experts model whose experts and ranks it divides.
void check_expert_parallel(const LayoutRules& r, Errors& errors) {
    const TrainingConfig& t = r.t;
    const Scenario& s = r.s;
    check_expert_tensor_parallel(r, errors);
    if (t.ep <= 1) return;
    // A model given by its parameter counts has the experts training_model assumes (said in a warning).
    const double experts = s.model && s.model->experts > 0 ? s.model->experts : s.model ? training_model(*s.model).in.experts : 0.0;
    if (!moe_model(s))
        add_error(errors, "range", "training.ep", "training.ep > 1 (expert parallelism) needs a mixture-of-experts model");
    else if (!divides(experts, static_cast<double>(t.ep)))
        add_error(errors, "divisibility", "training.ep",
                  (s.model->experts > 0 ? "model.experts (" + fmt_num(experts) + ")"
                                        : "the " + fmt_num(experts) + " routed experts assumed for a model given by its parameter counts") +
                      " must be divisible by training.ep (" + fmt_num(t.ep) + ")");
    // Experts shard over data-parallel ranks, or, folded (Megatron-Core MoE parallel folding,
    // arXiv:2504.14960), over data-, context- and tensor-parallel ranks with unsplit experts.
    if (t.dp && r.known({"dp", "cp", "tp"}) && (*t.dp * t.cp) % t.ep != 0 && (*t.dp * t.cp * t.tp) % t.ep != 0)
        add_error(errors, "divisibility", "training.ep",
                  "training.dp x training.cp x training.tp (" + fmt_num(*t.dp * t.cp * t.tp) + ") must be divisible by training.ep (" +
                      fmt_num(t.ep) + ")");
}

// The interleaved schedule runs the micro-batches of a step in groups of pp (Megatron-LM and
// Megatron-Core forward_backward_pipelining_with_interleaving: "number of microbatches is not
// divisible by pipeline-model-parallel-size when using interleaved schedule").
void check_interleaved_microbatches(const TrainingConfig& t, Errors& errors) {
    if (t.vpp <= 1 || t.pp <= 1 || !t.dp || !t.global_batch || *t.global_batch % (*t.dp * t.micro_batch) != 0) return;
    const Count m = *t.global_batch / (*t.dp * t.micro_batch);
    if (m % t.pp != 0)
        add_error(errors, "divisibility", "training.vpp",
                  "training.vpp > 1 (the interleaved schedule) needs the micro-batches per step, global_batch / (dp x micro_batch) = " +
                      fmt_num(static_cast<double>(m)) + ", to be a multiple of training.pp (" + fmt_num(static_cast<double>(t.pp)) + ")");
}

// The global batch (layout given): a multiple of dp x micro_batch, or the default when not given.
void resolve_global_batch(const LayoutRules& r, Errors& errors) {
    TrainingConfig& t = r.t;
    if (r.automatic || !t.dp || !r.s.model) return;
    const Count per_step = *t.dp * t.micro_batch;
    if (!t.global_batch) {
        // With interleaving, in groups of pp micro-batches (check_interleaved_microbatches).
        t.global_batch = layout_default_batch(t, r.s.model->seq_len, site_count(*r.s.hardware));
        t.batch_defaulted = true;
        t.given |= field_bit(training_fields(), "global_batch");  // resolved now: the echo gives it, and so must this
        // At least one dp x micro_batch step: the echoed default must be within global_batch's own range.
        for (const auto& f : training_fields())
            if (f.spec.name == "global_batch" && static_cast<double>(*t.global_batch) > f.spec.max)
                add_error(errors, "range", "training.micro_batch",
                          "training.global_batch defaults to a multiple of training.dp x training.micro_batch (" + fmt_num(per_step) +
                              "), above its limit " + fmt_num(f.spec.max) + ": a smaller training.micro_batch");
    } else if (*t.global_batch % per_step != 0) {
        add_error(errors, "divisibility", "training.global_batch",
                  "training.global_batch (" + fmt_num(*t.global_batch) + ") must be divisible by training.dp x training.micro_batch (" +
                      fmt_num(per_step) + ")");
    }
    check_interleaved_microbatches(t, errors);
}

// Rules that tie the parallel layout to the model, the device count and the batch (Megatron-LM:
// Narayanan et al. 2021 Sec. 3; Korthikanti et al. 2022). With layout auto, only the fields the
// scenario gives are checked here: the plan search chooses the rest from valid layouts only.
void check_training_layout(Scenario& s, Errors& errors, bool searched) {
    const LayoutRules r{s, *s.training, searched || s.training->layout == LayoutMode::automatic};
    resolve_data_parallel(r, errors);
    check_group_sizes(r, errors);
    check_layout_against_model(r, errors);
    check_zero_with_pipeline(r, errors);
    check_expert_parallel(r, errors);
    resolve_global_batch(r, errors);
}

// The rules between the layout fields given and the model, none on the device count (LayoutCheck::model).
void check_training_layout_model(Scenario& s, Errors& errors) {
    const LayoutRules r{s, *s.training, true};
    check_group_sizes(r, errors);
    check_layout_against_model(r, errors);
    check_zero_with_pipeline(r, errors);
    check_expert_parallel(r, errors);
}

// Sites of equal size (without pools): no more sites than devices, a count they divide, whole nodes.
void check_equal_sites(const Hardware& hw, Errors& errors) {
    if (!hw.pools.empty() || hw.sites <= 1) return;
    const Count dpn = std::max<Count>(1, hw.devices_per_node);
    if (hw.sites > hw.count)
        add_error(errors, "range", "hardware.sites",
                  "hardware.sites (" + fmt_num(static_cast<double>(hw.sites)) + ") must not exceed hardware.count (" +
                      fmt_num(static_cast<double>(hw.count)) + ")");
    else if (hw.count % hw.sites != 0)
        add_error(errors, "divisibility", "hardware.sites",
                  "hardware.count (" + fmt_num(static_cast<double>(hw.count)) + ") must be divisible by hardware.sites (" +
                      fmt_num(static_cast<double>(hw.sites)) + "): sites are of equal size (use hardware.pools for unequal ones)");
    else if (hw.count / hw.sites > dpn && (hw.count / hw.sites) % dpn != 0)
        add_error(errors, "divisibility", "hardware.sites",
                  "devices per site (" + fmt_num(static_cast<double>(hw.count / hw.sites)) +
                      ") must be whole nodes of hardware.devices_per_node (" + fmt_num(static_cast<double>(dpn)) + ")");
}

// The WAN fields apply between several sites, and not when the network preset already puts every
// node in its own site (net is that preset when nodes_are_sites).
void check_wan_fields(const Hardware& hw, const NetworkPreset* net, bool nodes_are_sites, Errors& errors) {
    const bool several_sites = hw.sites > 1 || nodes_are_sites;
    const char* wan_keys[] = {"wan", "wan_bytes_per_second", "wan_latency_seconds"};
    const bool wan_given[] = {hw.wan.has_value(), hw.wan_bytes_per_second.has_value(), hw.wan_latency_seconds.has_value()};
    for (int i = 0; i < 3; ++i) {
        if (!wan_given[i]) continue;
        const std::string f = std::string("hardware.") + wan_keys[i];
        if (nodes_are_sites)
            add_error(errors, "conflict", f,
                      f + " does not apply: hardware.network " + net->id +
                          " already joins every node over the WAN (set hardware.sites for sites of several nodes)");
        else if (!several_sites)
            add_error(errors, "conflict", f, f + " needs several sites (hardware.sites > 1, or pools in several sites)");
    }
}

// A mixed fleet: training only, each pool's layout chosen by the plan search.

// FP8 training runs attention, norms and the output layer in 16 bits, and its MFU is measured against
// the 16-bit peak: a device must list one.
std::string fp8_needs_16_bit(const Device& d) {
    return "training.precision fp8 runs attention and the output layer in 16 bits and measures MFU against the 16-bit peak: " + d.name +
           " lists no bf16 or fp16 peak (hardware.device.peak_flops_per_second)";
}

void check_mixed_fleet(Scenario& s, Errors& errors) {
    // A mixed fleet's pools choose their own layouts (fleet.cpp: each pool's automatic layout when
    // data parallel, which may use expert parallelism; pipeline stages without it): the combined 1F1B
    // schedule is not modelled across them.
    if (s.training && s.training->overlap_moe_comm)
        add_error(errors, "unsupported", "training.overlap_moe_comm",
                  "training.overlap_moe_comm (Megatron-Core's combined 1F1B schedule) is not modelled on a mixed fleet "
                  "(hardware.pools), whose pools choose their own layouts: leave it out");
    if (s.inference)
        add_error(errors, "unsupported", "hardware.pools",
                  "serving (inference) on a mixed fleet is not modelled: give hardware.device and count");
    if (s.finetune)
        add_error(errors, "unsupported", "hardware.pools", "fine-tuning on a mixed fleet is not modelled: give hardware.device and count");
    if (!s.training) return;
    auto& t = *s.training;
    if (t.layout == LayoutMode::given)
        add_error(errors, "conflict", "training.layout",
                  "training.layout given does not apply to a mixed fleet: the fleet chooses each pool's layout");
    for (const char* k : {"dp", "shard_group"}) {
        if (!training_field_given(t, k)) continue;
        const std::string f = std::string("training.") + k;
        add_error(errors, "conflict", f,
                  f + " does not apply to a mixed fleet: each pool's data-parallel size follows from its device count");
    }
    // The fleet chooses each pool's layout and the batch shares itself: a given value would be echoed
    // but not used, so it is refused.
    for (const char* k : {"tp", "pp", "cp", "ep", "expert_tp", "vpp", "micro_batch", "zero", "global_batch"}) {
        if (!training_field_given(t, k)) continue;
        const std::string f = std::string("training.") + k;
        add_error(errors, "conflict", f,
                  f + " does not apply to a mixed fleet: the fleet chooses each pool's layout and its share of the batch (leave it out)");
    }
    // Every pool trains: a device without device memory or without a peak at the training precision cannot.
    for (std::size_t i = 0; i < s.hardware->pools.size(); ++i) {
        const Device& d = s.hardware->pools[i].device;
        const std::string f = "hardware.pools[" + std::to_string(i) + "].device";
        if (d.kind == "cpu" || !d.memory_bytes)
            add_error(errors, "unsupported", f, d.name + " has no device memory to train in (CPU sockets use system RAM)");
        else if (!d.peak(t.precision))
            add_error(errors, "unsupported", f,
                      d.name + " has no peak at the training precision " + std::string(precision_name(t.precision)));
        else if (!d.peak(d.sixteen_bit(t.precision)))
            add_error(errors, "unsupported", f, fp8_needs_16_bit(d));
    }
}

// Sites, the WAN and pools (network.hpp): sizes that divide, links that have something to join.
void check_network(Scenario& s, Errors& errors, LayoutCheck check) {
    const Hardware& hw = *s.hardware;
    const NetworkPreset* net = hw.network ? network_preset(*hw.network) : nullptr;
    const bool nodes_are_sites = net && net->wan() && hw.sites <= 1;
    // gpus_needed (LayoutCheck::model) answers the count: it is made of whole sites there (inverse.cpp).
    if (check != LayoutCheck::model) check_equal_sites(hw, errors);
    check_wan_fields(hw, net, nodes_are_sites, errors);
    if (s.training) {
        const TrainingConfig& t = *s.training;
        if (t.outer_overlap_steps > t.local_steps)
            add_error(errors, "range", "training.outer_overlap_steps",
                      "training.outer_overlap_steps (" + fmt_num(static_cast<double>(t.outer_overlap_steps)) +
                          ") must not exceed training.local_steps (" + fmt_num(static_cast<double>(t.local_steps)) + ")");
    }
    if (mixed_fleet(hw)) check_mixed_fleet(s, errors);
    if ((s.inference || s.finetune) && hw.sites > 1 && !mixed_fleet(hw))
        add_error(errors, "unsupported", "hardware.sites",
                  "hardware.sites applies to training: serving and fine-tuning are modelled within one site (leave sites out)");
}

constexpr double kLeastRequestsPerDay = 1e-6;  // a guard against underflow, not a measurement

// A traffic so small that a day's tokens round away (5e-324 requests) would size 0 GPUs and divide
// costs by nothing: a millionth of a request a day is the least that is sized.
void check_traffic(const InferenceConfig& c, Errors& errors) {
    if (c.requests_per_day > 0 && c.requests_per_day < kLeastRequestsPerDay)
        add_error(errors, "range", "inference.requests_per_day",
                  "inference.requests_per_day must be 0 (no traffic sizing) or at least " + fmt_num(kLeastRequestsPerDay) + ", got " +
                      fmt_num(c.requests_per_day));
    if (c.concurrent_requests <= 0) return;
    if (c.concurrent_requests < kLeastRequestsPerDay)  // the same guard: a traffic that rounds away sizes nothing
        add_error(errors, "range", "inference.concurrent_requests",
                  "inference.concurrent_requests must be 0 (none) or at least " + fmt_num(kLeastRequestsPerDay) + ", got " +
                      fmt_num(c.concurrent_requests));
    // Separate prefill and decode copies hold requests in two places (and a request's time would leave
    // out its prefill queue): give that traffic a day.
    if (c.disaggregated)
        add_error(errors, "unsupported", "inference.concurrent_requests",
                  "with inference.disaggregated the traffic is given as inference.requests_per_day");
    if (c.requests_per_day > 0)
        add_error(errors, "conflict", "inference.concurrent_requests",
                  "inference.concurrent_requests and inference.requests_per_day are two ways to give the traffic: give one");
    // The latency search weighs GPU counts against one arrival rate; concurrency's rate depends on the
    // candidate's own request time.
    if (c.slo)
        add_error(errors, "unsupported", "inference.concurrent_requests",
                  "the latency-target search (inference.slo) sizes a traffic given per day: leave inference.concurrent_requests "
                  "out and give inference.requests_per_day");
}

// Cross-field rules (Megatron-LM constraints: Narayanan et al. 2021 Sec. 3; Korthikanti et al. 2022).
// Serving options that depend on the model: layers on the device, and a draft smaller than the model.
void check_serving_model_options(const InferenceConfig& c, const ModelSpec& m, Errors& errors) {
    if (c.gpu_layers && m.has_architecture && static_cast<double>(*c.gpu_layers) > m.layers)
        add_error(errors, "range", "inference.gpu_layers",
                  "inference.gpu_layers (" + fmt_num(static_cast<double>(*c.gpu_layers)) + ") must not exceed model.layers (" +
                      fmt_num(m.layers) + ")");
    if (c.gpu_layers && !m.has_architecture)
        add_error(errors, "missing", "inference.gpu_layers", "inference.gpu_layers needs a model architecture (layers)");
    const double active = count_params(m).active;
    if (c.speculative && active > 0 && c.speculative->draft_params >= active)
        add_error(errors, "range", "inference.speculative.draft_params",
                  "inference.speculative.draft_params (" + fmt_num(c.speculative->draft_params) +
                      ") must be smaller than the model's active parameters (" + fmt_num(active) + "): a draft is a smaller model");
}

// A framework that runs on the device and supports the precision. Megatron-LM / NeMo, DeepSpeed,
// torchtitan and llm-foundry run on CUDA or ROCm GPUs, not on TPUs (PyTorch FSDP has an XLA
// implementation, torch_xla.distributed.fsdp; MaxText runs on both). Megatron-LM of 2021-2022
// (megatron-legacy) predates FP8 training, which came with Transformer Engine in Megatron-Core (2023).
void check_framework(const TrainingConfig& t, const Hardware& hw, Errors& errors) {
    if (!t.framework) return;
    const Framework f = *t.framework;
    const bool gpu_only = f == Framework::megatron || f == Framework::megatron_legacy || f == Framework::deepspeed ||
                          f == Framework::torchtitan || f == Framework::llm_foundry;
    const Device* tpu = hw.device.kind == "tpu" ? &hw.device : nullptr;
    for (const Pool& p : hw.pools)
        if (p.device.kind == "tpu") tpu = &p.device;
    // "nemo" reads as megatron (NeMo trains with Megatron-Core): the message names both.
    const std::string name = std::string(framework_name(f)) + (f == Framework::megatron ? " (Megatron-Core / NeMo)" : "");
    if (gpu_only && tpu)
        add_error(errors, "unsupported", "training.framework",
                  "training.framework " + name + " runs on GPUs, not on TPUs (" + tpu->name + "): use maxtext (or fsdp, PyTorch/XLA)");
    if (f == Framework::megatron_legacy && t.precision == Precision::fp8)
        add_error(errors, "unsupported", "training.precision",
                  "training.precision fp8 needs Transformer Engine (Megatron-Core, 2023): training.framework megatron-legacy "
                  "(Megatron-LM 2021-2022) has none; use megatron");
}

// A serving copy's layout: tp x ep GPUs within hardware.count, tp dividing the heads and dividing (or
// divided by) the KV heads, ep dividing the experts of a mixture of experts.
void check_serving_layout(const Scenario& s, Errors& errors) {
    const InferenceConfig& c = *s.inference;
    // Copies of tp x ep GPUs each; GPUs left over stay idle (the report says how many).
    // (An omitted tp is chosen within these rules: at least 1.)
    const Count tp = c.tp.value_or(1);
    if (s.hardware->count < tp * c.ep)
        add_error(errors, "range", c.ep > 1 ? "inference.ep" : "inference.tp",
                  "hardware.count (" + fmt_num(s.hardware->count) + ") is fewer than the GPUs of one copy, " +
                      (c.tp ? "inference.tp x inference.ep (" : "inference.ep (") + fmt_num(tp * c.ep) + ")");
    if (c.tp && s.model && s.model->has_architecture && !divides(s.model->heads, static_cast<double>(tp)))
        add_error(errors, "divisibility", "inference.tp",
                  "model.heads (" + fmt_num(s.model->heads) + ") must be divisible by inference.tp (" + fmt_num(tp) + ")");
    // (kv_heads 6 at tp 4 had been served; a red team.)
    else if (c.tp && s.model && s.model->has_architecture && !kv_heads_split(*s.model, static_cast<double>(tp)))
        add_error(
            errors, "divisibility", "inference.tp",
            "model.kv_heads (" + fmt_num(s.model->kv_heads) + ") and inference.tp (" + fmt_num(tp) +
                "): one must divide the other (each rank holds whole key/value heads, or one is replicated over tp / kv_heads ranks)");
    if (c.ep > 1) {
        if (!s.model || !s.model->is_moe())
            add_error(errors, "range", "inference.ep", "inference.ep > 1 (expert parallelism) needs a mixture-of-experts model");
        else if (!divides(s.model->experts, static_cast<double>(c.ep)))
            add_error(errors, "divisibility", "inference.ep",
                      "model.experts (" + fmt_num(s.model->experts) + ") must be divisible by inference.ep (" + fmt_num(c.ep) + ")");
    }
}

void check_consistency(Scenario& s, Errors& errors, LayoutCheck check) {
    if (s.training && !s.hardware) add_error(errors, "missing", "hardware", "training needs hardware (device and count)");
    if (s.training && !s.model && check == LayoutCheck::scenario) add_error(errors, "missing", "model", "training needs a model");
    if (s.inference && !s.hardware) add_error(errors, "missing", "hardware", "inference needs hardware (device and count)");
    if (s.inference && !s.model) add_error(errors, "missing", "model", "inference needs a model");
    if (s.finetune && !s.hardware) add_error(errors, "missing", "hardware", "finetune needs hardware (device and count)");
    if (s.finetune && !s.model) add_error(errors, "missing", "model", "finetune needs a model");
    if (s.finetune && s.hardware && !s.hardware->device.memory_bytes)
        add_error(errors, "unsupported", "hardware.device", s.hardware->device.name + " has no device memory size");
    if (s.training && s.hardware) {
        auto& t = *s.training;
        const Device& d = s.hardware->device;
        check_precision_peaks(d, t.precision, errors);
        if (!t.sequence_parallel) t.sequence_parallel = t.tp > 1;
        check_framework(t, *s.hardware, errors);
    }
    if (s.training && s.hardware) {
        auto& t = *s.training;
        const auto& tf = training_fields();
        const bool sizes_given = (t.given & (field_bit(tf, "tp") | field_bit(tf, "pp") | field_bit(tf, "dp"))) != 0;
        if (!t.layout) t.layout = sizes_given && !mixed_fleet(*s.hardware) ? LayoutMode::given : LayoutMode::automatic;
        if (check == LayoutCheck::model && !mixed_fleet(*s.hardware))
            check_training_layout_model(s, errors);
        else if (check != LayoutCheck::none && !mixed_fleet(*s.hardware))
            check_training_layout(s, errors, check == LayoutCheck::search);
    }
    if (s.hardware) check_network(s, errors, check);
    if (s.inference && s.hardware) {
        auto& c = *s.inference;
        const Device& d = s.hardware->device;
        check_serving_layout(s, errors);
        if (c.attention_dp && (!s.model || !s.model->is_mla()))
            add_error(errors, "range", "inference.attention_dp",
                      "inference.attention_dp (data-parallel attention) applies to multi-head latent attention models (kv_lora_rank > 0)");
        if (s.model) check_serving_model_options(c, *s.model, errors);
        check_traffic(c, errors);
        if (!d.memory_bandwidth_bytes_per_second)
            add_error(errors, "unsupported", "hardware.device", d.name + " has no published memory bandwidth");
        if (!d.memory_bytes)
            add_error(errors, "unsupported", "hardware.device", d.name + " has no device memory size (CPU sockets use system RAM)");
    }
}

}  // namespace

// The training precision's peak on the device, and for FP8 a 16-bit one beside it.
void check_precision_peaks(const Device& d, Precision p, Errors& errors) {
    if (!d.peak(p))
        add_error(errors, "unsupported", "training.precision",
                  "training.precision " + std::string(precision_name(p)) + " has no published peak on " + d.name);
    else if (!d.peak(d.sixteen_bit(p)))
        add_error(errors, "unsupported", "training.precision", fp8_needs_16_bit(d));
}

bool parse_scenario(const json& j, Scenario& s, Errors& errors, LayoutCheck check) {
    const std::size_t before = errors.size();
    if (!j.is_object()) {
        add_error(errors, "type", "", "the scenario must be a JSON object");
        return false;
    }
    check_keys(j, "", errors,
               {"model", "hardware", "training", "inference", "costs", "compare", "roofline", "scaling", "explain", "name", "description",
                "finetune"});
    if (const json* m = object(j, "model", "", errors)) {
        ModelSpec spec;
        if (model_from_json(*m, "model", spec, errors)) s.model = spec;
    }
    if (const json* h = object(j, "hardware", "", errors)) parse_hardware(*h, s, errors);
    if (const json* t = object(j, "training", "", errors)) parse_training(*t, s, errors);
    if (const json* t = object(j, "inference", "", errors)) parse_inference(*t, s, errors);
    if (const json* c = object(j, "costs", "", errors)) parse_costs(*c, s, errors);
    if (const json* f = object(j, "finetune", "", errors)) parse_finetune(*f, s, errors);
    if (const json* c = object(j, "compare", "", errors)) parse_compare(*c, s, errors);
    if (const json* c = object(j, "roofline", "", errors)) parse_roofline(*c, s, errors);
    if (auto v = boolean(j, "scaling", "", errors)) s.scaling = *v;
    if (auto v = boolean(j, "explain", "", errors)) s.explain = *v;
    string(j, "name", "", errors, false, 200);
    string(j, "description", "", errors, false, 2000);
    if (errors.size() == before) check_consistency(s, errors, check);
    if (errors.size() == before && !s.hardware && !s.compare && !s.roofline && !s.model && !s.finetune)
        add_error(errors, "missing", "", "the scenario asks for nothing: give hardware, model, training, inference, compare or roofline");
    return errors.size() == before;
}

}  // namespace gpucalc
